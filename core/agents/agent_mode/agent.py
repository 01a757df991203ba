"""Agent mode end to end: the Planner's checks, constraint analysis, the bounded tool loop, and
a Response persisted with its trace exactly as the pipeline's is, so the chat, the Agent Trace
page, `python -m core ask --json` and `python -m core trace` treat both modes alike.
"""
from __future__ import annotations

from core.agents import planner as planner_agent
from core.agents import responder as responder_agent
from core.agents.confidence import Effect, Finding, assess_confidence, settle
from core.agents.agent_mode.constraints import analyze_constraints
from core.agents.agent_mode.loop import AgentLoop, AgentRun
from core.agents.agent_mode.tools import AgentTools
from core.agents.planner import Plan
from core.agents.responder import AGENT, PIPELINE, Response
from core.agents.turn import Turn
from core.agents.validator import is_no_information
from core.annotations.search import FactStore
from core.config import Settings
from core.llm.base import ChatLLM, TokenCallback
from core.retrieval import HybridRetriever
from core.safety import find_injection
from core.safety.flags import Flag
from core.store import KnowledgeBase
from core.trace.events import Listener

AUTO = "auto"  # agent mode when the question states explicit constraints
MODES = (PIPELINE, AGENT, AUTO)


def choose_mode(question: str, requested: str) -> str:
    """pipeline or agent. "auto" picks the agent when the question states explicit constraints
    ("at least three searches", "quote the exact ...")."""
    if requested not in MODES:
        raise ValueError(f"Unknown answer mode {requested!r}: use pipeline, agent or auto.")
    if requested == AUTO:
        return AGENT if analyze_constraints(question).explicit else PIPELINE
    return requested


class AgentMode:
    def __init__(self, kb: KnowledgeBase, retriever: HybridRetriever, llm: ChatLLM, settings: Settings,
                 facts: FactStore | None) -> None:
        self.kb = kb
        self.retriever = retriever
        self.llm = llm
        self.settings = settings
        self.facts = facts

    def ask(
        self, question: str, *, style: str | None = None, top_k: int | None = None,
        on_token: TokenCallback | None = None, on_event: Listener | None = None, previous_question: str = "",
        previous_subject: str = "", redact_answers: bool | None = None,
    ) -> Response:
        turn = Turn(self.kb.catalog, question, on_event, AGENT,
                    self.settings.redact_answers if redact_answers is None else redact_answers)
        with turn.trace.step("plan", "Planner", question=turn.question, previous_question=previous_question) as event:
            plan = turn.accept(self._check(turn.question, previous_question, previous_subject))
            constraints = analyze_constraints(plan.question)
            event.summary = plan.reason if not plan.needs_retrieval else (
                "agent mode: " + (", ".join(constraints.matched) or "no explicit constraints"))
            event.outputs.update(
                resolved_question=plan.question if plan.asked else None, new_topic=plan.new_topic,
                needs_retrieval=plan.needs_retrieval, intent=plan.intent, route="agent",
                safety_flags=plan.safety_flags, constraints=constraints.to_dict(),
            )
        run = None
        if plan.needs_retrieval:
            turn.before_writing(plan)
            tools = AgentTools(self.retriever, self.kb, self.facts, self.settings, top_k)
            stream = turn.stream(on_token)
            run = AgentLoop(self.llm, tools, self.settings).run(plan.question, constraints, trace=turn.trace,
                                                                style=style, on_token=stream)
            if stream:
                stream.flush()
        return turn.finish(plan, lambda: to_response(plan, run, self.settings) if run else
                           responder_agent.respond(plan, None, None), lambda response: _describe(response, run))

    def _check(self, question: str, previous_question: str, previous_subject: str = "") -> Plan:
        """The Planner's refusals (unsafe, empty, too short or long, no documents) and follow-up
        resolution apply to agent mode unchanged; the agent also bounds the question's length."""
        plan = planner_agent.plan_question(
            question, knowledge_base_empty=self.kb.is_empty(), settings=self.settings,
            previous_question=previous_question, previous_subject=previous_subject, llm=self.llm,
            value_columns=self.kb.catalog.facts.columns_holding,
        )
        limit = self.settings.max_question_chars
        if plan.needs_retrieval and len(plan.question) > limit:
            return Plan(question=plan.question, needs_retrieval=False, safety_flags=[Flag.QUESTION_TOO_LONG],
                        response=planner_agent.MESSAGES["question_too_long"].format(limit=limit),
                        reason="question too long")
        return plan


