"""Questions about rows the question names, which code answers whole from the table (no model call):
- the row listed right after or before a named one: "Who won after Byron Nelson?", "What is the next
  location listed after Bormio?", "Who succeeded Lord Beaverbrook?", "X served immediately after who?";
- the one of two named rows with the larger or smaller figure: "Which has a larger area, Ashdod or
  Eilat?", "Did Ines or Owen claim more?".
Neither has a place in a query plan (a plan filters and aggregates; it has no row order and no choice),
and the model, writing free SQL for them, answered the named row itself or both rows. Each returns a
PlannedQuery whose answer is already said, or None, and the model plans as before.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from core.annotations.conditions import NUMBER_WORDS, bounds, cell_values, periods, same_value, tokens, word_forms
from core.annotations.plan import Column, Plan, PlannedQuery, columns_of, format_value
from core.annotations.sql import ReadOnlyExecutor, text_literal
from core.annotations.tables import TableInfo, leading_number

_CLOSE = r"(?:(?:immediately|directly|right|just)\s+)?"
_ASKING = r"^\W*(?:who|whom|what|which|name)\b"
# "who won after Byron Nelson?": the named row is the question's last phrase
_SIDE = r"(?P<side>after|before|(?<!the )following|preceding)"
_BESIDE = re.compile(rf"{_ASKING}.*?\b{_CLOSE}{_SIDE}\s+(?P<named>.+?)[\W_]*$", re.I)
# "who succeeded Lord Beaverbrook as minister of supply?"
_SUCCEEDED = re.compile(rf"{_ASKING}.*?\b(?P<side>succeeded|followed|replaced|preceded)\s+(?P<named>.+?)"
                        r"(?:\s+as\s+.+?)?[\W_]*$", re.I)
# "Susan Leo served as a partner immediately after who?": the named row leads, the asked one closes
_AFTER_WHO = re.compile(rf"^\W*(?P<named>.+?)\s+{_CLOSE}{_SIDE}\s+(?:who|whom|what|which(?:\s+\w+)?)[\W_]*$", re.I)
_ON_THE_LIST = re.compile(r"\s+(?:on|in|of)\s+the\s+(?:chart|table|list)$", re.I)
# what a cell prints after the name it holds: a note in brackets, a reference ("Heavens and Earth 2:4")
_CELL_TAIL = re.compile(r"(?:\s*\([^()]*\)|\s+[\d:.,\-–]+)+\s*$")
_LATER = {"after", "following", "succeeded", "followed", "replaced"}
_IN_LIST_ORDER = re.compile(r"\b(?:list(?:ed)?|table|row|chart)\b", re.I)
_TIME_LABEL = re.compile(r"\b(?:year|season|date|term|held|from|since|began|started)\b", re.I)
# the share of a time column's steps down the rows that makes its table newest first
NEWEST_FIRST_SHARE = 0.9


@dataclass(frozen=True)
class Beside:
    """A question about the row beside a named one."""
    named: str  # the words that name a row
    later: bool  # the row asked for comes after it
    leads: bool  # the named words lead the question ("X came after who?") and may run on into others
    side: str = "after"  # as the question says it: "after", "preceding", "succeeded"
    asking: str = ""  # the words before it: "who was the next", "what was the income"


def asks_beside(question: str) -> Beside | None:
    """What a question about the row beside a named one names; None for any other question, and for a
    bound ("after 1998", "before 3 March"), which is a condition, not a row."""
    for pattern, leads in ((_AFTER_WHO, True), (_SUCCEEDED, False), (_BESIDE, False)):
        match = pattern.search(question)
        if not match:
            continue
        named = _ON_THE_LIST.sub("", match.group("named").strip(" \"'“”‘’,?")).strip(" \"'“”‘’,")
        if not re.search(r"[^\W\d_]{2}", named) or periods(named) or bounds(f"after {named}"):
            return None
        later = match.group("side").lower() in _LATER
        # "X came after who?" asks for the row before X
        return Beside(named, later != leads, leads, match.group("side").lower(),
                      "" if leads else question[:match.start("side")])
    return None


def _row_named(phrase: str, columns: list[Column], leads: bool) -> tuple[Column, tuple[str, ...]] | None:
    """The column and cells a phrase names whole ("the way it all began" the cell "The Way It All Began",
    "hiroyasu tuchie" "Hiroyasu Tsuchie"); a leading phrase may run on into the question's other words."""
    words = tokens(phrase)
    candidates = [" ".join(words[:n]) for n in range(len(words), 0, -1)] if leads else [" ".join(words)]
    for text in candidates:
        text = re.sub(r"^the\s+", "", text)
        found = [(c, tuple(cell for cell in c.cells if any(same_value(said, name) for said in (text, f"the {text}")
                                                             for name in {cell, _CELL_TAIL.sub("", cell)})))
                 for c in columns if c.kind == "text"]
        found = [(c, cells) for c, cells in found if cells]
        if len(found) == 1:
            return found[0]
        if found:
            return None  # a name two columns hold: which row is meant is not clear
    return None


