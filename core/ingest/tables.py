"""Find tables in a grid of cells (a sheet or a CSV) and serialize their rows.

Real spreadsheets are not one clean table: a merged title row and notes rows sit above the header,
notes rows trail below or sit inside, a TOTAL row closes the table, and several tables share a sheet
separated by blank rows. Each data row is written as "Header: value | Header: value" so that a chunk
holding only some rows still says what every number means; title, note and total rows are kept
aside (`title_lines`, `note_lines`, `total_rows`), so no count or sum over the records sees them.
"""
from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from itertools import zip_longest

from core.annotations.conditions import FISCAL_YEAR, YEAR_DIGITS
from core.annotations.documents import total_label
from core.annotations.tables import LABELS_HEADER  # what a report table's blank corner over its row labels is called
from core.annotations.units import normal_unit, parse_quantity, stated_scale

Cell = object
Grid = list[list[Cell]]


@dataclass
class TableBlock:
    header: list[str]
    rows: list[list[str]]
    row_numbers: list[int]  # 1-based position of each data row in the sheet
    title_lines: list[str] = field(default_factory=list)
    note_lines: list[str] = field(default_factory=list)
    note_numbers: list[int] = field(default_factory=list)  # the sheet row of each note line (find_tables sets it)
    # Rows that sum the records above them ("TOTAL", "Subtotal"): (sheet row, cells), not records.
    total_rows: list[tuple[int, list[str]]] = field(default_factory=list)


def cell_text(value: Cell) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, dt.datetime):
        return value.date().isoformat() if value.time() == dt.time() else value.isoformat(sep=" ")
    if isinstance(value, dt.date):
        return value.isoformat()
    return str(value).strip()


def _filled(row: list[str]) -> int:
    return sum(1 for c in row if c)


def _split_blocks(rows: list[list[str]]) -> list[list[tuple[int, list[str]]]]:
    """Runs of non-blank rows, each row kept with its 1-based row number."""
    blocks: list[list[tuple[int, list[str]]]] = []
    current: list[tuple[int, list[str]]] = []
    for number, row in enumerate(rows, start=1):
        if _filled(row) == 0:
            if current:
                blocks.append(current)
                current = []
            continue
        current.append((number, row))
    if current:
        blocks.append(current)
    return blocks


def blank_header(position: int) -> str:
    """The stand-in name of a column whose header cell is blank, by its 1-based position."""
    return f"column {position}"


BLANK_STUB = blank_header(1)  # a blank first header cell


def _header_names(row: list[str]) -> list[str]:
    names, seen = [], {}
    for i, cell in enumerate(row):
        name = cell or blank_header(i + 1)
        count = seen.get(name, 0)
        seen[name] = count + 1
        names.append(name if count == 0 else f"{name} ({count + 1})")
    return names


# The header is the first row that fills at least this share of its block's widest row: a notes row
# above it ("Prepared by: | J. Smith") fills two cells of a ten-column table, a header nearly all.
HEADER_FILL_SHARE = 0.5
# A run of one-cell rows above a wider table is its title and notes, not a one-column table, when it is
# this short or one of its rows reads as a note (a list of names runs longer, in short cells).
TITLE_BLOCK_ROWS = 3
# A total row's label is short ("TOTAL", "Grand total", "Subtotal Riverside"); longer text is a record.
TOTAL_LABEL_WORDS = 4


