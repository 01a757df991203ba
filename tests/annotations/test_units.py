"""Quantities are parsed with their units and normalized so they compare across files."""
import pytest

from core.annotations.units import convert, header_unit, parse_quantity, to_base, unit_of_label


@pytest.mark.parametrize("text, label, kind, base", [
    ("1,722 mm", "Dimensions", "length", 1.722),
    ("1.048", "W [m]", "length", 1.048),
    ("45", "width_cm", "length", 0.45),
    ("1134", "Width (mm)", "length", 1.134),
    ("0.38", "Pmax kW", "power", 380.0),
    ("21.5kg", "Weight", "mass", 21.5),
    ("20.5 %", "Efficiency", "percent", 20.5),
])
def test_units_from_the_cell_or_the_column_label(text, label, kind, base):
    quantity = parse_quantity(text, unit_of_label(label))
    assert quantity.kind == kind and quantity.base == pytest.approx(base)
    assert quantity.text == text  # the original is kept


@pytest.mark.parametrize("text, code, amount", [("$1,299.00", "USD", 1299.0), ("12,50 €", "EUR", 12.5),
                                               ("RM 12.50", "MYR", 12.5)])
def test_currencies_keep_their_code_and_are_never_converted(text, code, amount):
    quantity = parse_quantity(text)
    assert (quantity.kind, quantity.unit, quantity.base) == ("currency", code, amount)


def test_accounting_negatives_and_non_numbers():
    assert parse_quantity("(1,234)").number == -1234
    # the currency sign outside the brackets or inside them: a negative amount in that currency
    assert (parse_quantity("$(17,334)").number, parse_quantity("$(17,334)").unit) == (-17334, "USD")
    assert parse_quantity("(£618)").number == -618
    assert (parse_quantity("(149)%").number, parse_quantity("(149)%").unit) == (-149, "%")  # a percent sign after them
    assert parse_quantity("HX-450") is None and parse_quantity("2024-01-03") is None


def test_thresholds_from_questions_use_the_same_base_units():
    assert to_base(1.2, "m") == (1.2, "length")
    assert to_base(1200, "mm") == pytest.approx((1.2, "length"))


@pytest.mark.parametrize("header, unit", [
    ("Power [hp]", "hp"), ("Load (lb)", "lb"), ("Late fee (p)", "p"), ("Cost (EUR)", "€"), ("Deposit (£)", "£"),
    ("Route_km", "km"), ("Distance_mi", "mi"), ("Discount %", "%"), ("Litres", "L"), ("Hrs", "h"),
    ("Wait (min)", "min"), ("Flow (l/s)", "l/s"), ("Budget (£k)", "£k"), ("Tank gal", "gal"),
    ("Area sq mi", "mi²"), ("Area (sq mi)", "mi²"), ("Floor area (sq ft)", "ft²"), ("Site (ha)", "ha"), ("Plot m2", "m²"),
    ("Price/gal", None), ("Volume cu ft", None), ("W", None), ("Grade A", None), ("Pages", None), ("Name", None),
    ("2024 52 weeks", None), ("Relay 10 km", None), ("2024 %", "%"),  # how long a period or a course is: no unit of the cells
])
def test_the_unit_a_header_names_in_one_spelling(header, unit):
    assert header_unit(header) == unit


def test_convert_between_units_of_one_kind_only():
    assert convert(150, "hp", "kW") == pytest.approx(111.855, rel=1e-4)
    assert convert(55, "lb", "kg") == pytest.approx(24.948, rel=1e-4)
    assert convert(40, "gal", "L") == pytest.approx(151.42, rel=1e-4)
    assert convert(300, "p", "£") == pytest.approx(3.0)
    assert convert(90, "min", "h") == pytest.approx(1.5)
    assert convert(10, "mi", "km") == pytest.approx(16.0934, rel=1e-4)
    assert convert(80, "square metres", "ft²") == pytest.approx(861.11, rel=1e-4)  # an area, not a length
    assert convert(2, "acres", "ha") == pytest.approx(0.80937, rel=1e-4) and convert(80, "sq m", "m") is None
    assert convert(1500, "GB", "TB") == pytest.approx(1.5) and convert(512, "megabytes", "GB") == pytest.approx(0.512)
    assert convert(1, "€", "£") is None and convert(1, "kg", "h") is None and convert(1, "furlong", "m") is None


@pytest.mark.parametrize("texts, row, scale", [
    (["(shares in thousands, except per share data)"], "Basic weighted average common shares outstanding", ("", "thousand")),
    (["(shares in thousands, except per share data)"], "Basic net income per share", None),
    (["(In millions, except percentages and per share amounts)"], "Net revenue", ("", "million")),
    (["(In millions, except percentages and per share amounts)"], "Gross margin %", None),
    (["(in thousands of U.S. dollars, except calendar-ship-days)"], "Income from vessel operations", ("$", "thousand")),
    (["(in thousands of U.S. dollars, except calendar-ship-days)"], "Calendar-ship-days", None),
    (["All figures in USD ‘000, except TCE rate per day"], "Voyage revenue", ("$", "thousand")),
    (["All figures in USD ‘000, except TCE rate per day"], "TCE rate per day", None),
    (["(in thousands, except per share data)"], None, None),  # no row named: some rows are not scaled
    (["Comparison of 2019 to 2018 (in 000’s)"], "Net sales", ("", "thousand")),
    (["Results ($000s)"], "Net sales", ("$", "thousand")),
    (["2019 RMB’Million"], "Disposals", ("", "million")),  # another currency's code before its scale
    (["Group RM'000"], "Revenue", ("", "thousand")),
    (["USD million"], "Revenue", ("$", "million")),
    (["$ MILLION"], "Sales", ("$", "million")),
    (["EBITDA m", "Q4 2019"], "Sales", None),  # a longer capitalised word is no currency code
    (["(in million)"], "Goodwill", ("", "million")),  # the singular, as some reports print it
    (["Growth in million-dollar contracts"], "Sales", None),  # a compound word is no scale
])
def test_a_scale_with_an_exception_scales_every_row_but_those_it_names(texts, row, scale):
    from core.annotations.units import stated_scale
    assert stated_scale(texts, row) == scale
