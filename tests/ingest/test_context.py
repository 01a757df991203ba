"""Each chunk knows where it is: the document's identity and the heading it sits under.

Cover pages are written here in the shapes SEC filings and earnings releases use, read with the
SEC-filing profile that knows them (tests/profiles say what the core reads without it); a document
that has none of them gets no identity rather than a guessed one.
"""
from __future__ import annotations

from datetime import date

from core.annotations.documents import parse_date
from core.ingest.chunking import Chunk, chunk_document
from core.ingest.context import (CoverIdentity, context_of, cover_identity, document_identity, heading_marks,
                                 is_heading)
from core.ingest.document import LoadedDocument, Section
from core.ingest.pipeline import index_text, index_texts
from core.profiles.sec_filing import SEC_FILING

SEC = (SEC_FILING,)

QUARTERLY_COVER = """UNITED STATES
SECURITIES AND EXCHANGE COMMISSION
Washington, D.C. 20549
FORM 10-Q
QUARTERLY REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the quarterly period ended March 30, 2024
Commission File Number: 001-12345
Northwind Traders, Inc.
(Exact name of registrant as specified in its charter)
Delaware 12-3456789
Indicate by check mark whether the registrant is a smaller reporting company.
Smaller reporting company"""

CURRENT_REPORT_COVER = """SECURITIES AND EXCHANGE COMMISSION
FORM 8-K
CURRENT REPORT
Date of Report (Date of earliest event reported): June 3, 2024
CONTOSO HOLDINGS PLC
(Exact name of registrant as specified in its charter)"""

RELEASE_COVER = """Fabrikam Reports Second-Quarter 2024 Results
REDMOND - July 25, 2024 - Fabrikam, Inc. (NASDAQ: FBK) today reported results for the second quarter.
The company's quarterly report on Form 10-Q will be filed later."""


def pdf(*pages: str, title: str = "doc") -> LoadedDocument:
    return LoadedDocument(f"{title}.pdf", "pdf", [Section(text=t, page=i + 1) for i, t in enumerate(pages)])


class TestIdentity:
    def test_a_quarterly_report_names_its_registrant_form_and_quarter(self):
        assert document_identity(pdf(QUARTERLY_COVER), SEC) == "Northwind Traders, Inc. · Form 10-Q · quarter ended March 30, 2024"

    def test_a_current_report_is_dated(self):
        assert document_identity(pdf(CURRENT_REPORT_COVER), SEC) == "CONTOSO HOLDINGS PLC · Form 8-K · report dated June 3, 2024"

    def test_an_earnings_release_is_named_by_its_quarter_not_by_a_form_it_mentions(self):
        identity = document_identity(pdf(RELEASE_COVER), SEC)
        assert identity == "Fabrikam, Inc. · earnings release · second quarter 2024"

    def test_a_document_without_a_cover_gets_no_identity(self):
        assert document_identity(pdf("Clamp torque: tighten to 8-12 N m.\nCheck the seal monthly."), SEC) == ""


class TestHeadings:
    def test_item_and_sub_headings_are_recognised_and_sentences_and_rows_are_not(self):
        assert is_heading("Item 2. Management's Discussion and Analysis")
        assert is_heading("Liquidity and Capital Resources")
        assert is_heading("CONDENSED CONSOLIDATED BALANCE SHEETS")
        assert not is_heading("Net sales increased due to higher iPhone sales.")
        assert not is_heading("Total assets | 2023: $332,160 | 2022: $352,755")
        assert not is_heading("(Exact name of registrant as specified in its charter)")

    def test_a_title_dated_by_its_day_is_a_heading_and_a_numbered_sentence_is_not(self):
        assert is_heading("Operations Committee Meeting of 4 November 2021")
        assert is_heading("Site Visit Report, October 7, 2019")
        assert is_heading("5. Health and Safety")
        assert not is_heading("Three Months Ended 30 June 2021")
        assert not is_heading("Balance at 31 December 2019")
        assert not is_heading("5. The members agreed to defer the vote to the next meeting.")

    def test_the_heading_in_force_carries_across_pages_under_its_item(self):
        doc = pdf(
            "Item 2. Management's Discussion and Analysis\nOverview\nWe sell widgets.",
            "Revenue grew 8% on volume.\nLiquidity and Capital Resources\nCash was $2.1 billion.",
        )
        first, second = heading_marks(doc.sections)
        assert first[2] == "Item 2. Management's Discussion and Analysis › Overview"
        assert second[0] == "Item 2. Management's Discussion and Analysis › Overview"
        assert second[2] == "Item 2. Management's Discussion and Analysis › Liquidity and Capital Resources"

    def test_a_running_head_repeated_on_every_page_is_not_a_heading(self):
        doc = pdf(*[f"Northwind Quarterly Report\nPage body {n} says something." for n in range(5)])
        assert all(mark is None for marks in heading_marks(doc.sections) for mark in marks)


