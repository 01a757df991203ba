"""Export file names say what is inside: the table, the question, the date."""
from core.exports import export_filename


def test_a_result_from_one_table_is_named_after_it_the_question_and_the_date():
    name = export_filename("How many orders did ACME place in 2024?", ["orders_2023_2024.csv"] * 3,
                           "2026-11-23T22:10:00+00:00")
    assert name == "orders_2023_2024-how-many-orders-did-acme-place-2026-11-23.csv"


def test_rows_from_several_files_are_named_after_the_question_only():
    name = export_filename("Which panels are no wider than 1.2 m?", ["Panel Spec.pdf", "specs.xlsx"], "2026-01-02")
    assert name == "which-panels-are-no-wider-than-2026-01-02.csv"
    assert export_filename("", [], "") == "docuchat-results.csv"
