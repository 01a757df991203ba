"""Statement tables in PDFs are read with the column headers each figure sits under.

The fixtures are drawn like a 10-Q statement: header lines as plain text above the rows, a
spanning "Three Months Ended" centred over its two year columns, "$" signs as separate words,
right-aligned figures, a units note at the left, section labels ending in ":", a label that
wraps onto the row's line, and a dash for nil.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from core.config import Settings
from core.ingest.loaders import load_document
from core.ingest.pdf_tables import looks_tabular, read_pdf_tables

COLUMNS = (330, 400, 480, 550)  # right edges of the four figure columns


def draw_statement(path: Path, extra_pages: list[str] = ()) -> Path:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    pdf = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    pdf.setFont("Helvetica", 9)
    y = 780
    pdf.drawString(40, y, "Revenue, classified by significant product and service offerings, was as follows:")
    y -= 22
    pdf.drawCentredString(365, y, "Three Months Ended")
    pdf.drawCentredString(515, y, "Six Months Ended")
    y -= 11
    pdf.drawString(40, y, "(In millions)")
    pdf.drawCentredString(365, y, "December 31,")
    pdf.drawCentredString(515, y, "December 31,")
    y -= 11
    for x, year in zip(COLUMNS, ("2022", "2021", "2022", "2021")):
        pdf.drawRightString(x, y, year)
    rows = [
        ("Revenue:", None),
        ("Server products and cloud services", ("$", "19,594", "$", "16,382", "$", "37,982", "$", "31,452")),
        ("LinkedIn", ("3,876", "3,531", "7,539", "6,667")),
        ("Devices", ("1,430", "—", "2,878", "3,771")),
        ("Total revenue", ("$", "24,900", "$", "19,913", "$", "48,399", "$", "41,890")),
        ("Other income and gains recognized on the sale", None),
        ("of equity investments", ("12", "8", "20", "15")),
    ]
    for label, cells in rows:
        y -= 12
        pdf.drawString(40, y, label)
        if cells is None:
            continue
        figures = [c for c in cells if c != "$"]
        for x, figure in zip(COLUMNS, figures):
            pdf.drawRightString(x, y, figure)
            if "$" in cells:
                pdf.drawString(x - 62, y, "$")
    y -= 24
    pdf.drawString(40, y, "Our cloud revenue grew because of Azure and other cloud services.")
    pdf.showPage()
    for text in extra_pages:
        pdf.setFont("Helvetica", 9)
        pdf.drawString(40, 780, text)
        pdf.showPage()
    pdf.save()
    return path


@pytest.fixture
def statement_pdf(tmp_path: Path) -> Path:
    return draw_statement(tmp_path / "statement.pdf", ["A page of prose: revenue grew 12 percent in 2022."])


def rows_by_label(path: Path) -> dict[str, str]:
    (table,) = read_pdf_tables(path)
    return {row.label: table.row_text(row) for row in table.rows}


def test_each_figure_is_written_under_its_spanning_and_year_headers(statement_pdf):
    rows = rows_by_label(statement_pdf)
    assert rows["Revenue: LinkedIn"] == (
        "Revenue: LinkedIn | Three Months Ended December 31, 2022: 3,876 | Three Months Ended December 31, 2021: 3,531"
        " | Six Months Ended December 31, 2022: 7,539 | Six Months Ended December 31, 2021: 6,667"
    )


def test_dollar_signs_join_their_figure_and_a_dash_keeps_its_column(statement_pdf):
    rows = rows_by_label(statement_pdf)
    assert "Three Months Ended December 31, 2022: $19,594" in rows["Revenue: Server products and cloud services"]
    devices = rows["Revenue: Devices"]
    assert "Three Months Ended December 31, 2021: —" in devices
    assert "Six Months Ended December 31, 2022: 2,878" in devices


def test_caption_units_and_section_labels_are_kept(statement_pdf):
    (table,) = read_pdf_tables(statement_pdf)
    assert table.caption.startswith("Revenue, classified by significant product")
    assert table.stub == "(In millions)"
    labels = [row.label for row in table.rows]
    assert "Total revenue" in labels  # a total closes the section it sums
    assert "Other income and gains recognized on the sale of equity investments" in labels  # wrapped label joined


def test_only_pages_with_number_columns_are_read_as_tables(statement_pdf):
    assert [t.page for t in read_pdf_tables(statement_pdf)] == [1]
    assert not looks_tabular("A page of prose: revenue grew 12 percent in 2022.")


def test_a_two_row_table_under_a_line_of_years_is_read_with_its_scale(tmp_path):
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    path = tmp_path / "impairment.pdf"
    pdf = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    pdf.setFont("Helvetica", 9)
    pdf.drawRightString(330, 780, "2021")
    pdf.drawRightString(400, 780, "2020")
    pdf.drawCentredString(365, 768, "(dollars in thousands)")
    for y, label, figures in ((756, "Impairment of goodwill", ("$2,310", "$15,020")),
                              (744, "Percent of revenues, net", ("5%", "22%"))):
        pdf.drawString(40, y, label)
        for x, figure in zip((330, 400), figures):
            pdf.drawRightString(x, y, figure)
    pdf.drawString(40, 720, "We recorded a goodwill impairment charge in the fourth quarter.")
    pdf.save()
    (table,) = read_pdf_tables(path)
    assert [row.label for row in table.rows] == ["Impairment of goodwill", "Percent of revenues, net"]
    assert table.unit == "in thousands" and table.rows[0].values == ["$2,310", "$15,020"]
    # two lines that end in numbers, with no years over them, are no table
    assert not looks_tabular("Tel 01632 960123\nFax 01632 960124\nThe office opens at 9.")


def test_a_loaded_page_keeps_its_prose_and_gives_the_table_a_section_of_its_own(statement_pdf):
    document = load_document(statement_pdf, Settings())
    before, table, after, next_page = document.sections
    assert before.text.startswith("Revenue, classified by") and not before.is_table
    assert table.is_table and table.page == 1
    assert table.head == ["Revenue, classified by significant product and service offerings, was as follows:",
                          "(In millions) | Three Months Ended December 31, 2022 | Three Months Ended December 31, 2021"
                          " | Six Months Ended December 31, 2022 | Six Months Ended December 31, 2021"]
    assert "Revenue: LinkedIn | 3,876 | 3,531 | 7,539 | 6,667" in table.text.split("\n")  # a compact grid row
    assert "Revenue: Devices | 1,430 | — | 2,878 | 3,771" in table.text.split("\n")  # a dash keeps its column
    assert not any(line.strip() == "2022 2021 2022 2021" for line in table.text.split("\n"))
    assert after.text == "Our cloud revenue grew because of Azure and other cloud services."
    assert next_page.text.strip() == "A page of prose: revenue grew 12 percent in 2022."


def right_over(column: int, text: str) -> tuple[float, str]:
    """A header phrase centred so that it ends where the column's figures end (right-aligned over it)."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    return COLUMNS[column] - stringWidth(text, "Helvetica", 9) / 2, text


