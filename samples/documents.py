"""Generate the demo documents a first-time DocuChat user can ask questions about
(`python -m samples`; the app's "Load sample documents" button calls make_samples directly).

Everything is fixed content (the CSV comes from a seeded generator) and the PDFs are written in
reportlab's invariant mode, so two runs give byte-identical files. The company, products, vendors
and people are fictional.
"""
from __future__ import annotations

import csv
import datetime as dt
import random
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "data" / "samples"

HANDBOOK = "Helios_Product_Handbook.pdf"
SPEC_SHEETS = "Panel_Spec_Sheets.pdf"
RECEIPTS = "Receipts_2024.pdf"
SPECS_XLSX = "Product_Specs_by_Maker.xlsx"
ORDERS_CSV = "orders_2023_2024.csv"
README = "README_samples.md"
ALL_FILES = (HANDBOOK, SPEC_SHEETS, RECEIPTS, SPECS_XLSX, ORDERS_CSV, README)

CENT = Decimal("0.01")


def money(value: Decimal | str | float) -> Decimal:
    return Decimal(str(value)).quantize(CENT, rounding=ROUND_HALF_UP)


# --- shared PDF styling ---------------------------------------------------------------------------

def _styles():
    from reportlab.lib import colors
    from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet

    base = getSampleStyleSheet()
    return {
        "title": ParagraphStyle("DocTitle", parent=base["Title"], fontSize=20, leading=24, spaceAfter=6),
        "subtitle": ParagraphStyle("Sub", parent=base["Normal"], fontSize=11, leading=14, textColor=colors.HexColor("#555555"), spaceAfter=14),
        "h1": ParagraphStyle("H1", parent=base["Heading1"], fontSize=15, leading=19, spaceBefore=10, spaceAfter=6, textColor=colors.HexColor("#1F4E79")),
        "h2": ParagraphStyle("H2", parent=base["Heading2"], fontSize=12, leading=15, spaceBefore=8, spaceAfter=4),
        "body": ParagraphStyle("Body", parent=base["BodyText"], fontSize=10.5, leading=14, spaceAfter=7),
        "bullet": ParagraphStyle("Bullet", parent=base["BodyText"], fontSize=10.5, leading=14, leftIndent=14, bulletIndent=4, spaceAfter=3),
        "spec": ParagraphStyle("Spec", parent=base["BodyText"], fontSize=10.5, leading=15),
        "small": ParagraphStyle("Small", parent=base["BodyText"], fontSize=9, leading=12, textColor=colors.HexColor("#444444")),
    }


def _document(path: Path, title: str, footer: str):
    """An A4 document in invariant mode (no timestamps or random ids in the file), with a footer
    drawn after each page's content so the extracted text of a page starts with its heading."""
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.units import mm
    from reportlab.platypus import SimpleDocTemplate

    class FooterDocument(SimpleDocTemplate):
        def afterPage(self):
            canvas = self.canv
            canvas.saveState()
            canvas.setFont("Helvetica", 8)
            canvas.drawString(20 * mm, 12 * mm, footer)
            canvas.drawRightString(A4[0] - 20 * mm, 12 * mm, f"Page {self.page}")
            canvas.restoreState()

    return FooterDocument(
        str(path), pagesize=A4, invariant=1, title=title, author="DocuChat sample generator",
        leftMargin=20 * mm, rightMargin=20 * mm, topMargin=18 * mm, bottomMargin=20 * mm,
    )


def _grid_table(rows: list[list[str]], widths: list[float], numeric_from: int = 1):
    from reportlab.lib import colors
    from reportlab.platypus import Table, TableStyle

    table = Table(rows, colWidths=widths, hAlign="LEFT")
    table.setStyle(TableStyle([
        ("FONT", (0, 0), (-1, 0), "Helvetica-Bold", 9.5),
        ("FONT", (0, 1), (-1, -1), "Helvetica", 9.5),
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#DCE6F1")),
        ("GRID", (0, 0), (-1, -1), 0.5, colors.HexColor("#7F7F7F")),
        ("ALIGN", (numeric_from, 1), (-1, -1), "RIGHT"),
        ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
        ("TOPPADDING", (0, 0), (-1, -1), 3),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
    ]))
    return table


# --- 1. the product handbook ------------------------------------------------------------------------

