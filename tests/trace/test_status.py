"""The live status line: it names the step that runs now, counts seconds, and estimates how long
reading a prompt takes from the measured prompt speed."""
from core.trace import TraceRecorder
from core.trace.status import LiveStatus


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_the_status_follows_the_pipeline_steps_with_elapsed_seconds_and_an_estimate():
    clock = Clock()
    status = LiveStatus(lambda: 36.0, clock)
    recorder = TraceRecorder("q?", listener=status)
    assert status.text() == "Reading the question · 0 s"
    with recorder.step("plan", "Planner"):
        clock.now += 1
    with recorder.step("retrieval", "Retriever", top_k=5):
        clock.now += 2
        assert status.text() == "Searching your documents · 3 s"
    with recorder.step("llm_call", "Reasoner", passages=3, prompt_tokens_estimate=540):
        clock.now += 4
        assert status.text() == "Reading 3 passages, about 11 s left · 7 s"  # 540 tokens at 36 a second: 15 s
        clock.now += 20
        assert status.text() == "Reading 3 passages, nearly done · 27 s"  # slower than estimated
        status.on_token("The")
        status.on_token(" answer")
        assert status.text() == "Writing the answer · 27 s" and status.streamed() == "The answer"
    with recorder.step("validation", "Validator"):
        assert status.text().startswith("Checking the answer against the sources")
    assert [e.kind for e in status.completed] == ["plan", "retrieval", "llm_call", "validation"]


def test_only_agent_mode_steps_mention_the_agent():
    status = LiveStatus(lambda: 36.0, Clock())
    recorder = TraceRecorder("q?", listener=status)
    labels = []
    for kind, inputs in [("plan", {}), ("retrieval", {}), ("llm_call", {"passages": 1}), ("validation", {}),
                         ("final", {})]:
        with recorder.step(kind, "X", **inputs):
            labels.append(status.text())
    assert not any("Agent" in label for label in labels)
    with recorder.step("tool_call", "Retriever", tool="search_docs"):
        assert status.text().startswith("Agent: running search_docs")
    with recorder.step("llm_call", "Reasoner", iteration=2):
        assert status.text().startswith("Agent: choosing step 2")


def test_the_estimate_uses_the_speed_known_when_the_prompt_starts():
    speeds = iter([10.0, 100.0])
    status = LiveStatus(lambda: next(speeds), Clock())
    recorder = TraceRecorder("q?", listener=status)
    with recorder.step("llm_call", "Reasoner", passages=2, prompt_tokens_estimate=200):
        assert "about 20 s left" in status.text()
    with recorder.step("llm_call", "Reasoner", passages=2, prompt_tokens_estimate=200):
        assert "about 2 s left" in status.text()


def test_a_refined_draft_clears_the_words_streamed_so_far():
    status = LiveStatus(lambda: 36.0, Clock())
    status.on_token("first draft")
    TraceRecorder("q?", listener=status).record("reflection", "Validator", "refining retrieval")
    assert status.streamed() == ""
