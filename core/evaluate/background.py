"""An evaluation run in a background thread: leaving the Evaluate page does not stop it, its
progress can be read from any page visit, and Stop ends it after the question being answered.
The run itself (Workspace.evaluate) saves after every answer, so a stopped run keeps what it measured."""
from __future__ import annotations

import logging
import threading
import time
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
        self._current_since = time.monotonic()  # when the question being answered now was started
        self._thread = threading.Thread(target=self._work, args=(evaluate,), name="docuchat-evaluation", daemon=True)

    def start(self) -> "BackgroundEvaluation":
        self._thread.start()
        return self

    def _work(self, evaluate: Evaluate) -> None:
        def progress(run: EvalRun, total: int) -> None:
            self.run = run
            self._current_since = time.monotonic()

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

    def seconds_left(self) -> float | None:
        """The wait still ahead, from this run's own answer times; None before the first answer (a guess
        from nothing would not be honest)."""
        if not self.running or self.run is None or not self.run.results:
            return None
        return seconds_left([r.seconds for r in self.run.results], self.total - self.answered,
                            time.monotonic() - self._current_since)


def seconds_left(done: list[float], remaining: int, current_elapsed: float) -> float | None:
    """The mean answer time of the questions done, for each question not done, less what the one in
    progress has already taken. The mean, not the median: a sum of waits is what is estimated, and a run's
    slow answers are part of it. None when there is nothing honest to say: nothing measured yet, or only
    the answer in progress left and it has already taken longer than the mean (a "nearly done" that
    stays on screen for a minute is what users disliked)."""
    if not done or remaining <= 0:
        return None
    mean = sum(done) / len(done)
    left = max(mean - current_elapsed, 0.0) + mean * (remaining - 1)
    return left if left >= 1 else None


def say_seconds(seconds: float) -> str:
    """"about 40 s", "about 3 min", "about 1 h 5 min": as precise as an estimate can be."""
    if seconds < 10:
        return "a few seconds"
    if seconds < 60:
        return f"about {round(seconds / 5) * 5:.0f} s"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"about {minutes} min"
    return f"about {minutes // 60} h {minutes % 60} min" if minutes % 60 else f"about {minutes // 60} h"
