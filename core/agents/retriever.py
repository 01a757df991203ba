"""Retriever: run the plan's searches; on any failure, return no chunks.

A plan with several sub-queries searches them concurrently and merges the hits
(core.agents.decompose); each search is pre-filtered to the documents the router picks for it
and falls back to every document when that comes back weak. When the router picked several
documents by name, each one's best passage comes first."""
from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

from core.agents.decompose import SubQueryResult, merge, search_all
from core.agents.planner import HYBRID, LONG_TEXT, RESULT_SET, STRUCTURED, Plan
from core.agents.router import DocumentRouter, Routing, is_weak
from core.agents.search_words import SearchWords
from core.annotations.conditions import MONTH_NAME, month_number, periods, years_in
from core.annotations.plan import NO_ROWS_THEN, ROWS_COUNTED
from core.annotations.route import StructuredResult
from core.annotations.search import FactQuery, FactStore
from core.config import Settings
from core.ingest.context import is_heading
from core.retrieval import HybridRetriever, RetrievalResult, RetrievedChunk
from core.retrieval.long_text import Span, summary_then_segment
from core.store import KnowledgeBase

log = logging.getLogger(__name__)


def _names_a_value(condition: str) -> bool:
    """A condition that is a name the question gives ("tesco"), not a period, a bound or a model's filter."""
    return not re.search(r"\d|\b(?:is|over|under|at least|at most|contains)\b", condition) and not periods(condition)


