"""Questions about records go to the stored facts, are answered exactly, and fall back to text."""
import json

import pytest

from core.annotations.route import format_number
from core.cli import main
from core.config import Settings
from core.llm.scripted import ScriptedLLM
from core.workspace import Workspace

ORDERS = "order_id,date,customer,total\n" + "\n".join(
    f"O{i},{2023 + i % 2}-0{1 + i % 9}-10,{['ACME', 'Globex', 'Initech'][i % 3]},{i}.25" for i in range(1, 301))


@pytest.fixture
def ws(tmp_path, embedder, write_text):
    ws = Workspace(Settings(data_dir=tmp_path / "kb"), embedder, ScriptedLLM([]))  # no LLM call allowed
    ws.ingestor.ingest_paths([write_text("orders.csv", ORDERS),
                              write_text("notes.txt", "Our customers are mostly installers in the north.")])
    yield ws
    ws.close()


def test_a_count_covers_all_rows_exactly(ws):
    response = ws.ask("How many orders did ACME place in 2024?")
    expected = sum(1 for i in range(1, 301) if i % 3 == 0 and 2023 + i % 2 == 2024)
    assert response.route == "structured" and response.answer.startswith(f"{expected} matching records")
    assert response.confidence == "high" and response.structured["total_matches"] == expected
    assert response.citations[0].filename == "orders.csv" and response.citations[0].rows


def test_sums_per_group_are_computed_not_generated(ws):
    response = ws.ask("What is the total per customer?")
    totals = {name: sum(i + 0.25 for i in range(1, 301) if ['ACME', 'Globex', 'Initech'][i % 3] == name)
              for name in ("ACME", "Globex", "Initech")}
    for name, total in totals.items():
        assert f"{name}: {format_number(total)}" in response.answer
    assert "unsupported_claims" not in response.safety_flags


def test_long_lists_are_cut_stored_and_exportable(ws, tmp_path, capsys):
    response = ws.ask("List every order from Globex")
    structured = response.structured
    assert structured["total_matches"] == 100 and structured["rows_shown"] == 10
    assert "Showing 10 of 100" in response.answer
    data, count = ws.export_result_set(structured["result_set_id"])
    assert count == 100 and data.decode("utf-8-sig").splitlines()[0].endswith("filename,page,sheet,row,doc_id,chunk_id,fact_id")


def test_zero_hits_relax_the_filters_and_say_so(ws):
    response = ws.ask("How many orders did ACME place in 2031?")
    assert response.route == "structured" and "without the time range" in response.answer
    assert response.confidence == "medium"
    events = [e["kind"] for e in ws.kb.catalog.turn(response.trace_id)["trace"]["events"]]
    assert events[:3] == ["plan", "retrieval", "prompt"]


def test_a_text_question_still_goes_to_hybrid_search(tmp_path, embedder, write_text):
    ws = Workspace(Settings(data_dir=tmp_path / "kb2"), embedder, ScriptedLLM())
    ws.ingestor.ingest_paths([write_text("orders.csv", ORDERS), write_text("notes.txt", "Installers are in the north.")])
    response = ws.ask("Where are the installers based?")
    assert response.route == "hybrid" and response.structured is None
    ws.close()


def test_cli_ask_json_has_the_structured_object_and_export_writes_it(tmp_path, write_text, capsys, monkeypatch):
    monkeypatch.setenv("DOCUCHAT_LLM_PROVIDER", "scripted")
    data = str(tmp_path / "kb3")
    main(["--data-dir", data, "ingest", str(write_text("orders.csv", ORDERS))])
    capsys.readouterr()
    assert main(["--data-dir", data, "ask", "List every order from Initech in 2023", "--json"]) == 0
    structured = json.loads(capsys.readouterr().out)["structured"]
    assert {"route", "columns", "rows_shown", "total_matches", "result_set_id"} <= set(structured)
    out = tmp_path / "initech.csv"
    assert main(["--data-dir", data, "export", structured["result_set_id"], "--out", str(out)]) == 0
    assert len(out.read_text(encoding="utf-8-sig").splitlines()) == structured["total_matches"] + 1
    assert main(["--data-dir", data, "facts", "--label", "customer", "--limit", "2"]) == 0
    assert "300 facts" in capsys.readouterr().out


def test_follow_ups_page_export_and_narrow_the_previous_result(ws):
    first = ws.ask("List every order from Globex")
    rest = ws.ask("show the rest", previous_question=first.question,
                  previous_result_set=first.structured["result_set_id"])
    assert rest.structured["total_matches"] == 90  # 100 minus the 10 already shown
    export = ws.ask("export that table", previous_question=first.question,
                    previous_result_set=first.structured["result_set_id"])
    assert export.structured["total_matches"] == 100
    narrowed = ws.ask("only those from 2024", previous_question=first.question,
                      previous_result_set=first.structured["result_set_id"])
    expected = sum(1 for i in range(1, 301) if i % 3 == 1 and 2023 + i % 2 == 2024)
    assert narrowed.structured["total_matches"] == expected


def test_no_matching_records_falls_back_to_text_and_says_what_was_tried(tmp_path, embedder, write_text):
    ws = Workspace(Settings(data_dir=tmp_path / "kb4"), embedder, ScriptedLLM())
    ws.ingestor.ingest_paths([write_text("orders.csv", ORDERS), write_text("notes.txt", "Installers are in the north.")])
    response = ws.ask("List every order with skateboards")
    assert response.route == "hybrid"
    assert "No stored records matched" in response.clarification and "skateboard" in response.clarification
    ws.close()


def test_new_documents_are_seen_by_the_next_question(ws, write_text):
    before = ws.ask("How many orders did Hooli place in 2024?")
    assert "mentions Hooli" not in str((before.structured or {}).get("understood"))  # not a known name yet
    ws.ingestor.ingest_paths([write_text("more_orders.csv", "order_id,date,customer,total\nX1,2024-02-01,Hooli,5.00\n")])
    response = ws.ask("How many orders did Hooli place in 2024?")
    assert response.answer.startswith("1 matching records") and "mentions Hooli" in response.structured["understood"]
