"""Tables for export: flat rows with provenance, and CSV that spreadsheet programs open safely."""
from __future__ import annotations

import csv
import io

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
