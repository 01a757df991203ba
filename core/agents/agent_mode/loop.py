"""The bounded tool loop: plan, then act one strict JSON action at a time.

Hard limits (settings): max_tool_calls, max_iterations, max_reprompts. A FINAL action passes the
validation gate or is sent back with a reprompt listing what is unmet; a malformed action is a
reprompt too. When the budget or the reprompts run out, the answer is synthesized from what was
gathered, and what is missing is disclosed as insufficiencies. Every step is a trace event, so
the chat shows it live and the Agent Trace page shows it afterwards.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

from core.agents.agent_mode import gate as gates
from core.agents.agent_mode.actions import TOOL_CALL, Action, ActionError, action_schema, parse_action
from core.agents.agent_mode.constraints import ConstraintAnalysis
from core.agents.agent_mode.grounding import Grounded, cited_markers, ground_citations
from core.agents.agent_mode.plan import AgentPlan, generate_plan
from core.agents.agent_mode.state import AgentState, Insufficiency, SearchHit
from core.agents.agent_mode.tools import OPEN_CITATION, SEARCH_DOCS, TOOL_DESCRIPTIONS, AgentTools, where
from core.agents.reasoner import STYLE_INSTRUCTIONS
from core.citations import attribute_markers
from core.config import Settings
from core.llm.base import ChatLLM, Completion, LLMError, LLMMalformedJSON, TokenCallback
from core.trace import TraceRecorder

TOOL_LOOP_SYSTEM_PROMPT = """You answer questions using only the user's documents, one step at a time, by calling tools.

STRICT OUTPUT FORMAT:
You MUST output EXACTLY ONE valid JSON object per response. Either a tool call:
{{"type": "tool_call", "tool": "search_docs", "input": {{"queries": ["..."]}}}}
or, when you have what you need, the final answer:
{{"type": "final", "answer": "... [1] ... [2]", "insufficiencies": [{{"section": "...", "missing": "..."}}]}}

AVAILABLE TOOLS:
{tools}

CRITICAL RULES:
1. MUST call open_citation before citing
2. Use the ids (R1, R2, ...) shown with the search results
3. Citation numbers [N] must match the numbers of the OPENED CITATIONS
4. Do NOT include information not in opened citations
5. Include insufficiencies for missing info
6. NEVER invent tools or procedures not in documents"""

SYNTHESIS_PROMPT = """Based on the gathered information, answer the question.

STRICT RULES:
1. Use ONLY the provided context
2. Cite sources using [1], [2] notation
3. If context doesn't answer, say: "I don't know based on the provided documents."
4. Explicitly state "{phrase}" for missing parts
5. Be factual and concise

Question: {question}

Available sources:
{sources}

