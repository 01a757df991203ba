"""Financial-statement tables in PDFs, read with the column headers each number sits under.

In a filing, a row like "LinkedIn 3,876 3,531 7,539 6,667" means nothing without the lines above
it ("Three Months Ended / Six Months Ended", "December 31,", "2022 2021 2022 2021"). Those header
lines are plain text: pdfplumber's extract_tables() returns each row as a one-row table without
them. So the page is rebuilt from word boxes: lines whose right end is a run of numbers are table
rows; the numbers' x positions give the columns; the lines just above are header lines whose
phrases are put over the nearest column (a spanning "Three Months Ended" over both of its years),
and the prose line above them is the caption. Each row is then written out with its headers:
"LinkedIn | Three Months Ended December 31, 2022: 3,876 | Three Months Ended December 31, 2021: 3,531".

Word boxes come from PDFium's character boxes (about 60 ms a page here, against 1-1.6 s for
pdfplumber's extract_words on the same pages), and only on pages whose text already shows
number columns, so a filing's prose pages cost nothing extra.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from statistics import median

from core.annotations.conditions import YEAR_DIGITS

# A printed figure: 1,234 | (1,234) | 12.5% | $ signs are separate words in most filings.
_NUMBER = re.compile(r"^\(?-?[$€£]?\(?\d(?:[\d,]*\d)?(?:\.\d+)?\)?%?\)?$")  # not "31,": a date
_DASH = re.compile(r"^[—–\-]+$")  # "—": nil, printed in a column like a number
_MARK_CELL = re.compile(r"^\(\d\)$")  # "(1)": a footnote mark when a whole column holds only such
_YEAR = re.compile(rf"^{YEAR_DIGITS}$")
_CURRENCY = {"$", "€", "£"}
# A text line ending in two or more figures: the cheap test for "this page holds number columns".
_YEARS_SIDE_BY_SIDE = re.compile(rf"(?:^|\s){YEAR_DIGITS}\s+{YEAR_DIGITS}(?:\s|$)")
_ROW_IN_TEXT = re.compile(r"\S.*?(?:\s+(?:\$\s*)?\(?-?\d[\d,]*(?:\.\d+)?%?\)?%?|\s+[—–]){2,}\s*$")  # "(87%)" too
PHRASE_GAP = 0.55  # of the line height: a gap between words this wide ends a phrase (a header cell, a cell)


@dataclass
class Word:
    text: str
    x0: float
    x1: float
    top: float
    bottom: float


@dataclass
class Line:
    words: list[Word]

    @property
    def top(self) -> float:
        return min(w.top for w in self.words)

    @property
    def bottom(self) -> float:
        return max(w.bottom for w in self.words)

    @property
    def height(self) -> float:
        return median(w.bottom - w.top for w in self.words)

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)


@dataclass
class Phrase:
    """Words of one line with no wide gap between them: one header cell, or one stretch of prose."""
    text: str
    x0: float
    x1: float


@dataclass
class PdfTableRow:
    label: str
    values: list[str]  # one per column, "" where the row has no figure in it


@dataclass
class PdfTable:
    """One table on a page: header text per column (all header lines joined, top to bottom)."""
    page: int
    caption: str
    stub: str  # the header over the label column, e.g. "(In millions)"
    columns: list[str]
    rows: list[PdfTableRow] = field(default_factory=list)
    # Each column's header lines, top to bottom (what `columns` joins): where a spanning line ends.
    header_rows: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # footnotes printed under the table, each from its marker
    unit: str = ""  # the scale or unit the table states ("in millions", "£k", "$'000"), "" when none

    def head(self) -> list[str]:
        """What a reader needs above any of the table's rows: the caption, the unit when the header does
        not show it, a spanning header line ("Years Ended September 30,") when every column shares it, and
        the column line ("(In millions) | 2019 | 2018 | 2017")."""
        shared, columns = spanning_prefix(self.header_rows, self.columns)
        lines = [self.caption] if self.caption else []
        shown = " ".join([self.caption, self.stub, *self.columns]).lower()
        if self.unit and self.unit.lower() not in shown:
            lines.append(f"({self.unit})")
        if shared:
            lines.append(shared)
        if any(columns):
            lines.append(" | ".join([self.stub, *columns]).strip())
        elif self.stub:
            lines.append(self.stub)
        return lines

    def grid_rows(self) -> list[str]:
        """Each row once, its label then one cell per column in the header's order ("" kept, so the
        n-th cell is under the n-th header): the compact grid a reader addresses by row and column."""
        return [" | ".join([row.label, *row.values]) if any(row.values) else row.label for row in self.rows]

    def row_text(self, row: PdfTableRow) -> str:
        """"LinkedIn | Three Months Ended December 31, 2022: 3,876 | ...": every figure with its header."""
        cells = [f"{header}: {value}" if header else value
                 for header, value in zip(self.columns, row.values) if value]
        return " | ".join([row.label, *cells] if row.label else cells)

    def lines(self) -> list[str]:
        return [self.row_text(r) for r in self.rows]


def spanning_prefix(header_rows: list[list[str]], columns: list[str]) -> tuple[str, list[str]]:
    """The header lines every column has on top, when they span them all ("Years Ended September 30,"
    over "2019", "2018"), and the rest of each column's header; ("", columns) when they share none.
    Whole lines only: "April" over "27, 2019" and "28, 2018" is one header each, not a span."""
    if len(columns) < 2 or len(header_rows) != len(columns) or not all(header_rows):
        return "", columns
    n = 0
    while all(len(h) > n + 1 and h[n] == header_rows[0][n] for h in header_rows):
        n += 1
    if n == 0:
        return "", columns
    return " ".join(header_rows[0][:n]), [" ".join(h[n:]).replace(" ,", ",") for h in header_rows]


# A scale or unit printed over a table: "(In millions)", "$ in thousands", "(£k)", "£'000", "Ml".
_UNIT = re.compile(
    r"(?:[$€£]\s*)?\bin\s+(?:(?:thousand|million|billion)s?|000[‘’']?s)(?:\s+of\s+[\w.$€£ ]+?)?(?:,?\s+except[^)]*)?(?=\)|$|,|;)"
    r"|[$€£]\s?[’']?000s?\b|[$€£](?:k|m|bn)\b|\b(?:Ml/d|Ml|ML|kWh|MWh|GWh|tonnes)\b", re.I)


def unit_of(texts: list[str]) -> str:
    """The first scale or unit stated in the given texts (caption, stub, column headers)."""
    for text in texts:
        found = _UNIT.search(text or "")
        if found:
            return found.group(0).strip()
    return ""


# A scale the text around a table states in brackets: "(in thousands)", "(dollars in millions)", "(All amounts
# expressed in thousands of U.S. Dollars)", "(shares in thousands, except per share data)" (kept with its exception:
# the rows it names are not scaled); "unless otherwise disclosed" names no rows
_PAGE_SCALE = re.compile(r"\((?:[a-z$€£ ]*\s)?in ((?:thousand|million|billion)s?|000[‘’']?s)"
                         r"(?:\s+of\s+[a-z$€£.]+(?:\s+[a-z$€£.]+){0,2})?"
                         r"(,?\s+except\s[^)]*)?(?:,?\s+unless\s+otherwise\s+[a-z]+)?\)", re.I)


def scale_line(text: str) -> str:
    """The scale a line states when that is all it states ("(In thousands)" under the year headers: no section
    label of the rows below it), else ""."""
    bare = text.strip().strip("()").strip()
    found = _UNIT.search(bare)
    return bare if found is not None and found.group(0).strip() == bare else ""


# A footnote marker: "(1)", "(a)", "*", "†" at the end of a label or header, or opening a footnote line.
_MARKER = re.compile(r"\((\d{1,2}|[a-z])\)|([*†‡]+)")
_NOTE_START = re.compile(r"^\s*(\((?:\d{1,2}|[a-z])\)|[*†‡]+)\s*\S")


def markers(text: str) -> list[str]:
    """The footnote markers a label or header carries ("Other (2)" -> ["(2)"])."""
    return [m.group(0) for m in _MARKER.finditer(text)]


def markers_in(table: PdfTable) -> set[str]:
    """The footnote markers the table's labels and headers carry."""
    return {m for text in [row.label for row in table.rows] + table.columns + [table.stub] for m in markers(text)}


