"""The embedded model loads in the background at start-up, and the home page's status says so;
no real model is loaded here (the loader is replaced), so this runs in milliseconds."""
import threading

from core.llm.base import LLMUnavailable
from core.llm.embedded import EmbeddedLLM


def _llm(tmp_path):
    model = tmp_path / "model.gguf"
    model.write_bytes(b"gguf")
    return EmbeddedLLM(model, cache_dir=tmp_path)


def test_the_model_loads_in_a_background_thread_and_health_reports_each_stage(tmp_path):
    llm = _llm(tmp_path)
    release, calls = threading.Event(), []

    def slow_load():
        calls.append(1)
        release.wait(5)
        llm._server = object()

    llm._load = slow_load
    assert llm.health() == (True, "model.gguf, in-process, not loaded yet (loads on the first question)")

    llm.load_in_background()
    llm.load_in_background()  # a second page visit does not start a second load
    assert llm.health() == (True, "model.gguf, in-process, loading in the background…") and llm.loading
    release.set()
    llm._loader.join(5)
    assert not llm.loading
    assert llm.health() == (True, "model.gguf, in-process, loaded") and calls == [1]


def test_a_failed_background_load_is_reported_by_health(tmp_path):
    llm = _llm(tmp_path)

    def broken_load():
        raise LLMUnavailable("The model could not be loaded (bad magic).")

    llm._load = broken_load
    llm.load_in_background()
    llm._loader.join(5)
    assert llm.health() == (False, "The model could not be loaded (bad magic).")
