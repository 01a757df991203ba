"""Search words in the documents' own vocabulary (issue 23, item 3).

A question says "cash flows from operations"; the filing's line says "net cash provided by operating
activities", and neither BM25 nor the embedding of the question's words ranks that page first. One
short model call under a JSON schema writes the words the document itself would use; the retriever
searches them beside the question (they add rankings to the fusion, they never replace the
question's own). Any failure, or words that add nothing, leaves the search as it was.

Off by default (`Settings.search_words_model`): with the shipped 1.5B model every weight and form tried
lowered the dev parts' evidence recall (docs/retrieval.md, section 12); it stays to measure a larger model.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass

from core.llm.base import Completion, LLMError

# Asked plainly, the model answered the question ("Yes, Boeing's business is subject to cyclicality.");
# as a list of phrases after worked examples it wrote headings and line items (dev part, docs/retrieval.md
# section 12). The examples are a fixed prefix, read once and then restored from the model's prompt cache.
SYSTEM = ("You write search phrases for a document index. Given a question, list the phrases that the passage "
          "answering it would contain: its section heading, line item or defined term, worded as such documents "
          "word them. Do not answer the question.")
EXAMPLES = (
    ("How much cash did the business generate from its operations in 2021?",
     ["net cash provided by operating activities", "cash flows from operating activities 2021"]),
    ("Did staff turnover go up last year?", ["employee turnover rate", "voluntary attrition", "leavers"]),
    ("Is the company exposed to currency swings?",
     ["foreign currency exchange risk", "exchange rate fluctuations", "hedging"]),
    ("Who collects our waste at the depot?", ["waste collection contractor", "refuse collection services agreement"]),
)
SCHEMA = {
    "type": "object",
    "properties": {"phrases": {"type": "array", "items": {"type": "string", "maxLength": 60},
                               "minItems": 1, "maxItems": 3}},
    "required": ["phrases"],
}


def messages(question: str) -> list[dict]:
    """The instructions and worked examples, then the question."""
    turns = [{"role": "system", "content": SYSTEM}]
    for asked, phrases in EXAMPLES:
        turns += [{"role": "user", "content": asked}, {"role": "assistant", "content": json.dumps({"phrases": phrases})}]
    return turns + [{"role": "user", "content": question.strip()}]


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
        value, completion = llm.complete_json(messages(question), SCHEMA, max_tokens=max_tokens, temperature=0.0)
    except LLMError as exc:
        return SearchWords("", f"the model could not write search words ({exc})")
    phrases = value.get("phrases") if isinstance(value.get("phrases"), list) else []
    words = "; ".join(" ".join(str(p).split()) for p in phrases if str(p).strip())
    if not adds_words(words, question):
        return SearchWords("", "the model's words add nothing to the question's", completion)
    return SearchWords(words, "the document's own words, searched beside the question's", completion)