@dataclass
class Evidence:
    chunks: list[RetrievedChunk]
    results: list[RetrievalResult] = field(default_factory=list)
    error: str | None = None
    structured: StructuredResult | None = None  # set on the structured route
    fallback_from: StructuredResult | None = None  # the structured attempts that found nothing
    searches: list[SubQueryResult] = field(default_factory=list)  # per sub-query: routing, fallback, errors
    merged: dict | None = None  # dedup and selection counts, when several sub-queries were merged
    route: str = HYBRID  # which search found it: hybrid, structured, result_set or long_text
    sections: list[Span] = field(default_factory=list)  # the long-text route: the page spans searched
    # what the text search decided once a turn, reused by a refined retrieval: the documents the question is
    # about (core.agents.router.Routing) and their own words for it (core.agents.search_words.SearchWords)
    routing: Routing | None = None
    search_words: SearchWords | None = None

    @property
    def refused_by_table(self) -> bool:
        """The plan found the table cannot answer: it has no column for what is asked, or no row of a stated year."""
        return self.structured is not None and self.structured.planned is not None and self.structured.planned.refused

    @property
    def names_unrecorded(self) -> bool:
        """The table's refusal is about words it holds nowhere (`PlannedQuery.named_unrecorded`): the pages may say it."""
        return self.refused_by_table and self.structured.planned.named_unrecorded

    @property
    def none_dated_then_of_a_named_value(self) -> bool:
        """The table holds what the question names ("Tesco" of its Donor column) but no row of the period it states:
        that is the answer ("no rows dated 2023"), not a reason to search pages that never mention the period."""
        planned = self.structured.planned if self.refused_by_table else None
        return planned is not None and any(a.note.startswith(NO_ROWS_THEN) for a in planned.applied) \
            and any(a.how in ("in the plan", "added by code") and a.column and _names_a_value(a.condition)
                    for a in planned.applied)

    @property
    def _plan(self):
        """The query plan the table route ran, if it ran one."""
        planned = self.structured.planned if self.structured is not None else None
        return planned.plan if planned is not None else None

    @property
    def reads_whole_table(self) -> bool:
        """The plan read the whole table, applying no condition, row or group of the question's."""
        return self._plan is not None and self._plan.reads_whole_table

    @property
    def lists_only_named_cells(self) -> bool:
        """The plan listed only the cells the question names, in the column they are in (`Plan.lists_only_named_cells`)."""
        return self._plan is not None and self._plan.lists_only_named_cells

    @property
    def has_records(self) -> bool:
        """Structured facts matched: the answer is phrased from them, without the model."""
        if self.refused_by_table:
            return True  # "the table has no column for it" is the answer, said without the model
        if self.structured is not None and self.structured.table_query is not None:
            # A count of 0 is an answer; no rows, or rows of nothing but blanks (a SUM over no row, a label
            # the query guessed), are not: the text route reads the page instead. A plan's figure comes
            # with how many rows it read (rows_counted), a number even when the figure is blank.
            query = self.structured.table_query
            figures = [i for i, c in enumerate(query.columns) if c != ROWS_COUNTED] or range(len(query.columns))
            return any(row[i] not in (None, "") for row in query.rows for i in figures)
        return self.structured is not None and bool(self.structured.rows)

    @property
    def average_similarity(self) -> float:
        scored = [c.similarity for c in self.chunks if c.expanded_from is None]
        return sum(scored) / len(scored) if scored else 0.0

    @property
    def failed(self) -> bool:
        """The model's table query failed (its error is in the trace)."""
        query = self.structured.table_query if self.structured is not None else None
        return query is not None and bool(query.error)

    def describe(self) -> str:
        """One line for the live status and the trace."""
        if self.route == RESULT_SET:
            return f"{self.structured.total} records from the previous result"
        if self.route == STRUCTURED:
            result, query = self.structured, self.structured.table_query
            text = (f"{result.total} matching facts" if query is None else
                    f"query over {', '.join(query.tables)}: {len(query.rows)} rows"
                    + (f" after {len(query.attempts)} attempts" if len(query.attempts) > 1 else "")
                    + (f" (failed: {query.error})" if query.error else ""))
            if result.relaxed:  # what keeps the answer from high confidence
                text += " (filters relaxed)" if query is None else f" ({'; '.join(result.relaxed)})"
            return text
        if self.route == LONG_TEXT:
            return f"{len(self.chunks)} chunks from {len(self.sections)} sections"
        text = f"{len(self.chunks)} chunks" + (f" (error: {self.error})" if self.error else "")
        return text + self._routing_summary()

    def _routing_summary(self) -> str:
        """ "; routed to 2 documents (the question names apple)" or the fallback, for the live status."""
        routed = [s for s in self.searches if s.routing and s.routing["doc_ids"]]
        if not routed:
            return ""
        chosen = {c["filename"] for s in routed for c in s.routing["chosen"]}
        text = f"; routed to {len(chosen)} document(s) ({routed[0].routing['reason']})"
        if any(s.fell_back for s in routed):
            text += ", weak results so every document was searched"
        return text

    def trace(self) -> dict:
        """What the Agent Trace page shows of the search: per sub-query, its routing and candidates
        with their ranks; or the structured attempts, query and first facts."""
        if self.route == RESULT_SET:
            return {"attempts": [a.__dict__ for a in self.structured.attempts]}
        if self.route == STRUCTURED:
            result, query = self.structured, self.structured.table_query
            outputs = {} if query is None else {"query": query.trace(), "prompt": query.prompt}
            return {**outputs, "attempts": [a.__dict__ for a in result.attempts], "total_matches": result.total,
                    "aggregates": result.aggregates[:20] if result.aggregates else None,
                    "facts": [{"fact_id": r.fact_id, "filename": r.filename, "location": r.location(), **r.properties}
                              for r in result.rows[:30]]}
        if self.route == LONG_TEXT:
            return {"sections": [s.__dict__ for s in self.sections], "average_similarity": round(self.average_similarity, 3)}
        return {"error": self.error, "average_similarity": round(self.average_similarity, 3), "merged": self.merged,
                "searches": [s.trace() for s in self.searches]}


def spreads_over_named_filings(plan: Plan, routing: Routing | None) -> bool:
    """Several filings named ("Apple's net sales over these quarters"): each one's best passage
    reaches the reader, not three passages of whichever filing words it most alike."""
    return (routing is not None and routing.method == "name" and plan.doc_ids is None
            and len(routing.doc_ids or []) > 1)


