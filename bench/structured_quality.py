"""Quality and speed of DocuChat's structured facts (seed 004): extraction, question answering, timing.

    .venv/bin/python bench/structured_quality.py [--sections 1,2,3,4] [--repeats 3] [--show-failures]

No LLM is used anywhere: the workspace gets ScriptedLLM([]), and every question records how many
times the LLM was called (a structured answer must need none). Note that ScriptedLLM([]) does not
raise: an empty script means "answer extractively", so an accidental LLM call shows up as a
non-zero `llm_calls` (and a "hybrid" route), not as an exception.

Section 1 - field-level extraction on the invoice2data invoices
----------------------------------------------------------------
Each file in ../shared/corpus/invoice2data-invoices (11 PDFs + Orlen.txt) is read with
core.ingest.loaders.load_document and core.annotations.extract.extract_facts (exactly what ingest
does) and compared with ../shared/eval-public/invoice2data-invoices/expected/<stem>.json.

Scalar fields scored (when the expected JSON has them): issuer, amount, amount_untaxed, amount_tax,
date, date_due, invoice_number, currency, vat, iban. A fact VALUE is one FactValue of a fact (a
key-value fact has one value, plus derived dimension values; a row fact has one per cell), with its
label (FactValue.column) and typed fields (number / date / unit / kind).

Value matching ("the value equals the expected one after normalization"):
  * amounts (amount, amount_untaxed, amount_tax): the value's typed `number` is within 0.01.
  * dates (date, date_due): the value's typed `date` (ISO) equals the expected date, which is
    normalized to ISO first (expected dates may be "2019-05-14" or other formats).
  * identifiers (invoice_number, vat, iban): case-insensitive, compared on letters and digits only
    ("DE 232 446 240" == "DE232446240", "774-00-01-454" == 7740001454); the expected identifier must
    be contained in the value; an expected identifier shorter than 3 characters (Orlen's "F") must
    equal the whole value.
  * issuer: case- and accent-insensitive containment of the expected name, as whole words, in the
    value text.
  * currency: the value is a money amount typed in that currency (kind "currency", unit == code),
    or its text names the code as a word ("EUR").

Recall, per field and overall (micro over invoice x field), as a funnel:
  in doc text   the expected value occurs somewhere in the loaded document's text (lenient parsing
                of numbers "1.234,56"/"1,234.56"/"12,50" and of dates in several formats and
                languages) -- an upper bound: the loader saw it;
  in fact text  it occurs (same lenient parsing) in the text or the label of some extracted fact
                -- the extractor captured the line but may not have typed it;
  anywhere      some extracted fact value equals it after the normalization above;
  labelled      some value under a plausible label (the label->field map below) equals it. For
                currency: a money amount typed in that currency counts as labelled.

Label -> field map (labels are lower-cased, accents folded; multilingual because the invoices are
English, Dutch, French, German, Polish):
  iban            iban | bank account | rekening | konto
  vat             (vat|btw|tva|ust|tax|gst|tin|nip|siren|siret) with (no|nr|number|nummer|id|tin|
                  reg|registration|intra|#), or nip alone
  date_due        due | verval | echeance | limite | fallig | zahlbar  (without an amount word)
  date            date | datum | data | dated  (not order/check-in/-out/delivery/period/start/end)
  invoice_number  invoice | factuur | facture | rechnung | faktura | bill | receipt  (without
                  date/amount words), or the label is just "no"/"nr"/"number"/"#"
  amount_untaxed  subtotal | subtotaal | net | netto | ht | excl | exclusief | untaxed | grondslag
  amount_tax      tax | vat | tva | btw | mwst | gst | ust | iva
  amount          total | totaal | amount | bedrag | montant | somme | summe | betrag | razem |
                  due | balance | paid | gesamt | grand
  issuer          seller | vendor | sold by | supplier | sprzedawca | issuer | verkoper | vendeur |
                  lieferant | merchant | company
  currency        currency | wahrung | devise | valuta
Labels longer than 60 characters (a paragraph that a PDF table reader took as a header) map to
no field. Precision: of the key-value facts' own values (not line-item cells, which say nothing about
the invoice's totals, nor context values copied from the page onto its line items) whose label maps
to a field that the invoice's expected JSON has,
the share whose value equals the expected value (a "Total" fact with an untyped or wrong value
counts as wrong). Values under labels that map to a field the JSON does not annotate are not
judged (counted as "unjudged").

Line items: expected `lines` / `line_items` entries with an amount (price_subtotal, else
price_unit, else price); entries without one (section headers, notes, Sammy's description-only
lines) are skipped. A line counts as found when it can be matched one-to-one (maximum bipartite
matching) to an extracted ROW fact holding a number within 0.01 of its amount; "any fact" repeats
this over all facts (key-value facts too) as a diagnostic.

Section 2 - structured questions over the sample documents
-----------------------------------------------------------
samples.make_samples writes the demo files into a temp folder; all but the README (.md) are
ingested into a fresh Workspace(Settings(data_dir=tmp), llm=ScriptedLLM([])). The ground truth is
COMPUTED from the generated files, independently of DocuChat's own readers: the orders CSV with the
csv module, the spreadsheet with openpyxl (units taken from its header labels), the spec sheets and
receipts PDFs with pdfplumber (page text: "Model:", "Dimensions:", "Weight:", "Max power:",
"Receipt no.:", "Date:", "Total paid:", and tyre/tire words in the line items). Panel comparisons
use exact decimal arithmetic (1134 mm = 1.134 m), i.e. the mathematically right answer.

Scoring (every question must also come back with route == "structured"):
  set     the WHOLE stored result set (Response.structured.result_set_id, read back with
          FactStore.rows_by_id) is mapped to items -- orders by order_id, spreadsheet rows by
          Model/Type, spec-sheet facts and receipt facts by their page -- and the item set must
          equal the expected set, with no matched fact outside those items.
  count   the first number of the answer equals the expected count.
  value   some number in the answer equals the expected sum/average/min/max within 0.01.
  groups  Response.structured.aggregates has exactly the expected groups, each within 0.01.
  top1    the answer text names the expected record (order id / model / receipt no.); whether
          the extreme value itself is in the answer is recorded too.

Section 3 - time per structured question (no LLM)
--------------------------------------------------
One warm-up ask, then every question of section 2 is asked (--repeats) times; p50/p95 of the wall
time of Workspace.ask, over all asks and over the asks that took the structured route (target:
< 1 s on 2 cores), and the per-agent split from Response.timings (milliseconds per agent:
Planner, Retriever, Reasoner, Validator, Responder; "other" = wall - sum, mostly saving the turn).

Outputs: printed tables; bench/results/structured_quality.json.
"""
from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import logging
import os
import re
import shutil
import sys
import tempfile
import time
import unicodedata
from collections import Counter, defaultdict
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench._common import describe_code, fmt, machine, p50_p95, table, write_json  # noqa: E402