HANDBOOK_CHAPTERS: list[tuple[str, list[tuple[str, list[str]]]]] = [
    ("1. Introduction", [
        ("About this handbook", [
            "This handbook covers the Helios Energy HX series of photovoltaic modules: the HX-400 and "
            "HX-450 monocrystalline modules and the HX-550 Bifacial glass-glass module. It is written for "
            "homeowners, facility managers and certified installers, and it explains how the modules are "
            "installed, how to work on them safely, what the warranty covers, how to maintain them and what "
            "to do when the system does not perform as expected.",
            "Read the whole handbook before the modules are unpacked. Keep it with the documents of the "
            "building, because the warranty terms in chapter 4 apply to every later owner of the system as "
            "well. Technical values for each model are given in the separate HX series specification sheets; "
            "where this handbook and a specification sheet differ, the specification sheet is authoritative.",
        ]),
        ("About Helios Energy", [
            "Helios Energy designs and manufactures solar modules for residential and light commercial "
            "roofs. The company was founded in 2009 in Tucson, Arizona, and has assembled its modules in its "
            "own plant in Porto, Portugal, since 2016. Every module leaves the factory after an "
            "electroluminescence inspection and a flash test, and the measured power of each module is "
            "printed on the label on the back of its frame next to the serial number.",
            "The HX series uses half-cut monocrystalline cells, which lose less power when part of the "
            "module is shaded, and a 30 mm anodised aluminium frame (35 mm on the HX-550 Bifacial). All "
            "modules are certified to IEC 61215 and IEC 61730 and are rated for a snow load of 5400 Pa and "
            "a wind load of 2400 Pa when they are mounted as described in chapter 2.",
        ]),
        ("How the modules produce power", [
            "A module produces direct current (DC) whenever light falls on it, including on overcast days and "
            "under artificial light. An inverter converts that direct current into alternating current for "
            "the building and the grid. The energy a system produces over a year depends mostly on the "
            "orientation and tilt of the roof, on shading, and on the temperature of the cells: the power of "
            "a module falls by about 0.35 % for every degree Celsius the cells are above 25 degrees.",
        ]),
    ]),
    ("2. Planning and installation", [
        ("Site assessment", [
            "Installation must be carried out by an installer certified by Helios Energy or by a licensed "
            "electrician who follows this handbook; installation by anyone else voids the product warranty. "
            "Before the system is designed, the installer checks the condition and load capacity of the roof, "
            "the shading from chimneys, trees and neighbouring buildings throughout the year, and the route "
            "of the cables to the inverter and the main distribution board.",
            "In the northern hemisphere the best yield comes from modules facing south at a tilt between 25 "
            "and 35 degrees; east and west facing roofs produce roughly 15 % less energy over a year but "
            "spread the production more evenly across the day. Modules must not be installed at a tilt of "
            "less than 10 degrees, because rain would no longer clean the glass.",
        ]),
        ("Mounting", [
            "Modules are fixed to the mounting rails with four clamps, placed within the clamping zones marked "
            "on the long sides of the frame, between 280 mm and 420 mm from each corner. Tighten the clamp "
            "bolts to a torque between 8 and 12 N m. Never drill additional holes into the frame and never "
            "clamp a module on its short sides only.",
            "Leave a gap of at least 20 mm between neighbouring modules so that the frames can expand in hot "
            "weather, and keep at least 100 mm between the back of the modules and the roof surface so that "
            "air can circulate and cool the cells. On buildings within 500 m of the sea, use stainless steel "
            "fasteners and the marine-rated version of the mounting kit.",
        ]),
        ("Electrical connection", [
            "The modules have 1.2 m cables with MC4-compatible connectors. Only connect them to connectors "
            "of the same type and manufacturer; mixing connector brands is the most common cause of "
            "isolation faults. Modules are connected in series to form strings, and the open circuit voltage "
            "of a string at the lowest expected temperature must stay below the maximum system voltage of "
            "1500 V DC and below the input limit of the inverter.",
            "The metal frames and the mounting structure must be bonded to the protective earth of the "
            "building using the grounding holes marked on the frame. After the connection, the installer "
            "measures the open circuit voltage and the short circuit current of every string, records the "
            "values in the commissioning report and hands a copy of the report to the owner. The report is "
            "required for any warranty claim.",
        ]),
    ]),
    ("3. Safety", [
        ("Electrical hazards", [
            "A single module in sunlight produces a voltage of up to 50 V, and a string of modules produces "
            "several hundred volts of direct current, which can cause a fatal electric shock and can sustain "
            "an electric arc. Modules cannot be switched off: they are live whenever they are exposed to "
            "light. Before working on the wiring, cover the modules with an opaque sheet or work at night, and "
            "always switch off the inverter and open the DC isolator first.",
            "Never disconnect a connector while current is flowing, never touch the terminals or the ends of "
            "cables with bare hands, and do not wear metal rings, watches or bracelets while working on the "
            "system. Use insulated tools rated for at least 1000 V.",
        ]),
        ("Working at height and handling", [
            "Work on roofs only with fall protection that complies with local regulations, and never work "
            "alone on a roof or in wet, icy or windy conditions. Carry modules with two people, holding them "
            "by the frame, with the glass facing up. Do not stand, walk or sit on a module, do not place tools "
            "on the glass, and never lift a module by its cables or its junction box.",
        ]),
        ("Damaged modules and fire", [
            "A module with broken glass, a burnt junction box or a damaged back sheet is still producing "
            "voltage and can give an electric shock. Do not touch it; switch off the inverter, keep people "
            "away and call your installer. In case of fire, tell the fire service that the building has a "
            "photovoltaic system on the roof and where the DC isolator is located. The modules must not be "
            "extinguished with water jets while they are exposed to light.",
        ]),
    ]),
    ("4. Warranty terms", [
        ("Product warranty: 12 years", [
            "Helios Energy warrants that every HX series module is free from defects in materials and "
            "workmanship for 12 years from the date of delivery to the first end customer, or 12 years and 6 "
            "months from the date of manufacture, whichever ends first. Defects covered by the product warranty "
            "include delamination, failure of the junction box or the bypass diodes, corrosion of the frame, "
            "and cracks in the glass that are not caused by an external impact.",
        ]),
        ("Power output warranty: 25 years", [
            "Helios Energy also warrants a linear power output for 25 years. During the first year, each "
            "module delivers at least 98 % of the nominal power printed on its label. From the second year "
            "on, the output declines by no more than 0.55 % of the nominal power per year, so that at the end "
            "of year 25 the module still delivers at least 84.8 % of its nominal power. For the HX-550 "
            "Bifacial the first-year value is 98.5 % and the annual decline is at most 0.45 %, which leaves "
            "at least 87.7 % after 25 years. Power is measured at standard test conditions (STC), with a "
            "measurement tolerance of 3 %.",
        ]),
        ("Making a claim", [
            "Report a suspected defect to your installer or to Helios Energy customer support within 60 days "
            "of discovering it, and in any case before the warranty period ends. A claim must include the proof "
            "of purchase, the serial numbers of the affected modules, the commissioning report and photographs "
            "of the modules and their labels. If the defect is confirmed, Helios Energy will, at its choice, "
            "repair the module, replace it with an equivalent module, or refund its residual value. The "
            "warranty period is not extended for repaired or replaced modules.",
        ]),
        ("What the warranty does not cover", [
            "The warranties do not cover damage caused by installation that does not follow this handbook, "
            "installation by an installer who is neither certified by Helios Energy nor a licensed "
            "electrician, modification of the modules, cleaning with pressure washers or abrasive products, "
            "lightning, fire, flood, hail stones larger than 25 mm, or salt mist corrosion on sites within "
            "500 m of the sea unless marine-rated mounting was used. Cosmetic changes that do not reduce "
            "power, such as slight discoloration of the frame, are not defects. The warranties can be "
            "transferred once to a new owner of the building if Helios Energy is notified within 90 days of "
            "the sale.",
        ]),
    ]),
    ("5. Maintenance", [
        ("Routine checks", [
            "Solar modules need little maintenance, but a short routine keeps the yield high and finds faults "
            "early. Once a month, compare the energy reported by the inverter or the monitoring app with the "
            "same month of the previous year. Twice a year, in spring and in autumn, look at the modules from "
            "the ground with binoculars and check for soiling, leaves, bird droppings, broken glass and loose "
            "cables. Once a year, or after a severe storm, have a qualified person check the connectors, the "
            "fastening of the clamps and the insulation resistance of each string.",
        ]),
        ("Cleaning", [
            "In most climates rain keeps the modules clean enough. Where dust, pollen or bird droppings reduce "
            "the yield by more than about 5 %, clean the modules early in the morning or in the evening, when "
            "the glass is cool. Use a soft brush or sponge and clean water at ambient temperature; in areas with "
            "hard water use deionised water to avoid lime stains. Do not use detergents, solvents, scouring "
            "pads or pressure washers, and never spray cold water on hot glass, because the thermal shock can "
            "crack it. Cleaning with a pressure washer voids the warranty.",
        ]),
        ("Snow, vegetation and animals", [
            "Let snow slide off the modules by itself. If it has to be removed, use a soft roof rake with a "
            "plastic blade and never metal scrapers or salt. Keep trees trimmed so that they do not shade the "
            "modules, and fit mesh guards around the edge of the array if pigeons nest under it or squirrels "
            "chew the cables. Record every inspection, cleaning and repair in the maintenance log at the end of "
            "the commissioning report.",
        ]),
    ]),
    ("6. Troubleshooting and contact", [
        ("Common problems", [
            "Lower yield than expected: first compare with the same month of last year, because production in "
            "winter can be less than a quarter of that in summer. Then check for new shading, soiling or snow, "
            "and whether the inverter shows an error. A single string producing much less than the others "
            "usually points to a disconnected connector or a faulty bypass diode.",
            "Inverter reports an isolation fault or ground fault: this is often caused by moisture in a "
            "connector or by cable insulation damaged by animals. Do not reset the inverter repeatedly; switch "
            "it off and ask your installer to measure the insulation resistance of each string.",
            "A string produces no power at all: check that the DC isolator is closed and that the string fuse, "
            "if fitted, has not blown. A blown fuse is a symptom of another fault and must only be replaced by "
            "a qualified person after the cause has been found.",
            "Visible changes on a module, such as brown lines on the cells, bubbles in the back sheet, cracked "
            "glass or a hot spot on a thermal image: take photographs, note the serial number and report it as "
            "described in chapter 4.",
        ]),
        ("Contact", [
            "Helios Energy customer support is available Monday to Friday from 8:00 to 18:00 Central European "
            "Time. Phone: +351 22 555 0142. E-mail: support@helios-energy.example. Warranty claims can also be "
            "filed online at helios-energy.example/warranty. Postal address: Helios Energy Lda., Rua do Sol 120, "
            "4100-001 Porto, Portugal.",
            "When you contact support, have ready the serial numbers of the modules (printed on the label on "
            "the back of the frame, in the format HX-YYWW-NNNNNN), the date of installation, the name of your "
            "installer and a description of the problem.",
        ]),
    ]),
]


