"""Quantities with units: parsed from cell text and labels, normalized so they compare.

Lengths go to metres, masses to kilograms, power to watts, percentages stay percent, currencies
keep their code (amounts in different currencies are never converted). The original text is
always kept beside the normalized value.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

# unit text -> (kind, factor to the base unit)
UNITS: dict[str, tuple[str, float]] = {
    "mm": ("length", 0.001), "millimetre": ("length", 0.001), "millimeter": ("length", 0.001),
    "cm": ("length", 0.01), "centimetre": ("length", 0.01), "centimeter": ("length", 0.01),
    "m": ("length", 1.0), "metre": ("length", 1.0), "meter": ("length", 1.0), "metres": ("length", 1.0),
    "meters": ("length", 1.0), "km": ("length", 1000.0),
    "in": ("length", 0.0254), "inch": ("length", 0.0254), "inches": ("length", 0.0254), '"': ("length", 0.0254),
    "ft": ("length", 0.3048), "feet": ("length", 0.3048),
    "g": ("mass", 0.001), "gram": ("mass", 0.001), "grams": ("mass", 0.001),
    "kg": ("mass", 1.0), "kilogram": ("mass", 1.0), "kilograms": ("mass", 1.0),
    "lb": ("mass", 0.45359237), "lbs": ("mass", 0.45359237), "pound": ("mass", 0.45359237),
    "pounds": ("mass", 0.45359237), "t": ("mass", 1000.0),
    "w": ("power", 1.0), "watt": ("power", 1.0), "watts": ("power", 1.0), "wp": ("power", 1.0),
    "kw": ("power", 1000.0), "kwp": ("power", 1000.0), "mw": ("power", 1e6),
    "%": ("percent", 1.0), "percent": ("percent", 1.0), "pct": ("percent", 1.0),
    "v": ("voltage", 1.0), "a": ("current", 1.0),
}
CURRENCIES = {
    "$": "USD", "usd": "USD", "us$": "USD", "€": "EUR", "eur": "EUR", "£": "GBP", "gbp": "GBP",
    "rm": "MYR", "myr": "MYR", "zł": "PLN", "pln": "PLN", "inr": "INR", "₹": "INR", "rs": "INR",
    "chf": "CHF", "¥": "JPY", "jpy": "JPY",
}
BASE_UNIT = {"length": "m", "mass": "kg", "power": "W", "percent": "%", "voltage": "V", "current": "A"}

_NUMBER = r"[-−]?\d(?:[\d.,' ]*\d)?|[-−]?\.\d+"  # parse_number decides what the separators mean
_CURRENCY_SYMBOLS = "|".join(re.escape(c) for c in sorted(CURRENCIES, key=len, reverse=True))
_UNIT_WORDS = "|".join(re.escape(u) for u in sorted(UNITS, key=len, reverse=True))
_QUANTITY = re.compile(
    rf"^\s*(?P<cur1>{_CURRENCY_SYMBOLS})?\s*(?P<num>{_NUMBER})\s*(?P<unit>{_UNIT_WORDS})?\s*(?P<cur2>{_CURRENCY_SYMBOLS})?\s*$",
    re.I,
)
# A unit named in a column label: "Width (mm)", "W [m]", "width_cm", "Pmax kW", "Price (EUR)"
_LABEL_UNIT = re.compile(rf"(?:[\(\[]\s*(?P<a>{_UNIT_WORDS}|{_CURRENCY_SYMBOLS})\s*[\)\]]|[_\s](?P<b>{_UNIT_WORDS}|{_CURRENCY_SYMBOLS})$)", re.I)


@dataclass(frozen=True)
class Quantity:
    text: str
    number: float
    unit: str | None = None  # as written ("mm", "kW", "USD")
    kind: str | None = None  # length | mass | power | percent | currency | ...
    base: float | None = None  # in the base unit of its kind (m, kg, W, %), or the amount for currency

    @property
    def base_unit(self) -> str | None:
        if self.kind == "currency":
            return self.unit
        return BASE_UNIT.get(self.kind or "")


def parse_number(text: str) -> float | None:
    cleaned = text.strip().replace("−", "-").replace("'", "").replace(" ", "")
    negative = cleaned.startswith("(") and cleaned.endswith(")")  # accounting negatives
    cleaned = cleaned.strip("()")
    if re.fullmatch(r"-?\d{1,3}(\.\d{3})+,\d{1,2}", cleaned):  # European: "4.904,94"
        value = float(cleaned.replace(".", "").replace(",", "."))
    elif re.fullmatch(r"-?\d{1,3}(,\d{3})+(\.\d+)?", cleaned) or re.fullmatch(r"-?\d+(\.\d+)?", cleaned):
        value = float(cleaned.replace(",", ""))
    elif re.fullmatch(r"-?\d+,\d{1,2}", cleaned):  # decimal comma: "12,50"
        value = float(cleaned.replace(",", "."))
    elif re.fullmatch(r"-?\.\d+", cleaned):
        value = float(cleaned)
    else:
        return None
    return -value if negative else value


def unit_of_label(label: str) -> str | None:
    match = _LABEL_UNIT.search(label.strip())
    return (match.group("a") or match.group("b")) if match else None


def parse_quantity(text: str, label_unit: str | None = None) -> Quantity | None:
    """A number with its unit from a cell like "1,722 mm", "0.38", "$1,299.00", "20.5 %".
    A bare number takes the unit named in its column label, if any."""
    raw = str(text).strip()
    if not raw or len(raw) > 40:
        return None
    # an accounting negative, its currency sign inside or outside the brackets, a percent sign after them:
    # "(6,442)", "$(17,334)", "(149)%"
    accounting = re.fullmatch(rf"({_CURRENCY_SYMBOLS})?\s*\(([^()]+)\)\s*(%?)", raw, re.I)
    if accounting:
        text = f"{accounting.group(1) or ''}{accounting.group(2)}{accounting.group(3)}"
    else:
        text = raw.replace("(", "").replace(")", "") if raw.startswith("(") else raw
    match = _QUANTITY.match(text)
    if not match:
        return None
    number = parse_number(match.group("num"))
    if accounting and number is not None:
        number = -abs(number)
    if number is None:
        return None
    currency = match.group("cur1") or match.group("cur2")
    unit = match.group("unit")
    if not unit and not currency and label_unit:
        if label_unit.lower() in CURRENCIES:
            currency = label_unit
        else:
            unit = label_unit
    if currency:
        code = CURRENCIES[currency.lower()]
        return Quantity(raw, number, code, "currency", number)
    if unit:
        kind, factor = UNITS[unit.lower()] if unit.lower() in UNITS else (None, 1.0)
        if kind:
            return Quantity(raw, number, unit, kind, number * factor)
    return Quantity(raw, number)


def to_base(value: float, unit: str | None) -> tuple[float, str | None]:
    """A threshold from a question ("1.2 m", "1200 mm") in its kind's base unit."""
    if not unit:
        return value, None
    if unit.lower() in CURRENCIES:
        return value, "currency"
    kind, factor = UNITS.get(unit.lower(), (None, 1.0))
    return value * factor, kind


