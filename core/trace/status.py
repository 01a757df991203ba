"""The live status line of a question being answered, driven by the trace events the pipeline
and agent mode emit: it names the step that is running now ("Searching your documents",
"Reading 3 passages", "Writing the answer", "Checking the answer"), the seconds spent so far and,
once the prompt's size is known, an estimate of how long the model takes to read it.

It is a trace listener (TraceRecorder calls `started` when a step begins and the instance when it
ends) and a token callback; the page that shows it reads `text()` as often as it likes, from
another thread than the one answering.
"""
from __future__ import annotations

import threading
import time
from typing import Callable

from core.trace.events import TraceEvent

Clock = Callable[[], float]


def step_label(event: TraceEvent) -> str:
    """What the user is told while `event`'s step runs. Only agent mode's own steps (tool calls,
    its action and synthesis calls) say "Agent", so a pipeline answer never claims agent mode."""
    inputs = event.inputs
    if event.kind == "plan":
        return "Reading the question"
    if event.kind == "retrieval":
        return "Searching the stored records" if inputs.get("route") == "structured" else "Searching your documents"
    if event.kind == "tool_call":
        return f"Agent: running {inputs.get('tool', 'a tool')}"
    if event.kind == "llm_call":
        if "iteration" in inputs:
            return f"Agent: choosing step {inputs['iteration']}"
        if inputs.get("synthesis"):
            return "Agent: reading the opened sources"
        if inputs.get("search_words"):
            return "Choosing the words to search for"
        passages = inputs.get("passages")
        if passages:
            return f"Reading {passages} passage{'s' * (passages != 1)}"
        return "Asking the model"
    if event.kind == "prompt":
        return "Writing the answer from the matched records"
    if event.kind == "validation":
        return "Checking the answer against the sources"
    if event.kind == "reflection":
        return "Looking for better sources"
    if event.kind == "final":
        return "Putting the answer together"
    return event.summary or event.kind.replace("_", " ")


class LiveStatus:
    def __init__(self, prompt_tokens_per_second: Callable[[], float], clock: Clock = time.monotonic) -> None:
        """`prompt_tokens_per_second` is asked when a prompt starts: the provider's own measured
        speed when it has one, else the setting."""
        self._speed = prompt_tokens_per_second
        self._clock = clock
        self._lock = threading.Lock()
        self.started_at = clock()
        self.label = "Reading the question"
        self.estimate_s: float | None = None  # how long reading the current prompt should take
        self._step_started = self.started_at
        self.completed: list[TraceEvent] = []  # finished steps, in order, for the step list
        self.tokens: list[str] = []
        self.writing = False

    # --- trace listener -------------------------------------------------------------------------

    def started(self, event: TraceEvent) -> None:
        with self._lock:
            self.label = step_label(event)
            self._step_started = self._clock()
            self.estimate_s = None
            estimate = event.inputs.get("prompt_tokens_estimate")
            speed = self._speed() if estimate else 0
            if estimate and speed > 0:
                self.estimate_s = estimate / speed
            self.writing = False

    def __call__(self, event: TraceEvent) -> None:
        with self._lock:
            self.completed.append(event)
            if event.kind == "reflection":
                self.tokens.clear()  # a refined draft may replace the first one

    # --- token callback -------------------------------------------------------------------------

    def on_token(self, token: str) -> None:
        with self._lock:
            if not self.writing:
                self.writing = True
                self.label = "Writing the answer"
                self.estimate_s = None
            self.tokens.append(token)

    # --- what the page shows --------------------------------------------------------------------

    def streamed(self) -> str:
        with self._lock:
            return "".join(self.tokens)

    def elapsed(self) -> float:
        return self._clock() - self.started_at

    def text(self) -> str:
        """ "Reading 3 passages, about 9 s left · 12 s": the running step, what its estimate leaves
        of it, and the seconds since the question was asked."""
        with self._lock:
            now = self._clock()
            elapsed = now - self.started_at
            label = self.label
            if self.estimate_s is not None:
                left = self.estimate_s - (now - self._step_started)
                label += f", about {left:.0f} s left" if left >= 1 else ", nearly done"
            return f"{label} · {elapsed:.0f} s"
