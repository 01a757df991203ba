"""Docugami SEC 10-Q questions end to end: Workspace.ask over the whole corpus knowledge base, the
real model loaded once, accuracy per question type, and why each miss missed.

    .venv/bin/python bench/docugami_quality.py run --source /work/kb/corpus --copy DIR \\
        --part dev|test --limit N [--name NAME] [--resume] [--set passage_rerank=false ...]
    .venv/bin/python bench/docugami_quality.py report --name NAME       # no model: re-score the JSONL

Knowledge base: --source is never opened; it is copied once to --copy (kept, reused by later runs)
and only the copy is opened, since every answer writes its turn and trace into the catalog.

Questions: ../shared/eval-public/docugami-sec10q/qna_data.csv (195), one part of the fixed dev/test
split (bench/splits.py, key: the question text, seed splits.SEED); --limit N takes N of them spread
over the three question types in proportion (bench/answer_quality.spread_over_types: evenly spaced in
file order, no random draw), so a sample is the same on every run; they are asked in turns across
the types, so a run stopped early keeps the types in proportion.

Scoring (bench/modes_quality.score, built on core/evaluate/scoring.py): the reference answer's
figures (1 %, or its rounding) or, when it has none, its content words beyond the question; correct at
half of them, a reference that says the filings do not tell is matched by a refusal, a bare Yes/No by
the same polarity.

Each miss is classified by where the reference's evidence is (bench/retrieval_quality.evidence_coverage:
the share of its figures, or added words, that a text states):
  not stated      no one chunk of the expected filings states half of it (an answer that needs
                  arithmetic or combines several chunks or filings, or a paraphrase the scorer cannot find)
  not retrieved   the prompt(s) the model read state under half of it
  refused         the evidence was in the prompt and the answer is a refusal
  misread         the evidence was in the prompt and the answer is wrong
Times: wall seconds per question and seconds to the first streamed answer token, with the 1-minute
load average at each question (the machine is shared).
Output: bench/results/NAME.jsonl (one line per question, appended as it goes) and NAME.json.
"""
from __future__ import annotations

import argparse
import csv
import json
import logging
import os
import shutil
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import splits  # noqa: E402
from bench._common import RESULTS, describe_code, fmt, machine, p50_p95, table, write_json  # noqa: E402
from bench.answer_quality import spread_over_types  # noqa: E402
from bench.modes_quality import company_documents, counting, document_scores, expected_documents, score  # noqa: E402
from bench.retrieval_quality import SHARED, evidence_coverage, reference_evidence, source_coverage  # noqa: E402

TYPES = ("Single-Doc Single-Chunk RAG", "Single-Doc Multi-Chunk RAG", "Multi-Doc RAG")
HELD = 0.5  # evidence "in" a text: it states half of the reference's figures or added words


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="ask the questions with the real model")
    run.add_argument("--source", type=Path, default=Path("/work/kb/corpus"), help="knowledge base (never written)")
    run.add_argument("--copy", type=Path, required=True, help="where the copy that is opened lives (kept)")
    splits.add_argument(run, default=splits.DEV)
    run.add_argument("--limit", type=int, default=None, help="N questions spread over the question types")
    run.add_argument("--resume", action="store_true", help="skip questions already in NAME.jsonl")
    run.add_argument("--set", action="append", default=[], metavar="SETTING=VALUE",
                     help="override a Settings field for this run (e.g. passage_rerank=false)")
    run.add_argument("--scripted", action="store_true", help="ScriptedLLM: plumbing check only")
    for q in (run, sub.add_parser("report", help="re-score and summarize a run's JSONL (no model)")):
        q.add_argument("--name", default="docugami_quality", help="bench/results/NAME.jsonl / .json")
        q.add_argument("--shared", type=Path, default=SHARED, help="folder holding eval-public/")
    return p.parse_args(argv)


