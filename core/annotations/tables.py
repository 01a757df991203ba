"""Tables as real typed tables: every stored table of facts becomes one SQLite table a query runs over.

- Each CSV, each sheet's table, each table read on a short PDF page: one table, its own columns.
- A short document's "Label: value" lines (an invoice's or receipt's header: number, date, total):
  one long-form table per document (label, value, number, date), since every issuer prints other labels.

pandas types the columns: a column whose cells are mostly numbers is stored as numbers (the printed
text stays beside it in `<column>_text` when the two differ, as "1st" or "$279.84" do), and a column
of measured quantities gets its normalized column (`width_m`, `weight_kg`) next to the printed one.
Every row keeps its provenance (source_file, source_sheet, source_page, source_row, fact_id).

The tables live in their own SQLite file beside the catalog, rebuilt when the catalog's generation
changes, and are only ever read through core.annotations.sql's read-only connection. SQLite rather
than DuckDB: it is already the catalog (no new dependency, and its authorizer callback is what makes
the connection provably read-only); a query over these tables takes ~4 ms, far below the model's
seconds, so a faster engine would not show. Rebuilding 80 tables (1,606 rows) took 11.9 s with the
machine's load at 18, once per change of documents; reopening a built file 3 ms (docs/tables.md).
"""
from __future__ import annotations

import json
import os
import re
import sqlite3
import threading
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pandas as pd

from core.annotations.conditions import YEAR_DIGITS, MONTHS
from core.annotations.columns import excel_serial_dates, numeric_order, read_dates, variant_groups
from core.annotations.documents import PRINTED as RECORD_PRINTED, RECORD_TABLE, is_total_line
from core.annotations.model import NOTE, TITLE_JOIN, TOTAL, normalize_label
from core.annotations.search import KIND_OF_LABEL, SYNONYMS
from core.annotations.units import BASE_UNIT, MEASURES, header_unit
from core.store.facts import FactTables

PROVENANCE = ["source_file", "source_sheet", "source_page", "source_row", "fact_id"]
FIELD_COLUMNS = ["label", "value", "number", "date"]
# A column is numeric when at least this share of its filled cells read as numbers: WikiTableQuestions
# columns mix a stray "—" or "n/a" into numbers; lower lets text columns with a few numbers turn numeric.
NUMERIC_SHARE = 0.8
# A dash in a column of figures is a nil, as reports print it: neither a number nor text when the column is
# typed ("(0.9)", "-", "(0.4)", "-" under a year was a text column, and its year's figures unreadable); so is a
# dash after a currency sign ("$-" beside "$58,000").
NIL_MARKS = {"-", "–", "—", "−"}
CURRENCY_SIGNS = "$€£¥₹"
ISO_DATE_NOTE = "as an ISO date (YYYY-MM-DD)"  # the label of a date column's ISO twin, which follows it
DATETIME_NOTE = "as an ISO date and time (YYYY-MM-DD HH:MM:SS)"  # and of its date-time twin, after that
# A text column with at most this many values (spellings of one value counted once) is a category: its
# values are listed on the table (TableInfo.categories) for a query's prompt and for matching a question's
# value to its cells. More is a column of names or references, listed by nobody.
MAX_CATEGORIES = 30
BUILD_VERSION = "14"  # bump when the tables built from the same facts change shape: the file is rebuilt


