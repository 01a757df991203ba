"""Every stored table becomes a typed SQLite table with provenance; a document's label lines one more."""
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


def test_a_table_in_a_long_pdf_is_a_typed_table_whose_cell_is_read_by_row_label_and_column(tmp_path, embedder):
    """Issue 23: a table on page 11 of a 14-page report (a stacked header "Year ended 31 March 2025" over
    the quarters, a scale line, a footnote) is a typed table like a short document's; the cell in one
    depot's row and the Q3 column is one query, and the scale and footnote stay with it."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    path = tmp_path / "annual_report.pdf"
    pdf = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    for page in range(1, 15):
        pdf.setFont("Helvetica", 9)
        pdf.drawString(40, 800, f"Page {page} of the annual report covers fleet, staff and safety in plain prose.")
        if page == 11:
            pdf.drawString(40, 760, "Passenger journeys by depot were as follows:")
            pdf.drawCentredString(420, 738, "Year ended 31 March 2025")
            pdf.drawString(40, 727, "(in thousands)")
            for x, quarter in zip((330, 390, 450, 510), ("Q1", "Q2", "Q3", "Q4")):
                pdf.drawRightString(x, 727, quarter)
            y = 727
            for label, figures in [("Northgate depot (1)", ("412", "398", "455", "471")),
                                   ("Riverside depot", ("288", "301", "297", "310")),
                                   ("Total journeys", ("700", "699", "752", "781"))]:
                y -= 12
                pdf.drawString(40, y, label)
                for x, figure in zip((330, 390, 450, 510), figures):
                    pdf.drawRightString(x, y, figure)
            pdf.drawString(40, y - 14, "(1) Includes school contract services.")
        pdf.showPage()
    pdf.save()
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
    ws.close()
