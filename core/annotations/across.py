"""Figures of one row across columns: a report's table has its items as rows and its years as columns,
so "the change in trade receivables from 2018 to 2019" or "the average of X for 2018 and 2019" is
arithmetic over cells of one row, which no aggregate over a column says (issue 23, item 2).

The question states the years; code finds the columns they name, reads the operation from the
question's words and computes it. The model's part is the row (a filter on the label column).
"""
from __future__ import annotations

import re

from core.annotations.conditions import (YEAR_DIGITS, MONTH_ABBREVIATIONS, MONTHS, SHORT_FISCAL_YEAR, YEAR_KIND,
                                         quarter_names, tokens)

# What a question asks of a row's figures, by its words; the first that matches decides (a "percentage
# change" is no plain change).
OPERATIONS = [
    ("percent change", re.compile(r"(?:\bpercent(?:age)?|%)\s*(?:change|increase|decrease|growth|decline|rise|fall)\b"
                                  r"|\bgrowth rate\b|\bby (?:what|how much) (?:percent|%)", re.I)),
    ("change", re.compile(r"\b(?:chang(?:e|ed|es)|increas(?:e|ed|es)|decreas(?:e|ed|es)|difference|grow|grew|grown|growth|"
                          r"declin(?:e|ed)|rise|rose|risen|fall|fell|fallen|drop(?:ped)?|variance|variation|"
                          r"(?:go|goes|went|gone|come|comes|came)\s+(?:up|down))\b", re.I)),
    ("average", re.compile(r"(?<!weighted[ -])\b(?:average|mean)\b", re.I)),  # (a weighted average is a row's name)
    ("sum", re.compile(r"\b(?:total|sum|combined|altogether|in all)\b", re.I)),
]
EACH = "each"  # no operation: the row's figure in each year the question states
WHICH_YEAR, HOW_MANY_YEARS = "which year", "how many years"  # answered by the year columns themselves
_WHICH_YEAR = re.compile(rf"\b(?:in )?(?:which|what) (?:{YEAR_KIND}?years?|fy)\b", re.I)  # "Which FY has ..."
_HOW_MANY_YEARS = re.compile(rf"\bhow many (?:of the )?{YEAR_KIND}?years\b", re.I)
_LOWEST = re.compile(r"\b(?:smaller|smallest|lower|lowest|less|least|fewer|fewest|minimum|decreas\w*)\b", re.I)
_HIGHEST = re.compile(r"\b(?:larger|largest|bigger|biggest|higher|highest|more|most|greater|greatest|maximum|increas\w*)\b",
                      re.I)
# A financial year written over two calendar years ("2018/2019", "2018/19") is one period: a column headed so
# and a question stating it are matched whole, not as two years
_PERIOD = re.compile(rf"(?<!\d)({YEAR_DIGITS})(?:\s*/\s*({YEAR_DIGITS}|\d{{2}}))?(?!\d)")


_SHORT_FY = re.compile(SHORT_FISCAL_YEAR)  # "FY19", "F19", "FY '19" is 2019
_QUARTER_WORDS = set().union(*(quarter_names(q) for q in range(1, 5)))


def periods_in(text: str) -> list[str]:
    """The years and financial years a text states, in its order: "EBIT 2018/19 against 2017" ->
    ["2018/2019", "2017"]; "F19 and F18" -> ["2019", "2018"]."""
    found = []
    text = _SHORT_FY.sub(lambda m: f"{19 if int(m.group(1)) >= 50 else 20}{m.group(1)}", text)
    for match in _PERIOD.finditer(text):
        first, second = match.group(1), match.group(2)
        if second and int(second[-2:]) == (int(first) + 1) % 100:
            found.append(f"{first}/{int(first) + 1}")
        else:
            found += [first, *([second] if second and len(second) == 4 else [])]
    return found


# "the change in X between 2018 and 2019 as a percentage of the 2018 X" is the percentage change, when the whole it
# is a percentage of is the earlier year's figure (or no year is said of it)
_CHANGE_AS_SHARE = re.compile(r"\b(?:change|increase|decrease|difference)\b.{0,120}?\bas\s+an?\s+(?:percent(?:age)?|"
                              r"proportion|share)\s+of\b(?P<whole>.*)$", re.I)


