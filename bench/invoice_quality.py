"""The invoice set (issue 14): ask the total, the date and the number of each invoice in
../shared/corpus/invoice2data-invoices, named by its file, against eval-public's expected JSON.

    DOCUCHAT_DATA_DIR=/work/kb/tables/kb_wtq python -m core ingest ../shared/corpus/invoice2data-invoices/*
    DOCUCHAT_DATA_DIR=/work/kb/tables/kb_wtq python -m bench.invoice_quality

The knowledge base may hold other files too (the bench's holds the 60 WikiTableQuestions tables):
the question must select its invoice. The model is loaded once; answers go to bench/results/ as JSONL.
A total matches within 1 %, a date when the answer holds it in any printed form, a number verbatim.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

from bench import splits
from bench._common import RESULTS, p50_p95
from bench.table_quality import _NOT_ANSWER, SHARED, item_matches

EXPECTED = SHARED / "eval-public" / "invoice2data-invoices" / "expected"
QUESTIONS = {
    "total": "What is the total amount of the {name} invoice?",
    "date": "What is the date of the {name} invoice?",
    "number": "What is the invoice number of the {name} invoice?",
}
_DATE_LIKE = re.compile(r"\b(?:\d{1,4}[./-]\d{1,2}[./-]\d{1,4}|[A-Z]?[a-z]{2,8}\.? \d{1,2},? \d{4}|\d{1,2} [A-Z]?[a-z]{2,8}\.? \d{4})\b")


def name_of(filename: str) -> str:
    """ "AzureInterior.pdf" -> "Azure Interior", "free_fiber.pdf" -> "free fiber": as a user says it."""
    stem = filename.rsplit(".", 1)[0]
    return " ".join(re.sub(r"(?<=[a-z])(?=[A-Z])", " ", stem).replace("_", " ").split())


def date_matches(expected: str, answer: str) -> bool:
    from core.annotations.documents import first_date

    return expected in answer or any(first_date(m) == expected for m in _DATE_LIKE.findall(answer))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--from-jsonl", type=Path)
    parser.add_argument("--resume", action="store_true", help="keep the answers already in the JSONL")
    parser.add_argument("--selection-only", action="store_true", help="only which tables each question selects (no model)")
    args = parser.parse_args(argv)
    if args.selection_only:
        results = run(selection_only=True)
        report = {"questions": len(results)}
        for key in ("only_its_file", "its_record_selected", "lookup_its_record"):
            report[key] = f"{sum(r[key] for r in results)}/{len(results)}"
        print(json.dumps(report, indent=2))
        for r in results:
            if not r["lookup_its_record"]:
                print(f"  {r['question']!r}: selected {r['selected']}, lookup {r['lookup']}", file=sys.stderr)
        return 0
    if args.from_jsonl:
        results = [json.loads(line) for line in args.from_jsonl.read_text().splitlines() if line.strip()]
    else:
        results = run(args.resume)
    report = {"n_invoices": len({r["file"] for r in results})}
    for field in QUESTIONS:
        mine = [r for r in results if r["field"] == field]
        report[field] = f"{sum(r['match'] for r in mine)}/{len(mine)}"
        for part in (splits.DEV, splits.TEST):  # the extraction's vocabulary was decided on the dev invoices
            of_part = [r for r in mine if r.get("part") == part]
            report[f"{field}_{part}"] = f"{sum(r['match'] for r in of_part)}/{len(of_part)}"
    report["seconds"] = p50_p95([r["seconds"] for r in results])
    report["route_structured"] = sum(r["route"] == "structured" for r in results)
    for path in ("rules", "model"):
        taken = [r for r in results if r.get("path") == path and r["route"] == "structured"]
        report[f"path_{path}"] = f"{len(taken)}/{len(results)}"
        report[f"seconds_{path}"] = p50_p95([r["seconds"] for r in taken])
    print(json.dumps(report, indent=2))
    return 0


def run(resume: bool = False, selection_only: bool = False) -> list[dict]:
    from core.config import load_settings
    from core.workspace import Workspace

    ws = Workspace(load_settings())
    indexed = {d.filename for d in ws.kb.documents() if d.status == "indexed"}
    out = RESULTS / ("invoice_selection.jsonl" if selection_only else "invoice_quality.jsonl")
    out.parent.mkdir(parents=True, exist_ok=True)
    results = [json.loads(line) for line in out.read_text().splitlines() if line.strip()] if resume and out.exists() else []
    done = {(r["file"], r["field"]) for r in results}
    invoices = [(json.loads(f.read_text())[0], next(n for n in indexed if n.rsplit(".", 1)[0] == f.stem))
                for f in sorted(EXPECTED.glob("*.json"))]
    with open(out, "a" if resume else "w", encoding="utf-8") as handle:
        for field, template in QUESTIONS.items():  # every total first: a stopped run still reports them
            for expected, filename in invoices:
                reference = expected.get({"total": "amount", "date": "date", "number": "invoice_number"}[field])
                if (filename, field) in done or reference is None:  # no expected value: nothing to score
                    continue
                question = template.format(name=name_of(filename))
                if selection_only:  # which tables the question selects, and whether the record lookup answers it
                    route = ws.tables_named(question)
                    selected = [x.table for x in route.selections] if route else []
                    results.append({"file": filename, "field": field, "question": question,
                                    "selected": [t.name for t in selected],
                                    "only_its_file": bool(selected) and {t.filename for t in selected} <= {filename},
                                    "its_record_selected": any(t.kind == "record" and t.filename == filename for t in selected),
                                    "lookup": route.lookup[0].table.name if route and route.lookup else None,
                                    "lookup_its_record": bool(route and route.lookup and route.lookup[0].table.filename == filename)})
                    continue
                started = time.perf_counter()
                response = ws.ask(question, mode="pipeline")
                seconds = round(time.perf_counter() - started, 2)
                answer = _NOT_ANSWER.sub(" ", response.answer)  # "[Source 1]" is no figure of the answer
                if field == "total":
                    match = item_matches(str(reference), answer)
                elif field == "date":
                    match = date_matches(str(reference), answer)
                else:
                    number = str(reference).lower().lstrip("#").strip()  # "#BLR_..." : the sign is no part of the number
                    match = re.search(rf"(?<!\w){re.escape(number)}(?!\w)", answer.lower()) is not None
                cited = {c.filename for c in response.citations if c.cited}
                record = {"file": filename, "field": field, "question": question, "answer": answer,
                          "match": bool(match), "cites_invoice": filename in cited, "route": response.route,
                          "confidence": response.confidence, "seconds": seconds,
                          "query": (response.structured or {}).get("query"),
                          "path": (response.structured or {}).get("query_path"), "part": splits.part_of(Path(filename).stem)}
                results.append(record)
                handle.write(json.dumps(record) + "\n")
                handle.flush()
                print(f"{'OK ' if match else 'no '} {seconds:5.1f}s {question!r} -> {answer[:90]!r}", file=sys.stderr)
    ws.close()
    return results


if __name__ == "__main__":
    sys.exit(main())
