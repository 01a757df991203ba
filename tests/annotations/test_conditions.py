"""The conditions a question states, read by code: periods, bounds with units, and cell values."""
from core.annotations.conditions import (CellValue, bound_in, bounds, cell_values, clipped_form, named_in, periods, quarters_in, said_with_the,
                                         spent_on, tokens, without_bounds)
from core.annotations.units import convert


def test_a_year_a_quarter_a_half_and_a_month_are_periods():
    assert [(p.year, p.months) for p in periods("What did the bakery sell in 2023?")] == [(2023, ())]
    assert [(p.year, p.months) for p in periods("Loaves sold in the third quarter")] == [(None, (7, 8, 9))]
    assert [(p.year, p.months) for p in periods("Cakes in Q4 2022")] == [(2022, (10, 11, 12))]
    assert [(p.year, p.months) for p in periods("Rolls in the first half of 2021")] == [(2021, (1, 2, 3, 4, 5, 6))]
    assert [(p.year, p.months) for p in periods("How many pies in March 2024?")] == [(2024, (3,))]
    assert [(p.year, p.months) for p in periods("orders from February to April")] == [(None, (2, 3, 4))]


def test_a_month_word_is_a_month_only_where_it_can_be_one():
    assert periods("What may the oven cost?") == []
    assert [p.months for p in periods("Deliveries in May")] == [(5,)]


def test_ranges_of_days_years_and_open_ended_years():
    day_range = periods("Bookings between 3 June and 9 July 2023")[0]
    assert (day_range.start, day_range.end) == ("2023-06-03", "2023-07-09")
    us_order = periods("Deliveries from October 28 to November 3, 2022")[0]  # month before day, a year after a comma
    assert (us_order.start, us_order.end) == ("2022-10-28", "2022-11-03")
    short = periods("Takings 28 Oct - 3 Nov")[0]
    assert (short.start, short.end) == ("0000-10-28", "0000-11-03")  # no year: the table's
    assert [p.months for p in periods("Bookings in March 2024")] == [(3,)]  # "March 20(24)" is no day
    years = periods("Sales from 2019 to 2021")[0]
    assert (years.start, years.end) == ("2019-01-01", "2021-12-31")
    assert periods("Shops opened after 2018")[0].start == "2019-01-01"
    assert periods("Shops opened before 2018")[0].end == "2017-12-31"


def test_weekdays_are_a_period():
    assert [p.weekdays for p in periods("Takings on Saturdays and Sundays")] == [(0, 6)]


def test_a_number_after_a_comparison_word_is_a_bound_even_when_it_looks_like_a_year():
    found = bounds("List the catering orders in 2024 over 2000")
    assert [(b.op, b.number, b.unit) for b in found] == [(">", 2000.0, None)]
    assert [p.year for p in periods("List the catering orders in 2024 over 2000")] == [2024]


def test_bounds_keep_their_units_and_operators():
    assert [(b.op, b.number, b.unit) for b in bounds("mixers bigger than 1.5 hp")] == [(">", 1.5, "hp")]
    assert [(b.op, b.number, b.unit) for b in bounds("vans no heavier than 3.5 t")] == [("<=", 3.5, "t")]
    assert [(b.op, b.number, b.unit) for b in bounds("invoices of at least £1,250")] == [(">=", 1250.0, "£")]
    assert [(b.op, b.number) for b in bounds("trays between 40 and 60 cm")] == [(">=", 40.0), ("<=", 60.0)]
    assert [(b.op, b.number) for b in bounds("years when grants exceeded £900")] == [(">", 900.0)]
    # the scale said after the number, for a row whose figures are in another scale
    assert [(b.number, b.scale) for b in bounds("years when grants exceeded £5 million")] == [(5.0, "million")]
    assert [(b.number, b.scale) for b in bounds("lines over $2,000 thousands")] == [(2000.0, "thousand")]
    assert [b.scale for b in bounds("trays between 40 and 60 cm")] == [None, None]