def find_tables(grid: Grid) -> list[TableBlock]:
    rows = [[cell_text(c) for c in row] for row in grid]
    width = max((len(r) for r in rows), default=0)
    rows = [r + [""] * (width - len(r)) for r in rows]
    tables: list[TableBlock] = []
    pending: list[tuple[int, str]] = []  # one-cell rows above the next header: its titles and notes
    blocks = _split_blocks(rows)
    for index, block in enumerate(blocks):
        widest = max(_filled(row) for _, row in block)
        if widest < 2 and len(block) > 1:
            wider_follows = any(_filled(row) >= 2 for later in blocks[index + 1:] for _, row in later)
            if not (wider_follows and _titles_only(block)):
                # A one-column table (a list of names): its first row is the header.
                tables.append(_one_column_table(block, [text for _, text in pending]))
                pending = []
                continue
        start = _header_index(block, widest)
        pending += [(number, _line(row)) for number, row in block[:start]]
        if start >= len(block):
            continue  # only titles or notes: they attach to the next table
        header_row = block[start][1]
        if start and (spanned := _period_over_columns(block[start - 1][1], header_row)) is not None:
            header_row = spanned  # "2024" over Q1 ... Year: part of each of their names, not the table's title
            pending = [p for p in pending if p[0] != block[start - 1][0]]
        titles = [text for _, text in pending if not _is_note(text)]
        table = _table(header_row, block[start + 1:], titles)
        notes = [(number, text) for number, text in pending if _is_note(text)]
        table.note_numbers[:0], table.note_lines[:0] = [n for n, _ in notes], [t for _, t in notes]
        tables.append(table)
        pending = []
    if pending and tables:
        tables[-1].note_lines.extend(text for _, text in pending)
        tables[-1].note_numbers.extend(number for number, _ in pending)
    elif pending:  # a sheet of prose: keep it as notes of an empty table
        tables.append(TableBlock([], [], [], [], [text for _, text in pending], [number for number, _ in pending]))
    return tables


def _line(row: list[str]) -> str:
    return " ".join(c for c in row if c)


def _header_index(block: list[tuple[int, list[str]]], widest: int) -> int:
    """The position of the header row in a block: the first row of two cells or more that fills
    HEADER_FILL_SHARE of the widest row; len(block) when there is none (a block of titles)."""
    needed = max(2, HEADER_FILL_SHARE * widest)
    return next((i for i, (_, row) in enumerate(block) if _filled(row) >= needed), len(block))


# A period printed once over the columns it heads: a year, a financial year, "Year ended 31 October 2025"
_PERIOD_CELL = re.compile(rf"^(?:(?:{FISCAL_YEAR}|financial year|year|years|quarter|half[- ]year|six months|three months|"
                          rf"nine months|twelve months)\b.*\b{YEAR_DIGITS}\b.*|{FISCAL_YEAR}?{YEAR_DIGITS}(?:[/-]\d{{2,4}})?)$",
                          re.I)


def _period_over_columns(row: list[str], header_row: list[str]) -> list[str] | None:
    """A row of one period cell over the header's figure columns (a report's "2024" over Q1, Q2, ... Year): the
    header with the period before each name from its column on; None for any other row (a title, a note)."""
    filled = [(i, c.strip()) for i, c in enumerate(row) if c.strip()]
    if len(filled) != 1 or filled[0][0] == 0 or not _PERIOD_CELL.match(filled[0][1]):
        return None
    at, period = filled[0]
    if sum(1 for h in header_row[at:] if h.strip()) < 2:
        return None
    return [*header_row[:at], *(f"{period} {h}" if h.strip() else h for h in header_row[at:])]


def _titles_only(block: list[tuple[int, list[str]]]) -> bool:
    return len(block) <= TITLE_BLOCK_ROWS or any(_looks_like_note(row) for _, row in block)


def _states_a_unit(cell: str) -> bool:
    """A cell that is only a unit or a scale: "£m", "$'000", "(in thousands)", "%", "kg"."""
    if re.search(r"\d", cell.replace("000", "")):  # a figure ("£5m"), not a unit; "$'000" is one
        return False
    bare = cell.strip("()[] ")
    # (a lone letter is a unit only as a sign: "M" and "F" over a column are codes, not metres and Fahrenheit)
    return bool(stated_scale([cell])) or (len(bare) > 1 or bare in "%$€£") and normal_unit(bare, spoken=False) is not None


