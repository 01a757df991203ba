"""An evaluation run in the background: it goes on without the page, Stop ends it after the
answer in progress, and every answer is saved as it comes."""
from __future__ import annotations

import threading

from core.agents import Response
from core.config import Settings
from core.evaluate import EvalQuestion, list_runs, load_results, run_evaluation
from core.evaluate.background import BackgroundEvaluation

QUESTIONS = [EvalQuestion(f"q{i}", f"Question number {i}?", "42") for i in range(5)]


def background(ask, tmp_path) -> BackgroundEvaluation:
    """As Workspace.evaluate_in_background runs it: the one runner, saving into the folder."""
    return BackgroundEvaluation(
        lambda on_progress, should_stop: run_evaluation(QUESTIONS, ask, Settings(data_dir=tmp_path), "q.csv",
                                                        on_progress, should_stop, folder=tmp_path / "evals"),
        len(QUESTIONS)).start()


def test_stop_ends_the_run_after_the_current_answer_and_keeps_what_was_measured(tmp_path):
    second_started, release = threading.Event(), threading.Event()

    def ask(question: str) -> Response:
        if question.startswith("Question number 1"):
            second_started.set()
            release.wait(5)
        return Response("42", [], "high", [], "")

    job = background(ask, tmp_path)
    assert second_started.wait(5) and job.running and job.answered == 1
    job.stop()
    assert job.stopping
    release.set()
    job.wait(5)

    assert not job.running and job.answered == 2 and job.error is None  # the answer in progress was finished
    [stored] = list_runs(tmp_path / "evals")
    assert stored["planned"] == 5 and len(load_results(tmp_path / "evals", stored["run_id"])) == 2


def test_a_run_left_alone_answers_every_question(tmp_path):
    job = background(lambda q: Response("42", [], "high", [], ""), tmp_path)
    job.wait(10)
    assert job.answered == 5 and job.run.planned == 5
    [stored] = list_runs(tmp_path / "evals")
    assert len(load_results(tmp_path / "evals", stored["run_id"])) == 5