def make_handbook(path: Path) -> None:
    from reportlab.platypus import PageBreak, Paragraph

    styles = _styles()
    doc = _document(path, "Helios Energy Product Handbook", "Helios Energy - HX Series Product Handbook - Edition 2024")
    story = [
        Paragraph("Helios Energy Product Handbook", styles["title"]),
        Paragraph("HX Series Photovoltaic Modules - Installation, Safety, Warranty and Maintenance - Edition 2024", styles["subtitle"]),
    ]
    for number, (chapter, sections) in enumerate(HANDBOOK_CHAPTERS):
        if number:
            story.append(PageBreak())
        story.append(Paragraph(chapter, styles["h1"]))
        for heading, paragraphs in sections:
            story.append(Paragraph(heading, styles["h2"]))
            story.extend(Paragraph(text, styles["body"]) for text in paragraphs)
    doc.build(story)


# --- 2. the spec sheets ------------------------------------------------------------------------------

PANELS = [
    {
        "model": "HX-400", "name": "HX-400 Monocrystalline Module", "cells": "108 half-cut monocrystalline cells",
        "dims": (1722, 1134, 30), "weight": 21.5, "pmax": 400, "vmp": 37.1, "imp": 10.78, "voc": 44.9, "isc": 11.45,
        "fuse": 20, "glass": "3.2 mm tempered glass, anti-reflective coating", "bifacial": None,
        "intro": "A compact residential module for roofs with limited space and standard rafters.",
    },
    {
        "model": "HX-450", "name": "HX-450 Monocrystalline Module", "cells": "120 half-cut monocrystalline cells",
        "dims": (1903, 1134, 30), "weight": 24.2, "pmax": 450, "vmp": 41.5, "imp": 10.85, "voc": 49.6, "isc": 11.52,
        "fuse": 20, "glass": "3.2 mm tempered glass, anti-reflective coating", "bifacial": None,
        "intro": "The all-round module for residential and small commercial roofs.",
    },
    {
        "model": "HX-550 Bifacial", "name": "HX-550 Bifacial Glass-Glass Module", "cells": "144 half-cut bifacial cells",
        "dims": (2278, 1134, 35), "weight": 32.0, "pmax": 550, "vmp": 41.9, "imp": 13.13, "voc": 49.8, "isc": 13.98,
        "fuse": 25, "glass": "2.0 mm + 2.0 mm heat-strengthened glass", "bifacial": 70,
        "intro": "A glass-glass module that also converts light reflected onto its rear side; "
                 "for flat roofs, carports and ground-mounted systems.",
    },
]


