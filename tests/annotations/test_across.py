"""A report table has items as rows and years as columns: a change, a percentage change, an average or a
total of one item over the years the question states is arithmetic over that row's cells, done by code.

The fixture is a small charity's statement of funds (a CSV here: the PDF reader's tables reach the same
typed table, tests/annotations/test_tables.py). The scripted model plays the real one's part: it picks the
row; the columns come from the years the question states, and the operation from its words.
"""
import json

import pytest

from core.annotations import across
from core.config import Settings
from core.llm.scripted import ScriptedLLM
from core.workspace import Workspace

FUNDS = ("Description,2017,2018,2019\n"
         "Donations,\"1,240\",\"1,310\",\"1,507\"\n"
         "Grants,880,912,860\n"
         "Shop income,402,,455\n"
         "Total income,\"2,522\",\"2,222\",\"2,822\"\n")
DONATIONS = {2017: 1240, 2018: 1310, 2019: 1507}


@pytest.fixture
def ws(tmp_path, embedder, write_text):
    ws = Workspace(Settings(data_dir=tmp_path / "kb"), embedder, ScriptedLLM([]))
    ws.ingestor.ingest_paths([write_text("statement_of_funds.csv", FUNDS)])
    yield ws
    ws.close()


def ask(ws, question: str, **plan) -> str:
    ws.llm.calls.clear()  # the scripted replies are counted from the first call
    ws.llm.script = [json.dumps({"column": "", "filters": [], **plan})]
    return ws.ask(question, mode="pipeline", doc_ids=[ws.documents()[0].doc_id])


ROW = [{"column": "Description", "op": "is", "value": "Donations"}]


def test_a_percentage_change_between_two_stated_years_is_computed_by_code(ws):
    response = ask(ws, "What was the percentage change in donations from 2018 to 2019?", answer="sum", column="2019",
                   filters=ROW)
    expected = (DONATIONS[2019] - DONATIONS[2018]) / DONATIONS[2018] * 100
    assert f"{expected:,.2f}%" in response.answer
    assert "2018: 1,310" in response.answer and "2019: 1,507" in response.answer  # the cells it was computed from
    assert response.structured["plan"]["across"] == ["2018", "2019"]
    assert "could not apply" not in response.answer and response.confidence == "medium"  # the years are columns


def test_a_change_is_the_later_year_minus_the_earlier_whatever_order_the_question_says(ws):
    response = ask(ws, "How much did donations change between 2019 and 2017?", answer="sum", column="2017", filters=ROW)
    assert f"is {DONATIONS[2019] - DONATIONS[2017]}" in response.answer


def test_an_operation_across_the_years_over_every_row_is_no_answer_unless_each_row_is_asked_for(ws):
    # the model's plan named no row ("restricted reserves" is no label): every line's total, row by row, is not it
    response = ask(ws, "What was the total amount held as restricted reserves in 2018 and 2019?", answer="sum", column="")
    assert "row by row" not in response.answer and response.confidence == "low"
    each = ask(ws, "What was the change in each line from 2018 to 2019?", answer="change", column="")
    assert "row by row" in each.answer and f"Donations: {DONATIONS[2019] - DONATIONS[2018]}" in each.answer


def test_an_average_over_a_span_of_years_reads_every_year_of_the_span(ws):
    response = ask(ws, "What was the average donation income over 2017-2019?", answer="average", column="2019",
                   filters=ROW)
    assert f"{sum(DONATIONS.values()) / 3:,.2f}" in response.answer


def test_a_blank_cell_is_said_not_computed_as_zero(ws):
    response = ask(ws, "What is the total shop income for 2018 and 2019?", answer="sum", column="2019",
                   filters=[{"column": "Description", "op": "is", "value": "Shop income"}])
    assert "not computable" in response.answer and "857" not in response.answer and "455 (" not in response.answer


def test_one_stated_year_is_a_cell_not_arithmetic(ws):
    response = ask(ws, "What were grants in 2018?", answer="sum", column="2018",
                   filters=[{"column": "Description", "op": "is", "value": "Grants"}])
    assert response.answer.startswith("Grants, 2018: 912 (statement_of_funds.csv).")  # the cell, by row and column
    assert "across" not in response.structured["plan"]


@pytest.mark.parametrize("question, operation", [
    ("What was the percentage change in revenue from 2018 to 2019?", "percent change"),
    ("What was the % change in revenue from 2018 to 2019?", "percent change"),
    ("By how much did revenue increase in 2019?", "change"),
    ("How much has revenue increased by from 2018 to 2019?", "change"),
    ("How much did donations go up by from 2018 to 2019?", "change"),
    ("How far did grants come down between 2018 and 2019?", "change"),
    ("What was the revenue variance in dollars for 2019 vs 2018?", "change"),
    ("What is the average of revenue for 2018 and 2019?", "average"),
    ("What is the combined revenue for 2018 and 2019?", "sum"),
    ("What was revenue in 2019?", None),
    ("What was the weighted average discount rate in 2019?", None),  # a row's name, not an average of figures
    # a change as a share of the earlier year's figure is the percentage change; of another whole, it is not
    ("What is the change in hall hire between 2018 and 2019 as a percentage of the 2018 hall hire?", "percent change"),
    ("What is the change in hall hire between 2018 and 2019 as a percentage of 2019 income?", "change"),
])
def test_the_operation_is_read_from_the_questions_words(question, operation):
    assert across.operation_asked(question) == operation


def test_years_are_read_in_order_and_a_short_span_is_every_year_in_it():
    assert across.stated_years("from 2018 to 2019") == ["2018", "2019"]
    assert across.stated_years("between 2017-2019") == ["2017", "2018", "2019"]
    assert across.stated_years("in 2019 and 2018") == ["2019", "2018"]
    assert across.stated_years("the average margin for the three years from 2022 to 2024") == ["2022", "2023", "2024"]
    assert across.stated_years("the change in margin from 2022 to 2024") == ["2022", "2024"]
    assert across.stated_years("the figures for 2024 to 2022 respectively") == ["2024", "2023", "2022"]


def test_a_rows_figures_in_each_stated_year_are_given_in_the_questions_order(ws):
    response = ask(ws, "What were the respective grants in 2019 and 2017?", answer="list", column="Description",
                   filters=[{"column": "Description", "op": "is", "value": "Grants"}])
    assert "Grants: 860 in 2019, 880 in 2017" in response.answer


def test_the_row_the_question_names_is_found_by_code_when_the_model_filtered_none(ws):
    response = ask(ws, "What is the average of donations for 2018 and 2019?", answer="average", column="2019")
    assert response.answer.startswith(f"The average of Donations is {(1310 + 1507) / 2:,.2f} for 2018 and 2019 (2018: 1,310;")


ASSETS = ("Description,2018,2019\n"
          "\"Property, plant and equipment, gross\",\"9,398\",\"9,480\"\n"
          "\"Property, plant and equipment, net\",\"3,544\",\"3,621\"\n"
          "Total assets,\"20,386\",\"20,694\"\n")


def test_of_the_rows_the_model_s_filter_kept_the_one_the_question_names_is_the_answer(ws, write_text):
    ws.ingestor.ingest_paths([write_text("assets.csv", ASSETS)])
    ws.llm.calls.clear()
    ws.llm.script = [json.dumps({"answer": "change", "column": "", "filters": [
        {"column": "Description", "op": "contains", "value": "Property, plant and equipment"}]})]  # gross and net
    assets = next(d.doc_id for d in ws.documents() if d.filename == "assets.csv")
    response = ws.ask("How did property, plant and equipment, net change in 2019 from 2018?", mode="pipeline", doc_ids=[assets])
    assert response.answer.startswith("The change in Property, plant and equipment, net is 77 from 2018 to 2019"), response.answer


