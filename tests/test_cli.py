"""`python -m core ingest|search|docs|delete|reindex`: the terminal contract."""
from __future__ import annotations

import json
import re

from core.cli import main


def test_ingest_search_docs_delete_round_trip(tmp_path, write_text, capsys):
    data = str(tmp_path / "kb")
    folder = write_text("spec.txt", "Dimensions: 1722 x 1134 x 30 mm. Weight: 21 kg.").parent
    write_text("broken.pdf", "not really a pdf")

    assert main(["--data-dir", data, "ingest", str(folder)]) == 1  # one file failed
    out = capsys.readouterr().out
    assert "ok  spec.txt: indexed" in out and "ERR broken.pdf: failed" in out

    assert main(["--data-dir", data, "search", "panel weight", "--top-k", "1", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    [hit] = payload["hits"]
    assert hit["filename"] == "spec.txt" and {"bm25_rank", "vector_rank", "score", "page"} <= set(hit)

    assert main(["docs", "--data-dir", data]) == 0
    listing = capsys.readouterr().out
    assert "indexed    spec.txt" in listing and "failed" in listing and "not a PDF" in listing

    assert main(["--data-dir", data, "delete", "spec.txt"]) == 0
    assert main(["--data-dir", data, "delete", "spec.txt"]) == 1
    assert "No document matches" in capsys.readouterr().err


def test_changed_index_settings_are_refused_until_reindex(tmp_path, write_text, capsys, monkeypatch):
    data = str(tmp_path / "kb")
    main(["--data-dir", data, "ingest", str(write_text("a.txt", "Panels weigh 21 kg each."))])
    monkeypatch.setenv("DOCUCHAT_CHUNK_SIZE_TOKENS", "100")
    capsys.readouterr()

    assert main(["--data-dir", data, "docs"]) == 2
    assert "python -m core reindex" in capsys.readouterr().err

    assert main(["--data-dir", data, "reindex"]) == 0
    assert "Re-indexed 1 of 1 documents" in capsys.readouterr().out
    assert main(["--data-dir", data, "docs"]) == 0


def test_a_new_embedding_model_reembeds_only_on_reindex(tmp_path, write_text, capsys, monkeypatch):
    """An index built with the torch reference is kept until the user re-indexes it with the int8 default."""
    data = str(tmp_path / "kb")
    monkeypatch.setenv("DOCUCHAT_EMBEDDING_MODEL", "all-MiniLM-L6-v2")
    main(["--data-dir", data, "ingest", str(write_text("a.txt", "Panels weigh 21 kg each."))])
    monkeypatch.delenv("DOCUCHAT_EMBEDDING_MODEL")
    capsys.readouterr()

    assert main(["--data-dir", data, "search", "panel weight"]) == 2
    error = capsys.readouterr().err
    assert "embedding_model: all-MiniLM-L6-v2 -> all-MiniLM-L6-v2-int8" in error and "python -m core reindex" in error

    assert main(["--data-dir", data, "reindex"]) == 0
    assert main(["--data-dir", data, "search", "panel weight"]) == 0
    assert "Panels weigh 21 kg" in capsys.readouterr().out


def test_an_embedding_model_the_app_does_not_ship_is_named_with_the_choices(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DOCUCHAT_EMBEDDING_MODEL", "bge-large")
    assert main(["--data-dir", str(tmp_path / "kb"), "docs"]) == 2
    assert "Unknown embedding model 'bge-large'" in capsys.readouterr().err


def test_ask_json_prints_exactly_one_response_object_and_trace_reads_it_back(tmp_path, write_text, capsys, monkeypatch):
    monkeypatch.setenv("DOCUCHAT_LLM_PROVIDER", "scripted")  # extractive stand-in: no model time
    data = str(tmp_path / "kb")
    main(["--data-dir", data, "ingest", str(write_text("spec.txt", "The HX-450 panel weighs 21.5 kg."))])
    capsys.readouterr()

    assert main(["--data-dir", data, "ask", "How heavy is the HX-450 panel?", "--json"]) == 0
    response = json.loads(capsys.readouterr().out)
    assert set(response) >= {"answer", "citations", "confidence", "safety_flags", "reasoning", "timings", "trace_id"}
    assert "[Source 1]" in response["answer"] and response["citations"][0]["filename"] == "spec.txt"

    assert main(["--data-dir", data, "trace", response["trace_id"]]) == 0
    timeline = capsys.readouterr().out
    for agent in ("Planner", "Retriever", "Reasoner", "Validator", "Responder"):
        assert agent in timeline
    assert main(["--data-dir", data, "trace", response["trace_id"], "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["turn_id"] == response["trace_id"]
    assert main(["--data-dir", data, "trace", "nope"]) == 1


def test_a_refusal_prints_the_nearest_figure_found_as_not_the_same_thing(tmp_path, write_text, capsys, monkeypatch):
    monkeypatch.setenv("DOCUCHAT_LLM_PROVIDER", "scripted")
    data = str(tmp_path / "kb")
    main(["--data-dir", data, "ingest", str(write_text("squad_report.txt", "The team took 4 sick days in 2023.\n"))])
    capsys.readouterr()

    assert main(["--data-dir", data, "ask", "How many sick days did the team take in 2024?"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("I couldn't find this in your documents.")
    assert ("Nearest I found, not the same thing: “The team took 4 sick days in 2023.” (squad_report.txt): "
            "it is about 2023, not 2024.") in printed
    assert main(["--data-dir", data, "ask", "How many sick days did the team take in 2024?", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["nearest"]["why"] == "it is about 2023, not 2024"


def test_ask_in_agent_mode_prints_the_response_with_insufficiencies_and_mode(tmp_path, write_text, capsys, monkeypatch):
    from tests.agents.agent_mode.conftest import DOCS, final, open_files, scripted_agent, search

    llm = scripted_agent('["Search with search_docs", "Open with open_citation", "Answer"]',
                         search("reindex search index"), open_files("operations.md"),
                         final('Run "REINDEX TABLE documents;" at night [1].',
                               [{"section": "Retry", "missing": "retry policy"}]))
    monkeypatch.setattr("core.workspace.make_llm", lambda settings: llm)
    data = str(tmp_path / "kb")
    main(["--data-dir", data, "ingest", *(str(write_text(name, text)) for name, text in DOCS.items())])
    capsys.readouterr()

    assert main(["--data-dir", data, "ask", "How is the search index rebuilt?", "--mode", "agent", "--json"]) == 0
    response = json.loads(capsys.readouterr().out)

    assert set(response) >= {"answer", "citations", "confidence", "safety_flags", "reasoning", "timings", "tokens",
                             "trace_id", "intent", "route", "structured", "clarification", "insufficiencies", "mode"}
    assert response["mode"] == "agent" and response["answer"] == 'Run "REINDEX TABLE documents;" at night [1].'
    assert response["citations"][0]["filename"] == "operations.md" and response["citations"][0]["cited"]
    assert response["insufficiencies"] == [{  # the first search, the question itself, needs no model call
        "section": "Retry", "missing": "retry policy",
        "queries_tried": ["How is the search index rebuilt?", "reindex search index"]}]

    assert main(["--data-dir", data, "trace", response["trace_id"]]) == 0
    timeline = capsys.readouterr().out
    assert "tool_call" in timeline and "search_docs \"reindex search index\": 1 search" in timeline
    assert "validation" in timeline


def test_ask_with_a_session_follows_up_as_chat_does_and_keeps_it_in_the_data_dir(tmp_path, write_text, capsys,
                                                                                   monkeypatch):
    monkeypatch.setenv("DOCUCHAT_LLM_PROVIDER", "scripted")
    data = tmp_path / "kb"
    report = "Revenue in 2022 was 10.4 million euros.\n\nRevenue in 2023 was 12.9 million euros."
    main(["--data-dir", str(data), "ingest", str(write_text("report.txt", report))])
    capsys.readouterr()

    def ask(*extra: str) -> dict:
        assert main(["--data-dir", str(data), "ask", *extra, "--json"]) == 0
        return json.loads(capsys.readouterr().out)

    ask("What was the revenue in 2022?", "--session", "review")
    follow_up = ask("and in 2023?", "--session", "review")
    assert follow_up["understood_as"] == "What was the revenue in 2023?"
    assert (data / "conversations" / "review.json").exists()
    assert ask("and in 2023?")["understood_as"] == ""  # no session: nothing to follow up
    assert ask("and in 2023?", "--session", "other")["understood_as"] == ""  # another conversation

    assert main(["--data-dir", str(data), "ask", "and in 2023?", "--session", "../elsewhere"]) == 1
    assert "conversation name" in capsys.readouterr().err


def test_follow_ups_on_records_through_ask_session_replace_only_what_the_user_changed(tmp_path, write_text, capsys,
                                                                                   monkeypatch):
    from tests.conversation.bakery import FIRST, FOLLOW_UPS, SALES_CSV, rewriting_model

    monkeypatch.setattr("core.workspace.make_llm", lambda settings: rewriting_model())
    data = str(tmp_path / "kb")
    main(["--data-dir", data, "ingest", str(write_text("bakery_sales.csv", SALES_CSV))])
    capsys.readouterr()

    def ask(question: str) -> dict:
        assert main(["--data-dir", data, "ask", question, "--session", "shops", "--json"]) == 0
        return json.loads(capsys.readouterr().out)

    assert ask(FIRST)["understood_as"] == ""
    for asked, understood in FOLLOW_UPS:
        assert ask(asked)["understood_as"] == understood

    assert main(["--data-dir", data, "ask", "and in 2024?", "--session", "shops"]) == 0  # as text, too
    printed = capsys.readouterr().out
    assert "(understood as: What were Kingsmoor's average rye bread sales in 2024?)" in printed
    # citations as on screen: one compact "[1]…" where the claim ends, each source listed under its number
    assert "[Source" not in printed and re.search(r"\S \[1\](\[\d\])*\.?\n", printed)
    assert re.search(r"^\[1\] bakery_sales\.csv ", printed, re.M)
    assert "confidence: low; may misread its quote; mode: pipeline" in printed  # a flag in words, as on screen
