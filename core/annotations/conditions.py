"""The conditions a question states, read by code (issue 22, item 3): periods, bounds with units and
cell values. A query plan is then checked against this list, so a stated condition the model left out
("in 2024") is added by code or reported, never silently dropped.

Everything here is a pure function of the question (and, for values, of a table's cells).
"""
from __future__ import annotations

import os
import re
from calendar import monthrange
import dataclasses
from dataclasses import dataclass, field
from functools import lru_cache
from datetime import date, timedelta

from core.annotations.columns import FOLD_CACHE_SIZE, fold, one_letter_apart, without_accents
from core.annotations.units import convert

# a word and its other forms share most of their letters: "cancelled"/"cancellation" share 7 of 9
STEM_MIN_LENGTH = 5
STEM_SHARE = 0.7
# a word of cells names them when it is a word (4+ letters, not a header's) of at most half a column's values
PART_MIN_LENGTH = 4
PART_SHARE = 0.5
_TOTAL_CELL = re.compile(r"\s*(?:grand |sub)?totals?\b", re.I)
_CODE = re.compile(r"[A-Z]{3,5}")  # (two letters, a state's MO or a unit's KG, abbreviate too many words)
CODE_MIN_VALUES = 3  # a column of at least this many different codes, every cell one
PART_CELL_LENGTH = 40  # a name or an item, not a sentence of a summary column
_NOT_A_VALUE = set("""total totals average number count amount before after later earlier first last next previous other
another besides between during since until more less most least same different value values highest lowest
biggest largest smallest best worst top""".split())
_ASKED_NOUN = re.compile(r"\b(?:which|what|list(?: the| all)?)\s+([a-z][\w-]*)", re.I)

MONTHS = ("january february march april may june july august september october november december").split()
MONTH_ABBREVIATIONS = ("jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec")
MONTH_NAME = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
# The quarters live here too, for every reader of periods: "Q3", "the third quarter", "3rd-quarter".
QUARTER_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}
QUARTER_ORDINAL = rf"(?:{'|'.join(QUARTER_ORDINALS)})"  # a word that numbers a quarter (or a half: "second half")
# A financial year and the short names of periods, for every reader of them (the question's analysis, the answer's
# checks, table labels, a cover's period): the words before a year ("FY2019", "FY '19", "fiscal year 2019"), a
# year's kind said before "year(s)" ("fiscal years", "financial year"), a financial year written short ("FY19", a
# report's "F19 53 WEEKS" column: case matters, "f19" is no year), a quarter's and a half's short names.
# The digits of a year as every reader of periods, dates and headers matches them: 1900-2099
YEAR_DIGITS = r"(?:19|20)\d\d"
FISCAL_WORD = r"(?:fiscal|fy)"
FISCAL_YEAR = r"(?:fy\s?['’]?|fiscal\s+(?:year\s+)?)"
YEAR_KIND = r"(?:(?:fiscal|financial)\s+)"
SHORT_FISCAL_YEAR = r"\b(?-i:FY|Fy|fy|F)\s?['’]?(\d{2})\b"
QUARTER_SHORT = r"q[1-4]"
HALF_SHORT = r"h[12]"
_ORDINAL = {**QUARTER_ORDINALS, "last": 4, "final": 4}  # "the last quarter" of a year the question states
_ORDINAL_PERIOD = re.compile(rf"(?i)(?:{'|'.join(_ORDINAL)})\s+(?:quarter|half)\b")


def asked_noun(question: str) -> str | None:
    """What a "which X" / "what X" / "list the X" question asks for, in its word: "Which treatments ..." ->
    "treatments"."""
    match = _ASKED_NOUN.search(question)
    return match.group(1).lower() if match else None


# A quarter as titles and questions write it: "Q3", "2023Q3", "3Q", "third quarter", "3rd-quarter"
_QUARTER_NAMED = re.compile(rf"\bq([1-4])\b|(?<=\d)q([1-4])\b|\b([1-4])q\b"
                            rf"|\b({QUARTER_ORDINAL})[- ]quarter\b", re.I)


def quarters_in(text: str) -> set[int]:
    """The quarters a text names: "10-Q for Q3 2023", "FY2023Q3", "the third-quarter results" -> {3}."""
    return {QUARTER_ORDINALS[m.group(4).lower()] if m.group(4) else int(next(g for g in m.groups()[:3] if g))
            for m in _QUARTER_NAMED.finditer(text)}


def years_in(text: str) -> set[int]:
    """Every year a text names ("in 2024", "FY2019"), not an amount ("$2019") or a share ("2019%")."""
    return {int(y) for y in _YEAR.findall(text)}


def said_with_the(period_text: str) -> bool:
    """Whether a stated period is said with "the": "in the second quarter", but "in Q2", "in 2024", "in March"."""
    return bool(_ORDINAL_PERIOD.match(period_text))


def quarter_names(quarter: int) -> set[str]:
    """The words a label names a quarter with: {"third", "3rd", "q3"} for 3."""
    return {word for word, n in QUARTER_ORDINALS.items() if n == quarter} | {f"q{quarter}"}


def month_number(word: str) -> int | None:
    word = word.lower()[:3]
    return next((n for n, m in enumerate(MONTHS, start=1) if m.startswith(word)), None)


_MONTH_ABBREVIATIONS = {m[:3]: n for n, m in enumerate(MONTHS, start=1)} | {"sept": 9}


def month_of_cell(cell: str) -> int | None:
    """The month a cell names by itself ("March", "Mar", "Sept."), else None."""
    word = without_accents(str(cell)).lower().strip().rstrip(".")
    return MONTHS.index(word) + 1 if word in MONTHS else _MONTH_ABBREVIATIONS.get(word)


@dataclass(frozen=True)
class Period:
    """A stretch of time the question states: a year, months of a year, or days between two dates."""
    text: str  # as the question says it: "in 2024", "in the second quarter"
    year: int | None = None
    months: tuple[int, ...] = ()  # 1-12; empty: the whole year
    start: str | None = None  # ISO dates, inclusive, for a range of days
    end: str | None = None
    weekdays: tuple[int, ...] = ()  # 0 = Sunday, as SQLite's strftime('%w')


@dataclass(frozen=True)
class Bound:
    """A number the question compares with: "over 2000", "bigger than 150 hp", "no wider than 1.2 m"."""
    text: str
    op: str  # > >= < <= =
    number: float
    unit: str | None = None  # as written, lower case
    scale: str | None = None  # the scale word said after the number: "more than 5 million" million


