"""Document records (issue 14, item 1): an invoice's or a receipt's header as one row.

Every issuer prints its header differently: "Invoice INV/2023/03/0008" without a colon, "Invoice Date:"
over "03/20/2023", "TOTAL ROUNDED" beside "RM 33.90", "Factuurnummer: 993548900". So the page is read as
lines of cells with their horizontal positions (pdfplumber's words for a PDF, the OCR rows for a scan,
runs of spaces for a text file), and each field is a label from a small multilingual vocabulary with its
value in the same cell, in the cell to its right, or in the cell below it. The vocabulary, the order
of the total labels and the day-first default were decided on the dev parts of the SROIE receipts and
the invoice2data invoices (bench/record_extraction.py; figures in docs/tables.md).

A value is kept only when its printed text is found in the document's text (a check that can fail:
a value assembled from the wrong cells is dropped, never guessed).
"""
from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

from core.annotations.units import CURRENCIES, parse_number

RECORD_TABLE = "document record"  # the table name of a record's row fact; core.annotations.tables groups by it
FIELDS = ("issuer", "number", "date", "total", "balance", "currency", "pages")
PRINTED = {"issuer": "Issuer", "number": "Number", "date": "Date", "total": "Total", "balance": "Balance due",
           "currency": "Currency", "pages": "Pages"}

# --- lines of cells ------------------------------------------------------------------------------


@dataclass
class Cell:
    text: str
    x0: float
    x1: float


@dataclass
class Line:
    cells: list[Cell]
    page: int = 1

    @property
    def text(self) -> str:
        return " ".join(c.text for c in self.cells)


def lines_from_text(text: str, page: int = 1) -> list[Line]:
    """Lines of a plain text or an OCR page: a run of two or more spaces (or a tab) separates cells,
    whose position is their character offset."""
    lines = []
    for raw in text.split("\n"):
        cells = [Cell(m.group(0).strip(), m.start(), m.end()) for m in re.finditer(r"\S+(?: \S+)*", raw.replace("\t", "  "))]
        if cells:
            lines.append(Line(cells, page))
    return lines


def lines_from_words(words: list[dict], page: int, gap: float = 1.2) -> list[Line]:
    """Lines of a PDF page from pdfplumber's words (x0, x1, top, bottom, text): words at one height
    are a line; a gap wider than `gap` times the line's text height splits it into cells."""
    rows: list[list[dict]] = []
    for word in sorted(words, key=lambda w: (round(w["top"]), w["x0"])):
        if rows and abs(rows[-1][0]["top"] - word["top"]) <= 0.5 * (word["bottom"] - word["top"]):
            rows[-1].append(word)
        else:
            rows.append([word])
    lines = []
    for row in rows:
        row.sort(key=lambda w: w["x0"])
        height = max(w["bottom"] - w["top"] for w in row) or 1.0
        cells = [[row[0]]]
        for previous, word in zip(row, row[1:]):
            if word["x0"] - previous["x1"] > gap * height:
                cells.append([word])
            else:
                cells[-1].append(word)
        lines.append(Line([Cell(" ".join(w["text"] for w in c), c[0]["x0"], c[-1]["x1"]) for c in cells], page))
    return lines


# --- values --------------------------------------------------------------------------------------

