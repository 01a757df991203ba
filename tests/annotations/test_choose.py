"""Where no table reaches the bar for a question about records, the model chooses among the best ones, and only there."""
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
AT = dict(floor=1.5, max_candidates=4)


def picks(reply: str):
    return ScriptedLLM([reply])


def test_the_rules_stand_where_a_table_reached_the_bar():
    fleet, fuel = Selection(FLEET, 6.3), Selection(FUEL, 5.9)
    assert unsure([fleet, fuel], [fleet, fuel], **AT) is None  # however close: the model was no better there


def test_no_table_at_the_bar_but_one_that_scored_asks_the_model_and_too_little_does_not():
    doubt = unsure([], [Selection(FUEL, 2.5), Selection(FLEET, 2.0)], **AT)
    assert doubt.why == "no table reached the bar (best 2.5)"
    assert [s.table.name for s in doubt.candidates] == ["fuel", "fleet"]
    assert unsure([], [Selection(FUEL, 1.0)], **AT) is None  # what any table shares with any question


def test_a_file_is_one_candidate_however_many_of_its_tables_scored_and_a_document_table_is_none():
    sheets = [Selection(FLEET, 2.5), Selection(FLEET, 2.4), Selection(STAFF, 2.0)]
    assert [s.table.name for s in unsure([], sheets, **AT).candidates] == ["fleet", "staff"]
    invoice = TableInfo("inv", "d9", "invoice.pdf", None, "fields", ["label", "value"], {}, {}, {}, 9)
    assert unsure([], [Selection(invoice, 2.9), Selection(FUEL, 2.5)], **AT) is None


def test_a_card_shows_printed_headers_once_and_a_value_or_two_of_each_category():
    assert card(FLEET, 8) == "fleet.xlsx [Fleet]: Unit, Power [hp], Price ($)"  # not the unit twin "in W"
    assert card(FUEL, 8) == "fuel_log.csv: Date, Unit, Fuel Type, Total ($) (values: Diesel, T-1, DEF, T-2)"
    assert card(FUEL, 1) == "fuel_log.csv: Date, Unit, Fuel Type, Total ($) (values: Diesel)"


def test_the_model_picks_a_candidate_by_its_number():
    fleet, fuel = Selection(FLEET, 2.3), Selection(FUEL, 2.2)
    doubt = unsure([], [fleet, fuel], **AT)
    llm = picks(json.dumps({"table": 2}))
    choice = choose("Which trucks had a single fill-up over $600?", doubt, llm, max_tokens=12, max_values=8)
    assert choice.table is fuel and choice.why.endswith("the model chose fuel_log.csv")
    assert choice.tokens["prompt"] > 0 and choice.tokens["completion"] > 0  # counted in the answer's tokens
    prompt = llm.calls[0][-1]["content"]
    assert "1. fleet.xlsx [Fleet]: Unit" in prompt and "2. fuel_log.csv: Date" in prompt
    assert prompt.endswith("Question: Which trucks had a single fill-up over $600?")


def test_none_of_them_is_an_answer_too():
    doubt = unsure([], [Selection(FUEL, 2.0), Selection(STAFF, 1.9)], **AT)
    choice = choose("What is the insurance premium?", doubt, picks('{"table": 0}'), max_tokens=12, max_values=8)
    assert choice.table is None and "none of them" in choice.why


def test_a_failed_or_stray_reply_leaves_the_rules_answer_no_table():
    doubt = unsure([], [Selection(FLEET, 2.3), Selection(FUEL, 2.2)], **AT)
    choice = choose("q", doubt, ScriptedLLM(fail_with=LLMError("timed out")), max_tokens=12, max_values=8)
    assert choice.table is None and "could not choose (timed out), so no table" in choice.why
    choice = choose("q", doubt, picks('{"table": 7}'), max_tokens=12, max_values=8)
    assert choice.table is None and "outside the candidates" in choice.why


# --- through the pipeline ---

FUEL_CSV = "Date,Unit,Fuel Type,Total ($)\n" + "\n".join(
    f"2024-{(i % 12) + 1:02d}-{(i % 27) + 1:02d},T-{i % 4 + 1},{['Diesel', 'DEF'][i % 2]},{100 + i * 7}" for i in range(60))
FLEET_CSV = "Unit,Make,In Service,Total ($)\n" + "\n".join(
    f"T-{i},{['Volvo', 'Ford'][i % 2]},2019-05-0{i},{90000 + i}" for i in range(1, 5))


def test_the_pipeline_asks_only_where_no_table_reached_the_bar_and_answers_from_the_chosen_one(
        tmp_path, embedder, write_text):
    from core.config import Settings
    from core.workspace import Workspace

    def script(messages):
        prompt = messages[-1]["content"]
        if prompt.startswith("Which table has the rows"):
            number = next(line.split(".")[0] for line in prompt.splitlines() if "fuel_log.csv" in line)
            return json.dumps({"table": int(number)})
        return json.dumps({"answer": "count", "column": "", "filters": []})

    def asked() -> list:
        return [c for c in ws.llm.calls if c[-1]["content"].startswith("Which table has the rows")]

    ws = Workspace(Settings(data_dir=tmp_path / "kb"), embedder, ScriptedLLM(script))
    ws.ingestor.ingest_paths([write_text("fuel_log.csv", FUEL_CSV), write_text("fleet.csv", FLEET_CSV)])
    response = ws.ask("How many times did we refuel in May?", mode="pipeline")  # names no file, column or value
    assert len(asked()) == 1 and "fleet.csv" in asked()[0][-1]["content"]
    assert response.structured["files"] == ["fuel_log.csv"]
    assert response.answer.startswith(f"{sum(1 for i in range(60) if i % 12 == 4)} ")  # the May rows
    assert response.tokens["prompt"] > sum(len(m["content"].split()) for m in ws.llm.calls[-1])  # both calls counted
    planner = next(e for e in ws.kb.catalog.turn(response.trace_id)["trace"]["events"] if e["kind"] == "plan")
    assert "the model chose fuel_log.csv" in json.dumps(planner)
    ws.llm.calls.clear()
    ws.ask("What did the fuel log total for T-1 in May?", mode="pipeline")  # the file named: at the bar
    ws.ask("What did the trucks cost to run in May?", mode="pipeline")  # not sure it asks for records: text
    assert asked() == []
    ws.close()
