"""A query plan the model fills and code runs (issue 22, items 2-5).

The model reads the selected table's columns (printed header, type, unit, the values of a column
with few) and the question, and fills a plan under a JSON schema whose column names are an enum of
the table's real columns: what the answer is (a count, a sum, an average, a minimum or maximum, a
list), over which column, the filters, the grouping and the order. A column that does not exist
cannot be written. Code then
- matches each filter value to the cells it names (case, accents, spelling variants);
- checks that every condition the question states (core.annotations.conditions) reached the plan:
  a period goes to the table's date column, a bound is converted into its column's unit, a named
  cell value is filtered on its column; what the model left out is added by code when its column is
  unambiguous, and said; what cannot be applied makes the answer low confidence and says so;
- compiles the plan to one SQLite SELECT and runs it on the read-only executor;
- phrases the answer from the plan, in the table's printed headers.
A question the plan cannot say (date arithmetic, a join) is answered "other", and the free SQL writer
(core.annotations.sql) takes it.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import math
import re
import time
from collections import Counter
from functools import partial
from dataclasses import dataclass, field
from typing import Callable

from core.annotations import across as row_figures
from core.annotations.columns import fold
from core.annotations.conditions import (YEAR_DIGITS, FISCAL_YEAR, MONTH_NAME, MONTHS, NUMBER_WORDS, YEAR_KIND,
                                         Bound, CellValue, Period, StatedConditions, answered_yes_or_no, asks_count,
                                         asks_yes_or_no, bound_in, bounds, cell_values, clipped_form,
                                         code_family_groups, column_bounds, figures, label_words, month_number,
                                         month_of_cell, named_in, periods, quarter_names, said_with_the, same_value,
                                         same_word, says_word, singulars, tokens, without_bounds, word_forms,
                                         years_in)
from core.annotations.sql import ReadOnlyExecutor, QueryRefused, found_nothing, text_literal, words_in_no_cell
from core.annotations.tables import (CURRENCY_SIGNS, ISO_DATE_NOTE, LABELS_HEADER, NUMERIC_SHARE, TableInfo, is_twin,
                                    leading_number, number_twin_label, spoken_label)
from core.annotations.units import SCALES, convert, header_unit, normal_unit, stated_scale, unit_kind
from core.llm.base import ChatLLM, LLMError

ANSWERS = ["count", "sum", "average", "minimum", "maximum", "list", "change", "percent change", "other", "not in table"]
BLANK_OPS = ["is blank", "is not blank"]
FILTER_OPS = ["is", "is not", "contains", ">", ">=", "<", "<=", *BLANK_OPS]
NOT_IN_TABLE = "not in table"
ROWS_COUNTED = "rows_counted"  # beside a plan's figure: how many rows it covers ("across 31 orders")
NO_SUCH_GROUP = "no column is called that"
NOT_RECORDED = "no date or cell of the row records it"
NO_ROWS_THEN = "the table has no rows dated then"
NO_DATES = "the table has no dates"
PERIOD_GROUPS = ["month", "quarter", "weekday"]
ORDERS = ["", "highest first", "lowest first"]
MAX_FILTERS = 4
UNNAMED_VALUE = "the question does not name it"  # why code dropped a model's filter on a value
VALUES_SHOWN = 12  # a column with at most this many distinct values shows them all; more would crowd the prompt
EXAMPLES_SHOWN = 3  # otherwise, this many example cells
IDENTIFIER_SHARE = 0.9  # a column with a distinct value in this share of rows names rows (a sale, a job): no group
MAX_SPANS = 3  # computed "days from A to B" columns: three date columns give three pairs
NOTE_CHARS = 200  # of a note printed with the table; a longer one is prose the prompt cannot afford

SYSTEM = (
    "You turn a question about a table into a query plan. Reply with JSON only.\n"
    "answer: count (how many rows), sum, average, minimum, maximum (of one number column), list (rows or "
    "values that match), other (when the plan cannot say it: two tables), or "
    "not in table (no column holds what the question asks for).\n"
    "A 'days from A to B' column is the time between two dates of a row (a turnaround, a wait, lateness).\n"
    "column: the column summed, averaged, counted or listed (for 'which X ...', the X column).\n"
    "filters: each condition on the rows, as column, op and value copied from the question. Leave out "
    "dates and periods: code applies them. A row still open, outstanding or never returned has its end "
    "date blank (op 'is blank').\n"
    "group_by: a column (or month, quarter, weekday) when the question asks per group.\n"
    "change, percent change: of one row's figure between two year columns; filter that row by its label.\n"
    "order_by and order with limit: for the highest, lowest, top or first rows; 'the three best-selling X' "
    "sums per X, highest first, limit 3.\n"
    "Example: 'Which driver spent the most on fuel in May?' -> {\"answer\": \"sum\", \"column\": \"Cost\", "
    "\"filters\": [], \"group_by\": \"Driver\", \"order\": \"highest first\", \"limit\": 1}\n"
    "Example: 'List the red cars over 20,000' -> {\"answer\": \"list\", \"column\": \"Car\", \"filters\": "
    "[{\"column\": \"Colour\", \"op\": \"is\", \"value\": \"red\"}, {\"column\": \"Price\", \"op\": \">\", "
    "\"value\": \"20000\"}]}"
)


@dataclass
class Column:
    name: str  # SQL name
    label: str  # as printed, the name the model writes
    kind: str  # number | date | text
    unit: str | None = None
    date_twin: str | None = None  # the ISO twin of a date column
    cells: list[str] = field(default_factory=list)  # distinct text cells
    expression: str | None = None  # a computed column's SQL (days between two dates); None for a stored one
    ends: tuple[str, str] | None = None  # a span's start and end dates as SQL (time_between)
    figure: str | None = None  # SQL for the number each text cell starts with ("147.3 / 483" 147.3), or None
    # how a condition code made on this column is said: a log's key filtered on a register's value ("Make Volvo
    # (fleet_register.csv)"), the forms of a range of year groups ("Year 7 to Year 11")
    said_as: str | None = None
    # whether every figure of a number column is a year ("Boiler fitted"), asked of the table only when a question
    # needs it (`_year_column`)
    all_years: Callable[[], bool] | None = field(default=None, repr=False, compare=False)

    @property
    def sql(self) -> str:
        """The column as SQL: its expression, its ISO twin for a date, else its quoted name."""
        if self.expression:
            return self.expression
        return f'"{self.date_twin}"' if self.kind == "date" and self.date_twin else f'"{self.name}"'

@dataclass
class Applied:
    """One stated condition and how it reached the query."""
    condition: str  # as the question says it
    column: str | None  # the printed header it was applied to
    # "in the plan" | "added by code" | "converted by code" | "moved by code" | "dropped by code" |
    # "not applied" | "read by the model" | "read by the rules" | "guessed by the model" (a word no cell holds, read
    # as a value: the answer says the reading, at low confidence)
    how: str
    note: str = ""

    def to_dict(self) -> dict:
        return {"condition": self.condition, "column": self.column, "how": self.how, "note": self.note}


@dataclass
class Plan:
    answer: str
    column: Column | None
    filters: list[tuple[Column, str, str]] = field(default_factory=list)  # (column, op, value)
    group_by: Column | str | None = None  # a column or a period name
    order_by: Column | None = None
    descending: bool = True
    limit: int | None = None
    periods: list[tuple[Period, Column]] = field(default_factory=list)
    distinct: bool = False  # a count of the column's different values, not of rows
    dated: Column | None = None  # the date column periods and "per month" apply to
    matched: dict[int, tuple[str, ...]] = field(default_factory=dict)  # filter index -> the cells it matched
    across: list[Column] = field(default_factory=list)  # a row's figures in these columns (years), oldest first
    named_by: Column | None = None  # a name shown beside the identifiers listed or ranked ("Title" by "Book ID")
    day_hours: float | None = None  # "how many 8-hour days": a total of time said in days of this many hours
    section: str | None = None  # "the items under Deferred tax liabilities": the heading whose rows are listed
    # "the percentage of A in the total B": the cells (row label, column) of A and of B, A's share computed by code
    shares: list[tuple[str, Column]] = field(default_factory=list)
    # "parts below their reorder level": one column's cell compared with another's in the same row
    compared: list[tuple[Column, str, Column]] = field(default_factory=list)

    @property
    def reads_whole_table(self) -> bool:
        """No filter, group, period, ranking, row or cell the question named: a figure of the whole table (what
        "Where are personnel expenses included?" got, read as a sum of every row). A list's limit with no order is
        no ranking: the first ten rows of a list of every row ("the top attendance", a maximum, is one)."""
        ranked = self.order_by is not None or (self.limit and self.answer != "list")
        if self.column is not None and self.column.expression and self.answer in _SQL_AGGREGATE:
            return False  # a figure code made of the question's words ("the value of the spares we hold")
        return not (any(op not in BLANK_OPS and not self.leaves_out_totals(i) for i, (_, op, _) in enumerate(self.filters))
                    or self.group_by is not None or self.periods
                    or ranked or self.across or self.section or self.shares or self.compared)

    def leaves_out_totals(self, index: int) -> bool:
        """Whether filter `index` only leaves out a report table's total lines (code's, for a list of items)."""
        _, op, value = self.filters[index]
        return op == "is not" and all(row_figures.is_total_label(v, or_subtotal=True)
                                      for v in self.matched.get(index, (value,)))

    @property
    def lists_only_named_cells(self) -> bool:
        """A list of the cells its filters name in the very column listed, and nothing beside them: "What is
        lease related and other charges?" planned as the labels "Lease related expenses" and "Other" tells
        the asker nothing the question did not."""
        return (self.answer == "list" and self.column is not None and bool(self.filters) and self.named_by is None
                and not (self.across or self.shares or self.periods or self.section or self.group_by)
                and all(c.name == self.column.name and op in ("is", "contains") for c, op, _ in self.filters))

    def to_dict(self) -> dict:
        return {"answer": self.answer, "column": self.column.label if self.column else None,
                "filters": [{"column": c.label, "op": op, "value": v} for c, op, v in self.filters],
                "group_by": self.group_by.label if isinstance(self.group_by, Column) else self.group_by,
                "order_by": self.order_by.label if self.order_by else None,
                "order": ("highest first" if self.descending else "lowest first") if self.order_by or self.limit else None,
                "limit": self.limit,
                "periods": [{"period": p.text, "column": c.label} for p, c in self.periods],
                **({"across": [c.label for c in self.across]} if self.across else {}),
                **({"named_by": self.named_by.label} if self.named_by else {}),
                **({"day_hours": self.day_hours} if self.day_hours else {}),
                **({"section": self.section} if self.section else {}),
                **({"cells": [{"row": r, "column": c.label} for r, c in self.shares]} if self.shares else {})}


@dataclass
class PlannedQuery:
    """What the plan path did: the plan, the conditions and how each was applied, the SQL and its rows."""
    table: TableInfo
    question: str = ""
    plan: Plan | None = None
    applied: list[Applied] = field(default_factory=list)
    sql: str = ""
    columns: list[str] = field(default_factory=list)
    rows: list[tuple] = field(default_factory=list)
    truncated: bool = False
    reply: dict = field(default_factory=dict)
    prompt: str = ""
    seconds: float = 0.0
    tokens: dict = field(default_factory=dict)
    error: str | None = None
    said: str = ""  # the answer as the rule that read the rows says it (core.annotations.named_rows)
    handover: str = ""  # why the plan went to the free query writer ("other") or to the page, as the trace says it
    # the table does not record what the question names ("spend on planned maintenance" over a repairs log): a
    # refusal the pages beside it may answer, even where the table is a whole CSV or sheet
    named_unrecorded: bool = False

    @property
    def refused(self) -> bool:
        """The model said no column holds what the question asks, or code found the plan answers another
        question (route.adds_up_unasked): the answer says so, or the page is read."""
        return self.plan is not None and self.plan.answer == NOT_IN_TABLE

    @property
    def unapplied(self) -> list[Applied]:
        return [a for a in self.applied if a.how == "not applied"]

    @property
    def guessed(self) -> list[Applied]:
        return [a for a in self.applied if a.how == "guessed by the model"]


# --- the table as the model sees it ---

def label_unit(label: str) -> str | None:
    """A unit printed in a header: "Power [hp]" hp, "GVWR (lb)" lb, "Fine (p)" p, "Distance_mi" mi."""
    return header_unit(label or "")


def _in_base_unit(label: str, before: str) -> bool:
    """Whether a header restates the one before it in a unit ("GVWR (lb) in kg"), not another measure that starts with
    its words ("Seats in use" after "Seats")."""
    rest = label[len(before) + 4:] if label.startswith(before + " in ") else ""
    return bool(rest) and (normal_unit(rest, spoken=False) is not None or rest in CURRENCY_SIGNS)


def columns_of(table: TableInfo, executor: ReadOnlyExecutor) -> list[Column]:
    """The table's columns as a person reads them: twins folded into their column, units from the header."""
    found: list[Column] = []
    names = table.columns
    for i, name in enumerate(names):
        if is_twin(table, name) or (i and _in_base_unit(table.printed.get(name, ""), table.printed.get(names[i - 1], ""))):
            continue  # "GVWR (lb) in kg" restates the column before it in a base unit: code converts
        label = " ".join(table.printed.get(name, name).split())  # a header printed over two lines is one label
        twin = names[i + 1] if i + 1 < len(names) and table.printed.get(names[i + 1], "").endswith(ISO_DATE_NOTE) else None
        kind = "date" if twin else ("number" if table.types.get(name) == "REAL" else "text")
        column = Column(name, label, kind, printed_unit(table, name), twin)
        if kind == "text":
            cells = executor.run(f'SELECT DISTINCT "{name}" FROM {table.name} WHERE "{name}" IS NOT NULL '
                                 f'AND TRIM("{name}") <> \'\' LIMIT 400', [table.name]).rows
            column.cells = [str(c[0]) for c in cells]
            column.figure = figure_of(table, name, column.cells)
        elif kind == "number" and not column.unit:
            column.all_years = partial(years_held, table, name, executor)
        found.append(column)
    found += time_between(table, [c for c in found if c.kind == "date"])
    seen: set[str] = set()
    for column in found:  # labels are the enum the model writes: unique
        while column.label in seen:
            column.label += " (2)"
        seen.add(column.label)
    return found


FIRST_YEAR, LAST_YEAR = 1800, 2100  # the whole numbers a column of years holds


def years_held(table: TableInfo, name: str, executor: ReadOnlyExecutor) -> bool:
    """Whether every figure of the column is a whole year ("Boiler fitted": 2006 ... 2024)."""
    found = executor.run(f'SELECT MIN("{name}"), MAX("{name}"), COUNT("{name}"), '
                         f'SUM("{name}" = CAST("{name}" AS INTEGER)) FROM {table.name}', [table.name]).rows
    low, high, count, whole = found[0] if found else (None, None, 0, 0)
    return bool(count) and whole == count and FIRST_YEAR <= low <= high <= LAST_YEAR


def figure_of(table: TableInfo, name: str, cells: list[str]) -> str | None:
    """How a text column whose cells start with a figure ("150*", "147.3 / 483", "12 (3)") is ranked, summed
    and compared: by its twin of that figure (ingest), else by SQLite's reading of the cell's leading number;
    None when too few cells start with one."""
    twin = next((c for c in table.columns if table.printed.get(c) == number_twin_label(table.printed.get(name, name))), None)
    if twin is not None:
        return f'"{twin}"'
    if cells and sum(leading_number(c) is not None for c in cells) >= NUMERIC_SHARE * len(cells):
        # (a cell that starts with no figure, "n/a", is NULL, not CAST's 0)
        return f"""CASE WHEN LTRIM("{name}", ' +-') GLOB '[0-9]*' THEN CAST(REPLACE("{name}", ',', '') AS REAL) END"""
    return None


def time_between(table: TableInfo, dates: list[Column]) -> list[Column]:
    """Computed columns for the time from one date column to a later one ("days from Booked In to
    Collected"), so a turnaround, a time to close or a late return is a number the plan can average,
    bound or compare. Date columns are taken in the table's order, which is the order events happen in
    the files we read (booked, collected; issued, due, returned); at most MAX_SPANS pairs, neighbours first."""
    pairs = sorted(((a, b) for i, a in enumerate(dates) for b in dates[i + 1:]),
                   key=lambda p: dates.index(p[1]) - dates.index(p[0]))[:MAX_SPANS]
    spans = []
    for start, end in pairs:
        moments = [(table.dates.get(c.name) or {}).get("datetime") for c in (start, end)]
        a, b = (f'"{m}"' for m in moments) if all(moments) else (start.sql, end.sql)
        spans.append(Column(f"days_{start.name}_{end.name}", f"days from {start.label} to {end.label}", "number",
                            "days", expression=_days_between(a, b), ends=(a, b)))
    return spans


def _days_between(start: str, end: str) -> str:
    return f"(julianday({end}) - julianday({start}))"


def describe(table: TableInfo, columns: list[Column], executor: ReadOnlyExecutor) -> str:
    lines = [f"Table {table.filename}{' / ' + table.sheet if table.sheet else ''} ({table.row_count} rows). Columns:"]
    for c in columns:
        if c.kind == "date":
            span = executor.run(f'SELECT MIN("{c.date_twin}"), MAX("{c.date_twin}") FROM {table.name}', [table.name]).rows
            text = f"date, {span[0][0]} to {span[0][1]}" if span and span[0][0] else "date"
        elif c.kind == "number":
            text = "number" + (f" in {c.unit}" if c.unit else "") + (", computed from the two dates" if c.expression else "")
        else:
            groups = table.categories.get(c.name)  # spellings of one value grouped, the commonest first
            shown = [g[0] for g in groups] if groups else list({fold(cell): cell for cell in c.cells}.values())
            if len(shown) <= VALUES_SHOWN:
                text = "text, values: " + ", ".join(_short(v) for v in shown)
            else:
                text = f"text, {len(shown)} values, e.g. " + ", ".join(_short(v) for v in shown[:EXAMPLES_SHOWN])
        lines.append(f"- {c.label}: {text}")
    # A note printed with the table says what its blanks and codes mean ("a blank Collected date: not
    # collected"), which the question's words may rely on.
    notes = [" ".join(" ".join(str(v) for v in n["cells"].values()).split())[:NOTE_CHARS]
             for n in table.set_aside if n.get("kind") == "note"]
    lines += [f"Note: {n}" for n in notes[:2] if n]
    return "\n".join(lines)


def _short(value: str) -> str:
    return " ".join(str(value).split())[:30]


# Words of a question about rows with a date still blank ("never collected", "still on loan", "open tickets"):
# only then may the model's filters name a date column, and only to test it for a blank.
_BLANK_DATE_ASKED = re.compile(r"\b(?:never|not|still|outstanding|open|un\w+(?:ed|id)|pending|missing|blank|empty|"
                               r"without|no|overdue|on loan|out|current(?:ly)?|active|awaiting|waiting)\b", re.I)


def schema_for(columns: list[Column], question: str = "") -> dict:
    """The plan's JSON schema: every column an enum of the table's real labels. A date column is no filter but
    to test it for a blank: a stated period is code's to apply (apply_conditions; the model reads the question
    without it, `without_periods`)."""
    labels = [c.label for c in columns]
    blank_dates = [c.label for c in columns if c.kind == "date"] if _BLANK_DATE_ASKED.search(question) else []
    filter_item = {"type": "object", "properties": {
        "column": {"type": "string", "enum": [c.label for c in columns if c.kind != "date"]},
        "op": {"type": "string", "enum": FILTER_OPS},
        "value": {"type": "string"}}, "required": ["column", "op", "value"]}
    if blank_dates:
        blank_test = {"type": "object", "properties": {
            "column": {"type": "string", "enum": blank_dates},
            "op": {"type": "string", "enum": BLANK_OPS},
            "value": {"type": "string", "enum": [""]}}, "required": ["column", "op", "value"]}
        filter_item = {"anyOf": [filter_item, blank_test]}
    return {"type": "object", "properties": {
        "answer": {"type": "string", "enum": ANSWERS},
        "column": {"type": "string", "enum": [*labels, ""]},
        "filters": {"type": "array", "maxItems": MAX_FILTERS, "items": filter_item},
        "group_by": {"type": "string", "enum": ["", *labels, *PERIOD_GROUPS]},
        "order_by": {"type": "string", "enum": ["", *labels]},
        "order": {"type": "string", "enum": ORDERS},
        "limit": {"type": "integer"}},
        "required": ["answer", "column", "filters"]}


# --- the model fills the plan ---

def without_periods(question: str, columns: list[Column]) -> str:
    """The question as the model reads it: a period that code applies to the table's date column is left
    out ("... in the second quarter?" -> "...?"). Told to leave periods to code, the model still wrote each
    as two dated filters (~45 tokens of output, ~5 s here); with dates barred from its filters, as filters
    on other columns (a Time, a City); given a field to copy the period into, it also put a weekday value
    there ("work Fridays") and its other choices moved (records dev 48 -> 44). A year naming a column stays."""
    if not any(c.kind == "date" for c in columns):
        return question
    shown = question
    for period in periods(question):
        if applies_as_period(period, columns):
            shown = re.sub(rf"(?:\b(?:in|during|for|within|over|of|from|on)\s+)?(?:the\s+)?{re.escape(period.text)}",
                           "", shown, count=1, flags=re.I)
    shown = re.sub(r"\(\s*\)", "", shown)  # "last year (2024)" -> "last year"
    return " ".join(shown.split()).replace(" ?", "?").replace(" ,", ",").replace(" .", ".")


_QUESTION_LEAD = "\n\nQuestion:"


def plan_messages(table: TableInfo, columns: list[Column], executor: ReadOnlyExecutor, question: str | None = None):
    """The messages that ask the model for a plan over a table: the fixed instructions, the table's description,
    then the question. Without a question, the part every question on this table shares (warm_plan_prompts)."""
    prompt = describe(table, columns, executor) + _QUESTION_LEAD
    if question is not None:
        prompt += f" {without_periods(question, columns)}\nPlan as JSON:"
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt}]


def warm_plan_prompts(tables: list[TableInfo], llm: ChatLLM, executor: ReadOnlyExecutor, limit: int,
                      idle: Callable[[], bool] = lambda: True) -> list[str]:
    """Have the model read each table's plan instructions and description (one token written), so its prompt cache
    holds them before the first question: that question then reads ~20 new tokens, not 200-650 (a first plan call
    on the records set took 13-23 s, one on a warmed table 7-8 s: docs/benchmarks.md). Stops when `idle` says a
    question waits. The names of the tables read."""
    warmed = []
    for table in tables[:limit]:
        if not idle():
            break
        try:
            llm.complete(plan_messages(table, columns_of(table, executor), executor), max_tokens=1, temperature=0.0)
        except LLMError:
            break  # (the model is unavailable: the first question says so)
        warmed.append(table.name)
    return warmed


