"""Plans of 2-5 steps: JSON array, numbered list or bullets; the default plan otherwise."""
from core.agents.agent_mode.constraints import analyze_constraints
from core.agents.agent_mode.plan import default_plan, generate_plan, parse_plan
from core.llm import LLMUnavailable
from core.llm.scripted import ScriptedLLM
from tests.agents.agent_mode.conftest import RUNBOOK


def test_parses_a_json_array_even_inside_prose():
    text = 'Here is the plan: ["Search for reindex", "Open the top result", "Answer with citations"]'
    assert parse_plan(text, 2, 5) == ["Search for reindex", "Open the top result", "Answer with citations"]
    assert parse_plan('{"steps": ["Search", "Answer"]}', 2, 5) == ["Search", "Answer"]


def test_parses_numbered_lists_and_bullets():
    assert parse_plan("1. Search for X\n2) Open citations\nStep 3: Answer", 2, 5) == [
        "Search for X", "Open citations", "Answer"]
    assert parse_plan("- Search for X\n* Answer", 2, 5) == ["Search for X", "Answer"]


def test_more_than_five_steps_are_cut_and_fewer_than_two_are_no_plan():
    assert parse_plan(str([f"step {n}" for n in range(8)]).replace("'", '"'), 2, 5) == [f"step {n}" for n in range(5)]
    assert parse_plan('["only one"]', 2, 5) is None
    assert parse_plan("I will just answer.", 2, 5) is None


def test_default_plan_searches_each_required_topic_then_opens_and_answers():
    steps = default_plan(RUNBOOK, analyze_constraints(RUNBOOK), 5)
    assert steps[:3] == ["Search for 'Reindex' with search_docs", "Search for 'Delete' with search_docs",
                         "Search for 'Retry' with search_docs"]
    assert "open_citation" in steps[3] and "2" in steps[3]
    assert "Insufficient documentation" in steps[4] and len(steps) == 5


def test_an_unusable_or_failed_reply_falls_back_to_the_default_plan():
    constraints = analyze_constraints("What is the warranty?")
    chatty = generate_plan("What is the warranty?", constraints, ["search_docs"], ScriptedLLM(["Sure! Let me help."]),
                           min_steps=2, max_steps=5, max_tokens=100)
    assert chatty.source == "default" and chatty.error == "no plan in the reply" and len(chatty.steps) == 3
    down = generate_plan("What is the warranty?", constraints, ["search_docs"],
                         ScriptedLLM(fail_with=LLMUnavailable("no model")), min_steps=2, max_steps=5, max_tokens=100)
    assert down.source == "default" and down.error == "no model"


def test_the_model_sees_the_tools_and_requirements():
    llm = ScriptedLLM(['["Search for reindex", "Answer"]'])
    plan = generate_plan(RUNBOOK, analyze_constraints(RUNBOOK), ["search_docs - search"], llm,
                         min_steps=2, max_steps=5, max_tokens=100)
    assert plan.source == "llm" and plan.steps == ["Search for reindex", "Answer"]
    system, user = llm.calls[0]
    assert "1. search_docs - search" in system["content"] and "EXACTLY 2-5 steps" in system["content"]
    assert "Open at least 2 citation(s)" in user["content"]