# --- units of a table's columns ------------------------------------------------------------------
# A column's unit in one normalized spelling (TableInfo.units), so that code can convert a question's
# "150 hp" or "55 lb" to the column's unit: normalized unit -> (dimension, factor to the dimension's
# base). Money keeps its currency as the dimension (pence are hundredths of a pound; euros never
# become pounds), a currency with a sign is spelled by its sign, as answers print it ("€1,249.00").
MEASURES: dict[str, tuple[str, float]] = {
    "mm": ("length", 0.001), "cm": ("length", 0.01), "m": ("length", 1.0), "km": ("length", 1000.0),
    "in": ("length", 0.0254), "ft": ("length", 0.3048), "mi": ("length", 1609.344),
    "g": ("mass", 0.001), "kg": ("mass", 1.0), "t": ("mass", 1000.0), "lb": ("mass", 0.45359237),
    "W": ("power", 1.0), "kW": ("power", 1000.0), "MW": ("power", 1e6), "hp": ("power", 745.69987158227022),
    "mL": ("volume", 0.001), "L": ("volume", 1.0), "m³": ("volume", 1000.0), "Ml": ("volume", 1e6),
    "gal": ("volume", 3.785411784),  # the US gallon: a UK one would say "imperial"
    "l/s": ("flow", 3.6), "m³/h": ("flow", 1.0),
    "s": ("duration", 1 / 3600), "min": ("duration", 1 / 60), "h": ("duration", 1.0), "d": ("duration", 24.0),
    "wk": ("duration", 168.0), "yr": ("duration", 8766.0),  # a year of 365.25 days
    "m²": ("area", 1.0), "ft²": ("area", 0.09290304), "ha": ("area", 1e4), "acre": ("area", 4046.8564224),
    "km²": ("area", 1e6), "mi²": ("area", 2589988.110336),
    "%": ("percent", 1.0), "V": ("voltage", 1.0), "A": ("current", 1.0),
    # data sizes in decimal steps, as storage is sold (a "1 TB" drive holds 1,000 GB)
    "KB": ("data", 1e-6), "MB": ("data", 1e-3), "GB": ("data", 1.0), "TB": ("data", 1e3), "PB": ("data", 1e6),
    "€": ("EUR", 1.0), "£": ("GBP", 1.0), "p": ("GBP", 0.01), "£k": ("GBP", 1000.0), "$": ("USD", 1.0),
    "¥": ("JPY", 1.0), "₹": ("INR", 1.0), "CHF": ("CHF", 1.0), "MYR": ("MYR", 1.0), "PLN": ("PLN", 1.0),
}
# How headers write each unit (lower case) -> its normalized spelling.
_UNIT_ALIASES: dict[str, str] = {
    **{u.lower(): u for u in MEASURES},
    "millimetres": "mm", "millimeters": "mm", "centimetres": "cm", "centimeters": "cm", "metres": "m",
    "meters": "m", "kilometres": "km", "kilometers": "km", "inches": "in", "inch": "in", "feet": "ft",
    "miles": "mi", "grams": "g", "kilograms": "kg", "tonnes": "t", "tons": "t", "lbs": "lb", "pounds": "lb",
    "watts": "W", "kwp": "kW", "wp": "W", "bhp": "hp", "ml": "mL", "l": "L", "litres": "L", "liters": "L",
    "m3": "m³", "gallons": "gal", "gals": "gal", "l/sec": "l/s", "m3/h": "m³/h", "m³/hr": "m³/h",
    "sec": "s", "secs": "s", "seconds": "s", "mins": "min", "minutes": "min", "hr": "h", "hrs": "h",
    "hours": "h", "days": "d", "weeks": "wk", "percent": "%", "pct": "%",
    "eur": "€", "euro": "€", "euros": "€", "gbp": "£", "pence": "p", "usd": "$", "us$": "$", "jpy": "¥",
    "inr": "₹", "chf": "CHF", "rm": "MYR", "myr": "MYR", "pln": "PLN", "zł": "PLN", "gbp k": "£k",
    **{f"{sq} {m}": "m²" for sq in ("sq", "sq.", "square") for m in ("m", "metres", "meters", "metre", "meter")},
    **{f"{sq} {ft}": "ft²" for sq in ("sq", "sq.", "square") for ft in ("ft", "feet", "foot", "ft.")},
    "sqm": "m²", "m2": "m²", "sqft": "ft²", "ft2": "ft²", "acres": "acre", "hectare": "ha", "hectares": "ha",
    "km2": "km²", "sq km": "km²", "square kilometres": "km²", "square kilometers": "km²", "sq mi": "mi²",
    "square miles": "mi²", "kilobytes": "KB", "megabytes": "MB", "gigabytes": "GB", "terabytes": "TB", "petabytes": "PB",
}
# Units a question says in the singular or in words no header uses for its unit ("a week", "five years"):
# read from questions only, so a "Model Year" header is not a duration.
_SPOKEN_UNITS = {"hour": "h", "minute": "min", "second": "s", "day": "d", "week": "wk", "year": "yr", "years": "yr",
                 "yrs": "yr", "tonne": "t", "ton": "t", "mile": "mi", "kilometre": "km", "kilometer": "km", "metre": "m",
                 "meter": "m", "litre": "L", "liter": "L", "kilo": "kg", "kilos": "kg", "kilogram": "kg", "gallon": "gal",
                 "foot": "ft"}
