"""Unscoped table choice by the words, no model (issue 22): for each question of the records set and of
WikiTableQuestions, asked with no document in scope, is the first table the finder selects one of the question's
own files? The model's choice among the best few (`choose.py`, where no table reaches the bar) is left out, so a
change to the scoring is measured alone, in seconds. Needs the records knowledge base (bench/records_quality.py
says how to build it: the records files, the sample documents and the WikiTableQuestions CSVs together).

    DOCUCHAT_DATA_DIR=/work/kb/records/kb python -m bench.table_choice --part dev [--out FILE]
"""
from __future__ import annotations

import argparse
import csv
import json
import sys

from bench import splits
from bench._common import RESULTS, table
from bench.records_quality import QUESTIONS, SHARED
from core.config import load_settings
from core.workspace import Workspace

WTQ = SHARED / "eval-public" / "wikitablequestions" / "qa_subset.tsv"


def questions(part: str) -> list[tuple[str, str, str, set[str]]]:
    """(set, id, question, the file names that answer it) of one part of both sets."""
    found = []
    for line in QUESTIONS.read_text(encoding="utf-8").splitlines():
        item = json.loads(line) if line.strip() else None
        if item and item.get("files") and part in ("all", item["part"]):
            found.append(("records", item["id"], item["question"], set(item["files"])))
    with WTQ.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    for row in splits.keep(rows, lambda r: r["id"], part):
        folder, name = row["context"].split("/")[1:]  # csv/204-csv/112.csv, ingested as 204_112.csv
        found.append(("wikitablequestions", row["id"], row["utterance"], {f"{folder.removesuffix('-csv')}_{name}"}))
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    splits.add_argument(parser)
    parser.add_argument("--out", default=None, help="JSON of each question's first table (default bench/results/)")
    args = parser.parse_args(argv)
    ws = Workspace(load_settings())
    try:
        chosen, counts = {}, {}
        for kind, qid, question, files in questions(args.part):
            route = ws.pipeline.finder.find(question, with_model=False)
            first = route.selections[0].table.filename if route and route.selections else None
            chosen[qid] = {"first": first, "right": first in files, "none": first is None}
            right, none, n = counts.get(kind, (0, 0, 0))
            counts[kind] = (right + (first in files), none + (first is None), n + 1)
    finally:
        ws.close()
    print(table(["set", "right table first", "no table (the model would choose)", "questions"],
                [[k, f"{r} ({100 * r / n:.1f} %)", none, n] for k, (r, none, n) in counts.items()],
                title=f"Unscoped table choice by the words, {args.part} part"))
    out = args.out or RESULTS / f"table_choice_{args.part}.json"
    with open(out, "w", encoding="utf-8") as f:
        json.dump(chosen, f, indent=1)
    print(f"written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