def fill_plan(question: str, table: TableInfo, llm: ChatLLM, executor: ReadOnlyExecutor,
              max_tokens: int) -> PlannedQuery:
    columns = columns_of(table, executor)
    messages = plan_messages(table, columns, executor, question)
    planned = PlannedQuery(table, question, prompt=messages[1]["content"])
    started = time.perf_counter()
    try:
        reply, completion = llm.complete_json(messages, schema_for(columns, question), max_tokens=max_tokens,
                                              temperature=0.0)
    except LLMError as exc:
        planned.error = str(exc)
        return planned
    finally:
        planned.seconds = round(time.perf_counter() - started, 3)
    planned.reply = reply if isinstance(reply, dict) else {}
    planned.tokens = {"prompt": getattr(completion, "prompt_tokens", 0), "completion": getattr(completion, "completion_tokens", 0)}
    planned.plan = read_plan(planned.reply, columns)
    table_words = name_words(table)
    measured = counted_measure(question, columns) if planned.plan is not None and planned.plan.answer == "count" else None
    if planned.plan is not None and planned.plan.answer in ("count", "sum"):
        work_days(question, planned.plan, columns)
    if planned.plan is not None and planned.plan.answer in ("count", "list", "sum", "average"):
        late_rows(question, planned.plan, columns)
    if planned.plan is not None and planned.plan.day_hours:
        measured = None
    chosen = None  # a measure code chose from the question's words: no judgement of it is asked
    if measured is not None:  # "How many gallons ..." adds up the Gallons column; it does not count rows
        planned.plan.answer, planned.plan.column = "sum", measured
        chosen = measured
    elif planned.plan is not None and planned.plan.answer == "count" and (quantity := items_counted(question, columns, table_words)):
        planned.plan.answer, planned.plan.column = "sum", quantity  # "How many helmets did we sell?" adds up Qty
        chosen = quantity
    elif planned.plan is not None and planned.plan.answer in ("sum", "average") \
            and (quantity := said_quantity(question, planned.plan, columns)):
        planned.plan.column = chosen = quantity  # the units the question says were made, not those scrapped
    if planned.plan is not None and (unused := unused_quantity(question, planned.plan, columns)) is not None:
        # "How many licence seats are we paying for but not using?": each row's Seats minus Seats in use, added up
        difference, whole, part = unused
        planned.plan.answer, planned.plan.column = "sum", difference
        chosen = difference
        planned.plan.filters = [f for f in planned.plan.filters if f[0] is not whole and f[0] is not part]
        planned.applied.append(Applied(_UNUSED.search(question).group(0), difference.label, "added by code",
                                       f"each row's {whole.label} minus {part.label}"))
    if planned.plan is not None and planned.plan.answer not in ("other", NOT_IN_TABLE):
        if unrecorded := words_on_figures(question, planned.plan, [c.label for c in columns]):
            # "How many yellow cards did the Seniors get?" filtered Goals Against on 'yellow': no column records them
            planned.applied.append(Applied(unrecorded, None, "not applied", NOT_RECORDED))
            planned.plan.answer = NOT_IN_TABLE
            return planned
        planned.plan.distinct = planned.plan.answer == "count" and counts_distinct(question, planned.plan.column)
        said_row(question, planned.plan, columns)
        said_column(question, planned.plan, columns)
        planned.applied = apply_conditions(question, planned.plan, columns, table.row_count, table_words)
        planned.applied += failed_flags(planned.plan)
        if planned.plan.answer in ("count", "list", "sum", "average"):
            planned.applied += open_rows(question, planned.plan, columns) + lapsed_rows(question, planned.plan, columns)
            planned.applied += happened_rows(question, planned.plan, columns)
        planned.applied += read_unnamed_word(question, planned, columns, llm, executor)
        planned.applied += spans_to_stated_day(planned.plan) + compare_columns(question, planned.plan, columns)
        if planned.refused:  # a group the question names that no column holds
            return planned
        if figures_across(question, planned.plan, columns):
            _bounds_on_years(question, planned)
            if every_row_across(question, planned.plan, columns, table, executor):
                # "the total amount reflected as a long-term liability in 2018 and 2019", no label holding its words:
                # every line's total, row by row, answers nothing asked; the page's text may say it
                planned.plan.answer, planned.plan.across = NOT_IN_TABLE, []
                planned.handover = "it read every row across the years, and the question names none"
            return planned
        # (after the checks, which may drop a grouping the question did not ask for)
        plan = planned.plan
        average = asks_average(question)
        if average and plan.answer != "count" and plan.group_by is None \
                and (plan.column is None or plan.column.kind != "number"):
            plan.answer = NOT_IN_TABLE  # an average asked, and no number column the model could average
            return planned
        if average and plan.answer in ("minimum", "maximum") and plan.group_by is not None:
            # "the state with the lowest average price": the average per group, ranked; not each group's minimum
            plan.descending = plan.answer == "maximum" if plan.limit else plan.descending
            plan.answer = "average"
        if plan.answer == "average" and asks_median(question):
            plan.answer = "median"  # the schema offers the model no median (a word it would then misuse); code reads it
        respectively(question, planned)
        if plan.answer in ("minimum", "maximum") and plan.group_by is None and not _COMPARES.search(question):
            # "What were rent arrears at the end of 2024?" planned as the highest 2024 of the rows its words name:
            # nothing is ranked, so the figure is the named row's (the rows' total when its words name several)
            plan.answer = "sum"
        rank_by_group(question, plan, columns)
        if (priced := priced_quantity(question, plan, columns)) is not None:
            # "What is the value of the spares we hold?" planned as the total of Qty on hand: code adds up each row's
            # quantity times its price (the free query writer, given it, added up the prices alone)
            planned.applied.append(Applied(priced.label, plan.column.label, "moved by code",
                                           f"a value held, not the total of {plan.column.label}"))
            plan.column = chosen = priced
        if plan.answer in _SQL_AGGREGATE and plan.column is not None and plan.column.kind == "number" \
                and plan.column is not chosen and not measure_named(question, plan.column) \
                and not holds_measure(question, plan.column, planned, llm, max_tokens):
            planned.applied.append(Applied(plan.column.label, plan.column.label, "not applied",
                                           f"{plan.column.label} is not what the question asks for"))
            plan.answer = NOT_IN_TABLE
            return planned
        if plan.answer in _SQL_AGGREGATE and plan.column is not None \
                and (ratio := ratio_unsaid(question, plan, table.title)):
            # "What was the attendance rate for Year 7?" planned as the average of Sessions Attended: the free query
            # writer may divide one amount by another (and is checked the same way)
            planned.handover = f"it took the {plan.answer} of {plan.column.label}, and the question asks for a {ratio}"
            plan.answer = "other"
            return planned
        if (event := unrecorded_time(question, plan, columns, planned.table)) is not None:
            planned.applied.append(Applied(event, None, "not applied", NOT_RECORDED))
            plan.answer = NOT_IN_TABLE
            return planned
        if plan.answer in ("count", "list") and asks_which(question) and plan.group_by is None:
            named = asked_column(question, columns)
            if named is None and plan.column is not None and (any(c is plan.column for _, c in plan.periods) or any(
                    c is plan.column and op in (">", ">=", "<", "<=") for c, op, _ in plan.filters)):
                # "Which of the vans went on the road after 2020?", read without its period ("... went on the
                # road?"), listed the On Road dates; "Which administrators started their terms after 1998?" the
                # years over 1998: the rows are asked for, by what names them
                named = identifier_column(columns, planned.table.row_count)
            kept = [i for i, (c, op, _) in enumerate(plan.filters) if c is named and op == "is"]
            one_value = len(kept) == 1 and len(set(plan.matched.get(kept[0], ()))) <= 1
            if named is not None and not one_value and (plan.column is None or plan.column.kind != "text"
                                                        or plan.answer == "count"):
                plan.column = named  # (a column filtered to one value is what the rows are, not what lists them)
            if plan.column is not None:
                plan.answer = "list"  # "Which units fuelled up in Topeka?" names them; it does not count them
        if plan.answer == "average" and _WEIGHTED.search(question) and not asks_average(question):
            plan.answer = "other"  # "the weighted average remaining amortization period": a stated figure
            planned.handover = "it averaged rows, and the question names a weighted average the document states"
            return planned
        if plan.answer == "count" and plan.group_by is None and not asks_count(question):
            # "What is the discount rate in 2019?" planned as a count of the rows named Discount rate is "1": a
            # count answers only a question that counts; the free query writer is checked the same way
            plan.answer = "other"
            planned.handover = "it counted rows, and the question asks for no count"
            return planned
        if plan.answer == "count" and plan.group_by is None and not asks_yes_or_no(question) \
                and not re.search(r"\btimes\b", question, re.I) \
                and (named := one_row_named(plan, table, executor)) is not None:
            # "How many PSUs were granted in 2019?" over a report's rows counted the one row labelled Granted: its
            # cell is the figure asked for, and a count of one row says nothing
            plan.answer = "other"
            planned.handover = f"it counted the one row {named} names"
            return planned
        if counts_every_row(plan) and not planned.unapplied:  # (an unapplied condition is said, at low)
            left = count_qualifiers(question, known_words(table))
            values = counted_values(question, columns, table.row_count)
            if (flagged := flagged_column(question, columns)) is not None:
                # "How many controlled drugs do we stock?" over a Controlled drug column of Yes and No: the rows it
                # marks, not every row nor its two values
                column, cells = flagged
                plan.filters.append((column, "is", cells[0]))
                plan.matched[len(plan.filters) - 1] = cells
                planned.applied.append(Applied(counted_phrase(question) or column.label, column.label, "added by code",
                                               f"the rows whose {column.label} is {cells[0]}"))
                values = left = None
            phrase = counted_phrase(question)
            noun = phrase.split()[-1] if phrase else None
            if table.kind == "rows" and not table.is_whole_document and values is None and not flagged and noun \
                    and not names_the_rows(noun, known_words(table)) \
                    and len(words_in_no_cell(sorted(singulars(noun)), [table], executor)) == len(singulars(noun)):
                # "How many active clients did we have?" over a report's income lines counted its lines: nothing in the
                # table is a client, so its rows are not what is counted and the page's text may say it (a CSV's rows
                # are what any count of them counts: "how many athletes are listed?" over Name, Country, Time)
                planned.applied.append(Applied(noun, None, "not applied", NOT_RECORDED))
                plan.answer = NOT_IN_TABLE
                return planned
            if values is not None and left and words_in_no_cell(left, [table], executor) == left:
                # "How many volunteers have a food hygiene certificate?" is no count of every volunteer when nothing
                # in the roster says who holds one; the free query writer is checked the same way
                plan.answer = "other"
                planned.handover = f"it counted every {values.label}, and nothing in the table says “{' '.join(left)}”"
                return planned
            if values is not None:
                plan.column, plan.distinct = values, True
                planned.applied.append(Applied(counted_phrase(question) or values.label, values.label, "added by code",
                                               f"the different {values.label} values, not the rows"))
            elif left:
                # "How many vans failed their inspection?" answered by every row answers another question: the
                # free query writer may apply the words the plan did not (and is checked the same way)
                plan.answer = "other"
                planned.handover = f"it counted every row, and no condition applies “{' '.join(left)}”"
                return planned
        if (counted := uncounted_kind(question, plan, columns, known_words(table))) is not None:
            # "Number of no-shows per clinician" counted every appointment of each: nothing says which are no-shows
            planned.applied.append(Applied(counted, None, "not applied"))
        listed = plan.column if plan.answer == "list" else plan.group_by if isinstance(plan.group_by, Column) else None
        plan.named_by = name_beside(question, listed, columns)
        if plan.answer in ("minimum", "maximum") and plan.group_by is None:
            # "What episode has the least viewers?" is answered with the episode, whatever its column holds
            plan.named_by = thing_asked(question, [c for c in columns if c is not plan.column])
    return planned


READ_SYSTEM = "You match a question's words to a table's values. Reply with JSON only."
READ_TOKENS = 24  # {"value": "Did not attend"}: one of the column's values, with room for the grammar's whitespace
NONE_OF_THESE = "none of these"


def read_unnamed_word(question: str, planned: PlannedQuery, columns: list[Column], llm: ChatLLM,
                      executor: ReadOnlyExecutor) -> list[Applied]:
    """A word of the question that no cell, header or stated condition holds, on a column whose value the model
    filtered on without the question naming it: "How many appointments were missed?" planned with "Status is
    Cancelled", which code drops. The model reads the word as one of the column's values (or none) in one short
    call under an enum of them: "Did not attend". It is a reading, not a match, so the answer says it and is low;
    with none, the word is said not applied. (The model picks a value for words that mean none of them, measured
    on words of our own: the reading is offered only where its plan already put the word on that column.)"""
    plan = planned.plan
    dropped = [a for a in planned.applied if a.how == "dropped by code" and a.note == UNNAMED_VALUE]
    column = next((c for a in dropped for c in columns if c.label == a.column and c.kind == "text"), None)
    if plan.answer not in ("count", "list", *_SQL_AGGREGATE) or column is None \
            or not 2 <= len(column.cells) <= VALUES_SHOWN or any(c is column for c, _, _ in plan.filters):
        return []
    words = unread_words(question, planned, executor)
    if not words:
        return []
    said = " ".join(words)
    values = list(dict.fromkeys(column.cells))
    if (value := failed_flag(column, words)) is not None:
        # "tickets that missed their SLA" over SLA met (Yes, No): what did not happen is the flag's No, by the rules
        plan.filters.append((column, "is", value))
        plan.matched[len(plan.filters) - 1] = (value,)
        return [Applied(said, column.label, "read by the rules", f"“{said}” is {column.label} {value}")]
    prompt = (f"Question: {question}\nThe column {column.label} holds one of: {', '.join(values)}.\n"
              f"Which {column.label} value do the question's words \"{said}\" mean? If they mean none of them, say "
              f"\"{NONE_OF_THESE}\".")
    value = llm.judge(prompt, "value", {"type": "string", "enum": [*values, NONE_OF_THESE]}, system=READ_SYSTEM,
                       max_tokens=READ_TOKENS)
    if value not in values:
        return [Applied(said, column.label, "not applied", f"no {column.label} value says it")]
    plan.filters.append((column, "is", value))
    plan.matched[len(plan.filters) - 1] = (value,)
    return [Applied(said, column.label, "guessed by the model", f"read “{said}” as {column.label} {value}")]


# Words of a period, said however ("last year", "this quarter", "so far"), and the verbs that put a row on a date ("fell
# on a Friday", "happened in May"): code applies periods, never a cell value
_TIME_WORDS = set("last this next previous current past year years month months quarter quarters week weeks day days "
                  "ago far date dates period time times recent recently latest ytd fell fall falls happen happens "
                  "happened occur occurs occurred landed".split())


def unread_words(question: str, planned: PlannedQuery, executor: ReadOnlyExecutor) -> list[str]:
    """The question's words that narrow its rows and that nothing read: not a word any row is called by or a
    header's (count_qualifiers), nor one a condition applied says, nor one a cell holds in any of its forms
    ("dogs" over Dog). "Uninsured" is the Insured header's word."""
    known = known_words(planned.table)
    read = {w for a in planned.applied if a.how != "dropped by code" for w in tokens(a.condition)} \
        | {w for _, _, value in planned.plan.filters for w in tokens(str(value))}
    left = [w for w in count_qualifiers(question, known) if w not in read and w not in _TIME_WORDS
            and not (w.startswith(("un", "in")) and singulars(w[2:]) & known)]
    unheld = set(words_in_no_cell(sorted({f for w in left for f in singulars(w) | {w}}), [planned.table], executor))
    return [w for w in left if (singulars(w) | {w}) <= unheld]


# The words that ask for a measure of a kind, whatever a column of that kind is headed
_MONEY_ASKED = {"revenue", "value", "sale", "sales", "spend", "spent", "money", "income", "takings", "turnover",
                "amount", "earnings", "cost", "costs", "paid", "pay", "price", "prices", "fee", "fees", "charge",
                "charged", "charges", "bill", "billed", "worth", "cash", "expensive", "cheap", "cheapest", "dearest",
                "invoiced", "owed", "outstanding", "budget", "take", "took", "much"}
_TIME_ASKED = {"long", "longer", "longest", "time", "duration", "wait", "waited", "took", "take", "takes", "quickest",
               "fastest", "slowest", "shortest", "late", "overdue"}
MEASURE_SYSTEM = "You check whether a table's column holds what a question asks for. Reply with JSON only."
MEASURE_TOKENS = 16  # {"holds": false} is 6 tokens: room for the grammar's whitespace, no more


def measure_named(question: str, column: Column) -> bool:
    """Whether the question asks for what a number column holds, by the column's own words ("average repair
    cost" over "Job Total (EUR)" shares none; "total sales" over "Sales" does), a unit of its kind ("litres"
    over Gallons) or a word that asks for that kind ("spend" over a currency column, "how long" over a span of
    days). "Our profit margin" over "Parts (EUR)" names none: the model is asked (holds_measure)."""
    asked = set(tokens(question))
    stems = {w[:5] for w in asked if len(w) > 2}
    if {w[:5] for w in tokens(_BRACKETED_END.sub("", column.label)) if len(w) > 2} & stems:
        return True
    kind = unit_kind(column.unit) if column.unit else None
    if holds_money(column):
        return bool(asked & _MONEY_ASKED) or any(w in _MONEY_WORDS for w in asked)
    if column.expression or (kind and kind[0] == "duration"):  # "days from A to B", "Duration (min)"
        if asked & _TIME_ASKED:
            return True
    return bool(kind) and any((k := unit_kind(normal_unit(w))) and k[0] == kind[0] for w in asked if len(w) > 2)


def words_on_figures(question: str, plan: Plan, column_labels: list[str]) -> str:
    """What a plan filters a column of figures on in words, as the question says it ("yellow cards" for Goals
    Against 'yellow'): no figure is a word, so the table does not record it; "" when every filter fits its column.
    Another column's header is no such word ("Goals For over 'Goals Against'" compares two columns, which a plan
    cannot state; the model's query writer, given such a comparison, added conditions no one asked for)."""
    for column, op, value in plan.filters:
        if column.kind == "number" and op not in BLANK_OPS and not re.search(r"\d", value) \
                and not set(tokens(value)) & set(NUMBER_WORDS) \
                and not any(value.lower() == c.lower() for c in column_labels):  # ("two" beds is a figure)
            said = re.search(rf"\b{re.escape(value)}\b(?:\s+([a-z][a-z-]+))?", question, re.I)
            return f"{value} {said.group(1)}" if said and said.group(1) else value
    return ""


def holds_money(column: Column | None) -> bool:
    """Whether a number column holds amounts of money: its unit is a currency ("£", "EUR")."""
    if column is None or not column.unit:
        return False
    kind = unit_kind(column.unit)
    return column.unit[0] in CURRENCY_SIGNS or bool(kind and kind[0] in ("GBP", "EUR", "USD"))


def holds_measure(question: str, column: Column, planned: PlannedQuery, llm: ChatLLM, max_tokens: int) -> bool:
    """The model's judgement, in one short call, of whether the column holds what the question asks for; the
    call's failure keeps the column (the plan's answer stands, as before the check)."""
    others = ", ".join(planned.table.printed.get(c, c) for c in planned.table.columns if not is_twin(planned.table, c))
    prompt = (f"Table {planned.table.filename}, columns: {others}\nQuestion: {question}\nColumn: {column.label}"
              f"{f' ({column.unit})' if column.unit else ''}\nDoes this column hold what the question asks for "
              f"(not something else it does not record)? Reply {{\"holds\": true}} or {{\"holds\": false}}.")
    verdict = llm.judge(prompt, "holds", {"type": "boolean"}, system=MEASURE_SYSTEM,
                         max_tokens=min(max_tokens, MEASURE_TOKENS))
    if verdict is None:
        return True
    held = verdict is not False
    planned.applied.append(Applied(column.label, column.label, "judged by the model",
                                   "holds what is asked" if held else "does not hold what is asked"))
    return held


# What a time is of, said around its time word: "wait for parts to arrive", "until the parts came", "before they
# were collected", "first-response time", "time to close"
_TIME_OF = re.compile(r"\bwait(?:s|ed|ing)?\s+(?:for|on)\s+([^?,.;]+)|\b(?:until|till|before)\s+([^?,.;]+)"
                      r"|\b([a-z]+(?:-[a-z]+)?)[- ]times?\b|\btimes?\s+to\s+([a-z]+)", re.I)
_KIND_OF_TIME = re.compile(r"(?<=\bhow many )([a-z]+(?:-[a-z]+)?) (?:days|hours|weeks|months|minutes)\b", re.I)
# Words around a time word that name no event of a row: what a time is measured as, who waits, the grammar
_NOT_AN_EVENT = {"average", "mean", "median", "total", "typical", "usual", "overall", "longest", "shortest",
                 "quickest", "fastest", "slowest", "a", "an", "the", "our", "their", "its", "his", "her", "my",
                 "your", "what", "which", "same", "much", "spent", "any", "each", "per", "this", "that", "first",
                 "last", "lead", "turnaround", "cycle", "processing", "waiting", "wait", "they", "them", "it", "he",
                 "she", "we", "you", "were", "was", "be", "been", "is", "are", "to", "get", "got", "had", "has",
                 "have", "did", "do", "done", "finally", "eventually", "all", "end", "start", "beginning", "year",
                 "month", "week", "day", "days", "hours", "then", "now", "of", "in", "on", "at", "and", "or", "for",
                 "with", "by", "up", "out", "back", "more", "fewer", "less", "extra", "working", "business",
                 "calendar", "whole", "full", "clear", "many", "number", "several", "how", "long"}


def unrecorded_time(question: str, plan: Plan, columns: list[Column], table: TableInfo) -> str | None:
    """A time the question asks of something the table records nowhere, in the question's words, or None:
    - a span between two dates the question does not name, timing another event: "how many days did jobs wait
      for parts to arrive" over Booked In and Collected, "the average first-response time" over Opened and
      Closed. A span answers a question that names one of its dates ("to close", "before they were collected")
      or nothing else ("how long did repairs take");
    - a count of rows for a count of days of a kind no cell or header names: "how many sick days" over a log
      of incidents."""
    kind = _KIND_OF_TIME.search(question) if plan.answer == "count" else None
    span = next((c for c in (plan.column, *(f[0] for f in plan.filters)) if c is not None and c.expression
                 and _SPAN.match(c.label)), None)
    if kind is None and span is None:
        return None  # (most plans: no cell is read)
    known = known_words(table) | {f for c in columns for cell in c.cells for f in word_forms(cell)}

    def unknown(said: str) -> bool:
        return any(not (singulars(w) & known) for w in tokens(said) if w not in _NOT_AN_EVENT
                   and not any(ch.isdigit() for ch in w) and w not in MONTHS)

    if kind is not None and unknown(kind.group(1)):
        return kind.group(0).lower()
    dated = {w for c in columns if c.kind == "date" for w in tokens(c.label)}
    if span is None or any(same_word(a, d) for a in tokens(question) for d in dated):
        return None  # "from booking in to collection", "time to close"
    timed = next((m.group(0).strip() for m in _TIME_OF.finditer(question) if unknown(next(g for g in m.groups() if g))), None)
    return timed if timed is None or timed.lower().startswith("the ") else f"the {timed}"


# (one pattern: a second, "respectively" or "each" closing the question, had been shadowed by this one)
_RESPECTIVELY = re.compile(r"\brespectively\b", re.I)


def respectively(question: str, planned: PlannedQuery) -> None:
    """ "The net sales of International and Foodservice respectively": each named value's own figure, not their
    total (the model summed the two segments' rows): a filter naming two values or more becomes the group."""
    plan = planned.plan
    if not _RESPECTIVELY.search(question) or plan.group_by is not None or plan.answer not in ("count", *_SQL_AGGREGATE):
        return
    for i, (column, op, value) in enumerate(plan.filters):
        if op == "is" and column.kind == "text" and len({fold(v) for v in plan.matched.get(i, (value,))}) >= 2:
            plan.group_by = column
            planned.applied.append(Applied("respectively", column.label, "added by code", "each named value's own figure"))
            return


# A figure worked out of a row's cell, which reading the cell alone does not answer
_DERIVED = re.compile(r"\b(?:ratio|proportion|percent(?:age)?|share|divided|times|multiple|rate|margin|per)\b", re.I)


def _derived_beyond(question: str, labels: list[str]) -> bool:
    """Whether the question asks for a ratio, a rate or a share that is not the name of the rows it reads ("the
    discount rate" names the row "Discount rate"; "X in 2019 as a percentage of X in 2018" is worked out of them)."""
    named = {w.rstrip("s") for label in labels for w in tokens(label)}
    return bool({w.rstrip("s") for w in _DERIVED.findall(question.lower())} - named)


# A figure that is one amount over another: "the attendance rate", "what percentage of the hours"
_RATIO_ASKED = re.compile(r"\b(percent(?:age)?|proportion|share|ratio|rate)\b", re.I)
# A rate that is a price or a charge per unit is a column's own figure: "the average hourly rate" over Rate (£/hr)
_PRICE_WORDS = {"price", "fee", "charge", "cost", "tariff", "pay", "wage", "salary"}


_VALUE_ASKED = re.compile(r"\b(?:value|worth)\b", re.I)


def priced_quantity(question: str, plan: Plan, columns: list[Column]) -> Column | None:
    """ "Qty on hand times Unit cost (£)", a figure of each row, where the question asks what something held is
    worth and the plan adds up either column alone: a stock's value is each row's quantity times its unit price.
    None for any other plan, or a table without exactly one quantity and one unit price."""
    if plan.answer != "sum" or plan.column is None or not _VALUE_ASKED.search(question):
        return None
    prices = [c for c in columns if holds_money(c) and _label_forms(c) & (_PRICE_WORDS | {"unit", "rate", "each"})]
    quantities = [c for c in columns if c.kind == "number" and not holds_money(c)
                  and _label_forms(c) & (_QUANTITY_WORDS | {"stock", "held", "hand", "inventory"})]
    if len(prices) != 1 or len(quantities) != 1 or plan.column not in (prices[0], quantities[0]):
        return None
    quantity, price = quantities[0], prices[0]
    return Column(f"{quantity.name}_times_{price.name}", f"{quantity.label} times {price.label}", "number", price.unit,
                  expression=f"({quantity.sql} * {price.sql})")


# What is held but not taken up: "seats we pay for but are not using", "unused licences", "free beds"
_UNUSED = re.compile(r"\b(?:not\s+(?:being\s+)?(?:using|used|in\s+use|occupied|taken|assigned|allocated|filled|booked)|"
                     r"unused|unoccupied|unassigned|unallocated|unfilled|spare|vacant|idle)\b", re.I)
_TAKEN_UP = {"use", "used", "occupied", "taken", "assigned", "allocated", "filled", "booked"}


def unused_quantity(question: str, plan: Plan, columns: list[Column]) -> tuple[Column, Column, Column] | None:
    """"Seats minus Seats in use", a figure of each row, where the question asks how much of something is held but not
    taken up and the table has the whole ("Seats") and the part taken up ("Seats in use", "Beds occupied"): the
    model counted rows or wrote a query with a filter of its own. (the difference, the whole, the part), or None for a
    plan of another kind or another table."""
    if plan.answer not in ("count", "sum", "other") or not _UNUSED.search(question):
        return None
    pairs = [(whole, part) for whole in columns for part in columns
             if whole is not part and whole.kind == part.kind == "number" and not whole.expression
             and not part.expression and (own := set(label_words(whole.label)))
             and own < set(label_words(part.label)) and set(label_words(part.label)) - own <= _TAKEN_UP | {"in"}]
    if len(pairs) != 1:
        return None
    whole, part = pairs[0]
    taken = part.label.lower().replace(whole.label.lower(), "").strip()  # "in use"
    return Column(f"{whole.name}_not_{part.name}", f"{whole.label} not {taken}", "number", whole.unit,
                  expression=f"({whole.sql} - {part.sql})"), whole, part


def ratio_unsaid(question: str, plan: Plan, title: str = "") -> str | None:
    """The word of a ratio the question asks for ("rate", "percentage") that the column the plan totals or averages
    does not hold: the average of Sessions Attended is no attendance rate, a sum of hours no share of them. None
    when the column, or a row the plan filters, is such a figure itself ("Pass %", "Rate (£/hr)", a report's row
    "Effective tax rate" under a year column), the table's title says its figures are ("Defect rate is scrap as a
    percentage of units produced", over Q1 ... Q4), or the question asks none."""
    asked = {w.lower() for w in _RATIO_ASKED.findall(question)}
    column = plan.column
    rows = [str(v) for i, (_, op, value) in enumerate(plan.filters) if op == "is"
            for v in plan.matched.get(i, (value,))]
    label = " | ".join([column.label, *rows, title]).lower()
    if not asked or "%" in label or "percent" in label or (column.unit or "") in ("%", "percent") \
            or {w.rstrip("s") for w in tokens(label)} & {"rate", "ratio", "share", "proportion", "pct", "percent"}:
        return None
    if asked == {"rate"} and ("/" in (column.unit or "") or set(tokens(label)) & _PRICE_WORDS):
        return None
    return sorted(asked)[0]


def read_by_rules(question: str, table: TableInfo, executor: ReadOnlyExecutor) -> PlannedQuery | None:
    """A question code answers whole from a report table's layout: the items under a heading (section_items),
    one cell's share of another (share_of), the sum or difference of two rows' cells (two_cells), or a cell of a
    row a year labels (year_rows); None for any other."""
    return section_items(question, table, executor) or share_of(question, table, executor) \
        or two_cells(question, table, executor) or year_rows(question, table, executor)


# How many words of a question the row, headers and title must leave unexplained before the rules leave the
# question alone. TAT-QA tuning part, rules only (`bench.tatqa --rules-only`, 834 questions): at 3, 20 questions
# go to the model of which the rules had answered 13 wrong and 2 right; at 2, 49 (26 wrong, 19 right).
WORDS_BEYOND_THE_ROW = 3


_BOTH_YEARS = re.compile(rf"\b(?:both|the\s+two)\s+{YEAR_KIND}?(?:years|fys?|periods)\b", re.I)


