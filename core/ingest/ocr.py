"""OCR with Tesseract (through pytesseract) for image files and PDF pages that have no text layer.

Tesseract reports every word with its box. Receipts print a label on the left and its amount on
the right, far apart, and Tesseract often puts the two in different blocks; so lines are rebuilt
from the word boxes by vertical position, and a wide horizontal gap splits a line into cells.
A label cell followed by a cell with a figure reads as "label: value" (the colon is what the
key-value extraction looks for, and receipts often print none), and the run of lines that end in
an amount becomes a table of line items, so each item is a row fact like a spreadsheet row.

Without Tesseract the app still runs: a file that needs OCR gets a message that says so.
"""
from __future__ import annotations

import functools
import logging
import re
import shutil
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

from core.config import Settings
from core.ingest.document import IngestError, LoadedDocument, Section
from core.ingest.tables import TableBlock, _header_names

log = logging.getLogger(__name__)

INSTALL_HINT = "install it with: apt-get install tesseract-ocr tesseract-ocr-eng"
WORD_LEVEL = 5  # Tesseract's TSV levels: page, block, paragraph, line, word
DESCRIPTION_LINES = 2  # an item's name may be printed over this many lines above its figures
SIDE_WORDS = 4  # a label or the figures printed beside a line: "2.0 7.00 14.00", "Total (RM)"
HEADER_LINES = 3  # a column header is looked for this many lines above the first item
NEARBY_ROWS = 3  # rows a line segment is compared with (a skewed scan interleaves neighbouring lines)

# A price as receipts print it: 9.00, 1,234.50, 4.904,94, -3.00, (3.00), optionally with a currency sign.
_AMOUNT = re.compile(r"^[(-]?[$€£]?\s?\d{1,3}(?:[,.' ]?\d{3})*[.,]\d{2}\)?[A-Z]{0,3}$")
_LETTERS = re.compile(r"[^\W\d_]{3,}")
_LABEL = re.compile(r"^\(?[^\W\d_]+(?:[ .'/&()#-]+[^\W\d_]+){0,4}[ .:)#-]*$")
# Lines under the items that sum them up: they end the table of line items.
_SUMMARY = re.compile(
    r"\b(?:sub-?total|total|tax|vat|gst|sst|service charge|rounding|round|change|cash|tender(?:ed)?|paid|"
    r"balance|due|card|visa|mastercard|payment)\b",
    re.I,
)
# Legal forms that mark a line as the name of a company, in the languages receipts come in.
_COMPANY_FORM = re.compile(
    r"\b(?:ltd|limited|inc|llc|llp|plc|corp|corporation|co|company|gmbh|ag|kg|sarl|sas|sa|srl|spa|bv|nv|"
    r"oy|ab|as|aps|pty|pte|bhd|sdn|kk|lda|enterprise|enterprises|trading|store|stores|restaurant|"
    r"supermarket|mart|shop)\b\.?",
    re.I,
)


# --- Tesseract --------------------------------------------------------------------------------

@functools.lru_cache(maxsize=8)
def tesseract_status(language: str = "eng") -> tuple[bool, str]:
    """(usable, what to tell the user): installed, and with the language data asked for."""
    if shutil.which("tesseract") is None:
        return False, f"Tesseract OCR is not installed; {INSTALL_HINT}."
    try:
        import pytesseract

        version = pytesseract.get_tesseract_version()
        installed = set(pytesseract.get_languages(config=""))
    except Exception as exc:  # a broken install must not take the app down
        return False, f"Tesseract OCR could not be started ({type(exc).__name__}: {exc})."
    missing = [lang for lang in language.split("+") if lang not in installed]
    if missing:
        return False, (f"Tesseract has no language data for {', '.join(missing)}; install "
                       f"tesseract-ocr-{missing[0]} or set DOCUCHAT_OCR_LANGUAGE.")
    return True, f"Tesseract {version} ({language})"


def ocr_status(settings: Settings) -> tuple[bool, str]:
    if not settings.ocr_enabled:
        return False, "OCR is turned off (DOCUCHAT_OCR_ENABLED=false)."
    return tesseract_status(settings.ocr_language)


# --- words, rows and cells (pure: tested without Tesseract) -----------------------------------

@dataclass(frozen=True)
class Word:
    text: str
    left: int
    top: int
    width: int
    height: int
    line_key: tuple[int, ...] = ()  # Tesseract's (block, paragraph, line)

    @property
    def right(self) -> int:
        return self.left + self.width

    @property
    def bottom(self) -> int:
        return self.top + self.height


