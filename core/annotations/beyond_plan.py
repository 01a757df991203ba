"""Questions a query plan cannot say, which go to the free SQL writer instead (issue 22, item 2: "where a
question needs more than the plan can say, free SQL may follow; decide the split on the dev parts").

A plan filters rows, aggregates one column, groups and orders. It has no row order (the one two after X,
the last on the list), no difference between two rows' figures, no comparison of one row with another named
row, no runs of rows, and no arithmetic across columns (a ratio of two totals, hours at their rates). The free writer has those (`source_row`, subqueries) and their checks
(`sql.second_look`). A stated amount or time ("after 2000", "more than a week before they were
collected") is a bound or a period the plan applies, not row order. (The row right after or before a
named one, and the larger of two named rows, code reads whole first: core.annotations.named_rows.)
"""
from __future__ import annotations

import re

from core.annotations.conditions import MONTHS, NUMBER_WORDS

# What follows "after", "than" in a bound: a number, an amount, a spelled number, a month.
_AMOUNT = rf"(?:\d|[$€£]|(?:a|an|{'|'.join(NUMBER_WORDS)})\b|(?:{'|'.join(MONTHS)})\b)"
_CLAUSE = r"(?:they|it|he|she|we|you|i|its|their|being|the (?:end|start|beginning))\b"  # "before they were collected"
CUES: list[tuple[str, re.Pattern]] = [
    ("row order", re.compile(
        r"\b(?:next|previous|preceding|following|immediately|succeed(?:ed|s)?|preced(?:ed|es|ing)|top of|bottom of)\b"
        rf"|\b(?:after|before|above|below)\s+(?!{_AMOUNT}|{_CLAUSE})", re.I)),
    # (not a word it begins: a "first-response time" is a kind of time, not the first row)
    ("the first or last row", re.compile(r"\b(?:first|last)\b(?!-\w|\s+(?:quarter|half|week|month|year|day|fortnight|\d))", re.I)),
    ("a difference between rows", re.compile(
        r"\bdifference\b|\bhow (?:many|much) (?:more|less|fewer|higher|lower|longer|shorter|bigger|larger|smaller)\b", re.I)),
    ("a comparison with another row", re.compile(
        rf"(?<!other )\bthan\s+(?!{_AMOUNT})|\bsame\b"
        r"|\b(?:more|less|fewer|higher|lower|larger|smaller|longer|shorter|better|worse|earlier|later)\b[^?]*,[^?]*\bor\b",
        re.I)),
    ("a run of rows", re.compile(r"\bconsecutive\b|\bin a row\b|\bstreak\b", re.I)),
    # a plan aggregates one column: a ratio of two totals or a product of columns is a query's
    ("arithmetic across columns", re.compile(
        r"\b(?:divided by|multiplied by|ratio of|at the (?:rates?|prices?)\b)"
        r"|\bwhat (?:percentage|percent|share|proportion|fraction) of\b|\b(?:percentage|share|proportion) of (?:all|the|our|total)\b",
        re.I)),
]


def beyond_plan(question: str) -> str | None:
    """What the question asks that a plan cannot say ("row order"), or None."""
    return next((name for name, words in CUES if words.search(question)), None)