_ALIAS = "|".join(re.escape(a) for a in sorted(_UNIT_ALIASES, key=len, reverse=True))
_LONG_ALIAS = "|".join(re.escape(a) for a in sorted(_UNIT_ALIASES, key=len, reverse=True) if len(a) > 1)
# "Power [hp]", "GVWR (lb)", "Fine (p)", "Amt (EUR)", "Private Fee (£)", "Distance_mi", "Disc %", "Tank gal",
# "width_m". A one-letter unit only in brackets or after "_": a sports table's "W", "L", "D" are wins,
# losses and draws, and "Grade A" is no ampere.
_HEADER_UNIT = re.compile(rf"[\(\[]\s*(?P<a>{_ALIAS})\s*[\)\]]|(?:_(?P<b>{_ALIAS})|\s(?P<c>{_LONG_ALIAS}|%))\s*$", re.I)
# Words a header may be in full when the column holds that unit: "Gallons", "Hrs", "Minutes". (Not
# "Pages" or "Days" of a rota: only a unit's own name, plural or abbreviated.)
_UNIT_HEADERS = {"gallons", "litres", "liters", "miles", "kilometres", "kilometers", "hours", "hrs", "minutes",
                 "mins", "seconds", "kg", "kilograms", "tonnes", "lbs", "pounds (lb)", "percent"}