@dataclass
class Row:
    """One printed line: its cells left to right, each a list of words."""

    cells: list[list[Word]]

    @property
    def cell_texts(self) -> list[str]:
        return [" ".join(w.text for w in cell) for cell in self.cells]

    @property
    def text(self) -> str:
        return " ".join(self.cell_texts)

    @property
    def labelled_text(self) -> str:
        """The cells in reading order, a label cell followed by a cell with a figure read as
        "label: value" ("Date   25/12/2018" -> "Date: 25/12/2018")."""
        cells = self.cell_texts
        parts = []
        for i, cell in enumerate(cells):
            value = cells[i + 1] if i + 1 < len(cells) else ""
            if any(ch.isdigit() for ch in value) and _LABEL.match(cell) and not cell.rstrip().endswith(":"):
                cell = cell.rstrip() + ":"
            parts.append(cell)
        return " ".join(parts)

    def span(self, index: int) -> tuple[int, int]:
        return self.cells[index][0].left, self.cells[index][-1].right


@dataclass
class OcrPage:
    rows: list[Row]
    seconds: float = 0.0


def words_from_tsv(data: dict[str, list], min_confidence: float) -> list[Word]:
    """Words from Tesseract's image_to_data dictionary, without empty and low-confidence ones."""
    words = []
    for i, text in enumerate(data["text"]):
        text = str(text).strip()
        if int(data["level"][i]) != WORD_LEVEL or not text or float(data["conf"][i]) < min_confidence:
            continue
        words.append(Word(
            text, int(data["left"][i]), int(data["top"][i]), int(data["width"][i]), int(data["height"][i]),
            (int(data["block_num"][i]), int(data["par_num"][i]), int(data["line_num"][i])),
        ))
    return words


def build_rows(words: list[Word], column_gap: float) -> list[Row]:
    """Printed lines from word boxes: Tesseract's own lines (they follow a skewed scan), merged
    when they sit at the same height, then split into cells at gaps wider than `column_gap`
    times the line's word height."""
    segments: dict[tuple[int, ...], list[Word]] = {}
    for word in words:
        segments.setdefault(word.line_key, []).append(word)
    rows: list[list[list[Word]]] = []  # each row: its segments
    for segment in sorted(segments.values(), key=lambda s: _middle(s)):
        recent = rows[-NEARBY_ROWS:]  # sorted by height: only the last rows can share a line with this one
        row = next((r for r in reversed(recent) if any(_same_line(segment, other) for other in r)), None)
        if row is None:
            rows.append([segment])
        else:
            row.append(segment)
    rows.sort(key=lambda r: min(_middle(s) for s in r))
    return [Row(_cells(sorted((w for s in r for w in s), key=lambda w: w.left), column_gap)) for r in rows]


def _middle(words: list[Word]) -> float:
    return (min(w.top for w in words) + max(w.bottom for w in words)) / 2


def _same_line(a: list[Word], b: list[Word]) -> bool:
    """Two segments are one printed line when they overlap by half the height of the smaller, and
    one of them is short: a label or an amount beside a line, not two columns of prose."""
    if min(len(a), len(b)) > SIDE_WORDS:
        return False
    top_a, bottom_a = min(w.top for w in a), max(w.bottom for w in a)
    top_b, bottom_b = min(w.top for w in b), max(w.bottom for w in b)
    overlap = min(bottom_a, bottom_b) - max(top_a, top_b)
    return overlap >= 0.5 * min(bottom_a - top_a, bottom_b - top_b)


def _cells(words: list[Word], column_gap: float) -> list[list[Word]]:
    height = statistics.median(w.height for w in words)
    cells = [[words[0]]]
    for previous, word in zip(words, words[1:]):
        if word.left - previous.right > column_gap * height:
            cells.append([word])
        else:
            cells[-1].append(word)
    return cells


# --- what the rows mean -----------------------------------------------------------------------

def is_amount(text: str) -> bool:
    return bool(_AMOUNT.match(text.replace(" ", "")))


def heading(lines: list[str], max_lines: int) -> str | None:
    """The name at the head of a receipt or letter: among the first lines, the one that carries a
    company's legal form ("Ltd", "GmbH", "Sdn Bhd"), else the first line that reads as a name."""
    names = [line.strip() for line in lines[:max_lines] if _reads_as_name(line)]
    return next((n for n in names if _COMPANY_FORM.search(n)), names[0] if names else None)


