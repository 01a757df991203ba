"""Complex questions: classify, decompose into sub-queries, retrieve for each one
concurrently, merge, and reflect on whether the answer is sufficient.

The specification spends an LLM call on each of classification, decomposition and reflection. Here a
call costs 30-60 s, so rules come first and cover the common shapes:

- COMPARATIVE: "compare X and Y (on Z)", "X vs Y", "difference between X and Y", "which had
  higher Z, X or Y", "how does X differ from Y": one sub-query per thing compared, the shared
  part of the question repeated in each ("the gross margin of Apple and Microsoft in 2023" ->
  "the gross margin of Apple in 2023", "the gross margin of Microsoft in 2023").
- TEMPORAL: "from 2020 to 2023", "between Q1 and Q3 2023", "since 2021", "in 2022 and 2023":
  one sub-query per period ("diabetes guidelines 2020", "diabetes guidelines 2023"); "since P"
  is before (P) and after (the topic as it stands now).
- MULTI_STEP: several questions in one ("What is X, and how is it calculated?"), "first ...
  then ...": one sub-query per part, pronouns carrying the first part's subject along.
- SIMPLE: everything else, with no cue of the above.

The model is asked (one schema-constrained call, classification and sub-queries together) only
when a cue is present but the rules cannot find the parts, e.g. "step-by-step procedure for X".
Every failure falls back: classification failure -> SIMPLE; decomposition
failure -> the single question; a failed sub-query search -> the others go on; reflection
failure -> sufficient; iterations exhausted -> the best answer so far.
"""
from __future__ import annotations

import logging
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable

from core.annotations.conditions import YEAR_DIGITS, FISCAL_YEAR, HALF_SHORT, MONTH_NAME, QUARTER_ORDINAL, QUARTER_SHORT
from core.config import Settings
from core.llm.base import ChatLLM, Completion, LLMError
from core.profiles import DocumentProfile, active_profiles
from core.retrieval import RetrievalResult, RetrievedChunk
from core.store.keyword import tokenize

log = logging.getLogger(__name__)

SIMPLE, COMPARATIVE, MULTI_STEP, TEMPORAL = "SIMPLE", "COMPARATIVE", "MULTI_STEP", "TEMPORAL"
TYPES = (SIMPLE, COMPARATIVE, MULTI_STEP, TEMPORAL)

# --- cues -----------------------------------------------------------------------------------------

_COMPARATIVE_CUE = re.compile(
    r"\b(compar(?:e|ed|es|ing|ison)|contrast|versus|vs\.?|difference(?:s)? between|differ(?:s|ed)?\b|"
    r"(?:higher|lower|more|less|larger|smaller|bigger|better|worse|greater)\b[^?]*,\s*[^,?]+\bor\b)",
    re.I,
)
_TEMPORAL_CUE = re.compile(
    r"\b(chang(?:e|ed|es|ing)|evolv(?:e|ed|ing)|over time|trends?|year[- ]over[- ]year|grow(?:n|th)|grew|"
    r"fluctuat(?:e|ed|ing|ion)s?|before and after|across (?:the )?(?:quarters|years|periods))\b",
    re.I,
)
# Explicit words only: "how do I ..." is answered well by one search, and asking the model to
# invent the steps would cost a call on every such question.
_PROCEDURE_CUE = re.compile(r"\b(step[- ]by[- ]step|steps\b|procedure|protocol|process for|walk me through)", re.I)
# "compared to previous quarters" compares a period with earlier ones: change over time.
_RELATIVE_PERIOD = (
    r"\b(?:compar\w*|vs\.?|versus|relative|against|stack up)\b[^?.;]{{0,40}}?\b(?:previous|prior|preceding|earlier|"
    r"last|past|other)\s+(?:\w+\s+)?(?:quarters?|years?|periods?|months?|ones|reports?|filings?{forms})\b"
    r"|\b(?:compar\w*|differ\w*)\s+(?:across|over|between)\s+(?:the\s+|these\s+)?(?:quarters|years|periods|reports)\b"
    r"|\bfrom\s+(quarter|year|period|month)\s+to\s+\1\b"
)


