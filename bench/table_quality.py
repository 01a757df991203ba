"""WikiTableQuestions through the real Workspace (issue 14): (a) accuracy with each question scoped to
its table (`ask --doc`), (b) how often the unscoped question selects the right table.

The knowledge base must already hold the 60 tables. Their upstream names repeat across folders
("203-csv/259.csv", "204-csv/259.csv"), so they are ingested under the folder-prefixed name
"203_259.csv" (copy them first; the contents are unchanged):

    mkdir -p /work/kb/tables/wtq_files && for f in ../shared/corpus/wikitablequestions/csv/*/*.csv; do
      d=$(basename $(dirname $f)); cp $f /work/kb/tables/wtq_files/${d%-csv}_$(basename $f); done
    DOCUCHAT_DATA_DIR=/work/kb/tables/kb_wtq python -m core ingest /work/kb/tables/wtq_files/*.csv
    DOCUCHAT_DATA_DIR=/work/kb/tables/kb_wtq python -m bench.table_quality --part dev --per-table 2 --seed 1

The model is loaded once; each answer is written to bench/results/ as it comes (JSONL), so a stopped
run can be re-reported with --from-jsonl. A match: the answer holds every `|`-separated item of the
reference, a number within 1 %.
"""
from __future__ import annotations

import argparse
import csv
import json
import random
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

from bench import splits
from bench._common import RESULTS, keep_answers, p50_p95

# ../shared beside the checkout (/work/main -> /work/shared); a worktree one level deeper looks one higher
SHARED = next((p / "shared" for p in Path(__file__).resolve().parents if (p / "shared" / "eval-public").is_dir()), Path("shared"))
QA = SHARED / "eval-public" / "wikitablequestions" / "qa_subset.tsv"
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


def file_of(context: str) -> str:
    """ "csv/204-csv/272.csv" -> "204_272.csv", the name the table was ingested under."""
    folder, name = context.split("/")[-2:]
    return f"{folder.removesuffix('-csv')}_{name}"


