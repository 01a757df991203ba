"""Where a chunk is: the document's identity and the section heading in force at its first line.

Forty filings that all say "net sales increased" differ only in who and when, and a page of a
statement that never repeats the company's name is found by it only if its chunks say it. So
every chunk's indexed text starts with "Apple Inc. · Form 10-Q · quarter ended July 1, 2023"
(read from the cover page; the form and the registrant by the SEC-filing profile, core/profiles)
and its nearest heading ("Item 2. Management's Discussion ...").
Both come from plain text with rules that fail quietly: a document they cannot read gets no
identity, never a wrong one from another document.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from core.annotations.conditions import MONTH_NAME, YEAR_DIGITS, YEAR_KIND
from core.annotations.documents import COVER_DATE, parse_date
from core.ingest.document import LoadedDocument, Section
from core.profiles import DocumentProfile

# "For the fiscal year ended September 30, 2023": a report's own statement of its period.
_PERIOD = re.compile(
    rf"for\s+the\s+(quarterly\s+period|{YEAR_KIND}?year|period)\s+ended\s*:?\s*" + COVER_DATE, re.IGNORECASE)
_SUFFIX = r"(?:Inc\.?|Incorporated|Corporation|Corp\.?|Company|Co\.|plc|Ltd\.?|Limited|N\.V\.|S\.A\.|AG|SE|LLC)"
_COMPANY_LINE = re.compile(r"^[\w&'’.,-]+(?:\s+[\w&'’.,-]+){0,5}?,?\s+" + _SUFFIX + r",?$", re.IGNORECASE)
# In a sentence ("PepsiCo, Inc. (NASDAQ: PEP) today reported"): capitalised words before the suffix.
_COMPANY = re.compile(r"\b((?:[A-Z0-9][\w&'.-]*,?\s+){0,4}?[A-Z0-9][\w&'.-]*,?\s+" + _SUFFIX + r")(?=\W)")
# Cover-page phrases that end like a company name but are not one.
_NOT_A_COMPANY = re.compile(r"\b(?:reporting|growth|shell|holding|investment)\s+company\b", re.IGNORECASE)
_SPACES = re.compile(r"\s+")

MAX_HEADING_CHARS = 90  # the prefix is embedded with the chunk: it must leave the chunk its room


def document_identity(document: LoadedDocument, profiles: Sequence[DocumentProfile] = (),
                      max_chars: int = 120) -> str:
    """"Apple Inc. · Form 10-Q · quarter ended July 1, 2023" from the first pages; "" if unsure. The
    form, and an owner or period said only the way one kind of document says them, come from the
    domain profiles that recognise the cover."""
    cover = "\n".join(s.text for s in document.sections[:2] if not s.is_table)[:6000]
    if not cover.strip():
        return ""
    form = next((f for p in profiles if (f := p.cover_form(cover))), "")
    parts = [p for p in (_company(cover, profiles), form, _period(cover, profiles)) if p]
    return " · ".join(parts)[:max_chars]


def _company(cover: str, profiles: Sequence[DocumentProfile]) -> str:
    lines = [line.strip() for line in cover.splitlines()]
    owner = next((o for p in profiles if (o := p.cover_owner(lines))), "")
    if owner:
        return owner
    for line in lines[:60]:
        if _COMPANY_LINE.match(line) and not _NOT_A_COMPANY.search(line):
            return _SPACES.sub(" ", line)
    for match in _COMPANY.finditer(cover[:3000]):
        if not _NOT_A_COMPANY.search(match.group(1)):
            return _SPACES.sub(" ", match.group(1)).strip(" ,")
    return ""


def _period(cover: str, profiles: Sequence[DocumentProfile]) -> str:
    match = _PERIOD.search(cover)
    if match:
        kind = _SPACES.sub(" ", match.group(1).lower())
        kind = {"quarterly period": "quarter"}.get(kind, kind)
        return f"{kind} ended {_SPACES.sub(' ', match.group(2))}"
    return next((period for p in profiles if (period := p.cover_period(cover))), "")


# --- who a document is and what it covers, read back from its identity ----------------------------

_IDENTITY_PERIOD = re.compile(r"(?:^| · )(quarter|fiscal year|year|period) ended " + COVER_DATE)


@dataclass(frozen=True)
class CoverIdentity:
    """Who a filing is and what it covers, typed: the registrant's name, its form ("10-Q",
    "10-K", "8-K", "earnings release"), the kind of period ("quarter", "fiscal year", "report
    dated") and the period's last day."""
    company: str = ""
    form: str = ""
    kind: str = ""
    end: date | None = None


def cover_identity(context: str, profiles: Sequence[DocumentProfile] = ()) -> CoverIdentity:
    """The identity part of a chunk's context line ("Apple Inc. · Form 10-Q · quarter ended July
    1, 2023 — Item 2 …") read back typed; the heading after " — " is never read, so a statement
    heading "Year Ended December 31" does not pass for the cover's period. The company is taken
    only from an identity that also states a form or a period (a cover's, not a heading)."""
    identity = context.split(" — ", 1)[0]
    form_name = next((f for p in profiles if (f := p.identity_form(identity))), "")
    kind, end = "", None
    period = _IDENTITY_PERIOD.search(identity)
    if period:
        kind, end = period.group(1), parse_date(period.group(2))
    else:
        kind, end = next((read for p in profiles if (read := p.identity_period(identity))[0]), ("", None))
    parts = identity.split(" · ")
    company = parts[0] if len(parts) > 1 and (form_name or kind) else ""
    return CoverIdentity(company, form_name, kind, end)


# --- headings ------------------------------------------------------------------------------------

_ITEM = re.compile(r"^(?:PART\s+[IV]+\b.*|ITEM\s+\d+[A-Z]?\.?(?:\s|$).*)", re.IGNORECASE)
_NOTE = re.compile(r"^(?:NOTE\s+\d+\b|\d{1,2}\.\s+[A-Z]).*")
_ENDS_LIKE_PROSE = re.compile(r"[.,;]$|\d$")
_SMALL_WORDS = {"a", "an", "and", "as", "at", "by", "for", "from", "in", "of", "on", "or", "the", "to", "with"}
# "Ops Committee Meeting of 12 February 2025": a title dated by its day; the date is what ends it, not a figure
_DAY_DATE_AT_END = re.compile(rf"\s(?:\d{{1,2}}(?:st|nd|rd|th)?\s+{MONTH_NAME}\.?|{MONTH_NAME}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?)"
                              rf"\s+{YEAR_DIGITS}$", re.IGNORECASE)
# a table's period heads and a balance's date read like dated titles: "Three Months Ended 30 June 2024", "As of ..."
_DATED_ROW_HEAD = re.compile(r"\b(?:ended|ending|through|as\s+of|at|balance)\b", re.IGNORECASE)


def _normal(line: str) -> str:
    return re.sub(r"\d+", "#", " ".join(line.split())).lower()


def _boilerplate(sections: list[Section]) -> set[str]:
    """Lines repeated on many pages (running heads, "Table of Contents", page footers)."""
    pages = [s for s in sections if not s.is_table]
    counts: Counter[str] = Counter()
    for s in pages:
        counts.update({_normal(line) for line in s.text.splitlines() if line.strip()})
    floor = max(3, len(pages) // 5)
    return {line for line, n in counts.items() if n >= floor}


def is_heading(line: str) -> bool:
    """A line set as a heading: "Item 2. ...", "Note 5 - Debt", or a short title-cased or
    upper-case line that does not end like a sentence or a table row."""
    line = " ".join(line.split())
    if not line or "|" in line or line.startswith("(") or "☐" in line or "☒" in line:
        return False
    if _ITEM.match(line) or (_NOTE.match(line) and len(line.split()) <= 12 and not _numbered_sentence(line)):
        return True
    if len(line) > MAX_HEADING_CHARS:
        return False
    dated = _DAY_DATE_AT_END.search(line)
    title = line[:dated.start()].rstrip(" ,:–-") if dated and not _DATED_ROW_HEAD.search(line) else line
    words = re.findall(r"[A-Za-z][\w'’&-]*", title)
    if not 1 <= len(words) <= 10 or _ENDS_LIKE_PROSE.search(title) or len(words) < len(title.split()) / 2:
        return False
    capitalised = [w for w in words if w[0].isupper()]
    return len(capitalised) == len(words) or all(w[0].isupper() or w.lower() in _SMALL_WORDS for w in words)


def _numbered_sentence(line: str) -> bool:
    """"3. The committee approved the revised budget.": a numbered point of minutes, not a numbered heading."""
    return line.endswith(".") and len(line.split()) >= 5  # the number and at least four words


def heading_marks(sections: list[Section]) -> list[list[str | None]]:
    """For each section, for each of its lines ("\\n"-split), the heading in force there: the
    latest heading line at or above it, carried across pages; the enclosing "Item"/"Part"
    heading is kept in front of a sub-heading ("Item 2. MD&A › Segment results")."""
    skip = _boilerplate(sections)
    top: str | None = None
    sub: str | None = None
    marks: list[list[str | None]] = []
    for section in sections:
        lines = section.text.split("\n")
        if section.is_table:  # a PDF table sits under the page's heading in force; a sheet under none
            in_force = " › ".join(h[:MAX_HEADING_CHARS] for h in (top, sub) if h) or None
            marks.append([in_force if section.head else None] * len(lines))
            continue
        current: list[str | None] = []
        for raw in lines:
            line = " ".join(raw.split())
            if line and _normal(line) not in skip and is_heading(line):
                if _ITEM.match(line):
                    top, sub = line, None
                else:
                    sub = line
            heading = " › ".join(h[:MAX_HEADING_CHARS] for h in (top, sub) if h) or None
            current.append(heading)
        marks.append(current)
    return marks


# --- the indexed text ------------------------------------------------------------------------------

def context_line(identity: str, heading: str | None) -> str:
    """"Apple Inc. · Form 10-Q · quarter ended July 1, 2023 — Item 2. Management's Discussion"."""
    return " — ".join(p for p in (identity, heading) if p)


def identity_and_heading(context: str) -> tuple[str, str]:
    """A context line read back: (identity, the innermost heading's first line; a table's heading goes on with
    its header rows), "" for a part it lacks. A line of one part is taken as the identity ("Item 8. … ›
    Balance Sheets" with no identity reads as an identity, which states no form, so no profile acts on it)."""
    identity, sep, heading = context.rpartition(" — ")
    return (identity, heading.rpartition(" › ")[2].split("\n", 1)[0].strip()) if sep else (context, "")


def without_repeated_heading(context: str, text: str) -> str:
    """The context line without its heading when the text itself opens with that heading (a section's
    first chunk): "Mounting" above "Mounting\nUse the clamps…" would show the heading twice."""
    identity, _, heading = context.rpartition(" — ")
    first_line = text.lstrip().split("\n", 1)[0].strip()
    return identity if heading and heading.strip() == first_line else context


def compose_index_text(header: str, context: str, text: str) -> str:
    """What is embedded and keyword-indexed: a header naming the file and page, the context line
    (when there is one), then the chunk's own text. `context_of` reads the context back."""
    return "\n".join(p for p in (header, context, text) if p)


def context_of(index_text: str, text: str) -> str:
    """The context line of an indexed text composed by `compose_index_text` ("" if it has none)."""
    if not text or not index_text.endswith(text):
        return ""
    prefix = index_text[: len(index_text) - len(text)].rstrip("\n")
    return prefix.split("\n", 1)[1] if "\n" in prefix else ""
