"""Which engine answers: pipeline, agent, or auto (the agent when the prompt states constraints)."""
import pytest

from core.agents.agent_mode import AGENT, PIPELINE, choose_mode
from core.llm.scripted import ScriptedLLM
from tests.agents.agent_mode.conftest import RUNBOOK


def test_auto_picks_the_agent_only_for_prompts_with_explicit_constraints():
    assert choose_mode(RUNBOOK, "auto") == AGENT
    assert choose_mode("Quote the exact sentence that defines the warranty.", "auto") == AGENT
    assert choose_mode("Do at least three searches: what changed in the retry policy?", "auto") == AGENT
    assert choose_mode("What is the warranty?", "auto") == PIPELINE


def test_an_explicit_mode_wins():
    assert choose_mode("What is the warranty?", "agent") == AGENT
    assert choose_mode(RUNBOOK, "pipeline") == PIPELINE
    with pytest.raises(ValueError, match="Unknown answer mode 'fast'"):
        choose_mode("What is the warranty?", "fast")


def test_workspace_dispatches_by_mode_and_the_answer_mode_setting(agent_ws):
    ws = agent_ws(ScriptedLLM(), answer_mode="pipeline")  # unscripted: extractive pipeline answers
    assert ws.ask("How is the search index rebuilt?").mode == "pipeline"
    assert ws.ask(RUNBOOK).mode == "pipeline"  # the setting says pipeline, auto is not asked for
    assert ws.ask(RUNBOOK, mode="auto").mode == "agent"


def test_while_the_agent_works_its_turn_is_already_logged_as_interrupted(agent_ws):
    from core.agents.responder import INTERRUPTED_ANSWER

    logged = []

    def plan_and_look(messages) -> str:
        logged.extend(ws.kb.catalog.recent_turns())
        raise KeyboardInterrupt  # the process stops during the agent's first model call

    ws = agent_ws(ScriptedLLM(plan_and_look))
    with pytest.raises(KeyboardInterrupt):
        ws.ask(RUNBOOK, mode="agent")

    [turn] = logged
    assert turn["answer"] == INTERRUPTED_ANSWER and turn["response"]["mode"] == "agent"
    assert ws.kb.catalog.recent_turns()[0]["response"]["interrupted"]
