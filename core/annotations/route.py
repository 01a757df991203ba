"""The structured route (seed 004, steps 4-7): run the parsed query over every stored fact,
relax it when nothing matches, keep the full result set for paging and export, and phrase an
exact answer from the facts (counts and sums are computed here, never by the LLM)."""
from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field, replace

from core.annotations.model import normalize_label, singular
from core.annotations.query import StructuredQuery
from core.annotations.records import record_label
from core.annotations.search import FactQuery, FactRow, FactStore, aggregate, display_table


@dataclass
class Attempt:
    description: str
    matches: int


@dataclass
class StructuredResult:
    parsed: StructuredQuery
    rows: list[FactRow]
    attempts: list[Attempt] = field(default_factory=list)
    aggregates: list[dict] | None = None
    relaxed: list[str] = field(default_factory=list)  # filters dropped to find anything
    measure_columns: list[str] = field(default_factory=list)  # stored columns the aggregate used

    @property
    def total(self) -> int:
        return len(self.rows)


def run_structured(parsed: StructuredQuery, store: FactStore) -> StructuredResult:
    """Search; on zero hits drop the time range, then the names, then the words (seed 004's
    auto-relaxation), recording every attempt."""
    query = parsed.query
    steps: list[tuple[str, FactQuery]] = [("as asked: " + (", ".join(parsed.notes) or "all facts"), query)]
    if query.date_from or query.date_to:
        query = replace(query, date_from=None, date_to=None)
        steps.append(("without the time range", query))
    if any(not c.label for c in query.conditions):
        query = replace(query, conditions=[c for c in query.conditions if c.label])
        steps.append(("without the names", query))
    result = StructuredResult(parsed, [])
    for description, candidate in steps:
        rows = of_named_records(store.search(candidate), parsed.words)
        result.attempts.append(Attempt(description, len(rows)))
        if rows:
            result.rows = rows
            result.relaxed = [a.description for a in result.attempts[1:]]
            break
    if result.rows and (parsed.aggregate or parsed.group_by):
        measure = store.match_columns(parsed.measure) if parsed.measure else None
        groups = store.match_columns(parsed.group_by) if parsed.group_by else None
        if groups and normalize_label(parsed.group_by) in groups:  # "per product": that column, not its synonyms
            groups = [normalize_label(parsed.group_by)]
        result.measure_columns = measure or []
        result.aggregates = aggregate(result.rows, parsed.aggregate or "count", measure, groups or None)
    return result


def of_named_records(rows: list[FactRow], words: set[str]) -> list[FactRow]:
    """Only the records the question names, when it names a kind of record that has an identifier:
    "lowest order total" means orders (rows with an order id), not receipt totals."""
    def named(row: FactRow) -> bool:
        return bool(words & {singular(w) for w in normalize_label(record_label(row.record)).split()})
    kept = [r for r in rows if named(r)]
    return kept or rows


def records(rows: list[FactRow]) -> list[list[FactRow]]:
    """Rows grouped into records, in order of first appearance."""
    grouped: dict[tuple, list[FactRow]] = {}
    for row in rows:
        grouped.setdefault(row.record_key, []).append(row)
    return list(grouped.values())


def format_number(value: float | None) -> str:
    if value is None:
        return "n/a"
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.2f}"


@dataclass
class StructuredAnswer:
    text: str
    source_rows: list[FactRow]  # [Source N] is source_rows[N-1]
    evidence: str  # the facts and computed figures the answer states, for the validator


