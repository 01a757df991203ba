"""Extraction at ingest: table rows and key-value lines become typed facts.

- Spreadsheets and CSV: every data row of every table (found by core.ingest.tables) is a row fact.
- PDFs: every table the loader read from the page layout (core/ingest/pdf_tables.py), whatever the
  document's length, gives its rows as row facts (label column first, each figure under its headers).
  "Label: value unit" lines and dimension statements ("Dimensions: 1722 x 1134 x 30 mm") are
  key-value facts; on short documents (receipts, invoices, datasheets) the ruled tables pdfplumber
  finds on a page become row facts too, in place of the layout reading of that page (reading every
  page of a long filing twice is slow).
"""
from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from pathlib import Path

from core.annotations.conditions import YEAR_DIGITS
from core.annotations.documents import SUMMARY_LABEL, first_date, is_total_line, read_records, record_facts
from core.annotations.model import KV, NOTE, ROW, TITLE_JOIN, TOTAL, Fact, FactValue, normalize_label
from core.annotations.records import attach_page_context, record_name, table_identifier
from core.annotations.units import parse_quantity, unit_of_label
from core.ingest.document import LoadedDocument, Section
from core.ingest.pdf_tables import unit_of
from core.ingest.summary import document_type
from core.ingest.tables import BLANK_STUB, LABELS_HEADER, find_tables
from core.profiles import DocumentProfile

log = logging.getLogger(__name__)


def may_be_record(document, profiles: Sequence[DocumentProfile] = ()) -> bool:
    """An invoice or receipt, or a document that might be one: not a report, release or datasheet, which
    print totals and dates but bill nothing (an 8-K press release's "Total revenue" is no amount billed)."""
    kind = document_type(document, profiles)
    return kind is None or kind.may_hold_records


# Labels may be in any language ("Montant du prélèvement : 29.99 €").
_KV_LINE = re.compile(r"^\s*(?P<label>[^\W\d_][\w /&().,%#'\-]{1,48}?)\s*[:=]\s*(?P<value>\S.{0,60}?)\s*$")
_LABEL_ONLY = re.compile(r"^\s*(?P<label>[^\W\d_][\w /&().#'\-]{1,40}?)\s*:\s*$")  # value on the next line
# Totals printed without a colon: "Total $ 279.84", "Totaal € 4.904,94", "Razem: ..."
_AMOUNT_LINE = re.compile(
    r"^\s*(?P<label>(?:[^\W\d_]+\s+){0,3}(?:total|subtotal|sub-total|amount|tax|vat|btw|totaal|razem|montant|summe|"
    r"gesamt|balance|due)\b[^\d$€£\n]{0,30}?)\s*(?P<value>[$€£]?\s*-?\d[\d.,' ]*\d\s*(?:[$€£]|[A-Z]{3})?)\s*$",
    re.I,
)
# "1722 x 1134 x 30 mm", "1.755 m x 1.038 m x 0.035 m": two or three lengths, the unit after the last
# one or after each.
_LENGTH_UNIT = r"(?:mm|cm|m|in)\b"
_DIMENSIONS = re.compile(
    rf"(?P<a>\d+(?:[.,]\d+)?)\s*(?:{_LENGTH_UNIT})?\s*[x×]\s*(?P<b>\d+(?:[.,]\d+)?)\s*(?:{_LENGTH_UNIT})?"
    rf"(?:\s*[x×]\s*(?P<c>\d+(?:[.,]\d+)?))?\s*(?P<unit>{_LENGTH_UNIT})",
    re.I,
)
# The order a label gives its dimensions in: "Dimensions (L x W x H)", "Size (H×W×D)", "Maße (L x B x H)".
_DIMENSION_ORDER = re.compile(r"\(\s*([a-z])\s*[x×]\s*([a-z])(?:\s*[x×]\s*([a-z]))?\s*\)", re.I)
_DIMENSION_NAMES = {"l": "length", "w": "width", "b": "width", "h": "height", "d": "depth", "t": "thickness"}
_NOT_LABELS = {"http", "https", "note", "www"}