@dataclass(frozen=True)
class CellValue:
    """A value of the table that the question names, matched ignoring case, accents and small misspellings."""
    text: str  # the question's words
    column: str  # the column holding it
    cells: tuple[str, ...]  # every stored spelling it matches ("Repair", "repair")
    stance: str = "is"  # "is not" after "not counting", "except" ...; "any" when only said to be included
    every: bool = False  # the words name all of the cells ("Year 11": forms 11A-11D), not one of them to choose


@dataclass
class StatedConditions:
    periods: list[Period] = field(default_factory=list)
    bounds: list[Bound] = field(default_factory=list)
    values: list[CellValue] = field(default_factory=list)


# --- periods ---

_QUARTER = re.compile(rf"\b(?:q([1-4])|({'|'.join(_ORDINAL)})\s+quarter)\b(?:\s+(?:of\s+)?({YEAR_DIGITS}))?", re.I)
_HALF = re.compile(rf"\b(?:h([12])|(first|second)\s+half)\b(?:\s+(?:of\s+)?({YEAR_DIGITS}))?", re.I)
_MONTH_RANGE = re.compile(rf"\b(?:(?:between|from)\s+({MONTH_NAME})\s+(?:and|to|until|through)|({MONTH_NAME})\s+(?:to|until|through|-|–))"
                          rf"\s+({MONTH_NAME})\b(?:\s+({YEAR_DIGITS}))?", re.I)
# "between 19 and 30 August", "from 3 to 9 May", "19-30 August": days of one month
_DAYS_OF_MONTH = re.compile(rf"\b(?:(?:between|from)\s+)?(\d{{1,2}})(?:st|nd|rd|th)?\s*(?:and|to|until|-|–)\s*(\d{{1,2}})(?:st|nd|rd|th)?\s+({MONTH_NAME})\b(?:\s+({YEAR_DIGITS}))?", re.I)
# "between 3 June and 9 July", "from November 27 to December 24, 2024", "Nov 27 - Dec 24": a day of one month
# to a day of another, the day on either side of its month
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_DATE = rf"(?:{_DAY}\s+(?:of\s+)?({MONTH_NAME})|({MONTH_NAME})\.?\s+{_DAY}(?![\d:]))"
_DAY_RANGE = re.compile(rf"\b(?:(?:between|from)\s+)?{_DATE}\s*(?:and|to|until|through|-|–)\s*{_DATE}\b"
                        rf"(?:,?\s+({YEAR_DIGITS}))?", re.I)
# "after April 21, 2012", "by 31 December 2024": one side of a stretch of days. ("As of December 31, 2019" is
# left to the year it names: a report's balance at that date is its 2019 column, not every year up to it.)
_DATE_EDGE = re.compile(rf"\b(on or after|on or before|after|since|from|before|until|till|by|up to)\s+"
                        rf"(?:the\s+)?{_DATE}(?!\s*(?:and|to|until|through|-|–)\s*\d)(?:,?\s+({YEAR_DIGITS}))?", re.I)
_EDGE_SHIFT = {"after": ("start", 1), "on or after": ("start", 0), "since": ("start", 0), "from": ("start", 0),
               "before": ("end", -1), "on or before": ("end", 0), "until": ("end", 0), "till": ("end", 0),
               "by": ("end", 0), "up to": ("end", 0)}
# "before September 2025", "by March", "since April 2024": one side of a stretch of whole months ("from March"
# is left to the month itself: "orders from March" are March's)
_MONTH_EDGE = re.compile(rf"\b(on or after|on or before|after|since|before|until|till|by|up to)\s+({MONTH_NAME})\b\.?"
                         rf"(?!\s*(?:and|to|until|through|-|–)\s)(?:\s+(?:of\s+)?({YEAR_DIGITS}))?", re.I)
_MONTH_EDGE_SHIFT = {"after": ("start", 1), "on or after": ("start", 0), "since": ("start", 0),
                     "before": ("end", -1), "on or before": ("end", 0), "until": ("end", 0), "till": ("end", 0),
                     "by": ("end", 0), "up to": ("end", 0)}
# "on 5 March 2024", "on March 5": one day (said with "on"; "as of December 31, 2019" is a report's year)
_ON_DAY = re.compile(rf"\bon\s+(?:the\s+)?{_DATE}(?:,?\s+({YEAR_DIGITS}))?", re.I)
# "from November 2023 to February 2024": every day between the first of the one month and the last of the other
_MONTH_YEAR_RANGE = re.compile(rf"\b(?:(?:between|from)\s+)?({MONTH_NAME})\.?\s+({YEAR_DIGITS})\s*(?:and|to|until|through|-|–)\s*"
                               rf"({MONTH_NAME})\.?\s+({YEAR_DIGITS})\b", re.I)
_MONTH_YEAR = re.compile(rf"\b({MONTH_NAME})\b\.?(?:\s+(?:of\s+)?({YEAR_DIGITS}))?", re.I)
_YEAR = re.compile(rf"(?<![\d£$€.,])({YEAR_DIGITS})(?![\d%])")
_YEAR_RANGE = re.compile(rf"\b(?:between|from)\s+({YEAR_DIGITS})\s+(?:and|to|through|until|-)\s+({YEAR_DIGITS})\b", re.I)
_YEAR_EDGE = re.compile(rf"\b(after|since|from|before|until)\s+({YEAR_DIGITS})\b(?!\s+(?:and|to|-)\s+{YEAR_DIGITS})", re.I)
# "before the end of 2025", "by the end of March 2025", "after the start of 2024": one side of a stretch, at the
# first or last day of the year or month named
_END_OR_START = re.compile(rf"\b(before|by|until|till|up\s+to|after|from|since)\s+(?:the\s+)?(end|start|beginning)\s+of\s+"
                           rf"(?:({MONTH_NAME})\.?\s+(?:of\s+)?)?({YEAR_DIGITS})\b", re.I)
_WEEKDAY = re.compile(r"\b(sun|mon|tues|wednes|thurs|fri|satur)days?\b", re.I)
_WEEKDAY_NUMBER = {"sun": 0, "mon": 1, "tues": 2, "wednes": 3, "thurs": 4, "fri": 5, "satur": 6}
# "may" is a month only where a month can stand: after in/of/during/since/until or before a year
_MAY_MONTH = re.compile(rf"\b(?:in|of|during|since|until|for|from|to|and|by)\s+may\b|\bmay\s+{YEAR_DIGITS}\b", re.I)


