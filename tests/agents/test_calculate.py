"""Arithmetic over quoted figures: code parses what the model copied and computes the answer."""
from core.agents.calculate import calculate, parse_figure, render


def fig(label, printed):
    return parse_figure(label, printed)


def test_figures_are_read_as_a_filing_prints_them():
    assert fig("capex", "$1,577").value == 1577 and fig("capex", "$1,577").currency == "$"
    assert fig("loss", "(370)").value == -370
    assert fig("margin", "12.5%").percent and fig("margin", "12.5%").value == 12.5
    assert fig("sales", "1.2 billion").scale == "billion"
    assert fig("nothing", "n/a") is None


def test_each_operation_is_computed_from_the_figures_in_the_order_given():
    a, b = fig("current assets", "1,500"), fig("current liabilities", "1,200")
    assert calculate("ratio", [a, b]).result == 1.25
    assert calculate("percent", [a, b]).result == 125
    assert calculate("difference", [a, b]).result == 300
    assert calculate("sum", [a, b]).result == 2700
    assert calculate("average", [a, b]).result == 1350
    assert calculate("max", [a, b]).result_label == "current assets"
    assert calculate("min", [a, b]).result_label == "current liabilities"


def test_a_percent_change_runs_from_the_earlier_year_whatever_order_a_statement_prints():
    newer, older = fig("FY2022 revenue", "1,100"), fig("FY2021 revenue", "1,000")
    change = calculate("percent_change", [newer, older])
    assert round(change.result, 6) == 10 and change.text.endswith("= +10%")


def test_a_financial_year_written_short_is_read_as_the_table_readers_read_it():
    """"F19" is 2019 to the question analysis and the table readers ("F19 53 WEEKS" over a report's column), so
    the calculator orders it as they do."""
    newer, older = fig("Sales F19", "1,100"), fig("Sales F18", "1,000")
    assert calculate("percent_change", [newer, older]).text.endswith("= +10%")


def test_what_cannot_be_computed_gives_none():
    one = fig("revenue", "10")
    assert calculate("ratio", [one]) is None  # too few figures
    assert calculate("ratio", [one, fig("zero", "0")]) is None
    assert calculate("integral", [one, one]) is None


def test_the_rendered_answer_states_only_the_inputs_and_the_result_with_their_sources():
    c = calculate("ratio", [fig("total assets", "$8,000"), fig("total liabilities", "$4,000")])
    text = render(c, "Yes, the ratio is 3.1", [1, 2])
    assert text == "Yes. Total assets ($8,000) / total liabilities ($4,000) = 2. [Source 1] [Source 2]"
    assert "3.1" not in text  # the model's own arithmetic is not shown


def test_a_sum_the_reader_wrote_out_is_checked_by_code_and_its_result_said_first():
    from core.agents.calculate import settle_expressions
    answer, computed, corrected = settle_expressions("The increase is 4,105,000 - 4,556,500 = -451,500. [Source 2]")
    assert answer == "The increase is -451,500 (4,105,000 - 4,556,500). [Source 2]" and corrected == []
    assert computed == ["4,105,000 - 4,556,500 = -451,500"]
    answer, _, corrected = settle_expressions("Growth was (5,463 - 2,962) / 2,962 = 80%.")
    assert answer == "Growth was 84.44% ((5,463 - 2,962) / 2,962)." and len(corrected) == 1  # code's figure, as a percent
    assert settle_expressions("$1,200 + $300 = $1,600 in all")[0] == "$1,500 ($1,200 + $300) in all"
    answer, computed, corrected = settle_expressions("The change is 66.67% (882.6 / 565.9 - 1).")  # result first
    assert answer == "The change is 55.96% (882.6 / 565.9 - 1)." and computed == ["882.6 / 565.9 - 1 = 55.96"]


def test_words_that_only_look_like_sums_are_left_alone():
    from core.agents.calculate import settle_expressions
    for text in ("Sales grew in 2018-2019 = a record", "Revenue 2019: 4,105 (2018: 3,900)", "1/3 of staff"):
        assert settle_expressions(text)[0] == text


def test_a_sentence_stating_several_years_respectively_pairs_each_figure_with_its_year():
    from core.agents.calculate import respective_years
    said = respective_years("Rainfall at the depot of 412 mm, 388 mm and 405 mm during the years ended June 30, 2024, "
                            "2023 and 2022, respectively, was recorded by the site team.")
    assert said.by_year == {"2024": "412 mm", "2023": "388 mm", "2022": "405 mm"}
    assert said.subject == "Rainfall at the depot"
    later = respective_years("As reported, for fiscal 2023 and 2024 the visits were 1,204 and 1,388, respectively.")
    assert later.by_year == {"2023": "1,204", "2024": "1,388"} and later.subject == "The visits"


def test_a_respectively_sentence_with_two_lists_of_figures_pairs_nothing():
    from core.agents.calculate import respective_years
    assert respective_years("Fees rose by 4% and 2% to $120 and $118 in 2024 and 2023, respectively.") is None
    assert respective_years("Fees were $120 and $118 for members and guests, respectively.") is None
    # ... and another sentence that does pair them is still read
    later = respective_years("Fees were $120 and $118 for members and guests, respectively. Visits were 1,204 and 1,388 "
                             "in 2023 and 2024, respectively.")
    assert later.by_year == {"2023": "1,204", "2024": "1,388"}
    assert respective_years("Visits were 10 and 12 in 2023 and 2024, respectively. Hires were 3 and 4 in 2023 and 2024, "
                            "respectively.") is None  # two sentences pair the same years: which is asked, code cannot tell


def test_only_the_years_asked_are_read_off_a_respectively_sentence():
    from core.agents.calculate import of_years_asked
    text = "Total grants paid of $1.2 million, $0.9 million and $1.4 million in 2024, 2023 and 2022, respectively."
    assert of_years_asked(["2023"], text)[0] == "Total grants paid: $0.9 million in 2023."
    assert of_years_asked(["2024", "2022"], text)[0] == "Total grants paid: $1.2 million in 2024, $1.4 million in 2022."
    assert of_years_asked(["2024", "2023", "2022"], text) is None  # every year it states: the sentence answers as it is
    assert of_years_asked(["2021"], text) is None
