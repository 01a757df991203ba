"""Rolling conversation summary (at most ~350 tokens), the commands on the last result set, and
"new topic", which clears it all.

The summary keeps the latest exchanges, each shortened to the question and the first sentence of
its answer, dropping the oldest when over budget (no LLM call). Follow-ups become standalone
questions in core.conversation.follow_up.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

_SHOW_REST = re.compile(r"^\s*(show|list|give me|see)?\s*(me\s+)?(the\s+)?(rest|more|next( page)?|remaining( ones)?)\b", re.I)
_EXPORT = re.compile(r"\b(export|download|save)\b.*\b(that|this|the|it|them|table|list|results?|csv)\b", re.I)
_NEW_TOPIC = re.compile(r"^\s*(new topic|start over|reset)\b[\s.:,!-]*", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")


@dataclass(frozen=True)
class ResultSetCommand:
    """A command on the previous answer's result set: "rest" ("show the rest") or "export" ("export that table")."""
    command: str
    result_set_id: str


@dataclass
class Conversation:
    summary: str = ""
    last_question: str = ""
    exchanges: list[tuple[str, str]] = field(default_factory=list)
    result_set_id: str | None = None  # the last structured result, for "export that table"
    last_subject: str = ""  # the one name the last answer ranked first ("Tom Okafor"): a follow-up's "they"


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


def update_summary(
    conversation: Conversation, question: str, answer: str, count_tokens, max_tokens: int = 350,
    result_set_id: str | None = None, subject: str = "",
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
    return Conversation(summary, question, exchanges, result_set_id or conversation.result_set_id, subject)
