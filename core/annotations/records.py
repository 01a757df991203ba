"""Records: the things a user counts and lists.

A spreadsheet or CSV row is a record, named by its identifier column when it has one ("order_id",
"Model"). A receipt, an invoice or a datasheet is a page: its line items and its "Label: value" lines
are facts of one record, named by the page's identifier line ("Receipt no.: QF-24-0117",
"Model: HX-400"). So "how many receipts include tyres" counts receipts, not tyre lines, and a panel
described both in a spreadsheet and on a datasheet is one panel.

Line items also borrow their page's heading, identifier and date as context values, so "receipts
from AutoParts Direct in 2024" can filter the lines of a receipt by what is printed above them.
"""
from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import replace

from core.annotations.model import KV, Fact, FactValue, normalize_label

# Label words that make a column or line an identifier, and labels that are identifiers by name.
_ID_WORDS = {"id", "no", "nr", "number", "num", "code", "sku", "ref", "reference", "#"}
_ID_LABELS = {"model", "type", "sku", "part", "name", "title"}
# Identifier-looking labels that name something else on the page (the seller's VAT number, a phone).
_NOT_ID_WORDS = {"vat", "tax", "phone", "tel", "fax", "account", "iban", "registration", "customer", "bank",
                 "routing", "swift", "bic", "page", "po", "client", "tin", "nip", "siren", "siret", "kvk"}
_RECORD_NOUNS = {"receipt", "invoice", "order", "bill", "statement", "model", "ticket", "booking", "quote"}
_HEADING = re.compile(r"^[^\W\d_][\w&.,'’\- ]{1,58}$")
_GENERIC_HEADINGS = {"receipt", "invoice", "tax invoice", "bill", "statement", "quote", "order", "table of contents"}


def _label_words(label: str) -> list[str]:
    return normalize_label(label).replace("#", " # ").split()


def identifier_rank(label: str) -> int | None:
    """How surely a label names a record (lower is surer), None if it does not.
    "Receipt no." 0, "order_id" 0, "Invoice number" 0, "Model" 1, "VAT registration no." None."""
    words = _label_words(label)
    if not words or _NOT_ID_WORDS & set(words):
        return None
    if set(words) & _ID_WORDS:
        return 0 if set(words) & _RECORD_NOUNS or len(words) == 1 else 1
    if len(words) == 1 and words[0] in _RECORD_NOUNS | _ID_LABELS:
        return 1 if words[0] in _RECORD_NOUNS or words[0] in ("model", "sku") else 2
    return None


def table_identifier(header: list[str], rows: list[list[str]]) -> int | None:
    """The column whose values name each row: an identifier label and no value repeated or empty."""
    ranked = sorted((rank, i) for i, h in enumerate(header) if (rank := identifier_rank(h)) is not None)
    for _, index in ranked:
        values = [row[index].strip().lower() if index < len(row) and row[index] else "" for row in rows]
        if values and all(values) and len(set(values)) == len(values):
            return index
    return None


def record_name(label: str, value: str) -> str:
    return f"{label.strip()}: {value.strip()}"


def record_label(record: str | None) -> str:
    return record.split(":", 1)[0] if record else ""


def record_key(record: str | None, fallback: tuple) -> tuple:
    """What makes two facts the same record: the identifier's value (so "Model: HX-400" in a
    spreadsheet and on a datasheet agree), else where the fact is."""
    if record and ":" in record:
        return ("id", " ".join(record.split(":", 1)[1].lower().split()))
    return fallback


def page_heading(text: str) -> str | None:
    """The first line of a page when it reads like a name ("QuickFit Tyres"), not a label or a figure."""
    for line in text.split("\n"):
        line = line.strip()
        if not line:
            continue
        if ":" in line or not _HEADING.match(line) or len(line.split()) > 8:
            return None
        return None if line.lower() in _GENERIC_HEADINGS else line
    return None


def attach_page_context(facts: list[Fact], page_texts: dict[int, str]) -> None:
    """Give the facts of each page their record (the page's identifier line) and borrow the page's
    heading, identifier and first date as context values on the facts that lack them."""
    by_page: dict[int, list[Fact]] = defaultdict(list)
    for fact in facts:
        if fact.page is not None and fact.sheet is None:
            by_page[fact.page].append(fact)
    for page, on_page in by_page.items():
        key_values = [f for f in on_page if f.kind == KV]
        ranks = [(identifier_rank(f.values[0].column), n) for n, f in enumerate(key_values)]
        ranked = sorted((rank, n) for rank, n in ranks if rank is not None)
        identifier = key_values[ranked[0][1]] if ranked else None
        dated = next((f for f in key_values if f.values[0].date), None)
        heading = page_heading(page_texts.get(page, ""))
        borrowed = [FactValue(column="Heading", text=heading, context=True)] if heading else []
        for source in (identifier, dated):
            if source is not None:
                borrowed.append(replace(source.values[0], context=True))
        record = record_name(identifier.values[0].column, identifier.values[0].text) if identifier else None
        for fact in on_page:
            if record and not fact.record:
                fact.record = record
            own = {v.column_norm for v in fact.values}
            for value in borrowed:
                if value.column_norm not in own:
                    fact.values.append(value)
                    fact.properties.setdefault(value.column, value.text)
