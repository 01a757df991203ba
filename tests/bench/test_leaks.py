"""No answer shows SQL, internal names, error text, Python values or paths: the check itself, and every
answer the records, WikiTableQuestions, TAT-QA and FinanceBench benchmarks kept (bench/answers/)."""
import json
from pathlib import Path

import pytest

from bench.leaks import leaks

ANSWERS = sorted((Path(__file__).resolve().parents[2] / "bench" / "answers").glob("*.jsonl"))


@pytest.mark.parametrize("answer, kind", [
    ("The total for customer = ACME is 168,465.50", "an operator as prose"),
    ("OperationalError: no such column: manufacturer", "error text"),
    ("2 results for CASE WHEN source_row > 3", "an internal name"),
    ("SELECT SUM(total) FROM orders WHERE customer = 'ACME'", "SQL"),
    ("Showing 1 of 49 matching facts", "facts jargon"),
    ("Six wardens are listed in the provided context.", "the prompt's words"),
    ("The value is None", "a Python value"),
    ("Saved in /work/kb/records/kb", "a path"),
    ("13 inspection with date_raised like 2024", "an internal name"),
    ("The total of T1.Rate times T1.Hrs for T1.Employee Lars", "an internal name"),
    ("1 rows match External valuation % under 50 %, column 1 Leasehold", "a made-up header"),
    ("The Eps # for Air Date as an ISO date (YYYY-MM-DD) under 1967-09-23 is 1", "a sortable copy's label"),
])
def test_each_kind_of_internal_text_is_caught(answer, kind):
    assert kind in leaks(answer)


def test_a_plain_answer_with_its_files_name_is_clean():
    assert leaks("ACME's orders in 2024 total 112,326.40 across 31 orders (orders_2023_2024.csv).") == []
    assert leaks("4 pumps are rated above 150 hp (112 kW): P-104, P-105, P-203, P-204.") == []


# What the check cannot tell from a leak: text the document itself prints (checked against the file)
AS_PRINTED = {("wtq_test.jsonl", "nu-714"): "a WikiTableQuestions cell reads '3×2w = 48×4k' (204-csv/326.csv)"}
# A kept answer written before the fix of what it shows: the next run of that benchmark replaces it
KEPT_BEFORE_FIX: dict[tuple[str, str], str] = {}  # (file, id) -> what it shows and the fix


@pytest.mark.parametrize("path", ANSWERS, ids=[p.name for p in ANSWERS])
def test_no_benchmark_answer_shows_internal_text(path):
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if (kinds := leaks(record["answer"])) and (path.name, record["id"]) not in AS_PRINTED | KEPT_BEFORE_FIX:
            found[record["id"]] = (kinds, record["answer"][:160])
    assert found == {}
