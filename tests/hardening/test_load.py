"""Load: questions are answered while an ingest runs, many questions in a row do not grow memory,
and three app sessions at once all get their answers."""
from __future__ import annotations

import os
import sys
import threading
import tracemalloc
from pathlib import Path

from core.llm.scripted import ScriptedLLM, extractive_answer

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = "Helios panels carry a 25-year output warranty and a 12-year product warranty."
QUESTIONS = [
    "How long is the output warranty of the Helios panels?",
    "What is the product warranty for Helios panels?",
    "Which warranty lasts 25 years?",
    "Do the Helios panels have a product warranty?",
]


class GatedEmbedder:
    """The real model, but each batch waits for the gate: an ingest that lasts as long as the test wants."""

    def __init__(self, inner, gate: threading.Event) -> None:
        self.inner, self.gate = inner, gate
        self.model_name, self.dim = inner.model_name, inner.dim
        self.waiting = threading.Event()

    def embed(self, texts):
        if len(texts) > 1:  # ingest batches; a question embeds one text and is never held
            self.waiting.set()
            assert self.gate.wait(60), "the test never opened the gate"
        return self.inner.embed(texts)

    def count_tokens(self, texts):
        return self.inner.count_tokens(texts)


def test_a_question_is_answered_while_an_ingest_holds_the_write_lock(make_workspace, write_text, embedder):
    ws = make_workspace(llm_provider="scripted")
    ws.ingestor.ingest_paths([write_text("handbook.txt", HANDBOOK)])
    gate = threading.Event()
    ws.kb.embedder = GatedEmbedder(embedder, gate)
    big = write_text("log.txt", "\n\n".join(f"Maintenance entry {i}: inverter {i} checked." for i in range(60)))
    ingest = threading.Thread(target=ws.ingestor.ingest_paths, args=([big],))
    ingest.start()
    assert ws.kb.embedder.waiting.wait(60)  # the ingest is inside its write bracket, embedding

    response = ws.ask(QUESTIONS[0])  # would wait forever on a global lock

    assert "25-year" in response.answer and ingest.is_alive()
    gate.set()
    ingest.join(60)
    assert [d.filename for d in ws.kb.documents()] == ["handbook.txt", "log.txt"]


def test_an_ingest_completes_while_the_model_is_still_writing_an_answer(make_workspace, write_text):
    ws = make_workspace()
    ws.ingestor.ingest_paths([write_text("handbook.txt", HANDBOOK)])
    in_llm, release = threading.Event(), threading.Event()

    def slow_model(messages):
        in_llm.set()
        assert release.wait(60), "the test never released the model"
        return extractive_answer(messages)

    ws.pipeline.llm = ScriptedLLM(slow_model)
    answers = []
    asking = threading.Thread(target=lambda: answers.append(ws.ask(QUESTIONS[0])))
    asking.start()
    assert in_llm.wait(60)

    [result] = ws.ingestor.ingest_paths([write_text("inverter.txt", "The inverter shuts down above 60 degrees.")])

    assert result.status == "indexed" and asking.is_alive()  # the answer is still being written
    release.set()
    asking.join(60)
    assert "25-year" in answers[0].answer


def test_twenty_questions_in_a_row_answer_without_errors_or_growing_memory(make_workspace, write_text):
    ws = make_workspace(llm_provider="scripted")
    ws.ingestor.ingest_paths([write_text("handbook.txt", HANDBOOK),
                              write_text("orders.csv", "order,customer,total\n1,ACME,120\n2,Globex,80\n")])
    for question in QUESTIONS:  # warm-up: caches fill once
        ws.ask(question)
    tracemalloc.start()
    try:
        responses, sizes = [], []
        for n in range(20):
            responses.append(ws.ask(QUESTIONS[n % len(QUESTIONS)]))
            sizes.append(tracemalloc.get_traced_memory()[0])
    finally:
        tracemalloc.stop()
    assert all("llm_error" not in r.safety_flags and r.citations for r in responses)
    assert len({r.trace_id for r in responses}) == 20 and len(ws.kb.catalog.recent_turns(100)) == 24
    # What stays allocated after question 5 and after question 20 is the same, give or take
    # allocator noise: nothing per question is kept in memory (turns go to the catalog).
    growth = sizes[-1] - sizes[4]
    assert growth < 1_000_000, f"{growth} bytes kept over 15 questions: {sizes}"


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def test_three_browser_sessions_at_once_each_get_their_answers(tmp_path):
    """A real server and three browser sessions typing at the same moment, three rounds.
    (AppTest cannot do this: each AppTest swaps one process-wide Runtime in and out.)"""
    from playwright.sync_api import sync_playwright

    from core.cli import main
    from tests.servers import free_port, running
    from tests.ui.test_browser import CHROMIUM, CHROMIUM_FLAGS

    data = tmp_path / "data"
    (tmp_path / "handbook.txt").write_text(HANDBOOK)
    assert main(["--data-dir", str(data), "ingest", str(tmp_path / "handbook.txt")]) == 0
    port = free_port()
    env = {**os.environ, "DOCUCHAT_DATA_DIR": str(data), "DOCUCHAT_LLM_PROVIDER": "scripted", "HF_HUB_OFFLINE": "1"}
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.address", "127.0.0.1",
               "--server.port", str(port), "--server.headless", "true"]
    url = f"http://127.0.0.1:{port}"
    with running(command, url + "/_stcore/health", "streamlit", cwd=ROOT, env=env) as server, \
            sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        pages = [browser.new_context().new_page() for _ in range(3)]
        for page in pages:
            page.set_default_timeout(120_000)
            page.goto(f"{url}/Chat")
            page.get_by_placeholder("Ask a question about your documents").wait_for()
        rss = []
        for round_number, question in enumerate(QUESTIONS[:3], start=1):
            for page in pages:  # all three ask before any answer is awaited
                box = page.get_by_placeholder("Ask a question about your documents")
                box.fill(question)
                box.press("Enter")
            for page in pages:
                page.get_by_text("View trace").nth(round_number - 1).wait_for()
            rss.append(_rss_mb(server.pid))
        for page in pages:
            # Each of the three answers has its citation chips. Waited for, not counted at once: the
            # rerun that follows an answer redraws the chat, and under load a count can land mid-redraw.
            page.wait_for_function("document.querySelectorAll(\"a[href^='#src-']\").length >= 3", timeout=60_000)
            assert page.get_by_text("View trace").count() == 3
            assert page.get_by_text("This app has encountered an error").count() == 0
        browser.close()
    print(f"server RSS after each round (MB): {[round(r) for r in rss]}")
    assert rss[-1] - rss[0] < 100, f"server RSS per round (MB): {rss}"
