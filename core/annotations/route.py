"""The structured route: run the parsed query over every stored fact,
relax it when nothing matches, keep the full result set for paging and export, and phrase an
exact answer from the facts (counts and sums are computed here, never by the LLM)."""
from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass, field, replace

from core.annotations.across import stated_years
from core.annotations.beyond_plan import beyond_plan
from core.annotations.conditions import (MONTHS, NUMBER_WORDS, YEAR_DIGITS, answered_yes_or_no, asks_count,
                                        asks_to_add_up, figures, periods, singulars, spent_on)
from core.annotations.model import normalize_label, singular
from core.annotations.linked import look_up
from core.annotations.named_rows import rows_named
from core.annotations.plan import (NOT_IN_TABLE, NO_SUCH_GROUP, NOT_RECORDED, ROWS_COUNTED, Column, PlannedQuery,
                                  count_qualifiers, counted_phrase,
                                  evidence as plan_evidence, group_label,
                                  fill_plan, figures_across_named, format_value as _value, holds_money, known_words,
                                  phrase as phrase_plan, plan_by_rules, printed_unit, read_by_rules, run_plan)
from core.annotations.query import StructuredQuery
from core.annotations.records import record_label
from core.annotations.search import FactQuery, FactRow, FactStore, aggregate, display_table
from core.annotations.sql import (counts_over_figures, cut_to_nothing, dated_from_today, found_nothing, named_nowhere, periods_unkept, provenance_only,
                                  reads_table, share_of_nothing, words_in_no_cell, write_query, written_not_read, years_unkept)
from core.annotations.tables import ISO_DATE_NOTE, LABELS_HEADER, PROVENANCE, is_twin, spoken_label


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
    table_query: "TableQuery | None" = None  # set on the table route: the selection, query and its rows
    parsed_question: str = ""  # the question the table query answers, for phrasing
    planned: "PlannedQuery | None" = None  # set on the plan path: the plan and how each stated condition was applied
    doubts: list[str] = field(default_factory=list)  # stated conditions the answer could not apply: low confidence

    @property
    def readings(self) -> list[str]:
        """Words of the question the model read as values, by judgement (said in the answer, low)."""
        return [a.note for a in self.planned.guessed] if self.planned is not None else []

    @property
    def total(self) -> int:
        return len(self.rows)


def run_structured(parsed: StructuredQuery, store: FactStore) -> StructuredResult:
    """Search; on zero hits drop the time range, then the names, then the words (automatic
    relaxation), recording every attempt."""
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
    if result.rows and parsed.aggregate == "count" and parsed.counted and not parsed.group_by:
        result.rows = counted_rows(result.rows, parsed.counted)
    if result.rows and (parsed.aggregate or parsed.group_by):
        measure = store.match_columns(parsed.measure) if parsed.measure else None
        groups = store.match_columns(parsed.group_by) if parsed.group_by else None
        if groups and normalize_label(parsed.group_by) in groups:  # "per product": that column, not its synonyms
            groups = [normalize_label(parsed.group_by)]
        result.measure_columns = measure or []
        result.aggregates = aggregate(result.rows, parsed.aggregate or "count", measure, groups or None)
    return result


def counted_rows(rows: list[FactRow], counted: str) -> list[FactRow]:
    """The rows that are what a count counts: "the number of tablets" over a table with a Tablet column
    counts the rows with a tablet, not a last row whose Tablet is blank."""
    wanted = singular(counted)
    named = [label for label in rows[0].properties if singular(normalize_label(label)) == wanted]
    if len(named) != 1:
        return rows
    return [r for r in rows if str(r.properties.get(named[0]) or "").strip()]


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
    match = " and ".join(_said(n) for n in result.parsed.notes if not n.startswith("grouped by"))
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
        text = (f"The {_op_name(parsed.aggregate)} of {parsed.measure} is {format_number(g[parsed.aggregate])}"
                f"{holder_note}, over {_records(g['values'], match, 'the ')}. {cite}")
    elif parsed.aggregate == "count":
        count = result.aggregates[0]["count"] if result.aggregates else len(records(rows))
        text = f"{_records(count, match)}. {cite}"
        evidence = f"{count} {len(rows)}"
    else:
        grouped = records(rows)
        shown = grouped[:max_rows]
        items = [_record_label(group) + "".join(f" [Source {marker[id(r)]}]" for r in group if id(r) in marker)
                 for group in shown]
        text = f"{_records(len(grouped), match)}: " + "; ".join(items) + "."
        if len(grouped) > len(shown):
            text += (f" Showing {len(shown)} of {len(grouped)}; the full list is saved for export. "
                     "Narrow it down, for example by vendor, customer or year?")
        evidence = " ".join(_row_text(r) for group in shown for r in group) + f" {len(grouped)} {len(shown)} {len(rows)}"
    evidence += " " + " ".join(result.parsed.notes)  # the answer restates what was asked
    return StructuredAnswer(text + relaxed, sources, evidence)


def _said(note: str) -> str:
    """A filter as a sentence says it: "contains tyres / tyre" -> "the word tyres / tyre", "mentions ACME" -> "ACME"."""
    for prefix, said in (("contains ", "the word "), ("mentions ", "")):
        if note.startswith(prefix):
            return said + note.removeprefix(prefix)
    return note


def _records(count: int, match: str, article: str = "") -> str:
    """ "6 records with width <= 1.2 m", "the 16 records with ACME and dates 2024-01-01 to 2024-12-31",
    "3 records found": how many records an answer is about, and what they were chosen by."""
    noun = "record" if count == 1 else "records"
    if not match:
        return f"{article}{count} {noun}" if article else f"{count} {noun} found"
    return f"{article}{count} {noun} with {match}"


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
    query = result.table_query
    if query is not None:  # the query's own result: each row keeps its columns, blanks stay None
        tables = [s.table for s in query.selections]
        keep = [i for i, c in enumerate(query.columns) if c != "fact_id"]
        columns = [column_label(query.columns[i], tables) for i in keep]
        cells = [[row[i] for i in keep] for row in query.rows[:max_rows]]
    return {
        "route": "structured",
        "columns": columns,
        "rows": cells,
        "rows_shown": len(cells),
        "total_matches": len(query.rows) if query is not None else len(result.rows),
        "total_records": len(records(result.rows)),  # a receipt's lines are one record
        "result_set_id": result_set_id,
        "aggregates": result.aggregates,
        "understood": result.parsed.notes,
        "attempts": [a.__dict__ for a in result.attempts],
        "tables": query.tables if query is not None else [],
        "files": query.files if query is not None else sorted({r.filename for r in result.rows}),
        "query": query.sql if query is not None else None,
        "query_path": query.path if query is not None else "rules",
        "judgements": query.judgements if query is not None else [],
        "plan": result.planned.plan.to_dict() if result.planned is not None and result.planned.plan else None,
        "conditions": [a.to_dict() for a in result.planned.applied] if result.planned is not None else [],
        "subject": ranked_first(result.planned),
    }


