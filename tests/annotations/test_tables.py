"""Every stored table becomes a typed SQLite table with provenance; a document's label lines one more."""
import json
import sqlite3

from core.config import Settings
from core.llm.scripted import ScriptedLLM
from core.workspace import Workspace

PANELS = ("Model,Width (mm),Weight,Price,Rank,Launched\nHX-400,1134,21.5 kg,$199.00,1st,11 July 2018\n"
          "HX-450,1040,19 kg,$229.50,2nd,1 February 2019\n")
INVOICE = "Azure Interior\nInvoice: INV/2023/03/0008\nInvoice Date: 03/20/2023\nSubtotal $ 262.90\nTotal $ 279.84\n"


def test_tables_are_typed_with_units_and_provenance(tmp_path, embedder, write_text):
    ws = Workspace(Settings(data_dir=tmp_path / "kb"), embedder, ScriptedLLM([]))
    ws.ingestor.ingest_paths([write_text("panels.csv", PANELS), write_text("azure_invoice.txt", INVOICE)])
    tables = {t.name: t for t in ws.pipeline.tables.tables()}
    panels = tables["panels"]
    assert panels.types["width_mm"] == "REAL" and panels.types["model"] == "TEXT"
    assert panels.units["weight_kg"] == "kg" and panels.units["price"] == "$"
    assert panels.types["rank"] == "TEXT" and "HX-450" in panels.values
    assert panels.types["weight"] == "REAL" and "weight_text" in panels.columns  # "21.5 kg" keeps its words
    with sqlite3.connect(ws.pipeline.tables.path) as conn:
        rows = conn.execute("SELECT model, width_mm, price, weight_kg, rank, source_file, source_row, fact_id "
                            "FROM panels ORDER BY source_row").fetchall()
        assert rows[1][:5] == ("HX-450", 1040.0, 229.5, 19.0, "2nd") and rows[1][5] == "panels.csv" and rows[1][7]
        # text compares without case: the model copies a lower-case question's spelling into its filters
        assert conn.execute("SELECT width_mm FROM panels WHERE model = 'hx-450'").fetchall() == [(1040.0,)]
        fields = tables["azure_invoice_fields"]
        total = conn.execute(f"SELECT value, number FROM {fields.name} WHERE label = 'Total'").fetchone()
        assert total == ("$ 279.84", 279.84)
        # "1st", "2nd": the text stays, and the number it starts with is a column of its own
        assert conn.execute("SELECT rank_number FROM panels ORDER BY source_row").fetchall() == [(1.0,), (2.0,)]
        # dates as printed, and as ISO beside them, so MIN and < compare them as dates
        assert conn.execute("SELECT launched, launched_date FROM panels ORDER BY launched_date").fetchall() == [
            ("11 July 2018", "2018-07-11"), ("1 February 2019", "2019-02-01")]
        # the invoice's header is one typed row: its document record
        record = tables["azure_invoice_record"]
        assert record.kind == "record" and record.types["total"] == "REAL"
        row = conn.execute(f"SELECT number, date, total, currency, source_file FROM {record.name}").fetchall()
        assert row == [("INV/2023/03/0008", "2023-03-20", 279.84, "USD", "azure_invoice.txt")]
    assert "panels_record" not in tables and "document_records" not in tables  # a CSV is no invoice; one record is no list
    from core.annotations.search import FactQuery
    # the rules read the printed facts only: the record restates them, and would count a total twice
    assert all(r.table != "document record" for r in ws.pipeline.facts.search(FactQuery()))
    ws.close()


def test_the_tables_follow_the_documents(tmp_path, embedder, write_text):
    ws = Workspace(Settings(data_dir=tmp_path / "kb"), embedder, ScriptedLLM([]))
    ws.ingestor.ingest_paths([write_text("panels.csv", PANELS)])
    assert [t.name for t in ws.pipeline.tables.tables()] == ["panels"]
    ws.ingestor.delete("panels.csv")
    assert ws.pipeline.tables.tables() == []
    ws.close()


