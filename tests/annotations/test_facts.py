"""Facts are extracted at ingest with provenance, and searched, aggregated and exported exactly."""
from __future__ import annotations

import csv
import io

import openpyxl
import pytest
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from core.annotations.search import Condition, FactQuery, aggregate


def _receipt_pdf(path, pages):
    pdf = canvas.Canvas(str(path), pagesize=A4)
    for lines in pages:
        y = 800
        for line in lines:
            pdf.drawString(60, y, line)
            y -= 18
        pdf.showPage()
    pdf.save()
    return path


def _specs_xlsx(path):
    book = openpyxl.Workbook()
    a = book.active
    a.title = "Helios"
    a.append(["Helios module data (2024)"])
    a.append(["Model", "Width (mm)", "Power (W)"])
    a.append(["HX-400", 1134, 400])
    a.append(["HX-600", 1303, 600])
    b = book.create_sheet("SunPeak")
    b.append(["Type", "W [m]", "Pmax kW"])
    b.append(["SP-M 0.38", 1.048, 0.38])
    b.append(["SP-X 0.60", 1.303, 0.60])
    book.save(path)
    return path


@pytest.fixture
def ws(make_workspace, tmp_path):
    ws = make_workspace()
    orders = tmp_path / "orders.csv"
    rows = [["order_id", "date", "customer", "qty", "total"]]
    rows += [[f"O{i}", f"{2023 + i % 2}-0{1 + i % 9}-15", ["ACME", "Globex"][i % 2 == 0 and i % 3 == 0], str(i % 4 + 1), f"{10 * i}.50"]
             for i in range(1, 201)]
    orders.write_text("\n".join(",".join(r) for r in rows))
    receipts = _receipt_pdf(tmp_path / "receipts.pdf", [
        ["QuickFit Tyres", "Date: 2024-03-02", "Winter tyres 205/55 R16: 4 x 95.00", "Total: 380.00 GBP"],
        ["AutoParts Direct", "Date: 2024-05-11", "Brake pads: 1 x 45.00", "Total: 45.00 GBP"],
        ["Green Garden", "Date: 2024-06-01", "Wheelbarrow tire: 1 x 19.99", "Total: 19.99 GBP"],
    ])
    results = ws.ingestor.ingest_paths([orders, receipts, _specs_xlsx(tmp_path / "specs.xlsx")])
    assert all(r.ok for r in results), results
    return ws


def facts(ws):
    from core.annotations.search import FactStore

    return FactStore(ws.kb.catalog.facts, ws.embedder.embed)


def test_every_csv_row_is_a_fact_with_provenance(ws):
    rows = facts(ws).search(FactQuery(doc_ids=ws.kb.resolve_documents(["orders.csv"])))
    assert len(rows) == 200
    first = rows[0]
    assert first.properties["order_id"] == "O1" and first.row_index == 2 and first.chunk_id
    assert ws.kb.counts()["facts"] >= 200


def test_counts_come_from_all_rows_not_a_few_chunks(ws):
    store = facts(ws)
    acme_2024 = store.search(FactQuery([Condition("customer", "contains", "ACME")],
                                       date_from="2024-01-01", date_to="2024-12-31"))
    expected = sum(1 for i in range(1, 201) if not (i % 2 == 0 and i % 3 == 0) and (2023 + i % 2) == 2024)
    assert len(acme_2024) == expected


def test_width_in_different_units_and_labels_is_compared_in_metres(ws):
    store = facts(ws)
    narrow = store.search(FactQuery([Condition("width", "<=", 1.2, "m")]))
    names = {r.properties.get("Model") or r.properties.get("Type") for r in narrow}
    assert names == {"HX-400", "SP-M 0.38"}  # 1134 mm and 1.048 m; not the 1303 mm / 1.303 m ones


def test_a_metre_column_named_w_is_a_width_not_watts(ws):
    store = facts(ws)
    assert "w" in store.match_columns("width", "length")
    assert "w" not in store.match_columns("power", "power")
    assert "pmax" in store.match_columns("power", "power")


def test_text_search_finds_every_receipt_line_with_tyres(ws):
    rows = facts(ws).search(FactQuery(text=["tyre", "tire"]))
    assert {r.page for r in rows} == {1, 3} and all(r.filename == "receipts.pdf" for r in rows)


def test_aggregates_sum_and_group(ws):
    store = facts(ws)
    rows = store.search(FactQuery(doc_ids=ws.kb.resolve_documents(["orders.csv"])))
    per_customer = aggregate(rows, "sum", store.match_columns("total"), store.match_columns("customer"))
    total = sum(10 * i + 0.5 for i in range(1, 201))
    assert sum(g["sum"] for g in per_customer) == pytest.approx(total)
    assert {g["group"] for g in per_customer} == {"ACME", "Globex"}
    [count] = aggregate(rows, "count")
    assert count["count"] == 200


def test_export_has_every_column_and_provenance(ws):
    from core.exports import export_annotations_csv

    rows = facts(ws).search(FactQuery([Condition("width", "<=", 1.2, "m")]))
    table = list(csv.DictReader(io.StringIO(export_annotations_csv(rows).decode("utf-8-sig"))))
    assert len(table) == 2
    assert {"Model", "Width (mm)", "filename", "sheet", "row", "chunk_id"} <= set(table[0])