def typed_value(column: str, text: str) -> FactValue:
    text = str(text).strip()
    value = FactValue(column=column, text=text)
    quantity = parse_quantity(text, unit_of_label(column))
    if quantity is not None:
        value.number, value.unit, value.kind, value.base = quantity.number, quantity.unit, quantity.kind, quantity.base
    else:
        value.date = first_date(text)
    return value


def extract_facts(document: LoadedDocument, doc_id: str, path: Path | None = None, max_table_pages: int = 20,
                  long_pdf_tables: bool = True, profiles: Sequence[DocumentProfile] = ()) -> list[Fact]:
    facts: list[Fact] = []
    short = document.page_count <= max_table_pages
    statements: dict[int, set[str]] = {}  # page -> the row labels of the statements the layout reader read there
    kept: set[int] = set()  # the facts of those statements
    for section in document.sections:
        if section.table is not None:
            if short or long_pdf_tables or document.kind != "pdf":
                made = _row_facts(section, doc_id, document.filename)
                facts.extend(made)
                if _is_statement(section):
                    kept |= {id(f) for f in made}
                    statements.setdefault(section.page, set()).update(
                        normalize_label(form) for row in section.table.rows for form in (row[0], row[0].rpartition(": ")[2]))
        elif _printed_page(section, document):
            facts.extend(_kv_facts(section, doc_id, document.filename))
    if document.kind == "pdf" and path is not None and short:
        # A report's statement read from the word layout keeps its stacked period headers ("For the year ended
        # 31 December" over "2019 | 2018"), its section headings and its scale; pdfplumber's grid of the same
        # ruled table flattens them (TAT-QA tuning part: ruled pages 47.9 % exact match, unruled 68.1 %).
        ruled = _pdf_table_facts(path, document, doc_id, statements)
        ruled_pages = {f.page for f in ruled}
        # Any other ruled table pdfplumber read is that page's table (it reads text columns too): the same rows
        # read again from the word layout would count twice.
        facts = [f for f in facts if f.kind != ROW or f.page not in ruled_pages or id(f) in kept] + ruled
    if short:  # line items printed without rules, on pages where no table was read
        tabled = {f.page for f in facts if f.kind == ROW}
        for section in document.sections:
            if _printed_page(section, document) and section.table is None and section.page not in tabled:
                facts += _item_line_facts(section, doc_id, document.filename)
    if short:  # receipts, invoices, datasheets: a page is a record
        facts = _without_repeats(facts)
        prose: dict[int, list[str]] = {}
        for s in document.sections:  # a page whose tables were read apart has several prose runs
            if s.page is not None and s.table is None:
                prose.setdefault(s.page, []).append(s.text)
        attach_page_context(facts, {page: "\n".join(texts) for page, texts in prose.items()})
    if short and document.kind not in ("csv", "xlsx") and may_be_record(document, profiles):  # its header as one row
        for record in read_records(document, path):
            facts += record_facts(record, doc_id)
    for number, fact in enumerate(facts):
        fact.fact_id = f"{doc_id}_f{number}"
    return facts


def _printed_page(section: Section, document: LoadedDocument) -> bool:
    """A page of a PDF or a scan, or a text file (one page without a number): where label lines and
    item lines are printed."""
    return section.page is not None or document.kind in ("txt", "md")


def assign_chunks(facts: list[Fact], chunks) -> None:
    """Point each fact at the chunk that holds it, so a citation can open the right passage."""
    for fact in facts:
        fact.chunk_id = next((c.chunk_id for c in chunks if _holds(c, fact)), None)


def _holds(chunk, fact: Fact) -> bool:
    if chunk.row_start is not None:  # a spreadsheet or CSV chunk: by sheet and row range
        return (chunk.sheet == fact.sheet and fact.row_index is not None
                and chunk.row_start <= fact.row_index <= (chunk.row_end or chunk.row_start))
    if chunk.page_start is None or fact.page is None:
        return False
    on_page = chunk.page_start <= fact.page <= (chunk.page_end or chunk.page_start)
    return on_page and fact.values[0].text.split(" ")[0] in chunk.text


