"""Questions about office records through the real Workspace (issue 22): the public `records` set
(../shared/eval-public/records: 120 questions over ten CSV/XLSX files of five organisations).

The knowledge base holds the set's ten files together with the sample documents and the shared
corpus's CSVs, as a user's would (table selection must find the right file among ~75):

    mkdir -p /work/kb/records/files && python -m samples --out /work/kb/records/samples
    for f in ../shared/corpus/wikitablequestions/csv/*/*.csv; do d=$(basename $(dirname $f));
      cp $f /work/kb/records/files/${d%-csv}_$(basename $f); done
    DOCUCHAT_DATA_DIR=/work/kb/records/kb python -m core ingest ../shared/eval-public/records/docs/* \
      /work/kb/records/samples/* /work/kb/records/files/*.csv
    DOCUCHAT_DATA_DIR=/work/kb/records/kb python -m bench.records_quality --part dev

Questions are asked unscoped (no --doc), through `Workspace.ask` in pipeline mode, with the model
loaded once. Each answer is written to bench/results/ as it comes (JSONL; --resume skips the done
ones, --from-jsonl re-scores). Scoring follows the set's README ("How to score"), applied to the
answer text the user reads:
- number / count: the first number of the answer that the question does not itself state (a year,
  a threshold), currency signs, separators and units stripped; within the tolerance / exact;
- string: the folded value is in the folded answer (lenient: a list holding it passes);
- list: every folded item is in the answer and the answer presents as many items as expected
  (the records route's row count, else the items after its colon);
- pairs: every key is followed within its clause by its value within the tolerance, and as many
  groups are presented as expected;
- refusal: the answer says the documents do not hold it and states no figure of its own.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
import unicodedata
from collections import Counter, defaultdict
from pathlib import Path

from bench._common import RESULTS, keep_answers, p50_p95

SHARED = next((p / "shared" for p in Path(__file__).resolve().parents if (p / "shared" / "eval-public").is_dir()), Path("shared"))
QUESTIONS = SHARED / "eval-public" / "records" / "questions.jsonl"
_NUMBER = re.compile(r"(?<![\w.])[-−]?\d[\d,]*(?:\.\d+)?")
_SOURCE = re.compile(r"\[(?:Source\s*)?\d+\]")
_REFUSAL = re.compile(
    r"\b(?:couldn['’]?t find|could not find|can(?:no|')t find|not (?:in|found in|recorded in|contain)|"
    r"do(?:es)? not (?:contain|record|hold|include|have|say|show|list|give)|no (?:column|field|record|information|data)|"
    r"isn['’]t (?:in|recorded)|not available|no information)\b", re.I)


def fold(text) -> str:
    """The set's own folding (its truth.py): NFKD without accents, lower case, letters, digits and &."""
    text = unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9&]+", "", text.lower())


_FILENAME = re.compile(r"[\w.-]+\.(?:csv|xlsx|xls|pdf|txt|md|docx)\b", re.I)  # "204_875.csv" names a file, states no 204


def numbers(text: str) -> list[float]:
    found = []
    for match in _NUMBER.finditer(_FILENAME.sub(" ", _SOURCE.sub(" ", text or ""))):
        try:
            found.append(float(match.group(0).replace(",", "").replace("−", "-")))
        except ValueError:
            pass
    return found


def stated_answer_number(question: str, answer: str) -> float | None:
    """The number the answer presents: its first number that the question does not state itself."""
    asked = set(numbers(question))
    return next((n for n in numbers(answer) if n not in asked), None)


def _close(found: float | None, expected: float, tolerance: float) -> bool:
    return found is not None and abs(found - expected) <= tolerance * abs(expected) + 1e-9


def presented_items(answer: str, structured: dict | None) -> int | None:
    """How many items the answer presents: the records route's row count, else its items after a colon."""
    if structured and structured.get("total_matches") is not None:
        return int(structured["total_matches"])
    body = _SOURCE.sub("", answer or "")
    if ":" not in body:
        return None
    items = [i for i in re.split(r";|\n|,(?![\d])", body.split(":", 1)[1]) if i.strip(" .")]
    return len(items)


def refuses(question: str, answer: str) -> bool:
    from core.agents.validator import is_no_information
    said = is_no_information(answer) or bool(_REFUSAL.search(answer or ""))
    return said and stated_answer_number(question, answer) is None


def score(item: dict, answer: str, structured: dict | None = None) -> bool:
    kind, expected, tolerance = item["answer_type"], item["answer"], item.get("tolerance") or 0.0
    text = answer or ""
    if kind == "refusal":
        return refuses(item["question"], text)
    if refuses(item["question"], text):
        return False
    folded = fold(_SOURCE.sub(" ", text))
    if kind in ("number", "count"):
        found = stated_answer_number(item["question"], text)
        return _close(found, float(expected), tolerance) if kind == "number" else found == float(expected)
    if kind == "string":
        return fold(expected) in folded
    if kind == "list":
        shown = presented_items(text, structured)
        if expected and isinstance(expected[0], list):  # [key, value] pairs
            clauses = [c for c in re.split(r";|\n", _SOURCE.sub(" ", text))]
            for key, value in expected:
                holding = [c for c in clauses if fold(key) and fold(key) in fold(c)]
                if not any(_close(v, float(value), tolerance) for c in holding for v in numbers(c)):
                    return False
            return shown in (None, len(expected))
        return all(fold(v) in folded for v in expected) and shown in (None, len(expected))
    raise ValueError(f"unknown answer_type {kind!r}")


def load(path: Path, part: str, types: str = "", ids: frozenset = frozenset()) -> list[dict]:
    items = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    wanted = set(types.split(",")) if types else None
    return [q for q in items if (part == "all" or q["part"] == part) and (wanted is None or q["type"] in wanted)
            and (not ids or q["id"] in ids)]