_AREA_OR_VOLUME = re.compile(r"\b(?:sq|square|cu|cubic)\.?\s*[\(\[]?$", re.I)  # "Area sq mi" is no length


def header_unit(label: str) -> str | None:
    """The normalized unit a column header names ("Power [hp]" -> "hp", "Amt (EUR)" -> "€", "Fine (p)" ->
    "p", "Distance_mi" -> "mi", "Gallons" -> "gal", "Disc %" -> "%"), None when it names none. A rate
    ("Price/gal") names no unit of the column: it is money per gallon."""
    text = label.strip()
    if text.lower() in _UNIT_HEADERS:
        return _UNIT_ALIASES.get(text.lower().rstrip("s"), _UNIT_ALIASES.get(text.lower()))
    match = _HEADER_UNIT.search(text)
    if not match or _AREA_OR_VOLUME.search(text[:match.start() + 1]):
        return None
    if match.group("c") and match.group("c") != "%" and re.search(r"\d\s*$", text[:match.start()]):
        return None  # "2018 52 WEEKS", "10 km": how long the period or the course is, not the cells' unit
    found = (match.group("a") or match.group("b") or match.group("c")).lower()
    return "%" if found == "%" else _UNIT_ALIASES.get(found)


def currency_sign(code_or_sign: str) -> str:
    """A currency as a column unit: its sign when it has one ("EUR" -> "€"), else its code ("MYR")."""
    normal = _UNIT_ALIASES.get(code_or_sign.lower(), code_or_sign)
    if normal in MEASURES:
        return normal
    return next((sign for sign, code in CURRENCIES.items() if code == CURRENCIES.get(code_or_sign.lower())
                 and sign in MEASURES), code_or_sign)


def normal_unit(unit: str | None, spoken: bool = True) -> str | None:
    """A unit as a header or a question writes it ("kw", "lbs", "litres", "EUR") in its normalized spelling;
    "Ml" (megalitres) stays apart from "ml". `spoken` also reads the singular words a bound uses ("more
    than a week"), which elsewhere in a question are no unit ("the first half of the year")."""
    if not unit:
        return None
    unit = " ".join(unit.split())  # "sq  ft" as "sq ft"
    found = unit if unit in MEASURES else _UNIT_ALIASES.get(unit.lower())
    return found or (_SPOKEN_UNITS.get(unit.lower()) if spoken else None)


def unit_kind(unit: str | None) -> tuple[str, float] | None:
    """(dimension, factor to its base) of a unit in any spelling; None for an unknown one."""
    return MEASURES.get(normal_unit(unit) or "")


def convert(value: float, unit: str, to: str) -> float | None:
    """`value` in `unit` expressed in `to` (150 hp in kW 111.85; 55 lb in kg 24.95; 300 p in £ 3.0),
    None when the two measure different things (kg and h, € and £) or either is unknown."""
    source, target = unit_kind(unit), unit_kind(to)
    if source is None or target is None or source[0] != target[0]:
        return None
    return value * source[1] / target[1]