@lru_cache(maxsize=8)
def _relative_period(profiles: tuple[DocumentProfile, ...]) -> re.Pattern:
    """The pattern with the domain profiles' names of documents ("previous 10-Qs")."""
    return re.compile(_RELATIVE_PERIOD.format(forms="".join(f"|{p.form_words}" for p in profiles)), re.I)

# --- periods --------------------------------------------------------------------------------------

_YEAR = rf"{YEAR_DIGITS}"
_PERIOD = re.compile(
    rf"\b(?:(?:{QUARTER_SHORT}|{QUARTER_ORDINAL} quarter|{HALF_SHORT}|{MONTH_NAME}(?: \d{{1,2}},?)?)(?: of)?\s+{FISCAL_YEAR}?{_YEAR}"
    rf"|{FISCAL_YEAR}{_YEAR}|{_YEAR}\s?{QUARTER_SHORT}|{QUARTER_SHORT}|{_YEAR}(?:\s?[-/]\s?\d\d)?)\b",
    re.I,
)

# --- words that bound the things being compared --------------------------------------------------

_BOUNDARY = set(
    "of for in on at by from to with between among during over under about across within into per than as "
    "what which who whom how when where why is are was were do does did has have had can could will would "
    "should compare compared comparing contrast versus vs difference differences differ differs "
    "and or the a an their its this that these those".split()
)
_DETERMINERS = {"the", "a", "an"}
_CONJUNCTIONS = {"and", "or", "vs", "vs.", "versus", "against", ","}
_MAX_ITEM_WORDS = 4
_TOKEN = re.compile(r"[\w][\w.&'’%$-]*[\w%]|[\w]|,|\?|;|:|\.")
_ASKS = re.compile(r"^(?:if so,?\s*|and\s+|also,?\s*)?(?:what|how|which|who|whom|whose|when|where|why|is|are|was|were|"
                   r"does|do|did|has|have|had|can|could|will|would|should)\b", re.I)
_PRONOUNS = re.compile(r"\b(it|its|they|them|their|this|that|these|those)\b", re.I)
_QUESTION_START = re.compile(
    r"^(?:please\s+)?(?:(?:compare|contrast)\s+|(?:what|how)\s+(?:is|are|was|were|has|have|did|does|do)\s+"
    r"(?:the\s+)?(?:main\s+|key\s+)?(?:differences?\s+(?:between|in)\s+)?|(?:what|which|who)\s+(?:is|are|was|were|"
    r"had|has|have|did|does)\s+(?:the\s+|a\s+)?(?:higher|lower|more|less|larger|smaller|bigger|better|worse|"
    r"greater)\b\s*|(?:the\s+)?differences?\s+between\s+)",
    re.I,
)
_TEMPORAL_WORDS = re.compile(
    r"\b(?:how\s+(?:has|have|did|does|do)|what\s+(?:has|have)?\s*chang(?:e|ed|es)(?:\s+in)?|chang(?:e|ed|es|ing)|"
    r"evolv(?:e|ed|ing)|over time|trends?(?:\s+in)?|year[- ]over[- ]year|since|before and after|"
    r"from|between|through|to|and|during|in|of|the|period|periods)\b",
    re.I,
)


@dataclass
class Decomposition:
    kind: str  # SIMPLE | COMPARATIVE | MULTI_STEP | TEMPORAL
    sub_queries: list[str]
    source: str  # "rules" | "llm" | "fallback"
    reason: str
    error: str | None = None
    completion: Completion | None = None  # the LLM call, when one was made
    prompt: str = ""  # what the model was asked, when it was

    @property
    def is_complex(self) -> bool:
        return len(self.sub_queries) > 1

    def trace(self) -> dict:
        return {
            "classification": self.kind, "source": self.source, "reason": self.reason, "error": self.error,
            "sub_queries": self.sub_queries,
            "prompt": self.prompt or None, "raw_output": self.completion.text if self.completion else None,
            "llm_seconds": self.completion.seconds if self.completion else None,
            "prompt_tokens": self.completion.prompt_tokens if self.completion else None,
        }


# --- rules ----------------------------------------------------------------------------------------

