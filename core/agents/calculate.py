"""Arithmetic over quoted figures: the model names the figures and the operation, code does the rest.

The 1.5B reader quotes the right statement rows but reads a number off them when the question needs
a ratio, a share or a change (docs/reader.md: 4 of 10 wrong test answers). In the reader's "calc"
form it lists the figures it needs, each copied as printed with a label, and picks one operation
from a fixed list; this module checks each figure is printed in a source, evaluates the operation,
and writes the answer, so no figure in it was produced by the model.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from core.annotations.across import percent_change
from core.annotations.conditions import YEAR_DIGITS, FISCAL_YEAR, MONTH_NAME, SHORT_FISCAL_YEAR
from core.annotations.plan import format_value

NONE = "none"
# operation: (figures needed at least, how the answer sentence names it)
OPERATIONS = {
    "sum": (2, "sum"),
    "difference": (2, "difference"),
    "ratio": (2, "ratio"),
    "percent": (2, "share"),
    "percent_change": (2, "change"),
    "average": (2, "average"),
    "max": (2, "largest"),
    "min": (2, "smallest"),
}

_VALUE = re.compile(r"(\()?\s*([-−–])?\s*(\$|USD|US\$)?\s*([-−–])?\s*(\d[\d,]*(?:\.\d+)?|\.\d+)\s*(%)?"
                    r"(?:\s*(thousand|million|billion|trillion|mn|bn|m|b|k)\b)?", re.I)
_YEAR = re.compile(rf"{FISCAL_YEAR}?'?({YEAR_DIGITS})\b|{SHORT_FISCAL_YEAR}", re.I)


@dataclass
class Figure:
    label: str
    printed: str  # as the model copied it
    value: float
    currency: str = ""
    percent: bool = False
    scale: str = ""


@dataclass
class Calculation:
    operation: str
    figures: list[Figure]
    result: float
    text: str  # the computed part of the answer, e.g. "ratio of A (1,200) to B (800) = 1.50"
    result_label: str = ""  # max/min: the label of the figure chosen


def parse_figure(label: str, printed: str) -> Figure | None:
    """A figure as printed in a filing: "$1,577", "(370)" (negative), "12.5%", "1.2 billion"."""
    match = _VALUE.search(printed or "")
    if not match:
        return None
    paren, sign1, currency, sign2, digits, percent, scale = match.groups()
    try:
        value = float(digits.replace(",", ""))
    except ValueError:
        return None
    if paren and printed.strip().endswith(")") or sign1 or sign2:
        value = -value
    return Figure(label.strip(), printed.strip(), value, "$" if currency else "", bool(percent), (scale or "").lower())


def _period(label: str) -> int | None:
    years = {int(a) if a else 2000 + int(b) for a, b in _YEAR.findall(label)}
    return years.pop() if len(years) == 1 else None


def _number(x: float) -> str:
    """A result as a reader expects it: thousands separated, at most 2 decimals, no trailing zeros."""
    text = f"{x:,.2f}" if abs(x) >= 0.005 or x == 0 else format_value(x)  # (4 digits that count, no "1.2e-05")
    return text.rstrip("0").rstrip(".") if "." in text else text


def _amount(x: float, like: list[Figure]) -> str:
    """A sum, difference, average or max in the unit its inputs share ("$1,234 million")."""
    currency = "$" if all(f.currency for f in like) else ""
    scales = {f.scale for f in like}
    scale = f" {scales.pop()}" if len(scales) == 1 and "" not in scales else ""
    percent = "%" if all(f.percent for f in like) else ""
    sign = "-" if x < 0 else ""
    return f"{sign}{currency}{_number(abs(x))}{percent}{scale}"


def calculate(operation: str, figures: list[Figure]) -> Calculation | None:
    """The operation over the figures, in the order given (percent_change: from the earlier period to
    the later when every label names one year, else first to second); None when it cannot be done
    (unknown operation, too few figures, division by zero)."""
    if operation not in OPERATIONS or len(figures) < OPERATIONS[operation][0]:
        return None
    values = [f.value for f in figures]
    a, b = figures[0], figures[1]
    shown = ", ".join(f"{f.label} ({f.printed})" for f in figures)
    if operation == "sum":
        result = sum(values)
        return Calculation(operation, figures, result, f"sum of {shown} = {_amount(result, figures)}")
    if operation == "average":
        result = sum(values) / len(values)
        return Calculation(operation, figures, result, f"average of {shown} = {_amount(result, figures)}")
    if operation in ("max", "min"):
        pick = (max if operation == "max" else min)(figures, key=lambda f: f.value)
        word = OPERATIONS[operation][1]
        return Calculation(operation, figures, pick.value, f"the {word} of {shown} is {pick.label} ({pick.printed})",
                           pick.label)
    if operation == "difference":
        result = a.value - b.value
        return Calculation(operation, figures, result,
                           f"{a.label} ({a.printed}) minus {b.label} ({b.printed}) = {_amount(result, [a, b])}")
    if operation == "percent_change":
        first, second = a, b
        pa, pb = _period(a.label), _period(b.label)
        if pa is not None and pb is not None and pa > pb:
            first, second = b, a  # a statement prints the latest year first
        result = percent_change(first.value, second.value)
        if result is None:
            return None
        return Calculation(operation, [first, second], result,
                           f"change from {first.label} ({first.printed}) to {second.label} ({second.printed}) = "
                           f"{'+' if result > 0 else ''}{_number(result)}%")
    if b.value == 0:
        return None
    if operation == "ratio":
        result = a.value / b.value
        return Calculation(operation, figures, result,
                           f"{a.label} ({a.printed}) / {b.label} ({b.printed}) = {_number(result)}")
    result = a.value / b.value * 100  # percent: the first as a share of the second
    return Calculation(operation, figures, result,
                       f"{a.label} ({a.printed}) as a percent of {b.label} ({b.printed}) = {_number(result)}%")


def render(calculation: Calculation, model_answer: str, sources: list[int]) -> str:
    """The answer the user reads: the model's yes/no when it gave one (a judgement, not a figure),
    then the computed sentence and the sources its figures were read from."""
    lead = re.match(r"\s*(yes|no)\b", model_answer or "", re.I)
    text = calculation.text[0].upper() + calculation.text[1:]
    cited = " ".join(f"[Source {n}]" for n in sources)
    return f"{lead.group(1).capitalize() + '. ' if lead else ''}{text}. {cited}".strip()


# Arithmetic the reader wrote out in its answer ("42,607 - 40,446 = 2,161", "(5,463 - 2,962) / 2,962 * 100 =
# 84.4%"): figures, operators and brackets, "=", a result. Code checks the result; the reader is a 1.5B model.
_TERM = r"[$£€]?\s*\d[\d,]*(?:\.\d+)?"
_WORKED = rf"\(*\s*[-−–]?{_TERM}\s*\)*(?:\s*[-−–+*×/÷]\s*\(*\s*{_TERM}\s*\)*)+"
_RESULT = r"[-−–]?\s*[$£€]?\s*[-−–]?\d[\d,]*(?:\.\d+)?"
_EXPRESSION = re.compile(rf"(?P<expr>{_WORKED})\s*=\s*(?P<result>{_RESULT})(?P<percent>\s*%)?")
# ... or the result first and its working in brackets: "66.67% (882.6 / 565.9 - 1)"
_RESULT_FIRST = re.compile(rf"(?<![\w.,])(?P<result>{_RESULT})(?P<percent>\s*%)?\s*\((?P<expr>{_WORKED})\)")
_OPERATORS = {"−": "-", "–": "-", "×": "*", "÷": "/"}


def _plain(text: str) -> str:
    """Written arithmetic as Python reads it: "$4,105 − 3,900" -> "4105-3900"."""
    return re.sub(r"[$£€,\s]", "", "".join(_OPERATORS.get(c, c) for c in text))


def _evaluate(expression: str) -> float | None:
    """The value of figures joined by + - * / and brackets, by Python's own precedence; None otherwise."""
    text = _plain(expression)
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return None
    allowed = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Add, ast.Sub, ast.Mult, ast.Div,
               ast.USub, ast.UAdd)
    if not all(isinstance(node, allowed) for node in ast.walk(tree)):
        return None
    try:
        return float(eval(compile(tree, "<answer>", "eval"), {"__builtins__": {}}))
    except (ZeroDivisionError, OverflowError):
        return None


