"""annotations_search, annotations_aggregate (tools; the export of facts is core.exports).

Every matching fact is found, not the few a vector search happens to return: counts, sums and
lists come from all stored facts. Labels vary between files ("Width (mm)", "W [m]", "width_cm",
"qty" vs "quantity"), so a wanted label matches a stored column lexically (with synonyms) or by
embedding similarity, and, when the condition has a unit, only columns of that kind of quantity
("W [m]" holds lengths: it is a width, not watts).
"""
from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from core.annotations.documents import RECORD_TABLE
from core.annotations.model import normalize_label, singular
from core.annotations.records import record_key
from core.annotations.units import to_base
from core.citations import location
from core.store import facts as fact_tables
from core.store.facts import FactTables

SYNONYMS: dict[str, set[str]] = {
    "width": {"w", "breite", "module width"}, "height": {"h", "length", "l", "hoehe"},
    "length": {"l", "height", "h"}, "depth": {"d", "thickness", "t"},
    "weight": {"mass", "gewicht", "wt"}, "power": {"pmax", "p", "wattage", "rated power", "output"},
    "quantity": {"qty", "q", "units", "count", "pcs"}, "price": {"unit price", "unit cost", "rate"},
    "amount": {"total", "line total", "sum", "value", "subtotal", "price"},
    "total": {"amount", "grand total", "total due", "sum"}, "customer": {"client", "buyer", "company"},
    "vendor": {"supplier", "seller", "merchant", "store", "shop", "issuer", "heading"},
    "issuer": {"vendor", "supplier", "seller", "merchant", "heading"}, "merchant": {"vendor", "store", "shop", "heading"}, "item": {"description", "product", "article"},
    "description": {"item", "product", "article", "name"}, "product": {"item", "description", "model", "type"},
    "model": {"type", "product", "name"}, "date": {"day", "order date", "invoice date"},
    "efficiency": {"eff", "module efficiency"},
}
def _closeness(wanted: str, column: str, similar: set[str]) -> int:
    """0 the label itself, 1 a synonym, 2 a word of it, 3 part of a word, 4 similar in meaning."""
    if column == wanted:
        return 0
    if column in SYNONYMS.get(wanted, set()):
        return 1
    if wanted in column.split():
        return 2
    return 4 if column in similar else 3


# A single-letter or short column label means different things for different quantities.
KIND_OF_LABEL = {"width": "length", "height": "length", "length": "length", "depth": "length",
                 "weight": "mass", "power": "power", "efficiency": "percent"}

Embed = Callable[[list[str]], np.ndarray]


@dataclass
class Condition:
    label: str
    op: str  # "=", "<", "<=", ">", ">=", "contains", "between"
    value: object
    unit: str | None = None


@dataclass
class FactQuery:
    conditions: list[Condition] = field(default_factory=list)
    text: list[str] = field(default_factory=list)  # any of these words in any cell ("tyre", "tire")
    doc_ids: list[str] | None = None
    date_from: str | None = None
    date_to: str | None = None


@dataclass
class FactRow:
    fact_id: str
    doc_id: str
    filename: str
    kind: str
    page: int | None
    sheet: str | None
    row_index: int | None
    chunk_id: str | None
    table: str | None
    properties: dict[str, str]
    numbers: dict[str, float | None]  # column -> normalized number (base unit)
    record: str | None = None

    @property
    def record_key(self) -> tuple:
        """Facts with the same key are one record: a receipt's lines, a panel on two documents."""
        where = (self.doc_id, self.sheet, self.page, self.row_index) if self.kind == "row" else (
            (self.doc_id, self.sheet, self.page) if self.page is not None else (self.doc_id, self.row_index))
        return record_key(self.record, where)

    def location(self) -> str:
        return location(self.page, self.sheet, row=self.row_index if self.kind == "row" else None)