@dataclass
class TableInfo:
    name: str  # the SQL table name
    doc_id: str
    filename: str
    sheet: str | None
    kind: str  # "rows" (a table of records) | "fields" (a document's label: value lines) | "record" (an
    # invoice's or receipt's header as one row: issuer, number, date, total, currency, pages) | "records"
    # (every document record of the knowledge base, one row each, with its file) | "measures" (one row per
    # short document: the quantities its label lines print, in base units)
    columns: list[str]  # SQL column names, provenance excluded
    printed: dict[str, str] = field(default_factory=dict)  # SQL column -> the label as printed
    types: dict[str, str] = field(default_factory=dict)  # SQL column -> REAL | TEXT
    units: dict[str, str] = field(default_factory=dict)  # SQL column -> unit of its numbers
    row_count: int = 0
    values: list[str] = field(default_factory=list)  # distinct short text cells, for table selection
    title: str = ""  # the title printed above the table (title lines joined by TITLE_JOIN), if any
    # SQL column -> its values as groups of spellings of one value, the most written first
    # ([["E-Bikes", "E-bikes"], ["Parts"]]), for a text column of at most MAX_CATEGORIES values
    categories: dict[str, list[list[str]]] = field(default_factory=dict)
    # SQL column of printed dates -> how they were read: {"twin": ISO column, "datetime": date-time column
    # or None, "order": "day first" | "month first" | None, "decided_by": "column" | "table" | "default" |
    # None, "parsed": cells read, "filled": cells filled}
    dates: dict[str, dict] = field(default_factory=dict)
    # Rows of the printed table that are no records, kept so a printed total can still be read:
    # {"kind": "total" | "note", "row": sheet row, "cells": {printed label: text}}
    set_aside: list[dict] = field(default_factory=list)
    # row label -> the unit every figure of that row prints where its columns' units differ from it: a
    # report's "WACC | 9.0% | 9.5%" under "$ in millions" is in percent, not millions
    row_units: dict[str, str] = field(default_factory=dict)

    def years_dated(self, years) -> set[str]:
        """Of `years` ("2025"), those a date this table prints holds ("14/02/2025"); none for a table without dates."""
        return {y for y in years if any(y in v for v in self.values)} if self.dates else set()

    @property
    def is_whole_document(self) -> bool:
        """The document is this table (a CSV or a spreadsheet's sheet): what its columns cannot say, no page of
        it says either. A PDF's table sits among pages of prose that may."""
        return self.filename.lower().endswith(SHEET_SUFFIXES)

    def to_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "values"}


SHEET_SUFFIXES = (".csv", ".tsv", ".xlsx", ".xlsm", ".xls")
TWIN_NOTES = (ISO_DATE_NOTE, "(as printed)", DATETIME_NOTE)  # how a twin column's label ends (built below)
NUMBER_TWIN = "the number "  # how a leading-number twin's label starts


def number_twin_label(label: str) -> str:
    """The label of the twin holding the number each cell of the column `label` starts with."""
    return f"{NUMBER_TWIN}{label} starts with"


# What ingest calls the blank corner over a report table's row labels (ingest.tables): no one printed it, so an
# answer says a condition on those labels by the label alone ("for Investment income").
LABELS_HEADER = "Description"


def spoken_label(label: str) -> str:
    """A column's label as an answer says it: the form a twin restates its column in is the reader's business,
    not the user's ("Air Date as an ISO date (YYYY-MM-DD)" is said "Air Date"), and a header printed over two
    lines is one line."""
    for note in TWIN_NOTES:
        label = label.removesuffix(f" {note}")
    if label.startswith(NUMBER_TWIN) and label.endswith(" starts with"):
        label = label[len(NUMBER_TWIN):-len(" starts with")]
    return " ".join(label.split())


def is_twin(table: TableInfo, column: str) -> bool:
    """Whether a column restates the one beside it in another form (its ISO date, the number it starts
    with, or the printed text of a number column): its label says the form, its values add nothing new."""
    note = table.printed.get(column, "")
    return note.endswith(TWIN_NOTES) or note.startswith(NUMBER_TWIN)


def sql_name(text: str, taken: set[str] | None = None) -> str:
    """ "Width (mm)" -> "width_mm", "2nd leg" -> "c_2nd_leg"; unique within `taken`."""
    name = "_".join(re.findall(r"[a-z0-9]+", text.lower())) or "column"
    if name[0].isdigit():
        name = "c_" + name
    base, n = name, 2
    while taken is not None and name in taken:
        name, n = f"{base}_{n}", n + 1
    if taken is not None:
        taken.add(name)
    return name


_LEADING = re.compile(r"^\s*[+\-−]?\d[\d,]*(?:\.\d+)?")
# (a day, a month or a year starts a date; "978 / 3,209", a height in metres and feet, is no date)
_DATE_LIKE = re.compile(r"^\s*(?:(?:\d{1,2}|\d{4})\s*[/\-:]\s*\d|\d+\s*(?:\.\d+\.\d|"
                        rf"(?:{'|'.join(m[:3] for m in MONTHS)})[a-z]*\b))", re.I)