# A two-column table headed like "Property | Value" lists one thing's fields, not records.
_FIELD_HEADERS = ({"property", "parameter", "characteristic", "attribute", "feature", "specification", "field", "key"},
                  {"value", "values", "specification", "spec", "data", "details"})


def _lists_fields(table) -> bool:
    if len(table.header) != 2:
        return False
    first, second = (normalize_label(h) for h in table.header)
    return first in _FIELD_HEADERS[0] or second in _FIELD_HEADERS[1]


def _row_facts(section: Section, doc_id: str, filename: str) -> list[Fact]:
    table = section.table
    if _lists_fields(table):  # "Width | 1134 mm": the same fact as the line "Width: 1134 mm"
        return [_field_fact(label, value, doc_id, filename, section, number)
                for number, (label, value) in zip(table.row_numbers, table.rows) if label and value]
    title = TITLE_JOIN.join(table.title_lines) or " | ".join(table.header)
    identifier = table_identifier(table.header, table.rows)
    facts = _set_aside_facts(section, doc_id, filename, title)
    for number, row in zip(table.row_numbers, table.rows):
        summary = _summary_line(row)
        if summary is not None:  # "Total | | | 272.40" closes the line items: a figure of the page
            facts.append(Fact(doc_id, filename, KV, [typed_value(*summary)], page=section.page,
                              sheet=section.sheet, row_index=number, table=title))
            continue
        values = [typed_value(h, v) for h, v in zip(table.header, row) if v]
        if values:
            record = record_name(table.header[identifier], row[identifier]) if identifier is not None else None
            facts.append(Fact(doc_id, filename, ROW, values, page=section.page, sheet=section.sheet,
                              row_index=number, table=title, record=record))
    return facts


def _set_aside_facts(section: Section, doc_id: str, filename: str, title: str) -> list[Fact]:
    """A table's total rows and note rows, marked as such (core.annotations.tables keeps them beside the
    table, out of its records). An invoice table's "Total | | | 272.40" stays a figure of its page."""
    table = section.table
    place = {"page": section.page, "sheet": section.sheet, "table": title}
    facts = []
    for number, row in table.total_rows:
        summary = _summary_line(row) if section.page is not None else None
        if summary is not None:
            facts.append(Fact(doc_id, filename, KV, [typed_value(*summary)], row_index=number, **place))
        else:
            values = [typed_value(h, v) for h, v in zip(table.header, row) if v]
            facts.append(Fact(doc_id, filename, TOTAL, values, row_index=number, **place))
    for number, note in zip(table.note_numbers, table.note_lines):
        facts.append(Fact(doc_id, filename, NOTE, [FactValue("Note", note)], row_index=number, **place))
    return facts


def _summary_line(row: list[str]) -> tuple[str, str] | None:
    """(label, figure) of a table row that sums the line items above it: a total-like first cell,
    one figure at the end, nothing in between."""
    cells = [c.strip() if c else "" for c in row]
    filled = [c for c in cells if c]
    if len(filled) != 2 or not cells[0] or not SUMMARY_LABEL.match(cells[0]):
        return None
    return cells[0], filled[-1]


def _without_repeats(facts: list[Fact]) -> list[Fact]:
    """A total printed both in the line-item table and as a text line is one figure."""
    seen: set[tuple] = set()
    kept = []
    for fact in facts:
        if fact.kind == KV and fact.page is not None:
            value = fact.values[0]
            key = (fact.page, normalize_label(value.column), value.number if value.number is not None else value.text)
            if key in seen:
                continue
            seen.add(key)
        kept.append(fact)
    return kept


def _kv_facts(section: Section, doc_id: str, filename: str) -> list[Fact]:
    facts = []
    lines = section.text.split("\n")
    for line_number, line in enumerate(lines, start=1):
        pair = _key_value(line, lines[line_number] if line_number < len(lines) else "")
        if pair is None:
            continue
        facts.append(_field_fact(*pair, doc_id, filename, section, line_number))
    return facts