def phrase_answer(
    result: StructuredResult, max_rows: int, max_sources: int, measure_columns: list[str] | None = None
) -> StructuredAnswer:
    """A short, exact answer with [Source N] markers pointing at the rows' chunks."""
    rows = result.rows
    sources = _distinct_sources(rows, max_sources)
    marker = {id(r): n for n, r in enumerate(sources, start=1)}
    cite = " ".join(f"[Source {n}]" for n in range(1, len(sources) + 1))
    scope = f" ({'; '.join(result.parsed.notes)})" if result.parsed.notes else ""
    relaxed = f" Nothing matched exactly, so I searched {result.relaxed[-1]}." if result.relaxed else ""
    parsed = result.parsed
    if result.aggregates and parsed.group_by:
        op = parsed.aggregate or "count"
        parts = [f"{g['group'] or '(blank)'}: {format_number(g.get(op, g['count']))}" for g in result.aggregates[:max_rows]]
        what = f"{_op_name(op)} of {parsed.measure}" if op != "count" else "number of records"
        text = f"{what.capitalize()} per {parsed.group_by}{scope}: " + "; ".join(parts) + f". {cite}"
        evidence = " ".join(f"{g['group']} {g.get(op, g['count'])} {g['count']}" for g in result.aggregates)
    elif result.aggregates and parsed.aggregate and parsed.aggregate != "count":
        g = result.aggregates[0]
        holder_note = ""
        evidence = f"{g[parsed.aggregate]} {g['values']} {g['count']}"
        if parsed.aggregate in ("min", "max") and measure_columns:  # name and cite the record itself
            holder = next((r for r in rows for c in r.properties
                           if normalize_label(c) in measure_columns and r.numbers.get(c) == g[parsed.aggregate]), None)
            if holder is not None:
                sources, cite = [holder], "[Source 1]"
                holder_note = f", in {_row_label(holder)}"
                evidence += " " + _row_text(holder)
        text = (f"The {_op_name(parsed.aggregate)} of {parsed.measure} over {g['values']} matching records{scope} "
                f"is {format_number(g[parsed.aggregate])}{holder_note}. {cite}")
    elif parsed.aggregate == "count":
        count = result.aggregates[0]["count"] if result.aggregates else len(records(rows))
        lines = f", with {len(rows)} matching lines in all" if len(rows) != count else ""
        text = f"{count} matching records{scope}{lines}. {cite}"
        evidence = f"{count} {len(rows)}"
    else:
        grouped = records(rows)
        shown = grouped[:max_rows]
        items = [_record_label(group) + "".join(f" [Source {marker[id(r)]}]" for r in group if id(r) in marker)
                 for group in shown]
        lines = f" ({len(rows)} matching lines)" if len(rows) != len(grouped) else ""
        text = f"{len(grouped)} matching records{scope}{lines}: " + "; ".join(items) + "."
        if len(grouped) > len(shown):
            text += (f" Showing {len(shown)} of {len(grouped)}; the full list is saved for export. "
                     "Narrow it down, for example by vendor, customer or year?")
        evidence = " ".join(_row_text(r) for group in shown for r in group) + f" {len(grouped)} {len(shown)} {len(rows)}"
    evidence += " " + " ".join(result.parsed.notes)  # the answer restates what was asked
    return StructuredAnswer(text + relaxed, sources, evidence)


def _distinct_sources(rows: list[FactRow], limit: int) -> list[FactRow]:
    seen: set[str] = set()
    sources: list[FactRow] = []
    for row in rows:
        key = row.chunk_id or row.fact_id
        if key not in seen:
            seen.add(key)
            sources.append(row)
        if len(sources) == limit:
            break
    return sources


def _row_text(row: FactRow) -> str:
    """Everything the answer may quote about a row: its cells, labels and where it is."""
    cells = " ".join(f"{k} {v}" for k, v in row.properties.items())
    return f"{cells} {row.filename} {row.sheet or ''} {row.table or ''} {row.location()}"


def _record_label(group: list[FactRow]) -> str:
    """A record as the answer lists it: its identifier first, then the first matching fact."""
    first = group[0]
    if not first.record:
        return _row_label(first)
    return f"{first.record}, {_row_label(first, skip=record_label(first.record))}"


def _row_label(row: FactRow, skip: str = "") -> str:
    values = [(k, v) for k, v in row.properties.items() if k != skip]
    shown = ", ".join(f"{k}: {v}" for k, v in values[:4])
    return f"{shown} ({row.filename}{', ' + row.location() if row.location() else ''})"


def _op_name(op: str) -> str:
    return {"sum": "sum", "avg": "average", "min": "minimum", "max": "maximum", "count": "count"}[op]


def save_result_set(catalog, question: str, result: StructuredResult) -> str:
    result_set_id = "rs" + uuid.uuid4().hex[:10]
    catalog.save_result_set(result_set_id, question, json.dumps([a.__dict__ for a in result.attempts]),
                            [r.fact_id for r in result.rows])
    return result_set_id


def payload(result: StructuredResult, result_set_id: str, max_rows: int) -> dict:
    """What the Structured Results page and `ask --json` show: route, columns, rows, totals."""
    columns, cells = display_table(result.rows[:max_rows])
    return {
        "route": "structured",
        "columns": columns,
        "rows": cells,
        "rows_shown": len(cells),
        "total_matches": len(result.rows),
        "total_records": len(records(result.rows)),  # a receipt's lines are one record
        "result_set_id": result_set_id,
        "aggregates": result.aggregates,
        "understood": result.parsed.notes,
        "attempts": [a.__dict__ for a in result.attempts],
    }
