"""Pick the table(s) a question is about before anything is counted (issue 14).

A table is chosen by what the question names: its file or sheet name ("the Azure Interior invoice"
-> AzureInterior.pdf), its column labels ("nationality", "total"), and its cell values ("ACME",
"Sri Lanka"). A question that names nothing in any table is a text question; a table the question
did not select is never aggregated.
"""
from __future__ import annotations

import math
import re
from functools import lru_cache
from dataclasses import dataclass, field

from core.annotations.columns import FOLD_CACHE_SIZE, without_accents
from core.annotations.conditions import activity_words, asked_noun, bounds, month_of_cell, periods
from core.annotations.model import normalize_label, singular
from core.annotations.search import SYNONYMS
from core.annotations.tables import TableInfo
from core.annotations.units import header_unit, normal_unit, unit_kind

# Words that say nothing about which table: question words, and what every file of a kind is called.
_STOP = set("""a an the of in on at to for from by with and or is are was were be been what which who whom whose
when where how many much did do does has have had it its this that these those there their than then
not no all any each every per as list show give me tell""".split())
# Words every file of a kind is called by: they name no particular file.
_GENERIC = _STOP | set("csv xlsx pdf txt file table sheet fields invoice receipt document data".split())
_WORD = re.compile(r"[a-z0-9]+(?:['.][a-z0-9]+)*")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_POSSESSIVE = re.compile(r"'s$")
# A file's extension typed after its name ("in orders.csv", "fleet_2024.xlsx") is a word of its own: glued to
# the name it hid the name ("orders.csv" is one word to _WORD), and a question naming its file named none.
_EXTENSION = re.compile(r"\.(csv|tsv|xlsx|xls|ods|pdf|txt|md|docx?|json)\b", re.I)


def words(text: str) -> list[str]:
    """Lower-case words without accents: "Seán" and "sean" are one word, as are "Café" and "cafe"; a
    possessive is its name ("T-107's" names T-107, "Lars's" Lars)."""
    return list(_words(text))


@lru_cache(maxsize=FOLD_CACHE_SIZE)
def _words(text: str) -> tuple[str, ...]:
    text = _EXTENSION.sub(r" \1", _CAMEL.sub(" ", without_accents(text).replace("’", "'")))
    return tuple(_POSSESSIVE.sub("", w) for w in _WORD.findall(text.lower()))


@dataclass
class Selection:
    table: TableInfo
    score: float
    reasons: list[str] = field(default_factory=list)
    file_words: set[str] = field(default_factory=set)  # words of the file's name the question uses

    def trace(self) -> dict:
        return {"table": self.table.name, "file": self.table.filename, "score": round(self.score, 2),
                "because": self.reasons}


def name_weights(filenames: list[str]) -> dict[str, float]:
    """How much a word of a file's name says about which file: 1 for a word of one file's name, less for a
    word many names share ("report", "invoice", "2023" in every filing's name), by inverse document frequency
    over the knowledge base's files."""
    names = [file_words(f) for f in dict.fromkeys(filenames)]
    count = len(names)
    if count < 2:
        return {}
    frequency: dict[str, int] = {}
    for name in names:
        for word in name:
            frequency[word] = frequency.get(word, 0) + 1
    top = math.log(count)
    return {w: max(0.0, math.log(count / df) / top) for w, df in frequency.items() if df > 1}


# Words a question uses for what a file or column is called by another word ("sold" / sales.csv): plain
# English verbs and their nouns, not one domain's vocabulary.
_NOUN_OF = {"sold": "sale", "sell": "sale", "selling": "sale", "bought": "purchase", "buy": "purchase",
            "paid": "payment", "pay": "payment", "spent": "spend", "borrowed": "loan", "borrow": "loan",
            "lent": "loan", "hired": "hire", "rented": "rental", "booked": "booking",
            # a date column is headed by the noun of the event a question says with its verb ("expire" Expiry)
            **{v: "expiry" for v in ("expire", "expires", "expired", "expiring")},
            **{v: "renewal" for v in ("renew", "renews", "renewed", "renewing")},
            **{v: "arrival" for v in ("arrive", "arrives", "arrived", "arriving")},
            **{v: "delivery" for v in ("deliver", "delivers", "delivered")},
            **{v: "inspection" for v in ("inspect", "inspected")},
            **{v: "completion" for v in ("complete", "completed")},
            **{v: "approval" for v in ("approve", "approved")},
            **{v: "registration" for v in ("register", "registered")}}
