"""Category hints: length (long / short / neither) and content (data-heavy / text-heavy)."""
from __future__ import annotations

import pytest

from core.config import Settings
from core.ingest.categories import category_hints
from core.ingest.document import LoadedDocument, Section

SETTINGS = Settings()  # long >= 20 pages, short <= 3 pages, data-heavy at >= 12 % digits
PROSE = "The installer checks every cable and tightens each clamp before the first start. "


def pdf(pages: int, text: str = PROSE) -> LoadedDocument:
    return LoadedDocument("doc.pdf", "pdf", [Section(text, page=i + 1) for i in range(pages)], page_count=pages)


@pytest.mark.parametrize(
    "pages,length",
    [(1, "short"), (3, "short"), (4, None), (19, None), (20, "long"), (250, "long")],
)
def test_length_hint_follows_the_page_count(pages, length):
    hints = category_hints(pdf(pages), SETTINGS)
    assert ("short" in hints) == (length == "short")
    assert ("long" in hints) == (length == "long")


def test_length_thresholds_come_from_settings():
    settings = Settings(long_document_pages=5, short_document_pages=1)
    assert "long" in category_hints(pdf(5), settings)
    assert "short" not in category_hints(pdf(2), settings)


def test_prose_is_text_heavy():
    assert category_hints(pdf(5), SETTINGS) == ["text-heavy"]


def test_numbers_everywhere_make_a_document_data_heavy():
    figures = "Revenue 1,204.5 2,310.7 3,118.0 Margin 12.4% 13.1% 14.0% Units 4,512 5,020 6,731\n"
    assert category_hints(pdf(5, figures), SETTINGS) == ["data-heavy"]


def test_digit_ratio_threshold_is_inclusive_and_ignores_whitespace():
    # 12 digits in 100 visible characters is exactly the 0.12 threshold
    text = "1" * 12 + "a" * 88 + " \n\t" * 50
    assert "data-heavy" in category_hints(pdf(5, text), SETTINGS)
    text = "1" * 11 + "a" * 89
    assert "text-heavy" in category_hints(pdf(5, text), SETTINGS)


def test_a_spreadsheet_of_words_is_data_heavy_because_it_is_mostly_table():
    table = Section(
        "Name: Ada | Team: Research | City: London\nName: Grace | Team: Systems | City: Arlington",
        sheet="Staff",
        is_table=True,
        row_numbers=[2, 3],
    )
    doc = LoadedDocument("staff.xlsx", "xlsx", [table], page_count=1)
    assert category_hints(doc, SETTINGS) == ["short", "data-heavy"]


def test_a_small_table_in_a_long_text_does_not_make_it_data_heavy():
    sections = [Section(PROSE * 20, page=i + 1) for i in range(25)]
    sections.append(Section("Item: Bolt | Qty: 3", sheet="Annex", is_table=True, row_numbers=[2]))
    doc = LoadedDocument("report.pdf", "pdf", sections, page_count=25)
    assert category_hints(doc, SETTINGS) == ["long", "text-heavy"]


def test_every_document_gets_exactly_one_content_hint():
    for doc in (pdf(1), pdf(1, "123 456"), LoadedDocument("empty.txt", "txt", [Section("")], page_count=1)):
        hints = category_hints(doc, SETTINGS)
        assert len({"data-heavy", "text-heavy"} & set(hints)) == 1
