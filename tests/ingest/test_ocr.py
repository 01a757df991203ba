"""OCR: lines rebuilt from Tesseract's word boxes, line items as rows, and what happens without Tesseract.

The layout rules are tested on word boxes written by hand; the end-to-end tests draw a receipt
with reportlab, render it to an image with PDFium (so no font files are needed) and run the real
Tesseract on it. Those are skipped where Tesseract is not installed.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from core.annotations.documents import RECORD_TABLE
from core.ingest.extract import extract_facts
from core.config import Settings
from core.ingest import ocr
from core.ingest.document import IngestError
from core.ingest.loaders import load_document
from core.ingest.ocr import Row, Word, build_rows, heading, is_amount, line_items, words_from_tsv

SETTINGS = Settings()
HAS_TESSERACT = ocr.tesseract_status(SETTINGS.ocr_language)[0]
needs_tesseract = pytest.mark.skipif(not HAS_TESSERACT, reason="Tesseract is not installed")

WORD_HEIGHT = 20


def word(text: str, left: int, top: int, line: tuple[int, ...] = (1, 1, 1), width: int | None = None) -> Word:
    return Word(text, left, top, width or 12 * len(text), WORD_HEIGHT, line)


def row(*cells: tuple[str, int]) -> Row:
    """A row from (text, left) cells, one word a cell, on one line."""
    return Row([[word(text, left, 0)] for text, left in cells])


# --- words and rows ---------------------------------------------------------------------------

def test_only_words_with_text_and_enough_confidence_are_kept():
    data = {
        "level": [1, 5, 5, 5, 5], "text": ["", "Total", "  ", "~", "9.00"], "conf": [-1, 96, 90, 12, 88],
        "left": [0, 10, 60, 70, 200], "top": [0, 5, 5, 5, 5], "width": [300, 40, 5, 5, 30],
        "height": [50, 20, 20, 20, 20], "block_num": [0, 1, 1, 1, 2], "par_num": [0, 1, 1, 1, 1],
        "line_num": [0, 1, 1, 1, 1],
    }
    words = words_from_tsv(data, min_confidence=30)
    assert [(w.text, w.line_key) for w in words] == [("Total", (1, 1, 1)), ("9.00", (2, 1, 1))]


def test_a_label_and_its_amount_in_different_blocks_become_one_line():
    words = [
        word("Receipt", 10, 0, (1, 1, 1)),
        word("Total", 10, 100, (1, 1, 2)), word("9.00", 400, 103, (2, 1, 1)),  # slightly lower: a skewed scan
        word("Thanks", 10, 200, (1, 1, 3)),
    ]
    rows = build_rows(words, column_gap=1.5)
    assert [r.cell_texts for r in rows] == [["Receipt"], ["Total", "9.00"], ["Thanks"]]


def test_two_columns_of_prose_at_the_same_height_stay_two_lines():
    left = [word(w, 10 + 60 * i, 0, (1, 1, 1)) for i, w in enumerate("the panels carry a warranty".split())]
    right = [word(w, 600 + 60 * i, 2, (2, 1, 1)) for i, w in enumerate("installation must be carried out".split())]
    rows = build_rows(left + right, column_gap=1.5)
    assert [r.text for r in rows] == ["the panels carry a warranty", "installation must be carried out"]


def test_words_close_together_share_a_cell_and_a_wide_gap_starts_a_new_one():
    words = [word("Sourdough", 10, 0, width=100), word("loaf", 115, 0, width=40), word("4.50", 400, 0, width=40)]
    [only] = build_rows(words, column_gap=1.5)
    assert only.cell_texts == ["Sourdough loaf", "4.50"]


@pytest.mark.parametrize("cells, expected", [
    ([("Date", 0), ("25/12/2018", 300)], "Date: 25/12/2018"),
    ([("Total:", 0), ("9.00", 300)], "Total: 9.00"),  # no second colon
    ([("Cashier", 0), ("MANIS", 300)], "Cashier MANIS"),  # no figure: not read as a value
    ([("Doc No", 0), ("CS0031", 200), ("Date", 400), ("25/12/2018", 500)], "Doc No: CS0031 Date: 25/12/2018"),
    ([("2 x Bread", 0), ("5.00", 300)], "2 x Bread 5.00"),  # starts with a figure: not a label
])
def test_a_label_cell_before_a_figure_reads_as_label_colon_value(cells, expected):
    assert row(*cells).labelled_text == expected


@pytest.mark.parametrize("text, expected", [
    ("9.00", True), ("1,234.50", True), ("4.904,94", True), ("-3.00", True), ("(3.00)", True), ("£12.50", True),
    ("12", False), ("25/12/2018", False), ("CS0031", False), ("9.0", False),
])
def test_amounts_are_prices_with_two_decimals(text, expected):
    assert is_amount(text) is expected


# --- what the rows mean -----------------------------------------------------------------------

def test_the_heading_is_the_line_with_a_legal_form_among_the_first_lines():
    lines = ["tan woon yann", "BOOK TA .K (TAMAN DAYA) SDN BHD", "NO.53 JALAN SAGU 18", "Date: 25/12/2018"]
    assert heading(lines, max_lines=6) == "BOOK TA .K (TAMAN DAYA) SDN BHD"


def test_without_a_legal_form_the_heading_is_the_first_line_that_reads_as_a_name():
    assert heading(["12/03/2024 10:31", "Corner Bakery", "12 High Street"], max_lines=6) == "Corner Bakery"
    assert heading(["12/03/2024", "Total: 9.00"], max_lines=6) is None
    assert heading(["", "", "", "Acme Trading Ltd"], max_lines=3) is None  # only the first lines count


def test_line_items_take_their_column_names_from_the_header_above_and_stop_at_the_total():
    rows = [
        row(("Corner Bakery Ltd", 0)),
        row(("Item", 0), ("Qty", 300), ("Amount", 500)),
        row(("Sourdough loaf", 0), ("1", 305), ("4.50", 505)),
        row(("Croissant", 0), ("2", 305), ("3.20", 505)),
        row(("Total", 0), ("7.70", 505)),
        row(("Coffee beans", 0), ("1", 305), ("9.90", 505)),  # after the total: not an item
    ]
    table = line_items(rows, title="Corner Bakery Ltd")
    assert table.header == ["Item", "Qty", "Amount"]
    assert table.rows == [["Sourdough loaf", "1", "4.50"], ["Croissant", "2", "3.20"]]
    assert table.row_numbers == [3, 4]  # the line numbers on the page
    assert table.title_lines == ["Corner Bakery Ltd"]


def test_an_item_whose_figures_are_printed_under_its_name_gets_the_name():
    rows = [
        row(("Description", 0), ("Price", 300), ("Amount", 500)),
        row(("KF MODELLING CLAY", 0)),
        row(("1 PC", 0), ("9.00", 300), ("9.00", 500)),
        row(("Total", 0), ("9.00", 500)),
    ]
    table = line_items(rows)
    assert table.rows == [["KF MODELLING CLAY 1 PC", "9.00", "9.00"]]


def test_without_a_header_the_columns_are_named_and_the_amount_is_last():
    rows = [row(("Bread", 0), ("2", 300), ("5.00", 500)), row(("Milk", 0), ("1.20", 500)), row(("Total", 0), ("6.20", 500))]
    table = line_items(rows)
    assert table.header == ["item", "value 1", "amount"]
    assert table.rows == [["Bread", "2", "5.00"], ["Milk", "", "1.20"]]


def test_a_page_without_figures_at_line_ends_has_no_line_items():
    assert line_items([row(("Dear customer,", 0)), row(("Thank you for your order", 0))]) is None


# --- with Tesseract ---------------------------------------------------------------------------

RECEIPT_LINES = [
    ("Corner Bakery Ltd", None), ("12 High Street, Reading", None), ("Date", "2024-03-05"),
    ("Item", "Amount"), ("Sourdough loaf", "4.50"), ("Croissant x2", "3.20"), ("Total", "7.70"),
]


def write_receipt_pdf(path: Path, lines=RECEIPT_LINES) -> Path:
    from reportlab.lib.pagesizes import A6
    from reportlab.pdfgen import canvas

    pdf = canvas.Canvas(str(path), pagesize=A6, invariant=1)
    width, height = A6
    for number, (left, right) in enumerate(lines):
        y = height - 30 - 14 * number
        pdf.setFont("Helvetica", 9)
        pdf.drawString(15, y, left)
        if right:
            pdf.drawRightString(width - 15, y, right)
    pdf.showPage()
    pdf.save()
    return path


def render(pdf_path: Path, dpi: int = 300):
    """The first page as a PIL image, as a scanner would produce it."""
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(str(pdf_path))
    try:
        return document[0].render(scale=dpi / 72).to_pil()
    finally:
        document.close()


@pytest.fixture
def receipt_png(tmp_path) -> Path:
    path = tmp_path / "bakery.png"
    render(write_receipt_pdf(tmp_path / "bakery.pdf")).save(path, dpi=(300, 300))
    return path


@pytest.fixture
def half_scanned_pdf(tmp_path, receipt_png) -> Path:
    """Page 1 has a text layer; page 2 is only the picture of a receipt."""
    from PIL import Image
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    path = tmp_path / "statement.pdf"
    pdf = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    pdf.drawString(72, 770, "Expense statement for March 2024, receipts attached.")
    pdf.showPage()
    with Image.open(receipt_png) as image:
        pdf.drawInlineImage(image.convert("RGB"), 0, 0, width=A4[0], height=A4[0] * image.height / image.width)
    pdf.showPage()
    pdf.save()
    return path


@needs_tesseract
def test_a_scanned_receipt_gives_its_text_a_total_fact_its_items_as_rows_and_its_record(receipt_png):
    document = load_document(receipt_png, SETTINGS)
    assert (document.kind, document.page_count) == ("png", 1)
    text = "\n".join(s.text for s in document.sections)
    assert "Corner Bakery Ltd" in text and "Date: 2024-03-05" in text and "Total: 7.70" in text

    facts = extract_facts(document, "d1")
    key_values = {f.values[0].column: f.values[0] for f in facts if f.kind == "kv"}
    assert key_values["Total"].number == 7.70 and key_values["Date"].date == "2024-03-05"
    [record] = [f for f in facts if f.table == RECORD_TABLE]  # the receipt's header as one row
    assert {v.column: v.number for v in record.values}["Total"] == 7.70
    rows = [f for f in facts if f.kind == "row" and f.table != RECORD_TABLE]
    assert [{v.column: v.text for v in f.values if v.column in ("Item", "Amount")} for f in rows] == [
        {"Item": "Sourdough loaf", "Amount": "4.50"}, {"Item": "Croissant x2", "Amount": "3.20"}]
    assert all(f.page == 1 for f in rows)


@needs_tesseract
def test_only_the_scanned_page_of_a_pdf_is_read_by_ocr(half_scanned_pdf):
    document = load_document(half_scanned_pdf, SETTINGS)
    pages = {s.page: s.text for s in document.sections if not s.is_table}
    assert pages[1].strip() == "Expense statement for March 2024, receipts attached."
    assert "Sourdough loaf" in pages[2] and "Total: 7.70" in pages[2]
    assert document.warnings == ["Page(s) 2 were read by OCR."]


@needs_tesseract
def test_every_frame_of_a_multi_page_tiff_is_a_page(tmp_path, receipt_png):
    from PIL import Image

    with Image.open(receipt_png) as image:
        first = image.convert("L")
        second = first.rotate(0)
        path = tmp_path / "two.tiff"
        first.save(path, save_all=True, append_images=[second], dpi=(300, 300))
    document = load_document(path, SETTINGS)
    assert document.page_count == 2
    assert sorted({s.page for s in document.sections}) == [1, 2]

    capped = load_document(path, Settings(ocr_max_pages=1))
    assert capped.page_count == 1 and "only the first 1 were read" in capped.warnings[0]


# --- without Tesseract ------------------------------------------------------------------------

@pytest.fixture
def no_tesseract(monkeypatch):
    monkeypatch.setattr(ocr.shutil, "which", lambda name: None)
    ocr.tesseract_status.cache_clear()
    yield
    ocr.tesseract_status.cache_clear()


def test_without_tesseract_an_image_says_it_needs_ocr_and_how_to_install_it(no_tesseract, tmp_path):
    from PIL import Image

    path = tmp_path / "scan.jpg"
    Image.new("RGB", (200, 100), "white").save(path)
    with pytest.raises(IngestError) as info:
        load_document(path, SETTINGS)
    assert "needs OCR" in str(info.value) and "apt-get install tesseract-ocr" in str(info.value)


def test_without_tesseract_a_scanned_pdf_says_it_needs_ocr(no_tesseract, tmp_path, receipt_png):
    from PIL import Image

    path = tmp_path / "scanned.pdf"
    with Image.open(receipt_png) as image:
        image.convert("RGB").save(path, "PDF", resolution=300)  # an image-only PDF, as scanners write
    with pytest.raises(IngestError) as info:
        load_document(path, SETTINGS)
    assert "scanned (no text layer)" in str(info.value) and "needs OCR" in str(info.value)


def test_without_tesseract_a_half_scanned_pdf_keeps_its_text_and_names_the_page_left_unread(
        no_tesseract, half_scanned_pdf):
    document = load_document(half_scanned_pdf, SETTINGS)
    assert [s.page for s in document.sections] == [1, 2]
    assert "Expense statement" in document.sections[0].text
    assert document.warnings == [
        "Page(s) 2 are scanned and were not read: they need OCR. Tesseract OCR is not installed; "
        "install it with: apt-get install tesseract-ocr tesseract-ocr-eng."]


def test_ocr_can_be_turned_off(tmp_path):
    from PIL import Image

    path = tmp_path / "scan.png"
    Image.new("RGB", (200, 100), "white").save(path)
    with pytest.raises(IngestError) as info:
        load_document(path, Settings(ocr_enabled=False))
    assert "OCR is turned off" in str(info.value)


def test_a_damaged_image_gets_a_clear_message(tmp_path):
    path = tmp_path / "broken.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n this is not really an image")
    with pytest.raises(IngestError) as info:
        load_document(path, SETTINGS)
    assert "could not be opened" in str(info.value)


def test_a_blank_pdf_page_without_an_image_is_not_sent_to_ocr(tmp_path, monkeypatch):
    from reportlab.pdfgen import canvas

    path = tmp_path / "blank_then_text.pdf"
    pdf = canvas.Canvas(str(path), invariant=1)
    pdf.showPage()
    pdf.drawString(72, 720, "Some text on page two.")
    pdf.showPage()
    pdf.save()
    monkeypatch.setattr(ocr, "ocr_image", lambda *a: pytest.fail("a blank page was OCR'd"))
    document = load_document(path, SETTINGS)
    assert document.warnings == []


def test_without_tesseract_the_batch_goes_on_and_the_image_is_listed_as_needing_ocr(
        monkeypatch, tmp_path, make_workspace, write_text):
    from PIL import Image

    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))  # no tesseract, here or in a reading process
    ocr.tesseract_status.cache_clear()
    scan = tmp_path / "in" / "receipt.jpg"
    scan.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (300, 200), "white").save(scan)
    notes = write_text("notes.txt", "The van's tyres were replaced in March 2024 at QuickFit Tyres.")

    workspace = make_workspace()
    try:
        results = workspace.ingestor.ingest_paths([scan, notes])
    finally:
        ocr.tesseract_status.cache_clear()
    assert [r.status for r in results] == ["failed", "indexed"]
    assert "needs OCR" in results[0].message
    [failed] = [d for d in workspace.kb.documents() if d.status == "failed"]
    assert failed.filename == "receipt.jpg" and "tesseract-ocr" in failed.error