def passages_to_read(plan: Plan, routing: Routing | None, settings: Settings) -> int | None:
    """How many of the retrieved passages the answer reads (None: all): `reader_max_sources`, or
    one per filing the question named, up to `reader_max_named_filings`, so that a question over
    four quarters does not leave one quarter out (docs/retrieval.md 9b, 11)."""
    if not settings.reader_max_sources:
        return None
    named = len(routing.doc_ids) if spreads_over_named_filings(plan, routing) else 0
    return max(settings.reader_max_sources, min(named, settings.reader_max_named_filings))


def _months_and_years(text: str) -> tuple[set[int], set[int]]:
    return {n for w in re.findall(rf"\b{MONTH_NAME}\b", text, re.I) if (n := month_number(w))}, years_in(text)


def of_the_period_asked(question: str, chunks: list[RetrievedChunk]) -> tuple[list[RetrievedChunk], list[RetrievedChunk]]:
    """(the passages to summarise, those set aside): "the January board meeting" is summarised from the passages
    under a heading dated January, not from the March meeting's page beside it (the 1.5B model summarised whichever
    passage came first). A passage is dated by its context line (its document's identity and the heading in force)
    and the headings it holds. Set aside only when some passage's dates name the month or year asked and others'
    name only other ones; a passage dated by nothing stays."""
    stated = periods(question)
    months = {m for p in stated for m in p.months} | {int(e[5:7]) for p in stated for e in (p.start, p.end) if e}
    years = {p.year for p in stated if p.year} | {int(e[:4]) for p in stated for e in (p.start, p.end)
                                                  if e and e[:4] != "0000"}
    if not months and not years:
        return chunks, []

    def other(chunk: RetrievedChunk) -> bool | None:  # None: its heading names no date
        dated = [chunk.context, *(line for line in chunk.text.splitlines() if is_heading(line))]
        named_months, named_years = _months_and_years("\n".join(dated))
        checks = [bool(named & asked) for named, asked in ((named_months, months), (named_years, years))
                  if named and asked]
        return None if not checks else not all(checks)

    verdicts = [other(c) for c in chunks]
    if False not in verdicts:  # no heading names what was asked: nothing to tell the passages apart by
        return chunks, []
    return [c for c, v in zip(chunks, verdicts) if not v], [c for c, v in zip(chunks, verdicts) if v]


def prose_first(chunks: list[RetrievedChunk], passed_over: tuple[str, ...]) -> list[RetrievedChunk]:
    """The passages in their order, but a table's rows (a chunk of `rows`) of the documents a prose question was
    not sent to after every other: the rows share the question's words ("tins"), the handbook answers it."""
    rows = [c for c in chunks if c.doc_id in passed_over and c.rows]
    return [c for c in chunks if c not in rows] + rows


def without_rows_read(chunks: list[RetrievedChunk], read: StructuredResult) -> list[RetrievedChunk]:
    """The passages without the rows of a spreadsheet or CSV whose table a plan already ran over and found unable to
    answer: one of its rows read as text answers an average with one repair's cost. Unchanged when no plan ran (a
    failed query leaves the rows to be read)."""
    planned = read.planned
    if planned is None or not planned.sql or not planned.table.is_whole_document:
        return chunks
    return [c for c in chunks if not (c.rows and c.doc_id == planned.table.doc_id)]


