"""Readers: one function per file kind, each turning bytes on disk into a LoadedDocument.

Every failure a user can cause (wrong type, empty, corrupt, encrypted, too big) becomes an
IngestError with a message that names the problem in plain words.
"""
from __future__ import annotations

import csv
import io
import logging
import zipfile
from pathlib import Path
from typing import Callable

from core.config import Settings
from core.ingest.document import IngestError, LoadedDocument, Section
from core.ingest.fields import pair_stacked_fields
from core.ingest.ocr import load_image, ocr_pdf_pages
from core.ingest.pdf_tables import (PdfTable, footnotes_of, looks_tabular, markers, page_layout, page_parts, page_text,
                                    unit_of)
from core.ingest.tables import LABELS_HEADER, TableBlock, blank_header, find_tables, split_pipe_tables, table_lines

log = logging.getLogger(__name__)

Loader = Callable[[Path, Settings], LoadedDocument]


class FinalPdfError(Exception):
    """A verdict on the file itself, not on one parser: no fallback parser is tried."""


PASSWORD_MESSAGE = "The PDF is password-protected. Remove the password and upload again."
BINARY_MESSAGE = "This file contains binary data, not text. Was it renamed?"


def load_document(path: Path, settings: Settings, filename: str | None = None) -> LoadedDocument:
    """Check the file against the limits, then hand it to the reader for its kind."""
    filename = filename or path.name
    suffix = Path(filename).suffix.lower()
    if suffix not in settings.supported_extensions:
        allowed = ", ".join(settings.supported_extensions)
        raise IngestError(f"Unsupported file type '{suffix or 'none'}'. Supported: {allowed}.")
    size = path.stat().st_size
    if size == 0:
        raise IngestError("The file is empty (0 bytes).")
    if size > settings.max_file_bytes:
        raise IngestError(
            f"The file is {size / 2**20:.3g} MB, over the {settings.max_file_mb:g} MB limit."
        )
    document = LOADERS[suffix](path, settings)
    document.filename = filename
    document.kind = suffix.lstrip(".")  # uploads arrive as temp files: the user's name decides
    if not any(s.text.strip() for s in document.sections):
        raise IngestError(
            "No text could be extracted (the file may be scanned images or contain no text)."
        )
    return document


# --- PDF -------------------------------------------------------------------------------------

def load_pdf(path: Path, settings: Settings) -> LoadedDocument:
    """PDFium first (measured 15x faster than pypdf on the 10-Q filings), then pypdf, then
    pdfminer: real filings each trip up some parser, and none of them may cost us the file.
    Pages PDFium reads that hold number columns get their rows written with the column headers
    (core/ingest/pdf_tables.py)."""
    with path.open("rb") as fh:
        if b"%PDF" not in fh.read(1024):
            raise IngestError("This is not a PDF file (no PDF header). Was it renamed?")
    failures: list[str] = []
    for parser in (_pdf_pages_pdfium, _pdf_pages_pypdf, _pdf_pages_pdfminer):
        try:
            pages = parser(path, settings)
            texts = [page if isinstance(page, str) else page[0] for page in pages]
        except FinalPdfError as exc:  # a password or the page limit: another parser agrees
            raise IngestError(str(exc)) from None
        except MemoryError:  # over the reading process's limit: the next parser would be too
            raise
        except Exception as exc:
            log.info("%s could not read %s: %s", parser.__name__, path.name, exc)
            failures.append(type(exc).__name__)
            continue
        warnings = [f"Read with a fallback parser after: {', '.join(failures)}."] if failures else []
        try:
            scanned, ocr_warnings = ocr_pdf_pages(path, texts, settings)  # pages that are only an image
        except (IngestError, MemoryError):
            raise
        except Exception as exc:  # e.g. PDFium cannot load a page the fallback parser read: keep the text
            log.info("OCR skipped for %s: %s", path.name, exc)
            scanned, ocr_warnings = {}, [f"Scanned pages were not looked for ({type(exc).__name__})."]
        sections = [section for i, page in enumerate(pages) for section in scanned.get(i + 1) or _page_sections(page, i + 1)]
        return LoadedDocument(path.name, "pdf", sections, page_count=len(texts), warnings=warnings + ocr_warnings)
    raise IngestError(f"The PDF is damaged and could not be read ({', '.join(failures)}).")


PageRead = "str | tuple[str, list[str | PdfTable]]"  # a page's text, and its prose and tables when read apart


def _page_sections(page: PageRead, number: int) -> list[Section]:
    """A page as sections: its text; or, when its tables were read, its prose runs and each table as a
    section of its own, in reading order."""
    if isinstance(page, str):
        return [Section(text=pair_stacked_fields(page.replace("\r\n", "\n")), page=number)]
    sections = []
    for part in page[1]:
        if isinstance(part, str):
            sections.append(Section(text=pair_stacked_fields(part), page=number))
        else:
            sections.append(table_section(part))
    return sections


