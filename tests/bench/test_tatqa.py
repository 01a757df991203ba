"""How the TAT-QA benchmark reads an answer: the figure the question asks for, with its own scale word."""
from bench.tatqa import before_table, prediction_of, score


def test_the_first_figure_the_question_does_not_state_is_read_with_its_own_scale():
    assert prediction_of("The change in Sales is -£5.20 million from 2018 to 2019 (2018: 91.2; 2019: 86.0).",
                         "What was the change in sales from 2018 to 2019?") == (["-5.20"], "million")
    # a year answered, then figures in brackets: the year has no scale, whatever the figures after it have
    assert prediction_of("Receivables: 2019 (2018: 519 thousand; 2019: 592 thousand) [Source 1]",
                         "In which year were receivables larger?") == (["2019"], "")


def test_a_difference_of_rates_in_points_is_a_percent():
    assert prediction_of("The decrease in the discount rate is 1 percentage point from 2017 to 2019 (2017: 4.30%; "
                         "2019: 3.30%)", "How much did the discount rate decrease by from 2017 to 2019?") == (["1"], "percent")


def test_the_numbers_in_a_cells_row_and_column_labels_are_no_figures():
    assert prediction_of("Basic earnings per share (cents per share) (1,2), 2019 53 WEEKS: 206.20 (t.pdf). [Source 1]",
                         "What is the basic earnings per share for 2019?") == (["206.20"], "")
    # a sentence is no cell: its first figure is the answer
    assert prediction_of("The change in hall hire is 3,987 from 2018 to 2019 (2018: 17,734; 2019: 21,721)",
                         "What was the change in hall hire between 2018 and 2019?")[0] == ["3,987"]


def test_respective_figures_are_all_read():
    figures, scale = prediction_of("Sales were 1,200 and 1,350 million respectively.",
                                   "What were the respective sales in 2018 and 2019?")
    assert figures == ["1,200", "1,350"] and scale == "million"


def test_the_year_each_respective_figure_is_for_is_no_figure_asked():
    figures, scale = prediction_of("Net income: 53,294 thousand in 2019, 61,431 thousand in 2018, 279,745 thousand in 2017",
                                   "What is the net income for fiscal years 2019 to 2017 respectively?")
    assert figures == ["53,294", "61,431", "279,745"] and scale == "thousand"


def test_a_figure_for_each_year_asked_is_read_each():
    figures, _ = prediction_of("Total hall hire: 31,867 in 2019, 18,560 in 2018 (t.pdf). [Source 1]",
                               "What was the total hall hire in 2019 and 2018?")
    assert figures == ["31,867", "18,560"]
    # one figure asked, the years only beside it
    assert prediction_of("The change in hall hire is 3,987 from 2018 to 2019 (2018: 17,734; 2019: 21,721)",
                         "What was the change in hall hire between 2018 and 2019?")[0] == ["3,987"]


def test_a_day_of_the_month_is_no_figure():
    figures, scale = prediction_of("Tax credits: 2,458 thousand in December 31, 2018, 2,261 thousand in December 31, 2019",
                                   "What are the respective tax credits in 2018 and 2019?")
    assert figures == ["2,458", "2,261"] and scale == "thousand"


def test_a_cited_file_name_is_no_figure():
    figures, _ = prediction_of("Tax credits: 2,458 thousand in 2018, 2,261 thousand in 2019 (tatqa-1aa69af8.pdf). [Source 1]",
                               "What are the respective tax credits in 2018 and 2019?")
    assert figures == ["2,458", "2,261"]


def test_a_sentence_with_and_in_it_is_one_span_and_a_list_of_names_is_several():
    assert prediction_of("Distribution customers are the distributors and representatives that sell our products.",
                         "Who are the customers we sell through?")[0] == [
        "Distribution customers are the distributors and representatives that sell our products"]
    assert prediction_of("Wages and salaries; Pension expenses", "Which components were reported?")[0] == [
        "Wages and salaries", "Pension expenses"]


def test_a_reason_is_read_as_its_text_even_when_it_holds_a_year():
    assert prediction_of("Net income fell because of the Tax Act of 2017. [Source 1]",
                         "Why was net income lower in fiscal 2019?", spans=False) == (
        ["Net income fell because of the Tax Act of 2017"], "")


