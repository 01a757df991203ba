"""The sections a question needs are read too: a filing's statement, found by its title, when the question
names it or asks for a line only it holds, and never in a document the profile does not recognise."""
from __future__ import annotations

from core.profiles.sec_filing import BALANCE_SHEET, CASH_FLOWS, INCOME, SEC_FILING
from core.ingest.context import identity_and_heading

COVER = """UNITED STATES SECURITIES AND EXCHANGE COMMISSION
FORM 10-K
For the fiscal year ended December 31, 2024
Northwind Traders, Inc.
(Exact name of registrant as specified in its charter)"""

# Prose that discusses capital spending in the question's own words, many times over, before the statement
# whose row ("Purchases of property and equipment") shares none of them.
DISCUSSION = "\n\n".join(
    f"Capital Expenditure Review {i}\nOur capital expenditure programme for the year focused on stores and "
    f"distribution; capital expenditure plans for region {i} were reviewed by the board and remain on track."
    for i in range(1, 9))
STATEMENT = """Consolidated Statements of Cash Flows
(In millions) | 2024 | 2023
Net cash provided by operating activities | 1,204 | 1,110
Purchases of property and equipment | (412) | (388)
Net cash used in investing activities | (430) | (401)"""


def filing(make_workspace, write_text, cover: str = COVER, **settings):
    """Small chunks, so the statement starts a chunk of its own under its title, as on a filing's page."""
    ws = make_workspace(chunk_size_tokens=60, chunk_overlap_tokens=0, **settings)
    ws.ingestor.ingest_paths([write_text("northwind_10k.txt", f"{cover}\n\n{DISCUSSION}\n\n{STATEMENT}")])
    return ws, [d.doc_id for d in ws.kb.catalog.documents()]


def test_a_question_names_a_statement_or_asks_for_a_line_only_a_statement_holds():
    assert SEC_FILING.sections_asked("From the cash flow statement, what was capex in 2024?") == (CASH_FLOWS,)
    assert SEC_FILING.sections_asked("What is the quick ratio, using the income statement too?") == (INCOME, BALANCE_SHEET)
    assert SEC_FILING.sections_asked("Who is the chief executive?") == ()


def test_a_statement_is_known_by_its_title_not_by_a_heading_that_discusses_its_lines():
    assert SEC_FILING.section_titled("CONSOLIDATED STATEMENTS OF CASH FLOWS (continued)") == CASH_FLOWS
    assert SEC_FILING.section_titled("Consolidated Statements of Financial Position") == BALANCE_SHEET
    assert SEC_FILING.section_titled("Condensed Consolidated Statements of Operations") == INCOME
    assert SEC_FILING.section_titled("Cash Flows from Operating Activities") == ""
    assert SEC_FILING.section_titled("Consolidated Statements of Comprehensive Income") == ""  # starts from net income
    assert SEC_FILING.section_titled("Notes to Consolidated Statements of Cash Flows") == ""
    assert SEC_FILING.section_titled("Consolidated Balance Shee t") == BALANCE_SHEET  # as PDF text splits it
    assert SEC_FILING.section_titled("Balance Sheet:") == ""  # a run-in heading of the discussion
    assert SEC_FILING.section_titled("Consolidated Balance Sheets 58") == ""  # a contents line


def test_a_context_line_gives_the_identity_and_the_innermost_heading():
    assert identity_and_heading("Northwind · Form 10-K — Item 8. Financial Statements › Consolidated Balance Sheets") == \
        ("Northwind · Form 10-K", "Consolidated Balance Sheets")
    assert identity_and_heading("Northwind · Form 10-K") == ("Northwind · Form 10-K", "")


def test_the_statement_a_line_belongs_to_is_read_first_when_the_search_is_narrowed_to_the_filing(
        make_workspace, write_text):
    ws, docs = filing(make_workspace, write_text)
    hits = ws.retriever.search("What was capital expenditure in 2024?", top_k=3, doc_ids=docs).hits
    assert "Purchases of property and equipment" in hits[0].text and hits[0].section == CASH_FLOWS
    assert not any(h.section for h in hits[1:])  # the trace says why it is there

    off, docs = filing(make_workspace, write_text, section_pin_rank=0)
    hits = off.retriever.search("What was capital expenditure in 2024?", top_k=3, doc_ids=docs).hits
    assert not any("Purchases of property and equipment" in h.text for h in hits)  # what the pin is for


def test_a_document_that_is_no_filing_is_searched_as_it_is(make_workspace, write_text):
    ws, docs = filing(make_workspace, write_text, cover="Northwind Traders annual review 2024")
    hits = ws.retriever.search("What was capital expenditure in 2024?", top_k=3, doc_ids=docs).hits
    assert not any("Purchases of property and equipment" in h.text for h in hits)
