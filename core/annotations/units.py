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
    match = _QUANTITY.match(raw.replace("(", "").replace(")", "") if raw.startswith("(") else raw)
    if not match:
        return None
    number = parse_number(match.group("num"))
    if raw.startswith("(") and raw.endswith(")") and number is not None:
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


# Units a question may state a bound in, and a header may print its column in, beyond the measured
# quantities above: code converts between any two of one kind (issue 22: "bigger than 150 hp" over a
# "Power [kW]" column). Money converts only within one currency (pence and pounds); "Ml" is megalitres.
CONVERSIONS: dict[str, tuple[str, float]] = {
    **{u: kind_factor for u, kind_factor in UNITS.items() if kind_factor[0] in ("length", "mass", "power")},
    "hp": ("power", 745.699872), "bhp": ("power", 745.699872), "ps": ("power", 735.49875),
    "tonne": ("mass", 1000.0), "tonnes": ("mass", 1000.0), "ton": ("mass", 1000.0), "tons": ("mass", 1000.0),
    "mi": ("length", 1609.344), "mile": ("length", 1609.344), "miles": ("length", 1609.344),
    "l": ("volume", 1.0), "litre": ("volume", 1.0), "litres": ("volume", 1.0), "liter": ("volume", 1.0),
    "liters": ("volume", 1.0), "gal": ("volume", 3.785411784), "gallon": ("volume", 3.785411784),
    "gallons": ("volume", 3.785411784), "m3": ("volume", 1000.0), "m³": ("volume", 1000.0), "Ml": ("volume", 1e6),
    "l/s": ("flow", 1.0), "m3/h": ("flow", 1000.0 / 3600), "m³/h": ("flow", 1000.0 / 3600),
    "s": ("time", 1.0), "sec": ("time", 1.0), "min": ("time", 60.0), "mins": ("time", 60.0), "minute": ("time", 60.0),
    "minutes": ("time", 60.0), "h": ("time", 3600.0), "hr": ("time", 3600.0), "hrs": ("time", 3600.0),
    "hour": ("time", 3600.0), "hours": ("time", 3600.0), "day": ("time", 86400.0), "days": ("time", 86400.0),
    "week": ("time", 604800.0), "weeks": ("time", 604800.0),
    "p": ("GBP", 0.01), "pence": ("GBP", 0.01), "£": ("GBP", 1.0), "gbp": ("GBP", 1.0),
    "c": ("EUR", 0.01), "cent": ("EUR", 0.01), "cents": ("EUR", 0.01), "€": ("EUR", 1.0), "eur": ("EUR", 1.0),
    "euro": ("EUR", 1.0), "euros": ("EUR", 1.0),
    "$": ("USD", 1.0), "usd": ("USD", 1.0), "dollar": ("USD", 1.0), "dollars": ("USD", 1.0),
    "%": ("percent", 1.0), "percent": ("percent", 1.0),
}


def unit_kind(unit: str | None) -> tuple[str, float] | None:
    """(kind, factor to the kind's base) of a unit as written, "Ml" (megalitres) kept apart from "ml"."""
    if not unit:
        return None
    unit = unit.strip()
    return CONVERSIONS.get(unit) or CONVERSIONS.get(unit.lower())


def convert(value: float, from_unit: str, to_unit: str) -> float | None:
    """`value` in `from_unit` expressed in `to_unit`; None when they measure different things."""
    a, b = unit_kind(from_unit), unit_kind(to_unit)
    if a is None or b is None or a[0] != b[0]:
        return None
    return value * a[1] / b[1]
