"""Rows the question names, answered whole by code from the table: the row listed beside a named one, and
the one of two named rows with the larger figure. No model call (the scripted model has no reply).

The fixtures are a village show's prize lists and a walking club's logs, written here.
"""
import pytest

from core.annotations.named_rows import asks_beside, beside, choice

# oldest first, as most lists of winners are printed
MARROWS = "Year,Winner,Village,Weight (kg)\n" + "\n".join([
    "2015,Priya Raman,Upper Slaughter,41.2", "2016,Tom Ellery,Bourton,38.9", "2017,Ada Quist,Bibury,44.0",
    "2018,Hamish Doyle,Bourton,39.5", "2019,Mei Tanaka,Upper Slaughter,47.3"])
# the same kind of list printed newest first
JAMS = "Season,Champion,Jam\n" + "\n".join([
    "2021,Odile Brach,Damson", "2020,Felix Amaro,Quince", "2019,Ruth Okafor,Gooseberry", "2018,Sami Lind,Bramble"])
# a report's lines, where "after" names a line, not an order
ACCOUNTS = "Line,2023,2024\nSales,410,455\nTax,-52,-61\nIncome after tax,358,394\nDividends,-90,-95"
WALKS = "Walker,Route,Distance (km)\n" + "\n".join([
    "Ines,Ridge,12.5", "Owen,Valley,8", "Ines,Valley,9.5", "Owen,Ridge,14", "Owen,Coast,6", "Bea,Coast,7"])
# heights printed in two units, read by the figure each cell starts with
PEAKS = "Peak,Range,Height (m / ft)\nScafell Pike,Southern Fells,\"978 / 3,209\"\nHelvellyn,Eastern Fells,\"950 / 3,117\"\n" \
        "Skiddaw,Northern Fells,\"931 / 3,054\""


def read(rule, ws, question):
    return rule(question, ws.pipeline.tables.tables()[0], ws.pipeline.executor)


@pytest.mark.parametrize("question, named, later", [
    ("Who won after Tom Ellery?", "Tom Ellery", True),
    ("What is the next village listed after Bibury?", "Bibury", True),
    ("Who succeeded Ada Quist as champion?", "Ada Quist", True),
    ("Which grower came immediately before Hamish Doyle?", "Hamish Doyle", False),
    ("Mei Tanaka won the prize right after who?", "Mei Tanaka won the prize", False),
])
def test_a_question_about_the_row_beside_a_named_one(question, named, later):
    asked = asks_beside(question)
    assert (asked.named, asked.later) == (named, later)


@pytest.mark.parametrize("question", [
    "Which winners grew marrows after 2016?", "Who won before 3 March?", "How many marrows were weighed after Tom Ellery?",
    "Which of the following villages won twice?"])
def test_a_bound_or_a_count_is_no_question_about_a_neighbour(question):
    assert asks_beside(question) is None


def test_the_next_row_is_read_in_the_tables_order_without_the_model(kb_of):
    ws = kb_of("marrows.csv", MARROWS)
    assert read(beside, ws, "Who won after Tom Ellery?").said == "Ada Quist comes right after Tom Ellery (Winner, marrows.csv)."
    assert read(beside, ws, "Who won before tom elery?").said.startswith("Priya Raman comes right before Tom Ellery")
    assert read(beside, ws, "Mei Tanaka won the prize right after who?").said.startswith("Hamish Doyle comes right before")
    response = ws.ask("Who won after Tom Ellery?", mode="pipeline")  # the scripted model would fail if asked
    assert response.answer.startswith("Ada Quist comes right after Tom Ellery"), response.answer
    assert response.confidence == "medium"  # the rules chose the row and the column: never high
    assert "WHERE source_row IN (" in response.structured["query"]  # it cites the named row and the next, no others


def test_a_list_printed_newest_first_is_read_in_time_unless_the_question_speaks_of_the_list(kb_of):
    ws = kb_of("jams.csv", JAMS)
    assert read(beside, ws, "Who won after Felix Amaro?").said == \
        "Odile Brach comes right after Felix Amaro (Champion, jams.csv, which lists Season newest first)."
    assert read(beside, ws, "Who is listed after Felix Amaro?").said.startswith("Ruth Okafor comes right after")


def test_a_name_on_several_rows_or_in_no_cell_is_left_to_the_plan(kb_of):
    ws = kb_of("marrows.csv", MARROWS)
    assert read(beside, ws, "Which village won after Bourton?") is None  # Bourton won twice
    assert read(beside, ws, "Who won after Jo Bloggs?") is None
    assert read(beside, ws, "Who won two years after Tom Ellery?") is None  # a query counts the rows


def test_after_in_a_line_the_table_prints_is_no_order(kb_of):
    ws = kb_of("accounts.csv", ACCOUNTS)
    assert read(beside, ws, "What was the income after tax?") is None


def test_of_two_named_rows_the_one_with_the_larger_figure_is_said_with_both_figures(kb_of):
    peaks = kb_of("peaks.csv", PEAKS)
    assert read(choice, peaks, "Which has the greater height, Skiddaw or Helvellyn?").said == \
        "Helvellyn has the greater Height (m / ft): 950 against 931 for Skiddaw (peaks.csv)."
    # the names in either order, a longer name second
    assert read(choice, peaks, "Which has the greater height, Skiddaw or Scafell Pike?").said == \
        "Scafell Pike has the greater Height (m / ft): 978 against 931 for Skiddaw (peaks.csv)."
    ws = kb_of("walks.csv", WALKS)
    assert read(choice, ws, "Did Ines or Owen walk more distance?").said == \
        "Owen has more total Distance (km) than Ines: 28 km against 22 km (walks.csv)."
    assert read(choice, ws, "Who walked the shortest distance, Bea or Ines?").said.startswith("Bea has the shorter")
    assert read(choice, ws, "Which route is longer, Coast or Valley?") is None  # no column named "long"


@pytest.mark.parametrize("question", [
    "Did Ines or Owen walk more distance on the Ridge route?",  # a third value: the plan applies it
    "Did Ines or Owen walk more than 10 km?",  # a bound
    "Did Ines or Owen walk more?",  # no column named
])
def test_a_choice_with_another_condition_or_no_column_named_is_left_to_the_plan(kb_of, question):
    ws = kb_of("walks.csv", WALKS)
    assert read(choice, ws, question) is None
