"""Fixture factories for the ingest tests.

Every file is generated inside tmp_path by the fixture that needs it: nothing is copied from
elsewhere, so each test documents exactly what its input looks like.
"""
from __future__ import annotations

import re
import sys
import zipfile
from pathlib import Path
from typing import Callable

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # `pytest` (unlike `python -m pytest`) does not add the repo root
    sys.path.insert(0, str(ROOT))


# --- PDF ---------------------------------------------------------------------------------------

def write_text_pdf(path: Path, pages: list[str]) -> Path:
    """One PDF page per entry of `pages`; each "\\n" in an entry starts a new line of text."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    pdf = canvas.Canvas(str(path), pagesize=A4, invariant=1)  # invariant: byte-identical output
    for text in pages:
        y = A4[1] - 72
        for line in text.split("\n"):
            pdf.drawString(72, y, line)
            y -= 14
        pdf.showPage()
    pdf.save()
    return path


THREE_PAGES = ["Page one talks about alpha.", "Page two talks about bravo.", "Page three talks about charlie."]


@pytest.fixture
def make_pdf(tmp_path: Path) -> Callable[..., Path]:
    """make_pdf(["page 1 text", "page 2 text"], name="doc.pdf") -> path of a text PDF."""

    def make(pages: list[str], name: str = "doc.pdf") -> Path:
        return write_text_pdf(tmp_path / name, pages)

    return make


@pytest.fixture
def three_pages() -> list[str]:
    """The text of each page of `text_pdf` (and of the PDFs derived from it)."""
    return list(THREE_PAGES)


@pytest.fixture
def text_pdf(make_pdf) -> Path:
    return make_pdf(THREE_PAGES, "three_pages.pdf")


def _encrypt(source: Path, target: Path, user_password: str) -> Path:
    from pypdf import PdfWriter

    writer = PdfWriter(clone_from=str(source))
    writer.encrypt(user_password=user_password, owner_password="owner-secret", algorithm="AES-128")
    with target.open("wb") as fh:
        writer.write(fh)
    return target


@pytest.fixture
def password_pdf(text_pdf: Path, tmp_path: Path) -> Path:
    """Encrypted with a real user password: nobody can read it without typing 'hunter2'."""
    return _encrypt(text_pdf, tmp_path / "locked.pdf", "hunter2")


@pytest.fixture
def empty_password_pdf(text_pdf: Path, tmp_path: Path) -> Path:
    """Encrypted with an EMPTY user password (owner restrictions only), as many filings are."""
    return _encrypt(text_pdf, tmp_path / "restricted.pdf", "")


@pytest.fixture
def truncated_pdf(text_pdf: Path, tmp_path: Path) -> Path:
    """The first half of the bytes, as left by an interrupted download."""
    data = text_pdf.read_bytes()
    target = tmp_path / "truncated.pdf"
    target.write_bytes(data[: len(data) // 2])
    return target


@pytest.fixture
def corrupt_xref_pdf(text_pdf: Path, tmp_path: Path) -> Path:
    """Every offset in the cross-reference table points past the end of the file."""
    data = text_pdf.read_bytes()
    start = data.index(b"\nxref\n")
    end = data.index(b"trailer", start)
    table, count = re.subn(rb"\d{10} 00000 n", b"9999999999 00000 n", data[start:end])
    assert count >= 3, "fixture did not find the xref entries to corrupt"
    target = tmp_path / "corrupt_xref.pdf"
    target.write_bytes(data[:start] + table + data[end:])
    return target


# --- XLSX --------------------------------------------------------------------------------------

@pytest.fixture
def inventory_xlsx(tmp_path: Path) -> Path:
    """Sheet 'Inventory' (1-based rows):
        1  merged A1:D1 title "Warehouse Inventory 2024"
        2  header  Item | Quantity | Unit Price | Location
        3-5 data   (row 5 has an empty Location)
        6  note    "Note: prices exclude VAT and shipping"
        7-8 blank
        9  title   "Returns Log"
        10 header  Order | Reason | Amount
        11-12 data
    Sheet 'Suppliers': header in row 1, data in rows 2-3.
    """
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Inventory"
    sheet["A1"] = "Warehouse Inventory 2024"
    sheet.merge_cells("A1:D1")
    sheet.append(["Item", "Quantity", "Unit Price", "Location"])
    sheet.append(["Bolts", 120, 0.25, "Aisle 3"])
    sheet.append(["Nuts", 300, 0.1, "Aisle 3"])
    sheet.append(["Washers", 75, 0.05, None])
    sheet.append(["Note: prices exclude VAT and shipping"])
    sheet.append([])
    sheet.append([])
    sheet.append(["Returns Log"])
    sheet.append(["Order", "Reason", "Amount"])
    sheet.append(["R-1", "Damaged", 12.5])
    sheet.append(["R-2", "Wrong size", 8])
    assert sheet.max_row == 12
    suppliers = book.create_sheet("Suppliers")
    suppliers.append(["Name", "Country", "Rating"])
    suppliers.append(["Acme Fasteners", "US", 4.5])
    suppliers.append(["Bolt & Co", "DE", 4])
    path = tmp_path / "inventory.xlsx"
    book.save(path)
    return path


@pytest.fixture
def formula_xlsx(tmp_path: Path) -> Path:
    """C2 holds =B2*2 with the value 84 cached, as Excel leaves it when it saves.

    openpyxl writes formulas without a cached value, so the sheet XML is rewritten in the zip.
    """
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Calc"
    sheet.append(["Label", "Input", "Doubled"])
    sheet.append(["answer", 42, "=B2*2"])
    raw = tmp_path / "formula_raw.xlsx"
    book.save(raw)

    target = tmp_path / "formula.xlsx"
    with zipfile.ZipFile(raw) as src, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            if item.filename == "xl/worksheets/sheet1.xml":
                xml, count = re.subn(
                    r"<f>B2\*2</f>\s*(<v\s*/>|<v>\s*</v>)?", "<f>B2*2</f><v>84</v>", data.decode("utf-8")
                )
                assert count == 1, "fixture did not find the formula cell"
                data = xml.encode("utf-8")
            dst.writestr(item, data)
    return target


# --- CSV and text ------------------------------------------------------------------------------

@pytest.fixture
def make_file(tmp_path: Path) -> Callable[[str, bytes], Path]:
    """make_file("name.ext", b"bytes") -> path."""

    def make(name: str, data: bytes) -> Path:
        path = tmp_path / name
        path.write_bytes(data)
        return path

    return make


@pytest.fixture
def csv_utf8_bom(make_file) -> Path:
    return make_file("bom.csv", "\ufeffname,city,price\nZoë,Köln,3.50\nBob,Café Paris,4\n".encode("utf-8"))


@pytest.fixture
def csv_cp1252(make_file) -> Path:
    data = "name,item,price\nAnna,Café crème,€ 3.50\nBen,Thé,€ 2.00\n".encode("cp1252")
    assert b"\xe9" in data and b"\x80" in data  # é and € as single cp1252 bytes, invalid UTF-8
    return make_file("legacy.csv", data)


@pytest.fixture
def csv_semicolon(make_file) -> Path:
    return make_file("semicolon.csv", b"product;price;qty\nWidget;1,50;3\nGadget;2,25;10\nGizmo;0,99;7\n")


@pytest.fixture
def binary_txt(make_file) -> Path:
    return make_file("photo.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 8)


@pytest.fixture
def empty_file(make_file) -> Path:
    return make_file("empty.txt", b"")


# --- the real tokenizer of the embedding model --------------------------------------------------

@pytest.fixture(scope="session")
def count_tokens():
    from core.embedding import count_tokens

    return count_tokens
