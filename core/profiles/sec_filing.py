"""The SEC-filing profile: US public companies' filings (10-K, 10-Q, 8-K, 20-F, ...) and their earnings
releases. Their covers state the form in capitals ("FORM 10-Q") and the registrant above "(Exact name of
registrant as specified in its charter)"; an 8-K gives its "Date of Report"; a release headlines its
"second quarter 2023 results". Questions name the forms ("the most recent 10-Q", "these 10-Ks").

Read off the FinanceBench and Docugami filings (docs/retrieval.md); nothing here acts on a document whose
cover states no form, so other documents are read by the core's rules alone.
"""
from __future__ import annotations

import re
from datetime import date

from core.annotations.conditions import FISCAL_YEAR, QUARTER_ORDINAL
from core.annotations.documents import COVER_DATE, parse_date
from core.profiles import DocumentType

NAME = "sec_filing"

# A cover sets the form in capitals ("FORM 10-Q") or on a line of its own ("Form 10-K"); a
# release that cites "our quarterly report on Form 10-Q" in a sentence is not one.
_FORM_NUMBER = r"(10-K|10-Q|8-K|20-F|6-K|40-F)"
_FORM = re.compile(r"\bFORM\s+" + _FORM_NUMBER + r"\b|^\s*Form\s+" + _FORM_NUMBER + r"\s*$", re.MULTILINE)
_REPORT_DATE = re.compile(r"date\s+of\s+report[^:]{0,60}:\s*" + COVER_DATE, re.IGNORECASE)
_QUARTER_RESULTS = re.compile(
    rf"\b({QUARTER_ORDINAL})[- ]quarter(?:\s+(?:of\s+)?{FISCAL_YEAR}?(\d{{4}}))?[^\n]{{0,40}}\bresults\b"
    rf"|\b{FISCAL_YEAR}?(\d{{4}})\s+({QUARTER_ORDINAL})[- ]quarter\b[^\n]{{0,40}}\bresults\b",
    re.IGNORECASE)
_REGISTRANT = re.compile(r"^\s*\(?exact name of (?:the )?registrant", re.IGNORECASE)
_SPACES = re.compile(r"\s+")
COVER_FORM_CHARS = 1500  # the form is stated at the top of the cover, not in a later "see our Form 10-K"

_IDENTITY_FORM = re.compile(r"\bForm\s+" + _FORM_NUMBER + r"\b|\b(earnings release)\b")
_IDENTITY_REPORT = re.compile(r"(?:^| · )report dated " + COVER_DATE)
_FORM_ASKED = re.compile(r"\b10-?([qk])s?\b", re.IGNORECASE)


class SecFilingProfile:
    name = NAME
    document_types = (
        DocumentType(r"\b10-?k\b", "Annual report (10-K)",
                     "yearly financial results, risks, business overview", may_hold_records=False),
        DocumentType(r"\b10-?q\b", "Quarterly report (10-Q)",
                     "quarterly financial results and changes", may_hold_records=False),
        DocumentType(r"\b8-?k\b", "Current report (8-K)", "announced events and press releases",
                     may_hold_records=False),
    )
    form_words = r"10-?[qk]s?"
    plural_forms = r"10-?qs|10-?ks"

    def cover_form(self, cover: str) -> str:
        match = _FORM.search(cover[:COVER_FORM_CHARS])
        if match:
            return f"Form {(match.group(1) or match.group(2)).upper()}"
        return "earnings release" if _QUARTER_RESULTS.search(cover[:COVER_FORM_CHARS]) else ""

    def cover_owner(self, lines: list[str]) -> str:
        for i, line in enumerate(lines):
            if _REGISTRANT.match(line):
                name = next((x for x in reversed(lines[max(0, i - 3):i]) if x and not x.startswith("(")), "")
                name = re.split(r"_{3,}", name)[-1].strip()  # rules drawn with underscores share its line
                if 2 <= len(name) <= 60:
                    return _SPACES.sub(" ", name)
        return ""

    def cover_period(self, cover: str) -> str:
        match = _REPORT_DATE.search(cover)
        if match:
            return f"report dated {_SPACES.sub(' ', match.group(1))}"
        match = _QUARTER_RESULTS.search(cover[:COVER_FORM_CHARS])
        if match:
            quarter = (match.group(1) or match.group(4)).lower()
            year = match.group(2) or match.group(3)
            return f"{quarter} quarter {year}" if year else f"{quarter} quarter"
        return ""

    def identity_form(self, identity: str) -> str:
        form = _IDENTITY_FORM.search(identity)
        return (form.group(1) or form.group(2)) if form else ""

    def identity_period(self, identity: str) -> tuple[str, date | None]:
        report = _IDENTITY_REPORT.search(identity)
        return ("report dated", parse_date(report.group(1))) if report else ("", None)

    def form_asked(self, question: str) -> str:
        form = _FORM_ASKED.search(question)
        return f"10-{form.group(1).upper()}" if form else ""


SEC_FILING = SecFilingProfile()