SHARED = Path(__file__).resolve().parents[2] / "shared"
INVOICES = SHARED / "corpus" / "invoice2data-invoices"
EXPECTED = SHARED / "eval-public" / "invoice2data-invoices" / "expected"

FIELDS = ["issuer", "amount", "amount_untaxed", "amount_tax", "date", "date_due", "invoice_number",
          "currency", "vat", "iban"]
AMOUNTS = {"amount", "amount_untaxed", "amount_tax"}
DATES = {"date", "date_due"}
IDENTIFIERS = {"invoice_number", "vat", "iban"}
TOL = 0.01


# ==================================================================================================
# normalization helpers (independent of core)
# ==================================================================================================

def fold(text: str) -> str:
    """Lower case, accents removed ("prélèvement" -> "prelevement", "spółka" -> "spolka")."""
    text = str(text).replace("ł", "l").replace("Ł", "L").replace("ß", "ss")
    text = unicodedata.normalize("NFKD", text)
    return "".join(c for c in text if not unicodedata.combining(c)).lower()


def words(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9]+", " ", fold(text)).split())


def alnum(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", fold(text))


_NUM_TOKEN = re.compile(r"\d[\d.,']*")


def numbers_in(text: str) -> set[float]:
    """Every plausible reading of every number in `text` ("4.904,94", "1,234.56", "12,50", "3.441.812")."""
    found: set[float] = set()
    for token in _NUM_TOKEN.findall(str(text)):
        token = token.rstrip(".,'").replace("'", "")
        if not token:
            continue
        candidates: list[str] = []
        if "." in token and "," in token:
            if token.rfind(",") > token.rfind("."):
                candidates.append(token.replace(".", "").replace(",", "."))
            else:
                candidates.append(token.replace(",", ""))
        elif "," in token:
            if re.fullmatch(r"\d{1,3}(,\d{3})+", token):
                candidates.append(token.replace(",", ""))
            if token.count(",") == 1:
                candidates.append(token.replace(",", "."))
        elif token.count(".") > 1:
            candidates.append(token.replace(".", ""))
        else:
            candidates.append(token)
            if re.fullmatch(r"\d{1,3}\.\d{3}", token):
                candidates.append(token.replace(".", ""))
        for c in candidates:
            try:
                found.add(float(c))
            except ValueError:
                pass
    return found


MONTHS = {}
for _names in (
    # English, Dutch, French, German, Polish (genitive) month names
    "january february march april may june july august september october november december",
    "januari februari maart april mei juni juli augustus september oktober november december",
    "janvier fevrier mars avril mai juin juillet aout septembre octobre novembre decembre",
    "januar februar marz april mai juni juli august september oktober november dezember",
    "stycznia lutego marca kwietnia maja czerwca lipca sierpnia wrzesnia pazdziernika listopada grudnia",
):
    for _i, _name in enumerate(_names.split(), start=1):
        MONTHS.setdefault(_name, _i)
        MONTHS.setdefault(_name[:3], _i)


def _iso(y: int, m: int, d: int) -> str | None:
    if y < 100:
        y += 2000
    try:
        return dt.date(y, m, d).isoformat()
    except ValueError:
        return None


def dates_in(text: str) -> set[str]:
    """Every plausible ISO reading of every date in `text` (d/m and m/d both tried)."""
    t = fold(text)
    found: set[str] = set()
    for y, m, d in re.findall(r"\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})\b", t):
        found.add(_iso(int(y), int(m), int(d)))
    for a, b, y in re.findall(r"\b(\d{1,2})[./-](\d{1,2})[./-](\d{4}|\d{2})\b", t):
        found.add(_iso(int(y), int(b), int(a)))
        found.add(_iso(int(y), int(a), int(b)))
    for d, name, y in re.findall(r"\b(\d{1,2})(?:st|nd|rd|th|er)?\.?\s+([a-z]{3,12})\.?,?\s+(\d{4})\b", t):
        if name in MONTHS or name[:3] in MONTHS:
            found.add(_iso(int(y), MONTHS.get(name, MONTHS.get(name[:3])), int(d)))
    for name, d, y in re.findall(r"\b([a-z]{3,12})\.?\s+(\d{1,2})(?:st|nd|rd|th)?\s*,?\s*(\d{4})\b", t):
        if name in MONTHS or name[:3] in MONTHS:
            found.add(_iso(int(y), MONTHS.get(name, MONTHS.get(name[:3])), int(d)))
    found.discard(None)
    return found


def expected_iso(value) -> str | None:
    text = str(value).strip()
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        return text
    found = sorted(dates_in(text))
    if found:
        return found[0]
    try:
        from dateutil import parser as dateparser

        return dateparser.parse(text, dayfirst=True).date().isoformat()
    except Exception:
        return None


# ==================================================================================================
# section 1: invoice extraction
# ==================================================================================================

CURRENCY_SYMBOLS = {"$": "USD", "€": "EUR", "£": "GBP", "₹": "INR", "zł": "PLN"}


def label_field(label: str) -> str | None:
    """The invoice field a fact label plausibly names (see the module docstring)."""
    if len(label) > 60:  # a paragraph taken as a table header is not a label
        return None
    l = words(label)
    toks = set(l.split())
    has = lambda *subs: any(s in l for s in subs)  # substrings (compound words: "factuurnummer")
    tok = lambda *ws: any(w in toks for w in ws)  # whole words ("ht", "no", "net")
    amount_word = has("total", "amount", "bedrag", "montant", "somme", "summe", "betrag", "razem")
    if has("iban", "bank account", "rekening", "konto"):
        return "iban"
    if (has("vat", "btw", "tva", "ust", "tax", "gst", "siren", "siret") or tok("tin", "nip")) and (
            tok("no", "nr", "number", "nummer", "id", "tin", "reg", "registration", "intra", "n")
            or has("nummer", "number", "registration", "#")) or tok("nip"):
        return "vat"
    if has("due", "verval", "echeance", "limite", "fallig", "zahlbar") and not amount_word:
        return "date_due"
    if has("date", "datum", "data", "dated") and not has("order", "check", "delivery", "lever", "period",
                                                         "start", "end"):
        return "date"
    if has("invoice", "factuur", "facture", "rechnung", "faktura", "bill", "receipt") and not (
            amount_word or has("date", "datum", "adres", "address")):
        return "invoice_number"
    if l in ("no", "nr", "number", "n") or label.strip() == "#":
        return "invoice_number"
    if has("subtotal", "subtotaal", "sub total", "untaxed", "grondslag", "exclusief", "zwischensumme") or tok(
            "net", "netto", "ht", "excl"):
        return "amount_untaxed"
    if tok("tax", "vat", "tva", "btw", "mwst", "gst", "ust", "iva") or has("tax"):
        return "amount_tax"
    if amount_word or has("totaal", "gesamt", "grand", "balance", "paid") or tok("due"):
        return "amount"
    if has("seller", "vendor", "sold by", "supplier", "sprzedawca", "issuer", "verkoper", "vendeur",
           "lieferant", "merchant", "company"):
        return "issuer"
    if has("currency", "wahrung", "devise", "valuta"):
        return "currency"
    return None


def value_matches(field: str, expected, value) -> bool:
    """Does one extracted FactValue equal the expected value of `field` (strict, typed)?"""
    if field in AMOUNTS:
        return value.number is not None and abs(value.number - float(expected)) <= TOL
    if field in DATES:
        return value.date is not None and value.date == expected
    if field in IDENTIFIERS:
        want, got = alnum(expected), alnum(value.text)
        if not want:
            return False
        return got == want if len(want) < 3 else want in got
    if field == "issuer":
        want = words(expected)
        return bool(want) and re.search(rf"\b{re.escape(want)}\b", words(value.text)) is not None
    if field == "currency":
        code = str(expected).upper()
        return (value.kind == "currency" and (value.unit or "").upper() == code) or re.search(
            rf"\b{code}\b", value.text, re.I) is not None
    raise ValueError(field)


def labelled_match(field: str, expected, value) -> bool:
    if field == "currency":
        return value.kind == "currency" and (value.unit or "").upper() == str(expected).upper()
    return label_field(value.column) == field and value_matches(field, expected, value)


def text_contains(field: str, expected, text: str) -> bool:
    """Lenient: does raw text mention the expected value (for the 'in doc text'/'in fact text' funnel)."""
    if field in AMOUNTS:
        return any(abs(n - float(expected)) <= TOL for n in numbers_in(text))
    if field in DATES:
        return expected in dates_in(text)
    if field in IDENTIFIERS:
        want = alnum(expected)
        if len(want) < 3:
            return re.search(rf"(?<![a-z0-9]){re.escape(want)}(?![a-z0-9])", fold(text)) is not None
        return want in alnum(text)
    if field == "issuer":
        want = words(expected)
        return bool(want) and re.search(rf"\b{re.escape(want)}\b", words(text)) is not None
    if field == "currency":
        code = str(expected).upper()
        return re.search(rf"\b{code}\b", text, re.I) is not None or any(
            s in text for s, c in CURRENCY_SYMBOLS.items() if c == code) or (code == "INR" and re.search(r"\bRs\b", text))
    raise ValueError(field)


def expected_value(field: str, raw):
    if raw is None or raw == "" or isinstance(raw, (list, dict)):
        return None
    if field in AMOUNTS:
        try:
            return float(raw)
        except (TypeError, ValueError):
            return None
    if field in DATES:
        return expected_iso(raw)
    return str(raw)


def line_amounts(obj: dict) -> list[float]:
    amounts = []
    for line in obj.get("lines") or obj.get("line_items") or []:
        for key in ("price_subtotal", "price_unit", "price", "amount"):
            if key in line and line[key] not in (None, ""):
                try:
                    amounts.append(float(line[key]))
                    break
                except (TypeError, ValueError):
                    continue
    return amounts


def match_lines(amounts: list[float], facts) -> int:
    """Maximum one-to-one matching of expected line amounts to facts holding that number."""
    numbers = [[v.number for v in f.values if v.number is not None] for f in facts]
    edges = [[j for j, ns in enumerate(numbers) if any(abs(n - a) <= TOL for n in ns)] for a in amounts]
    owner: dict[int, int] = {}

    def augment(i: int, seen: set[int]) -> bool:
        for j in edges[i]:
            if j in seen:
                continue
            seen.add(j)
            if j not in owner or augment(owner[j], seen):
                owner[j] = i
                return True
        return False

    return sum(augment(i, set()) for i in range(len(amounts)))


def run_extraction(args) -> dict:
    # core.ingest first: importing core.annotations.extract before core.ingest fails with a
    # circular ImportError (extract -> core.ingest.__init__ -> pipeline -> extract)
    from core.ingest.loaders import load_document  # noqa: I001
    from core.ingest.extract import extract_facts
    from core.config import Settings

    settings = Settings()
    per_invoice = []
    field_stats = {f: defaultdict(int) for f in FIELDS}
    misses: list[dict] = []
    wrong_values: list[dict] = []
    for path in sorted(INVOICES.iterdir()):
        expected_path = EXPECTED / f"{path.stem}.json"
        if not expected_path.exists() or path.suffix.lower() not in settings.supported_extensions:
            continue
        obj = json.loads(expected_path.read_text(encoding="utf-8"))[0]
        started = time.perf_counter()
        error = None
        try:
            document = load_document(path, settings)
            facts = extract_facts(document, path.stem, path, settings.max_table_pages)
            doc_text = "\n".join(s.text for s in document.sections)
        except Exception as exc:  # a failing file is a result, not a crash
            error, facts, doc_text = f"{type(exc).__name__}: {exc}", [], ""
        seconds = time.perf_counter() - started
        values = [(f, v) for f in facts for v in f.values]
        fact_text = "\n".join(f"{v.column} {v.text}" for _, v in values)
        inv = {"invoice": path.name, "error": error, "seconds": round(seconds, 3),
               "facts_kv": sum(f.kind == "kv" for f in facts), "facts_row": sum(f.kind == "row" for f in facts),
               "fields": {}, "judged": 0, "correct": 0, "unjudged": 0}
        for field in FIELDS:
            exp = expected_value(field, obj.get(field))
            if exp is None:
                continue
            r = {
                "expected": exp,
                "in_doc_text": bool(text_contains(field, exp, doc_text)),
                "in_fact_text": bool(text_contains(field, exp, fact_text)),
                "anywhere": any(value_matches(field, exp, v) for _, v in values),
                "labelled": any(labelled_match(field, exp, v) for _, v in values),
            }
            inv["fields"][field] = r
            for key in ("in_doc_text", "in_fact_text", "anywhere", "labelled"):
                field_stats[field][key] += int(r[key])
            field_stats[field]["n"] += 1
            if not r["labelled"]:
                misses.append({"invoice": path.name, "field": field, "expected": exp,
                               **{k: r[k] for k in ("in_doc_text", "in_fact_text", "anywhere")}})
        # precision over the invoice's own key-value figures whose label maps to a field: a line
        # item's "Amount" is not a claim about the invoice amount, and context values are copies
        for fact, v in values:
            field = label_field(v.column) if fact.kind == "kv" and not v.context else None
            if field is None:
                continue
            exp = expected_value(field, obj.get(field))
            if exp is None:
                inv["unjudged"] += 1
                field_stats[field]["unjudged"] += 1
                continue
            ok = value_matches(field, exp, v)
            inv["judged"] += 1
            inv["correct"] += int(ok)
            field_stats[field]["judged"] += 1
            field_stats[field]["correct"] += int(ok)
            if not ok:
                wrong_values.append({"invoice": path.name, "field": field, "label": v.column, "value": v.text,
                                     "typed_number": v.number, "typed_date": v.date, "expected": exp})
        amounts = line_amounts(obj)
        rows = [f for f in facts if f.kind == "row"]
        inv["lines_expected"] = len(amounts)
        inv["lines_in_rows"] = match_lines(amounts, rows) if amounts else 0
        inv["lines_any_fact"] = match_lines(amounts, facts) if amounts else 0
        inv["lines_in_doc_text"] = sum(any(abs(n - a) <= TOL for n in numbers_in(doc_text)) for a in amounts)
        per_invoice.append(inv)

    # --- tables
    def pct(a: int, b: int) -> str:
        return f"{a}/{b} {100 * a / b:5.1f}%" if b else "-"

    rows = []
    tot = defaultdict(int)
    for inv in per_invoice:
        fl = inv["fields"].values()
        n = len(inv["fields"])
        counts = {k: sum(r[k] for r in fl) for k in ("in_doc_text", "in_fact_text", "anywhere", "labelled")}
        for k, c in counts.items():
            tot[k] += c
        tot["n"] += n
        for k in ("judged", "correct", "unjudged", "lines_expected", "lines_in_rows", "lines_any_fact",
                  "lines_in_doc_text", "facts_kv", "facts_row"):
            tot[k] += inv[k]
        rows.append([
            inv["invoice"] + (" (ERROR)" if inv["error"] else ""), f"{inv['facts_kv']}/{inv['facts_row']}", n,
            counts["in_doc_text"], counts["in_fact_text"], counts["anywhere"], counts["labelled"],
            f"{inv['correct']}/{inv['judged']}" + (f" (+{inv['unjudged']})" if inv["unjudged"] else ""),
            f"{inv['lines_in_rows']}/{inv['lines_expected']}" if inv["lines_expected"] else "-",
            f"{inv['lines_any_fact']}/{inv['lines_expected']}" if inv["lines_expected"] else "-",
            f"{inv['seconds']:.2f}",
        ])
    rows.append(["ALL", f"{tot['facts_kv']}/{tot['facts_row']}", tot["n"], tot["in_doc_text"], tot["in_fact_text"],
                 tot["anywhere"], tot["labelled"], f"{tot['correct']}/{tot['judged']} (+{tot['unjudged']})",
                 f"{tot['lines_in_rows']}/{tot['lines_expected']}", f"{tot['lines_any_fact']}/{tot['lines_expected']}", ""])
    print(table(["invoice", "facts kv/row", "fields", "in doc", "in facts txt", "anywhere", "labelled",
                 "precision c/j (+unjudged)", "lines(row)", "lines(any)", "s"], rows,
                "\n[1a] Per invoice: expected scalar fields found (funnel: in doc text -> in fact text -> typed value anywhere -> under matching label)"))

    frows = []
    for field in FIELDS:
        s = field_stats[field]
        if not s["n"] and not s["judged"] and not s["unjudged"]:
            continue
        frows.append([field, s["n"], pct(s["in_doc_text"], s["n"]), pct(s["in_fact_text"], s["n"]),
                      pct(s["anywhere"], s["n"]), pct(s["labelled"], s["n"]), pct(s["correct"], s["judged"]),
                      s["unjudged"]])
    frows.append(["ALL (micro)", tot["n"], pct(tot["in_doc_text"], tot["n"]), pct(tot["in_fact_text"], tot["n"]),
                  pct(tot["anywhere"], tot["n"]), pct(tot["labelled"], tot["n"]), pct(tot["correct"], tot["judged"]),
                  tot["unjudged"]])
    print(table(["field", "n", "in doc text", "in fact text", "recall anywhere", "recall labelled",
                 "precision", "unjudged"], frows, "\n[1b] Per field"))
    print(f"\n[1c] Line items: {pct(tot['lines_in_rows'], tot['lines_expected'])} of expected line amounts found "
          f"in ROW facts (one-to-one); {pct(tot['lines_any_fact'], tot['lines_expected'])} in any fact; "
          f"{pct(tot['lines_in_doc_text'], tot['lines_expected'])} occur in the document text.")
    if args.show_failures:
        print("\n[1d] Wrong values under a mapped label (first 25):")
        for w in wrong_values[:25]:
            print(f"  {w['invoice']:<28} {w['field']:<15} {w['label']!r}: {w['value'][:50]!r} "
                  f"(number={w['typed_number']}, date={w['typed_date']}) expected {w['expected']!r}")
    macro = {f: {k: (field_stats[f][k] / field_stats[f]["n"] if field_stats[f]["n"] else None)
                 for k in ("in_doc_text", "in_fact_text", "anywhere", "labelled")} for f in FIELDS}
    return {
        "per_invoice": per_invoice,
        "per_field": {f: dict(field_stats[f]) for f in FIELDS},
        "per_field_rates": macro,
        "overall": {
            "fields_expected": tot["n"],
            "recall_in_doc_text": tot["in_doc_text"] / tot["n"] if tot["n"] else None,
            "recall_in_fact_text": tot["in_fact_text"] / tot["n"] if tot["n"] else None,
            "recall_anywhere": tot["anywhere"] / tot["n"] if tot["n"] else None,
            "recall_labelled": tot["labelled"] / tot["n"] if tot["n"] else None,
            "precision": tot["correct"] / tot["judged"] if tot["judged"] else None,
            "precision_correct": tot["correct"], "precision_judged": tot["judged"], "unjudged": tot["unjudged"],
            "line_amounts_expected": tot["lines_expected"], "line_amounts_in_rows": tot["lines_in_rows"],
            "line_amounts_any_fact": tot["lines_any_fact"], "line_amounts_in_doc_text": tot["lines_in_doc_text"],
        },
        "misses": misses,
        "wrong_values": wrong_values,
    }


# ==================================================================================================
# section 2: ground truth from the generated sample files
# ==================================================================================================

UNIT_FACTORS = {"mm": Decimal("0.001"), "cm": Decimal("0.01"), "m": Decimal(1), "kg": Decimal(1),
                "g": Decimal("0.001"), "w": Decimal(1), "kw": Decimal(1000)}
QUANTITY_OF_HEADER = {"width": "width", "w": "width", "height": "height", "h": "height", "depth": "depth",
                      "d": "depth", "weight": "weight", "mass": "weight", "power": "power", "pmax": "power"}


def _header_unit(header: str) -> tuple[str, str | None]:
    m = re.match(r"^\s*(.*?)\s*(?:[\(\[]\s*([^\)\]]+?)\s*[\)\]]|\s(kW|W|kg|mm|m))?\s*$", header)
    name, unit = (m.group(1), m.group(2) or m.group(3)) if m else (header, None)
    return name.strip().lower(), (unit.lower() if unit else None)


def truth_panels(xlsx: Path, spec_pdf: Path) -> tuple[dict, dict, list[str]]:
    """model -> {width, height, depth (m), weight (kg), power (W)} as Decimals, from the spreadsheet
    (openpyxl) and the spec sheets (pdfplumber); and spec-sheet page -> model."""
    import openpyxl
    import pdfplumber

    panels: dict[str, dict] = {}
    warnings: list[str] = []
    book = openpyxl.load_workbook(xlsx, data_only=True, read_only=True)
    for sheet in book.worksheets:
        header = None
        for row in sheet.iter_rows(values_only=True):
            cells = [c for c in row]
            if header is None:
                if cells and str(cells[0] or "").strip().lower() in ("model", "type"):
                    header = [str(c or "") for c in cells]
                continue
            if not cells or cells[0] is None or not isinstance(cells[1], (int, float)):
                continue  # the notes row
            spec = {}
            for h, value in zip(header[1:], cells[1:]):
                name, unit = _header_unit(h)
                quantity = QUANTITY_OF_HEADER.get(name)
                if quantity and isinstance(value, (int, float)):
                    spec[quantity] = Decimal(str(value)) * UNIT_FACTORS.get(unit or "", Decimal(1))
            panels[str(cells[0]).strip()] = {**spec, "source": f"{xlsx.name}/{sheet.title}"}
    page_model: dict[int, str] = {}
    with pdfplumber.open(str(spec_pdf)) as pdf:
        for number, page in enumerate(pdf.pages, start=1):
            text = page.extract_text() or ""
            model = re.search(r"Model:\s*(.+)", text).group(1).strip()
            page_model[number] = model
            l, w, d, unit = re.search(r"Dimensions:\s*([\d.]+)\s*x\s*([\d.]+)\s*x\s*([\d.]+)\s*(mm|m)", text).groups()
            f = UNIT_FACTORS[unit]
            sheet_spec = {"height": Decimal(l) * f, "width": Decimal(w) * f, "depth": Decimal(d) * f,
                          "weight": Decimal(re.search(r"Weight:\s*([\d.]+)\s*kg", text).group(1)),
                          "power": Decimal(re.search(r"Max power:\s*([\d.]+)\s*W", text).group(1))}
            if model in panels:
                for k, v in sheet_spec.items():
                    if panels[model].get(k) != v:
                        warnings.append(f"{model}: {k} is {v} on the spec sheet, {panels[model].get(k)} in the spreadsheet")
            else:
                panels[model] = {**sheet_spec, "source": spec_pdf.name}
    return panels, page_model, warnings


def truth_receipts(pdf_path: Path) -> dict[int, dict]:
    import pdfplumber

    receipts = {}
    with pdfplumber.open(str(pdf_path)) as pdf:
        for number, page in enumerate(pdf.pages, start=1):
            text = page.extract_text() or ""
            vendor = text.split("\n")[0].strip()
            items_text = text.split("Subtotal")[0].replace(vendor, " ")  # line items only, vendor name removed
            receipts[number] = {
                "vendor": vendor,
                "receipt_no": re.search(r"Receipt no\.:\s*(\S+)", text).group(1),
                "date": re.search(r"Date:\s*(\d{4}-\d{2}-\d{2})", text).group(1),
                "total": Decimal(re.search(r"Total paid:\s*£\s*([\d,]+\.\d\d)", text).group(1).replace(",", "")),
                "tyres": re.search(r"\bt[yi]res?\b", items_text, re.I) is not None,
            }
    return receipts


def build_questions(folder: Path) -> tuple[list[dict], dict]:
    from samples import documents as samples

    with (folder / samples.ORDERS_CSV).open(newline="", encoding="utf-8") as fh:
        orders = list(csv.DictReader(fh))
    for o in orders:
        o["total_d"] = Decimal(o["total"])
        o["quantity_i"] = int(o["quantity"])
    panels, page_model, warnings = truth_panels(folder / samples.SPECS_XLSX, folder / samples.SPEC_SHEETS)
    receipts = truth_receipts(folder / samples.RECEIPTS)

    def year(o, y: int) -> bool:
        return o["date"].startswith(str(y))

    def orders_where(pred) -> list[dict]:
        return [o for o in orders if pred(o)]

    def panel_set(quantity: str, pred) -> set[str]:
        return {m for m, s in panels.items() if quantity in s and pred(s[quantity])}

    def argext(rows, key, highest=True) -> tuple[set[str], Decimal]:
        best = (max if highest else min)(r[key] for r in rows)
        return {r["order_id"] for r in rows if r[key] == best}, best

    q: list[dict] = []

    def add(qid, category, question, kind, expected, **extra):
        q.append({"id": qid, "category": category, "question": question, "kind": kind, "expected": expected, **extra})

    # --- enumeration
    add("E1", "enumeration", "List every receipt with tyres", "set",
        {r["receipt_no"] for r in receipts.values() if r["tyres"]}, items="receipts")
    add("E2", "enumeration", "Which orders did Initech place in March 2024?", "set",
        {o["order_id"] for o in orders_where(lambda o: o["customer"] == "Initech" and o["date"].startswith("2024-03"))},
        items="orders")
    add("E3", "enumeration", "List all orders from Hooli in 2023", "set",
        {o["order_id"] for o in orders_where(lambda o: o["customer"] == "Hooli" and year(o, 2023))}, items="orders")
    add("E4", "enumeration", "List every order of MC4 Connector Pack in December 2024", "set",
        {o["order_id"] for o in orders_where(lambda o: o["product"] == "MC4 Connector Pack" and o["date"].startswith("2024-12"))},
        items="orders")
    add("E5", "enumeration", "List every receipt from AutoParts Direct", "set",
        {r["receipt_no"] for r in receipts.values() if r["vendor"] == "AutoParts Direct"}, items="receipts")
    # --- filters with units (panels: spreadsheet in mm and in m, spec sheets in mm)
    add("F1", "filter_units", "Which panels are no wider than 1.2 m?", "set",
        panel_set("width", lambda v: v <= Decimal("1.2")), items="panels")
    add("F2", "filter_units", "Which panels are heavier than 20 kg?", "set",
        panel_set("weight", lambda v: v > 20), items="panels")
    add("F3", "filter_units", "Which panels have a power of at least 0.4 kW?", "set",
        panel_set("power", lambda v: v >= 400), items="panels")
    add("F4", "filter_units", "Which panels are taller than 2000 mm?", "set",
        panel_set("height", lambda v: v > 2), items="panels")
    add("F5", "filter_units", "Which panels are no thicker than 30 mm?", "set",
        panel_set("depth", lambda v: v <= Decimal("0.030")), items="panels")
    add("F6", "filter_units", "List every order with a total above 7000", "set",
        {o["order_id"] for o in orders_where(lambda o: o["total_d"] > 7000)}, items="orders")
    add("F7", "filter_units", "How many panels are heavier than 20 kg?", "count",
        len(panel_set("weight", lambda v: v > 20)))  # distinct panels, whichever file(s) describe them
    # --- aggregates
    add("A1", "aggregate", "How many orders did ACME place in 2024?", "count",
        len(orders_where(lambda o: o["customer"] == "ACME" and year(o, 2024))))
    add("A2", "aggregate", "How many orders did Globex place in 2023?", "count",
        len(orders_where(lambda o: o["customer"] == "Globex" and year(o, 2023))))
    add("A3", "aggregate", "How many orders were placed in 2023?", "count", len(orders_where(lambda o: year(o, 2023))))
    groups: dict[str, Decimal] = defaultdict(Decimal)
    for o in orders_where(lambda o: year(o, 2023)):
        groups[o["customer"]] += o["total_d"]
    add("A4", "aggregate", "What is the total per customer in 2023?", "groups", dict(groups))
    rows_2024 = orders_where(lambda o: year(o, 2024))
    add("A5", "aggregate", "What was the average order total in 2024?", "value",
        sum(o["total_d"] for o in rows_2024) / len(rows_2024))
    add("A6", "aggregate", "What is the highest order total?", "value", max(o["total_d"] for o in orders))
    add("A7", "aggregate", "What is the lowest order total in 2024?", "value", min(o["total_d"] for o in rows_2024))
    add("A8", "aggregate", "What is the total value of ACME orders in 2024?", "value",
        sum(o["total_d"] for o in rows_2024 if o["customer"] == "ACME"))
    add("A9", "aggregate", "How much did we spend at QuickFit Tyres in 2024?", "value",
        sum(r["total"] for r in receipts.values() if r["vendor"] == "QuickFit Tyres" and r["date"].startswith("2024")))
    qty: dict[str, Decimal] = defaultdict(Decimal)
    for o in orders:
        qty[o["product"]] += o["quantity_i"]
    add("A10", "aggregate", "What is the total quantity per product?", "groups", dict(qty))
    add("A11", "aggregate", "What is the lowest order total?", "value", min(o["total_d"] for o in orders))
    add("A12", "aggregate", "How many receipts include tyres?", "count", sum(r["tyres"] for r in receipts.values()))
    # --- top-1
    ids, best = argext(orders, "total_d", True)
    add("T1", "top1", "Which order had the highest total?", "top1", ids, value=best)
    ids, best = argext(rows_2024, "total_d", False)
    add("T2", "top1", "Which order had the lowest total in 2024?", "top1", ids, value=best)
    heaviest = max(s["weight"] for s in panels.values())
    add("T3", "top1", "Which panel is the heaviest?", "top1",
        {m for m, s in panels.items() if s["weight"] == heaviest}, value=heaviest)
    truth = {"orders": len(orders), "panels": {m: {k: str(v) for k, v in s.items()} for m, s in panels.items()},
             "spec_sheet_pages": page_model, "receipts": {p: {k: str(v) for k, v in r.items()} for p, r in receipts.items()},
             "warnings": warnings}
    return q, {"truth": truth, "page_model": page_model, "receipts": receipts}


# ==================================================================================================
# section 2: scoring
# ==================================================================================================

_ANSWER_NUMBER = re.compile(r"(?<![\w.-])-?\d[\d,]*(?:\.\d+)?")


def answer_numbers(text: str) -> list[float]:
    out = []
    for token in _ANSWER_NUMBER.findall(text):
        try:
            out.append(float(token.replace(",", "")))
        except ValueError:
            pass
    return out


def identify(row, ctx: dict, folder_names: dict) -> tuple[str, str]:
    """(item kind, item id) of one matched fact, or ("?", description)."""
    props = {k.strip().lower(): v for k, v in row.properties.items()}
    if row.filename == folder_names["orders"] and "order_id" in props:
        return "orders", props["order_id"]
    if row.filename == folder_names["xlsx"]:
        model = props.get("model") or props.get("type")
        if model:
            return "panels", model.strip()
    if row.filename == folder_names["spec"] and row.page in ctx["page_model"]:
        return "panels", ctx["page_model"][row.page]
    if row.filename == folder_names["receipts"] and row.page in ctx["receipts"]:
        return "receipts", ctx["receipts"][row.page]["receipt_no"]
    where = f"{row.filename} {row.location()}"
    return "?", f"{where}: " + "; ".join(f"{k}={v}" for k, v in list(row.properties.items())[:3])


def score(q: dict, response, ws, ctx: dict, names: dict) -> dict:
    answer = response.answer or ""
    s = response.structured or {}
    out = {"route_ok": response.route == "structured", "content_ok": False, "detail": ""}
    kind = q["kind"]
    if kind == "set":
        rows = []
        if s.get("result_set_id"):
            stored = ws.kb.catalog.result_set(s["result_set_id"])
            rows = ws.pipeline.facts.rows_by_id(stored["fact_ids"]) if stored else []
        got, other = set(), []
        for row in rows:
            item_kind, item = identify(row, ctx, names)
            if item_kind == q["items"]:
                got.add(item)
            else:
                other.append(item)
        expected = set(q["expected"])
        missing, extra = sorted(expected - got), sorted(got - expected)
        out["content_ok"] = not missing and not extra and not other
        out["detail"] = (f"matched facts {len(rows)}; items {len(got)}/{len(expected)}"
                         + (f"; missing {missing[:8]}" if missing else "") + (f"; extra {extra[:8]}" if extra else "")
                         + (f"; {len(other)} facts outside the items, e.g. {other[:2]}" if other else ""))
    elif kind == "count":
        nums = answer_numbers(answer)
        first = nums[0] if nums else None
        out["content_ok"] = first is not None and first == q["expected"]
        out["detail"] = f"answer says {first}, expected {q['expected']} (total_matches {s.get('total_matches')})"
    elif kind == "value":
        exp = float(q["expected"])
        nums = answer_numbers(answer)
        out["content_ok"] = any(abs(n - exp) <= TOL for n in nums)
        agg = s.get("aggregates") or []
        out["detail"] = f"expected {exp:,.2f}; aggregates {[{k: v for k, v in a.items()} for a in agg[:3]]}"
    elif kind == "groups":
        agg = s.get("aggregates") or []
        op = "sum"
        got = {a["group"]: a.get(op) for a in agg}
        exp = {k: float(v) for k, v in q["expected"].items()}
        wrong = [k for k in exp if got.get(k) is None or abs(got[k] - exp[k]) > TOL]
        extra = [k for k in got if k not in exp]
        out["content_ok"] = bool(agg) and not wrong and not extra
        out["detail"] = (f"{len(exp)} groups expected, {len(got)} returned"
                         + (f"; wrong/missing {[(k, exp[k], got.get(k)) for k in wrong][:4]}" if wrong else "")
                         + (f"; extra groups {extra[:4]}" if extra else "")
                         + f"; measure {[a.get(op, a.get('count')) for a in agg[:2]]}")
    elif kind == "top1":
        named = [i for i in q["expected"] if i.lower() in answer.lower()]
        value_ok = any(abs(n - float(q["value"])) <= TOL for n in answer_numbers(answer))
        out["content_ok"] = bool(named)
        out["value_ok"] = value_ok
        out["detail"] = (f"expected {sorted(q['expected'])} (value {q['value']}); named in answer: {bool(named)}; "
                         f"value in answer: {value_ok}")
    out["correct"] = out["route_ok"] and out["content_ok"]
    return out


def run_questions(args, tmp: Path) -> tuple[dict, dict]:
    from samples import documents as samples
    from core.config import Settings
    from core.llm.scripted import ScriptedLLM
    from core.workspace import Workspace

    folder = tmp / "samples"
    started = time.perf_counter()
    paths = [p for p in samples.make_samples(folder) if p.suffix.lower() != ".md"]
    questions, ctx = build_questions(folder)
    names = {"orders": samples.ORDERS_CSV, "xlsx": samples.SPECS_XLSX, "spec": samples.SPEC_SHEETS,
             "receipts": samples.RECEIPTS}
    llm = ScriptedLLM([])
    ws = Workspace(Settings(data_dir=tmp / "data", embedding_threads=args.threads), llm=llm)
    try:
        results = ws.ingestor.ingest_paths(paths)
        ingest_seconds = time.perf_counter() - started
        failed = [(r.filename, r.message) for r in results if not r.ok]
        counts = ws.kb.counts()
        print(f"\n[2] Knowledge base: {len(paths)} sample files ingested in {ingest_seconds:.1f} s "
              f"({counts['documents']} documents, {counts['chunks']} chunks, {counts['facts']} facts)"
              + (f"; FAILED: {failed}" if failed else ""))
        for w in ctx["truth"]["warnings"]:
            print(f"    ground-truth warning: {w}")

        warm = ws.ask(questions[0]["question"])  # warm-up: label embeddings, SQLite pages, imports
        del warm
        records = []
        samples_s: list[dict] = []
        for repeat in range(max(1, args.repeats)):
            for q in questions:
                calls_before = len(llm.calls)
                t0 = time.perf_counter()
                response = ws.ask(q["question"])
                wall = time.perf_counter() - t0
                sample = {"id": q["id"], "repeat": repeat, "wall_s": wall, "route": response.route,
                          "timings_ms": dict(response.timings), "llm_calls": len(llm.calls) - calls_before}
                samples_s.append(sample)
                if repeat == 0:
                    scored = score(q, response, ws, ctx, names)
                    s = response.structured or {}
                    records.append({
                        "id": q["id"], "category": q["category"], "question": q["question"], "kind": q["kind"],
                        "expected": _jsonable(q["expected"]), "route": response.route, "answer": response.answer,
                        "understood": s.get("understood"), "attempts": s.get("attempts"),
                        "total_matches": s.get("total_matches"), "aggregates": (s.get("aggregates") or [])[:20],
                        "llm_calls": sample["llm_calls"], "wall_s": round(wall, 4), **scored,
                    })
    finally:
        ws.close()
    return {"records": records, "ingest_seconds": round(ingest_seconds, 2), "truth": ctx["truth"],
            "ingest_failed": failed, "kb_counts": counts}, {"samples": samples_s}


def _jsonable(value):
    if isinstance(value, set):
        return sorted(value)
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, Decimal):
        return float(value)
    return value