def periods(question: str) -> list[Period]:
    """Every stretch of time the question states, once each: a quarter, a half, a range of months or
    days, a month, a year (a year alone only when no finer period already carries it)."""
    text = question
    found: list[Period] = []
    # "over 2000" compares with a number (a bound), though it reads like a year
    used: list[tuple[int, int]] = [m.span() for m in _BOUND.finditer(text)]

    def free(match) -> bool:
        return not any(a < match.end() and match.start() < b for a, b in used)

    def take(match, period: Period) -> None:
        used.append(match.span())
        found.append(period)

    for m in _END_OR_START.finditer(text):
        take(m, _end_or_start(m))
    for m in _DAY_RANGE.finditer(text):
        g = m.groups()
        year = int(g[8]) if g[8] else None
        d1, m1 = int(g[0] or g[3]), month_number(g[1] or g[2])
        d2, m2 = int(g[4] or g[7]), month_number(g[5] or g[6])
        if m1 and m2 and 1 <= d1 <= 31 and 1 <= d2 <= 31:
            y = year or 0
            take(m, Period(m.group(0), year, (), f"{y:04d}-{m1:02d}-{d1:02d}", f"{y:04d}-{m2:02d}-{d2:02d}"))
    for m in _DATE_EDGE.finditer(text):
        g = m.groups()
        day, month = int(g[1] or g[4]), month_number(g[2] or g[3])
        if free(m) and month and 1 <= day <= 31:
            side, shift = _EDGE_SHIFT[" ".join(g[0].lower().split())]
            year = int(g[5]) if g[5] else None
            try:  # (a leap year stands in for a date with no year, so 29 February is a date)
                edge = date(year or 2000, month, day) + timedelta(days=shift)
            except ValueError:
                continue
            iso = f"{edge.year if year else 0:04d}-{edge.month:02d}-{edge.day:02d}"
            take(m, Period(m.group(0), None, (), iso if side == "start" else None, iso if side == "end" else None))
    for m in _ON_DAY.finditer(text):
        g = m.groups()
        day, month = int(g[0] or g[3]), month_number(g[1] or g[2])
        if free(m) and month and 1 <= day <= 31:
            iso = f"{int(g[4]) if g[4] else 0:04d}-{month:02d}-{day:02d}"
            take(m, Period(m.group(0), int(g[4]) if g[4] else None, (), iso, iso))
    for m in _MONTH_YEAR_RANGE.finditer(text):
        (m1, y1), (m2, y2) = (month_number(m.group(1)), int(m.group(2))), (month_number(m.group(3)), int(m.group(4)))
        if free(m) and m1 and m2 and (y1, m1) <= (y2, m2):
            take(m, Period(m.group(0), None, (), f"{y1:04d}-{m1:02d}-01",
                           f"{y2:04d}-{m2:02d}-{monthrange(y2, m2)[1]:02d}"))
    for m in _DAYS_OF_MONTH.finditer(text):
        d1, d2, month = int(m.group(1)), int(m.group(2)), month_number(m.group(3))
        if free(m) and month and 1 <= d1 <= d2 <= 31:
            y = int(m.group(4)) if m.group(4) else 0
            take(m, Period(m.group(0), y or None, (), f"{y:04d}-{month:02d}-{d1:02d}", f"{y:04d}-{month:02d}-{d2:02d}"))
    for m in _QUARTER.finditer(text):
        if free(m):
            q = int(m.group(1)) if m.group(1) else _ORDINAL[m.group(2).lower()]
            take(m, Period(m.group(0), int(m.group(3)) if m.group(3) else None, tuple(range(3 * q - 2, 3 * q + 1))))
    for m in _HALF.finditer(text):
        if free(m):
            h = int(m.group(1)) if m.group(1) else (1 if m.group(2).lower() == "first" else 2)
            take(m, Period(m.group(0), int(m.group(3)) if m.group(3) else None, tuple(range(6 * h - 5, 6 * h + 1))))
    for m in _MONTH_RANGE.finditer(text):
        if free(m):
            a, b = month_number(m.group(1) or m.group(2)), month_number(m.group(3))
            if a and b and a <= b:
                take(m, Period(m.group(0), int(m.group(4)) if m.group(4) else None, tuple(range(a, b + 1))))
    # after the month-to-month spans, whose "until June" is no edge of its own
    for m in _MONTH_EDGE.finditer(text):
        period = _month_edge(m)
        if free(m) and period:
            take(m, period)
    for m in _MONTH_YEAR.finditer(text):
        word = m.group(1).lower()
        if not free(m) or (word == "may" and not _MAY_MONTH.search(text[max(0, m.start() - 8):m.end() + 5])):
            continue
        if len(word) == 3 and word not in ("may",) and not m.group(0)[:1].isupper():
            continue  # "mar", "dec" in lower case are too often other words
        take(m, Period(m.group(0).rstrip("."), int(m.group(2)) if m.group(2) else None, (month_number(word),)))
    for m in _YEAR_RANGE.finditer(text):
        if free(m):
            take(m, Period(m.group(0), None, (), f"{m.group(1)}-01-01", f"{m.group(2)}-12-31"))
    for m in _YEAR_EDGE.finditer(text):
        if free(m):
            word, year = m.group(1).lower(), int(m.group(2))
            start = {"after": f"{year + 1}-01-01", "since": f"{year}-01-01", "from": f"{year}-01-01"}.get(word)
            end = {"before": f"{year - 1}-12-31", "until": f"{year}-12-31"}.get(word)
            take(m, Period(m.group(0), None, (), start, end))
    # "between 1800 and 1900" compares with two numbers: its 1900 alone is no year
    compared = [m.span() for m in _BETWEEN.finditer(text) if not (_is_year(m.group(2)) and _is_year(m.group(5)))]
    for m in _YEAR.finditer(text):
        if free(m) and not any(a <= m.start() and m.end() <= b for a, b in compared):
            take(m, Period(m.group(0), int(m.group(1))))
    days = tuple(sorted({_WEEKDAY_NUMBER[m.group(1).lower()] for m in _WEEKDAY.finditer(text)}))
    if days:
        found.append(Period(", ".join(m.group(0) for m in _WEEKDAY.finditer(text)), weekdays=days))
    # a bare year beside a finer period of no year is that period's year: "in March 2024" read as one
    years = [p for p in found if p.year and not p.months and not p.start and not p.weekdays]
    finer = [p for p in found if (p.months or p.start or p.end) and p.year is None]
    if len(years) == 1 and finer:
        found = [p for p in found if p is not years[0]]
        found = [Period(f"{p.text} {years[0].text}".strip(), years[0].year, p.months,
                        _with_year(p.start, years[0].year), _with_year(p.end, years[0].year))
                 if p in finer else p for p in found]
    return _months_together(found)