def table_section(table: PdfTable) -> Section:
    """A PDF table as a table section: its rows as a compact grid (label, then one cell per column),
    its footnotes after them, and its caption, unit and headers as the head every chunk of it carries.
    The parsed table (label column first) gives its rows as structured facts."""
    stub = table.stub.strip()
    names_labels = stub and not unit_of([stub]) and not stub.startswith("(") and not stub.endswith(",")
    header = [stub if names_labels else LABELS_HEADER,  # the label column's own header, or what it holds
              *[c or blank_header(i + 2) for i, c in enumerate(table.columns)]]
    rows = [[row.label, *row.values] for row in table.rows if any(row.values)]
    notes = footnotes_of(table)
    if notes:  # a row's footnote marker tied to its footnote: a column of the row, as a reader would look it up
        header.append("Footnote")
        rows = [[*row, " ".join(notes[m] for m in markers(row[0]) if m in notes)] for row in rows]
    title = [table.caption or f"Table on page {table.page}"]
    if table.unit and table.unit.lower() not in title[0].lower():
        title.append(f"({table.unit})")
    block = TableBlock(header, rows, list(range(1, len(rows) + 1)), title, list(table.notes))
    text = "\n".join(table.grid_rows() + table.notes)
    return Section(text=text, page=table.page, is_table=True, table=block, head=table.head())


def _pdf_pages_pdfium(path: Path, settings: Settings) -> list[PageRead]:
    import pypdfium2 as pdfium

    try:
        pdf = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise FinalPdfError(PASSWORD_MESSAGE)
        raise
    try:
        _check_page_limit(len(pdf), settings)
        texts = []
        for index in range(len(pdf)):
            page = pdf[index]
            textpage = page.get_textpage()
            text = textpage.get_text_range()
            texts.append(_with_tables(textpage, page.get_height(), index + 1, text) if looks_tabular(text) else text)
            textpage.close()
            page.close()
        return texts
    finally:
        pdf.close()


def _with_tables(textpage, height: float, number: int, text: str) -> PageRead:
    """The page's text with each statement row written under its column headers, and its prose and
    tables apart; the plain text if the layout cannot be read (a page the table reader trips on must
    not cost the file)."""
    try:
        lines, blocks = page_layout(textpage, height, number)
    except Exception as exc:
        log.info("table layout of page %d skipped: %s", number, exc)
        return text
    return (page_text(lines, blocks), page_parts(lines, blocks)) if blocks else text


def _pdf_pages_pypdf(path: Path, settings: Settings) -> list[str]:
    import pypdf
    from pypdf.errors import FileNotDecryptedError

    reader = pypdf.PdfReader(str(path))
    if reader.is_encrypted:
        # Many filings are "encrypted" with an empty user password; only a real password stops us.
        try:
            decrypted = reader.decrypt("")
        except FileNotDecryptedError:
            decrypted = 0
        if not decrypted:
            raise FinalPdfError(PASSWORD_MESSAGE)
    _check_page_limit(len(reader.pages), settings)
    return [page.extract_text() or "" for page in reader.pages]


def _pdf_pages_pdfminer(path: Path, settings: Settings) -> list[str]:
    from pdfminer.high_level import extract_text
    from pdfminer.pdfdocument import PDFPasswordIncorrect
    from pdfminer.pdfpage import PDFPage

    try:
        with path.open("rb") as fh:
            count = sum(1 for _ in PDFPage.get_pages(fh))
        _check_page_limit(count, settings)
        return [extract_text(str(path), page_numbers=[i]) for i in range(count)]
    except PDFPasswordIncorrect:
        raise FinalPdfError(PASSWORD_MESSAGE)


def _check_page_limit(count: int, settings: Settings) -> None:
    if count == 0:
        raise ValueError("no pages found")  # a damaged file often looks empty to one parser
    if count > settings.max_pages:
        raise FinalPdfError(f"The PDF has {count} pages, over the {settings.max_pages}-page limit.")


# --- spreadsheets ----------------------------------------------------------------------------

def load_xlsx(path: Path, settings: Settings) -> LoadedDocument:
    import openpyxl

    if not zipfile.is_zipfile(path):
        raise IngestError("This is not a valid XLSX file (it is not a zip archive). Was it renamed?")
    _check_unpacked_size(path, settings)
    try:
        # data_only: formulas come back as the values Excel cached when the file was saved.
        # A file object, not a path: openpyxl refuses paths without an .xlsx suffix (uploads).
        book = openpyxl.load_workbook(io.BytesIO(path.read_bytes()), read_only=True, data_only=True)
    except MemoryError:
        raise
    except Exception as exc:
        raise IngestError(f"The spreadsheet could not be opened ({type(exc).__name__}).")
    try:
        sections, warnings = _read_sheets(book, settings)
    except (MemoryError, IngestError):
        raise
    except Exception as exc:  # a sheet's XML is damaged past where openpyxl opened the file
        raise IngestError(f"The spreadsheet is damaged and could not be read ({type(exc).__name__}).")
    finally:
        book.close()
    return LoadedDocument(path.name, "xlsx", sections, page_count=len(book.sheetnames), warnings=warnings)


