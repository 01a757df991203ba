"""Follow-ups made standalone questions before retrieval, so the search and the reader see what the user
means. A follow-up keeps the previous question's measure and conditions and replaces only what the user
changed:

- a name of the same kind ("What about Corrie Hill?" after "What was Hartwell's electricity bill for
  2024?" -> "What was Corrie Hill's electricity bill for 2024?"): the same kind when the stored tables
  hold both in one column, or, when they hold neither, when both are the only proper names;
- a period ("and in 2023?"), what is computed ("and the average?"), or the field asked for ("what
  about the due date?").

Rules rewrite what they parse completely; otherwise one short model call under a JSON schema does,
and code checks its rewrite: every year, number, name and measure word of the previous question that
the follow-up did not replace must still be there, and everything the follow-up says must be too. A
rewrite that loses one is not answered; the user is asked for the whole question. Never "X (follow-up
to: Y)": the 1.5B reader refused a due date that was in its prompt when asked that way, and answered
it when asked plainly (issue 15).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from core.conversation.conditions import (
    PERIODS, POSSESSIVE, Span, ValueColumns, fold, is_aggregate, is_superlative, mentions, number_spans, period_spans,
    read_statement, stem, value_spans, word_stems, words,
)

_FOLLOW_UP_START = re.compile(r"^\s*(and|also|what about|how about|and what about|same for|or)\b", re.I)
# (a person the previous question named: "How many units did she make?" after "How many shifts did Sian work?")
_PRONOUN = re.compile(r"\b(those|these|they|them|it|its|that|this one|the same|she|he|her|him|his)\b", re.I)
# Left in a rewrite, these still point at the previous question ("that" may be a relative pronoun).
_UNRESOLVED = re.compile(r"\b(those|these|they|them|their|it|its|this one|the same|she|he|her|him|his)\b", re.I)
# The words that only say "this is a follow-up": "and", "what about", "how about for", "same for".
_CUE = re.compile(r"^\s*(?:(?:and|also|or|so|then)\s*,?\s+)*(?:(?:what|how)\s+about|same\s+for)?\s*", re.I)
_LEADING_LINKS = re.compile(r"^(?:(?:for|at|in|of|from|on|by|during|the)\s+)+", re.I)
_PERIOD_PREPOSITION = re.compile(r"\b(in|for|during|of|from|on)\s+$", re.I)
# "What is the invoice date on the Azure Interior invoice?": the asked-for thing, then what it is of.
_LOOKUP = re.compile(
    r"^\s*(?P<ask>(?:what|which|when|who)\s+(?:is|was|are|were)|how\s+(?:much|many)\s+(?:is|was|are|were))\s+"
    r"(?:the\s+)?(?P<thing>.+?)\s+(?P<link>of|on|for|in|from|at|by)\s+(?P<rest>.+?)\s*\??\s*$", re.I)
# "only those from 2024", "just the ones over 1.2 m": the previous question, narrowed.
_NARROW = re.compile(r"^\s*(?:and\s+)?(?:only|just)\s+(?:those|these|the ones|them)\s+(?P<qualifier>[^?]+?)\s*\??\s*$", re.I)
_VERB_OR_QUESTION = re.compile(
    r"\b(is|are|was|were|do|does|did|has|have|had|can|could|will|would|should|what|which|who|when|where|why|how)\b", re.I)
STANDALONE_PROMPT = """Rewrite the follow-up as one question that can be understood on its own.
Start from the previous question and change only what the follow-up changes (a name, a period, or what is
measured). Keep every other name, number and period of the previous question.

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
    note: str = ""  # why a rewrite was not made, for the trace
    unclear: bool = False  # a follow-up no rewrite could be trusted for: ask the user for the whole question


@dataclass
class Change:
    """What a plain follow-up ("and for Corrie Hill in 2023?") puts in place of the previous question's."""
    periods: list[Span]
    period_phrase: str  # the periods as typed with their preposition ("in 2023"), for a question without one
    value: Span | None  # a name
    thing: str  # what is asked for instead ("average", "due date")