def ranked_first(planned: PlannedQuery | None) -> str | None:
    """The one group a ranking answered with ("Tom Okafor" of "Which technician spent the most hours?"): what a
    follow-up's "they" means. None for any other answer."""
    plan = planned.plan if planned is not None else None
    if plan is None or plan.limit != 1 or not isinstance(plan.group_by, Column) or len(planned.rows) != 1:
        return None
    key = planned.rows[0][0]
    return group_label(plan.group_by, key, planned.table) if key not in (None, "") else None


@dataclass
class TableRoute:
    """The planner's decision for the table route: which tables, and whether the rules may answer."""
    selections: list  # core.annotations.select.Selection, the chosen tables
    ranked: list  # every table that scored, best first, for the trace
    parsed: StructuredQuery | None  # the rule parse, run on the fast path
    unexplained: list[str] = field(default_factory=list)  # words the rule parse left over
    lookup: tuple | None = None  # (Selection, column): one field of one named invoice or receipt
    choice: object = None  # core.annotations.choose.Choice: the model's pick where the words could not tell

    @property
    def choice_tokens(self) -> dict:
        return self.choice.tokens if self.choice is not None else {}

    @property
    def fast(self) -> bool:
        return self.lookup is not None or (self.parsed is not None and self.parsed.is_structured and not self.unexplained
                                           and self._measured and not self._counts_a_measure)

    @property
    def _counts_a_measure(self) -> bool:
        """A count of what a number column measures: "How many hours did Tom volunteer in February?" over a sheet
        called Hours with a column Hours adds up the hours; counting its rows said "1 record"."""
        counted = singular(self.parsed.counted or "")
        return self.parsed.aggregate == "count" and bool(counted) and any(
            table.types.get(column) == "REAL" and not is_twin(table, column)
            and counted in {singular(w) for w in normalize_label(table.printed.get(column, column)).split()}
            for table in (s.table for s in self.selections) for column in table.columns)

    @property
    def _measured(self) -> bool:
        """A sum, average or extreme the rules read is over a number column of a selected table: "the tallest"
        over a Height printed "228 / 748" is a text column's, whose figures the plan reads (the rules listed
        every row instead)."""
        parsed = self.parsed
        if parsed.aggregate not in ("sum", "avg", "min", "max"):
            return True
        return any(table.types.get(column) == "REAL" and not is_twin(table, column)
                   and singular(parsed.measure) in {singular(w) for w in normalize_label(table.printed.get(column, column)).split()}
                   for table in (s.table for s in self.selections) for column in table.columns)

    @property
    def notes(self) -> list[str]:
        if self.lookup is not None:
            return [f"table {self.lookup[0].table.filename}", f"its {self.lookup[1]}"]
        return [f"table {s.table.filename}" for s in self.selections] + (self.parsed.notes if self.fast else [])

    def trace(self) -> dict:
        return {"selected": [s.trace() for s in self.selections], "candidates": [s.trace() for s in self.ranked[:5]],
                "rule_parse": self.parsed.notes if self.parsed else None, "unexplained_words": self.unexplained,
                "record_lookup": [self.lookup[0].table.name, self.lookup[1]] if self.lookup else None,
                "model_choice": self.choice.why if self.choice is not None else None,
                "path": "rules" if self.fast else "model"}


# --- the table route: selected tables, a query the model wrote (or the rule fast path), code runs it ---


@dataclass
class TableQuery:
    """What ran over the selected tables: the selection, the query, its result, and how it was got."""
    selections: list  # core.annotations.select.Selection, best first
    sql: str = ""
    columns: list[str] = field(default_factory=list)
    rows: list[tuple] = field(default_factory=list)
    truncated: bool = False
    path: str = "model"  # model | rules
    attempts: list[dict] = field(default_factory=list)  # each query tried, with its error
    error: str | None = None
    prompt: str = ""
    judgements: list[dict] = field(default_factory=list)  # a judged filter: the values the model kept
    tokens: dict[str, int] = field(default_factory=dict)  # the model's calls that wrote the query

    @property
    def tables(self) -> list[str]:
        return [s.table.name for s in self.selections]

    @property
    def files(self) -> list[str]:
        return list(dict.fromkeys(s.table.filename for s in self.selections))

    def trace(self) -> dict:
        return {"tables": self.tables, "files": self.files, "query": self.sql, "path": self.path,
                "attempts": self.attempts, "error": self.error, "columns": self.columns, "judgements": self.judgements,
                "rows": [list(r) for r in self.rows[:20]], "truncated": self.truncated}