class FactStore:
    """Facts by what a question asks of them: labels matched to stored columns, conditions, records.
    The SQL is core/store/facts.py's."""

    def __init__(self, tables: FactTables, embed: Embed | None = None,
                 label_similarity: float = 0.6, generation: Callable[[], str] | None = None) -> None:
        self._tables = tables
        self._embed = embed
        self.label_similarity = label_similarity
        self._label_vectors: dict[str, np.ndarray] = {}
        # Column and value listings scan every fact; they change only when documents do.
        self._generation = generation
        self._cache: dict[tuple, object] = {}

    def _cached(self, key: tuple, compute: Callable[[], object]):
        if self._generation is None:
            return compute()
        stamp = self._generation()
        if self._cache.get(("stamp",)) != stamp:
            self._cache = {("stamp",): stamp}
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    # --- label matching ------------------------------------------------------------------------

    def columns(self, doc_ids: list[str] | None = None) -> dict[str, set[str | None]]:
        """Stored column labels (normalized) and the kinds of quantity they hold."""
        return self._cached(("columns", tuple(doc_ids or ())), lambda: self._columns(doc_ids))

    def _columns(self, doc_ids: list[str] | None) -> dict[str, set[str | None]]:
        found: dict[str, set[str | None]] = {}
        for column, kind in self._tables.column_kinds(doc_ids):
            found.setdefault(column, set()).add(kind)
        return found

    def match_columns(self, label: str, kind: str | None = None, doc_ids: list[str] | None = None) -> list[str]:
        wanted = normalize_label(label)
        kind = kind or KIND_OF_LABEL.get(wanted)
        available = self.columns(doc_ids)
        names = {wanted} | SYNONYMS.get(wanted, set())
        lexical = {c for c in available if c in names or wanted in c.split() or (len(wanted) > 3 and wanted in c)}
        # Embedding similarity finds unknown spellings ("module breadth"), never another known
        # quantity: "width" and "length" are close in meaning but must not match.
        similar = self._similar_labels(wanted, [c for c in available if c not in lexical and c not in SYNONYMS])
        matched = lexical | similar
        if kind:
            matched = {c for c in matched if kind in available[c]}
        return sorted(matched, key=lambda c: (_closeness(wanted, c, similar), c))

    def _similar_labels(self, wanted: str, candidates: list[str]) -> set[str]:
        if self._embed is None or not candidates:
            return set()
        missing = [c for c in [wanted, *candidates] if c not in self._label_vectors]
        if missing:
            self._label_vectors.update(zip(missing, self._embed(missing)))
        target = self._label_vectors[wanted]
        return {c for c in candidates if float(self._label_vectors[c] @ target) >= self.label_similarity}

    # --- search --------------------------------------------------------------------------------

    def search(self, query: FactQuery) -> list[FactRow]:
        """Every fact that meets all conditions; a condition whose label matches no column
        matches nothing (the caller relaxes it, and says so)."""
        filters = [self._condition_filter(condition, query.doc_ids) for condition in query.conditions]
        if query.text:  # in a value, or in the label of a key-value fact ("Winter tyres: 4 x 95.00")
            filters.append(fact_tables.mentions(query.text))
        if query.date_from or query.date_to:
            filters.append(fact_tables.dated_between(query.date_from or "0000-01-01", query.date_to or "9999-12-31"))
        if query.doc_ids:
            filters.append(fact_tables.in_documents(query.doc_ids))
        # A document's record (core.annotations.documents) restates its printed figures as one row: the
        # rules read the printed facts only, so a receipt's total is never counted twice.
        filters.append(fact_tables.not_in_table(RECORD_TABLE))
        return self._with_numbers(self._tables.rows(filters))

    def known_values(self) -> set[str]:
        """Lower-cased short text values (names of customers, vendors, products)."""
        return self._cached(("known_values",), self._known_values)

    def _known_values(self) -> set[str]:
        return self._tables.short_text_values()

    def known_words(self) -> set[str]:
        """Singular words naming what the facts are about: column labels, record labels, file and sheet names."""
        return self._cached(("known_words",), self._known_words)

    def _known_words(self) -> set[str]:
        columns, records, sheets, filenames = self._tables.labels()
        names = columns + [r.split(":", 1)[0] for r in records] + sheets + [f.rsplit(".", 1)[0] for f in filenames]
        words = {w for name in names for w in normalize_label(name).split()}
        return {singular(w) for w in words}

    def rows_by_id(self, fact_ids: list[str]) -> list[FactRow]:
        """Facts by id in the given order (a stored result set); deleted documents drop out."""
        found = {r.fact_id: r for r in self._with_numbers(self._tables.rows_by_id(fact_ids))}
        return [found[i] for i in fact_ids if i in found]

    def _condition_filter(self, condition: Condition, doc_ids: list[str] | None) -> fact_tables.Filter:
        if not condition.label:  # a name the user mentioned: in any column
            return fact_tables.any_value_like(str(condition.value))
        kind = None
        value = condition.value
        if condition.op in ("<", "<=", ">", ">=", "=", "between") and not isinstance(value, str):
            if condition.op == "between":
                low, _ = to_base(float(value[0]), condition.unit)
                high, kind = to_base(float(value[1]), condition.unit)
                value = (low, high)
            else:
                value, kind = to_base(float(value), condition.unit)
        columns = self.match_columns(condition.label, kind if kind != "currency" else None, doc_ids)
        if not columns:
            return fact_tables.NOTHING
        if condition.op == "contains" or isinstance(value, str):
            return fact_tables.column_like(columns, str(value))
        return fact_tables.column_compare(columns, condition.op, value, measured=bool(kind))

    def _with_numbers(self, rows: list[sqlite3.Row]) -> list[FactRow]:
        if not rows:
            return []
        numbers: dict[str, dict[str, float | None]] = {}
        for fact_id, column, number, base in self._tables.numbers([r["fact_id"] for r in rows]):
            numbers.setdefault(fact_id, {})[column] = base if base is not None else number
        return [
            FactRow(r["fact_id"], r["doc_id"], r["filename"], r["kind"], r["page"], r["sheet"], r["row_index"],
                    r["chunk_id"], r["table_name"], json.loads(r["properties"]), numbers.get(r["fact_id"], {}),
                    r["record"])
            for r in rows
        ]