_MONTHS = {  # English, French, Dutch, German, Polish, Spanish, Italian, Malay: receipts come in all of them
    1: "january jan janvier januari janv januar jän stycznia styczeń enero gennaio",
    2: "february feb février fevrier februari févr februar lutego luty febrero febbraio feb",
    3: "march mar mars maart märz marca marzec marzo mac",
    4: "april apr avril kwietnia kwiecień abril aprile",
    5: "may mai mei maja maj mayo maggio",
    6: "june jun juin juni czerwca czerwiec junio giugno",
    7: "july jul juillet juli lipca lipiec julio luglio julai",
    8: "august aug août aout augustus sierpnia sierpień agosto ogos",
    9: "september sep sept septembre września wrzesień septiembre settembre",
    10: "october oct octobre oktober okt października październik octubre ottobre okt",
    11: "november nov novembre listopada listopad noviembre",
    12: "december dec décembre decembre dezember grudnia grudzień diciembre dicembre dis",
}
_MONTH = {name: number for number, names in _MONTHS.items() for name in names.split()}
_MONTH_WORD = "|".join(sorted(map(re.escape, _MONTH), key=len, reverse=True))
# Years 1000-2099: tables of history ("Took office: November 7, 1816") are read as dates, an OCR slip
# ("10/02/2317") is not. A numeric date keeps one separator: "7.5/10" is a rating.
_YEAR = r"(?:1\d|20)\d{2}"
_DATE_PATTERNS = [
    ("ymd", re.compile(rf"\b(?P<y>{_YEAR})(?P<s>[-/.])(?P<m>\d{{1,2}})(?P=s)(?P<d>\d{{1,2}})(?:\b|(?=T\d))")),  # "...T17:05"
    ("num", re.compile(r"\b(?P<a>\d{1,2})(?P<s>[-/.])(?P<b>\d{1,2})(?P=s)(?P<y>(?:1\d|20)?\d{2})\b(?![-/.]\d)")),
    ("dmy", re.compile(rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th|er)?\.?\s*(?P<m>{_MONTH_WORD})\.?\s*,?\s*(?P<y>{_YEAR})\b", re.I)),
    ("mdy", re.compile(rf"\b(?P<m>{_MONTH_WORD})\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s*,?\s*(?P<y>{_YEAR})\b", re.I)),
]


@dataclass
class Found:
    """A date in text: where it is printed, its parts as printed, and whether its order is known."""
    start: int
    printed: str
    iso: str | None
    numeric: tuple[int, int, int] | None = None  # (a, b, year) of "03/04/2023": the order decided per document


def find_dates(text: str) -> list[Found]:
    found = []
    for kind, pattern in _DATE_PATTERNS:
        for m in pattern.finditer(text):
            if any(f.start <= m.start() < f.start + len(f.printed) for f in found):
                continue
            if kind == "num":
                year = int(m.group("y")) + (2000 if len(m.group("y")) == 2 else 0)
                found.append(Found(m.start(), m.group(0), None, (int(m.group("a")), int(m.group("b")), year)))
                continue
            month = int(m.group("m")) if kind == "ymd" else _MONTH.get(m.group("m").lower())
            found.append(Found(m.start(), m.group(0), _iso(int(m.group("y")), month, int(m.group("d")))))
    return sorted(found, key=lambda f: f.start)


def _iso(year: int, month: int | None, day: int) -> str | None:
    try:
        return dt.date(year, month or 0, day).isoformat()
    except (ValueError, TypeError):
        return None


def day_first(text: str) -> bool:
    """Whether the document prints 03/04/2023 as the 3rd of April: a date whose first part is over 12
    says so, one whose second part is over 12 says the opposite; otherwise day first, as most of the
    world (and every dev receipt) prints it."""
    for f in find_dates(text):
        if f.numeric:
            a, b, _ = f.numeric
            if a > 12 >= b:
                return True
            if b > 12 >= a:
                return False
    return True


def resolve(found: Found, first_is_day: bool) -> str | None:
    if found.iso or not found.numeric:
        return found.iso
    a, b, year = found.numeric
    return _iso(year, b, a) if first_is_day else _iso(year, a, b)


# A date as a cover and its identity line write it ("July 1, 2023", "Sept. 30, 2023"), captured.
COVER_DATE = r"([A-Z][a-z]{2,8}\.?\s+\d{1,2},\s*\d{4})"


def parse_date(text: str) -> dt.date | None:
    """"July 1, 2023", "Sept. 30, 2023" -> a date; None when it is not one (read by first_date)."""
    iso = first_date(text)
    return dt.date.fromisoformat(iso) if iso else None


def first_date(text: str) -> str | None:
    """The first date in `text` as ISO ("18 January 2024", "2024-01-18 (Thu)", "Sept. 30, 2023",
    "03/20/2023"): a numeric date is read day first unless its own parts say otherwise. The one date
    reader of a cell, a cover and a question; a document's records decide the order per document
    (day_first over all its dates)."""
    for found in find_dates(text):
        iso = resolve(found, day_first(found.printed))
        if iso:
            return iso
    return None


_AMOUNT = re.compile(r"(?<![\w.,])-?(?:[$€£¥₹]\s?)?\d{1,3}(?:[.,' ]\d{3})*(?:[.,]\d{2})(?![\d])|(?<![\w.,])-?\d+[.,]\d{2}(?![\d])")
_WHOLE = re.compile(r"(?<![\w.,/-])\d{1,3}(?:[,.]\d{3})*(?![\w.,/%-])|(?<![\w.,/-])\d{4,6}(?![\w.,/%-])")
_GLUED_CODE = re.compile(r"(?i)\b(rm|rs|usd|eur|gbp|inr|myr|pln|chf)(?=\d)")


def amounts(text: str, whole: bool = False) -> list[tuple[str, float]]:
    """(printed, value) of each money figure: "$ 279.84", "4.904,94", "RM 33.90"; with `whole`, also
    figures without decimals ("1939")."""
    text = _GLUED_CODE.sub(r"\1 ", text)  # "RM5.00" -> "RM 5.00"
    found = []
    for m in _AMOUNT.finditer(text):
        value = parse_number(re.sub(r"[$€£¥₹\s]", "", m.group(0)))
        if value is not None:
            found.append((m.group(0).strip(), value))
    if whole and not found:
        for m in _WHOLE.finditer(text):
            value = parse_number(m.group(0))
            if value is not None:
                found.append((m.group(0), value))
    return found


# --- labels --------------------------------------------------------------------------------------

def _label(pattern: str) -> re.Pattern:
    return re.compile(rf"^[#*\s]*(?P<label>{pattern})(?![^\W\d_])\s*[:：.#-]*\s*(?P<rest>.*)$", re.I)


# A label is matched at the start of a cell (after a stray "#" or "*"), whole words, case-insensitive.
_TOTAL_FINAL = (r"grand\s*total|total\s*(?:amount\s*)?due|(?:amount|balance)\s*(?:now\s*|still\s*)?(?:due|outstanding)|total\s*to\s*pay|amount\s*payable|"
                r"total\s*payable|net\s*payable|nett?\s*total|total\s*rounded|rounded\s*total|total\s*incl\w*|"
                r"total\s*\(?\s*inclusive|total\s*sales\s*\(?\s*incl\w*|total\s*amount|total\s*ttc|montant\s*ttc|"
                r"somme\s*à\s*payer|net\s*à\s*payer|montant\s*à\s*payer|total\s*facture|te\s*betalen|factuur\s*totaal|"
                r"totaalbedrag|gesamtbetrag|rechnungsbetrag|endbetrag|zu\s*zahlen|do\s*zapłaty|razem\s*do\s*zapłaty|"
                r"total\s*for\s*this\s*invoice|invoice\s*total|total\s*price|importe\s*total")
_TOTAL_PLAIN = r"total|totaal|totale|totaal\s*bedrag|summe|gesamt|razem|total\s*\(?rm\)?|total\s*amt"
_SUBTOTAL_WORDS = r"sub-?\s?total|subtotaal|zwischensumme|sous-total"
_SUBTOTAL = _label(_SUBTOTAL_WORDS)
# A total or subtotal named anywhere in a line ("Exclusief BTW € 593,36 Subtotaal", "Factuur totaal EUR").
_TOTAL_WORD = re.compile(rf"\b(?:{_TOTAL_PLAIN}|{_SUBTOTAL_WORDS})\b", re.I)
# A table row's first cell that sums the rows above it: a total, a subtotal or a charge ("GST", "AMOUNT PAID").
SUMMARY_LABEL = re.compile(r"^(?:sub-?\s?total|total|grand total|vat|tax|gst|btw|tva|mwst|discount|shipping|"
                           r"balance|amount|paid|totaal|razem|summe|gesamt)\b", re.I)
# Words that make a plain total the final one: "TOTAL AMT PAYABLE", "Total incl. GST", "TOTAL ROUNDED"
_FINAL_WORDS = re.compile(r"\b(?:payable|due|rounded|grand|nett?|incl\w*|inclusive|ttc|to\s+pay)\b", re.I)
_NOT_TOTAL = re.compile(r"\b(?:sub|subtotal|sub-total|subtotaal|excl\w*|exclusief|ohne|ht|hors|netto|qty|quantity|"
                        r"items?|discount|saving|savings|tax|gst|vat|btw|tva|mwst|ust|vat|tip|change|cash|paid|"
                        r"tendered|rounding|adj|adjustment|points?|weight|pcs)\b", re.I)
_INCLUSIVE = re.compile(r"\b(?:incl\w*|inclusive|ttc|inkl\w*)\b", re.I)
_DATE_LABEL = (r"invoice\s*date|date\s*of\s*issue|issue\s*date|bill\s*date|receipt\s*date|date\s*de\s*facture|"
               r"factuur\s*datum|factuurdatum|rechnungsdatum|datum|date|dated|data|fecha|tarikh|du")
_NOT_DATE = re.compile(r"\b(?:due|vervaldatum|échéance|echeance|limite|fällig|expiry|expires|delivery|livraison|"
                       r"order|orderdatum|start|end|from|to|period|check[- ]?out|valid)\b", re.I)
_NUMBER_LABEL = (r"invoice\s*(?:no\.?|number|nr\.?|num\.?|#)|inv\.?\s*(?:no\.?|#)|tax\s*invoice\s*(?:no\.?|#)?|"
                 r"receipt\s*(?:no\.?|number|#)|bill\s*(?:no\.?|number|#)|cash\s*bill\s*(?:no\.?)?|doc(?:ument)?\s*(?:no\.?|#)|"
                 r"ref(?:erence)?\s*(?:no\.?|#)|factuurnummer|factuur\s*(?:nr\.?|nummer)|facture\s*(?:n[°o]\.?|num[ée]ro)|"
                 r"num[ée]ro\s*de\s*facture|rechnungs?\s*-?nr\.?|rechnungsnummer|faktura\s*(?:vat\s*)?(?:nr\.?|numer)|"
                 r"trans(?:action)?\s*(?:no\.?|#)|slip\s*(?:no\.?)|booking\s*id|invoice|factuur|facture|rechnung|faktura|"
                 r"receipt\s*#|no\.|#")
_NOT_NUMBER_VALUE = re.compile(r"^(?:date|datum|page|of|to|no|nr)$", re.I)


_TOTAL_FINAL_RE, _TOTAL_PLAIN_RE = _label(_TOTAL_FINAL), _label(_TOTAL_PLAIN)
_DATE_RE, _NUMBER_RE = _label(_DATE_LABEL), _label(_NUMBER_LABEL)


@dataclass
class Candidate:
    value: object
    printed: str
    page: int
    rank: int  # lower is surer
    order: int  # where in the document (line index)
    label: str = ""


def _values_near(lines: list[Line], i: int, j: int, rest: str, parse, last: bool = False,
                 below: bool = True) -> list[tuple[object, str, int]]:
    """Values for the label in cell j of line i: in the rest of its cell and the cells to its right
    (with `last`, every figure of the line, whose last one is wanted), or in the cell below it (up to two
    lines down, overlapping it horizontally). (value, printed, step)."""
    line = lines[i]
    right = [(v, p, 0) for v, p in parse(rest)]
    if right and not last:
        return right
    if not right and re.search(r"\d", rest):  # the label's own value, printed but not of this kind: not a neighbour's
        return []
    for cell in line.cells[j + 1:(None if last else j + 3)]:
        found = [(v, p, 1) for v, p in parse(cell.text)]
        right += found
        if found and not last:
            return found
    if right or not below:
        return right
    label = line.cells[j]
    for under in lines[i + 1:i + 3]:
        if under.page != line.page:
            break
        for cell in under.cells:
            if cell.x1 >= label.x0 - 2 and cell.x0 <= label.x1 + 2:
                for value, printed in parse(cell.text):
                    return [(value, printed, 2)]
    return []


# --- the record ----------------------------------------------------------------------------------


@dataclass
class DocumentRecord:
    filename: str
    pages: int
    issuer: str | None = None
    number: str | None = None
    date: str | None = None  # ISO
    total: float | None = None
    balance: float | None = None  # what is still to pay, when a payment printed on it is taken off the total
    currency: str | None = None
    printed: dict[str, str] = field(default_factory=dict)  # field -> the text as printed
    page_of: dict[str, int] = field(default_factory=dict)  # field -> page it was read on

    def values(self) -> dict[str, object]:
        return {f: getattr(self, f) for f in FIELDS}

    @property
    def is_record(self) -> bool:
        """An invoice or a receipt: it has a total and a number or a date to tell it apart."""
        return self.total is not None and (self.number is not None or self.date is not None)


def read_record(filename: str, lines: list[Line], pages: int) -> DocumentRecord:
    record = DocumentRecord(filename, pages)
    text = "\n".join(line.text for line in lines)
    flat = " ".join(text.split())
    first_is_day = day_first(text)
    totals, dates, numbers = [], [], []
    for i, line in enumerate(lines):
        for j, cell in enumerate(line.cells):
            _total_candidates(lines, i, j, cell.text, totals)
            _date_candidates(lines, i, j, cell.text, first_is_day, dates)
            _number_candidates(lines, i, j, cell.text, numbers)
    if not dates:  # a receipt prints its date unlabelled: the first one not on a due-date line
        for i, line in enumerate(lines):
            if _NOT_DATE.search(line.text):
                continue
            for found in find_dates(line.text):
                if (iso := resolve(found, first_is_day)):
                    dates.append(Candidate(iso, found.printed, line.page, 9, i))
                    break
            if dates:
                break
    for name, candidates in (("total", totals), ("date", dates), ("number", numbers)):
        best = _best(candidates, name)
        if name == "total" and best is not None and _SUBTOTAL.match(best.label):
            best = _subtotal_plus_charge(best, lines) or best
        if name == "total" and best is not None and (invoiced := _total_before_payment(best, totals, lines)):
            if _printed_in(best.printed, flat):
                record.balance, record.printed["balance"], record.page_of["balance"] = best.value, best.printed, best.page
            best = invoiced
        if best is not None and _printed_in(best.printed, flat):
            setattr(record, name, best.value)
            record.printed[name], record.page_of[name] = best.printed, best.page
    record.issuer = _issuer(lines)
    if record.issuer:
        record.printed["issuer"], record.page_of["issuer"] = record.issuer, lines[0].page if lines else 1
    record.currency = _currency(record.printed.get("total", ""), lines, totals)
    return record


def _best(candidates: list[Candidate], name: str) -> Candidate | None:
    if not candidates:
        return None
    if name == "total":
        # the surest label; among equals the figure printed most often (a total is repeated: "Totaal"
        # twice, the payment line), then the last (the final total comes after the others)
        counts = {}
        for c in candidates:
            counts[c.value] = counts.get(c.value, 0) + 1
        return min(candidates, key=lambda c: (c.rank, -counts[c.value], -c.order))
    return min(candidates, key=lambda c: (c.rank, c.order))


def is_total_line(text: str) -> bool:
    """Whether a line sums others rather than being an item: it starts with a summary label or with a
    total or subtotal label of any language read here ("AMOUNT PAID", "Gesamtbetrag EUR"), or names a
    total or subtotal further on. The one check of the item lines read at ingest and of the line-item
    table's rows."""
    return bool(SUMMARY_LABEL.match(text) or _TOTAL_WORD.search(text) or total_label(text))


def total_label(text: str) -> bool:
    """Whether a cell starts with a total or subtotal label of any language read here (a table's
    "Total" row: narrower than `is_total_line`, which also takes "Tax ..." or a total named further on)."""
    return any(p.match(_unsplit(text)) for p in (_TOTAL_FINAL_RE, _TOTAL_PLAIN_RE, _SUBTOTAL))


def _subtotal_plus_charge(subtotal: Candidate, lines: list[Line]) -> Candidate | None:
    """When only a subtotal was labelled, a later amount that is the subtotal plus an amount printed
    between them ("Subtotal 208.00", "VAT 20% 41.60", "AMOUNT PAID £249.60") is the total, whatever its
    label; checked by the sum, so a cash tendered or a tax summary never passes."""
    later = [(i, printed, value) for i in range(subtotal.order + 1, len(lines))
             for printed, value in amounts(lines[i].text)]
    for k, (i, printed, value) in enumerate(later):
        if any(j < i and abs(subtotal.value + charge - value) < 0.005 for j, _, charge in later[:k]):
            return Candidate(value, printed, lines[i].page, subtotal.rank, i, "subtotal plus charges")
    return None


_OWED = re.compile(r"balance|due|payable|outstanding|to\s*pay|betalen|zahlen|zapłaty|restant", re.I)


def _total_before_payment(owed: Candidate, totals: list[Candidate], lines: list[Line]) -> Candidate | None:
    """When the figure read as the total is what is still owed ("Invoice total 1,129.32", "Paid on account
    500.00", "Balance due 629.32"), the total printed before it: the one from which an amount printed between
    them leaves exactly the balance, whatever its sign ("Less deposit received -5,520.00"). Checked by the sum,
    so a receipt's "Total due" over its cash never moves."""
    if not _OWED.search(owed.label):
        return None
    for total in sorted((c for c in totals if c.order < owed.order and c.value > owed.value), key=lambda c: c.rank):
        between = [value for i in range(total.order + 1, owed.order) for _, value in amounts(lines[i].text)]
        if any(abs(total.value - abs(paid) - owed.value) < 0.005 for paid in between):
            return total
    return None


def _total_candidates(lines, i, j, text, out) -> None:
    text = _unsplit(text)
    for rank, pattern in ((0, _TOTAL_FINAL_RE), (1, _TOTAL_PLAIN_RE), (2, _SUBTOTAL)):
        match = pattern.match(text)
        if not match:
            continue
        label = match.group("label")
        words = re.split(r"[\d$€£¥₹]", text, maxsplit=1)[0]  # the label's words, up to its figure
        if rank < 2 and _NOT_TOTAL.search(words) and not _INCLUSIVE.search(words):
            return
        if rank == 1 and _FINAL_WORDS.search(words):
            rank = 0
        # "Total 1 278.61 40.39 319.00": the last figure of the line is the total; whole figures
        # ("1939") only where no figure with decimals is near the label
        for whole in (False, True):
            found = _values_near(lines, i, j, match.group("rest"), lambda t: [(v, p) for p, v in amounts(t, whole)], last=True)
            for value, printed, step in found[-1:]:
                out.append(Candidate(value, printed, lines[i].page, rank * 3 + step, i, label))
            if found:
                return
        return


def _date_candidates(lines, i, j, text, first_is_day, out) -> None:
    match = _DATE_RE.match(_unsplit(text))
    if not match or _NOT_DATE.search(lines[i].text):
        return
    rank = 0 if re.search(r"invoice|factu|rechnung|bill|receipt|issue", match.group("label"), re.I) else 1
    if match.group("label").lower() == "du":  # "Facture n°562044387 du 02 Juillet 2015" reads "du" only after a number
        return

    def parse(t):
        return [(iso, f.printed) for f in find_dates(t)[:1] if (iso := resolve(f, first_is_day))]
    for value, printed, step in _values_near(lines, i, j, match.group("rest"), parse):
        out.append(Candidate(value, printed, lines[i].page, rank * 3 + step, i, match.group("label")))


_NUMBER_VALUE = re.compile(r"#?\s?(?P<value>(?:[A-Z]{1,3} )?[A-Z0-9][\w/\-.]*\d[\w/\-.]*)", re.I)  # "F 1234K20/1234/12"


def _number_candidates(lines, i, j, text, out) -> None:
    match = _NUMBER_RE.match(_unsplit(text))
    if not match:
        return
    label = match.group("label")
    generic = re.fullmatch(r"invoice|factuur|facture|rechnung|faktura|no\.|#", label.strip(), re.I) is not None

    def parse(t):
        token = _NUMBER_VALUE.match(t.strip())
        if not token or _NOT_NUMBER_VALUE.match(token.group(0)) or find_dates(token.group(0)):
            return []
        value = token.group("value").strip().rstrip(".")  # "# BLR_WFLD2015...": the sign is no part of the number
        return [(value, value)] if len(value) >= 3 else []
    rest = match.group("rest")
    if generic:
        # "Invoice INV/2023/03/0008", "Facture n°562044387": the number in the same cell; a bare
        # "Factuur" in a row of column labels ("Klant  Order  Factuur datum  Factuur") over its value
        found = [(v, p, 0) for v, p in parse(rest)]
        if not found and not rest.strip() and len(lines[i].cells) >= 3:
            found = _values_near(lines, i, j, "", parse)
    else:
        found = _values_near(lines, i, j, rest, parse)
    for value, printed, step in found:
        out.append(Candidate(value, printed, lines[i].page, (3 if generic else 0) + step, i, label))


# Legal forms that make a line a company's name (shared with the receipts' OCR heading, extended).
_COMPANY = re.compile(
    r"\b(?:ltd|limited|inc|llc|llp|plc|corp|corporation|gmbh|ag|sarl|sas|sa|srl|spa|b\.?v|n\.?v|oy|ab|pty|pte|"
    r"bhd|sdn|kk|lda|s\.a|spółka|enterprise|enterprises|trading|restaurant|supermarket|mart|store|shop|hardware|"
    r"services|station|cafe|bakery)\b\.?", re.I)
_DOC_WORDS = re.compile(r"\b(?:invoice|tax invoice|receipt|factuur|facture|rechnung|faktura|bill|copy|kopie|original|"
                        r"page|seite|retail|cash)\b[.:]?", re.I)


# "Unit 4, Brunel Trading Estate, Reading", "12 Quay Street, Bristol": a number first, then parts of an address
# ("Trading" in it is no company's legal form); "99 SPEED MART S/B" has no comma and stays a name.
_ADDRESS = re.compile(r"^(?:(?:unit|suite|flat|floor|block|building|lot|no\.?)\s*)?\d[\w/-]*\b[^,]*,", re.I)


def _issuer(lines: list[Line], head: int = 8) -> str | None:
    """Who issued it: among the first lines, the first cell that carries a company's legal form
    ("Coolblue B.V.", "MR D.I.Y. (JOHOR) SDN BHD"), else the first cell that reads as a name."""
    cells = [c.text for line in lines[:head] for c in line.cells if not _ADDRESS.match(c.text)]
    names = []
    for text in cells:
        cleaned = _DOC_WORDS.sub(" ", text)
        cleaned = " ".join(cleaned.split(" - ")[0].split()).strip(" :-|").lstrip(".")
        letters = sum(ch.isalpha() for ch in cleaned)
        if len(cleaned) < 3 or letters < 0.6 * len(cleaned.replace(" ", "")) or ":" in cleaned or "@" in cleaned:
            continue
        names.append(cleaned)
    return next((n for n in names if _COMPANY.search(n)), names[0] if names else None)


_CODES = {code.upper(): iso for code, iso in CURRENCIES.items() if code.isalpha()}


def _currency(printed_total: str, lines: list[Line], totals: list[Candidate]) -> str | None:
    """The currency of the total: a sign or code printed with it or on its line, else the one the
    document prints most."""
    def in_text(text: str) -> list[str]:
        found = [CURRENCIES[s] for s in "$€£¥₹" if s in text]
        found += [_CODES[w.upper()] for w in re.findall(r"(?<![A-Za-z])(?:[A-Za-z]{2,3}|zł)(?![A-Za-z])", text)
                  if w.upper() in _CODES]
        return found
    direct = in_text(printed_total)
    if direct:
        return direct[0]
    best = _best(totals, "total")
    if best is not None:
        line = next((ln for n, ln in enumerate(lines) if n == best.order), None)
        near = in_text(line.text) if line else []
        if near:
            return near[0]
    everywhere = [c for line in lines for c in in_text(line.text)]
    return max(set(everywhere), key=everywhere.count) if everywhere else None


def _unsplit(text: str) -> str:
    """ "F actuurnummer" -> "Factuurnummer": a PDF that spaces out a word's first letter."""
    return re.sub(r"^([A-Za-z]) (?=[a-z]{3,})", r"\1", text)


def _printed_in(printed: str, flat_text: str) -> bool:
    """The value as printed occurs in the document's text (spaces aside)."""
    squeeze = re.sub(r"\s+", "", printed)
    return bool(squeeze) and squeeze in re.sub(r"\s+", "", flat_text)


# --- reading a document --------------------------------------------------------------------------


def record_lines(document, path=None) -> list[Line]:
    """A loaded document as lines of cells: a PDF's words by position (pdfplumber), else its page texts."""
    if document.kind == "pdf" and path is not None:
        try:
            import pdfplumber

            lines: list[Line] = []
            with pdfplumber.open(str(path)) as pdf:
                for number, page in enumerate(pdf.pages, start=1):
                    lines += lines_from_words(page.extract_words(keep_blank_chars=False, use_text_flow=False), number)
            if lines:
                return lines
        except Exception:  # a layout reader failure falls back to the page texts
            pass
    lines = []
    for section in document.sections:
        if section.table is None and section.text:
            lines += lines_from_text(section.text, section.page or 1)
    return lines


def read_records(document, path=None) -> list[DocumentRecord]:
    """A document's records: one per page when every page reads as a record of its own with its own
    number or date (a PDF of several shops' receipts, one a page), else the document's one. An invoice
    whose every page repeats its number and date stays one record."""
    lines = record_lines(document, path)
    pages = sorted({line.page for line in lines})
    if len(pages) > 1:
        by_page = [read_record(document.filename, [ln for ln in lines if ln.page == page], 1) for page in pages]
        if all(r.is_record for r in by_page) and len({(r.number, r.date) for r in by_page}) == len(by_page):
            return by_page
    return [read_record(document.filename, lines, max(document.page_count, 1))]


def record_facts(record: DocumentRecord, doc_id: str) -> list:
    """The record as one row fact of the table RECORD_TABLE (none when the document is no invoice or
    receipt): the date as ISO, the total as a number with its currency, each cited to its page."""
    from core.annotations.model import ROW, Fact, FactValue

    if not record.is_record:
        return []
    values = []
    for name in FIELDS:
        value = getattr(record, name)
        if value is None:
            continue
        if name in ("total", "balance"):
            values.append(FactValue(PRINTED[name], record.printed[name], number=value, unit=record.currency,
                                    kind="currency", base=value))
        elif name == "pages":
            values.append(FactValue(PRINTED[name], str(value), number=float(value)))
        else:
            values.append(FactValue(PRINTED[name], str(value), date=value if name == "date" else None))
    return [Fact(doc_id, record.filename, ROW, values, page=record.page_of.get("total", 1), row_index=0,
                 table=RECORD_TABLE, record=f"{PRINTED['number']}: {record.number}" if record.number else None)]