# "How many of their jobs left the tenant unhappy?": a "their" whose owners the question names nowhere before it
# (in "What must members do to end their tenancy?" the members own it)
_OWNERLESS = re.compile(r"^(?:(?!\b[a-z]{3,}s\b)[^?])*?\btheir\b", re.I)


def is_follow_up(question: str) -> bool:
    short = len(question.split()) <= 8
    return bool(_FOLLOW_UP_START.match(question)) or (short and bool(_PRONOUN.search(question))) \
        or (len(question.split()) <= 14 and bool(_OWNERLESS.search(question)))


def _content(question: str) -> str:
    """A follow-up without its cue and end: "What about Corrie Hill?" -> "Corrie Hill"."""
    return _CUE.sub("", question, count=1).strip().rstrip("?.! ").strip()


def read_change(question: str, value_columns: ValueColumns | None = None) -> Change | None:
    """The parts of a follow-up that is nothing but replacements; None when it says more (a verb, a
    pronoun, a number that is no period), which the rules do not guess."""
    content = _content(question)
    if not content or _PRONOUN.search(content) or _VERB_OR_QUESTION.search(content):
        return None
    periods = period_spans(content)
    phrase, rest, end = [], "", 0
    for span in periods:
        before = content[end:span.start]
        preposition = _PERIOD_PREPOSITION.search(before)
        rest += before[: preposition.start()] if preposition else before
        phrase.append((preposition.group(0) if preposition else "in ") + span.text)
        end = span.end
    rest = _LEADING_LINKS.sub("", (rest + content[end:]).strip(" ,")).strip(" ,")
    if number_spans(rest, []) or len(rest.split()) > 6:  # "and over 3,000?" is a condition, not a name
        return None
    value, thing = None, ""
    if rest:
        names = value_spans(rest, [], value_columns, sentence=False)
        whole = len(names) == 1 and names[0].key == fold(POSSESSIVE.sub("", rest))  # "Corrie Hill('s)"
        value, thing = (names[0], "") if whole and not is_aggregate(rest) else (None, rest)
    return Change(periods, " ".join(phrase), value, thing)


def rewrite_by_rule(question: str, previous_question: str, value_columns: ValueColumns | None = None) -> str | None:
    """The standalone question when a rule parses the follow-up completely, else None. "and in 2023?"
    after "What was revenue in 2022?" -> "What was revenue in 2023?"; "only those from 2024" after
    "List every order from Globex" -> "List every order from Globex from 2024?"; and see the module."""
    narrow = _NARROW.match(question)
    if narrow:
        return f"{_bare(previous_question)} {narrow.group('qualifier')}?"
    change = read_change(question, value_columns)
    if change is None or not (change.periods or change.value or change.thing):
        return None
    text: str | None = _bare(previous_question)
    if change.value is not None:
        text = replace_value(text, change.value, value_columns)
    if text is not None and change.thing:
        text = replace_thing(text, change.thing, value_columns)
    if text is not None and change.periods:
        text = replace_periods(text, change)
    return f"{text}?" if text else None


# A person or thing a ranking named, said again: "How many tickets did they resolve?" after "Which technician spent
# the most hours?" (answered "Tom Okafor"). "it" and "those" are left: they stand for the rows or the figure as often.
_SUBJECT_PRONOUN = re.compile(r"\b(they|them|he|she|him|her|their|his)\b", re.I)
_WHOLE_QUESTION = re.compile(r"\s*(?:how|what|when|where|which|who|whom|did|does|do|is|are|was|were|has|have|had|can|"
                             r"could|will|would|list|show|give)\b", re.I)