def leading_number(text: str) -> float | None:
    """The number a cell starts with ("1st" 1, "12 (3)" 12, "+3" 3, "1,234 votes" 1234), None for a date
    or a time ("25 April 2013", "2:03.45"), whose leading figure is no quantity."""
    match = _LEADING.match(text)
    if not match or _DATE_LIKE.match(text):
        return None
    try:
        return float(match.group(0).strip().replace(",", "").replace("−", "-"))
    except ValueError:
        return None


class TableStore:
    """The typed tables of a knowledge base, kept in `path` and rebuilt from the catalog's facts."""

    def __init__(self, indexed_documents: Callable[[], list], facts: FactTables, path: Path,
                 generation: Callable[[], str], max_table_pages: int) -> None:
        self._indexed_documents = indexed_documents  # the catalog's records of the searchable documents
        self._facts = facts
        self.path = Path(path)
        self._generation = generation
        self.max_table_pages = max_table_pages
        self._tables: list[TableInfo] | None = None
        self._built_for: str | None = None
        self._building = threading.Lock()  # (the tables are warmed in the background while a question may ask)

    def tables(self) -> list[TableInfo]:
        """Every table, rebuilt first when documents (or the way tables are built) changed since the last build."""
        stamp = f"{self._generation()}/{BUILD_VERSION}"
        with self._building:
            if self._tables is None or self._built_for != stamp:
                self._tables = self._load(stamp)
                if self._tables is None:
                    self._tables = self._build(stamp)
                self._built_for = stamp
            return self._tables

    def _load(self, stamp: str) -> list[TableInfo] | None:
        """The tables file of this generation, if another process (or an earlier run) built it."""
        if not self.path.exists():
            return None
        try:
            with sqlite3.connect(f"file:{self.path}?mode=ro", uri=True) as conn:
                meta = dict(conn.execute("SELECT key, value FROM _meta").fetchall())
        except sqlite3.Error:
            return None
        if meta.get("generation") != stamp:
            return None
        return [TableInfo(**info) for info in json.loads(meta["tables"])]

    def _build(self, stamp: str) -> list[TableInfo]:
        documents = {r.doc_id: (r.filename, r.pages) for r in self._indexed_documents()}
        stored = self._facts
        facts = stored.all_facts()
        cells: dict[str, list[tuple]] = defaultdict(list)
        for fact_id, column, text, number, kind, base, date, context in stored.all_values():
            cells[fact_id].append((column, text, number, kind, base, date, context))
        groups: dict[tuple, list] = defaultdict(list)
        aside: dict[tuple, list] = defaultdict(list)  # a table's total and note rows, by its group
        for fact in facts:
            fact_id, doc_id, kind, page, sheet, row_index, table_name = fact
            if doc_id not in documents:
                continue
            filename, pages = documents[doc_id]
            if kind == "row" and table_name == RECORD_TABLE:  # an invoice's or receipt's header: its own table
                groups[("record", doc_id, None, None)].append(fact)
            elif kind == "row" or kind == TOTAL and _statement_line(page, cells.get(fact_id, [])):
                groups[("rows", doc_id, sheet, table_name)].append(fact)  # each table of a sheet is a table of its own
            elif kind in (TOTAL, NOTE):
                aside[("rows", doc_id, sheet, table_name)].append(fact)
            elif (pages or 0) <= self.max_table_pages:  # long filings' "Label: value" lines are text, not a record
                groups[("fields", doc_id, None, None)].append(fact)
        per_sheet = defaultdict(int)  # tables of records on each sheet (or CSV, or PDF)
        for kind, doc_id, sheet, _ in groups:
            per_sheet[(kind, doc_id, sheet)] += kind == "rows"
        taken: set[str] = {"_meta"}
        tables: list[tuple[TableInfo, pd.DataFrame]] = []
        for (kind, doc_id, sheet, table_name), members in groups.items():
            filename = documents[doc_id][0]
            stem = filename.rsplit(".", 1)[0] + (f" {sheet}" if sheet else "") + (f" {kind}" if kind != "rows" else "")
            title = table_title(table_name) if kind == "rows" else ""
            if per_sheet[(kind, doc_id, sheet)] > 1 and members[0][3] is None:  # several tables on one sheet
                stem += " " + (" ".join(title.split(TITLE_JOIN)[-1].split()[:5]) or "table")
            name = sql_name(stem, taken)
            build = _fields_frame if kind == "fields" else _rows_frame
            info, frame = build(name, doc_id, filename, sheet, members, cells)
            info.kind, info.title = kind, title
            info.set_aside = [_set_aside(fact, cells) for fact in aside.get((kind, doc_id, sheet, table_name), [])]
            if len(frame):
                tables.append((info, frame))
        records = [m for (kind, *_), members in groups.items() if kind == "record" for m in members]
        if len(records) >= 2:  # "which receipt has the highest total", "spent per vendor": every record in one table
            tables.append(_all_records_frame(sql_name("document records", taken), records, cells, documents))
        items = _line_item_frame(sql_name("line items", taken), groups, cells, documents)
        if items is not None:
            tables.append(items)
        measures = _all_measures_frame(sql_name("document measures", taken), groups, cells, documents)
        if measures is not None:
            tables.append(measures)
        tmp = self.path.with_suffix(".tmp")
        tmp.unlink(missing_ok=True)
        with sqlite3.connect(tmp) as out:
            for info, frame in tables:
                # Text compares without case ("= 'peter gethin'" finds "Peter Gethin"): questions are typed
                # in any case and the model copies the question's spelling into its filters.
                frame.to_sql(info.name, out, index=False,
                             dtype={c: "TEXT COLLATE NOCASE" if t == "TEXT" else t for c, t in info.types.items()})
            out.execute("CREATE TABLE _meta (key TEXT PRIMARY KEY, value TEXT)")
            out.executemany("INSERT INTO _meta VALUES (?, ?)", [
                ("generation", stamp), ("tables", json.dumps([{**t.to_dict(), "values": t.values} for t, _ in tables]))])
        out.close()
        os.replace(tmp, self.path)
        return [info for info, _ in tables]


