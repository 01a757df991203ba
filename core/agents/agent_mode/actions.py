"""Strict JSON actions: each model reply is exactly one tool_call or final object.

The schema is built for the moment: open_citation only offers the ids not yet opened, a spent
tool budget leaves only "final", and a gate that wants more evidence leaves only tool calls.
With schema-constrained decoding (llama.cpp, Ollama) a small model cannot write anything else;
a provider without it is still held to the same shape by `parse_action`, and a reply that fails
is a reprompt, never a crash.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from core.agents.agent_mode.tools import AGGREGATE_FACTS, AGGREGATE_OPS, OPEN_CITATION, SEARCH_DOCS, SEARCH_FACTS

TOOL_CALL, FINAL = "tool_call", "final"


class ActionError(ValueError):
    """The reply is not a valid action; the message tells the model what to fix."""


@dataclass
class Action:
    type: str
    tool: str | None = None
    input: dict = field(default_factory=dict)
    answer: str = ""
    insufficiencies: list[dict] = field(default_factory=list)


def _tool_branch(tool: str, input_schema: dict) -> dict:
    return {
        "type": "object",
        "properties": {"type": {"const": TOOL_CALL}, "tool": {"const": tool}, "input": input_schema},
        "required": ["type", "tool", "input"],
        "additionalProperties": False,
    }


def _object(properties: dict, required: list[str]) -> dict:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def action_schema(
    tools: list[str], openable: list[str], *, budget: int, open_slots: int, allow_final: bool,
    max_query_chars: int, max_insufficiencies: int,
) -> dict:
    """The JSON schema of the next action: one branch per usable tool, and "final" if allowed."""
    text = {"type": "string", "minLength": 1, "maxLength": max_query_chars}
    branches = []
    if budget > 0:
        if SEARCH_DOCS in tools:
            branches.append(_tool_branch(SEARCH_DOCS, _object(
                {"queries": {"type": "array", "items": text, "minItems": 1, "maxItems": budget}}, ["queries"])))
        if OPEN_CITATION in tools and openable and open_slots > 0:
            branches.append(_tool_branch(OPEN_CITATION, _object(
                {"ids": {"type": "array", "items": {"enum": openable}, "minItems": 1,
                         "maxItems": min(budget, open_slots, len(openable))}}, ["ids"])))
        if SEARCH_FACTS in tools:
            branches.append(_tool_branch(SEARCH_FACTS, _object({"query": text}, ["query"])))
        if AGGREGATE_FACTS in tools:
            branches.append(_tool_branch(AGGREGATE_FACTS, _object(
                {"query": text, "operation": {"enum": list(AGGREGATE_OPS)}, "measure": text, "group_by": text},
                ["query", "operation"])))
    if allow_final or not branches:
        insufficiency = _object({"section": {"type": "string"}, "missing": {"type": "string"}}, ["section", "missing"])
        branches.append(_object({
            "type": {"const": FINAL},
            "answer": {"type": "string", "minLength": 1},
            "insufficiencies": {"type": "array", "items": insufficiency, "maxItems": max_insufficiencies},
        }, ["type", "answer"]))
    return branches[0] if len(branches) == 1 else {"anyOf": branches}


def parse_action(value: object, tools: list[str]) -> Action:
    """The action in a decoded JSON reply, or ActionError saying what is wrong with it."""
    if not isinstance(value, dict):
        raise ActionError("Output one JSON object, not a list or a plain value.")
    kind = str(value.get("type", "")).strip().lower()
    if kind == TOOL_CALL:
        tool = str(value.get("tool", "")).strip()
        if tool not in tools:
            raise ActionError(f"Unknown tool '{tool}'. Use one of: {', '.join(tools)}.")
        tool_input = value.get("input")
        if not isinstance(tool_input, dict):
            raise ActionError('A tool_call needs an "input" object, e.g. {"queries": ["..."]}.')
        return Action(TOOL_CALL, tool=tool, input=tool_input)
    if kind == FINAL:
        answer = value.get("answer")
        if not isinstance(answer, str) or not answer.strip():
            raise ActionError('A final action needs a non-empty "answer" string.')
        listed = value.get("insufficiencies") or []
        insufficiencies = [
            {"section": str(i.get("section", "")).strip(), "missing": str(i.get("missing", "")).strip()}
            for i in (listed if isinstance(listed, list) else [])
            if isinstance(i, dict) and (i.get("section") or i.get("missing"))
        ]
        return Action(FINAL, answer=answer.strip(), insufficiencies=insufficiencies)
    raise ActionError('The JSON object must have "type": "tool_call" or "type": "final".')
