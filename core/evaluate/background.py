"""An evaluation run in a background thread: leaving the Evaluate page does not stop it, its
progress can be read from any page visit, and Stop ends it after the question being answered.
The run itself (Workspace.evaluate) saves after every answer, so a stopped run keeps what it measured."""
from __future__ import annotations

import logging
import threading
from typing import Callable

from core.evaluate.runner import EvalRun, ProgressCallback

log = logging.getLogger(__name__)

# Runs the questions, calling on_progress after each answer and asking should_stop before each one.
Evaluate = Callable[[ProgressCallback, Callable[[], bool]], EvalRun]


class BackgroundEvaluation:
    def __init__(self, evaluate: Evaluate, total: int) -> None:
        self.total = total
        self.run: EvalRun | None = None  # the run so far: set after the first answer
        self.error: str | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._work, args=(evaluate,), name="docuchat-evaluation", daemon=True)

    def start(self) -> "BackgroundEvaluation":
        self._thread.start()
        return self

    def _work(self, evaluate: Evaluate) -> None:
        def progress(run: EvalRun, total: int) -> None:
            self.run = run

        try:
            self.run = evaluate(progress, self._stop.is_set)
        except Exception as exc:  # shown on the page; the answers so far are already saved
            log.exception("Evaluation run failed")
            self.error = f"{type(exc).__name__}: {exc}"

    def stop(self) -> None:
        self._stop.set()

    def wait(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)

    @property
    def stopping(self) -> bool:
        return self._stop.is_set() and self.running

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    @property
    def answered(self) -> int:
        return len(self.run.results) if self.run else 0