def run_table_query(question: str, selections: list, llm, executor, facts: FactStore,
                    example_rows: int, max_tokens: int) -> StructuredResult:
    """The model writes the query for the selected tables; the executor runs it; the rows the query
    read become the result's provenance (for citations and export)."""
    tables = [s.table for s in selections]
    written = write_query(question, tables, llm, executor, example_rows, max_tokens)
    if written.result is not None and (owed := owed_not_total(question, written.result.sql, tables)) is not None:
        written.result = executor.run(owed, [t.name for t in tables])  # (the model's query, its total read as the balance)
    query = TableQuery(selections, path="model", prompt=written.prompt, error=written.error,
                       attempts=[a.__dict__ for a in written.attempts], judgements=written.judgements,
                       tokens=written.tokens)
    if written.result is not None:
        query.sql, query.columns = written.result.sql, written.result.columns
        query.rows, query.truncated = written.result.rows, written.result.truncated
        printed_dates(query, tables, executor)
        unanswered = not_an_answer(written.result, tables, executor, question)
        if unanswered:  # no records: the text route reads the pages, and the trace says why
            query.rows, written.result = [], None
            query.error = unanswered
    elif written.attempts:
        query.sql = written.attempts[-1].sql
    notes = [f"table {s.table.filename}" + (f" ({'; '.join(s.reasons)})" if s.reasons else "") for s in selections]
    result = StructuredResult(StructuredQuery(FactQuery(doc_ids=[t.doc_id for t in tables]), notes=notes), [])
    result.table_query = query
    result.parsed_question = question
    result.attempts.append(Attempt(f"query over {', '.join(query.tables)}: {query.sql or '(none)'}"
                                   + (f" failed: {query.error}" if query.error else ""), len(query.rows)))
    if written.result is not None:
        result.rows = facts.rows_by_id(provenance_ids(query.sql, tables, executor))
        if written.retried:
            # a period the query still lets go after the retry is said, and the answer is no better than low (a
            # first query that stands passed `second_look`, which kept every stated period already)
            result.doubts = [p.text.strip() for p in (periods_unkept(question, query.sql, tables, executor)
                                                       + years_unkept(question, query.sql, tables, executor))]
            result.relaxed.append("a corrected query after an error")
        # A query that ran is no proof it answers the question: on WikiTableQuestions (test part, 77
        # questions) half the model's queries that ran gave a wrong answer, whether or not the question
        # named the table's values, so an answer the model's query gives is never high confidence.
        result.relaxed.append("a query written by the model")
    return result


_OWED = re.compile(r"\b(?:owe[sd]?|owing|outstanding|unpaid|balance|still\s+(?:to\s+)?(?:pay|due)|left\s+to\s+pay)\b", re.I)


def owed_not_total(question: str, sql: str, tables: list) -> str | None:
    """The model's query with an invoice's Balance due in place of its Total, when the question asks what is still
    owed ("How much do we still owe Pennant Roofing?") and the record prints a payment (it has a balance); None
    otherwise. The total is what was invoiced, not what is left to pay."""
    selected = _SELECTED.match(sql)
    if not _OWED.search(question) or not selected or re.search(r"\bbalance_due\b", selected.group(0), re.I) \
            or not any(t.kind == "record" and "balance_due" in t.columns for t in tables):
        return None
    swapped = re.sub(r'(?<![\w.])"?total"?(?![\w"])', '"balance_due"', sql, count=1)
    return swapped if swapped != sql else None


# "SELECT COUNT(*) AS n FROM fleet": every row counted, with no condition on them
_EVERY_ROW = re.compile(r'^\s*SELECT\s+COUNT\(\s*(?:\*|DISTINCT\s+"?\w+"?)\s*\)(?:\s+AS\s+"?\w+"?)?\s+FROM\s+"?\w+"?\s*;?\s*$', re.I)


_COUNTS = re.compile(r"^\s*SELECT\s+COUNT\(", re.I)
_ADDS = re.compile(r"^\s*SELECT\s+(?:SUM|AVG|TOTAL)\s*\(", re.I)
_SELECTED = re.compile(r"^\s*SELECT\s+.*?\s+FROM\s", re.I | re.S)  # the select list, up to the first FROM
_IDENTIFIER = re.compile(r'"[^"]*"')
_VALUE = re.compile(r"'[^']*'|(?<![\w.])\d")  # a quoted text or a figure, once the quoted names are set aside


_EQUALS_FIGURE = re.compile(r"(?<![<>!])=\s*(-?\d+(?:\.\d+)?)(?![\w.'/-])")


def figure_unstated(sql: str, question: str) -> str | None:
    """A figure the query's conditions test for equality that the question never states, in digits, words or as a
    month ("= 13" for a question that says no 13); 0 and 1 may stand for no and yes."""
    where = re.split(r"\bWHERE\b", sql, maxsplit=1, flags=re.I)
    if len(where) < 2:
        return None
    said = figures(question) | {float(n) for w, n in NUMBER_WORDS.items() if re.search(rf"\b{w}\b", question, re.I)}
    said |= {float(i) for i, month in enumerate(MONTHS, 1) if re.search(rf"\b{month[:3]}", question, re.I)}
    for match in _EQUALS_FIGURE.finditer(_IDENTIFIER.sub(" ", where[1])):
        if float(match.group(1)) not in said | {0.0, 1.0}:
            return match.group(1)
    return None


def _names_a_value(sql: str) -> bool:
    """Whether the query's conditions hold a value or a figure ("Rank = 5", "Points >= 290"), not only columns."""
    where = re.split(r"\bWHERE\b", sql, maxsplit=1, flags=re.I)
    return len(where) == 2 and bool(_VALUE.search(_IDENTIFIER.sub(" ", where[1])))


def _rows_covered(sql: str, table, executor) -> int:
    """How many rows a one-table query reads: its select list replaced by a count (0 if that does not run)."""
    try:
        found = executor.run(_SELECTED.sub("SELECT COUNT(*) FROM ", sql, count=1), [table.name]).rows
    except Exception:  # (a query whose count cannot be read is left to the other checks)
        return 0
    return found[0][0] if found and isinstance(found[0][0], int) else 0


def adds_up_unasked(question: str, planned: PlannedQuery) -> str | None:
    """Why a plan's sum or average over several lines of a report's table is no answer, or None. A report prints
    its totals, and the prose beside it states what its lines do not: "What was the compensation expense in
    2019?" over a share plan's movements added up every line ("The total 2019 is 85,358, across 5 rows"). Only
    a question that asks for figures added up (conditions.asks_to_add_up) is answered by adding its lines; a
    CSV or a sheet is the record itself, and adding its rows is what a question of it asks."""
    plan = planned.plan
    if plan is None or plan.answer not in ("sum", "average") or plan.group_by is not None or plan.across \
            or planned.table.is_whole_document or asks_to_add_up(question) or not planned.rows \
            or planned.columns[1:2] != [ROWS_COUNTED]:
        return None
    counted = planned.rows[0][1]
    return f"it added up {counted} lines of a report's table, and the question asks for one figure" \
        if isinstance(counted, int) and counted > 1 else None