_YEAR_HEADER = re.compile(rf"\b{YEAR_DIGITS}\b")


def _statement_line(page: int | None, cells: list[tuple]) -> bool:
    """A printed report's "Total operating expenses | 412 | 398" under year columns: a line of its statement
    that questions ask for ("the total expenses in 2024"). A spreadsheet's TOTAL row, or an invoice's, only
    sums the records above it."""
    return page is not None and any(_YEAR_HEADER.search(str(c[0])) for c in cells)


def table_title(table_name: str | None) -> str:
    """The title a table's rows were stored under; "" when they carry its header instead (an untitled
    table is named by its columns, "Item | Qty | Price")."""
    return "" if not table_name or " | " in table_name else table_name


def _set_aside(fact: tuple, cells: dict) -> dict:
    fact_id, _, kind, _, _, row_index, _ = fact
    return {"kind": kind, "row": row_index, "cells": {c[0]: c[1] for c in cells.get(fact_id, []) if not c[6]}}


def _rows_frame(name, doc_id, filename, sheet, members, cells) -> tuple[TableInfo, pd.DataFrame]:
    """One row per fact; each printed column typed by what its cells hold."""
    printed: dict[str, str] = {}  # printed label -> SQL column
    taken = set(PROVENANCE)
    records = []
    for fact_id, _, _, page, fact_sheet, row_index, _ in members:
        record = {"source_file": filename, "source_sheet": fact_sheet, "source_page": page,
                  "source_row": row_index, "fact_id": fact_id}
        for column, text, number, kind, base, date, context in cells.get(fact_id, []):
            if context:  # borrowed from the page heading: not a cell of this table
                continue
            if column not in printed:
                printed[column] = sql_name(column, taken)
            record[printed[column]] = (text, number, kind, base, date)
        records.append(record)
    info = TableInfo(name, doc_id, filename, sheet, "rows", [], {}, {}, {}, len(records))
    frame = pd.DataFrame({c: [r.get(c) for r in records] for c in PROVENANCE})
    columns = []  # (printed label, SQL column, raw cells, texts, filled, numeric)
    for label, column in printed.items():
        raw = [r.get(column) for r in records]
        texts = pd.Series([c[0] if c else None for c in raw], dtype="object")
        numbers = pd.Series([c[1] if c else None for c in raw], dtype="float64")
        filled = texts.notna() & (texts.str.strip() != "")
        typed = filled & ~texts.str.strip().str.lstrip(CURRENCY_SIGNS).str.strip().isin(NIL_MARKS)
        numeric = typed.sum() > 0 and numbers[typed].notna().mean() >= NUMERIC_SHARE
        columns.append((label, column, raw, texts, filled, numeric))
    # Numeric dates are read in one order per column; a column whose values do not say takes its table's.
    orders = {column: numeric_order(list(texts[filled])) for _, column, _, texts, filled, numeric in columns
              if not numeric}
    decided = {o for o in orders.values() if o is not None}
    table_order = next(iter(decided)) if len(decided) == 1 else None
    for label, column, raw, texts, filled, numeric in columns:
        info.columns.append(column)
        info.printed[column] = label
        if numeric:
            _number_column(info, frame, label, column, raw, texts, filled, taken)
        else:
            _text_column(info, frame, label, column, texts, filled, taken, orders[column], table_order)
    info.row_units = _row_units(info, columns)
    info.types.update({"source_page": "INTEGER", "source_row": "INTEGER"})
    return info, frame[[*info.columns, *PROVENANCE]]