def to_response(plan: Plan, run: AgentRun, settings: Settings) -> Response:
    """The agent's result in the pipeline's Response: its checks' findings settled by the pipeline's one
    confidence policy (core/agents/confidence.py)."""
    citations = run.grounded.citations
    answer = run.answer
    cited = [c for c in citations if c.cited]
    injected = any(find_injection(h.chunk.text) for h in run.state.hits.values())
    findings = [Finding(Flag.INJECTION_IN_CONTEXT)] if injected else []
    no_information = is_no_information(answer)
    used = cited or citations
    similarity = sum(c.score for c in used) / len(used) if used else 0.0
    unsupported = run.gate.ungrounded if run.gate else []
    if run.llm_error:
        findings.append(Finding(Flag.LLM_ERROR, Effect.LOW))
    if run.grounded.stripped:
        findings.append(Finding(Flag.INVALID_CITATION))
    if not cited and not no_information:
        findings.append(Finding(Flag.NO_CITATION, Effect.LOWER))
    if unsupported:
        findings.append(Finding(Flag.UNSUPPORTED_CLAIMS, Effect.LOWER))
    if run.forced_reason:
        findings.append(Finding(Flag.FORCED_SYNTHESIS, Effect.LOWER))
    if no_information:
        findings.append(Finding(None, Effect.LOW))
    confidence, raised = settle(assess_confidence(similarity, answer, settings), findings)
    flags = [*plan.safety_flags, *raised]
    state = run.state
    reasoning = (f"Agent mode: {state.searches_done} searches, {len(state.opened)} citations opened, "
                 f"{state.tool_calls_used} tool calls, {run.reprompts} reprompts, {run.llm_calls} model calls; "
                 f"{'plan from the model' if run.plan.source == 'llm' else 'default plan'}; "
                 + ("answer accepted by the validation gate" if run.accepted else
                    f"answer synthesized from what was gathered because {run.forced_reason}"))
    if run.grounded.from_snippets:
        reasoning += "; nothing was opened, so the citations are search results"
    if run.grounded.attributed:
        reasoning += ("; the model cited nothing, so markers " + ", ".join(f"[{n}]" for n in run.grounded.attributed)
                      + " were placed where a sentence's words come from that source")
    if run.grounded.stripped:
        reasoning += "; removed citations to nothing opened: " + ", ".join(f"[{n}]" for n in run.grounded.stripped)
    if unsupported:
        reasoning += "; not found in the opened sources: " + ", ".join(unsupported[:8])
    response = Response(
        answer, citations, confidence, list(dict.fromkeys(flags)), reasoning, intent=plan.intent, route="agent",
        unsupported=unsupported, question=plan.question, new_topic=plan.new_topic,
        insufficiencies=run.insufficiencies, understood_as=responder_agent.understood_as(plan),
    )
    response.tokens = {"prompt": sum(c.prompt_tokens for c in run.completions),
                       "completion": sum(c.completion_tokens for c in run.completions)}
    return response


def _describe(response: Response, run: AgentRun | None) -> tuple[str, dict]:
    """The final step's summary and outputs in the trace: how the loop ended."""
    summary = (f"{response.confidence} confidence, {sum(c.cited for c in response.citations)} cited; "
               + (("validated" if run.accepted else f"forced synthesis: {run.forced_reason}") if run else "no retrieval"))
    outputs: dict = {"insufficiencies": response.insufficiencies}
    if run:
        outputs.update(
            accepted=run.accepted, forced_reason=run.forced_reason, reprompts=run.reprompts,
            iterations=run.iterations, tool_calls=run.state.tool_calls_used, llm_calls=run.llm_calls,
            searches=run.state.search_queries,
            remaining_errors=[e.message for e in run.gate.errors] if run.gate else [],
        )
    return summary, outputs
