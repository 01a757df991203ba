"""Hybrid retrieval: BM25 + vectors, fused by reciprocal rank fusion."""
from core.retrieval.hybrid import HybridRetriever, RetrievalResult, RetrievedChunk

__all__ = ["HybridRetriever", "RetrievalResult", "RetrievedChunk"]
