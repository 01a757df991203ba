"""Document category hints: length (long / short) and content (data-heavy / text-heavy).

The router uses them to choose between the structured, hybrid and long-text routes.
"""
from __future__ import annotations

from core.config import Settings
from core.ingest.document import LoadedDocument


def category_hints(document: LoadedDocument, settings: Settings) -> list[str]:
    hints: list[str] = []
    if document.page_count >= settings.long_document_pages:
        hints.append("long")
    elif document.page_count <= settings.short_document_pages:
        hints.append("short")
    text = "".join(s.text for s in document.sections)
    visible = sum(1 for ch in text if not ch.isspace()) or 1
    digits = sum(1 for ch in text if ch.isdigit())
    table_share = sum(len(s.text) for s in document.sections if s.is_table) / max(len(text), 1)
    if table_share > 0.5 or digits / visible >= settings.data_heavy_digit_ratio:
        hints.append("data-heavy")
    else:
        hints.append("text-heavy")
    return hints
