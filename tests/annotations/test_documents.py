"""Document records: an invoice's or receipt's header read from its layout, each value found in its text."""
from core.annotations.documents import (Line, Cell, amounts, day_first, find_dates, first_date, is_total_line,
                                        lines_from_text, lines_from_words, read_record, record_facts)
from core.ingest.extract import may_be_record


def record(text: str):
    return read_record("doc.pdf", lines_from_text(text), 1)


def test_a_total_without_a_colon_and_a_number_after_the_word_invoice():
    found = record("Azure Interior\nInvoice INV/2023/03/0008\nSubtotal   $ 262.90\nTax 15%   $ 16.94\nTotal   $ 279.84\n")
    assert found.total == 279.84 and found.number == "INV/2023/03/0008" and found.currency == "USD"
    assert found.printed["total"] == "$ 279.84"


def test_a_value_printed_below_its_label_in_a_row_of_labels():
    text = ("Invoice Date:      Due Date:      Reference:\n"
            "03/20/2023        04/04/2023     CUSTREF123\n"
            "Total   $ 10.00\n")
    found = record(text)
    assert found.date == "2023-03-20"  # month first: the 20 says so; the due date is not the issue date


def test_the_final_total_wins_over_a_subtotal_and_a_rounding_line():
    text = "TOTAL      RM 33.92\nROUNDING ADJUSTMENT    -RM 0.02\nTOTAL ROUNDED     RM 33.90\nCASH    RM 50.00\n12-01-19 21:13\n"
    found = record(text)
    assert found.total == 33.90 and found.currency == "MYR" and found.date == "2019-01-12"


def test_a_subtotal_is_the_total_only_when_nothing_else_is_printed():
    assert record("SUBTOTAL   RM20.40\nCASH   RM20.40\n04-05-2018\n").total == 20.40
    assert record("Subtotal: $ 100.00\nVAT: $ 20.00\nGrand Total: $ 120.00\n01/02/2024").total == 120.00


def test_a_total_under_an_unknown_label_is_found_as_the_subtotal_plus_a_charge():
    # "Settled" is no total label; the sum says which figure it is, and cash tendered never adds up
    found = record("Subtotal      50.00\nService 10%    5.00\nSettled       £55.00\nCash          60.00\n")
    assert found.total == 55.00 and found.printed["total"] == "£55.00"
    assert record("Subtotal   30.00\nCash   50.00\nChange   20.00\n").total == 30.00  # 30 + 20 is the cash, not a total


def test_european_figures_and_month_names_in_other_languages():
    found = record("Coolblue B.V.\nFactuurnummer: 993548900\nFactuurdatum: 19 april 2014\nTotaal   € 4.904,94\n")
    assert (found.number, found.date, found.total, found.currency) == ("993548900", "2014-04-19", 4904.94, "EUR")
    assert found.issuer == "Coolblue B.V."
    assert find_dates("Facture n°562044387 du 02 Juillet 2015")[0].iso == "2015-07-02"


def test_day_first_unless_the_document_says_otherwise():
    assert day_first("05/04/2023 and 25/04/2023") and not day_first("04/25/2023") and day_first("no dates")


def test_one_date_reader_for_a_cell_a_cover_and_a_question():
    """first_date is what a table cell, a filing's cover and the router read a date with."""
    assert first_date("2024-01-18 (Thu)") == "2024-01-18" and first_date("18 January 2024") == "2024-01-18"
    assert first_date("03/20/2023") == "2023-03-20" and first_date("05/04/2023") == "2023-04-05"  # day first
    assert first_date("Sept. 30, 2023") == "2023-09-30" and first_date("March 31,2023") == "2023-03-31"
    assert first_date("Took office: November 7, 1816") == "1816-11-07"  # a table of history
    assert first_date("7.5/10") is None and first_date("10/02/2317 01:09:47 PM") is None  # a rating, an OCR slip
    assert first_date("Smarch 3, 2023") is None and first_date("no date") is None


def test_a_figure_is_read_with_its_currency_and_never_as_a_percentage():
    assert amounts("Total RM5.00") == [("5.00", 5.0)]
    assert amounts("GST @ 6% : 1939", whole=True) == [("1939", 1939.0)]


