"""The fact tables say which columns hold a name: how a follow-up's name is known to be of the same
kind as one in the previous question."""
from tests.conversation.bakery import SALES_CSV


def test_columns_holding_names_each_whole_text_cell_by_its_column_ignoring_case(make_workspace, write_text):
    ws = make_workspace(llm_provider="scripted")
    [result] = ws.ingest([write_text("bakery_sales.csv", SALES_CSV)])
    assert result.ok
    holding = ws.kb.catalog.facts.columns_holding(["fernley green", "rye bread", "fernley", "sales"])
    assert holding == {"fernley green": {"shop"}, "rye bread": {"product"}}  # not part of a cell, not a header

    ws.delete("bakery_sales.csv")
    assert ws.kb.catalog.facts.columns_holding(["fernley green"]) == {}
