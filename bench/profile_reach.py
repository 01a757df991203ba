"""What the domain profiles recognise in each public set: the documents whose name or first page states
one of their forms, and the questions that name one. A set where a profile recognises nothing is read by
the core's rules alone, so its figures are the same with the profile on or off (docs/benchmarks.md,
"Domain profiles"); the filing sets are measured both ways by `retrieval_quality.py`.

    python -m bench.profile_reach [--shared ../shared]

Text only, no parsing or model: a TAT-QA report is its paragraphs and table as the benchmark writes them
into a PDF (bench/tatqa.py); a records or WikiTableQuestions table is its file name.
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import ROOT  # noqa: E402

SHARED = ROOT.parent / "shared"


def tatqa_texts(shared: Path, part: str) -> tuple[list[tuple[str, str]], list[str]]:
    """(file name, first page's text) per report of one part of bench/tatqa.py's split, and its questions."""
    from bench.tatqa import SEED, document_name, split_contexts

    contexts = split_contexts(json.loads((shared / "eval-public/tatqa/tatqa_dataset_dev.json").read_text()), SEED)[part]
    documents = []
    for context in contexts:
        paragraphs = [p["text"] for p in sorted(context["paragraphs"], key=lambda p: p["order"])]
        table = "\n".join(" ".join(row) for row in context["table"]["table"])
        documents.append((document_name(context), "\n".join([*paragraphs, table])))
    return documents, [q["question"] for c in contexts for q in c["questions"]]


def records_texts(shared: Path) -> tuple[list[tuple[str, str]], list[str]]:
    folder = shared / "eval-public/records"
    documents = [(p.name, "") for p in sorted((folder / "docs").iterdir())]
    questions = [json.loads(line)["question"] for line in (folder / "questions.jsonl").read_text().splitlines() if line]
    return documents, questions


def wtq_texts(shared: Path) -> tuple[list[tuple[str, str]], list[str]]:
    with open(shared / "eval-public/wikitablequestions/qa_subset.tsv", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    return sorted({(r["context"].replace("/", "_"), "") for r in rows}), [r["utterance"] for r in rows]


def reach(documents: list[tuple[str, str]], questions: list[str]) -> dict:
    from core.ingest.document import LoadedDocument, Section
    from core.ingest.summary import document_type
    from core.profiles.sec_filing import SEC_FILING

    profile = (SEC_FILING,)
    recognised = []
    for name, text in documents:
        document = LoadedDocument(name, "pdf", [Section(text=text, page=1)] if text else [])
        kind = document_type(document, profile)
        if SEC_FILING.cover_form(text) or (kind is not None and kind in SEC_FILING.document_types):
            recognised.append(name)
    naming = [q for q in questions if SEC_FILING.form_asked(q)]
    return {"documents": len(documents), "recognised": len(recognised), "recognised_examples": recognised[:3],
            "questions": len(questions), "naming_a_form": len(naming), "naming_examples": naming[:3]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shared", type=Path, default=SHARED, help="folder holding eval-public/")
    args = parser.parse_args(argv)
    from bench.tatqa import REPORT, TUNE

    sets = {"TAT-QA tuning part": lambda shared: tatqa_texts(shared, TUNE),
            "TAT-QA reporting part": lambda shared: tatqa_texts(shared, REPORT),
            "records": records_texts, "WikiTableQuestions": wtq_texts}
    print(f"{'set':<22} {'documents':>9} {'recognised':>10} {'questions':>9} {'naming a form':>13}")
    for name, read in sets.items():
        found = reach(*read(args.shared))
        print(f"{name:<22} {found['documents']:>9} {found['recognised']:>10} {found['questions']:>9} "
              f"{found['naming_a_form']:>13}")
        for example in found["recognised_examples"] + found["naming_examples"]:
            print(f"    e.g. {example[:100]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
