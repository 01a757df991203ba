"""Hybrid retrieval: BM25 + vectors, fused by reciprocal rank fusion, then re-ranked by a list of re-rankers."""
from core.retrieval.candidates import RetrievedChunk
from core.retrieval.hybrid import HybridRetriever, RetrievalResult
from core.retrieval.rerank import Reranker

__all__ = ["HybridRetriever", "Reranker", "RetrievalResult", "RetrievedChunk"]
