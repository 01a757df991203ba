"""OCR quality and speed on scanned receipts: company, date and total, as ingest extracts them.

    OMP_THREAD_LIMIT=1 .venv/bin/python bench/ocr_quality.py [--limit 30] [--max-seconds 600]

Corpus: ../shared/corpus/sroie-receipts/img/NNN.jpg (scanned receipts), with the ground truth in
../shared/eval-public/sroie-receipts/key/NNN.json ({company, date, address, total}) and the
reference OCR transcript in ../shared/corpus/sroie-receipts/box/NNN.csv (one text box a line).

Each image goes through core.ingest.loaders.load_document (exactly what ingest does: Tesseract,
lines rebuilt from word boxes, line items) and core.annotations.extract.extract_facts. Per field:

  in OCR text  the right value occurs in the OCR text at all (an upper bound for extraction);
  extracted    the value that ingest extracts is right:
    company    the heading the loader finds (core.ingest.ocr.heading: among the first lines, the one
               with a legal form such as "Ltd" or "Sdn Bhd", else the first line that reads as a name);
               "exact" after upper-casing and dropping punctuation, "close" at a similarity >= 0.9
               (difflib ratio, so one misread letter in a long name still counts);
    date       the first key-value fact whose value is a date equals the key's date;
    total      the last key-value fact labelled like a total ("total", "amount due", "grand total",
               not "subtotal", "total qty", "total tax", "total discount") whose value is a number
               equals the key's total within 0.005 (the grand total is printed after the subtotals).

The same extraction also runs on the reference transcripts (boxes rebuilt into lines by the same
code, no Tesseract), which separates OCR errors from extraction misses. Seconds per page is the
wall time of load_document per image (one page each). Set OMP_THREAD_LIMIT=1 on a busy 2-core
machine: Tesseract's OpenMP threads then do not fight the other processes (measured 1.3 s -> 0.8 s
a page). Results: bench/results/ocr_quality.json.
"""
from __future__ import annotations

import argparse
import datetime as dt
import difflib
import json
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import RESULTS, ROOT, fmt, p50_p95, table  # noqa: E402
from core.annotations.documents import first_date  # noqa: E402
from core.ingest.extract import extract_facts  # noqa: E402
from core.annotations.model import KV  # noqa: E402
from core.config import load_settings  # noqa: E402
from core.ingest.document import IngestError, LoadedDocument, Section  # noqa: E402
from core.ingest.loaders import load_document  # noqa: E402
from core.ingest.ocr import OcrPage, Word, build_rows, heading, ocr_status, page_sections  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "sroie-receipts"
KEYS = ROOT.parent / "shared" / "eval-public" / "sroie-receipts" / "key"
FIELDS = ("company", "date", "total")
CLOSE = 0.9
_TOTAL_LABEL = re.compile(r"\b(?:total|amount due|balance due|grand)\b", re.I)
_NOT_TOTAL = re.compile(r"\b(?:sub|qty|quantity|items?|excl\w*|before|tax|gst|vat|discount|saving\w*)\b", re.I)
_AMOUNT_TOKEN = re.compile(r"-?\d{1,3}(?:[,.]\d{3})*[.,]\d{2}(?!\d)")
_DATE_TOKEN = re.compile(r"\b(\d{1,4})\s?[./-]\s?(\d{1,2})\s?[./-]\s?(\d{2,4})\b")
_DAY_FIRST = ("%d/%m/%Y", "%d/%m/%y", "%Y/%m/%d")
_MONTH_NAME = re.compile(r"\b\d{1,2}\s?[A-Za-z]{3,9}\s?,?\s?\d{4}\b")


# --- normalizing the key and the candidates ---------------------------------------------------

def name_key(text: str) -> str:
    return " ".join(re.sub(r"[^\w ]+", " ", text.upper()).split())


def similar(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, name_key(a), name_key(b)).ratio()


def iso_dates(text: str) -> list[str]:
    """Every date in `text` read day-first (the receipts are Malaysian), with 2- or 4-digit years,
    or written with a month name ("05 MAR 2018")."""
    found = [first_date(text)] if _MONTH_NAME.search(text) and first_date(text) else []
    for match in _DATE_TOKEN.finditer(text):
        cleaned = "/".join(match.groups())
        for fmt_ in _DAY_FIRST:
            try:
                found.append(dt.datetime.strptime(cleaned, fmt_).date().isoformat())
                break
            except ValueError:
                continue
    return found


def amounts(text: str) -> list[float]:
    return [float(m.replace(",", ".")) if m.count(",") == 1 and m[-3] == "," else float(m.replace(",", ""))
            for m in _AMOUNT_TOKEN.findall(text)]


# --- what ingest extracts ---------------------------------------------------------------------

def extracted(document: LoadedDocument, heading_lines: int) -> dict[str, object]:
    facts = extract_facts(document, "bench")
    own = [f.values[0] for f in facts if f.kind == KV]  # a key-value fact's own value comes first
    date = next((v.date for v in own if v.date), None)
    totals = [v.number for v in own if v.number is not None
              and _TOTAL_LABEL.search(v.column) and not _NOT_TOTAL.search(v.column)]
    text = "\n".join(s.text for s in document.sections)
    return {"company": heading(text.split("\n"), heading_lines), "date": date,
            "total": totals[-1] if totals else None, "text": text}