def _end_or_start(m: re.Match) -> Period:
    """The period "before the end of 2025" states: up to 31 December 2025; "after the start of March 2024": from 2
    March 2024. An edge before a start or after an end is the day before or after it."""
    word, edge_word, month_word, year = m.group(1).lower(), m.group(2).lower(), m.group(3), int(m.group(4))
    month = month_number(month_word) if month_word else None
    first = date(year, month or 1, 1)
    last = date(year, month or 12, monthrange(year, month or 12)[1])
    edge = last if edge_word == "end" else first
    if word in ("after", "from", "since"):
        day = edge + timedelta(days=1) if (word == "after") else edge
        return Period(m.group(0), None, (), day.isoformat(), None)
    day = edge - timedelta(days=1) if word == "before" and edge_word != "end" else edge
    return Period(m.group(0), None, (), None, day.isoformat())


def _month_edge(m: re.Match) -> Period | None:
    """The period "before September 2025" states: up to 31 August 2025. A year left unsaid is any year's
    ("0000-"), read as one with a year said elsewhere in the question."""
    word, month_word, year_text = m.group(1), m.group(2), m.group(3)
    month = month_number(month_word)
    if not month or (len(month_word) == 3 and not month_word[:1].isupper() and not year_text):
        return None  # "by mar", "after may": lower-case words more often than months
    if month_word.lower() == "may" and not (year_text or month_word[:1].isupper()):
        return None
    side, shift = _MONTH_EDGE_SHIFT[" ".join(word.lower().split())]
    year = int(year_text) if year_text else None
    first = date(year or 2000, month, 1)
    if side == "start":
        edge = first if shift == 0 else date(first.year + first.month // 12, first.month % 12 + 1, 1)
    else:
        edge = first - timedelta(days=1) if shift < 0 else date(first.year, month, monthrange(first.year, month)[1])
    if not year and edge.year != first.year:
        return None  # "after December" of no year runs into a year nobody named
    iso = f"{edge.year if year else 0:04d}-{edge.month:02d}-{edge.day:02d}"
    return Period(m.group(0), None, (), iso if side == "start" else None, iso if side == "end" else None)


def _months_together(found: list[Period]) -> list[Period]:
    """Months named side by side are one period: "in July or August" is July-August, not July and
    August both (no row is dated in two months)."""
    monthly = [p for p in found if p.months and not p.start and not p.weekdays]
    years = {p.year for p in monthly} - {None}
    if len(monthly) < 2 or len(years) > 1:
        return found  # "March 2023 and March 2024" are two periods the question compares
    merged = Period(" or ".join(p.text for p in monthly), next(iter(years), None),
                    tuple(sorted({m for p in monthly for m in p.months})))
    return [merged] + [p for p in found if p not in monthly]


def _with_year(iso: str | None, year: int) -> str | None:
    if not iso:
        return None
    month, day = int(iso[5:7]), int(iso[8:10])
    return f"{year:04d}-{month:02d}-{min(day, monthrange(year, month)[1]):02d}"  # 29 February of a common year is the 28th


# --- bounds ---

_NUMBER = r"(\d[\d,]*(?:\.\d+)?)"
# Every unit a bound may be said in; the records query reads the same list.
UNIT_PATTERN = (r"((?:sq\.?|square)\s*(?:ft\.?|feet|foot|m|met(?:re|er)s?|km|kilomet(?:re|er)s?|mi(?:les?)?)|sqm|sqft|m2|m²|"
                r"ft2|ft²|km2|km²|acres?|hectares?|ha|hp|bhp|kwp|kw|wp|w|mw|kg|g|lb|lbs|t|tonnes?|tons?|mm|cm|m|km|mi|miles?|in|inch(?:es)?|ft|feet|"
                r"l|litres?|liters?|gal(?:lons?)?|m3|m³|min(?:utes?)?|h|hrs?|hours?|days?|weeks?|years?|yrs?|p|pence|%|"
                r"percent|[kmgtp]b|(?:kilo|mega|giga|tera|peta)bytes?|[$€£]|eur|euros?|usd|dollars?|gbp|pounds?)?")
_UNIT = UNIT_PATTERN
_CURRENCY_BEFORE = r"([$€£])?"
# "more powerful than", "less expensive than": a comparative said with more/less and any adjective
_MORE_ADJ, _LESS_ADJ = r"more [a-z]{4,} than", r"less [a-z]{4,} than"
_BOUND_WORDS = [  # phrase -> op; longest first
    (rf"no (?:more|greater|bigger|larger|wider|longer|taller|heavier|higher) than|no {_MORE_ADJ}|not more than|"
     r"at or (?:below|under)|at most|up to|maximum of|a maximum of", "<="),
    (rf"no (?:less|fewer|smaller|narrower|shorter|lighter|lower) than|no {_LESS_ADJ}|not less than|at least|"
     r"at or (?:above|over)|minimum of|a minimum of", ">="),
    (rf"more than|greater than|bigger than|larger than|wider than|longer than|taller than|heavier than|higher than|"
     rf"dearer than|{_MORE_ADJ}|over|above|exceeding|exceed(?:s|ed)?|surpass(?:es|ed|ing)?|in excess of|beyond", ">"),
    (rf"less than|fewer than|smaller than|narrower than|shorter than|lighter than|lower than|cheaper than|"
     rf"{_LESS_ADJ}|under|below|beneath", "<"),
    (r"exactly|equal to", "="),
]
_BOUND = re.compile(
    r"\b(" + "|".join(p for p, _ in _BOUND_WORDS) + r")\s+(?:an?\s+|the\s+)?" + _CURRENCY_BEFORE + r"\s*" + _NUMBER
    + r"\s*" + _UNIT + r"(?![\w])", re.I)
_BETWEEN = re.compile(r"\bbetween\s+" + _CURRENCY_BEFORE + r"\s*" + _NUMBER + r"\s*" + _UNIT + r"\s+and\s+"
                      + _CURRENCY_BEFORE + r"\s*" + _NUMBER + r"\s*" + _UNIT + r"(?![\w])", re.I)


_POSTFIX_BOUND = re.compile(_CURRENCY_BEFORE + r"\s*" + _NUMBER + r"\s*" + _UNIT
                            + r"\s+(or (?:more|above|over|greater|higher|longer|bigger|heavier|wider)|and (?:up|above|over)|plus"
                            r"|or (?:less|fewer|below|under|lower|shorter|smaller|lighter|narrower))\b", re.I)


# Numbers a question writes in words ("which two customers", "more than one loaf")
NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                "ten": 10, "eleven": 11, "twelve": 12, "dozen": 12, "twenty": 20, "fifty": 50, "hundred": 100}
_TIME_COUNTS = {**NUMBER_WORDS, "a": 1, "an": 1, "a couple of": 2}  # "a week", "a couple of days", "a tonne"
_SPELLED_TIME = re.compile(r"\b(a couple of|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+"
                           r"(minutes?|hours?|days?|weeks?|years?|tonnes?|tons?|miles?|kilomet(?:re|er)s?|met(?:re|er)s?|"
                           r"lit(?:re|er)s?|kilos?|kilograms?|gallons?|foot|feet|inch(?:es)?)\b", re.I)


