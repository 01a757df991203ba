"""Structured facts (annotations): single key-value facts and multi-column rows,
each value typed (text, number, unit, normalized quantity, date) and each fact traceable to its
document, page or sheet, row and chunk."""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

KV, ROW = "kv", "row"
# A table's total and note rows: kept with the table, marked, so a total can be read; never records.
TOTAL, NOTE = "total", "note"
TITLE_JOIN = " · "  # between a table's title lines in the name its rows are stored under: the last is its own

_NOT_WORD = re.compile(r"[^a-z0-9]+")
_UNIT_SUFFIX = re.compile(r"\s*([\(\[][^\)\]]*[\)\]]|[_\s](mm|cm|m|kg|g|lb|w|kw|wp|in|usd|eur|gbp|%))\s*$", re.I)


def normalize_label(label: str) -> str:
    """ "Width (mm)" -> "width", "W [m]" -> "w", "Pmax kW" -> "pmax", "unit_price" -> "unit price"."""
    stripped = _UNIT_SUFFIX.sub("", label.strip())
    return " ".join(_NOT_WORD.sub(" ", stripped.lower()).split())


def singular(word: str) -> str:
    """ "orders" -> "order", "receipts" -> "receipt"; "glass" stays."""
    word = word.lower()
    return word[:-1] if word.endswith("s") and not word.endswith("ss") and len(word) > 3 else word


@dataclass
class FactValue:
    column: str  # the label as written in the document
    text: str
    number: float | None = None
    unit: str | None = None
    kind: str | None = None  # length | mass | power | percent | currency | ...
    base: float | None = None  # normalized: metres, kilograms, watts, percent, currency amount
    date: str | None = None  # ISO date when the value is a date
    # Borrowed from the record's page (its heading, number, date) so line items can be filtered by
    # vendor or date; never matched by "contains" (a vendor called "QuickFit Tyres" sells more than tyres).
    context: bool = False

    @property
    def column_norm(self) -> str:
        return normalize_label(self.column)


@dataclass
class Fact:
    doc_id: str
    filename: str
    kind: str  # kv | row
    values: list[FactValue]
    page: int | None = None
    sheet: str | None = None
    row_index: int | None = None  # 1-based row in the sheet/CSV, or the line of a PDF table
    table: str | None = None  # title or header of the table a row belongs to
    chunk_id: str | None = None
    fact_id: str = ""
    properties: dict[str, str] = field(default_factory=dict)
    record: str | None = None  # "Receipt no.: QF-24-0117": facts sharing it are one record to count or list

    def __post_init__(self) -> None:
        if not self.properties:
            self.properties = {v.column: v.text for v in self.values}

    def to_dict(self) -> dict:
        return asdict(self)