def settle_expressions(answer: str) -> tuple[str, list[str], list[str]]:
    """The answer with each worked sum the model wrote checked by code and its result said first:
    "is 42,607 - 40,446 = 2,161" becomes "is 2,161 (42,607 - 40,446)", as a person writes it and as a
    reader takes the first figure for the answer. A wrong result is replaced by code's ("3 + 4 = 8" ->
    "7 (3 + 4)"). Returns the answer, each result code computed (evidence for the answer's figures) and
    each replacement (said in the trace)."""
    computed: list[str] = []
    corrected: list[str] = []

    def settle(match: re.Match) -> str:
        lead = match.group(0)[:len(match.group(0)) - len(match.group(0).lstrip())]
        expression, stated = match.group("expr").strip(), match.group("result")
        while expression.startswith("(") and expression.endswith(")") and _evaluate(expression[1:-1]) is not None:
            expression = expression[1:-1].strip()  # "(12,186 - 2,246) = 9,940" is said in one pair of brackets
        value = _evaluate(expression)
        if value is None:
            return match.group(0)
        percent = bool(match.group("percent"))
        if percent and not re.search(r"\*\s*100\b|×\s*100\b", expression):
            value *= 100  # "(b - a) / a = 5.2%": the share, said as a percent
        said = float(_plain(stated))
        decimals = len(stated.rpartition(".")[2]) if "." in stated else 0
        if abs(value - said) > max(0.5 * 10 ** -decimals, 1e-9 * abs(value)):
            corrected.append(f"{expression} = {stated.strip()}{'%' if percent else ''} corrected to {_number(value)}")
            sign = next((c for c in "$£€" if c in stated), "")
            result = f"{'-' if value < 0 else ''}{sign}{_number(abs(value))}"
        else:
            result = stated.strip()
        computed.append(f"{expression} = {result}")
        return f"{lead}{result}{'%' if percent else ''} ({expression})"

    settled = _RESULT_FIRST.sub(settle, _EXPRESSION.sub(settle, answer))  # (the first form's output is the second's)
    return settled, list(dict.fromkeys(computed)), corrected


