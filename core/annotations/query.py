"""Query preprocessing for structured questions, by rules: comparisons with
units, words a record must contain, names, time ranges, and the aggregate asked for.

"panels no wider than 1.2 m"       -> width <= 1.2 m
"every receipt with tyres"         -> any cell contains tyre / tire
"how many orders did ACME place in 2024" -> count, contains ACME, dates in 2024
"total per vendor"                 -> sum of total, grouped by vendor
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.annotations.conditions import UNIT_PATTERN, YEAR_DIGITS, MONTHS, month_number
from core.annotations.model import singular
from core.annotations.search import Condition, FactQuery

_NUMBER = r"(\d[\d,]*(?:\.\d+)?)"
_UNIT = UNIT_PATTERN  # one list of units with the conditions' bounds: "over 20 feet", "150 hp"

ADJECTIVES = {  # comparative word -> (label, op)
    "wider": ("width", ">"), "narrower": ("width", "<"), "wide": ("width", None), "width": ("width", None),
    "taller": ("height", ">"), "shorter": ("height", "<"), "tall": ("height", None), "high": ("height", None),
    "height": ("height", None), "longer": ("length", ">"), "long": ("length", None), "length": ("length", None),
    "heavier": ("weight", ">"), "lighter": ("weight", "<"), "heavy": ("weight", None), "weigh": ("weight", None),
    "weight": ("weight", None), "deeper": ("depth", ">"), "thicker": ("depth", ">"), "thinner": ("depth", "<"),
    "thick": ("depth", None), "depth": ("depth", None), "cheaper": ("price", "<"), "costlier": ("price", ">"),
    "power": ("power", None), "powerful": ("power", None), "efficiency": ("efficiency", None),
    "efficient": ("efficiency", None), "price": ("price", None), "cost": ("price", None), "costs": ("price", None),
    "total": ("total", None), "amount": ("amount", None), "quantity": ("quantity", None),
}
_BOUNDS = [  # phrase -> op, for "no wider than", "at most", "under", "over", ...
    (r"no (?:more|\w+er) than|not (?:more|\w+er) than|at most|up to|maximum of|max\.?|under or equal to|<=|≤", "<="),
    (r"no less than|not less than|at least|minimum of|min\.?|>=|≥", ">="),
    (r"less than|fewer than|below|under|smaller than|<", "<"),
    (r"more than|greater than|above|over|bigger than|larger than|>", ">"),
    (r"exactly|equal to|equals|=", "="),
]
AGGREGATES = [  # checked in order: "highest order total" is a max, not a sum
    (r"\bhow many\b|\bcount\b|(?:^|\bthe |\btotal |\ba )number of\s+[a-z]+s\b", "count"),  # not "the phone number of"
    (r"\baverage\b|\bmean\b", "avg"),
    (r"\bhighest\b|\bmaximum\b|\blargest\b|\bmost expensive\b|\bbiggest\b|\bwidest\b|\bheaviest\b|\btallest\b|\blongest\b|\bthickest\b|\bmost powerful\b", "max"),
    (r"\blowest\b|\bminimum\b|\bsmallest\b|\bcheapest\b|\bnarrowest\b|\blightest\b|\bshortest\b|\bthinnest\b", "min"),
    # "how much did we spend" adds up; "how much power after 25 years" looks a figure up
    (r"\btotal\b|\bsum\b|\bspen[dt]\b|\bhow much\b(?=.*\b(?:pa(?:y|id)|cost|charged?|billed|owed?|earned|altogether)\b)", "sum"),
]
_GROUP = re.compile(r"\b(?:per|by|for each|for every|grouped by|broken down by)\s+([a-z][a-z ]{1,20}?)(?:\s+(?:in|for|from|during|since)\b|[?.,]|$)", re.I)
_CONTAINS = re.compile(r"\b(?:with|containing|contains|contain|(?:that )?(?:have|has|include|includes)|including|mention(?:ing|s)?|for)\s+(?:an?\s+|the\s+|any\s+)?([a-z][a-z\- ]{2,30}?)(?:\s+(?:in|on|from|since|during|and|or|by|per)\b|[?.,!]|$)", re.I)
_YEAR_RANGE = re.compile(rf"\b(?:between|from)\s+({YEAR_DIGITS})\s+(?:and|to|-)\s+({YEAR_DIGITS})\b", re.I)
_SINCE = re.compile(rf"\b(?:since|after)\s+({YEAR_DIGITS})\b", re.I)
_BEFORE = re.compile(rf"\bbefore\s+({YEAR_DIGITS})\b", re.I)
_MONTH_YEAR = re.compile(r"\bin\s+(" + "|".join(MONTHS) + rf")\s+({YEAR_DIGITS})\b", re.I)
_YEAR = re.compile(rf"\b(?:in|during|for|of|from)\s+({YEAR_DIGITS})\b", re.I)
_STOP = {"the", "a", "an", "all", "every", "each", "any", "of", "their", "its", "my", "our", "them", "it"}
# Spelling variants that must find each other: a receipt says "tire", the user types "tyres".
VARIANTS = [("tyre", "tire"), ("colour", "color"), ("aluminium", "aluminum"), ("litre", "liter"), ("metre", "meter")]


@dataclass
class StructuredQuery:
    query: FactQuery
    aggregate: str | None = None  # count | sum | avg | min | max
    measure: str | None = None  # the label the aggregate is over ("total", "width")
    group_by: str | None = None
    enumeration: bool = False
    notes: list[str] = field(default_factory=list)  # what was understood, for the trace
    words: set[str] = field(default_factory=set)  # singular content words: "orders" -> "order"
    counted: str | None = None  # what a count counts, in the question's word: "tablets"

    @property
    def is_structured(self) -> bool:
        """Worth answering from facts: a measured condition, words a record must contain, a time
        range, an aggregate, or a list of records naming something ("every order from Globex").
        A name alone ("warranty of the HX-450?") is a text question."""
        q = self.query
        measured = any(c.label for c in q.conditions)
        listed_by_name = self.enumeration and bool(q.conditions)
        return bool(measured or listed_by_name or q.text or q.date_from or q.date_to or self.aggregate or self.group_by)


def word_variants(word: str) -> list[str]:
    stem = singular(word)
    variants = {stem}
    for a, b in VARIANTS:
        if a in stem:
            variants.add(stem.replace(a, b))
        if b in stem:
            variants.add(stem.replace(b, a))
    return sorted(variants)


def parse_structured(question: str, known_values: set[str] | None = None,
                     known_words: set[str] | None = None) -> StructuredQuery:
    """Rules over the question; `known_values` are lower-cased stored cell values (names of
    customers, vendors, products) so "did ACME place" becomes a filter on ACME; `known_words`
    are the singular words of column labels, record labels and file names, so "how many
    employees" is not answered by counting every fact when no record is about employees."""
    text = question.strip()
    lowered = text.lower()
    result = StructuredQuery(FactQuery())
    # "with a total above 7000" is a filter, not a request to add totals up
    unfiltered = _comparisons(lowered, result)
    _time_range(lowered, result)
    for pattern, op in AGGREGATES:
        if re.search(pattern, unfiltered):
            result.aggregate = op
            break
    group = _GROUP.search(lowered)
    if group:
        result.group_by = _last_noun(group.group(1))
        result.notes.append(f"grouped by {result.group_by}")
    result.enumeration = bool(re.search(r"\b(list|every|all|each|which|show|find)\b", lowered))
    if result.aggregate in ("sum", "avg", "min", "max") and not result.measure:
        result.measure = _measure(lowered) or "total"
    _contains(lowered, result)
    _names(text, known_values or set(), result)
    result.words = {singular(w) for w in re.findall(r"[a-z]{3,}", lowered) if w not in _STOP}
    counted = re.search(r"\bhow many\s+([a-z]+)", lowered)
    named = counted or re.search(r"\bnumber of\s+([a-z]+)", lowered)
    result.counted = named.group(1) if named and result.aggregate == "count" else None
    q = result.query
    unfiltered = not (q.conditions or q.text or q.date_from or q.date_to or result.group_by)
    if (known_words is not None and result.aggregate == "count" and unfiltered and counted
            and singular(counted.group(1)) not in known_words):
        result.aggregate = None  # nothing stored is one of those: a question for the text
    return result