def score(found: dict[str, object], key: dict[str, str]) -> dict[str, bool | None]:
    """Each check right or wrong; None where the key has no usable value (one receipt has no total)."""
    text = str(found["text"])
    key_dates = iso_dates(key["date"])
    key_totals = amounts(key["total"])  # "$8.20", "RM5.00", "9.00"
    company = str(found["company"] or "")
    result: dict[str, bool | None] = {
        "company_in_text": any(similar(line, key["company"]) >= CLOSE for line in text.split("\n"))
                           or name_key(key["company"]) in name_key(text),
        "company_exact": name_key(company) == name_key(key["company"]),
        "company_close": similar(company, key["company"]) >= CLOSE,
        "date_in_text": None, "date": None, "total_in_text": None, "total": None,
    }
    if key_dates:
        result["date_in_text"] = key_dates[0] in iso_dates(text)
        result["date"] = found["date"] == key_dates[0]
    if key_totals:
        result["total_in_text"] = any(abs(a - key_totals[0]) < 0.005 for a in amounts(text))
        result["total"] = found["total"] is not None and abs(float(found["total"]) - key_totals[0]) < 0.005
    return result


def transcript_document(box_file: Path, settings) -> LoadedDocument:
    """The reference transcript as a one-page document: each box becomes one word for the same
    row-building and page-rendering code, so the comparison isolates Tesseract's reading."""
    words = []
    for number, line in enumerate(box_file.read_text(encoding="utf-8", errors="replace").splitlines()):
        parts = line.split(",", 8)
        if len(parts) < 9 or not parts[8].strip():
            continue
        xs, ys = [int(p) for p in parts[0:8:2]], [int(p) for p in parts[1:8:2]]
        words.append(Word(parts[8].strip(), min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys), (number,)))
    rows = build_rows(words, settings.ocr_column_gap) if words else []
    return LoadedDocument(box_file.name, "txt", page_sections(OcrPage(rows), 1, settings), page_count=1)


# --- the run ----------------------------------------------------------------------------------

def rates(scores: list[dict[str, bool | None]]) -> dict[str, float]:
    result = {}
    for check in (scores[0] if scores else {}):
        scored = [s[check] for s in scores if s[check] is not None]
        result[check] = round(100 * sum(scored) / len(scored), 1) if scored else None
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=30, help="receipts to OCR, in file order (default 30)")
    parser.add_argument("--max-seconds", type=float, default=600, help="stop OCR after this long (default 600)")
    parser.add_argument("--show", action="store_true", help="print each receipt's extracted fields")
    args = parser.parse_args(argv)

    settings = load_settings()
    usable, status = ocr_status(settings)
    images = sorted((CORPUS / "img").glob("*.jpg"))
    keys = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in KEYS.glob("*.json")}

    reference = []
    for image in images:
        found = extracted(transcript_document(CORPUS / "box" / f"{image.stem}.csv", settings), settings.ocr_heading_lines)
        reference.append(score(found, keys[image.stem]))

    ocr_scores, seconds, rows = [], [], []
    started = time.perf_counter()
    if usable:
        for image in images[: args.limit]:
            if time.perf_counter() - started > args.max_seconds:
                break
            began = time.perf_counter()
            try:
                document = load_document(image, settings)
            except IngestError as exc:  # nothing read: every field is wrong, and the run goes on
                document = LoadedDocument(image.name, "jpg", [Section(text="", page=1)], page_count=1,
                                          warnings=[str(exc)])
            seconds.append(time.perf_counter() - began)
            found = extracted(document, settings.ocr_heading_lines)
            result = score(found, keys[image.stem])
            ocr_scores.append(result)
            rows.append({"file": image.name, "seconds": round(seconds[-1], 2), "warnings": document.warnings, **result,
                         **{f"got_{k}": found[k] for k in FIELDS}, **{f"key_{k}": keys[image.stem][k] for k in FIELDS}})
            if args.show:
                print(f"{image.name} {seconds[-1]:.1f}s  company={found['company']!r} date={found['date']} "
                      f"total={found['total']}  | key: {keys[image.stem]['company']!r} {keys[image.stem]['date']} "
                      f"{keys[image.stem]['total']}", flush=True)
    else:
        print(f"OCR unavailable: {status}", file=sys.stderr)

    ocr, ref = rates(ocr_scores), rates(reference)
    lines = [
        ["company: in the text", ocr.get("company_in_text"), ref.get("company_in_text")],
        ["company: heading exact", ocr.get("company_exact"), ref.get("company_exact")],
        ["company: heading close (>= 0.9)", ocr.get("company_close"), ref.get("company_close")],
        ["date: in the text", ocr.get("date_in_text"), ref.get("date_in_text")],
        ["date: first date fact", ocr.get("date"), ref.get("date")],
        ["total: in the text", ocr.get("total_in_text"), ref.get("total_in_text")],
        ["total: last total fact", ocr.get("total"), ref.get("total")],
    ]
    print(table(["% right", f"Tesseract ({len(ocr_scores)} receipts)", f"reference transcript ({len(reference)})"],
                [[name, fmt(a, 1, "%"), fmt(b, 1, "%")] for name, a, b in lines],
                title=f"SROIE receipts, {status}"))
    timing = p50_p95(seconds)
    if seconds:
        print(f"seconds per page: p50 {fmt(timing['p50'], 2)}, p95 {fmt(timing['p95'], 2)}, "
              f"mean {fmt(sum(seconds) / len(seconds), 2)} over {len(seconds)} pages")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "ocr_quality.json").write_text(json.dumps({
        "status": status, "settings": {k: getattr(settings, k) for k in settings.__dataclass_fields__ if k.startswith("ocr_")},
        "tesseract": ocr, "reference": ref, "seconds": timing, "receipts": rows,
    }, indent=2, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