def _row_units(info: TableInfo, columns: list) -> dict[str, str]:
    """The rows of a table whose figures all print "%" in columns that are not percent columns, by label
    (the first text column's cell)."""
    labels = next((raw for _, column, raw, _, _, numeric in columns if not numeric), None)
    if labels is None:
        return {}
    mixed = [raw for _, column, raw, _, _, numeric in columns if numeric and info.units.get(column) != "%"]
    units = {}
    for n, label in enumerate(labels):
        kinds = [raw[n][2] for raw in mixed if raw[n] and raw[n][1] is not None]
        if label and label[0] and kinds and all(k == "percent" for k in kinds):
            units[str(label[0]).strip()] = "%"
    return units


def _twin(info: TableInfo, frame: pd.DataFrame, name: str, label: str, kind: str, values, taken: set[str]) -> str:
    """Add a column that restates the one before it in another form."""
    column = sql_name(name, taken)
    frame[column] = values
    info.columns.append(column)
    info.printed[column] = label
    info.types[column] = kind
    return column


def _text_column(info, frame, label, column, texts, filled, taken, order, table_order) -> None:
    """A text column: as printed; with an ISO twin (and a date-time twin) when its cells are dates, else a
    twin of the number its cells start with ("1st", "12 (3)"), and its values when they are few."""
    frame[column] = texts.where(filled, None)
    info.types[column] = "TEXT"
    info.values += sorted({t.strip() for t in texts[filled] if len(t.strip()) <= 60})
    dates = read_dates([t if isinstance(t, str) else None for t in texts], order, table_order)
    if dates.filled and dates.parsed >= NUMERIC_SHARE * dates.filled:  # "11 July 1918": sortable as ISO
        twin = _twin(info, frame, f"{column} date", f"{label} {ISO_DATE_NOTE}", "TEXT", dates.dates, taken)
        moment = dates.datetimes and _twin(info, frame, f"{column} datetime", f"{label} {DATETIME_NOTE}", "TEXT",
                                           dates.datetimes, taken)
        info.dates[column] = {"twin": twin, "datetime": moment or None, "order": dates.order,
                              "decided_by": dates.decided_by, "parsed": dates.parsed, "filled": dates.filled}
        return
    groups = variant_groups(Counter(t.strip() for t in texts[filled]), MAX_CATEGORIES)
    if groups is not None:
        info.categories[column] = groups
    leading = texts[filled].map(leading_number)
    if len(leading) and leading.notna().mean() >= NUMERIC_SHARE:  # "1st", "12 (3)", "+3", "4 km"
        _twin(info, frame, f"{column} number", number_twin_label(label), "REAL",
              pd.Series([leading_number(t) if isinstance(t, str) else None for t in texts], dtype="float64"), taken)


