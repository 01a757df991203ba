"""The validation gate: a FINAL action is accepted only when it meets the
prompt's constraints and is grounded in what the agent opened. Pure functions over the state.

It is the fix for premature finalization: a small model that answers after one search, cites
[5] with two citations open, or writes "pg_reindex" that no document mentions is sent back with
a reprompt message listing what is unmet.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.agents.agent_mode.constraints import NEWEST_DATED, ConstraintAnalysis
from core.agents.agent_mode.grounding import MARKER, cited_markers
from core.agents.agent_mode.state import AgentState
from core.agents.agent_mode.tools import OPEN_CITATION, SEARCH_DOCS
from core.agents.validator import is_no_information, unsupported_claims
from core.store.keyword import tokenize

# Procedures a model likes to invent that are only right if a document says so.
SUSPICIOUS_TERMS = [
    "pg_reindex", "reindex", "vacuum", "vacuum analyze",
    "kubectl", "helm", "docker compose", "systemctl",
    "drop table", "truncate", "alter table",
]

MIN_SEARCHES_UNMET = "MIN_SEARCHES_UNMET"
TOPIC_NOT_SEARCHED = "TOPIC_NOT_SEARCHED"
MIN_OPEN_CITATIONS_UNMET = "MIN_OPEN_CITATIONS_UNMET"
INVALID_CITATION_REFERENCE = "INVALID_CITATION_REFERENCE"
CITATION_MISSING = "CITATION_MISSING"
ANSWER_TOO_SHORT = "ANSWER_TOO_SHORT"
UNGROUNDED_CLAIM = "UNGROUNDED_CLAIM"
EXACT_QUOTE_MISSING = "EXACT_QUOTE_MISSING"
EXACT_QUOTE_NOT_VERBATIM = "EXACT_QUOTE_NOT_VERBATIM"
REQUIRED_SECTIONS_MISSING = "REQUIRED_SECTIONS_MISSING"
CONFLICT_RULE_UNMET = "CONFLICT_RULE_UNMET"
INSUFFICIENCY_DISCLOSURE_MISSING = "INSUFFICIENCY_DISCLOSURE_MISSING"

_QUOTED = [
    re.compile(r"```[\w-]*\n?(.+?)```", re.S), re.compile(r"`([^`\n]+)`"), re.compile(r'"([^"\n]+)"'),
    re.compile(r"“([^”\n]+)”"), re.compile(r"^\s*>\s?(.+)$", re.M),
]


@dataclass
class GateError:
    code: str
    message: str
    fix_tool: str | None = None  # the tool whose calls fix it; None: a rewritten answer does
    section: str = ""  # set when the error means information is missing: what an insufficiency names

    @property
    def needs_tools(self) -> bool:
        return self.fix_tool is not None

    @property
    def missing_information(self) -> bool:
        """True for gaps in what was gathered; false for faults of the answer's text, which a
        rewritten answer no longer has."""
        return bool(self.section)


@dataclass
class GateResult:
    errors: list[GateError] = field(default_factory=list)
    cited: list[int] = field(default_factory=list)
    invalid_citations: list[int] = field(default_factory=list)
    ungrounded: list[str] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not self.errors

    @property
    def needs_tools(self) -> bool:
        return any(e.needs_tools for e in self.errors)

    @property
    def fix_tools(self) -> set[str]:
        return {e.fix_tool for e in self.errors if e.fix_tool}

    @property
    def codes(self) -> list[str]:
        return list(dict.fromkeys(e.code for e in self.errors))


def validate_min_searches(constraints: ConstraintAnalysis, state: AgentState) -> list[GateError]:
    errors = []
    if state.searches_done < constraints.min_searches:
        errors.append(GateError(MIN_SEARCHES_UNMET, f"Required at least {constraints.min_searches} separate "
                                f"searches, but only {state.searches_done} were performed.", fix_tool=SEARCH_DOCS,
                                section="searches"))
    searched = [set(tokenize(q)) for q in state.search_queries]
    for topic in constraints.required_search_topics:
        words = set(tokenize(topic))
        if words and not any(words & query for query in searched):
            errors.append(GateError(TOPIC_NOT_SEARCHED, f"No search covered the topic '{topic}'.", fix_tool=SEARCH_DOCS,
                                    section=topic))
    return errors


def validate_min_open_citations(constraints: ConstraintAnalysis, state: AgentState) -> list[GateError]:
    opened = len(state.opened)
    if opened >= constraints.min_open_citations:
        return []
    return [GateError(MIN_OPEN_CITATIONS_UNMET, f"Required to open at least {constraints.min_open_citations} "
                      f"citation(s), but only {opened} were opened.", fix_tool=OPEN_CITATION,
                      section="opened citations")]


def validate_citation_references(answer: str, state: AgentState) -> tuple[list[int], list[int], list[GateError]]:
    """(cited, invalid, errors): every [N] must be an opened citation."""
    cited = cited_markers(answer)
    invalid = [n for n in cited if not 1 <= n <= len(state.opened)]
    if not invalid:
        return cited, [], []
    if not state.opened:
        message = (f"Citations {', '.join(f'[{n}]' for n in invalid)} refer to nothing: open the results you use "
                   "with open_citation before citing them.")
        return cited, invalid, [GateError(INVALID_CITATION_REFERENCE, message, fix_tool=OPEN_CITATION)]
    message = (f"Citation(s) {', '.join(f'[{n}]' for n in invalid)} do not exist: only {len(state.opened)} "
               f"citation(s) are open, numbered [1] to [{len(state.opened)}].")
    return cited, invalid, [GateError(INVALID_CITATION_REFERENCE, message)]


def says_only_what_is_missing(answer: str, constraints: ConstraintAnalysis, min_answer_chars: int) -> bool:
    rest = re.sub(re.escape(constraints.insufficiency_phrase), " ", MARKER.sub(" ", answer), flags=re.I)
    return is_no_information(answer) or len(" ".join(rest.split())) < min_answer_chars


def validate_answer_length(answer: str, constraints: ConstraintAnalysis, min_answer_chars: int) -> list[GateError]:
    """A few characters are not an answer (a small model once answered with the
    word "open_citation")."""
    disclosed = constraints.insufficiency_phrase.lower() in answer.lower() or is_no_information(answer)
    if disclosed or len(MARKER.sub("", answer).strip()) >= min_answer_chars:
        return []
    return [GateError(ANSWER_TOO_SHORT, "The answer is too short: write the answer itself, from the opened "
                      "citations, or say what the documents do not contain.")]


def validate_citations_present(answer: str, constraints: ConstraintAnalysis, state: AgentState,
                               min_answer_chars: int) -> list[GateError]:
    """An answer states what opened citations say. With nothing opened,
    a substantive answer must first open its sources; an answer that only says the documents lack
    something needs none. (Opened but unmarked is fixed by grounding, not by a reprompt.)"""
    if state.opened or says_only_what_is_missing(answer, constraints, min_answer_chars):
        return []
    return [GateError(CITATION_MISSING, "Nothing was opened: open the search results your answer uses with "
                      "open_citation, then cite them as [1], [2].", fix_tool=OPEN_CITATION)]


def grounding_text(state: AgentState, constraints: ConstraintAnalysis) -> str:
    """What the answer may state: the opened citations (or, with none opened, the chunks the
    search results came from), the fact tools' computed figures, and the user's own words."""
    sources = [c.hit for c in state.opened] or list(state.hits.values())
    parts = [f"{h.chunk.filename}\n{h.chunk.text}" for h in sources]
    return "\n".join(parts + state.evidence + [state.question, constraints.insufficiency_phrase,
                                                *constraints.required_sections])


def validate_grounded_claims(answer: str, state: AgentState, constraints: ConstraintAnalysis) -> tuple[list[str], list[GateError]]:
    """The suspicious terms that no retrieved source mentions, and any number or identifier
    that is not in the opened sources."""
    body = MARKER.sub(" ", answer)
    retrieved = "\n".join([h.chunk.text for h in state.hits.values()] + state.evidence + [state.question]).lower()
    lowered = body.lower()
    ungrounded = [t for t in SUSPICIOUS_TERMS
                  if re.search(rf"(?<![\w-]){re.escape(t)}(?![\w-])", lowered) and t not in retrieved]
    # A longer term covers its shorter part: "vacuum analyze" already reports "vacuum".
    ungrounded = [t for t in ungrounded if not any(t != o and t in o for o in ungrounded)]
    for claim in unsupported_claims(body, grounding_text(state, constraints)):
        if claim.lower() not in {u.lower() for u in ungrounded}:
            ungrounded.append(claim)
    if not ungrounded:
        return [], []
    shown = ", ".join(f"'{u}'" for u in ungrounded[:8])
    return ungrounded, [GateError(UNGROUNDED_CLAIM, f"Ungrounded claims: {shown} do not appear in the opened "
                                  "citations. Remove them or open a citation that states them.")]


def quoted_spans(answer: str, min_chars: int) -> list[str]:
    spans = [m.group(1) for pattern in _QUOTED for m in pattern.finditer(answer)]
    cleaned = [" ".join(s.split()).strip(" .,;:") for s in spans]
    return [s for s in dict.fromkeys(cleaned) if len(s) >= min_chars]


def _flat(text: str) -> str:
    return " ".join(text.split())


def validate_exact_quote_requirement(answer: str, constraints: ConstraintAnalysis, state: AgentState,
                                     insufficiencies: list[dict], min_chars: int) -> list[GateError]:
    """A quote of at least `min_chars` that appears verbatim in an opened citation; a missing
    quote is acceptable only when the answer discloses that the documents lack it."""
    if not constraints.requires_exact_quote:
        return []
    opened = [_flat(c.text) for c in state.opened]
    spans = quoted_spans(answer, min_chars)
    if any(span in text for span in spans for text in opened):
        return []
    what = ", ".join(constraints.exact_quote_indicators) or "the requested text"
    if spans:
        return [GateError(EXACT_QUOTE_NOT_VERBATIM, f'The quoted text "{spans[0][:120]}" does not appear verbatim '
                          "in any opened citation. Copy the exact text from an opened citation.",
                          section=f"exact quote: {what}")]
    if insufficiencies or constraints.insufficiency_phrase.lower() in answer.lower():
        return []
    return [GateError(EXACT_QUOTE_MISSING, f"Quote exact text for: {what}. Copy it verbatim in double quotes from "
                      f"an opened citation, or say \"{constraints.insufficiency_phrase}\" if no document has it.",
                      fix_tool=None if state.opened else OPEN_CITATION, section=f"exact quote: {what}")]


def validate_required_sections(answer: str, constraints: ConstraintAnalysis) -> list[GateError]:
    lowered = answer.lower()
    missing = [s for s in constraints.required_sections if s.lower() not in lowered]
    if not missing:
        return []
    return [GateError(REQUIRED_SECTIONS_MISSING, f"Missing required section(s): {', '.join(missing)}. Add each one; "
                      f"under a section the documents do not cover, say \"{constraints.insufficiency_phrase}\".")]


def validate_conflict_resolution(cited: list[int], constraints: ConstraintAnalysis, state: AgentState) -> list[GateError]:
    """With "the newest dated document wins" and opened documents of different dates, the answer
    must cite the newest one."""
    if not constraints.requires_conflict_resolution or constraints.conflict_resolution_rule != NEWEST_DATED:
        return []
    dated = [c for c in state.opened if c.dated]
    if len({c.dated for c in dated}) < 2 or len({c.hit.chunk.doc_id for c in dated}) < 2:
        return []
    newest = max(c.dated for c in dated)
    winners = [c for c in dated if c.dated == newest]
    if any(c.number in cited for c in winners):
        return []
    first = winners[0]
    return [GateError(CONFLICT_RULE_UNMET, f"The newest dated document wins: cite [{first.number}] "
                      f"({first.hit.chunk.filename}, dated {newest}) for the points where documents differ.")]


def validate_insufficiency_disclosure(answer: str, constraints: ConstraintAnalysis,
                                      insufficiencies: list[dict]) -> list[GateError]:
    if not constraints.requires_insufficiency_disclosure or not insufficiencies:
        return []
    if constraints.insufficiency_phrase.lower() in answer.lower():
        return []
    sections = ", ".join(i.get("section") or i.get("missing", "") for i in insufficiencies)
    return [GateError(INSUFFICIENCY_DISCLOSURE_MISSING, f"You listed missing information ({sections}) but the "
                      f"answer does not say \"{constraints.insufficiency_phrase}\" for it.")]


def validate_agent_state(answer: str, constraints: ConstraintAnalysis, state: AgentState,
                         insufficiencies: list[dict] | None = None, *, min_quote_chars: int,
                         min_answer_chars: int) -> GateResult:
    insufficiencies = insufficiencies or []
    result = GateResult()
    result.errors += validate_min_searches(constraints, state)
    result.errors += validate_min_open_citations(constraints, state)
    result.errors += validate_answer_length(answer, constraints, min_answer_chars)
    result.cited, result.invalid_citations, errors = validate_citation_references(answer, state)
    result.errors += errors
    if not errors:
        result.errors += validate_citations_present(answer, constraints, state, min_answer_chars)
    result.ungrounded, errors = validate_grounded_claims(answer, state, constraints)
    result.errors += errors
    result.errors += validate_exact_quote_requirement(answer, constraints, state, insufficiencies, min_quote_chars)
    result.errors += validate_required_sections(answer, constraints)
    result.errors += validate_conflict_resolution(result.cited, constraints, state)
    result.errors += validate_insufficiency_disclosure(answer, constraints, insufficiencies)
    return result


def reprompt_message(result: GateResult, remaining_budget: int) -> str:
    """The reprompt: the errors, the remaining budget, and what to output next."""
    errors = "\n".join(f"- {e.message}" for e in result.errors)
    if result.needs_tools and remaining_budget > 0:
        instruction = "You MUST output a TOOL_CALL to gather more information before finalizing."
    elif remaining_budget > 0:
        instruction = "Output a corrected FINAL answer, or a TOOL_CALL if you need more information."
    else:
        instruction = "The tool budget is spent: output a corrected FINAL answer using only the opened citations."
    return (f"VALIDATION FAILED - Your answer does not meet requirements.\n\nERRORS:\n{errors}\n\n"
            f"REMAINING TOOL BUDGET: {remaining_budget} calls\n\n{instruction}")