# Beyond its word's point, a column the question asks for by name ("which treatments" over Treatment): with it,
# as much as a word of the file's name (3)
ASKED_COLUMN_POINTS = 2
# "last year", "this year", "of the year": a period, not a column called Year
# Quantities a question names by its comparative ("longer than 20 feet" is a length), which a column of the same
# kind of unit under another name (a trip's distance in km) is not
_NAMED_QUANTITIES = {"width", "height", "length", "weight", "depth", "power"}
_DURATION_UNITS = {normal_unit(u) for u in ("h", "min", "s")}
_YEAR_PHRASE = re.compile(r"\b(?:this|last|next|that|of the|the whole)\s+year\b", re.I)
# "the total number of films", "Number of no-shows": a count, not a Number or Total column (nor an invoice's number
# and total); "the invoice number of ..." keeps its number
_COUNT_PHRASE = re.compile(r"(?:^|\b(?:the|a|total)\s+)(?:total\s+)?number\s+of\b", re.I)


# "matches", "boxes", "taxes", "batches": plurals of words ending in ch, sh, x, ss or z, which `singular` leaves as
# "matche" (the keyword index's own form, kept there), so "How many matches ..." named no file called match_results.
# (conditions.singulars strips any "-es", "gam" of "games": forms that would name files table choice was not measured on)
_ES_PLURAL = re.compile(r"(?:ch|sh|x|ss|z)es$")


def _singular_forms(word: str) -> set[str]:
    """A question word's singular as `singular` gives it, and as an -es plural's stem."""
    return {singular(word)} | ({word[:-2]} if _ES_PLURAL.search(word) else set())


@lru_cache(maxsize=64)
def stated_bounds(question: str) -> tuple:
    """The question's bounds, read once for all the tables it is scored against."""
    return tuple(bounds(question))


@lru_cache(maxsize=64)
def asked_words(question: str) -> tuple[str, ...]:
    """The question's words that can name a table: not a bound's unit ("under 55 lb" names a weight, not
    a column headed "(lb)"; "an hour or more" a duration, not a sheet called Hours), a period's "year", nor the
    words of a count ("the total number of")."""
    units = {normal_unit(b.unit) for b in stated_bounds(question) if b.unit}
    question = _COUNT_PHRASE.sub(" ", _YEAR_PHRASE.sub(" ", question.strip()))
    return tuple(w for w in words(question) if not (units and normal_unit(w) in units))


@lru_cache(maxsize=64)
def period_years(question: str) -> frozenset[str]:
    """The years of the periods a question states ("in 2025", "between April and June 2025")."""
    return frozenset(str(p.year) for p in periods(question) if p.year)


@lru_cache(maxsize=64)
def stated_months(question: str) -> frozenset[int]:
    """The months of the periods a question states (read once a question, not once a table)."""
    return frozenset(m for p in periods(question) for m in p.months)