def column_of(row: FactRow, columns: list[str]) -> str | None:
    """The column of `row` that comes first in `columns` (matched columns, best first)."""
    present = {normalize_label(c): c for c in row.properties}
    return next((present[c] for c in columns if c in present), None)


def aggregate(rows: list[FactRow], op: str, columns: list[str] | None = None,
              group_columns: list[str] | None = None) -> list[dict]:
    """count / sum / avg / min / max, optionally per group. Counts are of records, not facts (a
    receipt with three tyre lines is one receipt). Each record adds the values of the best matched
    column it has: a receipt's "Total", not also its "Subtotal" or its lines' "Amount"."""
    records: dict[str, set[tuple]] = {}
    candidates: dict[tuple[str, tuple], list[tuple[int, float]]] = {}
    for row in rows:
        key = ""
        if group_columns:
            group_column = column_of(row, group_columns)
            if not group_column or not row.properties.get(group_column):
                continue  # a record without the grouping column belongs to another table
            key = row.properties[group_column]
        column = column_of(row, columns) if columns else None
        value = row.numbers.get(column) if column else None
        if value is None and op != "count":
            continue  # nothing to add up in this fact
        records.setdefault(key, set()).add(row.record_key)
        if value is not None:
            rank = columns.index(normalize_label(column))
            candidates.setdefault((key, row.record_key), []).append((rank, value))
    groups: dict[str, list[float]] = {}
    for (key, _), found in candidates.items():
        best = min(rank for rank, _ in found)
        groups.setdefault(key, []).extend(v for rank, v in found if rank == best)
    results = []
    for key, members in records.items():
        values = groups.get(key, [])
        result = {"group": key, "count": len(members), "values": len(values)}
        if op != "count":
            result[op] = _apply(op, values)
        results.append(result)
    order = op if op != "count" else "count"
    return sorted(results, key=lambda r: (r.get(order) is None, -(r.get(order) or 0), r["group"]))


def _apply(op: str, values: list[float]) -> float | None:
    if not values:
        return None
    if op == "sum":
        return round(sum(values), 6)
    if op == "avg":
        return round(sum(values) / len(values), 6)
    if op == "min":
        return min(values)
    if op == "max":
        return max(values)
    raise ValueError(f"unknown aggregate {op!r}")


PROVENANCE = ["filename", "page", "sheet", "row", "doc_id", "chunk_id", "fact_id"]


def display_table(rows: list[FactRow]) -> tuple[list[str], list[list]]:
    """Columns and cells for showing rows: one table keeps its columns; rows from different tables
    (a PDF datasheet and two makers' spreadsheets) become one readable "record" column each,
    instead of a wide grid of mostly empty cells. Provenance columns end every row."""
    shapes = {tuple(r.properties) for r in rows}
    if len(shapes) == 1:
        columns = list(rows[0].properties)
        cells = [[r.properties.get(c, "") for c in columns] for r in rows]
    else:
        columns = ["record"]
        cells = [["; ".join(f"{k}: {v}" for k, v in r.properties.items())] for r in rows]
    return columns + ["filename", "page", "sheet", "row"], [
        row + [r.filename, r.page, r.sheet, r.row_index] for row, r in zip(cells, rows)
    ]