_SPELLED = "|".join(w for w in NUMBER_WORDS if w != "dozen")
# A number in words right after a comparison or right before "or more": "three or more bedrooms", "more than two staff"
_SPELLED_BOUND = re.compile(rf"\b((?:than|least|most|exactly|over|under|above|below)\s+)({_SPELLED})\b(?!-)"
                            rf"|\b({_SPELLED})(?=\s+or\s+(?:more|fewer|less|over|under|above|below|greater|higher|lower)\b)", re.I)


def _time_in_digits(question: str) -> str:
    """ "more than a week" as "more than 1 week", "three or more bedrooms" as "3 or more bedrooms", so a bound's
    pattern reads it."""
    question = _SPELLED_TIME.sub(lambda m: f"{_TIME_COUNTS[m.group(1).lower()]} {m.group(2)}", question)
    return _SPELLED_BOUND.sub(lambda m: (m.group(1) or "") + str(NUMBER_WORDS[(m.group(2) or m.group(3)).lower()]), question)


def bounds(question: str) -> list[Bound]:
    """The numbers a question compares with, each with its operator and unit ("over £2,000",
    "bigger than 150 hp", "between 10 and 20 kg" as two bounds, "more than a week" as over 1 week).
    A year is a period, not a bound, and so are days of a month ("between 19 and 30 August")."""
    day_ranges = [p.text for p in periods(question) if p.start]
    question = re.sub(r"\ba fortnight\b", "14 days", _time_in_digits(question), flags=re.I)
    found: list[Bound] = []
    for m in _BETWEEN.finditer(question):
        unit = (m.group(6) or m.group(3) or m.group(1) or m.group(4) or "").lower() or None
        low, high = float(m.group(2).replace(",", "")), float(m.group(5).replace(",", ""))
        if not (_is_year(m.group(2)) and _is_year(m.group(5))) and not any(m.group(0) in text for text in day_ranges):
            found += [Bound(m.group(0), ">=", low, unit), Bound(m.group(0), "<=", high, unit)]
    for m in _BOUND.finditer(question):
        if any(m.group(0) in b.text for b in found):
            continue
        phrase, number = m.group(1).lower(), m.group(3)
        op = next(o for p, o in _BOUND_WORDS if re.fullmatch(p, phrase))
        unit = (m.group(2) or m.group(4) or "").lower() or None
        found.append(Bound(m.group(0), op, float(number.replace(",", "")), unit))
    for m in _POSTFIX_BOUND.finditer(question):  # "21 inches or more", "£50 or less"
        if not any(m.group(0) in b.text or b.text in m.group(0) for b in found):
            op = "<=" if re.search(r"less|fewer|below|under|lower|shorter|smaller|lighter|narrower", m.group(4), re.I) else ">="
            unit = (m.group(1) or m.group(3) or "").lower() or None
            found.append(Bound(m.group(0).strip(), op, float(m.group(2).replace(",", "")), unit))
    # the scale word said right after the number: "more than 5 million", "exceed $2,000 thousand"
    scaled = [(b, re.search(re.escape(b.text) + r"\s*(thousand|million|billion)s?\b", question, re.I)) for b in found]
    return [dataclasses.replace(b, scale=said.group(1).lower()) if said else b for b, said in scaled]


_POSSESSIVE = r"(?:(?:their|its|his|her|our|the)\s+)?"


def label_words(label: str) -> list[str]:
    """A header's words without what it brackets ("Rated power [kW]" rated, power)."""
    return tokens(re.sub(r"[\(\[].*?[\)\]]", " ", label))


def column_bounds(question: str, labels: list[str]) -> list[tuple[str, str, str]]:
    """(text, op, label) for each comparison the question makes with a column rather than a number: "parts below
    their reorder level" ("<", Reorder level), "jobs over budget" (">", "Budget (£)"). The words after the
    comparison are the label's own words, its unit aside."""
    found = []
    for label in labels:
        words = label_words(label)
        if not words or all(w.isdigit() for w in words):
            continue
        said = r"\s+".join(rf"{re.escape(w)}s?" for w in words)
        for phrase, op in _BOUND_WORDS:
            if match := re.search(rf"\b({phrase})\s+{_POSSESSIVE}{said}\b", question, re.I):
                found.append((match.group(0), op, label))
                break
    return found


def without_bounds(question: str) -> str:
    """The question with its comparisons taken out: "more than 370 kW" says no "most"."""
    text = _time_in_digits(question)
    for pattern in (_BETWEEN, _BOUND, _POSTFIX_BOUND):
        text = pattern.sub(" ", text)
    return text


def _is_year(number: str) -> bool:
    return re.fullmatch(rf"{YEAR_DIGITS}", number) is not None


def bound_in(bound: Bound, column_unit: str | None) -> float | None:
    """The bound's number in the column's unit; None when the two units measure different things."""
    if not bound.unit or not column_unit or bound.unit in ("%", "percent"):
        return bound.number
    return convert(bound.number, bound.unit, column_unit)


# --- cell values ---

_TOKEN = re.compile(r"[a-z0-9&]+")


def tokens(text: str) -> list[str]:
    """The words of a text as a reader compares them: lower case, no accents ('Seán' -> 'sean')."""
    return list(_tokens(str(text)))


@lru_cache(maxsize=FOLD_CACHE_SIZE)
def _tokens(text: str) -> tuple[str, ...]:
    return tuple(_TOKEN.findall(without_accents(text).lower()))


def singulars(word: str) -> set[str]:
    """The forms a plural may stand for: "loaves" loaf/loafe/loave, "batteries" battery, "boxes" box."""
    forms = {word}
    if len(word) > 4 and word.endswith("ies"):
        forms.add(word[:-3] + "y")
    if len(word) > 4 and word.endswith("ves"):
        forms |= {word[:-3] + "f", word[:-3] + "fe"}
    if len(word) > 3 and word.endswith("es"):
        forms.add(word[:-2])
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        forms.add(word[:-1])
    return forms


