"""Plan generation: a short plan of 2-5 steps that guides the tool loop.

The model is asked for a JSON array of steps; a numbered list or bullet points are accepted as
well, and anything else falls back to a default plan built from the question's constraints,
so a plan always exists and planning never fails a question.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from core.agents.agent_mode.constraints import ConstraintAnalysis
from core.llm.base import ChatLLM, Completion, LLMError

PLAN_SYSTEM_PROMPT = """Your task is to create a SHORT, FOCUSED plan to answer the user's question.

AVAILABLE TOOLS:
{tools}

RULES:
1. Output EXACTLY {min_steps}-{max_steps} steps
2. Each step must be ONE clear, actionable instruction
3. Steps should reference tools by name
4. The final step should always be about synthesizing/answering

OUTPUT FORMAT:
Return a JSON array of strings, each string being one step."""

_NUMBERED = re.compile(r"^\s*(?:step\s*)?\d{1,2}\s*[.):]\s+(.+?)\s*$", re.I | re.M)
_BULLET = re.compile(r"^\s*[-*•]\s+(.+?)\s*$", re.M)


@dataclass
class AgentPlan:
    steps: list[str]
    source: str  # "llm" | "default"
    raw: str = ""
    error: str | None = None
    completions: list[Completion] = field(default_factory=list)


def _clean(steps: list[str], min_steps: int, max_steps: int) -> list[str] | None:
    steps = [" ".join(str(s).split()) for s in steps if isinstance(s, str) and str(s).strip()]
    return steps[:max_steps] if len(steps) >= min_steps else None


def parse_plan(text: str, min_steps: int, max_steps: int) -> list[str] | None:
    """Steps from a JSON array (or {"steps": [...]}), a numbered list, or bullet points; None
    when none of these yields at least `min_steps` steps. More than `max_steps` are cut."""
    start, end = text.find("["), text.rfind("]")
    if 0 <= start < end:
        try:
            value = json.loads(text[start:end + 1])
        except json.JSONDecodeError:
            value = None
        if isinstance(value, list):
            steps = _clean(value, min_steps, max_steps)
            if steps:
                return steps
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        value = None
    if isinstance(value, dict) and isinstance(value.get("steps"), list):
        steps = _clean(value["steps"], min_steps, max_steps)
        if steps:
            return steps
    for pattern in (_NUMBERED, _BULLET):
        steps = _clean(pattern.findall(text), min_steps, max_steps)
        if steps:
            return steps
    return None


def default_plan(question: str, constraints: ConstraintAnalysis, max_steps: int) -> list[str]:
    """Search (one step per required topic when there is room), open, answer."""
    topics = constraints.required_search_topics
    if topics and len(topics) <= max_steps - 2:
        searches = [f"Search for '{t}' with search_docs" for t in topics]
    elif topics:
        searches = ["Search separately with search_docs for: " + "; ".join(topics)]
    else:
        searches = [f"Search the documents with search_docs for: {' '.join(question.split()[:20])}"]
    opens = max(1, constraints.min_open_citations)
    answer = "Answer from the opened citations, citing them as [N]"
    if constraints.requires_insufficiency_disclosure:
        answer += f", and say \"{constraints.insufficiency_phrase}\" for anything missing"
    return searches + [f"Open the {opens} most relevant result(s) with open_citation", answer]


def generate_plan(
    question: str, constraints: ConstraintAnalysis, tool_descriptions: list[str], llm: ChatLLM | None, *,
    min_steps: int, max_steps: int, max_tokens: int,
) -> AgentPlan:
    """The model's plan, or the default plan when no model is asked or its reply has no plan."""
    fallback = default_plan(question, constraints, max_steps)
    if llm is None:
        return AgentPlan(fallback, "default")
    system = PLAN_SYSTEM_PROMPT.format(
        tools="\n".join(f"{n}. {d}" for n, d in enumerate(tool_descriptions, start=1)),
        min_steps=min_steps, max_steps=max_steps,
    )
    requirements = "\n".join(f"- {r}" for r in constraints.requirements())
    user = f"Question: {question}" + (f"\n\nRequirements:\n{requirements}" if requirements else "") + "\n\nPlan:"
    try:
        completion = llm.complete([{"role": "system", "content": system}, {"role": "user", "content": user}],
                                  max_tokens=max_tokens, temperature=0.0)
    except LLMError as exc:
        return AgentPlan(fallback, "default", error=str(exc))
    steps = parse_plan(completion.text, min_steps, max_steps)
    if steps is None:
        return AgentPlan(fallback, "default", raw=completion.text, error="no plan in the reply",
                         completions=[completion])
    return AgentPlan(steps, "llm", raw=completion.text, completions=[completion])