def footnotes_of(table: PdfTable) -> dict[str, str]:
    """Each footnote of the table by its marker ("(1)" -> "(1) Includes ...")."""
    found = {}
    for note in table.notes:
        start = _NOTE_START.match(note)
        if start:
            found.setdefault(start.group(1), note)
    return found


@dataclass
class _Block:
    """A run of table lines on a page, and where its header and caption were found."""
    first: int  # index of the first line that belongs to the table (header or row)
    last: int  # the last row, or the last line of its footnotes
    table: PdfTable
    columns: list[tuple[float, float]]  # x spans of the figure columns


# --- the cheap test ------------------------------------------------------------------------------

def looks_tabular(text: str, min_rows: int = 3) -> bool:
    """At least `min_rows` lines of the page end in two or more figures; or two such lines under a line of
    years side by side ("2019 2018 $ %"), a report's short table (an impairment and its share of revenue)."""
    lines = [line.strip() for line in text.splitlines()]
    rows = sum(1 for line in lines if _ROW_IN_TEXT.match(line))
    return rows >= min_rows or rows >= 2 and any(_YEARS_SIDE_BY_SIDE.search(line) for line in lines)


# --- words and lines from PDFium -------------------------------------------------------------------

def page_words(textpage, page_height: float) -> list[Word]:
    """Words from PDFium's characters: split at white space and at gaps wider than a third of
    the character height (table cells are often placed without a space between them)."""
    text = textpage.get_text_range()
    words: list[Word] = []
    current: list[tuple[str, tuple[float, float, float, float]]] = []

    def flush() -> None:
        if current:
            boxes = [b for _, b in current]
            words.append(Word("".join(c for c, _ in current), min(b[0] for b in boxes), max(b[2] for b in boxes),
                              page_height - max(b[3] for b in boxes), page_height - min(b[1] for b in boxes)))
            current.clear()

    for index, char in enumerate(text):
        if char.isspace():
            flush()
            continue
        left, bottom, right, top = textpage.get_charbox(index, loose=True)  # advance boxes: digits of one number touch
        if right <= left and top <= bottom:  # a generated character without a box
            flush()
            continue
        if current:
            prev = current[-1][1]
            low, high = min(b[1] for _, b in current), max(b[3] for _, b in current)
            height = max(high - low, top - bottom, 1.0)
            # overlap, not equal middles: a comma's box hangs below the digits beside it
            same_line = bottom < high and top > low
            if not same_line or left - prev[2] > height / 3 or left < prev[0] - height:
                flush()
        current.append((char, (left, bottom, right, top)))
    flush()
    return words