def test_a_comparative_said_with_more_or_less_and_any_adjective_is_a_bound():
    assert [(b.op, b.number, b.unit) for b in bounds("Which mixers are more powerful than 2 hp?")] == [(">", 2.0, "hp")]
    assert [(b.op, b.number, b.unit) for b in bounds("kilns less expensive than £900")] == [("<", 900.0, "£")]
    assert [(b.op, b.number) for b in bounds("boats no more expensive than £400")] == [("<=", 400.0)]
    assert [(b.op, b.number) for b in bounds("pumps cheaper than £75")] == [("<", 75.0)]
    # the comparison is taken out of the words left to match cells
    assert "powerful" not in without_bounds("Which mixers are more powerful than 2 hp?")


def test_a_date_after_before_or_by_is_one_side_of_a_stretch_of_days():
    def edges(question):
        return [(p.start, p.end) for p in periods(question)]
    assert edges("How many repairs were booked after March 3, 2023?") == [("2023-03-04", None)]
    assert edges("Which loans were open by 30 June 2024?") == [(None, "2024-06-30")]
    assert edges("orders before 1 Jan 2020") == [(None, "2019-12-31")]
    assert edges("visits since 29 February") == [("0000-02-29", None)]  # no year: any year's day
    assert edges("the balance as of December 31, 2019") == [(None, None)]  # a report's year column, not a cut-off


def test_a_month_after_before_since_or_until_is_one_side_of_a_stretch_of_whole_months():
    def edges(question):
        return [(p.start, p.end) for p in periods(question)]
    assert edges("Which vans have their MOT due before September 2025?") == [(None, "2025-08-31")]
    assert edges("Jobs raised after March 2024") == [("2024-04-01", None)]
    assert edges("complaints since April 2023") == [("2023-04-01", None)]
    assert edges("invoices paid by June 2024") == [(None, "2024-06-30")]
    assert edges("inspections due before March") == [(None, "0000-02-29")]  # no year: any year's months
    assert edges("Which jobs were logged before March in 2024?") == [(None, "2024-02-29")]
    assert [p.months for p in periods("orders from March")] == [(3,)]  # "from March" is March's
    assert [p.months for p in periods("rainfall from March until June")] == [(3, 4, 5, 6)]  # a span, no edge
    assert edges("what they may do after may") == []  # lower-case words, no month


def test_a_day_said_with_on_is_that_day_and_a_span_of_months_of_years_is_every_day_in_it():
    def days(question):
        return [(p.start, p.end) for p in periods(question)]
    assert days("How many loans were issued on 5 March 2024?") == [("2024-03-05", "2024-03-05")]  # not all March
    assert days("What did we take on March 5?") == [("0000-03-05", "0000-03-05")]
    assert days("Sales from March 2024 to May 2024 per month") == [("2024-03-01", "2024-05-31")]  # April too
    assert days("orders between November 2023 and February 2024") == [("2023-11-01", "2024-02-29")]
    assert [p.months for p in periods("Bookings in March 2024")] == [(3,)]


def test_numbers_between_that_are_not_both_years_are_two_bounds_and_no_year():
    question = "How many mills were built between 1750 and 1900?"
    assert periods(question) == [] and [(b.op, b.number) for b in bounds(question)] == [(">=", 1750.0), ("<=", 1900.0)]


def test_days_of_a_month_are_a_period_not_two_bounds():
    question = "How many deliveries were there between 3 and 14 May, over 20 kg?"
    assert [(p.start, p.end) for p in periods(question)][0][0].endswith("-05-03")
    assert [(b.op, b.number, b.unit) for b in bounds(question)] == [(">", 20.0, "kg")]


def test_a_bound_is_converted_into_its_columns_unit():
    motor = bounds("mixers with motors over 2 hp")[0]
    assert round(bound_in(motor, "kW"), 3) == 1.491
    assert round(convert(3, "£", "p")) == 300
    assert round(convert(100, "l", "gal"), 2) == 26.42
    assert convert(5, "kg", "kW") is None  # different things: no conversion
    allotment = bounds("allotments smaller than 250 square metres")[0]  # an area, over a column in square feet
    assert (allotment.op, allotment.unit) == ("<", "square metres") and round(bound_in(allotment, "ft²")) == 2691