def score_table(question: str, table: TableInfo, measured: set[str] = frozenset(),
                weights: dict[str, float] | None = None) -> Selection:
    """Points for each thing the question names in the table: its name 3 a word, a cell value 2
    (a value of several words, or a capitalised name, 3), a column word 1 (3 for the column "which X" asks for), a
    word of a cell value 1, and
    3 for a column that holds a quantity the question bounds ("no wider than 1.2 m" -> a width column)."""
    asked = asked_words(question)
    content = [w for w in asked if w not in _GENERIC]
    singulars = {f for w in content for f in _singular_forms(w)} | {_NOUN_OF[w] for w in content if w in _NOUN_OF}
    asked_singulars = {f for w in asked if w not in _STOP for f in _singular_forms(w)} \
        | {_NOUN_OF[w] for w in asked if w in _NOUN_OF} | activity_words(asked)  # "make" names Units Produced
    selection = Selection(table, 0.0)
    name_words = file_words(table.filename) | file_words(table.sheet or "")
    named = sorted(w for w in name_words if w in content or _singular_forms(w) & singulars)
    if named:
        selection.score += sum(3 * (weights or {}).get(w, 1.0) for w in named)
        selection.reasons.append("names the file: " + ", ".join(named))
    # a document's printed labels ("Invoice Date", "Total due") are its columns
    labels = table.values if table.kind == "fields" else table.printed.values()
    # (not a one-letter word: the "m" of "width (m)" is named by any "1.1 m" in the question)
    column_words = {f for label in labels for w in words(label) if w not in _STOP and len(w) > 1 for f in _singular_forms(w)}
    columns = sorted(column_words & asked_singulars)
    if kept := table.years_dated(period_years(question) - set(columns)):
        # a year the question states is as much a condition on a log whose dates hold it as a word of a report's
        # header ("Year ended 31 October 2025 Q1"): either table may keep it
        columns = sorted({*columns, *kept})
    if columns:
        selection.score += len(columns)
        selection.reasons.append("names columns: " + ", ".join(columns))
    noun = asked_noun(question)
    asked_column = singular(noun) if table.kind in ("rows", "measures") and noun and singular(noun) in columns else None
    if table.kind in ("rows", "measures") and (whole := named_with_unit(question, list(labels))):
        # beyond its words' points: a column named whole is as specific as a value of several words, and more
        # than the unit word alone naming a file ("labour hours" over a sheet called "Hours")
        selection.score += 3 * len(whole)
        selection.reasons.append("names a column with its unit: " + ", ".join(whole))
    if measured and table.kind in ("rows", "measures"):  # a width column: "Width (mm)", "W [m]", every sheet's width_m
        labels = {normalize_label(label) for label in table.printed.values()}
        bounded = sorted(m for m in measured if labels & ({m} | SYNONYMS.get(m, set())))
        if bounded:
            selection.score += 3 * len(bounded)
            selection.reasons.append("bounds the quantity in a column: " + ", ".join(bounded))
    if table.kind in ("rows", "measures") and not any(r.startswith("bounds") for r in selection.reasons):
        # "an hour or more" over "Duration (min)", "more than $600" over "Total ($)": a column in a unit of
        # the kind the question bounds
        # ("more than five years" is a span of dates, not an hours column's: time counts in hours or less)
        kinds = {kind[0] for b in stated_bounds(question) if (kind := unit_kind(b.unit))
                 and (kind[0] != unit_kind("h")[0] or normal_unit(b.unit) in _DURATION_UNITS)}
        held = sorted(label for label in table.printed.values()
                      if kinds and (kind := unit_kind(header_unit(label))) and kind[0] in kinds)
        if held:  # a kind of unit alone says less when the question names the quantity: a length is no distance
            selection.score += 1 if set(measured) & _NAMED_QUANTITIES else 3
            selection.reasons.append("bounds a quantity its columns are in: " + ", ".join(held[:3]))
    if _names_a_stranger(question, table):  # "the Contoso invoice" when no Contoso is stored: no other table's total
        selection.reasons.append("names something the table does not hold")
        selection.score = 0.0
        return selection
    if table.kind in ("records", "items") and (kinds := sorted({singular(w) for w in asked} & _RECORD_NOUNS)):
        selection.score += 3  # "which receipt", "invoices from 2023": the kind of document every row is
        selection.reasons.append("names the kind of document: " + ", ".join(kinds))
    if table.kind == "items" and (kinds := sorted({singular(w) for w in asked} & _ITEM_NOUNS)):
        selection.score += 3  # "which line item", "products bought": what every row of the line-item table is
        selection.reasons.append("names line items: " + ", ".join(kinds))
    if table.kind in ("record", "records"):  # "how much", "when", "who issued": the fields of an invoice or receipt
        fields = sorted(f for f, synonyms in RECORD_WORDS.items() if synonyms & asked_singulars)
        if fields:
            selection.score += len(fields)
            selection.reasons.append("asks for the record's " + ", ".join(fields))
    found = list(named_values(asked, table))
    # a value that only repeats the file's name ("Azure Interior" in AzureInterior.pdf) is one mention, counted once
    found = [v for v in found if not set(v.split()) <= set(named)]
    # a month the question states as a period ("between January and March 2025") is a time any dated table keeps,
    # not a value naming the one table whose Month column prints it
    found = [v for v in found if month_of_cell(v) not in stated_months(question)]
    capitalised = {m.lower() for m in re.findall(r"(?<!^)(?<![.?!] )\b[A-Z][\w&.-]+", question.strip())}
    for value in found:
        weight = 0.5 if value.replace(".", "").isdigit() else (3 if " " in value or value in capitalised else 2)
        selection.score += weight
    selection.file_words = set(named) | {singular(w) for w in named}
    if found:
        selection.reasons.append("names values: " + ", ".join(found[:5]))
    # "helmets" of an item "Helmet Urban": a word of a value, not the whole value, says less
    explained = {singular(w) for v in found for w in v.split()} | set(columns) | set(named)
    partial = sorted(({singular(w) for w in content if len(w) >= 5 and not periods(w)} - explained) & value_words(table))
    if partial:
        selection.score += len(partial)
        selection.reasons.append("names words of values: " + ", ".join(partial[:5]))
    if table.kind == "fields" and not (named and (columns or found)):
        # A document's label lines answer a question naming it and a label; a quantity several documents
        # print is compared in document_measures.
        selection.score = 0.0
    if asked_column and selection.score > 1:
        # "Which treatments take an hour or more?": the table with a Treatment column lists them; the one whose
        # rows only code them (an appointments log's Code) answers with codes. Only beside something else the
        # question names in it: "What revenue does the annual report give?" names no one filing's table.
        selection.score += ASKED_COLUMN_POINTS
        selection.reasons.append(f"has the column the question asks for: {asked_column}")
    return selection


