"""The validation gate: a FINAL answer is accepted only when the prompt's constraints are met
and what it states is in the opened citations."""
from core.agents.agent_mode import gate
from core.agents.agent_mode.constraints import analyze_constraints
from core.agents.agent_mode.state import AgentState, OpenedCitation, SearchHit
from core.retrieval import RetrievedChunk
from tests.agents.agent_mode.conftest import DOCS, RUNBOOK

STRICT = analyze_constraints("Use at least 3 searches and call open_citation for at least 2 results: how do I reindex?")


def _state(searches: list[str], opened: list[str], dates: dict[str, str] | None = None,
           question: str = "How do I reindex?") -> AgentState:
    state = AgentState(question, search_queries=list(searches))
    for n, name in enumerate(DOCS, start=1):
        chunk = RetrievedChunk(f"c{n}", f"d{n}", name, 0, DOCS[name], None, None, None, score=0.1, vector_score=0.7)
        state.hits[f"R{n}"] = SearchHit(f"R{n}", chunk, searches[0] if searches else "", DOCS[name][:40])
    for name in opened:
        hit = next(h for h in state.hits.values() if h.chunk.filename == name)
        state.opened.append(OpenedCitation(len(state.opened) + 1, hit, (dates or {}).get(name)))
    return state


def _check(answer: str, constraints, state, insufficiencies=None) -> gate.GateResult:
    return gate.validate_agent_state(answer, constraints, state, insufficiencies, min_quote_chars=12, min_answer_chars=20)


def test_validates_min_searches_failure():
    result = _check("Run REINDEX TABLE documents [1].", STRICT, _state(["reindex"], ["operations.md", "deletes.md"]))
    assert not result.valid and result.codes == [gate.MIN_SEARCHES_UNMET]
    assert result.errors[0].message == "Required at least 3 separate searches, but only 1 were performed."
    assert result.needs_tools


def test_validates_min_open_citations_failure():
    result = _check("Run REINDEX TABLE documents [1].", STRICT,
                    _state(["reindex", "index rebuild", "nightly"], ["operations.md"]))
    assert result.codes == [gate.MIN_OPEN_CITATIONS_UNMET]
    assert result.errors[0].message == "Required to open at least 2 citation(s), but only 1 were opened."


def test_validates_grounded_claims():
    state = _state(["reindex", "index rebuild", "nightly"], ["operations.md", "deletes.md"])
    result = _check("Run pg_reindex, then kubectl rollout restart with 64 workers on node DB-7 [1].", STRICT, state)
    assert result.codes == [gate.UNGROUNDED_CLAIM]
    # seed 001's suspicious terms, then any number or identifier the opened citations lack
    assert result.ungrounded == ["pg_reindex", "kubectl", "64", "DB-7"]
    assert not result.needs_tools  # a rewrite fixes it


def test_valid_state_passes():
    state = _state(["reindex", "index rebuild", "nightly window"], ["operations.md", "deletes.md"])
    result = _check("Run REINDEX TABLE documents during the nightly window [1]; verify orders first [2].", STRICT, state)
    assert result.valid and result.errors == [] and result.cited == [1, 2]


def test_citations_must_point_at_opened_citations():
    state = _state(["a", "b", "c"], ["operations.md", "deletes.md"])
    result = _check("Reindex nightly [1] and see [5].", STRICT, state)
    assert result.codes == [gate.INVALID_CITATION_REFERENCE] and result.invalid_citations == [5]
    nothing_open = _check("Reindex the documents table nightly [1].", analyze_constraints("How do I reindex?"),
                          _state(["reindex"], []))
    assert nothing_open.codes == [gate.INVALID_CITATION_REFERENCE] and nothing_open.needs_tools