def plan_by_rules(question: str, table: TableInfo, executor: ReadOnlyExecutor) -> PlannedQuery | None:
    """A report row's figures across the years the question states, the row named by most of its label's
    words: "the change in sales in Mexico between 2017 and 2018" needs no model call; so does one cell, "the
    total other operating expenses in 2018". The model's plans for such questions failed on the TAT-QA tuning
    part (the text route answered 9 of 40 with the two figures or not at all), and a plan code can read whole
    is exact and fast. None when the question names no one row."""
    years = row_figures.stated_years(question)
    # (a "total" or an "average" of one year's figure is that figure, and the words name a row more often:
    # "the Total other operating expenses in 2018", "the basic weighted average shares outstanding in 2018")
    operation = row_figures.operation_asked(question)
    one_cell = len(years) == 1 and operation in (None, "sum", "average")
    # "In which year was X less than 170 million?", "How many years did X exceed $15,000?": over every year
    which_years = operation in (row_figures.WHICH_YEAR, row_figures.HOW_MANY_YEARS)
    # "the average cost of sales", "the difference in net profit between both years": over the years the table
    # shows (figures_across says how many it takes)
    over_shown = not years and (operation == "average" or (
        operation in ("change", "percent change") and _BOTH_YEARS.search(question)))
    year_over_year = operation in ("change", "percent change") and len(years) == 1  # "the change in sales in 2019"
    if len(years) < 2 and not one_cell and not which_years and not over_shown and not year_over_year:
        return None  # (before reading the columns, which queries the table)
    if not which_years and asks_which(question) and _TOP.search(question):
        return None  # "Which country had the highest total revenue in 2019?" ranks the rows: no one row is named
    columns = columns_of(table, executor)
    named = row_figures.years_named(question, columns) or (
        row_figures.year_columns(columns) if which_years or over_shown else [])
    if len(named) < (1 if one_cell or year_over_year else 2):
        return None
    label = _label_column(columns)
    labels = _rows_with_figures(table, label, named, executor) if label is not None else []
    row = _row_asked(question, labels)
    if row is None:
        return _years_shown(question, table, columns) if which_years else None
    if year_over_year:
        named = _with_year_before(question, named, columns, [row])
        if len(named) < 2:
            return None
    # a ratio or a rate is worked out of cells ("the ratio of debt to equity in 2019"), unless it is the row's own
    # name: "the discount rate in 2019" reads the row "Discount rate"
    if one_cell and _derived_beyond(question, [row, *(c.label for c in columns)]):
        return None
    # "the research expense associated with the legacy business of GP" says more than the row "Research expense"
    # holds: its figure is in the text, or the model's to find (not for "which year": the years are the columns)
    unexplained = row_figures.unexplained_words(question, [row, *(c.label for c in columns), table.title])
    if not which_years and len(unexplained) >= WORDS_BEYOND_THE_ROW:
        return None
    # "the depreciation expense" over the row "Accumulated depreciation": a row named only in part, while the
    # question says a word no label holds, is another measure (the balance, not the year's charge)
    if any(len(w) > 3 for w in unexplained) and row_figures.unsaid_words(question, row):  # ("as of" says no measure)
        return None
    plan = read_plan({"answer": "sum", "column": named[0].label if one_cell else "",
                      "filters": [{"column": label.label, "op": "is", "value": row}]}, columns)
    planned = PlannedQuery(table, question, plan=plan, prompt="")
    planned.applied = apply_conditions(question, plan, columns, table.row_count, name_words(table))
    if planned.refused or not (one_cell or figures_across(question, plan, columns)):
        return None
    others = [cell for cell in plan.matched.get(0, ()) if cell != row]
    if re.search(r"\band\b|\brespectively\b", question, re.I) and any(_said_whole(cell, question) >= 2 for cell in others):
        return None  # the question names several rows ("Japanese Yen and South Korean Won"): not one row's figures
    if others:  # a word also in other labels ("deferred") widened the one row the question names: it stays one
        plan.matched[0] = (row,)
        planned.applied = [a for a in planned.applied if not (a.how == "added by code" and a.column == label.label)]
    _bounds_on_years(question, planned)
    planned.applied.append(Applied(row, label.label, "read by the rules", "the row the question names"))
    return planned


_ITEMS = r"(?:items|line items|components|elements|constituents|parts|sub-?items|categories)"
_ITEMS_UNDER = re.compile(rf"^\W*(?:(?P<count>how many)\s+{_ITEMS}\s+(?:are\s+there\s+|were\s+there\s+)?"
                          rf"|(?:what|which)\s+(?:are|were)\s+(?:the\s+)?{_ITEMS}\s+)"
                          rf"(?:under|in|of|within|that make up|making up|listed under)\s+(?:the\s+)?(?P<heading>.+?)"
                          rf"(?:\s+(?:are there|were there|in the table))?\s*\??\s*$", re.I)


def section_items(question: str, table: TableInfo, executor: ReadOnlyExecutor) -> PlannedQuery | None:
    """"What are the items under Deferred tax liabilities?", "How many components are there under X?": the
    rows a report prints under that heading, read in order by code (no model call). None when the question
    asks nothing of the kind or the table has no such heading."""
    asked = _ITEMS_UNDER.match(question)
    label = _row_label_column(table) if asked else None
    if label is None:
        return None
    figures = [c for c in table.columns if table.types.get(c) == "REAL" and not is_twin(table, c)]
    sql = f'SELECT source_row, "{label}"{"".join(f", {chr(34)}{c}{chr(34)}" for c in figures)} FROM {table.name}'
    try:
        found = executor.run(sql, [table.name])
    except Exception:  # (a read of the table's own columns: nothing the question could make fail)
        return None
    # a spreadsheet's heading line is set aside as a note of the table, at its row
    notes = [(a["row"] or 0, text, False) for a in table.set_aside if a["kind"] == "note" for text in a["cells"].values()]
    # and its total lines are set aside too, where they close the rows above them
    printed_label = table.printed.get(label, label)
    notes += [(a["row"] or 0, a["cells"][printed_label], True) for a in table.set_aside
              if a["kind"] == "total" and a["cells"].get(printed_label)]
    printed = sorted([(r[0] or 0, str(r[1] or "").strip(), any(v is not None for v in r[2:])) for r in found.rows] + notes)
    rows = [(text, has_figures) for _, text, has_figures in printed]
    heading, items = rows_under(asked.group("heading"), rows)
    if not items:
        return None
    shown = [item.partition(": ")[2] if item.startswith(f"{heading}: ") else item for item in items]
    plan = Plan("count" if asked.group("count") else "list", None, section=heading)
    planned = PlannedQuery(table, question, plan=plan, prompt="", columns=["item"], rows=[(i,) for i in shown])
    planned.sql = f'SELECT "{label}" FROM {table.name} WHERE "{label}" IN ({", ".join(text_literal(i) for i in items)}) ' \
                  f"ORDER BY source_row"
    planned.applied.append(Applied(heading, table.printed.get(label, label), "read by the rules", "the rows under the heading"))
    return planned


# "the percentage of A in the total B", "what proportion of B is made up of A", "A as a ratio of B", "the ratio
# of A to B": A's share of B (the first two a percentage)
_SHARES = [
    (re.compile(r"\b(?:percentage|proportion|share|portion|fraction)\s+of\s+(?P<a>.+?)\s+(?:in|of|out of|within)\s+"
                r"(?P<b>(?:the\s+)?total\b.+?)\s*\??\s*$", re.I), "percent"),
    (re.compile(r"\b(?:percentage|proportion|share|portion|fraction)\s+of\s+(?P<b>.+?)\s+(?:is|was|are|were)\s+"
                r"(?:made up of|accounted for by|from|attributable to|due to)\s+(?P<a>.+?)\s*\??\s*$", re.I), "percent"),
    (re.compile(r"^\W*(?:what|how much)\s+(?:is|was|were|are)\s+(?:the\s+)?(?P<a>.+?)\s+as\s+an?\s+"
                r"(?P<kind>ratio|percentage|proportion|share)\s+of\s+(?P<b>.+?)\s*\??\s*$", re.I), None),
    (re.compile(r"\bratio\s+of\s+(?P<a>.+?)\s+to\s+(?P<b>.+?)\s*\??\s*$", re.I), "ratio"),
]


_SHARE_FILLER = {"the", "of", "in", "for", "a", "an", "and", "our", "its", "their", "this", "that", "year", "fiscal"}


def _contained(label: str, phrase: str) -> int:
    """How many words a label has when the phrase holds every one of them (in any order, plurals as singulars;
    "Total" only where the phrase says total); else 0."""
    said = word_forms(phrase)
    words = tokens(re.sub(r"\(\d{1,2}\)", " ", label))  # footnote marks anywhere: "Tax credits:(1)"
    if not words or (len(words) == 1 and words[0] in _LONE_LABELS and words[0] not in said):
        return 0
    return len(words) if all(singulars(w) & said for w in words) else 0


def _best(options: list[tuple[tuple[str, ...], object]], phrase: str):
    """The option (its label's forms, its value) whose label the phrase holds at the greatest length; None for
    none or a tie."""
    scored = sorted(((max(_contained(form, phrase) for form in forms), value) for forms, value in options),
                    key=lambda s: -s[0])
    if not scored or scored[0][0] == 0 or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None
    return scored[0][1]


def _nameable(table: TableInfo, label: str, executor: ReadOnlyExecutor) -> tuple[list[str], list, list[Column]]:
    """What a phrase may name in a report table: its row labels, each also as (its forms, itself) with the item
    after its section ("Assets: Money market funds" also "Money market funds") for _best, and its figure columns."""
    columns = columns_of(table, executor)
    labels = next((c.cells for c in columns if c.name == label), [])
    rows = [((r, r.rpartition(": ")[2]), r) for r in dict.fromkeys(labels)]
    return labels, rows, _figure_columns(columns)


def _figure_columns(columns: list[Column]) -> list[Column]:
    """A report table's stored figure columns (not one computed from another)."""
    return [c for c in columns if c.kind == "number" and not c.expression]


def share_of(question: str, table: TableInfo, executor: ReadOnlyExecutor) -> PlannedQuery | None:
    """A's share of B, where each names a cell of the table by its row label and its column header: "the
    percentage of the purchase obligations of more than 5 years in the total purchase obligations" is the
    More Than 5 Years cell over the Total cell of that row; "what proportion of level 2 inputs is made up of
    money market funds" the row's Level 2 cell over the column's Total row. Code finds the cells and divides;
    None when the question asks no share or a cell is not named unambiguously."""
    asked = next(((m, kind) for pattern, kind in _SHARES if (m := pattern.search(question))), None)
    label = _row_label_column(table) if asked else None
    if label is None:
        return None
    match, kind = asked
    kind = kind or ("ratio" if match.group("kind").lower() == "ratio" else "percent")
    labels, rows, figures = _nameable(table, label, executor)
    headers = [((c.label, _BRACKETED_END.sub("", c.label), *re.findall(r"[(\[]([^()\[\]]+)[)\]]", c.label)), c) for c in figures]
    a, b = match.group("a"), match.group("b")
    row_a, row_b, col_a, col_b = _best(rows, a), _best(rows, b), _best(headers, a), _best(headers, b)
    if row_a is None and row_b is None:
        return None
    # B naming a column only is that column of A's row when A names a column of its own ("more than 5 years"
    # in the total), else the column's total ("money market funds" in the level 2 inputs)
    row_a, row_b = row_a or row_b, row_b or (row_a if col_a is not None and col_b is not None else None)
    if row_b is None and col_b is None:
        return None
    col_a = col_a or col_b
    col_b = col_b or col_a
    if col_a is None:  # neither names a column: the year the question states, or the table's one figure column
        named = row_figures.years_named(question, figures) or []
        only = named if len(named) == 1 else figures if len(figures) == 1 else []
        if not only:
            return None
        col_a = col_b = only[0]
    printed_total = None
    if row_b is None:  # B names a column only ("level 2 inputs"): its total, a row or the line set aside
        row_b = next((r for r in labels if re.fullmatch(r"\s*total\s*:?\s*", r, re.I)), None)
        totals = [aside["cells"] for aside in table.set_aside if aside["kind"] == "total"]
        if row_b is None and len(totals) == 1 and totals[0].get(col_b.label) is not None:
            row_b = totals[0].get(table.printed.get(label, label)) or "Total"
            printed_total = _number(totals[0][col_b.label])
        # every word of B is the column's or the total's: "staff numbers in 2018" names no total of the table
        held = word_forms(f"{col_b.label} {row_b or ''} total all")
        if any(not singulars(w) & held for w in tokens(b) if w not in _SHARE_FILLER):
            return None
    if row_b is None or (row_a, col_a) == (row_b, col_b):
        return None
    read = _read_cells(question, table, executor, label, kind, (row_a, col_a), (row_b, col_b))
    if read is None:
        return None
    planned, cell, _ = read
    part, whole = cell.get((row_a, 0)), printed_total if printed_total is not None else cell.get((row_b, 1))
    if not isinstance(part, (int, float)) or not isinstance(whole, (int, float)) or whole == 0:
        return None
    result = part / whole * (100 if kind == "percent" else 1)
    planned.columns, planned.rows = ["value", "part", "whole"], [(result, part, whole)]
    planned.applied += [Applied(a, col_a.label, "read by the rules", f"the cell of {row_a}"),
                        Applied(b, col_b.label, "read by the rules", f"the cell of {row_b}")]
    return planned


CELLS_SUM, CELLS_DIFFERENCE = "sum of cells", "difference of cells"
# "the sum of A and B in 2019", "the difference between A and B as at September 30, 2019": two rows a phrase
# names, in one column (the year said, or the table's only figure column)
_SCOPE = r"(?:\s+(?:in|for|as\s+at|as\s+of|at|during|between)\s+.*?)?\s*\??\s*$"
_TWO_CELLS = [
    (re.compile(rf"\b(?:sum|total)\s+of\s+(?:the\s+)?(?P<a>.+?)\s+and\s+(?:the\s+)?(?P<b>.+?){_SCOPE}", re.I), CELLS_SUM),
    (re.compile(rf"\bdifference\s+between\s+(?:the\s+)?(?P<a>.+?)\s+and\s+(?:the\s+)?(?P<b>.+?){_SCOPE}", re.I),
     CELLS_DIFFERENCE),
]

_OF_A_WHOLE = re.compile(r"\b(?:proportion|percent(?:age)?|ratio|share|fraction|portion|average|mean)\b", re.I)
_OVER_A_WHOLE = re.compile(r"\b(?:over|divided\s+by|relative\s+to|as\s+an?\s+(?:share|percent(?:age)?|proportion))\b",
                           re.I)


def _read_cells(question: str, table: TableInfo, executor: ReadOnlyExecutor, label: str, kind: str,
                first: tuple[str, Column], second: tuple[str, Column]) -> tuple[PlannedQuery, dict, int] | None:
    """The plan reading two cells, (row label, column) each, what its query found ((row label, 0 | 1) -> the
    cell of the first or the second column) and how many rows it found. None when the query fails."""
    (row_a, col_a), (row_b, col_b) = first, second
    planned = PlannedQuery(table, question, plan=Plan(kind, None, shares=[first, second]), prompt="")
    planned.sql = (f'SELECT "{label}", {col_a.sql}, {col_b.sql} FROM {table.name} WHERE "{label}" IN '
                   f"({text_literal(row_a)}, {text_literal(row_b)}) ORDER BY source_row")
    try:
        found = executor.run(planned.sql, [table.name])
    except Exception:  # (the table's own columns and cells: nothing the question could make fail)
        return None
    return planned, {(str(r[0]), n): r[1 + n] for r in found.rows for n in (0, 1)}, len(found.rows)


def two_cells(question: str, table: TableInfo, executor: ReadOnlyExecutor) -> PlannedQuery | None:
    """"What was the sum of Accrued expenses and Other long-term liabilities in 2019?": each phrase names a row
    by every word of its label (the longest such label), the year a column; code reads the two cells and adds
    or subtracts (the first named minus the second). None unless both rows and one column are named."""
    asked = next(((m, kind) for pattern, kind in _TWO_CELLS if (m := pattern.search(question))), None)
    if asked and (_OF_A_WHOLE.search(question[:asked[0].start()]) or _OVER_A_WHOLE.search(asked[0].group("b"))):
        return None  # "the proportion of the sum of A and B over total sales": the sum is only a part of what is asked
    label = _row_label_column(table) if asked else None
    if label is None:
        return None
    match, kind = asked
    _, rows, figures = _nameable(table, label, executor)
    row_a, row_b = _best(rows, match.group("a")), _best(rows, match.group("b"))
    named = row_figures.years_named(question, figures) or []
    only = named if len(named) == 1 else figures if len(figures) == 1 and not row_figures.stated_years(question) else []
    if row_a is None or row_b is None or row_a == row_b or not only:
        return None
    column = only[0]
    read = _read_cells(question, table, executor, label, kind, (row_a, column), (row_b, column))
    if read is None or read[2] != 2:
        return None  # (a label on many rows names records, "ACME" in an orders table: a total of them is a plan's)
    planned, cell, _ = read
    a, b = cell.get((row_a, 0)), cell.get((row_b, 0))
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return None
    planned.columns, planned.rows = ["value", "first", "second"], [(a + b if kind == CELLS_SUM else a - b, a, b)]
    planned.applied += [Applied(match.group("a"), column.label, "read by the rules", f"the cell of {row_a}"),
                        Applied(match.group("b"), column.label, "read by the rules", f"the cell of {row_b}")]
    return planned


def year_rows(question: str, table: TableInfo, executor: ReadOnlyExecutor) -> PlannedQuery | None:
    """A schedule whose rows are years ("2026 | Operating leases: $412 | Finance leases: $18"): "the operating leases
    for 2027" reads the 2027 row's cell of the one figure column the question names (every word of its header).
    None when the years head columns (plan_by_rules reads those), the question states other than one year, or no
    one column is named."""
    years = row_figures.stated_years(question)
    label = _row_label_column(table) if len(years) == 1 else None
    if label is None or row_figures.operation_asked(question) not in (None, "sum", "average"):
        return None
    columns = columns_of(table, executor)
    labels = next(c for c in columns if c.name == label)
    figures = _figure_columns(columns)
    row = next((cell for cell in labels.cells if re.fullmatch(rf"{FISCAL_YEAR}?{years[0]}", cell.strip(), re.I)),
               None)
    if row is None or row_figures.years_named(question, figures):
        return None
    column = figures[0] if len(figures) == 1 else _best([((c.label, _BRACKETED_END.sub("", c.label)), c) for c in figures],
                                                        question)
    if column is None:
        return None
    plan = read_plan({"answer": "sum", "column": column.label,
                      "filters": [{"column": labels.label, "op": "is", "value": row}]}, columns)
    planned = PlannedQuery(table, question, plan=plan, prompt="")
    planned.applied = apply_conditions(question, plan, columns, table.row_count, name_words(table))
    # the year is the row: no date of another column ("(1) As of January 31, 2020" under the table) is its period
    plan.periods = [(p, c) for p, c in plan.periods if str(p.year) != years[0]]
    planned.applied = [a for a in planned.applied if not (a.condition == years[0] and a.how == "added by code")]
    if planned.refused:
        return None
    planned.applied.append(Applied(row, column.label, "read by the rules", "the row the year names"))
    return planned


def rows_under(asked: str, rows: list[tuple[str, bool]]) -> tuple[str, list[str]]:
    """The heading a question names and the labels of the rows under it, from (label, has figures) in printed
    order: the rows labelled "Heading: item", or those after a heading row without figures, to the next such
    row or the line that totals the section ("Total ...", "Gross deferred tax assets" under "Deferred tax
    assets"). ("", []) when no heading is the one asked."""
    wanted = _words(asked)

    def totals(label: str, heading: str) -> bool:
        return row_figures.is_total_label(label, or_subtotal=True) or " ".join(tokens(heading)) in " ".join(tokens(label))

    prefixed = [(label.partition(": ")[0], label) for label, _ in rows if ": " in label]
    heading = next((h for h, _ in prefixed if _words(h) == wanted), None)
    if heading is not None:
        return heading, [label for h, label in prefixed if h == heading and not totals(label.partition(": ")[2], heading)]
    start = next((n for n, (label, figures) in enumerate(rows) if not figures and _words(label) == wanted), None)
    total = next((n for n, (label, figures) in enumerate(rows) if figures and _words(label) == wanted
                  and row_figures.is_total_label(label)), None)
    if start is None and total is not None:
        # "the categories under total stock-based compensation expense": the lines that total adds up, above it
        # back to a heading or an earlier total
        items = []
        for label, figures in reversed(rows[:total]):
            if not figures or row_figures.is_total_label(label, or_subtotal=True):
                break
            items.insert(0, label)
        return rows[total][0], items
    if start is None:
        return "", []
    heading, items = rows[start][0].rstrip(":"), []
    for label, figures in rows[start + 1:]:
        if not figures or totals(label, heading):
            break
        items.append(label)
    return heading, items


def _rows_with_figures(table: TableInfo, label: Column, figures: list[Column], executor: ReadOnlyExecutor) -> list[str]:
    """The row labels with a figure in any of the given columns: a section heading ("Revenue:") over its lines
    names no figure, and "the total revenue" is the total line under it."""
    filled = " OR ".join(f"{c.sql} IS NOT NULL" for c in figures)
    try:
        found = executor.run(f"SELECT DISTINCT {label.sql} FROM {table.name} WHERE {filled}", [table.name]).rows
    except (QueryRefused, Exception):  # (no figures known: every label, as before)
        return label.cells
    return [str(r[0]) for r in found if r[0] not in (None, "")]


_NAME_WORDS = {"name", "title", "description"}
_ASKS_IDENTIFIER = re.compile(r"\b(?:ids?|numbers?|nos?|codes?|refs?|references?|identifiers?)\b", re.I)


def name_beside(question: str, listed: Column | None, columns: list[Column]) -> Column | None:
    """The column that names what an identifier column lists: "Which books ..." over a Book ID column is
    answered with each book's Title beside its ID, unless the question asks for the IDs or codes."""
    if listed is None or listed.kind != "text" or not _label_forms(listed) & _IDENTIFIER_WORDS \
            or _ASKS_IDENTIFIER.search(question):
        return None
    names = [c for c in columns if c is not listed and c.kind == "text" and _label_forms(c) & _NAME_WORDS]
    return names[0] if len(names) == 1 else None


def figures_across_named(question: str, table: TableInfo, executor: ReadOnlyExecutor) -> bool:
    """Whether the question states two or more years that name the table's number columns (a report's
    change or average over years is a plan's, whatever else its words say: "the difference between 2018
    and 2019")."""
    if len(row_figures.stated_years(question)) < 2:
        return False  # (before reading the columns, which queries the table)
    return _two_years_named(question, columns_of(table, executor))


def _two_years_named(question: str, columns: list[Column]) -> bool:
    return len(row_figures.years_named(question, columns) or []) >= 2


# "What years does the table include data for?", "Which years does the table show?": the table itself is asked about
_ABOUT_THE_TABLE = re.compile(r"\b(?:the|this)\s+table\b", re.I)


def _years_shown(question: str, table: TableInfo, columns: list[Column]) -> PlannedQuery | None:
    """The years a table gives figures for, when the question asks which years the table covers and names no row
    (the years of its columns any row fills, said by _phrase_across)."""
    if not _ABOUT_THE_TABLE.search(question) or row_figures.operation_asked(question) != row_figures.WHICH_YEAR \
            or bounds(question):
        return None
    plan = read_plan({"answer": "list", "column": "", "filters": []}, columns)
    planned = PlannedQuery(table, question, plan=plan, prompt="")
    planned.applied = apply_conditions(question, plan, columns, table.row_count, name_words(table))
    if planned.refused or not figures_across(question, plan, columns) or plan.filters:
        return None
    planned.applied.append(Applied("the years the table shows", None, "read by the rules", "its year columns"))
    return planned


def _bounds_on_years(question: str, planned: PlannedQuery) -> None:
    """ "less than 170" in "In which year was X less than 170?" is compared with each year's figure by code
    (across.years_chosen), not a filter on one column: applied, not left unapplied."""
    if planned.plan.answer not in (row_figures.WHICH_YEAR, row_figures.HOW_MANY_YEARS):
        return
    stated = {b.text for b in bounds(question)}
    planned.applied = [Applied(a.condition, None, "added by code", "to each year's figure")
                       if a.how == "not applied" and a.condition in stated else a for a in planned.applied]


_SUM_WORDS = re.compile(r"\b(?:sum|combined|altogether|in all|together|added|both|between)\b", re.I)


# one figure taken as a share of another ("the 2019 balance as a percentage of the 2018 balance"): worked out of
# the figures, never a list of each year's
_OF_ANOTHER = re.compile(r"\b(?:as\s+an?\s+(?:percent(?:age)?|proportion|share|ratio|fraction)\s+of|(?:ratio|proportion)\s+of|"
                         r"divided\s+by)\b", re.I)


def figures_across(question: str, plan: Plan, columns: list[Column]) -> bool:
    """"The change in X from 2018 to 2019", "the average of X for 2018 and 2019": when the years the question
    states name number columns, the operation is over those cells of the filtered row (code reads the
    operation from the question's words and the columns from its years, whatever the model chose)."""
    operation = row_figures.operation_asked(question)
    if plan.answer in ("change", "percent change") and operation not in ("change", "percent change"):
        operation = plan.answer  # the model read a change the rules' words do not show ("from X to Y")
    if operation in (row_figures.WHICH_YEAR, row_figures.HOW_MANY_YEARS):
        # "In which year was X larger?": the answer is a column's year, over every year column
        years = row_figures.year_columns(columns)
        named = row_figures.years_named(question, columns) or []
        years = row_figures.in_time_order(named) if len(named) >= 2 else years  # "Between 2018 and 2019, which ..."
        if len(years) < 2:
            return False
        plan.answer, plan.across = operation, years
        plan.filters = [f for f in plan.filters if f[0].kind == "text"]  # the bound is over the years, not a column
        plan.column, plan.group_by, plan.order_by, plan.limit = None, None, None, None
        _name_the_row(question, plan, columns)
        return True
    rows = [str(v) for c, op, v in plan.filters if c.kind == "text" and op == "is"]
    if operation in ("sum", "average") and (_RESPECTIVELY.search(question) or (
            operation == "sum" and not _SUM_WORDS.search(question) and rows
            and all(row_figures.is_total_label(r) and _said_whole(r, question) for r in rows))):
        # "X in 2018 and 2019 respectively" asks each year's figure, whatever "total" or "average" names the row
        # with; so does "the Total operating expense in 2019 and 2018", "total" being the row's own word
        operation = None
    elif operation == "average" and row_says_average(question, rows):
        operation = None  # "How long did it take on average to re-let a home?" names the row "Average days to re-let"
    named = row_figures.years_named(question, columns)
    if operation in ("change", "percent change") and named:
        named = _with_year_before(question, named, columns, rows)
    if operation in ("average", "change", "percent change") and not row_figures.stated_years(question) \
            and plan.answer != "count" and _names_a_row(question, plan, columns):
        # "the average interest expense" over a report's 2018 and 2019 columns states no year: it is over the
        # years the table shows (a change: from the one to the other, so two of them)
        shown = row_figures.year_columns(columns)
        if 2 <= len(shown) <= (2 if operation != "average" else 3):
            named = shown
    # (a share of another figure is worked out, unless the row already states it: a percent-of-revenue table's
    # "gross profit as a percentage of revenue in 2018 and 2019" is each year's percentage)
    if not operation and named and plan.answer != "count" \
            and (not _OF_ANOTHER.search(question) or all((c.unit or "") == "%" for c in named)):
        operation = row_figures.EACH  # "the respective tax credits in 2018 and 2019": each year's figure
    if not operation or not named or len(named) < 2 or plan.answer == "count":
        if plan.answer in ("change", "percent change"):
            plan.answer = "other"  # a change over rows is no plan: the free writer takes it
        return False
    plan.answer, plan.across = operation, named if operation == row_figures.EACH else row_figures.in_time_order(named)
    plan.column, plan.group_by, plan.order_by, plan.limit = None, None, None, None
    _name_the_row(question, plan, columns)
    return True


