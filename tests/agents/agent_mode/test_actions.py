"""Strict JSON actions: the schema of the moment, and what a reply must look like."""
import pytest

from core.agents.agent_mode.actions import FINAL, TOOL_CALL, ActionError, action_schema, parse_action

TOOLS = ["search_docs", "open_citation"]


def _schema(**overrides):
    options = dict(budget=3, open_slots=5, allow_final=True, max_query_chars=200, max_insufficiencies=8)
    options.update(overrides)
    return action_schema(TOOLS, ["R1", "R2"], **options)


def _kinds(schema) -> list[str]:
    branches = schema.get("anyOf", [schema])
    return [b["properties"].get("tool", b["properties"]["type"]).get("const") for b in branches]


def test_schema_offers_each_tool_and_final_and_only_unopened_ids():
    schema = _schema()
    assert _kinds(schema) == ["search_docs", "open_citation", "final"]
    ids = schema["anyOf"][1]["properties"]["input"]["properties"]["ids"]
    assert ids["items"] == {"enum": ["R1", "R2"]} and ids["maxItems"] == 2
    assert schema["anyOf"][0]["properties"]["input"]["properties"]["queries"]["maxItems"] == 3


def test_spent_budget_leaves_only_final_and_unmet_requirements_leave_only_tools():
    assert _kinds(_schema(budget=0)) == ["final"]
    assert _kinds(_schema(allow_final=False)) == ["search_docs", "open_citation"]
    assert _kinds(action_schema(TOOLS, [], budget=2, open_slots=5, allow_final=True,
                                max_query_chars=200, max_insufficiencies=8)) == ["search_docs", "final"]


def test_parses_tool_calls_and_finals():
    call = parse_action({"type": "tool_call", "tool": "search_docs", "input": {"queries": ["x"]}}, TOOLS)
    assert (call.type, call.tool, call.input) == (TOOL_CALL, "search_docs", {"queries": ["x"]})
    done = parse_action({"type": "final", "answer": " Done [1]. ",
                         "insufficiencies": [{"section": "Retry", "missing": "SQL"}, "junk"]}, TOOLS)
    assert (done.type, done.answer, done.insufficiencies) == (FINAL, "Done [1].", [{"section": "Retry", "missing": "SQL"}])


@pytest.mark.parametrize("value, message", [
    (["not", "an", "object"], "one JSON object"),
    ({"type": "answer", "answer": "x"}, '"type": "tool_call" or "type": "final"'),
    ({"type": "tool_call", "tool": "delete_everything", "input": {}}, "Unknown tool 'delete_everything'"),
    ({"type": "tool_call", "tool": "search_docs", "input": "reindex"}, '"input" object'),
    ({"type": "final", "answer": "  "}, 'non-empty "answer"'),
])
def test_a_malformed_action_says_what_to_fix(value, message):
    with pytest.raises(ActionError, match=message.replace("(", r"\(")):
        parse_action(value, TOOLS)
