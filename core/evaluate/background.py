"""An evaluation run in a background thread: leaving the Evaluate page does not stop it, its
progress can be read from any page visit, and Stop ends it after the question being answered.
The run is saved after every answer, so a stopped run keeps what it measured."""
from __future__ import annotations

import logging
import threading
from pathlib import Path

from core.config import Settings
from core.evaluate.history import save_run
from core.evaluate.questions import EvalQuestion
from core.evaluate.runner import Ask, EvalRun, run_evaluation

log = logging.getLogger(__name__)


class BackgroundEvaluation:
    def __init__(self, questions: list[EvalQuestion], ask: Ask, settings: Settings, source_name: str,
                 folder: Path) -> None:
        self.total = len(questions)
        self.run: EvalRun | None = None  # the run so far: set after the first answer
        self.error: str | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._work, args=(questions, ask, settings, source_name, folder),
                                        name="docuchat-evaluation", daemon=True)

    def start(self) -> "BackgroundEvaluation":
        self._thread.start()
        return self

    def _work(self, questions, ask, settings, source_name, folder) -> None:
        def progress(run: EvalRun, total: int) -> None:
            self.run = run
            save_run(run, folder)

        try:
            self.run = run_evaluation(questions, ask, settings, source_name, on_progress=progress,
                                      should_stop=self._stop.is_set)
            save_run(self.run, folder)
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