def panel_efficiency(panel: dict) -> float:
    length, width, _ = panel["dims"]
    return round(panel["pmax"] / (length * width / 1e6) / 10, 1)  # W/m2 at 1000 W/m2 -> %


def _electrical_rows(panel: dict) -> list[list[str]]:
    # NOCT: 800 W/m2 irradiance, 20 degC ambient, 1 m/s wind
    p_noct = round(panel["pmax"] * 0.753)
    vmp_noct = round(panel["vmp"] * 0.94, 1)
    return [
        ["Parameter", "Symbol", "STC", "NOCT"],
        ["Maximum power (W)", "Pmax", f"{panel['pmax']}", f"{p_noct}"],
        ["Voltage at maximum power (V)", "Vmp", f"{panel['vmp']:.1f}", f"{vmp_noct:.1f}"],
        ["Current at maximum power (A)", "Imp", f"{panel['imp']:.2f}", f"{p_noct / vmp_noct:.2f}"],
        ["Open circuit voltage (V)", "Voc", f"{panel['voc']:.1f}", f"{panel['voc'] * 0.943:.1f}"],
        ["Short circuit current (A)", "Isc", f"{panel['isc']:.2f}", f"{panel['isc'] * 0.807:.2f}"],
        ["Module efficiency (%)", "Eff", f"{panel_efficiency(panel):.1f}", "-"],
    ]


