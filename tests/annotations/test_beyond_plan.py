"""Which questions a query plan cannot say and the free SQL writer takes: row order, the first or last
row, differences and comparisons between rows, runs of rows. A stated amount, time or period is a
condition the plan applies, never a reason to hand over."""
import pytest

from core.annotations.beyond_plan import beyond_plan


@pytest.mark.parametrize("question, reason", [
    ("Which ferry sailed next after the Morning Star?", "row order"),
    ("Who chaired the board before Ms Adeyemi?", "row order"),
    ("What is the last route on the timetable?", "the first or last row"),
    ("When did the club record its first away win?", "the first or last row"),
    ("What is the difference in seats between Harbour Hall and the Civic?", "a difference between rows"),
    ("How many more points did Kestrels score than Otters?", "a difference between rows"),
    ("Which hall is larger, Harbour Hall or the Civic?", "a comparison with another row"),
    ("Which bakery sold more loaves than Mill Lane?", "a comparison with another row"),
    ("Which singer is the same age as Ana?", "a comparison with another row"),
    ("How many consecutive seasons did the club stay up?", "a run of rows"),
    ("What was the cost per mile, total fuel spend divided by total miles?", "arithmetic across columns"),
    ("What did the contractors' hours come to at the rates on the sheet?", "arithmetic across columns"),
    ("What percentage of calls were answered within a minute?", "arithmetic across columns"),
])
def test_what_a_plan_cannot_say_goes_to_the_query_writer(question, reason):
    assert beyond_plan(question) == reason


@pytest.mark.parametrize("question", [
    "How many orders over £2,000 did Globex place after March?",
    "How many bikes waited more than a week before they were collected?",
    "Which vans were bought after 2019?",
    "What did we spend in the first quarter?",
    "How many tickets were closed last month?",
    "Which stores sold more than 500 loaves?",
    "Other than Riverside, which branch sold e-bikes?",
    "What is the total value of ACME's orders in 2024?",
    "What was the average first-response time on priority calls?",  # a kind of time, not the first row
])
def test_stated_conditions_stay_with_the_plan(question):
    assert beyond_plan(question) is None


def test_a_question_about_row_order_is_written_as_sql_and_the_trace_says_why(tmp_path, embedder, write_text):
    import json

    from core.config import Settings
    from core.llm.scripted import ScriptedLLM
    from core.workspace import Workspace

    rota = "Shift,Keeper,Hours\n1,Ana,6\n2,Ben,8\n3,Cy,5\n4,Di,7\n"
    ws = Workspace(Settings(data_dir=tmp_path / "kb"), embedder, ScriptedLLM([]))
    try:
        ws.ingestor.ingest_paths([write_text("lighthouse_rota.csv", rota)])
        table = ws.pipeline.tables.tables()[0]
        ws.llm.script = [json.dumps({"sql": f"SELECT keeper FROM {table.name} WHERE source_row > "
                                           f"(SELECT source_row FROM {table.name} WHERE keeper = 'Ben') "
                                           f"ORDER BY source_row LIMIT 1 OFFSET 1"})]
        # (the row right after Ben's is read by code: core.annotations.named_rows)
        response = ws.ask("Who kept the light two shifts after Ben?", mode="pipeline", doc_ids=[table.doc_id])
        assert "Di" in response.answer
        assert response.structured["query_path"] == "model"
        assert any("row order, which only a query can say" in a["description"] for a in response.structured["attempts"])
    finally:
        ws.close()
