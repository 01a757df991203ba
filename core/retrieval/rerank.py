"""Re-ranking the fused candidates (issue 26, item 4): one interface, so another way of re-ordering them (a
cross-encoder, a model's judgement) is one more class; the retriever runs its list in order (as kotaemon's
retrievers hold a list of rerankers). Off by default (`passage_rerank`: docs/benchmarks.md has the figures).
"""
from __future__ import annotations

from typing import Protocol

from core.config import Settings
from core.retrieval import evidence
from core.retrieval.candidates import RetrievedChunk
from core.store.knowledge_base import KnowledgeBase


class Reranker(Protocol):
    def rerank(self, query: str, candidates: list[RetrievedChunk]) -> list[RetrievedChunk]:
        """The same candidates (or more, never fewer) in a new order."""


class EvidenceWindows:
    """The first `rerank_pool` candidates re-ordered by their best window of a few sentences or rows
    (evidence.py); the rest keep their fused order behind them."""

    def __init__(self, kb: KnowledgeBase, settings: Settings) -> None:
        self.kb = kb
        self.settings = settings

    def rerank(self, query: str, candidates: list[RetrievedChunk]) -> list[RetrievedChunk]:
        s = self.settings
        pool = candidates[: s.rerank_pool]
        if s.rerank_page_neighbours and pool:
            pool = pool + self._page_neighbours(pool[: s.rerank_expand_top], s.rerank_page_neighbours,
                                                {c.chunk_id for c in pool})
        if len(pool) < 2:
            return candidates
        scored = evidence.score_windows(query, [c.text for c in pool], [c.context for c in pool],
                                        self.kb.embedder.embed if s.rerank_embed else None, s.rerank_window_units)
        ranked = evidence.combine(scored, [c.score for c in pool], s.rerank_lexical_weight, s.rerank_prior_weight)
        for r in ranked:
            pool[r.index].focus = r.focus.text if r.focus else ""
            pool[r.index].rerank_score = round(r.score, 4)
        chosen = {c.chunk_id for c in pool}
        return [pool[r.index] for r in ranked] + [c for c in candidates[s.rerank_pool:] if c.chunk_id not in chosen]

    def _page_neighbours(self, hits: list[RetrievedChunk], window: int, seen: set[str]) -> list[RetrievedChunk]:
        """The chunks within +-window of each hit that are on its page. A statement page is cut into
        chunks of a few rows each (a row carries its column headers), so the row a question asks for
        is often in the chunk next to the one that matched the statement's title."""
        found = []
        for hit in hits:
            for record in self.kb.catalog.neighbours(hit.doc_id, hit.chunk_index - window, hit.chunk_index + window):
                if record.chunk_id not in seen and record.page_label == hit.page:
                    seen.add(record.chunk_id)
                    found.append(RetrievedChunk.from_record(record, hit.score * self.settings.rerank_neighbour_prior))
        return found
