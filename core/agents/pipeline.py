"""The answering pipeline: Planner -> Retriever -> Reasoner -> Validator -> Responder.

Each step is traced; redaction, the interrupted-turn record and saving the turn are the shared
lifecycle of core/agents/turn.py, which agent mode uses as well.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable

from core.agents import decompose as decompose_agent
from core.agents import planner as planner_agent
from core.agents import question_kind
from core.agents import reasoner as reasoner_agent
from core.agents import responder as responder_agent
from core.agents import retriever as retriever_agent
from core.agents import search_words as search_words_agent
from core.agents import validator as validator_agent
from core.agents.planner import Plan
from core.agents.reasoner import Draft
from core.agents.retriever import Evidence
from core.agents.responder import PIPELINE, Response
from core.agents.router import DocumentRouter
from core.agents.turn import Turn
from core.agents.validator import Validation
from core.annotations.finder import TableFinder
from core.annotations.named_rows import rows_named
from core.annotations.select import sourced_files
from core.annotations.plan import warm_plan_prompts
from core.annotations.route import (PLANNED_KINDS, TableRoute, payload, run_planned_query, run_record_lookup,
                                    run_structured, run_table_query, save_result_set)
from core.annotations.search import FactStore
from core.annotations.sql import ReadOnlyExecutor
from core.annotations.tables import TableStore
from core.conversation.summary import ResultSetCommand
from core.config import Settings
from core.llm.base import ChatLLM, TokenCallback
from core.retrieval import HybridRetriever
from core.safety.pii import StreamRedactor
from core.store import KnowledgeBase
from core.store.catalog import INDEXED
from core.trace import TraceRecorder
from core.trace.events import Listener


class AnswerPipeline:
    def __init__(self, kb: KnowledgeBase, retriever: HybridRetriever, llm: ChatLLM, settings: Settings) -> None:
        self.kb = kb
        self.retriever = retriever
        self.llm = llm
        self.settings = settings
        self.facts = FactStore(kb.catalog.facts, kb.embedder.embed, settings.label_similarity,
                               generation=lambda: kb.catalog.get_meta("generation") or "0")
        self.tables = TableStore(lambda: kb.catalog.documents(INDEXED), kb.catalog.facts,
                                 settings.data_dir / "tables.sqlite3", lambda: kb.catalog.get_meta("generation") or "0",
                                 settings.max_table_pages)
        self.executor = ReadOnlyExecutor(self.tables.path, settings.table_query_max_rows, settings.table_query_timeout_s)
        self.finder = TableFinder(
            self.tables, self.facts, self.executor, lambda: [d.filename for d in kb.documents() if d.status == "indexed"],
            lambda texts: kb.embedder.embed(texts), llm, settings, asks_records=_surely_records)
        self.router = DocumentRouter(kb, settings) if settings.document_routing else None
        # Told of each answered turn's final draft and its validation (the benchmarks keep them).
        self.on_answer: Callable[[Draft, Validation], None] | None = None

    def warm_table_plans(self, limit: int, idle: Callable[[], bool]) -> list[str]:
        """Read the plan prompts of up to `limit` tables a plan can answer into the model's prompt cache
        (core.annotations.plan.warm_plan_prompts), the newest documents' first; the names of the tables read."""
        added = {d.doc_id: n for n, d in enumerate(self.kb.catalog.documents(INDEXED))}
        tables = sorted((t for t in self.tables.tables() if t.kind in PLANNED_KINDS), key=lambda t: -added.get(t.doc_id, -1))
        return warm_plan_prompts(tables, self.llm, self.executor, limit, idle)

    def ask(
        self, question: str, *, style: str | None = None, top_k: int | None = None,
        on_token: TokenCallback | None = None, on_event: Listener | None = None, previous_question: str = "",
        previous_subject: str = "", result_set: ResultSetCommand | None = None, doc_ids: list[str] | None = None,
        search_in: list[str] | None = None, redact_answers: bool | None = None,
    ) -> Response:
        """doc_ids: answer from these documents only (`ask --doc`): their tables, else their text.
        result_set: a command on the previous result set ("show the rest", "export that table").
        search_in: a diagnostic of retrieval: the route is chosen as usual, then every text search
        is restricted to these documents. redact_answers: hide personal data in the answer (default: the setting)."""
        turn = Turn(self.kb.catalog, question, on_event, PIPELINE,
                    self.settings.redact_answers if redact_answers is None else redact_answers)
        evidence = draft = validation = None
        plan = turn.accept(self._plan(turn.question, previous_question, result_set, turn.trace, doc_ids, previous_subject))
        if search_in and plan.needs_retrieval:
            plan = replace(plan, doc_ids=search_in)
        if plan.needs_retrieval:
            evidence = self._retrieve(plan, top_k, turn.trace)
            if not evidence.has_records:  # the model will write, and its words stream to the screen
                turn.before_writing(plan)
            draft = self._reason(plan, evidence, style, turn.stream(on_token), turn.trace)
            draft, validation = self._validate(plan, evidence, draft, style, top_k, turn.trace)
            if self.on_answer is not None:
                self.on_answer(draft, validation)
        return turn.finish(plan, lambda: self._respond(plan, draft, validation, evidence))

    # --- the five steps -------------------------------------------------------------------------

    def _plan(self, question: str, previous_question: str, result_set: ResultSetCommand | None, trace: TraceRecorder,
              doc_ids: list[str] | None = None, previous_subject: str = "") -> Plan:
        with trace.step("plan", "Planner", question=question, previous_question=previous_question) as event:
            plan = planner_agent.plan_question(
                question, knowledge_base_empty=self.kb.is_empty(), settings=self.settings,
                previous_question=previous_question, previous_subject=previous_subject, result_set=result_set, llm=self.llm,
                value_columns=self.kb.catalog.facts.columns_holding,
            )
            if doc_ids and plan.needs_retrieval:
                plan = replace(plan, doc_ids=doc_ids)
            sourced = None
            if not doc_ids and plan.needs_retrieval and plan.route != planner_agent.RESULT_SET:
                sourced = self._sourced(plan.question)
                if sourced is not None:
                    plan = replace(plan, doc_ids=[sourced[1]])
            facts_available = plan.needs_retrieval and plan.route != planner_agent.RESULT_SET and (
                self.kb.counts()["facts"] > 0)
            plan = replace(plan, tables=self.finder.find(plan.question, plan.doc_ids) if facts_available else None)
            kind = None
            if plan.needs_retrieval and plan.route != planner_agent.RESULT_SET:
                # the model is asked only where the rules are unsure and a table was selected, if enabled
                selected = bool(plan.tables and plan.tables.selections)
                llm = self.llm if self.settings.route_kind_model else None
                # "Who won after Byron Nelson?" names a row of the table and asks for the one beside it
                rows = selected and rows_named(plan.question, plan.tables.selections[0].table, self.executor) is not None
                kind = question_kind.classify(plan.question, table_selected=selected, llm=llm,
                                              max_tokens=self.settings.route_kind_max_tokens, names_rows=rows)
            plan = planner_agent.choose_route(plan, plan.tables, kind)
            decomposition = self._decompose(plan)
            if decomposition is not None:
                plan = replace(plan, decomposition=decomposition, classification=decomposition.kind,
                               sub_queries=decomposition.sub_queries)
            event.summary = plan.describe()
            event.outputs.update(plan.trace())
            if sourced is not None:
                event.summary += f"; only {sourced[0]} is read: the question names it as its source"
                event.outputs["sourced_by_question"] = sourced[0]
        return plan

    def _sourced(self, question: str) -> tuple[str, str] | None:
        """(file name, doc_id) of the one document the question gives as its source ("according to the annual
        report"): the question is read from it alone, as if the user had scoped it there (its tables, else its text)."""
        indexed = {d.filename: d.doc_id for d in self.kb.documents() if d.status == "indexed"}
        sourced = sourced_files(question, sorted(indexed))
        return (sourced[0], indexed[sourced[0]]) if sourced else None

    def _decompose(self, plan: Plan) -> decompose_agent.Decomposition | None:
        """Text questions: classify and split into sub-queries. The model is offered
        only on the hybrid route (a question about records is answered from the facts)."""
        if not plan.needs_retrieval or plan.route == planner_agent.RESULT_SET or plan.enumeration:
            return None
        llm = self.llm if plan.route == planner_agent.HYBRID else None
        return decompose_agent.decompose(plan.question, self.settings, llm)

    def _retrieve(self, plan: Plan, top_k: int | None, trace: TraceRecorder, expand: int | None = None,
                  earlier: Evidence | None = None) -> Evidence:
        """The evidence for the plan: the stored result set, the table route's, else the text searches'. A
        refined retrieval passes the `earlier` evidence, whose routing and search words it reuses."""
        if plan.route == planner_agent.RESULT_SET:
            with trace.step("retrieval", "Retriever", route="result_set") as event:
                evidence = retriever_agent.reopen_result_set(plan, self.facts, self.kb, self.settings.max_rows_per_answer)
                event.summary, event.outputs = evidence.describe(), evidence.trace()
            return evidence
        fallback_from = None
        if plan.route == planner_agent.STRUCTURED:
            evidence = self._retrieve_facts(plan, trace)
            if evidence.none_dated_then_of_a_named_value:
                return evidence  # "What did Tesco donate in 2023?": the log holds Tesco, and no row of 2023
            if evidence.refused_by_table and not plan.kind_said:
                # "Where does Helios assemble its modules?" took a spec sheet by its sheet's name, whose
                # columns cannot say: nothing in the question asked for records, so the pages may.
                trace.record("reflection", "Retriever", "the table cannot answer this and nothing in the question "
                             "asks for records: searching the text instead")
            elif not plan.kind_said and evidence.has_records and evidence.reads_whole_table:
                # "What entitlements do holders of ordinary shares have?" listed every row of the share table:
                # nothing in the question asked for records, and the plan applied none of its words
                trace.record("reflection", "Retriever", "nothing in the question asks for records and the table's "
                             "answer applies none of its words: searching the text instead")
            elif not plan.kind_said and evidence.has_records and evidence.lists_only_named_cells:
                # "What is lease related and other charges?" listed the two row labels it names: nothing in the
                # question asked for rows, and a list of what it named tells the asker nothing
                trace.record("reflection", "Retriever", "nothing in the question asks for records and the table's "
                             "answer only lists the rows it names: searching the text instead")
            elif evidence.refused_by_table and (not evidence.structured.planned.table.is_whole_document
                                                or evidence.names_unrecorded):
                # a report's table has no line for "the federal minimum tax credit carryforwards"; the note
                # beside it in the prose may state it, as a report may the planned maintenance a repairs log never names
                trace.record("reflection", "Retriever", "the table cannot answer this; the pages around it may: "
                             "searching the text instead")
            elif evidence.has_records:
                return evidence
            else:
                fallback_from = evidence.structured
                trace.record("reflection", "Retriever", "no stored facts matched: falling back to text search",
                             attempts=[a.__dict__ for a in fallback_from.attempts])
        k = top_k or self.settings.top_k
        if plan.enumeration:  # a list needs more of the documents than a fact does
            k = max(k, self.settings.enumeration_top_k)
        words = earlier.search_words if earlier is not None else None
        if words is None and self._search_is_hard(plan):
            words = self._search_words(plan, trace)
        with trace.step("retrieval", "Retriever", queries=plan.sub_queries, top_k=k) as event:
            evidence = retriever_agent.retrieve(plan, self.retriever, k, self.settings, expand=expand, router=self.router,
                                                routing=earlier.routing if earlier is not None else None,
                                                search_words=words)
            evidence.fallback_from = fallback_from
            if fallback_from is not None:
                evidence.chunks = retriever_agent.without_rows_read(evidence.chunks, fallback_from)
            if plan.passed_over:  # "Can we take dented tins?" is answered by the handbook, not the donation rows
                evidence.chunks = retriever_agent.prose_first(evidence.chunks, plan.passed_over)
            event.summary, event.outputs = evidence.describe(), evidence.trace()
        if planner_agent.LONG_TEXT in plan.fallbacks and not evidence.error and (
                evidence.average_similarity < self.settings.long_text_fallback_similarity):
            evidence = self._retrieve_long_text(plan, k, evidence, trace)
        return evidence

    def _search_is_hard(self, plan: Plan) -> bool:
        """The search-words call is worth its seconds for one question (sub-queries are searched as
        written) over more chunks than each retriever's candidate pool: a smaller scope is read whole."""
        s = self.settings
        if not s.search_words_model or len(plan.sub_queries) > 1:
            return False
        chunks = len(self.kb.chunk_ids_for_documents(plan.doc_ids)) if plan.doc_ids else self.kb.counts()["chunks"]
        return chunks > s.candidate_pool

    def _search_words(self, plan: Plan, trace: TraceRecorder) -> search_words_agent.SearchWords:
        """The words the documents would use for the question, searched beside it (one short call)."""
        with trace.step("llm_call", "Retriever", question=plan.question, search_words=True) as event:
            found = search_words_agent.suggest(plan.question, self.llm, self.settings.search_words_max_tokens)
            event.summary = f"searching also “{found.words}”" if found.words else found.reason
            event.outputs.update(found.trace())
        return found

    def _retrieve_long_text(self, plan: Plan, k: int, weak: Evidence, trace: TraceRecorder) -> Evidence:
        """The last fallback: when text search found nothing close, the best sections of long documents."""
        with trace.step("retrieval", "Retriever", route="long_text", after_similarity=round(weak.average_similarity, 3)) as event:
            found = retriever_agent.retrieve_long_text(plan, self.retriever, k, self.settings.long_text_sections)
            better = found is not None and found.average_similarity > weak.average_similarity
            event.summary = ("no long document has section summaries" if found is None else
                             found.describe() + ("" if better else ": no closer than the text search, which is kept"))
            if found is not None:
                event.outputs = found.trace()
        if not better:
            return weak
        found.fallback_from, found.routing, found.search_words = weak.fallback_from, weak.routing, weak.search_words
        return found

    def _retrieve_facts(self, plan: Plan, trace: TraceRecorder) -> Evidence:
        route: TableRoute = plan.tables
        with trace.step("retrieval", "Retriever", route="structured", understood=route.notes,
                        tables=[x.table.name for x in route.selections], path="rules" if route.fast else "model") as event:
            result, handed_over = None, None
            if route.lookup is not None:  # one field of one named invoice or receipt
                result = run_record_lookup(plan.question, *route.lookup, self.executor, self.facts)
            elif route.fast:  # the rules read the whole question: their filters, on the selected documents only
                route.parsed.query.doc_ids = sorted({x.table.doc_id for x in route.selections})
                result = run_structured(route.parsed, self.facts)
                if result.relaxed:
                    # found only without the names or the period the question states ("the Revenue from UK in
                    # 2019" over a table whose years are its columns listed every row): the plan reads it
                    handed_over = f"the rules found nothing as stated, only {result.relaxed[-1]}: the plan reads it"
                    result = None
            if result is None:
                s = self.settings
                result = run_planned_query(plan.question, route.selections, self.llm, self.executor, self.facts,
                                           s.table_example_rows, s.table_query_max_tokens, s.table_plan_max_tokens) \
                    if s.table_query_form == "plan" else \
                    run_table_query(plan.question, route.selections, self.llm, self.executor, self.facts,
                                    s.table_example_rows, s.table_query_max_tokens)
            evidence = retriever_agent.structured_evidence(result, self.kb)
            event.summary, event.outputs = evidence.describe(), evidence.trace()
            if handed_over:
                event.outputs["handed_over"] = handed_over
            if evidence.failed:
                event.status = "failed"
        return evidence

    def _reason(self, plan: Plan, evidence: Evidence, style: str | None, on_token: StreamRedactor | None,
                trace: TraceRecorder) -> Draft:
        s = self.settings
        if evidence.has_records:
            with trace.step("prompt", "Reasoner", summary="answer phrased from the facts (no LLM call)") as event:
                draft = reasoner_agent.phrase_structured(
                    evidence.structured, evidence.chunks, s.max_rows_per_answer, s.max_snippets_per_answer, on_token,
                )
                event.outputs = draft.trace()
            if on_token is not None:
                on_token.flush()
            return draft
        # A summary ("the main points of the February minutes") is no one quoted sentence: the model writes the
        # points in its own words, each cited ([Source N]), checked as any free answer is
        summary = plan.kind == question_kind.SUMMARY
        form = reasoner_agent.FREE if summary else s.reader_form
        style = style or ("bullet" if summary else s.answer_style)
        # one synthesis call over every sub-query's evidence.
        question = decompose_agent.synthesis_question(plan.question, plan.sub_queries) \
            if plan.classification != decompose_agent.SIMPLE else plan.question
        chunks, set_aside = retriever_agent.of_the_period_asked(plan.question, evidence.chunks) if summary \
            else (evidence.chunks, [])
        # The live status says how many passages the model reads and about how long that takes.
        with trace.step("llm_call", "Reasoner", provider=self.llm.name, model=self.llm.model, style=style,
                        passages=len(evidence.chunks),
                        prompt_tokens_estimate=self._prompt_estimate(question, evidence, style)) as event:
            draft = reasoner_agent.reason(
                question, chunks, self.llm, style=style,
                budget=s.summary_token_budget if summary else s.context_token_budget,
                temperature=s.answer_temperature, max_tokens=s.answer_max_tokens,
                count_tokens=self.kb.embedder.count_tokens, on_token=on_token, form=form,
                max_sources=retriever_agent.passages_to_read(plan, evidence.routing, s), layout=s.reader_prompt_layout,
            )
            if on_token is not None:
                on_token.flush()
            event.summary, event.outputs = draft.describe(), {**draft.trace(), "form": form}
            if set_aside:  # passages under a heading dated another month or year than the summary asks for
                event.outputs["set_aside"] = [f"{c.filename} p. {c.page}" if c.page else c.filename for c in set_aside]
            if draft.error:
                event.status = "failed"
        return draft

    def _prompt_estimate(self, question: str, evidence: Evidence, style: str) -> int:
        """The answer prompt's size in the model's tokens, before it is built: the instructions
        and question, plus the passages up to the context budget."""
        count = self.kb.embedder.count_tokens
        instructions = sum(count([reasoner_agent.build_prompt(question, [], style)]))
        passages = min(self.settings.context_token_budget, sum(count([c.text for c in evidence.chunks])))
        return round((instructions + passages) * self.settings.llm_tokens_per_word_piece)

    def _validate(
        self, plan: Plan, evidence: Evidence, draft: Draft, style: str | None, top_k: int | None,
        trace: TraceRecorder,
    ) -> tuple[Draft, Validation]:
        validation = self._check(draft, trace)
        iteration = 1  # self-reflection: at most max_reflection_iterations answers in all
        while not draft.exact and iteration < self.settings.max_reflection_iterations:
            reflection = self._reflect(plan, draft, validation)
            if reflection.source != "rules":  # the model was asked: its verdict belongs in the trace
                trace.record("reflection", "Validator", reflection.reason, **reflection.trace())
            if reflection.sufficient:
                break
            iteration += 1
            # a refined retrieval searches the text: the table query already ran and found nothing
            refined = replace(plan, sub_queries=reflection.queries, route=planner_agent.HYBRID
                              if plan.route == planner_agent.STRUCTURED else plan.route)
            trace.record(
                "reflection", "Validator", f"refining retrieval (iteration {iteration}): {reflection.reason}",
                unsupported=validation.unsupported, queries=refined.sub_queries, source=reflection.source,
            )
            more = self._retrieve(refined, top_k, trace, expand=1, earlier=evidence)
            second = self._reason(plan, more, style, None, trace)
            second_validation = self._check(second, trace)
            # A refusal never replaces an answer: it has no gaps only because it says nothing.
            refusal_for_answer = second_validation.is_no_information and not validation.is_no_information
            if not refusal_for_answer and decompose_agent.improves(
                    self._gaps(plan, draft, validation), self._gaps(plan, second, second_validation),
                    second_validation.is_valid, reflection.source):
                draft, validation = second, second_validation
            else:  # the best answer so far stands
                break
        return draft, validation

    def _reflect(self, plan: Plan, draft: Draft, validation: Validation) -> decompose_agent.Reflection:
        return decompose_agent.reflect(
            plan.question, _parts(plan), draft.answer, is_valid=validation.is_valid,
            is_no_information=validation.is_no_information, unsupported=validation.unsupported,
            settings=self.settings, llm=self.llm,
        )

    @staticmethod
    def _gaps(plan: Plan, draft: Draft, validation: Validation) -> tuple[int, int]:
        missing = [] if validation.is_no_information else decompose_agent.uncovered(draft.answer, _parts(plan))
        return len(validation.unsupported), len(missing)

    def _check(self, draft: Draft, trace: TraceRecorder) -> Validation:
        with trace.step("validation", "Validator") as event:
            validation = validator_agent.validate(draft, self.settings)
            event.summary, event.outputs = validation.describe(), validation.trace()
        return validation

    def _respond(self, plan: Plan, draft: Draft | None, validation: Validation | None,
                 evidence: Evidence | None) -> Response:
        response = responder_agent.respond(plan, draft, validation)
        if evidence is not None and evidence.has_records:
            result_set_id = save_result_set(self.kb.catalog, plan.question, evidence.structured)
            response.structured = payload(evidence.structured, result_set_id, self.settings.max_rows_per_answer)
            response.route = planner_agent.STRUCTURED
        else:
            response.route = planner_agent.HYBRID if plan.needs_retrieval else "none"
        if evidence is not None and evidence.fallback_from is not None:
            response.clarification = clarification(evidence.fallback_from)
        # the query plan's call counts too: a records answer's model time is spent there, not in a draft
        planned = getattr(evidence.structured, "planned", None) if evidence is not None else None
        # and so do the calls that chose the table and that wrote a free query
        written = getattr(evidence.structured, "table_query", None) if evidence is not None else None
        calls = [planned.tokens if planned is not None else {}, plan.tables.choice_tokens if plan.tables else {},
                 getattr(written, "tokens", None) or {}]
        response.tokens = {
            "prompt": (draft.prompt_tokens if draft else 0) + sum(c.get("prompt", 0) for c in calls),
            "completion": (draft.completion_tokens if draft else 0) + sum(c.get("completion", 0) for c in calls),
        }
        return response


def _surely_records(question: str) -> bool:
    """Whether the rules are sure the question asks for records: only then may the model choose a table."""
    kind = question_kind.by_rules(question, question_kind.TEXT)
    return kind.sure and kind.kind == question_kind.RECORDS


def clarification(result) -> str:
    """The clarification, in a reader's words: which files were searched and what would help. What was
    tried (queries, their errors) belongs to the trace, never to this note."""
    query = result.table_query
    files = " and ".join(query.files) if query is not None and query.files else "the tables"
    return (f"No rows of {files} matched this question, so the answer comes from a text search. To search "
            "the records, try other words for the item, a product or customer name as it appears in the "
            "files, a unit (“1.2 m”), or a time range (“in 2024”).")


def _parts(plan: Plan) -> list[str]:
    """The parts an answer must name, checked by reflection: the things a comparison compares.
    (A good answer about a change over time may give figures without naming each period, and
    a retry costs a model call, so only a missing name asks for one.)"""
    return plan.sub_queries if plan.classification == decompose_agent.COMPARATIVE else []

