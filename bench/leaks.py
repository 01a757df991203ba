"""What must never reach a user's screen in an answer (issue 22, item 4; issue 24, item 2): SQL, an
internal table or column name, error text, Python values, raw flag names or a file-system path.

`leaks(answer)` lists what it finds. tests/bench/test_leaks.py runs it over every answer the records,
WikiTableQuestions, TAT-QA and FinanceBench benchmarks kept (bench/answers/*.jsonl, written by their
`--keep-answers`).
"""
from __future__ import annotations

import re

_FILE = re.compile(r"\b[\w.-]+\.(?:csv|xlsx|xls|pdf|txt|md|png|jpe?g|tiff?)\b", re.I)
CHECKS: list[tuple[str, re.Pattern]] = [
    ("SQL", re.compile(r"\bSELECT\b.+\bFROM\b|\bWHERE\b|\bGROUP BY\b|\bORDER BY\b|\b(?:COUNT|SUM|AVG)\s*\(|\bIS NOT NULL\b")),
    ("an internal name", re.compile(r"\b[a-z][a-z0-9]*_[a-z0-9_]+\b|\bc_\d+\b|\bsource_row\b|\bfact_id\b"
                                    r"|\b[A-Z]\d\.[A-Za-z_]\w*")),  # a query's table alias: "T1.Rate"
    ("a made-up header", re.compile(r"\bcolumn \d+\b")),  # a blank header cell's stand-in name
    ("error text", re.compile(r"\b\w*Error\b|Traceback|Exception\b|no such column|syntax error", re.I)),
    ("a Python value", re.compile(r"\b(?:None|True|False|nan|NaN)\b")),
    ("an operator as prose", re.compile(r"\s(?:=|==|!=|<>)\s|\blike\s+'|\bLIKE\b")),
    ("a sortable copy's label", re.compile(r"\bas an ISO date\b|\(as printed\)|\bthe number .{1,60}? starts with\b")),
    ("facts jargon", re.compile(r"\bmatching facts\b|\bstructured facts\b", re.I)),
    ("the prompt's words", re.compile(r"\b(?:in|from|within|to)\s+the\s+(?:provided\s+|given\s+)?context\b", re.I)),
    ("a path", re.compile(r"(?:^|\s)(?:/[\w.-]+){2,}|[A-Z]:\\\\")),
]


def leaks(answer: str) -> list[str]:
    """What the answer shows that it must not, by kind ([] when it is clean). A file's own name
    ("orders_2023_2024.csv") is the user's and may be shown."""
    return list(leaked(answer))


def leaked(text: str) -> dict[str, list[str]]:
    """Each kind of leak in `text`, with the words that show it."""
    text = _FILE.sub(" ", text or "")
    return {kind: [m.group(0) for m in pattern.finditer(text)] for kind, pattern in CHECKS if pattern.search(text)}