def make_spec_sheets(path: Path) -> None:
    from reportlab.lib.units import mm
    from reportlab.platypus import PageBreak, Paragraph, Spacer

    styles = _styles()
    doc = _document(path, "HX Series Specification Sheets", "Helios Energy - HX Series Specification Sheets - 2024")
    story = []
    for number, panel in enumerate(PANELS):
        if number:
            story.append(PageBreak())
        length, width, depth = panel["dims"]
        story += [
            Paragraph(f"Helios Energy {panel['name']}", styles["title"]),
            Paragraph(panel["intro"], styles["subtitle"]),
            Paragraph("Mechanical data", styles["h2"]),
        ]
        lines = [
            f"Model: {panel['model']}",
            f"Dimensions: {length} x {width} x {depth} mm",
            f"Weight: {panel['weight']:.1f} kg",
            f"Cells: {panel['cells']}",
            f"Front cover: {panel['glass']}",
            f"Frame: anodised aluminium alloy, {depth} mm",
            "Junction box: IP68, 3 bypass diodes",
            "Connectors: MC4-compatible, cable length 1.2 m",
            "Mechanical load: 5400 Pa snow / 2400 Pa wind",
        ]
        story += [Paragraph(line, styles["spec"]) for line in lines]
        story.append(Paragraph("Performance and ratings", styles["h2"]))
        lines = [
            f"Max power: {panel['pmax']} W",
            f"Efficiency: {panel_efficiency(panel):.1f} %",
            "Power tolerance: 0 / +5 W",
            "Temperature coefficient of Pmax: -0.35 %/°C",
            "Operating temperature: -40 to +85 °C",
            "Maximum system voltage: 1500 V DC",
            f"Maximum series fuse rating: {panel['fuse']} A",
        ]
        if panel["bifacial"]:
            lines.append(f"Bifaciality: {panel['bifacial']} % ± 5 %")
        lines.append("Warranty: 12 years product / 25 years linear power output")
        story += [Paragraph(line, styles["spec"]) for line in lines]
        story += [
            Paragraph("Electrical characteristics", styles["h2"]),
            _grid_table(_electrical_rows(panel), [68 * mm, 22 * mm, 25 * mm, 25 * mm], numeric_from=2),
            Spacer(1, 4 * mm),
            Paragraph(
                "STC: irradiance 1000 W/m², cell temperature 25 °C, air mass AM 1.5. NOCT: irradiance "
                "800 W/m², ambient temperature 20 °C, wind speed 1 m/s. Values are typical; the measured power "
                "of each module is printed on its label.",
                styles["small"],
            ),
        ]
    doc.build(story)


# --- 3. the receipts ---------------------------------------------------------------------------------

VENDORS = {
    "QuickFit Tyres": ("Unit 4, Brunel Trading Estate, Reading RG2 0QX", "GB 284 1190 57", "01189 555 210"),
    "AutoParts Direct": ("88 Kingsway, Manchester M19 2LL", "GB 731 4402 18", "0161 555 7734"),
    "Green Garden Supplies": ("Mill Lane Nursery, Henley-on-Thames RG9 4HB", "GB 512 0098 43", "01491 555 386"),
}

