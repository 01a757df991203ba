"""Hybrid retrieval: BM25 + vector search, fused by weighted reciprocal rank fusion.

Every candidate keeps its rank and score in each retriever, so the trace can show why a chunk
was (or was not) used. Search can be pre-filtered to a set of documents, and hits can be widened
with +-N neighbour chunks (sliding window).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from core.config import Settings
from core.profiles import active_profiles
from core.retrieval import evidence
from core.retrieval.candidates import BM25, VECTOR, RetrievedChunk
from core.retrieval.fusion import reciprocal_rank_fusion, semantic_weight
from core.retrieval.rerank import EvidenceWindows, Reranker
from core.retrieval.sections import named_sections
from core.store.knowledge_base import KnowledgeBase

ALSO = "+words"  # the ranking of the search words beside the query's (`search(also=...)`)


@dataclass
class RetrievalResult:
    query: str
    hits: list[RetrievedChunk]  # what the answer uses: top_k, then neighbours if expanded
    candidates: list[RetrievedChunk]  # every fused candidate, for the trace
    semantic_weight: float
    doc_filter: list[str] | None = None
    timings_ms: dict[str, float] = field(default_factory=dict)
    also: str = ""  # the search words searched beside the query


class HybridRetriever:
    def __init__(self, kb: KnowledgeBase, settings: Settings, rerankers: list[Reranker] | None = None) -> None:
        self.kb = kb
        self.settings = settings
        # run in order over the fused candidates when re-ranking is on (`passage_rerank`, or `search(rerank=True)`)
        self.rerankers = rerankers if rerankers is not None else [EvidenceWindows(kb, settings)]
        self.profiles = active_profiles(settings)

    def search(
        self,
        query: str,
        top_k: int | None = None,
        doc_ids: list[str] | None = None,
        weight: float | None = None,
        expand: int | None = None,
        retrievers: tuple[str, ...] = (BM25, VECTOR),
        chunk_ids: set[str] | None = None,
        rerank: bool | None = None,
        query_vector=None,
        spread: bool = False,
        also: str = "",
        sections: bool = True,
        worded_rows: bool = False,
    ) -> RetrievalResult:
        """query_vector: the query's embedding, when the caller has it already. `spread`: each
        document's best candidate first (in the order of those bests), then the rest in fused order,
        so a question about several filings reads from each of them. `also`: words in the documents'
        own vocabulary (core.agents.search_words), searched by each retriever beside the query and
        fused with `search_words_weight`; similarities stay the query's. `sections`: when the search is
        narrowed to documents, the best chunk of each section the question needs (`sections.named_sections`)
        is put at rank `section_pin_rank`, unless one of that section's chunks is there or above. `worded_rows`:
        a table's rows only the vector search found are left out (`unworded_row`), for a text answer."""
        s = self.settings
        top_k = top_k or s.top_k
        pool = max(s.candidate_pool, top_k)
        alpha = weight if weight is not None else semantic_weight(
            query, s.semantic_weight_enumeration, s.semantic_weight_reasoning
        )
        self.kb.sync()  # another process may have indexed documents since the last search
        timings: dict[str, float] = {}
        rankings: dict[str, list[str]] = {}
        vector_scores: dict[str, float] = {}
        bm25_scores: dict[str, float] = {}

        allowed = chunk_ids if chunk_ids is not None else (
            self.kb.chunk_ids_for_documents(doc_ids) if doc_ids else None)
        if BM25 in retrievers:
            started = time.perf_counter()
            keyword_hits = self.kb.keyword.search(query, pool, allowed_ids=allowed)
            rankings[BM25] = [h.chunk_id for h in keyword_hits]
            bm25_scores = {h.chunk_id: h.score for h in keyword_hits}
            if also:
                rankings[BM25 + ALSO] = [h.chunk_id for h in self.kb.keyword.search(also, pool, allowed_ids=allowed)]
            timings["bm25_ms"] = _ms(started)
        if VECTOR in retrievers:
            started = time.perf_counter()
            if query_vector is None:
                query_vector = self.kb.embedder.embed([query])[0]
            also_vector = self.kb.embedder.embed([also])[0] if also else None
            timings["embed_ms"] = _ms(started)
            started = time.perf_counter()
            exact = chunk_ids is not None or (allowed is not None and len(allowed) <= s.exact_filter_limit)
            with self.kb.searchable_vectors() as vectors:
                def nearest(vector):
                    return vectors.rank(vector, sorted(allowed), pool) if exact else vectors.query(vector, pool, doc_ids=doc_ids)
                vector_hits = nearest(query_vector)
                if also_vector is not None:
                    rankings[VECTOR + ALSO] = [h.chunk_id for h in nearest(also_vector)]
            rankings[VECTOR] = [h.chunk_id for h in vector_hits]
            vector_scores = {h.chunk_id: h.similarity for h in vector_hits}
            timings["vector_ms"] = _ms(started)

        started = time.perf_counter()
        weights = {BM25: 1.0 - alpha, VECTOR: alpha}
        weights |= {name + ALSO: weight * s.search_words_weight for name, weight in weights.items()}
        fused = reciprocal_rank_fusion(rankings, weights, k=s.rrf_k)
        records = self.kb.chunks([chunk_id for chunk_id, _ in fused])
        ranks = {name: {c: i for i, c in enumerate(ids, start=1)} for name, ids in rankings.items()}
        candidates = [
            RetrievedChunk.from_record(
                records[chunk_id], score,
                vector_score=vector_scores.get(chunk_id), bm25_score=bm25_scores.get(chunk_id),
                vector_rank=ranks.get(VECTOR, {}).get(chunk_id), bm25_rank=ranks.get(BM25, {}).get(chunk_id),
            )
            for chunk_id, score in fused
            if chunk_id in records  # a document mid-ingest or just deleted is not searchable
        ]
        if worded_rows:
            candidates = [c for c in candidates if not unworded_row(c)] or candidates
        if s.passage_rerank if rerank is None else rerank:
            started_rerank = time.perf_counter()
            for reranker in self.rerankers:
                candidates = reranker.rerank(query, candidates)
            timings["rerank_ms"] = _ms(started_rerank)
        if spread:
            candidates = spread_over_documents(candidates)
        hits = candidates[:top_k]
        if sections and doc_ids and s.section_pin_rank:
            hits = self._with_named_sections(query, hits, doc_ids, alpha, query_vector, top_k)
            known = {c.chunk_id for c in candidates}
            candidates = [h for h in hits if h.section and h.chunk_id not in known] + candidates
        for hit in hits:
            hit.used = True
        if query_vector is not None:
            # Chunks found only by BM25 still get their true cosine similarity: the confidence
            # rules average it over the chunks an answer uses.
            missing = [h.chunk_id for h in hits if h.vector_score is None]
            with self.kb.searchable_vectors() as vectors:
                similarities = vectors.similarities(query_vector, missing)
            for chunk_id, similarity in similarities.items():
                next(h for h in hits if h.chunk_id == chunk_id).vector_score = similarity
        self._finish_sentences(hits)
        window = s.expand_window if expand is None else expand
        if window > 0:
            hits = self.expand(hits, window)
        timings["fuse_ms"] = _ms(started)
        return RetrievalResult(query, hits, candidates, alpha, doc_ids, timings, also)

    def _with_named_sections(self, query: str, hits: list[RetrievedChunk], doc_ids: list[str], alpha: float,
                             query_vector, top_k: int) -> list[RetrievedChunk]:
        """`hits` with the best chunk of each needed section (`section_pins` at most) moved or put in at
        `section_pin_rank`, unless one of that section's chunks is already there or above."""
        pin = self.settings.section_pin_rank
        for name, ids in named_sections(query, doc_ids, self.kb, self.profiles)[: self.settings.section_pins]:
            if any(h.chunk_id in ids for h in hits[:pin]):
                continue
            best = self.search(query, top_k=1, chunk_ids=ids, weight=alpha, expand=0, rerank=False,
                               query_vector=query_vector, sections=False).hits
            if best:  # its ranks were within the section: the trace says why it is here instead
                best[0].section, best[0].vector_rank, best[0].bm25_rank = name, None, None
                hits = [h for h in hits if h.chunk_id != best[0].chunk_id]
                hits.insert(min(pin - 1, len(hits)), best[0])
        return hits[:top_k]

    def _finish_sentences(self, hits: list[RetrievedChunk]) -> None:
        """A hit cut inside a sentence gets that sentence's end from the next chunk, so the passage the
        model reads (and the quote checked against it) holds the whole sentence."""
        for hit in hits:
            if evidence.ends_inside_a_sentence(hit.text):
                following = self.kb.catalog.neighbours(hit.doc_id, hit.chunk_index + 1, hit.chunk_index + 1)
                if following:
                    hit.text += evidence.rest_of_sentence(hit.text, following[0].text)

    def expand(self, hits: list[RetrievedChunk], window: int) -> list[RetrievedChunk]:
        """Add +-window neighbours of each hit; one copy of each chunk; each document's chunks in
        reading order, documents in the order of their best hit."""
        by_doc: dict[str, dict[int, RetrievedChunk]] = {}
        for hit in hits:
            by_doc.setdefault(hit.doc_id, {})[hit.chunk_index] = hit
        for hit in hits:
            for record in self.kb.catalog.neighbours(hit.doc_id, hit.chunk_index - window, hit.chunk_index + window):
                group = by_doc[hit.doc_id]
                if record.chunk_index not in group:
                    group[record.chunk_index] = RetrievedChunk.from_record(record, 0.0, expanded_from=hit.chunk_id, used=True)
        return [chunk for group in by_doc.values() for _, chunk in sorted(group.items())]


def unworded_row(chunk: RetrievedChunk) -> bool:
    """A table's rows (a chunk of `rows`) that only the vector search found: a row is a list of values, and its likeness
    in meaning to a question that shares none of its words ("Tenant satisfied: Y" for "How much notice do I give to end
    my tenancy?") is no evidence for a text answer."""
    return bool(chunk.rows) and chunk.bm25_rank is None


def spread_over_documents(candidates: list[RetrievedChunk]) -> list[RetrievedChunk]:
    """Each document's first candidate, in their order, then every other candidate in its order."""
    seen: set[str] = set()
    firsts, rest = [], []
    for c in candidates:
        (rest if c.doc_id in seen else firsts).append(c)
        seen.add(c.doc_id)
    return firsts + rest


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)