def operation_asked(question: str) -> str | None:
    if _HOW_MANY_YEARS.search(question):
        return HOW_MANY_YEARS
    if _WHICH_YEAR.search(question):
        return WHICH_YEAR
    if (share := _CHANGE_AS_SHARE.search(question)) and (years := periods_in(question)):
        whole = periods_in(share.group("whole"))
        if not whole or whole == [min(years)]:
            return "percent change"
    return next((name for name, words in OPERATIONS if words.search(question)), None)


def year_columns(columns: list) -> list:
    """Every number column a single year heads, oldest first: what "which year" chooses among."""
    return in_time_order([c for c in columns if c.kind == "number" and len(periods_in(c.label)) == 1
                          and (c.unit or "") != "%"])


def years_chosen(operation: str, question: str, values: list, labels: list[str], bound) -> list[str] | int | None:
    """ "In which year was X larger?" -> the year of the highest figure; with a stated bound ("less than
    50%"), the years whose figure meets it; "how many years ... exceeded $5,000" -> how many meet it; with
    neither ("which years does the table show?"), the years with a figure."""
    pairs = [(v, label) for v, label in zip(values, labels) if v is not None]
    sign = _SIGN.search(question)
    if bound is None and sign is not None:  # "In which year was X negative?": a bound at zero
        meets = [label for v, label in pairs if (v < 0 if sign.group(1).lower() == "negative" else v > 0)]
        return len(meets) if operation == HOW_MANY_YEARS else meets
    if bound is not None:
        meets = [label for v, label in pairs if _meets(v, bound.op, bound.number)]
        return len(meets) if operation == HOW_MANY_YEARS else meets
    if operation == HOW_MANY_YEARS or not pairs:
        return None
    highest, lowest = bool(_HIGHEST.search(question)), bool(_LOWEST.search(question))
    if not highest and not lowest:  # "For which years is X given?": every year with a figure
        return [label for _, label in pairs]
    best = (max if highest else min)(pairs, key=lambda p: p[0])
    return [best[1]]


# (said of the figure, not of a noun after it: "negative?" but not "a positive impact")
_SIGN = re.compile(r"\b(negative|positive)\b(?!\s*[a-z])", re.I)


def _meets(value: float, op: str, number: float) -> bool:
    return {">": value > number, ">=": value >= number, "<": value < number, "<=": value <= number,
            "=": value == number}.get(op, False)


def stated_years(question: str) -> list[str]:
    """The years a question states, in its order: "from 2018 to 2019" -> ["2018", "2019"]; "2017-2019" is
    the three years of the span, and so is "the average ... from 2017 to 2019" or "from 2017 to 2019, how many of the
    years ..." (a change from one year to another is between those two); "2019 to 2017" is the same span, latest
    first."""
    span = re.search(rf"(?<![\d/])({YEAR_DIGITS})\s*(?:-|–|to|through)\s*({YEAR_DIGITS})(?![\d/])", question)
    years = list(dict.fromkeys(periods_in(question)))
    first, last = (int(span.group(1)), int(span.group(2))) if span else (0, 0)
    if span and 0 < abs(last - first) <= 5 and (
            not re.search(r"\bfrom\s+" + span.group(1), question, re.I)
            or operation_asked(question) in ("average", "sum", HOW_MANY_YEARS, WHICH_YEAR)):
        step = 1 if last > first else -1  # "for 2019 to 2017 respectively": every year, in the order said
        between = [str(y) for y in range(first, last + step, step)]
        years = list(dict.fromkeys([*between, *years]))
    return years


def columns_for_years(years: list[str], columns: list, percent: bool = False) -> list | None:
    """The number column each stated year names, one each (a "2019 in %" twin beside "2019" is not the
    figure, unless `percent`: the question asks for a percentage); None unless every year names exactly one. A
    financial year is named by the year it ends in: "FY2019" is the column "2018/2019" of a table that has no
    column "2019"."""
    found = []
    for year in years:
        named = _headed_by(year, columns)
        plain = [c for c in named if ((c.unit or "") == "%") == percent] or named
        if len(plain) > 1:  # "2024/25" over "Q1 | Q2 | Q3 | Q4 | Year": the year's own column
            plain = [c for c in plain if not names_a_quarter(c.label)] or plain
        if len(plain) != 1:
            return None
        found.append(plain[0])
    return found


def names_a_quarter(label: str) -> bool:
    """A header that names a quarter of its year: "2024/25 Q3", "Third Quarter 2019"."""
    return bool(set(tokens(label)) & _QUARTER_WORDS)