def held_by_no_cell(planned: PlannedQuery, executor) -> str | None:
    """Why a plan over a report's table that found nothing is no answer, or None: its filter names a text no
    cell holds ("How many buses did we have at the year end?" filtered the lines on "buses"), so the table
    does not record it, and the prose around the table may. A CSV or a sheet is the whole document: its 0 is
    the answer."""
    if planned.table.is_whole_document or not planned.sql or not found_nothing(planned):
        return None
    absent = named_nowhere(planned.sql, [planned.table], executor)
    return "no cell holds " + ", ".join(f"'{text}'" for text in absent) if absent else None


def asked_of_nothing_held(question: str, planned: PlannedQuery, executor) -> bool:
    """Whether no header, name or cell of the table holds any word the question narrows by (`count_qualifiers`):
    the table was picked for nothing the question asks about."""
    left = count_qualifiers(question, known_words(planned.table))
    return bool(left) and words_in_no_cell(left, [planned.table], executor) == left


def spent_on_unrecorded(question: str, planned: PlannedQuery, executor) -> str | None:
    """Why a plan's sum or average of money is no answer, or None: the question says what the money went on in words
    no header, name or cell of the table holds. "How much did we spend on planned maintenance?" over a repairs log
    (categories Plumbing, Roofing ...) added up every repair's cost; the log does not record planned maintenance,
    and a report's prose may state it."""
    plan = planned.plan
    if plan is None or plan.answer not in ("sum", "average", "median") or not holds_money(plan.column):
        return None
    known = known_words(planned.table)
    unheld = [w for w in spent_on(question) if not singulars(w) & known]
    absent = words_in_no_cell(unheld, [planned.table], executor)
    return f"no header or cell of {planned.table.filename} holds “{' '.join(absent)}”" if absent else None


# "Of the 40 instruments bought in 2019, how many ...", "How many of the 40 ...": the whole a count is taken within
# (not a year, "of 2019 sales"; not a measure, "with a frame of 21 inches")
_OF_THE_WHOLE = re.compile(r"(?:^\W*|\bhow\s+many\s+)(?:of|out\s+of)\s+(?:the\s+|our\s+|its\s+|their\s+|these\s+|those\s+)?"
                           rf"(?!{YEAR_DIGITS}\b)(\d[\d,]*)\s+[a-z]", re.I)


def exceeds_the_whole(question: str, planned: PlannedQuery) -> str | None:
    """Why a plan's count is no answer, or None: "Of the 40 instruments bought in 2019, how many were lent to
    schools?" is a part of the 40, so a figure above 40 (a row of the year's lending, 120) answers something else."""
    stated = _OF_THE_WHOLE.search(question)
    if stated is None or not re.search(r"\bhow\s+many\b", question, re.I) or not planned.rows:
        return None
    value, whole = planned.rows[0][0], float(stated.group(1).replace(",", ""))
    if isinstance(value, (int, float)) and value > whole:
        return f"it found {value:,g}, more than the {stated.group(1)} the question counts within"
    return None


def not_an_answer(result, tables: list, executor, question: str = "") -> str | None:
    """Why the rows of the model's last query say nothing about the question, or None: only where rows
    are (their source_row), a figure cut out of text that came out empty, nothing found by a filter that
    names a text no cell holds (a count of 0 of panels whose symbol is 'cracked' is no count of anything the
    table records), or every row counted for a question that counts only some (plan.count_qualifiers)."""
    if _EVERY_ROW.match(result.sql) and len(tables) == 1 \
            and (words := count_qualifiers(question, known_words(tables[0]))):
        return f"the query counts every row, and the question counts only some ({' '.join(words)})"
    if question and _COUNTS.match(result.sql) and len(result.columns) == 1 and not asks_count(question):
        return "the query counts rows, and the question asks for no count"
    if question and _ADDS.match(result.sql) and len(tables) == 1 and not tables[0].is_whole_document \
            and not asks_to_add_up(question) and _rows_covered(result.sql, tables[0], executor) > 1:
        return "the query adds up lines of a report's table, and the question asks for one figure"
    if answered_yes_or_no(question) and _COUNTS.match(result.sql) and not _names_a_value(result.sql):
        # "Does AMCOR have an improving gross margin profile?" answered "Yes: 9 rows with 2023 over 2022": rows
        # counted by comparing columns with each other, or every row, name nothing the question asks about
        return "a yes or no counted rows that no value or figure picks out"
    if question and _COUNTS.match(result.sql) and not any(t.is_whole_document for t in tables) \
            and (unstated := figure_unstated(result.sql, question)):
        # "How many network tickets were opened in August?" over a report's table of counts: the model counted the
        # rows whose August cell is 13, a figure it copied from the table; the cell is the answer, which the page says
        return f"the query counts a report table's rows by a figure the question never states ({unstated})"
    if counts_over_figures(result.sql):
        return "the query divides a count of rows by a total of figures"
    if question and dated_from_today(result.sql, question):
        return "the query compares dates with today's, and the question says nothing relative to today"
    if provenance_only(result):
        return f"the query returned only row positions ({', '.join(result.columns)})"
    if share_of_nothing(result.sql, result, executor):
        return "the query's figure is 0 because its own WHERE leaves out the rows its calculation picks"
    if cut_to_nothing(result):
        return "the figure the query cut out of a text cell came out empty"
    if written_not_read(result):
        return "the query's answer is a text the query wrote itself, not one of the table's cells"
    absent = named_nowhere(result.sql, tables, executor) if found_nothing(result) else []
    if absent:
        return "no cell holds " + ", ".join(f"'{text}'" for text in absent)
    return None


PLANNED_KINDS = ("rows", "records", "line_items", "measures")  # tables of records a plan's columns describe