def test_a_markdown_table_is_a_typed_table_like_a_csv(tmp_path, embedder, write_text):
    markdown = "# Panels\n\n| Model | Width (mm) | Weight |\n|---|---|---|\n| HX-400 | 1134 | 21.5 kg |\n| HX-450 | 1040 | 19 kg |\n"
    ws = Workspace(Settings(data_dir=tmp_path / "kb"), embedder, ScriptedLLM([]))
    ws.ingestor.ingest_paths([write_text("panels.md", markdown)])
    [table] = [t for t in ws.pipeline.tables.tables() if t.kind == "rows"]
    assert table.filename == "panels.md" and table.types["width_mm"] == "REAL" and table.units["weight_kg"] == "kg"
    with sqlite3.connect(ws.pipeline.tables.path) as conn:
        assert conn.execute(f"SELECT model FROM {table.name} WHERE width_mm < 1100").fetchall() == [("HX-450",)]
    ws.close()


def test_datasheets_that_print_a_width_differently_are_one_table_in_metres(tmp_path, embedder, write_text):
    """Two makers, two ways to print a width: a "Property | Value" table in millimetres, and one line of
    three dimensions in metres whose order the label gives. Each document is one row of the quantities it
    prints, in base units, and a question bounding a width selects that table, not one of the sheets."""
    first = "# Solara S-400\n\n| Property | Value |\n|---|---|\n| Width | 1134 mm |\n| Mass | 21.5 kg |\n"
    second = "Brightwave B-380 datasheet\n\nRated output (Pmax): 380 Wp\nModule dimensions (L x W x H): 1.755 m x 1.038 m x 0.035 m\n"
    ws = Workspace(Settings(data_dir=tmp_path / "kb"), embedder, ScriptedLLM([]))
    ws.ingestor.ingest_paths([write_text("solara.md", first), write_text("brightwave.txt", second)])
    tables = {t.name: t for t in ws.pipeline.tables.tables()}
    assert tables["solara_fields"].kind == "fields"  # the two-column table lists the sheet's fields, not records
    measures = tables["document_measures"]
    assert measures.units["width_m"] == "m" and measures.printed["weight_kg"] == "Weight (kg)"
    with sqlite3.connect(ws.pipeline.tables.path) as conn:
        rows = conn.execute(f"SELECT file, ROUND(width_m, 3), ROUND(height_m, 3), weight_kg, power_w "
                            f"FROM {measures.name} ORDER BY file").fetchall()
    assert rows == [("brightwave.txt", 1.038, 0.035, None, 380.0), ("solara.md", 1.134, None, 21.5, None)]
    route = ws.tables_named("Which panel is narrower than 1.1 m?")
    assert [s.table.name for s in route.selections] == ["document_measures"]
    ws.close()


# --- office files (session 6): what a till export or a school's workbook holds -------------------

TILL = ("The Copper Kettle – till export\n"
        ",,,,,,\n"
        "Date,Till,Item,Category,Amount,Wait (min),Tip\n"
        "03/02/2025,1,Flat white,Coffee,£3.20,4,10%\n"
        "14/02/2025,2,Scone,bakery,\"£1,002.75\",6,0%\n"
        "15/02/2025,1,Latte,coffee,£3.40,,12.5%\n"
        "01/03/2025,2,Brownie,Bakery,£2.90,3,5%\n"
        "TOTAL,,,,\"£1,012.25\",13,\n")


