"""Every PDF table is a table, whatever the document's length (issue 23, item 1).

A bus operator's 14-page annual report prints, on page 11, a table of passenger journeys by depot:
a spanning header "Year ended 31 March 2025" over "Q1 | Q2 | Q3 | Q4", a scale line "(in thousands)"
at the left, and a footnote marker "(1)" on one depot whose footnote is printed under the table. A
one-page timetable note prints an unruled table (aligned text columns), and a ruled one (drawn grid).
Each is read as a table section: its rows as a compact grid (label, then one cell per column), and a
head (caption, unit, header lines) that every chunk of it carries, so a cell is found by its row
label and its column header.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from core.config import Settings
from core.ingest.chunking import chunk_document
from core.ingest.extract import extract_facts
from core.ingest.loaders import load_document

QUARTERS = (330, 390, 450, 510)  # right edges of the figure columns
DEPOTS = [
    ("Northgate depot (1)", ("412", "398", "455", "471")),
    ("Riverside depot", ("288", "301", "297", "310")),
    ("Hilltop depot", ("96", "102", "—", "118")),
    ("Total journeys", ("796", "801", "752", "899")),
]
FOOTNOTE = "(1) Includes school contract services, which began in the second quarter."


def words(texts: list[str]) -> list[int]:
    return [len(t.split()) for t in texts]


def draw_journeys(pdf, top: float, ruled: bool = False) -> None:
    pdf.setFont("Helvetica", 9)
    pdf.drawString(40, top, "Passenger journeys by depot were as follows:")
    pdf.drawCentredString(420, top - 22, "Year ended 31 March 2025")
    pdf.drawString(40, top - 33, "(in thousands)")
    for x, quarter in zip(QUARTERS, ("Q1", "Q2", "Q3", "Q4")):
        pdf.drawRightString(x, top - 33, quarter)
    y = top - 33
    for label, figures in DEPOTS:
        y -= 12
        pdf.drawString(40, y, label)
        for x, figure in zip(QUARTERS, figures):
            pdf.drawRightString(x, y, figure)
    if ruled:
        for line_y in (top - 12, top - 37, y - 3):
            pdf.line(36, line_y, 515, line_y)
    pdf.setFont("Helvetica", 7)
    pdf.drawString(40, y - 14, FOOTNOTE)
    pdf.setFont("Helvetica", 9)
    pdf.drawString(40, y - 40, "Journeys grew in every depot but Hilltop, where the road closure cut the third quarter.")


@pytest.fixture
def annual_report(tmp_path: Path) -> Path:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    pdf = canvas.Canvas(str(tmp_path / "annual_report.pdf"), pagesize=A4, invariant=1)
    for page in range(1, 15):
        pdf.setFont("Helvetica", 9)
        pdf.drawString(40, 800, f"Page {page} of the annual report covers fleet, staff and safety in plain prose.")
        if page == 11:
            draw_journeys(pdf, 760)
        pdf.showPage()
    pdf.save()
    return tmp_path / "annual_report.pdf"


def table_sections(path: Path):
    return [s for s in load_document(path, Settings()).sections if s.is_table]


def cell(section, label: str, column: str) -> str:
    """The value in the row whose label starts with `label`, under the column whose header ends with `column`."""
    table = section.table
    k = next(i for i, h in enumerate(table.header) if h.endswith(column))
    return next(row[k] for row in table.rows if row[0].startswith(label))


def test_a_table_deep_in_a_long_report_keeps_its_stacked_header_scale_and_row_labels(annual_report):
    (section,) = table_sections(annual_report)
    assert section.page == 11
    assert section.head == ["Passenger journeys by depot were as follows:", "Year ended 31 March 2025",
                            "(in thousands) | Q1 | Q2 | Q3 | Q4"]
    assert section.table.header[1:5] == ["Year ended 31 March 2025 Q1", "Year ended 31 March 2025 Q2",
                                         "Year ended 31 March 2025 Q3", "Year ended 31 March 2025 Q4"]
    assert "Riverside depot | 288 | 301 | 297 | 310" in section.text.split("\n")
    assert "Hilltop depot | 96 | 102 | — | 118" in section.text.split("\n")  # a dash keeps its column
    assert "(in thousands)" in section.table.title_lines  # the scale goes with the table's name too


def test_a_cell_is_found_by_its_row_label_and_its_column_header(annual_report):
    (section,) = table_sections(annual_report)
    assert cell(section, "Riverside depot", "Q3") == "297"
    assert cell(section, "Total journeys", "Q4") == "899"  # the quarter, not the year or another row


def test_a_footnote_marker_stays_on_its_row_and_is_tied_to_its_footnote(annual_report):
    (section,) = table_sections(annual_report)
    assert section.text.split("\n")[-1] == FOOTNOTE  # printed under the rows, not lost as prose
    assert cell(section, "Northgate depot (1)", "Footnote") == FOOTNOTE
    assert cell(section, "Riverside depot", "Footnote") == ""


def test_every_chunk_of_the_table_carries_its_head_for_the_reader(annual_report):
    document = load_document(annual_report, Settings())
    chunks = chunk_document(document, "d", words, size=12, overlap=0)  # small chunks: the table is cut
    held = [c for c in chunks if "depot" in c.text and c.page_start == 11 and "|" in c.text]
    assert len(held) >= 2
    for chunk in held:
        assert "Year ended 31 March 2025" in chunk.heading
        assert "(in thousands) | Q1 | Q2 | Q3 | Q4" in chunk.heading


def test_the_rows_of_a_long_reports_table_are_facts_with_their_headers(annual_report):
    document = load_document(annual_report, Settings())
    facts = extract_facts(document, "d", annual_report, max_table_pages=5)  # longer than a "short" document
    rows = {f.values[0].text: {v.column: v.text for v in f.values} for f in facts if f.page == 11}
    assert rows["Riverside depot"]["Year ended 31 March 2025 Q3"] == "297"
    assert rows["Northgate depot (1)"]["Footnote"] == FOOTNOTE


def draw_note(path: Path, ruled: bool) -> Path:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    pdf = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    draw_journeys(pdf, 780, ruled=ruled)
    pdf.showPage()
    pdf.save()
    return path


@pytest.mark.parametrize("ruled", [False, True], ids=["unruled", "ruled"])
def test_ruled_and_unruled_tables_read_alike(tmp_path, ruled):
    (section,) = table_sections(draw_note(tmp_path / "note.pdf", ruled))
    assert section.head[-1] == "(in thousands) | Q1 | Q2 | Q3 | Q4"
    assert cell(section, "Hilltop depot", "Q2") == "102"
    assert "Journeys grew" not in section.text  # the prose after the table stays prose


def test_footnote_marks_set_apart_after_the_labels_are_no_column(tmp_path):
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    path = tmp_path / "per_share.pdf"
    pdf = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    pdf.setFont("Helvetica", 9)
    for x, year in zip(QUARTERS[1:], ("2025", "2024", "2023")):
        pdf.drawRightString(x, 780, year)
    for n, (label, mark, figures) in enumerate([("Fares per journey", "(1)", ("1.92", "1.85", "1.80")),
                                                 ("Journeys per bus", "", ("41.0", "39.5", "38.2")),
                                                 ("Cost per mile", "(2)", ("3.10", "2.95", "2.90"))]):
        y = 768 - 12 * n
        pdf.drawString(40, y, label)
        pdf.drawString(250, y, mark)
        for x, figure in zip(QUARTERS[1:], figures):
            pdf.drawRightString(x, y, figure)
    pdf.showPage()
    pdf.save()
    (section,) = table_sections(path)
    assert section.head == ["| 2025 | 2024 | 2023"]
    assert "Fares per journey (1) | 1.92 | 1.85 | 1.80" in section.text.split("\n")


@pytest.mark.parametrize("said", ["in thousands", "in 000’s"])
def test_a_ruled_tables_scale_stated_only_in_the_text_around_it_stays_with_its_rows(tmp_path, said):
    """The scale "(in thousands)" is said in the sentence under a drawn grid, not in it: the rows carry it in
    their table's name, whichever reader read them (a statement under year columns is read from the word
    layout, which keeps stacked headers; an item table from the grid, as test_a_ruled_item_table... checks)."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Table, TableStyle

    path = tmp_path / "results.pdf"
    grid = [["", "2025", "2024"], ["Sales", "788,948", "718,892"], ["Gross profit", "315,652", "365,607"],
            ["Operating expenses", "261,264", "194,054"]]
    if said != "in thousands":  # an item table (no year columns), which the grid reader reads
        grid = [["Depot", "Journeys", "Fares"], ["Leeds", "788,948", "718,892"], ["York", "315,652", "365,607"],
                ["Hull", "261,264", "194,054"]]
    flow = [Table(grid, colWidths=[200, 100, 100], style=TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black)])),
            Paragraph(f"The table above sets out our results ({said}):", getSampleStyleSheet()["BodyText"])]
    SimpleDocTemplate(str(path), pagesize=A4, invariant=1).build(flow)
    document = load_document(path, Settings())
    facts = [f for f in extract_facts(document, "d", path) if f.kind == "row"]
    assert len(facts) == 3
    assert all(f.table.endswith(f"({said})") for f in facts)


