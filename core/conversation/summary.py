"""Rolling conversation summary (at most ~350 tokens) and follow-up resolution.

The summary keeps the latest exchanges, each shortened to the question and the first sentence of
its answer, dropping the oldest when over budget (no LLM call). A follow-up ("and in 2023?",
"what about the due date?") becomes a standalone question before retrieval, so the search and the
reader see what the user means: by a rule when the rule parses it completely, otherwise by one
short LLM call under a JSON schema. Never "X (follow-up to: Y)": the 1.5B reader refused a due date
that was in its prompt when asked that way, and answered it when asked plainly (issue 15).
"New topic" clears it all.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

_SHOW_REST = re.compile(r"^\s*(show|list|give me|see)?\s*(me\s+)?(the\s+)?(rest|more|next( page)?|remaining( ones)?)\b", re.I)
_EXPORT = re.compile(r"\b(export|download|save)\b.*\b(that|this|the|it|them|table|list|results?|csv)\b", re.I)
_NEW_TOPIC = re.compile(r"^\s*(new topic|start over|reset)\b[\s.:,!-]*", re.I)
_FOLLOW_UP_START = re.compile(r"^\s*(and|also|what about|how about|and what about|same for|or)\b", re.I)
_PRONOUN = re.compile(r"\b(those|these|they|them|it|its|that|this one|the same)\b", re.I)
_YEAR = re.compile(r"\b(19|20)\d{2}\b")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")


@dataclass
class Conversation:
    summary: str = ""
    last_question: str = ""
    exchanges: list[tuple[str, str]] = field(default_factory=list)
    result_set_id: str | None = None  # the last structured result, for "export that table"


def result_set_command(question: str) -> str | None:
    """ "show the rest" -> "rest", "export that table" -> "export": commands on the last result set."""
    if _SHOW_REST.match(question):
        return "rest"
    if _EXPORT.search(question) and len(question.split()) <= 8:
        return "export"
    return None


def is_new_topic(question: str) -> bool:
    return bool(_NEW_TOPIC.match(question))


def strip_new_topic(question: str) -> str:
    return _NEW_TOPIC.sub("", question, count=1).strip()


def is_follow_up(question: str) -> bool:
    words = question.split()
    return bool(_FOLLOW_UP_START.match(question)) or (len(words) <= 8 and bool(_PRONOUN.search(question)))


# "what about the due date?", "and the total?", "how about its VAT?": the thing asked for instead.
_ASK_INSTEAD = re.compile(r"^\s*(?:and\s+)?(?:(?:what|how)\s+about\s+)?(?P<thing>[^?]+?)\s*\??\s*$", re.I)
# "What is the invoice date on the Azure Interior invoice?": the asked-for thing, then what it is of.
_LOOKUP = re.compile(
    r"^\s*(?P<ask>(?:what|which|when|who)\s+(?:is|was|are|were)|how\s+(?:much|many)\s+(?:is|was|are|were))\s+"
    r"(?:the\s+)?(?P<thing>.+?)\s+(?P<link>of|on|for|in|from|at|by)\s+(?P<rest>.+?)\s*\??\s*$", re.I)
# "only those from 2024", "just the ones over 1.2 m": the previous question, narrowed.
_NARROW = re.compile(r"^\s*(?:and\s+)?(?:only|just)\s+(?:those|these|the ones|them)\s+(?P<qualifier>[^?]+?)\s*\??\s*$", re.I)
_VERB_OR_QUESTION = re.compile(
    r"\b(is|are|was|were|do|does|did|has|have|had|can|could|will|would|should|what|which|who|when|where|why|how)\b", re.I)
STANDALONE_PROMPT = """Rewrite the follow-up question so that it can be understood without the previous question.
Keep the user's words; add only the names, documents and periods from the previous question that it refers to.

