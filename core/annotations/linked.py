"""Tables of records linked by a key (issue 22, joins): a log whose Unit column holds the units of a register
(the fleet register, one row per unit). A question about the log may name a value only the register holds
("How much did we spend on diesel for the Freightliners?"): the log answers it, and code looks up the
register's units of that value and filters the log on them. The plan stays over one table, so the model still
names only what exists, and the lookup is said in the answer and the trace.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from core.annotations.columns import fold
from core.annotations.conditions import CellValue, same_value
from core.annotations.plan import Applied, PlannedQuery, columns_of, drop_filter, name_words, said_values, stated_conditions
from core.annotations.select import Selection, asked_words, file_words, named_values, words
from core.annotations.sql import ReadOnlyExecutor, text_literal
from core.annotations.tables import TableInfo

KEY_SHARE = 0.9  # of a log's different key values, the share its register must hold
MIN_KEYS = 3  # a key column names at least this many rows: two values are a category, not a key
LOOKED_UP = "looked up by code"


@dataclass(frozen=True)
class Link:
    """A log's column whose values are keys of a register: one register row per key."""
    log: TableInfo
    log_key: str  # SQL column
    register: TableInfo
    register_key: str  # SQL column
    keys: frozenset[str]  # the log's values of its key, folded


def links_of(table: TableInfo, tables: list[TableInfo], executor: ReadOnlyExecutor, *, as_register: bool) -> list[Link]:
    """The links in which `table` is the register (`as_register`) or the log: a column of the same printed header
    in both, unique to a row in the register, and nearly every value of it in the log one of the register's."""
    found, keys = [], {}
    for other in tables:
        if other.name == table.name or other.kind != "rows" or table.kind != "rows":
            continue
        register, log = (table, other) if as_register else (other, table)
        headers = {fold(log.printed.get(c, c)) for c in log.columns}
        if not any(fold(register.printed.get(c, c)) in headers for c in register.columns):
            continue  # (no header in common: no query)
        if register.name not in keys:
            keys[register.name] = _keys(register, executor)
        for key in keys[register.name]:
            header = fold(register.printed.get(key, key))
            for column in log.columns:
                if fold(log.printed.get(column, column)) != header or log.types.get(column) == "REAL":
                    continue
                values = _distinct(log, column, executor)
                if len(values) >= MIN_KEYS and len(values & _distinct(register, key, executor)) >= KEY_SHARE * len(values):
                    found.append(Link(log, column, register, key, frozenset(values)))
    return found


def _keys(table: TableInfo, executor: ReadOnlyExecutor) -> list[str]:
    """The text columns with a different value in every row: what a row of a register is called by."""
    keys = []
    for column in table.columns:
        if table.types.get(column) == "REAL" or column in table.dates or table.row_count < MIN_KEYS:
            continue
        counted = executor.run(f'SELECT COUNT(DISTINCT "{column}"), COUNT("{column}") FROM {table.name}', [table.name]).rows
        if counted and counted[0][0] == counted[0][1] == table.row_count:
            keys.append(column)
    return keys


def _distinct(table: TableInfo, column: str, executor: ReadOnlyExecutor) -> set[str]:
    rows = executor.run(f'SELECT DISTINCT "{column}" FROM {table.name} WHERE "{column}" IS NOT NULL', [table.name]).rows
    return {fold(r[0]) for r in rows}


def log_asked(question: str, register: Selection, tables: list[TableInfo], executor: ReadOnlyExecutor) -> Selection | None:
    """The log a question is about when the register it named first is only where one of its values is: "diesel for
    the Freightliners" names the fuel log's Fuel Type beside the register's Manufactuer. None unless the question
    names a value of a linked log that the register does not hold (a key, which both hold, says nothing)."""
    asked = asked_words(question)
    # the register's own words: a value of the log that shares one ("Private" beside "Private only", "Private
    # Fee (£)") says nothing the register does not
    held = {w for v in named_values(asked, register.table) for w in v.split()} | file_words(register.table.filename) \
        | {w for label in register.table.printed.values() for w in words(label)}
    for link in links_of(register.table, tables, executor, as_register=True):
        own = sorted(v for v, cell in named_values(asked, link.log).items()
                     if not set(v.split()) & held and fold(cell) not in link.keys)
        if own:
            return Selection(link.log, register.score, [f"names values: {', '.join(own)}",
                                                        f"its {link.log.printed.get(link.log_key)} are the rows of "
                                                        f"{register.table.filename}, which holds the rest"])
    return None


def look_up(planned: PlannedQuery, tables: list[TableInfo], executor: ReadOnlyExecutor) -> None:
    """Filter the plan's log on the register's keys of each value the question names that only the register holds
    ("Freightliner": the units the fleet register makes by Freightliner); a model's filter naming that value on a
    column of the log, where no cell holds it, is dropped."""
    plan, log = planned.plan, planned.table
    links = links_of(log, tables, executor, as_register=False) if plan is not None else []
    if not links:
        return
    columns = columns_of(log, executor)
    own = {v.text for v in stated_conditions(planned.question, columns, name_words(log)).values}
    for link in links:
        register_columns = columns_of(link.register, executor)
        for value in stated_conditions(planned.question, register_columns, name_words(link.register)).values:
            if value.text in own or value.column == link.register.printed.get(link.register_key):
                continue
            source = next(c for c in register_columns if c.label == value.column)
            keys = executor.run(f'SELECT DISTINCT "{link.register_key}" FROM {link.register.name} '
                                f'WHERE {source.sql} IN ({", ".join(text_literal(c) for c in value.cells)})',
                                [link.register.name]).rows
            key = next(c for c in columns if c.name == link.log_key)
            for j in range(len(plan.filters) - 1, -1, -1):
                column, op, said = plan.filters[j]
                if _names(said, value):
                    drop_filter(plan, j)
                    for applied in planned.applied:
                        if applied.condition == f"{column.label} {op} {said}":
                            applied.how, applied.note = "dropped by code", f"no {column.label} is {said}: it is looked up"
            op = "is not" if value.stance == "is not" else "is"  # "except the Volvos"
            said = f"{'not ' if op == 'is not' else ''}{value.column} {value.cells[0]} ({link.register.filename})"
            plan.filters.append((dataclasses.replace(key, said_as=said), op, value.text))
            plan.matched[len(plan.filters) - 1] = found = tuple(str(k[0]) for k in keys)
            planned.applied.append(Applied(value.text, value.column, LOOKED_UP,
                                           f"{key.label} {said_values(list(found))} of {link.register.filename}"))


def _names(text: str, value: CellValue) -> bool:
    """Whether a model's filter value says the looked-up value: "Freightliners", "freightliner"."""
    return same_value(text, value.text) or any(same_value(text, cell) for cell in value.cells)
