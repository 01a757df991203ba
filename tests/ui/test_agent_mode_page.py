"""Agent mode in the app, through Streamlit's AppTest: the Chat toggle, automatic agent mode for
prompts with constraints, and the Agent Trace page's plan, tool calls and validations."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.config import load_settings
from core.llm.scripted import ScriptedLLM, extractive_answer
from core.workspace import Workspace

ROOT = Path(__file__).resolve().parents[2]
RUN_TIMEOUT = 90
DOC = ("Rebuilding the search index. Run the statement REINDEX TABLE documents; during the nightly window, "
       "then check the index log for errors.")


def scripted_policy(messages) -> str:
    """A model stand-in that follows the agent's prompts: plan, search, open the first result,
    answer with its first sentence cited; anything else (the pipeline) is answered extractively."""
    system, prompt = messages[0]["content"], messages[-1]["content"]
    if "SHORT, FOCUSED plan" in system:
        return '["Search with search_docs", "Open the best result with open_citation", "Answer with citations"]'
    if "STRICT OUTPUT FORMAT" not in system:
        return extractive_answer(messages)
    if "SEARCHES DONE: 0" in prompt:
        return json.dumps({"type": "tool_call", "tool": "search_docs", "input": {"queries": ["search index"]}})
    if "CITATIONS OPENED: 0" in prompt:
        first = re.search(r"\b(R\d+) ", prompt).group(1)
        return json.dumps({"type": "tool_call", "tool": "open_citation", "input": {"ids": [first]}})
    return json.dumps({"type": "final", "answer": "Run REINDEX TABLE documents during the nightly window [1].",
                       "insufficiencies": []})


@pytest.fixture
def app(tmp_path, monkeypatch, embedder):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("DOCUCHAT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DOCUCHAT_LLM_PROVIDER", "scripted")
    llm = ScriptedLLM(scripted_policy)
    monkeypatch.setattr("core.workspace.make_llm", lambda settings: llm)
    doc = tmp_path / "operations.md"
    doc.write_text(DOC, encoding="utf-8")
    ws = Workspace(load_settings(), embedder, llm)
    try:
        assert ws.ingestor.ingest_paths([doc])[0].ok
    finally:
        ws.close()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=RUN_TIMEOUT)
    at.run()
    assert not at.exception
    at.switch_page("views/2_Chat.py")
    at.run()
    assert not at.exception, at.exception
    return at


def _ask(at: AppTest, question: str) -> AppTest:
    at.chat_input[0].set_value(question)
    at.run()
    assert not at.exception, at.exception
    return at


def _agent_toggle(at: AppTest):
    [toggle] = [t for t in at.toggle if t.label == "Agent mode"]
    return toggle


def _last_turn(at: AppTest) -> dict:
    return at.session_state.chat["messages"][-1]["response"]


def test_the_agent_mode_toggle_answers_with_the_tool_loop(app):
    assert _agent_toggle(app).value is False

    _ask(app, "How is the search index rebuilt?")
    assert _last_turn(app)["mode"] == "pipeline"  # off, and the question states no constraints

    _agent_toggle(app).set_value(True)
    app.run()
    _ask(app, "How is the search index rebuilt?")

    response = _last_turn(app)
    assert response["mode"] == "agent" and response["answer"].endswith("[1].")
    assert response["citations"][0]["filename"] == "operations.md" and response["citations"][0]["cited"]
    texts = [m.value for m in app.markdown]
    assert any("Run REINDEX TABLE documents during the nightly window" in t for t in texts)


def test_a_prompt_with_constraints_uses_agent_mode_with_the_toggle_off(app):
    _ask(app, "Open at least 1 citation and tell me how the search index is rebuilt.")
    assert _last_turn(app)["mode"] == "agent"


def test_the_trace_page_shows_the_plan_tool_calls_and_the_validation(app):
    _agent_toggle(app).set_value(True)
    app.run()
    _ask(app, "How is the search index rebuilt?")

    app.switch_page("views/3_Agent_Trace.py")
    app.run()

    assert not app.exception, app.exception
    assert "Plan" in [h.value for h in app.subheader]
    texts = "\n".join(str(m.value) for m in (*app.markdown, *app.caption, *app.success))
    assert "Answered in agent mode" in texts
    assert "1. Search with search\\_docs" in texts  # the plan's steps, shown as literal text
    assert "**Tool call · search\\_docs**" in texts and "**Tool call · open\\_citation**" in texts
    assert "Summary: 1 search, 1 new chunks" in texts
    assert "Validation gate: the answer was accepted." in texts