RECEIPT_DATA = [
    ("QuickFit Tyres", "QF-24-0117", dt.date(2024, 1, 18), "Visa ending 4821", [
        ("Continental EcoContact 6 205/55 R16 tyre", 2, "92.50"),
        ("Tyre fitting and wheel balancing", 2, "15.00"),
        ("Valve replacement", 2, "3.50"),
        ("Old tyre disposal", 2, "2.50"),
    ]),
    ("AutoParts Direct", "APD-558213", dt.date(2024, 2, 27), "Mastercard ending 1177", [
        ("Brake pads, front set (Ford Transit)", 1, "48.99"),
        ("Engine oil 5W-30, 5 L", 1, "34.95"),
        ("Oil filter", 1, "8.49"),
        ("Wiper blades 24 in, pair", 1, "17.90"),
    ]),
    ("Green Garden Supplies", "GGS-3391", dt.date(2024, 4, 9), "Cash", [
        ("Multipurpose compost 60 L bag", 4, "6.99"),
        ("Wheelbarrow puncture-proof tyre 14 in", 1, "24.99"),
        ("Bypass pruning shears", 1, "19.50"),
        ("Tomato seedlings, tray of 6", 2, "4.25"),
    ]),
    ("QuickFit Tyres", "QF-24-0642", dt.date(2024, 6, 21), "Visa ending 4821", [
        ("Michelin CrossClimate 2 215/60 R17 tyre", 4, "128.00"),
        ("Tyre fitting and wheel balancing", 4, "15.00"),
        ("Four-wheel alignment", 1, "49.00"),
        ("Tyre pressure sensor service kit", 4, "6.50"),
    ]),
    ("AutoParts Direct", "APD-571946", dt.date(2024, 9, 3), "Mastercard ending 1177", [
        ("All-season tires 195/65 R15, set of 2", 1, "139.98"),
        ("Digital tire pressure gauge", 1, "12.99"),
        ("Car battery 12 V 70 Ah", 1, "94.50"),
        ("Battery terminal cleaner spray", 1, "5.49"),
    ]),
    ("Green Garden Supplies", "GGS-4020", dt.date(2024, 11, 15), "Debit card ending 3056", [
        ("Leaf rake, wide head", 1, "14.99"),
        ("Garden fleece 10 m", 2, "7.49"),
        ("Hanging bird feeder", 1, "11.25"),
        ("Mixed spring bulbs, pack of 50", 1, "9.99"),
    ]),
]
VAT_RATE = Decimal("0.20")


def receipt_totals(items: list[tuple[str, int, str]]) -> tuple[Decimal, Decimal, Decimal]:
    subtotal = sum((money(price) * qty for _, qty, price in items), Decimal("0"))
    tax = money(subtotal * VAT_RATE)
    return money(subtotal), tax, money(subtotal + tax)


def make_receipts(path: Path) -> None:
    from reportlab.lib.units import mm
    from reportlab.platypus import PageBreak, Paragraph, Spacer

    styles = _styles()
    doc = _document(path, "Receipts 2024", "Receipts 2024 - Helios Energy service vehicles and grounds")
    story = []
    for number, (vendor, receipt_no, date, payment, items) in enumerate(RECEIPT_DATA):
        if number:
            story.append(PageBreak())
        address, vat_no, phone = VENDORS[vendor]
        story += [
            Paragraph(vendor, styles["title"]),
            Paragraph(f"{address} - Tel. {phone}", styles["small"]),
            Paragraph(f"VAT registration no.: {vat_no}", styles["subtitle"]),
            Paragraph("RECEIPT", styles["h1"]),
            Paragraph(f"Receipt no.: {receipt_no}", styles["spec"]),
            Paragraph(f"Date: {date.isoformat()} ({date.strftime('%d %B %Y')})", styles["spec"]),
            Paragraph("Customer: Helios Energy Ltd, UK service office", styles["spec"]),
            Spacer(1, 5 * mm),
        ]
        rows = [["Description", "Qty", "Unit price (GBP)", "Amount (GBP)"]]
        for description, qty, price in items:
            rows.append([description, str(qty), f"{money(price):.2f}", f"{money(price) * qty:.2f}"])
        subtotal, tax, total = receipt_totals(items)
        rows += [
            ["Subtotal", "", "", f"{subtotal:.2f}"],
            [f"VAT {int(VAT_RATE * 100)} %", "", "", f"{tax:.2f}"],
            ["Total", "", "", f"{total:.2f}"],
        ]
        table = _grid_table(rows, [85 * mm, 15 * mm, 35 * mm, 35 * mm])
        table.setStyle([("FONT", (0, -1), (-1, -1), "Helvetica-Bold", 9.5)])
        story += [
            table,
            Spacer(1, 5 * mm),
            Paragraph(f"Subtotal: £{subtotal:.2f}", styles["spec"]),
            Paragraph(f"VAT (20 %): £{tax:.2f}", styles["spec"]),
            Paragraph(f"Total paid: £{total:.2f}", styles["spec"]),
            Paragraph(f"Payment: {payment}", styles["spec"]),
            Spacer(1, 6 * mm),
            Paragraph(f"Thank you for shopping at {vendor}. Please keep this receipt as proof of purchase.", styles["small"]),
        ]
    doc.build(story)