Previous question: {previous}
Follow-up question: {question}"""
STANDALONE_SCHEMA = {
    "type": "object",
    "properties": {"standalone_question": {"type": "string", "maxLength": 300}},
    "required": ["standalone_question"],
}


@dataclass
class Resolution:
    question: str  # what is answered: the standalone question, or the question as typed
    by: str = ""  # "rule" | "model" when the question was rewritten; "" when it stood alone
    note: str = ""  # why a rewrite was not made (the model's failure), for the trace


def rewrite_by_rule(question: str, previous_question: str) -> str | None:
    """The standalone question when a rule parses the follow-up completely, else None.
    "and in 2023?" after "What was revenue in 2022?" -> "What was revenue in 2023?";
    "what about the due date" after "What is the invoice date on the Azure Interior invoice?" ->
    "What is the due date on the Azure Interior invoice?"; "only those from 2024" after "List every
    order from Globex" -> "List every order from Globex from 2024?"."""
    years = [m.group(0) for m in _YEAR.finditer(question)]
    if years and _YEAR.search(previous_question) and len(question.split()) <= 6:
        return _YEAR.sub(lambda _: years[0], previous_question, count=1)
    narrow = _NARROW.match(question)
    if narrow:
        return f"{previous_question.strip().rstrip('?.!').strip()} {narrow.group('qualifier')}?"
    instead = _ASK_INSTEAD.match(question)
    lookup = _LOOKUP.match(previous_question)
    if not (instead and lookup and _FOLLOW_UP_START.match(question)):
        return None
    thing = re.sub(r"^the\s+", "", instead.group("thing").strip(), flags=re.I)
    if not thing or _PRONOUN.search(thing) or _VERB_OR_QUESTION.search(thing) or len(thing.split()) > 6:
        return None  # "what about its total", "and how was it paid": not a plain thing to ask for
    return f"{lookup.group('ask')} the {thing} {lookup.group('link')} {lookup.group('rest')}?"


def resolve_follow_up(question: str, previous_question: str, llm=None, max_tokens: int = 80) -> Resolution:
    """The standalone form of `question`: by rule, else by one constrained call to `llm` (when
    given); a question that stands alone, or that neither could rewrite, is kept as typed."""
    if not previous_question or not is_follow_up(question):
        return Resolution(question)
    ruled = rewrite_by_rule(question, previous_question)
    if ruled:
        return Resolution(ruled, "rule")
    if llm is None:
        return Resolution(question, note="no rule parses this follow-up and no model was offered")
    from core.llm.base import LLMError

    prompt = STANDALONE_PROMPT.format(previous=previous_question.strip(), question=question.strip())
    try:
        value, _ = llm.complete_json([{"role": "user", "content": prompt}], STANDALONE_SCHEMA,
                                     max_tokens=max_tokens, temperature=0.0)
    except LLMError as exc:
        return Resolution(question, note=f"the model could not rewrite it ({exc})")
    rewritten = " ".join(str(value.get("standalone_question") or "").split())
    if not rewritten or rewritten.lower() == question.strip().lower():
        return Resolution(question, note="the model kept the question as typed")
    return Resolution(rewritten if rewritten.endswith("?") else rewritten + "?", "model")


def update_summary(
    conversation: Conversation, question: str, answer: str, count_tokens, max_tokens: int = 350,
    result_set_id: str | None = None,
) -> Conversation:
    """The conversation after one more exchange, its summary within `max_tokens`."""
    first_sentence = _SENTENCE_END.split(answer.strip(), maxsplit=1)[0] if answer.strip() else ""
    first_sentence = re.sub(r"\s*\[Source \d+\]", "", first_sentence)[:300]
    exchanges = conversation.exchanges + [(question, first_sentence)]
    while True:
        summary = "\n".join(f"Q: {q}\nA: {a}" for q, a in exchanges)
        if len(exchanges) <= 1 or sum(count_tokens([summary])) <= max_tokens:
            break
        exchanges = exchanges[1:]
    if sum(count_tokens([summary])) > max_tokens:  # one exchange alone over budget: trim the answer
        words = summary.split()
        summary = " ".join(words[: max_tokens * 2 // 3])
    return Conversation(summary, question, exchanges, result_set_id or conversation.result_set_id)
