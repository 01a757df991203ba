"""Document records read at ingest (core.annotations.documents), field by field, against the public keys.

- Invoices: the 12 files of ../shared/corpus/invoice2data-invoices, loaded as ingest loads them, against
  ../shared/eval-public/invoice2data-invoices/expected (issuer, invoice_number, date, amount, currency).
- Receipts: the 50 SROIE receipts against ../shared/eval-public/sroie-receipts/key (company, date, total).
  By default their lines are rebuilt from the ground-truth OCR boxes (box/NNN.csv) with the same row
  builder Tesseract's words go through at ingest (core.ingest.ocr.build_rows), which measures the
  extraction, not the OCR; `--tesseract` reads the JPGs with Tesseract as ingest does (slow).

No model is used. Split by bench/splits.py on the file stem; decide on `dev`, report `test`:

    python -m bench.record_extraction --part dev --show
    python -m bench.record_extraction --part test
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

from bench import splits
from bench.ocr_quality import iso_dates, similar
from bench.table_quality import SHARED

INVOICES = SHARED / "corpus" / "invoice2data-invoices"
INVOICE_KEYS = SHARED / "eval-public" / "invoice2data-invoices" / "expected"
RECEIPTS = SHARED / "corpus" / "sroie-receipts"
RECEIPT_KEYS = SHARED / "eval-public" / "sroie-receipts" / "key"
ISSUER_SIMILARITY = 0.8  # a company name read with an OCR slip ("SDN BND") still names the company


def _number_key(text: str) -> str:
    return re.sub(r"[\s#:]", "", str(text)).upper()


def issuer_right(found: str | None, expected: str) -> bool:
    if not found:
        return False
    a, b = found.upper(), expected.upper()
    return a in b or b in a or similar(found, expected) >= ISSUER_SIMILARITY


def invoice_rows(part: str) -> list[dict]:
    from core.annotations.documents import read_records
    from core.config import load_settings
    from core.ingest.loaders import load_document

    settings = load_settings()
    rows = []
    for key_file in splits.keep(sorted(INVOICE_KEYS.glob("*.json")), lambda p: p.stem, part):
        key = json.loads(key_file.read_text())[0]
        path = next(INVOICES.glob(key_file.stem + ".*"))
        started = time.perf_counter()
        # as ingest reads it; one invoice a file, so a file read as several records is scored by its first
        record = read_records(load_document(path, settings), path)[0]
        seconds = time.perf_counter() - started
        checks = {
            "issuer": issuer_right(record.issuer, key["issuer"]),
            "number": record.number is not None and _number_key(record.number) == _number_key(key["invoice_number"]),
            "date": record.date == key.get("date"),
            "total": None if key.get("amount") is None else
            (record.total is not None and abs(record.total - float(key["amount"])) < 0.005),
            "currency": record.currency == key.get("currency"),
        }
        rows.append({"file": path.name, "checks": checks, "found": record.values(), "seconds": round(seconds, 3),
                     "expected": {k: key.get(k) for k in ("issuer", "invoice_number", "date", "amount", "currency")}})
    return rows


def receipt_lines_from_boxes(path: Path):
    from core.annotations.documents import Cell, Line
    from core.config import load_settings
    from core.ingest.ocr import Word, build_rows

    words = []
    for n, raw in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines()):
        parts = raw.split(",", 8)
        if len(parts) < 9 or not parts[8].strip():
            continue
        xs, ys = [int(v) for v in parts[0:8:2]], [int(v) for v in parts[1:8:2]]
        # one box is one printed segment: its words share the box's line
        for k, token in enumerate(parts[8].split()):
            width = (max(xs) - min(xs)) / max(len(parts[8].split()), 1)
            words.append(Word(token, int(min(xs) + k * width), min(ys), max(int(width) - 2, 1), max(ys) - min(ys), (n,)))
    rows = build_rows(words, load_settings().ocr_column_gap) if words else []
    return [Line([Cell(" ".join(w.text for w in cell), cell[0].left, cell[-1].right) for cell in row.cells])
            for row in rows]


def receipt_rows(part: str, tesseract: bool) -> list[dict]:
    from core.annotations.documents import read_record, read_records
    from core.ingest.document import IngestError

    rows = []
    for key_file in splits.keep(sorted(RECEIPT_KEYS.glob("*.json")), lambda p: p.stem, part):
        key = json.loads(key_file.read_text())
        started = time.perf_counter()
        if tesseract:
            from core.config import load_settings
            from core.ingest.loaders import load_document

            image = RECEIPTS / "img" / f"{key_file.stem}.jpg"
            try:
                record = read_records(load_document(image, load_settings()))[0]
            except IngestError as exc:  # ingest would refuse the file too: every field is a miss
                print(f"receipt {key_file.stem}: {exc}", file=sys.stderr)
                record = read_record(key_file.stem, [], 1)
        else:
            record = read_record(key_file.stem, receipt_lines_from_boxes(RECEIPTS / "box" / f"{key_file.stem}.csv"), 1)
        seconds = time.perf_counter() - started
        totals = re.findall(r"\d+(?:[.,]\d+)?", key.get("total", ""))
        checks = {
            "issuer": issuer_right(record.issuer, key["company"]),
            "date": record.date is not None and record.date in iso_dates(key["date"]),
            "total": None if not totals else (record.total is not None and abs(record.total - float(totals[-1].replace(",", "."))) < 0.005),
        }
        rows.append({"file": key_file.stem, "checks": checks, "found": record.values(), "seconds": round(seconds, 3),
                     "expected": {k: key.get(k) for k in ("company", "date", "total")}})
    return rows


def report(rows: list[dict]) -> dict:
    fields = sorted({f for r in rows for f in r["checks"]})
    out = {"n": len(rows)}
    for name in fields:
        scored = [r["checks"][name] for r in rows if r["checks"].get(name) is not None]
        out[name] = f"{sum(scored)}/{len(scored)}"
    seconds = sorted(r["seconds"] for r in rows)
    out["seconds_p50"] = seconds[len(seconds) // 2] if seconds else None
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    splits.add_argument(parser)
    parser.add_argument("--tesseract", action="store_true", help="read the receipt JPGs by OCR instead of the boxes")
    parser.add_argument("--show", action="store_true", help="print every miss")
    args = parser.parse_args(argv)
    results = {"invoices": invoice_rows(args.part), "receipts": receipt_rows(args.part, args.tesseract)}
    for name, rows in results.items():
        if args.show:
            for r in rows:
                misses = [f for f, ok in r["checks"].items() if ok is False]
                if misses:
                    print(f"{name} {r['file']}: miss {misses} found={r['found']} expected={r['expected']}", file=sys.stderr)
        print(name, json.dumps(report(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
