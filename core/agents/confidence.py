"""Confidence, one policy for both engines (rules, and what lowers them).

A level starts from how close the cited sources are to the question and whether the answer hedges;
each failed check (nothing cited, a claim not in the sources, an answer forced out of a spent budget)
lowers it one step; an error or a refusal is always low.
"""
from __future__ import annotations

import re

from core.config import Settings

HIGH, MEDIUM, LOW = "high", "medium", "low"
UNCERTAINTY_PHRASES = ("might", "possibly", "perhaps", "unclear", "not sure")


def doubts(answer: str) -> int:
    """How many hedging phrases the answer uses."""
    lowered = answer.lower()
    return sum(1 for phrase in UNCERTAINTY_PHRASES if re.search(rf"\b{phrase}\b", lowered))


def assess_confidence(average_similarity: float, answer: str, settings: Settings) -> str:
    hedges = doubts(answer)
    if average_similarity > settings.confidence_high_similarity and hedges == 0:
        return HIGH
    if average_similarity > settings.confidence_medium_similarity and hedges <= 1:
        return MEDIUM
    return LOW


def lower(confidence: str) -> str:
    """One level down for a failed check, never below low."""
    return {HIGH: MEDIUM, MEDIUM: LOW}.get(confidence, LOW)