def classify_by_rules(question: str, profiles: tuple[DocumentProfile, ...] = ()) -> tuple[str, str]:
    """(type, why) by cue words alone. A question with no cue is SIMPLE; whether the parts of a
    complex one can be found is `decompose_by_rules`'s call."""
    if _relative_period(profiles).search(question):
        return TEMPORAL, "compared with earlier periods"
    if _COMPARATIVE_CUE.search(question):
        return COMPARATIVE, "comparison words"
    if _TEMPORAL_CUE.search(question) or _SPAN.search(question):
        return TEMPORAL, "change over time"
    if len(_question_parts(question)) > 1:
        return MULTI_STEP, "several questions in one"
    if _PROCEDURE_CUE.search(question):
        return MULTI_STEP, "a procedure"
    if _coordination(question, periods_only=True):
        return TEMPORAL, "several periods"
    return SIMPLE, "no comparison, change over time or several parts"


def decompose_by_rules(question: str, kind: str, limit: int) -> tuple[str, list[str], str]:
    """(type, sub-queries, why); no sub-queries when the rules are unsure (a cue, but no parts
    found). A comparison whose sides cannot be told apart but that asks two questions in one
    ("What was X, and how does this compare to Y?") is split into its questions."""
    if kind == COMPARATIVE:
        coordination = _compared_with(question) or _coordination(question) or _differ_from(question)
        if coordination is not None:
            what = "period" if coordination.periods else "thing compared"
            return COMPARATIVE, coordination.queries(limit), f"one search per {what}"
        if len(_question_parts(question)) > 1:
            kind = MULTI_STEP
        else:
            return COMPARATIVE, [], "comparison words, but the things compared were not found"
    if kind == TEMPORAL:
        queries = _temporal(question, limit)
        if queries:
            return TEMPORAL, queries, "one search per period"
        return TEMPORAL, [question], "no two periods named: one search covers the change"
    if kind == MULTI_STEP:
        parts = _question_parts(question)
        if len(parts) > 1:
            return MULTI_STEP, _carry_subject(parts)[:limit], "one search per part of the question"
        return MULTI_STEP, [], "a procedure, but its steps are not in the question"
    return SIMPLE, [question], "simple question"


@dataclass
class _Coordination:
    """Things joined by and / or / vs / commas inside a question: tokens[first..last] is the
    joined span, each item takes its place in one sub-query."""
    tokens: list[str]
    first: int
    last: int
    items: list[str]

    @property
    def periods(self) -> bool:
        return all(_PERIOD.fullmatch(item) for item in self.items)

    def queries(self, limit: int) -> list[str]:
        before, after = self.tokens[: self.first], self.tokens[self.last + 1:]
        return _unique([_tidy(_QUESTION_START.sub("", _join(before + [item] + after))) for item in self.items])[:limit]


_SPAN = re.compile(rf"\b(?:(?:from|between)\s+(?:{_PERIOD.pattern})\s+(?:to|and|through)|since)\s+(?:{_PERIOD.pattern})", re.I)
_WH_START = re.compile(r"^\s*(?:(?:what|which|how|who|when|where)\s+(?:is|are|was|were|has|have|had|did|does|do)|"
                       r"(?:is|are|was|were|has|have|did|does)\s+there(?:\s+been)?(?:\s+any)?)\b", re.I)
_SYNONYMS_OF_VS = re.compile(r"\s+(?:compared? (?:to|with)|relative to|as opposed to|against)\s+", re.I)


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _strip_determiners(text: str) -> str:
    words = text.split()
    while words and words[0].lower() in _DETERMINERS:
        words = words[1:]
    return " ".join(words)


def _periods(text: str) -> list[str]:
    return [m.group(0) for m in _PERIOD.finditer(text)]


def _coordination(question: str, periods_only: bool = False) -> _Coordination | None:
    """The things joined by and / or / vs / commas. Items are short runs of words bounded by
    prepositions, question words and punctuation. When a question coordinates more than once,
    names (capitalised or with digits) win over plain words."""
    tokens = _tokens(_SYNONYMS_OF_VS.sub(" vs ", question))
    found: list[_Coordination] = []
    i = 0
    while i < len(tokens):
        if tokens[i].lower() in _CONJUNCTIONS - {","} or (tokens[i] == "," and _is_list_comma(tokens, i)):
            chain = _chain_at(tokens, i)
            if chain is not None:
                found.append(chain)
                i = chain.last + 1
                continue
        i += 1
    if periods_only:
        found = [c for c in found if c.periods]
    named = [c for c in found if all(_is_name(x) for x in c.items)]
    return (named or found or [None])[0]