def adjective_bases(word: str) -> set[str]:
    """The noun an adjective in -ed is made from, as a cell may name it: "tinned" tin, "bottled" bottle, "dried"
    dry, "boxed" box. Six letters at least, so that "used" or "red" is no form of "us" or "r"."""
    if len(word) < 6 or not word.endswith("ed"):
        return set()
    stem = word[:-2]
    bases = {stem, word[:-1]}
    if len(stem) > 2 and stem[-1] == stem[-2]:
        bases.add(stem[:-1])  # tinned -> tin, canned -> can
    if stem.endswith("i"):
        bases.add(stem[:-1] + "y")  # dried -> dry
    return {b for b in bases if len(b) >= 3}


def word_forms(text: str) -> set[str]:
    """Every word of `text` in every form its plural may stand for ("Job Nos" -> job, jobs, no, nos, ...)."""
    return {form for word in tokens(text) for form in singulars(word)}


# Words that name one activity, so a header's "Produced" is said by "did we make" and its "Sold" by "sales"
_ACTIVITIES = [
    {"make", "made", "making", "produce", "produced", "production", "output", "manufacture", "manufactured",
     "build", "built"},
    {"sell", "sold", "sale", "selling"},
    {"buy", "bought", "purchase", "purchased"},
    {"receive", "received", "deliver", "delivered", "delivery"},
    {"return", "returned"},
    {"ship", "shipped", "shipment", "dispatch", "dispatched"},
]


def activity_words(words) -> set[str]:
    """The other words of the activities `words` name: "make" produced, production, output, ..."""
    said = set(words)
    return {w for family in _ACTIVITIES if family & said for w in family} - said


def says_word(question_forms: set[str], word: str) -> bool:
    """The question says `word` (forms of the question's words, from `word_forms`), itself, in another tense
    ("bake" says "Baked"; "product" does not say "Produced") or as another word of its activity ("made" says
    "Produced")."""
    forms = _inflected(word)
    return bool(forms & {f for q in question_forms for f in _inflected(q)}) \
        or any(forms & family and family & question_forms for family in _ACTIVITIES)


def _inflected(word: str) -> set[str]:
    """A word without the endings of its tenses and plural: "baked" baked, bake, bak."""
    return {word} | {word[:-len(end)] for end in ("s", "d", "ed", "ing")
                     if word.endswith(end) and len(word) > len(end) + 2}


def same_word(a: str, b: str) -> bool:
    """Two words are one in another form: one the start of the other ("ask" ~ "asked") or both sharing four
    letters ("booking" ~ "booked", "spend" ~ "spent"). A word of one or two letters is the start of none."""
    common = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return min(len(a), len(b)) >= 3 and common >= min(len(a), len(b), 4)


def same_value(a: str, b: str) -> bool:
    """Two phrases name one value: the same but for case, accents and punctuation ("Dr Patel" / "Dr.
    Patel"), a plural last word ("rye loaves" / "Rye loaf"), or one letter ("canceled" / "Cancelled")."""
    fa, fb = fold(a), fold(b)
    if fa == fb or one_letter_apart(fa, fb):
        return True
    *head_a, last_a = tokens(a) or [""]
    *head_b, last_b = tokens(b) or [""]
    return head_a == head_b and bool(singulars(last_a) & singulars(last_b))


def clipped_form(short: str, whole: str) -> bool:
    """One word the clipped form of another, as office language shortens it: "maths" Mathematics, "admin"
    Administration, "temps" Temperatures. Four letters at least, and three more in the whole word, so that a word
    is not the clip of its own derivation ("rent" / "rental")."""
    a, b = tokens(short), tokens(whole)
    if len(a) != 1 or len(b) != 1:
        return False
    # (the word, or without a plural "s": "activites" cut to "activit" would clip "activities", a misspelling)
    forms = {a[0], a[0][:-1]} if a[0].endswith("s") else {a[0]}
    return any(len(s) >= 4 and b[0].startswith(s) and len(b[0]) >= len(s) + 3 for s in forms)


_FILLER = set("a an the of in on at to for from by with and or is are was were be what which who how many much did do "
              "does has have had it its this that our we us me my per each every all any than more less over under".split())


_FIGURE = re.compile(_NUMBER)


def figures(text: str) -> set[float]:
    """Every number a text writes in digits ("1,250" is 1250)."""
    return {float(n.replace(",", "")) for n in _FIGURE.findall(text)}


def named_in(value: str, question: str) -> bool:
    """Whether the question names a value a model filtered on: the value itself ("e-bikes" / "E-Bikes"), one
    of its words in another form ("completed" / "Complete", "hygienists" / "Hygienist"), or a code that
    abbreviates a word of it ("EMG" / "emergency"). "Channel is Phone" for "tickets closed in Q2" is not."""
    if fold(value) and fold(value) in fold(question):
        return True
    if figures(question) & figures(value):  # "IMDb 7.5/10" for "scored a 7.5"
        return True
    asked = [w for w in tokens(question) if w not in _FILLER]
    for word in tokens(value):
        if word in _FILLER or len(word) < 2:
            continue
        for other in asked:
            if singulars(word) & singulars(other) or _same_stem(word, other):
                return True
            if word.upper() in value and 2 <= len(word) <= 5 and len(other) > len(word) \
                    and other[0] == word[0] and _subsequence(word, other):  # (looser than `abbreviates`: the model chose it)
                return True
    return False


def _same_stem(a: str, b: str) -> bool:
    """"cancelled" / "cancellation", "complete" / "completed": a shared start of 5 letters or more that is
    most of the shorter word."""
    shared = len(os.path.commonprefix([a, b]))
    return shared >= STEM_MIN_LENGTH and shared >= STEM_SHARE * min(len(a), len(b))


def _subsequence(short: str, word: str) -> bool:
    letters = iter(word)
    return all(c in letters for c in short)


# A yes/no question ("Did the board approve the merger?"); a leading phrase does not change that ("As of Q2
# 2023, is the company spinning off a segment?").
_YES_NO = re.compile(r"^\s*(?:[^,?]{1,60},\s*)?(?:is|are|was|were|does|do|did|has|have|had|can|could|will|would|should)\b",
                     re.I)


def asks_yes_or_no(question: str) -> bool:
    return bool(_YES_NO.search(question))


def answered_yes_or_no(question: str) -> bool:
    """A yes/no question that offers no choice: "Does rank 5 have at least 290 points?" is answered yes or no,
    "Is A or B larger?" by naming one."""
    return asks_yes_or_no(question) and not re.search(r"\bor\b", question, re.I)


