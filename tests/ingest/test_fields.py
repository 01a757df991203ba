"""Form fields printed as a row of labels over a row of values become one "label: value" line each."""
from core.ingest.fields import pair_stacked_fields


def test_a_row_of_labels_over_a_row_of_values_is_read_as_label_value_lines():
    text = "Invoice INV/7\nInvoice Date: Due Date: Reference:\n03/20/2023 04/04/2023 REF9\nTotal $ 10.00"
    assert pair_stacked_fields(text).split("\n") == [
        "Invoice INV/7", "Invoice Date: 03/20/2023", "Due Date: 04/04/2023", "Reference: REF9", "Total $ 10.00"]


def test_values_that_do_not_parse_one_per_label_are_left_as_printed():
    for text in ("Bill To: Ship To:\nPayment Terms: Net 30 days",  # the next line is a label line itself
                 "Date: Place:\n20 March 2023 Oslo",  # a value with spaces: which words go where is unknown
                 "Bank: IBAN:\nFR76",  # a value missing
                 "Due Date:\n04/04/2023",  # one label: nothing is stacked
                 "Time: 12:30\nfoo bar"):  # not a row of labels
        assert pair_stacked_fields(text) == text


def test_a_label_row_on_the_last_line_is_kept():
    assert pair_stacked_fields("Total: Tax:") == "Total: Tax:"