def test_a_till_export_is_a_table_of_its_sales_only(tmp_path, embedder, write_text):
    """Title above, TOTAL line below, money as text with a pound sign and a thousands separator,
    day-first dates, a unit in a header, a category typed in two cases: each read as a person would."""
    ws = Workspace(Settings(data_dir=tmp_path / "kb"), embedder, ScriptedLLM([]))
    ws.ingestor.ingest_paths([write_text("copper_kettle_till.csv", TILL)])
    [till] = [t for t in ws.pipeline.tables.tables() if t.kind == "rows"]
    assert till.title == "The Copper Kettle – till export" and till.row_count == 4
    assert till.types["amount"] == "REAL" and till.units["amount"] == "£" and till.units["wait_min"] == "min"
    assert till.types["tip"] == "REAL" and till.units["tip"] == "%" and "tip_pct" not in till.columns
    assert [sorted(group) for group in till.categories["category"]] == [["Coffee", "coffee"], ["Bakery", "bakery"]]
    assert till.dates["date"]["order"] == "day first" and till.dates["date"]["parsed"] == 4
    assert [(a["kind"], a["row"], a["cells"]["Amount"]) for a in till.set_aside] == [("total", 8, "£1,012.25")]
    with sqlite3.connect(ws.pipeline.tables.path) as conn:
        # the TOTAL line is no sale: a count, a sum and a maximum see the four sales only
        assert conn.execute(f"SELECT COUNT(*), SUM(amount), MAX(amount) FROM {till.name}").fetchone() == (4, 1012.25, 1002.75)
        # 03/02/2025 is the 3rd of February: the column's 14/02 and 15/02 say the day comes first
        assert conn.execute(f"SELECT date_date FROM {till.name} ORDER BY source_row").fetchall() == [
            ("2025-02-03",), ("2025-02-14",), ("2025-02-15",), ("2025-03-01",)]
    from core.annotations.search import FactQuery
    # the rules over facts see the sales only too, and "total" is no value a question could name
    assert len(ws.pipeline.facts.search(FactQuery())) == 4 and "total" not in ws.pipeline.facts.known_values()
    ws.close()


def test_a_school_workbook_with_two_tables_on_one_sheet(tmp_path, embedder):
    """A merged title row, a notes row, then two titled tables with a note row inside the first: each table
    its own, named by its title; the note is kept aside, never a row."""
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Trips"
    rows = [
        ["Larchwood Primary – school trips 2025", None, None, None, None],
        [None] * 5,
        ["Trips", None, None, None, None],
        ["Trip", "Class", "Departs", "Coach (km)", "Cost (EUR)"],
        ["Zoo", "4B", "2025-05-06 08:30", 42, 310],
        ["Museum", "5A", "2025-06-12 09:15", 18, 185],
        ["Parents pay half of the cost of each trip; the PTA pays the rest.", None, None, None, None],
        ["Farm", "4b", "2025-06-20 08:45", 55, 420],
        [None] * 5,
        ["Helpers", None, None, None, None],
        ["Helper", "Trip", "Checked", None, None],
        ["Mrs Aydin", "Zoo", "yes", None, None],
        ["Mr Olsen", "Farm", "no", None, None],
    ]
    for row in rows:
        sheet.append(row)
    sheet.merge_cells("A1:E1")
    path = tmp_path / "larchwood_trips.xlsx"
    book.save(path)
    ws = Workspace(Settings(data_dir=tmp_path / "kb"), embedder, ScriptedLLM([]))
    ws.ingestor.ingest_paths([path])
    tables = {t.title.split(" · ")[-1]: t for t in ws.pipeline.tables.tables() if t.kind == "rows"}
    trips, helpers = tables["Trips"], tables["Helpers"]
    assert trips.name != helpers.name and "trips" in trips.name and "helpers" in helpers.name
    assert trips.row_count == 3 and helpers.row_count == 2
    assert [a["kind"] for a in trips.set_aside] == ["note"] and helpers.set_aside == []
    assert trips.units["coach_km"] == "km" and trips.units["cost_eur"] == "€"
    assert trips.categories["class"] == [["4B", "4b"], ["5A"]]
    assert trips.dates["departs"]["datetime"] == "departs_datetime"
    assert "helper" in helpers.columns and "coach_km" not in helpers.columns
    with sqlite3.connect(ws.pipeline.tables.path) as conn:
        hours = conn.execute(f"SELECT ROUND((julianday(MAX(departs_datetime)) - julianday(MIN(departs_datetime))) * 24, 2) "
                             f"FROM {trips.name}").fetchone()[0]
        assert hours == 1080.25  # 6 May 08:30 to 20 June 08:45: the times kept make the duration exact


