"""Tables for export: flat rows with provenance, and CSV that spreadsheet programs open safely."""
from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.annotations.search import FactRow

CITATION_COLUMNS = ["asked_at", "question", "answer_confidence", "number", "cited", "filename", "page",
                    "sheet", "rows", "score", "doc_id", "chunk_id", "turn_id", "snippet"]


def citation_rows(turns: list[dict]) -> list[dict]:
    """One row per source of each answered turn, newest first."""
    rows = []
    for turn in turns:
        response = turn["response"]
        for c in response.get("citations", []):
            rows.append({
                "asked_at": turn["created_at"], "question": turn["question"],
                "answer_confidence": response.get("confidence"), "number": c["number"], "cited": c["cited"],
                "filename": c["filename"], "page": c["page"], "sheet": c["sheet"], "rows": c.get("rows"),
                "score": c["score"], "doc_id": c["doc_id"], "chunk_id": c["chunk_id"],
                "turn_id": turn["turn_id"], "snippet": c.get("snippet", ""),
            })
    return rows


def _cell(value: object) -> object:
    # A cell starting with = + - @ is run as a formula by spreadsheet programs (CSV injection).
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return "" if value is None else value


def rows_to_csv(rows: list[dict]) -> bytes:
    if not rows:
        return b""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]))
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _cell(v) for k, v in row.items()})
    return out.getvalue().encode("utf-8-sig")  # the BOM makes Excel read UTF-8


def rows_for_export(rows: list["FactRow"]) -> list[dict]:
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


def export_annotations_csv(rows: list["FactRow"]) -> bytes:
    return rows_to_csv(rows_for_export(rows))


def _slug(text: str, words: int) -> str:
    return "-".join(re.findall(r"[a-z0-9]+", text.lower())[:words])


def export_filename(question: str, filenames: list[str], when: str) -> str:
    """ "orders_2023_2024-how-many-orders-did-acme-place-2026-11-23.csv": the table the rows come
    from (when there is one), the question's first words, and the date it was asked."""
    tables = sorted({Path(f).stem for f in filenames if f})
    table = re.sub(r"[^A-Za-z0-9_-]+", "_", tables[0]).strip("_") if len(tables) == 1 else ""
    parts = [p for p in (table, _slug(question, 6), when[:10]) if p]
    return "-".join(parts or ["docuchat-results"]) + ".csv"


@dataclass
class RecordTable:
    """Records that share their columns, shown as one table: "Product_Specs_by_Maker.xlsx, sheet SunPeak Solar"."""
    title: str
    rows: list[dict]  # flat rows (rows_for_export): the records' own columns, then provenance


def record_tables(rows: list["FactRow"]) -> list[RecordTable]:
    """Records split by where their columns come from, in first-seen order: the rows of one table
    together (blank only where a record has no value); a document's labelled fields ("Total: 776.40")
    together as Field | Value, with the context each borrowed (its page's heading, receipt number);
    other records by their own set of columns. One union table of a spreadsheet's rows and a
    datasheet's fields showed each record blank in every column but its own, with its values
    scrolled off to the right (issue 16)."""
    groups: dict[tuple, list] = {}
    for row in rows:
        if row.kind == "kv":
            key = ("fields", row.doc_id)
        elif row.table:
            key = ("table", row.doc_id, row.sheet, row.table)
        else:
            key = ("columns", tuple(row.properties))
        groups.setdefault(key, []).append(row)
    tables = []
    for key, group in groups.items():
        places = list(dict.fromkeys(f"{r.filename}, sheet {r.sheet}" if r.sheet else r.filename for r in group))
        title = "; ".join(places[:3]) + (f" and {len(places) - 3} more" if len(places) > 3 else "")
        tables.append(RecordTable(title, _as_fields(group) if key[0] == "fields" else rows_for_export(group)))
    return tables


def _as_fields(rows: list["FactRow"]) -> list[dict]:
    """Labelled fields as Field and Value (a field's label is its first column), then the context
    columns they carry, blank where a field has none, then provenance."""
    own = []
    for row in rows:
        [flat] = rows_for_export([row])
        label = next(iter(row.properties), "")
        own.append({"Field": label, "Value": flat.pop(label, ""), **flat})
    columns = list(dict.fromkeys(c for flat in own for c in flat))
    provenance = [c for c in columns if c in ("filename", "page", "sheet", "row", "doc_id", "chunk_id", "fact_id")]
    columns = [c for c in columns if c not in provenance] + provenance
    return [{c: flat.get(c, "") for c in columns} for flat in own]
