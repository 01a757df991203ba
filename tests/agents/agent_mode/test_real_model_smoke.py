"""Agent mode on a real model: the embedded llama.cpp provider with the tiny SmolLM2-135M.

It proves what a scripted model cannot: llama.cpp accepts the action schema (anyOf, const, enum
of ids) and the loop gets from a real constrained reply to a persisted answer. Bounded to two
model calls: one action, then the answer. The model is too small to answer well.
"""
import pytest

from core.llm.embedded import EmbeddedLLM
from tests.llm.test_embedded_smoke import _smollm_path


@pytest.fixture(scope="module")
def smollm(tmp_path_factory):
    return EmbeddedLLM(_smollm_path(), cache_dir=tmp_path_factory.mktemp("cache"), threads=2,
                       context_tokens=2048, timeout=120)


def test_one_real_action_under_the_schema_then_an_answer(agent_ws, smollm):
    ws = agent_ws(smollm, agent_initial_search=True, agent_plan_with_llm=False, max_tool_calls=2,
                  max_iterations=1, agent_action_max_tokens=60, answer_max_tokens=30)

    response = ws.ask("How is the search index rebuilt?", mode="agent")

    turn = ws.kb.catalog.turn(response.trace_id)
    kinds = [e["kind"] for e in turn["trace"]["events"]]
    assert kinds[:4] == ["plan", "plan", "tool_call", "llm_call"] and kinds[-1] == "final"
    action_call = turn["trace"]["events"][3]
    assert action_call["status"] == "ok" and action_call["outputs"]["completion_tokens"] > 0
    assert response.mode == "agent" and response.answer and "llm_error" not in response.safety_flags
    assert response.tokens["completion"] > 0
