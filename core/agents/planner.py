"""Planner: decide whether and how to retrieve. Rules only, except one short
constrained LLM call for a follow-up question no rule can make standalone.

Order of the checks: injection, empty knowledge base, question length; then intent and route.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from core.agents.decompose import SIMPLE, classify_by_rules
from core.agents.question_kind import RECORDS, Kind
from core.config import Settings
from core.retrieval.fusion import is_enumeration, semantic_weight
from core.conversation.conditions import ValueColumns
from core.conversation.follow_up import resolve_follow_up
from core.conversation.summary import ResultSetCommand, is_new_topic, strip_new_topic
from core.profiles import DocumentProfile, active_profiles
from core.safety import find_injection
from core.safety.flags import Flag

MESSAGES = {
    "prompt_injection": "I cannot process this question as it contains potentially unsafe patterns.",
    "empty_knowledge_base": "No documents have been uploaded yet. Please upload documents before asking questions.",
    "empty_question": "Please type a question about your documents.",
    "question_too_short": "Your question is too short. Could you add more details, such as what or which document you mean?",
    "question_too_long": "Your question is longer than {limit} characters. Please shorten it.",
    "follow_up_unclear": "I am not sure how “{asked}” changes your previous question, “{previous}”. "
                         "Could you ask it as a whole question?",
}

# A simple question's intents; the others are the decomposition's kinds in lower case
# ("comparative", "temporal", "multi_step").
ENUMERATION, NUMERIC, CONCEPTUAL = "enumeration", "numeric_lookup", "conceptual"

# A simple question that asks for a figure; comparison, change over time, several steps and lists
# have their one rule each elsewhere (see classify_intent).
_NUMERIC = re.compile(r"\b(how much|how many|total|amount|sum|average|revenue|income|price|cost|rate|ratio|margin|"
                      r"percent(age)?|number of|value of|what (was|is) the \w+ (of|for))\b|%|\$", re.I)


@dataclass(frozen=True)
class Plan:
    """What the planner decided for one question: whether and how to search. Frozen: each later step that
    adds to it (the tables the question names, its decomposition, documents the user chose) makes a new
    one, so the plan a step was given is the plan it read."""
    question: str
    needs_retrieval: bool
    response: str | None = None
    safety_flags: list[str] = field(default_factory=list)
    intent: str = CONCEPTUAL
    route: str = "hybrid"
    fallbacks: list[str] = field(default_factory=list)
    reason: str = ""
    sub_queries: list[str] = field(default_factory=list)
    semantic_weight: float | None = None
    doc_ids: list[str] | None = None
    asked: str = ""  # the question as typed, when follow-up resolution rewrote it
    rewritten_by: str = ""  # "rule" | "model": who made the follow-up standalone
    rewrite_note: str = ""  # why a follow-up was kept as typed
    new_topic: bool = False  # the user said "new topic": the conversation starts afresh
    result_set: ResultSetCommand | None = None  # "show the rest" / "export that table" of the previous answer
    classification: str = "SIMPLE"  # SIMPLE | COMPARATIVE | MULTI_STEP | TEMPORAL
    enumeration: bool = False  # "list all ...", retrieved broadly
    # the tables the question names (core.annotations.route.TableRoute), if any are stored; on the structured
    # route, the tables it reads
    tables: object | None = None
    decomposition: object | None = None  # the split into sub-queries (core.agents.decompose.Decomposition)
    # What the question asks for (core.agents.question_kind): records | text | summary, and why;
    # "" until the route is chosen. A summary answer form reads it.
    kind: str = ""
    kind_reason: str = ""
    kind_said: bool = True  # False: nothing in the question said what it asks for; the kind is the rules' default
    # the documents of the tables a prose question shares words with and is not sent to: their rows are no prose
    passed_over: tuple[str, ...] = ()

    def describe(self) -> str:
        """One line for the live status and the trace: the route and why."""
        summary = self.reason
        if self.asked:
            summary = f"understood as “{self.question}” ({self.rewritten_by}); " + summary
        if self.decomposition is not None and self.decomposition.is_complex:
            summary += f"; {self.decomposition.kind.lower()}: {len(self.sub_queries)} sub-queries"
        return summary

    def trace(self) -> dict:
        parsed = self.tables.parsed if self.tables else None
        return {
            "resolved_question": self.question if self.asked else None,
            "understood_as": self.question if self.asked else "",
            "rewritten_by": self.rewritten_by or None, "rewrite_note": self.rewrite_note or None,
            "new_topic": self.new_topic, "needs_retrieval": self.needs_retrieval, "intent": self.intent,
            "route": self.route, "fallbacks": self.fallbacks, "sub_queries": self.sub_queries,
            "safety_flags": self.safety_flags, "semantic_weight": self.semantic_weight,
            "understood": parsed.notes if parsed else None, "tables": self.tables.trace() if self.tables else None,
            "result_set": [self.result_set.command, self.result_set.result_set_id] if self.result_set else None,
            "classification": self.classification, "enumeration": self.enumeration,
            "kind": self.kind or None, "kind_reason": self.kind_reason or None,
            "passed_over": list(self.passed_over) or None,
            "decomposition": self.decomposition.trace() if self.decomposition else None,
        }


STRUCTURED, HYBRID, LONG_TEXT, RESULT_SET = "structured", "hybrid", "long_text", "result_set"

# Enumeration patterns: these ask for every item, so one narrow search would miss some.
_LIST_ALL = re.compile(
    r"\b(?:list (?:all|every|each)|list of all|enumerate|what are all|name (?:all|every)|(?:complete|full) list of)\b"
    r"(?:\s+(?:of\s+)?the)?\s*", re.I,
)


def enumeration_queries(question: str) -> list[str] | None:
    """The enumeration-aware plan: the question, and a broad search for the tables of
    contents, indexes and lists that hold every item ("List all rating plan rules" ->
    "table of contents rating plan rules complete list"); None for other questions."""
    match = _LIST_ALL.search(question)
    if not match:
        return None
    topic = (question[: match.start()] + " " + question[match.end():]).strip(" ?.!")
    topic = re.sub(r"^(?:please|can you|could you)\s+", "", topic, flags=re.I).strip()
    return [question, f"table of contents {topic} complete list".replace("  ", " ")]


def choose_route(plan: Plan, tables, kind: Kind | None = None) -> Plan:
    """Route selection, with the table chosen first (issue 14) and what the question asks for
    (issue 22): a question goes to the tables only when it asks for records (a computation over
    rows, a field of a record) and names a table (its file, column labels or cell values), with text
    search as the fallback. A summary, a rule or a fact stated in prose goes to hybrid text search
    whatever words it shares with a table. `tables` is a core.annotations.route.TableRoute, or None
    when no table is stored; `kind` a core.agents.question_kind.Kind (None: records, as before)."""
    if not plan.needs_retrieval or plan.route == RESULT_SET:
        return plan
    if kind is not None:
        plan = replace(plan, kind=kind.kind, kind_reason=kind.reason, kind_said=kind.said)
    selected = tables is not None and tables.selections
    asks = f"a {kind.kind} question ({kind.reason}; decided by {kind.by})" if kind is not None else ""
    if selected and (kind is None or kind.kind == RECORDS):
        chosen = ", ".join(f"{s.table.filename} ({'; '.join(s.reasons)})" for s in tables.selections)
        how = ("the rule parse accounts for every word: rule fast path" if tables.fast else
               "the model writes the query")
        reason = f"{plan.intent} question about the table {chosen}: {how}, then text search"
        return replace(plan, route=STRUCTURED, fallbacks=[HYBRID, LONG_TEXT], tables=tables,
                       reason=f"{asks}; {reason}" if asks else reason)
    reason, passed_over = plan.reason, ()
    if selected:
        names = ", ".join(s.table.filename for s in tables.selections)
        reason += f"; {asks}: text search, not the table {names} it shares words with"
        passed_over = tuple(dict.fromkeys(s.table.doc_id for s in tables.selections))
    elif tables is not None:  # the kind changes nothing here: it is in the trace, not the reason
        reason += " (names no stored table, column or value, so not the tables)"
    # Long-text search (section summaries, then their pages) found the evidence page less often
    # than hybrid search on 46 filings (bench/long_text_quality.py), so it is only the last resort.
    return replace(plan, fallbacks=[LONG_TEXT], reason=reason, passed_over=passed_over)


def classify_intent(question: str, profiles: tuple[DocumentProfile, ...] = ()) -> str:
    """One classification, its parts decided where they act: comparison, change over time and several
    steps by the decomposition's rules (which split such questions), a list by the retriever's
    enumeration rule (which sets the semantic weight); then a figure asked for, else conceptual."""
    try:
        kind, _ = classify_by_rules(question, profiles)
    except Exception:  # a rule bug must never stop the answer; decompose() logs it for this question
        kind = SIMPLE
    if kind != SIMPLE:
        return kind.lower()  # comparative, temporal, multi_step
    if is_enumeration(question):
        return ENUMERATION
    return NUMERIC if _NUMERIC.search(question) else CONCEPTUAL


def plan_question(
    question: str, *, knowledge_base_empty: bool, settings: Settings, previous_question: str = "",
    result_set: ResultSetCommand | None = None, llm=None, value_columns: ValueColumns | None = None,
    previous_subject: str = "",
) -> Plan:
    """`llm`, when given, rewrites a follow-up that no rule parses (one short JSON call); `value_columns`
    tells which stored columns hold a name, so that a follow-up's name replaces the one of its kind.
    result_set: the question's command on the previous answer's result set ("show the rest", "export that
    table"), as Workspace.ask read it."""
    text = (question or "").strip()
    new_topic = is_new_topic(text)
    if new_topic:
        text, previous_question = strip_new_topic(text), ""
    if not text:
        return _stop(text, Flag.EMPTY_QUESTION, new_topic=new_topic)
    injection = find_injection(text)
    if injection:
        return _stop(text, Flag.PROMPT_INJECTION, reason="matched: " + ", ".join(injection))
    if knowledge_base_empty:
        return _stop(text, Flag.EMPTY_KNOWLEDGE_BASE)
    if len(text) < settings.min_question_chars and not previous_question:  # ("And Sian?" follows a question)
        return _stop(text, Flag.QUESTION_TOO_SHORT)
    if len(text) > settings.max_question_chars:
        return _stop(text, Flag.QUESTION_TOO_LONG,
                     response=MESSAGES["question_too_long"].format(limit=settings.max_question_chars))
    if result_set is not None:  # "show the rest", "export that table"
        return Plan(question=text, needs_retrieval=True, route=RESULT_SET, result_set=result_set,
                    reason=f"follow-up on the previous result set: {result_set.command}", intent=ENUMERATION)
    asked = text
    resolution = resolve_follow_up(text, previous_question, llm, settings.standalone_max_tokens, value_columns,
                                   previous_subject)
    if resolution.unclear:  # a rewrite that dropped a condition would answer another question
        return Plan(question=text, needs_retrieval=False, reason="follow-up unclear: " + resolution.note,
                    response=MESSAGES["follow_up_unclear"].format(asked=text, previous=previous_question.strip()),
                    rewrite_note=resolution.note)
    text = resolution.question
    if len(text) < settings.min_question_chars:  # a short follow-up no rule or model made whole
        return _stop(text, Flag.QUESTION_TOO_SHORT)
    intent = classify_intent(text, active_profiles(settings))
    weight = semantic_weight(text, settings.semantic_weight_enumeration, settings.semantic_weight_reasoning)
    listing = enumeration_queries(text)
    return Plan(
        question=text,
        needs_retrieval=True,
        intent=intent,
        route="hybrid",
        reason=(f"{intent} question: hybrid keyword + semantic search over all documents" if not listing else
                "asks for every item: one broad search, also aimed at tables of contents and lists"),
        sub_queries=listing or [text],
        semantic_weight=weight,
        asked=asked if text != asked else "",
        rewritten_by=resolution.by, rewrite_note=resolution.note,
        new_topic=new_topic,
        enumeration=listing is not None,
    )


def _stop(text: str, flag: Flag, **told) -> Plan:
    """No search: the question is stopped with the flag's message (`told` overrides the reason or the message)."""
    return Plan(question=text, needs_retrieval=False, **{"response": MESSAGES[flag], "safety_flags": [flag],
                                                         "reason": flag.replace("_", " "), **told})
