"""The agent's tools: search_docs, open_citation, and over the structured facts
search_facts and aggregate_facts (annotation tools).

A tool never raises at the model: a bad input, an unknown id or a failing search comes back as
an error observation, so the model can correct itself in the next iteration. Ids are the short
handles R1, R2, ... shown with each search result; only chunks the agent has seen can be opened,
and a chunk is opened once. Independent searches of one call run concurrently.
"""
from __future__ import annotations

import logging
import re
from concurrent.futures import ThreadPoolExecutor
from functools import cached_property

from core.agents.agent_mode.state import AgentState, OpenedCitation, SearchHit, ToolResult
from core.annotations.conditions import YEAR_DIGITS, MONTHS, month_number
from core.annotations.query import parse_structured
from core.annotations.route import format_number, run_structured
from core.annotations.search import FactStore
from core.citations import location
from core.config import Settings
from core.retrieval import HybridRetriever, RetrievedChunk
from core.safety.injection import neutralize
from core.store import KnowledgeBase

log = logging.getLogger(__name__)

SEARCH_DOCS, OPEN_CITATION = "search_docs", "open_citation"
SEARCH_FACTS, AGGREGATE_FACTS = "search_facts", "aggregate_facts"
SEARCH_TOOLS = (SEARCH_DOCS, SEARCH_FACTS, AGGREGATE_FACTS)  # each counts as a search
AGGREGATE_OPS = ("count", "sum", "avg", "min", "max")

TOOL_DESCRIPTIONS = {
    SEARCH_DOCS: 'search_docs - Input: {"queries": ["..."]} - search the documents. Each query is one '
                 "search and uses one tool call; several queries in one call run together.",
    OPEN_CITATION: 'open_citation - Input: {"ids": ["R1"]} - read the full text of search results by their '
                   "ids (R1, R2, ...). Each id uses one tool call. Only opened citations can be cited.",
    SEARCH_FACTS: 'search_facts - Input: {"query": "..."} - find records (table rows, invoice and receipt '
                  'lines) matching a description such as "receipts with tyres in 2023"; counts and totals are exact.',
    AGGREGATE_FACTS: 'aggregate_facts - Input: {"query": "...", "operation": "count|sum|avg|min|max", '
                     '"measure": "total", "group_by": "vendor"} - compute over every matching record.',
}

# Digits around, not word boundaries: file names join dates with underscores ("policy_2024-03.md").
_ISO = re.compile(rf"(?<!\d)({YEAR_DIGITS})[-_./](0[1-9]|1[0-2])(?:[-_./](0[1-9]|[12]\d|3[01]))?(?!\d)")
_MONTH_DAY_YEAR = re.compile(r"\b(" + "|".join(MONTHS) + rf")\s+(\d{{1,2}}),?\s+({YEAR_DIGITS})\b", re.I)
_DAY_MONTH_YEAR = re.compile(r"\b(\d{1,2})\s+(" + "|".join(MONTHS) + rf")\s+({YEAR_DIGITS})\b", re.I)
_MONTH_YEAR = re.compile(r"\b(" + "|".join(MONTHS) + rf")\s+({YEAR_DIGITS})\b", re.I)
_YEAR = re.compile(rf"(?<!\d)({YEAR_DIGITS})(?!\d)")


def dates_in(text: str) -> list[str]:
    """ISO dates (YYYY-MM-DD; a missing month or day is 01) mentioned in `text`, in order."""
    found: list[tuple[int, str]] = []
    for m in _ISO.finditer(text):
        found.append((m.start(), f"{m.group(1)}-{m.group(2)}-{m.group(3) or '01'}"))
    for m in _MONTH_DAY_YEAR.finditer(text):
        found.append((m.start(), f"{m.group(3)}-{month_number(m.group(1)):02d}-{int(m.group(2)):02d}"))
    for m in _DAY_MONTH_YEAR.finditer(text):
        found.append((m.start(), f"{m.group(3)}-{month_number(m.group(2)):02d}-{int(m.group(1)):02d}"))
    if not found:
        found += [(m.start(), f"{m.group(2)}-{month_number(m.group(1)):02d}-01")
                  for m in _MONTH_YEAR.finditer(text)]
    if not found:
        found += [(m.start(), f"{m.group(1)}-01-01") for m in _YEAR.finditer(text)]
    return [date for _, date in sorted(found)]