def report_questions(section: dict, show_all: bool) -> dict:
    records = section["records"]
    by_cat: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        by_cat[r["category"]].append(r)
    rows = []
    for r in records:
        rows.append([f"{r['id']:<4}{r['question'][:60]}", r["kind"], r["route"], "yes" if r["route_ok"] else "NO",
                     "yes" if r["content_ok"] else "NO", "OK" if r["correct"] else "FAIL",
                     fmt(r["total_matches"]), r["llm_calls"], f"{r['wall_s'] * 1000:.0f}"])
    print(table(["question", "scored as", "route", "route ok", "content ok", "score", "facts matched",
                 "llm calls", "ms"], rows,
                "\n[2a] Structured questions (ground truth computed from the generated files)"))
    summary = {}
    crow = []
    for cat in ("enumeration", "filter_units", "aggregate", "top1"):
        rs = by_cat.get(cat, [])
        if not rs:
            continue
        summary[cat] = {"n": len(rs), "correct": sum(r["correct"] for r in rs),
                        "route_ok": sum(r["route_ok"] for r in rs), "content_ok": sum(r["content_ok"] for r in rs)}
    summary["overall"] = {"n": len(records), "correct": sum(r["correct"] for r in records),
                          "route_ok": sum(r["route_ok"] for r in records),
                          "content_ok": sum(r["content_ok"] for r in records)}
    for cat, s in summary.items():
        crow.append([cat, s["n"], f"{s['route_ok']}/{s['n']}", f"{s['content_ok']}/{s['n']}",
                     f"{s['correct']}/{s['n']}", f"{100 * s['correct'] / s['n']:.0f}%"])
    print(table(["category", "n", "route structured", "content right", "correct", "accuracy"], crow,
                "\n[2b] Accuracy per category"))
    failures = [r for r in records if not r["correct"]]
    print(f"\n[2c] Failures ({len(failures)}):")
    for r in failures if not show_all else records:
        print(f"  {r['id']} [{r['category']}] {r['question']}")
        print(f"     route={r['route']} understood={r['understood']}")
        print(f"     attempts={[(a['description'][:60], a['matches']) for a in (r['attempts'] or [])]}")
        print(f"     score: {r['detail']}")
        print(f"     answer: {(r['answer'] or '').strip()[:400]}")
    return summary


