"""annotations_search, annotations_aggregate, export_annotations_csv (tools).

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
from core.exports import rows_to_csv

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
        parts = [f"p. {self.page}" if self.page else "", f"sheet {self.sheet}" if self.sheet else "",
                 f"row {self.row_index}" if self.row_index and self.kind == "row" else ""]
        return ", ".join(p for p in parts if p)


class FactStore:
    def __init__(self, connect: Callable[[], sqlite3.Connection], embed: Embed | None = None,
                 label_similarity: float = 0.6, generation: Callable[[], str] | None = None) -> None:
        self._connect = connect
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
        sql = "SELECT DISTINCT v.column_norm, v.kind FROM fact_values v"
        args: list = []
        if doc_ids:
            sql += f" JOIN facts f USING(fact_id) WHERE f.doc_id IN ({','.join('?' * len(doc_ids))})"
            args = list(doc_ids)
        found: dict[str, set[str | None]] = {}
        for column, kind in self._connect().execute(sql, args).fetchall():
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
        clauses: list[str] = []
        args: list = []
        for condition in query.conditions:
            clause, clause_args = self._condition_sql(condition, query.doc_ids)
            clauses.append(clause)
            args += clause_args
        if query.text:  # in a value, or in the label of a key-value fact ("Winter tyres: 4 x 95.00")
            likes = " OR ".join("lower(v.text) LIKE ? OR lower(v.column_label) LIKE ?" for _ in query.text)
            clauses.append(f"f.fact_id IN (SELECT v.fact_id FROM fact_values v WHERE v.context = 0 AND ({likes}))")
            args += [f"%{word.lower()}%" for word in query.text for _ in (0, 1)]
        if query.date_from or query.date_to:
            clauses.append("f.fact_id IN (SELECT v.fact_id FROM fact_values v WHERE v.date BETWEEN ? AND ?)")
            args += [query.date_from or "0000-01-01", query.date_to or "9999-12-31"]
        if query.doc_ids:
            clauses.append(f"f.doc_id IN ({','.join('?' * len(query.doc_ids))})")
            args += list(query.doc_ids)
        # A document's record (core.annotations.documents) restates its printed figures as one row: the
        # rules read the printed facts only, so a receipt's total is never counted twice.
        clauses.append("f.table_name IS NOT ?")
        args.append(RECORD_TABLE)
        where = " AND ".join(clauses)
        rows = self._connect().execute(
            "SELECT f.*, d.filename FROM facts f JOIN documents d USING(doc_id) "
            f"WHERE d.status='indexed' AND {where} ORDER BY d.filename, f.page, f.sheet, f.row_index",
            args,
        ).fetchall()
        return self._with_numbers(rows)

    def known_values(self) -> set[str]:
        """Lower-cased short text values (names of customers, vendors, products)."""
        return self._cached(("known_values",), self._known_values)

    def _known_values(self) -> set[str]:
        rows = self._connect().execute(
            "SELECT DISTINCT lower(text) FROM fact_values WHERE number IS NULL AND date IS NULL "
            "AND length(text) BETWEEN 2 AND 40"
        ).fetchall()
        return {r[0] for r in rows}

    def known_words(self) -> set[str]:
        """Singular words naming what the facts are about: column labels, record labels, file and sheet names."""
        return self._cached(("known_words",), self._known_words)

    def _known_words(self) -> set[str]:
        conn = self._connect()
        names = [r[0] for r in conn.execute("SELECT DISTINCT column_norm FROM fact_values")]
        names += [r[0].split(":", 1)[0] for r in conn.execute("SELECT DISTINCT record FROM facts WHERE record IS NOT NULL")]
        names += [r[0] for r in conn.execute("SELECT DISTINCT sheet FROM facts WHERE sheet IS NOT NULL")]
        names += [r[0].rsplit(".", 1)[0] for r in conn.execute("SELECT filename FROM documents")]
        words = {w for name in names for w in normalize_label(name).split()}
        return {singular(w) for w in words}

    def rows_by_id(self, fact_ids: list[str]) -> list[FactRow]:
        """Facts by id in the given order (a stored result set); deleted documents drop out."""
        found: dict[str, FactRow] = {}
        for start in range(0, len(fact_ids), 500):
            part = fact_ids[start:start + 500]
            rows = self._connect().execute(
                "SELECT f.*, d.filename FROM facts f JOIN documents d USING(doc_id) "
                f"WHERE d.status='indexed' AND f.fact_id IN ({','.join('?' * len(part))})", part,
            ).fetchall()
            found.update({r.fact_id: r for r in self._with_numbers(rows)})
        return [found[i] for i in fact_ids if i in found]

    def _condition_sql(self, condition: Condition, doc_ids: list[str] | None) -> tuple[str, list]:
        if not condition.label:  # a name the user mentioned: in any column
            return ("f.fact_id IN (SELECT v.fact_id FROM fact_values v WHERE lower(v.text) LIKE ?)",
                    [f"%{str(condition.value).lower()}%"])
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
            return "0", []
        marks = ",".join("?" * len(columns))
        base = f"f.fact_id IN (SELECT v.fact_id FROM fact_values v WHERE v.column_norm IN ({marks}) AND "
        if condition.op == "contains" or isinstance(value, str):
            return base + "lower(v.text) LIKE ?)", [*columns, f"%{str(value).lower()}%"]
        number = "COALESCE(v.base, v.number)" if kind else "v.number"
        if condition.op == "between":
            return base + f"{number} BETWEEN ? AND ?)", [*columns, *value]
        op = "=" if condition.op == "=" else condition.op
        if op == "=":  # equality on measured values tolerates rounding
            return base + f"ABS({number} - ?) <= 1e-6 * MAX(1, ABS(?)))", [*columns, value, value]
        return base + f"{number} {op} ?)", [*columns, value]

    def _with_numbers(self, rows: list[sqlite3.Row]) -> list[FactRow]:
        if not rows:
            return []
        ids = [r["fact_id"] for r in rows]
        numbers: dict[str, dict[str, float | None]] = {}
        for start in range(0, len(ids), 500):
            part = ids[start:start + 500]
            for fact_id, column, number, base in self._connect().execute(
                f"SELECT fact_id, column_label, number, base FROM fact_values WHERE fact_id IN ({','.join('?' * len(part))})",
                part,
            ).fetchall():
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


def rows_for_export(rows: list[FactRow]) -> list[dict]:
    """One flat dict per fact: every property column, then the provenance columns."""
    columns: list[str] = []
    for row in rows:
        columns += [c for c in row.properties if c not in columns]
    return [
        {**{c: row.properties.get(c, "") for c in columns},
         "filename": row.filename, "page": row.page, "sheet": row.sheet, "row": row.row_index,
         "doc_id": row.doc_id, "chunk_id": row.chunk_id, "fact_id": row.fact_id}
        for row in rows
    ]


def export_annotations_csv(rows: list[FactRow]) -> bytes:
    return rows_to_csv(rows_for_export(rows))