def load_questions(shared: Path, part: str | None, limit: int | None) -> list[dict]:
    path = shared / "eval-public" / "docugami-sec10q" / "qna_data.csv"
    with path.open(encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    for i, r in enumerate(rows):
        r["id"], r["question_type"] = f"dg-{i:03d}", r["Question Type"]
    rows = splits.keep(rows, lambda r: r["Question"], part)
    chosen = spread_over_types(rows, limit) if limit else rows
    # Asked in turns across the types (in file order within each), so that a run stopped early
    # still has every type in proportion.
    by_type = defaultdict(list)
    for r in chosen:
        by_type[r["Question Type"]].append(r)
    order = {r["id"]: (i / len(by_type[r["Question Type"]]), TYPES.index(r["Question Type"]))
             for t in by_type for i, r in enumerate(by_type[t])}
    return sorted(chosen, key=lambda r: order[r["id"]])


# --- one question ---------------------------------------------------------------------------------

def best_chunk_coverage(catalog: Path, filenames: list[str], evidence: dict) -> float:
    """The most of the evidence any one chunk of these filings states, read with the headers shown above it
    (read-only: sqlite URI)."""
    import sqlite3

    from core.ingest.context import context_of

    if not filenames:
        return 0.0
    con = sqlite3.connect(f"file:{catalog}?mode=ro", uri=True)
    try:
        marks = ",".join("?" * len(filenames))
        texts = [(t, context_of(i, t)) for t, i in con.execute(
            f"SELECT c.text, c.index_text FROM chunks c JOIN documents d USING(doc_id) WHERE d.filename IN ({marks})",
            filenames)]
    finally:
        con.close()
    return max((evidence_coverage(evidence, t, headers) for t, headers in texts), default=0.0)


def classify(correct: bool, refused: bool, in_docs: float, in_prompt: float) -> str:
    if correct:
        return "correct"
    if in_docs < HELD:
        return "not stated"
    if in_prompt < HELD:
        return "not retrieved"
    return "refused" if refused else "misread"


def ask(ws, row: dict, kb_files: list[str]) -> dict:
    events, first = [], []
    started = time.perf_counter()
    load = round(os.getloadavg()[0], 2)
    ws.llm.completions.clear()
    response = ws.ask(row["Question"], on_event=events.append,
                      on_token=lambda _t: first.append(time.perf_counter()) if not first else None)
    seconds = time.perf_counter() - started
    calls = list(ws.llm.completions)
    prompts = "\n".join(e.outputs.get("prompt") or "" for e in events if isinstance(e.outputs, dict))
    expected = expected_documents(row, kb_files)
    evidence = reference_evidence(row)
    scored = score(row, response.answer)
    in_docs = best_chunk_coverage(ws.settings.data_dir / "catalog.sqlite3", expected, evidence)
    in_prompt = source_coverage(evidence, prompts)
    citations = [{"number": c.number, "filename": c.filename, "page": c.page, "cited": c.cited, "score": c.score}
                 for c in response.citations]
    return {
        "id": row["id"], "type": row["Question Type"], "chunk_type": row["Source Chunk Type"],
        "question": row["Question"], "reference": row["Answer"], "answer": response.answer,
        "confidence": response.confidence, "mode": response.mode, "route": response.route,
        "flags": response.safety_flags, "citations": citations, "score": scored,
        "documents": document_scores(citations, expected, company_documents(row, kb_files)),
        "evidence": {"kind": evidence["kind"], "in_best_chunk": round(in_docs, 3), "in_prompt": round(in_prompt, 3)},
        "expected_documents": expected,
        "miss": classify(scored["correct"], scored["refusal"], in_docs, in_prompt),
        "seconds": round(seconds, 2), "first_token_s": round(first[0] - started, 2) if first else None,
        "load": load, "llm_calls": len(calls),
        "prompt_tokens": sum(c.prompt_tokens for c in calls), "cached_tokens": sum(c.cached_tokens for c in calls),
        "trace_id": response.trace_id,
    }


# --- summary --------------------------------------------------------------------------------------

def rescore(rows: list[dict], shared: Path, catalog: Path | None) -> list[dict]:
    """The recorded answers scored with the current rules; the best chunk's share of the evidence is
    read from the run's knowledge base when the record lacks it."""
    references = {r["id"]: r for r in load_questions(shared, "all", None)}
    for x in rows:
        row = references[x["id"]]
        x["score"] = score(row, x["answer"])
        ev = x["evidence"]
        if "in_best_chunk" not in ev and catalog is not None:
            files = x.get("expected_documents") or _expected_in(catalog, row)
            ev["in_best_chunk"] = round(best_chunk_coverage(catalog, files, reference_evidence(row)), 3)
        x["miss"] = classify(x["score"]["correct"], x["score"]["refusal"], ev["in_best_chunk"], ev["in_prompt"])
    return rows


def _expected_in(catalog: Path, row: dict) -> list[str]:
    import sqlite3

    con = sqlite3.connect(f"file:{catalog}?mode=ro", uri=True)
    try:
        files = [f for (f,) in con.execute("SELECT filename FROM documents")]
    finally:
        con.close()
    return expected_documents(row, files)


def summarize(rows: list[dict]) -> dict:
    groups = defaultdict(list)
    for x in rows:
        groups[x["type"]].append(x)
    out = {}
    for name, xs in [("all", rows)] + [(t, groups[t]) for t in TYPES if groups[t]]:
        out[name] = {
            "n": len(xs), "correct": sum(x["score"]["correct"] for x in xs),
            "refusals": sum(x["score"]["refusal"] for x in xs),
            "misses": dict(Counter(x["miss"] for x in xs if x["miss"] != "correct")),
            "evidence_in_prompt": sum(x["evidence"]["in_prompt"] >= HELD for x in xs),
            "high_confidence_wrong": sum(x["confidence"] == "high" and not x["score"]["correct"]
                                         and not x["score"]["refusal"] for x in xs),
            "seconds": p50_p95([x["seconds"] for x in xs]),
            "first_token_s": p50_p95([x["first_token_s"] for x in xs if x["first_token_s"] is not None]),
            "load": p50_p95([x["load"] for x in xs]),
            "prompt_tokens_p50": p50_p95([x["prompt_tokens"] for x in xs])["p50"],
        }
    return out


def print_report(summary: dict) -> None:
    kinds = ("not retrieved", "refused", "misread", "not stated")
    body = []
    for name, s in summary.items():
        body.append([name, s["n"], f"{s['correct']} ({100 * s['correct'] / s['n']:.0f}%)", s["refusals"],
                     s["evidence_in_prompt"], *[s["misses"].get(k, 0) for k in kinds], s["high_confidence_wrong"],
                     fmt(s["seconds"]["p50"]), fmt(s["first_token_s"]["p50"]), fmt(s["load"]["p50"]),
                     fmt(s["prompt_tokens_p50"], 0)])
    print(table(["type", "n", "correct", "refused", "evidence in prompt", *[f"miss: {k}" for k in kinds],
                 "high-conf wrong", "s p50", "1st tok s p50", "load p50", "prompt tok p50"], body))


def report(args) -> int:
    path = RESULTS / f"{args.name}.jsonl"
    earlier = RESULTS / f"{args.name}.json"
    payload = json.loads(earlier.read_text()) if earlier.exists() else {}
    catalog = Path(payload["copy"]) / "catalog.sqlite3" if payload.get("copy") else None
    rows = rescore([json.loads(line) for line in path.read_text().splitlines() if line.strip()], args.shared, catalog)
    summary = summarize(rows)
    print(f"{len(rows)} answers from {path}")
    print_report(summary)
    payload.update(summary=summary, answers=len(rows))
    write_json(args.name, payload)
    return 0


# --- main -----------------------------------------------------------------------------------------

def main(argv=None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    if args.command == "report":
        return report(args)
    from core.config import _coerce, load_settings
    from core.embedding import shared_embedder
    from core.llm import make_llm
    from core.llm.scripted import ScriptedLLM
    from core.workspace import Workspace

    if not (args.copy / "catalog.sqlite3").exists():
        started = time.perf_counter()
        shutil.copytree(args.source, args.copy, ignore=shutil.ignore_patterns("write.lock"))
        print(f"copied {args.source} to {args.copy} in {time.perf_counter() - started:.0f} s", flush=True)
    settings = load_settings(data_dir=args.copy)
    overrides = {}
    for item in args.set:
        key, _, raw = item.partition("=")
        overrides[key] = _coerce(raw, getattr(settings, key))
    settings = settings.replace(**overrides)
    embedder = shared_embedder(settings)
    llm = counting(ScriptedLLM() if args.scripted else make_llm(settings))
    ws = Workspace(settings, embedder, llm)
    kb_files = [d.filename for d in ws.kb.documents() if d.status == "indexed"]
    questions = load_questions(args.shared, args.part, args.limit)
    out = RESULTS / f"{args.name}.jsonl"
    done = set()
    if args.resume and out.exists():
        done = {json.loads(line)["id"] for line in out.read_text().splitlines() if line.strip()}
    elif out.exists():
        out.unlink()
    print(describe_code())
    print(f"{len(kb_files)} documents indexed in {args.copy}; part {args.part}; {len(questions)} questions "
          f"({dict(Counter(q['Question Type'] for q in questions))}); {len(done)} already answered; "
          f"overrides {overrides}; model {llm.name} {llm.model}", flush=True)
    started = time.perf_counter()
    embedder.embed(["warm up"])
    llm.complete([{"role": "user", "content": "Say OK."}], max_tokens=4, temperature=0.0)
    print(f"embedder + model load and first call {time.perf_counter() - started:.1f} s", flush=True)
    write_json(args.name, {"machine": machine(), "source": str(args.source), "copy": str(args.copy),
                           "part": args.part, "limit": args.limit, "split_seed": splits.SEED,
                           "questions": [q["id"] for q in questions], "overrides": overrides,
                           "model": {"provider": llm.name, "model": llm.model},
                           "settings": {k: getattr(settings, k) for k in (
                               "top_k", "reader_form", "reader_max_sources", "reader_max_named_filings",
                               "context_token_budget", "passage_rerank",
                               "rerank_pool", "rerank_window_units", "rerank_lexical_weight", "rerank_prior_weight",
                               "answer_mode", "llm_threads")}})
    eval_started = time.perf_counter()
    with out.open("a", encoding="utf-8") as fh:
        for i, q in enumerate(questions, start=1):
            if q["id"] in done:
                continue
            x = ask(ws, q, kb_files)
            fh.write(json.dumps(x, default=str) + "\n")
            fh.flush()
            print(f"[{time.perf_counter() - eval_started:6.0f}s] {i}/{len(questions)} {q['id']} {x['type'][:22]:22} "
                  f"{'OK ' if x['score']['correct'] else 'no '}{x['miss']:13} {x['seconds']:6.1f}s "
                  f"load {x['load']}", flush=True)
    ws.close()
    return report(args)


if __name__ == "__main__":
    raise SystemExit(main())
