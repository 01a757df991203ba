"""Reciprocal rank fusion with per-retriever weights (adaptive alpha)."""
from __future__ import annotations

import re

# enumeration questions lean on keywords, reasoning questions on meaning.
_ENUMERATION = re.compile(
    r"\b(list|all|every|each|enumerate|table of contents|rules|how many|which of)\b", re.IGNORECASE
)


def is_enumeration(query: str) -> bool:
    return bool(_ENUMERATION.search(query))


def semantic_weight(query: str, enumeration: float, reasoning: float) -> float:
    # Measured (bench/retrieval_quality.py --fusion-sweep): also leaning on keywords for queries
    # that name a code ("HX-450", "FY2018", "10-K") cut FinanceBench page recall@5 from 40.9% to
    # 27.3%, so only the enumeration rule changes the weight.
    return enumeration if is_enumeration(query) else reasoning


def reciprocal_rank_fusion(
    rankings: dict[str, list[str]], weights: dict[str, float], k: int = 60
) -> list[tuple[str, float]]:
    """Fused (id, score) pairs, best first. Each list in `rankings` is best first.

    score(id) = sum over retrievers of weight / (k + rank), rank 1-based. Ties keep the order in
    which ids were first seen, so results are deterministic.
    """
    scores: dict[str, float] = {}
    for name, ids in rankings.items():
        weight = weights.get(name, 1.0)
        for rank, item in enumerate(ids, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    order = {item: i for i, item in enumerate(scores)}
    return sorted(scores.items(), key=lambda pair: (-pair[1], order[pair[0]]))