def named_by_pronoun(question: str, subject: str) -> str | None:
    """The question with its one kind of pronoun replaced by the subject ("their" by "Tom Okafor's"); None when it
    has none, pronouns of more than one person, or is no whole question ("And their average?" keeps the last
    question's measure: the other rules read it)."""
    if not _WHOLE_QUESTION.match(question):
        return None
    found = {m.group(1).lower() for m in _SUBJECT_PRONOUN.finditer(question)}
    if not found or len({"they" if p in ("they", "them", "their") else "he" if p in ("he", "him", "his") else "she"
                         for p in found}) != 1:
        return None
    possessive = {"their", "his", "her"} if not found & {"she", "him", "they", "them", "he"} else {"their", "his"}
    return _SUBJECT_PRONOUN.sub(lambda m: f"{subject}'s" if m.group(1).lower() in possessive else subject, question)


def _bare(question: str) -> str:
    return question.strip().rstrip("?.!").strip()


def replace_value(text: str, new: Span, value_columns: ValueColumns | None) -> str | None:
    """`new` in place of the one name in `text` of its kind: the name a stored column holds with it, or,
    when no column says, the only proper name; None when that is not one name."""
    statement = read_statement(text, value_columns)
    same = [v for v in statement.values if v.columns & new.columns]
    if not same and (new.text[:1].isupper() or new.columns):
        same = [v for v in statement.values if v.text[:1].isupper() and not (
            v.columns and new.columns)]  # a name no column holds with the new one is another kind
    if len({v.key for v in same}) != 1:
        return None
    for span in sorted(same, key=lambda s: -s.start):
        text = text[:span.start] + new.text + text[span.end:]
    return text


def replace_thing(text: str, thing: str, value_columns: ValueColumns | None) -> str | None:
    """"and the average?", "the quietest?": the one aggregate or superlative of `text` swapped; "what about
    the due date?": the field a lookup asks for, when that field carries no condition ("What was
    Hartwell's bill" names a site)."""
    statement = read_statement(text, value_columns)
    if len(thing.split()) == 1 and (is_aggregate(thing) or is_superlative(thing)):
        kind = is_aggregate if is_aggregate(thing) else is_superlative
        spans = [m for m in words(text) if kind(m.group(0))
                 and not any(s.start <= m.start() < s.end for s in statement.conditions)]
        if len(spans) == 1:
            return text[:spans[0].start()] + thing.lower() + text[spans[0].end():]
        # "What were Millbrook's sales" -> "What were Millbrook's average sales": whose figure it is comes
        # first, so the aggregate goes before the figure ("the revenue of Millbrook's loaves" is another form).
        owners = [m for m in words(text) if POSSESSIVE.search(m.group(0))]
        if not spans and is_aggregate(thing) and len(owners) == 1 and not read_statement(
                text[:owners[0].start()], value_columns).measure:
            return f"{text[:owners[0].end()]} {thing.lower()}{text[owners[0].end():]}"
    lookup = _LOOKUP.match(text + "?")
    if lookup is None or read_statement(lookup.group("thing"), value_columns).conditions:
        return None
    if is_aggregate(thing) and fold(thing) != "total":  # "the average" of the field, not in its place; an
        return None  # invoice's "Total" is a field as well as an aggregate
    thing = re.sub(r"^the\s+", "", thing, flags=re.I)
    return f"{lookup.group('ask')} the {thing} {lookup.group('link')} {lookup.group('rest')}"


def replace_periods(text: str, change: Change) -> str | None:
    """Each period of the follow-up in place of the previous question's of the same kind (a year for a
    year, in order), or added to a question that has none; None when the counts differ."""
    old = period_spans(text)
    if not old:
        return f"{text} {change.period_phrase}"
    for kind in PERIODS:
        new = [p for p in change.periods if p.kind == kind]
        same = [p for p in period_spans(text) if p.kind == kind]
        if not new:
            continue
        if len(new) != len(same):
            return None
        for before, after in sorted(zip(same, new), key=lambda pair: -pair[0].start):
            text = text[:before.start] + after.text + text[before.end:]
    return text