def test_a_row_is_named_by_most_of_its_words_and_only_when_one_fits_best():
    labels = ["Research, development and engineering", "Selling, general and administrative", "Total operating expenses"]
    assert across.row_named("What is the average research and development expense for 2018 and 2019?", labels) \
        == "Research, development and engineering"
    assert across.row_named("What were the total expenses in 2019 and 2018?", labels) == "Total operating expenses"
    assert across.row_named("What was the average for 2018 and 2019?", labels) is None


def test_a_bare_total_row_is_the_total_the_question_asks_for_unless_a_line_item_is_named_whole():
    labels = ["Salaries", "Pension costs", "Training costs", "Total"]
    assert across.row_named("What was the change in total staff costs from 2023 to 2024?", labels) == "Total"
    assert across.row_named("What was the total of pension costs for 2023 and 2024?", labels) == "Pension costs"
    assert across.row_named("What was the change in staff costs from 2023 to 2024?", labels) is None


def test_which_year_is_answered_by_the_year_whose_figure_is_highest_or_lowest(ws):
    response = ask(ws, "In which year were grants lowest?", answer="minimum", column="2019",
                   filters=[{"column": "Description", "op": "is", "value": "Grants"}])
    assert response.answer.startswith("Grants: 2019 (2017: 880; 2018: 912; 2019: 860)")
    response = ask(ws, "Which year had the higher donations, 2018 or 2019?", answer="maximum", column="2019", filters=ROW)
    assert response.answer.startswith("Donations: 2019 (")
    response = ask(ws, "Which FY had the higher donations?", answer="maximum", column="2019", filters=ROW)
    assert response.answer.startswith("Donations: 2019 (2017: 1,240; 2018: 1,310; 2019: 1,507)"), response.answer


def test_how_many_years_counts_the_years_whose_figure_meets_the_stated_bound(ws):
    response = ask(ws, "How many years did donations exceed 1,300?", answer="count", filters=ROW)
    assert response.answer.startswith("Donations: 2 years (")


def test_an_average_that_states_no_year_is_over_the_years_the_table_shows(ws):
    response = ask(ws, "What was the average grant income?", answer="average", column="2019",
                   filters=[{"column": "Description", "op": "is", "value": "Grants"}])
    assert response.answer.startswith(f"The average of Grants is {(880 + 912 + 860) // 3} for 2017, 2018 and 2019 (2017: 880;")


def test_a_row_the_question_names_across_stated_years_is_read_by_the_rules_without_the_model(ws):
    ws.llm.calls.clear()
    ws.llm.script = []  # any model call fails the test
    response = ws.ask("What was the change in grants from 2018 to 2019?", mode="pipeline", doc_ids=[ws.documents()[0].doc_id])
    assert response.answer.startswith("The change in Grants is -52 from 2018 to 2019 (2018: 912; 2019: 860)"), response.answer
    assert ws.llm.calls == [] and response.structured["query_path"] == "rules plan" and response.confidence == "medium"


def test_one_cell_a_row_and_a_year_name_is_read_by_the_rules_and_so_is_a_ratio_of_two(ws):
    ws.llm.calls.clear()
    ws.llm.script = []
    scope = [ws.documents()[0].doc_id]
    response = ws.ask("What did donations come to in 2019?", mode="pipeline", doc_ids=scope)
    assert response.answer.startswith("Donations, 2019: 1,507"), response.answer
    assert ws.llm.calls == [] and response.structured["query_path"] == "rules plan"
    # one year's "average" or "total" is its one figure ("the weighted average shares outstanding in 2018")
    assert ws.ask("What were average grants in 2018?", mode="pipeline", doc_ids=scope).answer.startswith("Grants, 2018: 912")
    # a ratio of two cells the question names: both cells read, the division done by code
    ratio = ws.ask("What was the ratio of grants to total income in 2018?", mode="pipeline", doc_ids=scope)
    assert ratio.answer.startswith("The ratio of Grants to Total income in 2018 is 0.41 (912 to 2,222)"), ratio.answer
    # a ratio of a cell to nothing the table holds is the model's plan
    ws.llm.script = [json.dumps({"answer": "other", "column": "", "filters": []})]
    ws.ask("What was the ratio of grants to staff numbers in 2018?", mode="pipeline", doc_ids=scope)
    assert ws.llm.calls


def test_the_years_end_said_as_the_period_still_tells_apart_two_rows_that_tie_without_it():
    labels = ["Balance, beginning of the year", "Additions", "Balance, end of the year"]
    assert across.row_named("What was the balance at the end of 2031?", labels) == "Balance, end of the year"
    assert across.row_named("What was the balance at the beginning of 2031?", labels) == "Balance, beginning of the year"
    assert across.row_named("What were the additions in the 2031 year end?", labels) == "Additions"
    assert across.unsaid_words("What was the balance at the end of 2031?", "Balance, end of the year") == set()


def test_a_total_line_and_the_line_item_of_the_same_words_are_told_apart_by_total():
    labels = ["Impairment charges", "Other operating expenses", "Total other operating expenses"]
    assert across.row_named("What was the total other operating expenses in 2018?", labels) == "Total other operating expenses"
    assert across.row_named("What were other operating expenses in 2018?", labels) == "Other operating expenses"
    # two total lines named alike: neither is the one
    assert across.row_named("What were the total current items in 2019?",
                            ["Total current assets", "Total current liabilities"]) is None


@pytest.fixture
def statement(tmp_path, embedder, write_text):
    """A knowledge base of one report statement written as CSV, with the scripted model:
    `ws, scope = statement("name.csv", text)`."""
    opened = []

    def open_one(filename: str, text: str):
        ws = Workspace(Settings(data_dir=tmp_path / f"kb{len(opened)}"), embedder, ScriptedLLM([]))
        opened.append(ws)
        ws.ingestor.ingest_paths([write_text(filename, text)])
        return ws, [ws.documents()[0].doc_id]
    yield open_one
    for ws in opened:
        ws.close()


def test_a_units_row_under_the_years_gives_the_figures_their_scale(statement):
    text = ("Description,2018,2019\n"
            ",£m,£m\n"
            "Grants,91.2,86.0\n"
            "Donations,131.0,150.7\n")
    ws, scope = statement("funds_in_millions.csv", text)
    response = ws.ask("What was the change in grants from 2018 to 2019?", mode="pipeline", doc_ids=scope)
    assert response.answer.startswith("The change in Grants is -£5.20 million from 2018 to 2019 "
                                      "(2018: £91.20 million; 2019: £86 million)"), response.answer


def test_a_scale_with_an_exception_goes_with_every_row_but_those_it_names(statement):
    text = ('"(in thousands, except per share data)",2018,2019\n'
            "Net income,1200,1500\n"
            "Basic net income per share,1.20,1.50\n"
            "Deferred tax assets (see Note 4),300,360\n")
    ws, scope = statement("results.csv", text)
    income = ws.ask("What was the change in net income from 2018 to 2019?", mode="pipeline", doc_ids=scope)
    assert income.answer.startswith("The change in Net income is 300 thousand from 2018 to 2019"), income.answer
    per_share = ws.ask("What was the change in basic net income per share from 2018 to 2019?", mode="pipeline",
                       doc_ids=scope)
    assert "is 0.3 from" in per_share.answer and "thousand" not in per_share.answer, per_share.answer
    assets = ws.ask("What was the deferred tax assets in 2019?", mode="pipeline", doc_ids=scope)
    assert "360 thousand" in assets.answer and "Note 4" not in assets.answer.split("(results.csv)")[0], assets.answer


def test_a_row_printed_in_percent_is_in_percent_under_a_tables_scale(statement):
    text = ('"($ in millions)",2018,2019\n'
            "Operating income,118.6,120.7\n"
            "Cost of capital,9.5%,9.0%\n")
    ws, scope = statement("returns.csv", text)
    rate = ws.ask("What was the change in cost of capital from 2018 to 2019?", mode="pipeline", doc_ids=scope)
    assert "(2018: 9.50%; 2019: 9%)" in rate.answer and "million" not in rate.answer, rate.answer
    assert "is -0.5 percentage points from 2018 to 2019" in rate.answer, rate.answer  # two rates differ in points
    # a rate's percentage change is said in percentage points first, its relative change beside it
    relative = ws.ask("What was the percentage change in cost of capital from 2018 to 2019?", mode="pipeline",
                      doc_ids=scope)
    assert "is -0.5 percentage points (-5.26% relative) from 2018 to 2019" in relative.answer, relative.answer
    income = ws.ask("What was the change in operating income from 2018 to 2019?", mode="pipeline", doc_ids=scope)
    assert "2019: $120.70 million" in income.answer, income.answer