def report_timing(timing: dict, records: list[dict]) -> dict:
    samples = timing["samples"]
    agents = ["Planner", "Retriever", "Reasoner", "Validator", "Responder"]
    structured = [s for s in samples if s["route"] == "structured"]

    def split(group: list[dict]) -> dict:  # milliseconds
        out = {"wall": p50_p95([s["wall_s"] * 1000 for s in group])}
        for a in agents:
            out[a] = p50_p95([s["timings_ms"].get(a, 0.0) for s in group])
        out["other"] = p50_p95([s["wall_s"] * 1000 - sum(s["timings_ms"].values()) for s in group])
        return out

    all_split, st_split = split(samples), split(structured) if structured else None
    rows = []
    for key in ["wall", *agents, "other"]:
        a = all_split[key]
        b = st_split[key] if st_split else {"p50": None, "p95": None}
        rows.append([key.replace("wall", "ws.ask wall"), fmt(a["p50"], 1), fmt(a["p95"], 1),
                     fmt(b["p50"], 1), fmt(b["p95"], 1)])
    n_st = len(structured)
    print(table(["ms", "p50 all", "p95 all", "p50 structured", "p95 structured"], rows,
                f"\n[3] Time per question, no LLM ({len(samples)} asks after 1 warm-up; {n_st} took the structured route)"))
    slowest = sorted(samples, key=lambda s: -s["wall_s"])[:5]
    print("    slowest: " + ", ".join(f"{s['id']} {s['wall_s'] * 1000:.0f} ms ({s['route']})" for s in slowest))
    target = st_split["wall"]["p95"] if st_split else None
    verdict = "n/a" if target is None else ("MET" if target < 1000 else "MISSED")
    print(f"    target p95 < 1 s for structured questions: {verdict}"
          + (f" (p95 {target:.0f} ms)" if target is not None else ""))
    llm_calls = sum(s["llm_calls"] for s in samples)
    if llm_calls:
        print(f"    WARNING: the LLM was called {llm_calls} times (questions that fell back to the hybrid route)")
    return {"all": all_split, "structured": st_split, "llm_calls": llm_calls, "target_met": verdict,
            "per_question": _per_question_timing(samples)}