def test_cell_values_match_ignoring_case_accents_plurals_and_a_small_misspelling():
    columns = {"Baker": ["Zoë", "Marek"], "Product": ["Sourdough", "sourdough", "Rye loaf"], "Status": ["Cancelled", "Delivered"]}
    found = {v.column: v.cells for v in cell_values("How many rye loaves did Zoe bake that were canceled?", columns)}
    assert found == {"Baker": ("Zoë",), "Product": ("Rye loaf",), "Status": ("Cancelled",)}
    every = cell_values("Sourdough sold", columns)[0]
    assert every.cells == ("Sourdough", "sourdough")  # every spelling of the value in that column


def test_short_and_filler_words_are_no_values():
    assert cell_values("How many were there in all?", {"Code": ["all", "in", "AB"]}) == []
    assert tokens("Café  Über-Brot") == ["cafe", "uber", "brot"]


def test_days_of_one_month_and_a_month_to_month_span_are_periods():
    days = periods("Deliveries between 4 and 17 October")[0]
    assert (days.start, days.end) == ("0000-10-04", "0000-10-17")  # any year: code compares month and day
    assert [p.months for p in periods("Monthly takings for March to May")] == [(3, 4, 5)]


def test_a_count_in_words_beside_a_comparison_is_a_bound():
    assert [(b.op, b.number) for b in bounds("How many cottages have three or more bedrooms?")] == [(">=", 3.0)]
    assert [(b.op, b.number) for b in bounds("crews of fewer than five climbers")] == [("<", 5.0)]
    assert bounds("Which match was the most one-sided?") == []  # a number word inside a word is no bound


def test_a_spelled_out_time_is_a_bound_in_that_unit():
    assert [(b.op, b.number, b.unit) for b in bounds("trays kept more than a week")] == [(">", 1.0, "week")]
    assert [(b.op, b.number, b.unit) for b in bounds("ovens in use for over five years")] == [(">", 5.0, "years")]
    assert convert(1, "week", "days") == 7.0


def test_a_measure_said_with_a_is_one_of_it():
    assert [(b.op, b.number, b.unit) for b in bounds("Which trailers carry more than a tonne?")] == [(">", 1.0, "tonne")]
    assert convert(1, "tonne", "kg") == 1000.0
    assert convert(1, "mile", "km") == 1.609344
    assert bounds("Which depots are a mile from the river?") == []  # no comparison, no bound


def test_a_comparison_is_taken_out_before_looking_for_a_ranking():
    from core.annotations.conditions import without_bounds
    assert "more" not in without_bounds("Which ovens draw more than 3 kW?")


def test_a_model_filter_counts_as_stated_only_when_the_question_names_its_value():
    assert named_in("Refunded", "How many orders were refunded in May?")  # another form of the word
    assert named_in("Dispatcher", "Hours worked by our dispatchers")  # a plural
    assert named_in("SRV", "How many service visits were booked?")  # a code abbreviating a word
    assert named_in("Oat-milk", "How many oat milk lattes did we sell?")
    assert named_in("4.5/5", "Which cafés were rated 4.5?")  # a number the question states
    assert not named_in("Email", "How many complaints were resolved in March?")
    assert not named_in("Paid", "Total invoiced per customer")
    assert not named_in("SXV", "How many service visits were booked?")  # not the word's letters in order


def test_a_number_said_after_a_word_names_every_coded_cell_of_that_number():
    cells = {"Group": ["3A", "3B", "3C", "4A", "4B", "13A"], "Room": ["Lab", "Hall"]}
    found = cell_values("How many visits did Stage 3 make in May?", cells)
    assert [(v.text, v.column, v.cells, v.every) for v in found] == [("stage 3", "Group", ("3A", "3B", "3C"), True)]
    assert cell_values("Visits over 3 hours by each group", cells) == []  # a bound's number
    assert cell_values("Which 3 groups visited most?", cells) == []  # a number of rows, said after no word
    assert cell_values("Visits on May 4 by group", cells) == []  # a day
    assert cell_values("Visits by Stage 3 to Stage 4", cells) == []  # a range, not two values
    assert cell_values("How many visits did Stage 3 make?", {**cells, "Bay": ["3", "4"]}) == []  # a cell is "3"