def _with_year_before(question: str, named: list[Column], columns: list[Column], rows: list[str]) -> list[Column]:
    """"The change in sales in 2019" states one year: the change over that year, from the column of the year before
    it, when the table has one and the question names no shorter period (a change between two of its quarters, or
    "between June 30 and December 31, 2019", is within the year). "The Net decrease in cash in 2019" says its
    change word only as the name of its row: that row's figure is asked."""
    if len(named) != 1 or len(row_figures.stated_years(question)) != 1 or any(p.months or p.start for p in periods(question)):
        return named
    change = dict(row_figures.OPERATIONS)["change"]
    if not {m.lower() for m in change.findall(question)} - {m.lower() for r in rows for m in change.findall(r)}:
        return named
    year = row_figures.year_of(named[0])
    if not year.isdigit():  # ("2018/2019": a financial year's column)
        return named
    before = [c for c in row_figures.year_columns(columns) if row_figures.year_of(c) == str(int(year) - 1)]
    return [before[0], named[0]] if len(before) == 1 else named


_EACH_ROW = re.compile(r"\b(?:each|every|per|respective(?:ly)?|row\s+by\s+row|line\s+by\s+line)\b", re.I)


def every_row_across(question: str, plan: Plan, columns: list[Column], table: TableInfo,
                     executor: ReadOnlyExecutor) -> bool:
    """Whether an operation across the years reads every row of a table of several, where the question names no
    row and asks for no figure of each."""
    if plan.answer in (row_figures.WHICH_YEAR, row_figures.HOW_MANY_YEARS) or _EACH_ROW.search(question) \
            or any(c.kind == "text" for c, _, _ in plan.filters):
        return False
    label = _label_column(columns)
    return label is not None and len(_rows_with_figures(table, label, plan.across, executor)) > 1


_WORK_DAY = re.compile(r"\bhow many (\d+(?:\.\d+)?)[- ]hours? (?:working |work )?(?:days?|shifts?)\b", re.I)


def work_days(question: str, plan: Plan, columns: list[Column]) -> None:
    """"How many 8-hour days did Mila spend on X?": the total of the one column of time, said in days of 8
    hours. The model read the 8 as a bound ("Hrs over 8") and counted rows; code sums and divides."""
    asked = _WORK_DAY.search(question)
    timed = [c for c in columns if c.kind == "number" and not c.expression and c.unit
             and (unit_kind(c.unit) or ("",))[0] == unit_kind("h")[0]]
    if asked is None or len(timed) != 1:
        return
    hours = float(asked.group(1))
    plan.answer, plan.column, plan.day_hours = "sum", timed[0], hours
    plan.filters = [f for f in plan.filters if not (f[0] is timed[0] and _number(f[2]) == hours)]


_LATE = re.compile(r"\b(?:late|overdue|after (?:the|its|their) due date|past (?:the|its|their) due date)\b", re.I)
_SPAN = re.compile(r"days from (.+?) to (.+)$")  # time_between's label: from the first date to the second
_STILL_OPEN = re.compile(r"\b(?:still|not yet|never|outstanding|unreturned|not returned|open)\b", re.I)


def late_rows(question: str, plan: Plan, columns: list[Column]) -> None:
    """"How many books came back late?": the rows whose end date falls after their due date, the one span
    from a Due column to a later date ("days from Due to Returned") over 0. The model read "late" as a
    blank Returned date. A row still out ("still overdue", "not yet returned") is the model's to say."""
    spans = [(c, m.group(2)) for c in columns
             if c.expression and (m := _SPAN.match(c.label)) and re.search(r"\bdue\b", m.group(1), re.I)]
    if not _LATE.search(question) or _STILL_OPEN.search(question) or len(spans) != 1:
        return
    (span, end), = spans
    plan.filters = [f for f in plan.filters if not (f[0].label == end and f[1] == "is blank") and f[0] is not span]
    plan.filters.append((span, ">", "0"))


# A row not yet finished: "still open", "outstanding", "not yet completed", "unresolved"
_OPEN_ROWS = re.compile(r"\b(?:still\s+open|open|outstanding|pending|unfinished|unresolved|incomplete|"
                        r"not\s+(?:yet\s+)?(?:completed|complete|done|finished|closed|resolved|fixed))\b", re.I)


def open_rows(question: str, plan: Plan, columns: list[Column]) -> list[Applied]:
    """"How many repair jobs are still open?" over a log with one span of dates (Reported to Completed): the rows
    whose end date is blank. The model counted every row. Only where the plan filters on nothing the words could be
    (a Status of "Open" is a value the plan reads) and tests no date for a blank itself."""
    said = _OPEN_ROWS.search(question)
    spans = [m.group(2) for c in columns if c.expression and (m := _SPAN.match(c.label))]
    if not said or len(spans) != 1 or any(op in BLANK_OPS or c.kind == "text" and _OPEN_ROWS.search(str(value))
                                          for c, op, value in plan.filters):
        return []
    end = next((c for c in columns if c.label == spans[0] and c.kind == "date"), None)
    if end is None:
        return []
    plan.filters.append((end, "is blank", ""))
    return [Applied(said.group(0), end.label, "added by code", f"no {end.label} date yet")]


# A cover that has run out or still holds, said of the thing it covers: "out of warranty", "whose insurance has
# expired", "lapsed memberships" / "still under warranty", "within warranty"
_LAPSED = re.compile(r"\bout\s+of\s+(?P<out>[a-z]+)|\b(?P<ended>[a-z]+)\s+(?:has\s+|have\s+|had\s+)?(?:expired|lapsed|"
                     r"ended|run\s+out)\b|\b(?:expired|lapsed)\s+(?P<pre>[a-z]+)", re.I)
_IN_FORCE = re.compile(r"\b(?:under|within|in)\s+(?P<noun>[a-z]+)\b", re.I)
# A date column that says when something ends: "Warranty ends", "Insurance expiry", "Membership valid until"
_END_DATE = re.compile(r"\b(?:ends?|end\s+date|expir\w*|until|valid\s+to|lapses?)\b", re.I)


def lapsed_rows(question: str, plan: Plan, columns: list[Column], today: dt.date | None = None) -> list[Applied]:
    """"How many laptops are out of warranty?" over a register with a "Warranty ends" date: the rows whose end date
    is before today ("still under warranty": on or after it). The model counted every row. Only where one date
    column's header names the cover and says it ends, and the plan does not already test that column."""
    said = _LAPSED.search(question)
    lapsed = said is not None
    noun = (said.group("out") or said.group("ended") or said.group("pre")) if said else None
    candidates = [noun] if noun else [m.group("noun") for m in _IN_FORCE.finditer(question)]
    for word in candidates:
        ends = [c for c in columns if c.kind == "date" and _END_DATE.search(c.label)
                and singulars(word.lower()) & set(label_words(c.label))]
        if len(ends) != 1 or any(c is ends[0] for c, _, _ in plan.filters) \
                or any(c is ends[0] for _, c in plan.periods):
            continue
        day = (today or dt.date.today()).isoformat()
        plan.filters.append((ends[0], "<" if lapsed else ">=", day))
        return [Applied(said.group(0) if lapsed else f"{word} in force", ends[0].label, "added by code",
                        f"{'before' if lapsed else 'on or after'} today ({day})")]
    return []


def _spanned(plan: Plan) -> str:
    """The SQL of the dates the plan's times between two dates read: such a time reads only the rows that have both
    ("longer than 5 days to close" needs no Closed date besides)."""
    return " ".join(" ".join(c.ends) for c in [plan.column, *(f[0] for f in plan.filters)] if c is not None and c.ends)


def happened_rows(question: str, plan: Plan, columns: list[Column]) -> list[Applied]:
    """"Which technician resolved the most tickets?" over a log with a Resolved date: the rows that have one (a ticket
    still open was not resolved). The date column whose one-word header is the participle the question says ("resolve",
    "returned"), where the plan neither filters it nor dates a period on it, nor tests any date for a blank ("still
    open" asks for the rows without a Closed date, not also those with an Opened one)."""
    said = set(tokens(question))
    if any(op in BLANK_OPS for _, op, _ in plan.filters):
        return []
    spanned = _spanned(plan)
    for column in columns:
        word = column.label.strip().lower()
        if column.kind != "date" or column.expression or not re.fullmatch(r"[a-z]+ed", word) \
                or not said & {word, word[:-1], word[:-2]} or any(c is column for c, _, _ in plan.filters) \
                or any(c is column for _, c in plan.periods) or (column.date_twin or column.name) in spanned:
            continue
        plan.filters.append((column, "is not blank", ""))
        return [Applied(next(w for w in (word, word[:-1], word[:-2]) if w in said), column.label, "added by code",
                        f"the rows with a {column.label} date")]
    return []


def spans_to_stated_day(plan: Plan) -> list[Applied]:
    """"Active vans in service for more than five years by 31 December 2024": a span whose end date is blank on
    a row (a van not sold, a ticket still open, a book not returned) runs to the day the question states, not to
    nothing. A bound on a span ("days from In Service to Sold On" over 1826) then measures that row too."""
    day = next((period.end for period, _ in plan.periods if period.end and not period.start), None)
    if day is None:
        return []
    applied = []
    for i, (column, op, value) in enumerate(plan.filters):
        span = _SPAN.match(column.label) if column.ends else None
        if span is None or op not in (">", ">=", "<", "<="):
            continue
        start, end = column.ends
        to_day = Column(f"{column.name}_by_day", f"{column.label} (or {day})", "number", column.unit,
                        expression=_days_between(start, f"COALESCE({end}, '{day}')"), ends=(start, end))
        plan.filters[i] = (to_day, op, value)
        applied.append(Applied(f"by {day}", column.label, "added by code",
                               f"a blank {span.group(2)} counts to {day}"))
    return applied


def _label_column(columns: list[Column]) -> Column | None:
    """The column whose cells name the rows: the first text column (a report's Description)."""
    return next((c for c in columns if c.kind == "text"), None)


def _names_a_row(question: str, plan: Plan, columns: list[Column]) -> bool:
    """Whether the plan filters a row by its label, or the question's words name one."""
    label = _label_column(columns)
    return label is not None and (any(c is label for c, _, _ in plan.filters)
                                  or row_figures.row_named(question, label.cells) is not None)


def _name_the_row(question: str, plan: Plan, columns: list[Column]) -> None:
    """The model filtered no row: the one the question names by its label's words, if one fits best."""
    label = _label_column(columns)
    if label is not None and not any(c.kind == "text" for c, _, _ in plan.filters):
        row = row_figures.row_named(question, label.cells)
        if row is not None:
            plan.filters.append((label, "is", row))
            plan.matched[len(plan.filters) - 1] = (row,)


_LONE_LABELS = {"total", "totals", "other", "others", "net", "gross", "subtotal", "balance", "amount", "value"}


def _words(text: str) -> str:
    """A text's words, spaced at both ends: `_words(phrase) in _words(text)` finds the phrase said whole."""
    return f" {' '.join(tokens(text))} "


def _said_whole(label: str, question: str) -> int:
    """How many words of a label the question says word for word ("the amounts owed to members of Peel", not
    "by"): the whole label, or its item without a section ("Excluding: Free Cash Flow") or a closing bracket
    ("(non-GAAP measure)"); 0 when it is not said."""
    said = _words(question)
    core = _BRACKETED_END.sub("", _unmarked(label))
    for form in (label, core, core.rpartition(":")[2]):
        words = tokens(_unmarked(form))
        if not words or (len(words) == 1 and (words[0] in _LONE_LABELS or len(words[0]) < 4)):
            continue  # "Total" or "Other" alone is said in passing
        if _words(_unmarked(form)) in said:
            return len(words)
    return 0


def said_label(question: str, labels: list[str]) -> str | None:
    """The one row label the question says at the greatest length; None when it says none, two alike, or two
    apart ("X and Y respectively")."""
    said = sorted(((n, c) for c in dict.fromkeys(labels) if (n := _said_whole(c, question))), key=lambda s: -s[0])
    if not said or any(n == said[0][0] or not _said_whole(c, said[0][1]) for n, c in said[1:]):
        return None
    return said[0][1]


def _row_asked(question: str, labels: list[str]) -> str | None:
    """The row a question names: the label it says word for word, unless every word of a longer label that holds
    it is in the question too ("the net Total other (expense) income" names "Total other (expense) income, net",
    not "Other (expense) income")."""
    said, named = said_label(question, labels), row_figures.row_named(question, labels)
    if said and named and set(tokens(said)) < set(tokens(named)) <= set(tokens(question)):
        return named
    return said or named


def said_column(question: str, plan: Plan, columns: list[Column]) -> None:
    """The figure column the question names word for word is the column read, where the model's plan read another
    it does not name: "the deferred revenue as reported" over "As reported | Adjustments | Without ASC 606
    Adoption". Only a header of two words or more, and only one said."""
    if plan.column is None or plan.column.kind != "number" or plan.group_by is not None:
        return
    said = [c for c in columns if c.kind == "number" and not c.expression
            and _said_whole(c.label, question) == len(tokens(_unmarked(c.label))) >= 2]
    if len(said) == 1 and said[0] is not plan.column and not _said_whole(plan.column.label, question):
        plan.column = said[0]


def said_row(question: str, plan: Plan, columns: list[Column]) -> None:
    """The row the question names word for word is the row read: the label said at the greatest length, where
    the model's filter named another row ("Percentage of revenue" for "total revenue") or kept every row.
    Code, not the model, then reads the line a report's question quotes."""
    label = _label_column(columns)
    row = said_label(question, label.cells) if label is not None else None
    if row is None:
        return
    if any(c is not label and _words(row) in _words(" ".join(plan.matched.get(i, (str(v),))))
           for i, (c, op, v) in enumerate(plan.filters)):
        return  # the words are another column's value the plan keeps ("Tel Aviv" the district, not the city)
    filtered = [i for i, (c, op, _) in enumerate(plan.filters) if c is label and op == "is"]
    if any(fold(str(plan.filters[i][2])) == fold(row) for i in filtered) \
            or any(c is label and op != "is" for c, op, _ in plan.filters):
        return  # read already; or the model chose a wider match ("contains Widget" for Widget and Widget Pro)
    for i in reversed(filtered):
        drop_filter(plan, i)
    # a year column's "is not blank" keeps every row: the named row is the condition
    plan.filters = [f for f in plan.filters if not (f[1] in BLANK_OPS and row_figures.year_columns([f[0]]))]
    plan.filters.append((label, "is", row))
    plan.matched[len(plan.filters) - 1] = (row,)


_BLANK_WORDS = {"", "null", "none", "empty", "blank", "nan", "n/a"}


def read_plan(reply: dict, columns: list[Column]) -> Plan | None:
    """The model's JSON as a Plan over real columns (the schema admits no other; anything off is dropped)."""
    by_label = {c.label: c for c in columns}
    answer = reply.get("answer")
    if answer not in ANSWERS:
        return None
    plan = Plan(answer, by_label.get(reply.get("column") or ""))
    for item in (reply.get("filters") or [])[:MAX_FILTERS]:
        column = by_label.get(str(item.get("column")))
        op, value = item.get("op"), str(item.get("value", "")).strip()
        if value.lower() in _BLANK_WORDS and op in ("is", "is not"):  # "is null" is the blank test
            op, value = ("is blank" if op == "is" else "is not blank"), ""
        if column is None or op not in FILTER_OPS or (not value and op not in BLANK_OPS) \
                or (column.kind == "date" and op not in BLANK_OPS):  # as the schema: periods are code's
            continue
        plan.filters.append((column, op, value))
    group = reply.get("group_by") or ""
    plan.group_by = by_label.get(group) or (group if group in PERIOD_GROUPS else None)
    plan.order_by = by_label.get(reply.get("order_by") or "")
    plan.descending = reply.get("order") != "lowest first"
    limit = reply.get("limit")
    plan.limit = int(limit) if isinstance(limit, int) and 0 < limit <= 1000 else None
    if plan.limit and plan.order_by is None and plan.answer == "list" and not plan.group_by:
        plan.limit = plan.limit if reply.get("order") else None  # "limit" alone with no order picks arbitrary rows
    return plan


# --- code checks that every stated condition reached the plan ---

def name_words(table: TableInfo) -> frozenset:
    """The words of a table's file and sheet names, in their singular forms: they name the table, not its rows."""
    name = f"{table.filename.rsplit('.', 1)[0]} {table.sheet or ''}".replace("_", " ")
    return frozenset(f for w in tokens(name) for f in singulars(w))


def known_words(table: TableInfo) -> frozenset:
    """The words a table says of itself, in their singular forms: its file and sheet names and its headers."""
    return name_words(table) | {f for label in table.printed.values() for f in word_forms(label)}


def stated_conditions(question: str, columns: list[Column], table_words: frozenset = frozenset()) -> StatedConditions:
    """What the question states: periods, bounds and cell values. A word of a header or of the table's name
    ("library fines" over library_loans.csv) is never a word of some cells to filter on."""
    text_cells = {c.label: c.cells for c in columns if c.kind == "text" and c.cells}
    headers = {f for c in columns for w in tokens(c.label) for f in singulars(w)} | table_words
    return StatedConditions(periods(question), bounds(question), cell_values(question, text_cells, headers))


def compare_columns(question: str, plan: Plan, columns: list[Column]) -> list[Applied]:
    """A comparison the question makes with a column ("Which spare parts are below their reorder level?") is one
    column's cell against the other's in each row: the other column is the one the model's filter set beside it
    (it wrote "Reorder level < 'Qty on hand'", a text no cell holds, and the wrong way round), else the one other
    number column in the same unit. Code sets the direction the question states."""
    numbers = [c for c in columns if c.kind == "number" and not c.expression]
    applied = []
    for text, op, label in column_bounds(question, [c.label for c in numbers]):
        right = next(c for c in numbers if c.label == label)
        beside = [c for c in numbers if c is not right and any(
            (f is right and fold(str(v)) == fold(c.label)) or (f is c and fold(str(v)) == fold(right.label))
            for f, _, v in plan.filters)]
        if not beside:
            beside = [c for c in numbers
                      if c is not right and normal_unit(c.unit or "") == normal_unit(right.unit or "")]
        if len(beside) != 1:
            applied.append(Applied(text, label, "not applied", f"no one column to compare with {label}"))
            continue
        left = beside[0]
        for i in reversed(range(len(plan.filters))):  # the model's own comparisons of the two
            if plan.filters[i][0] in (left, right) and plan.filters[i][1] in (">", ">=", "<", "<="):
                drop_filter(plan, i)
        plan.compared.append((left, op, right))
        applied.append(Applied(text, label, "added by code", f"{left.label} {_BOUND_SAID[op]} {label}"))
    return applied


def _year_column(columns: list[Column], question: str) -> Column | None:
    """A table with no dates but a number column of years ("Year", "Year built", or years under a header the
    question names: "fitted before 2010" of Boiler fitted): what a period filters."""
    asked = set(tokens(question))
    found = [c for c in columns if c.kind == "number" and not c.expression and not row_figures.year_columns([c])
             and ("year" in tokens(c.label) or c.all_years is not None and set(tokens(c.label)) & asked and c.all_years())]
    # ("For the year ended 31 December 2019" holds figures)
    return found[0] if len(found) == 1 else None


def _years_as_bounds(stated: list[Period], column: Column, plan: Plan) -> list[Applied]:
    """ "before 2000", "after 1984", "in 2009", "between 2001 and 2004" over a Year column: bounds on it,
    replacing the model's own; a month or a day of a year is more than the column can say."""
    applied = []
    # the model's own filters on the column, and a stated year it put on another column ("EPC rating < 2010")
    years = {y for period in stated for y in years_in(period.text)}
    plan.filters = [f for f in plan.filters if f[0] is not column and not (_number(f[2]) in {float(y) for y in years})]
    for period in stated:
        whole_years = not period.months and not period.weekdays and (period.start or "-01-01").endswith("-01-01") \
            and (period.end or "-12-31").endswith("-12-31")
        if not whole_years or not (period.year or period.start or period.end):
            applied.append(Applied(period.text, column.label, "not applied", "the table has years, not dates"))
            continue
        if period.start:
            plan.filters.append((column, ">=", period.start[:4]))
        if period.end:
            plan.filters.append((column, "<=", period.end[:4]))
        if not (period.start or period.end):
            plan.filters.append((column, "is", str(period.year)))
        applied.append(Applied(period.text, column.label, "added by code", "as years"))
    return applied


def _years_name_columns(text: str, columns: list[Column]) -> bool:
    """ "in 2019", "from 2018 to 2019" over columns headed 2018 and 2019 (or "2019 £m", or two columns under each
    year): columns, not dates."""
    return row_figures.years_head_columns(text, columns)


def _words_of_a_filtered_row(phrase: str, plan: Plan) -> bool:
    """ "earnings per common diluted share" over the row "Earnings per common share — Diluted": the "per" is
    the row's own name for its measure, not a group the question asks for."""
    words = set(tokens(phrase))
    return any(op == "is" and words <= set(tokens(str(value))) for _, op, value in plan.filters)


def _financial_years_named(question: str, columns: list[Column]) -> set[str]:
    """The calendar years of the financial years ("2017/2018") the question states that head columns: each
    names its column, so neither of its years is a date to apply."""
    spans = [p for p in row_figures.periods_in(question) if "/" in p]
    if not spans or row_figures.columns_for_years(spans, columns) is None:
        return set()
    return {year for span in spans for year in span.split("/")}


def _year_end_of_columns(period: Period, question: str, columns: list[Column]) -> bool:
    """ "for the years ended December 31, 2018 and 2019" over columns headed 2018 and 2019: the month and day
    say when those years end, no period of the rows."""
    return bool(period.months) and period.year is None and period.start is None \
        and re.search(rf"\b{re.escape(period.text)}\s+\d{{1,2}}\b", question) is not None \
        and _years_name_columns(question, columns)


def _in_financial_year(period: Period, spanned: set[str]) -> bool:
    """ "from 2017" read out of "from 2017/2018": a year of a financial year that names a column."""
    years = set(row_figures.periods_in(period.text))
    return bool(years) and not period.months and years <= spanned


def date_column(question: str, columns: list[Column]) -> Column | None:
    """The date column a period applies to: the one whose header word the question uses ("returned in
    March" -> Returned), else the table's first date column (the date a row is dated by)."""
    dates = [c for c in columns if c.kind == "date"]
    asked = set(tokens(question))
    for c in dates:
        words = {w for w in tokens(c.label) if len(w) > 3 and w != "date"}
        stems = {w[:5] for w in words}
        if words & asked or any(a[:5] in stems for a in asked if len(a) > 4):
            return c
    return dates[0] if dates else None


def drop_filter(plan: Plan, index: int) -> None:
    """Take the plan's filter at `index` out, keeping each later filter's matched cells at its new index."""
    del plan.filters[index]
    plan.matched = {(i - (i > index)): cells for i, cells in plan.matched.items() if i != index}


_QUARTER_NAMES = {quarter: quarter_names(quarter) for quarter in range(1, 5)}


def period_column(period: Period, columns: list[Column]) -> Column | None:
    """The figure column of an undated table a stated period's year heads: "the year ended December 31, 2018"
    or "at September 30, 2018" over a column "2018" (one column that year); "Q3 2018" over "Q3 2018". A quarter
    with no year names the one column of that quarter ("Q3" over "2024/25 Q3"), none where a report prints two
    years' quarters."""
    year = period.year or next((int(e[:4]) for e in (period.start, period.end) if e and e[:4] != "0000"), None)
    months = period.months
    quarter = (months[0] + 2) // 3 if len(months) == 3 and months[0] % 3 == 1 else None
    if year is None:
        of_quarter = [c for c in columns if c.kind == "number" and quarter and set(tokens(c.label)) & _QUARTER_NAMES[quarter]]
        return of_quarter[0] if len(of_quarter) == 1 else None
    found = [c for c in columns if c.kind == "number" and row_figures.columns_for_years([str(year)], [c]) is not None
             and (quarter is None or set(tokens(c.label)) & _QUARTER_NAMES[quarter])]
    if quarter is None and len(found) > 1:  # "2018" and "2018 Q3": the year's own column
        found = [c for c in found if not row_figures.names_a_quarter(c.label)]
    if quarter is None and months and len(found) > 1:  # "As of August 1, 2019" and "As of December 31, 2019"
        found = [c for c in found if any(month_number(m) in months for m in re.findall(rf"\b{MONTH_NAME}\b", c.label, re.I))]
    return found[0] if len(found) == 1 else None


