"""An evaluation run in the background: it goes on without the page, Stop ends it after the
answer in progress, and every answer is saved as it comes."""
from __future__ import annotations

import threading

from core.agents import Response
from core.config import Settings
from core.evaluate import EvalQuestion, list_runs, load_results, run_evaluation
from core.evaluate.background import BackgroundEvaluation, say_seconds, seconds_left

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


def test_the_time_left_is_the_run_s_own_mean_answer_time_for_each_question_not_done():
    assert seconds_left([], 5, 0.0) is None  # nothing measured yet: no guess
    assert seconds_left([10.0, 30.0], 3, 0.0) == 60.0  # mean 20 s, three to go
    assert seconds_left([10.0, 30.0], 3, 15.0) == 45.0  # the one in progress has already taken 15 s
    assert seconds_left([10.0, 30.0], 2, 50.0) == 20.0  # a slow answer in progress: nothing promised for it
    assert seconds_left([10.0, 30.0], 1, 50.0) is None  # ... and then nothing honest to say
    assert seconds_left([10.0], 0, 0.0) is None


def test_the_time_left_is_said_as_precisely_as_an_estimate_can_be():
    assert [say_seconds(s) for s in (3, 42, 100, 3000, 3900, 7200)] == [
        "a few seconds", "about 40 s", "about 2 min", "about 50 min", "about 1 h 5 min", "about 2 h"]


def test_a_running_job_estimates_from_its_own_answers(tmp_path):
    first_done, release = threading.Event(), threading.Event()

    def ask(question: str) -> Response:
        if question.startswith("Question number 1"):
            first_done.set()
            release.wait(5)
        return Response("42", [], "high", [], "")

    job = background(ask, tmp_path)
    assert first_done.wait(5)
    job.run.results[0].seconds = 20.0  # as if the first answer had taken 20 s: four to go, one under way
    assert 75 <= job.seconds_left() <= 80
    release.set()
    job.wait(5)
    assert job.seconds_left() is None  # a finished run has nothing left to estimate
