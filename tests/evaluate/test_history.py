"""Stored runs under the data dir: listed newest first, read back for comparison, never half-listed."""
from __future__ import annotations

import pytest

from core.evaluate import ResultsFileError, list_runs, load_results, save_run
from core.evaluate.runner import EvalResult, EvalRun


def run(run_id: str, started: str, correct: bool) -> EvalRun:
    result = EvalResult("q1", "How long is the warranty?", "25 years", "", "", "25 years", correct, False, False,
                        None, None, "high", "hybrid", "pipeline", "", "", 0.5)
    return EvalRun(run_id, started, "q.csv", [result], planned=1)


def test_saved_runs_are_listed_newest_first_and_their_results_read_back(tmp_path):
    save_run(run("eval-a", "2024-01-01T10:00:00", False), tmp_path)
    save_run(run("eval-b", "2024-02-01T10:00:00", True), tmp_path)
    runs = list_runs(tmp_path)
    assert [r["run_id"] for r in runs] == ["eval-b", "eval-a"]
    assert runs[0]["totals"]["correct"] == 1.0 and runs[0]["planned"] == 1
    assert load_results(tmp_path, "eval-a")[0].correct is False


def test_saving_again_replaces_the_partial_run(tmp_path):
    partial = run("eval-a", "2024-01-01T10:00:00", False)
    save_run(partial, tmp_path)
    partial.results.append(partial.results[0])
    save_run(partial, tmp_path)
    assert len(load_results(tmp_path, "eval-a")) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["eval-a.csv", "eval-a.json"]


def test_a_missing_folder_or_an_unreadable_summary_lists_nothing_and_breaks_nothing(tmp_path):
    assert list_runs(tmp_path / "none") == []
    (tmp_path / "broken.json").write_text("{not json")
    (tmp_path / "orphan.json").write_text('{"run_id": "orphan"}')  # its results were never written
    assert list_runs(tmp_path) == []


@pytest.mark.parametrize("run_id", ["../secrets", "missing"])
def test_only_stored_runs_can_be_loaded(tmp_path, run_id):
    with pytest.raises(ResultsFileError):
        load_results(tmp_path, run_id)
