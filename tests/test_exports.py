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


def _row(n, filename, properties, table=None, sheet=None, kind="row"):
    from core.annotations.search import FactRow

    return FactRow(f"f{n}", filename, filename, kind, None, sheet, n, None, table, properties, {})


def test_records_are_shown_in_tables_of_their_own_columns_in_first_seen_order():
    from core.exports import record_tables

    rows = [
        _row(1, "specs.xlsx", {"Model": "HX-400", "Width (mm)": "1134"}, table="Helios", sheet="Helios"),
        _row(2, "orders.csv", {"order_id": "O1", "total": "3.00"}),
        _row(3, "specs.xlsx", {"Type": "SP-M", "W [m]": "1.048"}, table="SunPeak", sheet="SunPeak"),
        _row(4, "specs.xlsx", {"Model": "HX-450"}, table="Helios", sheet="Helios"),  # its width cell is empty
        _row(5, "orders.csv", {"order_id": "O2", "total": "4.00"}),
    ]
    tables = record_tables(rows)

    assert [t.title for t in tables] == ["specs.xlsx, sheet Helios", "orders.csv", "specs.xlsx, sheet SunPeak"]
    helios, orders, sunpeak = (t.rows for t in tables)
    assert [r["Model"] for r in helios] == ["HX-400", "HX-450"] and helios[1]["Width (mm)"] == ""  # truly empty
    assert "Type" not in helios[0] and "Model" not in sunpeak[0]  # no column of another table
    assert [r["fact_id"] for r in orders] == ["f2", "f5"] and list(orders[0])[:2] == ["order_id", "total"]


def test_a_documents_labelled_fields_are_one_table_of_field_and_value_with_their_context():
    from core.exports import record_tables

    rows = [_row(1, "receipts.pdf", {"Total": "776.40", "Receipt no.": "R-1"}, kind="kv"),
            _row(2, "receipts.pdf", {"Payment": "Visa", "Receipt no.": "R-1", "Date": "2024-03-02"}, kind="kv")]
    [table] = record_tables(rows)

    assert [(r["Field"], r["Value"], r["Receipt no."]) for r in table.rows] == [("Total", "776.40", "R-1"),
                                                                               ("Payment", "Visa", "R-1")]
    assert table.rows[0]["Date"] == "" and "Total" not in table.rows[0]