# --- 4. the spreadsheet from two makers ------------------------------------------------------------

HELIOS_SHEET = [
    # Model, Width (mm), Height (mm), Depth (mm), Weight (kg), Power (W), Efficiency (%)
    ("HX-330 Compact", 1134, 1480, 30, 18.4, 330, 19.7),
    ("HX-400", 1134, 1722, 30, 21.5, 400, 20.5),
    ("HX-450", 1134, 1903, 30, 24.2, 450, 20.9),
    ("HX-550 Bifacial", 1134, 2278, 35, 32.0, 550, 21.3),
]
SUNPEAK_SHEET = [
    # Type, W [m], H [m], D [m], Mass [kg], Pmax kW, Cells
    ("SP-M 0.38", 1.048, 1.765, 0.035, 19.8, 0.38, 120),
    ("SP-M 0.43", 1.134, 1.762, 0.030, 21.0, 0.43, 108),
    ("SP-X 0.60", 1.303, 2.384, 0.035, 34.5, 0.60, 120),
]


def make_specs_xlsx(path: Path) -> None:
    import openpyxl
    from openpyxl.styles import Alignment, Font

    book = openpyxl.Workbook()
    helios = book.active
    helios.title = "Helios Energy"
    helios["A1"] = "Helios Energy - HX series module specifications (2024)"
    helios.merge_cells("A1:G1")
    helios.append(["Model", "Width (mm)", "Height (mm)", "Depth (mm)", "Weight (kg)", "Power (W)", "Efficiency (%)"])
    for row in HELIOS_SHEET:
        helios.append(list(row))
    helios.append(["Note: power and efficiency at STC (1000 W/m2, 25 °C); dimensions are frame outer edges."])

    sunpeak = book.create_sheet("SunPeak Solar")
    sunpeak["A1"] = "SunPeak Solar GmbH - Produktdaten / product data"
    sunpeak.merge_cells("A1:G1")
    sunpeak.append(["Type", "W [m]", "H [m]", "D [m]", "Mass [kg]", "Pmax kW", "Cells"])
    for row in SUNPEAK_SHEET:
        sunpeak.append(list(row))
    sunpeak.append(["Source: SunPeak datasheet rev. C, March 2024. Pmax at STC, tolerance +/- 3 %."])

    for sheet in (helios, sunpeak):
        sheet["A1"].font = Font(bold=True, size=13)
        sheet["A1"].alignment = Alignment(horizontal="center")
        for cell in sheet[2]:
            cell.font = Font(bold=True)
        sheet.column_dimensions["A"].width = 18
    book.properties.creator = "DocuChat sample generator"
    fixed = dt.datetime(2024, 12, 31, 12, 0, 0)
    book.properties.created = fixed
    book.properties.modified = fixed
    book.save(path)
    _freeze_zip(path, fixed)


