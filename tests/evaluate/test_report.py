"""Results CSV (download, and read back to compare), the comparison of two runs, and the text report."""
from __future__ import annotations

import csv
import io

import pytest

from core.evaluate.report import (COLUMNS, ResultsFileError, compare_runs, read_results_csv, results_csv,
                                  text_report)
from core.evaluate.runner import EvalResult, EvalRun


def result(question: str, correct: bool, retrieval: bool | None = None, citation: bool | None = None,
           answer: str = "an answer") -> EvalResult:
    return EvalResult(
        id=question[:3], question=question, expected="25 years", expected_file="h.pdf" if retrieval is not None else "",
        expected_pages="4", answer=answer, correct=correct, expects_refusal=False, refused=False,
        retrieval_hit=retrieval, citation_correct=citation, confidence="high", route="hybrid", mode="pipeline",
        sources="h.pdf p. 4", cited="h.pdf p. 4", seconds=1.5, trace_id="t", error="",
    )


def test_results_csv_has_one_row_per_question_and_reads_back_unchanged():
    results = [result("How long is the warranty?", True, True, False, answer='says "25", then, more'),
               result("Who is the CEO?", False)]
    data = results_csv(results)
    rows = list(csv.DictReader(io.StringIO(data.decode())))
    assert list(rows[0]) == COLUMNS
    assert (rows[0]["correct"], rows[0]["retrieval_hit"], rows[0]["citation_correct"]) == ("yes", "yes", "no")
    assert rows[1]["retrieval_hit"] == ""  # no expected file: the check does not apply
    assert read_results_csv(data) == results  # None (not applicable) survives as an empty cell


def test_a_csv_that_is_not_a_results_file_is_refused_with_a_reason():
    with pytest.raises(ResultsFileError, match="not a results file"):
        read_results_csv(b"name,value\na,1\n")
    with pytest.raises(ResultsFileError, match="UTF-8"):
        read_results_csv(b"\xff\xfe\x00q")


def test_questions_are_better_when_the_answer_turns_right_and_worse_when_it_turns_wrong():
    before = [result("Q1 warranty?", False, True, False), result("Q2 torque?", True, True, True),
              result("Q3 weight?", True, False, False), result("Q4 gone?", True)]
    after = [result("q1  WARRANTY?", True, True, True), result("Q2 torque?", False, True, True),
             result("Q3 weight?", True, True, False), result("Q5 new?", True)]
    comparison = compare_runs(before, after)
    assert [c.question for c in comparison.better] == ["q1  WARRANTY?", "Q3 weight?"]  # matched on normalized text
    assert comparison.better[0].what == "answer: wrong → right; citation: wrong → right"
    assert comparison.better[1].what == "retrieval: miss → hit"
    assert [(c.question, c.what) for c in comparison.worse] == [("Q2 torque?", "answer: right → wrong")]
    assert comparison.unchanged == 0
    assert (comparison.only_before, comparison.only_now) == (["Q4 gone?"], ["Q5 new?"])


def test_the_text_report_lists_each_question_the_totals_calibration_and_changes():
    run = EvalRun("r1", "2024-01-01T00:00:00", "q.csv", [result("How long is the warranty?", True, True, True)])
    report = text_report(run, compare_runs([result("How long is the warranty?", False)], run.results))
    assert "How long is the warranty?" in report
    assert "1 questions: answers right 100%, retrieval hit 100%, citations right 100%" in report
    assert "accuracy by confidence: high 100% (1/1)" in report
    assert "1 better, 0 worse" in report