def _field_fact(label: str, value: str, doc_id: str, filename: str, section: Section, row_index: int) -> Fact:
    """A printed field; "Dimensions (L x W x H): 1.755 m x 1.038 m x 0.035 m" also gives each length."""
    values = [typed_value(label, value)]
    dimensions = _DIMENSIONS.search(value)
    if dimensions:
        unit = dimensions.group("unit")
        parts = [dimensions.group(k) for k in ("a", "b", "c") if dimensions.group(k)]
        values += [typed_value(f"{name} ({unit})", part.replace(",", "."))
                   for name, part in zip(dimension_names(label, len(parts)), parts)]
    return Fact(doc_id, filename, KV, values, page=section.page, sheet=section.sheet, row_index=row_index)


def dimension_names(label: str, count: int) -> tuple[str, ...]:
    """What each of `count` dimensions is: in the order the label's letters give ("(L x W x H)"),
    else length, width, depth."""
    order = _DIMENSION_ORDER.search(label)
    if order:
        names = tuple(_DIMENSION_NAMES.get(letter.lower()) for letter in order.groups() if letter)
        if len(names) == count and all(names):
            return names
    return ("length", "width", "depth")[:count]


def _key_value(line: str, next_line: str) -> tuple[str, str] | None:
    """("Label", "value") from "Label: value", "Total $ 279.84", or "Due Date:" over "04/04/2023"."""
    match = _KV_LINE.match(line) or _AMOUNT_LINE.match(line)
    if match:
        label, value = match.group("label").strip(), match.group("value").strip()
    else:
        label_only = _LABEL_ONLY.match(line)
        value = next_line.strip()
        if not label_only or not value or len(value) > 60 or _KV_LINE.match(next_line):
            return None
        label = label_only.group("label").strip()
    # A long "label" is a sentence with a colon in it; a parenthesis ("(L x W x H)") only qualifies one.
    if not label or label.lower().split()[0] in _NOT_LABELS or len(re.sub(r"\(.*?\)", "", label).split()) > 6:
        return None
    return label, value


# "2 Winter tyre 205/55 R16 95.00 190.00", "6 1 Small Business Exchange 2010 5,39 5,39", "iPad 1 € 399,00",
# "Valve  2 x 2.50  5.00": counts before or after a description (or "count x" before the unit price), then
# one to three money figures (decimals), the last the amount.
_MONEY = r"-?[$€£]?\s?\d{1,3}(?:[.,' ]\d{3})*[.,]\d{2}\s?(?:[$€£]|EUR|USD|GBP)?"
_ITEM_LINE = re.compile(
    rf"^\s*(?P<lead>(?:\d{{1,4}}\s+){{0,2}})(?P<desc>[^\W\d_].*?[^\s:])"
    rf"(?:\s+(?P<tail>\d{{1,3}})|\s+(?P<times>\d{{1,4}})\s?[x×])?\s+"
    rf"(?P<figures>(?:{_MONEY}\s+|\d{{1,2}}\s?%\s+){{0,3}}{_MONEY})\s*$"
)
_MONEY_FIGURE = re.compile(_MONEY)
_MIN_ITEM_LINES = 2  # one priced line alone is usually a total or a note, not a list of items


def headed_row(line: str) -> list[tuple[str, str]] | None:
    """The cells of a table row that the PDF reader wrote out with its column headers (core.ingest.
    pdf_tables: "Bark mulch, 70 L bag | Qty: 12 | Unit price: 6.50 | Line total: 78.00"), its first cell
    as the description; None for any other line. Two headed cells at least: one is a label line."""
    parts = [part.strip() for part in line.split(" | ")]
    if len(parts) < 3 or ": " in parts[0] or not re.search(r"[^\W\d_]", parts[0]):
        return None
    cells = [("Description", parts[0])]
    for part in parts[1:]:
        label, colon, value = part.rpartition(": ")
        if not colon or not label or not value:
            return None
        cells.append((label, value))
    return cells