def test_the_years_asked_for_are_all_read():
    assert prediction_of("The table gives figures for 2017, 2018 and 2019 (t.pdf).",
                         "Which financial years' information is shown in the table?")[0] == ["2017", "2018", "2019"]
    # the years, once each, not the figures beside them
    assert prediction_of("Outstanding at 31 March: 2018 and 2019 (2018: 690,791; 2019: 320,872) (t.pdf).",
                         "For which years was the amount outstanding at 31 March calculated?")[0] == ["2018", "2019"]


def test_a_text_answer_is_read_without_the_words_that_restate_the_question():
    question = "How are land and buildings stated in the accounts?"
    assert prediction_of("Land and buildings are stated at cost, net of depreciation. [Source 1]", question) == (
        ["at cost, net of depreciation"], "")
    assert prediction_of("Land and buildings are stated at cost, net of depreciation.", question, spans=False)[0] == [
        "Land and buildings are stated at cost, net of depreciation"]
    # the linking verb after the restated words goes with them
    assert prediction_of("The rise in hall hire costs was mainly due to longer bookings.",
                         "What caused the rise in hall hire costs?")[0] == ["mainly due to longer bookings"]
    # a sentence that starts with its own words is read whole
    assert prediction_of("Our policy is to state them at cost.", question)[0] == ["Our policy is to state them at cost"]


def test_a_listed_answers_items_are_read_after_its_head():
    assert prediction_of("Listed under Deferred tax liabilities (t.pdf): Goodwill; Other. [Source 1]",
                         "What are the items under deferred tax liabilities?")[0] == ["Goodwill", "Other"]


def test_percentage_points_are_a_figure_in_percent():
    assert prediction_of("The percentage change in WACC is -0.50 percentage points (-5.26% relative) from 2018 to 2019.",
                         "What was the percentage change in the WACC between 2018 and 2019?") == (["-0.50"], "percent")


def test_a_negative_figure_scores_in_either_notation_tatqa_writes_it():
    span = {"answer": ["(4,310)"], "answer_type": "span", "scale": "million"}
    assert score(span, ["-4,310"], "million") == (1.0, 1.0)
    percent = {"answer": ["(12)%"], "answer_type": "span", "scale": "percent"}
    assert score(percent, ["-12"], "percent") == (1.0, 1.0)
    arithmetic = {"answer": -2741, "answer_type": "arithmetic", "scale": "thousand"}
    assert score(arithmetic, ["-2,741"], "thousand") == (1.0, 1.0)
    assert score(span, ["4,310"], "thousand")[0] == 0.0  # the scale still counts


def test_the_years_a_which_year_answer_names_before_its_figures_are_all_read():
    assert prediction_of("Rent: 2017 and 2019 (2017: 40 thousand; 2018: 65 thousand; 2019: 38 thousand) [Source 1]",
                         "In which year was rent below 50 thousand?") == (["2017", "2019"], "")


def test_a_date_asked_for_with_when_is_read_whole():
    assert prediction_of("The club filed its appeal on March 3, 2021. [Source 1]", "When did the club file its appeal?") \
        == (["March 3, 2021"], "")
    # the day first, and a sentence the app reads as prose ("When did the club complete ...?"), too
    assert prediction_of("The club completed the sale of its old ground on 14 June 2021. [Source 1]",
                         "When did the club complete the sale of its old ground?") == (["14 June 2021"], "")
    # a figure asked with "when" in it is still a figure
    assert prediction_of("Sales peaked at 5 million in 2019.", "When were sales highest, and at what figure?")[0] == ["5"]


def test_a_financial_year_naming_the_column_is_no_figure():
    assert prediction_of("Bar takings, 2022/2023: £4,210 thousand (club.pdf). [Source 1]",
                         "What were the bar takings in FY2023?") == (["4,210"], "thousand")


def test_a_table_is_written_below_the_paragraph_that_introduces_it():
    def context(*texts):
        return {"paragraphs": [{"order": n + 1, "text": t} for n, t in enumerate(texts)]}
    assert before_table(context("Revenue grew by 4%.", "Revenue by region was as follows (in millions):",
                                "Europe led the growth.")) == 2
    assert before_table(context("Revenue grew by 4%.", "Europe led the growth.")) == 0  # none says where: on top
