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

# The three primary statements of a filing. Each: how its page is titled, how a question names it, and the
# lines or ratios only it (or, for a ratio, it among others) holds: accounting's vocabulary, not any one
# filing's. A question that needs a statement but does not name it ("What was capital expenditure in
# 2018?") finds its page among a hundred pages that discuss the same figure in prose.
CASH_FLOWS, BALANCE_SHEET, INCOME = "cash flows", "balance sheet", "income"
# A statement's title as a line of its own, read as letters only: PDF text splits words ("Balance Shee t"), and
# "(continued)" or "(unaudited)" may follow. A line with a figure (a contents entry's page number) or ending in a
# colon (an MD&A run-in heading, "Balance Sheet:") is no title; "Statements of Comprehensive Income" starts from
# net income and is not the income statement.
_STATEMENT_TITLES = {
    CASH_FLOWS: r"statements?ofcashflows?",
    BALANCE_SHEET: r"balancesheets?|statements?offinancial(?:position|condition)",
    INCOME: r"statements?of(?:consolidated)?(?:net)?(?:income|operations|earnings|loss)(?:loss)?"
            r"(?:andcomprehensive(?:income|loss)(?:loss)?)?",
}
_TITLED = {name: re.compile(rf"(?:consolidated|condensed|combined|interim)*(?:{title})(?:continued|unaudited)*")
           for name, title in _STATEMENT_TITLES.items()}
_NOT_LETTERS = re.compile(r"[^a-z]+")
_NAMED = {
    CASH_FLOWS: r"cash[- ]flows?\s+statements?|statements?\s+of\s+cash\s+flows?",
    BALANCE_SHEET: r"balance\s+sheets?|statements?\s+of\s+financial\s+(?:position|condition)",
    INCOME: r"income\s+statements?|statements?\s+of\s+(?:income|operations|earnings)|p\s?&\s?l|profit\s+and\s+loss",
}
_LINES = {
    CASH_FLOWS: r"capital\s+expenditures?|capex|purchases?\s+of\s+(?:property|pp&e|fixed\s+assets)|free\s+cash\s+flows?"
                r"|cash\s+(?:flows?\s+)?(?:from|provided\s+by|used\s+(?:in|by))\s+(?:operations|operating|investing|financing)"
                r"|(?:operating|investing|financing)\s+(?:activities|cash\s+flows?)|dividends?\s+paid"
                r"|(?:share|stock)\s+(?:repurchases?|buybacks?)",
    BALANCE_SHEET: r"quick\s+ratio|current\s+ratio|working\s+capital|total\s+(?:current\s+)?(?:assets|liabilities)"
                   r"|pp&e|ppne|property,?\s+plant,?\s+(?:and|&)\s+equipment|fixed\s+assets|inventor(?:y|ies)"
                   r"|cash\s+(?:and|&)\s+(?:cash\s+)?equivalents|accounts\s+(?:receivable|payable)|receivables"
                   r"|(?:shareholders|stockholders)['’]?\s+equity|total\s+debt|debt[- ]to[- ]equity"
                   r"|return\s+on\s+(?:assets|equity)|days\s+(?:payable|sales|inventory)|capital[- ]intensive",
    INCOME: r"revenues?|net\s+sales|gross\s+(?:margin|profit)|operating\s+(?:margin|income|profit)"
            r"|net\s+(?:income|earnings|profit|loss)|earnings\s+per\s+share|eps|cost\s+of\s+(?:goods\s+sold|sales|revenues?)"
            r"|cogs|sg&a|selling,?\s+general|interest\s+expense|ebit(?:da)?|turnover",
}
_ASKED = {name: re.compile(rf"\b(?:{_NAMED[name]})(?!\w)", re.IGNORECASE) for name in _NAMED}
_NEEDED = {name: re.compile(rf"\b(?:{_LINES[name]})(?!\w)", re.IGNORECASE) for name in _LINES}


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

    def sections_asked(self, question: str) -> tuple[str, ...]:
        """The statements the question names, then those whose lines it asks for, each once."""
        named = [name for name, pattern in _ASKED.items() if pattern.search(question)]
        needed = [name for name, pattern in _NEEDED.items() if pattern.search(question) and name not in named]
        return tuple(named + needed)

    def section_titled(self, heading: str) -> str:
        heading = heading.strip()
        if not heading or len(heading) > 120 or heading.endswith(":") or any(c.isdigit() for c in heading):
            return ""
        letters = _NOT_LETTERS.sub("", heading.lower())
        return next((name for name, pattern in _TITLED.items() if pattern.fullmatch(letters)), "")


SEC_FILING = SecFilingProfile()
