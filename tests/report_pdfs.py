"""A report PDF the table tests and the real-model tests share: 14 pages of prose, and on page 11 a table of
passenger journeys by depot under a stacked header ("Year ended 31 March 2025" over Q1-Q4), a scale line
"(in thousands)", a footnote mark and its footnote."""
from pathlib import Path

QUARTERS_X = (330, 390, 450, 510)  # right edges of the quarter columns
JOURNEYS = [("Northgate depot (1)", ("412", "398", "455", "471")),
            ("Riverside depot", ("288", "301", "297", "310")),
            ("Total journeys", ("700", "699", "752", "781"))]


def write_annual_report(path: Path) -> Path:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    pdf = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    for page in range(1, 15):
        pdf.setFont("Helvetica", 9)
        pdf.drawString(40, 800, f"Page {page} of the annual report covers fleet, staff and safety in plain prose.")
        if page == 11:
            pdf.drawString(40, 760, "Passenger journeys by depot were as follows:")
            pdf.drawCentredString(420, 738, "Year ended 31 March 2025")
            pdf.drawString(40, 727, "(in thousands)")
            for x, quarter in zip(QUARTERS_X, ("Q1", "Q2", "Q3", "Q4")):
                pdf.drawRightString(x, 727, quarter)
            y = _draw_rows(pdf, 727, QUARTERS_X, JOURNEYS)
            pdf.drawString(40, y - 14, "(1) Includes school contract services.")
        pdf.showPage()
    pdf.save()
    return path


def write_statement(path: Path, years: list[str], rows: list[tuple[str, list[str]]], caption: str = "",
                    notes: list[str] = ()) -> Path:
    """A one-page statement: a line of years over right-aligned figure columns, a row label at the left of each
    line (its total lines kept as rows, as a PDF prints them), and footnote lines under it."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    pdf = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    pdf.setFont("Helvetica", 9)
    columns = [330 + 70 * n for n in range(len(years))]
    pdf.drawString(40, 780, caption or "The figures for the years were as follows:")
    for x, year in zip(columns, years):
        pdf.drawRightString(x, 760, year)
    y = _draw_rows(pdf, 760, columns, rows)
    for n, note in enumerate(notes):
        pdf.drawString(40, y - 14 - 11 * n, note)
    pdf.showPage()
    pdf.save()
    return path


def _draw_rows(pdf, y: float, right_edges, rows) -> float:
    """Each row a line below y: its label at the left, its figures right-aligned at the edges; the last line's y."""
    for label, figures in rows:
        y -= 12
        pdf.drawString(40, y, label)
        for x, figure in zip(right_edges, figures):
            pdf.drawRightString(x, y, figure)
    return y
