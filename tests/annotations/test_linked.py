"""A log linked to a register by a key: a question naming a value only the register holds is answered from the log,
filtered on the register's keys of that value (a join, done by code so the plan stays over one table)."""
import json
from datetime import date

import pytest

from core.config import Settings
from core.llm.scripted import ScriptedLLM
from core.workspace import Workspace

MAKES = ["Volvo", "Scania", "Volvo", "MAN", "Scania", "Volvo"]
FLEET = "Unit,Make,Bought,Use\n" + "\n".join(f"V-{i:02d},{make},{2015 + i},{['Haulage', 'Private hire'][i % 2]}"
                                             for i, make in enumerate(MAKES))
FUEL_ROWS = [(date(2024, 1 + i % 6, 1 + i % 27).isoformat(), f"V-{i % len(MAKES):02d}", ["Diesel", "AdBlue"][i % 4 == 0],
              20 + i % 9, round(30 + (i * 7.31) % 90, 2), ["Company", "Private"][i % 3 == 0]) for i in range(60)]
FUEL = "Date,Unit,Fuel,Litres,Cost (GBP),Paid By\n" + "\n".join(",".join(map(str, r)) for r in FUEL_ROWS)


@pytest.fixture
def fleet(tmp_path, embedder, write_text):
    ws = Workspace(Settings(data_dir=tmp_path / "kb"), embedder, ScriptedLLM([]))
    ws.ingestor.ingest_paths([write_text("fleet_register.csv", FLEET), write_text("fuel_log.csv", FUEL)])
    yield ws
    ws.close()


def test_a_value_only_the_register_holds_sends_a_question_about_the_logs_values_to_the_log(fleet):
    route = fleet.pipeline.finder.find("How much did we spend on diesel for the Volvos in March?", with_model=False)
    assert [s.table.filename for s in route.selections] == ["fuel_log.csv", "fleet_register.csv"]
    assert "names values: diesel" in route.selections[0].reasons
    # a question the register answers alone stays with it
    route = fleet.pipeline.finder.find("How many Volvos did we buy after 2017?", with_model=False)
    assert [s.table.filename for s in route.selections][:1] == ["fleet_register.csv"]
    # nor does a word of the log's values that the register's own values say ("Private" of "Private hire")
    route = fleet.pipeline.finder.find("Which units are on private hire?", with_model=False)
    assert [s.table.filename for s in route.selections][:1] == ["fleet_register.csv"]


def test_the_log_is_filtered_on_the_registers_keys_of_the_value_and_the_answer_says_where_it_looked(fleet):
    # the model names "Volvos" on the log's Unit column, where no cell holds it
    fleet.llm.script = [json.dumps({"answer": "sum", "column": "Cost (GBP)", "filters": [
        {"column": "Fuel", "op": "is", "value": "diesel"}, {"column": "Unit", "op": "is", "value": "Volvos"}]})]
    response = fleet.ask("How much did we spend on diesel for the Volvos in March?", mode="pipeline")
    volvos = {f"V-{i:02d}" for i, make in enumerate(MAKES) if make == "Volvo"}
    expected = sum(cost for day, unit, fuel, _, cost, _ in FUEL_ROWS
                   if unit in volvos and fuel == "Diesel" and day[5:7] == "03")
    assert f"£{expected:,.2f}" in response.answer, response.answer
    assert "Make Volvo (fleet_register.csv)" in response.answer
    looked = next(c for c in response.structured["conditions"] if c["how"] == "looked up by code")
    assert looked["column"] == "Make" and looked["note"] == f"Unit {', '.join(sorted(volvos)[:2])} or {sorted(volvos)[2]} of fleet_register.csv"
    dropped = next(c for c in response.structured["conditions"] if c["condition"] == "Unit is Volvos")
    assert dropped["how"] == "dropped by code"


def test_a_register_value_the_question_leaves_out_leaves_its_rows_out_of_the_log(fleet):
    fleet.llm.script = [json.dumps({"answer": "sum", "column": "Litres", "filters": [
        {"column": "Fuel", "op": "is", "value": "diesel"}]})]
    response = fleet.ask("How many litres of diesel did we buy for the fleet except the Volvos?", mode="pipeline",
                         doc_ids=[d.doc_id for d in fleet.documents()])
    others = {f"V-{i:02d}" for i, make in enumerate(MAKES) if make != "Volvo"}
    expected = sum(litres for _, unit, fuel, litres, _, _ in FUEL_ROWS if unit in others and fuel == "Diesel")
    assert f"{expected:,}" in response.answer and "not Make Volvo (fleet_register.csv)" in response.answer, response.answer


def test_columns_that_share_a_header_but_not_their_values_are_no_link(tmp_path, embedder, write_text):
    from core.annotations.linked import links_of
    ws = Workspace(Settings(data_dir=tmp_path / "kb"), embedder, ScriptedLLM([]))
    other = "Unit,Litres\n" + "\n".join(f"Z-{i},{i}" for i in range(8))  # units no register row is
    ws.ingestor.ingest_paths([write_text("fleet_register.csv", FLEET), write_text("tanks.csv", other)])
    tables = ws.pipeline.tables.tables()
    register = next(t for t in tables if t.filename == "fleet_register.csv")
    assert links_of(register, tables, ws.pipeline.executor, as_register=True) == []
    ws.close()