# A figure as the reader writes it, and a year beside it: "$2,246 in 2017", "in 2018 was $14,740", "2019: 1,910"
_FIGURE = (r"\(?[-−–]?\s*(?:US\$|\$|€|£)?\s*(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\)?\s*%?"
           r"(?:\s*(?:thousand|million|billion|mn|bn)\b)?")
_FIGURE_YEAR = re.compile(rf"({_FIGURE})\s+(?:in|for|during|at the end of|as of)\s+(?:the\s+)?{FISCAL_YEAR}?"
                          rf"({YEAR_DIGITS})\b", re.I)
_YEAR_FIGURE = re.compile(rf"\b({YEAR_DIGITS})\b\s*(?::|,)?\s*(?:was|were|is|amounted to|stood at|totall?ed|of)?\s*"
                          rf"({_FIGURE})", re.I)
_RESPECTIVELY = re.compile(rf"({_FIGURE})\s+and\s+({_FIGURE}),?\s+respectively", re.I)
_ACROSS = {"change": "difference", "percent change": "percent_change", "average": "average", "sum": "sum"}

# "of $88,848, $133,514 and $138,668 during the years ended December 31, 2019, 2018 and 2017, respectively":
# two lists of as many items, figures and years, paired in order by the sentence's last word
_ITEM = rf"{FISCAL_YEAR}?{_FIGURE}(?:\s?(?!(?:and|in|for|of|to|at|on|by|or|as|the|an?|was|is|are)\b)[A-Za-z]{{1,3}}\b)?"  # "412 mm"
_LIST = re.compile(rf"{_ITEM}(?:\s*,\s*{_ITEM})*\s*,?\s*and\s+{_ITEM}", re.I)
_LISTED_YEAR = re.compile(rf"^{FISCAL_YEAR}?({YEAR_DIGITS})$", re.I)
_DAY_OF_MONTH = re.compile(rf"\b({MONTH_NAME}\.?\s+)\d{{1,2}},\s*", re.I)
_RESPECTIVE_SENTENCE = re.compile(r"[^.;]*(?:\.\d[^.;]*)*\brespectively\b", re.I)
# what the sentence says the figures are, before its first list: "The Company's income before income tax expense"
_SUBJECT_TAIL = re.compile(r"(?:\s+(?:of|was|were|is|are|amounted to|totall?ed|for|in|during|at|as of|as at|the|years?|"
                           rf"fiscal|ended|ending|periods?|{MONTH_NAME}))+\s*$",
                           re.I)
_INTRODUCTION = re.compile(r"^(?:In|During|As|For|Since|At|On|Under|With|After|Before|Following)\b[^,]*,\s*")
_SUBJECT_WORDS = 14


@dataclass
class Respective:
    """A sentence's figures, each paired with the year the sentence names for it."""
    by_year: dict[str, str]  # year -> figure as printed
    subject: str  # the sentence's words for what the figures are ("" when it has none short enough)
    sentence: str