def _number_column(info, frame, label, column, raw, texts, filled, taken) -> None:
    """A number column: the numbers, with the unit its header or its cells' currency sign gives; the
    printed text beside it when it has words; its values in the base unit of their kind beside it when
    that is another unit ("Frame (cm)" in m, "Power [hp]" in W); ISO dates when the header says the
    numbers are dates and they are Excel's day numbers."""
    numbers = pd.Series([c[1] if c else None for c in raw], dtype="float64")
    frame[column] = numbers
    info.types[column] = "REAL"
    unit = header_unit(label)
    currency = [c for c in CURRENCY_SIGNS if all(c in t for t in texts[filled])]
    if currency:  # "$279.84": the number, and the sign the answer gives it back
        unit = currency[0]
    elif not unit and {c[2] for c in raw if c} == {"percent"}:  # "12.5%": percent, as printed
        unit = "%"
    elif not unit and _percent_at_ends(raw):
        unit = "%"
    if unit:
        info.units[column] = unit
    if texts[filled].str.contains(r"[^\W\d_]", regex=True).any():  # "1st", "12 kg", "n/a": keep the words
        _twin(info, frame, f"{column} text", f"{label} {TWIN_NOTES[1]}", "TEXT", texts.where(filled, None), taken)
        info.values += sorted({t.strip() for t in texts[filled] if len(t.strip()) <= 60})
    serial = excel_serial_dates([None if pd.isna(n) else n for n in numbers]) if "date" in normalize_label(label).split() else None
    if serial:
        twin = _twin(info, frame, f"{column} date", f"{label} {ISO_DATE_NOTE}", "TEXT", serial, taken)
        info.dates[column] = {"twin": twin, "datetime": None, "order": None, "decided_by": None,
                              "parsed": sum(1 for d in serial if d), "filled": int(filled.sum())}
        return
    _base_twin(info, frame, label, column, raw, numbers, unit, taken)


def _percent_at_ends(raw: list) -> bool:
    """A report prints "%" only on a column's first and last figures ("100.0 %" ... "7.2 %", "21.0%" ... "13.0%"):
    the bare figures between are percentages too, when none is beyond what a percentage there could be. (A
    currency sign is not read so: bare lines between dollar lines are often share counts.)"""
    cells = [cell for cell in raw if cell and cell[1] is not None]
    bound = max([100.0, *(abs(cell[1]) for cell in cells if cell[2] == "percent")])
    return len(cells) >= 3 and cells[0][2] == cells[-1][2] == "percent" and not any(
        cell[2] for cell in cells if cell[2] != "percent") and all(abs(cell[1]) <= bound for cell in cells)


def _base_twin(info, frame, label, column, raw, numbers, unit, taken) -> None:
    """The column in its kind's base unit (m, kg, W, %), when that is not already its unit: from each
    cell's own unit where the cells print one ("21.5 kg", "19000 g"), else from the header's."""
    kinds = {c[2] for c in raw if c and c[2]}
    measure = MEASURES.get(unit or "")
    if len(kinds) == 1 and (kind := next(iter(kinds))) in BASE_UNIT:
        if measure and measure[0] == kind and measure[1] == 1.0:
            return  # "Weight (kg)": its numbers are kilograms already
        base = pd.Series([c[3] if c else None for c in raw], dtype="float64")
    elif not kinds and measure and measure[0] in BASE_UNIT and measure[1] != 1.0:
        kind, base = measure[0], numbers * measure[1]
    else:
        return
    base_unit = BASE_UNIT[kind]
    twin = _twin(info, frame, f"{column} {'pct' if base_unit == '%' else base_unit}", f"{label} in {base_unit}",
                 "REAL", base, taken)
    info.units[twin] = base_unit


ALL_RECORDS = "all invoices and receipts"  # the file name the table of every document record goes by