_ORDER_WORDS = {"the", "a", "an", "is", "was", "who", "what", "which", "name", "next", "listed", "list", "one", "came",
                "come", "comes", "immediately", "directly", "right", "just"}


def _asks_order(asked: Beside, column: Column, columns: list[Column], question: str) -> bool:
    """Whether "after X" asks for the next row, not for a figure of X's ("what was the income after tax?",
    "the population after 1998"): no other column is named before it when a thing is asked (a person, "who",
    is the row), and "income after" is no phrase the table prints ("Income after tax")."""
    if re.search(r"\b(?:much|many|total|amount|come to|came to)\b", asked.asking, re.I):
        return False  # "What did the invoice come to before tax?" asks for a figure
    if re.search(rf"\b(?:\d+|{'|'.join(NUMBER_WORDS)})\s+\w+\s*$", asked.asking, re.I):
        return False  # "two shifts after Ben" is not the row beside Ben: a query counts the rows
    words = [w for w in tokens(asked.asking) if w not in _ORDER_WORDS]
    if not words:
        return True
    if re.match(r"\W*(?:what|which)\b", question, re.I) and any(
            c is not column and word_forms(c.label) & word_forms(" ".join(words)) for c in columns):
        return False
    compound = f"{words[-1]} {asked.side}"
    printed = [c.label for c in columns] + [cell for c in columns for cell in c.cells]
    return not any(compound in " ".join(tokens(text)) for text in printed)


def _newest_first(table: TableInfo, columns: list[Column], executor: ReadOnlyExecutor) -> Column | None:
    """The time column a table lists newest first by (a winners' list from this year back), else None."""
    for column in columns:
        if column.expression or not (column.kind == "date" or _TIME_LABEL.search(column.label)):
            continue
        found = executor.run(f"SELECT {column.sql} FROM {table.name} ORDER BY source_row", [table.name]).rows
        values = [v for (v,) in found if v not in (None, "")]
        if column.kind != "date":
            values = [v if isinstance(v, (int, float)) else leading_number(str(v)) for v in values]
            values = [v for v in values if v is not None]
        steps = [(a > b) - (a < b) for a, b in zip(values, values[1:]) if a != b]
        if len(steps) >= 2:
            return column if steps.count(1) >= NEWEST_FIRST_SHARE * len(steps) else None
    return None


def beside(question: str, table: TableInfo, executor: ReadOnlyExecutor) -> PlannedQuery | None:
    """The row listed right after (or before) the one the question names, read in the table's order (in
    time order where the table lists newest first and the question does not speak of the list)."""
    asked = asks_beside(question)
    if asked is None or re.match(r"\W*(?:what|which)\s+(?:are|were)\b", question, re.I):
        return None  # "which jobs were raised after the inspection?" asks for rows, not the next one
    columns = columns_of(table, executor)
    named = _row_named(asked.named, columns, asked.leads)
    if named is None or not _asks_order(asked, named[0], columns, question):
        return None
    column, cells = named
    later = asked.later
    where = f'"{column.name}" IN ({", ".join(text_literal(c) for c in cells)})'
    holding = executor.run(f"SELECT source_row FROM {table.name} WHERE {where}", [table.name]).rows
    if len(holding) != 1:
        return None  # a name on several rows: beside which is not clear
    reversed_in_time = None if _IN_LIST_ORDER.search(question) else _newest_first(table, columns, executor)
    down = later != (reversed_in_time is not None)
    found = executor.run(f'SELECT "{column.name}", source_row FROM {table.name} WHERE source_row {">" if down else "<"} '
                         f'{holding[0][0]} AND "{column.name}" IS NOT NULL AND TRIM("{column.name}") <> \'\' '
                         f'ORDER BY source_row {"ASC" if down else "DESC"} LIMIT 1', [table.name])
    if not found.rows:
        return None
    (answer, row), shown = found.rows[0], cells[0]
    # the two rows read, the named one and its neighbour: what the answer cites
    sql = f'SELECT "{column.name}" FROM {table.name} WHERE source_row IN ({holding[0][0]}, {row}) ORDER BY source_row'
    side = "after" if later else "before"
    order = f", which lists {reversed_in_time.label} newest first" if reversed_in_time is not None else ""
    plan = Plan("list", column, filters=[(column, "is", shown)], matched={0: cells})
    planned = PlannedQuery(table, question, plan=plan, sql=sql, columns=[column.name], rows=[(answer,)])
    planned.said = f"{format_value(answer)} comes right {side} {shown} ({column.label}, {table.filename}{order})."
    return planned