def _check_unpacked_size(path: Path, settings: Settings) -> None:
    """Refuse a zip bomb before inflating it. The declared sizes are enough: Python's zipfile
    stops reading a member at its declared size, so a forged header only truncates the sheet."""
    try:
        with zipfile.ZipFile(path) as archive:
            unpacked = sum(item.file_size for item in archive.infolist())
    except (zipfile.BadZipFile, NotImplementedError, OSError) as exc:  # (a zip version or method zipfile lacks)
        raise IngestError(f"This is not a valid XLSX file ({exc}).")
    if unpacked > settings.max_unpacked_mb * 2**20:
        raise IngestError(
            f"The spreadsheet unpacks to {unpacked / 2**20:,.0f} MB, over the {settings.max_unpacked_mb:g} MB "
            "limit (max_unpacked_mb). It may be a 'zip bomb'."
        )


def _read_sheets(book, settings: Settings) -> tuple[list[Section], list[str]]:
    sections: list[Section] = []
    warnings: list[str] = []
    for sheet in book.worksheets:
        grid = []
        for row in sheet.iter_rows(values_only=True):
            if len(grid) >= settings.max_rows_per_sheet:
                warnings.append(f"Sheet '{sheet.title}' was cut at {settings.max_rows_per_sheet} rows.")
                break
            grid.append(list(row))
        sections.extend(_table_sections(grid, sheet=sheet.title))
    return sections, warnings


def load_csv(path: Path, settings: Settings) -> LoadedDocument:
    text = _decode_text(path.read_bytes())
    try:
        dialect = csv.Sniffer().sniff(text[:20_000], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    grid: list[list[object]] = []
    warnings: list[str] = []
    try:
        for row in csv.reader(io.StringIO(text), dialect):
            if len(grid) >= settings.max_rows_per_sheet:
                warnings.append(f"The CSV was cut at {settings.max_rows_per_sheet} rows.")
                break
            grid.append(list(row))
    except csv.Error as exc:  # e.g. one cell of megabytes ("field larger than field limit")
        raise IngestError(f"The CSV could not be read (row {len(grid) + 1}: {exc}).") from None
    sections = _table_sections(grid, sheet=None)
    return LoadedDocument(path.name, "csv", sections, page_count=1, warnings=warnings)


def _table_sections(grid: list[list[object]], sheet: str | None) -> list[Section]:
    sections = []
    for table in find_tables(grid):
        lines, numbers = table_lines(table)
        if lines:
            sections.append(
                Section("\n".join(lines), sheet=sheet, is_table=True, row_numbers=numbers, table=table)
            )
    return sections


# --- plain text ------------------------------------------------------------------------------

def load_text(path: Path, settings: Settings) -> LoadedDocument:
    """The text as one section; a Markdown table in it ("| a | b |" over "|---|---|") becomes a table
    section of its own, read like a CSV, titled by the line above it (its heading, usually)."""
    text = _decode_text(path.read_bytes())
    kind = path.suffix.lower().lstrip(".") or "txt"
    prose, grids = split_pipe_tables(text)
    sections = [Section(text=prose)] if prose.strip() else []
    for grid in grids:
        sections += _table_sections(grid, sheet=None)
    return LoadedDocument(path.name, kind, sections or [Section(text=text)], page_count=1)


def _decode_text(data: bytes) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            raise IngestError(BINARY_MESSAGE)
    if b"\x00" in data[:8192]:
        raise IngestError(BINARY_MESSAGE)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        # Legacy single-byte exports are common, and files glued together from two exports mix
        # them: each line is read as UTF-8 if it is, else as cp1252 (which maps nearly every
        # byte, so the result is checked below).
        text = "".join(_decode_line(line) for line in data.removeprefix(b"\xef\xbb\xbf").splitlines(keepends=True))
    sample = text[:8192]
    printable = sum(ch.isprintable() or ch in "\n\r\t" for ch in sample)
    if printable < 0.9 * len(sample):
        raise IngestError(BINARY_MESSAGE)
    return text


def _decode_line(line: bytes) -> str:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        return line.decode("cp1252", errors="replace")


LOADERS: dict[str, Loader] = {
    ".pdf": load_pdf,
    ".xlsx": load_xlsx,
    ".csv": load_csv,
    ".txt": load_text,
    ".md": load_text,
    ".jpg": load_image,
    ".jpeg": load_image,
    ".png": load_image,
    ".tif": load_image,
    ".tiff": load_image,
}
