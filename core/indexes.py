"""The search indexes on their own: the public face of the keyword index and the vector store for
tools that measure them apart from the app.

The app reaches the stores only through core.workspace.Workspace. bench/scale.py also times the
two indexes themselves at 100k-1M synthetic chunks, and writes pre-embedded synthetic documents into
a Workspace's knowledge base: sizes no ingest builds in a session. This module names what such a
tool may use, so the modules of core.store stay free to change behind it.
"""
from __future__ import annotations

from core.store.catalog import DocumentRecord, now
from core.store.keyword import KeywordIndex, tokenize
from core.store.vectors import VectorStore

__all__ = ["KeywordIndex", "VectorStore", "embedded_document", "tokenize"]


def embedded_document(doc_id: str, filename: str, pages: int, n_chunks: int) -> DocumentRecord:
    """The catalog record of a document whose chunks and vectors the caller made itself, for
    `KnowledgeBase.add_document` (inside `writing()`)."""
    stamp = now()
    return DocumentRecord(
        doc_id=doc_id, filename=filename, title=filename, content_hash=doc_id, kind="pdf", size_bytes=0,
        pages=pages, category=None, status="indexing", error=None, warnings=None, n_chunks=n_chunks,
        stored_path=None, created_at=stamp, updated_at=stamp,
    )