def _reads_as_name(text: str) -> bool:
    letters = sum(ch.isalpha() for ch in text)
    return len(_LETTERS.findall(text)) >= 1 and letters >= 0.6 * len(text.replace(" ", "")) and ":" not in text


def line_items(rows: list[Row], title: str | None = None) -> TableBlock | None:
    """The rows that end in an amount, above the totals, as a table. Column names come from the
    header line above them when there is one, matched by horizontal position."""
    items: list[int] = []
    for index, row in enumerate(rows):
        if items and _SUMMARY.search(row.text):
            break  # the totals under the items end the table
        cells = row.cell_texts
        if len(cells) >= 2 and is_amount(cells[-1]) and not _SUMMARY.search(row.text):
            items.append(index)
    if not items:
        return None
    header_index = _header_above(rows, items[0])
    header = rows[header_index] if header_index is not None else None
    table_rows, numbers = [], []
    previous = header_index if header_index is not None else -1
    for index in items:
        cells = _item_cells(rows[index], header)
        if not _has_description(rows[index]):
            # The item's name is printed on the lines above its quantity and price.
            start = max(index - DESCRIPTION_LINES, previous + 1)
            above = [t for r in rows[start:index] if not _SUMMARY.search(r.text) for t in r.cell_texts]
            cells[0] = " ".join(filter(None, [*above, cells[0]]))
        previous = index
        table_rows.append(cells)
        numbers.append(index + 1)
    if header is not None:
        names = header.cell_texts
    else:  # amounts line up on the right: pad in the middle
        names = _generic_header(max(len(r) for r in table_rows))
        table_rows = [r[:-1] + [""] * (len(names) - len(r)) + r[-1:] for r in table_rows]
    return TableBlock(_header_names(names), table_rows, numbers, [title] if title else [])


def _has_description(row: Row) -> bool:
    return any(_LETTERS.search(cell) and not is_amount(cell) for cell in row.cell_texts)


def _header_above(rows: list[Row], first_item: int) -> int | None:
    for index in range(first_item - 1, max(first_item - 1 - HEADER_LINES, -1), -1):
        cells = rows[index].cell_texts
        if len(cells) >= 2 and not any(is_amount(c) for c in cells) and all(_LETTERS.search(c) for c in cells):
            return index
    return None


def _item_cells(row: Row, header: Row | None) -> list[str]:
    if header is None:
        return row.cell_texts
    columns = [""] * len(header.cells)
    spans = [header.span(i) for i in range(len(header.cells))]
    for cell, text in enumerate(row.cell_texts):
        # The amount is always the last column, whatever its position under the header.
        target = len(spans) - 1 if cell == len(row.cells) - 1 else _column_of(row.span(cell), spans)
        columns[target] = " ".join(filter(None, [columns[target], text]))
    return columns


def _column_of(span: tuple[int, int], columns: list[tuple[int, int]]) -> int:
    left, right = span
    overlaps = [min(right, r) - max(left, c) for c, r in columns]
    best = max(range(len(columns)), key=lambda i: overlaps[i])
    if overlaps[best] > 0:
        return best
    middle = (left + right) / 2
    return min(range(len(columns)), key=lambda i: abs((columns[i][0] + columns[i][1]) / 2 - middle))


def _generic_header(width: int) -> list[str]:
    return ["item"] + [f"value {n}" for n in range(1, width - 1)] + ["amount"] if width > 1 else ["item"]


def page_sections(page: OcrPage, number: int, settings: Settings) -> list[Section]:
    """A page's text (for search and key-value facts) and, when it has line items, a table section
    for their row facts. The item lines stay plain text, so they are not key-value facts too;
    the table has no text of its own, as its lines are in the page text already. The table comes
    first: readers that map a page number to its text keep the last section of the page."""
    items = line_items(page.rows, heading([row.text for row in page.rows], settings.ocr_heading_lines))
    in_table = set(items.row_numbers) if items else set()
    text = "\n".join(row.text if n in in_table else row.labelled_text for n, row in enumerate(page.rows, start=1))
    sections = [Section(text=text, page=number)]
    if items is not None:
        sections.insert(0, Section(text="", page=number, is_table=True, table=items))
    return sections


# --- running Tesseract ------------------------------------------------------------------------