def group_lines(words: list[Word]) -> list[Line]:
    """Words sharing a vertical middle, top to bottom, each line left to right."""
    lines: list[list[Word]] = []
    for word in sorted(words, key=lambda w: ((w.top + w.bottom) / 2, w.x0)):
        middle = (word.top + word.bottom) / 2
        if lines:
            last = lines[-1]
            last_middle = median((w.top + w.bottom) / 2 for w in last)
            height = max(median(w.bottom - w.top for w in last), word.bottom - word.top)
            if abs(middle - last_middle) < height * 0.5:
                last.append(word)
                continue
        lines.append([word])
    return [Line(sorted(ws, key=lambda w: w.x0)) for ws in lines]


def phrases(line: Line) -> list[Phrase]:
    """Split a line where the gap between words is wider than about two spaces (a space is about
    a quarter of the line height): headers of neighbouring columns can be that close."""
    bounds = sorted(_phrase_starts(line)) + [len(line.words)]
    return [Phrase(" ".join(w.text for w in line.words[a:b]), line.words[a].x0, line.words[b - 1].x1)
            for a, b in zip(bounds, bounds[1:])]


# --- rows ----------------------------------------------------------------------------------------

@dataclass
class _Cell:
    text: str
    x0: float
    x1: float
    text_cell: bool = False  # words, not a figure
    apart: bool = False  # set apart from the words before it by a wide gap, as a cell is


def _is_figure(text: str) -> bool:
    return bool(_NUMBER.match(text) or _DASH.match(text))


# A cell printed as words in a column of figures ("N/A", "Indefinite", "2039 or indefinite"): a short phrase
# of its own, set apart from the label by a wide gap
TEXT_CELL_MAX_WORDS = 3


def _split_row(line: Line) -> tuple[list[Word], list[_Cell]]:
    """The label words and the trailing cells of a line: figures ("$" and "%" joined to their number), and
    short phrases set apart like cells. A phrase is a cell only where figures of other rows make a column
    (`_read_block` gives the others back to the label)."""
    words = line.words
    starts = _phrase_starts(line)
    end = len(words)
    cells: list[_Cell] = []
    while end > 0:
        word = words[end - 1]
        if word.text in _CURRENCY and cells and not cells[0].text_cell:
            if _YEAR.match(cells[0].text) and end in starts:
                break  # "£   2024   2023": the currency heads the label column of a year header; it is no "£2024"
            cells[0] = _Cell(word.text + cells[0].text, cells[0].x0, cells[0].x1,  # keep the number's box
                             apart=end - 1 in starts)
        elif word.text in {"%", ")"} and end > 1 and _is_figure(words[end - 2].text):
            prev = words[end - 2]
            cells.insert(0, _Cell(prev.text + word.text, prev.x0, word.x1, apart=end - 2 in starts))
            end -= 1
        elif _is_figure(word.text):
            cells.insert(0, _Cell(word.text, word.x0, word.x1, apart=end - 1 in starts))
        else:
            start = max(i for i in starts if i < end)
            if start == 0 or end - start > TEXT_CELL_MAX_WORDS or (end < len(words) and end not in starts) \
                    or any(w.text.endswith(":") for w in words[start:end]):
                break  # the label itself, or words running on into a figure
            cells.insert(0, _Cell(" ".join(w.text for w in words[start:end]), words[start].x0, word.x1, text_cell=True, apart=True))
            end = start
            continue
        end -= 1
    return words[:end], cells