def run_planned_query(question: str, selections: list, llm, executor, facts: FactStore,
                      example_rows: int, max_tokens: int, plan_max_tokens: int) -> StructuredResult:
    """The model fills a query plan over the best selected table, code checks the stated conditions,
    compiles and runs it (core.annotations.plan). A question the plan cannot say ("other"), a plan the
    model could not fill, or one whose query failed goes to the free SQL writer (run_table_query)."""
    best = fitting(question, selections)
    if best.table.kind not in PLANNED_KINDS:
        return run_table_query(question, selections, llm, executor, facts, example_rows, max_tokens)
    ruled = read_by_rules(question, best.table, executor) or rows_named(question, best.table, executor)
    handover = beyond_plan(question) if ruled is None else None
    if handover and not figures_across_named(question, best.table, executor):
        result = run_table_query(question, selections, llm, executor, facts, example_rows, max_tokens)
        result.attempts.insert(0, Attempt(f"a query plan: the question asks for {handover}, which only a query can say", 0))
        return result
    linked = [s.table for s in selections if s.table is not best.table]  # a register the plan's log may look up
    planned = ruled or plan_by_rules(question, best.table, executor)
    if planned is not None:  # a report row across stated years: read whole by code, no model call
        look_up(planned, linked, executor)
        run_plan(planned, executor)
        if planned.error is not None or not planned.rows:
            planned = None
    planned = planned or fill_plan(question, best.table, llm, executor, plan_max_tokens)
    refused = planned.plan is not None and planned.plan.answer == NOT_IN_TABLE
    if refused and not any(a.note in (NO_SUCH_GROUP, NOT_RECORDED) for a in planned.unapplied) \
            and asked_of_nothing_held(question, planned, executor):
        # "What is the minimum password length?" of a laptop register, refused with no word it could not place (where
        # code found one, "no column for van driver" is the table's own answer): the pages may say it
        planned.named_unrecorded = True
    if planned.plan is not None and planned.plan.answer != "other" and planned.error is None and not refused \
            and not planned.sql:
        look_up(planned, linked, executor)
        run_plan(planned, executor)
        refused = planned.refused  # a stated year the table holds no row of
        if not refused and (unasked := adds_up_unasked(question, planned)):
            # the page states what the lines added up do not: the text route reads it (the free query writer,
            # given such questions on the TAT-QA tuning part, wrote other sums of unasked cells)
            planned.plan.answer, planned.handover, refused = NOT_IN_TABLE, unasked, True
        elif not refused and (unheld := held_by_no_cell(planned, executor)):
            planned.plan.answer, planned.handover, refused = NOT_IN_TABLE, unheld, True
        elif not refused and (unheld := spent_on_unrecorded(question, planned, executor)):
            planned.plan.answer, planned.handover, refused = NOT_IN_TABLE, unheld, True
            planned.named_unrecorded = True
    if not refused and planned.plan is not None and planned.sql and (over := exceeds_the_whole(question, planned)):
        planned.plan.answer, planned.handover, refused = NOT_IN_TABLE, over, True  # by the rules or the model
    if not refused and (planned.plan is None or planned.plan.answer == "other" or planned.error is not None
                        or not planned.sql):
        result = run_table_query(question, selections, llm, executor, facts, example_rows, max_tokens)
        result.attempts.insert(0, Attempt("a query plan: " + (planned.handover or "the question needs more than a plan can say"
                                          if planned.plan is not None and planned.plan.answer == "other"
                                          else planned.error or "none"), 0))
        return result
    by_rules = not planned.prompt  # plan_by_rules: no model call
    query = TableQuery([best], sql=planned.sql, columns=planned.columns, rows=planned.rows, truncated=planned.truncated,
                       path="rules plan" if by_rules else "plan", prompt=planned.prompt,
                       attempts=[{"sql": planned.sql, "error": None, "seconds": planned.seconds}])
    notes = [f"table {best.table.filename}" + (f" ({'; '.join(best.reasons)})" if best.reasons else "")]
    result = StructuredResult(StructuredQuery(FactQuery(doc_ids=[best.table.doc_id]), notes=notes), [])
    result.table_query, result.planned, result.parsed_question = query, planned, question
    result.attempts.append(Attempt(f"a query plan{' read by the rules' if by_rules else ''} over {best.table.filename}"
                                   + (f": {planned.handover}" if planned.handover else ""), len(planned.rows)))
    result.rows = facts.rows_by_id(provenance_ids(planned.sql, [best.table], executor)) if planned.sql else []
    # The model chose the columns and the operation, or the rules read the row from the question's words:
    # an answer from a plan is at most medium.
    result.relaxed.append("a plan read by the rules" if by_rules else "a plan filled by the model")
    result.doubts = [f"{a.condition} ({a.note})" if a.note else a.condition for a in planned.unapplied]
    return result


def fitting(question: str, selections: list):
    """The selected table that can apply the question's stated periods: of two tables the question named
    equally ("appointments" in a fee schedule's and a diary's name), a period needs the one with dates."""
    if len(selections) > 1 and periods(question):
        # "for years ended December 31, 2018 and 2019" over a report's 2018 and 2019 columns: the years name
        # that table's columns; the date of the document's record beside it is not what they mean
        years = stated_years(question)
        best = selections[0].table
        if best.kind == "rows" and years and best.years_dated(years) == set(years):
            return selections[0]  # a log chosen first whose dates hold the years keeps them as well as any header
        headed = [s for s in selections if years and all(any(y in label for label in s.table.printed.values()) for y in years)]
        if headed:
            return headed[0]
        dated = [s for s in selections if any(t.endswith(ISO_DATE_NOTE) for t in s.table.printed.values())]
        if dated:
            return dated[0]
    return selections[0]


def printed_dates(query: TableQuery, tables: list, executor) -> None:
    """A result column read from a date column's ISO twin ("MIN(launched_date)") gives the dates as the
    table prints them ("11 July 1918", not "1918-07-11"): the ISO form is for comparing and sorting, the
    answer quotes the page. The twin directly follows its printed column (core.annotations.tables)."""
    for i, name in enumerate(query.columns):
        for table in tables:
            twins = [c for c in table.columns if table.printed.get(c, "").endswith(ISO_DATE_NOTE)
                     and re.search(rf'(?<![\w]){re.escape(c)}(?![\w])', name)]
            if len(twins) != 1:
                continue
            twin = twins[0]
            source = table.columns[table.columns.index(twin) - 1]
            found = executor.run(f'SELECT "{twin}", MIN("{source}") FROM {table.name} WHERE "{twin}" IS NOT NULL '
                                 f'GROUP BY "{twin}"', [table.name])
            printed = dict(found.rows)
            query.rows = [(*r[:i], printed.get(r[i], r[i]), *r[i + 1:]) for r in query.rows]
            label = re.sub(rf'(?<![\w]){re.escape(twin)}(?![\w])', source, name)  # "MAX(date_date)" -> "MAX(date)"
            query.columns = [*query.columns[:i], label, *query.columns[i + 1:]]
            break