def draw_rows(path: Path, header_lines: list[list[tuple[float, str]]], rows: list[tuple[str, list[str]]],
              caption: str = "The following table summarizes loss from operations (in millions):", after: str = "") -> Path:
    """A table whose header lines are (x centre, text) pairs and whose figures are right-aligned
    at COLUMNS, and text `after` it (a line each, split at newlines)."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    pdf = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    pdf.setFont("Helvetica", 9)
    y = 780
    pdf.drawString(40, y, caption)
    for line in header_lines:
        y -= 11
        for x, text in line:
            (pdf.drawString if x < 100 else pdf.drawCentredString)(x, y, text)
    for label, figures in rows:
        y -= 12
        pdf.drawString(40, y, label)
        for x, figure in zip(COLUMNS, figures):
            pdf.drawRightString(x, y, figure)
    for n, line in enumerate(after.split("\n") if after else []):
        pdf.drawString(40, y - 30 - 11 * n, line)
    pdf.showPage()
    pdf.save()
    return path


def test_a_year_line_with_words_at_its_left_is_the_header(tmp_path):
    path = draw_rows(tmp_path / "years.pdf",
                     [[(40, "Years ended December 31,"), (320, "2023"), (390, "2022"), (470, "2021"), (540, "2020")]],
                     [("Commercial products", ["(2,370)", "(6,475)", "(13,847)", "(9,001)"]),
                      ("Global services", ["2,727", "2,017", "450", "1,200"]),
                      ("Capital", ["29", "106", "63", "40"])])
    (table,) = read_pdf_tables(path)
    assert table.columns == ["2023", "2022", "2021", "2020"]
    assert table.stub == "Years ended December 31,"
    assert table.row_text(table.rows[1]) == "Global services | 2023: 2,727 | 2022: 2,017 | 2021: 450 | 2020: 1,200"


def test_a_currency_sign_heading_the_label_column_of_the_year_line_is_not_a_figure_of_the_first_year(tmp_path):
    # a club's accounts: "£" over the labels, the years over the figures; read as "£2024" the line was a row of
    # figures and the 2024 column was lost
    path = draw_rows(tmp_path / "accounts.pdf", [[(40, "£"), (320, "2024"), (390, "2023")]],
                     [("Subscriptions", ["14,860", "13,420"]), ("Bar takings", ["22,310", "24,050"]),
                      ("Total income", ["37,170", "37,470"])])
    (table,) = read_pdf_tables(path)
    assert table.columns == ["2024", "2023"] and table.stub == "£"
    assert table.row_text(table.rows[1]) == "Bar takings | 2024: 22,310 | 2023: 24,050"


def test_a_line_of_its_own_stating_the_scale_is_the_tables_unit_not_a_label_of_the_rows_below(tmp_path):
    path = draw_rows(tmp_path / "scale.pdf", [[(330, "2023"), (400, "2022"), (480, "2021"), (550, "2020")]],
                     [("(In thousands)", []), ("Revenues", ["68,024", "67,314", "60,100", "58,000"]),
                      ("Income from operations", ["12,491", "9,587", "8,000", "7,500"])], caption="North America")
    (table,) = read_pdf_tables(path)
    assert table.unit == "In thousands"
    assert [row.label for row in table.rows] == ["Revenues", "Income from operations"]
    assert "(In thousands)" in table.head()


@pytest.mark.parametrize("around, unit", [
    ("Our segment results are as follows (in thousands):", "in thousands"),
    # kept whole with its exception: the rows it names are not scaled
    ("Our segment results (in thousands, except per share data):", "in thousands, except per share data"),
    ("($ in thousands)", "$ in thousands"),  # its currency kept: the figures are dollars
    # a caption's brackets wrapped onto the next line are read as one
    ("The following table presents our segment results and the shares behind them (amounts in\n"
     "thousands, except per share data):", "in thousands, except per share data"),
    ("(All amounts expressed in thousands of Hong Kong dollars)", "in thousands"),  # a currency of several words
    ("(Tabular amounts in millions, unless otherwise stated)", "in millions"),  # an exception that names no rows
])
def test_the_scale_the_text_around_a_pages_one_table_states_is_the_tables(tmp_path, around, unit):
    rows = [("Revenues", ["68,024", "67,314", "60,100", "58,000"]), ("Income from operations", ["12,491", "9,587", "8,000", "7,500"])]
    header = [[(330, "2023"), (400, "2022"), (480, "2021"), (550, "2020")]]
    (table,) = read_pdf_tables(draw_rows(tmp_path / "around.pdf", header, rows, caption="North America", after=around))
    assert table.unit == unit


def test_a_header_line_that_does_not_name_each_column_gives_no_header_rather_than_a_wrong_one(tmp_path):
    # Two labels for four columns, each between two of them: which figure is whose is not known.
    path = draw_rows(tmp_path / "unclear.pdf", [[(360, "Reported"), (510, "Organic")]],
                     [("North America", ["8.4", "3.1", "12.0", "(2.2)"]), ("Europe", ["5.5", "1.0", "7.3", "4.4"]),
                      ("Asia", ["6.1", "2.9", "9.8", "1.7"])])
    (table,) = read_pdf_tables(path)
    assert table.columns == ["", "", "", ""]
    assert table.row_text(table.rows[0]) == "North America | 8.4 | 3.1 | 12.0 | (2.2)"


def test_a_heading_holds_the_rows_below_it_until_the_line_that_totals_it(tmp_path):
    years = [[(330, "2023"), (400, "2022"), (480, "2021"), (550, "2020")]]
    path = draw_rows(tmp_path / "sections.pdf", years, [
        ("Assets held", []),
        ("Freehold land", ["10", "11", "12", "13"]),
        ("Vehicles", ["4", "5", "6", "7"]),
        ("Gross assets held", ["14", "16", "18", "20"]),
        ("Less depreciation", ["(2)", "(2)", "(2)", "(2)"]),
        ("Amounts owed", []),
        ("Loans from members of the trust, most of them repaid", []),
        ("after the year end", ["3", "3", "3", "3"]),
        ("Grants", ["1", "1", "1", "1"]),
        ("", ["4", "4", "4", "4"]),
        ("Net assets", ["8", "10", "12", "14"]),
    ])
    (table,) = read_pdf_tables(path)
    assert [row.label for row in table.rows if any(row.values)] == [
        "Assets held: Freehold land", "Assets held: Vehicles", "Gross assets held",  # restates its heading: its total
        "Less depreciation",
        # a heading over a label that wraps is a heading still; a figure line without a label totals the section
        "Amounts owed: Loans from members of the trust, most of them repaid after the year end", "Amounts owed: Grants",
        "Amounts owed", "Net assets"]


def test_a_figure_line_without_a_label_under_the_rows_is_their_total(tmp_path):
    years = [[(330, "2023"), (400, "2022"), (480, "2021"), (550, "2020")]]
    path = draw_rows(tmp_path / "regions.pdf", years, [
        ("North", ["10", "11", "12", "13"]), ("South", ["4", "5", "6", "7"]), ("West", ["1", "1", "1", "1"]),
        ("", ["15", "17", "19", "21"])])
    (table,) = read_pdf_tables(path)
    assert [row.label for row in table.rows] == ["North", "South", "West", "Total"]


def test_a_footnote_mark_after_a_label_does_not_end_the_table_at_the_next_heading(tmp_path):
    # "(1)" beside the first row's label is no figure: the headings below it are left of the figures,
    # so the table goes on under the same years rather than starting again without a header
    years = [[(330, "2023"), (400, "2022"), (480, "2021")]]
    path = draw_rows(tmp_path / "marks.pdf", years, [
        ("Earnings", []), ("Net profit (1)", ["206", "254", "47"]),
        ("Shares:", []), ("Weighted average in issue:", []),
        ("Basic", ["57", "52", "46"]), ("Diluted", ["59", "58", "55"])])
    (table,) = read_pdf_tables(path)
    assert table.columns == ["2023", "2022", "2021"]
    assert table.row_text(table.rows[-1]) == "Weighted average in issue: Diluted | 2023: 59 | 2022: 58 | 2021: 55"
    assert any(row.label.endswith("Net profit (1)") and row.values[0] == "206" for row in table.rows)


def test_a_wrapped_header_right_aligned_over_one_column_is_that_columns_not_a_span(tmp_path):
    path = draw_rows(tmp_path / "restated.pdf",
                     [[right_over(3, "2023 restated")],
                      [right_over(0, "2025"), right_over(1, "2024"), right_over(2, "2023"), right_over(3, "(note 2)")]],
                     [("Fares", ["83.2", "73.5", "70.1", "69.9"]), ("Advertising", ["12.0", "11.1", "10.4", "10.6"])],
                     caption="Revenue by source")
    (table,) = read_pdf_tables(path)
    assert table.columns == ["2025", "2024", "2023", "2023 restated (note 2)"]


def test_words_printed_in_a_column_of_figures_are_cells_and_the_table_goes_on_under_its_header(tmp_path):
    # a row printing "N/A" or "2031 or later" where others print a figure is a row of the table, not its end
    header = [[(330, "Expiry"), (400, "Rent"), (480, "Floor area"), (550, "Break clause")]]
    path = draw_rows(tmp_path / "leases.pdf", header, [
        ("Harbour depot", ["2029", "410", "1,200", "2026"]),
        ("Mill Lane garage", ["2031 or later", "275", "860", "N/A"]),
        ("Station yard", ["2027", "190", "640", "None"]),
        ("Town office", ["2030", "88", "150", "2027"]), ("Canal wharf", ["2033", "120", "400", "2028"])],
        caption="Leases held at 31 March (rent in £k a year):")
    (table,) = read_pdf_tables(path)
    assert table.columns == ["Expiry", "Rent", "Floor area", "Break clause"]
    assert [row.label for row in table.rows] == ["Harbour depot", "Mill Lane garage", "Station yard", "Town office",
                                                 "Canal wharf"]
    assert table.rows[1].values == ["2031 or later", "275", "860", "N/A"]
    assert table.rows[2].values[3] == "None"


def test_words_set_apart_beside_a_label_that_no_column_of_figures_holds_stay_in_the_label(tmp_path):
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    path = tmp_path / "segments.pdf"
    pdf = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    pdf.setFont("Helvetica", 9)
    y = 760
    for x, year in zip(COLUMNS, ("2024", "2023", "2022", "2021")):
        pdf.drawRightString(x, y, year)
    for segment, region, figures in (("Retail", "UK", ("12", "11", "10", "9")), ("Wholesale", "EU", ("7", "6", "5", "4")),
                                     ("Online", "UK", ("3", "2", "2", "1"))):
        y -= 12
        pdf.drawString(40, y, segment)
        pdf.drawString(150, y, region)  # a second text column, far from the figures
        for x, figure in zip(COLUMNS, figures):
            pdf.drawRightString(x, y, figure)
    pdf.showPage()
    pdf.save()
    (table,) = read_pdf_tables(path)
    assert table.columns == ["2024", "2023", "2022", "2021"]
    assert [row.label for row in table.rows] == ["Retail UK", "Wholesale EU", "Online UK"]


def test_a_dated_heading_above_the_first_rows_holds_them_and_is_not_the_caption(tmp_path):
    # "31 March 2025" over the first rows is their heading (its year is no figure column), and the header
    # lines above it are still the table's
    header = [[(312, "Gross"), (385, "Provision"), (462, "Net")]]
    path = draw_rows(tmp_path / "debtors.pdf", header, [
        ("31 March 2025", []), ("Retail customers", ["4,210", "(120)", "4,090"]),
        ("Trade customers", ["1,880", "(45)", "1,835"]), ("Total", ["6,090", "(165)", "5,925"]),
        ("31 March 2024", []), ("Retail customers", ["3,975", "(98)", "3,877"]),
        ("Trade customers", ["1,604", "(51)", "1,553"]), ("Total", ["5,579", "(149)", "5,430"])],
        caption="Debtors at the year end (£k):")
    (table,) = read_pdf_tables(path)
    assert table.columns == ["Gross", "Provision", "Net"]
    assert [row.label for row in table.rows[:3]] == ["31 March 2025", "31 March 2025: Retail customers",
                                                     "31 March 2025: Trade customers"]
    assert table.rows[5].label == "31 March 2024: Retail customers"


def test_a_note_column_takes_no_period_of_the_figures_beside_it(tmp_path):
    # "2025" over the first £m column lies nearer the Note column than "2024" does: it is still not the note's
    header = [[(392, "2025"), (472, "2024")], [(322, "Note"), (392, "£m"), (472, "£m")]]
    path = draw_rows(tmp_path / "balance.pdf", header, [
        ("Investments", ["3", "1,216.0", "1,212.9"]), ("Debtors", ["4", "415.9", "440.7"]),
        ("Cash at bank", ["5", "12.0", "0.2"])], caption="Company balance sheet at 31 March")
    (table,) = read_pdf_tables(path)
    assert table.columns == ["Note", "2025 £m", "2024 £m"]


def test_a_number_one_space_after_a_labels_words_is_the_labels_however_many_rows_print_one(tmp_path):
    """A fair-value note's rows: "Level 1", "Opening balance under IFRS 16". The number is a word of the label, not a
    figure column before the table's own (which had cost the table its header as well)."""
    path = draw_rows(tmp_path / "levels.pdf", [[(320, "2023"), (390, "2022"), (470, "2021"), (540, "2020")]],
                     [("Opening balance under IFRS 16", ["", "1,410", "", "1,220"]),
                      ("Level 1", ["310", "290", "250", "240"]), ("Level 2", ["120", "115", "98", "97"]),
                      ("Level 3", ["45", "40", "38", "30"]), ("Closing balance", ["475", "445", "386", "367"])])
    (table,) = read_pdf_tables(path)
    assert table.columns == ["2023", "2022", "2021", "2020"]
    assert [row.label for row in table.rows][:3] == ["Opening balance under IFRS 16", "Level 1", "Level 2"]
    assert table.row_text(table.rows[0]) == "Opening balance under IFRS 16 | 2022: 1,410 | 2020: 1,220"