def ocr_image(image, settings: Settings) -> OcrPage:
    """OCR one PIL image. Raises RuntimeError when Tesseract fails or runs over its time limit."""
    import pytesseract

    started = time.perf_counter()
    image = image.convert("L")  # greyscale: colour adds nothing to reading text
    data = pytesseract.image_to_data(
        image, lang=settings.ocr_language, config=f"--psm {settings.ocr_page_segmentation}",
        output_type=pytesseract.Output.DICT, timeout=settings.ocr_timeout_s,
    )
    words = words_from_tsv(data, settings.ocr_min_word_confidence)
    rows = build_rows(words, settings.ocr_column_gap) if words else []
    return OcrPage(rows, time.perf_counter() - started)


def load_image(path: Path, settings: Settings) -> LoadedDocument:
    """An image file (JPG, PNG, TIFF; every frame of a multi-page TIFF) read by OCR."""
    from PIL import Image, ImageSequence, UnidentifiedImageError

    try:
        with Image.open(path) as image:
            frames = [frame.copy() for frame in ImageSequence.Iterator(image)]
    except (UnidentifiedImageError, OSError, Image.DecompressionBombError) as exc:
        raise IngestError(f"The image could not be opened ({type(exc).__name__}). Is it damaged or renamed?")
    usable, status = ocr_status(settings)
    if not usable:
        raise IngestError(f"This is a scanned image: it needs OCR to be read. {status}")
    warnings = []
    if len(frames) > settings.ocr_max_pages:
        warnings.append(f"The image has {len(frames)} pages; only the first {settings.ocr_max_pages} were read "
                        f"by OCR (DOCUCHAT_OCR_MAX_PAGES).")
        frames = frames[: settings.ocr_max_pages]
    sections, failed = _ocr_pages(list(enumerate(frames, start=1)), settings)
    return LoadedDocument(path.name, path.suffix.lower().lstrip("."), sections, page_count=len(frames),
                          warnings=warnings + failed)


def ocr_pdf_pages(path: Path, texts: list[str], settings: Settings) -> tuple[dict[int, list[Section]], list[str]]:
    """Sections for the pages of a PDF that show a scan instead of text (little text, an image),
    keyed by page number, and warnings for pages that could not be read."""
    try:
        import pypdfium2 as pdfium
        import pypdfium2.raw as pdfium_c

        pdf = pdfium.PdfDocument(str(path))
    except Exception as exc:  # only the fallback parsers could read it: no page images either
        log.info("pdfium cannot render %s for OCR: %s", path.name, exc)
        return {}, []
    try:
        scanned = [
            n for n, text in enumerate(texts, start=1)
            if len(text.strip()) < settings.ocr_min_page_chars
            and any(True for _ in pdf[n - 1].get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE], max_depth=2))
        ]
        if not scanned:
            return {}, []
        usable, status = ocr_status(settings)
        pages = _page_list(scanned)
        if not usable:
            if not any(t.strip() for t in texts):
                raise IngestError(f"This PDF is scanned (no text layer): it needs OCR to be read. {status}")
            return {}, [f"Page(s) {pages} are scanned and were not read: they need OCR. {status}"]
        warnings = []
        if len(scanned) > settings.ocr_max_pages:
            warnings.append(f"{len(scanned)} pages are scanned; only the first {settings.ocr_max_pages} were read "
                            f"by OCR (DOCUCHAT_OCR_MAX_PAGES).")
            scanned = scanned[: settings.ocr_max_pages]
        scale = settings.ocr_dpi / 72  # PDF units are points
        images = [(n, pdf[n - 1].render(scale=scale, grayscale=True).to_pil()) for n in scanned]
    finally:
        pdf.close()
    sections, more = _ocr_pages(images, settings)
    by_page: dict[int, list[Section]] = {}
    for section in sections:
        by_page.setdefault(section.page, []).append(section)
    return by_page, warnings + more + [f"Page(s) {_page_list(sorted(by_page))} were read by OCR."]


def _ocr_pages(images: list[tuple[int, object]], settings: Settings) -> tuple[list[Section], list[str]]:
    sections: list[Section] = []
    failed: list[int] = []
    for number, image in images:
        try:
            page = ocr_image(image, settings)
        except RuntimeError as exc:  # pytesseract's timeout and Tesseract's own errors
            log.info("OCR failed on page %s: %s", number, exc)
            failed.append(number)
            continue
        sections.extend(page_sections(page, number, settings))
    warnings = [f"OCR could not read page(s) {_page_list(failed)} within {settings.ocr_timeout_s:g} s "
                f"(DOCUCHAT_OCR_TIMEOUT_S)."] if failed else []
    return sections, warnings


def _page_list(numbers: list[int]) -> str:
    return ", ".join(str(n) for n in numbers)