def run_record_lookup(question: str, selection, column: str, executor, facts: FactStore) -> StructuredResult:
    """The rule fast path for a document record: one field of one named invoice or receipt, read by
    the same read-only executor as a model's query, cited to the record's row."""
    table = selection.table
    sql = f'SELECT "{column}" FROM {table.name}'
    found = executor.run(sql, [table.name])
    query = TableQuery([selection], sql=sql, columns=found.columns, rows=found.rows, path="rules",
                       attempts=[{"sql": sql, "error": None, "seconds": found.seconds}])
    notes = [f"table {table.filename} ({'; '.join(selection.reasons)})", f"its {column}"]
    result = StructuredResult(StructuredQuery(FactQuery(doc_ids=[table.doc_id]), notes=notes), [])
    result.table_query, result.parsed_question = query, question
    result.attempts.append(Attempt(f"record lookup: {sql}", len(found.rows)))
    result.rows = facts.rows_by_id(provenance_ids(sql, [table], executor))
    return result


_SIMPLE_FROM = re.compile(
    r"\bFROM\s+\"?(?P<table>\w+)\"?(?:\s+(?:AS\s+)?(?!WHERE\b|GROUP\b|ORDER\b|LIMIT\b)\w+)?"
    r"(?P<where>\s+WHERE\s+.+?)?(?=\s+(?:GROUP|ORDER|LIMIT|HAVING)\b|$)", re.I | re.S)


def provenance_ids(sql: str, tables: list, executor) -> list[str]:
    """The fact ids of the rows a one-table query filtered (its FROM ... WHERE ...); for any other
    query, the rows of the table(s) it read. Best effort: citations, not the answer."""
    names = [t.name for t in tables]
    match = _SIMPLE_FROM.search(sql)
    if match and "select" not in (match.group("where") or "").lower() and " join " not in sql.lower() \
            and match.group("table") in names:
        try:
            found = executor.run(f"SELECT fact_id FROM {match.group('table')}{match.group('where') or ''}",
                                 [match.group("table")])
            return [r[0] for r in found.rows]
        except Exception:  # an alias in the WHERE clause, say: fall back to the table
            pass
    ids: list[str] = []
    for name in names:
        ids += [r[0] for r in executor.run(f"SELECT fact_id FROM {name}", [name]).rows]
    return ids


def column_unit(column: str, tables: list) -> str | None:
    """The unit of a result column: its table column's, or the one an aggregate other than COUNT keeps."""
    match = _AGGREGATE_COLUMN.match(column)
    if match and match.group(1).lower() == "count":
        return None
    name = match.group(3).strip() if match else column.strip('"')
    # only the named column's unit is read (printed_unit reads a header's scale); the last table's wins
    return next((u for t in reversed(tables) if name in t.columns and (u := printed_unit(t, name))), None)


_AGGREGATE_COLUMN = re.compile(r"^\s*(count|sum|avg|min|max|total)\s*\(\s*(distinct\s+)?\"?([^\")]*)\"?\s*\)\s*$", re.I)
_OP_WORDS = {"count": "number", "sum": "total", "total": "total", "avg": "average", "min": "lowest", "max": "highest"}


def column_label(column: str, tables: list, of_one_row: bool = False) -> str:
    """ "COUNT(*)" -> "number of rows", 'SUM("amount")' -> "total Amount", "driver" -> "Driver". `of_one_row`: over
    one row, a total, average, highest or lowest of a field is the field (one record's Balance due)."""
    printed = {c: spoken_label(label) for t in tables for c, label in t.printed.items()}
    column = _double_quoted(column)
    while wrapped := _ROUNDED.fullmatch(column.strip()):  # ROUND(SUM(x), 2) is said as SUM(x)
        column = wrapped.group(1)
    match = _AGGREGATE_COLUMN.match(column)
    if match:
        inner = match.group(3).strip()
        what = readable(inner, printed) if inner and inner != "*" else "rows"
        if what == "result":  # SUM(CASE WHEN …) is no "total of result": an expression only the query can say
            return what
        op = _OP_WORDS[match.group(1).lower()]
        if of_one_row and op != _OP_WORDS["count"]:
            return what
        return what if what.lower() == op else f"{op} of {what}"  # SUM("total") is the Total, not "total of Total"
    return readable(column.strip('"'), printed)


_ROUNDED = re.compile(r"(?:ROUND|ABS)\s*\(\s*(.+?)\s*(?:,\s*\d+\s*)?\)", re.I)
_QUERY_WORDS = re.compile(r"\b(?:CASE|WHEN|THEN|ELSE|END|CAST|SELECT|DISTINCT|AND|OR|NOT|IS|NULL|IN|LIKE|BETWEEN)\b"
                          r"|\b\w+\s*\(|'", re.I)
_ARITHMETIC_WORDS = {"+": "plus", "-": "minus", "*": "times", "/": "divided by"}
_ARITHMETIC_SAID = re.compile(r"\b(?:plus|minus|times|divided by)\b")
# "What was the increase in interest expense from 2018?": what it asks for, as it says it
_ASKED = re.compile(r"^\W*(?:what|how\s+much)\s+(?:is|was|are|were|has\s+been)\s+(?:the|our|your|its|their)\s+"
                    r"(?P<what>[^?]{3,90}?)\s*\??\s*$", re.I)


# A column named through its table's alias or name ("T1.rate", "orders.total"): the reader hears the column.
_QUALIFIER = re.compile(r'\b[A-Za-z_]\w*\.(?=["A-Za-z_])')
# SQLite also reads `name` and [name] as a quoted name, as "name"
_OTHER_QUOTES = re.compile(r"`(\w+)`|\[(\w+)\]")


def _double_quoted(sql: str) -> str:
    return _OTHER_QUOTES.sub(lambda m: f'"{m.group(1) or m.group(2)}"', sql)