def _phrase_starts(line: Line) -> set[int]:
    """The indexes of the words that start a phrase: after a gap wider than about two spaces (a space is about
    a quarter of the line height)."""
    gap = line.height * PHRASE_GAP
    return {0} | {i for i in range(1, len(line.words)) if line.words[i].x0 - line.words[i - 1].x1 > gap}


def _is_year_header(label: list[Word], cells: list[_Cell]) -> bool:
    """'2022 2021' above the figures is a header line, not a row, also with words at its left
    ("Years ended December 31,", "(Dollars in millions)")."""
    return all(_YEAR.match(c.text) for c in cells)


def _is_row(label: list[Word], cells: list[_Cell]) -> bool:
    """A line ending in two or more figures: the rows that find a table."""
    last_words = max((i for i, c in enumerate(cells) if c.text_cell), default=-1)
    figures = cells[last_words + 1:]
    return len(figures) >= 2 and not _is_year_header(label, figures)


def _is_worded_row(cells: list[_Cell]) -> bool:
    """A row printing words in a column of figures ("Current assets $37,390 N/A"): it continues a table its
    figure rows found, never starts one, and holds at least as many figures (not a year, not a mark) as
    words, so a header line ("2019 2018 % Change") is none."""
    words = sum(c.text_cell for c in cells)
    figures = sum(c.apart and not c.text_cell and not _MARK_CELL.match(c.text) and not _YEAR.match(c.text.rstrip("%"))
                  for c in cells)  # ("Level 3" in a header is a word's number, not a cell)
    return words > 0 and figures >= words


def _figures(cells: list[_Cell]) -> list[_Cell]:
    """A row's cells that are figures, not words: they make a table's columns."""
    return [c for c in cells if not c.text_cell]


# --- columns -------------------------------------------------------------------------------------