def _is_list_comma(tokens: list[str], i: int) -> bool:
    """A comma inside a list "A, B and C", not one that ends a clause."""
    return any(t.lower() in ("and", "or") for t in tokens[i + 1:i + 2 + _MAX_ITEM_WORDS])


def _is_name(item: str) -> bool:
    return any(w[:1].isupper() or any(ch.isdigit() for ch in w) for w in item.split())


def _chain_at(tokens: list[str], i: int) -> _Coordination | None:
    """The coordination around the conjunction at token i. The chain goes on while the next
    item is of the same kind (names with names, periods with periods, plain words with plain
    words): "in FY 2023 vs FY 2022, if we exclude ..." joins the two years only."""
    left = _item_back(tokens, i - 1)
    if left is None:
        return None
    items = [_strip_determiners(" ".join(tokens[left:i]))]
    j = i
    while j < len(tokens) and tokens[j].lower() in _CONJUNCTIONS and (tokens[j] != "," or _is_list_comma(tokens, j)):
        k = j + 1
        if tokens[j] == "," and k < len(tokens) and tokens[k].lower() in ("and", "or"):
            k += 1
        right = _item_forward(tokens, k)
        if right is None:
            break
        item = _strip_determiners(" ".join(tokens[k:right + 1]))
        if _kind(item) != _kind(items[0]):
            break
        items.append(item)
        j = right + 1
    if len(items) < 2 or len({x.lower() for x in items}) < len(items):
        return None  # "Johnson and Johnson" is one name
    if not _is_name(items[0]) and tokens[i].lower() in ("and", "or", ",") and not _after_cue(tokens, left):
        return None  # "research and development", "cash and cash equivalents": one thing
    return _Coordination(tokens, left, j - 1, items)


def _kind(item: str) -> tuple[bool, bool]:
    return _is_name(item), bool(_PERIOD.fullmatch(item))


def _after_cue(tokens: list[str], start: int) -> bool:
    """Plain words joined by "and" are compared only right after "compare" or "between"."""
    k = start - 1
    while k >= 0 and tokens[k].lower() in _DETERMINERS:
        k -= 1
    return k >= 0 and tokens[k].lower() in {"compare", "comparing", "contrast", "between"}


def _item_back(tokens: list[str], end: int) -> int | None:
    """First token of the item that ends at `end`."""
    start = end
    while start >= 0 and end - start < _MAX_ITEM_WORDS and _item_word(tokens[start]) and _same_kind(tokens[start], tokens[end]):
        start -= 1
    return start + 1 if start < end else None


def _item_forward(tokens: list[str], begin: int) -> int | None:
    """Last token of the item that starts at `begin` (after any determiners)."""
    k = begin
    while k < len(tokens) and tokens[k].lower() in _DETERMINERS:
        k += 1
    end = k
    while end < len(tokens) and end - k < _MAX_ITEM_WORDS and _item_word(tokens[end]) and _same_kind(tokens[end], tokens[k]):
        end += 1
    return end - 1 if end > k else None


def _item_word(token: str) -> bool:
    return token.lower() not in _BOUNDARY and token not in {",", "?", ";", ":", "."}


def _same_kind(token: str, anchor: str) -> bool:
    """A name runs over capitalised words and figures ("Best Buy", "Q3 2023"); a plain item over
    lower-case words ("net income")."""
    def named(t: str) -> bool:
        return t[:1].isupper() or any(ch.isdigit() for ch in t)
    return named(token) == named(anchor)