def retrieve(
    plan: Plan, retriever: HybridRetriever, top_k: int, settings: Settings, expand: int | None = None,
    router: DocumentRouter | None = None, routing: Routing | None = None, search_words: SearchWords | None = None,
) -> Evidence:
    """The text searches of the plan's sub-queries. `routing`: the turn's routing when a refined retrieval
    reuses it; `search_words`: the documents' own words, searched beside a single query."""
    queries = plan.sub_queries or [plan.question]
    single = len(queries) == 1
    try:
        # The question is routed once a turn: a refined retrieval reuses the routing.
        if router is not None and plan.doc_ids is None and routing is None:  # never narrow what the user narrowed
            routing = router.route(plan.question)
    except Exception:  # routing is an optimisation: without it, every document is searched
        log.exception("Routing failed")
    also = search_words.words if single and search_words is not None else ""

    def search(query: str) -> SubQueryResult:
        own = routing
        if router is not None and routing is not None and not single:
            own = router.route(query, otherwise=routing)  # "Compare Apple and Intel": each its own documents
        doc_ids = plan.doc_ids or (own.doc_ids if own else None)
        k = top_k if single else settings.sub_query_top_k
        window = expand if single else 0  # several sub-queries: neighbours are added after the merge
        spread = spreads_over_named_filings(plan, own)
        result = retriever.search(query, top_k=k, doc_ids=doc_ids, weight=plan.semantic_weight, expand=window,
                                  spread=spread, also=also, worded_rows=True)
        weak = own is not None and own.doc_ids is not None and plan.doc_ids is None and is_weak(result.hits, settings)
        if weak:
            result = retriever.search(query, top_k=k, weight=plan.semantic_weight, expand=window, also=also,
                                      worded_rows=True)
        return SubQueryResult(query, result, routing=own.to_dict() if own else None, fell_back=weak)

    searches = search_all(queries, search)
    results = [s.result for s in searches if s.result is not None]
    errors = [f"{s.query!r}: {s.error}" for s in searches if s.error]
    decided = {"routing": routing, "search_words": search_words}
    if not results:  # retrieval errors give an empty list, logged
        return Evidence([], [], error="; ".join(errors) or "no search ran", searches=searches, **decided)
    if single:
        return Evidence(results[0].hits, results, searches=searches, **decided)
    chunks, merged = merge(searches, top_k)
    window = settings.expand_window if expand is None else expand
    if window > 0:
        chunks = retriever.expand(chunks, window)
    merged["failed_sub_queries"] = errors
    return Evidence(chunks, results, searches=searches, merged=merged, **decided)


def retrieve_long_text(plan: Plan, retriever: HybridRetriever, top_k: int, sections: int) -> Evidence | None:
    """The long-text route: the best page spans of long documents by their summaries, then
    the segments inside them. None when no long document has section summaries."""
    found = summary_then_segment(retriever, plan.question, top_k, sections, plan.semantic_weight)
    if found is None:
        return None
    result, spans = found
    return Evidence(result.hits, [result], route=LONG_TEXT, sections=spans)


def structured_evidence(result: StructuredResult, kb: KnowledgeBase) -> Evidence:
    """The structured route's result, and the chunks that hold its first rows."""
    return Evidence(_chunks_holding(result.rows, kb), structured=result, route=STRUCTURED)


def _chunks_holding(rows, kb: KnowledgeBase, limit: int = 20) -> list[RetrievedChunk]:
    """The chunks that hold the first matching facts, scored 1.0: an exact match, not a guess."""
    chunk_ids = list(dict.fromkeys(r.chunk_id for r in rows if r.chunk_id))[:limit]
    records = kb.chunks(chunk_ids)
    return [
        RetrievedChunk(c.chunk_id, c.doc_id, c.filename, c.chunk_index, c.text, c.page_label, c.sheet,
                       c.rows_label, score=1.0, vector_score=1.0, used=True, matched=True)
        for c in (records[i] for i in chunk_ids if i in records)
    ]


def reopen_result_set(plan: Plan, facts: FactStore, kb: KnowledgeBase, page_size: int) -> Evidence:
    """ "show the rest" / "export that table": the stored result set of the previous answer."""
    from core.annotations.query import StructuredQuery
    from core.annotations.route import Attempt

    command, result_set_id = plan.result_set.command, plan.result_set.result_set_id
    stored = kb.catalog.result_set(result_set_id)
    rows = facts.rows_by_id(stored["fact_ids"]) if stored else []
    if command == "rest":
        rows = rows[page_size:]
    note = "the rest of the previous list" if command == "rest" else "the whole previous table, for export"
    result = StructuredResult(StructuredQuery(FactQuery(), enumeration=True, notes=[note]), rows,
                              [Attempt(f"result set {result_set_id}: {note}", len(rows))])
    return Evidence(_chunks_holding(rows, kb), structured=result, route=RESULT_SET)
