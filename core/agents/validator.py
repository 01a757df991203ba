"""Validator (seed 000, step 4): is the draft grounded, safe and reliable? Pure rules, no LLM.

Beyond the seed: every [Source N] must exist, and the numbers and names in the answer must occur
in the sources it cites. A draft that fails grounding asks for one refined retrieval.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.agents.reasoner import Draft, Source
from core.config import Settings
from core.safety import find_injection

NO_INFO_PHRASES = ("do not contain", "does not contain", "no information", "cannot answer")
UNCERTAINTY_PHRASES = ("might", "possibly", "perhaps", "unclear", "not sure")

TOO_SHORT_FALLBACK = "I couldn't generate a proper answer. Could you rephrase your question?"
LLM_ERROR_FALLBACK = "I couldn't get an answer from the language model ({error}). Please try again."

_CITATION = re.compile(r"\[\s*Source\s+(\d+)\s*\]", re.I)
_NUMBER = re.compile(r"(?<![\w.-])[-−]?\$?\d[\d,]*(?:\.\d+)?%?")
# Names worth checking: identifiers with digits or dashes ("HX-450", "10-Q"), acronyms ("ACME"),
# and capitalised words that do not start a sentence ("... paid to Globex").
_IDENTIFIER = re.compile(r"\b(?:[A-Za-z]+[-/]?\d[\w-]*|\d+[A-Za-z][\w-]*|[A-Z]{2,}[\w-]*)\b")
_MIDSENTENCE_NAME = re.compile(r"(?<=[a-z,;:] )[A-Z][a-z]{2,}\b")
_COMMON_NAMES = {"Source", "Sources", "I", "The", "This", "These", "However", "According"}


@dataclass
class Validation:
    is_valid: bool
    confidence: str  # high | medium | low
    safety_flags: list[str] = field(default_factory=list)
    reason: str = "Validation passed"
    fallback_response: str | None = None
    average_similarity: float = 0.0
    cited: list[int] = field(default_factory=list)
    invalid_citations: list[int] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)
    is_no_information: bool = False


def is_no_information(answer: str) -> bool:
    lowered = answer.lower()
    return any(phrase in lowered for phrase in NO_INFO_PHRASES)


def cited_numbers(answer: str) -> list[int]:
    return sorted({int(n) for n in _CITATION.findall(answer)})


def _normalize_number(raw: str) -> str:
    value = raw.replace(",", "").replace("$", "").replace("%", "").replace("−", "-").lstrip("-")
    if "." in value:
        value = value.rstrip("0").rstrip(".")
    return value


def _numbers_in(text: str) -> set[str]:
    return {_normalize_number(n) for n in _NUMBER.findall(text)}


def unsupported_claims(answer: str, evidence_text: str) -> list[str]:
    """Numbers and names in `answer` that do not occur in `evidence_text`."""
    body = _CITATION.sub(" ", answer)
    evidence_numbers = _numbers_in(evidence_text)
    evidence_lower = evidence_text.lower()
    missing: list[str] = []
    for raw in _NUMBER.findall(body):
        value = _normalize_number(raw)
        if value and value not in evidence_numbers and len(value.replace(".", "")) > 1:
            missing.append(raw.strip())
    names = set(_IDENTIFIER.findall(body)) | set(_MIDSENTENCE_NAME.findall(body))
    for name in sorted(names - _COMMON_NAMES):
        if not _NUMBER.fullmatch(name) and name.lower() not in evidence_lower:
            missing.append(name)
    return list(dict.fromkeys(missing))


def assess_confidence(average_similarity: float, answer: str, settings: Settings) -> str:
    lowered = answer.lower()
    doubts = sum(1 for phrase in UNCERTAINTY_PHRASES if re.search(rf"\b{phrase}\b", lowered))
    if average_similarity > settings.confidence_high_similarity and doubts == 0:
        return "high"
    if average_similarity > settings.confidence_medium_similarity and doubts <= 1:
        return "medium"
    return "low"


def validate(draft: Draft, settings: Settings) -> Validation:
    flags: list[str] = []
    if any(find_injection(s.chunk.text) for s in draft.sources):
        flags.append("injection_in_context")
    cited = cited_numbers(draft.answer)
    # Seed 000 averages similarity over the evidence; we average over the sources the answer
    # cites, so an unrelated chunk retrieved alongside does not drag a well-supported answer down.
    used = [s for s in draft.sources if s.number in cited] or [
        s for s in draft.sources if s.chunk.expanded_from is None
    ] or draft.sources
    average = sum(s.chunk.similarity for s in used) / len(used) if used else 0.0

    if draft.error:
        return Validation(False, "low", flags + ["llm_error"], f"Answer validation failed: {draft.error}",
                          LLM_ERROR_FALLBACK.format(error=draft.error), average)
    answer = draft.answer.strip()
    if is_no_information(answer):
        return Validation(True, "low", flags, "Validation passed (the documents do not answer this)",
                          average_similarity=average, is_no_information=True)
    if len(answer) < settings.min_answer_chars:
        return Validation(False, "low", flags + ["answer_too_short"], "Answer validation failed: too short",
                          TOO_SHORT_FALLBACK, average)

    invalid = [n for n in cited if not 1 <= n <= draft.num_sources]
    if invalid:
        flags.append("invalid_citation")
    valid_cited = [s for s in draft.sources if s.number in cited]
    grounding = valid_cited or draft.sources
    unsupported = unsupported_claims(
        answer, "\n".join(_source_text(s) for s in grounding) + "\n" + draft.evidence
    )
    confidence = assess_confidence(average, answer, settings)
    if draft.exact:  # counted and filtered over every stored fact, not estimated from chunks
        confidence = "medium" if draft.relaxed else "high"
    if not cited:
        flags.append("no_citation")
        confidence = _lower(confidence)
    if unsupported:
        flags.append("unsupported_claims")
        confidence = _lower(confidence)
    return Validation(True, confidence, flags, "Validation passed", None, average, cited, invalid, unsupported)


def _source_text(source: Source) -> str:
    """What the model saw and what the reader can check: the label and the full chunk text."""
    return f"{source.label}\n{source.chunk.filename}\n{source.chunk.text}"


def _lower(confidence: str) -> str:
    return {"high": "medium", "medium": "low"}.get(confidence, "low")
