"""How the TAT-QA benchmark reads an answer: the figure the question asks for, with its own scale word."""
from bench.tatqa import prediction_of


def test_the_first_figure_the_question_does_not_state_is_read_with_its_own_scale():
    assert prediction_of("The change in Sales is -£5.20 million from 2018 to 2019 (2018: 91.2; 2019: 86.0).",
                         "What was the change in sales from 2018 to 2019?") == (["-5.20"], "million")
    # a year answered, then figures in brackets: the year has no scale, whatever the figures after it have
    assert prediction_of("Receivables: 2019 (2018: 519 thousand; 2019: 592 thousand) [Source 1]",
                         "In which year were receivables larger?") == (["2019"], "")


def test_respective_figures_are_all_read():
    figures, scale = prediction_of("Sales were 1,200 and 1,350 million respectively.",
                                   "What were the respective sales in 2018 and 2019?")
    assert figures == ["1,200", "1,350"] and scale == "million"


def test_a_day_of_the_month_is_no_figure():
    figures, scale = prediction_of("Tax credits: 2,458 thousand in December 31, 2018, 2,261 thousand in December 31, 2019",
                                   "What are the respective tax credits in 2018 and 2019?")
    assert figures == ["2,458", "2,261"] and scale == "thousand"
