"""Loaders: what each kind of file becomes, and the plain-words error for each way it can be bad."""
from __future__ import annotations

from pathlib import Path

import pytest

from core.config import Settings
from core.ingest import loaders
from core.ingest.document import IngestError
from core.ingest.loaders import load_document

SETTINGS = Settings()


def load(path: Path, settings: Settings = SETTINGS, filename: str | None = None):
    return load_document(path, settings, filename=filename)


def load_error(path: Path, settings: Settings = SETTINGS, filename: str | None = None) -> str:
    """The message of the IngestError a bad file raises (any other exception fails the test)."""
    with pytest.raises(IngestError) as info:
        load(path, settings, filename)
    return str(info.value)


# --- PDF ---------------------------------------------------------------------------------------

class TestPdf:
    def test_one_section_per_page_with_1_based_page_numbers(self, text_pdf, three_pages):
        doc = load(text_pdf)
        assert doc.kind == "pdf"
        assert doc.page_count == 3
        assert [s.page for s in doc.sections] == [1, 2, 3]
        assert [s.text.strip() for s in doc.sections] == three_pages
        assert not any(s.is_table for s in doc.sections)
        assert doc.warnings == []

    def test_lines_of_a_page_stay_separate_lines(self, make_pdf):
        doc = load(make_pdf(["First line here\nSecond line here"]))
        assert doc.sections[0].text.split("\n")[:2] == ["First line here", "Second line here"]
        assert "\r" not in doc.sections[0].text

    def test_pdf_encrypted_with_an_empty_user_password_ingests(self, empty_password_pdf, three_pages):
        doc = load(empty_password_pdf)
        assert [s.text.strip() for s in doc.sections] == three_pages

    def test_password_protected_pdf_is_refused_with_a_message_about_the_password(self, password_pdf):
        assert "password" in load_error(password_pdf).lower()

    def test_truncated_pdf_gives_a_clear_error(self, truncated_pdf):
        # Observed: all three parsers give up on the first half of a file (the page tree is at the end).
        message = load_error(truncated_pdf)
        assert "damaged" in message.lower()

    def test_corrupt_xref_pdf_is_recovered_with_every_page(self, corrupt_xref_pdf, three_pages):
        # Observed: PDFium rebuilds the cross-reference table itself, so nothing is lost.
        doc = load(corrupt_xref_pdf)
        assert [s.page for s in doc.sections] == [1, 2, 3]
        assert [s.text.strip() for s in doc.sections] == three_pages

    def test_when_pdfium_fails_the_fallback_parser_reads_the_pages_and_says_so(
        self, text_pdf, three_pages, monkeypatch
    ):
        def broken(path, settings):
            raise RuntimeError("pdfium crashed")

        monkeypatch.setattr(loaders, "_pdf_pages_pdfium", broken)
        doc = load(text_pdf)
        assert [s.text.strip() for s in doc.sections] == three_pages
        assert [s.page for s in doc.sections] == [1, 2, 3]
        assert len(doc.warnings) == 1 and "fallback" in doc.warnings[0] and "RuntimeError" in doc.warnings[0]

    def test_when_every_parser_fails_the_error_is_an_ingest_error(self, text_pdf, monkeypatch):
        def broken(path, settings):
            raise ValueError("parser bug")

        for name in ("_pdf_pages_pdfium", "_pdf_pages_pypdf", "_pdf_pages_pdfminer"):
            monkeypatch.setattr(loaders, name, broken)
        assert "damaged" in load_error(text_pdf).lower()

    def test_a_text_file_named_pdf_is_not_a_pdf(self, make_file):
        path = make_file("report.pdf", b"Quarterly report\nRevenue rose 4 percent.\n")
        assert "not a pdf" in load_error(path).lower()

    def test_more_pages_than_max_pages_is_refused(self, text_pdf):
        message = load_error(text_pdf, Settings(max_pages=2))
        assert "3 pages" in message and "2-page limit" in message

    def test_exactly_max_pages_is_accepted(self, text_pdf):
        assert load(text_pdf, Settings(max_pages=3)).page_count == 3

    def test_pdf_without_any_text_says_no_text_could_be_extracted(self, make_pdf):
        message = load_error(make_pdf(["", ""], "scanned.pdf"))
        assert "no text" in message.lower()


# --- limits that apply to every kind ------------------------------------------------------------

