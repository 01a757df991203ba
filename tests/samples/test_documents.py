"""`python -m samples`: the demo documents exist, load with DocuChat's loaders, and hold the facts
the example questions in README_samples.md ask about."""
from __future__ import annotations

import re
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core.config import Settings  # noqa: E402
from core.ingest.loaders import load_document  # noqa: E402
from samples import QUESTIONS_FILENAME, make_samples  # noqa: E402

EXPECTED = {
    "Helios_Product_Handbook.pdf": ("pdf", 6),
    "Panel_Spec_Sheets.pdf": ("pdf", 3),
    "Receipts_2024.pdf": ("pdf", 6),
    "Product_Specs_by_Maker.xlsx": ("xlsx", 2),
    "orders_2023_2024.csv": ("csv", 1),
    "README_samples.md": ("md", 1),
}


@pytest.fixture(scope="module")
def samples(tmp_path_factory) -> Path:
    """Run the script as a user would, into a fresh folder."""
    out = tmp_path_factory.mktemp("samples")
    result = subprocess.run(
        [sys.executable, "-m", "samples", "--out", str(out)], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr
    for name in EXPECTED:
        assert name in result.stdout  # it says what it wrote
    return out


@pytest.fixture(scope="module")
def loaded(samples):
    return {name: load_document(samples / name, Settings()) for name in EXPECTED}


def test_every_file_is_written_and_nothing_else(samples):
    assert sorted(p.name for p in samples.iterdir()) == sorted([*EXPECTED, QUESTIONS_FILENAME])


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_file_loads_with_text(loaded, name):
    kind, pages = EXPECTED[name]
    document = loaded[name]
    assert document.kind == kind
    assert document.page_count == pages
    assert document.text_chars > 500
    assert all(section.text.strip() for section in document.sections)


def page_texts(document) -> list[str]:
    """Each page's text in order: a page's table is a section of its own beside the page's other text."""
    pages: dict[int, list[str]] = {}
    for section in document.sections:
        pages.setdefault(section.page, []).append(section.text)
    return ["\n".join(pages[p]) for p in sorted(pages)]


@pytest.mark.parametrize("name", [n for n, (kind, _) in EXPECTED.items() if kind == "pdf"])
def test_every_pdf_page_has_text(loaded, name):
    document = loaded[name]
    assert sorted({s.page for s in document.sections}) == list(range(1, EXPECTED[name][1] + 1))
    assert all(len(text.split()) > 50 for text in page_texts(document))


def test_output_is_deterministic(samples, tmp_path):
    make_samples(tmp_path)
    for name in EXPECTED:
        assert (tmp_path / name).read_bytes() == (samples / name).read_bytes(), name


def test_handbook_states_the_warranty_terms(loaded):
    text = " ".join(" ".join(s.text.split()) for s in loaded["Helios_Product_Handbook.pdf"].sections)
    for fact in ("12 years", "25 years", "84.8 %", "between 8 and 12 N m", "support@helios-energy.example"):
        assert fact in text


def test_spec_sheets_have_one_model_per_page_with_label_value_lines(loaded):
    pages = page_texts(loaded["Panel_Spec_Sheets.pdf"])
    for page, model in zip(pages, ["HX-400", "HX-450", "HX-550 Bifacial"]):
        assert f"Model: {model}" in page
        assert re.search(r"Dimensions: \d{4} x \d{4} x \d{2} mm", page)
        assert re.search(r"Weight: \d+\.\d kg", page)
        assert re.search(r"Efficiency: \d+\.\d %", page)
        assert "Open circuit voltage (V)" in page  # the electrical table
    assert "Dimensions: 1722 x 1134 x 30 mm" in pages[0]
    assert "Max power: 400 W" in pages[0]


def test_receipts_add_up_and_some_have_tyres(loaded):
    pages = page_texts(loaded["Receipts_2024.pdf"])
    def has_tyre_item(text: str) -> bool:  # a line item (ends in an amount) that names tyres or tires
        return any(re.search(r"tyre|tire", line, re.I) and re.search(r"\d+\.\d\d$", line) for line in text.split("\n"))

    assert [i + 1 for i, text in enumerate(pages) if has_tyre_item(text)] == [1, 3, 4, 5]
    for text in pages:
        # a line item: description, quantity, unit price, amount (cells joined by " | " once read as a table)
        amounts = [Decimal(m) for m in re.findall(r"^.+ (?:\| )?\d+ (?:\| )?\d+\.\d\d (?:\| )?(\d+\.\d\d)$", text, re.M)]
        subtotal = Decimal(re.search(r"Subtotal: £(\d+\.\d\d)", text).group(1))
        vat = Decimal(re.search(r"VAT \(20 %\): £(\d+\.\d\d)", text).group(1))
        total = Decimal(re.search(r"Total paid: £(\d+\.\d\d)", text).group(1))
        assert len(amounts) == 4 and sum(amounts) == subtotal
        assert vat == (subtotal * Decimal("0.2")).quantize(Decimal("0.01"))
        assert total == subtotal + vat
        assert re.search(r"Date: 2024-\d\d-\d\d", text)


def test_spreadsheet_has_two_makers_with_different_labels_and_units(loaded):
    helios, sunpeak = loaded["Product_Specs_by_Maker.xlsx"].sections
    assert (helios.sheet, sunpeak.sheet) == ("Helios Energy", "SunPeak Solar")
    assert "Width (mm): 1134" in helios.text and "Power (W): 400" in helios.text
    assert "W [m]: 1.134" in sunpeak.text and "Pmax kW: 0.43" in sunpeak.text
    for section in (helios, sunpeak):
        lines = section.text.split("\n")
        assert "specifications" in lines[0] or "product data" in lines[0]  # the merged title
        assert lines[-1].startswith(("Note:", "Source:"))  # the notes row
        assert section.row_numbers[1] == 3  # title in row 1, header in row 2, data from row 3


def test_orders_csv_has_200_orders_over_two_years_for_known_customers(loaded):
    (section,) = loaded["orders_2023_2024.csv"].sections
    lines = section.text.split("\n")
    assert len(lines) == 200
    assert section.row_numbers == list(range(2, 202))
    assert lines[0].startswith("order_id: ORD-10001 | date: 2023-")
    for customer in ("ACME", "Globex", "Initech"):
        assert sum(f"customer: {customer} |" in line for line in lines) >= 10
    years = {re.search(r"date: (\d{4})", line).group(1) for line in lines}
    assert years == {"2023", "2024"}
    for line in lines:
        fields = dict(part.split(": ", 1) for part in line.split(" | "))
        assert Decimal(fields["unit_price"]) * int(fields["quantity"]) == Decimal(fields["total"])


def test_readme_describes_every_file_and_suggests_questions(samples):
    text = (samples / "README_samples.md").read_text(encoding="utf-8")
    for name in EXPECTED:
        if name != "README_samples.md":
            assert name in text
    questions = re.findall(r"^\d+\. .+\?", text, re.M)
    assert 6 <= len(questions) <= 8