def test_each_group_named_by_a_word_and_its_numbers_is_a_family_of_coded_cells():
    from core.annotations.conditions import code_family_groups
    cells = {"Group": ["3A", "3B", "3C", "4A", "4B", "5A", "13A"], "Room": ["Lab", "Hall"]}
    assert code_family_groups("Visits by each stage (Stage 3 to Stage 5)?", cells) == \
        ("Stage", "Group", ("3A", "3B", "3C", "4A", "4B", "5A"))
    assert code_family_groups("Visits per stage, Stage 3 and Stage 4", cells)[2] == ("3A", "3B", "3C", "4A", "4B")
    assert code_family_groups("Visits by each stage?", cells) is None  # no number says what a stage is
    assert code_family_groups("How many visits did Stage 3 make?", cells) is None  # one stage, no groups
    assert code_family_groups("Visits by each stage (Stage 3 to Stage 5)?", {**cells, "Bay": ["3", "4"]}) is None
    assert code_family_groups("Visits per week, week 3 to week 5", cells) is None  # weeks are periods


def test_a_word_of_some_cells_of_one_column_is_a_condition_on_it():
    cells = {"Product": ["Tyre 700x25c", "Tyre 29in", "Saddle Pro", "Chain", "Brake pads"], "Shop": ["North", "South"]}
    found = cell_values("How many tyres did we sell in the North shop?", cells, {"product", "shop"})
    assert {(v.text, v.column, v.cells) for v in found} == {("tyres", "Product", ("Tyre 29in", "Tyre 700x25c")),
                                                           ("north", "Shop", ("North",))}


def test_a_word_of_most_cells_or_of_a_header_or_what_the_rows_are_is_no_condition():
    cells = {"Product": ["Tyre 700x25c", "Tyre 29in", "Tyre 26in"], "Notes": ["check the tyre again in 2 weeks", "ok", "fine", "new"]}
    assert cell_values("How many tyres were sold?", cells, {"product", "note"}) == []  # every product is a tyre
    assert cell_values("Which product took more than a week?", {"Product": ["Week planner", "Pen", "Ink"]}, {"product"}) == []
    assert cell_values("Which chain is the cheapest?", {"Item": ["Chain 11-speed", "Bell", "Pump", "Lock"]}, {"item"}) == []


def test_a_word_a_code_abbreviates_is_a_condition_on_the_column_of_codes():
    codes = {"Visit": ["INS", "SRV", "REP", "MNT"], "Site": ["Ashby", "Corton"]}
    found = cell_values("How many repairs at Corton in May?", codes, {"visit", "site"})
    assert {(v.column, v.cells) for v in found} == {("Visit", ("REP",)), ("Site", ("Corton",))}
    assert cell_values("How many visits were inspections or maintenance?", codes, {"visit"}) != []
    assert cell_values("How many repairs were filed?", {"Visit": ["REP", "RER", "INS"]}, set()) == []  # two codes fit


def test_two_letter_codes_and_ranking_words_are_never_read_as_abbreviations():
    states = {"State": ["MO", "KS", "NE", "IA"], "Fuel": ["Diesel", "Petrol"]}
    assert {v.column for v in cell_values("Which driver pumped the most diesel monthly?", states, {"state", "fuel"})} == {"Fuel"}


def test_a_word_of_a_total_row_or_of_a_column_already_named_is_no_condition():
    rows = {"Description": ["Northgate depot", "Riverside depot", "Total journeys"], "Area": ["North", "South"]}
    assert [(v.text, v.column) for v in cell_values("How many journeys did Riverside depot carry?", rows, set())] \
        == [("riverside depot", "Description")]
    assert cell_values("How many journeys were there?", {"Description": ["Bus journeys x", "Total journeys", "A", "B"]}, set()) \
        == [CellValue("journeys", "Description", ("Bus journeys x",), "is")]


def test_a_period_named_by_its_ordinal_is_said_with_the():
    assert said_with_the("second quarter") and said_with_the("final half of 2024") and said_with_the("4th quarter")
    assert not said_with_the("Q2") and not said_with_the("2024") and not said_with_the("March")


