"""Search words in the documents' own vocabulary (issue 23, item 3).

A question says "cash flows from operations"; the filing's line says "net cash provided by operating
activities", and neither BM25 nor the embedding of the question's words ranks that page first. One
short model call under a JSON schema writes the words the document itself would use; the retriever
searches them beside the question (they add rankings to the fusion, they never replace the
question's own). Any failure, or words that add nothing, leaves the search as it was.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from core.llm.base import Completion, LLMError

PROMPT = (
    "A search engine looks for the passage of a document that answers the question below. Write the "
    "words that passage would itself use: its heading, line item or defined term, in the document's "
    "own wording (for example \"cash flows from operations\" is written \"net cash provided by operating "
    "activities\"; \"staff who left\" is written \"employee turnover\"). Keep every name and year of the "
    "question. At most 12 words.\nQuestion: {question}"
)
SCHEMA = {
    "type": "object",
    "properties": {"words": {"type": "string", "maxLength": 120}},
    "required": ["words"],
}
_WORD = re.compile(r"[a-z0-9]+")


@dataclass
class SearchWords:
    words: str  # "" when the call failed or added nothing
    reason: str
    completion: Completion | None = None

    def trace(self) -> dict:
        c = self.completion
        return {"words": self.words or None, "reason": self.reason,
                "llm_seconds": c.seconds if c else None, "prompt_tokens": c.prompt_tokens if c else None,
                "completion_tokens": c.completion_tokens if c else None}


def adds_words(words: str, question: str) -> bool:
    """The words hold at least one word the question does not: otherwise searching them again only
    repeats the question's ranking."""
    return bool(set(_WORD.findall(words.lower())) - set(_WORD.findall(question.lower())))


def suggest(question: str, llm, max_tokens: int) -> SearchWords:
    """One constrained call; a failed call, or words that add nothing, is an empty suggestion."""
    try:
        value, completion = llm.complete_json([{"role": "user", "content": PROMPT.format(question=question.strip())}],
                                              SCHEMA, max_tokens=max_tokens, temperature=0.0)
    except LLMError as exc:
        return SearchWords("", f"the model could not write search words ({exc})")
    words = " ".join(str(value.get("words") or "").split())
    if not adds_words(words, question):
        return SearchWords("", "the model's words add nothing to the question's", completion)
    return SearchWords(words, "the document's own words, searched beside the question's", completion)
