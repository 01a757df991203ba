"""Trace events: timed, typed, streamed to a listener, and round-tripped through JSON."""
import pytest

from core.trace import Trace, TraceRecorder


def test_steps_are_timed_and_reported_as_they_finish():
    seen = []
    recorder = TraceRecorder("q?", listener=seen.append)
    with recorder.step("plan", "Planner", question="q?") as event:
        event.outputs["intent"] = "conceptual"
    recorder.record("final", "Responder", "done", answer="a")

    assert [e.kind for e in seen] == ["plan", "final"]
    assert seen[0].inputs == {"question": "q?"} and seen[0].outputs == {"intent": "conceptual"}
    assert seen[0].duration_ms >= 0 and seen[1].started_ms >= seen[0].started_ms


def test_a_failing_step_is_recorded_as_failed_and_the_error_goes_on():
    recorder = TraceRecorder("q?")
    with pytest.raises(RuntimeError):
        with recorder.step("retrieval", "Retriever"):
            raise RuntimeError("index gone")
    [event] = recorder.trace.events
    assert event.status == "failed" and "index gone" in event.outputs["error"]


def test_unknown_kinds_are_rejected():
    with pytest.raises(ValueError):
        with TraceRecorder("q").step("nonsense", "X"):
            pass


def test_round_trip_and_durations_per_agent():
    recorder = TraceRecorder("q?")
    recorder.record("validation", "Validator")
    recorder.record("validation", "Validator")
    trace = Trace.from_dict(recorder.trace.to_dict())
    assert trace.of_kind("validation") and set(trace.agent_durations()) == {"Validator"}


def test_a_listener_with_a_started_method_is_told_when_each_step_begins():
    class Listener:
        def __init__(self):
            self.log = []

        def started(self, event):
            self.log.append(("start", event.kind, event.duration_ms))

        def __call__(self, event):
            self.log.append(("end", event.kind))

    listener = Listener()
    recorder = TraceRecorder("q?", listener=listener)
    with recorder.step("retrieval", "Retriever", top_k=5):
        assert listener.log == [("start", "retrieval", 0.0)]  # told before the step's body runs
    assert listener.log[-1] == ("end", "retrieval")