def test_a_count_answers_a_question_that_counts_or_a_yes_or_no():
    from core.annotations.conditions import asks_count

    for question in ("How many vans failed their MOT?", "What is the number of open tickets?", "How often did Priya miss?",
                     "What is the total amount of head coaches?", "Are there any orders over 500?"):
        assert asks_count(question), question
    for question in ("What is the discount rate in 2019?", "What do capital leases reflect?", "Which van is the oldest?"):
        assert not asks_count(question), question


def test_a_question_asks_for_figures_added_up_only_when_it_says_so():
    from core.annotations.conditions import asks_to_add_up
    for asked in ("What was the total grant income in 2023?", "What do the three shops' takings come to combined?",
                  "How many volunteers did we have in all?", "What is the average hall-hire fee?",
                  "What do the fuel lines add up to?", "What did we raise across all the branches?",
                  "What is the sum of the two grants?"):
        assert asks_to_add_up(asked), asked
    for one in ("What was the grant income in 2023?", "What is the hall-hire fee for Saturdays?",
                "How much did the Riverside branch raise in May?"):
        assert not asks_to_add_up(one), one


def test_the_quarters_a_title_or_question_names_in_each_way_it_is_written():
    assert quarters_in("10-Q for Q3 2023") == {3}
    assert quarters_in("ACME 2023Q2.pdf") == {2}
    assert quarters_in("3Q results and the fourth-quarter outlook") == {3, 4}
    assert quarters_in("the 1st quarter and the Second quarter") == {1, 2}
    assert quarters_in("Q5, 2023, a quarterly report, quarter-end") == set()


def test_a_clipped_word_names_the_word_it_shortens_but_not_its_derivation():
    assert clipped_form("maths", "Mathematics") and clipped_form("admin", "Administration")
    assert not clipped_form("rent", "Rental") and not clipped_form("maths", "Further Mathematics")


def test_a_word_in_its_clipped_form_names_the_cell_it_clips_when_no_cell_holds_it_whole():
    subjects = {"Subject": ["English Language", "Mathematics", "History"]}
    [named] = cell_values("What was the maths pass rate in 2025?", subjects)
    assert (named.column, named.cells) == ("Subject", ("Mathematics",))
    assert cell_values("What did we spend on rent?", {"Item": ["Rental van", "Fuel"]}) == []


def test_what_money_went_on_is_the_phrase_after_spend_pay_or_cost():
    assert spent_on("How much did the choir spend on sheet music?") == ["sheet", "music"]
    assert spent_on("What did we pay for coach hire in 2024?") == ["coach", "hire"]  # the year is a period
    assert spent_on("What was the average cost of a piano tuning at the Hall?") == ["piano", "tuning"]
    assert spent_on("What does a piano tuning cost us on average?") == []  # how it is worked out, not what on
    assert spent_on("What do we pay on average for a piano tuning?") == ["piano", "tuning"]
    assert spent_on("How much did we spend on strings for the cellos?") == ["strings"]
    assert spent_on("How much did the tour cost us in total?") == []  # says what cost, not what it went on
    assert spent_on("What were the ticket sales in March?") == []


def test_the_end_or_start_of_a_year_or_month_is_one_side_of_a_stretch():
    def edges(question):
        return [(p.start, p.end) for p in periods(question)]
    assert edges("Which boilers are due a service before the end of 2025?") == [(None, "2025-12-31")]
    assert edges("invoices paid by the end of March 2025") == [(None, "2025-03-31")]
    assert edges("jobs opened since the beginning of 2024") == [("2024-01-01", None)]
    assert edges("loans taken out before the start of 2025") == [(None, "2024-12-31")]
    assert edges("loans taken out after the end of 2024") == [("2025-01-01", None)]


def test_an_adjective_in_ed_names_the_cells_of_its_noun():
    shelves = {"Category": ["Tins", "Jars", "Fresh fruit"], "Shelf": ["A1", "B2"]}
    assert [(v.text, v.cells) for v in cell_values("How many kilos of tinned goods are on the shelves?", shelves)] \
        == [("tinned", ("Tins",))]
    # a verb of the question in -ed names no cell
    assert cell_values("How many items were received in March?", shelves) == []