def named_with_unit(question: str, labels: list[str]) -> list[str]:
    """The column labels the question says with their unit, as one phrase: "labour hours" is "Labour (h)",
    "weight in kg" is "Weight (kg)", "job total in euros" is "Job Total (EUR)". A header that is only a unit
    ("Hrs") has no name to say beside it."""
    asked = words(question)
    found = []
    for label in labels:
        unit = header_unit(label)
        name = [w for w in words(label) if normal_unit(w, spoken=False) != unit] if unit else []
        if not name:
            continue
        for i in range(len(asked) - len(name) + 1):
            if asked[i:i + len(name)] != name:
                continue
            rest = asked[i + len(name):]
            rest = rest[1:] if rest[:1] == ["in"] else rest
            if rest and normal_unit(rest[0]) == unit:
                found.append(label)
                break
    return found


_VALUE_WORDS: dict[tuple, frozenset] = {}


def value_words(table: TableInfo) -> frozenset:
    """The singular words of a table's text values, once per table and its values."""
    key = (table.name, table.doc_id, len(table.values))
    if key not in _VALUE_WORDS:
        _VALUE_WORDS[key] = frozenset(singular(w) for v in table.values for w in words(v) if not w.isdigit())
    return _VALUE_WORDS[key]


def named_values(asked: list[str], table: TableInfo, min_length: int = 3) -> dict[str, str]:
    """The cell values a question names, longest first, as {its words: the cell as stored}: "sri lanka" ->
    "Sri Lanka", "desk lamps" -> "Desk lamp" (a plural names a value in the singular); "sri" inside "sri
    lanka" is the same mention. `asked` is the question's `words`; a one-word value shorter than
    `min_length` is no mention (selection: "us", "t7" say little about which table)."""
    values: dict[str, str] = {}
    for v in table.values:  # "INV/2023/03/0008" as the question's words read it
        said = words(v)
        values.setdefault(" ".join(said), v)
        if said:  # "e-bike" names a value "E-bikes" as "e-bikes" names "E-bike"
            values.setdefault(" ".join([*said[:-1], singular(said[-1])]), v)
    found: dict[str, str] = {}
    for n in (4, 3, 2, 1):
        for start in range(len(asked) - n + 1):
            gram = " ".join(asked[start:start + n])
            if gram not in values:
                gram = " ".join([*asked[start:start + n - 1], singular(asked[start + n - 1])])
            if gram in values and gram not in found and (n > 1 or (gram not in _STOP and len(gram) >= min_length)):
                if any(gram in f for f in found):
                    continue
                found[gram] = values[gram]
    return found