# The words of a question that asks for figures added up or averaged: "the total", "combined", "in all", "on
# average". A report's table prints its totals; a sum of its line items answers only a question that says so.
_ADDS_UP = re.compile(r"\btotal(?:s|led|ed)?\b|\bsum(?:s|med)?\b|\bcombined\b|\baltogether\b|\btogether\b"
                      r"|\bin\s+all\b|\boverall\b|\baggregate[sd]?\b|\bcumulative(?:ly)?\b|\baverage[sd]?\b|\bmean\b"
                      r"|\badd(?:s|ed)?\s+up\b|\bacross\s+(?:all|every|the)\b|\ball\s+(?:the\s+)?\w+\s+(?:together|combined)\b",
                      re.I)


def asks_to_add_up(question: str) -> bool:
    """Whether the question asks for figures added up or averaged: "What was the compensation expense in 2019?"
    asks for one figure, and the sum of every line of a share-plan table beside it answers nothing asked."""
    return bool(_ADDS_UP.search(question))


# What money went on, in the question's words: "spend on planned maintenance", "paid for agency cover", "the cost
# of a plumbing repair"; the phrase ends where a period, a place or another condition begins
_SPENT_ON = re.compile(r"\b(?:spen[dt]|spending|paid|pay|paying|costs?|charged|invoiced|billed|outlay|expenditure)"
                       r"(?:\s+(?:us|we|them|out|in\s+total|altogether|overall))?\s+(?:on\s+average\s+)?(?:on|for|of)\s+"
                       r"(?!(?:an?\s+|the\s+)?(?:average|mean|median|total)\b)"  # "cost us on average": how, not on what
                       r"(?P<what>[a-z][a-z&'-]*(?:\s+[a-z][a-z&'-]*)*?)\s*(?=$|[?,.;:!)]|\d|\b(?:in|during|last|this|since|"
                       r"between|from|at|by|per|for|over|under|before|after|and|or|with|so|to|than|across|on|each|every)\b)",
                       re.I)


def spent_on(question: str) -> list[str]:
    """The words saying what money was spent on ("How much did we spend on planned maintenance?" -> ["planned",
    "maintenance"]), without articles and the like; [] when the question says nothing of it."""
    found = _SPENT_ON.search(question)
    return [w for w in tokens(found.group("what")) if w not in _FILLER] if found else []


# The words of a question that counts, or may ("the total of orders", "how many", "how often", "number of");
# a yes/no is answered by counting the rows that decide it.
_COUNTS = re.compile(r"\bhow\s+(?:many|often|frequently)\b|\bnumber\s+of\b|\bcount(?:s|ed|ing)?\b|\btimes\b"
                     r"|\btotals?\b|\btall(?:y|ied)\b|\bin\s+all\b|\baltogether\b|\bamount\s+of\b", re.I)


def asks_count(question: str) -> bool:
    """Whether a count of rows can answer the question: "What is the discount rate in 2019?" asks for a figure,
    and counting the one row that holds it ("1 row with Discount rate") answers nothing asked."""
    return bool(_COUNTS.search(question)) or asks_yes_or_no(question)


_EXCLUDING = {"not", "excluding", "except", "without", "counting", "besides"}  # "not counting e-bikes", "except Olga"
_INCLUDING = {"including", "included", "incl", "plus"}  # "(e-bikes included)": no filter, the rest stay in


def _stance(before: list[str], after: list[str]) -> str:
    """Whether the question keeps a value's rows, leaves them out, or only says they are among the rest."""
    if set(before) & _EXCLUDING or " ".join(before[-2:]) in ("other than", "apart from"):
        return "is not"
    if set(before[-1:]) & _INCLUDING or set(after) & _INCLUDING:
        return "any"
    return "is"


def _stance_at(asked: list[str], start: int, length: int) -> str:
    """The stance of the value the `length` words from `start` name, read from the words around them."""
    return _stance(asked[max(0, start - 3):start], asked[start + length:start + length + 1])


def cell_values(question: str, columns: dict[str, list[str]], label_words: set[str] = frozenset()) -> list[CellValue]:
    """The cells of a table the question names. `columns` maps each text column to its distinct cells;
    `label_words` are the singular words of its headers and name, which name columns, not cells.
    - Whole values first: the longest phrase of the question (up to 4 words) that matches a cell, ignoring
      case, accents, plural and a small misspelling; a phrase matching cells of several columns is kept
      once per column (the plan or the caller decides which applies).
    - Then a word of some cells of one column ("helmets" of "Helmet Urban": "every receipt with tyres"); of two
      words in a row naming different cells of one column, the second, the phrase's head ("rent arrears").
    - Then a word a column of codes abbreviates ("emergency" EMG)."""
    asked = tokens(question)
    found, taken = _whole_values(asked, columns)
    kind = asked_noun(question)  # "which building ..." says what the rows are, no condition on them
    # a bound's unit ("more than a week") is a quantity, not a word of cells
    named = label_words | {w for b in bounds(question) if b.unit for w in tokens(b.unit)}
    free = [(start, word) for start, word in enumerate(asked) if start not in taken and _may_name_cells(word, named)
            and not (kind and word == tokens(kind)[0])]
    # a column the question already names a whole value of ("Riverside depot") is not filtered again on a
    # word ("journeys" of the row "Total journeys"); a total's row is no record of what it totals
    valued = {v.column for v in found}
    parts: dict[int, CellValue] = {}  # the values named by one word, by the word's place
    for start, word in free:
        def holding_cells(holds) -> dict[str, tuple[str, ...]]:
            return {column: held for column, cells in columns.items() if column not in valued
                    and (held := tuple(c for c in cells if len(c) <= PART_CELL_LENGTH and not _TOTAL_CELL.match(c)
                                       and holds(c)))}
        holding = holding_cells(lambda c: singulars(word) & word_forms(c))
        if not holding:  # "tinned food" of Tins: an adjective in -ed of a noun some cells hold
            holding = holding_cells(lambda c: adjective_bases(word) & word_forms(c))
        if not holding:  # "maths" of Mathematics: a word in its clipped form, where none holds it whole
            holding = holding_cells(lambda c: any(clipped_form(word, w) for w in tokens(c)))
        column, held = next(iter(holding.items())) if len(holding) == 1 else (None, ())
        if column is not None and len(held) <= PART_SHARE * len(columns[column]):
            found.append(CellValue(word, column, tuple(sorted(held)), _stance_at(asked, start, 1)))
            taken.add(start)
            parts[start] = found[-1]
    for start, head in parts.items():  # "rent arrears": the Arrears row, not also the Rent rows the modifier names
        modifier = parts.get(start - 1)
        if modifier is not None and modifier.column == head.column and not set(modifier.cells) & set(head.cells):
            found.remove(modifier)
    coded = {column: cells for column, cells in columns.items()
             if len(cells) >= CODE_MIN_VALUES and all(_CODE.fullmatch(c) for c in cells)}
    for start, word in free:
        hits = [(column, code) for column, cells in coded.items() for code in cells if abbreviates(code, word)]
        if start not in taken and len(hits) == 1:
            found.append(CellValue(word, hits[0][0], (hits[0][1],), _stance_at(asked, start, 1)))
    return found + _code_families(question, asked, taken, columns)