def respective_years(text: str) -> Respective | None:
    """The one "respectively" sentence of `text` that pairs a list of figures with a list of as many years; None
    when there is none or two. A sentence with two figure lists of that length pairs nothing: which list the years
    belong to, it does not say."""
    found = None
    for sentence in _RESPECTIVE_SENTENCE.finditer(_DAY_OF_MONTH.sub(r"\1", text)):
        lists = [(m, [i.strip() for i in re.findall(_ITEM, m.group(0), re.I)]) for m in _LIST.finditer(sentence.group(0))]
        years = [(m, [_LISTED_YEAR.match(i).group(1) for i in items]) for m, items in lists
                 if all(_LISTED_YEAR.match(i) for i in items)]
        if len(years) != 1 or len(set(years[0][1])) != len(years[0][1]):
            continue
        year_list, listed = years[0]
        figures = [(m, items) for m, items in lists if m is not year_list and len(items) == len(listed)]
        if len(figures) != 1:
            continue
        if found is not None:
            return None
        (first, between), last = sorted([(figures[0][0].start(), figures[0][0].end()),
                                         (year_list.start(), year_list.end())])
        words = sentence.group(0)
        # before the first list ("X of $1, $2 ... 2019 and 2018"), else between them ("in 2019 and 2018 X was $1 and $2")
        subject = next((s for s in (_INTRODUCTION.sub("", _SUBJECT_TAIL.sub("", part).strip())
                                    for part in (words[:first], words[between:last[0]])) if s), "")
        if len(subject.split()) > _SUBJECT_WORDS:
            subject = ""
        found = Respective(dict(zip(listed, figures[0][1])), subject[:1].upper() + subject[1:],
                           " ".join(sentence.group(0).split()))
    return found


def of_years_asked(years: list[str], text: str) -> tuple[str, Respective] | None:
    """The figures of the years a question asks, read off a sentence that states more years "respectively":
    "How much was X in 2019?" answered "X of $88,848, $133,514 and $138,668 ... 2019, 2018 and 2017,
    respectively" is "X: $88,848 in 2019". None unless the sentence states every year asked and others."""
    respective = respective_years(text)
    if not years or respective is None or not set(years) < set(respective.by_year):
        return None
    figures = ", ".join(f"{respective.by_year[y]} in {y}" for y in years)
    return (f"{respective.subject}: {figures}." if respective.subject else f"{figures[0].upper()}{figures[1:]}."), respective


def _figures_by_year(answer: str, years: list[str]) -> dict[str, Figure] | None:
    """Each stated year's one figure in the reader's answer, or None when a year has none or two."""
    found: dict[str, set[str]] = {y: set() for y in years}
    respective = respective_years(answer)
    if respective is not None and set(years) <= set(respective.by_year):  # each year as the sentence pairs them
        paired = {year: parse_figure(year, respective.by_year[year]) for year in years}
        return paired if None not in paired.values() else None
    together = _RESPECTIVELY.search(answer)
    if together and len(years) == 2:  # "were 12,749 and 11,875, respectively": in the question's order
        answer = answer[:together.start()] + answer[together.end():]
        for year, figure in zip(years, together.groups()):
            found[year].add(figure.strip())
    for figure, year in _FIGURE_YEAR.findall(answer):
        if year in found:
            found[year].add(figure.strip())
    for year, figure in _YEAR_FIGURE.findall(answer):
        if year in found and not re.fullmatch(rf"{YEAR_DIGITS}", figure.strip()):
            found[year].add(figure.strip())
    figures = {}
    for year, printed in found.items():
        parsed = {(f.value, f.scale) for p in printed if (f := parse_figure(year, p)) is not None}
        if len(parsed) != 1:
            return None
        figures[year] = parse_figure(year, sorted(printed, key=len)[-1])
    return figures


def across_years(operation: str, years: list[str], answer: str) -> Calculation | None:
    """"What was the change in sales from 2017 to 2018?" answered "sales went from $2,246 in 2017 to $12,186 in
    2018": the reader read the figures, code does the arithmetic the question asks over the years it states
    (a change from the earlier year to the later). None unless each year has exactly one figure."""
    if operation not in _ACROSS or len(years) < 2 or (operation != "average" and operation != "sum" and len(years) != 2):
        return None
    figures = _figures_by_year(answer, years)
    if figures is None:
        return None
    ordered = [figures[y] for y in sorted(years)]
    if operation == "change":
        ordered = ordered[::-1]  # later minus earlier
    return calculate(_ACROSS[operation], ordered)


def render_across(operation: str, years: list[str], calculation: Calculation, sources: list[int]) -> str:
    """"The change from 2017 to 2018 is $9,940 (2017: $2,246; 2018: $12,186). [Source 1]": the figure first,
    then the years it spans and the figures it was computed from."""
    ordered = sorted(years)
    span = f"from {ordered[0]} to {ordered[-1]}" if operation in ("change", "percent change") \
        else "for " + ", ".join(ordered[:-1]) + f" and {ordered[-1]}"
    what = {"percent change": "percentage change", "sum": "total"}.get(operation, operation)
    value = (f"{_number(calculation.result)}%" if operation == "percent change"
             else _amount(calculation.result, calculation.figures))
    shown = "; ".join(f"{f.label}: {f.printed}" for f in sorted(calculation.figures, key=lambda f: f.label))
    cited = " ".join(f"[Source {n}]" for n in sources)
    return f"The {what} {span} is {value} ({shown}). {cited}".strip()
