"""Records are what users count and list: a receipt is one record however many lines it has, and
a panel described on two documents is one panel."""
from __future__ import annotations

import pytest

from core.ingest.extract import extract_facts
from core.annotations.query import parse_structured
from core.annotations.records import identifier_rank, page_heading, table_identifier
from core.annotations.route import phrase_answer, run_structured
from core.annotations.search import FactRow, aggregate
from core.ingest.document import LoadedDocument, Section
from core.ingest.tables import TableBlock


@pytest.mark.parametrize("label, named", [
    ("Receipt no.", True), ("order_id", True), ("Invoice number", True), ("Model", True), ("Type", True),
    ("VAT registration no.", False), ("Customer no", False), ("Phone number", False), ("Date", False),
    ("Total", False),
])
def test_identifier_labels(label, named):
    assert (identifier_rank(label) is not None) is named


def test_a_table_is_named_by_a_unique_identifier_column_only():
    header = ["Type", "order_id", "total"]
    rows = [["panel", "O1", "5"], ["panel", "O2", "7"]]
    assert table_identifier(header, rows) == 1  # "Type" repeats: it is a category, not a name
    assert table_identifier(["product", "qty"], [["a", "1"], ["b", "2"]]) is None


def test_a_page_heading_is_a_name_not_a_label_or_a_title_word():
    assert page_heading("\nQuickFit Tyres\nUnit 4, Reading") == "QuickFit Tyres"
    assert page_heading("RECEIPT\nReceipt no.: 1") is None
    assert page_heading("Date: 2024-01-18\nQuickFit") is None


def _receipt_page(number: int, vendor: str, receipt_no: str, date: str, lines: list[tuple[str, str]]) -> list[Section]:
    text = f"{vendor}\nReceipt no.: {receipt_no}\nDate: {date}\nTotal {sum(float(a) for _, a in lines):.2f}"
    table = TableBlock(["Description", "Amount"], [[d, a] for d, a in lines]
                       + [["Total", f"{sum(float(a) for _, a in lines):.2f}"]], list(range(2, len(lines) + 3)))
    return [Section(text, page=number), Section("", page=number, is_table=True, table=table)]


@pytest.fixture
def receipt_rows() -> list[FactRow]:
    sections = (_receipt_page(1, "QuickFit Tyres", "QF-1", "2024-01-18", [("Winter tyre", "90.00"), ("Tyre fitting", "20.00")])
                + _receipt_page(2, "AutoParts Direct", "AP-1", "2024-02-02", [("Brake pads", "45.00")])
                + _receipt_page(3, "QuickFit Tyres", "QF-2", "2023-12-30", [("Summer tyre", "80.00")]))
    facts = extract_facts(LoadedDocument("receipts.pdf", "pdf", sections, page_count=3), "d")
    for n, fact in enumerate(facts):
        fact.fact_id = f"f{n}"
    return [FactRow(f.fact_id, f.doc_id, "receipts.pdf", f.kind, f.page, f.sheet, f.row_index, None, f.table,
                    f.properties, {v.column: v.base if v.base is not None else v.number for v in f.values}, f.record)
            for f in facts]


def test_line_items_borrow_the_vendor_number_and_date_printed_above_them(receipt_rows):
    winter = next(r for r in receipt_rows if r.properties.get("Description") == "Winter tyre")
    assert winter.record == "Receipt no.: QF-1"
    assert winter.properties["Heading"] == "QuickFit Tyres" and winter.properties["Date"] == "2024-01-18"


def test_a_total_printed_in_the_table_and_as_a_line_is_one_figure(receipt_rows):
    totals = [r for r in receipt_rows if r.page == 1 and r.kind == "kv" and "Total" in r.properties]
    assert len(totals) == 1 and totals[0].numbers["Total"] == 110.0


def test_counting_receipts_counts_receipts_not_their_lines(receipt_rows):
    tyre_lines = [r for r in receipt_rows if "tyre" in r.properties.get("Description", "").lower()]
    [count] = aggregate(tyre_lines, "count")
    assert len(tyre_lines) == 3 and count["count"] == 2


def test_a_receipt_adds_its_total_once_not_also_its_line_amounts(receipt_rows):
    quickfit = [r for r in receipt_rows if r.properties.get("Heading") == "QuickFit Tyres"]
    [spent] = aggregate(quickfit, "sum", ["total", "amount"])
    assert spent["sum"] == pytest.approx(110.0 + 80.0) and spent["count"] == 2


def test_line_amounts_are_added_up_when_a_record_has_no_total():
    rows = [FactRow(f"f{i}", "d", "r.pdf", "row", 1, None, i, None, None, {"Amount": a}, {"Amount": float(a)},
                    "Receipt no.: R1") for i, a in enumerate(["10", "5"])]
    [spent] = aggregate(rows, "sum", ["total", "amount"])
    assert spent["sum"] == 15.0


