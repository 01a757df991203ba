"""Constraint analysis: seed 001's detection patterns, and prompts that state none."""
from core.agents.agent_mode.constraints import NEWEST_DATED, analyze_constraints
from tests.agents.agent_mode.conftest import RUNBOOK


def test_detects_multiple_search_requirement():
    assert analyze_constraints("Use at least 3 tool calls to find the deployment steps.").min_searches == 3
    assert analyze_constraints("Do at least three searches before answering.").min_searches == 3
    separate = analyze_constraints("Cover (1) reindex SQL (2) delete verification (3) retry policy, "
                                   "with separate tool searches for each topic.")
    assert separate.min_searches == 3
    assert separate.required_search_topics == ["reindex SQL", "delete verification", "retry policy"]


def test_detects_open_citation_requirement():
    assert analyze_constraints("Call open_citation for at least two results.").min_open_citations == 2
    assert analyze_constraints("Open at least 3 sources before you answer.").min_open_citations == 3
    assert analyze_constraints("Open at least 1 citation, then answer.").min_open_citations == 1
    assert analyze_constraints("Read the full text of the policy before answering.").min_open_citations == 1


def test_detects_exact_quote_requirement():
    sql = analyze_constraints("Quote one exact SQL statement from the docs.")
    assert sql.requires_exact_quote and sql.exact_quote_indicators == ["SQL statement"]
    assert analyze_constraints("Give the warranty clause verbatim.").requires_exact_quote
    assert analyze_constraints("Which is the exact line that sets the timeout?").exact_quote_indicators == ["line"]


def test_simple_prompt_has_minimal_constraints():
    for question in ("What is machine learning?", "What was revenue in Q3 2023 compared to Q3 2022?",
                     "List all receipts with tyres.", "Which is the newest document?",
                     "What was the exact number of employees in 2023?"):
        constraints = analyze_constraints(question)
        assert not constraints.explicit, question
        assert (constraints.min_searches, constraints.min_open_citations) == (1, 0)
        assert constraints.requirements() == []


def test_detects_conflict_resolution_sections_and_insufficiency_disclosure():
    constraints = analyze_constraints(RUNBOOK + " If documents conflict, the newest dated document wins.")
    assert constraints.required_sections == ["Reindex", "Delete", "Retry"]
    assert constraints.required_search_topics == ["Reindex", "Delete", "Retry"]  # "each topic" = each section
    assert constraints.min_searches == 3 and constraints.min_open_citations == 2
    assert constraints.requires_insufficiency_disclosure
    assert constraints.insufficiency_phrase == "Insufficient documentation"
    assert constraints.requires_conflict_resolution and constraints.conflict_resolution_rule == NEWEST_DATED
    assert constraints.explicit


def test_the_disclosure_phrase_is_the_one_the_prompt_asks_for():
    constraints = analyze_constraints('If the documents do not say, write "Not documented" for that part.')
    assert constraints.requires_insufficiency_disclosure and constraints.insufficiency_phrase == "Not documented"
    assert 'Say "Not documented" for anything the documents do not cover' in constraints.requirements()