def _headed_by(year: str, columns: list) -> list:
    """The number columns a year heads ("2019", "2019 £m"; a financial year "2018/2019" for "2019" where no
    column is headed "2019")."""
    named = [c for c in columns if c.kind == "number" and periods_in(c.label) == [year]]
    if not named and "/" not in year:
        named = [c for c in columns if c.kind == "number" and len(periods := periods_in(c.label)) == 1
                 and periods[0].endswith(f"/{year}")]
    return named


def years_head_columns(text: str, columns: list) -> bool:
    """Every year the text states heads a number column (one or several): the years are columns, not dates."""
    years = stated_years(text)
    return bool(years) and all(_headed_by(year, columns) for year in years)


_PERCENT_ASKED = re.compile(r"\bpercent(?:age)?\b|%", re.I)


def years_named(text: str, columns: list) -> list | None:
    """The columns the years a text states name, one each (columns_for_years of stated_years). Where a year heads
    several figure columns ("2019 Number of shares | 2019 Weighted average price"), the one whose other words the
    text shares most, when one does."""
    years = stated_years(text)
    # "the percent of total sales from APAC" reads the "% of Total" column under each year, not the Net Sales
    found = columns_for_years(years, columns, percent=bool(_PERCENT_ASKED.search(text)) and not OPERATIONS[0][1].search(text))
    if found is not None or not years:
        return found
    asked = _header_words(text)

    def shared(column) -> int:
        return len(_header_words(_PERIOD.sub(" ", _SHORT_FY.sub(" ", column.label))) & asked)

    chosen = []
    for year in years:
        named = sorted(_headed_by(year, columns), key=shared, reverse=True)
        if not named or shared(named[0]) == 0 or (len(named) > 1 and shared(named[1]) == shared(named[0])):
            return None
        chosen.append(named[0])
    return chosen


def year_of(column) -> str:
    """The year a year column's header states ("2019 £m" -> "2019", "2018/19" -> "2018/2019")."""
    return periods_in(column.label)[0]


def in_time_order(columns: list) -> list:
    """Earliest first, so a change is the later figure minus the earlier one, as reports state it."""
    return sorted(columns, key=year_of)


def compute(operation: str, values: list[float]) -> float | None:
    """The operation over a row's figures in time order; None when a figure is missing or a percentage
    change starts from zero."""
    if not values or any(v is None for v in values):
        return None
    if operation == EACH:
        return None
    if operation == "sum":
        return sum(values)
    if operation == "average":
        return sum(values) / len(values)
    first, last = values[0], values[-1]
    if operation == "change":
        return last - first
    if operation == "percent change":
        return percent_change(first, last)
    return None


def percent_change(first: float, last: float) -> float | None:
    """From one figure to the next, in percent of the first; between two negatives, of their size (cash used
    growing from (20,876) to (97,727) is up 368 %, as reports and TAT-QA's answers say it), across zero of the
    first's size. None from zero."""
    if first == 0:
        return None
    return (last - first) / (first if last < 0 and first < 0 else abs(first)) * 100 + 0.0  # (+0.0: no "-0.00 %")


# Words that name no row: question and operation words, and the years themselves.
_NOT_ROW_WORDS = set("""a an the of in on at to for from by with and or is are was were be been what which who how
much many did do does has have had its this that these those there their than between over during year years
fiscal ended ending average mean total sum combined change increase decrease difference growth rate respective
respectively value amount figure figures company group""".split())
# The operation a question asks for, said before its row: "percentage change in total revenue" names no row
# "Percentage of revenue"; a row's own "percentage" is a word of its name
_OPERATION_PHRASE = re.compile(r"(?:\bpercent(?:age)?|%)\s+(?:change|increase|decrease|growth|rise|fall|drop)\b"
                               r"|\bas\s+an?\s+percent(?:age)?\s+of\b|\bin\s+percent(?:age)?\b", re.I)


_TOTAL = re.compile(r"^\s*total\b", re.I)
_SUBTOTAL = re.compile(r"^\s*(?:sub)?total\b", re.I)
_TOTAL_ASKED = re.compile(r"\btotal\b", re.I)


def is_total_label(label: str, or_subtotal: bool = False) -> bool:
    """A row label that starts with "Total" ("Total", "Total operating expense"), or with `or_subtotal` also
    "Subtotal"."""
    return bool((_SUBTOTAL if or_subtotal else _TOTAL).match(label))