def test_a_table_in_a_long_pdf_is_a_typed_table_whose_cell_is_read_by_row_label_and_column(tmp_path, embedder):
    """Issue 23: a table on page 11 of a 14-page report (a stacked header "Year ended 31 March 2025" over
    the quarters, a scale line, a footnote) is a typed table like a short document's; the cell in one
    depot's row and the Q3 column is one query, and the scale and footnote stay with it."""
    from tests.report_pdfs import write_annual_report

    path = write_annual_report(tmp_path / "annual_report.pdf")
    ws = Workspace(Settings(data_dir=tmp_path / "kb"), embedder, ScriptedLLM([]))
    ws.ingestor.ingest_paths([path])
    (table,) = [t for t in ws.pipeline.tables.tables() if t.kind == "rows"]
    q3 = next(c for c in table.columns if table.printed[c] == "Year ended 31 March 2025 Q3")
    assert table.types[q3] == "REAL"
    with sqlite3.connect(ws.pipeline.tables.path) as conn:
        rows = conn.execute(f'SELECT "{q3}", source_page FROM {table.name} WHERE description = ?', ("riverside depot",))
        assert rows.fetchall() == [(297.0, 11)]
        note = conn.execute(f"SELECT footnote FROM {table.name} WHERE description LIKE 'Northgate%'").fetchone()
        assert note == ("(1) Includes school contract services.",)
    # the scale printed over the figures is said with them: 297 thousand journeys, not 297
    ws.llm.script = [json.dumps({"answer": "sum", "column": "Year ended 31 March 2025 Q3",
                                 "filters": [{"column": "Description", "op": "is", "value": "Riverside depot"}]})]
    response = ws.ask("How many passenger journeys did Riverside depot carry in Q3?", mode="pipeline",
                      doc_ids=[table.doc_id])
    assert "297 thousand" in response.answer, response.answer
    ws.close()


def test_a_reports_printed_scale_goes_with_its_figures():
    from core.annotations.plan import format_value
    from core.annotations.units import stated_scale
    assert stated_scale(["Segment revenue (£m)"]) == ("£", "million")
    assert stated_scale(["Consolidated", "2019 US$000"]) == ("$", "thousand")
    assert stated_scale(["(In thousands of Canadian dollars)"]) == ("", "thousand")
    assert stated_scale(["(in millions, except per share amounts)"]) is None  # some rows are not scaled
    assert stated_scale(["Staff by site", "Headcount"]) is None
    assert format_value(402.0, "£ million") == "£402 million" and format_value(-12.5, "$ thousand") == "-$12.50 thousand"
    # a small figure in plain digits, never in scientific notation
    assert format_value(1.2451e-05, "%") == "0.00001245%" and format_value(-0.5) == "-0.5" and format_value(0.123456) == "0.1235"


def test_a_scale_in_one_columns_header_is_that_columns_only(tmp_path, embedder, write_text):
    from core.annotations.plan import printed_unit
    ws = Workspace(Settings(data_dir=tmp_path / "kb"), embedder, ScriptedLLM([]))
    try:
        ws.ingestor.ingest_paths([write_text("series.csv", "Season,Episodes,Viewers (in millions)\n1,10,4.2\n2,12,5.1\n")])
        (table,) = ws.pipeline.tables.tables()
        by_label = {label: c for c, label in table.printed.items()}
        assert printed_unit(table, by_label["Episodes"]) is None
        assert printed_unit(table, by_label["Viewers (in millions)"]) == "million"
    finally:
        ws.close()


def test_a_dash_for_nil_leaves_a_column_of_figures_a_number_column(tmp_path, embedder, write_text):
    lines = ["Item,2019 £m,2018 £m", "Profit before tax,(42.7),20.9", "Non-deductible items,(0.9),-0.1",
             "Other items,-,-0.4", "Goodwill,-,-0.8", "Share-based payments,(0.4),-0.6"]
    ws = Workspace(Settings(data_dir=tmp_path / "kb"), embedder, ScriptedLLM([]))
    ws.ingestor.ingest_paths([write_text("tax.csv", "\n".join(lines) + "\n")])
    (table,) = ws.pipeline.tables.tables()
    assert table.types["c_2019_m"] == "REAL"  # two dashes of five cells: a nil each, not a word
    with sqlite3.connect(ws.pipeline.tables.path) as conn:
        assert conn.execute("SELECT c_2019_m FROM tax ORDER BY source_row").fetchall() == [
            (-42.7,), (-0.9,), (None,), (None,), (-0.4,)]
    ws.close()