def test_a_document_without_a_total_is_no_record():
    found = record("Meeting notes\nWe agreed on the roof access on 03/04/2024.\n")
    assert not found.is_record and record_facts(found, "d1") == []


def test_the_record_fact_keeps_iso_date_and_the_total_as_a_number():
    found = record("ACME Ltd\nInvoice No: A-17\nDate: 2024-01-18\nTotal: $ 12.50\n")
    [fact] = record_facts(found, "d1")
    values = {v.column: v for v in fact.values}
    assert values["Date"].text == "2024-01-18" and values["Total"].number == 12.5 and values["Number"].text == "A-17"
    assert values["Issuer"].text == "ACME Ltd" and fact.table == "document record"


def test_pdf_words_become_cells_split_at_wide_gaps():
    words = [{"text": "Total", "x0": 10, "x1": 40, "top": 100, "bottom": 110},
             {"text": "due", "x0": 42, "x1": 60, "top": 100, "bottom": 110},
             {"text": "$4.11", "x0": 300, "x1": 330, "top": 101, "bottom": 111}]
    [line] = lines_from_words(words, 1)
    assert [c.text for c in line.cells] == ["Total due", "$4.11"]
    assert read_record("a.pdf", [line, Line([Cell("Invoice Number: 42183017", 0, 90)])], 1).total == 4.11


def test_a_report_that_prints_totals_and_dates_is_no_record():
    from core.ingest.document import LoadedDocument, Section
    # (an 8-K named only by its form is the SEC-filing profile's: tests/profiles)
    release = LoadedDocument("acme.pdf", "pdf", [Section("ACME Corp Annual Report\nDate: 2023-05-05\nTotal revenue  $ 22,322.00\n", page=1)], 1)
    receipt = LoadedDocument("scan.jpg", "jpg", [Section("QuickFit Tyres\nDate: 2024-01-18\nTOTAL  $ 412.00\n", page=1)], 1)
    assert not may_be_record(release) and may_be_record(receipt)


def test_one_check_says_a_line_sums_others_for_the_item_lines_and_the_line_item_table():
    for line in ("Total $ 279.84", "Gesamtbetrag EUR", "GST (6%)", "AMOUNT PAID", "Sub-total", "TOTAL ROUNDED",
                 "Exclusief BTW € 593,36 Subtotaal", "Prijzen zijn inclusief BTW Factuur totaal EUR"):
        assert is_total_line(line), line
    for line in ("Totally Fresh Juice 1L", "Solar panel HX-400", "Mounting rail 2 m"):
        assert not is_total_line(line), line


def test_a_payment_printed_on_an_invoice_leaves_its_total_and_says_what_is_still_owed():
    found = record("Garden Co Ltd\nInvoice no: GC-118\nInvoice total   £ 2,400.00\nDeposit received 03/02/2025   £ 900.00\n"
                   "Amount due   £ 1,500.00\n")
    assert (found.total, found.balance) == (2400.00, 1500.00) and found.printed["balance"] == "£ 1,500.00"
    values = {v.column: v for v in record_facts(found, "d1")[0].values}
    assert values["Total"].number == 2400.00 and values["Balance due"].number == 1500.00
    # a receipt's total due over the cash handed over is its total: nothing was paid on account
    receipt = record("Corner Shop\nDate: 2024-01-18\nSubtotal  9.00\nTax  1.00\nTotal due   10.00\nCash  20.00\nChange  10.00\n")
    assert (receipt.total, receipt.balance) == (10.00, None)
    final = record("Invoice no: S-9\nInvoice total   £ 500.00\nLess interim payments received   £ 350.00\nAmount now due   £ 150.00\n")
    assert (final.total, final.balance) == (500.00, 150.00)
    # a payment printed as a negative line ("Less deposit -£200.00") is taken off just the same
    signed = record("Fenwick Joinery\nInvoice no: FJ-31\nTotal   £ 800.00\nLess deposit paid   -£ 200.00\nBalance due   £ 600.00\n")
    assert (signed.total, signed.balance) == (800.00, 600.00)
