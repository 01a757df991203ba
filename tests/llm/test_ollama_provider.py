"""The Ollama provider against a loopback server that speaks Ollama's HTTP API for the calls used."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from core.config import Settings
from core.llm import LLMUnavailable, make_llm
from core.llm.ollama_provider import OllamaLLM


class FakeOllama(BaseHTTPRequestHandler):
    requests: list[dict] = []

    def log_message(self, *args):
        pass

    def _send(self, payload: bytes, content_type="application/json"):
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self):
        if self.path == "/api/tags":
            self._send(json.dumps({"models": [{"name": "qwen2.5-coder:1.5b", "model": "qwen2.5-coder:1.5b"}]}).encode())
        else:
            self.send_error(404)

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        FakeOllama.requests.append(body)
        if self.path != "/api/chat":
            self.send_error(404)
            return
        text = "Panels weigh 21 kg [Source 1]."
        if body.get("format"):  # a JSON schema: the Reasoner's quote form, or any other object
            text = (json.dumps({"quote": "The HX-450 panels weigh 21 kg each", "source": 1, "answer": "Panels weigh 21 kg."})
                    if "quote" in json.dumps(body["format"]) else '{"colour": "blue"}')
        words = text.split(" ")
        lines = [
            {"model": body["model"], "created_at": "2026-01-01T00:00:00Z",
             "message": {"role": "assistant", "content": w if i == 0 else " " + w}, "done": False}
            for i, w in enumerate(words)
        ]
        lines.append({"model": body["model"], "created_at": "2026-01-01T00:00:00Z",
                      "message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop",
                      "prompt_eval_count": 42, "eval_count": len(words)})
        self._send("".join(json.dumps(line) + "\n" for line in lines).encode(), "application/x-ndjson")


@pytest.fixture
def ollama_host():
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeOllama)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    FakeOllama.requests = []
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_auto_provider_uses_ollama_when_a_host_is_set(ollama_host):
    llm = make_llm(Settings(ollama_host=ollama_host))
    assert isinstance(llm, OllamaLLM)
    assert llm.health() == (True, f"qwen2.5-coder:1.5b on Ollama at {ollama_host}")


def test_streams_tokens_and_reports_usage(ollama_host):
    llm = OllamaLLM(ollama_host, "qwen2.5-coder:1.5b")
    tokens = []
    completion = llm.stream([{"role": "user", "content": "weight?"}], tokens.append, max_tokens=50, temperature=0.3)
    assert completion.text == "Panels weigh 21 kg [Source 1]." == "".join(tokens)
    assert (completion.prompt_tokens, completion.completion_tokens, completion.finish_reason) == (42, 6, "stop")
    sent = FakeOllama.requests[-1]
    assert sent["options"]["temperature"] == 0.3 and sent["options"]["num_predict"] == 50


def test_json_requests_send_the_schema(ollama_host):
    schema = {"type": "object", "properties": {"colour": {"type": "string"}}}
    value, _ = OllamaLLM(ollama_host, "qwen2.5-coder:1.5b").complete_json([{"role": "user", "content": "c"}], schema)
    assert value == {"colour": "blue"} and FakeOllama.requests[-1]["format"] == schema


def test_an_unreachable_server_is_a_clear_error():
    llm = OllamaLLM("http://127.0.0.1:9", "qwen2.5-coder:1.5b", timeout=2)
    assert llm.health()[0] is False
    with pytest.raises(LLMUnavailable, match="not reachable"):
        llm.complete([{"role": "user", "content": "hi"}])


def test_a_missing_model_is_reported_by_health(ollama_host):
    ok, message = OllamaLLM(ollama_host, "llama3.2").health()
    assert not ok and "ollama pull llama3.2" in message