def _comparisons(lowered: str, result: StructuredQuery) -> str:
    """Add the measured conditions; return the question without them."""
    for bound, op in _BOUNDS:
        pattern = rf"(?:(\w+)\s+)?(?:{bound})\s*(?:(\w+)\s+)?{_NUMBER}\s*{_UNIT}(?![\w-])"
        for match in re.finditer(pattern, lowered):
            before, between, number, unit = match.groups()
            if unit in ("$", "€", "£"):
                unit = {"$": "usd", "€": "eur", "£": "gbp"}[unit]
            after = " ".join(lowered[match.end():].split()[:3])  # "at least 400 W of power"
            label = _label_near(before, between, lowered[: match.start()] + " " + match.group(0) + " " + after)
            if label is None and unit in ("usd", "eur", "gbp"):
                label = "total"  # "receipts under 50 GBP": an amount of money
            if label is None:
                continue
            value = float(number.replace(",", ""))
            result.query.conditions.append(Condition(label, op, value, unit))
            result.notes.append(f"{label} {op} {number}{' ' + unit if unit else ''}")
            lowered = lowered.replace(match.group(0), " ")
    if not result.query.conditions:  # "wider than 1.1 m" (the comparative carries the operator)
        for word, (label, op) in ADJECTIVES.items():
            if op is None:
                continue
            match = re.search(rf"\b{word}\s+than\s+{_NUMBER}\s*{_UNIT}(?![\w-])", lowered)
            if match:
                result.query.conditions.append(Condition(label, op, float(match.group(1).replace(",", "")), match.group(2)))
                result.notes.append(f"{label} {op} {match.group(1)}")
                lowered = lowered.replace(match.group(0), " ")
    return lowered