# A year-end or a balance date, which a report's year column states: "for the year ended December 31, 2018", "as
# of September 30, 2018", "31 March 2019"; not a month of sales ("in December 2018")
_COLUMN_DATE = re.compile(rf"\b(?:years?|periods?|quarters?)\s+end(?:ed|ing)\b|\bas\s+(?:of|at)\b"
                          rf"|\b{MONTH_NAME}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+{YEAR_DIGITS}\b"
                          rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+{MONTH_NAME}\.?\s+{YEAR_DIGITS}\b", re.I)


def _period_by_column(question: str, period: Period, plan: Plan, columns: list[Column]) -> Applied:
    """A period over a table with no dates: applied when the column the plan reads is the one it heads;
    another year's column the plan read is moved to it; otherwise it cannot be applied."""
    column = period_column(period, columns) if not period.months or len(period.months) == 3 \
        or _COLUMN_DATE.search(question) else None
    if (dated := _dated_row(period, plan)) is not None:
        return Applied(period.text, dated.label, "in the plan", "the row it names")
    if column is None:
        # "after 1998" as the model's "Term Started > 1998": a column of years is what the period filters
        held = next((c for c, op, value in plan.filters if c.kind == "number" and op in (">", ">=", "<", "<=", "is")
                     and _number(value) in {float(y) for y in years_in(period.text)}), None)
        if held is not None:
            return Applied(period.text, held.label, "in the plan", "as years")
        return Applied(period.text, None, "not applied", NO_DATES)
    if plan.column is column:
        return Applied(period.text, column.label, "in the plan", "the column it heads")
    if plan.column is not None and plan.column in row_figures.year_columns(columns) and column in row_figures.year_columns(columns):
        plan.column = column
        return Applied(period.text, column.label, "moved by code", "the column it heads")
    if plan.answer in _SQL_AGGREGATE and (plan.column is None or plan.column.kind != "number"):
        plan.column = column  # "how much was X for the year ended ..." summed the row labels: the year's figure
        return Applied(period.text, column.label, "moved by code", "the column it heads")
    if plan.answer in ("other", "change", "percent change") and (plan.column is None or plan.column.kind != "number") \
            and any(op == "is" for _, op, _ in plan.filters) and len(periods(question)) == 1 \
            and row_figures.operation_asked(question) is None and not _COMPARED.search(question):
        # "What was Line 2's defect rate in the third quarter?" planned as a change from Q2 to Q3, which no word
        # of it asks: one row the plan names and one period a column heads is that cell
        plan.answer, plan.column = "sum", column
        return Applied(period.text, column.label, "moved by code", "the column it heads")
    return Applied(period.text, column.label, "not applied", "the plan reads another column")


_COMPARED = re.compile(r"\b(?:vs\.?|versus|compar(?:e|ed|es|ing|ison)|variation|variance|against)\b", re.I)


def _year_of_a_compared_column(question: str, period: Period, plan: Plan, columns: list[Column]) -> Applied | None:
    """A year that heads a column, where the plan reads a column comparing it with another ("What was the gross
    margin in 2018?" read "Variation 2019 vs 2018", "-130 bps"): a question that asks for no change or comparison
    asks for the year's own column, and the plan is moved to it. None where the plan reads no such column."""
    read = plan.column
    compared = row_figures.periods_in(read.label) if read is not None else []
    if len(compared) < 2 or plan.across or row_figures.operation_asked(question) is not None \
            or _COMPARED.search(question) or str(period.year or "") not in compared:
        return None
    own = period_column(period, columns)
    if own is None or own is read:
        return None
    plan.column = own
    return Applied(period.text, own.label, "moved by code", f"the column it heads, not {read.label}")


def _dated_row(period: Period, plan: Plan) -> Column | None:
    """The label column of a row the plan reads that is labelled with the stated date ("Outstanding at September
    30, 2018"), or with its month where the columns it reads are headed by its year ("Outstanding at 31 March",
    2019); None when no row is."""
    year = str(period.year or "")
    read = [c for c in [*plan.across, plan.column] if c is not None]
    for column, op, value in plan.filters:
        words = tokens(str(value))
        if column.kind != "text" or op != "is" or not (year or period.months):
            continue
        dated = not year or year in words or any(year in tokens(c.label) for c in read)
        if dated and (year in words or period.months) and (not period.months or any(month_number(w) in period.months for w in words)):
            return column
    return None


def month_name_column(columns: list[Column]) -> Column | None:
    """The one text column whose cells are all month names: an undated log's Month, which a period's months filter."""
    found = [c for c in columns if c.kind == "text" and len(c.cells) >= 2
             and all(month_of_cell(cell) is not None for cell in c.cells)]
    return found[0] if len(found) == 1 else None


def applies_as_period(period: Period, columns: list[Column]) -> bool:
    """A period code applies to the rows' dates: a year that heads a column ("in 2009" over a column "2009")
    names that column instead, the figure the plan measures."""
    return bool(period.months or period.weekdays) or not _years_name_columns(period.text, columns)


def apply_conditions(question: str, plan: Plan, columns: list[Column], row_count: int = 0,
                     table_words: frozenset = frozenset()) -> list[Applied]:
    stated = stated_conditions(question, columns, table_words)
    # "Between 2018 and 2019, which year ...": years that head columns, not a range of numbers
    stated.bounds = [b for b in stated.bounds if not _years_name_columns(b.text, columns)]
    in_columns = _financial_years_named(question, columns)
    applied: list[Applied] = []
    for period in stated.periods:  # a year that heads a column: the plan may read one comparing it with another
        moved = None if applies_as_period(period, columns) else _year_of_a_compared_column(question, period, plan, columns)
        if moved is not None:
            applied.append(moved)
    stated.periods = [p for p in stated.periods if applies_as_period(p, columns)
                      and not _in_financial_year(p, in_columns) and not _year_end_of_columns(p, question, columns)]
    plan.dated = date_column(question, columns)
    # a table with no dates but a Year column: its periods are bounds on it, applied after the model's
    # unstated numbers are dropped (below)
    year_column = _year_column(columns, question) if plan.dated is None else None
    # Periods: code applies them to the date column; a date filter the model wrote for one is replaced.
    # an undated log's Month column and, for each period with months, its cells of those months: applied after the
    # model's values are read
    months_column = month_name_column(columns) if plan.dated is None and stated.periods and year_column is None else None
    by_month_name = [(p, cells) for p in stated.periods if months_column is not None and p.months
                     and (cells := tuple(c for c in months_column.cells if month_of_cell(c) in p.months))]
    if stated.periods and year_column is None:
        target = plan.dated
        if by_month_name:  # code says which months; the model's own month filters are replaced
            plan.filters = [f for f in plan.filters if f[0] is not months_column]
        if target is None:
            named = [p for p, _ in by_month_name]
            applied += [_period_by_column(question, p, plan, columns) for p in stated.periods if p not in named]
            # a year beside the months ("January to March 2025") is one no date of the table can keep
            applied += [Applied(str(p.year), None, "not applied", NO_DATES) for p in named if p.year]
        else:
            plan.filters = [f for f in plan.filters if f[0].kind != "date"]
            for period in stated.periods:
                plan.periods.append((period, target))
                applied.append(Applied(period.text, target.label, "added by code"))
    # Bounds: a numeric filter with the stated number (in the column's unit), else added to the one
    # column whose unit measures the same thing.
    for bound in stated.bounds:
        applied.append(_apply_bound(bound, plan, columns))
    # A number the question does not state is no condition of it: a model's "Hrs is 48" or "at most 1,000
    # days" would answer another question, so code drops it and says so.
    stated_numbers = stated_figures(question) | {0.0} | {t for b in stated.bounds for c in columns if c.kind == "number"
                                                        and (t := bound_in(b, c.unit)) is not None}
    for column, op, value in list(plan.filters):
        number = _number(value) if column.kind == "number" and op in _SQL_OP else None
        if number is not None and not any(abs(number - n) <= 1e-4 * max(1.0, abs(n)) for n in stated_numbers):
            plan.filters.remove((column, op, value))
            applied.append(Applied(f"{column.label} {op} {value}", column.label, "dropped by code",
                                   "the question states no such number"))
    # A blank the question never asks about: "Which vans have an MOT due before the end of 2025?" planned with
    # "Mileage is blank", which kept no van; nothing in it says a figure is missing
    for column, op, value in list(plan.filters):
        if op == "is blank" and not _BLANK_DATE_ASKED.search(question) \
                and not {w for w in tokens(column.label) if len(w) > 2} & set(tokens(question)):
            plan.filters.remove((column, op, value))
            applied.append(Applied(f"{column.label} {op}", column.label, "dropped by code",
                                   "the question asks about no missing value"))
    # A value the question does not name is no condition of it either: the model's "Channel is Phone" on
    # "tickets closed in Q2" or "Status is Completed" on "charges in Q1" answers another question.
    for column, op, value in list(plan.filters):
        if column.kind == "text" and op in ("is", "is not", "contains") and str(value).strip() \
                and not named_in(str(value), question):
            plan.filters.remove((column, op, value))
            applied.append(Applied(f"{column.label} {op} {value}", column.label, "dropped by code", UNNAMED_VALUE))
    # "What did the fuel cards cost us, DEF included?": a value only said to be included, with no other of
    # its column kept, narrows nothing; the model's "Fuel Type is DEF" would answer for DEF alone.
    kept = {v.column for v in stated.values if v.stance == "is"}
    for named in (v for v in stated.values if v.stance == "any" and v.column not in kept):
        cells = {fold(c) for c in named.cells}
        for column, op, value in list(plan.filters):
            if column.label == named.column and op == "is" and fold(str(value)) in cells:
                plan.filters.remove((column, op, value))
                applied.append(Applied(named.text, column.label, "dropped by code", "only said to be included"))
    if stated.periods and year_column is not None:
        applied += _years_as_bounds(stated.periods, year_column, plan)
    # Filter values: matched to the cells they name; a value no cell of its column holds, but one other
    # column's cells do, moves there.
    text_columns = [c for c in columns if c.kind == "text"]
    for i, (column, op, value) in enumerate(plan.filters):
        if column.kind != "text" or op not in ("is", "is not"):
            continue
        cells = _cells_named(value, column)
        if not cells:
            elsewhere = [(c, m) for c in text_columns if c is not column and (m := _cells_named(value, c))]
            if len(elsewhere) == 1:
                plan.filters[i] = (elsewhere[0][0], op, value)
                cells = elsewhere[0][1]
                applied.append(Applied(value, elsewhere[0][0].label, "moved by code",
                                       f"no {column.label} is {value}"))
        if cells:
            plan.matched[i] = cells
    # Two "is" filters on one column ("Tel Aviv", "Center") would keep no row, a cell holding one value: the
    # question ("in either the Tel Aviv or Center districts") means either, one filter (IN) of both.
    for j in range(len(plan.filters) - 1, -1, -1):
        column, op, value = plan.filters[j]
        first = next(i for i, (c, o, _) in enumerate(plan.filters) if c is column and o == op)
        if first < j and op == "is" and column.kind == "text":
            plan.matched[first] = tuple(dict.fromkeys([*plan.matched.get(first, (plan.filters[first][2],)),
                                                       *plan.matched.get(j, (value,))]))
            drop_filter(plan, j)
    # Named cell values: each is filtered on its column; several values of one column are one filter
    # (IN), so "Riverside or Eastgate" keeps both; "not counting e-bikes" leaves its rows out, and
    # "(e-bikes included)" joins the values kept beside it without filtering on its own.
    # (a month the period names is one of the months code filters on below, not a value of its own)
    named_values = _one_per_phrase([v for v in stated.values
                                    if not (by_month_name and v.column == months_column.label)], plan)
    for named in sorted(named_values, key=lambda v: v.stance == "any"):
        column = next(c for c in columns if c.label == named.column)
        wanted = "is not" if named.stance == "is not" else "is"
        if wanted == "is" and plan.column is column and plan.answer == "list" \
                and not any(c is column for c, _, _ in plan.filters):
            if sum(v.column == named.column and v.stance == "is" for v in named_values) > 1:
                continue  # "which of Olga, Seán ..." lists the column itself
            # "List the uninsured dogs booked ..." planned as the Species of the rows: one value names the rows
            # listed, which are filtered on it and listed by what names them
            plan.column = identifier_column([c for c in columns if c is not column], row_count)
        contrary = next((i for i, (c, op, v) in enumerate(plan.filters) if wanted == "is not" and c is column
                         and op == "is" and any(same_value(v, cell) for cell in named.cells)), None)
        if contrary is not None:  # "besides sourdough": the model kept the rows the question leaves out
            plan.filters[contrary] = (column, "is not", plan.filters[contrary][2])
            applied.append(Applied(named.text, column.label, "moved by code", "left out, as the question says"))
            continue
        index = next((i for i, (c, op, _) in enumerate(plan.filters) if c is column
                      and (op == wanted or (wanted == "is" and op == "contains"))), None)
        if index is not None and _covers(plan, index, named):
            if named.every and index in plan.matched:  # the model's "Form is 11B" for "Year 11": all of them
                plan.matched[index] = tuple(sorted({*plan.matched[index], *named.cells}))
            applied.append(Applied(named.text, column.label, "in the plan"))
            continue
        if named.stance == "any" and index is None:
            continue  # only said to be among the rows: no filter of its own
        if index is None or plan.filters[index][1] not in ("is", "is not"):
            plan.filters.append((column, wanted, named.cells[0]))
            index = len(plan.filters) - 1
        plan.matched[index] = tuple(dict.fromkeys([*plan.matched.get(index, ()), *named.cells]))
        applied.append(Applied(named.text, column.label, "added by code",
                               "left out" if wanted == "is not" else ""))
    for period, cells in by_month_name:  # "in the first quarter" over a Month column of January ... June
        plan.filters.append((months_column, "is", cells[0]))
        plan.matched[len(plan.filters) - 1] = cells
        months = f"the month{'s' if len(cells) > 1 else ''} {said_values(list(cells))}"
        applied.append(Applied(period.text, months_column.label, "added by code", months))
    # The model's "Category is Helmets", a value no cell of its column holds, beside code's "Item is Helmet
    # Urban" for the same word of the question: the word is applied where its cells are; kept, it matched no row.
    applied_words = {fold(a.condition) for a in applied if a.how == "added by code"}
    for j in range(len(plan.filters) - 1, -1, -1):
        column, op, value = plan.filters[j]
        if column.kind == "text" and op == "is" and j not in plan.matched and column.cells \
                and any(same_value(value, word) for word in applied_words):
            drop_filter(plan, j)
            applied.append(Applied(f"{column.label} {op} {value}", column.label, "dropped by code",
                                   f"no {column.label} is {value}; the word is applied where its cells are"))
    # "takings broken down by how the customer paid (card, cash, voucher)": the values a question lists for
    # a breakdown are its groups; the model filtered on them and grouped nothing, which sums them together
    listed = Counter(v.column for v in stated.values if v.stance == "is")
    broken_down = [c for c in columns if listed[c.label] >= 2]
    if plan.group_by is None and plan.answer in ("count", *_SQL_AGGREGATE) and _BREAKDOWN.search(question) \
            and len(broken_down) == 1:
        plan.group_by = broken_down[0]
        applied.append(Applied(_BREAKDOWN.search(question).group(0), broken_down[0].label, "added by code",
                               "the values the question lists, each a group"))
    # "Monthly spend", "per quarter": the period grouping the question asks for, when the model left it out
    asked_period = period_group(question)
    if isinstance(plan.group_by, Column) and plan.group_by.kind == "date" and asked_period:
        plan.group_by = None  # "monthly" over a column of days: the month, not each day
    if asked_period and plan.group_by is None and plan.dated is not None and plan.answer in ("count", *_SQL_AGGREGATE):
        plan.group_by = asked_period
        applied.append(Applied(asked_period, plan.dated.label, "added by code", f"per {asked_period}"))
    # A grouping the question does not ask for ("How many gallons of X ..." grouped by fuel type, highest
    # first) answers another question: one figure is asked, so code drops it.
    if plan.group_by is not None and not asks_per_group(question):
        plan.group_by, plan.limit = None, (plan.limit if plan.order_by is not None else None)
    # "per branch", "monthly spend" ask for every group: a limit or an order by size belongs to "which ... most"
    if plan.group_by is not None and (_PER_GROUP.search(question) or (asked_period and plan.group_by == asked_period)) \
            and not _TOP.search(question):
        plan.limit, plan.order_by = None, None
    # "each year group (Year 7 to Year 11)" over forms 7A ... 11D: the groups are the numbers the forms start with
    family = code_family_groups(question, {c.label: c.cells for c in columns if c.kind == "text" and c.cells}) \
        if plan.answer in ("count", *_SQL_AGGREGATE) else None
    if family is not None:
        word, label, cells = family
        coded = next(c for c in columns if c.label == label)
        for j in range(len(plan.filters) - 1, -1, -1):  # the model's "Form is 11B": one of the groups
            if plan.filters[j][0] is coded:
                drop_filter(plan, j)
        numbers = sorted({int(leading_number(cell)) for cell in cells})
        said = f"{word} {numbers[0]} to {word} {numbers[-1]}" if numbers == list(range(numbers[0], numbers[-1] + 1)) \
            else _listed([f"{word} {n}" for n in numbers])
        plan.filters.append((dataclasses.replace(coded, said_as=said), "is", said))
        plan.matched[len(plan.filters) - 1] = cells
        plan.group_by = Column(f"{coded.name}_number", f"{word} group", "text",
                               expression=f"'{word} ' || CAST(TRIM({coded.sql}) AS INTEGER)")
        applied.append(Applied(_PER_GROUP.search(question).group(0) + " " + word.lower(), coded.label, "added by code",
                               f"each {word.lower()} is the number its {coded.label} starts with"))
    # "per clinician", "for each product": the group the question names is a column by that name; a model's
    # grouping on another column is moved to it, one the model left out is added, and with no such column
    # it is said ("each driver" over Employee)
    ungrouped_figure = plan.group_by is None and plan.answer in ("count", *_SQL_AGGREGATE)
    named_group = group_words(question) if family is None else None
    if named_group is not None and rate_of_a_column(named_group[0], columns):
        # "Which antibiotic costs the most per pack?" over Cost per pack: the rate the figure's header says, no group
        if isinstance(plan.group_by, Column) and named_group[1] & _label_forms(plan.group_by):
            applied.append(Applied(named_group[0], plan.group_by.label, "dropped by code", "a rate its figure's header says"))
            plan.group_by = None
        named_group = None
    if (isinstance(plan.group_by, Column) or ungrouped_figure) and named_group is not None:
        phrase, forms = named_group
        holding = [c for c in columns if c.kind != "number" and forms & _label_forms(c)]
        # "average loaves per sale" over a Sale Ref column of one value a row: each row, not a group
        rowwise = [c for c in holding if names_rows(c, row_count)]
        holding = [c for c in holding if c not in rowwise]
        if plan.group_by not in holding and len(holding) == 1:
            applied.append(Applied(phrase, holding[0].label, "added by code" if plan.group_by is None else "moved by code",
                                   "the column the question names"))
            plan.group_by = holding[0]
        elif not holding and not rowwise and not singulars(phrase.split()[-1].lower()) & _ROW_NOUNS \
                and not _words_of_a_filtered_row(phrase, plan):
            # ("per transaction", "per timesheet line": what every row is, no column: each row, not a group)
            # "hours per driver" over a timesheet of employees answers from another column: the records
            # set's README scores that wrong, and a person would say the file has no drivers.
            applied.append(Applied(phrase, plan.group_by.label if plan.group_by else None, "not applied", NO_SUCH_GROUP))
            plan.answer = NOT_IN_TABLE
    # "Which form tutor's class borrowed the most?" asks for a tutor: the Form column answers another question
    if (whose := whose_words(question)) is not None and plan.answer != NOT_IN_TABLE:
        phrase, head = whose
        held = {f for c in columns if c.kind != "number" for f in _label_forms(c)}
        # (a header may abbreviate the word: "Cust." holds customers)
        if not any(h.startswith(f) or f.startswith(h) for h in head for f in held if len(f) >= 3) \
                and not head & (table_words | _ROW_NOUNS):
            applied.append(Applied(phrase, plan.group_by.label if isinstance(plan.group_by, Column) else None,
                                   "not applied", NO_SUCH_GROUP))
            plan.answer = NOT_IN_TABLE
    # "Who approved the financial statements?" asks for a person or a body: a list of a number column (a Note
    # column's references) names neither, so the table does not say
    if _WHO.match(question) and plan.answer == "list" and plan.column is not None and plan.column.kind == "number":
        applied.append(Applied("who", plan.column.label, "not applied", f"{plan.column.label} holds figures, not names"))
        plan.answer = NOT_IN_TABLE
    # "When was the financial year end?" asks for a time: a total, an average or a count never says one, nor
    # the extreme of a figure in a table that has no column of dates, years or periods to say it with
    if _WHEN.match(question) and plan.group_by is None and plan.named_by is None and plan.column is not None and (
            plan.answer in ("sum", "average", "median", "count") or plan.answer in ("minimum", "maximum")
            and plan.column.kind != "date" and not any(c.kind == "date" or _TIME_LABEL.search(c.label) for c in columns)):
        applied.append(Applied("when", plan.column.label, "not applied", f"{plan.column.label} holds figures, not times"))
        plan.answer = NOT_IN_TABLE
    # A filter one grouping makes pointless: grouping on a column filtered to one value is one group.
    if isinstance(plan.group_by, Column) and any(c is plan.group_by and op == "is" and len({fold(v) for v in plan.matched.get(i, (value,))}) == 1
                                                 for i, (c, op, value) in enumerate(plan.filters)):
        plan.group_by, plan.limit = None, None
    # A report's total lines are no items: no members of a list nor counted among them ("What are the countries the
    # revenue is split by?") unless the question asks about totals; no rivals in a highest or lowest ("Which country
    # had the highest total revenue?", where "total" names the measure); not added up with the lines they total
    items, why = None, ""
    if plan.answer in ("list", "count") and plan.column is not None and plan.column.kind == "text" \
            and not set(tokens(question)) & _TOTAL_WORDS:
        items, why = plan.column, "a total is no item of a list"
    elif plan.answer in ("minimum", "maximum") and plan.group_by is None:
        items, why = _label_column(columns), "a total is no item to rank"
    elif plan.answer in ("sum", "average", "median") and plan.group_by is None and not plan.across:
        # "How many parcels did we issue in total?" summed the sites and their Total line: twice the total
        items, why = _label_column(columns), "a total is no item to add up"
    totals = [c for c in items.cells if row_figures.is_total_label(c, or_subtotal=True)] if items is not None else []
    if totals and not any(c is items for c, _, _ in plan.filters):
        plan.filters.append((items, "is not", totals[0]))
        plan.matched[len(plan.filters) - 1] = tuple(totals)
        applied.append(Applied("total lines left out", items.label, "added by code", why))
    # The model's own conditions (the words it read as a filter, "emergency" as Code EMG) are listed too.
    accounted = {a.column for a in applied}
    for column, op, value in plan.filters:
        if column.label not in accounted:
            applied.append(Applied(f"{column.label} {op} {value}", column.label, "read by the model"))
    return applied


_PERIODIC = re.compile(r"\b(?:monthly|quarterly|(?:per|each|every|by) (?:month|quarter|weekday|day of the week)|"
                       r"month by month|quarter by quarter)\b", re.I)
_BREAKDOWN = re.compile(r"\b(?:broken down|breakdown|split|separately|respectively|each)\b", re.I)
_WHO = re.compile(r"^\W*(?:who|whom)\b", re.I)
_WHEN = re.compile(r"^\W*when\b", re.I)
_TIME_LABEL = re.compile(r"\b(?:years?|date|day|month|quarter|period|season|week|time|held|started|ended)\b", re.I)
_PER_GROUP = re.compile(r"\b(?:per|each|every|by|broken down|breakdown|split)\b", re.I)
_TOP = re.compile(r"\b(?:most|least|top|highest|lowest|best|worst|biggest|largest|smallest|busiest|fewest|more|less|fewer)\b", re.I)
# A clause before the question word that excludes or scopes the rows ("Besides Forde, which ...", "Of the vans
# on the road, which ...", "In the 2019 season, who ..."): the question still asks which. ("In which year"
# has no clause: the words between the preposition and the question word are required.)
_LEAD_IN = (r"^\W*(?:(?:besides|other\s+than|apart\s+from|aside\s+from|except(?:\s+for)?|excluding|among(?:st)?|"
            r"out\s+of|of\s+(?:the|all|those|these|our)|in\s+(?:the|its|their|this|that)|during\s+the)\s+[^?,]*?,?\s+)?")
_WHICH = re.compile(_LEAD_IN + r"(?:which|who|whose|what|name the)\b", re.I)


def counted_measure(question: str, columns: list[Column]) -> Column | None:
    """The number column a "how many <word>" names: by its header ("how many hours" over "Hrs" or "Labour
    (h)", "how many gallons" over "Gallons") or by its unit; None when the word is the rows' own name."""
    noun = counted_noun(question)
    if not noun:
        return None
    numbers = [c for c in columns if c.kind == "number"]
    forms = singulars(noun)
    # "the number of shares": "Number of Shares", said whole with the counted word in it; "how many athletes got
    # more than 500 Preliminary Points" counts athletes, the points being their bound
    said = [c for c in numbers if _said_whole(c.label, question) > 1 and forms & _label_forms(c)]
    if len(said) == 1:
        return said[0]
    if forms & _QUANTITY_WORDS and len([c for c in numbers if _label_forms(c) & _QUANTITY_WORDS]) > 1:
        # "how many units" over Units Produced and Scrap Units: the one the question's other words say, if any
        return quantity_column(columns, question)
    by_label = [c for c in numbers if (head := _head_word(c.label)) and forms & singulars(head)]
    unit = normal_unit(noun) if len(noun) > 2 else None
    by_unit = [c for c in numbers if unit and c.unit and normal_unit(c.unit) == unit]
    same_kind = [c for c in numbers if unit and c.unit and unit_kind(c.unit) and unit_kind(unit)
                 and unit_kind(c.unit)[0] == unit_kind(unit)[0]]
    for found in (by_label, by_unit, same_kind):
        if len(found) == 1:
            return found[0]
    return None


_QUANTITY_WORDS = {"qty", "quantity", "pcs", "pieces", "units"}


def items_counted(question: str, columns: list[Column], table_words: frozenset = frozenset()) -> Column | None:
    """The quantity column a count of things adds up: "How many helmets did we sell?" over sale lines with a
    Qty column counts helmets, not the lines that sold them, when helmets are what some lines' cells name.
    "How many sales ..." (no cell names a sale) counts the lines."""
    # what is counted is its phrase's plural: "galvanised brackets" brackets, "late shifts ran ..." shifts
    noun = next((w for w in reversed(counted_words(question)) if w.endswith("s")), None) or counted_noun(question)
    quantity = quantity_column(columns, question)
    if quantity is None or not noun:
        return None
    named = stated_conditions(question, columns, table_words).values
    forms = singulars(fold(noun))  # "e-bikes" is the value "ebikes" or "e bikes"
    return quantity if any(forms & {f for w in [*tokens(v.text), fold(v.text)] for f in singulars(w)}
                           for v in named) else None


def quantity_column(columns: list[Column], question: str = "") -> Column | None:
    """The one number column that counts units (Qty, Quantity, Pieces), or None. Of several ("Units Produced",
    "Scrap Units"), the one whose other words the question says ("How many brackets did we make?")."""
    quantities = [c for c in columns if c.kind == "number" and _label_forms(c) & _QUANTITY_WORDS]
    if len(quantities) == 1:
        return quantities[0]
    said = word_forms(question)
    quantities = [c for c in quantities if all(says_word(said, w) for w in _qualifiers(c))]
    return quantities[0] if len(quantities) == 1 else None


def _qualifiers(column: Column) -> set[str]:
    """The words of a quantity column's header besides its quantity and unit words: "Scrap Units" scrap."""
    return {w for w in label_words(column.label)
            if not singulars(w) & _QUANTITY_WORDS and not normal_unit(w, spoken=False)}


def said_quantity(question: str, plan: Plan, columns: list[Column]) -> Column | None:
    """The quantity column to add up in place of the model's, when the model's has a word the question does not
    say and another's are all said: "How many units of each product did we make?" over Units Produced and Scrap
    Units adds up the units produced, whichever the model wrote."""
    if plan.column is None or not _label_forms(plan.column) & _QUANTITY_WORDS:
        return None
    if all(says_word(word_forms(question), w) for w in _qualifiers(plan.column)):
        return None
    said = quantity_column(columns, question)
    return said if said is not plan.column else None


def _head_word(label: str) -> str | None:
    """The noun a header is about, its last word before any unit: "Job Total (EUR)" is a total (so "how
    many jobs" counts jobs rather than adding it up), "Pages" pages, "Distance_mi" a distance."""
    words = [w for w in label_words(label) if not normal_unit(w, spoken=False)]
    return words[-1] if words else None


def asks_which(question: str) -> bool:
    """A question that asks which rows or values, not how many: "Which units ...", "List the ...", "Name
    every ...", also after a clause that sets them apart ("Besides Forde, which other player ...")."""
    return bool(re.match(_LEAD_IN + r"(?:which|who|whose|list|name|show|give me|what are the)\b", question, re.I)) \
        and not re.search(r"\bhow many\b|\bnumber of\b|\bcount\b", question, re.I)


def asks_per_group(question: str) -> bool:
    """A figure per group ("per branch", "for each month", "by clinician") or the group that ranks first
    ("which driver spent the most", "who sold the most")."""
    return bool(_PER_GROUP.search(question) or _PERIODIC.search(question)
                or (_WHICH.search(question) and _TOP.search(without_bounds(question))))


_GROUP_WORDS = re.compile(r"\b(?:per|each|every)\s+((?:[a-z][\w-]*\s*){1,3})", re.I)


def group_words(question: str) -> tuple[str, set[str]] | None:
    """("each member of staff", {member, staff, ...}): the group a question asks a figure for, in its own
    words and their singular forms; None for a period ("per month") or a unit ("per gallon" is a rate)."""
    match = _GROUP_WORDS.search(question)
    if not match or _PERIODIC.search(question):
        return None
    words = tokens(match.group(1))
    ended = next((i for i, w in enumerate(words) if w in _GROUP_END), len(words))  # "per shop | between May and June"
    found = [w for w in words[:ended] if w not in _GROUP_FILLER][:3]
    if not found or normal_unit(found[0]) or normal_unit(found[0] + "s") or found[0] in _NO_GROUP:
        return None
    said = match.group(0)
    said = said[:said.lower().rfind(found[-1]) + len(found[-1])]
    return said, {f for w in found for f in singulars(w)}


def rate_of_a_column(phrase: str, columns: list[Column]) -> bool:
    """Whether "per pack" is the rate a figure column's header says ("Cost per pack (£)"): the measure's own
    denominator, not a group ("Which antibiotic costs the most per pack?" grouped by Pack size named a size)."""
    said = " ".join(tokens(phrase))
    return any(re.search(rf"\b{re.escape(said)}\b", " ".join(tokens(c.label))) for c in columns if c.kind == "number")


# ("What is the company's total ...?" names the company's figure: only "which" asks for one of several)
_WHOSE = re.compile(r"^\W*which\s+((?:[a-z][\w-]*\s+){0,2}[a-z][\w-]*)['’]s\b", re.I)


def whose_words(question: str) -> tuple[str, set[str]] | None:
    """("form tutor", {tutor}): whose figure a "Which X's Y ..." question asks for, and the singular forms of
    the word the answer names (the phrase's last)."""
    match = _WHOSE.search(question)
    if match is None:
        return None
    phrase = match.group(1).lower()
    return phrase, singulars(phrase.split()[-1])


# "per share", "per capita": a rate's denominator, as a unit is ("per gallon"); "each time", "each one": no group
_NO_GROUP = {"time", "one", "other", "share", "capita", "annum", "cent", "head"}
_ROW_NOUNS = {"row", "line", "entry", "record", "transaction"}  # what any table's row is called
_GROUP_LEAD = re.compile(r"^(?:per|each|every|by|for each|for every)\s+", re.I)
_GROUP_END = {"between", "from", "to", "during", "in", "on", "since", "until", "before", "after"}  # a new phrase
_GROUP_FILLER = {"of", "the", "our", "a", "an", "for", "and", "did", "do", "does", "was", "were", "is", "are",
                 "make", "made", "have", "has", "had", "get", "got", "take", "took", "spend", "spent", "sell", "sold"}


def _label_forms(column: Column) -> set[str]:
    return word_forms(column.label)


# "the weighted average discount rate" names a figure the document states: no average of rows is asked
_WEIGHTED = re.compile(r"\bweighted[ -](?:average|mean)\b", re.I)


def asks_average(question: str) -> bool:
    return bool(re.search(r"(?<!weighted[ -])\b(?:average|mean|median)\b", question, re.I))


def row_says_average(question: str, rows: list[str]) -> bool:
    """Whether the question's "average" is the name of the rows it filters on, not an operation over their figures:
    "How long did it take on average to re-let a home?" over the row "Average days to re-let an empty home" asks that
    row's figure; "the average of the Average fee in 2018 and 2019" says the word once more than the row does."""
    said = dict(row_figures.OPERATIONS)["average"]
    return bool(rows) and all(said.search(r) for r in rows) \
        and len(said.findall(question)) <= min(len(said.findall(r)) for r in rows)


def asks_median(question: str) -> bool:
    return bool(re.search(r"\bmedian\b", question, re.I))


def period_group(question: str) -> str | None:
    """The period a question asks a figure for each of: "monthly spend", "per quarter", "by weekday"."""
    match = _PERIODIC.search(question)
    if not match:
        return None
    word = match.group(0).lower()
    return "month" if "month" in word else "quarter" if "quarter" in word else "weekday"


# Every word that ranks or compares: without one, a plan's highest or lowest answers nothing asked
_COMPARES = re.compile(r"\b(?:most|least|fewest|max(?:imum)?|min(?:imum)?|top|bottom|best|worst|peak|record|first|last|"
                       r"more|less|fewer|better|worse|[a-z]{2,}est|rank\w*|order\w*|sort\w*|higher|lower|larger|smaller|"
                       r"bigger|greater|longer|shorter|older|younger|newer|earlier|later|faster|slower|cheaper|dearer|"
                       r"heavier|lighter|taller|wider|narrower|deeper|above|below|over|under|exceed\w*)\b", re.I)
_AMOUNT_RANK = re.compile(r"\b(?:most|least|fewest)\b", re.I)  # of a total; "highest", "biggest" may be one row's
_SINGLE = re.compile(r"\bsingle\b", re.I)  # "the biggest single fill-up": one row's, whatever the ranking word
_MOST_ROWS = re.compile(r"\b(?:most|fewest|least|(?:greatest|highest|largest|lowest|smallest) number of)\s+([a-z][a-z-]*s)\b", re.I)
_ASCENDING = re.compile(r"\b(?:least|fewest|lowest|smallest|quietest)\b", re.I)
_HOW_MANY_RANKED = re.compile(r"^\W*(?:which|(?:what|who)(?:\s+(?:are|were|is|was))?(?:\s+(?:the|our|your))?(?:\s+top)?)\s+"
                              r"(\d+|two|three|four|five|six|seven|eight|nine|ten)\b", re.I)


def rank_by_group(question: str, plan: Plan, columns: list[Column]) -> None:
    """"Which customer opened the most tickets?", "Which two drivers spent the most?": a ranking of the
    groups the question names, not a list of them nor one row's extreme. A count or a total is taken per
    named column, ordered, and the first one (or the number asked for) kept. "Which unit had the biggest
    single fill-up?" stays one row's maximum."""
    text = without_bounds(question)
    # "which season ..." names a Season of numbers too, never the figure ranked ("the combined population ...")
    named = asked_column(question, [c for c in columns if c is not plan.column or c.kind == "text"], kinds=("text", "number"))
    listed = named or plan.column
    if plan.answer == "list" and plan.group_by in (None, listed) and _WHICH.search(question) \
            and (named is not None or (plan.column is not None and plan.column.kind == "text")):
        # "our three best-selling accessories by revenue": the listed things ranked by what they sold
        # (accessories may be a Category's value, not a column: then the listed column is ranked); a model's
        # grouping on the listed column is that ranking's, and is set below
        measure = ranking_measure(question, columns)
        if measure is not None or _POPULAR.search(question) or _FREQUENT.search(question):
            named, plan.group_by = listed, None
            plan.answer, plan.column = ("sum", measure) if measure is not None else ("count", named)
    if plan.answer in ("maximum", "minimum") and plan.group_by is None and plan.column is not None \
            and plan.column.kind == "text" and (_POPULAR.search(question) or _FREQUENT.search(question)):
        # "the most borrowed book" as the largest Book ID: a text column has no size; its values are ranked by
        # their rows, or by the units sold where there is a quantity ("the best-selling product")
        measure = ranking_measure(question, columns)
        named, plan.answer, plan.column = plan.column, *(("sum", measure) if measure is not None else ("count", plan.column))
    if plan.answer in ("maximum", "minimum") and plan.group_by is not None and plan.column is not None \
            and plan.column.kind != "number" and (most := _MOST_ROWS.search(text)) \
            and not any(singulars(most.group(1)) & _label_forms(c) for c in columns if c.kind == "number"):
        # "Which month had the fewest appointments?" planned as each month's earliest Date: the groups are ranked by
        # their rows (a number column the noun names, "the most units", is a total, left to the model's plan)
        plan.answer, plan.column = "count", None
        plan.descending = not _ASCENDING.search(text)
        plan.limit = plan.limit or 1
    if plan.answer == "sum" and plan.group_by is not None and plan.column is not None and plan.column.kind == "number" \
            and (noun := ranked_noun(question)) and _counts_things(noun, question, plan.column, columns):
        # "Which contractor did the most plumbing jobs?" planned as each contractor's total Cost: jobs are rows, and
        # the question never names the cost
        plan.answer, plan.column = "count", None
        plan.descending = not _ASCENDING.search(text)
        plan.limit = plan.limit or 1
    if plan.answer in ("maximum", "minimum") and named is not None and plan.group_by is named and plan.limit \
            and plan.column is not None and plan.column.kind == "number" and _WHICH.search(question) \
            and _AMOUNT_RANK.search(text) and not _SINGLE.search(question):
        # "Which pupil had the most absences over the year?" planned as each pupil's largest row, ranked: the most
        # is each pupil's total ("the biggest single ..." stays one row's)
        plan.answer = "sum"
    if named is None or plan.group_by is not None or not _TOP.search(text) or not _WHICH.search(question):
        return
    if plan.answer in ("maximum", "minimum") and plan.column is not None and plan.column.kind == "number" \
            and _AMOUNT_RANK.search(text) and not _SINGLE.search(question):
        plan.answer = "sum"
    if plan.answer not in ("count", "sum"):
        return
    many = _HOW_MANY_RANKED.match(question)
    plan.group_by = named
    plan.descending = not _ASCENDING.search(text)
    plan.limit = (int(many.group(1)) if many.group(1).isdigit() else NUMBER_WORDS[many.group(1).lower()]) if many else 1


# the things a ranking counts, after at most two words that say which ("the most plumbing jobs", "the fewest
# late deliveries")
_MOST_THINGS = re.compile(r"\b(?:most|fewest|(?:greatest|highest|largest|lowest|smallest) number of)\s+"
                          r"(?:[a-z][a-z-]*\s+){0,2}?([a-z][a-z-]*s)\b", re.I)


def _counts_things(noun: str, question: str, measure: Column, columns: list[Column]) -> bool:
    """Whether "the most <noun>" counts rows rather than adding up `measure`, an amount in a unit (money, hours,
    kg) the question never names (`measure_named`: "the most e-bikes by value" names it): the noun is no number
    column's (not "the most units"), no unit ("the most hours") and no money ("the most sales"). (An unnamed column
    without a unit may be the noun abbreviated: "the most points" over Pts.)"""
    forms = singulars(noun.lower())
    return measure.unit is not None and not any(forms & _label_forms(c) for c in columns if c.kind == "number") \
        and normal_unit(noun) is None and not forms & _MONEY_MEASURES and not measure_named(question, measure)


_POPULAR = re.compile(r"\b(?:best|worst|top|most|least)[- ](?:selling|sold|popular|borrowed|booked|ordered|used|hired)\b", re.I)
# "the most common", "listed the most", "appears most often": how many rows hold a value, not a size
_FREQUENT = re.compile(r"\b(?:most|least)[- ](?:common|frequent(?:ly)?|often|visited|requested|rented)\b"
                       r"|\b(?:listed|appears?|appeared|occurs?|occurred|mentioned|featured)\s+(?:the\s+)?(?:most|least)\b"
                       r"|\bmost times\b", re.I)
_MONEY_MEASURES = {"revenue", "value", "sale", "sales", "spend", "money", "income", "takings", "turnover", "amount", "earnings"}


def ranking_measure(question: str, columns: list[Column]) -> Column | None:
    """What "best-selling ... by revenue" ranks by: the number column "by" names (by its header, or the one
    money column for a word of money), else the quantity column ("best-selling" counts units); None: rows."""
    numbers = [c for c in columns if c.kind == "number"]
    said = re.search(r"\bby (?:total |their |its )?([a-z]+)", question.lower())
    if said:
        forms = singulars(said.group(1))
        for found in ([c for c in numbers if forms & _label_forms(c)],
                      [c for c in numbers if forms & _MONEY_MEASURES and c.unit and c.unit in CURRENCY_SIGNS]):
            if len(found) == 1:
                return found[0]
    if not _POPULAR.search(question):
        return None  # "by clinician" names a group, not a measure
    return quantity_column(columns, question)


def names_rows(column: Column, row_count: int) -> bool:
    """A column with a value of its own in (nearly) every row names rows (a sale, a job): no group."""
    return bool(row_count) and len(column.cells) >= IDENTIFIER_SHARE * row_count


def identifier_column(columns: list[Column], row_count: int) -> Column | None:
    """The first text column that names rows: what a "which ..." lists when it names no column (a unit, a job)."""
    return next((c for c in columns if c.kind == "text" and names_rows(c, row_count)), None)


_THING_ASKED = re.compile(r"\W*(?:which|what)\s+(?:the\s+)?([a-z][\w-]*)\s+(?:is|was|has|had|did|does|got|gets|came|comes)\b", re.I)


def thing_asked(question: str, columns: list[Column]) -> Column | None:
    """The column "What episode has ...", "Which season had ..." asks for, by the word right after "what" or
    "which" when a verb follows it ("What was our biggest single fuel purchase?" asks for no column)."""
    match = _THING_ASKED.match(question)
    return asked_column(f"which {match.group(1)}", columns, kinds=("text", "number")) if match else None


_LABEL_FILLER = {"no", "number", "name", "#"}  # "Season no.", "Player name" are named by their first word


def asked_column(question: str, columns: list[Column], kinds: tuple[str, ...] = ("text",)) -> Column | None:
    """The column a "which X ..." or "list the X ..." names, by its header: "Which units ..." -> Unit,
    "Which patients ..." -> Patient No, "Which e-bike models ..." -> Model (the last word is the noun);
    of the `kinds` of column given."""
    if re.match(_LEAD_IN + r"(?:who|whose)\b", question, re.I):
        return person_column(columns, question)
    match = re.match(_LEAD_IN + r"(?:which|what(?:\s+(?:are|were|is|was))?|list|name|show)\s+(?:(?:all|every|of)\s+)?(?:the\s+|our\s+|your\s+)?"
                     r"([\w-]+(?:\s+[\w-]+){0,2})", question, re.I)
    if not match:
        return None
    words = tokens(match.group(1))
    for word in reversed(words):
        forms = singulars(word)
        found = [c for c in columns if c.kind in kinds and forms & _label_forms(c)]
        if not found and forms & {"day", "date"}:  # "Which day had the most downtime?": the one date column
            found = [c for c in columns if c.kind == "date"]
        if len(found) > 1:  # "which season": the Season column, not "Original airing TV season"
            found = [c for c in found if _label_forms(c) <= forms | _LABEL_FILLER] or found
        if len(found) == 1:
            return found[0]
    return None


# Headers that name people, in plain English (not one domain's): what "who ..." asks for.
PERSON_WORDS = {"name", "person", "people", "employee", "staff", "worker", "member", "customer", "client", "patient",
                "borrower", "clinician", "doctor", "dentist", "nurse", "mechanic", "technician", "engineer", "driver",
                "agent", "rep", "salesperson", "seller", "buyer", "owner", "manager", "author", "player", "artist",
                "athlete", "winner", "candidate", "student", "pupil", "teacher", "tutor", "assignee", "operator",
                "rider", "coach", "director", "contact", "requester", "reporter", "user", "tenant", "supplier",
                "vendor", "holder", "recipient", "officer", "inspector", "surveyor", "cashier", "server"}
_IDENTIFIER_WORDS = {"id", "no", "number", "ref", "code", "key"}
# of the people a table names, those who do the work its rows record (not the client or patient it is for)
WORKER_WORDS = {"employee", "staff", "worker", "member", "technician", "mechanic", "engineer", "clinician", "doctor",
                "dentist", "nurse", "agent", "driver", "rep", "salesperson", "seller", "cashier", "operator",
                "assignee", "officer", "inspector", "surveyor", "server", "manager", "coach", "teacher", "tutor"}


def person_column(columns: list[Column], question: str = "") -> Column | None:
    """The column "who ..." asks for: the one text column whose header names people (Employee, Clinician,
    Borrower); of several, the one that is not an identifier ("Patient" over "Patient No"), the one the
    question names ("which borrower"), or the one naming who does the work ("Employee" over "Client")."""
    found = [c for c in columns if c.kind == "text" and _label_forms(c) & PERSON_WORDS]
    named = [c for c in found if not _label_forms(c) & _IDENTIFIER_WORDS]
    asked = word_forms(question)
    said = [c for c in named if _label_forms(c) & asked]
    working = [c for c in named if _label_forms(c) & WORKER_WORDS]
    for candidates in (found, named, said, working):
        if len(candidates) == 1:
            return candidates[0]
    return None


def _cells_named(value: str, column: Column) -> tuple[str, ...]:
    """The cells a filter value names; where none is the value itself, the one cell the value clips ("maths"
    for Mathematics, "admin" for Administration)."""
    named = tuple(c for c in column.cells if fold(value) and same_value(value, c))
    clipped = tuple(c for c in column.cells if clipped_form(value, c)) if not named else ()
    return named or (clipped if len(clipped) == 1 else ())


def _one_per_phrase(values: list[CellValue], plan: Plan) -> list[CellValue]:
    """A phrase matching cells of several columns applies to the one the plan filters or groups on, else
    it is ambiguous and left to the plan ("Riverside" as a branch and a street)."""
    by_text: dict[str, list[CellValue]] = {}
    for v in values:
        by_text.setdefault(v.text, []).append(v)
    chosen = []
    planned = {c.label for c, _, _ in plan.filters} | ({plan.group_by.label} if isinstance(plan.group_by, Column) else set())
    for text, options in by_text.items():
        if len(options) == 1:
            chosen.append(options[0])
        else:
            chosen += [o for o in options if o.column in planned][:1]
    # "the total revenue from Canada": the word "total" names the Total row too, but a total and the rows it
    # sums are never both meant; beside another row of its column, "total" is the figure asked, not a row
    named_rows = {v.column for v in chosen if v.stance == "is" and fold(v.text) not in _TOTAL_WORDS}
    # ... and in a ranking ("the highest total revenue") it names the measure: the Total row is no rival
    ranking = plan.answer in ("minimum", "maximum") and plan.group_by is None
    return [v for v in chosen if not (fold(v.text) in _TOTAL_WORDS and (v.column in named_rows or ranking))]


_TOTAL_WORDS = {"total", "totals", "subtotal", "grand total", "overall"}


def _covers(plan: Plan, index: int, named: CellValue) -> bool:
    """Whether a filter applies a value the question names: it keeps the value's cells, or the one row it
    keeps says the value's words ("cash" of "Free Cash Flow", the row the question names)."""
    column, op, value = plan.filters[index]
    return bool(set(plan.matched.get(index, ())) & set(named.cells)) or (op == "contains" and fold(value) in fold(named.cells[0])) \
        or (op == "is" and _words(named.text) in _words(str(value)))


def _apply_bound(bound: Bound, plan: Plan, columns: list[Column]) -> Applied:
    numeric = [(i, f) for i, f in enumerate(plan.filters) if f[0].kind == "number" and f[1] in (">", ">=", "<", "<=", "is")]
    for i, (column, op, value) in numeric:
        number = _number(value)
        target = bound_in(bound, column.unit)
        if number is None or target is None:
            continue
        if abs(number - bound.number) < 1e-9 or abs(number - target) <= 1e-6 * max(1.0, abs(target)):
            if abs(target - number) > 1e-6 * max(1.0, abs(target)):
                plan.filters[i] = (column, bound.op, _plain(target))
                return Applied(bound.text, column.label, "converted by code", f"{_plain(target)} {column.unit}")
            if op != bound.op and op != "is":
                plan.filters[i] = (column, bound.op, value)
            return Applied(bound.text, column.label, "in the plan")
    kind = unit_kind(bound.unit)
    candidates = [c for c in columns if c.kind == "number" and c.unit and kind and unit_kind(c.unit)
                  and unit_kind(c.unit)[0] == kind[0]]
    if len(candidates) > 1:  # "more than a week" over a labour-hours column and the days between two dates:
        measured = [c for c in candidates if c is plan.column or c is plan.order_by]  # the one the plan measures,
        candidates = measured or [c for c in candidates if not c.expression]  # else the one stored
    if len(candidates) == 1:
        column = candidates[0]
        target = bound_in(bound, column.unit)
        # a comparison the model wrote on that column with a number that is not the bound's ("90*60") goes
        plan.filters = [f for f in plan.filters if not (f[0] is column and f[1] in (">", ">=", "<", "<="))]
        plan.filters.append((column, bound.op, _plain(target)))
        how = "added by code" if abs(target - bound.number) < 1e-9 else "converted by code"
        return Applied(bound.text, column.label, how, f"{_plain(target)} {column.unit}")
    if bound.unit is None and plan.column is not None and plan.column.kind == "number" and plan.answer == "list":
        plan.filters.append((plan.column, bound.op, _plain(bound.number)))
        return Applied(bound.text, plan.column.label, "added by code")
    return Applied(bound.text, None, "not applied", "no column of that unit" if bound.unit else "no single column")


def stated_figures(question: str) -> set[float]:
    """Every number a question writes, in digits or in words ("more than one loaf", "8-hour days")."""
    return figures(question) | {float(NUMBER_WORDS[w]) for w in tokens(question) if w in NUMBER_WORDS}


def _number(text: str) -> float | None:
    cleaned = re.sub(r"[^\d.\-]", "", str(text).replace(",", ""))
    try:
        return float(cleaned)
    except ValueError:
        return None


def _plain(number: float) -> str:
    return f"{number:.6g}" if abs(number) < 1e6 else f"{number:.0f}"


# --- code compiles the plan ---

_SQL_AGGREGATE = {"sum": "SUM", "average": "AVG", "median": "MEDIAN", "minimum": "MIN", "maximum": "MAX"}
_SQL_OP = {"is": "=", "is not": "<>", ">": ">", ">=": ">=", "<": "<", "<=": "<="}


def compile_plan(plan: Plan, table: TableInfo) -> str:
    where = [_condition(plan, i, f) for i, f in enumerate(plan.filters)]
    where += [f"{a.sql} {_SQL_OP[op]} {b.sql}" for a, op, b in plan.compared]
    for period, column in plan.periods:
        where += _period_sql(period, column)
    clause = f" WHERE {' AND '.join(where)}" if where else ""
    if plan.across:  # the row's label and its figures; code does the arithmetic (run_plan)
        label = _row_label_column(table)
        figures = ", ".join(c.sql for c in plan.across)
        return f"SELECT {f'{chr(34)}{label}{chr(34)}, ' if label else ''}{figures} FROM {table.name}{clause} ORDER BY source_row"
    measure = plan.column
    if plan.answer in _SQL_AGGREGATE and (measure is None or (measure.kind == "text" and not measure.figure)):
        measure = None
    # a text column is aggregated by the figure its cells start with ("150*" 150, "147.3 / 483" 147.3)
    measured = (measure.figure if measure.kind == "text" else measure.sql) if measure is not None else None
    if plan.answer == "count":
        value = f'COUNT(DISTINCT {plan.column.sql})' if plan.distinct else "COUNT(*)"
    elif plan.answer in _SQL_AGGREGATE and measure is not None:
        value = f'{_SQL_AGGREGATE[plan.answer]}({measured})'
    else:
        value = None
    group = plan.group_by
    if group is not None:
        key = _group_key(group, plan)
        if key is None:
            group = None
    if group is not None and value is not None:
        if isinstance(group, Column):  # a row with no client is no client's: "(blank)" is no group of "per client"
            clause += (" AND " if clause else " WHERE ") + f"{key} IS NOT NULL AND TRIM({key}) <> ''"
        order = "DESC" if plan.descending else "ASC"
        # (a group with no figure is not the lowest: SQLite sorts a blank first)
        ordered = f" ORDER BY value IS NULL, value {order}" if plan.order_by is not None or plan.limit else " ORDER BY 1"
        limit = f" LIMIT {plan.limit}" if plan.limit else ""
        name = f', MIN({plan.named_by.sql}) AS "{plan.named_by.label.replace(chr(34), "")}"' if plan.named_by is not None else ""
        return f"SELECT {key} AS grp, {value} AS value{name} FROM {table.name}{clause} GROUP BY grp{ordered}{limit}"
    if value is not None and plan.answer == "count":
        return f"SELECT {value} AS value FROM {table.name}{clause}"
    if value is not None and plan.answer in ("minimum", "maximum") and group is None:
        # the extreme and the row that holds it ("the most expensive treatment" is named, not only priced)
        named = [c for c in table.columns if table.types.get(c) == "TEXT" and not is_twin(table, c)
                 and c not in table.dates][:3]  # what names the row (a job, its customer), not when it was
        if plan.named_by is not None:  # the column the question asks for ("what episode ...?"), first
            named = [plan.named_by.name, *(c for c in named if c != plan.named_by.name)][:3]
        if measure.kind == "text":  # its cell as printed ("147.3 / 483"): the figure alone has no unit to say
            named = [measure.name, *(c for c in named if c != measure.name)]
        shown = "".join(f', "{c}"' for c in named)
        filled = (" AND " if clause else " WHERE ") + f"{measured} IS NOT NULL"
        return f"SELECT {measured} AS value{shown} FROM {table.name}{clause}{filled} " \
               f"ORDER BY {measured} {'DESC' if plan.answer == 'maximum' else 'ASC'} LIMIT 1"
    if value is not None:  # the figure, and how many rows it covers ("across 31 orders")
        return f"SELECT {value} AS value, COUNT({measured}) AS {ROWS_COUNTED} " \
               f"FROM {table.name}{clause}"
    # a list: the asked column (and the order column), in order, rows with a blank asked value left out
    shown = [c for c in [plan.column, plan.named_by, plan.order_by] if c is not None]
    shown = list(dict.fromkeys(_shown(c) for c in shown)) or [f'"{c}"' for c in table.columns if not is_twin(table, c)][:4]
    select = ", ".join(shown)
    if plan.column is not None:
        clause += (" AND " if clause else " WHERE ") + f'{plan.column.sql} IS NOT NULL'
    order = ""
    if plan.order_by is not None:  # blanks last, as above
        order = f' ORDER BY {plan.order_by.sql} IS NULL, {plan.order_by.sql} {"DESC" if plan.descending else "ASC"}'
    elif plan.answer in ("minimum", "maximum") and plan.column is not None:
        order = f' ORDER BY {plan.column.sql} {"DESC" if plan.answer == "maximum" else "ASC"}'
    limit = f" LIMIT {plan.limit}" if plan.limit else ""
    distinct = "DISTINCT " if plan.order_by is None and len(shown) == 1 + (plan.named_by is not None) else ""
    return f"SELECT {distinct}{select}, MIN(source_row) AS first_row FROM {table.name}{clause} GROUP BY {', '.join(str(n) for n in range(1, len(shown) + 1))}" \
           f"{order or ' ORDER BY first_row'}{limit}" if distinct else \
           f"SELECT {select} FROM {table.name}{clause}{order}{limit}"


def _row_label_column(table: TableInfo) -> str | None:
    """The column that names a report table's rows: its first text column (Description, the stub)."""
    return next((c for c in table.columns if table.types.get(c) == "TEXT" and not is_twin(table, c)
                 and c not in table.dates), None)


def counts_distinct(question: str, column: Column | None) -> bool:
    """A count of a text column's different values only when the question says so ("how many different
    customers"): "how many machines did X supply" over a Machine column of types counts the machines."""
    return column is not None and column.kind == "text" and bool(
        re.search(r"\bhow many (different|distinct|unique|separate)\b", question, re.I))


def _shown(column: Column) -> str:
    """A listed column: a stored one by name (the answer prints its header), a computed one named by its label."""
    return f'{column.expression} AS "{column.label}"' if column.expression else f'"{column.name}"'


def _days_as_printed(planned: PlannedQuery, column: Column, executor: ReadOnlyExecutor) -> list[tuple]:
    """The rows grouped by a date column, each day said as the table prints it ("24/01/2025"), not by the ISO twin
    the query grouped on."""
    listed = ", ".join(text_literal(str(row[0])) for row in planned.rows if row[0] is not None)
    if not listed:
        return planned.rows
    printed = dict(executor.run(f'SELECT "{column.date_twin}", MIN("{column.name}") FROM {planned.table.name} '
                                f'WHERE "{column.date_twin}" IN ({listed}) GROUP BY 1', [planned.table.name]).rows)
    return [(printed.get(row[0], row[0]), *row[1:]) for row in planned.rows]


def _group_key(group, plan: Plan) -> str | None:
    if isinstance(group, Column):
        return group.sql
    dated = plan.periods[0][1] if plan.periods else plan.dated
    if dated is None:
        return None
    twin = f'"{dated.date_twin}"'
    return {"month": f"strftime('%m', {twin})", "quarter": f"((CAST(strftime('%m', {twin}) AS INTEGER) + 2) / 3)",
            "weekday": f"strftime('%w', {twin})"}[group]


def _condition(plan: Plan, index: int, item: tuple[Column, str, str]) -> str:
    column, op, value = item
    name = column.sql
    if op == "is blank":
        return f"({name} IS NULL OR TRIM({name}) = '')"
    if op == "is not blank":
        return f"({name} IS NOT NULL AND TRIM({name}) <> '')"
    if op == "contains":
        return f"{name} LIKE {text_literal('%' + value + '%')}"
    if column.kind == "number":
        number = _number(value)
        if number is not None:
            return f"{name} {_SQL_OP[op]} {number!r}"
    if column.kind == "date":
        return f"{name} {_SQL_OP.get(op, '=')} {text_literal(value)}"
    cells = plan.matched.get(index)
    if cells:
        listed = ", ".join(text_literal(c) for c in cells)
        return f"{name} {'NOT IN' if op == 'is not' else 'IN'} ({listed})"
    if op in ("is", "is not"):  # no cell is the value: the cells that hold it, in the singular too ("helmets")
        forms = sorted(singulars(tokens(value)[-1]) if tokens(value) else {value}, key=len)
        stem = " ".join([*tokens(value)[:-1], forms[0]]) if tokens(value) else value
        return f"{name} {'NOT LIKE' if op == 'is not' else 'LIKE'} {text_literal('%' + stem + '%')}"
    return f"{name} {_SQL_OP[op]} {text_literal(value)}"


def _period_sql(period: Period, column: Column) -> list[str]:
    twin = f'"{column.date_twin}"'
    parts = []
    if period.year:
        parts.append(f"strftime('%Y', {twin}) = '{period.year:04d}'")
    if period.months:
        parts.append(f"CAST(strftime('%m', {twin}) AS INTEGER) IN ({', '.join(map(str, period.months))})")
    if period.start:
        parts.append(f"substr({twin}, 6) >= '{period.start[5:]}'" if period.start.startswith("0000")
                     else f"{twin} >= '{period.start}'")
    if period.end:
        parts.append(f"substr({twin}, 6, 5) <= '{period.end[5:]}'" if period.end.startswith("0000")
                     else f"substr({twin}, 1, 10) <= '{period.end}'")
    if period.weekdays:
        parts.append(f"CAST(strftime('%w', {twin}) AS INTEGER) IN ({', '.join(map(str, period.weekdays))})")
    return parts


def dated_outside(planned: PlannedQuery, executor: ReadOnlyExecutor) -> tuple[Period, Column, str, str] | None:
    """(period, its column, first and last date) when a year the question states holds no row of the table
    at all: "how many sick days in 2024" over a table of 1990s matches is not "0", it is not recorded."""
    for period, column in planned.plan.periods:
        if not (period.year or (period.start and not period.start.startswith("0000"))) or not column.date_twin:
            continue
        twin = f'"{column.date_twin}"'
        sql = (f"SELECT COUNT(*), MIN({twin}), MAX({twin}), SUM({' AND '.join(_period_sql(period, column))}) "
               f"FROM {planned.table.name} WHERE {twin} IS NOT NULL")
        try:
            dated, first, last, inside = executor.run(sql, [planned.table.name]).rows[0]
        except Exception:  # the check is a courtesy: the query itself says what it finds
            continue
        if dated and not inside:
            return period, column, str(first)[:10], str(last)[:10]
    return None


_YEAR = re.compile(r"\b(?:1[89]|20)\d\d\b")


def year_unmentioned(planned: PlannedQuery, executor: ReadOnlyExecutor) -> str | None:
    """A year the question states over a table with no dates that nothing in the table mentions (its title,
    file name, headers or any cell): "how many sick days in 2024" over an undated fixture list of some
    November is not "0 with a doubt", the table does not record that year."""
    table = planned.table
    for applied in planned.applied:
        if applied.note != NO_DATES:
            continue
        for year in _YEAR.findall(applied.condition):
            named = " ".join([table.title, table.filename, table.sheet or "", *table.printed.values()])
            if year in named:
                continue
            cells = " OR ".join(f'CAST("{c}" AS TEXT) LIKE \'%{year}%\'' for c in table.columns)
            try:
                found = executor.run(f"SELECT 1 FROM {table.name} WHERE {cells} LIMIT 1", [table.name]).rows
            except Exception:  # the check is a courtesy: the doubt the answer carries still says it
                continue
            if not found:
                return year
    return None


def _in_rows_scale(bound: Bound | None, planned: PlannedQuery, row: str | None) -> Bound | None:
    """"More than 5 million" over a row in thousands is more than 5,000 of its figures; a bound or a row with no
    scale is compared as written."""
    said = bound.scale if bound is not None else None
    unit = (printed_unit(planned.table, planned.plan.across[0].name, row) or "").split()  # "$ thousand"
    figures_in = unit[-1] if unit and unit[-1] in SCALES else None
    if said is None or figures_in is None:
        return bound
    return dataclasses.replace(bound, number=bound.number * SCALES[said] / SCALES[figures_in])


def run_plan(planned: PlannedQuery, executor: ReadOnlyExecutor) -> None:
    if planned.plan.section or planned.plan.shares or planned.said:  # read whole by section_items, share_of, named_rows
        return
    if (outside := dated_outside(planned, executor)) is not None:
        period, column, first, last = outside
        planned.applied.append(Applied(period.text, column.label, "not applied",
                                       f"{NO_ROWS_THEN}: its {column.label} runs from {first} to {last}"))
        planned.plan.answer = NOT_IN_TABLE
        return
    planned.sql = compile_plan(planned.plan, planned.table)
    try:
        found = executor.run(planned.sql, [planned.table.name])
    except (QueryRefused, Exception) as exc:  # a plan compiled by code that fails is a bug: the free writer takes over
        planned.error = f"{type(exc).__name__}: {exc}"
        return
    if found_nothing(found) and (year := year_unmentioned(planned, executor)) is not None:
        # "0 sick days in 2024" from a table that never mentions 2024 is the wrong source, not an answer: no
        # rows, so the text route reads the pages. (Rows found stand, the year said not applied: a question's
        # date is often context the table leaves out, "on June 18, 1995" over a tournament's results.)
        planned.applied.append(Applied(year, None, "not applied", f"{NO_DATES} and never mentions {year}: the pages are read instead"))
        return
    planned.columns, planned.rows, planned.truncated = found.columns, found.rows, found.truncated
    if isinstance(group := planned.plan.group_by, Column) and group.kind == "date" and group.date_twin:
        planned.rows = _days_as_printed(planned, group, executor)
    if isinstance(planned.plan.group_by, Column) and planned.plan.group_by.expression and planned.plan.order_by is None \
            and not planned.plan.limit:  # groups code named by their number ("Year 7" ... "Year 11"): in its order
        planned.rows = sorted(planned.rows, key=lambda r: leading_number(str(r[0]).split()[-1]) or 0)
    if any(a.condition == "respectively" for a in planned.applied):  # in the order the question names them
        asked = planned.question.lower()
        planned.rows = sorted(planned.rows, key=lambda r: asked.find(str(r[0]).lower()) % (len(asked) + 1))
    if planned.plan.across:  # (result, label, figures...) a row, the result computed here, not by SQL
        labelled = len(found.columns) > len(planned.plan.across)
        planned.columns = ["value", *found.columns]
        plan = planned.plan
        figures = [[_number(v) if isinstance(v, str) else v for v in row[int(labelled):]] for row in found.rows]
        if plan.answer in (row_figures.WHICH_YEAR, row_figures.HOW_MANY_YEARS):
            years = [row_figures.year_of(c) for c in plan.across]
            bound = next((b for b in bounds(planned.question) if not _years_name_columns(b.text, plan.across)), None)
            planned.rows = [(row_figures.years_chosen(plan.answer, planned.question, f, years,
                                                      _in_rows_scale(bound, planned, str(row[0]) if labelled else None)),
                             *row) for f, row in zip(figures, found.rows)]
        else:
            planned.rows = [(row_figures.compute(plan.answer, f), *row) for f, row in zip(figures, found.rows)]
        if labelled and len(planned.rows) > 1:
            # a section heading a filter also kept ("Revenue:", no figures) is no row of figures
            planned.rows = [r for r in planned.rows if any(v is not None for v in r[2:])] or planned.rows
        if labelled and len(planned.rows) > 1:
            # the model's "contains Property, plant and equipment" kept the gross and the net rows; the question
            # names one of them ("..., Net"): that row is the answer, not every row the filter kept
            named = row_figures.row_named(planned.question, [str(r[1]) for r in planned.rows])
            planned.rows = [r for r in planned.rows if str(r[1]) == named][:1] or planned.rows
        return
    if planned.columns and planned.columns[-1] == "first_row":  # the list's order key is not shown
        planned.columns = planned.columns[:-1]
        planned.rows = [r[:-1] for r in planned.rows]


# --- the answer, phrased from the plan ---

def group_label(group, key, table: TableInfo | None = None) -> str:
    """A group as the answer names it: a month, quarter or weekday by name; a value of a column in its
    commonest spelling (the tables compare text ignoring case, so "Sourdough" and "sourdough" are one
    group, shown as the table writes it most)."""
    if group == "month" and key is not None:
        return MONTHS[int(key) - 1].capitalize()
    if group == "quarter" and key is not None:
        return f"Q{int(key)}"
    if group == "weekday" and key is not None:
        return ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"][int(key)]
    if key is None:
        return "(blank)"
    if isinstance(group, Column) and group.kind == "number":  # "Season 8", not "8.0"
        return f"{group.label} {format_value(key)}"
    if isinstance(group, Column) and table is not None:
        spellings = table.categories.get(group.name) or []
        return next((g[0] for g in spellings if fold(str(key)) in {fold(s) for s in g}), str(key))
    return str(key)


SAID_VALUES = 4  # a condition's values said by name ("Form 11A, 11B, 11C or 11D"); beyond, "and 3 more"


def conditions_text(planned: PlannedQuery, grouped: Column | None = None) -> str:
    """The conditions as a reader says them: "E-Bikes, Riverside, in the second quarter"; the values of the
    `grouped` column are left to the groups that name them."""
    plan = planned.plan
    parts = []
    for i, (column, op, value) in enumerate(plan.filters):
        if column is grouped and op == "is":
            continue
        if column.said_as:
            parts.append(column.said_as)
            continue
        if plan.leaves_out_totals(i):
            continue  # a list's total lines left out: no condition the asker stated (the trace says it)
        # spellings of one value are said once ("Sourdough"); different values each ("Tyre 29in or Tyre 700x25c")
        values = list({fold(v): v for v in reversed(plan.matched.get(i, (value,)))}.values())[::-1]
        shown = said_values(values)
        # a column with a blank header is said by its values alone: "column 3" is no name a person would say
        if op == "is":
            parts.append(_cell_said(column.label, shown))
        elif op == "is not":
            parts.append(_cell_said(column.label, f"not {shown}"))
        elif op == "contains":
            parts.append(f"“{value}”" if _UNPRINTED_HEADER.fullmatch(column.label)
                         else f"{column.label} containing “{value}”")
        elif op == "is blank":
            parts.append(f"no {column.label}")
        elif op == "is not blank" and column.kind == "date":  # "a Resolved date"; not beside a time that needs it
            if (column.date_twin or column.name) not in _spanned(plan):
                parts.append(f"{'an' if column.label[:1].lower() in 'aeiou' else 'a'} {column.label} date")
        elif op == "is not blank":
            parts.append(f"any {column.label}")
        elif column.kind == "date" and _number(value) is None and (day := _iso_day(value)) is not None:
            parts.append(f"{column.label} {_DATE_BOUND_SAID[op]} {day.day} {MONTHS[day.month - 1].capitalize()} {day.year}")
        else:
            word = _BOUND_SAID[op]
            figure = format_value(_number(value), column.unit)
            # the bound as the question stated it, where that is in another unit: "over 200 lb (90.72 kg)"
            stated = [m.group(0).strip() for a in planned.applied if a.column == column.label
                      and a.how in ("converted by code", "in the plan", "added by code")
                      and (m := _STATED_AMOUNT.search(_POSTFIX_WORDS.sub("", a.condition)))]
            said = next((amount for amount in stated
                         if normal_unit(re.sub(r"^[£$€]?[\d,.]+\s*", "", amount)) not in (None, normal_unit(column.unit))
                         and abs((_number(amount) or 0) - (_number(value) or 0)) > 1e-9), None)
            parts.append(f"{column.label} {word} {said} ({figure})" if said else f"{column.label} {word} {figure}")
    for a, op, b in plan.compared:
        parts.append(f"{a.label} {_BOUND_SAID[op]} {b.label}")
    for period, _ in plan.periods:
        text = period.text
        preposition = "" if _PERIOD_WORD.match(text) else "in the " if said_with_the(text) else "in "
        parts.append(preposition + text)
    return ", ".join(parts)


_BOUND_SAID = {">": "over", ">=": "at least", "<": "under", "<=": "at most"}
_DATE_BOUND_SAID = {">": "after", ">=": "on or after", "<": "before", "<=": "on or before"}


def _iso_day(value) -> dt.date | None:
    try:
        return dt.date.fromisoformat(str(value)[:10])
    except ValueError:
        return None
_PERIOD_WORD = re.compile(r"(?i)(in|on|during|between|from|after|before|since|until)\b")
# the amount a bound states, with its unit, as the question wrote it: "200 lb" of "more than 200 lb"
_STATED_AMOUNT = re.compile(r"[£$€]?\d[\d,.]*\s*(?:(?:sq\.?|square|cubic)\s+)?[^\s\d,.][^\s]*\s*$", re.I)  # "80 square metres"
# the words after the amount of "21 inches or more", "£50 and up"
_POSTFIX_WORDS = re.compile(r"\s+(?:or\s+\w+|and\s+(?:up|above|over)|plus)\s*$", re.I)
_MONEY_WORDS = {"pounds": "£", "pound": "£", "euros": "€", "euro": "€", "dollars": "$", "dollar": "$"}


def asked_unit(question: str, unit: str | None) -> str | None:
    """The unit the question wants a figure in, when it is another of the column's kind: "How many
    kilometres ..." over miles, "in pounds" over pence, "in hours" over minutes; None otherwise."""
    kind = unit_kind(unit)
    if kind is None:
        return None
    for word in tokens(question):
        wanted = _MONEY_WORDS.get(word) if kind[0] in ("GBP", "EUR", "USD") else (normal_unit(word, spoken=False) if len(word) > 2 else None)
        if wanted and wanted != normal_unit(unit) and unit_kind(wanted) and unit_kind(wanted)[0] == kind[0]:
            return wanted
    return None


def format_value(value, unit: str | None = None) -> str:
    """A cell or a figure as a person writes it: 2004 not 2004.0 (a bare whole number under 10,000 is often
    a year, so no separator), 41,193.14, a currency sign before ("€1,249"), a unit after ("372.5 gal")."""
    if value is None:
        return "(blank)"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = float(value)
        if value.is_integer():
            text = str(int(value)) if abs(value) < 10_000 and not unit else f"{int(value):,}"
        else:
            # (below 1, four significant digits, never in scientific notation: "0.00001245", not "1.245e-05")
            text = f"{value:,.2f}" if abs(value) >= 1 else \
                f"{value:.{min(12, 3 - math.floor(math.log10(abs(value))))}f}".rstrip("0").rstrip(".") \
                if abs(value) >= 1e-12 else "0"
        sign, _, scale = (unit or "").partition(" ") if unit and unit[0] in CURRENCY_SIGNS else ("", "", unit)
        if sign:  # "€1,249", "-£402 million"
            return (f"-{sign}{text[1:]}" if text.startswith("-") else f"{sign}{text}") + (f" {scale}" if scale else "")
        return f"{text}{unit}" if unit == "%" else f"{text} {unit}" if unit else text  # "9.5%", "372.5 gal"
    return " ".join(str(value).split())


def phrase(planned: PlannedQuery, question: str, max_rows: int) -> str:
    """One sentence with the figure and what it covers, then the rows (the evidence is cited by the caller)."""
    plan, table = planned.plan, planned.table
    where = table.filename
    if planned.said:
        return planned.said
    if plan.answer == NOT_IN_TABLE:
        held = ", ".join([table.printed.get(c, c) for c in table.columns if not is_twin(table, c)][:8])
        if (then := next((a for a in planned.applied if a.note.startswith(NO_ROWS_THEN)), None)) is not None:
            span = then.note.partition(": ")[2]  # "its Date runs from ... to ..."
            return f"The documents do not contain this: {where} has no rows dated {then.condition} ({span})."
        missing = next((_GROUP_LEAD.sub("", a.condition) for a in planned.applied if a.note in (NO_SUCH_GROUP, NOT_RECORDED)), "it")
        return f"The documents do not contain this: {where} has no column for {missing} (it records {held})."
    if plan.across:
        return _phrase_across(planned, max_rows)
    if plan.shares:
        return _phrase_share(planned)
    if plan.section:
        items = "; ".join(str(r[0]) for r in planned.rows)
        if re.match(r"\s*total\b", plan.section, re.I):  # the lines a total line adds up
            return f"{plan.section} adds up {len(planned.rows)} items ({where}): {items}."
        if plan.answer == "count":
            return f"{len(planned.rows)} items are listed under {plan.section} ({where}): {items}."
        return f"Listed under {plan.section} ({where}): {items}."
    conditions = conditions_text(planned)
    scope = _scope(conditions)
    rows = planned.rows
    measure = plan.column
    unit = measure.unit if measure is not None and plan.answer not in ("count",) and measure.kind != "text" else None
    if isinstance(plan.group_by, (Column, str)) and plan.group_by is not None and rows \
            and len(rows[0]) == 2 + (plan.named_by is not None):
        group = plan.group_by
        label = group.label if isinstance(group, Column) else group
        if isinstance(group, Column):  # "per Segment: International: …", not "per Segment for Segment International"
            scope = _scope(conditions_text(planned, grouped=group))

        def named(row) -> str:  # "The Iron Harbour (HP1207)" where an identifier has a name beside it
            key = group_label(group, row[0], table)
            return f"{row[2]} ({key})" if plan.named_by is not None and row[2] not in (None, "") else key
        what = _measure_words(plan, question)
        items = [f"{named(r)}: {format_value(r[1], unit)}" for r in rows[:max_rows]]
        more = f" (showing {max_rows} of {len(rows)})" if len(rows) > max_rows else ""
        ranked = "highest" if plan.descending else "lowest"
        ranked_what = what.removeprefix(f"{ranked} ")  # "the lowest Airdate", not "the lowest lowest Airdate"
        if plan.limit == 1 and rows:
            return f"{named(rows[0])} has the {ranked} {ranked_what}{scope}: {format_value(rows[0][1], unit)} ({where})."
        if plan.limit and plan.limit > 1:  # "the three Items with the highest total Amt (EUR)"
            return f"The {plan.limit} {label}{'' if label.endswith('s') else 's'} with the {ranked} {ranked_what}{scope} " \
                   f"({where}): " + "; ".join(items) + "."
        return f"{what[:1].upper()}{what[1:]} per {label}{scope} ({where}){more}: " + "; ".join(items) + "."
    if len(rows) == 1 and planned.columns[0] == "value" and plan.answer != "list":
        value = rows[0][0]
        if plan.answer == "count":
            noun = counted_phrase(question) or "rows"
            answer = f"{format_value(value)} {noun}{_having(conditions) if conditions else ' in all'} ({where})."
            # "Does rank 5 have at least 290 points?" is answered yes or no first, then by the rows that decide it
            return f"{'Yes' if value else 'No'}: {answer}" if answered_yes_or_no(question) else answer
        counted = rows[0][1] if len(rows[0]) > 1 and isinstance(rows[0][1], int) else None
        across = f", across {counted:,} row{'' if counted == 1 else 's'}" if counted is not None else ""
        wanted = asked_unit(question, unit) if isinstance(value, (int, float)) else None
        if plan.day_hours and isinstance(value, (int, float)):  # "79.63 8-hour days (637 h)"
            days = round(convert(value, unit, "h") / plan.day_hours, 2)
            shown = f"{format_value(days)} {plan.day_hours:g}-hour days ({format_value(value, unit)})"
        elif wanted:  # said in the unit asked for, the column's own beside it
            shown = f"{format_value(convert(value, unit, wanted), wanted)} ({format_value(value, unit)})"
        else:
            shown = format_value(value, unit)
        holder = ""
        if plan.answer in ("minimum", "maximum") and len(rows[0]) > 1 and counted is None:
            beside = list(zip(planned.columns[1:], rows[0][1:]))
            if measure is not None and measure.kind == "text":  # said as printed, "147.3 / 483", not as its figure
                shown, beside = format_value(rows[0][1]), beside[1:]
            filtered = {c.name for c, op, _ in plan.filters if op == "is"}  # "for Country Germany" is said once
            beside = [(c, v) for c, v in beside if c not in filtered] or beside
            holder = ": " + ", ".join(_cell_said(_label_of(c, planned), format_value(v)) for c, v in beside
                                      if v not in (None, ""))
        named = [plan.matched.get(i, (v,))[0] for i, (_, op, v) in enumerate(plan.filters) if op == "is"]
        if counted == 1 and plan.answer in _SQL_AGGREGATE and named and not plan.periods:
            # one row's cell, named by its row and column ("Grants, 2018: 912"), not "the total 2018 for ..."; a
            # year column's figure is a figure ("1,507"), not a year; the row's scale is the row's ("in
            # thousands, except per share data")
            row_unit = printed_unit(table, plan.column.name, str(named[0])) if len(named) == 1 else unit
            if row_unit != unit and shown == format_value(value, unit):
                unit, shown = row_unit, format_value(value, row_unit)
            if row_figures.year_columns([plan.column]) and shown == format_value(value, unit):
                shown = _figure(value, unit)
            return f"{', '.join(_unmarked(n) for n in named)}, {plan.column.label}: {shown} ({where})."
        # the figure right after what it measures, then what it covers: a reader (and a scorer) takes the
        # first figure as the answer, and a converted bound ("Frame (cm) at least 53.34 cm") is not it
        said = _measure_words(plan, question)
        if wanted and plan.column is not None and plan.column.ends:  # "The average time from Opened to Closed is
            said = said.replace("days from", "time from", 1)           # 5.90 h (0.2457 days)", not "average days"
        if plan.answer == "sum" and not unit and isinstance(value, (int, float)) and shown == format_value(value) \
                and float(value).is_integer():
            shown = f"{int(value):,}"  # a total, never a year: "2,340"
        return f"The {said} is {shown}{scope}{holder}{across} ({where})."
    if not rows:
        return f"No rows of {where} match{' ' + conditions if conditions else ''}."
    shown = rows[:max_rows]
    labels = [_label_of(c, planned) for c in planned.columns]
    units = [_unit_of(c, planned) for c in planned.columns]
    if len(planned.columns) == 1:
        items = "; ".join(format_value(r[0], units[0]) for r in shown)
    elif plan.named_by is not None and len(planned.columns) == 2:  # "Poems of the Tower (HP1200)"
        items = "; ".join(f"{r[1]} ({format_value(r[0], units[0])})" if r[1] not in (None, "") else format_value(r[0], units[0])
                          for r in shown)
    else:
        items = "; ".join(", ".join(f"{labels[n]} {format_value(v, units[n])}" for n, v in enumerate(r)) for r in shown)
    if len(rows) == 1 and not planned.truncated:  # the one row first: "Andrew Kaiser (officers.pdf, Title CFO)"
        return f"{items} ({where}{', ' + conditions if conditions else ''})."
    count = f"{len(rows)}{'+' if planned.truncated else ''}"
    more = f" Showing {len(shown)}; all {count} are in the table below and in the CSV export." if len(rows) > len(shown) else ""
    noun = labels[0] if len(planned.columns) == 1 or plan.named_by is not None else "rows"
    asked = listed_phrase(question) if noun == labels[0] else None
    if asked and singulars(asked.split()[-1].lower()) & word_forms(noun):
        noun = asked  # "5 Riverside jobs", as the question says it, not "5 Job No"
    elif noun == labels[0] and len(rows) != 1:
        # "Who has a ThinkPad?" listing Assigned to: people, not "Assigned tos"
        noun = "people" if re.match(r"\W*who\b", question, re.I) and _ENDS_ON_PREPOSITION.search(noun) \
            else plural_header(noun)
    return f"{count} {noun}{_having(conditions)} ({where}): {items}.{more}"


_ENDS_ON_PREPOSITION = re.compile(r"\b(?:to|by|for|from|with|of|at)$", re.I)  # "Assigned to", "Reported by"


def plural_header(label: str) -> str:
    """A header said of several rows: "4 Units", not "4 Unit"; one with a unit, a figure, a participle or a
    preposition at its end ("Height m / ft", "Term Started", "Assigned to") as printed."""
    if not re.search(r"[^\Ws]$", label) or re.search(r"[/()\d]|ed$", label) or _ENDS_ON_PREPOSITION.search(label):
        return label
    return re.sub(r"([^aeiou])y$", r"\1ie", label) + "s"


_BRACKETED_END = re.compile(r"\s*[(\[][^()\[\]]*[)\]]\s*$")


LONG_HEADER = 24  # characters: a year column's header longer than this is said by its year alone


def _year_name(label: str, column: Column) -> str:
    """ "Fiscal years ended July 31, 2019 Amount" is said "2019"; "30 June 2019" as printed."""
    return row_figures.year_of(column) if len(label) > LONG_HEADER and row_figures.year_columns([column]) else label


_FALL_ASKED = re.compile(r"\b(?:decrease|decreased|decline|declined|fall|fell|drop|dropped|reduce|reduced|reduction)\b", re.I)
_DIFFERENCE_ASKED = re.compile(r"\bdifference\b", re.I)
_RISE_ASKED = re.compile(r"\b(?:increase|increased|rise|rose|grow|grew|growth|change)\b", re.I)


def _points(difference: float) -> str:
    """The difference of two rates: "-0.5 percentage points", "1 percentage point"."""
    return f"{_figure(round(difference, 4), None)} percentage point{'' if abs(difference) == 1 else 's'}"


def _phrase_across(planned: PlannedQuery, max_rows: int) -> str:
    """"The change in Trade receivables from 2018 to 2019 is -£1,234 thousand (2018: £6,000 thousand; 2019:
    £4,766 thousand)": the figure, what it covers, and the cells it was computed from."""
    plan, where = planned.plan, planned.table.filename
    labelled = len(planned.columns) > len(plan.across) + 1
    column = plan.across[0]

    def unit_of(row) -> str | None:  # the row's: a scale's exception ("except per share amounts") names rows
        return printed_unit(planned.table, column.name, str(row[1])) if labelled else column.unit

    years = [row_figures.year_of(c) for c in plan.across]
    change = plan.answer in ("change", "percent change")
    span = f"from {years[0]} to {years[-1]}" if change else "for " + _listed(years)  # (two years or more)
    what = {"percent change": "percentage change", "sum": "total"}.get(plan.answer, plan.answer)

    def cells(row) -> str:  # "2018: 1,310; 2019: 1,507", the figures a result was read from
        # (a header's unit, "2018 (£m)", goes once the figure carries it: "2018: £0.5 million")
        unit = unit_of(row)
        return "; ".join(f"{_year_name(_BRACKETED_END.sub('', c.label) if unit else c.label, c)}: {_figure(v, unit)}"
                         for c, v in zip(plan.across, row[1 + labelled:]))

    def shown(row, sign: int = 1) -> str:
        result = row[0]
        if result is None:
            return "(not computable: a figure is blank)"
        result *= sign
        if plan.answer == "percent change" and unit_of(row) == "%":  # a rate's change is said in points first
            figures = [v for v in row[1 + labelled:] if isinstance(v, (int, float))]
            points = (figures[-1] - figures[0]) * sign if len(figures) >= 2 else None
            if points is not None:
                return f"{_points(points)} ({result:,.2f}% relative)"
        if plan.answer == "change" and unit_of(row) == "%":  # the difference of two rates is in points, not a rate
            return _points(result)
        return f"{result:,.2f}%" if plan.answer == "percent change" else _figure(round(result, 4), unit_of(row))

    def said(row) -> str:
        return f"{shown(row)} ({cells(row)})"

    rows = planned.rows
    if not rows:
        conditions = conditions_text(planned)
        return f"No rows of {where} match{' ' + conditions if conditions else ''}."
    if plan.answer in (row_figures.WHICH_YEAR, row_figures.HOW_MANY_YEARS):
        if len(rows) > 1 and not plan.filters and all(isinstance(r[0], list) for r in rows):
            # "What years does the table cover?", no row named: the years any row has figures for
            years = [y for y in map(row_figures.year_of, plan.across) if any(y in r[0] for r in rows)]
            if len(years) > 1:
                return f"The table gives figures for {_listed(years)} ({where})."
        items = []
        for r in rows[:max_rows]:
            chosen = r[0]
            answer = ("no answer from these figures" if chosen is None or chosen == [] else
                      f"{chosen} year{'' if chosen == 1 else 's'}" if isinstance(chosen, int) else _listed(chosen))
            items.append(f"{(_unmarked(r[1]) + ': ') if labelled else ''}{answer} ({cells(r)})")
        return "; ".join(items) + f" ({where})."
    if plan.answer == row_figures.EACH:
        items = "; ".join((f"{_unmarked(r[1])}: " if labelled else "") + ", ".join(
            f"{_figure(v, unit_of(r))} in {row_figures.year_of(c)}" for c, v in zip(plan.across, r[1 + labelled:]))
            for r in rows[:max_rows])
        return f"{items} ({where})."
    if len(rows) == 1:
        row = f" {'in' if change else 'of'} {_unmarked(rows[0][1])}" if labelled else ""
        asked = planned.question or ""
        negative = change and isinstance(rows[0][0], (int, float)) and rows[0][0] < 0
        rise, fall = _RISE_ASKED.search(asked), _FALL_ASKED.search(asked)
        # "How much did X decrease by?" is answered by the size of the fall, said as one
        fell = negative and fall and not rise
        if fell:
            what = what.replace("change", "decrease")
        # "the difference in X between 2018 and 2019" has no direction: its size, as the query route says it
        apart = negative and plan.answer == "change" and _DIFFERENCE_ASKED.search(asked) and not rise and not fall
        if apart:
            what, span = "difference", f"between {years[0]} and {years[-1]}"
        # the figure before the years it spans: a question that states none reads them first otherwise
        return f"The {what}{row} is {shown(rows[0], -1 if fell or apart else 1)} {span} ({cells(rows[0])}) ({where})."
    items = "; ".join(f"{_unmarked(r[1]) if labelled else n + 1}: {said(r)}" for n, r in enumerate(rows[:max_rows]))
    more = f" Showing {max_rows} of {len(rows)}." if len(rows) > max_rows else ""
    return f"The {what} {span}, row by row ({where}): {items}.{more}"


def _phrase_share(planned: PlannedQuery) -> str:
    """"More than 5 years is 12.50% of Total for Purchase obligations (100 of 800 thousand)", "The ratio of
    Grants to Total income in 2018 is 0.41 (912 to 2,222)": the share, what it compares, and the two cells."""
    plan, (result, part, whole) = planned.plan, planned.rows[0]
    (row_a, col_a), (row_b, col_b) = plan.shares

    def said(text: str) -> str:
        return " ".join(_unmarked(text).split())
    if col_a is col_b:
        a, b, scope = said(row_a), said(row_b), f" in {said(_year_name(col_a.label, col_a))}"
    elif row_a == row_b:
        a, b, scope = said(col_a.label), said(col_b.label), f" for {said(row_a)}"
    else:
        a, b, scope = f"{said(row_a)} ({said(col_a.label)})", f"{said(row_b)} ({said(col_b.label)})", ""
    unit_a = printed_unit(planned.table, col_a.name, row_a)
    cells = (_figure(part, unit_a), _figure(whole, printed_unit(planned.table, col_b.name, row_b)))
    where = planned.table.filename
    if plan.answer in (CELLS_SUM, CELLS_DIFFERENCE):
        heading, _, item_a = row_a.rpartition(": ")
        if heading and row_b.startswith(f"{heading}: "):  # two items of one section: said by their own names
            a, b = said(item_a), said(row_b.rpartition(": ")[2])
        what = f"sum of {a} and {b}" if plan.answer == CELLS_SUM else f"difference between {a} and {b}"
        return f"The {what}{scope} is {_figure(result, unit_a)} ({a}: {cells[0]}; {b}: {cells[1]}) ({where})."
    if plan.answer == "percent":
        return f"{a} is {result:,.2f}% of {b}{scope} ({cells[0]} of {cells[1]}) ({where})."
    return f"The ratio of {a} to {b}{scope} is {result:,.2f} ({cells[0]} to {cells[1]}) ({where})."


def said_values(values: list[str]) -> str:
    """A condition's values as a person lists them: "11A, 11B or 11C"; beyond SAID_VALUES, "11A, 11B, 11C and 3 more"."""
    return _listed(values, "or") if len(values) <= SAID_VALUES else \
        ", ".join(values[:SAID_VALUES - 1]) + f" and {len(values) - SAID_VALUES + 1} more"


def _listed(items: list[str], conjunction: str = "and") -> str:
    """ "2017, 2018 and 2019"; "Form 11A, 11B or 11C"."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} {conjunction} {items[-1]}"


# A footnote mark closing a printed row label ("Recorded investment (1)"): the table's, not the answer's.
_TRAILING_MARK = re.compile(r"\s*(\((\d{1,2}|[a-z]|(?:see\s+)?notes?\s+\d{1,2}[a-z]?)\)|[*†‡]+)\s*$", re.I)


def _unmarked(label) -> str:
    """A row label as said in a sentence: without its footnote mark, which would read as a figure."""
    return _TRAILING_MARK.sub("", str(label)) or str(label)


def _figure(value, unit: str | None) -> str:
    """A report's figure: 1,310, never a bare 1310 (format_value keeps that for years)."""
    if isinstance(value, float) and value.is_integer() and not unit:
        return f"{int(value):,}"
    return format_value(value, unit)


def _scope(conditions: str) -> str:
    """ " for Branch Riverside, in Q2"; a period alone reads " in Q2", not " for in Q2"."""
    if not conditions:
        return ""
    return f" {conditions}" if _PERIOD_WORD.match(conditions) else f" for {conditions}"


_BLANK_HEADER = re.compile(r"column \d+")  # ingest.tables.blank_header's stand-in for a blank header cell
# ... and the name of the blank corner over a report table's row labels (tables.LABELS_HEADER): neither was printed,
# so a condition on such a column is said by its value ("Investment income", not "Description Investment income")
_UNPRINTED_HEADER = re.compile(rf"{_BLANK_HEADER.pattern}|{re.escape(LABELS_HEADER)}")


def _cell_said(label: str, value: str) -> str:
    """ "Country Germany"; a cell of a column with a blank header, or one that starts with the header's words ("Line
    1" of Line), by its value alone."""
    said, named = tokens(value), tokens(label)
    if _UNPRINTED_HEADER.fullmatch(label) or (named and len(said) > len(named) and said[:len(named)] == named):
        return value
    return f"{label} {value}"


def _measure_words(plan: Plan, question: str) -> str:
    name = plan.column.label if plan.column is not None else "rows"
    if _BLANK_HEADER.fullmatch(name):  # "column 2" is no name a person would say: the figures, as printed
        name = "figure"
    return {"sum": name if name.lower().startswith("total") else f"total {name}", "average": f"average {name}", "median": f"median {name}", "minimum": f"lowest {name}",
            "maximum": f"highest {name}", "count": "number of " + (counted_noun(question) or ranked_noun(question) or "rows")
            }.get(plan.answer, name)


def ranked_noun(question: str) -> str | None:
    """What a ranking by a count counts: "Which fitter did the most boiler jobs?" -> "jobs"."""
    most = _MOST_THINGS.search(without_bounds(question))
    return most.group(1).lower() if most and _plural(most.group(1).lower()) else None


_PHRASE_END = set("""the a an did do does is are was were have has had will would can could should that which who with in on at
for from by of to into since during before after than this these those we our us you your they their it its per each
came went got took sold made ran saw left paid spent bought gave kept""".split())


def _plural(word: str) -> bool:
    return len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is"))


def _having(conditions: str) -> str:
    """ " with Branch Riverside, in Q2" after a counted noun; a period alone reads " in Q2"; no conditions, no words."""
    if not conditions:
        return ""
    return f" {conditions}" if _PERIOD_WORD.match(conditions) else f" with {conditions}"


def listed_phrase(question: str) -> str | None:
    """What a "which ..." or "list the ..." asks for, as the question says it, up to its plural noun: "Which
    Riverside jobs were never collected?" -> "Riverside jobs", "Which of our pumps ..." -> "pumps"; None when
    no plural ends the phrase ("Which tractor ...")."""
    match = re.match(r"\W*(?:which|list|name|show|find)\s+(?:(?:all|any|every|each)\s+)?(?:of\s+)?"
                     r"(?:the\s+|our\s+|your\s+|their\s+)?([A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,2})", question, re.I)
    words = []
    for word in match.group(1).split() if match else []:
        if word.lower() in _PHRASE_END:
            break
        words.append(word)
        if _plural(word.lower()):
            return " ".join(words)
    return None


def counted_phrase(question: str) -> str | None:
    """What a count counts, said as the question says it: "How many emergency appointments did we have" ->
    "emergency appointments" (up to three words, to the verb or preposition that ends the phrase)."""
    noun = counted_noun(question)
    if not noun:
        return None
    rest = question.lower()[question.lower().find(noun) + len(noun):]
    words = [noun]
    for word in re.findall(r"[a-z][a-z-]*|\S", rest)[:2] if not _plural(noun) else []:
        if word in _PHRASE_END or not word[0].isalpha() or word.endswith("ed"):
            break
        words.append(word)
        if _plural(word):  # the phrase's noun: "bikes", not "bikes sat"; "clinicians", not "clinicians work"
            break
    return " ".join(words)


def one_row_named(plan: Plan, table: TableInfo, executor: ReadOnlyExecutor) -> str | None:
    """The column of a filter whose value names one row in a column of names (most of its values name one row
    each: a report's row labels, references), or None: a count of such a row is 1, whatever the row holds.
    ("How many times did Norway win?" counts the rows of a name that may stand once: the caller leaves it.)"""
    for column, op, value in plan.filters:
        if op != "is" or column.kind != "text" or 2 * len(column.cells) <= table.row_count or column.expression:
            continue
        try:
            found = executor.run(f"SELECT COUNT(*) FROM {table.name} WHERE LOWER(TRIM({column.sql})) = "
                                 f"LOWER(TRIM({text_literal(str(value))}))", [table.name]).rows
        except (QueryRefused, Exception):  # (the table's own column: nothing the question could make fail)
            continue
        if found and found[0][0] == 1:
            return column.label
    return None


def counts_every_row(plan: Plan) -> bool:
    """A count of rows with no condition on them: no filter (but the one leaving a report's total lines out),
    period or group."""
    return plan.answer == "count" and not plan.distinct and not plan.periods and plan.group_by is None \
        and all(op == "is not" and row_figures.is_total_label(str(value), or_subtotal=True) for _, op, value in plan.filters)


def counted_values(question: str, columns: list[Column], row_count: int) -> Column | None:
    """The text column whose different values a count of every row counts: "how many suppliers are listed?" over
    order lines whose Supplier repeats is the number of suppliers, not of lines. A column with a value of its own
    in every row names the rows themselves, and counting them is counting rows."""
    phrase = counted_phrase(question)
    if not phrase:
        return None
    forms = singulars(phrase.split()[-1])
    found = [c for c in columns if c.kind == "text" and forms & _label_forms(c) and not names_rows(c, row_count)]
    return found[0] if len(found) == 1 else None


_FLAG_YES, _FLAG_NO = {"yes", "y", "true"}, {"no", "n", "false"}
# Verbs of what did not happen, said of a yes/no column's thing: "missed their SLA" over SLA met, "failed" over Passed
_FAILED = {"missed", "miss", "misses", "failed", "fail", "fails", "breached", "breach", "skipped", "rejected", "refused",
           "declined"}


def failed_flag(column: Column, said: list[str]) -> str | None:
    """The No cell of a yes/no column, when the words say its thing did not happen ("missed" over SLA met)."""
    flags = {fold(c): c for c in column.cells} if column.kind == "text" else {}
    if not flags or not set(flags) <= _FLAG_YES | _FLAG_NO or not {fold(w) for w in said} & _FAILED:
        return None
    return next((c for f, c in flags.items() if f in _FLAG_NO), None)


def failed_flags(plan: Plan) -> list[Applied]:
    """"How many orders missed their deadline?" planned as Deadline met is "missed": no cell says it, the flag's No
    does."""
    applied = []
    for i, (column, op, value) in enumerate(plan.filters):
        if op == "is" and (no := failed_flag(column, tokens(str(value)))) is not None and fold(str(value)) != fold(no):
            plan.filters[i] = (column, "is", no)
            plan.matched[i] = (no,)
            applied.append(Applied(str(value), column.label, "read by the rules", f"“{value}” is {column.label} {no}"))
    return applied


def flagged_column(question: str, columns: list[Column]) -> tuple[Column, tuple[str, ...]] | None:
    """The yes/no column a count's words name, with the cells it keeps: "controlled drugs" over Controlled drug
    (Yes, No) keeps the Yes rows; "non-controlled drugs" or "drugs not controlled" the No rows."""
    said = set(tokens(" ".join(counted_words(question))))
    negated = {w[2:] for w in said if w.startswith("un")}  # "uncontrolled": controlled, denied
    forms = {f for w in said | negated for f in singulars(w)}  # ("units" keeps its own forms too)
    for column in columns:
        cells = {fold(c): c for c in column.cells} if column.kind == "text" else {}
        if not cells or not set(cells) <= _FLAG_YES | _FLAG_NO or not set(cells) & _FLAG_YES \
                or not set(cells) & _FLAG_NO or not forms & _label_forms(column):
            continue
        denied = "non" in said or bool(negated & set(tokens(column.label))) \
            or re.search(r"\b(?:not|never|without)\b", question, re.I) is not None
        return column, tuple(c for f, c in cells.items() if f in (_FLAG_NO if denied else _FLAG_YES))
    return None


# Words a count of every row may carry beside what it counts: that the rows exist or are listed, where, who asks, and
# the everyday verbs that say what any row is ("How many sales did the shops ring up?", "How many orders came in?").
_EVERY_ROW_WORDS = set("""how many much what which who whom whose is are was were be been being the a an of in on at
for from by to with and or did do does there here have has had get got total totals number numbers all overall
altogether together combined count counted list listed lists label labeled labelled show shown shows table tables chart
charts page pages sheet sheets file files data document documents record recorded records entered given include
included includes appear appears appeared mention mentioned named exist exists existed this these those that it its we
our us you your they their he she him his her i me tell give find please so far currently now different distinct unique
separate s t than as whats between inclusive since until before after during up out off come came coming comes go went
gone goes make made makes take took taken takes gets getting sell sold sells ring rang rung rings run ran runs done
doing book booked books raise raised handle handled process processed place placed log logged receive received see saw
seen hold held open opened close closed submit submitted issue issued serve served buy bought send sent deliver
delivered register registered enter keep kept""".split())


def count_qualifiers(question: str, known: frozenset | set = frozenset()) -> list[str]:
    """The words of a count that narrow what it counts, for a query that counts every row: over a service log
    "How many vans failed their MOT?" leaves "failed MOT"; "How many orders are in the ledger?" over ledger.csv,
    "How many orders were booked?" and "In all, how many orders were there?" leave none. The counted word is
    taken as the rows' own name; `known` words (the table's name and headers, in their singular forms) say
    nothing the rows do not; months and figures are periods and bounds, which apply_conditions checks."""
    phrase = counted_phrase(question)
    head = singulars(phrase.split()[-1]) if phrase else set()
    return [w for w in tokens(question) if w not in _EVERY_ROW_WORDS and w not in head and not w.isdigit()
            and w not in MONTHS and not singulars(w) & known]


def uncounted_kind(question: str, plan: Plan, columns: list[Column], known: frozenset) -> str | None:
    """What a count per group counts, when the plan counts every row of each group, the rows are not called so,
    and a column of a few kinds (a Status, a Code) could have said which: "Number of no-shows per clinician"
    over appointments.csv (no filter, no period) counted each clinician's appointments. A word the table's names
    or headers hold, or any row's name ("entries"), counts the rows; so does any word over a roster of names
    ("members per team"), which has no column of kinds."""
    if plan.answer != "count" or plan.group_by is None or plan.filters or plan.periods or plan.distinct:
        return None
    noun = counted_noun(question)
    if noun is None or names_the_rows(noun, known):
        return None
    kinds = [c for c in columns if c.kind == "text" and c is not plan.group_by
             and 2 <= len({fold(cell) for cell in c.cells}) <= VALUES_SHOWN]
    return noun if kinds else None


def names_the_rows(noun: str, known: frozenset) -> bool:
    """Whether a counted word is what the table calls its rows: a word of its names or headers (`known_words`),
    any table's word for a row, or no word of a kind ("How many were there")."""
    return bool(singulars(noun) & (known | _ROW_NOUNS)) or noun in _EVERY_ROW_WORDS


_OWNER = r"of (?:[\w&.-]+ ){0,3}?[\w&.-]+(?:['’]s|s['’]) "  # "how many of DryHome Services' jobs"


# a value named with its number before the thing counted: "Year 9" (pupils), a code "P1" (tickets)
_NUMBERED = r"[a-z][a-z-]* \d+[a-z]? (?=[a-z])|[a-z]+\d[a-z\d-]* (?=[a-z])"


def counted_noun(question: str) -> str | None:
    """What a count counts, in the question's word: "How many of the jobs ..." -> "jobs", "Number of
    no-shows per clinician" -> "no-shows"; a value named with a number before it is not the thing counted:
    "How many Year 9 pupils ..." -> "pupils", "How many P1 tickets ..." -> "tickets"."""
    match = re.search(r"\b(?:how many|number of) (?:of (?:the|our|your|their|these|those) |the |" + _OWNER + r")?"
                      r"(?:" + _NUMBERED + r")?([a-z][a-z-]*)", question.lower())
    return match.group(1) if match else None


_COUNTED_PHRASE_END = set("""did do does were was are is have has had can could will would in on at from for with by
of per that which who we our you they there""".split())


def counted_words(question: str) -> list[str]:
    """The words of what a count counts, up to its verb or preposition (at most three): "How many galvanised
    brackets did we make?" -> galvanised, brackets (counted_noun has the first)."""
    match = re.search(r"\b(?:how many|number of) (?:of (?:the|our|your|their|these|those) |the |" + _OWNER + r")?"
                      r"(?:" + _NUMBERED + r")?([a-z][a-z-]*(?: [a-z][a-z-]*){0,2})", question.lower())
    words = []
    for word in (match.group(1).split() if match else []):
        if word in _COUNTED_PHRASE_END:
            break
        words.append(word)
    return words


def _label_of(column: str, planned: PlannedQuery) -> str:
    for c in planned.table.columns:
        if c == column:
            return spoken_label(planned.table.printed.get(c, c))
    return column


def _unit_of(column: str, planned: PlannedQuery) -> str | None:
    return printed_unit(planned.table, column)


def printed_unit(table: TableInfo, column: str, row: str | None = None) -> str | None:
    """The unit a column's cells are in: the table's (its header's, or a currency sign its cells print), with
    the scale a report prints over its figures ("£m" -> "£ million"), so an answer says "£402 million". A
    scale with an exception ("in thousands, except per share amounts") is the `row` label's, unless it names it;
    a row whose figures print "%" is in percent."""
    if row is not None and (own := table.row_units.get(row.strip())):  # a percent row among figures in £m
        return own
    unit = table.units.get(column) or label_unit(table.printed.get(column, column))
    if table.types.get(column) != "REAL" or (unit and unit not in CURRENCY_SIGNS):
        return unit
    # the table's own scale (its title, or the stub over its row labels) or this column's: another column's
    # "Viewers (millions)" says nothing of an Episodes column beside it
    stub = table.printed.get(table.columns[0], "") if table.columns else ""
    scale = stated_scale([table.title, stub, table.printed.get(column, column)], row)
    return f"{unit or scale[0]} {scale[1]}".strip() if scale else unit


def evidence(planned: PlannedQuery) -> str:
    """Everything the phrased answer may state: the result as printed, group labels, the conditions and
    their converted bounds, the row count and the file (the Validator checks the answer against it)."""
    plan, units = planned.plan, [_unit_of(c, planned) for c in planned.columns]
    if planned.said:
        return planned.said
    if plan.section:
        return " ".join([plan.section, *(str(r[0]) for r in planned.rows), str(len(planned.rows)), planned.table.filename])
    if plan.shares:
        return _phrase_share(planned)
    if plan.across:  # computed by code from the cells it lists: the answer is that sentence
        return " ".join([_phrase_across(planned, len(planned.rows)), planned.table.filename])
    unit = plan.column.unit if plan.column is not None and plan.answer != "count" else None
    cells = []
    for row in planned.rows:
        for n, value in enumerate(row):
            cells += [format_value(value, units[n] if n < len(units) else None), format_value(value, unit), str(value)]
            if n == 0 and plan.group_by is not None:
                cells.append(group_label(plan.group_by, value, planned.table))
    wanted = asked_unit(planned.question, unit)
    if wanted and planned.rows and isinstance(planned.rows[0][0], (int, float)):
        cells.append(format_value(convert(planned.rows[0][0], unit, wanted), wanted))
    headers = [plural_header(_label_of(c, planned)) for c in planned.columns]  # "4 Sale Nos" is said of the header
    return " ".join([*cells, *headers, conditions_text(planned), str(len(planned.rows)), planned.table.filename])