# What a question calls each field of a document record (core.annotations.documents), singular.
RECORD_WORDS = {
    "total": {"total", "amount", "sum", "due", "paid", "cost", "spent", "spend", "pay", "price", "much", "charge"},
    # what is still to pay: an invoice's balance after the payments it prints, else its total (`record_lookup`)
    "balance": {"balance", "owe", "owed", "owing", "outstanding", "unpaid", "remaining"},
    "date": {"date", "when", "day", "dated"},
    "number": {"number", "no", "nr", "id", "reference", "ref", "numbered"},
    "issuer": {"issuer", "vendor", "seller", "supplier", "company", "store", "shop", "merchant", "who", "issued",
               "sent", "from", "billed"},
    "currency": {"currency"},
    "pages": {"page", "long"},
}
RECORD_COLUMNS = {"total": "total", "date": "date", "number": "number", "issuer": "issuer", "currency": "currency",
                  "pages": "pages", "balance": "balance_due"}
_RECORD_NOUNS = {"invoice", "receipt", "bill", "document", "factuur", "facture", "rechnung"}
_ITEM_NOUNS = {"item", "line", "product", "article"}  # what a question calls a row of the line-item table


def _names_a_stranger(question: str, table: TableInfo) -> bool:
    """Whether the question names (see `proper_names`) something that no value, column, file or sheet
    name of the table holds. WikiTableQuestions' questions are lower case, so this was measured on its dev
    part as changing nothing; it keeps "the Contoso invoice" from a table of totals."""
    # a month, weekday or quarter is a period the question states, and a capitalised word before a number
    # ("Year 7", "Unit 12") a label with its number: neither is a name the table must hold
    labelled = {m.group(1) for m in re.finditer(r"\b([A-Z][a-z]+)\s+\d", question)}
    # ("May" is a month only in its context: "in May", not the word alone)
    stated = {w for p in periods(question) for w in words(p.text)}
    names = [n for n in proper_names(question) if not periods(n) and n not in labelled
             and not set(words(n)) <= stated]
    held = {w for v in table.values for w in words(v)} | {w for c in table.printed.values() for w in words(c)}
    held |= {w for v in table.values for w in words(v.rsplit(".", 1)[0])} | set(words(table.filename.rsplit(".", 1)[0]))
    held |= set(words(table.sheet or ""))
    return any(w not in held and singular(w) not in held and w not in _STOP and singular(w) not in _RECORD_NOUNS
               for name in names for w in words(name))


_NAME = re.compile(r"(?<![.?!] )\b[A-Z][\w&-]+")
# The first word of a sentence is capitalised anyway ("What", "List", "Compare"), so it counts as a name
# only when its form says so: a possessive ("Amazon's net income ..."), all capitals ("MGM", "IBM") or a
# capital inside ("eBay", "McDonald"). FinanceBench's "what is Amazon's FY2019 net income" was answered from
# MGM's net-income table before names were checked at all; a question opening with the name still was.
_NAME_FIRST = re.compile(r"([A-Z][\w&-]*)['’]s\b|([A-Z][A-Z0-9&-]+)\b|([A-Z]?[a-z]+[A-Z][\w&-]*)")


