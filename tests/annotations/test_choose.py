"""Where the words cannot tell tables apart, the model chooses among the close ones, and only there."""
import json

from core.annotations.choose import card, choose, unsure
from core.annotations.select import Selection
from core.annotations.tables import TableInfo
from core.llm.base import LLMError
from core.llm.scripted import ScriptedLLM

FUEL = TableInfo("fuel", "d1", "fuel_log.csv", None, "rows", ["date", "unit", "fuel_type", "total"],
                 {"date": "Date", "unit": "Unit", "fuel_type": "Fuel Type", "total": "Total ($)"}, {}, {}, 500,
                 categories={"fuel_type": [["Diesel", "diesel"], ["DEF"]], "unit": [["T-1"], ["T-2"], ["T-3"]]})
FLEET = TableInfo("fleet", "d2", "fleet.xlsx", "Fleet", "rows", ["unit", "power_hp", "power_hp_w", "price"],
                  {"unit": "Unit", "power_hp": "Power [hp]", "power_hp_w": "Power [hp] in W", "price": "Price ($)"},
                  {}, {}, 30)
STAFF = TableInfo("staff", "d3", "staff.csv", None, "rows", ["name"], {"name": "Name"}, {}, {}, 5)
CLOSE = dict(close=0.8, floor=1.5, max_candidates=4)


def picks(reply: str):
    return ScriptedLLM([reply])


def test_the_rules_stand_when_one_table_leads_clearly():
    fuel, fleet = Selection(FUEL, 9.0), Selection(FLEET, 4.0)
    assert unsure([fuel], [fuel, fleet], **CLOSE) is None
    assert unsure([fuel], [fuel], **CLOSE) is None  # one candidate: nothing to choose


def test_a_runner_up_of_another_file_close_to_the_best_makes_the_rules_unsure():
    fleet, fuel = Selection(FLEET, 6.3), Selection(FUEL, 5.2)
    doubt = unsure([fleet, fuel], [fleet, fuel], **CLOSE)
    assert [s.table.name for s in doubt.candidates] == ["fleet", "fuel"]
    assert "fuel_log.csv scored 5.2 against 6.3" in doubt.why


def test_nothing_selected_but_a_table_scored_asks_the_model_and_too_little_does_not():
    fuel = Selection(FUEL, 2.5)
    assert unsure([], [fuel], **CLOSE).why.startswith("no table reached the bar")
    assert unsure([], [Selection(FUEL, 1.0)], **CLOSE) is None  # what any table shares with any question


def test_a_file_is_one_candidate_however_many_of_its_tables_scored():
    sheet_a, sheet_b = Selection(FLEET, 5.0), Selection(FLEET, 4.9)
    assert unsure([sheet_a, sheet_b], [sheet_a, sheet_b], **CLOSE) is None


def test_a_card_shows_printed_headers_once_and_a_value_or_two_of_each_category():
    assert card(FLEET, 8) == "fleet.xlsx [Fleet]: Unit, Power [hp], Price ($)"  # not the unit twin "in W"
    assert card(FUEL, 8) == "fuel_log.csv: Date, Unit, Fuel Type, Total ($) (values: Diesel, T-1, DEF, T-2)"
    assert card(FUEL, 1) == "fuel_log.csv: Date, Unit, Fuel Type, Total ($) (values: Diesel)"


def test_the_model_picks_a_candidate_by_its_number():
    fleet, fuel = Selection(FLEET, 6.3), Selection(FUEL, 5.2)
    doubt = unsure([fleet, fuel], [fleet, fuel], **CLOSE)
    llm = picks(json.dumps({"table": 2}))
    choice = choose("Which trucks had a single fill-up over $600?", doubt, llm, max_tokens=12, max_values=8)
    assert choice.table is fuel and choice.why.endswith("the model chose fuel_log.csv")
    assert choice.tokens["prompt"] > 0 and choice.tokens["completion"] > 0  # counted in the answer's tokens
    prompt = llm.calls[0][-1]["content"]
    assert "1. fleet.xlsx [Fleet]: Unit" in prompt and "2. fuel_log.csv: Date" in prompt
    assert prompt.endswith("Question: Which trucks had a single fill-up over $600?")


def test_none_of_them_is_an_answer_too():
    doubt = unsure([], [Selection(FUEL, 2.0), Selection(STAFF, 1.9)], **CLOSE)
    choice = choose("What is the insurance premium?", doubt, picks('{"table": 0}'), max_tokens=12, max_values=8)
    assert choice.table is None and "none of them" in choice.why


def test_a_failed_or_stray_reply_keeps_the_best_score():
    fleet, fuel = Selection(FLEET, 6.3), Selection(FUEL, 5.2)
    doubt = unsure([fleet, fuel], [fleet, fuel], **CLOSE)
    choice = choose("q", doubt, ScriptedLLM(fail_with=LLMError("timed out")), max_tokens=12, max_values=8)
    assert choice.table is fleet and "could not choose" in choice.why
    choice = choose("q", doubt, picks('{"table": 7}'), max_tokens=12, max_values=8)
    assert choice.table is fleet and "outside the candidates" in choice.why


# --- through the pipeline ---

FUEL_CSV = "Date,Unit,Fuel Type,Total ($)\n" + "\n".join(
    f"2024-{(i % 12) + 1:02d}-{(i % 27) + 1:02d},T-{i % 4 + 1},{['Diesel', 'DEF'][i % 2]},{100 + i * 7}" for i in range(60))
FLEET_CSV = "Unit,Make,Total ($)\n" + "\n".join(f"T-{i},{['Volvo', 'Ford'][i % 2]},{90000 + i}" for i in range(1, 5))


def test_the_pipeline_asks_only_where_the_words_tie_and_answers_from_the_chosen_table(tmp_path, embedder, write_text):
    from core.config import Settings
    from core.workspace import Workspace

    def script(messages):
        prompt = messages[-1]["content"]
        if prompt.startswith("Which table has the rows"):
            number = next(line.split(".")[0] for line in prompt.splitlines() if "fuel_log.csv" in line)
            return json.dumps({"table": int(number)})
        return json.dumps({"answer": "sum", "column": "Total ($)", "filters": []})

    ws = Workspace(Settings(data_dir=tmp_path / "kb"), embedder, ScriptedLLM(script))
    ws.ingestor.ingest_paths([write_text("fuel_log.csv", FUEL_CSV), write_text("fleet.csv", FLEET_CSV)])
    response = ws.ask("What was the total for unit T-1 in May?", mode="pipeline")  # both tables hold all of it
    chooser = [c for c in ws.llm.calls if c[-1]["content"].startswith("Which table has the rows")]
    assert len(chooser) == 1 and "fleet.csv" in chooser[0][-1]["content"]
    assert response.structured["files"] == ["fuel_log.csv"]
    expected = sum(100 + i * 7 for i in range(60) if i % 4 == 0 and i % 12 == 4)
    assert f"{expected:,}" in response.answer
    assert response.tokens["prompt"] > sum(len(m["content"].split()) for m in ws.llm.calls[-1])  # both calls counted
    table_step = next(e for e in ws.kb.catalog.turn(response.trace_id)["trace"]["events"] if e["kind"] == "plan")
    assert "the model chose fuel_log.csv" in json.dumps(table_step)
    ws.llm.calls.clear()
    ws.ask("What did the fuel log total for T-1 in May?", mode="pipeline")  # the file named: no doubt, no call
    assert not [c for c in ws.llm.calls if c[-1]["content"].startswith("Which table has the rows")]
    ws.close()
