"""Confidence, one policy for both engines (issue 26, item 5).

Each answer check returns findings: the flag it raises, if any, and what it does to the level. A level
starts from how close the cited sources are to the question and whether the answer hedges (seed 000's
rule, `assess_confidence`); `settle` then applies the findings in the order the checks ran, and gives the
level with the flags a user sees. The pipeline's validator and agent mode both end in `settle`, so a
check that fails moves confidence the same way whichever engine wrote the answer.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from core.config import Settings
from core.safety.flags import Flag

HIGH, MEDIUM, LOW = "high", "medium", "low"
UNCERTAINTY_PHRASES = ("might", "possibly", "perhaps", "unclear", "not sure")


class Effect(StrEnum):
    NONE = "none"  # a flag for the reader; the level stands
    LOWER = "lower"  # one level down, never below low
    AT_MOST_MEDIUM = "at_most_medium"  # an answer that a check cannot vouch for word for word
    LOW = "low"  # a failed check that makes the answer a guess
    AT_LEAST_MEDIUM = "at_least_medium"  # evidence found word for word is no guess, however far its similarity
    SET = "set"  # the check decides the level on its own (an exact count over stored records)


@dataclass(frozen=True)
class Finding:
    """What one check found: the flag it raises (None when it only moves the level) and its effect."""
    flag: Flag | None
    effect: Effect = Effect.NONE
    level: str | None = None  # the level an Effect.SET decides


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


def _apply(level: str, finding: Finding) -> str:
    effect = finding.effect
    if effect is Effect.LOWER:
        return lower(level)
    if effect is Effect.AT_MOST_MEDIUM:
        return MEDIUM if level == HIGH else level
    if effect is Effect.LOW:
        return LOW
    if effect is Effect.AT_LEAST_MEDIUM:
        return MEDIUM if level == LOW else level
    if effect is Effect.SET:
        return finding.level or LOW
    return level


def settle(level: str, findings: list[Finding]) -> tuple[str, list[Flag]]:
    """The level after every finding, in the order the checks ran, and the flags raised, each once."""
    for finding in findings:
        level = _apply(level, finding)
    return level, list(dict.fromkeys(f.flag for f in findings if f.flag is not None))