def rewrite_problems(previous: str, question: str, rewrite: str, value_columns: ValueColumns | None = None) -> list[str]:
    """Why a rewrite of the follow-up `question` is not the previous question with only the follow-up's
    change: a condition or measure word of `previous` the follow-up did not replace is missing, something
    the follow-up says is missing, a name it replaced is still there, or the two were only joined
    ("... in 2024 and the average?", which the 1.5B model writes). Empty when the rewrite is sound."""
    before, asked = read_statement(previous, value_columns), read_statement(question, value_columns)
    said = set(word_stems(rewrite))
    typed = question.strip().rstrip("?.! ")  # "and the average", cue and all
    if len(typed.split()) > 1 and mentions(rewrite, typed) or _UNRESOLVED.search(rewrite) and not (
            _UNRESOLVED.search(previous)):
        return ["joins the two questions instead of rewriting the previous one"]
    missing = [p.text for p in before.periods if p.kind not in {a.kind for a in asked.periods}
               and not mentions(rewrite, p.text)]
    if not asked.numbers:
        missing += [n.text for n in before.numbers if not mentions(rewrite, n.text)]
    dropped = [v for v in before.values if not mentions(rewrite, v.text)]
    replaceable = [v for v in dropped if any(not v.columns or not a.columns or v.columns & a.columns
                                             for a in asked.values)]
    missing += [v.text for v in dropped if v not in replaceable]
    if len({v.key for v in replaceable}) > len(asked.values):
        missing += [v.text for v in replaceable]
    # What is measured stays unless the follow-up names another thing; "the average" only adds to it.
    if all(is_aggregate(w) for w in asked.measure):
        missing += [w for w in before.measure if stem(w) not in said and not (asked.measure and is_aggregate(w))]
    missing += [s.text for s in asked.conditions if not mentions(rewrite, s.text)]
    missing += [w for w in asked.measure if stem(w) not in said]
    # A name of the same stored column as one the follow-up gives is replaced by it, not kept beside it.
    kept = [v.text for v in before.values if mentions(rewrite, v.text) and not mentions(question, v.text)
            and any(v.columns & a.columns for a in asked.values)]
    problems = [f"leaves out {', '.join(dict.fromkeys(missing))}"] if missing else []
    return problems + ([f"still says {', '.join(dict.fromkeys(kept))}"] if kept else [])


def resolve_follow_up(question: str, previous_question: str, llm=None, max_tokens: int = 80,
                      value_columns: ValueColumns | None = None, previous_subject: str = "") -> Resolution:
    """The standalone form of `question`: by rule, else by one constrained call to `llm` (when given),
    checked by code. A question that stands alone, or that no model could rewrite, is kept as typed; a
    model's rewrite that loses a condition makes the Resolution unclear. `previous_subject`: the one name the
    last answer ranked first, which a "they" or "her" stands for."""
    if not previous_question or not is_follow_up(question):
        return Resolution(question)
    if previous_subject and (named := named_by_pronoun(question, previous_subject)):
        return Resolution(named, "rule")
    value_columns = _remembered(value_columns) if value_columns is not None else None
    ruled = rewrite_by_rule(question, previous_question, value_columns)
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
    if not rewritten or fold(rewritten).rstrip("?") in (fold(question).rstrip("?"), fold(_content(question))):
        # "Also, what is the warranty period?" stands alone: the model gave it back without its "also".
        return Resolution(question, note="the model kept the question as typed")
    rewritten = rewritten if rewritten.endswith("?") else rewritten + "?"
    problems = rewrite_problems(previous_question, question, rewritten, value_columns)
    if problems:
        return Resolution(question, note=f"the model's rewrite “{rewritten}” {'; '.join(problems)}", unclear=True)
    return Resolution(rewritten, "model")


def _remembered(value_columns: ValueColumns) -> ValueColumns:
    """`value_columns` asked once per text: the rules and the check read the same questions several
    times, and each lookup scans the stored cells (~60 ms over 46,000 of them)."""
    known: dict[str, set[str]] = {}
    asked: set[str] = set()

    def lookup(texts: list[str]) -> dict[str, set[str]]:
        new = [t for t in texts if t not in asked]
        if new:
            known.update(value_columns(new))
            asked.update(new)
        return {t: known[t] for t in texts if t in known}

    return lookup