def _label_near(before: str | None, between: str | None, context: str) -> str | None:
    for word in (between, before, *context.split()[-11:]):
        for form in (word, word[:-1] if word and word.endswith("s") else None):  # "weighs less than 20 kg"
            if form and form in ADJECTIVES:
                return ADJECTIVES[form][0]
    return None


SUPERLATIVES = {
    "heaviest": "weight", "lightest": "weight", "widest": "width", "narrowest": "width", "tallest": "height",
    "longest": "length", "shortest": "length", "thickest": "depth", "thinnest": "depth", "cheapest": "price",
    "most expensive": "price", "most powerful": "power", "most efficient": "efficiency",
}
_MEASURE_AFTER = re.compile(r"\b(?:total|sum of(?: the)?|average|mean|highest|lowest|maximum|minimum|max|min)\s+(?:of\s+)?(?:the\s+)?(\w+)")


def _measure(lowered: str) -> str | None:
    """What an aggregate is over: "heaviest" -> weight, "total quantity" -> quantity, else the
    first measurable word in the question."""
    for word, label in SUPERLATIVES.items():
        if re.search(rf"\b{word}\b", lowered):
            return label
    for match in _MEASURE_AFTER.finditer(lowered):
        if match.group(1) in ADJECTIVES:
            return ADJECTIVES[match.group(1)][0]
    words = [w for w in re.findall(r"[a-z]+", lowered) if w in ADJECTIVES]
    return ADJECTIVES[words[0]][0] if words else None