def _compared_with(question: str) -> _Coordination | None:
    """ "(how does) A compare with / to B", "compare A with B": two phrases, each searched with
    whatever the question says before them ("In the latest 10-Q, ...")."""
    text = re.sub(r"\bwith (?:respect|regard) to\b", "regarding", question.strip())
    m = (re.match(r"^(?P<pre>.*?)\b(?:how|in what ways?)\s+(?:does|do|did|has|have|would)\s+(?P<a>.+?)\s+"
                  r"compare[sd]?\s+(?:to|with|against)\s+(?P<b>.+?)[?.!]*$", text, re.I)
         or re.match(r"^(?P<pre>.*?)\b(?:compare|contrast)\s+(?P<a>.+?)\s+(?:with|to|against)\s+(?P<b>.+?)[?.!]*$",
                     text, re.I)
         or re.match(r"^(?P<pre>.*?)\bhow\s+(?P<a>.+?)\s+compares\s+(?:to|with|against)\s+(?P<b>.+?)[?.!]*$",
                     text, re.I))
    if not m:
        return None
    pre = re.sub(r"^(?:examine|analy[sz]e|explain|describe|tell me|show)\s*$", "", m.group("pre").strip(), flags=re.I)
    a, b = _tidy(m.group("a")), _tidy(m.group("b"))
    if _PRONOUNS.fullmatch(a) or "," in pre and re.search(r"\b(?:and|but)$", pre):
        return None  # "..., and how does this compare to Y": what "this" is, is another question
    # "Boeing's tax rate in FY2022 compare to FY2021": the period takes the first side's words.
    if _PERIOD.fullmatch(b) and _PERIOD.search(a):
        b = _PERIOD.sub(b, a, count=1)
    # "Compare Apple with Microsoft on margins": the topic after the second name is shared.
    shared = re.match(r"^(?P<b>.+?)\s+(?P<topic>(?:on|in terms of|regarding|for|by|during|in)\s+.+)$", b)
    if shared and _is_name(a) and len(a.split()) <= _MAX_ITEM_WORDS and len(shared.group("b").split()) <= _MAX_ITEM_WORDS:
        a, b = f"{a} {shared.group('topic')}", b
    return _Coordination(["{}"], 0, 0, [_tidy(f"{pre} {x}") for x in (a, b)])


def _differ_from(question: str) -> _Coordination | None:
    """ "How does X differ from Y (in Z)?"; an elliptic Y ("Microsoft's") is completed from X."""
    m = re.search(r"(?:how|in what ways?)\s+(?:does|do|did)\s+(?P<a>.+?)\s+differ\s+from\s+(?P<b>.+?)"
                  r"(?:\s+(?:in|on|regarding|with respect to)\s+(?P<topic>[^?]+))?\s*\??$", question, re.I)
    if not m:
        return None
    a, b, topic = m.group("a").split(), m.group("b").split(), m.group("topic")
    if all(w.lower() in _BOUNDARY or _PRONOUNS.fullmatch(w) for w in a) or re.fullmatch(r"(\w+) to \1", m.group("b")):
        return None  # "how does it differ from period to period" names nothing to compare
    if len(b) == 1 < len(a):
        b = b + a[1:]
    items = [" ".join(x + ([topic] if topic else [])) for x in (a, b)]
    return _Coordination(["{}"], 0, 0, items)


def _temporal(question: str, limit: int) -> list[str]:
    periods = _unique(_periods(question))
    topic = _tidy(_TEMPORAL_WORDS.sub(" ", _PERIOD.sub(" ", _WH_START.sub("", _first_sentence(question)))))
    if not topic:
        return []
    if len(periods) >= 2:
        return _unique([f"{topic} {p}" for p in periods])[:limit]
    since = re.search(rf"\bsince\s+({_PERIOD.pattern})", question, re.I)
    if since:
        return [f"{topic} {since.group(1)}", topic]
    return []


def _first_sentence(question: str) -> str:
    """The question proper, without the instructions that follow it or asides in brackets
    ("... in FY2017 (in percent)? Round to one decimal place.")."""
    first = re.split(r"(?<=[?.!])\s+", question.strip(), maxsplit=1)[0]
    return re.sub(r"\([^)]*\)", " ", first)


def _question_parts(question: str) -> list[str]:
    """Several questions in one: split at question marks, semicolons, ", and what/how ...",
    "and then". Only parts that ask something count: "Answer in USD
    millions." or "List this for each period." tell how to answer, and need no search of their own."""
    text = re.sub(r"^\s*first(?:ly)?,?\s+", "", question.strip(), flags=re.I)
    pieces = re.split(
        r"\?\s+(?=\S)|;\s+|,?\s+and then\s+|,\s+(?:and|but)\s+(?=(?:what|how|which|who|when|where|why|"
        r"is|are|was|were|does|do|did|has|have|can)\b)",
        text, flags=re.I,
    )
    return [p for p in (_tidy(p) for p in pieces) if len(p.split()) >= 3 and _ASKS.match(p)]