def _priced_cells(line: str) -> list[tuple[str, str]] | None:
    """The cells of an item line that ends in prices ("Valve  2 x 2.50  5.00"); None for any other line."""
    match = _ITEM_LINE.match(line)
    if not match or _KV_LINE.match(line):
        return None
    figures = _MONEY_FIGURE.findall(match.group("figures"))
    cells = [("Description", match.group("desc").strip())]
    counts = match.group("lead").split() + [match.group(g) for g in ("tail", "times") if match.group(g)]
    if counts:
        cells.append(("Qty", counts[-1]))
    if len(figures) >= 2:
        cells.append(("Unit price", figures[-2].strip()))
    cells.append(("Amount", figures[-1].strip()))
    return cells


def _item_line_facts(section: Section, doc_id: str, filename: str) -> list[Fact]:
    """Rows from item lines of a page whose line items are not drawn as a table: lines ending in prices,
    and rows of a table without rules that the PDF reader wrote out with their headers. When a page has
    such a table, it is the page's items: the priced lines below it are its net, tax and total."""
    headed, priced = [], []
    for line_number, line in enumerate(section.text.split("\n"), start=1):
        header_cells = headed_row(line)
        cells = header_cells or _priced_cells(line)
        if cells is None or is_total_line(cells[0][1]):
            continue
        (headed if header_cells else priced).append(
            Fact(doc_id, filename, ROW, [typed_value(label, text) for label, text in cells],
                 page=section.page, row_index=line_number, table="item lines"))
    items = headed if len(headed) >= _MIN_ITEM_LINES else priced
    return items if len(items) >= _MIN_ITEM_LINES else []


_PERIOD_HEADER = re.compile(rf"\b{YEAR_DIGITS}\b")


def _is_statement(section: Section) -> bool:
    """A table the layout reader read (it has a head) with two figure columns or more, each headed by a year."""
    if section.table is None or section.page is None or not section.head:
        return False
    columns = [h for h in section.table.header[1:] if h != "Footnote"]
    return len(columns) >= 2 and all(_PERIOD_HEADER.search(h) for h in columns)


_SAME_TABLE = 0.5  # the share of a grid's row labels a statement read on its page holds: the same table


def _pdf_table_facts(path: Path, document: LoadedDocument, doc_id: str,
                     statements: dict[int, set[str]] | None = None) -> list[Fact]:
    """Tables drawn on PDF pages (line items of receipts and invoices, datasheet tables)."""
    try:
        import pdfplumber
    except ImportError:
        return []
    facts: list[Fact] = []
    # The scale the text around a page's one table states ("... as follows (in thousands):"), which the
    # layout reader gave its table: pdfplumber reads the ruled grid only.
    read: dict[int, list[str]] = {}
    for s in document.sections:
        if s.table is not None and s.page is not None:
            read.setdefault(s.page, []).append(unit_of(s.table.title_lines))
    page_units = {page: units[0] for page, units in read.items() if len(units) == 1 and units[0]}
    try:
        with pdfplumber.open(str(path)) as pdf:
            for page_number, page in enumerate(pdf.pages, start=1):
                tables = [t for grid in page.extract_tables() for t in find_tables(grid)]
                for table in tables:
                    if len(table.header) < 2 or not table.rows:
                        continue
                    labels = [normalize_label(r[0]) for r in table.rows if r and r[0].strip()]
                    read = (statements or {}).get(page_number, set())
                    if labels and sum(label in read for label in labels) >= _SAME_TABLE * len(labels):
                        continue  # a statement the layout reader read with its stacked headers
                    if table.header[0] == BLANK_STUB:  # the row labels under a blank corner, as the layout reader names them
                        table.header[0] = LABELS_HEADER
                    unit = page_units.get(page_number) if len(tables) == 1 else None
                    if unit and not unit_of([*table.title_lines, *table.header]):
                        table.title_lines.append(f"({unit})")
                    section = Section("", page=page_number, is_table=True, table=table)
                    facts.extend(_row_facts(section, doc_id, document.filename))
    except Exception as exc:  # a table reader failure must not cost the document
        log.info("pdfplumber could not read tables in %s: %s", path.name, exc)
    return facts