FIGURES = [("Seed bank", ["83.2", "13.5", "50.1", "19.6"]), ("Herbarium", ["12.0", "1.1", "10.4", "0.5"]),
           ("Archive", ["40.3", "2.2", "30.0", "8.1"]), ("Group total", ["135.5", "16.8", "90.5", "28.2"])]


@pytest.mark.parametrize("header_lines, columns", [
    # "Total" is one line; the three columns beside it wrap theirs over two lines: none spreads to "Total"
    ([[(1, "Fixed rate"), (2, "Floating rate"), (3, "No interest")],
      [(0, "Total"), (1, "holdings"), (2, "holdings"), (3, "earned")]],
     ["Total", "Fixed rate holdings", "Floating rate holdings", "No interest earned"]),
    # a group's name set over its first column runs on over the columns to its right, not into the next group
    ([[(0, "Season 2025"), (2, "Season 2024")], [(0, "Takings"), (1, "% of all"), (2, "Takings"), (3, "% of all")]],
     ["Season 2025 Takings", "Season 2025 % of all", "Season 2024 Takings", "Season 2024 % of all"]),
    # ... and, wrapped over two lines, heads every column of its group on both
    ([[(2, "Restricted")], [(0, "Unrestricted funds"), (2, "funds")], [(0, "2025"), (1, "2024"), (2, "2025"), (3, "2024")]],
     ["Unrestricted funds 2025", "Unrestricted funds 2024", "Restricted funds 2025", "Restricted funds 2024"]),
    # a name over each of three columns is theirs; it does not run on over a fourth headed on its own, nor does a
    # remark in brackets under the years
    ([[(0, "December"), (1, "December"), (2, "December")], [(0, "31,"), (1, "31,"), (2, "31,"), (3, "Variation")],
      [(0, "2025"), (1, "2024"), (2, "2023"), (3, "2025 vs 2024")],
      [(0, "(In millions)"), (1, "(In millions)"), (2, "(In millions)")]],
     ["December 31, 2025 (In millions)", "December 31, 2024 (In millions)", "December 31, 2023 (In millions)",
      "Variation 2025 vs 2024"]),
])
def test_header_lines_right_aligned_over_their_columns_head_those_columns_and_their_groups(tmp_path, header_lines, columns):
    path = draw_rows(tmp_path / "holdings.pdf", [[right_over(c, text) for c, text in line] for line in header_lines],
                     FIGURES, caption="Holdings by interest")
    (table,) = read_pdf_tables(path)
    assert table.columns == columns


def test_a_schedules_years_at_the_left_label_its_rows_and_the_header_names_the_columns_beside_them(tmp_path):
    """A maturity schedule: a year at the left of each line is the row's label, not a column of figures (which had
    left the header over two columns for three, so the table kept none); a header phrase set tight against the next
    column is the one over its own figures."""
    path = draw_rows(tmp_path / "leases.pdf", [[right_over(0, "Property leases"), right_over(1, "Vehicle leases")]],
                     [("2031", ["$512", "$28"]), ("2032", ["488", "27"]), ("2033", ["461", "25"]),
                      ("Thereafter", ["1,905", "64"]), ("Total lease payments", ["3,366", "144"])],
                     caption="Future minimum lease payments (in millions):")
    (table,) = read_pdf_tables(path)
    assert table.columns == ["Property leases", "Vehicle leases"]
    assert [row.label for row in table.rows] == ["2031", "2032", "2033", "Thereafter", "Total lease payments"]
    assert table.row_text(table.rows[1]) == "2032 | Property leases: 488 | Vehicle leases: 27"