def _carry_subject(parts: list[str]) -> list[str]:
    """Later parts that say "it" or "they", or share no word with the first part ("Please list
    this for each period"), get the first part's content words, so each search stands alone."""
    words = [w for w in re.findall(r"[\w'’&.-]+", parts[0]) if w.lower() not in _BOUNDARY and not _PRONOUNS.fullmatch(w)]
    first = set(tokenize(parts[0]))
    out = [parts[0]]
    for part in parts[1:]:
        needs = _PRONOUNS.search(part) or not (set(tokenize(part)) & first)
        out.append(f"{part} ({' '.join(words)})" if needs and words else part)
    return _unique(out)


def _join(tokens: list[str]) -> str:
    return re.sub(r"\s+([,?;:.])", r"\1", " ".join(tokens))


def _tidy(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return text.strip(" ,;:?.-–").strip()


def _unique(items: list[str]) -> list[str]:
    seen, out = set(), []
    for item in items:
        key = item.lower()
        if item and key not in seen:
            seen.add(key)
            out.append(item)
    return out


def parse_sub_queries(text: str, limit: int) -> list[str]:
    """The parsing of a numbered (or bulleted) list of sub-queries."""
    items = re.findall(r"^\s*(?:\d+[.)]|[-*•])\s*(.+?)\s*$", text or "", re.M)
    return _unique([_tidy(i) for i in items])[:limit]


# --- the model, when the rules are unsure ---------------------------------------------------------

PROMPT = """Classify the question and split it into focused search queries.

Types:
- SIMPLE: one fact or concept. One query: the question itself.
- COMPARATIVE: compares things. {comparative} queries, one per thing compared.
- MULTI_STEP: a procedure or several parts. {multi_step} queries, one per step or part.
- TEMPORAL: change over time. {temporal} queries, one per period (before, after).

Each query must stand alone (repeat the subject) and use words from the question.

Question: {question}

Answer with JSON: {{"type": "...", "sub_queries": ["...", "..."]}}"""

SCHEMA = {
    "type": "object",
    "properties": {
        "type": {"type": "string", "enum": list(TYPES)},
        "sub_queries": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 4},
    },
    "required": ["type", "sub_queries"],
}


def decompose_with_llm(question: str, llm: ChatLLM, settings: Settings) -> Decomposition:
    s = settings
    prompt = PROMPT.format(
        question=question, comparative=s.decompose_count_comparative, multi_step=s.decompose_count_multi_step,
        temporal=s.decompose_count_temporal,
    )
    try:
        value, completion = llm.complete_json([{"role": "user", "content": prompt}], SCHEMA,
                                              max_tokens=s.decomposition_max_tokens)
    except LLMError as exc:  # classification failure -> SIMPLE
        return Decomposition(SIMPLE, [question], "fallback", "the model could not classify the question",
                             error=str(exc), prompt=prompt)
    kind = str(value.get("type", "")).upper()
    if kind not in TYPES:
        return Decomposition(SIMPLE, [question], "fallback",
                             f"the model gave an unknown type {kind!r}", error="unknown type", completion=completion, prompt=prompt)
    raw = value.get("sub_queries")
    if isinstance(raw, str):
        raw = parse_sub_queries(raw, s.max_sub_queries) or [raw]
    queries = _unique([_tidy(q) for q in raw if isinstance(q, str)])[: s.max_sub_queries] if isinstance(raw, list) else []
    if kind == SIMPLE:
        return Decomposition(SIMPLE, [question], "llm", "the model judged it simple", completion=completion, prompt=prompt)
    if len(queries) < 2:  # decomposition failure -> the single question
        return Decomposition(kind, [question], "fallback", "the model's sub-queries were unusable",
                             error="fewer than two sub-queries", completion=completion, prompt=prompt)
    return Decomposition(kind, queries, "llm", f"split by the model ({len(queries)} parts)", completion=completion, prompt=prompt)