def test_a_year_end_the_question_states_is_the_column_of_that_year(statement):
    text = ("Description,2018,2019\n"
            "Net sales,900,1100\n"
            "Cost of goods sold,500,640\n")
    ws, scope = statement("results.csv", text)
    cell = ws.ask("What is the Cost of goods sold for year ended December 31, 2018?", mode="pipeline", doc_ids=scope)
    assert cell.answer.startswith("Cost of goods sold, 2018: 500") and "could not apply" not in cell.answer, cell.answer
    assert {"condition": "December 2018", "column": "2018", "how": "in the plan",
            "note": "the column it heads"} in cell.structured["conditions"]
    # the model read the other year's column: moved to the one the stated year-end heads
    ws.llm.script = [json.dumps({"answer": "sum", "column": "2019", "filters": [
        {"column": "Description", "op": "is", "value": "Net sales"}]})]
    moved = ws.ask("What were the net sales and returns as of December 31, 2018 in total?", mode="pipeline", doc_ids=scope)
    assert "900" in moved.answer and "1,100" not in moved.answer, moved.answer
    # a month of sales is not the year's column: said, not read from it
    ws.llm.script = [json.dumps({"answer": "sum", "column": "2018", "filters": [
        {"column": "Description", "op": "is", "value": "Net sales"}]})]
    month = ws.ask("What were our net sales and returns in December 2018 in total?", mode="pipeline", doc_ids=scope)
    assert "could not apply" in month.answer, month.answer


def test_a_section_heading_without_figures_is_not_the_row_a_question_names(statement):
    text = ("Description,2018,2019\n"
            "Revenue:,,\n"
            "Products,600,660\n"
            "Services,400,440\n"
            "Revenues net,1000,1100\n")
    ws, scope = statement("revenue.csv", text)
    response = ws.ask("What was the change in revenue from 2018 to 2019?", mode="pipeline", doc_ids=scope)
    assert response.answer.startswith("The change in Revenues net is 100 from 2018 to 2019"), response.answer


def model_plans(ws, answer: str, column: str = "", **filter_) -> None:
    """The scripted model's next plan: `answer` over `column`, with one filter (column, op, value) if given."""
    filters = [{"column": filter_["on"], "op": filter_["op"], "value": filter_.get("value", "")}] if filter_ else []
    ws.llm.script += [json.dumps({"answer": answer, "column": column, "filters": filters})]


def test_the_row_a_question_says_word_for_word_is_read_whatever_row_the_model_chose(statement):
    text = ("Description,2018,2019\n"
            "Amounts owed by members of the group,0.3,0.3\n"
            "Amounts owed to members of the group,0.8,0.6\n"
            "Excluding: Free cash flow (non-GAAP measure),533,497\n")
    ws, scope = statement("balances.csv", text)
    # "to", not "by": most of the words of both labels are in the question; only one is said whole
    model_plans(ws, "percent change", on="Description", op="is", value="Amounts owed by members of the group")
    owed = ws.ask("What is the percentage change in the amounts owed to members of the group from 2018 to 2019?",
                  mode="pipeline", doc_ids=scope)
    assert owed.answer.startswith("The percentage change in Amounts owed to members of the group is -25.00%"), owed.answer
    # a label's section ("Excluding:") and closing bracket are not what a question says
    model_plans(ws, "percent change", on="2018", op="is not blank")
    flow = ws.ask("What is the percentage increase / (decrease) in free cash flow from 2018 to 2019?",
                  mode="pipeline", doc_ids=scope)
    assert "-6.75%" in flow.answer and "row by row" not in flow.answer, flow.answer


def test_the_number_of_a_header_names_is_its_figure_and_a_row_labelled_with_the_date_applies_it(statement):
    text = (",Number of Shares,Weighted-Average Exercise Price Per Share\n"
            "\"Outstanding at September 30, 2017\",\"2,845,866\",$4.21\n"
            "Granted,\"299,397\",$8.60\n"
            "\"Outstanding at September 30, 2018\",\"2,806,364\",$4.75\n")
    ws, scope = statement("options.csv", text)
    model_plans(ws, "count", "Number of Shares", on="column 1", op="is", value="Outstanding at September 30, 2018")
    shares = ws.ask("What is the number of shares outstanding as of September 30, 2018?", mode="pipeline", doc_ids=scope)
    assert "2,806,364" in shares.answer and "could not apply" not in shares.answer, shares.answer


def test_a_row_labelled_with_the_stated_month_applies_it_where_its_year_heads_the_columns(statement):
    text = ("Description,2018,2019\n"
            "Outstanding at 1 April,\"776,045\",\"690,791\"\n"
            "Released,\"(19,046)\",\"(365,162)\"\n"
            "Outstanding at 31 March,\"690,791\",\"320,872\"\n")
    ws, scope = statement("awards.csv", text)
    change = ws.ask("What was the change in the amount outstanding at 31 March 2019 from 2018?", mode="pipeline",
                    doc_ids=scope)
    assert "-369,919" in change.answer and "could not apply" not in change.answer, change.answer
    model_plans(ws, "list", "Description")
    years = ws.ask("For which years was the amount outstanding at 31 March calculated?", mode="pipeline", doc_ids=scope)
    assert years.answer.startswith("Outstanding at 31 March: 2018 and 2019"), years.answer
    assert "could not apply" not in years.answer


def test_the_years_a_table_covers_are_its_year_columns(ws):
    response = ask(ws, "Which financial years' information is shown in the table?", answer="list", column="Description")
    assert response.answer.startswith("The table gives figures for 2017, 2018 and 2019"), response.answer


def test_the_rows_under_a_heading_are_read_in_order_to_the_line_that_totals_them():
    from core.annotations.plan import rows_under
    printed = [("Deferred tax assets: Pensions", True), ("Deferred tax assets: Other", True),
               ("Gross deferred tax assets", True), ("Deferred tax liabilities: Goodwill", True),
               ("Deferred tax liabilities: Other", True)]
    assert rows_under("deferred tax liabilities", printed) == (
        "Deferred tax liabilities", ["Deferred tax liabilities: Goodwill", "Deferred tax liabilities: Other"])
    # a ruled table keeps its headings as rows without figures: the rows after one, to the next or a total
    ruled = [("Equity securities", False), ("Canadian", True), ("Foreign", True), ("Debt securities", False),
             ("Canadian", True), ("Alternative investments", False), ("Hedge funds", True), ("Total", True)]
    assert rows_under("equity securities", ruled) == ("Equity securities", ["Canadian", "Foreign"])
    assert rows_under("alternative investments", ruled) == ("Alternative investments", ["Hedge funds"])
    assert rows_under("fixed assets", ruled) == ("", [])
    # a total line named: the lines it adds up, above it back to a heading or an earlier total
    costs = [("Staff costs", True), ("Cost of sales", True), ("Marketing", True), ("Total staff costs", True),
             ("Rent", True), ("Utilities", True), ("Total overheads", True)]
    assert rows_under("total overheads", costs) == ("Total overheads", ["Rent", "Utilities"])
    assert rows_under("total staff costs", costs) == ("Total staff costs", ["Staff costs", "Cost of sales", "Marketing"])