class TestLimits:
    @pytest.mark.parametrize("name", ["slides.pptx", "report.docx", "archive.zip", "README"])
    def test_unsupported_extension_names_the_supported_ones(self, make_file, name):
        message = load_error(make_file(name, b"some bytes"))
        assert "unsupported file type" in message.lower()
        assert ".pdf" in message and ".xlsx" in message

    def test_unsupported_extension_is_checked_before_anything_else(self, make_file):
        # Even an empty file with the wrong extension gets the extension message.
        assert "unsupported" in load_error(make_file("empty.docx", b"")).lower()

    def test_extension_is_case_insensitive(self, make_pdf):
        path = make_pdf(["Upper case extension"], "SHOUTING.PDF")
        assert load(path).kind == "pdf"

    def test_empty_file(self, empty_file):
        assert "empty" in load_error(empty_file).lower()

    def test_file_over_max_file_mb(self, text_pdf):
        settings = Settings(max_file_mb=0.0001)  # ~104 bytes
        assert text_pdf.stat().st_size > settings.max_file_bytes
        message = load_error(text_pdf, settings)
        assert "limit" in message and "MB" in message

    def test_filename_argument_names_the_document_and_chooses_the_loader(self, make_file):
        # Uploads arrive as temporary files; the user's name is passed separately.
        path = make_file("upload-1234.tmp", b"Meeting notes\nShip on Friday.\n")
        doc = load(path, filename="notes.txt")
        assert doc.filename == "notes.txt"
        assert doc.title == "notes"
        assert "Ship on Friday." in doc.sections[0].text

    def test_kind_follows_the_filename_argument_for_text_files(self, make_file):
        path = make_file("upload-1234.tmp", b"# Notes\n\nShip on Friday.\n")
        assert load(path, filename="notes.md").kind == "md"


# --- XLSX --------------------------------------------------------------------------------------

class TestXlsx:
    def test_each_table_of_each_sheet_becomes_a_table_section_named_by_its_sheet(self, inventory_xlsx):
        doc = load(inventory_xlsx)
        assert doc.kind == "xlsx"
        assert doc.page_count == 2  # sheets
        assert [s.sheet for s in doc.sections] == ["Inventory", "Inventory", "Suppliers"]
        assert all(s.is_table for s in doc.sections)
        assert all(s.page is None for s in doc.sections)

    def test_data_rows_read_header_value_pairs_and_keep_their_real_sheet_row(self, inventory_xlsx):
        first, second, suppliers = load(inventory_xlsx).sections
        # lines: title, three data rows, note
        data_lines = first.text.split("\n")[1:-1]
        assert data_lines == [
            "Item: Bolts | Quantity: 120 | Unit Price: 0.25 | Location: Aisle 3",
            "Item: Nuts | Quantity: 300 | Unit Price: 0.1 | Location: Aisle 3",
            "Item: Washers | Quantity: 75 | Unit Price: 0.05",  # the empty Location is left out
        ]
        assert first.row_numbers[1:-1] == [3, 4, 5]

        lines = second.text.split("\n")
        assert lines[1:] == ["Order: R-1 | Reason: Damaged | Amount: 12.5", "Order: R-2 | Reason: Wrong size | Amount: 8"]
        assert second.row_numbers[1:] == [11, 12]

        assert suppliers.text.split("\n") == [
            "Name: Acme Fasteners | Country: US | Rating: 4.5",
            "Name: Bolt & Co | Country: DE | Rating: 4",
        ]
        assert suppliers.row_numbers == [2, 3]

    def test_one_row_number_per_line(self, inventory_xlsx):
        for section in load(inventory_xlsx).sections:
            assert len(section.row_numbers) == len(section.text.split("\n"))

    def test_merged_title_and_notes_are_kept_but_the_header_is_not_a_data_line(self, inventory_xlsx):
        first, second, _ = load(inventory_xlsx).sections
        lines = first.text.split("\n")
        assert lines[0] == "Warehouse Inventory 2024"
        assert lines[-1] == "Note: prices exclude VAT and shipping"
        assert not any(line.startswith("Item: Item") for line in lines)
        assert "Item | Quantity" not in first.text
        assert second.text.split("\n")[0] == "Returns Log"

    def test_title_lines_carry_the_first_data_row_and_notes_their_own(self, inventory_xlsx):
        # table_lines' convention: a title "stands for" the table's data rows (title in row 1), a note
        # row is cited as itself (row 6): it is kept aside as a note of the table, with its row.
        first, second, _ = load(inventory_xlsx).sections
        assert first.row_numbers == [3, 3, 4, 5, 6]
        assert second.row_numbers == [11, 11, 12]

    def test_formula_cell_gives_the_value_excel_cached(self, formula_xlsx):
        doc = load(formula_xlsx)
        assert doc.sections[0].text == "Label: answer | Input: 42 | Doubled: 84"
        assert "B2*2" not in doc.sections[0].text

    def test_xlsx_that_is_not_a_zip(self, make_file):
        message = load_error(make_file("sheet.xlsx", b"Name,Amount\nA,1\n"))
        assert "not a valid xlsx" in message.lower()

    def test_zip_that_is_not_a_workbook(self, make_file, tmp_path):
        import zipfile

        path = tmp_path / "fake.xlsx"
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("hello.txt", "not a workbook")
        assert "could not be opened" in load_error(path).lower()

    def test_rows_over_max_rows_per_sheet_are_cut_with_a_warning(self, inventory_xlsx):
        doc = load(inventory_xlsx, Settings(max_rows_per_sheet=4))
        inventory = [s for s in doc.sections if s.sheet == "Inventory"]
        assert max(max(s.row_numbers) for s in inventory) <= 4
        assert any("Inventory" in w and "4 rows" in w for w in doc.warnings)