def proper_names(question: str) -> list[str]:
    """The names a question uses: capitalised words after the first of a sentence, and a first word whose
    form is a name's."""
    text = question.strip()
    first = re.match(r"\W*(\S+)", text)
    names = [m.group() for m in _NAME.finditer(text) if not first or m.start() >= first.end()]
    if first and (m := _NAME_FIRST.match(first.group(1))):
        name = next(g for g in m.groups() if g)
        if words(name)[0] not in _STOP:
            names.insert(0, name)
    return names


def record_lookup(question: str, selections: list[Selection]) -> tuple[Selection, str] | None:
    """(the record table, its column) when the question asks one field of one named invoice or receipt
    and nothing else ("What is the total amount of the Azure Interior invoice?"): every word is a
    function word, a word of the document's name or of its issuer or number, or a word for one field.
    The rule fast path for records; anything more goes to the model."""
    records = [s for s in selections if s.table.kind == "record"]
    # (a PDF of several receipts holds one record a page: which one is the model's to filter)
    if len(records) != 1 or records[0].table.row_count != 1 or not (records[0].file_words or any(r.startswith(("names values", "scoped")) for r in records[0].reasons)):
        return None
    table = records[0].table
    in_name = file_words(table.filename)
    names = in_name | {w for v in table.values for w in words(v)}
    # "when" asks for a date ("When is the Northgate invoice due?" asks two fields, the date and what is due: the
    # due date no record column holds, not the total "due" alone would name)
    asked = [w for w in words(question) if (w not in _STOP or w == "when") and w not in _RECORD_NOUNS
             and singular(w) not in _RECORD_NOUNS]
    fields, unexplained, by_value = set(), [], []
    for word in asked:
        if word in names or singular(word) in names:
            if word not in in_name and singular(word) not in in_name:
                by_value.append(word)
            continue
        hits = {f for f, synonyms in RECORD_WORDS.items() if word in synonyms or singular(word) in synonyms}
        if hits:
            fields |= hits
        else:
            unexplained.append(word)
    if not fields and re.search(r"\bhow much\b", question, re.I):  # "How much was the Orlen invoice?"
        fields = {"total"}
    if "balance" in fields:  # "the amount still owed": one field, whatever word of a total it also says
        fields -= {"total"}
    if unexplained or len(fields - {"issuer"}) > 1 or not fields:  # "who issued ... and when": two fields
        return None
    field = next(iter(fields - {"issuer"} or fields))  # "the amount due from Azure": "from" names no field
    if field == "issuer" and by_value:
        # "the company's right of use assets": the words name the issuer the page was read to have, so its
        # issuer is no answer (a file named for its issuer, "the Azure Interior invoice", is asked by name)
        return None
    column = RECORD_COLUMNS[field]
    if field == "balance" and column not in table.columns:
        column = RECORD_COLUMNS["total"]  # no payment printed on it: all of it is owed
    return (records[0], column) if column in table.columns else None


def names_a_value(question: str, tables: list[TableInfo]) -> set[str]:
    """The words of a file's name the question says as a value of another table, not as the file: "How much did we
    pay Pennant Roofing for repairs?" names a Contractor of the repairs log, where "the Pennant Roofing invoice"
    (the kind of document said) names the file."""
    asked = set(words(question))
    found: set[str] = set()
    for filename in {t.filename for t in tables}:
        name = file_words(filename)
        kinds = set(words(filename.rsplit(".", 1)[0])) - name - {w for w in words(filename) if w.isdigit()}
        if not name or not name <= asked or kinds & asked:
            continue
        called = " ".join(sorted(name))
        if any(t.filename != filename and " ".join(sorted(words(v))) == called for t in tables for v in t.values):
            found |= name
    return found


def file_words(filename: str) -> set[str]:
    """The words of a file's name that can name it: "AzureInterior.pdf" -> azure, interior."""
    return {w for w in words(filename.rsplit(".", 1)[0]) if len(w) >= 3 and not w.isdigit() and w not in _GENERIC}