def test_exact_quote_must_appear_verbatim_in_an_opened_citation():
    constraints = analyze_constraints("Quote one exact SQL statement for deleting orders.")
    state = _state(["delete order"], ["deletes.md"], question="Quote one exact SQL statement for deleting orders.")
    verbatim = 'Verify with "SELECT status FROM orders WHERE id = :id;" first [1].'
    assert _check(verbatim, constraints, state).valid
    paraphrased = _check('Verify with "SELECT * FROM orders WHERE id = :id" first [1].', constraints, state)
    assert paraphrased.codes == [gate.EXACT_QUOTE_NOT_VERBATIM]
    missing = _check("Verify the order first [1].", constraints, state)
    assert missing.codes == [gate.EXACT_QUOTE_MISSING]
    disclosed = _check("Verify the order first [1]. Insufficient documentation for the exact SQL.", constraints, state)
    assert disclosed.valid


def test_required_sections_and_the_insufficiency_disclosure():
    constraints = analyze_constraints(RUNBOOK)
    state = _state(["reindex", "delete order", "retry"], ["operations.md", "deletes.md"], question=RUNBOOK)
    quote = '"REINDEX TABLE documents;"'
    result = _check(f"## Reindex\nRun {quote} [1].\n## Delete\nVerify first [2].", constraints, state,
                    [{"section": "Retry", "missing": "retry SQL"}])
    assert result.codes == [gate.REQUIRED_SECTIONS_MISSING, gate.INSUFFICIENCY_DISCLOSURE_MISSING]
    fixed = _check(f"## Reindex\nRun {quote} [1].\n## Delete\nVerify first [2].\n## Retry\nInsufficient documentation.",
                   constraints, state, [{"section": "Retry", "missing": "retry SQL"}])
    assert fixed.valid


def test_the_newest_dated_document_must_be_cited_when_opened_documents_differ_in_date():
    constraints = analyze_constraints("How fast may clients retry? If documents conflict, the newest dated document wins.")
    state = _state(["retry"], ["limits.md", "operations.md"], dates={"limits.md": "2024-05-01", "operations.md": "2021-01-01"})
    old_only = _check("Clients retry after 30 seconds [2].", constraints, state)
    assert old_only.codes == [gate.CONFLICT_RULE_UNMET] and "cite [1]" in old_only.errors[0].message
    assert _check("Clients retry after 30 seconds [1].", constraints, state).valid


def test_reprompt_message_is_the_seeds():
    result = _check("Reindex [1].", STRICT, _state(["reindex"], []))
    message = gate.reprompt_message(result, 4)
    assert message.startswith("VALIDATION FAILED - Your answer does not meet requirements.\n\nERRORS:\n"
                              "- Required at least 3 separate searches, but only 1 were performed.\n"
                              "- Required to open at least 2 citation(s), but only 0 were opened.")
    assert message.endswith("REMAINING TOOL BUDGET: 4 calls\n\n"
                            "You MUST output a TOOL_CALL to gather more information before finalizing.")
    assert "tool budget is spent" in gate.reprompt_message(result, 0)


def test_an_answer_must_come_from_opened_citations_unless_it_only_says_what_is_missing():
    simple = analyze_constraints("How is the search index rebuilt?")
    nothing_open = _check("Run REINDEX TABLE documents during the nightly window.", simple, _state(["reindex"], []))
    assert nothing_open.codes == [gate.CITATION_MISSING] and nothing_open.fix_tools == {"open_citation"}
    # opened but unmarked: grounding places the markers, no reprompt needed
    assert _check("Run REINDEX TABLE documents during the nightly window.", simple,
                  _state(["reindex"], ["operations.md"])).valid
    assert _check("The provided documents do not contain information about this.", simple, _state(["x"], [])).valid
    assert _check("Insufficient documentation.", simple, _state(["x"], [])).valid


def test_a_few_characters_are_not_an_answer():
    result = _check("open_citation", analyze_constraints("How is the search index rebuilt?"),
                    _state(["reindex"], ["operations.md"]))
    assert result.codes == [gate.ANSWER_TOO_SHORT]