# A report table's scale, as printed over it or in its headers: "(in millions)", "(in 000's)", "$'000", "USD ‘000",
# "US$000", "£k", "€m", "(in thousands of Canadian dollars)".
_SCALE = re.compile(r"\bin\s+(?P<word>(?:thousand|million|billion)s?)\b(?!-)|\bin\s+(?P<zeros3>000)[‘’']?s\b"
                    r"|(?P<sign>[$€£¥])\s?[‘’']?(?P<zeros>000)s?\b"
                    r"|\b(?P<code>USD|EUR|GBP)\s?[‘’']?(?P<zeros2>000)s?\b"
                    r"|(?<![A-Za-z])(?:US|A|C|NZ|HK|S)?(?P<sign2>[$€£¥])\s?"
                    r"(?P<letter>k|m|mn|bn|(?:thousand|million|billion)s?)\b"
                    # another currency's code before its scale: "RMB’Million", "RM'000", "CHF million", "SEK m"
                    r"|(?-i:\b(?P<code3>[A-Z]{3}|RM))(?:\s|\s?[‘’']\s?)"
                    r"(?P<coded>000|(?:thousand|million|billion)s?|mn|bn|m|k)\b", re.I)
SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9}  # what each scale word multiplies by
_SCALE_WORDS = {"thousands": "thousand", "millions": "million", "billions": "billion", "000": "thousand",
                "k": "thousand", "m": "million", "mn": "million", "bn": "billion",
                "thousand": "thousand", "million": "million", "billion": "billion"}
_CODE_SIGNS = {"usd": "$", "eur": "€", "gbp": "£"}
# "(in thousands of U.S. dollars)"; another country's dollars are no "$" ("Canadian dollars")
_CURRENCY_WORDS = {r"u\.?\s?s\.?\s+dollars": "$", "euros": "€", "pounds sterling": "£"}
# "(in thousands, except per share amounts)": the rows the exception names are not scaled
_EXCEPT = re.compile(r"\bexcept\b\s*(?:for\s+)?([^)|]*)", re.I)
_PER_WHAT = re.compile(r"\bper\s+([a-z]+)", re.I)
_PER_SHARE = re.compile(r"\bper\s+(?:[a-z]+\s+){0,3}shares?\b", re.I)  # "Earnings per common share — Diluted"
_EXCEPT_FILLER = {"amounts", "amount", "data", "and", "the", "information", "figures", "items", "as", "noted", "otherwise",
                  "stated", "indicated", "where", "which", "are", "in", "of", "numbers"}
_RATES = {"percentages", "percentage", "percent", "ratios", "ratio", "rates", "rate"}


def excepted(row: str, exception: str) -> bool:
    """Whether the row a label names is one a scale's exception leaves unscaled: "Basic earnings per share"
    under "except per share amounts" (but not "Weighted average shares", which the scale counts), a rate under
    "except percentages", "Calendar-ship-days" under "except calendar-ship-days"."""
    label = row.lower()
    pers = [m.group(1).lower() for m in _PER_WHAT.finditer(exception)]
    if any(re.search(rf"\bper\s+{re.escape(w)}", label) for w in pers):
        return True
    words = {w for w in re.findall(r"[a-z]+", _PER_WHAT.sub(" ", exception.lower())) if w not in _EXCEPT_FILLER}
    if words & _RATES and re.search(r"%|\bpercent|\bratio|\brate\b|\bmargin", label):
        return True
    stems = {w[:5] for w in words - _RATES if len(w) > 2}
    return any(t[:5] in stems for t in re.findall(r"[a-z]+", label) if len(t) > 2)


def stated_scale(texts: list[str], row: str | None = None) -> tuple[str, str] | None:
    """("£", "million") for a table headed "£m"; ("", "thousand") for "(in thousands)"; None when no text
    states a scale. A scale with an exception ("except per share amounts") is a row's only when the `row`
    label is given and is not one the exception names."""
    joined = " | ".join(t for t in texts if t)
    exception = _EXCEPT.search(joined)
    if exception and (row is None or excepted(row, exception.group(1))):
        return None
    if row is not None and _PER_SHARE.search(row):
        return None  # a figure per share is never scaled, though many tables leave the exception unsaid
    for match in _SCALE.finditer(joined):
        word = match.group("word") or match.group("zeros") or match.group("zeros2") or match.group("zeros3") \
            or match.group("letter") or match.group("coded")
        code = match.group("code") or match.group("code3") or ""
        sign = match.group("sign") or match.group("sign2") or _CODE_SIGNS.get(code.lower()) \
            or next((c for c in "$€£¥" if c in joined), "") \
            or next((sign for words, sign in _CURRENCY_WORDS.items() if re.search(rf"\b{words}\b", joined, re.I)), "")
        return sign, _SCALE_WORDS[word.lower()]
    return None
