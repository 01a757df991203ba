"""Each piece of a question's work is done once: counted with spies on the functions, the embedder
and the router."""
from __future__ import annotations

import sys
from collections import Counter

import pytest

from core.config import Settings
from core.conversation import summary
from core.llm.scripted import ScriptedLLM
from core.retrieval import fusion
from core.workspace import Workspace

ORDERS = "order_id,date,customer,total\n" + "\n".join(
    f"O{i},2024-0{1 + i % 9}-10,{['ACME', 'Globex', 'Initech'][i % 3]},{i}.25" for i in range(1, 61))
ML_DOC = ("Machine learning is a subset of AI that enables computers to learn from data without explicit programming.\n"
          "ML algorithms build mathematical models from training data to make predictions.")


def count_calls(monkeypatch, function) -> list:
    """Every call of `function`, wherever it was imported by name; the list of their arguments."""
    calls = []

    def spy(*args, **kwargs):
        calls.append(args)
        return function(*args, **kwargs)

    for module in list(sys.modules.values()):
        if getattr(module, function.__name__, None) is function:
            monkeypatch.setattr(module, function.__name__, spy)
    return calls


@pytest.fixture
def open_ws(tmp_path, embedder, write_text):
    opened = []

    def make(script=None, files=(), **settings) -> Workspace:
        ws = Workspace(Settings(data_dir=tmp_path / f"kb{len(opened)}", **settings), embedder, ScriptedLLM(script))
        opened.append(ws)
        ws.ingest([write_text(name, text) for name, text in files])
        return ws

    yield make
    for ws in opened:
        ws.close()


def test_a_result_set_command_is_read_once_per_question(open_ws, monkeypatch):
    ws = open_ws(files=[("orders.csv", ORDERS)])
    calls = count_calls(monkeypatch, summary.result_set_command)
    first = ws.ask("List every order from Globex")
    assert calls == []  # no previous result set: nothing to read it against
    rest = ws.ask("show the rest", previous_question=first.question,
                  previous_result_set=first.structured["result_set_id"])
    assert calls == [("show the rest",)]
    assert rest.structured["total_matches"] == first.structured["total_matches"] - first.structured["rows_shown"]


def test_the_semantic_weight_is_decided_once_per_question_even_on_the_long_text_route(open_ws, monkeypatch, tmp_path):
    from tests.ingest.conftest import write_text_pdf

    ws = open_ws(long_document_pages=20, macro_chunk_tokens=100, long_text_fallback_similarity=1.01)
    pages = ([f"Grounding the frame: connect the earth cable to lug {n}." for n in range(12)]
             + [f"Inverter start-up: wait for the green light, step {n}." for n in range(12)])
    ws.ingest([write_text_pdf(tmp_path / "manual.pdf", pages)])
    weights = count_calls(monkeypatch, fusion.semantic_weight)
    embedded = Counter()
    embed = ws.embedder.embed
    monkeypatch.setattr(ws.embedder, "embed", lambda texts, *a, **k: embedded.update(texts) or embed(texts, *a, **k))

    response = ws.ask("How do I start the inverter?")

    searches = [e for e in ws.turn(response.trace_id)["trace"]["events"] if e["kind"] == "retrieval"]
    assert [e["inputs"].get("route") for e in searches] == [None, "long_text"]  # the text search, then the sections
    assert [args[0] for args in weights] == ["How do I start the inverter?"]
    # once for the text search, once for the long-text route's summaries and segments together
    assert embedded["How do I start the inverter?"] == 2


def test_the_question_is_routed_once_per_turn_even_when_retrieval_is_refined(open_ws, monkeypatch):
    ws = open_ws(["Machine learning was invented by Initech in 1950 [Source 1].",
                  "Machine learning is a subset of AI [Source 1]."],
                 [("ai_intro.txt", ML_DOC), ("warranty.txt", "The warranty covers panels for 10 years."),
                  ("wind.txt", "Globex builds wind turbines."), ("tax.txt", "Initech sells accounting software.")])
    routed = []
    route = ws.pipeline.router.route
    monkeypatch.setattr(ws.pipeline.router, "route",
                        lambda question, *a, **k: routed.append((question, k.get("otherwise"))) or route(question, *a, **k))

    response = ws.ask("What is machine learning?")

    kinds = [e["kind"] for e in ws.turn(response.trace_id)["trace"]["events"]]
    assert "reflection" in kinds and kinds.count("retrieval") >= 2  # the first search and the refined one
    assert [q for q, otherwise in routed if otherwise is None] == ["What is machine learning?"]


def test_passage_re_ranking_runs_once_per_search_in_the_retriever(open_ws, monkeypatch):
    ws = open_ws(None, [("apple_10q.txt", "Apple Inc. quarterly report. Apple net sales were 81,797 million dollars."),
                        ("intel_10q.txt", "Intel Corporation quarterly report. Intel revenue was 12,949 million dollars.")],
                 passage_rerank=True)
    reranked = []
    [reranker] = ws.retriever.rerankers
    rerank = reranker.rerank
    monkeypatch.setattr(reranker, "rerank", lambda query, candidates: reranked.append(query) or rerank(query, candidates))

    response = ws.ask("Compare the quarterly revenue of Apple and Intel")

    [search] = [e for e in ws.turn(response.trace_id)["trace"]["events"] if e["kind"] == "retrieval"]
    queries = [s["query"] for s in search["outputs"]["searches"]]
    assert len(queries) == 2 and sorted(reranked) == sorted(queries)
