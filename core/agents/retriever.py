"""Retriever (seed 000, step 2): run the plan's searches; on any failure, return no chunks."""
from __future__ import annotations

import logging
from dataclasses import dataclass, field

from core.agents.planner import Plan
from core.annotations.route import StructuredResult, run_structured
from core.annotations.search import FactQuery, FactStore
from core.retrieval import HybridRetriever, RetrievalResult, RetrievedChunk
from core.store import KnowledgeBase

log = logging.getLogger(__name__)


@dataclass
class Evidence:
    chunks: list[RetrievedChunk]
    results: list[RetrievalResult] = field(default_factory=list)
    error: str | None = None
    structured: StructuredResult | None = None  # set on the structured route
    fallback_from: StructuredResult | None = None  # the structured attempts that found nothing

    @property
    def average_similarity(self) -> float:
        scored = [c.similarity for c in self.chunks if c.expanded_from is None]
        return sum(scored) / len(scored) if scored else 0.0


def retrieve(plan: Plan, retriever: HybridRetriever, top_k: int, expand: int | None = None) -> Evidence:
    results: list[RetrievalResult] = []
    chunks: dict[str, RetrievedChunk] = {}
    try:
        for query in plan.sub_queries or [plan.question]:
            result = retriever.search(query, top_k=top_k, doc_ids=plan.doc_ids, weight=plan.semantic_weight, expand=expand)
            results.append(result)
            for chunk in result.hits:  # global dedup keeps the best-scored copy
                if chunk.chunk_id not in chunks or chunks[chunk.chunk_id].score < chunk.score:
                    chunks[chunk.chunk_id] = chunk
    except Exception as exc:  # seed 000: retrieval errors give an empty list, logged
        log.exception("Retrieval failed")
        return Evidence([], results, error=f"{type(exc).__name__}: {exc}")
    return Evidence(list(chunks.values()), results)


def retrieve_facts(plan: Plan, facts: FactStore, kb: KnowledgeBase) -> Evidence:
    """The structured route: every matching fact, and the chunks that hold the first ones."""
    result = run_structured(plan.structured, facts)
    return Evidence(_chunks_holding(result.rows, kb), structured=result)


def _chunks_holding(rows, kb: KnowledgeBase, limit: int = 20) -> list[RetrievedChunk]:
    """The chunks that hold the first matching facts, scored 1.0: an exact match, not a guess."""
    chunk_ids = list(dict.fromkeys(r.chunk_id for r in rows if r.chunk_id))[:limit]
    records = kb.chunks(chunk_ids)
    return [
        RetrievedChunk(c.chunk_id, c.doc_id, c.filename, c.chunk_index, c.text, c.page_label, c.sheet,
                       c.rows_label, score=1.0, vector_score=1.0, used=True)
        for c in (records[i] for i in chunk_ids if i in records)
    ]


def reopen_result_set(plan: Plan, facts: FactStore, kb: KnowledgeBase, page_size: int) -> Evidence:
    """ "show the rest" / "export that table": the stored result set of the previous answer."""
    from core.annotations.query import StructuredQuery
    from core.annotations.route import Attempt

    command, result_set_id = plan.structured
    stored = kb.catalog.result_set(result_set_id)
    rows = facts.rows_by_id(stored["fact_ids"]) if stored else []
    if command == "rest":
        rows = rows[page_size:]
    note = "the rest of the previous list" if command == "rest" else "the whole previous table, for export"
    result = StructuredResult(StructuredQuery(FactQuery(), enumeration=True, notes=[note]), rows,
                              [Attempt(f"result set {result_set_id}: {note}", len(rows))])
    return Evidence(_chunks_holding(rows, kb), structured=result)