def document_date(filename: str, first_text: str) -> str | None:
    """When a document is dated: the latest date in its file name ("policy_2024-03.md"), else the
    first date on its first page (a memo's or filing's date line)."""
    named = dates_in(filename)
    if named:
        return max(named)
    stated = dates_in(first_text)
    return stated[0] if stated else None


def snippet(text: str, limit: int) -> str:
    flat = " ".join(neutralize(text).split())  # what the model reads of a document: no planted instructions
    return flat if len(flat) <= limit else flat[: limit - 3].rstrip() + "..."


def hit_text(chunk: RetrievedChunk, limit: int) -> str:
    """What a search result shows the model: the chunk's context line (company, form, period,
    section; the same line the pipeline's passages carry) and its best-matching window when the
    search re-ranked it (else its start), the window within `limit` characters."""
    body = snippet(chunk.focus or chunk.text, limit)
    if chunk.focus and not chunk.text.startswith(chunk.focus):
        body = "..." + body
    return f"[{snippet(chunk.context, limit)}] {body}" if chunk.context else body


def where(chunk: RetrievedChunk) -> str:
    return f"{chunk.filename} {location(chunk.page, chunk.sheet, chunk.rows)}".strip()


class AgentTools:
    def __init__(self, retriever: HybridRetriever, kb: KnowledgeBase, facts: FactStore | None,
                 settings: Settings, top_k: int | None = None) -> None:
        self.retriever = retriever
        self.kb = kb
        self.facts = facts
        self.settings = settings
        self.top_k = top_k or settings.top_k

    @cached_property
    def names(self) -> list[str]:
        """The tools on offer; the fact tools only when the documents yielded facts."""
        names = [SEARCH_DOCS, OPEN_CITATION]
        if self.facts is not None and self.kb.counts()["facts"] > 0:
            names += [SEARCH_FACTS, AGGREGATE_FACTS]
        return names

    def run(self, state: AgentState, tool: str, tool_input: dict, budget: int) -> ToolResult:
        """One tool call. `budget` is how many tool calls remain."""
        if tool not in self.names:
            return _error(tool, tool_input, f"Unknown tool '{tool}'. Available tools: {', '.join(self.names)}.")
        if budget <= 0:
            return _error(tool, tool_input, "The tool budget is exhausted: output your FINAL answer.")
        if tool == SEARCH_DOCS:
            queries = _strings(tool_input.get("queries")) or _strings([tool_input.get("query")])
            if not queries:
                return _error(tool, tool_input, 'search_docs needs {"queries": ["words to search for"]}.')
            return self.search_docs(state, queries, budget)
        if tool == OPEN_CITATION:
            ids = _strings(tool_input.get("ids")) or _strings([tool_input.get("id")])
            if not ids:
                return _error(tool, tool_input, 'open_citation needs {"ids": ["R1"]} with ids from the search results.')
            return self.open_citation(state, ids, budget)
        query = str(tool_input.get("query") or "").strip()
        if not query:
            return _error(tool, tool_input, f'{tool} needs {{"query": "a description of the records"}}.')
        if tool == SEARCH_FACTS:
            return self.search_facts(state, query)
        operation = str(tool_input.get("operation") or "count").lower()
        if operation not in AGGREGATE_OPS:
            return _error(tool, tool_input, f"Unknown operation '{operation}': use one of {', '.join(AGGREGATE_OPS)}.")
        return self.search_facts(state, query, operation, tool_input.get("measure"), tool_input.get("group_by"))

    # --- search_docs --------------------------------------------------------------------------

    def search_docs(self, state: AgentState, queries: list[str], budget: int) -> ToolResult:
        fresh = [q for q in dict.fromkeys(queries) if q.lower() not in {s.lower() for s in state.search_queries}]
        repeated = [q for q in queries if q not in fresh]
        run = fresh[:budget]
        skipped = fresh[budget:]
        notes = []
        if repeated:
            notes.append("Already searched (results above): " + "; ".join(repeated))
        if skipped:
            notes.append("Not searched, the tool budget ran out: " + "; ".join(skipped))
        if not run:
            return _error(SEARCH_DOCS, {"queries": queries}, " ".join(notes) or "Nothing to search.")
        workers = max(1, min(len(run), self.settings.agent_search_workers))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            outcomes = list(pool.map(self._search_one, run))
        blocks, found, failed = [], 0, []
        for query, (hits, error) in zip(run, outcomes):
            state.search_queries.append(query)
            if error:
                failed.append(f"{query}: {error}")
                blocks.append(f'=== SEARCH RESULTS: "{query}" ===\n  (search failed: {error})')
                continue
            lines = []
            for chunk in hits:
                handle = state.handle_of(chunk.chunk_id)
                if handle:
                    lines.append(f"  {handle} (listed above) {where(chunk)}")
                    continue
                handle = f"R{len(state.hits) + 1}"
                text = hit_text(chunk, self.settings.agent_snippet_chars)
                state.hits[handle] = SearchHit(handle, chunk, query, text)
                lines.append(f'  {handle} {where(chunk)}: "{text}"')
                found += 1
            blocks.append(f'=== SEARCH RESULTS: "{query}" ===\n' + ("\n".join(lines) or "  (no results)"))
        summary = f"{len(run)} search{'es' if len(run) > 1 else ''}, {found} new chunks"
        if failed:
            summary += f", {len(failed)} failed"
        return ToolResult(SEARCH_DOCS, {"queries": run}, summary, "\n".join(blocks + notes), calls=len(run),
                          error="; ".join(failed) or None)

    def _search_one(self, query: str) -> tuple[list[RetrievedChunk], str | None]:
        try:
            return self.retriever.search(query, top_k=self.top_k).hits, None
        except Exception as exc:  # a failing search is an empty result, logged
            log.exception("Agent search failed")
            return [], f"{type(exc).__name__}: {exc}"

    # --- open_citation ------------------------------------------------------------------------

    def open_citation(self, state: AgentState, ids: list[str], budget: int) -> ToolResult:
        s = self.settings
        blocks, errors, opened = [], [], 0
        for raw in dict.fromkeys(ids):
            handle = raw.strip().upper()
            hit = state.hits.get(handle) or next(
                (h for h in state.hits.values() if h.chunk.chunk_id == raw.strip()), None)
            if hit is None:
                known = ", ".join(state.hits) or "none yet: search first"
                errors.append(f"Unknown id '{raw}'. Use an id from the search results ({known}).")
                continue
            already = state.opened_as(hit.chunk.chunk_id)
            if already:
                errors.append(f"{hit.handle} is already open as [{already.number}]: cite it as [{already.number}].")
                continue
            if opened >= budget:
                errors.append(f"Not opened, the tool budget ran out: {hit.handle}.")
                continue
            if len(state.opened) >= s.max_context_citations:
                errors.append(f"At most {s.max_context_citations} citations can be open: answer from those you have.")
                continue
            citation = OpenedCitation(len(state.opened) + 1, hit, self._dated(hit.chunk))
            state.opened.append(citation)
            opened += 1
            dated = f" (dated {citation.dated})" if citation.dated else ""
            text = neutralize(citation.text)[: s.max_citation_text_for_llm]
            if hit.chunk.context:  # whose figures these are, as the pipeline's passages say
                text = f"{neutralize(hit.chunk.context)}\n{text}"
            blocks.append(f"=== OPENED CITATION [{citation.number}] = {hit.handle}: {where(hit.chunk)}{dated} ===\n{text}")
        if not opened:
            return _error(OPEN_CITATION, {"ids": ids}, " ".join(errors))
        size = sum(len(c.text) for c in state.opened[-opened:])
        summary = f"opened {opened} citation{'s' if opened > 1 else ''}, {size / 1024:.1f} KB"
        return ToolResult(OPEN_CITATION, {"ids": ids}, summary, "\n".join(blocks + errors), calls=opened,
                          error=" ".join(errors) or None)

    def _dated(self, chunk: RetrievedChunk) -> str | None:
        first = self.kb.catalog.neighbours(chunk.doc_id, 0, 0)
        return document_date(chunk.filename, first[0].text if first else chunk.text)

    # --- search_facts / aggregate_facts -------------------------------------------------------

    def search_facts(self, state: AgentState, query: str, operation: str | None = None,
                     measure: object = None, group_by: object = None) -> ToolResult:
        tool = AGGREGATE_FACTS if operation else SEARCH_FACTS
        tool_input = {"query": query, **({"operation": operation, "measure": measure, "group_by": group_by}
                                         if operation else {})}
        parsed = parse_structured(query, self.facts.known_values())
        if operation:
            parsed.aggregate = operation
            parsed.measure = str(measure) if measure else (parsed.measure or ("total" if operation != "count" else None))
            parsed.group_by = str(group_by) if group_by else parsed.group_by
        if not parsed.is_structured:  # plain words: records that mention them
            parsed.query.text = [w for w in re.findall(r"[a-z0-9]{3,}", query.lower())][:4]
        try:
            result = run_structured(parsed, self.facts)
        except Exception as exc:
            log.exception("Agent fact search failed")
            return _error(tool, tool_input, f"The record search failed ({type(exc).__name__}: {exc}).", calls=1)
        state.search_queries.append(query)
        chunks = self.kb.chunks([r.chunk_id for r in result.rows if r.chunk_id])
        lines = []
        for row in result.rows[: self.top_k]:
            cells = "; ".join(f"{k}: {v}" for k, v in row.properties.items())
            record = chunks.get(row.chunk_id or "")
            handle = state.handle_of(row.chunk_id) if row.chunk_id else None
            if record is not None and handle is None:
                handle = f"R{len(state.hits) + 1}"
                chunk = RetrievedChunk(record.chunk_id, record.doc_id, record.filename, record.chunk_index,
                                       record.text, record.page_label, record.sheet, record.rows_label,
                                       score=1.0, vector_score=1.0, used=True, matched=True)
                state.hits[handle] = SearchHit(handle, chunk, query, snippet(cells, self.settings.agent_snippet_chars))
            place = ", ".join(p for p in (row.filename, row.location()) if p)
            lines.append(f"  {handle or '-'} {place}: {snippet(cells, self.settings.agent_snippet_chars)}")
        shown = f" (showing {len(lines)} of {result.total})" if result.total > len(lines) else ""
        figures = [
            f"{r.get('group') or 'all'}: count {r['count']}" + (
                f", {parsed.aggregate} {format_number(r.get(parsed.aggregate))}" if parsed.aggregate != "count" else "")
            for r in (result.aggregates or [])[: self.top_k]
        ]
        understood = "; ".join(parsed.notes) or "records mentioning " + ", ".join(parsed.query.text or [query])
        block = (f'=== FACT RESULTS: "{query}" ({understood}): {result.total} records{shown} ===\n'
                 + ("\n".join(lines) or "  (no records)")
                 + (("\n  Computed over all matches: " + "; ".join(figures)) if figures else ""))
        state.evidence.append(block)
        summary = f"{result.total} records" + (f", {len(figures)} computed figures" if figures else "")
        return ToolResult(tool, tool_input, summary, block, calls=1)


def _strings(value: object) -> list[str]:
    if not isinstance(value, list):
        return []
    return [str(v).strip() for v in value if isinstance(v, (str, int)) and str(v).strip()]


def _error(tool: str, tool_input: dict, message: str, calls: int = 0) -> ToolResult:
    return ToolResult(tool, tool_input, f"error: {message}", f"=== {tool} ERROR ===\n{message}", calls=calls,
                      error=message)
