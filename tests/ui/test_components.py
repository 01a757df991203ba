"""Small pieces of the pages that put a result into words."""
from ui.components import match_summary


def test_a_count_of_records_says_its_rows_when_a_record_spans_several_files():
    assert match_summary({"total_records": 6, "total_matches": 9}) == "6 matching records in 9 rows"
    assert match_summary({"total_records": 20, "total_matches": 20}) == "20 matching records"
    assert match_summary({"total_matches": 3}) == "3 matching records"  # a result saved before records were counted