# --- CSV ---------------------------------------------------------------------------------------

class TestCsv:
    def test_utf8_with_bom_the_bom_does_not_leak_into_the_first_header(self, csv_utf8_bom):
        section = load(csv_utf8_bom).sections[0]
        assert section.is_table and section.sheet is None
        assert section.text.split("\n") == [
            "name: Zoë | city: Köln | price: 3.50",
            "name: Bob | city: Café Paris | price: 4",
        ]
        assert section.row_numbers == [2, 3]
        assert "\ufeff" not in section.text

    def test_cp1252_bytes_decode_to_the_right_characters(self, csv_cp1252):
        section = load(csv_cp1252).sections[0]
        assert section.text.split("\n") == [
            "name: Anna | item: Café crème | price: € 3.50",
            "name: Ben | item: Thé | price: € 2.00",
        ]

    def test_semicolon_delimiter_is_detected_and_decimal_commas_survive(self, csv_semicolon):
        section = load(csv_semicolon).sections[0]
        assert section.text.split("\n") == [
            "product: Widget | price: 1,50 | qty: 3",
            "product: Gadget | price: 2,25 | qty: 10",
            "product: Gizmo | price: 0,99 | qty: 7",
        ]
        assert section.row_numbers == [2, 3, 4]

    def test_tab_delimited(self, make_file):
        section = load(make_file("tabs.csv", b"a\tb\tc\n1\t2\t3\n")).sections[0]
        assert section.text == "a: 1 | b: 2 | c: 3"

    def test_rows_over_max_rows_per_sheet_are_cut_with_a_warning(self, csv_semicolon):
        doc = load(csv_semicolon, Settings(max_rows_per_sheet=2))
        assert doc.sections[0].row_numbers == [2]
        assert doc.warnings and "2 rows" in doc.warnings[0]

    def test_one_column_csv_keeps_real_row_numbers(self, make_file):
        section = load(make_file("names.csv", b"customer\nACME\nGlobex\nInitech\n")).sections[0]
        assert section.row_numbers == [2, 3, 4]


# --- plain text --------------------------------------------------------------------------------

class TestText:
    def test_txt_loads_as_one_section(self, make_file):
        doc = load(make_file("notes.txt", b"plain text file\nline two\n"))
        assert doc.kind == "txt" and doc.page_count == 1
        assert len(doc.sections) == 1
        assert doc.sections[0].text == "plain text file\nline two\n"
        assert doc.sections[0].page is None and not doc.sections[0].is_table

    def test_md_loads_with_its_markup(self, make_file):
        doc = load(make_file("guide.md", "# Guide\n\nSome *markdown* — with a dash.\n".encode("utf-8")))
        assert doc.kind == "md"
        assert doc.sections[0].text.startswith("# Guide")
        assert "—" in doc.sections[0].text

    def test_a_markdown_table_is_a_table_section_titled_by_its_heading(self, make_file):
        text = ("# SunMax SM-410\n\nA mono panel.\n\n| Property | Value |\n|---|:---:|\n| Width | 1134 mm |\n"
                "| Weight | 21.5 kg |\n\nWarranty: 25 years.\n")
        prose, table = load(make_file("spec.md", text.encode())).sections
        assert not prose.is_table and "A mono panel." in prose.text and "Warranty: 25 years." in prose.text
        assert "| Width |" not in prose.text  # each row is read once, as a table row
        assert table.is_table and table.text.split("\n") == [
            "A mono panel.", "Property: Width | Value: 1134 mm", "Property: Weight | Value: 21.5 kg"]

    def test_pipes_without_the_header_rule_are_text(self, make_file):
        text = "| not | a table |\n| just | pipes |\n"
        [section] = load(make_file("notes.txt", text.encode())).sections
        assert section.text == text and not section.is_table

    def test_utf16_text_with_bom(self, make_file):
        doc = load(make_file("wide.txt", "hello wörld".encode("utf-16")))
        assert doc.sections[0].text == "hello wörld"

    def test_binary_file_named_txt_is_refused(self, binary_txt):
        assert "binary" in load_error(binary_txt).lower()

    def test_binary_without_nul_bytes_is_refused_too(self, make_file):
        # not UTF-8, and as cp1252 mostly unprintable
        assert "binary" in load_error(make_file("noise.txt", bytes(range(1, 256)) * 16)).lower()

    def test_whitespace_only_text_has_no_text(self, make_file):
        assert "no text" in load_error(make_file("blank.txt", b"   \n\n\t\n")).lower()


def test_an_xlsx_upload_stored_without_its_suffix_still_opens(tmp_path):
    import openpyxl

    from core.config import Settings
    from core.ingest.loaders import load_document

    book = openpyxl.Workbook()
    book.active.append(["Model", "Width (mm)"])
    book.active.append(["HX-400", 1134])
    path = tmp_path / "upload-0"
    book.save(path)
    document = load_document(path, Settings(), filename="specs.xlsx")
    assert "Model: HX-400 | Width (mm): 1134" in document.sections[0].text
