"""Constraint analysis: what the prompt explicitly demands of the agent.

Pure pattern matching over the prompt, no LLM: "use separate tool searches for each topic",
"open_citation for at least two", "quote one exact SQL statement", "the newest dated document wins",
"with sections Reindex, Delete and Retry", "explicitly say 'Insufficient documentation'".
A prompt that states any of these is answered in agent mode when the mode is "auto".
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

DEFAULT_INSUFFICIENCY_PHRASE = "Insufficient documentation"
NEWEST_DATED = "newest_dated"

_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "a couple of": 2, "several": 2, "multiple": 2,
}
_N = r"(\d{1,2}|" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + r")"
_SEPARATE = r"(?:separate|different|distinct|independent|individual)"

_SEARCH_COUNT = [
    re.compile(rf"\b(?:at least|minimum of|no fewer than|min\.?)\s+{_N}\s+(?:{_SEPARATE}\s+)?(?:tool\s+)?"
               r"(?:searches|search(?:_docs)? calls|tool calls|queries|lookups)\b", re.I),
    re.compile(rf"\b{_N}\s+{_SEPARATE}\s+(?:tool\s+)?(?:searches|search(?:_docs)? calls|tool calls|queries|lookups)\b", re.I),
    re.compile(rf"\b(?:use|do|run|perform|make|with)\s+{_N}\s+(?:tool\s+)?(?:searches|search(?:_docs)? calls|queries)\b", re.I),
]
_SEPARATE_SEARCHES = re.compile(
    rf"\b{_SEPARATE}\s+(?:tool\s+)?(?:searches|search(?:_docs)? calls|queries)\b|\bsearch\s+(?:for\s+)?each\b", re.I)
_EACH = re.compile(r"\b(?:for|per)\s+(?:each|every)\s+(?:topic|part|section|item|subject|area|question)\b", re.I)

_OPEN_COUNT = [
    re.compile(rf"\bopen_citation\s+(?:for|on|to)?\s*(?:at least\s+)?{_N}\b", re.I),
    re.compile(rf"\bopen\s+(?:at least\s+)?{_N}\s+(?:\w+\s+)?(?:citation|source|chunk|result|document|passage)s?\b", re.I),
    re.compile(rf"\bcite\s+(?:at least\s+)?{_N}\s+(?:\w+\s+)?(?:citation|source|document|passage)s?\b", re.I),
    re.compile(rf"\bat least\s+{_N}\s+(?:opened\s+)?citations?\s+opened\b", re.I),
]
_OPEN_ANY = re.compile(r"\bopen_citation\b|\b(?:read|open)\s+(?:the\s+)?full\s+text\b", re.I)

_QUOTE_WHAT = re.compile(
    r"\bquote\s+(?:one\s+|an?\s+|the\s+)?(?:exact|verbatim)\s+([\w][\w\s-]{0,40}?)"
    r"(?=\s+(?:from|for|that|which|used|in|of|as)\b|[.,;:!?)]|$)", re.I)
_EXACT_WHAT = re.compile(r"\bexact\s+(line|lines|wording|text|sentence|command|statement|sql|query)\b", re.I)
_QUOTE_ANY = re.compile(r"\bverbatim\b|\bword[- ]for[- ]word\b|\bexact\s+quot\w*|\bquote\w*\s+(?:\w+\s+){0,3}exactly\b", re.I)

_CONFLICT = re.compile(
    r"\bnewest[- ]dated\b|\bresolve\s+(?:any\s+)?(?:conflicts|contradictions|discrepancies)\b"
    r"|\b(?:if|when|where)\s+(?:the\s+)?(?:documents|sources|files|versions)\s+(?:conflict|disagree|contradict)"
    r"|\b(?:prefer|use|trust|follow)\s+the\s+(?:newest|latest|most recent)\s+(?:dated\s+)?(?:document|version|source|file)", re.I)
_NEWEST = re.compile(r"\b(?:newest|latest|most recent)\b", re.I)

_SECTIONS = re.compile(
    r"\b(?:with|include|including|containing|using|has|have|in)\s+(?:the\s+)?(?:following\s+|these\s+)?"
    r"(?:sections|headings|headers|parts)\s*(?:called\s+|named\s+|for\s+)?[:\-]?\s*(.+?)(?:[.;\n]|$)", re.I)
_TOPIC_LIST = re.compile(
    r"\b(?:topics?\s*:|covering:?|(?:for|on|about) each of(?: the following| these)?:?)\s*(.+?)(?:[.;\n]|$)", re.I)
_SEARCHES_FOR = re.compile(
    rf"\b{_SEPARATE}\s+(?:tool\s+)?(?:searches|queries)\s+(?:for|on|about)\s+(?!each\b)(.+?)(?:[.;\n]|$)", re.I)
_ENUMERATED = re.compile(r"(?:^|\s)\(?(\d)[).]\s+(.+?)(?=,?\s+\(?\d[).]\s|[.,;\n]|$)")
_COLON_LIST = re.compile(r":\s*([^:.;\n]+?(?:,[^:.;\n]+)+)(?:[.;\n]|$)")

_PHRASE = re.compile(
    r"\b(?:say|state|write|mark|answer|respond\s+with|reply\s+with|use\s+the\s+phrase)\s+(?:explicitly\s+)?"
    r"[\"'“‘]([^\"'”’]{3,60})[\"'”’]", re.I)
_DISCLOSE = re.compile(
    r"\binsufficient\s+documentation\b"
    r"|\b(?:say|state|disclose|flag|note|mention|list|report)\s+(?:explicitly\s+|clearly\s+)?"
    r"(?:what|anything|which\s+parts?|whatever)\s+(?:is|are)\s+(?:missing|not\s+(?:covered|documented|found|in))", re.I)
_INSUFFICIENT_WORDS = re.compile(r"insufficient|not (?:found|documented|covered)|missing|unknown|no information", re.I)


@dataclass
class ConstraintAnalysis:
    min_searches: int = 1
    required_search_topics: list[str] = field(default_factory=list)
    min_open_citations: int = 0
    requires_exact_quote: bool = False
    exact_quote_indicators: list[str] = field(default_factory=list)
    requires_conflict_resolution: bool = False
    conflict_resolution_rule: str | None = None
    required_sections: list[str] = field(default_factory=list)
    requires_insufficiency_disclosure: bool = False
    insufficiency_phrase: str = DEFAULT_INSUFFICIENCY_PHRASE
    matched: list[str] = field(default_factory=list)  # which patterns fired, for the trace

    @property
    def explicit(self) -> bool:
        """The prompt states requirements beyond "answer this": auto mode picks the agent."""
        return bool(self.min_searches > 1 or self.required_search_topics or self.min_open_citations
                    or self.requires_exact_quote or self.requires_conflict_resolution or self.required_sections
                    or self.requires_insufficiency_disclosure)

    def requirements(self) -> list[str]:
        """The REQUIREMENTS lines of the tool-loop prompt."""
        lines = []
        if self.min_searches > 1:
            lines.append(f"Perform at least {self.min_searches} separate searches")
        if self.required_search_topics:
            lines.append("Search separately for each topic: " + "; ".join(self.required_search_topics))
        if self.min_open_citations:
            lines.append(f"Open at least {self.min_open_citations} citation(s)")
        if self.requires_exact_quote:
            what = ", ".join(self.exact_quote_indicators) or "the requested text"
            lines.append(f'Quote exact text for: {what} (copy it verbatim from an opened citation, in "quotes")')
        if self.requires_conflict_resolution:
            lines.append("Where documents conflict, follow the newest dated document and cite it"
                         if self.conflict_resolution_rule == NEWEST_DATED else
                         "Where documents conflict, say so and cite both")
        if self.required_sections:
            lines.append("Include these sections: " + "; ".join(self.required_sections))
        if self.requires_insufficiency_disclosure:
            lines.append(f'Say "{self.insufficiency_phrase}" for anything the documents do not cover')
        return lines

    def to_dict(self) -> dict:
        return asdict(self)


def _count(raw: str) -> int:
    raw = raw.lower()
    return int(raw) if raw.isdigit() else _NUMBER_WORDS[raw]


def _split_list(text: str) -> list[str]:
    """ "Reindex, Delete order and Retry policy" -> three items; quotes and markdown stripped."""
    parts = re.split(r",\s*(?:and\s+|or\s+)?|\s+and\s+|\s*/\s*|\s*\|\s*", text)
    items = [re.sub(r"^[\s\"'“‘`*#]+|[\s\"'”’`*]+$", "", p) for p in parts]
    return [i for i in items if 1 < len(i) <= 60][:8]


def _first_count(patterns: list[re.Pattern[str]], prompt: str) -> int | None:
    counts = [_count(m.group(1)) for p in patterns for m in p.finditer(prompt)]
    return max(counts) if counts else None


def _topics(prompt: str, sections: list[str]) -> list[str]:
    enumerated = [m.group(2).strip() for m in _ENUMERATED.finditer(prompt)]
    if len(enumerated) >= 2:
        return [t for t in enumerated if len(t) <= 60][:8]
    for pattern in (_SEARCHES_FOR, _TOPIC_LIST):
        match = pattern.search(prompt)
        if match and len(_split_list(match.group(1))) >= 2:
            return _split_list(match.group(1))
    if _EACH.search(prompt):
        if sections:
            return list(sections)
        match = _COLON_LIST.search(prompt)
        if match:
            return _split_list(match.group(1))
    return []


def analyze_constraints(prompt: str) -> ConstraintAnalysis:
    text = prompt or ""
    result = ConstraintAnalysis()

    sections_match = _SECTIONS.search(text)
    if sections_match:
        result.required_sections = _split_list(sections_match.group(1))
        result.matched.append("sections")

    searches = _first_count(_SEARCH_COUNT, text)
    separate = bool(_SEPARATE_SEARCHES.search(text) or (_EACH.search(text) and re.search(r"\bsearch", text, re.I)))
    if separate:
        result.required_search_topics = _topics(text, result.required_sections)
    if searches:
        result.min_searches = max(1, searches)
        result.matched.append("search count")
    if separate:
        result.min_searches = max(result.min_searches, len(result.required_search_topics), 2)
        result.matched.append("separate searches")

    opens = _first_count(_OPEN_COUNT, text)
    if opens:
        result.min_open_citations = opens
        result.matched.append("open count")
    elif _OPEN_ANY.search(text):
        result.min_open_citations = 1
        result.matched.append("open citation")

    indicators = [m.group(1).strip() for m in _QUOTE_WHAT.finditer(text)]
    indicators += [m.group(1) for m in _EXACT_WHAT.finditer(text) if not indicators]
    if indicators or _QUOTE_ANY.search(text):
        result.requires_exact_quote = True
        result.exact_quote_indicators = list(dict.fromkeys(i for i in indicators if i))
        result.matched.append("exact quote")

    if _CONFLICT.search(text):
        result.requires_conflict_resolution = True
        result.conflict_resolution_rule = NEWEST_DATED if _NEWEST.search(text) else None
        result.matched.append("conflict resolution")

    phrase = next((m.group(1).strip() for m in _PHRASE.finditer(text) if _INSUFFICIENT_WORDS.search(m.group(1))), None)
    if phrase or _DISCLOSE.search(text):
        result.requires_insufficiency_disclosure = True
        result.insufficiency_phrase = phrase or DEFAULT_INSUFFICIENCY_PHRASE
        result.matched.append("insufficiency disclosure")
    return result