def test_the_items_under_a_heading_are_listed_or_counted_without_the_model(statement):
    text = ("Description,2018,2019\n"
            "Income from charitable activities:,,\n"
            "Shop sales,120,130\n"
            "Event tickets,40,55\n"
            "Total income from charitable activities,160,185\n"
            "Donations,300,320\n")
    ws, scope = statement("income.csv", text)
    listed = ws.ask("What are the items under income from charitable activities?", mode="pipeline", doc_ids=scope)
    assert listed.answer.startswith("Listed under Income from charitable activities (income.csv): Shop sales; Event "
                                    "tickets."), listed.answer
    counted = ws.ask("How many components are there under income from charitable activities?", mode="pipeline",
                     doc_ids=scope)
    assert counted.answer.startswith("2 items are listed under"), counted.answer
    assert not ws.llm.calls  # read by code


def test_a_share_of_one_cell_in_another_is_computed_by_code_from_the_cells_the_question_names(statement):
    ws, scope = statement("obligations.csv", "Obligation,Total,Less than 1 year,More than 5 years\n"
                                             "Leases,\"1,000\",400,250\nPurchase obligations,800,600,100\n")
    share = ws.ask("What is the percentage of the purchase obligations of more than 5 years in the total purchase "
                   "obligations?", mode="pipeline", doc_ids=scope)
    assert share.answer.startswith("More than 5 years is 12.50% of Total for Purchase obligations (100 of 800)"), \
        share.answer
    ws, scope = statement("fair_value.csv", "Description,Quoted prices (Level 1),Observable inputs (Level 2)\n"
                                            "Bonds,100,300\nFunds,0,50\nTotal,100,350\n")
    part = ws.ask("What proportion of level 2 inputs is made up of funds?", mode="pipeline", doc_ids=scope)
    assert part.answer.startswith("Funds is 14.29% of Total in Observable inputs (Level 2) (50 of 350)"), \
        part.answer  # the column's total
    ws, scope = statement("credits.csv", "Description,2019\nState credits,30\nFederal credits,120\n")
    ratio = ws.ask("What was the state credits as a ratio of federal credits?", mode="pipeline", doc_ids=scope)
    assert ratio.answer.startswith("The ratio of State credits to Federal credits in 2019 is 0.25 (30 to 120)"), ratio.answer
    assert not ws.llm.calls  # read by code


def test_a_blank_header_is_no_name_an_answer_says_and_the_groups_are_named_once(statement):
    ws, scope = statement("segments.csv", "Segment,,Employees\nInternational,793.4,120\nFoodservice,934.2,310\n"
                                          "Retail,512.0,95\n")
    ws.llm.script += [json.dumps({"answer": "sum", "column": "column 2", "filters": [
        {"column": "Segment", "op": "is", "value": "International"}, {"column": "Segment", "op": "is", "value": "Foodservice"}]})]
    response = ws.ask("What were the net sales of the International and Foodservice segments respectively?",
                      mode="pipeline", doc_ids=scope)
    assert response.answer.startswith("Total figure per Segment (segments.csv): International: 793.40; Foodservice: 934.20"), \
        response.answer


def test_a_label_said_as_another_columns_value_is_that_value_not_the_row(statement):
    ws, scope = statement("cities.csv", "City,District,Population (2009)\nTel Aviv,Tel Aviv,400000\nHolon,Tel Aviv,60000\n"
                                        "Bat Yam,Tel Aviv,50000\nLod,Center,50000\n")
    ws.llm.script += [json.dumps({"answer": "count", "column": "City", "filters": [
        {"column": "District", "op": "is", "value": "Tel Aviv"}, {"column": "Population (2009)", "op": "<", "value": "65000"}]})]
    response = ws.ask("How many cities in the Tel Aviv district have a population under 65,000?", mode="pipeline",
                      doc_ids=scope)
    assert response.answer.startswith("2 cities with "), response.answer


def test_a_financial_year_over_two_calendar_years_is_one_column(statement):
    ws, scope = statement("club_accounts.csv", "€ thousand,2017/2018,2018/2019\n"
                                               "Match receipts,713,828\n"
                                               "Bar takings,120,95\n")
    ws.llm.script = []  # read by the rules: the row and both financial years are named
    response = ws.ask("What was the change in match receipts in 2018/2019 from 2017/2018?", mode="pipeline", doc_ids=scope)
    # (the corner "€ thousand" is the table's scale: each figure is said with it)
    assert response.answer.startswith("The change in Match receipts is €115 thousand"), response.answer
    assert "2017/2018: €713 thousand" in response.answer and "2018/2019: €828 thousand" in response.answer
    assert "could not apply" not in response.answer
    assert across.periods_in("sales in 2018/19 against 2017 and 2016/2018") == ["2018/2019", "2017", "2016", "2018"]


def test_a_figure_per_share_is_not_scaled_and_per_share_names_the_row_not_a_group(statement):
    ws, scope = statement("results.csv", "In thousands,2019,2018,2017\n"
                                         "Net income,\"$53,294\",\"$61,431\",\"$79,745\"\n"
                                         "Interest expense,\"$(17,334)\",\"$(6,442)\",\"$(5,101)\"\n"
                                         "Earnings per common share — Basic,$2.45,$2.74,$3.51\n"
                                         "Earnings per common share — Diluted,$2.41,$2.70,$3.30\n")
    ws.llm.script = []  # read by the rules
    response = ws.ask("What is the earnings per common diluted share for 2019 to 2017 respectively?", mode="pipeline",
                      doc_ids=scope)
    assert response.answer.startswith("Earnings per common share — Diluted: $2.41 in 2019, $2.70 in 2018, $3.30 in 2017 ("), \
        response.answer
    response = ws.ask("What was the average interest expense for 2018 and 2019?", mode="pipeline", doc_ids=scope)
    assert "is -$11,888 thousand for 2018 and 2019 (2018: -$6,442 thousand; 2019: -$17,334 thousand)" in response.answer


def test_which_of_two_stated_years_is_higher_compares_those_years_and_is_no_range_of_numbers(ws):
    response = ask(ws, "Between 2017 and 2018, which year had higher grants?", answer="maximum", column="2018",
                   filters=[{"column": "Description", "op": "is", "value": "Grants"}])
    assert response.answer.startswith("Grants: 2018 (2017: 880; 2018: 912)"), response.answer
    assert "could not apply" not in response.answer


def test_the_sum_or_difference_of_two_named_rows_in_a_year_is_computed_by_code_from_their_cells(ws):
    ws.llm.calls.clear()
    ws.llm.script = []  # read by the rules: any model call fails the test
    scope = [ws.documents()[0].doc_id]
    response = ws.ask("What was the sum of donations and grants in 2018?", mode="pipeline", doc_ids=scope)
    assert response.answer.startswith("The sum of Donations and Grants in 2018 is 2,222 (Donations: 1,310; Grants: 912)"), \
        response.answer
    response = ws.ask("What is the difference between donations and grants in 2019?", mode="pipeline", doc_ids=scope)
    assert response.answer.startswith("The difference between Donations and Grants in 2019 is 647 (")
    assert ws.llm.calls == [] and response.structured["query_path"] == "rules plan"


def test_a_sum_of_two_rows_inside_a_share_is_no_answer_of_two_cells(statement):
    from core.annotations.plan import two_cells
    ws, _ = statement("income.csv", "Description,2019,2018\nDonations,\"1,310\",\"1,200\"\nGrants,912,880\n"
                                    "Total income,\"2,900\",\"2,700\"\n")
    (table,) = [t for t in ws.pipeline.tables.tables() if t.kind == "rows"]
    assert two_cells("What was the sum of donations and grants in 2019?", table, ws.pipeline.executor).rows == [
        (2222, 1310, 912)]
    for question in ("What proportion of total income in 2019 was the sum of donations and grants?",
                     "What is the sum of donations and grants over total income in 2019?"):
        assert two_cells(question, table, ws.pipeline.executor) is None, question