def test_a_ruled_statement_keeps_its_stacked_header_and_a_ruled_item_table_its_text_columns(tmp_path):
    """A statement under year columns is read from the word layout, which keeps a heading over the years;
    pdfplumber's grid of the same rules loses it. A table of items (no year columns) is read from the grid,
    which keeps its text columns."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.platypus import SimpleDocTemplate, Spacer, Table, TableStyle

    ruled = TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black), ("SPAN", (1, 0), (2, 0))])
    statement = [["Indicators", "For the year ended 31 December", ""], ["", "2019", "2018"],
                 ["Total energy used (MWh)", "205,092", "167,488"], ["Water used (tonnes)", "1,283", "973"]]
    items = [["Item", "Supplier", "Qty"], ["Valve", "Acme Ltd", "4"], ["Gasket", "Brindle & Co", "12"]]
    path = tmp_path / "report.pdf"
    SimpleDocTemplate(str(path), pagesize=A4, invariant=1).build(
        [Table(statement, colWidths=[200, 100, 100], style=ruled), Spacer(1, 200),
         Table(items, colWidths=[150, 150, 60], style=TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black)]))])
    facts = [f for f in extract_facts(load_document(path, Settings()), "d", path) if f.kind == "row"]
    energy = next(f for f in facts if "Total energy used (MWh)" in f.properties.values())
    assert energy.properties.get("For the year ended 31 December 2018") == "167,488", energy.properties
    valve = next(f for f in facts if "Valve" in f.properties.values())
    assert valve.properties.get("Supplier") == "Acme Ltd", valve.properties
