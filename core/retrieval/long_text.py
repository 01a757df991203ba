"""The long-text route: search the summaries of long documents' page spans,
then search segments only within the best spans. For conceptual questions over manuals and
filings, where a whole section is about the question but no single chunk says so loudly."""
from __future__ import annotations

from dataclasses import dataclass

from core.retrieval.hybrid import HybridRetriever, RetrievalResult


@dataclass
class Span:
    doc_id: str
    page_start: int
    page_end: int
    score: float


def summary_then_segment(
    retriever: HybridRetriever, question: str, top_k: int | None, sections: int, weight: float | None = None,
) -> tuple[RetrievalResult, list[Span]] | None:
    """None when no long document has section summaries (the caller falls back to hybrid search).
    The question is embedded once, for the summaries and the segments."""
    kb = retriever.kb
    vector = kb.embedder.embed([question])[0]
    spans = [Span(*hit) for hit in kb.search_sections(vector, sections)]
    if not spans:
        return None
    allowed = kb.chunk_ids_in_pages([(s.doc_id, s.page_start, s.page_end) for s in spans])
    return retriever.search(question, top_k=top_k, chunk_ids=allowed, weight=weight, query_vector=vector), spans