def readable(expression: str, printed: dict[str, str]) -> str:
    """A result column as a reader says it, never with a stored column's name: 'c_2019_m - c_2018_m' ->
    "2019 £m minus 2018 £m" (the model may select an expression without naming it)."""
    expression = _QUALIFIER.sub("", expression)
    if expression in printed:
        return printed[expression]
    wrapped = _ROUNDED.fullmatch(expression.strip())  # ROUND(x, 2) and ABS(x) say x
    if wrapped:
        return readable(wrapped.group(1), printed)
    if _QUERY_WORDS.search(expression):  # a CASE, a function, a condition: the query's text is never said
        return "result"
    if re.fullmatch(r"[A-Za-z]\w*", expression) and expression not in printed:  # the model's alias: "Taiwan_pct"
        return expression.replace("_", " ")
    text = re.sub(r"\s*([-+*/])\s*", lambda m: f" {_ARITHMETIC_WORDS[m.group(1)]} ", expression)
    text = re.sub(r'"?\b([A-Za-z_]\w*)\b"?', lambda m: printed.get(m.group(1), m.group(0).strip('"')), text)
    return " ".join(text.replace("(", " ").replace(")", " ").split())


_HOUSEKEEPING = re.compile(r"""\s*(?:lower\()?"?\w+"?\)?\s+(?:IS\s+NOT\s+NULL|(?:NOT\s+LIKE|!=|<>)\s+'%?(?:sub)?total%?')\s*""",
                           re.I)
_WHERE = re.compile(r"\bWHERE\s+(.+?)(?=\s+(?:GROUP|ORDER|LIMIT|HAVING)\b|$)", re.I | re.S)


def where_text(sql: str, tables: list) -> str:
    """The query's filter as a reader says it: 'WHERE "nation" = 'Sri Lanka'' -> "Nation = Sri Lanka"."""
    match = _WHERE.search(_double_quoted(sql or ""))
    if not match or "select" in match.group(1).lower():
        return ""
    # a report's row labels are said by themselves: "for Investment income", not "for Description Investment income"
    printed = {c: _LABELS_SAID if label == LABELS_HEADER else spoken_label(label)
               for t in tables for c, label in t.printed.items()}
    # "x IS NOT NULL" only keeps the rows that have a value, and "x NOT LIKE '%total%'" only leaves out total rows
    # (never records): neither says which rows were asked for
    condition = " AND ".join(part for part in re.split(r"\s+AND\s+", _QUALIFIER.sub("", match.group(1)), flags=re.I)
                             if not _HOUSEKEEPING.fullmatch(part))
    def names(part: str) -> str:
        part = re.sub(r'"(\w+)"', lambda m: printed.get(m.group(1), m.group(1)), part)
        return re.sub(r"\b(\w+)\b", lambda m: printed.get(m.group(1), m.group(1)), part)
    # stored names become printed headers; the values in quotes stay as written ('total' is not the Total column)
    text = "".join(part if part.startswith("'") else names(part) for part in re.split(r"('[^']*')", condition))
    text = re.sub(r"lower\((.+?)\)", r"\1", text, flags=re.I)
    # the table's row order is said as rows, never by its stored name
    text = re.sub(r'"?\bsource_row\b"?\s+BETWEEN\s+(\d+)\s+AND\s+(\d+)', r"rows \1 to \2", text, flags=re.I)
    text = re.sub(r'"?\bsource_row\b"?', "row", text)
    text = re.sub(r"\b(AND|OR|NOT|LIKE|IS|NULL|IN|BETWEEN)\b", lambda m: m.group(1).lower(), text)
    # operators as a reader says them: "Nation Sri Lanka", "Time under 10.5", "Item containing lamp"
    for operator, said in ((r"\s*(?:!=|<>)\s*", " not "), (r"\s*>=\s*", " at least "), (r"\s*<=\s*", " at most "),
                           (r"\s*>\s*", " over "), (r"\s*<\s*", " under "), (r"\s*==?\s*", " "),
                           (r"\bnot like\b", "not containing"), (r"\blike\b", "containing"),
                           (r"\bis not null\b", "given"), (r"\bis null\b", "blank")):
        text = re.sub(operator, said, text)
    text = re.sub(rf"{_LABELS_SAID}\s*(?:containing\s+)?", "", text)
    text = " ".join(text.replace("'", "").replace("%", "").split())[:160]
    # a filter inside a sub-query or a CASE ("... THEN more ELSE less END FROM ...") is the query's, not the reader's
    return "" if _QUERY_SYNTAX.search(text) else text


_LABELS_SAID = "\x00"  # stands for tables.LABELS_HEADER in a condition until its operators are said

# as SQL writes them, and a stored name no printed header replaced ("not total_2009")
_QUERY_SYNTAX = re.compile(r"\b(?:SELECT|FROM|CASE|WHEN|THEN|ELSE|END)\b|\b[a-z][a-z0-9]*_[a-z0-9_]+\b"
                           # a function of the query's ("date(now, -30 days)", "substr(Date, 7, 4)")
                           r"|(?i:\b(?:date|datetime|julianday|strftime|unixepoch|substr|cast|round|abs|coalesce|ifnull|"
                           r"trim|upper|length|replace|instr|printf|time)\s*\()")


_SUBTRACTION = re.compile(r"\)\s*-\s*\(|[\w\"\]]\s+-\s+[\w\"(]")


def _difference(question: str | None, column: str, value) -> bool:
    """A question asking for the difference between two figures, answered by one subtraction: the
    difference is its size ("the difference between its 2007 and 2011 scores" is 152, whichever the
    query subtracted from which), and the answer names it "difference", not the query's expression."""
    return (bool(question) and isinstance(value, (int, float)) and not isinstance(value, bool)
            and re.search(r"\bdiffer(?:ence|ent|s)?\b", question, re.I) is not None and bool(_SUBTRACTION.search(column)))


def _percent(question: str | None, value: str) -> str:
    """ " %" after a figure a question about a percentage, a share or a proportion asks for, unless it has one."""
    asked = re.search(r"\b(?:percent(?:age)?|share|proportion)\b|%", question or "", re.I)
    return " %" if asked and "%" not in value else ""