def _all_records_frame(name, members, cells, documents) -> tuple[TableInfo, pd.DataFrame]:
    """Every document record in one table, with the file each comes from as a column of its own."""
    files = [documents[m[1]][0] for m in members]
    with_file = {m[0]: [("File", f, None, None, None, None, 0), *cells.get(m[0], [])] for m, f in zip(members, files)}
    info, frame = _rows_frame(name, "", ALL_RECORDS, None, members, with_file)
    frame["source_file"] = files
    info.kind = "records"
    return info, frame


ALL_MEASURES = "measurements printed in all documents"  # the file name the common measures table goes by


def measure_of(label: str, kind: str) -> str | None:
    """The quantity a printed label names ("Mass" -> weight, "Rated output (Pmax)" -> power), of the
    quantities the rules know (search.KIND_OF_LABEL) and of the value's kind: its own name first, then
    a synonym ("length" is also a synonym of height)."""
    plain = normalize_label(label)
    said = set(plain.split()) | {plain}
    candidates = [m for m, k in KIND_OF_LABEL.items() if k == kind]
    return (next((m for m in candidates if m in said), None)
            or next((m for m in candidates if said & SYNONYMS.get(m, set())), None))


def _all_measures_frame(name, groups, cells, documents) -> tuple[TableInfo, pd.DataFrame] | None:
    """One row per short document with each quantity it prints as a label line, in its base unit
    (width_m, weight_kg, power_w, efficiency_percent), so "which panel is narrower than 1.1 m" is one
    filter over datasheets that print "Width: 1134 mm" and "Dimensions (L x W x H): 1.755 m x 1.038 m x
    0.035 m". The first value of each quantity counts. Built for two or more such documents."""
    rows, printed, units = [], {"file": "File"}, {}
    for (kind, doc_id, _, _), members in groups.items():
        if kind != "fields":
            continue
        row: dict = {}
        for fact_id, _, _, page, sheet, row_index, _ in members:
            for column, _, _, quantity, base, _, context in cells.get(fact_id, []):
                if quantity not in BASE_UNIT or base is None or context:
                    continue
                measure = measure_of(column, quantity)
                unit = BASE_UNIT[quantity]
                key = measure and sql_name(f"{measure} {'percent' if unit == '%' else unit}")
                if key is None or key in row:
                    continue
                if not row:  # the document's row is cited by its first measured line
                    row.update(fact_id=fact_id, source_page=page, source_sheet=sheet, source_row=row_index)
                row[key] = base
                printed[key], units[key] = f"{measure.capitalize()} ({unit})", unit
        if row:
            filename = documents[doc_id][0]
            rows.append({"file": filename, "source_file": filename, **row})
    if len(rows) < 2:
        return None
    columns = ["file", *sorted(c for c in printed if c != "file")]
    frame = pd.DataFrame(rows, columns=[*columns, *PROVENANCE])
    info = TableInfo(name, "", ALL_MEASURES, None, "measures", columns, printed,
                     {"file": "TEXT", **{c: "REAL" for c in columns[1:]}, "source_page": "INTEGER", "source_row": "INTEGER"},
                     units, len(frame))
    info.values = sorted(frame["file"])
    return info, frame


ALL_LINE_ITEMS = "line items of all invoices and receipts"  # the file name the common line-item table goes by
# What invoices and receipts print over their line-item columns (lower case, the first words of the label:
# "Unit price (EUR)" is a unit price), in the languages of the document vocabulary (core.annotations.documents).
LINE_ITEM_LABELS = {
    "Description": ("description", "item", "items", "product", "article", "designation", "désignation", "omschrijving",
                    "artikel", "bezeichnung", "beschreibung", "opis", "nazwa", "service", "details"),
    "Quantity": ("qty", "quantity", "qté", "quantité", "aantal", "menge", "anzahl", "ilość", "ilosc", "units"),
    "Unit price": ("unit price", "price", "rate", "unit cost", "prix unitaire", "prix", "prijs", "stukprijs",
                   "einzelpreis", "preis", "cena"),
    "Amount": ("amount", "line total", "total", "montant", "bedrag", "betrag", "gesamt", "wartość", "wartosc",
               "net amount", "subtotal"),
}