def test_two_values_named_on_many_records_are_no_two_cells(statement):
    from core.annotations.plan import two_cells
    ws, _ = statement("orders.csv", "Customer,Total\nACME,10\nGlobex,5\nACME,7\nGlobex,1\n")
    (table,) = [t for t in ws.pipeline.tables.tables() if t.kind == "rows"]
    assert two_cells("What is the total of ACME and Globex orders?", table, ws.pipeline.executor) is None
    ws, _ = statement("regions.csv", "Region,Total\nNorth,10\nSouth,5\n")
    (table,) = [t for t in ws.pipeline.tables.tables() if t.kind == "rows"]
    assert two_cells("What is the total of North and South?", table, ws.pipeline.executor).rows == [(15, 10, 5)]


def test_the_lines_a_total_adds_up_are_counted_without_the_model(statement):
    ws, scope = statement("overheads.csv", "Description,2019,2018\nRent,40,38\nUtilities,12,11\nInsurance,5,5\n"
                                           "Total overheads,57,54\nNet result,9,7\n")
    ws.llm.script = []  # read by the rules
    response = ws.ask("How many categories are there under total overheads?", mode="pipeline", doc_ids=scope)
    assert response.answer.startswith("Total overheads adds up 3 items (overheads.csv): Rent; Utilities; Insurance."), \
        response.answer


def test_which_years_a_rows_figure_meets_a_stated_bound_is_read_by_the_rules(ws):
    ws.llm.calls.clear()
    ws.llm.script = []  # read by the rules: any model call fails the test
    scope = [ws.documents()[0].doc_id]
    response = ws.ask("In which year were grants less than 870?", mode="pipeline", doc_ids=scope)
    assert response.answer.startswith("Grants: 2019 (2017: 880; 2018: 912; 2019: 860)"), response.answer
    assert "could not apply" not in response.answer
    response = ws.ask("How many years did donations exceed 1,300?", mode="pipeline", doc_ids=scope)
    assert response.answer.startswith("Donations: 2 years (") and ws.llm.calls == []


def test_a_bound_said_in_millions_is_compared_with_a_rows_figures_in_thousands(pdf_statement):
    ws, scope = pdf_statement(["2017", "2018", "2019"], [("Research", ["7,949", "6,137", "4,804"]),
                                                         ("Marketing", ["2,193", "2,315", "2,000"])],
                              caption="Expenses by function were as follows (in thousands):")
    ws.llm.script = []  # read by the rules
    response = ws.ask("From 2017 to 2019, how many of the years was research more than 5 million?", mode="pipeline",
                      doc_ids=scope)
    assert response.answer.startswith("Research: 2 years ("), response.answer  # 7,949 and 6,137 thousand
    response = ws.ask("In which year was marketing more than 2,200 thousand?", mode="pipeline", doc_ids=scope)
    assert response.answer.startswith("Marketing: 2018 ("), response.answer  # the table's own scale: as written


def test_words_of_several_rows_name_the_one_row_they_all_say_not_every_row_holding_one(statement):
    ws, scope = statement("per_share.csv", "Description,2018,2017\nNumerator: Net income,120,410\n"
                                           "Denominator: Shares used in basic computation,279,234\n"
                                           "Denominator: Dilutive impact of equity awards,5,6\n"
                                           "Denominator: Shares used in diluted computation,284,240\n"
                                           "Net Income per Share: Basic,0.43,1.75\nNet Income per Share: Diluted,0.42,1.71\n")
    ws.llm.script = []  # read by the rules
    response = ws.ask("What was the change in the basic net income per share between 2017 and 2018?", mode="pipeline",
                      doc_ids=scope)
    assert response.answer.startswith("The change in Net Income per Share: Basic is -1.32 from 2017 to 2018"), \
        response.answer


def test_a_change_in_one_stated_year_is_from_the_year_before_it(statement):
    ws, scope = statement("audit_fees.csv", "Description,2019,2018\nAudit fees,410,380\nAudit-related fees,153,107\n"
                                            "Net decrease in cash,(47),(7)\n")
    ws.llm.script = []  # read by the rules
    response = ws.ask("What is the percentage change in audit-related fees in 2019?", mode="pipeline", doc_ids=scope)
    assert response.answer.startswith("The percentage change in Audit-related fees is 42.99% from 2018 to 2019"), \
        response.answer
    response = ws.ask("What is the change in audit fees in 2019?", mode="pipeline", doc_ids=scope)
    assert response.answer.startswith("The change in Audit fees is 30 from 2018 to 2019"), response.answer
    # a change word that only names the row asks for the row's figure, not a change: the rules leave it to the plan
    ws.llm.script = [json.dumps({"answer": "sum", "column": "2019",
                                 "filters": [{"column": "Description", "op": "is", "value": "Net decrease in cash"}]})]
    response = ws.ask("What was the net decrease in cash in 2019?", mode="pipeline", doc_ids=scope)
    assert response.answer.startswith("Net decrease in cash, 2019: -47"), response.answer


def test_a_year_end_said_over_two_year_columns_is_when_they_end(statement):
    ws, scope = statement("results.csv", "Description,2018,2019\nNet sales,900,1100\nCost of goods sold,500,640\n")
    ws.llm.script = []  # read by the rules
    response = ws.ask("What is the total cost of goods sold for the years ended December 31, 2018 and 2019?",
                      mode="pipeline", doc_ids=scope)
    assert response.answer.startswith("The total of Cost of goods sold is 1,140 for 2018 and 2019"), response.answer
    assert "could not apply" not in response.answer


def test_of_two_tables_selected_a_period_goes_to_the_one_whose_columns_its_years_head():
    from types import SimpleNamespace as Selection
    from core.annotations.route import fitting
    from core.annotations.tables import TableInfo

    def table(kind, printed, values, dates=None):
        return TableInfo(kind, "d", f"{kind}.csv", None, kind, list(printed), printed, values=values, dates=dates or {})
    dated = {"date": {"twin": "date_date"}}
    record = Selection(table=table("record", {"issuer": "Issuer", "date": "Date",
                                              "date_date": "Date as an ISO date (YYYY-MM-DD)"}, ["Acme", "12/03/2019"], dated))
    statement = Selection(table=table("rows", {"description": "Description", "c_2019": "2019", "c_2018": "2018"},
                                      ["Selling expenses"]))
    question = "What were selling expenses for the years ended December 31, 2018 and 2019?"
    assert fitting(question, [record, statement]) is statement
    assert fitting("What was invoiced in December?", [statement, record]) is record  # a period of dated rows
    # a log chosen first whose dates hold the year keeps it: a report's header naming the year is no better
    log = Selection(table=table("rows", {"date": "Date", "date_date": "Date as an ISO date (YYYY-MM-DD)", "ward": "Ward"},
                                ["North", "14/02/2019"], dated))
    assert fitting("How many patients did North see in February 2019?", [log, statement]) is log


def test_total_beside_a_named_row_is_the_figure_asked_not_the_total_row_as_well(pdf_statement):
    ws, scope = pdf_statement(["2018", "2019"], [("North", ["400", "420"]), ("South", ["310", "355"]),
                                                 ("Total", ["710", "775"])])
    south = ws.ask("What were the total sales from South in 2019?", mode="pipeline", doc_ids=scope)
    assert south.answer.startswith("South, 2019: 355 ("), south.answer
    total = ws.ask("Between 2018 and 2019, which year had higher total sales?", mode="pipeline", doc_ids=scope)
    assert total.answer.startswith("Total: 2019 (2018: 710; 2019: 775)"), total.answer


def test_a_year_that_labels_a_row_reads_that_rows_cell_of_the_column_the_question_names(pdf_statement):
    ws, scope = pdf_statement(["Property leases", "Vehicle leases"],
                              [("2031", ["$512", "$28"]), ("2032", ["488", "27"]), ("Thereafter", ["1,905", "64"]),
                               ("Total lease payments (1)", ["2,905", "119"])], caption="Future lease payments (in millions):",
                              notes=["(1) As of March 31, 2030, including renewal options."])  # a date no row has
    response = ws.ask("What are the vehicle leases for 2032?", mode="pipeline", doc_ids=scope)
    assert response.answer.startswith("2032, Vehicle leases: 27 million ("), response.answer
    assert ws.llm.calls == []  # read by the rules
    # a year no row is labelled with, or no one column named, is not this rule's
    assert not ws.ask("What were the leases for 2032?", mode="pipeline", doc_ids=scope).answer.startswith("2032")
    assert not ws.ask("What are the vehicle leases for 2035?", mode="pipeline", doc_ids=scope).answer.startswith("2035")