def load(path: Path, part: str) -> list[dict]:
    with open(path, encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    return splits.keep(rows, lambda r: r["id"], part)


def stratified(rows: list[dict], per_table: int, seed: int) -> list[dict]:
    """`per_table` questions of every table (all when it has fewer), in a seeded random order."""
    by_table: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_table[row["context"]].append(row)
    rng = random.Random(seed)
    sample = []
    for context in sorted(by_table):
        questions = by_table[context]
        sample += rng.sample(questions, min(per_table, len(questions)))
    rng.shuffle(sample)
    return sample


def _numbers(text: str) -> list[float]:
    """Every number in the text; "56,02" is read both ways (a decimal comma, or thousands)."""
    found = []
    for raw in _NUMBER.findall(text):
        try:
            found.append(float(raw.replace(",", "")))
            if re.fullmatch(r"-?\d+,\d{1,2}", raw):
                found.append(float(raw.replace(",", ".")))
        except ValueError:
            continue
    return found


def item_matches(item: str, answer: str) -> bool:
    item = item.strip()
    if not item:
        return True
    plain = item.replace(",", "")
    if re.fullmatch(r"-?\d+(?:\.\d+)?", plain):
        target = float(plain)
        return any(abs(n - target) <= 0.01 * max(abs(target), 1e-9) for n in _numbers(answer))
    if item.lower() in ("yes", "no"):  # the answer's own verdict: any "no" of "No rows ... match" or "not" is none
        return bool(re.match(rf"\W*{item}\b(?! rows of)", answer, re.I))  # "No rows of x match" is no verdict
    return bool(re.search(rf"(?<!\w){re.escape(item.lower())}(?!\w)", answer.lower()))  # "ny" is no hit in "any"


_NOT_ANSWER = re.compile(r"\[Source \d+\]|\(from [^)]*\)|\b\d{3}_\d{3}\.csv\b")


def matches(reference: str, answer: str) -> bool:
    """Every item of the reference is in the answer; the citation markers and the file the answer names
    ("[Source 1]", "(from 203_669.csv)") are no part of it (a "1" or "203" there would count)."""
    answer = _NOT_ANSWER.sub(" ", answer)
    return all(item_matches(item, answer) for item in reference.split("|"))


# System texts A/B-tested on the dev part (`--system`), beside the one in core.annotations.sql ("current").
# "session2" is session 2's text (44.9 % on test) plus the judged-filter sentence every arm needs for
# semantic filters. Decided by accuracy on dev, with the model process shared: see docs/tables.md, session 4.
_JUDGE = ("When a filter needs a judgement about what a text value is (\"the products themselves, not services or "
          "accessories\"), set judge to the column and what to keep, and write that filter as \"column\" IN KEPT. ")
SYSTEMS = {
    "session2": ("You are an expert SQLite writer. Write one SQLite SELECT query that answers the question from "
                 "the tables below. Use only these tables and columns; quote column names with double quotes. "
                 "Compare text case-insensitively (LIKE or lower()). Select the columns that answer the question; "
                 "for a count or a sum use COUNT or SUM. " + _JUDGE + "Reply with JSON."),
}


def _first_rows(examples_of):
    """The example rows before session 5: always the first rows, whatever the question names."""
    return lambda executor, table, count, question="": examples_of(executor, table, count)


# Arms that change how the example rows are chosen (`--system first_rows`): the session-5 A/B on dev.
EXAMPLES = {"first_rows": _first_rows}


def examples_differ(rows: list[dict], ws) -> list[dict]:
    """The questions whose example rows differ between the arms `current` and `first_rows`: on the others
    both arms send the same prompt, and at temperature 0 write the same query."""
    from core.annotations import sql as sql_module

    by_file = {t.filename: t for t in ws.pipeline.tables.tables()}
    first, count = _first_rows(sql_module.examples_of), ws.settings.table_example_rows
    executor = ws.pipeline.executor
    return [r for r in rows if (table := by_file.get(file_of(r["context"]))) is not None
            and sql_module.examples_of(executor, table, count, r["utterance"]) != first(executor, table, count, r["utterance"])]


class CallLog:
    """Wraps the model's complete_json to record each call's prompt, cached and written tokens and
    seconds, so a run reports what a table query costs (issue 14, speed)."""

    def __init__(self, llm) -> None:
        self.calls: list[dict] = []
        self._inner = llm.complete_json

        def complete_json(messages, schema, **kwargs):
            reply, completion = self._inner(messages, schema, **kwargs)
            self.calls.append({"prompt_tokens": completion.prompt_tokens, "cached_tokens": completion.cached_tokens,
                               "completion_tokens": completion.completion_tokens,
                               "seconds": round(completion.seconds, 2)})
            return reply, completion
        llm.complete_json = complete_json

    def take(self) -> list[dict]:
        calls, self.calls = self.calls, []
        return calls


def run(args) -> list[dict]:
    from core.annotations import sql as sql_module
    from core.config import load_settings
    from core.workspace import Workspace

    rows = stratified(load(args.qa, args.part), args.per_table, args.seed)
    ws = Workspace(load_settings())
    docs = {d.filename: d.doc_id for d in ws.kb.documents() if d.status == "indexed"}
    if args.examples_differ:
        rows = examples_differ(rows, ws)
    if args.limit:
        rows = rows[: args.limit]
    results, current, calls = [], sql_module.SYSTEM, CallLog(ws.pipeline.llm)
    examples_of = sql_module.examples_of
    for system in args.system.split(","):
        sql_module.SYSTEM = SYSTEMS.get(system, current)
        sql_module.examples_of = EXAMPLES[system](examples_of) if system in EXAMPLES else examples_of
        name = args.name or f"table_quality_{args.part}_s{args.seed}_n{len(rows)}"
        suffix = ("_selection" if args.selection_only else "") + ("" if system == "current" else f"_{system}")
        results += run_one(args, rows, ws, docs, calls, RESULTS / f"{name}{suffix}.jsonl", system)
    ws.close()
    return results


def run_one(args, rows, ws, docs, calls: CallLog, out: Path, system: str) -> list[dict]:
    out.parent.mkdir(parents=True, exist_ok=True)
    done = {}
    if out.exists() and args.resume:
        done = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    results = list(done.values())
    settings = ws.settings
    tables = ws.pipeline.tables.tables()
    print(f"{len(rows)} questions ({args.part}, seed {args.seed}, {args.per_table} per table, system text "
          f"{system}), {len(tables)} tables in the knowledge base -> {out}", file=sys.stderr)
    with open(out, "a", encoding="utf-8") as handle:
        for n, row in enumerate(rows, start=1):
            if row["id"] in done:
                continue
            filename = file_of(row["context"])
            record = {"id": row["id"], "question": row["utterance"], "reference": row["targetValue"], "file": filename}
            # (b) unscoped: which table the question selects among all of them (code; the model only with --model-choice)
            route = ws.tables_named(row["utterance"], with_model=args.model_choice)
            ranked = route.ranked if route else []
            record["unscoped_top"] = ranked[0].table.filename if ranked else None
            record["unscoped_selected"] = [s.table.filename for s in route.selections] if route else []
            if args.selection_only:  # (b) only
                record.update(answer="", route=None, confidence=None, query=None, path=None, attempts=None,
                              seconds=0.0, query_failed=False, retried=False, match=False)
                results.append(record)
                handle.write(json.dumps(record) + "\n")  # kept, so two runs' selections can be compared
                continue
            # (a) scoped to its table, through the real pipeline and model
            calls.take()
            started = time.perf_counter()
            response = ws.ask(row["utterance"], doc_ids=[docs[filename]], mode="pipeline")
            record["seconds"] = round(time.perf_counter() - started, 2)
            structured = response.structured or {}
            record.update(answer=response.answer, route=response.route, confidence=response.confidence,
                          query=structured.get("query"), path=structured.get("query_path"),
                          attempts=structured.get("attempts"))
            turn = ws.kb.catalog.turn(response.trace_id)
            failed = [e for e in turn["trace"]["events"] if e["kind"] == "retrieval" and e.get("status") == "failed"]
            record["query_failed"] = bool(failed)
            record["retried"] = any("after" in (e.get("summary") or "") and "attempts" in (e.get("summary") or "")
                                    for e in turn["trace"]["events"])
            record["match"] = matches(row["targetValue"], response.answer)
            record["llm_calls"], record["system"] = calls.take(), system
            results.append(record)
            handle.write(json.dumps(record) + "\n")
            handle.flush()
            print(f"[{n}/{len(rows)}] {'OK ' if record['match'] else 'no '} {record['seconds']:5.1f}s "
                  f"{row['utterance'][:60]!r} ref={row['targetValue']!r} -> {response.answer[:80]!r}", file=sys.stderr)
    return results


def report(results: list[dict]) -> dict:
    n = len(results)
    if not n:
        return {"n": 0}
    structured = [r for r in results if r["route"] == "structured"]
    return {
        "n": n,
        "scoped_accuracy": round(sum(r["match"] for r in results) / n, 3),
        "correct": sum(r["match"] for r in results),
        "unscoped_top1": round(sum(r["unscoped_top"] == r["file"] for r in results) / n, 3),
        "unscoped_selected_right": round(sum(r["file"] in r["unscoped_selected"] for r in results) / n, 3),
        "unscoped_selected_any": round(sum(bool(r["unscoped_selected"]) for r in results) / n, 3),
        "query_failed": round(sum(r["query_failed"] for r in results) / n, 3),
        "route_structured": round(len(structured) / n, 3),
        "path_rules": round(sum(r["path"] == "rules" for r in results) / n, 3),
        "path_model": round(sum(r["path"] == "model" for r in results) / n, 3),
        "seconds": p50_p95([r["seconds"] for r in results]),
        "seconds_model_path": p50_p95([r["seconds"] for r in results if r["path"] == "model"]),
        "seconds_rule_path": p50_p95([r["seconds"] for r in results if r["path"] == "rules"]),
        "model_calls_per_question": p50_p95([len(r["llm_calls"]) for r in results if "llm_calls" in r]),
        "retried": round(sum(bool(r.get("retried")) for r in results) / n, 3),
        "prompt_tokens_first_call": p50_p95([r["llm_calls"][0]["prompt_tokens"] for r in results if r.get("llm_calls")]),
        "uncached_tokens_first_call": p50_p95([r["llm_calls"][0]["prompt_tokens"] - r["llm_calls"][0]["cached_tokens"]
                                               for r in results if r.get("llm_calls")]),
        "written_tokens_first_call": p50_p95([r["llm_calls"][0]["completion_tokens"] for r in results if r.get("llm_calls")]),
        "written_tokens_per_question": p50_p95([sum(c["completion_tokens"] for c in r["llm_calls"])
                                                for r in results if r.get("llm_calls")]),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    splits.add_argument(parser)
    parser.add_argument("--qa", type=Path, default=QA)
    parser.add_argument("--per-table", type=int, default=4, help="questions per table (stratified sample)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--resume", action="store_true", help="skip questions already in the JSONL")
    parser.add_argument("--selection-only", action="store_true",
                        help="measure only (b), which table the unscoped question selects (no model, fast)")
    parser.add_argument("--model-choice", action="store_true",
                        help="the unscoped selection asks the model where the words could not tell tables apart")
    parser.add_argument("--examples-differ", action="store_true",
                        help="only the questions whose example rows the question changes (the first_rows A/B)")
    parser.add_argument("--from-jsonl", type=Path, help="only report a finished or stopped run")
    parser.add_argument("--system", default="current",
                        help="system text(s) for the model's query, comma-separated, run one after another in one "
                             "model process: current (core.annotations.sql.SYSTEM), " + ", ".join([*SYSTEMS, *EXAMPLES]))
    parser.add_argument("--name", default="", help="the results file's stem (default: table_quality_<part>_s<seed>_n<n>)")
    parser.add_argument("--keep-answers", action="store_true",
                        help="also write the answers to bench/answers/wtq_<part>.jsonl (the leak test reads them)")
    args = parser.parse_args(argv)
    if args.from_jsonl:  # re-scored with the current matcher
        results = [json.loads(line) for line in args.from_jsonl.read_text().splitlines() if line.strip()]
        for r in results:
            r["match"] = matches(r["reference"], r["answer"])
    else:
        results = run(args)
    if args.keep_answers:
        keep_answers(f"wtq_{args.part}", [{"id": r["id"], "question": r["question"], "answer": r["answer"],
                                           "confidence": r.get("confidence"), "correct": bool(r.get("match"))}
                                          for r in results])
    print(json.dumps(report(results), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