def _per_question_timing(samples: list[dict]) -> dict:
    out: dict[str, list[float]] = defaultdict(list)
    for s in samples:
        out[s["id"]].append(round(s["wall_s"], 4))
    return out


# ==================================================================================================
# section 4: WikiTableQuestions tables
# ==================================================================================================

def _norm_cell(text: str) -> str:
    return " ".join(str(text).replace(",", "").lower().split())


def run_tables(args) -> dict:
    """Each CSV of ../shared/corpus/wikitablequestions read as ingest reads it: are all its data rows
    row facts, with the file's first line as the header, and is each question's answer a cell of
    some fact of its table (what the structured route can reach)?"""
    import csv as csv_module

    from core.ingest.extract import extract_facts
    from core.config import Settings
    from core.ingest.loaders import load_document

    corpus = SHARED / "corpus" / "wikitablequestions"
    settings = Settings()
    answers: dict[str, list[str]] = defaultdict(list)
    for name in ("qa_subset.tsv", "pristine-unseen-tables.tsv"):
        with (SHARED / "eval-public" / "wikitablequestions" / name).open(encoding="utf-8") as fh:
            for row in csv_module.DictReader(fh, delimiter="\t"):
                answers[row["context"]].append(row["targetValue"])
    totals = Counter()
    misses = []
    for path in sorted(corpus.glob("csv/*/*.csv")):
        key = str(path.relative_to(corpus))
        with path.open(encoding="utf-8", newline="") as fh:
            raw = [r for r in csv_module.reader(fh) if any(c.strip() for c in r)]
        facts = extract_facts(load_document(path, settings), "d")
        rows = [f for f in facts if f.kind == "row"]
        cells = {_norm_cell(v.text) for f in rows for v in f.values}
        # the header row of the file, as labels; a repeated name is told apart as "Time (2)"
        header = {re.sub(r" \(\d+\)$", "", column) for f in rows for column in f.properties}
        header_ok = bool(rows) and header <= {c.strip() for c in raw[0] if c.strip()} | {""}
        totals["tables"] += 1
        totals["rows_expected"] += len(raw) - 1
        totals["rows_found"] += min(len(rows), len(raw) - 1)
        totals["headers_ok"] += int(header_ok)
        for answer in answers.get(key, []):
            parts = [_norm_cell(a) for a in answer.split("|")]
            totals["answers"] += 1
            reachable = all(p in cells or any(p and p in c for c in cells) for p in parts)
            totals["answers_in_cells"] += int(reachable)
        if len(rows) != len(raw) - 1 or not header_ok:
            misses.append(f"{key}: {len(rows)} rows of {len(raw) - 1}, header {'ok' if header_ok else 'differs'}")
    print(f"\n[4] WikiTableQuestions tables ({totals['tables']} CSVs in ../shared/corpus/wikitablequestions)")
    print(f"    data rows extracted as row facts: {totals['rows_found']}/{totals['rows_expected']} "
          f"({100 * totals['rows_found'] / max(totals['rows_expected'], 1):.1f}%); "
          f"header = first line: {totals['headers_ok']}/{totals['tables']}")
    print(f"    questions whose answer is a cell of a fact of its table: {totals['answers_in_cells']}/{totals['answers']} "
          f"({100 * totals['answers_in_cells'] / max(totals['answers'], 1):.1f}%)")
    for line in misses[:10]:
        print("    " + line)
    return {**totals, "misses": misses}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sections", default="1,2,3,4", help="which sections to run (default 1,2,3,4; 3 needs 2)")
    parser.add_argument("--repeats", type=int, default=3,
                        help="asks per question for the timing section (the first one is also scored; default 3)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads for the embedder (default 1)")
    parser.add_argument("--show-failures", action="store_true", help="print wrong extracted values and every question")
    parser.add_argument("--keep", type=Path, help="keep the sample files and knowledge base in this folder")
    parser.add_argument("--out", default="structured_quality", help="name of the JSON in bench/results/")
    args = parser.parse_args(argv)
    sections = {s.strip() for s in args.sections.split(",")}
    logging.basicConfig(level=logging.WARNING)

    print(describe_code())
    payload: dict = {"machine": machine(), "args": {k: str(v) for k, v in vars(args).items()}}
    started = time.perf_counter()
    if "1" in sections:
        payload["extraction"] = run_extraction(args)
    if "4" in sections:
        payload["tables"] = run_tables(args)
    if "2" in sections or "3" in sections:
        tmp = args.keep or Path(tempfile.mkdtemp(prefix="structured_quality_"))
        if args.keep and tmp.exists():
            shutil.rmtree(tmp)
        tmp.mkdir(parents=True, exist_ok=True)
        try:
            section, timing = run_questions(args, tmp)
        finally:
            if not args.keep:
                shutil.rmtree(tmp, ignore_errors=True)
        if "2" in sections:
            section["summary"] = report_questions(section, args.show_failures)
        payload["questions"] = section
        if "3" in sections:
            payload["timing"] = report_timing(timing, section["records"])
    payload["seconds"] = round(time.perf_counter() - started, 1)
    path = write_json(args.out, payload)
    print(f"\nwrote {path} ({payload['seconds']} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
