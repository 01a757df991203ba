"""Running a question set: every question asked the way Chat asks it, scored, timed, and kept going
when one fails."""
from __future__ import annotations

import pytest

from core.agents import Citation, Response
from core.config import Settings
from core.evaluate import EvalQuestion, run_evaluation
from core.evaluate.runner import score_response
from core.llm.scripted import NO_INFORMATION, ScriptedLLM, extractive_answer
from core.workspace import Workspace

SETTINGS = Settings()
WARRANTY = EvalQuestion("w", "How long is the output warranty?", "25 years", "handbook.pdf", (4,))
CEO = EvalQuestion("ceo", "Who is the chief executive?", "not in documents")


def citation(number: int, filename: str, page: str | None, cited: bool) -> Citation:
    return Citation(number, "d1", filename, page, None, f"c{number}", 0.8, cited=cited)


def response(answer: str, citations: list[Citation], confidence: str = "high") -> Response:
    return Response(answer, citations, confidence, [], "", route="hybrid", trace_id="t1")


def test_a_response_is_scored_on_answer_retrieval_and_citation_with_where_its_sources_are():
    given = response("The output warranty runs 25 years [Source 2].",
                     [citation(1, "specs.pdf", "1", False), citation(2, "handbook.pdf", "4", True)])
    result = score_response(WARRANTY, given, 1.234, SETTINGS)
    assert (result.correct, result.retrieval_hit, result.citation_correct) == (True, True, True)
    assert result.sources == "specs.pdf p. 1; handbook.pdf p. 4" and result.cited == "handbook.pdf p. 4"
    assert (result.confidence, result.route, result.mode, result.trace_id, result.seconds) == (
        "high", "hybrid", "pipeline", "t1", 1.234)


def test_a_question_that_fails_is_recorded_as_an_error_and_the_run_goes_on():
    def ask(question: str) -> Response:
        if "warranty" in question:
            raise RuntimeError("model crashed")
        return response(NO_INFORMATION, [], confidence="low")

    progress = []
    run = run_evaluation([WARRANTY, CEO], ask, SETTINGS, "q.csv",
                         on_progress=lambda run, total: progress.append((len(run.results), total)))
    assert progress == [(1, 2), (2, 2)]
    failed, refused = run.results
    assert failed.error == "RuntimeError: model crashed" and not failed.correct
    assert refused.correct and refused.expects_refusal
    totals = run.totals
    assert (totals.questions, totals.errors, totals.correct, totals.refusals_correct) == (2, 1, 0.5, 1.0)
    assert [(c.confidence, c.questions) for c in run.calibration] == [("high", 0), ("medium", 0), ("low", 1)]
    assert run.summary()["planned"] == 2 and run.summary()["source_name"] == "q.csv"


def test_totals_leave_out_checks_that_do_not_apply():
    answers = iter([
        response("25 years [Source 1]", [citation(1, "handbook.pdf", "4", True)]),
        response("I am not sure", [citation(1, "specs.pdf", "2", False)], confidence="low"),
    ])
    no_file = EvalQuestion("n", "What torque for the clamps?", "8 to 12 N m")
    run = run_evaluation([WARRANTY, no_file], lambda q: next(answers), SETTINGS)
    totals = run.totals
    assert totals.correct == 0.5
    assert totals.retrieval_hit == 1.0 and totals.citation_correct == 1.0  # only the question with a file counts
    assert totals.refusals_correct is None and totals.refusal_questions == 0


@pytest.fixture
def handbook_workspace(tmp_path, embedder, write_text):
    def script(messages) -> str:  # refuses what the source does not say, else answers from source 1
        return NO_INFORMATION if "chief executive" in messages[-1]["content"] else extractive_answer(messages)

    workspace = Workspace(Settings(data_dir=tmp_path / "kb"), embedder, ScriptedLLM(script))
    workspace.ingestor.ingest_paths([write_text(
        "handbook.txt", "Helios panels carry a 25-year output warranty and a 12-year product warranty.\n")])
    yield workspace
    workspace.close()


def test_the_run_uses_the_same_pipeline_as_chat_and_keeps_each_trace(handbook_workspace):
    questions = [EvalQuestion("w", "How long is the output warranty?", "25-year", "handbook.txt"), CEO]
    run = run_evaluation(questions, handbook_workspace.ask, handbook_workspace.settings)
    warranty, ceo = run.results
    assert warranty.correct and warranty.retrieval_hit and warranty.citation_correct
    assert ceo.correct and ceo.refused
    assert handbook_workspace.kb.catalog.turn(warranty.trace_id)["question"] == "How long is the output warranty?"