def test_which_years_the_table_covers_are_its_year_columns_any_row_fills(pdf_statement):
    ws, scope = pdf_statement(["2029", "2030", "2031"], [("Ticket sales", ["410", "455", ""]),
                                                         ("Catering", ["120", "131", ""])])
    response = ws.ask("What years does the table include data for?", mode="pipeline", doc_ids=scope)
    assert response.answer.startswith("The table gives figures for 2029 and 2030 ("), response.answer
    assert ws.llm.calls == []  # read by the rules


def test_a_word_other_labels_share_does_not_widen_the_one_row_a_question_names(pdf_statement):
    ws, scope = pdf_statement(["2018", "2019"], [("Deferred tax assets:", []), ("Inventory", ["40", "52"]),
                                                 ("Accrued leave", ["12", "15"]), ("Total deferred tax assets", ["52", "67"]),
                                                 ("Less: valuation allowance", ["(30)", "(33)"]),
                                                 ("Deferred tax liabilities:", []), ("Depreciation", ["(8)", "(9)"]),
                                                 ("Net deferred tax assets", ["14", "25"])])
    response = ws.ask("What is the valuation allowance on deferred items in 2019?", mode="pipeline", doc_ids=scope)
    assert response.answer.startswith("Less: valuation allowance, 2019: -33 ("), response.answer


def test_a_year_end_beside_its_year_is_the_period_and_a_note_pointer_is_no_word_of_the_row(statement):
    ws, scope = statement("holdings.csv", "Description,2018,2019\nAt beginning of the year,900,1000\n"
                                          "Additions (Note 3(a)),250,300\nDisposals (Note (b)),-150,-120\n"
                                          "At end of the year,1000,1180\n")
    ws.llm.script = []
    response = ws.ask("How much is the change in disposals between 2018 year end and 2019 year end?", mode="pipeline",
                      doc_ids=scope)
    assert response.answer.startswith("The change in Disposals (Note (b)) is 30 from 2018 to 2019"), response.answer


def test_a_percentage_change_names_its_row_with_the_words_after_the_operation(pdf_statement):
    ws, scope = pdf_statement(["2018", "2019"], [("Product", ["800", "840"]), ("Percentage of revenue", ["80%", "75%"]),
                                                 ("Service", ["200", "280"]), ("Percentage of revenue", ["20%", "25%"]),
                                                 ("Total", ["1,000", "1,120"])])
    response = ws.ask("What was the percentage change in total revenue between 2018 and 2019?", mode="pipeline",
                      doc_ids=scope)
    assert response.answer.startswith("The percentage change in Total is 12.00% from 2018 to 2019"), response.answer


def test_which_year_a_figure_was_negative_is_a_bound_at_zero(statement):
    ws, scope = statement("finance.csv", "Description,2017,2018,2019\n\"Finance income (cost), net\",120,-45,-10\n"
                                         "Other,5,6,7\n")
    ws.llm.script = []
    response = ws.ask("In which year was Finance income (cost), net negative?", mode="pipeline", doc_ids=scope)
    assert response.answer.startswith("Finance income (cost), net: 2018 and 2019 ("), response.answer


def test_respectively_or_a_total_rows_own_word_asks_each_years_figure_and_both_asks_their_sum(pdf_statement):
    ws, scope = pdf_statement(["2018", "2019"], [("Staff costs", ["300", "320"]), ("Premises", ["600", "630"]),
                                                 ("Total operating costs", ["900", "950"])])
    each = ws.ask("What was the Total operating costs in 2019 and 2018?", mode="pipeline", doc_ids=scope)
    assert each.answer.startswith("Total operating costs: 950 in 2019, 900 in 2018 ("), each.answer
    each = ws.ask("What was the average staff costs for 2018 and 2019 respectively?", mode="pipeline", doc_ids=scope)
    assert each.answer.startswith("Staff costs: 300 in 2018, 320 in 2019 ("), each.answer
    both = ws.ask("What is the total operating costs in both 2019 and 2018?", mode="pipeline", doc_ids=scope)
    assert both.answer.startswith("The total of Total operating costs is 1,850 for 2018 and 2019"), both.answer


def test_how_much_a_figure_decreased_by_is_the_size_of_its_fall(statement):
    ws, scope = statement("rates.csv", "Description,2018,2019\nDiscount rate,4.5%,3.9%\nHeadcount,120,104\n")
    ws.llm.script = []
    response = ws.ask("How much did headcount decrease by from 2018 to 2019?", mode="pipeline", doc_ids=scope)
    assert response.answer.startswith("The decrease in Headcount is 16 from 2018 to 2019"), response.answer
    rose = ws.ask("How much did headcount change from 2018 to 2019?", mode="pipeline", doc_ids=scope)
    assert rose.answer.startswith("The change in Headcount is -16 from 2018 to 2019"), rose.answer
    apart = ws.ask("What is the difference in headcount between 2018 and 2019?", mode="pipeline", doc_ids=scope)
    assert apart.answer.startswith("The difference in Headcount is 16 between 2018 and 2019"), apart.answer


def test_a_percentage_change_between_two_negatives_is_of_their_size_and_across_zero_of_the_firsts():
    assert across.percent_change(-200.0, -500.0) == 150.0  # cash used grew by half again and more
    assert across.percent_change(-200.0, -100.0) == -50.0
    assert across.percent_change(-100.0, 50.0) == 150.0
    assert across.percent_change(0.0, 5.0) is None
    assert str(across.percent_change(-0.1, -0.1)) == "0.0"  # no "-0.00 %"


def test_a_question_that_says_more_than_the_row_holds_is_left_to_the_model_and_the_text(pdf_statement):
    ws, scope = pdf_statement(["2018", "2019"], [("Research expense", ["410", "455"]), ("Selling expense", ["90", "95"])])
    ws.llm.script = [json.dumps({"answer": "not in table", "column": "", "filters": []})] * 3
    ws.ask("What was the research expense tied to the discontinued marine sensors line in 2019?", mode="pipeline",
           doc_ids=scope)
    assert ws.llm.calls  # the rules did not answer with the whole row's figure
    ws.llm.calls.clear()
    response = ws.ask("What was the research expense in 2019?", mode="pipeline", doc_ids=scope)
    assert response.answer.startswith("Research expense, 2019: 455 (") and not ws.llm.calls


def test_how_many_of_a_report_row_is_its_figure_not_a_count_of_the_row(statement):
    """"How many were granted?" over a share-award note: the Granted row's figure. A plan that counts the rows
    labelled Granted says 1 whatever was granted: it goes to the query writer, which reads the cell. (The
    opening and closing balances share a label, so the labels are not all different.)"""
    ws, scope = statement("share_awards.csv", "Description,Awards,Fair value ($)\n"
                                              "Unvested,\"1,200\",14.10\n"
                                              "Granted,375,15.20\n"
                                              "Vested,-190,13.90\n"
                                              "Unvested,\"1,385\",14.60\n")
    table = ws.pipeline.tables.tables()[0]
    names = {label: name for name, label in table.printed.items()}
    cell = f'SELECT "{names["Awards"]}" FROM {table.name} WHERE "{names["Description"]}" = \'Granted\''
    ws.llm.script = [json.dumps({"column": "", "answer": "count",
                                 "filters": [{"column": "Description", "op": "is", "value": "Granted"}]}),
                     json.dumps({"sql": cell})]
    response = ws.ask("How many were granted?", mode="pipeline", doc_ids=scope)
    assert "375" in response.answer and not response.answer.startswith(("0 ", "1 ")), response.answer
    tried = [a["description"] for e in ws.turn(response.trace_id)["trace"]["events"] for a in e["outputs"].get("attempts", [])]
    assert any("it counted the one row Description names" in step for step in tried), tried


