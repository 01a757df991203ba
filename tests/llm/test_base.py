"""What every provider shares: one-field judgements, the prompt speed measured from streamed calls, which the chat
page's wait estimate uses, and loading in the background."""
from core.llm.base import ChatLLM, Completion, LLMError
from core.llm.scripted import ScriptedLLM


class SlowReader(ChatLLM):
    """Reads prompts at a fixed simulated speed: the first token comes after prompt/speed seconds."""

    def __init__(self, clock, speed):
        super().__init__()
        self.clock, self.speed = clock, speed

    def _chat(self, messages, *, max_tokens, temperature, schema, on_token, timeout):
        tokens = len(messages[0]["content"].split())
        self.clock.now += tokens / self.speed
        if on_token:
            on_token("ok")
        return Completion("ok", "stop", prompt_tokens=tokens, completion_tokens=1)


class Clock:
    now = 0.0

    def __call__(self):
        return self.now


def test_streamed_calls_measure_the_prompt_speed_and_it_follows_the_latest_calls(monkeypatch):
    clock = Clock()
    monkeypatch.setattr("core.llm.base.time.perf_counter", clock)
    llm = SlowReader(clock, speed=40.0)
    assert llm.prompt_tokens_per_second is None

    llm.complete([{"role": "user", "content": "word " * 400}])  # not streamed: no time to first token
    assert llm.prompt_tokens_per_second is None
    completion = llm.stream([{"role": "user", "content": "word " * 400}], lambda t: None)
    assert completion.first_token_seconds == 10.0 and llm.prompt_tokens_per_second == 40.0

    llm.speed = 20.0  # the machine got busier
    llm.stream([{"role": "user", "content": "word " * 400}], lambda t: None)
    assert llm.prompt_tokens_per_second == 30.0

    llm.stream([{"role": "user", "content": "a short one"}], lambda t: None)  # too short to measure
    assert llm.prompt_tokens_per_second == 30.0


def test_every_completed_call_is_told_to_the_observer_streamed_or_not(monkeypatch):
    clock = Clock()
    monkeypatch.setattr("core.llm.base.time.perf_counter", clock)
    llm = SlowReader(clock, speed=100.0)
    seen = []
    llm.on_completion = seen.append
    llm.complete([{"role": "user", "content": "word " * 50}])
    llm.stream([{"role": "user", "content": "word " * 200}], on_token=lambda token: None)
    assert [c.prompt_tokens for c in seen] == [50, 200]
    assert seen[0].first_token_seconds is None and seen[1].first_token_seconds == 2.0


def test_a_judgement_is_one_field_of_a_schema_the_model_fills():
    llm = ScriptedLLM(['{"value": "Did not attend"}'])
    assert llm.judge("Which Status do the words 'missed' mean?", "value",
                      {"type": "string", "enum": ["Attended", "Did not attend"]}, system="Match words to values.") \
        == "Did not attend"
    assert llm.calls[0][0] == {"role": "system", "content": "Match words to values."}


def test_a_judgement_that_fails_or_writes_no_such_field_is_none():
    assert ScriptedLLM(fail_with=LLMError("down")).judge("Holds it?", "holds", {"type": "boolean"}) is None
    assert ScriptedLLM(["not json"]).judge("Holds it?", "holds", {"type": "boolean"}) is None
    assert ScriptedLLM(['{"other": true}']).judge("Holds it?", "holds", {"type": "boolean"}) is None