def _columns(rows: list[list[_Cell]]) -> list[tuple[float, float]]:
    """Column spans: figures of different rows that overlap horizontally share a column; a
    column must hold figures of a quarter of the rows (at least two), else they are figures
    inside labels ("24,000 shares authorized; 7,437 outstanding"), unless each of its figures is set apart
    like a cell (a "Domestic 2019" column only the first row fills). A column has a figure set apart from the
    words before it: numbers one space after their label's words ("Opening balance – IAS 39", "IFRS 9",
    "Level 2") are part of the label, however many rows print one."""
    spans = sorted((c.x0, c.x1, bool(_MARK_CELL.match(c.text)), c.apart) for cells in rows for c in cells
                   if not _DASH.match(c.text))
    merged: list[list] = []
    for x0, x1, mark, apart in spans:
        if merged and x0 <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], x1)
            merged[-1][2] += 1
            merged[-1][3] = merged[-1][3] and mark
            merged[-1][4] = merged[-1][4] and apart
            merged[-1][5] = merged[-1][5] or apart
        else:
            merged.append([x0, x1, 1, mark, apart, apart])
    # (two rows: a figure column of one is a "Change" that only one row has)
    need = max(2, len(rows) // 4) if len(rows) > 2 else 1
    # A column of nothing but "(1)", "(2)": footnote marks set apart after the labels, not figures.
    return [(x0, x1) for x0, x1, n, marks, apart, any_apart in merged
            if (n >= need or apart) and not marks and any_apart]


def _runs_on(cell: _Cell, label_words: list[Word]) -> bool:
    """Whether a cell follows its label's last word at a word's space, not a cell's gap."""
    return bool(label_words) and not cell.apart and cell.x0 >= label_words[-1].x1


def _column_of(x0: float, x1: float, columns: list[tuple[float, float]], slack: float) -> int | None:
    middle = (x0 + x1) / 2
    best, best_distance = None, slack
    for i, (c0, c1) in enumerate(columns):
        distance = 0.0 if c0 <= middle <= c1 else min(abs(middle - c0), abs(middle - c1))
        if distance <= best_distance:
            best, best_distance = i, distance
    return best


def _notes_column(header: list[str]) -> bool:
    """A report's "Note" column (the note each line refers to): a period spanning the figures beside it is not
    its header ("2019" over "Note | £m | £m" made two 2019 columns)."""
    return len(header) == 1 and header[0].strip().lower() in ("note", "notes")


def _header_distance(phrase: Phrase, column: tuple[float, float]) -> float:
    return max(0.0, phrase.x0 - column[1], column[0] - phrase.x1)


def _aligned_over(phrase: Phrase, columns: list[tuple[float, float]], tolerance: float) -> int | None:
    """The one column a header phrase lies over and ends with (within `tolerance`), right-aligned as a column's
    wrapped header is; None for a phrase over several columns or none, or that ends elsewhere (a centred span)."""
    under = [c for c, (a, b) in enumerate(columns) if phrase.x0 < b and phrase.x1 > a]
    return under[0] if len(under) == 1 and abs(phrase.x1 - columns[under[0]][1]) <= tolerance else None


# --- tables on a page ------------------------------------------------------------------------------

def read_tables(lines: list[Line], page: int) -> list[_Block]:
    """Find the tables among a page's lines and read each with its header and caption."""
    parsed = [_split_row(line) for line in lines]
    finds = [_is_row(label, cells) for label, cells in parsed]
    is_row = [found or _is_worded_row(cells) for found, (_, cells) in zip(finds, parsed)]
    blocks: list[_Block] = []
    i = 0
    while i < len(lines):
        if not finds[i]:
            i += 1
            continue
        # A table: rows, with label-only lines (section labels, wrapped labels) between them.
        members = [i]
        j = i + 1
        while j < len(lines):
            if lines[j].top - lines[members[-1]].bottom > 3 * lines[j].height:
                break
            if not is_row[j] and not _is_label_line(j, lines, members, parsed, is_row):
                break
            members.append(j)
            j += 1
        # Rows with words in a figure column just above the first figure row belong to the table when
        # their figures stand in its columns (a header line's "Level 2 Level 3" does not)
        found = _columns([_figures(parsed[m][1]) for m in members if finds[m]])
        while members[0] > 0 and is_row[members[0] - 1] and \
                lines[members[0]].top - lines[members[0] - 1].bottom <= 3 * lines[members[0]].height and \
                all(_column_of(c.x0, c.x1, found, lines[members[0] - 1].height) is not None
                    for c in _figures(parsed[members[0] - 1][1])):
            members.insert(0, members[0] - 1)
        first_row = members[0]
        # Section labels just above the first row ("Net sales:", "Assets / Current assets") belong
        # to the table too; the header lines are above them.
        while (members[0] > 0 and first_row - members[0] < 3 and not is_row[members[0] - 1]
               and _is_label_line(members[0] - 1, lines, members, parsed, is_row)):
            members.insert(0, members[0] - 1)
        row_indices = [m for m in members if is_row[m]]
        while members and not is_row[members[-1]]:
            members.pop()
        if len(row_indices) >= 2:
            block = _read_block(lines, parsed, is_row, members, page)
            if block is not None:
                blocks.append(block)
        i = (members[-1] if members else i) + 1
    for before, block in zip(blocks, blocks[1:]):
        # A statement broken by a blank stretch or a centred label continues under the same header.
        if not any(block.table.columns) and len(block.columns) == len(before.columns) and all(
                a0 <= b1 and b0 <= a1 for (a0, a1), (b0, b1) in zip(before.columns, block.columns)):
            block.table.columns = list(before.table.columns)
            block.table.header_rows = [list(h) for h in before.table.header_rows]
    for n, block in enumerate(blocks):
        table = block.table
        table.unit = unit_of([table.caption, table.stub, *table.columns]) or table.unit
        limit = blocks[n + 1].first if n + 1 < len(blocks) else len(lines)
        _attach_notes(block, lines, limit)
    if len(blocks) == 1 and not blocks[0].table.unit:
        # The page's one table, its scale said only in the text around it ("... are as follows (in
        # thousands):"): the text's scale, when it states one kind and no exception.
        only = blocks[0]
        # (the text on either side read as one, since a caption's brackets often wrap onto the next line)
        around = [" ".join(line.text for line in side) for side in (lines[:only.first], lines[only.last + 1:])]
        # ("($ in millions)" keeps its currency: the figures are dollars, "$621 million")
        stated = {(next((c for c in m.group(0)[:m.start(1) - m.start(0)] if c in _CURRENCY), ""), m.group(1).lower(),
                   " ".join((m.group(2) or "").split())) for text in around for m in _PAGE_SCALE.finditer(text)}
        if len(stated) == 1:
            sign, scale, exception = stated.pop()
            only.table.unit = f"{sign + ' ' if sign else ''}in {scale}{exception}"
    return blocks


def _attach_notes(block: _Block, lines: list[Line], limit: int) -> None:
    """The footnotes right under a table whose markers its labels or headers carry ("(1) Includes ...",
    wrapped lines joined), kept with it; the table's block then ends after them."""
    wanted = markers_in(block.table)
    if not wanted:
        return
    k = block.last + 1
    while k < limit:
        start = _NOTE_START.match(lines[k].text)
        gap = lines[k].top - lines[k - 1].bottom
        if start and start.group(1) in wanted and gap <= 2.5 * lines[k].height:
            block.table.notes.append(lines[k].text)
        elif block.table.notes and not start and gap <= 0.6 * lines[k].height:
            block.table.notes[-1] += " " + lines[k].text  # a footnote wrapped onto the next line
        else:
            break
        block.last = k
        k += 1


def _is_label_line(index: int, lines: list[Line], members: list[int], parsed, is_row: list[bool]) -> bool:
    """A line inside a table without figures: a short label at the left ("Current assets:"), or
    the first line of a label that wraps onto the row below it."""
    line = lines[index]
    # (a footnote mark after a label, "Net income (1)", is no figure: the figures start right of it)
    # (the rows' figures: a section label's own year, "December 31, 2018", is not one)
    figures_left = min((c.x0 for m in members if is_row[m] for c in parsed[m][1] if not _MARK_CELL.match(c.text)),
                       default=float("inf"))
    left_of_figures = line.words[-1].x1 < figures_left - line.height
    if left_of_figures and line.text.endswith(":"):
        return True  # a section label, wherever it is set ("LIABILITIES AND EQUITY:" is centred)
    rows_left = min(lines[m].words[0].x0 for m in members)
    if line.words[0].x0 > rows_left + 4 * line.height:
        return False
    if left_of_figures:
        return True
    below = index + 1
    return (below < len(lines) and is_row[below] and bool(parsed[below][0])
            and parsed[below][0][0].text[:1].islower())


def _years_at_left(parsed, rows: list[int], columns: list[tuple[float, float]]) -> bool:
    """Whether the first column is the rows' labels printed as years: a maturity schedule ("2026 $412 $18",
    "2027 398 17", then "Thereafter 1,205 44"), whose lines with a year have no words before it and whose
    worded lines have no figure under the years."""
    years = 0
    for m in rows:
        label_words, cells = parsed[m]
        first = [c for c in cells if _column_of(c.x0, c.x1, columns[:1], 0.0) == 0]
        if first and (label_words or not _YEAR.match(first[0].text) or first[0] is not cells[0]):
            return False
        years += bool(first)
    return years >= 2


def _read_block(lines: list[Line], parsed, is_row: list[bool], members: list[int], page: int) -> _Block | None:
    # the figures make the columns; a text cell joins the one it sits in
    columns = _columns([_figures(parsed[m][1]) for m in members if is_row[m]])
    if len(columns) < 2:
        return None
    year_labels = _years_at_left(parsed, [m for m in members if is_row[m]], columns)
    if year_labels:
        columns = columns[1:]  # the years are the rows' labels; the header names the columns right of them
    height = median(lines[m].height for m in members)
    pitch = median(b[0] - a[1] for a, b in zip(columns, columns[1:])) if len(columns) > 1 else 4 * height
    slack = max(2 * height, pitch / 2)
    reach = max(slack, 1.2 * pitch)  # how far a header phrase may sit from the column it names
    figures_left = columns[0][0]

    rows: list[PdfTableRow] = []
    group = ""  # a section label ("Current assets:") in force over the rows below it
    pending = ""  # the first line of a label that wraps onto the row's line
    scale = ""  # a line of its own stating the scale: the table's unit, not a label
    width = len(columns)
    for m in members:
        label_words, cells = parsed[m]
        year = ""
        if year_labels and not label_words and cells and _YEAR.match(cells[0].text):
            year, cells = cells[0].text, cells[1:]
        if not is_row[m]:
            text = lines[m].text
            if not scale and (stated := scale_line(text)):
                scale = stated
                continue
            if pending:  # two label lines in a row: the first stands alone, a heading over the rows below
                rows.append(PdfTableRow(pending, [""] * width))  # ("Deferred tax liabilities" over a wrapped label)
                group, pending = pending, ""  # (a line ending in ":" is the heading instead, below)
            if text.endswith(":"):
                group = text.rstrip(":")
            else:
                pending = text
            continue
        values = [""] * width
        extra: list[str] = []
        for cell in cells:
            # a number one space after the label's last word is the label's ("IAS 39"), unless it lies in a column
            k = _column_of(cell.x0, cell.x1, columns, 0.0 if _runs_on(cell, label_words) else slack)
            if k is None or values[k]:
                extra.append(cell.text)  # a footnote mark or a year in the label: text, not a figure
            else:
                values[k] = cell.text
        label = " ".join([year, *(w.text for w in label_words), *extra]).strip()
        if pending:
            if not label or label[:1].islower():
                label = f"{pending} {label}".strip()  # the label wrapped onto this line
            else:
                rows.append(PdfTableRow(pending, [""] * width))
                group = pending  # a heading without a colon over the rows below it ("Revenue")
            pending = ""
        full = f"{group}: {label}" if group and label else (label or group)
        if group and (not label or label.lower().startswith("total") or group.lower() in label.lower()):
            # the section's total closes it: "Total ...", a figure line without a label, or a line restating
            # the heading ("Gross deferred tax assets" under "Deferred tax assets")
            full, group = (label or group), ""
        rows.append(PdfTableRow(full, values))
    if pending:
        rows.append(PdfTableRow(pending, [""] * width))
    last = next((row for row in reversed(rows) if any(row.values)), None)
    if last is not None and not last.label and len(rows) > 2:
        last.label = "Total"  # a figure line without a label under the rows, outside any section: their total

    first = members[0]
    headers: list[list[str]] = [[] for _ in columns]
    # the columns a group's name, set over its first column, runs on over: the name's upper lines go to them all
    group_of = list(range(len(columns)))
    stub: list[str] = []
    caption = ""
    unreliable = False
    k = first - 1
    header_lines = 0
    named = False  # whether a line naming each column on its own was read (the lowest one must)
    while k >= 0 and header_lines < 5:
        line = lines[k]
        if lines[k + 1].top - line.bottom > 2.5 * height:
            break
        parts = phrases(line)
        # Prose starts in the label area and runs on across the figures; a header wider than its
        # figures starts at most about a column's width left of them.
        if any(p.x0 < figures_left - max(pitch, 6 * height) and p.x1 >= figures_left - height / 2 for p in parts):
            caption = line.text  # prose running across the columns: the sentence that introduces the table
            break
        stubs = [p for p in parts if p.x1 < figures_left - height / 2]
        over = [p for p in parts if p not in stubs]
        if not over and not all(p.text.startswith("(") for p in stubs):
            caption = line.text  # a title at the left ("Revenue by segment"), not a units note
            break
        if any(_NUMBER.match(p.text) and not _YEAR.match(p.text) for p in over):
            break  # figures above the rows: another table's rows, not a header
        centres = [(a + b) / 2 for a, b in columns]
        remarks = bool(over) and all(p.text.startswith("(") for p in over)  # "(In millions)" over each column
        lone = over[0] if len(over) == 1 else None
        middle, spread = (centres[0] + centres[-1]) / 2, centres[-1] - centres[0]
        aligned_lone = _aligned_over(lone, columns, height) if lone and len(columns) > 1 else None
        if aligned_lone is not None:
            # the first line of one column's wrapped header, right-aligned with its figures ("Year-ended 31
            # March 2018 Restated" over "See note 2"), though near the middle of all of them; or of a group's
            # name, over each column of the group
            for c in range(len(columns)):
                if group_of[c] == group_of[aligned_lone]:
                    headers[c].insert(0, lone.text)
        elif lone and abs((lone.x0 + lone.x1) / 2 - middle) <= spread / 4:
            for c in range(len(columns)):  # one phrase centred over the columns: it spans them all
                if not _notes_column(headers[c]):
                    headers[c].insert(0, lone.text)
        elif not over:  # a units line at the left only ("(in millions)" under the years): the stub's
            stub[:0] = [p.text for p in stubs]
            first = k
            k -= 1
            continue
        elif not named and not all(p.text.startswith("(") for p in over):
            # The line right above the rows names each column on its own ("2023 2022", "Amount
            # Amortization Amount"): one phrase over each column, else the layout is not
            # understood and the table keeps no header rather than a wrong one. Remarks in brackets
            # over some columns ("(restated, Note 3)") are read like a spanning line, above them.
            over_column = [[i for i, p in enumerate(over) if _header_distance(p, column) <= height]
                           for column in columns]
            # (of two phrases near a column, the one over its figures: "Operating leases" set tight against the
            # "Finance leases" column beside it)
            over_column = [[i for i in found if _header_distance(over[i], column) == 0] if len(found) > 1 else found
                           for found, column in zip(over_column, columns)]
            if any(len(found) != 1 for found in over_column) or len({f[0] for f in over_column}) != len(columns):
                unreliable = True
                break
            for c, (i,) in enumerate(over_column):
                headers[c].insert(0, over[i].text)
        # (right-aligned text ends where the figures end, to a point; a centred "December 31," only near them)
        elif None not in (aligned := [_aligned_over(p, columns, height / 4) for p in over]):
            # (only names set apart, over every other column or so, run on: "December" over each of three years
            # is theirs, not also the two "Variation" columns' beside them; nor is a remark, "(In millions)")
            runs_on = not remarks and all(b - a > 1 for a, b in zip(sorted(aligned), sorted(aligned)[1:]))
            # Every phrase ends where one column's figures end, over that column alone: each is the upper line of
            # its column's wrapped header ("Fixed rate" over "financial assets"), or a group's name set over the
            # group's first column ("Fiscal Year 2018" over "Net Sales", then "% of Total"). A column with none
            # takes the one to its left, as a group runs on to the right; a column left of them all ("Total",
            # one line high) takes none. A group's name wrapped over two lines goes to the same columns on both.
            for c in range(len(columns)):
                kin = [i for i, over_column in enumerate(aligned) if group_of[over_column] == group_of[c]]
                left = [i for i, over_column in enumerate(aligned) if over_column < c]
                if kin and (runs_on or c in aligned):
                    headers[c].insert(0, over[kin[0] if runs_on else aligned.index(c)].text)
                elif left and runs_on:
                    nearest = max(left, key=lambda i: aligned[i])
                    headers[c].insert(0, over[nearest].text)
                    group_of[c] = group_of[aligned[nearest]]
        else:
            for c, column in enumerate(columns):
                # each column takes the nearest phrase of a spanning line: a centred "December 31,"
                # lies over both of its years, though it may not reach either one's digits
                distance, nearest = min(((_header_distance(p, column), i) for i, p in enumerate(over)),
                                        default=(reach + 1, -1))
                if distance <= reach and (distance == 0 or not _notes_column(headers[c])):
                    headers[c].insert(0, over[nearest].text)  # read upward: each line goes in front
        stub[:0] = [p.text for p in stubs]
        first = k
        header_lines += 1
        named = named or not remarks  # (a remark names no column: the line above it still must)
        k -= 1
    column_names = [" ".join(h).replace(" ,", ",").strip() for h in headers]
    if unreliable or not any(column_names):
        column_names, stub, first, headers = [""] * len(columns), [], members[0], [[] for _ in columns]
    table = PdfTable(page=page, caption=caption, stub=" ".join(stub), columns=column_names, rows=rows,
                     header_rows=[list(h) for h in headers], unit=scale)
    return _Block(first, members[-1], table, columns)


# --- pages ---------------------------------------------------------------------------------------

def page_layout(textpage, page_height: float, page: int) -> tuple[list[Line], list[_Block]]:
    lines = group_lines(page_words(textpage, page_height))
    return lines, read_tables(lines, page)


def page_text(lines: list[Line], blocks: list[_Block]) -> str:
    """The page as lines, each table's header and rows replaced by its rows with their headers.
    The caption stays where it was, as the line above the rows."""
    return "\n".join(part if isinstance(part, str) else "\n".join([*([part.stub] if part.stub else []),
                                                                  *part.lines(), *part.notes])
                     for part in page_parts(lines, blocks))


def page_parts(lines: list[Line], blocks: list[_Block]) -> list[str | PdfTable]:
    """The page in reading order: each run of lines outside the tables as one text, and each table."""
    parts: list[str | PdfTable] = []
    run: list[str] = []
    by_first = {b.first: b for b in blocks}
    i = 0
    while i < len(lines):
        block = by_first.get(i)
        if block is None:
            run.append(lines[i].text)
            i += 1
            continue
        if run:
            parts.append("\n".join(run))
            run = []
        parts.append(block.table)
        i = block.last + 1
    if run:
        parts.append("\n".join(run))
    return parts


def read_pdf_tables(path: Path, pages: list[int] | None = None) -> list[PdfTable]:
    """Every header-aligned table of a PDF (or of the given 1-based pages), for callers that want
    the tables themselves rather than page text: e.g. to turn them into typed tables."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(path))
    try:
        numbers = pages or list(range(1, len(pdf) + 1))
        tables: list[PdfTable] = []
        for number in numbers:
            page = pdf[number - 1]
            textpage = page.get_textpage()
            try:
                if looks_tabular(textpage.get_text_range()):
                    tables += [b.table for b in page_layout(textpage, page.get_height(), number)[1]]
            finally:
                textpage.close()
                page.close()
        return tables
    finally:
        pdf.close()
