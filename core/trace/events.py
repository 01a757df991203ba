"""What happened in a turn, step by step, with timings, inputs and outputs.

Kinds: plan, retrieval, prompt, llm_call, validation, reflection, final, error, and agent mode's
tool_call and reprompt. A listener sees each event as it completes,
which is how the chat page shows the agents' steps live; a listener with a `started(event)` method
is also told when each step begins, so the page can name the step that is running now.
"""
from __future__ import annotations

import time
import uuid
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, Iterator

KINDS = (
    "plan", "retrieval", "prompt", "llm_call", "validation", "reflection", "final", "error",
    "tool_call", "reprompt",
)


@dataclass
class TraceEvent:
    kind: str
    agent: str
    summary: str = ""
    started_ms: float = 0.0  # since the start of the turn
    duration_ms: float = 0.0
    inputs: dict[str, Any] = field(default_factory=dict)
    outputs: dict[str, Any] = field(default_factory=dict)
    status: str = "ok"  # ok | failed

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Trace:
    turn_id: str
    question: str
    started_at: str
    events: list[TraceEvent] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "turn_id": self.turn_id, "question": self.question, "started_at": self.started_at,
            "events": [e.to_dict() for e in self.events],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Trace":
        return cls(data["turn_id"], data["question"], data["started_at"],
                   [TraceEvent(**e) for e in data["events"]])

    def of_kind(self, kind: str) -> list[TraceEvent]:
        return [e for e in self.events if e.kind == kind]

    def agent_durations(self) -> dict[str, float]:
        totals: dict[str, float] = {}
        for event in self.events:
            totals[event.agent] = round(totals.get(event.agent, 0.0) + event.duration_ms, 2)
        return totals


Listener = Callable[[TraceEvent], None]


class TraceRecorder:
    def __init__(self, question: str, listener: Listener | None = None) -> None:
        self.trace = Trace(
            turn_id=uuid.uuid4().hex[:16],
            question=question,
            started_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        )
        self._origin = time.perf_counter()
        self._listener = listener

    @contextmanager
    def step(self, kind: str, agent: str, summary: str = "", **inputs: Any) -> Iterator[TraceEvent]:
        """Time a step; the body fills `event.outputs` / `event.summary`. A failing body is
        recorded as failed and the exception goes on."""
        if kind not in KINDS:
            raise ValueError(f"unknown trace kind {kind!r}")
        started = time.perf_counter()
        event = TraceEvent(kind, agent, summary, round((started - self._origin) * 1000, 2), inputs=inputs)
        on_start = getattr(self._listener, "started", None)
        if on_start:
            on_start(event)
        try:
            yield event
        except Exception as exc:
            event.status = "failed"
            event.outputs.setdefault("error", f"{type(exc).__name__}: {exc}")
            raise
        finally:
            event.duration_ms = round((time.perf_counter() - started) * 1000, 2)
            self.trace.events.append(event)
            if self._listener:
                self._listener(event)

    def record(self, kind: str, agent: str, summary: str = "", **outputs: Any) -> TraceEvent:
        with self.step(kind, agent, summary) as event:
            event.outputs.update(outputs)
        return event