def decompose(question: str, settings: Settings, llm: ChatLLM | None = None) -> Decomposition:
    """Rules first; the model only when a cue is present and the rules cannot find the parts
    (and `decomposition_llm` allows it, and a model is given)."""
    if not settings.query_decomposition:
        return Decomposition(SIMPLE, [question], "rules", "decomposition is switched off")
    try:
        kind, why = classify_by_rules(question, active_profiles(settings))
        kind, queries, how = decompose_by_rules(question, kind, settings.max_sub_queries)
    except Exception as exc:  # a rule bug must never stop the answer: classification failure
        log.exception("Rule-based decomposition failed")
        return Decomposition(SIMPLE, [question], "fallback", "the rules failed", error=f"{type(exc).__name__}: {exc}")
    if queries:
        kind = kind if len(queries) > 1 or kind in (SIMPLE, TEMPORAL) else SIMPLE
        return Decomposition(kind, queries, "rules", f"{why}: {how}")
    if llm is not None and settings.decomposition_llm:
        return decompose_with_llm(question, llm, settings)
    return Decomposition(kind, [question], "fallback", f"{why}: {how}; searching the whole question")


# --- retrieval per sub-query ----------------------------------------------------------------------

@dataclass
class SubQueryResult:
    query: str
    result: RetrievalResult | None = None
    error: str | None = None
    routing: dict | None = None  # the router's decision for this sub-query, for the trace
    fell_back: bool = False  # the routed search was weak, so every document was searched

    def trace(self) -> dict:
        """The search as the Agent Trace page shows it: its routing, and its first 30 candidates
        with their rank in each retriever."""
        r = self.result
        return {"query": self.query, "search_words": (r.also or None) if r else None, "error": self.error,
                "routing": self.routing, "fell_back_to_all": self.fell_back,
                "semantic_weight": r.semantic_weight if r else None, "timings_ms": r.timings_ms if r else {},
                "candidates": [_candidate_row(c) for c in r.candidates[:30]] if r else []}


def _candidate_row(chunk: RetrievedChunk) -> dict:
    return {"chunk_id": chunk.chunk_id, "filename": chunk.filename, "page": chunk.page, "sheet": chunk.sheet,
            "bm25_rank": chunk.bm25_rank, "vector_rank": chunk.vector_rank, "fused_score": chunk.score,
            "similarity": chunk.vector_score, "section": chunk.section, "used": chunk.used}


Search = Callable[[str], SubQueryResult]


def search_all(queries: list[str], search: Search) -> list[SubQueryResult]:
    """Every sub-query searched concurrently; a failing one is reported, the others go on."""
    def guarded(query: str) -> SubQueryResult:
        try:
            return search(query)
        except Exception as exc:  # continue with the successful sub-queries
            log.exception("Search for sub-query %r failed", query)
            return SubQueryResult(query, error=f"{type(exc).__name__}: {exc}")

    if len(queries) == 1:
        return [guarded(queries[0])]
    with ThreadPoolExecutor(max_workers=len(queries), thread_name_prefix="subquery") as pool:
        return list(pool.map(guarded, queries))


def merge(results: list[SubQueryResult], top_k: int) -> tuple[list[RetrievedChunk], dict]:
    """Global dedup (each chunk once, its best-scored copy), then top_k chunks taken in turn from
    each sub-query's ranking, so every part of the question gets evidence: fused scores of different
    queries are not comparable enough to rank them as one. (Passage re-ranking, when on, has already
    ordered each sub-query's own hits: core/retrieval/evidence.py, `passage_rerank`.)"""
    best: dict[str, RetrievedChunk] = {}
    rankings: list[list[str]] = []
    for r in results:
        if r.result is None:
            continue
        ranking = []
        for chunk in r.result.hits:
            if chunk.expanded_from is not None:
                continue
            ranking.append(chunk.chunk_id)
            if chunk.chunk_id not in best or best[chunk.chunk_id].score < chunk.score:
                best[chunk.chunk_id] = chunk
        rankings.append(ranking)
    before = sum(len(r) for r in rankings)
    chosen: list[str] = []
    depth = 0
    while len(chosen) < top_k and any(depth < len(r) for r in rankings):
        for ranking in rankings:
            if depth < len(ranking) and ranking[depth] not in chosen and len(chosen) < top_k:
                chosen.append(ranking[depth])
        depth += 1
    stats = {"before_dedup": before, "after_dedup": len(best), "selected": len(chosen)}
    return [best[c] for c in chosen], stats


