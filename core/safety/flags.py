"""Every flag an answer can carry and how a user reads it, in one place: the planner, the validator and
agent mode raise them, and every screen labels them from here (issue 26, item 5). A flag is a `str`, so
persisted turns and the JSON payload keep plain strings ("near_quote")."""
from __future__ import annotations

from enum import StrEnum

from core.safety.pii import hidden_label


class Flag(StrEnum):
    # the question was stopped before any search
    EMPTY_QUESTION = "empty_question"
    QUESTION_TOO_SHORT = "question_too_short"
    QUESTION_TOO_LONG = "question_too_long"
    PROMPT_INJECTION = "prompt_injection"
    EMPTY_KNOWLEDGE_BASE = "empty_knowledge_base"
    # what the sources or the model did
    INJECTION_IN_CONTEXT = "injection_in_context"
    LLM_ERROR = "llm_error"
    FORCED_SYNTHESIS = "forced_synthesis"
    # what the answer checks found
    ANSWER_TOO_SHORT = "answer_too_short"
    INVALID_CITATION = "invalid_citation"
    NO_CITATION = "no_citation"
    UNSUPPORTED_CLAIMS = "unsupported_claims"
    UNSUPPORTED_FIGURE = "unsupported_figure"
    POSSIBLE_MISREAD = "possible_misread"
    YEAR_NOT_STATED = "year_not_stated"
    ARITHMETIC_CORRECTED = "arithmetic_corrected"
    NEAR_QUOTE = "near_quote"
    RESTATES_QUESTION = "restates_question"
    ANSWER_CONTINUES_QUOTE = "answer_continues_quote"


LABELS: dict[Flag, str] = {
    Flag.EMPTY_QUESTION: "no question",
    Flag.QUESTION_TOO_SHORT: "question too short",
    Flag.QUESTION_TOO_LONG: "question too long",
    Flag.PROMPT_INJECTION: "unsafe question",
    Flag.EMPTY_KNOWLEDGE_BASE: "no documents",
    Flag.INJECTION_IN_CONTEXT: "suspicious text in a document",
    Flag.LLM_ERROR: "model error",
    Flag.FORCED_SYNTHESIS: "written when the agent's step budget ran out",
    Flag.ANSWER_TOO_SHORT: "answer too short",
    Flag.INVALID_CITATION: "invalid citation removed",
    Flag.NO_CITATION: "answer cites no source",
    Flag.UNSUPPORTED_CLAIMS: "some details not found in sources",
    Flag.UNSUPPORTED_FIGURE: "a figure not found in sources",
    Flag.POSSIBLE_MISREAD: "may misread its quote",
    Flag.YEAR_NOT_STATED: "the quote does not state the year asked",
    Flag.ARITHMETIC_CORRECTED: "arithmetic corrected by code",
    Flag.NEAR_QUOTE: "quote not copied exactly",
    Flag.RESTATES_QUESTION: "the answer mostly restates the question",
    Flag.ANSWER_CONTINUES_QUOTE: "cut back to what its quote says",
}


def flag_label(flag: str) -> str:
    """A flag as a user reads it: "near_quote" is "quote not copied exactly", "pii_redacted:phone" is "phone
    number hidden"; a flag this list does not know (an older turn's) is its words."""
    if (hidden := hidden_label(flag)) is not None:
        return hidden
    try:
        return LABELS[Flag(flag)]
    except ValueError:
        return flag.replace("_", " ")