def test_a_dash_after_a_currency_sign_is_a_nil_too(tmp_path, embedder, write_text):
    lines = ["Fee,2024,2023", "Audit,\"$58,000\",\"$55,000\"", "Audit-related,$-,$-", "Tax,\"$28,000\",\"$11,000\"",
             "Other,$ -,$—"]
    ws = Workspace(Settings(data_dir=tmp_path / "kb"), embedder, ScriptedLLM([]))
    ws.ingestor.ingest_paths([write_text("fees.csv", "\n".join(lines) + "\n")])
    (table,) = ws.pipeline.tables.tables()
    assert table.types["c_2024"] == "REAL" and table.types["c_2023"] == "REAL"
    ws.close()


def test_a_ruled_report_tables_total_line_is_a_row_to_ask_for(tmp_path, embedder):
    """A printed statement's "Total" line is what "the total staff costs" asks for (in a spreadsheet a TOTAL
    row only sums the records, and is set aside)."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.platypus import SimpleDocTemplate, Table, TableStyle

    path = tmp_path / "staff_costs.pdf"
    grid = [["", "2024", "2023"], ["Salaries", "1,210", "1,105"], ["Pension costs", "96", "88"],
            ["Training costs", "41", "37"], ["Total", "1,347", "1,230"]]
    table = Table(grid)
    table.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black)]))
    SimpleDocTemplate(str(path), pagesize=A4, invariant=1).build([table])
    ws = Workspace(Settings(data_dir=tmp_path / "kb"), embedder, ScriptedLLM([]))
    ws.ingestor.ingest_paths([path])
    (info,) = [t for t in ws.pipeline.tables.tables() if t.kind == "rows"]
    with sqlite3.connect(ws.pipeline.tables.path) as conn:
        labels = [r[0] for r in conn.execute(f"SELECT {info.columns[0]} FROM {info.name} ORDER BY source_row")]
    assert labels == ["Salaries", "Pension costs", "Training costs", "Total"]
    assert info.printed[info.columns[0]] == "Description"  # the blank corner, named as the layout reader names it
    response = ws.ask("What was the change in total staff costs from 2023 to 2024?", mode="pipeline", doc_ids=[info.doc_id])
    assert response.answer.startswith("The change in Total is 117 from 2023 to 2024"), response.answer
    ws.close()


def test_a_percent_printed_on_a_columns_first_and_last_figures_is_the_whole_columns(tmp_path, embedder, write_text):
    """Reports print "%" only on a column's first line and its last; the bare figures between are percentages too.
    A "%" at one end only, a figure no percentage could be, or a dollar sign (bare lines between dollar lines are
    often share counts) leaves the bare figures without one."""
    lines = ["Line,2024,2023,2022,2021", "Ticket sales,100.0%,\"$ 1,210\",4.1%,10%", "Hall hire,40.0,96,3.0,2400",
             "Music hire,33.1,41,2.2%,3", "Surplus,26.9%,\"$ 1,347\",1.5,5%"]
    ws = Workspace(Settings(data_dir=tmp_path / "kb"), embedder, ScriptedLLM([]))
    ws.ingestor.ingest_paths([write_text("season_mix.csv", "\n".join(lines) + "\n")])
    (table,) = ws.pipeline.tables.tables()
    assert table.units.get("c_2024") == "%"
    assert [table.units.get(c) for c in ("c_2023", "c_2022", "c_2021")] == [None, None, None]
    with sqlite3.connect(ws.pipeline.tables.path) as conn:
        assert conn.execute("SELECT c_2024 FROM season_mix ORDER BY source_row").fetchall() == [
            (100.0,), (40.0,), (33.1,), (26.9,)]
    ws.close()