# --- self-reflection ------------------------------------------------------------------------------

@dataclass
class Reflection:
    sufficient: bool
    reason: str
    queries: list[str] = field(default_factory=list)  # what to search next when insufficient
    source: str = "rules"  # "rules" | "llm" | "fallback"

    def trace(self) -> dict:
        return {"sufficient": self.sufficient, "source": self.source, "queries": self.queries}


REFLECTION_PROMPT = """Question: {question}

Answer: {answer}

Is this answer sufficient and complete for the question? If not, give one search query that
would find what is missing. Answer with JSON: {{"sufficient": true or false, "refined_query": "..."}}"""

REFLECTION_SCHEMA = {
    "type": "object",
    "properties": {"sufficient": {"type": "boolean"}, "refined_query": {"type": "string"}},
    "required": ["sufficient", "refined_query"],
}


def uncovered(answer: str, sub_queries: list[str]) -> list[str]:
    """Sub-queries whose distinctive words (those no other sub-query has: the thing compared,
    the period) do not appear in the answer."""
    if len(sub_queries) < 2:
        return []
    words = [set(tokenize(q)) for q in sub_queries]
    answer_words = set(tokenize(answer))
    missing = []
    for i, query in enumerate(sub_queries):
        own = words[i] - set().union(*(w for j, w in enumerate(words) if j != i))
        if own and not own & answer_words:
            missing.append(query)
    return missing


def reflect(
    question: str, sub_queries: list[str], answer: str, *, is_valid: bool, is_no_information: bool,
    unsupported: list[str], settings: Settings, llm: ChatLLM | None = None,
) -> Reflection:
    """Is the answer sufficient? Rules first: unsupported figures or names ask for a search for
    them; a part of a decomposed question the answer never mentions asks for that part. The
    model is asked only when `reflection_llm` is on and the rules found nothing."""
    if not is_valid:
        return Reflection(True, "no usable answer to refine (the failure is reported instead)")
    if unsupported:
        return Reflection(False, "the answer states things its sources do not",
                          [question, " ".join(unsupported[:6])])
    missing = [] if is_no_information else uncovered(answer, sub_queries)
    if missing:
        return Reflection(False, "the answer does not address: " + "; ".join(missing),
                          _unique(missing + [question])[: settings.max_sub_queries])
    if llm is None or not settings.reflection_llm or is_no_information:
        return Reflection(True, "grounded, and every part of the question is addressed")
    prompt = REFLECTION_PROMPT.format(question=question, answer=answer)
    try:
        value, _ = llm.complete_json([{"role": "user", "content": prompt}], REFLECTION_SCHEMA,
                                     max_tokens=settings.decomposition_max_tokens)
    except LLMError as exc:  # reflection failure -> sufficient, no retry
        return Reflection(True, f"reflection failed ({exc}): kept the answer", source="fallback")
    refined = _tidy(str(value.get("refined_query") or ""))
    if value.get("sufficient") is False and refined:
        return Reflection(False, "the model judged the answer insufficient", [question, refined], "llm")
    return Reflection(True, "the model judged the answer sufficient", source="llm")


def improves(old_gaps: tuple[int, int], new_gaps: tuple[int, int], new_valid: bool, source: str) -> bool:
    """Whether a refined answer replaces the one before: it must be valid and leave fewer gaps
    (unsupported claims, then unaddressed parts); when the model judged the first answer
    insufficient, no more gaps is enough."""
    if not new_valid:
        return False
    return new_gaps < old_gaps or (source == "llm" and new_gaps <= old_gaps)


def synthesis_question(question: str, sub_queries: list[str]) -> str:
    """What the one synthesis call is asked: the question, and each part it must address."""
    if len(sub_queries) < 2:
        return question
    parts = "\n".join(f"{i}. {q}" for i, q in enumerate(sub_queries, start=1))
    return f"{question}\nAddress each part:\n{parts}"