def selection(args) -> dict:
    """How often the unscoped question selects one of its files' tables first: by the words alone, or
    (--model-choice) with the model choosing where they could not."""
    from core.config import load_settings
    from core.workspace import Workspace

    items = load(args.questions, args.part, args.types, frozenset(filter(None, args.ids.split(","))))[: args.limit or None]
    ws = Workspace(load_settings())
    right = 0
    for item in items:
        route = ws.tables_named(item["question"], with_model=args.model_choice)
        chosen = [s.table.filename for s in route.selections] if route else []
        right += bool(chosen) and chosen[0] in item["files"]
    ws.close()
    return {"n": len(items), "selected_right_first": right}


def run(args) -> list[dict]:
    from core.config import load_settings
    from core.workspace import Workspace

    items = load(args.questions, args.part, args.types, frozenset(filter(None, args.ids.split(","))))[: args.limit or None]
    out = RESULTS / f"{args.name or f'records_{args.part}'}.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    done = {}
    if out.exists() and args.resume:
        done = {r["id"]: r for r in map(json.loads, out.read_text().splitlines()) if r.get("id")}
    ws = Workspace(load_settings())
    results = [done[i["id"]] for i in items if i["id"] in done]
    print(f"{len(items)} questions ({args.part}), {len(ws.pipeline.tables.tables())} tables -> {out}", file=sys.stderr)
    with open(out, "a" if args.resume else "w", encoding="utf-8") as handle:  # a new run starts the file again
        for n, item in enumerate(items, start=1):
            if item["id"] in done:
                continue
            started = time.perf_counter()
            response = ws.ask(item["question"], mode="pipeline")
            seconds = round(time.perf_counter() - started, 2)
            structured = response.structured or {}
            record = {"id": item["id"], "type": item["type"], "part": item["part"], "question": item["question"],
                      "expected": item["answer"], "answer_type": item["answer_type"], "answer": response.answer,
                      "route": response.route, "confidence": response.confidence, "seconds": seconds,
                      "files": structured.get("files"), "query": structured.get("query"),
                      "path": structured.get("query_path"), "plan": structured.get("plan"),
                      "conditions": structured.get("conditions"), "total_matches": structured.get("total_matches"),
                      "tokens": response.tokens}
            record["correct"] = score(item, response.answer, structured or None)
            results.append(record)
            handle.write(json.dumps(record, default=str) + "\n")
            handle.flush()
            print(f"[{n}/{len(items)}] {'OK ' if record['correct'] else 'no '} {seconds:5.1f}s {response.confidence:6} "
                  f"{item['id']} {item['question'][:60]!r} exp={str(item['answer'])[:40]} -> {response.answer[:100]!r}",
                  file=sys.stderr)
    ws.close()
    return results


def report(results: list[dict]) -> dict:
    n = len(results)
    if not n:
        return {"n": 0}
    by_type: dict[str, list[bool]] = defaultdict(list)
    for r in results:
        by_type[r["type"]].append(r["correct"])
    wrong = [r for r in results if not r["correct"]]
    added = Counter(c.get("how") for r in results for c in (r.get("conditions") or []) if isinstance(c, dict))
    return {
        "n": n,
        "accuracy": round(sum(r["correct"] for r in results) / n, 3),
        "correct": sum(r["correct"] for r in results),
        "by_type": {t: f"{sum(v)}/{len(v)}" for t, v in sorted(by_type.items())},
        "refusals_right": f"{sum(r['correct'] for r in results if r['type'] == 'refusal')}/"
                          f"{sum(r['type'] == 'refusal' for r in results)}",
        "routes": dict(Counter(r["route"] for r in results)),
        "paths": dict(Counter(r.get("path") for r in results)),
        "conditions_by_how": dict(added),
        "wrong_high": sorted(r["id"] for r in wrong if r["confidence"] == "high"),
        "wrong_medium": len([r for r in wrong if r["confidence"] == "medium"]),
        "wrong_low": len([r for r in wrong if r["confidence"] == "low"]),
        "seconds": p50_p95([r["seconds"] for r in results]),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--part", choices=["dev", "test", "all"], default="test")
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--types", default="", help="only these question types, comma-separated")
    parser.add_argument("--ids", default="", help="only these question ids, comma-separated")
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--resume", action="store_true", help="skip questions already in the JSONL")
    parser.add_argument("--from-jsonl", type=Path, help="only re-score a finished or stopped run")
    parser.add_argument("--selection-only", action="store_true",
                        help="how often the question selects one of its files' tables first (no model unless --model-choice)")
    parser.add_argument("--model-choice", action="store_true",
                        help="with --selection-only: the model chooses where the words could not tell tables apart")
    parser.add_argument("--name", default="", help="the results file's stem (default records_<part>)")
    parser.add_argument("--keep-answers", action="store_true",
                        help="also write the answers to bench/answers/records_<part>.jsonl (committed; "
                             "tests/bench/test_leaks.py checks each for internal text)")
    args = parser.parse_args(argv)
    if args.selection_only:
        print(json.dumps(selection(args)))
        return 0
    if args.from_jsonl:
        items = {q["id"]: q for q in load(args.questions, "all")}
        results = [json.loads(line) for line in args.from_jsonl.read_text().splitlines() if line.strip()]
        for r in results:
            r["correct"] = score(items[r["id"]], r["answer"], {"total_matches": r.get("total_matches")}
                                 if r.get("total_matches") is not None else None)
    else:
        results = run(args)
    if args.keep_answers:
        keep_answers(f"records_{args.part}", results)
    print(json.dumps(report(results), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