Answer (use [1], [2] to cite):"""

NOT_AN_ACTION = ("YOUR LAST OUTPUT WAS NOT A VALID ACTION: {error}\n"
                 "Output exactly one JSON object: a tool_call or a final answer.")
LLM_ERROR_ANSWER = "I couldn't get an answer from the language model ({error}). Please try again."


@dataclass
class AgentRun:
    answer: str
    grounded: Grounded
    insufficiencies: list[dict]
    state: AgentState
    plan: AgentPlan
    gate: gates.GateResult | None  # the gate's verdict on the answer given
    accepted: bool  # a FINAL action passed the gate
    forced_reason: str | None = None  # why the answer was synthesized instead
    reprompts: int = 0
    iterations: int = 0
    llm_error: str | None = None
    completions: list[Completion] = field(default_factory=list)

    @property
    def llm_calls(self) -> int:
        return len(self.completions)


class AgentLoop:
    def __init__(self, llm: ChatLLM, tools: AgentTools, settings: Settings) -> None:
        self.llm = llm
        self.tools = tools
        self.settings = settings

    def run(self, question: str, constraints: ConstraintAnalysis, trace: TraceRecorder, *,
            style: str | None = None, on_token: TokenCallback | None = None) -> AgentRun:
        s = self.settings
        names = self.tools.names
        descriptions = [TOOL_DESCRIPTIONS[n] for n in names]
        plan = self._plan(question, constraints, descriptions, trace)
        state = AgentState(question)
        completions = list(plan.completions)
        system = TOOL_LOOP_SYSTEM_PROMPT.format(tools="\n".join(f"{n}. {d}" for n, d in enumerate(descriptions, 1)))
        feedback = ""
        pending: gates.GateResult | None = None  # a rejected final whose fix needs tools
        last_final: Action | None = None
        failed_tool: str | None = None  # the tool whose call just ran nothing
        reprompts = iteration = 0
        forced_reason = "the iteration limit was reached"
        if s.agent_initial_search:
            # The plan's first step is always a search: run it without asking the model, on the
            # required topics or else the question. One model call fewer, and a small model starts
            # from real results and ids instead of copying the prompt's example query.
            queries = constraints.required_search_topics[: s.max_tool_calls] or [question[: s.agent_query_max_chars]]
            feedback = self._act(state, Action(TOOL_CALL, tool=SEARCH_DOCS, input={"queries": queries}),
                                 s.max_tool_calls, trace, automatic=True)
        while iteration < s.max_iterations:
            iteration += 1
            budget = s.max_tool_calls - state.tool_calls_used
            offered, final_allowed = next_choices(names, constraints, state, budget, pending, failed_tool)
            schema = action_schema(
                offered, [h for h in state.hits if not state.opened_as(state.hits[h].chunk.chunk_id)],
                budget=budget, open_slots=s.max_context_citations - len(state.opened),
                allow_final=final_allowed, max_query_chars=s.agent_query_max_chars,
                max_insufficiencies=s.agent_max_insufficiencies,
            )
            prompt = self._iteration_prompt(state, constraints, plan, budget, feedback, style,
                                            offered if budget > 0 else [], final_allowed)
            messages = [{"role": "system", "content": system}, {"role": "user", "content": prompt}]
            with trace.step("llm_call", "Reasoner", provider=self.llm.name, model=self.llm.model,
                            iteration=iteration) as event:
                event.outputs.update(prompt=system + "\n\n" + prompt, offered=offered, final_allowed=final_allowed)
                try:
                    value, completion = self.llm.complete_json(messages, schema, max_tokens=s.agent_action_max_tokens,
                                                               temperature=0.0)
                    completions.append(completion)
                    event.outputs.update(raw_output=completion.text, **_usage(completion))
                    action = parse_action(value, names)
                    event.summary = f"iteration {iteration}: " + (
                        f"{action.tool}" if action.type == TOOL_CALL else "final answer")
                except (LLMMalformedJSON, ActionError) as exc:
                    if isinstance(exc, LLMMalformedJSON):
                        completions.append(exc.completion)
                        event.outputs.update(raw_output=exc.completion.text, **_usage(exc.completion))
                    event.summary = f"iteration {iteration}: not a valid action"
                    action = None
                    error = str(exc)
                except LLMError as exc:  # the model itself failed: no point asking again
                    event.status = "failed"
                    event.summary = f"error: {exc}"
                    trace.record("error", "Reasoner", f"language model error: {exc}", error=str(exc))
                    return self._finish(question, constraints, state, plan, completions, reprompts, iteration,
                                        last_final, pending, f"the language model failed ({exc})", style, on_token,
                                        trace, llm_error=str(exc))
            if action is None:
                trace.record("error", "Reasoner", f"malformed action: {error}", error=error)
                if reprompts >= s.max_reprompts:
                    forced_reason = f"the model gave no valid action after {reprompts} reprompts"
                    break
                reprompts += 1
                feedback = NOT_AN_ACTION.format(error=error)
                trace.record("reprompt", "Validator", "malformed action", message=feedback, reprompt=reprompts)
                continue
            if action.type == TOOL_CALL:
                feedback = self._act(state, action, budget, trace)
                pending = None
                failed_tool = action.tool if feedback else None
                if feedback:  # nothing ran (an unknown id, a repeated search): as good as a malformed action
                    if reprompts >= s.max_reprompts:
                        forced_reason = f"the model's tool calls kept failing after {reprompts} reprompts"
                        break
                    reprompts += 1
                    trace.record("reprompt", "Validator", "tool call failed", message=feedback, reprompt=reprompts)
                continue
            # FINAL: the validation gate decides.
            repeated = last_final is not None and last_final.answer == action.answer and pending is not None
            last_final = action
            result = gates.validate_agent_state(action.answer, constraints, state, action.insufficiencies,
                                                min_quote_chars=s.min_exact_quote_chars,
                                                min_answer_chars=s.min_answer_chars)
            _record_validation(trace, result, reprompts, s.max_reprompts)
            if result.valid:
                return self._accept(state, plan, completions, action, result, reprompts, iteration)
            pending = result
            if repeated:  # at temperature 0 the same reprompt brings the same answer: stop asking
                forced_reason = "the model repeated an answer the validation gate had rejected"
                break
            if reprompts >= s.max_reprompts:
                forced_reason = f"the answer still failed validation after {reprompts} reprompts"
                break
            reprompts += 1
            feedback = gates.reprompt_message(result, budget)
            trace.record("reprompt", "Validator", ", ".join(result.codes), message=feedback, reprompt=reprompts)
        return self._finish(question, constraints, state, plan, completions, reprompts, iteration, last_final,
                            pending, forced_reason, style, on_token, trace)

    # --- steps --------------------------------------------------------------------------------

    def _plan(self, question: str, constraints: ConstraintAnalysis, descriptions: list[str],
              trace: TraceRecorder) -> AgentPlan:
        s = self.settings
        with trace.step("plan", "Planner", question=question) as event:
            plan = generate_plan(question, constraints, descriptions, self.llm if s.agent_plan_with_llm else None,
                                 min_steps=s.min_plan_steps, max_steps=s.max_plan_steps,
                                 max_tokens=s.agent_plan_max_tokens)
            event.summary = f"{len(plan.steps)}-step plan ({'model' if plan.source == 'llm' else 'default'})"
            event.outputs.update(steps=plan.steps, source=plan.source, raw_output=plan.raw, error=plan.error,
                                 constraints=constraints.to_dict(), requirements=constraints.requirements())
        return plan

    def _act(self, state: AgentState, action: Action, budget: int, trace: TraceRecorder,
             automatic: bool = False) -> str:
        """Run one tool call; returns the feedback for the next prompt (an error the model should fix)."""
        with trace.step("tool_call", "Retriever", tool=action.tool, input=action.input, automatic=automatic) as event:
            result = self.tools.run(state, action.tool, action.input, budget)
            state.tool_calls_used += result.calls
            event.summary = f"{action.tool} {_describe(result.input)}: {result.summary}"
            event.inputs["input"] = result.input
            event.outputs.update(output_summary=result.summary, observation=result.observation, error=result.error,
                                 tool_calls_used=state.tool_calls_used)
            if result.calls == 0:
                event.status = "failed"
        if result.calls == 0:  # nothing ran: the error is for the next prompt only
            return result.observation
        state.observations.append(result.observation)
        return ""

    def _iteration_prompt(self, state: AgentState, constraints: ConstraintAnalysis, plan: AgentPlan, budget: int,
                          feedback: str, style: str | None, offered: list[str], final_allowed: bool) -> str:
        """The stable part first (question, plan, requirements, the growing observation log), the
        counters and any correction last, so consecutive prompts share the longest prefix."""
        s = self.settings
        steps = "\n".join(f"{n}. {step}" for n, step in enumerate(plan.steps, 1))
        requirements = constraints.requirements() + [STYLE_INSTRUCTIONS.get(style or s.answer_style,
                                                                              STYLE_INSTRUCTIONS["concise"])]
        parts = [
            f"CURRENT CONTEXT:\nQuestion: {state.question[: s.max_question_chars]}",
            f"Plan:\n{steps}",
            "REQUIREMENTS:\n" + "\n".join(f"- {r}" for r in requirements),
            *state.observations,
        ]
        if feedback:
            parts.append(feedback)
        # No "Current step: k of n": steps and tool calls do not pair up (one call can do three
        # searches), and a 1.5B model told it was on a search step repeated that search.
        choices = offered + (["final"] if final_allowed else [])
        parts.append(
            f"TOOL BUDGET: {budget} calls remaining\nSEARCHES DONE: {state.searches_done}\n"
            f"CITATIONS OPENED: {len(state.opened)}\nNEXT ACTION MAY BE: {', '.join(choices)}\n\n"
            "Output your next action as JSON:"
        )
        return "\n\n".join(parts)

    def _accept(self, state: AgentState, plan: AgentPlan, completions: list[Completion], action: Action,
                result: gates.GateResult, reprompts: int, iteration: int) -> AgentRun:
        grounded = self._ground(action.answer, [c.hit for c in state.opened], False, state)
        insufficiencies = [_insufficiency(i, state) for i in action.insufficiencies]
        return AgentRun(grounded.answer, grounded, insufficiencies, state, plan, result, True, None, reprompts,
                        iteration, completions=completions)

    def _ground(self, answer: str, sources: list[SearchHit], from_snippets: bool, state: AgentState) -> Grounded:
        """[N] markers to citations; an answer from sources that cites none gets its markers by
        word overlap (small models often leave them out)."""
        attributed: list[int] = []
        if sources and not cited_markers(answer):
            answer, attributed = attribute_markers(answer, [h.chunk.text for h in sources],
                                                   self.settings.attribution_min_overlap)
        grounded = ground_citations(answer, sources, from_snippets=from_snippets, fallback=_fallback(state, self.settings))
        grounded.attributed = attributed
        return grounded

    def _finish(self, question: str, constraints: ConstraintAnalysis, state: AgentState, plan: AgentPlan,
                completions: list[Completion], reprompts: int, iteration: int, last_final: Action | None,
                pending: gates.GateResult | None, reason: str, style: str | None, on_token: TokenCallback | None,
                trace: TraceRecorder, llm_error: str | None = None) -> AgentRun:
        """Forced synthesis: answer from what was gathered, and say what is missing."""
        s = self.settings
        budget = s.max_tool_calls - state.tool_calls_used
        if not state.hits and llm_error is None and budget > 0:
            # The model never searched: search for the question itself, as the pipeline would,
            # so the synthesis has evidence to stand on.
            self._act(state, Action(TOOL_CALL, tool=SEARCH_DOCS, input={"queries": [question[: s.agent_query_max_chars]]}),
                      budget, trace, automatic=True)
        insufficiencies = [_insufficiency(i, state) for i in (last_final.insufficiencies if last_final else [])]
        unmet = (pending.errors if pending else
                 gates.validate_min_searches(constraints, state) + gates.validate_min_open_citations(constraints, state))
        insufficiencies += [asdict(Insufficiency(e.section, e.message, list(state.search_queries)))
                            for e in unmet if e.missing_information]
        sources = [c.hit for c in state.opened][: s.max_context_citations]
        from_snippets = not sources
        if from_snippets:
            sources = _fallback(state, s)
        answer = ""
        if llm_error is None:
            with trace.step("llm_call", "Reasoner", provider=self.llm.name, model=self.llm.model,
                            synthesis=True, reason=reason) as event:
                prompt = SYNTHESIS_PROMPT.format(
                    phrase=constraints.insufficiency_phrase, question=question[: s.max_question_chars],
                    sources="\n\n".join(f"[{n}] {where(h.chunk)}:\n{h.chunk.text[: s.max_citation_text_for_llm]}"
                                        for n, h in enumerate(sources, 1)) or "(nothing was found)",
                )
                event.outputs.update(prompt=prompt)
                try:
                    completion = self.llm.stream([{"role": "user", "content": prompt}], on_token or (lambda _: None),
                                                 max_tokens=s.answer_max_tokens, temperature=s.answer_temperature)
                    completions.append(completion)
                    answer = completion.text.strip()
                    event.summary = f"forced synthesis: {reason}"
                    event.outputs.update(raw_output=completion.text, **_usage(completion))
                except LLMError as exc:
                    llm_error = str(exc)
                    event.status = "failed"
                    event.summary = f"error: {exc}"
        if not answer:
            answer = last_final.answer if last_final else LLM_ERROR_ANSWER.format(error=llm_error or "no answer")
            from_snippets = False
            sources = [c.hit for c in state.opened]
        grounded = self._ground(answer, sources, from_snippets, state)
        if from_snippets:  # [N] are search results here, so only the claims can be checked
            final_gate = gates.GateResult()
            final_gate.ungrounded, final_gate.errors = gates.validate_grounded_claims(grounded.answer, state, constraints)
        else:
            final_gate = gates.validate_agent_state(grounded.answer, constraints, state, insufficiencies,
                                                    min_quote_chars=s.min_exact_quote_chars,
                                                    min_answer_chars=s.min_answer_chars)
        grounded.answer = disclose(grounded.answer, insufficiencies, constraints.insufficiency_phrase)
        return AgentRun(grounded.answer, grounded, insufficiencies, state, plan, final_gate, False, reason, reprompts,
                        iteration, llm_error, completions)


def next_choices(names: list[str], constraints: ConstraintAnalysis, state: AgentState, budget: int,
                 pending: gates.GateResult | None, failed_tool: str | None) -> tuple[list[str], bool]:
    """The tools the next action may use, and whether it may be final. While a minimum of the
    prompt is unmet or a rejected answer needs more evidence, and budget remains: only tools, and
    only open_citation when opening is all that is missing. A tool whose call just ran nothing is
    not offered again when there is another."""
    unmet = gates.validate_min_searches(constraints, state) + gates.validate_min_open_citations(constraints, state)
    needed = {e.fix_tool for e in unmet if e.fix_tool} | (pending.fix_tools if pending else set())
    openable = any(not state.opened_as(h.chunk.chunk_id) for h in state.hits.values())
    tools = list(names)
    if needed == {OPEN_CITATION} and openable and OPEN_CITATION in tools:
        tools = [OPEN_CITATION]  # more searching cannot give what is missing
    if failed_tool in tools and len(tools) > 1:
        tools.remove(failed_tool)
    return tools, not (budget > 0 and needed)


def disclose(answer: str, insufficiencies: list[dict], phrase: str) -> str:
    """Append what is missing, in the disclosure phrase, unless the answer already says it."""
    if not insufficiencies or phrase.lower() in answer.lower():
        return answer
    lines = [f"- {i['section']}: {i['missing']}" if i.get("section") else f"- {i['missing']}" for i in insufficiencies]
    return f"{answer}\n\n{phrase}:\n" + "\n".join(lines)


def _insufficiency(listed: dict, state: AgentState) -> dict:
    return asdict(Insufficiency(listed.get("section", ""), listed.get("missing", ""), list(state.search_queries)))


def _fallback(state: AgentState, settings: Settings) -> list[SearchHit]:
    """The search results the agent saw, best first, for grounding when nothing was opened."""
    hits = sorted(state.hits.values(), key=lambda h: -h.chunk.score)
    return hits[: settings.max_context_citations]


def _describe(tool_input: dict) -> str:
    """ '"reindex", "delete order"' or 'R1, R3': what a tool was asked, for the live status."""
    values = tool_input.get("queries") or tool_input.get("ids") or [tool_input.get("query", "")]
    quoted = "queries" in tool_input or "query" in tool_input
    return ", ".join(f'"{v}"' if quoted else str(v) for v in values if v)


def _usage(completion: Completion) -> dict:
    return {"prompt_tokens": completion.prompt_tokens, "completion_tokens": completion.completion_tokens,
            "cached_tokens": completion.cached_tokens, "finish_reasons": [completion.finish_reason],
            "llm_seconds": [completion.seconds]}


def _record_validation(trace: TraceRecorder, result: gates.GateResult, reprompts: int, max_reprompts: int) -> None:
    verdict = "accepted" if result.valid else "rejected: " + ", ".join(result.codes)
    notes = "Validation passed" if result.valid else f"Validation failed ({reprompts + 1}/{max_reprompts + 1})"
    trace.record("validation", "Validator", verdict, is_valid=result.valid, errors=[e.message for e in result.errors],
                 codes=result.codes, cited=result.cited, invalid_citations=result.invalid_citations,
                 unsupported=result.ungrounded, notes=notes)
