"""A column read as a whole: the order of its numeric dates, times after dates, spellings of one value."""
from collections import Counter

from core.annotations.columns import (excel_serial_dates, fold, matching_values, numeric_order, one_letter_apart,
                                      read_dates, variant_groups)


def test_one_first_part_over_12_anywhere_makes_the_whole_column_day_first():
    texts = ["03/04/2025", "05/06/2025", "17/06/2025"]
    assert numeric_order(texts) is True
    column = read_dates(texts, numeric_order(texts))
    assert column.dates == ["2025-04-03", "2025-06-05", "2025-06-17"]
    assert (column.order, column.decided_by, column.parsed, column.filled) == ("day first", "column", 3, 3)


def test_one_second_part_over_12_makes_it_month_first():
    texts = ["03/04/2025", "05/06/2025", "06/28/2025"]
    assert numeric_order(texts) is False
    assert read_dates(texts, False).dates == ["2025-03-04", "2025-05-06", "2025-06-28"]


def test_a_column_that_does_not_say_takes_its_tables_order_then_the_default():
    texts = ["03/04/2025", "05/06/2025"]
    assert numeric_order(texts) is None
    by_table = read_dates(texts, None, fallback=False)
    assert by_table.dates == ["2025-03-04", "2025-05-06"] and by_table.decided_by == "table"
    by_default = read_dates(texts, None)
    assert by_default.dates == ["2025-04-03", "2025-06-05"] and by_default.decided_by == "default"


def test_written_months_iso_dates_and_blanks():
    column = read_dates(["March 5, 2025", "2025-11-30", None, "sometime"], None)
    assert column.dates == ["2025-03-05", "2025-11-30", None, None]
    assert (column.parsed, column.filled, column.order) == (2, 3, None)  # no numeric date: no order to decide


def test_a_time_after_the_date_is_kept_in_a_date_time():
    column = read_dates(["2025-02-03 09:14", "2025-02-04T17:05:30", "2025-02-05", "6 May 2025, 2:30 pm"], None)
    assert column.dates == ["2025-02-03", "2025-02-04", "2025-02-05", "2025-05-06"]
    assert column.datetimes == ["2025-02-03 09:14:00", "2025-02-04 17:05:30", "2025-02-05 00:00:00",
                                "2025-05-06 14:30:00"]
    assert read_dates(["2025-02-03"], None).datetimes is None  # no time anywhere: no date-time twin


def test_excel_day_numbers():
    assert excel_serial_dates([45658, None, 45717]) == ["2025-01-01", None, "2025-03-01"]
    assert excel_serial_dates([12, 45658]) is None  # 12 is no date: not a column of Excel dates


def test_fold_drops_accents_case_spaces_and_punctuation():
    assert fold("Seán") == fold("sean") == "sean"
    assert fold("Dr. Okafor") == "drokafor" and fold("Ribeiro & Filhos") == "ribeiro&filhos"


def test_one_letter_apart_is_a_spelling_slip_only_for_long_words_without_digits():
    assert one_letter_apart("cancelled", "canceled") and one_letter_apart("favourite", "favorite")
    assert not one_letter_apart("band1", "band2") and not one_letter_apart("mark", "mary")


def test_variant_groups_put_spellings_of_one_value_together_most_written_first():
    counts = Counter({"Vegan": 9, "vegan": 2, "VEGAN": 1, "Gluten-free": 4, "Gluten free": 1, "Dairy": 3,
                      "Cancelled": 5, "Canceled": 2})
    groups = variant_groups(counts, limit=30)
    assert groups[0] == ["Vegan", "vegan", "VEGAN"]
    assert ["Gluten-free", "Gluten free"] in groups and ["Cancelled", "Canceled"] in groups and ["Dairy"] in groups
    assert variant_groups(Counter({f"Guest {i}": 1 for i in range(40)}), limit=30) is None  # names, no category


def test_a_questions_value_matches_every_spelling_of_it():
    groups = [["Vegan", "vegan"], ["Cancelled", "Canceled"], ["Seán"], ["OKAFOR"]]
    assert matching_values("VEGAN", groups) == ["Vegan", "vegan"]
    assert matching_values("sean", groups) == ["Seán"]
    assert matching_values("okafor", groups) == ["OKAFOR"]
    assert matching_values("cancelled", groups) == ["Cancelled", "Canceled"]
    assert matching_values("Canceledd", groups) == ["Cancelled", "Canceled"]  # one letter off, no exact match
    assert matching_values("tofu", groups) == []