def _is_unit_row(row: list[str]) -> bool:
    """A row right under the header that says what its columns are in ("| Notes | £m | £m"): each filled cell a
    unit or scale, but for a short name over a column the header left blank ("Notes"), and at least two units or
    none of those names: a row of figures or of categories is no such row."""
    filled = [c for c in row if c]
    units = [c for c in filled if _states_a_unit(c)]
    names = [c for c in filled if c not in units]
    return bool(units) and (len(units) >= 2 or not names) and all(
        len(n.split()) <= 2 and not re.search(r"\d", n) for n in names)


def _with_unit_row(header_row: list[str], unit_row: list[str]) -> list[str]:
    """The header with each column's unit beside its name ("2019 (£m)"), a blank header taking the row's name."""
    width = max(len(header_row), len(unit_row))
    header_row, unit_row = header_row + [""] * (width - len(header_row)), unit_row + [""] * (width - len(unit_row))
    return [f"{h} ({u.strip('()')})" if h and u and _states_a_unit(u) else h or u for h, u in zip(header_row, unit_row)]


def _table_scale(unit_row: list[str], body: list[tuple[int, list[str]]]) -> bool:
    """One "(in millions)" in the units row over a table of several figure columns: the scale of them all,
    printed over one column only because it was centred there (a report's stacked header)."""
    filled = [c for c in unit_row if c]
    figure_columns = {i for _, row in body for i, c in enumerate(row) if c and parse_quantity(c) is not None}
    return len(filled) == 1 and stated_scale(filled) is not None and len(figure_columns) > 1


def _table(header_row: list[str], body: list[tuple[int, list[str]]], titles: list[str]) -> TableBlock:
    """A table from its header row and the rows below it: a units row under the header joins it, note rows
    and total rows are set aside."""
    stacked = 0
    while body and stacked < STACKED_HEADER_ROWS and _continues_header(body[0][1], body[1:]):
        # a header set on several ruled rows ("Revised Preliminary" / "Allocation" / "As of August 1, 2019")
        header_row = [" ".join(c for c in pair if c) for pair in zip_longest(header_row, body[0][1], fillvalue="")]
        body, stacked = body[1:], stacked + 1
    if body and _is_unit_row(body[0][1]):
        unit_row, body = body[0][1], body[1:]
        if _table_scale(unit_row, body):
            titles = [*titles, next(c for c in unit_row if c)]
        else:
            header_row = _with_unit_row(header_row, unit_row)
    header = _header_names(header_row)
    table = TableBlock(header, [], [], list(titles))
    for number, row in body:
        if _filled(row) == 1 and len(header) > 2 and _looks_like_note(row):
            table.note_lines.append(_line(row))
            table.note_numbers.append(number)
        elif is_total_row(row):
            table.total_rows.append((number, row))
        else:
            table.rows.append(row)
            table.row_numbers.append(number)
    last_used = max((i for i, h in enumerate(header_row) if h), default=0)
    for row in [*table.rows, *(cells for _, cells in table.total_rows)]:
        last_used = max(last_used, max((i for i, c in enumerate(row) if c), default=0))
    table.header = header[: last_used + 1]
    table.rows = [r[: last_used + 1] for r in table.rows]
    table.total_rows = [(n, r[: last_used + 1]) for n, r in table.total_rows]
    return table


STACKED_HEADER_ROWS = 2  # rows under a header row that may continue it


def _continues_header(row: list[str], below: list[tuple[int, list[str]]]) -> bool:
    """A row under the header that goes on naming its columns: its first cell blank or a note in brackets
    ("(In millions)"), words over at least two columns and no figure, with rows of figures below it. A list
    whose every row is words (names, titles) has none: its first cells are filled."""
    first, rest = (row[0].strip() if row else ""), [c for c in row[1:] if c.strip()]
    return ((not first or (first.startswith("(") and first.endswith(")"))) and len(rest) >= 2
            and all(parse_quantity(c) is None and not _NO_WORD.match(c) and not _states_a_unit(c) for c in rest)
            and any(parse_quantity(c) is not None for _, later in below for c in later[1:] if c))


_NO_WORD = re.compile(r"^[^\w]*$")  # "—", "-", "": a cell that says nothing