def _time_range(lowered: str, result: StructuredQuery) -> None:
    query = result.query
    if m := _YEAR_RANGE.search(lowered):
        query.date_from, query.date_to = f"{m.group(1)}-01-01", f"{m.group(2)}-12-31"
    elif m := _MONTH_YEAR.search(lowered):
        month = month_number(m.group(1))
        last = 29 if month == 2 else (30 if month in (4, 6, 9, 11) else 31)
        query.date_from, query.date_to = f"{m.group(2)}-{month:02d}-01", f"{m.group(2)}-{month:02d}-{last}"
    elif m := _SINCE.search(lowered):
        query.date_from = f"{m.group(1)}-01-01"
    elif m := _BEFORE.search(lowered):
        query.date_to = f"{int(m.group(1)) - 1}-12-31"
    elif m := _YEAR.search(lowered):
        query.date_from, query.date_to = f"{m.group(1)}-01-01", f"{m.group(1)}-12-31"
    if query.date_from or query.date_to:
        result.notes.append(f"dates {query.date_from or '…'} to {query.date_to or '…'}")


def _contains(lowered: str, result: StructuredQuery) -> None:
    for match in _CONTAINS.finditer(lowered):
        phrase = match.group(1).strip()
        words = [w for w in phrase.split() if w not in _STOP and w not in ADJECTIVES and not w.isdigit()]
        if not words or words[0] in ("each", "every") or phrase.startswith(("each", "every")):
            continue
        word = words[-1]
        result.query.text = word_variants(word)
        result.notes.append("contains " + " / ".join(result.query.text))
        return


def _names(text: str, known_values: set[str], result: StructuredQuery) -> None:
    """Proper names in the question that are stored values: "ACME", "Globex", "QuickFit Tyres"."""
    for match in re.finditer(r"\b([A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*)*)\b", text):
        name = match.group(1)
        first = text[: match.start()].strip() == ""
        candidates = [name] + ([" ".join(name.split()[1:])] if first and " " in name else [])
        for candidate in candidates:
            lowered = candidate.lower()
            if lowered in ADJECTIVES or lowered in _STOP or any(re.search(p, lowered) for p, _ in AGGREGATES):
                continue  # "Total spent per vendor": a question word, not a name
            if candidate and lowered in known_values:
                result.query.conditions.append(Condition("", "contains", candidate))
                result.notes.append(f"mentions {candidate}")
                break


def _last_noun(phrase: str) -> str:
    words = [w for w in phrase.split() if w not in _STOP]
    return words[-1] if words else phrase.strip()


# Function words, and words that only ask for a list or a number: no rule needs to read them.
_FUNCTION_WORDS = set("""how many much what which who is are was were the a an of in on at for from by to with and or
did do does list show give me tell find all every each any there have has had""".split())


def unexplained_words(question: str, parsed: StructuredQuery, accounted: set[str]) -> list[str]:
    """The question's words the rule parse did not read (words of the selected file's name are
    `accounted`). The rule fast path is taken only when there are none: "how many orders did ACME
    place in 2024" leaves "place", "which episode has the least viewers" leaves "episode" and
    "least" (no rule reads them), so the model reads those questions; a parse that silently drops
    a word answers another question."""
    lowered = question.lower()
    read = {w for note in parsed.notes for w in re.findall(r"[a-z0-9]+", note.lower())}
    read |= {w for w in (parsed.measure, parsed.group_by) if w}
    for pattern, op in AGGREGATES:  # the words of the aggregate the rules understood
        if op == parsed.aggregate and (match := re.search(pattern, lowered)):
            read |= set(re.findall(r"[a-z0-9]+", match.group(0)))
    if parsed.group_by:
        read |= {"per", "by", "grouped", "broken", "down"}
    labels = {c.label for c in parsed.query.conditions if c.label}
    if labels:  # "no wider than 1.2 m": the comparative, its bound and its unit were read
        read |= {w for w, (label, _) in ADJECTIVES.items() if label in labels}
        read |= {w for bound, _ in _BOUNDS for w in re.findall(r"[a-z]+", bound)} | {"than", "m", "mm", "cm", "kg", "w"}
    if parsed.query.date_from or parsed.query.date_to:
        read |= set(MONTHS) | {"since", "after", "before", "between", "during"}
    known = read | {singular(w) for w in read} | accounted
    return [w for w in re.findall(r"[a-z0-9]+", lowered)
            if w not in _FUNCTION_WORDS and w not in known and singular(w) not in known]
