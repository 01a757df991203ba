"""The package boundaries a newcomer relies on, read from the import statements themselves."""
from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, at any depth (function-level imports included)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def offenders(folder: str, forbidden: tuple[str, ...]) -> dict[str, list[str]]:
    found = {}
    for path in sorted((ROOT / folder).rglob("*.py")):
        bad = sorted(m for m in imported_modules(path) if any(m == f or m.startswith(f + ".") for f in forbidden))
        if bad:
            found[str(path.relative_to(ROOT))] = bad
    return found


def test_core_never_imports_streamlit_or_the_ui():
    assert offenders("core", ("streamlit", "ui", "pages")) == {}


def test_core_never_imports_the_demo_data():
    """The sample documents are for demos and tests; the product must work without them."""
    assert offenders("core", ("samples",)) == {}


def test_the_finder_reads_function_level_imports(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("def f():\n    import streamlit as st\n    from core.store import x\n")
    assert imported_modules(module) == {"streamlit", "core.store"}


def runtime_imports(path: Path) -> set[str]:
    """imported_modules without those under `if TYPE_CHECKING:` (annotations only, never run)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    typing_only = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                   and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
                   for statement in node.body for n in ast.walk(statement)}
    names: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def package_graph() -> dict[str, set[str]]:
    """core's packages (core.ingest, core.annotations, core.config, ...) and the ones each imports."""
    def package(module: str) -> str | None:
        parts = module.split(".")
        return ".".join(parts[:2]) if parts[0] == "core" and len(parts) > 1 else None

    graph: dict[str, set[str]] = {}
    for path in sorted((ROOT / "core").rglob("*.py")):
        source = package(".".join(path.relative_to(ROOT).with_suffix("").parts))
        if source is None:
            continue
        graph.setdefault(source, set()).update(
            p for p in map(package, runtime_imports(path)) if p and p != source)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of packages that import each other, directly or round a longer loop."""
    reach = {start: set() for start in graph}
    for start in graph:
        todo = list(graph[start])
        while todo:
            node = todo.pop()
            if node not in reach[start]:
                reach[start].add(node)
                todo += graph.get(node, ())
    groups = {frozenset(b for b in graph if b in reach[a] and a in reach[b]) | {a} for a in graph if a in reach[a]}
    return sorted(sorted(g) for g in groups)


def test_core_packages_import_each_other_in_one_direction_only():
    """No two packages of core depend on each other: extraction at ingest belongs to ingest,
    querying the facts to annotations (issue 17)."""
    assert cycles(package_graph()) == []


def test_the_cycle_finder_finds_direct_and_longer_loops():
    assert cycles({"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": set()}) == [["a", "b"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_typing_only_imports_are_not_dependencies(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from core.ingest import x\nimport core.store\n")
    assert runtime_imports(module) == {"typing", "core.store"}


# The names of the months spelt out: as words ("january … february") or as an alternation of their abbreviations.
_JANUARY, _FEBRUARY = re.compile(r"\bjanuary\b", re.I), re.compile(r"\bfebruary\b", re.I)
_JAN_FEB = re.compile(r"\bjan(?:\(\?:uary\)\?)?\W{1,12}feb\b", re.I)  # "jan|feb", "jan(?:uary)?|feb"
# Where they may be: the question's conditions (one period parser, issue 26), which every other reader of months
# imports, and the receipt reader, which reads dates printed in eight languages ("janvier", "stycznia").
MONTHS_LIVE_IN = {"core/annotations/conditions.py", "core/annotations/documents.py"}


def spells_out_the_months(source: str) -> bool:
    return bool(_JANUARY.search(source) and _FEBRUARY.search(source) or _JAN_FEB.search(source))


def test_only_the_question_analysis_and_the_receipt_reader_spell_out_the_months():
    spelt = {str(p.relative_to(ROOT)) for p in (ROOT / "core").rglob("*.py")
             if spells_out_the_months(p.read_text(encoding="utf-8"))}
    assert spelt == MONTHS_LIVE_IN


def test_the_month_finder_sees_each_way_of_spelling_them_out():
    for source in ('r"(?:jan(?:uary)?|feb(?:ruary)?)"', '"january february march"', 'r"(Jan|Feb|Mar)[a-z]*"',
                   '1: "january jan janvier",\n    2: "february feb"'):
        assert spells_out_the_months(source)
    assert not spells_out_the_months('"january" alone, or a "Feb" alone')


# The quarters spelt out: their ordinal words in one alternation or table ("third|fourth", '"third": 3, "fourth"').
_THIRD_FOURTH = re.compile(r"\bthird\b[^\n]{0,30}?\bfourth\b", re.I)


def test_only_the_question_analysis_spells_out_the_quarters():
    """The router, the decomposer, the follow-up reader, the plan and the SEC-filing profile read quarters
    with the question analysis' words (`QUARTER_ORDINAL`, `quarter_names`), as they read months."""
    spelt = {str(p.relative_to(ROOT)) for p in (ROOT / "core").rglob("*.py")
             if _THIRD_FOURTH.search(p.read_text(encoding="utf-8"))}
    assert spelt == {"core/annotations/conditions.py"}


def test_the_quarter_finder_sees_each_way_of_spelling_them_out():
    for source in ('r"(first|second|third|fourth)[- ]quarter"', '{"third": 3, "3rd": 3, "fourth": 4}',
                   '3: ("third", "q3", "3rd"), 4: ("fourth", "q4", "4th")'):
        assert _THIRD_FOURTH.search(source), source
    assert not _THIRD_FOURTH.search('"the third row"\n"a fourth line"')


# A period's short name or a financial year's words in a pattern: "q[1-4]", "h[12]", "FY\s?", "fiscal\s+(?:year\s+)?",
# "(?:fiscal|FY)", "(?:fiscal |financial )?years".
_PERIOD_NOTATION = re.compile(r"(?i)q\(?\[1-4\]|\[1-4\]\)?q\b|h\(?\[12\]|\bfy\\s|\bfiscal\\s|\bfiscal \||\bfiscal\|fy\b|\bfy\|f\)")


def test_only_the_question_analysis_writes_a_financial_year_or_a_short_period():
    """The question's kind, the decomposer, the router, the answer's checks, the calculator, the table readers, the
    follow-up reader, a cover's period and the SEC-filing profile read "FY2019", "fiscal year 2019", "FY19", "Q3",
    "2023Q3" and "H1" with the question analysis' fragments and readers (`FISCAL_YEAR`, `quarters_in`, ...)."""
    written = {str(p.relative_to(ROOT)) for p in (ROOT / "core").rglob("*.py")
               if _PERIOD_NOTATION.search(p.read_text(encoding="utf-8"))}
    assert written == {"core/annotations/conditions.py"}


def test_the_period_notation_finder_sees_each_way_of_writing_one():
    for source in (r'r"(?:fy\s?|q[1-4]\s?|fiscal\s+(?:year\s+)?)?"', r'r"\b(?:fiscal|FY)"', r'r"^(?:fy|h[12]|cy)?"',
                   r'r"(?:fiscal |financial )?years"', r'r"\b(?:FY|Fy|fy|F)\s?"', r'r"\bq([1-4])\b|\b([1-4])q\b"'):
        assert _PERIOD_NOTATION.search(source), source
    assert not _PERIOD_NOTATION.search('"fiscal", "fy", "period"\n"for the fiscal year"')


# The digits of a year in a pattern: "(?:19|20)\d\d", "(19|20)\d{2}".
_YEAR_DIGITS_WRITTEN = re.compile(r"\(\?:19\|20\)|\(19\|20\)")


def test_only_the_question_analysis_writes_a_years_digits():
    """Every reader of a year (periods, dates, headers, the answer's checks, ingest's table readers) matches its digits
    with the question analysis' `YEAR_DIGITS`, so one change of what a year is reaches all of them."""
    written = {str(p.relative_to(ROOT)) for p in (ROOT / "core").rglob("*.py")
               if _YEAR_DIGITS_WRITTEN.search(p.read_text(encoding="utf-8"))}
    assert written == {"core/annotations/conditions.py"}


# A confidence level changed in place: `confidence = "low"`, `confidence = lower(confidence)`, `confidence = MEDIUM`.
_LEVEL_CHANGED = re.compile(r"\bconfidence\s*=\s*(?:[\"'](?:high|medium|low)[\"']|HIGH|MEDIUM|LOW|lower\()")


def test_only_the_confidence_policy_changes_a_level():
    """Checks return findings; `confidence.settle` alone turns them into a level (issue 26, item 5), so the
    pipeline and agent mode cannot drift apart again."""
    changed = {str(p.relative_to(ROOT)) for p in (ROOT / "core").rglob("*.py")
               if _LEVEL_CHANGED.search(p.read_text(encoding="utf-8"))}
    assert changed == set()


def test_the_level_finder_sees_each_way_of_changing_one():
    for source in ('confidence = "low"', "        confidence = lower(confidence)", "confidence = MEDIUM"):
        assert _LEVEL_CHANGED.search(source)
    assert not _LEVEL_CHANGED.search('confidence, flags = settle(level, findings)\nrow.confidence == "low"')