def test_a_figure_the_query_adds_or_subtracts_from_one_scale_is_said_in_it_and_a_ratio_is_not(pdf_statement):
    ws, scope = pdf_statement(["2018", "2019"], [("Hardware", ["1,210", "1,460"]), ("Software", ["380", "415"])],
                              caption="Net sales by product were as follows (in thousands):")
    table = ws.pipeline.tables.tables()[0]
    names = {label: name for name, label in table.printed.items()}

    def cell(row: str) -> str:
        return f'(SELECT "{names["2019"]}" FROM {table.name} WHERE "{names["Description"]}" = \'{row}\')'
    other = json.dumps({"answer": "other", "column": "", "filters": []})
    ws.llm.script = [other, json.dumps({"sql": f"SELECT {cell('Hardware')} - {cell('Software')} AS difference"})]
    response = ws.ask("By how much did hardware sales exceed software sales in 2019?", mode="pipeline", doc_ids=scope)
    assert "1,045 thousand" in response.answer, response.answer
    ws.llm.calls.clear()
    ws.llm.script = [other, json.dumps({"sql": f"SELECT {cell('Hardware')} / {cell('Software')} AS result"})]
    ratio = ws.ask("How many times software sales were hardware sales in 2019?", mode="pipeline", doc_ids=scope)
    assert "thousand" not in ratio.answer and "3.5" in ratio.answer, ratio.answer


def test_a_condition_on_a_reports_row_labels_is_said_by_the_label_not_by_the_corners_name(ws):
    response = ask(ws, "How much did the income lines add up to in 2019?", answer="sum", column="2019",
                   filters=[{"column": "Description", "op": "contains", "value": "income"}])
    assert "is 455 for “income”" in response.answer, response.answer  # (a Total row is no line of its own)
    assert "Description" not in response.answer  # ingest's name for the blank corner over the labels


def test_a_financial_year_is_the_split_year_column_it_ends_in(tmp_path, embedder, write_text):
    ws = Workspace(Settings(data_dir=tmp_path / "fy"), embedder, ScriptedLLM([]))
    ws.ingestor.ingest_paths([write_text("club_accounts.csv", "Item,2022/2023,2023/2024\nBar takings,\"4,210\",\"4,655\"\n"
                                                              "Hall hire,980,1040\n")])
    ws.llm.script = [json.dumps({"answer": "value", "column": "2023/2024", "filters": [
        {"column": "Item", "op": "is", "value": "Hall hire"}]})]
    response = ws.ask("What was the hall hire in FY2024?", mode="pipeline", doc_ids=[ws.documents()[0].doc_id])
    assert "1,040" in response.answer and "could not apply" not in response.answer, response.answer
    ws.close()


def test_a_year_names_a_split_year_column_only_where_no_column_is_that_year_alone():
    from core.annotations.plan import Column

    split = [Column("a", "2022/2023", "number"), Column("b", "2023/2024", "number")]
    assert across.columns_for_years(["2024"], split) == [split[1]]  # the financial year that ends in 2024
    assert across.columns_for_years(["2025"], split) is None
    plain = [*split, Column("c", "2024", "number")]
    assert across.columns_for_years(["2024"], plain) == [plain[2]]


def test_a_quarter_or_a_financial_year_said_alone_names_the_one_column_it_heads():
    from core.annotations.conditions import periods
    from core.annotations.plan import Column, period_column

    # a year over its quarters and its whole: "2024/25" printed over "Q1 | Q2 | Q3 | Q4 | Year"
    quarters = [Column(f"c{i}", f"2024/25 {q}", "number") for i, q in enumerate(["Q1", "Q2", "Q3", "Q4", "Year"])]
    assert across.columns_for_years(["2024/2025"], quarters) == [quarters[4]]
    assert period_column(periods("How many trips in the third quarter?")[0], quarters) is quarters[2]
    two_years = quarters + [Column(f"d{i}", f"2023/24 {q}", "number") for i, q in enumerate(["Q1", "Q2", "Q3", "Q4"])]
    assert period_column(periods("How many trips in Q3?")[0], two_years) is None  # which year's Q3 is not said


def test_a_longer_row_whose_every_word_is_asked_is_the_row_not_the_shorter_one_said_whole(pdf_statement):
    ws, scope = pdf_statement(["2018", "2019"], [("Interest received", ["1,284", "1,826"]),
                                                 ("Other (expense) income", ["3,817", "(2,676)"]),
                                                 ("Total other (expense) income, net", ["1,758", "(2,935)"])])
    ws.llm.script = []  # read by the rules
    response = ws.ask("What was the change in the net Total other (expense) income between 2018 and 2019?",
                      mode="pipeline", doc_ids=scope)
    assert "Total other (expense) income, net is -4,693 from 2018 to 2019" in response.answer, response.answer
    response = ws.ask("What was the change in other (expense) income between 2018 and 2019?", mode="pipeline",
                      doc_ids=scope)
    assert "Other (expense) income is -6,493 from 2018 to 2019" in response.answer, response.answer


def test_an_average_with_no_year_is_over_the_years_the_table_shows_read_by_the_rules(pdf_statement):
    ws, scope = pdf_statement(["2017", "2018", "2019"], [("Hall hire", ["3,696", "3,861", "3,272"]),
                                                         ("Music hire", ["1,344", "723", "610"])])
    ws.llm.calls.clear()
    ws.llm.script = []  # read by the rules: any model call fails the test
    response = ws.ask("What is the average hall hire?", mode="pipeline", doc_ids=scope)
    assert response.answer.startswith("The average of Hall hire is 3,609.67 for 2017, 2018 and 2019"), response.answer
    assert ws.llm.calls == []
    # a change with no year needs two: "between both years" over three is not read by the rules
    ws.llm.script = []
    response = ws.ask("What was the difference in music hire between both years?", mode="pipeline", doc_ids=scope)
    assert "is -113" not in response.answer and "is -734" not in response.answer, response.answer


def test_a_rate_named_by_its_row_is_one_cell_and_a_ratio_of_rows_is_not(pdf_statement):
    from core.annotations.plan import plan_by_rules
    ws, scope = pdf_statement(["2018", "2019"], [("Discount rate", ["2.5", "2.9"]), ("Ticket sales", ["1,200", "1,350"]),
                                                 ("Hall hire", ["300", "320"])])
    ws.llm.calls.clear()
    ws.llm.script = []  # read by the rules: any model call fails the test
    response = ws.ask("What is the discount rate in 2019?", mode="pipeline", doc_ids=scope)
    assert response.answer.startswith("Discount rate, 2019: 2.90"), response.answer
    assert ws.llm.calls == []
    (table,) = [t for t in ws.pipeline.tables.tables() if t.kind == "rows"]
    assert plan_by_rules("What is the ratio of hall hire to ticket sales in 2019?", table, ws.pipeline.executor) is None


def test_a_row_named_in_part_is_not_read_when_the_question_says_a_measure_the_row_is_not(pdf_statement):
    """The depreciation expense is the year's charge; "Accumulated depreciation" is a balance. The rules read a row
    named only in part ("depreciation") only when the question says nothing the row does not hold."""
    from core.annotations.plan import plan_by_rules
    ws, scope = pdf_statement(["2018", "2019"], [("Equipment at cost", ["9,000", "9,400"]),
                                                 ("Accumulated depreciation", ["(3,100)", "(3,560)"]),
                                                 ("Reserves and accruals", ["50", "57"])],
                              caption="Property and equipment and other balances were as follows:")
    (table,) = [t for t in ws.pipeline.tables.tables() if t.kind == "rows"]
    assert plan_by_rules("What was the amount of depreciation expense in 2019?", table, ws.pipeline.executor) is None
    read = plan_by_rules("What was the accumulated depreciation in 2019?", table, ws.pipeline.executor)
    assert read is not None and read.plan.matched[0] == ("Accumulated depreciation",)
    assert plan_by_rules("What were the reserves in 2019?", table, ws.pipeline.executor) is not None


