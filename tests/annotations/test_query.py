"""Structured questions are understood by rules: comparisons, contents, names, time, aggregates."""
import pytest

from core.annotations.query import parse_structured, word_variants


def conditions(question, known=()):
    parsed = parse_structured(question, set(known))
    return [(c.label, c.op, c.value, c.unit) for c in parsed.query.conditions], parsed


@pytest.mark.parametrize("question, expected", [
    ("Which panels are no wider than 1.2 m?", ("width", "<=", 1.2, "m")),
    ("panels wider than 1100 mm", ("width", ">", 1100.0, "mm")),
    ("modules that weigh less than 20 kg", ("weight", "<", 20.0, "kg")),
    ("Which panel weighs less than 20 kg?", ("weight", "<", 20.0, "kg")),  # the verb's -s form
    ("receipts under 50 GBP", ("total", "<", 50.0, "gbp")),
    ("panels with at least 400 W of power", ("power", ">=", 400.0, "w")),
    ("vehicles longer than 20 feet", ("length", ">", 20.0, "feet")),  # one list of units with the conditions
    ("pumps with more than 150 hp of power", ("power", ">", 150.0, "hp")),
])
def test_comparisons_with_units(question, expected):
    found, parsed = conditions(question)
    assert found == [expected] and parsed.is_structured


def test_words_a_record_must_contain_include_spelling_variants():
    parsed = parse_structured("List every receipt with tyres", set())
    assert parsed.query.text == ["tire", "tyre"] and parsed.enumeration
    assert word_variants("colours") == ["color", "colour"]


def test_names_known_in_the_documents_become_filters_and_time_ranges_are_read():
    found, parsed = conditions("How many orders did ACME place in 2024?", {"acme", "globex"})
    assert found == [("", "contains", "ACME", None)]
    assert (parsed.aggregate, parsed.query.date_from, parsed.query.date_to) == ("count", "2024-01-01", "2024-12-31")


@pytest.mark.parametrize("question, aggregate, measure, group", [
    ("What is the total per customer?", "sum", "total", "customer"),
    ("Total spent per vendor in 2024", "sum", "total", "vendor"),
    ("What was the highest order total?", "max", "total", None),
    ("average price of panels", "avg", "price", None),
])
def test_aggregates_and_grouping(question, aggregate, measure, group):
    parsed = parse_structured(question, {"total"})
    assert (parsed.aggregate, parsed.measure, parsed.group_by) == (aggregate, measure, group)
    assert parsed.query.conditions == []  # "Total" is a question word here, not a name


def test_a_name_alone_is_a_text_question_not_a_records_question():
    assert not parse_structured("What is the warranty of the HX-450?", {"hx-450"}).is_structured
    assert not parse_structured("Why does the inverter shut down in heat?", set()).is_structured


def test_the_kind_of_record_asked_about_is_kept_as_a_singular_word():
    parsed = parse_structured("How many receipts include tyres?", set())
    assert "receipt" in parsed.words and parsed.query.text == ["tire", "tyre"]


@pytest.mark.parametrize("question", [
    "What is the phone number of Helios Energy customer support?",
    "How much of its nominal power does an HX module still deliver after 25 years?",
])
def test_looking_a_figure_up_is_not_an_aggregate(question):
    assert parse_structured(question, set()).aggregate is None


def test_counting_things_no_record_is_about_is_left_to_the_text():
    known = {"order", "receipt", "total", "customer"}
    assert parse_structured("How many employees does Helios Energy have?", set(), known).aggregate is None
    assert parse_structured("How many orders are there?", set(), known).aggregate == "count"
    assert parse_structured("What is the number of orders in 2023?", set(), known).aggregate == "count"