def added_unit(sql: str, tables: list) -> str | None:
    """The unit of a figure the query worked out by adding and subtracting columns of one unit: "The difference is
    39,343 thousand", as the plan's answers say it, not a bare "39,343" of a table printed in thousands. None when
    it multiplies or divides (a ratio has no unit of its figures), or reads figures of different units or none."""
    bare = re.sub(r"'(?:[^']|'')*'", "''", sql)  # (a label's words are no column)
    if "*" in bare or "/" in bare:
        return None
    read = [printed_unit(t, c) for t in tables for c in t.columns if t.types.get(c) == "REAL"
            and re.search(rf'(?<![\w"]){re.escape(c)}(?![\w"])|"{re.escape(c)}"', bare)]
    return read[0] if read and read[0] and len(set(read)) == 1 else None


def _field_label(searched: str, sources: list[FactRow]) -> str:
    """The printed label of the one field a search by part of it found ("Purchase order" for LIKE '%Purchase%'),
    else the words searched. (The rows beside it are cited too: their first cell is their own label.)"""
    labels = {next(iter(row.properties)) for row in sources if row.properties}
    labels = {label for label in labels if searched.lower() in label.lower()}
    return labels.pop() if len(labels) == 1 else searched


def unapplied_sentence(doubts: list[str]) -> str:
    return " I could not apply " + "; ".join(f"“{d}”" for d in doubts) + ", so this may cover more than you asked."


def phrase_table_answer(result: StructuredResult, max_rows: int, max_sources: int) -> StructuredAnswer:
    """The query's result in plain words, cited to the rows it read: one figure, one list, or rows."""
    query: TableQuery = result.table_query
    tables = [s.table for s in query.selections]
    sources = _distinct_sources(result.rows, max_sources)
    cite = " ".join(f"[Source {n}]" for n in range(1, len(sources) + 1))
    where = " and ".join(query.files)
    shown = [r for r in query.rows[:max_rows]]
    # A row's provenance (source_file, source_row, ...) is cited, not recited, unless it is all that was asked.
    visible = ([i for i, c in enumerate(query.columns) if c not in PROVENANCE]
               or [i for i, c in enumerate(query.columns) if c != "fact_id"])
    queried = [t for t in tables if reads_table(query.sql, t)]
    one_row_each = bool(queried) and all(t.row_count == 1 for t in queried)
    labels = [column_label(query.columns[i], tables, one_row_each) for i in visible]
    units = [column_unit(query.columns[i], tables) for i in visible]
    if result.planned is not None:
        text = phrase_plan(result.planned, result.parsed_question, max_rows)
        if result.doubts and not result.planned.refused:  # a refusal already says what the table lacks
            text += unapplied_sentence(result.doubts)
        if result.readings:
            text += " I " + "; ".join(result.readings) + "."  # "I read “missed” as Status Did not attend."
        text += f" {cite}"
        evidence = plan_evidence(result.planned) + " " + " ".join(_row_text(r) for r in sources)
        return StructuredAnswer(text.strip(), sources, evidence)
    # A filter over tables of one row each (an invoice's record) picks nothing out: "for Currency = GBP" is noise.
    condition = "" if one_row_each else where_text(query.sql, tables)
    if len(query.rows) == 1 and len(visible) == 1:
        if units[0] is None and labels[0] != "number of rows" and not _percent(result.parsed_question, ""):
            units[0] = added_unit(query.sql, queried)
        value = _value(query.rows[0][visible[0]], units[0])
        if _difference(result.parsed_question, query.columns[visible[0]], query.rows[0][visible[0]]):
            labels[0], value = "difference", _value(abs(query.rows[0][visible[0]]), units[0])
        counted = counted_phrase(result.parsed_question or "")
        named = re.fullmatch(r"Label (?:containing )?(.+)", condition) if queried and all(t.kind == "fields" for t in queried) else None
        if labels[0] == "number of rows" and counted:  # "How many athletes ..." -> "3 athletes with nationality = Sri Lanka"
            text = f"{value} {counted}{' with ' + condition if condition else ''} (from {where})."
        elif named:  # a printed field found by its label: "The Due Date is 04/04/2023", not "The due_date for Label = …"
            text = f"The {_field_label(named.group(1).strip('…'), sources)} is {value} (from {where})."
        elif labels[0] == "number of rows" and answered_yes_or_no(result.parsed_question or ""):  # "Did X run 10.55 or faster?"
            found = query.rows[0][visible[0]] or 0
            text = (f"{'Yes' if found else 'No'}: {value} row{'' if found == 1 else 's'}"
                    f"{' with ' + condition if condition else ''} (from {where}).")
        elif (labels[0] == "result" or _ARITHMETIC_SAID.search(labels[0])) and (
                asked := _ASKED.match(result.parsed_question or "")):
            # an expression only the query can say ("2019 minus 2018"): the figure, named as the question names it
            text = f"The {asked.group('what')} is {value}{_percent(result.parsed_question, value)} (from {where})."
        elif labels[0] == "result":  # the figure, in the unit asked for
            text = (f"The answer is {value}{_percent(result.parsed_question, value)}"
                    f"{' for ' + condition if condition else ''} (from {where}).")
        else:  # a figure the query names a percentage ("percentage_change") is said as one
            percent = "%" if re.search(r"\b(?:percent(?:age)?|pct)\b", labels[0], re.I) and "%" not in value else ""
            text = f"The {labels[0]}{' for ' + condition if condition else ''} is {value}{percent} (from {where})."
    elif not query.rows:
        text = f"No rows of {where} match this question."
    else:
        more = len(query.rows) > len(shown) or query.truncated
        count = f"{len(query.rows)}{'+' if query.truncated else ''}"
        if len(visible) == 1:
            items = "; ".join(_value(r[visible[0]], units[0]) for r in shown)
            text = f"{count} results for {labels[0]} (from {where}): {items}."
        else:
            items = "; ".join(", ".join(f"{labels[n]}: {_value(r[i], units[n])}" for n, i in enumerate(visible))
                              for r in shown)
            text = f"{count} row{'' if count == '1' else 's'} (from {where}): {items}."
        if more:
            text += f" Showing {len(shown)}; the full result is saved for export."
    if result.doubts:
        text += unapplied_sentence(result.doubts)
    text += f" {cite}"
    evidence = " ".join(_value(v, u) + " " + str(v) for r in query.rows for v, u in
                        zip(r, [column_unit(c, tables) for c in query.columns])) + f" {len(query.rows)} {len(shown)} " \
        + " ".join(_row_text(r) for r in sources)
    return StructuredAnswer(text.strip(), sources, evidence)