def line_item_columns(labels: list[str]) -> dict[str, str]:
    """Printed label -> "Description" | "Quantity" | "Unit price" | "Amount", each at most once, first label first."""
    found: dict[str, str] = {}
    for label in labels:
        plain = " ".join(re.sub(r"[^\w ]", " ", label.lower()).split())
        for common, names in LINE_ITEM_LABELS.items():
            if common not in found.values() and any(plain == n or plain.startswith(n + " ") for n in names):
                found[label] = common
                break
    return found


def _line_item_frame(name, groups, cells, documents) -> tuple[TableInfo, pd.DataFrame] | None:
    """Issue 14 item 1: the line items of every invoice and receipt in one table (file, issuer, description,
    quantity, unit price, amount, with each row's provenance), so "how many desk lamps did we buy" or
    "spent per item" is one query across documents. A table is a document's line items when the document
    has a record and the table's columns read as a description and an amount; built for two or more.
    A row without a description, or whose description is a total line, is left out."""
    # Who issued each record, by document and by page (a PDF of several shops' receipts has one a page).
    issuer_of = {(m[1], m[3]): next((c[1] for c in cells.get(m[0], []) if c[0] == RECORD_PRINTED["issuer"]), None)
                 for (kind, *_), members in groups.items() if kind == "record" for m in members}
    issuers: dict[str, str | None] = {}  # by document: its first record's, for items on a page without one
    for (doc_id, _), issuer in issuer_of.items():
        issuers.setdefault(doc_id, issuer)
    members, with_cells, files = [], {}, []
    for (kind, doc_id, _, _), group in groups.items():
        if kind != "rows" or doc_id not in issuers:
            continue
        labels = list(dict.fromkeys(c[0] for m in group for c in cells.get(m[0], []) if not c[6]))
        common = line_item_columns(labels)
        if not {"Description", "Amount"} <= set(common.values()):
            continue
        filename = documents[doc_id][0]
        for m in group:
            described = [c[1] for c in cells.get(m[0], []) if common.get(c[0]) == "Description" and not c[6]]
            if not described or is_total_line(" ".join(map(str, described))):
                continue  # a subtotal or total line of the table is no item
            head = [("File", filename, None, None, None, None, 0)]
            if issuer := issuer_of.get((doc_id, m[3])) or issuers[doc_id]:
                head.append(("Issuer", issuer, None, None, None, None, 0))
            with_cells[m[0]] = head + [(common[c[0]], *c[1:]) for c in cells.get(m[0], []) if c[0] in common and not c[6]]
            members.append(m)
            files.append(filename)
    if len(set(files)) < 2:
        return None
    info, frame = _rows_frame(name, "", ALL_LINE_ITEMS, None, members, with_cells)
    frame["source_file"] = files
    info.kind = "items"
    return info, frame


def _fields_frame(name, doc_id, filename, sheet, members, cells) -> tuple[TableInfo, pd.DataFrame]:
    """A document's printed "Label: value" lines, one row each: label, value as printed, its number, its date."""
    rows = []
    for fact_id, _, _, page, fact_sheet, row_index, _ in members:
        for column, text, number, kind, base, date, context in cells.get(fact_id, []):
            if context:
                continue
            rows.append({"label": column, "value": text, "number": number, "date": date, "source_file": filename,
                         "source_sheet": fact_sheet, "source_page": page, "source_row": row_index, "fact_id": fact_id})
    frame = pd.DataFrame(rows, columns=[*FIELD_COLUMNS, *PROVENANCE])
    info = TableInfo(name, doc_id, filename, sheet, "fields", list(FIELD_COLUMNS),
                     {"label": "Label", "value": "Value", "number": "Value as a number", "date": "Date (ISO)"},
                     {"label": "TEXT", "value": "TEXT", "number": "REAL", "date": "TEXT",
                      "source_page": "INTEGER", "source_row": "INTEGER"}, {}, len(frame))
    info.values = sorted({str(v).strip() for v in frame["label"] if len(str(v).strip()) <= 60})
    return info, frame