# A year's end said beside the year ("the 2018 year end", "year-end 2019", "end of 2019") is the period, not a
# row "At end of the year"; a label's pointer to its note ("Disposals (Note (c))") is no word of its name
_YEAR_END = re.compile(rf"\b(?:{YEAR_DIGITS}\s+{YEAR_KIND}?year[\s-]+end(?:ed|ing)?"
                       rf"|year[\s-]+end(?:ed|ing)?\s+{YEAR_DIGITS}|end\s+of\s+{YEAR_KIND}?{YEAR_DIGITS})\b", re.I)
_NOTE_POINTER = re.compile(r"\(\s*notes?\b(?:[^()]|\([^()]*\))*\)", re.I)


def _stems(text: str) -> set[str]:
    text = _NOTE_POINTER.sub(" ", _YEAR_END.sub(" ", text))
    return {w[:5] for w in re.findall(r"[a-z][a-z0-9]+", text.lower()) if w not in _NOT_ROW_WORDS}


# Words that speak of the document rather than of a row: "Which years does the table provide information for X?"
# and the periods and persons any question has ("in December", "our")
_ABOUT_THE_PAGE = {w[:5] for w in [*"""table tables provide provided provides information shown show shows given
calculated reported recorded stated listed disclosed presented our we us their quarter""".split(), *MONTHS,
                                     *MONTH_ABBREVIATIONS]}


def unexplained_words(question: str, texts: list[str]) -> set[str]:
    """The question's words (as stems) that none of the texts (the row read, the headers, the title) hold:
    "the research expense associated with the legacy business of GP" says more than a row "Research expense"."""
    held = set().union(*(_stems(t) for t in texts)) if texts else set()
    return _question_stems(question) - held - _ABOUT_THE_PAGE


# Words that tell no two columns under one year apart: a row's, but "total" does ("Net Sales | % of Total")
_NOT_HEADER_WORDS = _NOT_ROW_WORDS - {"total"}


def _header_words(text: str) -> set[str]:
    """A header's or a question's words (as stems) that can tell columns apart: "%" is said "percent"."""
    return {w[:5] for w in re.findall(r"[a-z][a-z0-9]+", text.lower().replace("%", " percent "))
            if w not in _NOT_HEADER_WORDS}


def unsaid_words(question: str, label: str) -> set[str]:
    """The words (as stems) of a row's item the question does not say; its section ("Deferred tax assets:") and a
    leading "Less" are how the table files it, not what it is."""
    item = re.sub(r"^\s*less\b", " ", label.rpartition(":")[2], flags=re.I)
    return _stems(item) - _question_stems(question) - _year_end_stems(question)


def _question_stems(question: str) -> set[str]:
    """The stems of a question's words that may name a row: the operation it asks for said apart."""
    return _stems(_OPERATION_PHRASE.sub(" ", question))


def _year_end_stems(question: str) -> set[str]:
    """The words of the year's end a question says beside its year ("end" of "at the end of 2018"), which
    _question_stems leaves out as the period."""
    return {w for m in _YEAR_END.finditer(question) for w in _stems(re.sub(YEAR_DIGITS, " ", m.group(0)))}


def row_named(question: str, labels: list[str]) -> str | None:
    """The row label the question names when the model filtered no row: most of its words in the question
    (words compared by their first five letters, so "expenses" names "Expense"), the one best match only."""
    asked = _question_stems(question)
    # "Other operating expenses" and "Total other operating expenses" share their words: the question's
    # "total" (or its absence) says which, so a label that fits it ranks first among equal matches
    asks_total = bool(_TOTAL_ASKED.search(question))
    scored = []
    for label in dict.fromkeys(labels):
        words = _stems(label)
        if words:
            shared = len(words & asked)
            scored.append((shared / len(words), shared, is_total_label(label) == asks_total, label))
    scored.sort(reverse=True)
    # "the total personnel expenses" over rows of expenses and a bare "Total": no line item is named whole,
    # and the total is what the question asks for
    totals = [label for label in dict.fromkeys(labels) if not _stems(label) and is_total_label(label)]
    if asks_total and len(totals) == 1 and not (scored and scored[0][0] == 1.0):
        return totals[0]
    if not scored or scored[0][1] == 0 or scored[0][0] < 0.5:
        return None
    tied = [s[3] for s in scored if s[:3] == scored[0][:3]]
    if len(tied) > 1:
        # "goodwill at the end of 2018" over "Goodwill, beginning of the year" and "Goodwill, end of the year": the
        # year's end, said apart as the period, tells two rows that tie without it apart
        ends = [label for label in tied if _stems(label) & _year_end_stems(question)]
        return ends[0] if len(ends) == 1 else None
    return scored[0][3]