def is_total_row(row: list[str]) -> bool:
    """Whether a row sums the rows above it rather than being one: its only cell with words is a short
    total or subtotal label ("TOTAL", "Grand total", "Subtotal Q1"), and at least one figure is beside it.
    Where the label sits does not matter (a TOTAL under the employee column, the date column blank)."""
    filled = [c for c in row if c]
    worded = [c for c in filled if parse_quantity(c) is None and not _NO_WORD.match(c)]
    return (len(filled) >= 2 and len(worded) == 1 and total_label(worded[0])
            and len(worded[0].split()) <= TOTAL_LABEL_WORDS)


def _one_column_table(block: list[tuple[int, list[str]]], titles: list[str]) -> TableBlock:
    column = next((i for i, c in enumerate(block[0][1]) if c), 0)
    header = [block[0][1][column]]
    rows = [[row[column]] for _, row in block[1:]]
    return TableBlock(header, rows, [number for number, _ in block[1:]], titles, [])


def _looks_like_note(row: list[str]) -> bool:
    text = next(c for c in row if c)
    return len(text) > 25 or text.lower().startswith(_NOTE_STARTS)


_NOTE_STARTS = ("note", "source", "*", "total rows")
# A one-cell row above a header is a note, not a title, when it says it is one or reads as sentences:
# "Notes: labour is charged at €40 per hour. ..." over a job log titled "Workshop job log 2024".
_SENTENCE = re.compile(r"[.;!?](?:\s|$)")
NOTE_MIN_WORDS = 12  # a title this long is a sentence


def _is_note(text: str) -> bool:
    return (text.lower().startswith(_NOTE_STARTS) or len(text.split()) >= NOTE_MIN_WORDS
            or (bool(_SENTENCE.search(text)) and len(text.split()) > 4))


def serialize_row(header: list[str], row: list[str]) -> str:
    parts = [f"{h}: {v}" for h, v in zip(header, row) if v]
    return " | ".join(parts)


def table_lines(table: TableBlock) -> tuple[list[str], list[int]]:
    """Lines for a table section and the sheet row number each line stands for: titles (numbered as the
    first data row), then records, total rows and notes in the sheet's order (a total is still text to read)."""
    first = table.row_numbers[0] if table.row_numbers else 1
    lines = [(first, title) for title in table.title_lines]
    body = [(number, serialize_row(table.header, row)) for number, row in zip(table.row_numbers, table.rows)]
    body += [(number, serialize_row(table.header, row)) for number, row in table.total_rows]
    body += list(zip(table.note_numbers, table.note_lines))
    lines += sorted((pair for pair in body if pair[1]), key=lambda pair: pair[0])
    return [text for _, text in lines], [number for number, _ in lines]


_PIPE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_PIPE_RULE = re.compile(r"^\s*\|?(\s*:?-{3,}:?\s*\|)+\s*(:?-{3,}:?\s*)?\|?\s*$")


def _pipe_cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def split_pipe_tables(text: str) -> tuple[str, list[Grid]]:
    """A text without its Markdown pipe tables, and each table as a grid: the heading or line just above
    it as a one-cell title row, then its header and rows. A run of "|" lines is a table only when its
    second line is the "|---|---|" rule."""
    lines = text.split("\n")
    prose: list[str] = []
    grids: list[Grid] = []
    i = 0
    while i < len(lines):
        if _PIPE_ROW.match(lines[i]) and i + 1 < len(lines) and _PIPE_RULE.match(lines[i + 1]):
            end = i + 2
            while end < len(lines) and _PIPE_ROW.match(lines[end]):
                end += 1
            title = next((line.strip().lstrip("#").strip() for line in reversed(prose) if line.strip()), "")
            grids.append(([[title]] if title else []) + [_pipe_cells(lines[i])] + [_pipe_cells(r) for r in lines[i + 2:end]])
            i = end
        else:
            prose.append(lines[i])
            i += 1
    return "\n".join(prose), grids
