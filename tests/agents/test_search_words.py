"""Search words in the documents' own vocabulary: one constrained call writes them, the retriever
searches them beside the question, and nothing is lost when the call fails or adds nothing."""
from __future__ import annotations

import json

from core.agents.search_words import SCHEMA, SYSTEM, adds_words, suggest
from core.config import Settings
from core.llm.base import LLMError
from core.llm.scripted import ScriptedLLM
from core.workspace import Workspace


def test_the_model_writes_words_under_a_schema_and_sees_the_question():
    llm = ScriptedLLM([json.dumps({"phrases": ["net cash provided by operating activities", "2019"]})])
    found = suggest("What were cash flows from operations in 2019?", llm, max_tokens=60)
    assert found.words == "net cash provided by operating activities; 2019"
    assert llm.calls[0][-1]["content"] == "What were cash flows from operations in 2019?"
    assert found.trace()["words"] == found.words and found.trace()["prompt_tokens"] > 0
    assert SCHEMA["required"] == ["phrases"]


def test_words_that_only_repeat_the_question_are_not_searched_again():
    assert not adds_words("Cash flows, from operations", "What were cash flows from operations?")
    assert adds_words("operating activities", "What were cash flows from operations?")
    llm = ScriptedLLM([json.dumps({"phrases": ["cash flows", "operations"]})])
    found = suggest("What were cash flows from operations?", llm, max_tokens=60)
    assert found.words == "" and "add nothing" in found.reason


def test_a_failed_call_leaves_the_search_as_it_was():
    found = suggest("What were cash flows from operations?", ScriptedLLM(fail_with=LLMError("down")), max_tokens=60)
    assert found.words == "" and "could not" in found.reason and found.completion is None


DOCS = {
    "investor_faq.txt": "Investors often ask about cash flows from operations. We discuss cash flows from "
                        "operations on every quarterly call with investors.",
    "statement.txt": "Net cash provided by operating activities was $4.2 billion, up from $3.9 billion.",
    "letter.txt": "Dear shareholders, our cash flows from operations matter to us, as do the operations themselves.",
    "garden.txt": "Prune the roses in early spring, before the new shoots appear.",
}


def test_the_documents_own_words_bring_their_passage_up(make_workspace, write_text):
    ws = make_workspace()
    ws.ingestor.ingest_paths([write_text(name, text) for name, text in DOCS.items()])
    question = "What were the cash flows from operations?"

    def lead_of_statement(also: str) -> float:
        """How far the statement's fused score is ahead of the question's own best match."""
        scores = {c.filename: c.score for c in ws.retriever.search(question, top_k=3, also=also).candidates}
        return scores["statement.txt"] - scores["investor_faq.txt"]

    assert lead_of_statement("net cash provided by operating activities") > lead_of_statement("")
    result = ws.retriever.search(question, top_k=3, also="net cash provided by operating activities")
    assert result.also == "net cash provided by operating activities"
    # the similarity the confidence rules read stays the question's own
    statement = next(c for c in result.hits if c.filename == "statement.txt")
    plain = next(c for c in ws.retriever.search(question, top_k=3).candidates if c.filename == "statement.txt")
    assert statement.vector_score == plain.vector_score


def test_a_text_question_searches_the_models_words_and_the_trace_shows_them(tmp_path, embedder, write_text):
    replies = [json.dumps({"phrases": ["net cash provided by operating activities"]})]
    llm = ScriptedLLM(lambda messages: replies.pop(0) if replies else "Net cash provided by operating activities "
                      "was $4.2 billion.")
    # a knowledge base larger than each retriever's candidate pool: search has something to miss
    ws = Workspace(Settings(data_dir=tmp_path / "kb", search_words_model=True, candidate_pool=3), embedder, llm)
    ws.ingestor.ingest_paths([write_text(name, text) for name, text in DOCS.items()])
    response = ws.ask("What were the cash flows from operations?", mode="pipeline")
    ws.close()
    events = ws.kb.catalog.turn(response.trace_id)["trace"]["events"]
    calls = [e for e in events if e["kind"] == "llm_call" and e["inputs"].get("search_words")]
    assert calls and "net cash provided" in calls[0]["summary"]
    retrieval = next(e for e in events if e["kind"] == "retrieval")
    assert retrieval["outputs"]["searches"][0]["search_words"] == "net cash provided by operating activities"


def test_a_scope_no_larger_than_the_candidate_pool_is_searched_without_the_call(tmp_path, embedder, write_text):
    llm = ScriptedLLM()
    ws = Workspace(Settings(data_dir=tmp_path / "kb", search_words_model=True), embedder, llm)
    ws.ingestor.ingest_paths([write_text(name, text) for name, text in DOCS.items()])
    ws.ask("What were the cash flows from operations?", mode="pipeline")
    ws.close()
    assert llm.calls and not any(call[0]["content"] == SYSTEM for call in llm.calls)
