"""Reciprocal rank fusion with per-retriever weights (seed 002's adaptive alpha)."""
from __future__ import annotations

import re

# Seed 002: enumeration questions lean on keywords, reasoning questions on meaning.
_ENUMERATION = re.compile(
    r"\b(list|all|every|each|enumerate|table of contents|rules|how many|which of)\b", re.IGNORECASE
)


# A model number or code ("HX-450", "10-Q", "Q3"): meaning-based search cannot tell HX-450 from
# HX-550, so a query naming one leans on exact keywords as enumerations do.
_IDENTIFIER = re.compile(r"\b(?=[\w-]*[A-Za-z])(?=[\w-]*\d)[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*\b")


def is_enumeration(query: str) -> bool:
    return bool(_ENUMERATION.search(query))


def names_identifier(query: str) -> bool:
    return bool(_IDENTIFIER.search(query))


def semantic_weight(query: str, enumeration: float, reasoning: float) -> float:
    return enumeration if is_enumeration(query) or names_identifier(query) else reasoning


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