class TestIndexText:
    def test_the_chunk_is_indexed_under_its_file_page_identity_and_heading(self, count_tokens):
        doc = pdf(QUARTERLY_COVER, "Liquidity and Capital Resources\nCash and equivalents were $2.1 billion.",
                  title="northwind-10q")
        chunks = chunk_document(doc, "d1", count_tokens)
        second_page = next(c for c in chunks if c.page_start == 2)
        text = index_text(doc.title, second_page, document_identity(doc, SEC))
        assert text.split("\n")[:2] == [
            "northwind-10q | page 2",
            "Northwind Traders, Inc. · Form 10-Q · quarter ended March 30, 2024 — Liquidity and Capital Resources",
        ]
        assert text.endswith(second_page.text)
        assert context_of(text, second_page.text) == text.split("\n")[1]

    def test_the_heading_gives_way_when_the_prefix_would_push_a_chunk_past_the_limit(self, count_tokens):
        chunk = Chunk("d1", 0, "figures " * 40, token_count=40, page_start=3, page_end=3,
                      heading="A Very Long Section Heading About Many Things")
        roomy, = index_texts("t", "Northwind Traders, Inc.", [chunk], count_tokens, limit=250)
        tight, = index_texts("t", "Northwind Traders, Inc.", [chunk], count_tokens, limit=55)
        assert "Long Section Heading" in roomy
        assert "Long Section Heading" not in tight and "Northwind Traders, Inc." in tight

    def test_text_without_a_context_line_has_no_context(self):
        assert context_of("title | page 1\nbody text", "body text") == ""
        assert context_of("unrelated", "body text") == ""


def test_a_heading_the_passage_opens_with_is_not_repeated_in_its_context_line():
    from core.ingest.context import without_repeated_heading

    assert without_repeated_heading("Mounting", "Mounting\nUse the clamps.") == ""
    assert without_repeated_heading("Acme Corp · Form 10-Q — Risk Factors", "Risk Factors\nWe face…") == "Acme Corp · Form 10-Q"
    assert without_repeated_heading("Acme Corp · Form 10-Q — Risk Factors", "Our sales grew.") == "Acme Corp · Form 10-Q — Risk Factors"


class TestCoverIdentity:
    def test_the_cover_s_company_form_and_period_end_are_read_back_typed_from_the_context_line(self):
        identity = document_identity(pdf(QUARTERLY_COVER), SEC)
        assert cover_identity(identity + " — Item 2. Management's Discussion", SEC) == CoverIdentity(
            "Northwind Traders, Inc.", "10-Q", "quarter", date(2024, 3, 30))
        assert cover_identity(document_identity(pdf(CURRENT_REPORT_COVER), SEC), SEC).end == date(2024, 6, 3)
        assert cover_identity(document_identity(pdf(RELEASE_COVER), SEC), SEC) == CoverIdentity("Fabrikam, Inc.",
                                                                                               "earnings release")

    def test_a_heading_that_names_a_period_is_not_the_document_s_period(self):
        assert cover_identity("Item 8 — for the year ended December 31, 2022", SEC) == CoverIdentity()
        assert cover_identity("Item 8 · Notes — Revenue", SEC) == CoverIdentity()  # no form, no period: no company
        assert cover_identity("", SEC) == CoverIdentity()

    def test_dates_are_read_as_covers_write_them(self):
        assert parse_date("Sept. 30, 2023") == date(2023, 9, 30)
        assert parse_date("March 31,2023") == date(2023, 3, 31)
        assert parse_date("Smarch 3, 2023") is None
