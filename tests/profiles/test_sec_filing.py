"""The SEC-filing profile: a filing's form, registrant and period read off its cover, and the forms a
question names, acting on filings only. Without it the core reads the same covers as any document's."""
from __future__ import annotations

from datetime import date

from core.agents.decompose import TEMPORAL, classify_by_rules
from core.agents.router import asked_period
from core.ingest.context import CoverIdentity, cover_identity, document_identity
from core.ingest.document import LoadedDocument, Section
from core.ingest.extract import may_be_record
from core.ingest.summary import document_type
from core.profiles import active_profiles
from core.config import Settings
from core.profiles.sec_filing import SEC_FILING

SEC = (SEC_FILING,)

QUARTERLY_COVER = """UNITED STATES
SECURITIES AND EXCHANGE COMMISSION
FORM 10-Q
For the quarterly period ended March 30, 2024
Northwind Traders, Inc.
(Exact name of registrant as specified in its charter)"""

CURRENT_REPORT_COVER = """FORM 8-K
CURRENT REPORT
Date of Report (Date of earliest event reported): June 3, 2024
CONTOSO HOLDINGS PLC
(Exact name of registrant as specified in its charter)"""

UTILITY_REPORT = """Hartwell Water Ltd
Annual Report 2024
For the year ended December 31, 2024
Water put into supply rose by 2 % to 18,250 Ml."""


def pdf(text: str, filename: str = "doc.pdf") -> LoadedDocument:
    return LoadedDocument(filename, "pdf", [Section(text=text, page=1)])


def test_it_is_on_by_default_and_switched_off_by_an_empty_setting():
    assert active_profiles(Settings()) == SEC
    assert active_profiles(Settings(document_profiles=())) == ()


def test_a_filing_s_form_and_its_dated_report_are_read_by_the_profile_alone():
    assert document_identity(pdf(QUARTERLY_COVER), SEC) == "Northwind Traders, Inc. · Form 10-Q · quarter ended March 30, 2024"
    # the core still reads a company line and a stated period, as on any report's cover
    assert document_identity(pdf(QUARTERLY_COVER)) == "Northwind Traders, Inc. · quarter ended March 30, 2024"
    assert document_identity(pdf(CURRENT_REPORT_COVER), SEC) == "CONTOSO HOLDINGS PLC · Form 8-K · report dated June 3, 2024"
    assert document_identity(pdf(CURRENT_REPORT_COVER)) == "CONTOSO HOLDINGS PLC"


def test_the_form_is_read_back_from_an_identity_line_only_by_the_profile():
    identity = document_identity(pdf(CURRENT_REPORT_COVER), SEC)
    assert cover_identity(identity, SEC) == CoverIdentity("CONTOSO HOLDINGS PLC", "8-K", "report dated", date(2024, 6, 3))
    assert cover_identity(identity) == CoverIdentity()


def test_a_report_whose_cover_states_no_form_is_read_the_same_with_the_profile_or_without():
    assert document_identity(pdf(UTILITY_REPORT), SEC) == document_identity(pdf(UTILITY_REPORT)) \
        == "Hartwell Water Ltd · year ended December 31, 2024"
    assert document_type(pdf(UTILITY_REPORT), SEC).name == document_type(pdf(UTILITY_REPORT)).name == "Annual report"


def test_a_form_in_the_file_name_types_the_document_and_a_filing_is_no_invoice():
    filing = pdf("CURRENT REPORT\nTotal revenue $4,120", filename="ACME_2023_8K.pdf")
    assert document_type(filing, SEC).name == "Current report (8-K)"
    assert not may_be_record(filing, SEC)
    assert may_be_record(filing)  # the core knows no 8-K: it may be a record, as any printed total


def test_a_question_s_form_narrows_only_with_the_profile():
    assert asked_period("What was the gross margin in the latest 10-Q?", SEC).form == "10-Q"
    assert asked_period("What was the gross margin in the latest 10-Q?", SEC).latest
    assert asked_period("What was the gross margin in the latest 10-Q?").form == ""
    assert not asked_period("How did margins in the latest 10-Q compare with these 10-Qs?", SEC).latest
    assert asked_period("What was the gross margin in the latest report?").latest  # any document's words


def test_previous_forms_ask_about_change_over_time_with_the_profile():
    question = "How do the margins stack up against the previous 10-Qs?"
    assert classify_by_rules(question, SEC)[0] == TEMPORAL
    assert classify_by_rules("How do the margins stack up against the previous reports?")[0] == TEMPORAL
