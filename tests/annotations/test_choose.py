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
    chosen, why = choose("Which trucks had a single fill-up over $600?", doubt, llm, max_tokens=12, max_values=8)
    assert chosen is fuel and why.endswith("the model chose fuel_log.csv")
    prompt = llm.calls[0][-1]["content"]
    assert "1. fleet.xlsx [Fleet]: Unit" in prompt and "2. fuel_log.csv: Date" in prompt
    assert prompt.endswith("Question: Which trucks had a single fill-up over $600?")


def test_none_of_them_is_an_answer_too():
    doubt = unsure([], [Selection(FUEL, 2.0), Selection(STAFF, 1.9)], **CLOSE)
    chosen, why = choose("What is the insurance premium?", doubt, picks('{"table": 0}'), max_tokens=12, max_values=8)
    assert chosen is None and "none of them" in why


def test_a_failed_or_stray_reply_keeps_the_best_score():
    fleet, fuel = Selection(FLEET, 6.3), Selection(FUEL, 5.2)
    doubt = unsure([fleet, fuel], [fleet, fuel], **CLOSE)
    chosen, why = choose("q", doubt, ScriptedLLM(fail_with=LLMError("timed out")), max_tokens=12, max_values=8)
    assert chosen is fleet and "could not choose" in why
    chosen, why = choose("q", doubt, picks('{"table": 7}'), max_tokens=12, max_values=8)
    assert chosen is fleet and "outside the candidates" in why