def named_files(question: str, filenames: list[str]) -> list[str]:
    """The files whose every name word the question uses ("the Orlen invoice" -> Orlen.txt)."""
    asked = set(words(question)) | {singular(w) for w in words(question)}
    return [f for f in filenames if (name := file_words(f)) and all(w in asked or singular(w) in asked for w in name)]


# A document the question gives as its source: "according to the annual report", "in the member handbook", "as the
# board minutes say". The kind of document ends the phrase, so "in the first quarter" names none.
_SOURCE_KINDS = (r"report|review|handbook|manual|guide|guidance|minutes|invoice|bill|receipt|register|log|sheet|"
                 r"spreadsheet|workbook|statement|accounts|policy|plan|budget|schedule|letter|contract|agreement|"
                 r"newsletter|memo|notes|document|file|pdf")
_SOURCED = re.compile(r"\b(?:according\s+to|as\s+(?:stated|shown|set\s+out|given|reported|written)\s+in|in|from|per|"
                      r"as)\s+(?:the|our|this|that|their|its)\s+((?:[a-z0-9&'-]+\s+){0,3}?(?:" + _SOURCE_KINDS + r"))\b",
                      re.I)


def sourced_files(question: str, filenames: list[str]) -> list[str]:
    """The one file the question gives as its source, when the words naming it are all of one file's name and no
    other's ("according to the annual report" -> Kestrel_Annual_Report_2024.pdf); [] otherwise. A phrase of
    the kind alone ("in the report") names a file only where one file is of that kind."""
    for match in _SOURCED.finditer(question):
        said = {singular(w) for w in words(match.group(1))} - _GENERIC
        found = [f for f in filenames if said and said <= {singular(w) for w in file_words(f) | set(words(f))}]
        if len(found) == 1:
            return found
    return []


CARD_VALUES = 40  # cell values a table's card lists: enough to say what its rows are about, under 256 tokens


def table_card(table: TableInfo) -> str:
    """What a table is about, as one text an embedding compares with a question: its file and sheet
    names, its headers and its first values. Office users name neither file nor header ("how many
    helmets did we sell" is about sales.csv's Item column), so words alone miss a third of them."""
    name = " ".join(words(table.filename.rsplit(".", 1)[0]))
    return f"{name} {table.sheet or ''}: {', '.join(table.printed.values())}. {', '.join(table.values[:CARD_VALUES])}"


def similarity_points(similarity: float, weight: float, floor: float) -> float:
    """Points for reading like the table: nothing up to `floor` (what any table shares with any
    question), then `weight` per unit of cosine similarity above it."""
    return weight * max(0.0, similarity - floor)


def select_tables(question: str, tables: list[TableInfo], min_score: float, max_tables: int = 2,
                  close: float = 0.8, measured: set[str] = frozenset(), similarity: dict[str, float] | None = None,
                  weight: float = 0.0, floor: float = 0.0) -> tuple[list[Selection], list[Selection]]:
    """(selected, ranked): the tables at least `min_score` and within `close` of the best, at most
    `max_tables`; and every table that scored, best first, for the trace. `similarity` (table name ->
    cosine similarity of the question and the table's card) adds `similarity_points`. A file's name that is
    another table's value, said without the kind of document it is, names the value (`names_a_value`)."""
    weights = name_weights([t.filename for t in tables]) | {w: 0.0 for w in names_a_value(question, tables)}
    scored = [score_table(question, t, measured, weights) for t in tables]
    for selection in scored:
        points = similarity_points((similarity or {}).get(selection.table.name, 0.0), weight, floor)
        if points > 0 and "names something the table does not hold" not in selection.reasons:
            selection.score += points
            selection.reasons.append(f"reads like the table ({points:.1f})")
    ranked = sorted(scored, key=lambda s: -s.score)
    ranked = [s for s in ranked if s.score > 0]
    if not ranked or ranked[0].score < min_score:
        return [], ranked
    best = ranked[0].score
    selected = [s for s in ranked if s.score >= max(min_score, close * best)][:max_tables]
    return selected, ranked
