"""Run a question set through the answering pipeline and score every answer.

The runner only needs a function from a question to a Response (Workspace.ask in the app and the
CLI), so it runs the same code a user's question runs, trace and all.
"""
from __future__ import annotations

import datetime as dt
import logging
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from core.agents import Response
from core.citations import location
from core.config import Settings
from core.evaluate.questions import EvalQuestion
from core.evaluate.scoring import CalibrationRow, SourceRef, calibration, judge, rate

log = logging.getLogger(__name__)

Ask = Callable[[str], Response]
# Called after each question with the run so far and the number of questions: a caller can show
# len(run.results) / total and keep the partial run (a page left mid-run loses nothing).
ProgressCallback = Callable[["EvalRun", int], None]


@dataclass
class EvalResult:
    id: str
    question: str
    expected: str
    expected_file: str
    expected_pages: str
    answer: str
    correct: bool
    expects_refusal: bool
    refused: bool
    retrieval_hit: bool | None
    citation_correct: bool | None
    confidence: str
    route: str
    mode: str  # pipeline | agent: which engine answered
    sources: str  # "file p. 4; file p. 2": what the model was given, in rank order
    cited: str  # the sources the answer cites
    seconds: float
    trace_id: str = ""
    error: str = ""


@dataclass
class Totals:
    questions: int
    correct: float | None  # shares 0..1 of the questions each applies to
    retrieval_hit: float | None
    citation_correct: float | None
    refusals_correct: float | None
    refusal_questions: int
    errors: int
    seconds_total: float
    seconds_median: float | None


@dataclass
class EvalRun:
    run_id: str
    started_at: str
    source_name: str  # the question file's name
    results: list[EvalResult] = field(default_factory=list)
    planned: int = 0  # questions in the file; more than len(results) while running or if cut short

    @property
    def totals(self) -> Totals:
        return totals(self.results)

    @property
    def calibration(self) -> list[CalibrationRow]:
        return calibration([(r.confidence, r.correct) for r in self.results if not r.error])

    def summary(self) -> dict:
        return {"run_id": self.run_id, "started_at": self.started_at, "source_name": self.source_name,
                "planned": self.planned, "totals": asdict(self.totals),
                "calibration": [{**asdict(c), "accuracy": c.accuracy} for c in self.calibration]}


def new_run(source_name: str) -> EvalRun:
    now = dt.datetime.now().astimezone()
    return EvalRun(f"eval-{now:%Y%m%d-%H%M%S}-{uuid.uuid4().hex[:4]}", now.isoformat(timespec="milliseconds"), source_name)


def run_evaluation(
    questions: list[EvalQuestion], ask: Ask, settings: Settings, source_name: str = "",
    on_progress: ProgressCallback | None = None, should_stop: Callable[[], bool] | None = None,
    folder: Path | None = None,
) -> EvalRun:
    """Ask every question in order; a question that fails is recorded as an error and the run goes on.
    `should_stop` is asked before each question: a user's Stop ends the run after the current answer.
    With a `folder`, the run is saved there after every answer, so a run that is stopped or cut short
    keeps what it measured (the Evaluate page and `core eval` both run through here)."""
    from core.evaluate.history import save_run

    run = new_run(source_name)
    run.planned = len(questions)
    for question in questions:
        if should_stop is not None and should_stop():
            break
        started = time.perf_counter()
        try:
            response = ask(question.question)
        except Exception as exc:  # one broken question must not cost the rest of the run
            log.exception("Evaluation question %s failed", question.id)
            result = failed_result(question, f"{type(exc).__name__}: {exc}", time.perf_counter() - started)
        else:
            result = score_response(question, response, time.perf_counter() - started, settings)
        run.results.append(result)
        if folder is not None:
            save_run(run, folder)
        if on_progress:
            on_progress(run, len(questions))
    if folder is not None:
        save_run(run, folder)  # also a run of no questions, or stopped before the first
    return run


def score_response(question: EvalQuestion, response: Response, seconds: float, settings: Settings) -> EvalResult:
    retrieved = [SourceRef(c.filename, c.page) for c in response.citations]
    cited = [SourceRef(c.filename, c.page) for c in response.citations if c.cited]
    verdict = judge(
        question.expected, question.expected_file, question.expected_pages, response.answer, retrieved, cited,
        question.tolerance if question.tolerance is not None else settings.eval_number_tolerance,
        settings.eval_min_word_recall,
    )
    return EvalResult(
        id=question.id, question=question.question, expected=question.expected,
        expected_file=question.expected_file or "", expected_pages=_pages(question.expected_pages),
        answer=response.answer, correct=verdict.correct, expects_refusal=verdict.expects_refusal,
        refused=verdict.refused, retrieval_hit=verdict.retrieval_hit, citation_correct=verdict.citation_correct,
        confidence=response.confidence, route=response.route, mode=response.mode,
        sources=_where(response.citations), cited=_where([c for c in response.citations if c.cited]),
        seconds=round(seconds, 3), trace_id=response.trace_id,
    )


def failed_result(question: EvalQuestion, error: str, seconds: float) -> EvalResult:
    return EvalResult(
        id=question.id, question=question.question, expected=question.expected,
        expected_file=question.expected_file or "", expected_pages=_pages(question.expected_pages), answer="",
        correct=False, expects_refusal=False, refused=False, retrieval_hit=None, citation_correct=None,
        confidence="", route="", mode="", sources="", cited="", seconds=round(seconds, 3), error=error,
    )


def totals(results: list[EvalResult]) -> Totals:
    seconds = sorted(r.seconds for r in results)
    refusals = [r for r in results if r.expects_refusal]
    return Totals(
        questions=len(results),
        correct=rate([r.correct for r in results]),
        retrieval_hit=rate([r.retrieval_hit for r in results]),
        citation_correct=rate([r.citation_correct for r in results]),
        refusals_correct=rate([r.correct for r in refusals]),
        refusal_questions=len(refusals),
        errors=sum(1 for r in results if r.error),
        seconds_total=round(sum(seconds), 3),
        seconds_median=_median(seconds),
    )


def _median(values: list[float]) -> float | None:
    if not values:
        return None
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2


def _pages(pages: tuple[int, ...]) -> str:
    return ", ".join(str(p) for p in pages)


def _where(citations) -> str:
    parts = []
    for c in citations:
        where = location(c.page, c.sheet, c.rows)
        parts.append(f"{c.filename} {where}".rstrip())
    return "; ".join(dict.fromkeys(parts))
