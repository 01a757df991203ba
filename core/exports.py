"""Tables for export: flat rows with provenance, and CSV that spreadsheet programs open safely."""
from __future__ import annotations

import csv
import io
import re
from pathlib import Path

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


def _slug(text: str, words: int) -> str:
    return "-".join(re.findall(r"[a-z0-9]+", text.lower())[:words])


def export_filename(question: str, filenames: list[str], when: str) -> str:
    """ "orders_2023_2024-how-many-orders-did-acme-place-2026-11-23.csv": the table the rows come
    from (when there is one), the question's first words, and the date it was asked."""
    tables = sorted({Path(f).stem for f in filenames if f})
    table = re.sub(r"[^A-Za-z0-9_-]+", "_", tables[0]).strip("_") if len(tables) == 1 else ""
    parts = [p for p in (table, _slug(question, 6), when[:10]) if p]
    return "-".join(parts or ["docuchat-results"]) + ".csv"