_MORE = {"more", "most", "larger", "largest", "bigger", "biggest", "greater", "greatest", "higher", "highest",
         "longer", "longest", "taller", "tallest", "heavier", "heaviest", "wider", "widest", "deeper", "deepest"}
_LESS = {"less", "least", "fewer", "fewest", "smaller", "smallest", "lower", "lowest", "shorter", "shortest",
         "lighter", "lightest", "narrower", "narrowest", "shallower", "shallowest"}
_SAID_AS = {"more": "more", "most": "more", "less": "less", "least": "less", "fewer": "fewer", "fewest": "fewer"}
def choice(question: str, table: TableInfo, executor: ReadOnlyExecutor) -> PlannedQuery | None:
    """Of two rows the question names with "or", the one with the larger (or smaller) figure in the column
    it names: "Which has a larger area, Ashdod or Eilat?". A row named on several rows is their total. None
    when the question states any other condition (a period, a bound, a third value): the plan applies them."""
    words = tokens(question)
    compared = [w for w in words if w in _MORE or w in _LESS]
    if "or" not in words or len(compared) != 1 or periods(question) or bounds(question):
        return None
    columns = columns_of(table, executor)
    texts = {c.name: c.cells for c in columns if c.kind == "text"}
    named = [v for v in cell_values(question, texts) if v.stance == "is"]
    if len(named) != 2 or named[0].column != named[1].column or set(named[0].cells) & set(named[1].cells):
        return None
    said_words = f" {' '.join(words)} "
    if f" {named[0].text} or {named[1].text} " not in said_words and f" {named[1].text} or {named[0].text} " not in said_words:
        return None  # "A or B" side by side, not two values met anywhere in the question
    asked = word_forms(question) - word_forms(named[0].text) - word_forms(named[1].text)
    # a number column, or text cells read by the figure they start with ("978 / 3,209")
    measured = [c for c in columns if (c.kind == "number" or c.figure) and c.name != named[0].column
                and word_forms(c.label) & asked]
    if len(measured) != 1:
        return None
    measure, column = measured[0], next(c for c in columns if c.name == named[0].column)
    figures = []
    for value in named:
        where = f'"{column.name}" IN ({", ".join(text_literal(c) for c in value.cells)})'
        rows = executor.run(f"SELECT {measure.figure or measure.sql} FROM {table.name} WHERE {where}",
                            [table.name]).rows
        numbers = [v for (v,) in rows if isinstance(v, (int, float))]
        if not numbers or len(numbers) != len(rows):
            return None
        figures.append((value.cells[0], sum(numbers), len(numbers)))
    word = compared[0]
    larger = word in _MORE
    (first, a, _), (second, b, _) = sorted(figures, key=lambda f: -f[1] if larger else f[1])
    label = measure.label if all(n == 1 for *_, n in figures) else f"total {measure.label}"
    unit = measure.unit if measure.kind == "number" else None
    if a == b:
        said = f"{first} and {second} have the same {label}: {format_value(a, unit)} ({table.filename})."
    else:
        comparative = _SAID_AS.get(word, word if word.endswith("er") else re.sub(r"est$", "er", word))
        said = (f"{first} has {comparative} {label} than {second}: {format_value(a, unit)} against "
                f"{format_value(b, unit)} ({table.filename})." if comparative in ("more", "less", "fewer") else
                f"{first} has the {comparative} {label}: {format_value(a, unit)} against {format_value(b, unit)} "
                f"for {second} ({table.filename}).")
    plan = Plan("list", measure, filters=[(column, "is", v.text) for v in named],
                matched={i: v.cells for i, v in enumerate(named)})
    sql = f'SELECT "{column.name}", {measure.sql} FROM {table.name} WHERE "{column.name}" IN ' \
          f'({", ".join(text_literal(c) for v in named for c in v.cells)})'
    planned = PlannedQuery(table, question, plan=plan, sql=sql, columns=[column.name, measure.name],
                           rows=[(f[0], f[1]) for f in figures])
    planned.said = said
    return planned


def rows_named(question: str, table: TableInfo, executor: ReadOnlyExecutor) -> PlannedQuery | None:
    return beside(question, table, executor) or choice(question, table, executor)