def test_the_figure_column_the_question_names_whole_is_read_whatever_column_the_model_chose(statement):
    ws, scope = statement("adoption.csv", "Description,As reported,Adjustments,Without new standard\n"
                                          "Deferred revenue,\"24,264\",\"(1,945)\",\"22,319\"\n"
                                          "Other liabilities,\"38,476\",\"(5,353)\",\"33,123\"\n")
    ws.llm.script = [json.dumps({"answer": "sum", "column": "Without new standard", "filters": [
        {"column": "Description", "op": "is", "value": "Deferred revenue"}]})]
    response = ws.ask("What was the deferred revenue as reported?", mode="pipeline", doc_ids=scope)
    assert "24,264" in response.answer and "22,319" not in response.answer, response.answer
    # a column the question names itself stays
    ws.llm.calls.clear()
    ws.llm.script = [json.dumps({"answer": "sum", "column": "Without new standard", "filters": [
        {"column": "Description", "op": "is", "value": "Deferred revenue"}]})]
    response = ws.ask("What was the deferred revenue without new standard?", mode="pipeline", doc_ids=scope)
    assert "22,319" in response.answer, response.answer


def test_a_financial_year_written_short_is_its_year():
    assert across.periods_in("the average sales for F19 and F18") == ["2019", "2018"]
    assert across.periods_in("from FY18 to FY'19") == ["2018", "2019"]
    assert across.periods_in("Sales, F19 53 WEEKS") == ["2019"]
    assert across.periods_in("the model F150 and the road A19x") == []


def test_of_two_figure_columns_under_one_year_the_one_the_question_words_is_read():
    from core.annotations.plan import Column
    columns = [Column(f"c{n}", f"{year} {what}", "number") for n, (year, what) in enumerate(
        (y, w) for y in ("2019", "2018") for w in ("Number of players", "Weighted average fee"))]
    labels = lambda found: [c.label for c in found or []]  # noqa: E731
    assert labels(across.years_named("What is the average players signed between 2018 and 2019?", columns)) == [
        "2018 Number of players", "2019 Number of players"]
    assert labels(across.years_named("What was the weighted fee in 2018 and 2019?", columns)) == [
        "2018 Weighted average fee", "2019 Weighted average fee"]
    assert across.years_named("What was the figure in 2018 and 2019?", columns) is None  # nothing to tell them apart
    shares = [Column(f"s{n}", f"Fiscal Year {year} {what}", "number", "%" if what.startswith("%") else None)
              for n, (year, what) in enumerate((y, w) for y in ("2019", "2018") for w in ("Net Sales", "% of Total"))]
    assert labels(across.years_named("What was the change in the percent of total sales from Asia between 2018 and "
                                     "2019?", shares)) == ["Fiscal Year 2018 % of Total", "Fiscal Year 2019 % of Total"]
    assert labels(across.years_named("What was the percentage change in net sales from Asia between 2018 and 2019?",
                                     shares)) == ["Fiscal Year 2018 Net Sales", "Fiscal Year 2019 Net Sales"]


def test_two_figure_columns_under_each_year_are_told_apart_by_the_questions_words(statement):
    ws, scope = statement("signings.csv", "Description,2019 Number of players,2019 Average fee,"
                                          "2018 Number of players,2018 Average fee\n"
                                          "Players signed,\"253,113\",7.00,\"200,000\",6.50\n"
                                          "Players released,\"82,270\",6.10,\"323,420\",5.90\n")
    ws.llm.script = []  # read by the rules
    response = ws.ask("What is the change in the number of players signed between 2018 and 2019?", mode="pipeline",
                      doc_ids=scope)
    assert response.answer.startswith("The change in Players signed is 53,113 from 2018 to 2019"), response.answer
    assert "could not apply" not in response.answer and response.confidence == "medium"  # the years are columns


def test_one_years_figure_as_a_percentage_of_anothers_is_no_list_of_each_years_figure(statement):
    from core.annotations.plan import plan_by_rules
    ws, _ = statement("instruments.csv", "Description,Assets 2019,Assets 2018,Liabilities 2019,Liabilities 2018\n"
                                         "Opening balance,\"83,934\",\"100,107\",\"4,466\",\"2,154\"\n"
                                         "Closing balance,\"123,093\",\"83,934\",\"2,908\",\"4,466\"\n")
    (table,) = [t for t in ws.pipeline.tables.tables() if t.kind == "rows"]
    each = plan_by_rules("What were the assets closing balance in 2019 and 2018?", table, ws.pipeline.executor)
    assert each is not None and each.plan.answer == across.EACH
    # a percentage of one year's figure by another's is worked out of them (share_of, or the model), not listed
    assert plan_by_rules("What is the 2019 assets closing balance expressed as a percentage of 2018 assets closing "
                         "balance?", table, ws.pipeline.executor) is None


def test_a_count_within_a_stated_whole_is_never_more_than_it(statement):
    ws, scope = statement("instruments.csv", "Description,2019,2018\nInstruments repaired,30,25\n"
                                             "Instruments lent to schools,120,96\n")
    ws.llm.script = []  # no rules answer: the pages are read (here by no model)
    response = ws.ask("Of the 40 instruments bought in 2019, how many were lent to schools?", mode="pipeline",
                      doc_ids=scope)
    assert "120" not in response.answer, response.answer
    response = ws.ask("How many instruments were lent to schools in 2019?", mode="pipeline", doc_ids=scope)
    assert "120" in response.answer, response.answer


def test_the_highest_of_a_reports_rows_is_one_of_its_items_never_their_total(pdf_statement):
    ws, scope = pdf_statement(["2019", "2018"], [("UK", ["83.2", "73.5"]), ("USA", ["222.2", "199.0"]),
                                                 ("Germany", ["143.5", "128.4"]), ("Total", ["448.9", "400.9"])],
                              caption="Revenue by country was as follows:")
    ws.llm.calls.clear()
    ws.llm.script = [json.dumps({"answer": "maximum", "column": "2019", "filters": []})]
    response = ws.ask("Which country had the highest total revenue in 2019?", mode="pipeline", doc_ids=scope)
    assert "USA" in response.answer and "448.9" not in response.answer, response.answer
    assert "Total" not in response.answer.split("(")[0], response.answer  # nor is the left-out line said as a filter


def test_a_share_the_row_already_states_is_each_years_figure(statement):
    """A statement in percent of revenue: "gross profit as a percentage of revenue" is the row's own figures."""
    ws, scope = statement("margins.csv", "Description,2019,2018\nRevenue,100%,100%\nCost of sales,45%,40%\n"
                                         "Gross profit,55%,60%\n")
    ws.llm.calls.clear()
    ws.llm.script = []  # read by the rules
    response = ws.ask("What were the gross profit as a percentage of revenue in 2018 and 2019 respectively?",
                      mode="pipeline", doc_ids=scope)
    assert "60%" in response.answer and "55%" in response.answer and ws.llm.calls == [], response.answer


def test_an_average_the_rows_own_label_says_is_that_rows_figure_not_an_average_across_the_years(tmp_path, embedder,
                                                                                                write_text):
    ws = Workspace(Settings(data_dir=tmp_path / "kpi"), embedder, ScriptedLLM([]))
    ws.ingestor.ingest_paths([write_text("lettings_kpis.csv", "Indicator,2023,2024\nAverage days to let a flat,41,33\n"
                                                             "Flats let (%),84,88\n")])
    row = [{"column": "Indicator", "op": "is", "value": "Average days to let a flat"}]
    response = ask(ws, "How long did it take on average to let a flat in 2024?", answer="average", column="2024",
                   filters=row)
    assert "33" in response.answer and "37" not in response.answer, response.answer
    twice = ask(ws, "What is the average of the Average days to let a flat in 2023 and 2024?", answer="average",
                column="2024", filters=row)
    assert twice.answer.startswith("The average of Average days to let a flat is 37 for 2023 and 2024"), twice.answer
    ws.close()