class _Store:
    """The part of FactStore the route uses, over fixed rows."""

    def __init__(self, rows):
        self.rows = rows

    def search(self, query):
        wanted = [w.lower() for w in query.text]
        names = [str(c.value).lower() for c in query.conditions if not c.label]
        return [r for r in self.rows
                if (not wanted or any(w in r.properties.get("Description", "").lower() for w in wanted))
                and all(any(n in v.lower() for v in r.properties.values()) for n in names)]

    def match_columns(self, label, kind=None, doc_ids=None):
        return {"total": ["total", "amount"]}.get(label, [label])


def test_listing_receipts_names_each_receipt_once(receipt_rows):
    parsed = parse_structured("List every receipt with tyres", set())
    result = run_structured(parsed, _Store(receipt_rows))
    answer = phrase_answer(result, max_rows=10, max_sources=5)
    assert answer.text.startswith("2 records with the word tire / tyre: ")
    assert "Receipt no.: QF-1" in answer.text and "Receipt no.: QF-2" in answer.text


def test_a_named_kind_of_record_keeps_only_those_records():
    order = FactRow("o", "d1", "orders.csv", "row", None, None, 2, None, None, {"order_id": "O1", "total": "40"},
                    {"total": 40.0}, "order_id: O1")
    receipt = FactRow("r", "d2", "receipts.pdf", "kv", 1, None, 3, None, None, {"Total": "5"}, {"Total": 5.0},
                      "Receipt no.: R1")
    parsed = parse_structured("What is the lowest order total?", set())
    result = run_structured(parsed, _Store([order, receipt]))
    assert [r.fact_id for r in result.rows] == ["o"] and result.aggregates[0]["min"] == 40.0


def test_the_same_model_on_a_sheet_and_a_datasheet_is_one_record():
    sheet = FactRow("a", "d1", "specs.xlsx", "row", None, "Helios", 3, None, None, {"Model": "HX-400"}, {}, "Model: HX-400")
    page = FactRow("b", "d2", "sheets.pdf", "kv", 1, None, 4, None, None, {"Weight": "21 kg"}, {}, "Model: HX-400")
    assert aggregate([sheet, page], "count")[0]["count"] == 1


def test_with_a_total_above_is_a_filter_not_a_sum():
    assert parse_structured("List every order with a total above 7000", set()).aggregate is None
    assert parse_structured("How many orders have a total above 7000?", set()).aggregate == "count"


def test_line_items_printed_without_a_table_become_rows():
    page = ("Coolblue B.V.\nApple iPad Air Wifi 16 GB Zilver 1 € 399,00 21% € 399,00\n"
            "6 1 Small Business Exchange 2010 5,39 5,39\nTotal € 404,39")
    facts = extract_facts(LoadedDocument("inv.pdf", "pdf", [Section(page, page=1)], page_count=1), "d")
    rows = [f.properties for f in facts if f.kind == "row"]
    assert rows[0]["Description"] == "Apple iPad Air Wifi 16 GB Zilver" and rows[0]["Qty"] == "1"
    assert rows[0]["Amount"] == "€ 399,00"
    assert rows[1]["Description"] == "Small Business Exchange 2010" and rows[1]["Unit price"] == "5,39"
    assert not any("Total" in r.get("Description", "") for r in rows)


def test_a_single_priced_line_is_not_a_list_of_items():
    page = "Amazon Web Services\nAWS Data Transfer $0.01\nInvoice Number: 42"
    facts = extract_facts(LoadedDocument("inv.pdf", "pdf", [Section(page, page=1)], page_count=1), "d")
    assert not [f for f in facts if f.kind == "row"]


def test_spending_per_vendor_groups_receipts_by_the_name_printed_at_their_top(receipt_rows):
    class Columns(_Store):
        def match_columns(self, label, kind=None, doc_ids=None):
            from core.annotations.search import SYNONYMS
            wanted = {label} | SYNONYMS.get(label, set())
            return sorted({c.lower() for r in self.rows for c in r.properties} & wanted)

    parsed = parse_structured("What is the total per vendor?", set())
    result = run_structured(parsed, Columns(receipt_rows))
    assert {g["group"]: g["sum"] for g in result.aggregates} == {"QuickFit Tyres": 190.0, "AutoParts Direct": 45.0}


def test_a_count_of_what_a_column_holds_leaves_out_rows_where_it_is_blank():
    from core.annotations.route import counted_rows
    rows = [FactRow(f"f{i}", "d", "tablets.csv", "row", None, None, i, None, "t",
                    {"Tablet": str(i) if i < 4 else "", "Narrative": "text"}, {}) for i in range(1, 5)]
    parsed = parse_structured("what is the number of tablets?")
    assert parsed.aggregate == "count" and parsed.counted == "tablets"
    assert [r.row_index for r in counted_rows(rows, parsed.counted)] == [1, 2, 3]
    assert counted_rows(rows, "narratives") == rows  # a column every row fills: every row counts
    assert counted_rows(rows, "orders") == rows  # no column of that name: the rows as found