def _freeze_zip(path: Path, when: dt.datetime) -> None:
    """openpyxl stamps the zip entries (and core.xml) with the current time; pin them."""
    import re
    import zipfile

    stamp = when.strftime("%Y-%m-%dT%H:%M:%SZ")
    with zipfile.ZipFile(path) as src:
        entries = [(info, src.read(info.filename)) for info in src.infolist()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as dst:
        for info, data in entries:
            if info.filename == "docProps/core.xml":
                data = re.sub(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", stamp.encode(), data)
            frozen = zipfile.ZipInfo(info.filename, date_time=when.timetuple()[:6])
            frozen.compress_type = zipfile.ZIP_DEFLATED
            frozen.external_attr = info.external_attr
            dst.writestr(frozen, data)


# --- 5. the orders CSV -------------------------------------------------------------------------------

CUSTOMERS = ["ACME", "Globex", "Initech", "Umbrella Corp", "Stark Industries", "Wayne Enterprises", "Hooli"]
CUSTOMER_WEIGHTS = [5, 4, 4, 2, 2, 2, 1]
PRODUCTS = {
    "HX-400 Panel": Decimal("189.00"),
    "HX-450 Panel": Decimal("219.00"),
    "HX-550 Bifacial Panel": Decimal("289.00"),
    "Mounting Rail Kit": Decimal("64.50"),
    "String Inverter 5 kW": Decimal("1150.00"),
    "MC4 Connector Pack": Decimal("12.90"),
}
ORDER_COUNT = 200
ORDER_SEED = 20232024


def order_rows(count: int = ORDER_COUNT, seed: int = ORDER_SEED) -> list[list[str]]:
    rng = random.Random(seed)
    start = dt.date(2023, 1, 1)
    days = (dt.date(2024, 12, 31) - start).days + 1
    dates = sorted(start + dt.timedelta(days=rng.randrange(days)) for _ in range(count))
    rows = []
    for number, date in enumerate(dates, start=1):
        customer = rng.choices(CUSTOMERS, weights=CUSTOMER_WEIGHTS)[0]
        product = rng.choice(sorted(PRODUCTS))
        quantity = rng.randint(1, 4) if product == "String Inverter 5 kW" else rng.randint(1, 40)
        price = PRODUCTS[product]
        rows.append([
            f"ORD-{10000 + number}", date.isoformat(), customer, product, str(quantity),
            f"{price:.2f}", f"{price * quantity:.2f}",
        ])
    return rows


def make_orders_csv(path: Path) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(["order_id", "date", "customer", "product", "quantity", "unit_price", "total"])
        writer.writerows(order_rows())


# --- 6. the README -------------------------------------------------------------------------------------

def make_readme(path: Path) -> None:
    tyre_receipts = [no for vendor, no, _, _, items in RECEIPT_DATA if any("tyre" in d.lower() or "tire" in d.lower() for d, _, _ in items)]
    text = f"""# DocuChat sample documents

These files are generated by `scripts/make_samples.py`. Everything in them is fictional: Helios Energy,
its products, the vendors and the customers do not exist. Upload them all to try DocuChat.

**{HANDBOOK}** - a six-page handbook for the HX series solar modules of Helios Energy: installation
(site assessment, mounting, electrical connection), safety, warranty terms (12-year product warranty,
25-year linear power output warranty), maintenance, troubleshooting and contact details. Written as prose,
so it suits questions that need an explanation.

**{SPEC_SHEETS}** - one specification page per module (HX-400, HX-450, HX-550 Bifacial) with
"Label: value unit" lines for dimensions, weight, power and efficiency, and a table of electrical
characteristics at STC and NOCT.

**{RECEIPTS}** - six receipts from 2024, one per page, from QuickFit Tyres, AutoParts Direct and
Green Garden Supplies, each with a date, line items (description, quantity, unit price, amount), subtotal,
VAT and total. {len(tyre_receipts)} of them include tyres or tires.

**{SPECS_XLSX}** - module specifications from two makers in two sheets that use different labels and
units (Helios: "Width (mm)", "Power (W)"; SunPeak: "W [m]", "Pmax kW"), each under a merged title row and
above a notes row.

**{ORDERS_CSV}** - {ORDER_COUNT} orders from 2023 and 2024 (order_id, date, customer, product, quantity,
unit_price, total) from customers such as ACME, Globex and Initech.

## Questions to try

1. How long is the power output warranty on Helios panels, and how much power is guaranteed after 25 years?
2. What torque should the clamp bolts be tightened to, and where may the clamps be placed?
3. What are the dimensions and the weight of the HX-450?
4. Which panel has the highest efficiency, and what is its open circuit voltage?
5. List every receipt that includes tyres, with its date and total.
6. How much did we spend at QuickFit Tyres in 2024?
7. Which is wider: the Helios HX-400 or the SunPeak SP-M 0.43? (The two makers use different units.)
8. How many orders did ACME place in 2024, and what was their total value?
"""
    path.write_text(text, encoding="utf-8")


# --- driver ----------------------------------------------------------------------------------------------

MAKERS = {
    HANDBOOK: make_handbook,
    SPEC_SHEETS: make_spec_sheets,
    RECEIPTS: make_receipts,
    SPECS_XLSX: make_specs_xlsx,
    ORDERS_CSV: make_orders_csv,
    README: make_readme,
}


def make_samples(out: Path) -> list[Path]:
    """Write every sample file into `out` (created if needed) and return their paths."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, make in MAKERS.items():
        path = out / name
        make(path)
        written.append(path)
    return written


def missing_samples(present: set[str]) -> list[str]:
    """The sample documents (not the notes) whose file names are not among `present`."""
    return [name for name in MAKERS if not name.endswith(".md") and name not in present]


def check_samples(paths: list[Path]) -> list[str]:
    """Load every file with DocuChat's own loaders; return one summary line per file."""
    from core.config import Settings
    from core.ingest.loaders import load_document

    lines = []
    for path in paths:
        document = load_document(path, Settings())
        empty = [s.page for s in document.sections if s.page is not None and not s.text.strip()]
        if empty:
            raise SystemExit(f"{path.name}: pages without text: {empty}")
        lines.append(f"{path.name}: {len(document.sections)} sections, {document.text_chars} characters")
    return lines
