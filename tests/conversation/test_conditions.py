"""What a question states, read by rules: periods, other numbers, the names it gives and what it measures."""
from core.conversation.conditions import mentions, read_statement
from tests.conversation.bakery import stored_columns


def test_periods_numbers_names_and_measure_words_are_told_apart():
    stated = read_statement("Which orders from Kingsmoor and Ashgate in Q2 2024 were over 2000?")
    assert [(p.kind, p.text) for p in stated.periods] == [("quarter", "Q2"), ("year", "2024")]
    assert [n.text for n in stated.numbers] == ["2000"]  # an amount, not a year
    assert [v.text for v in stated.values] == ["Kingsmoor", "Ashgate"]  # two names, not "Kingsmoor and Ashgate"
    assert stated.measure == ["orders"]


def test_a_name_is_capitalised_or_a_stored_cell_and_a_question_word_is_neither():
    stated = read_statement("What were Fernley Green's rye bread sales in March?", stored_columns)
    assert [(v.text, sorted(v.columns)) for v in stated.values] == [("Fernley Green", ["shop"]),
                                                                      ("rye bread", ["product"])]
    assert [p.text for p in stated.periods] == ["March"] and stated.measure == ["sales"]
    assert [v.text for v in read_statement("Millbrook's sales in May?").values] == ["Millbrook"]
    assert read_statement("May we see the sales of the Bank of England?").periods == []


def test_mentions_ignores_case_accents_plurals_and_possessives():
    assert mentions("What were FERNLEY GREEN's sale figures?", "Fernley Green sales")
    assert mentions("Ventes à Saint-Étienne", "saint-etienne")
    assert not mentions("What were Fernley's sales?", "Fernley Green")
