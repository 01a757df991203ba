"""The structured facts' two tables, `facts` and `fact_values`: their schema and every SQL statement
that reads or writes them. The catalog writes a document's facts inside its own transaction
(`insert`, `delete`); core.annotations reads them through `FactTables` and the filters below, and
never with SQL of its own.

A filter is a (SQL condition on `f`, the facts row, its arguments) pair; `FactTables.rows` joins
the filters with AND.
"""
from __future__ import annotations

import json
import sqlite3
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from core.annotations.model import Fact

SCHEMA = """
CREATE TABLE IF NOT EXISTS facts (
    fact_id TEXT PRIMARY KEY,
    doc_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    page INTEGER,
    sheet TEXT,
    row_index INTEGER,
    table_name TEXT,
    chunk_id TEXT,
    properties TEXT NOT NULL,
    record TEXT
);
CREATE INDEX IF NOT EXISTS facts_doc ON facts(doc_id);
CREATE TABLE IF NOT EXISTS fact_values (
    fact_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    column_label TEXT NOT NULL,
    column_norm TEXT NOT NULL,
    text TEXT NOT NULL,
    number REAL,
    unit TEXT,
    kind TEXT,
    base REAL,
    date TEXT,
    context INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS fact_values_fact ON fact_values(fact_id);
CREATE INDEX IF NOT EXISTS fact_values_column ON fact_values(column_norm);
"""

# Columns added after a knowledge base may already exist: (table, column, declaration).
LATER_COLUMNS = (("facts", "record", "TEXT"), ("fact_values", "context", "INTEGER NOT NULL DEFAULT 0"))

Filter = tuple[str, list]
# Facts that are records or printed fields; a table's total and note rows (kinds "total", "note") are
# kept aside for the typed tables and never counted, listed or summed as records.
RECORD_KINDS = "f.kind IN ('row', 'kv')"
_OF_RECORDS = f"fact_id IN (SELECT f.fact_id FROM facts f WHERE {RECORD_KINDS})"  # a value of a record
NOTHING: Filter = ("0", [])  # a condition whose label matches no stored column


def insert(conn: sqlite3.Connection, facts: "list[Fact]") -> None:
    conn.executemany(
        "INSERT INTO facts (fact_id, doc_id, kind, page, sheet, row_index, table_name, chunk_id, properties, record) "
        "VALUES (?,?,?,?,?,?,?,?,?,?)",
        [(f.fact_id, f.doc_id, f.kind, f.page, f.sheet, f.row_index, f.table, f.chunk_id, json.dumps(f.properties),
          f.record) for f in facts],
    )
    conn.executemany(
        "INSERT INTO fact_values (fact_id, position, column_label, column_norm, text, number, unit, kind, base, "
        "date, context) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        [(f.fact_id, i, v.column, v.column_norm, v.text, v.number, v.unit, v.kind, v.base, v.date, int(v.context))
         for f in facts for i, v in enumerate(f.values)],
    )


def delete(conn: sqlite3.Connection, doc_id: str) -> None:
    conn.execute("DELETE FROM fact_values WHERE fact_id IN (SELECT fact_id FROM facts WHERE doc_id=?)", (doc_id,))
    conn.execute("DELETE FROM facts WHERE doc_id=?", (doc_id,))


def count_indexed(conn: sqlite3.Connection, indexed: str) -> int:
    return conn.execute("SELECT COUNT(*) FROM facts f JOIN documents d USING(doc_id) WHERE d.status=?",
                        (indexed,)).fetchone()[0]


# --- filters -------------------------------------------------------------------------------------

def _marks(values) -> str:
    return ",".join("?" * len(values))


def any_value_like(text: str) -> Filter:
    """`text` in any of the fact's values (a name the user mentioned, in whatever column)."""
    return "f.fact_id IN (SELECT v.fact_id FROM fact_values v WHERE lower(v.text) LIKE ?)", [f"%{text.lower()}%"]


def column_like(columns: list[str], text: str) -> Filter:
    return (f"f.fact_id IN (SELECT v.fact_id FROM fact_values v WHERE v.column_norm IN ({_marks(columns)}) AND "
            "lower(v.text) LIKE ?)", [*columns, f"%{text.lower()}%"])


def column_compare(columns: list[str], op: str, value, measured: bool) -> Filter:
    """A number in one of `columns` compared with `value` (op: =, <, <=, >, >=, between with a
    (low, high) value); `measured` compares the value in its base unit (m, kg, W)."""
    number = "COALESCE(v.base, v.number)" if measured else "v.number"
    base = f"f.fact_id IN (SELECT v.fact_id FROM fact_values v WHERE v.column_norm IN ({_marks(columns)}) AND "
    if op == "between":
        return base + f"{number} BETWEEN ? AND ?)", [*columns, *value]
    if op == "=":  # equality on measured values tolerates rounding
        return base + f"ABS({number} - ?) <= 1e-6 * MAX(1, ABS(?)))", [*columns, value, value]
    return base + f"{number} {op} ?)", [*columns, value]


def mentions(words: list[str]) -> Filter:
    """Any of `words` in a value, or in the label of a key-value fact ("Winter tyres: 4 x 95.00")."""
    likes = " OR ".join("lower(v.text) LIKE ? OR lower(v.column_label) LIKE ?" for _ in words)
    return (f"f.fact_id IN (SELECT v.fact_id FROM fact_values v WHERE v.context = 0 AND ({likes}))",
            [f"%{word.lower()}%" for word in words for _ in (0, 1)])