def test_deleting_a_document_deletes_its_facts(ws):
    before = ws.kb.counts()["facts"]
    ws.ingestor.delete("orders.csv")
    assert ws.kb.counts()["facts"] == before - 200


def test_invoice_totals_without_a_colon_and_values_on_the_next_line_are_facts(tmp_path):
    from core.ingest.extract import extract_facts
    from core.ingest.document import LoadedDocument, Section

    page = "Invoice Date:\n03/20/2023\nTotal $ 279.84\nMontant du prélèvement : 29.99 €\nTotaal € 4.904,94"
    facts = extract_facts(LoadedDocument("inv.pdf", "pdf", [Section(page, page=1)], page_count=1), "d")
    values = {f.values[0].column: f.values[0] for f in facts}
    assert values["Invoice Date"].date == "2023-03-20"
    assert values["Total"].base == 279.84 and values["Total"].unit == "USD"
    assert values["Montant du prélèvement"].base == 29.99
    assert values["Totaal"].base == 4904.94


def test_receipt_item_lines_with_count_times_unit_price_are_rows_and_the_amount_paid_is_not_an_item():
    from core.ingest.document import LoadedDocument, Section
    from core.ingest.extract import extract_facts

    page = ("Harbour Tools\nDrill bits HSS 8mm      3 x 4,20      12,60\nCordless drill 18V     1 x 89,00     89,00\n"
            "Delivery                              6,50\nAMOUNT PAID                     €108,10\n")
    facts = extract_facts(LoadedDocument("r.txt", "txt", [Section(page)], page_count=1), "d")  # a text file has no pages
    items = [{v.column: v.text for v in f.values if v.column != "Heading"} for f in facts if f.table == "item lines"]
    assert items == [
        {"Description": "Drill bits HSS 8mm", "Qty": "3", "Unit price": "4,20", "Amount": "12,60"},
        {"Description": "Cordless drill 18V", "Qty": "1", "Unit price": "89,00", "Amount": "89,00"},
        {"Description": "Delivery", "Amount": "6,50"}]


def test_rows_of_a_table_without_rules_read_with_their_headers_are_the_items_and_the_lines_below_are_not():
    """A PDF invoice whose items are aligned text, not a drawn table: the PDF reader writes each row out
    with its column headers, and those rows are the line items; the net, tax and total lines below are not."""
    from core.ingest.document import LoadedDocument, Section
    from core.ingest.extract import extract_facts

    page = ("Fernhill Joinery\nInvoice 88\nDescription\n"
            "Oak shelf, 90 cm | Qty: 3 | Unit price: 40.00 | Line total: 120.00\n"
            "Fitting | Qty: 2 | Unit price: 25.00 | Line total: 50.00\n"
            "Net 170.00\nVAT 20% 34.00\nBalance due 204.00\n")
    facts = extract_facts(LoadedDocument("inv.pdf", "pdf", [Section(page, page=1)], page_count=1), "d")
    items = [{v.column: v.text for v in f.values if v.column != "Heading"} for f in facts if f.table == "item lines"]
    assert items == [
        {"Description": "Oak shelf, 90 cm", "Qty": "3", "Unit price": "40.00", "Line total": "120.00"},
        {"Description": "Fitting", "Qty": "2", "Unit price": "25.00", "Line total": "50.00"}]


def test_a_pdf_of_several_shops_receipts_has_a_record_for_each_page(tmp_path):
    """One scan bundle, one receipt a page: each page is its own record (its shop, number, date and
    total), not one record of the whole file with the first shop's address and the last page's total."""
    from core.config import load_settings
    from core.ingest.extract import extract_facts
    from core.ingest.loaders import load_document

    pdf = _receipt_pdf(tmp_path / "bundle.pdf", [
        ["Kestrel Tools", "Unit 9, Mill Trading Estate, Leeds LS2 7AB", "Receipt no: KH-101", "Date: 2024-03-02",
         "Total: 18.40"],
        ["Corner Bakery", "Receipt no: CB-77", "Date: 2024-03-05", "Total: 6.20"]])
    facts = extract_facts(load_document(pdf, load_settings()), "d", pdf)
    records = [{v.column: v.text for v in f.values} for f in facts if f.table == "document record"]
    assert [(r["Issuer"], r["Number"], r["Total"]) for r in records] == [
        ("Kestrel Tools", "KH-101", "18.40"), ("Corner Bakery", "CB-77", "6.20")]


@pytest.mark.parametrize("line, expected", [
    ("Dimensions: 1722 x 1134 x 30 mm", {"length": 1.722, "width": 1.134, "depth": 0.03}),
    ("Module dimensions (L x W x H): 1.755 m x 1.038 m x 0.035 m", {"length": 1.755, "width": 1.038, "height": 0.035}),
    ("Size (H x W x D): 60 x 40 x 20 cm", {"height": 0.6, "width": 0.4, "depth": 0.2}),
])
def test_each_printed_dimension_is_a_length_named_in_the_order_the_label_gives(line, expected):
    from core.ingest.document import LoadedDocument, Section
    from core.ingest.extract import extract_facts

    facts = extract_facts(LoadedDocument("sheet.pdf", "pdf", [Section(line, page=1)], page_count=1), "d")
    lengths = {v.column.split(" (")[0]: round(v.base, 3) for f in facts for v in f.values[1:]}
    assert lengths == expected