# the words before a number that say how much or when, not whose: "above 10", "week 10", "only 7"
_NOT_A_FAMILY = set("""above below under over only just about around nearly almost exactly least most than week weeks day
days month months hour hours minute minutes page pages""".split())


_NUMBERED_CODE = re.compile(r"0*(\d{1,2})\s*[-/]?\s*[a-z]{1,2}", re.I)  # a number and a letter or two: "11B", "7-A"


def _code_families(question: str, asked: list[str], taken: set[int], columns: dict[str, list[str]]) -> list[CellValue]:
    """"Year 11" of a column of forms 11A, 11B, 11C ...: a number said after a word names every cell that is
    that number and a letter or two, when one column holds two such cells or more and no cell is the number
    alone. The model's plan had kept one of them ("Form is 11B"). A bound's or a period's number names none."""
    said = {int(n) for text in [*(b.text for b in bounds(question)), *(p.text for p in periods(question))]
            for n in re.findall(r"\d+", text)}
    found = []
    for start, word in enumerate(asked):
        before = asked[start - 1] if start else ""
        if start in taken or not word.isdigit() or _is_year(word) or int(word) in said or not before.isalpha() \
                or len(before) < 3 or before in _FILLER or before in _NOT_A_VALUE or before in _NOT_A_FAMILY \
                or before in MONTHS or before in MONTH_ABBREVIATIONS:
            continue
        if re.search(rf"\b{before}\s+\d+\s*(?:to|through|until|-|–)\s*(?:{before}\s+)?\d+", question, re.I):
            continue  # "Year 7 to Year 11": a range of them, not two
        holding = {column: held for column, cells in columns.items() if len(held := tuple(
            c for c in cells if (m := _NUMBERED_CODE.fullmatch(c.strip())) and int(m.group(1)) == int(word))) >= 2}
        alone = any(c.strip().lstrip("0") == str(int(word)) for cells in columns.values() for c in cells)
        if len(holding) == 1 and not alone:
            (column, held), = holding.items()
            found.append(CellValue(f"{before} {word}", column, tuple(sorted(held)), _stance_at(asked, start - 1, 2), True))
    return found


def code_family_groups(question: str, columns: dict[str, list[str]]) -> tuple[str, str, tuple[str, ...]] | None:
    """"each year group (Year 7 to Year 11)" over a column of forms 7A ... 11D: the groups are the numbers the
    cells start with, named by the question's word. Returns that word as said ("Year"), the column, and the
    cells of the numbers named (a range: every number in it); None unless the question asks per that word and
    names two of its numbers or more, held by one column's coded cells and by no cell alone."""
    asked = re.search(r"\b(?:each|every|per|by)\s+(?:each\s+|every\s+)?([a-z]{3,})\b", question, re.I)
    if asked is None:
        return None
    word = asked.group(1)
    if word.lower() in _NOT_A_FAMILY or word.lower() in MONTHS:
        return None
    named: set[int] = set()
    for said in re.finditer(rf"\b({word})\s+(\d{{1,2}})(?:\s*(?:to|through|until|-|–)\s*(?:{word}\s+)?(\d{{1,2}}))?\b",
                            question, re.I):
        low, high = int(said.group(2)), int(said.group(3) or said.group(2))
        named |= set(range(low, high + 1)) if low <= high else set()
        word = said.group(1)
    if len(named) < 2:
        return None
    holding = {}
    for column, cells in columns.items():
        codes = {cell: int(m.group(1)) for cell in cells if (m := _NUMBERED_CODE.fullmatch(cell.strip()))}
        if any(cell.strip().lstrip("0") in {str(n) for n in named} for cell in cells):
            return None  # "Year 7" is a cell of its own somewhere: the number alone names it
        held = tuple(sorted(cell for cell, n in codes.items() if n in named))
        if len({codes[c] for c in held}) >= 2:
            holding[column] = held
    if len(holding) != 1:
        return None
    (column, held), = holding.items()
    return word, column, held


def _may_name_cells(word: str, named: set[str]) -> bool:
    """A word that may name some cells: not a function, ranking or period word, not short, and not a
    header's, a file's or a unit's word."""
    return not (word in _FILLER or word in _NOT_A_VALUE or len(word) < PART_MIN_LENGTH or word.isdigit()
                or singulars(word) & named or periods(word))


def _whole_values(asked: list[str], columns: dict[str, list[str]]) -> tuple[list[CellValue], set[int]]:
    """The whole cells the question's phrases name, and which of its words they take."""
    index: dict[str, list[tuple[str, str]]] = {}
    for column, cells in columns.items():
        for cell in cells:
            key = " ".join(tokens(cell))
            if key and len(key) <= 60:
                index.setdefault(key, []).append((column, cell))
    found: list[CellValue] = []
    taken: set[int] = set()
    for n in (4, 3, 2, 1):
        for start in range(len(asked) - n + 1):
            span = set(range(start, start + n))
            if span & taken:
                continue
            gram = " ".join(asked[start:start + n])
            if n == 1 and (gram in _FILLER or len(gram) < 3 or gram.isdigit()):
                continue
            hits = index.get(gram) or [(c, cell) for key, pairs in index.items() if same_value(gram, key)
                                        for c, cell in pairs]
            if not hits:
                continue
            by_column: dict[str, list[str]] = {}
            for column, cell in hits:
                by_column.setdefault(column, []).append(cell)
            # every spelling of the same value in that column ("Repair", "repair"), not only the matched one
            for column, cells in by_column.items():
                variants = {c for c in columns[column] if same_value(c, gram) or same_value(c, cells[0])}
                found.append(CellValue(gram, column, tuple(sorted(variants | set(cells))), _stance_at(asked, start, n)))
            taken |= span
    return found, taken


def abbreviates(code: str, word: str) -> bool:
    """A code stands for a word when it starts with the word's first two letters and its other letters
    follow in the word's order: EMG emergency, HYG hygienist, EXT extraction; not EXM for "extraction"."""
    short = code.lower()
    return len(word) > len(short) and word[:2] == short[:2] and _subsequence(short, word)