def dated_between(start: str, end: str) -> Filter:
    return "f.fact_id IN (SELECT v.fact_id FROM fact_values v WHERE v.date BETWEEN ? AND ?)", [start, end]


def in_documents(doc_ids: list[str]) -> Filter:
    return f"f.doc_id IN ({_marks(doc_ids)})", list(doc_ids)


def not_in_table(name: str) -> Filter:
    return "f.table_name IS NOT ?", [name]


# --- reading -------------------------------------------------------------------------------------

class FactTables:
    """Reads of the facts of indexed documents, over the catalog's connection of the calling thread."""

    def __init__(self, connect: Callable[[], sqlite3.Connection]) -> None:
        self._connect = connect

    def rows(self, filters: list[Filter]) -> list[sqlite3.Row]:
        """Facts (with their file name) meeting every filter, in file, page, sheet and row order."""
        where = " AND ".join(["d.status='indexed'", RECORD_KINDS, *(clause for clause, _ in filters)])
        return self._connect().execute(
            f"SELECT f.*, d.filename FROM facts f JOIN documents d USING(doc_id) WHERE {where} "
            "ORDER BY d.filename, f.page, f.sheet, f.row_index",
            [arg for _, args in filters for arg in args],
        ).fetchall()

    def rows_by_id(self, fact_ids: list[str]) -> list[sqlite3.Row]:
        """The facts of indexed documents among `fact_ids`, in no particular order."""
        found = []
        for start in range(0, len(fact_ids), 500):
            part = fact_ids[start:start + 500]
            found += self._connect().execute(
                "SELECT f.*, d.filename FROM facts f JOIN documents d USING(doc_id) "
                f"WHERE d.status='indexed' AND f.fact_id IN ({_marks(part)})", part,
            ).fetchall()
        return found

    def numbers(self, fact_ids: list[str]) -> list[tuple[str, str, float | None, float | None]]:
        """(fact_id, column label, number as printed, number in its base unit) of every value."""
        found = []
        for start in range(0, len(fact_ids), 500):
            part = fact_ids[start:start + 500]
            found += self._connect().execute(
                f"SELECT fact_id, column_label, number, base FROM fact_values WHERE fact_id IN ({_marks(part)})", part,
            ).fetchall()
        return found

    def column_kinds(self, doc_ids: list[str] | None = None) -> list[tuple[str, str | None]]:
        """(normalized column label, kind of quantity) pairs stored, optionally of some documents."""
        sql, args = f"SELECT DISTINCT v.column_norm, v.kind FROM fact_values v JOIN facts f USING(fact_id) WHERE {RECORD_KINDS}", []
        if doc_ids:
            sql += f" AND f.doc_id IN ({_marks(doc_ids)})"
            args = list(doc_ids)
        return self._connect().execute(sql, args).fetchall()

    def short_text_values(self) -> set[str]:
        """Lower-cased text values of records that are neither numbers nor dates, 2-40 characters long."""
        return {r[0] for r in self._connect().execute(
            "SELECT DISTINCT lower(text) FROM fact_values WHERE number IS NULL AND date IS NULL "
            f"AND length(text) BETWEEN 2 AND 40 AND {_OF_RECORDS}")}

    def columns_holding(self, texts: list[str]) -> dict[str, set[str]]:
        """For each lower-cased text that is a whole text cell of an indexed document, the columns
        (normalized labels) that hold it: how "Corrie Hill" is known to be a site, as "Hartwell" is."""
        found: dict[str, set[str]] = {}
        for start in range(0, len(texts), 500):
            part = texts[start:start + 500]
            for text, column in self._connect().execute(
                    "SELECT DISTINCT lower(trim(v.text)), v.column_norm FROM fact_values v JOIN facts f USING(fact_id) "
                    "JOIN documents d USING(doc_id) WHERE d.status='indexed' AND v.number IS NULL AND v.date IS NULL "
                    f"AND lower(trim(v.text)) IN ({_marks(part)})", part):
                found.setdefault(text, set()).add(column)
        return found

    def labels(self) -> tuple[list[str], list[str], list[str], list[str]]:
        """The stored column labels (normalized), record labels, sheet names and file names."""
        conn = self._connect()
        return ([r[0] for r in conn.execute(f"SELECT DISTINCT column_norm FROM fact_values WHERE {_OF_RECORDS}")],
                [r[0] for r in conn.execute("SELECT DISTINCT record FROM facts WHERE record IS NOT NULL")],
                [r[0] for r in conn.execute("SELECT DISTINCT sheet FROM facts WHERE sheet IS NOT NULL")],
                [r[0] for r in conn.execute("SELECT filename FROM documents")])

    def all_facts(self) -> list[tuple]:
        """(fact_id, doc_id, kind, page, sheet, row_index, table_name) of every fact, in insertion order per document."""
        return self._connect().execute(
            "SELECT fact_id, doc_id, kind, page, sheet, row_index, table_name FROM facts ORDER BY doc_id, rowid").fetchall()

    def all_values(self):
        """(fact_id, column_label, text, number, kind, base, date, context) of every value, in each fact's order."""
        return self._connect().execute(
            "SELECT fact_id, column_label, text, number, kind, base, date, context FROM fact_values "
            "ORDER BY fact_id, position")
