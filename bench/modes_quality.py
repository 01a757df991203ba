"""Which answer mode for questions that span several filings? The pipeline without decomposition,
the pipeline with it (the default), and agent mode, on the same Docugami multi-document
questions, in one run, with the real embedded model.

    .venv/bin/python bench/modes_quality.py [--limit 6] [--modes pipeline_nodecomp,pipeline,agent]
    .venv/bin/python bench/modes_quality.py --scripted --limit 2     # plumbing check, no model

Knowledge base: --source (default bench/results/kb-finance, the 46 PDFs built by
bench/retrieval_quality.py) is copied to a temporary folder and only the copy is opened; document
summaries missing from it are added to the copy by bench/routing_quality.add_missing_summaries.
Every question is asked against the whole knowledge base (the router may narrow it, as in the app).

Questions: the "Multi-Doc RAG" rows of ../shared/eval-public/docugami-sec10q/qna_data.csv (65).
Most of them are one search for the rules of core/agents/decompose.py (a trend over "the reported
quarters" names no two periods), so with decomposition on or off the pipeline would run the same
prompt; to measure what decomposition changes, --limit N takes ceil(N/2) of the questions the rules
split into several sub-queries and the rest from those they do not, each half spread evenly over
the companies (bench/answer_quality.spread_over_types with the company as the type), in file order.

Modes (one Workspace, one model instance, one knowledge base):
  pipeline_nodecomp  AnswerPipeline with Settings.query_decomposition = False
  pipeline           Workspace.ask(mode="pipeline"), default settings (decomposition on)
  agent              Workspace.ask(mode="agent"): the bounded tool loop, default limits
The order of the modes rotates per question. When decomposition finds one part, the two pipelines
send the model the same prompt, and llama.cpp serves the second one from its prompt cache (its RAM
cache keeps earlier prompts, so an unrelated prompt in between does not evict it: measured 47 s,
then 7 s with 519 of 520 prompt tokens cached). Such answers are marked "reused" (a pipeline answer
with at least half of its prompt tokens cached) and the table also gives the times without them.
Agent mode's reuse of its own prompts' prefix within a question is its design, and counts.

Scoring (automatic; the reference is the CSV's Answer with its "SOURCE(S): ..." lines and file
names removed, and list markers "1." and "10-Q" dropped):
  * figures: the reference's numbers except years, dates and list markers
    (bench/core.evaluate.scoring.numbers); figure recall = share of them matched by a number of the answer
    (bench/core.evaluate.scoring.figure_matches: 1% relative, percentages to 0.1 point, scale words).
  * words: the reference's content words (bench/core.evaluate.scoring.content_words) not in the question
    nor in its "Based on the provided documents/context" opening;
    word recall = share of them that occur in the answer.
  * correct: if the reference itself says the documents do not contain it (core.evaluate.scoring.is_refusal
    on its first paragraph, and it gives no figures), a refusal; otherwise word recall >= 0.5, or
    the reference has figures and figure recall >= 0.5, or the reference is a bare "Yes"/"No" (fewer
    than 3 content words beyond the question's) and the answer says the same
    (core.evaluate.scoring.polarity; for "No", a refusal says it too). A refusal keeps the question's
    words only, which do not count.
  * expected documents: the filings the reference names in its SOURCE(S), else those matching the
    row's Source Docs glob ("*AAPL*": the four Apple 10-Qs). Reported: cites at least one of them;
    share of them cited (cited-doc coverage); share of them among all sources shown to the model
    (context coverage); whether it cites filings not expected, and filings of another company.
  * refusal: core.evaluate.scoring.is_refusal on the answer.
Costs per question: wall seconds (model load excluded: warmed up first), LLM calls, prompt /
completion / cached prompt tokens (every call counted by a wrapper around the provider), searches
(pipeline: every sub-query search incl. reflection's; agent: its search_docs queries) and, in agent
mode, tool calls (as its budget counts them) and reprompts.

Outputs: printed tables, bench/results/modes_quality.json, and bench/results/modes_quality.jsonl
written after every question (a run that is stopped keeps what it answered). With --scripted the
names are modes_quality_scripted.*.
"""
from __future__ import annotations

import argparse
import csv
import json
import logging
import math
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import RESULTS, ROOT, describe_code, fmt, machine, p50_p95, peak_rss_mb, table, write_json  # noqa: E402
from bench.answer_quality import spread_over_types  # noqa: E402
from core.evaluate.scoring import (  # noqa: E402
    content_words, figure_matches, is_refusal, numbers, polarity, question_scale,
)
from bench.retrieval_quality import SHARED, globs_of  # noqa: E402
from bench.routing_quality import add_missing_summaries  # noqa: E402

MODES = ("pipeline_nodecomp", "pipeline", "agent")
MULTI_DOC = "Multi-Doc RAG"
RECALL_THRESHOLD = 0.5  # the scoring rule above; a documented benchmark constant, not a product limit


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--source", type=Path, default=RESULTS / "kb-finance",
                   help="knowledge base to copy and open (default bench/results/kb-finance; never written)")
    p.add_argument("--limit", type=int, default=6, help="questions (default 6), half of them split by the rules")
    p.add_argument("--modes", default=",".join(MODES),
                   help=f"comma-separated, from {', '.join(MODES)} (default all three)")
    p.add_argument("--shared", type=Path, default=SHARED, help="folder holding eval-public/")
    p.add_argument("--scripted", action="store_true",
                   help="ScriptedLLM instead of the real model: checks the plumbing in seconds, figures meaningless")
    p.add_argument("--from-jsonl", action="store_true",
                   help="no model: re-score and report the answers in modes_quality.jsonl (a finished or stopped run)")
    args = p.parse_args(argv)
    args.modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    unknown = [m for m in args.modes if m not in MODES]
    if unknown or not args.modes:
        p.error(f"unknown mode(s) {unknown}; choose from {', '.join(MODES)}")
    return args


# --- questions ------------------------------------------------------------------------------------

def company(row: dict) -> str:
    return row["Source Docs"].strip("* ")


def load_multi_doc(shared: Path) -> list[dict]:
    path = shared / "eval-public" / "docugami-sec10q" / "qna_data.csv"
    with path.open(encoding="utf-8-sig", newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r["Question Type"] == MULTI_DOC]
    for i, r in enumerate(rows):
        r["id"] = f"dg-multi-{i:02d}"
        r["question_type"] = company(r)  # spread_over_types groups by this key
    return rows


def select(rows: list[dict], n: int, settings) -> list[dict]:
    """ceil(n/2) questions the decomposition rules split, the rest from those they do not."""
    from core.agents.decompose import decompose

    for r in rows:
        r["rule_sub_queries"] = decompose(r["Question"], settings).sub_queries
    split = [r for r in rows if len(r["rule_sub_queries"]) > 1]
    single = [r for r in rows if len(r["rule_sub_queries"]) <= 1]
    want_split = min(len(split), math.ceil(n / 2))
    chosen = spread_over_types(split, want_split) + spread_over_types(single, n - want_split)
    order = {r["id"]: i for i, r in enumerate(rows)}
    return sorted(chosen, key=lambda r: order[r["id"]])


# --- scoring --------------------------------------------------------------------------------------

_SOURCE_LINE = re.compile(r"^\s*SOURCE\(?S?\)?\s*:.*$", re.I | re.M)
_SOURCE_PAREN = re.compile(r"\(\s*SOURCE\(?S?\)?\s*:[^)]*\)", re.I)
_FILE = re.compile(r"\"?\b(?:19|20)\d\d Q[1-4] [A-Z]+\.pdf\b\"?")
_LIST_MARKER = re.compile(r"^\s*\d+[.)]\s+", re.M)
_FORM = re.compile(r"\b10-?[QK]s?\b", re.I)  # "10-Q" names the filing, it is not a figure
# The phrasing of the references' (and the model's) opening, "Based on the provided documents":
# a refusal repeats it, so it must not count as recalled content.
BOILERPLATE = {"based", "provided", "document", "context"}


def clean_reference(answer: str) -> str:
    text = _SOURCE_PAREN.sub(" ", answer)
    text = _SOURCE_LINE.sub(" ", text)
    text = _FILE.sub(" ", text)
    return _FORM.sub(" ", _LIST_MARKER.sub("", text)).strip()


def company_documents(row: dict, kb_files: list[str]) -> list[str]:
    """Every filing matching the row's Source Docs glob ("*AAPL*")."""
    import fnmatch

    return sorted(f for f in kb_files if any(fnmatch.fnmatchcase(f, g) for g in globs_of(row["Source Docs"])))


def expected_documents(row: dict, kb_files: list[str]) -> list[str]:
    """The filings the reference names as its sources, else every filing of the row's glob."""
    named = [f for f in kb_files if f in row["Answer"]]
    return sorted(named) if named else company_documents(row, kb_files)


def score(row: dict, answer: str) -> dict:
    reference = clean_reference(row["Answer"])
    figures = [n for n in numbers(reference) if not n["year"]]
    found = [n for n in numbers(answer) if not n["year"]]
    scale = question_scale(row["Question"])
    matched = [g["raw"] for g in figures if any(figure_matches(g, r, scale) for r in found)]
    question_words = set(content_words(row["Question"]))
    wanted = [w for w in content_words(reference) if w not in question_words and w not in BOILERPLATE]
    have = set(content_words(answer))
    hit = [w for w in wanted if w in have]
    word_recall = len(hit) / len(wanted) if wanted else 0.0
    figure_recall = len(matched) / len(figures) if figures else None
    refused = is_refusal(answer)
    # Only a reference that says so up front refuses: one that answers and then notes that a
    # period is "not explicitly" covered still answers the question.
    reference_refuses = is_refusal(reference.split("\n", 1)[0]) and not figures
    opening = re.match(r"\s*(yes|no)\b", reference, re.I) if len(wanted) < 3 else None
    said = opening and (polarity(answer) == opening.group(1).lower() or (opening.group(1).lower() == "no" and refused))
    if reference_refuses:
        correct = refused
    else:
        correct = (word_recall >= RECALL_THRESHOLD or bool(said)
                   or (figure_recall is not None and figure_recall >= RECALL_THRESHOLD))
    return {
        "correct": bool(correct), "refusal": refused, "reference_refuses": reference_refuses,
        "reference_yes_no": opening.group(1).lower() if opening else None, "same_yes_no": bool(said),
        "word_recall": round(word_recall, 3), "figure_recall": None if figure_recall is None else round(figure_recall, 3),
        "reference_figures": [g["raw"] for g in figures], "figures_matched": matched,
        "words_wanted": len(wanted), "words_found": len(hit),
    }


def document_scores(citations: list[dict], expected: list[str], company_files: list[str]) -> dict:
    cited = {c["filename"] for c in citations if c["cited"]}
    shown = {c["filename"] for c in citations}
    want = set(expected)
    return {
        "cites_expected": bool(cited & want),
        "cited_coverage": round(len(cited & want) / len(want), 3) if want else None,
        "context_coverage": round(len(shown & want) / len(want), 3) if want else None,
        "cited_unexpected": sorted(cited - want),
        "cited_other_company": sorted(cited - set(company_files)),
    }


# --- counting every model call --------------------------------------------------------------------

def counting(llm):
    """The provider, with every call (decomposition, answer, continuation, reflection, agent
    plan/actions/synthesis) counted in `llm.completions`, whichever agent makes it."""
    llm.completions = []
    llm.on_completion = llm.completions.append
    return llm


# --- one question in one mode ---------------------------------------------------------------------

def run_mode(ws, pipelines: dict, mode: str, row: dict, expected: list[str], company_files: list[str]) -> dict:
    events = []
    ws.llm.completions.clear()
    started = time.perf_counter()
    if mode == "agent":
        response = ws.ask(row["Question"], mode="agent", on_event=events.append)
    else:
        response = pipelines[mode].ask(row["Question"], on_event=events.append)
    seconds = time.perf_counter() - started
    calls = list(ws.llm.completions)
    citations = [{"number": c.number, "filename": c.filename, "page": c.page, "cited": c.cited, "score": c.score}
                 for c in response.citations]
    final = next((e for e in reversed(events) if e.kind == "final"), None)
    plan = next((e for e in events if e.kind == "plan"), None)
    if mode == "agent":
        searches = len((final.outputs.get("searches") or []) if final else [])
        tool_calls = final.outputs.get("tool_calls") if final else None
        reprompts = final.outputs.get("reprompts") if final else None
    else:
        searches = sum(len(e.outputs.get("searches") or []) for e in events if e.kind == "retrieval")
        tool_calls = reprompts = None
    decomposition = (plan.outputs.get("decomposition") or {}) if plan else {}
    return {
        "answer": response.answer,
        "mode": response.mode, "route": response.route, "confidence": response.confidence,
        "safety_flags": response.safety_flags, "insufficiencies": response.insufficiencies,
        "citations": citations,
        "score": score(row, response.answer),
        "documents": document_scores(citations, expected, company_files),
        "seconds": round(seconds, 3),
        "llm_calls": len(calls),
        "llm_seconds": round(sum(c.seconds for c in calls), 2),
        "tokens": {"prompt": sum(c.prompt_tokens for c in calls), "completion": sum(c.completion_tokens for c in calls),
                   "cached": sum(c.cached_tokens for c in calls)},
        "searches": searches, "tool_calls": tool_calls, "reprompts": reprompts,
        "reflections": sum(1 for e in events if e.kind == "reflection"),
        "classification": decomposition.get("classification"), "sub_queries": decomposition.get("sub_queries"),
        "reasoning": response.reasoning, "trace_id": response.trace_id,
    }


# --- summary --------------------------------------------------------------------------------------

def _rate(flags) -> float | None:
    flags = list(flags)
    return round(sum(bool(f) for f in flags) / len(flags), 4) if flags else None


def _mean(values, digits: int = 2) -> float | None:
    values = [v for v in values if v is not None]
    return round(sum(values) / len(values), digits) if values else None


def reused(mode: str, x: dict) -> bool:
    """A pipeline answer whose prompt came mostly from the cache: another mode sent the same one."""
    return mode != "agent" and x["tokens"]["cached"] * 2 >= max(1, x["tokens"]["prompt"])


def summarize(rows: list[dict], modes: list[str]) -> dict:
    out = {}
    for mode in modes:
        rs = [r[mode] for r in rows if mode in r]
        cold = [x for x in rs if not reused(mode, x)]
        out[mode] = {
            "n": len(rs),
            "correct": _rate(x["score"]["correct"] for x in rs),
            "word_recall_mean": _mean((x["score"]["word_recall"] for x in rs), 3),
            "figure_recall_mean": _mean((x["score"]["figure_recall"] for x in rs), 3),
            "refusal": _rate(x["score"]["refusal"] for x in rs),
            "cites_expected_doc": _rate(x["documents"]["cites_expected"] for x in rs),
            "cited_doc_coverage_mean": _mean((x["documents"]["cited_coverage"] for x in rs), 3),
            "context_doc_coverage_mean": _mean((x["documents"]["context_coverage"] for x in rs), 3),
            "cites_unexpected_doc": _rate(x["documents"]["cited_unexpected"] for x in rs),
            "cites_other_company": _rate(x["documents"]["cited_other_company"] for x in rs),
            "seconds": p50_p95([x["seconds"] for x in rs]),
            "seconds_mean": _mean((x["seconds"] for x in rs), 1),
            "reused_prompt": len(rs) - len(cold),
            "seconds_not_reused": p50_p95([x["seconds"] for x in cold]),
            "llm_calls_mean": _mean(x["llm_calls"] for x in rs),
            "prompt_tokens_mean": _mean((x["tokens"]["prompt"] for x in rs), 0),
            "completion_tokens_mean": _mean((x["tokens"]["completion"] for x in rs), 0),
            "cached_tokens_mean": _mean((x["tokens"]["cached"] for x in rs), 0),
            "searches_mean": _mean(x["searches"] for x in rs),
            "tool_calls_mean": _mean(x["tool_calls"] for x in rs),
            "reprompts_mean": _mean(x["reprompts"] for x in rs),
            "confidence": dict(Counter(x["confidence"] for x in rs)),
            "flags": dict(Counter(f for x in rs for f in x["safety_flags"])),
        }
    return out


def pct(v) -> str:
    return "-" if v is None else f"{100 * v:.0f}%"


def print_report(summary: dict, rows: list[dict], modes: list[str]) -> None:
    s = [summary[m] for m in modes]
    lines = [
        ("correct (rule in the docstring)", [pct(x["correct"]) for x in s]),
        ("reference content-word recall, mean", [fmt(x["word_recall_mean"], 2) for x in s]),
        ("reference figure recall, mean", [fmt(x["figure_recall_mean"], 2) for x in s]),
        ("refusals", [pct(x["refusal"]) for x in s]),
        ("cites an expected filing", [pct(x["cites_expected_doc"]) for x in s]),
        ("expected filings cited, mean share", [pct(x["cited_doc_coverage_mean"]) for x in s]),
        ("expected filings in the model's sources", [pct(x["context_doc_coverage_mean"]) for x in s]),
        ("cites a filing not among the expected", [pct(x["cites_unexpected_doc"]) for x in s]),
        ("cites another company's filing", [pct(x["cites_other_company"]) for x in s]),
        ("seconds p50 / p95", [f"{fmt(x['seconds']['p50'])} / {fmt(x['seconds']['p95'])}" for x in s]),
        ("  without reused prompts: p50 / p95 (n)",
         [f"{fmt(x['seconds_not_reused']['p50'])} / {fmt(x['seconds_not_reused']['p95'])} "
          f"({x['seconds_not_reused']['n']})" for x in s]),
        ("LLM calls / question", [fmt(x["llm_calls_mean"], 1) for x in s]),
        ("prompt tokens / question (cached)",
         [f"{fmt(x['prompt_tokens_mean'], 0)} ({fmt(x['cached_tokens_mean'], 0)})" for x in s]),
        ("completion tokens / question", [fmt(x["completion_tokens_mean"], 0) for x in s]),
        ("searches / question", [fmt(x["searches_mean"], 1) for x in s]),
        ("agent tool calls / reprompts", [f"{fmt(x['tool_calls_mean'], 1)} / {fmt(x['reprompts_mean'], 1)}" for x in s]),
    ]
    n = s[0]["n"] if s else 0
    print(table([f"Docugami multi-document questions (n={n})"] + modes, [[k] + v for k, v in lines]))
    print()
    per = []
    for r in rows:
        cells = [r["id"], company(r), len(r["rule_sub_queries"])]
        for m in modes:
            x = r.get(m)
            if x is None:
                cells.append("")
                continue
            mark = ("Y" if x["score"]["correct"] else ".") + ("R" if x["score"]["refusal"] else " ") + \
                   ("D" if x["documents"]["cites_expected"] else " ")
            cells.append(f"{mark} w{x['score']['word_recall']:.2f} f{fmt(x['score']['figure_recall'], 2)} "
                         f"{x['seconds']:.0f}s{'*' if reused(m, x) else ''} {x['llm_calls']}c {x['tokens']['prompt']}t")
        per.append(cells)
    print(table(["question", "co.", "subq"] + modes, per,
                title="per question (Y correct, R refusal, D cites an expected filing; w word recall, f figure "
                      "recall, s seconds (* reused prompt), c LLM calls, t prompt tokens)"))


# --- main -----------------------------------------------------------------------------------------

def report_from_jsonl(args) -> int:
    """The answers a run kept, scored with the current rules; the JSON says it is re-reported."""
    name = "modes_quality_scripted" if args.scripted else "modes_quality"
    path = RESULTS / f"{name}.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    references = {r["id"]: r for r in load_multi_doc(args.shared)}
    modes = [m for m in args.modes if any(m in r for r in rows)]
    for r in rows:
        for m in modes:
            if m in r:
                r[m]["score"] = score(references[r["id"]], r[m]["answer"])
    summary = summarize(rows, modes)
    print(f"{len(rows)} questions from {path.relative_to(ROOT)}\n")
    print_report(summary, rows, modes)
    earlier = RESULTS / f"{name}.json"  # the run's machine, settings and timings are kept
    payload = json.loads(earlier.read_text()) if earlier.exists() else {}
    payload.update(from_jsonl=True, modes=modes, questions=[r["id"] for r in rows], summary=summary,
                   per_question=rows)
    out = write_json(name, payload)
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


def main(argv=None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    from core.agents import AnswerPipeline
    from core.config import load_settings
    from core.embedding import shared_embedder
    from core.llm import make_llm
    from core.llm.scripted import ScriptedLLM
    from core.workspace import Workspace

    if args.from_jsonl:
        return report_from_jsonl(args)
    if not (args.source / "catalog.sqlite3").exists():
        print(f"error: no knowledge base in {args.source}; build it with bench/retrieval_quality.py", file=sys.stderr)
        return 2
    name = "modes_quality_scripted" if args.scripted else "modes_quality"
    print(describe_code())
    machine_at_start = machine()
    run_started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="modes-kb-") as tmp:
        copy = Path(tmp) / "kb"
        started = time.perf_counter()
        shutil.copytree(args.source, copy)
        print(f"copied {args.source} to {copy} in {time.perf_counter() - started:.1f} s", flush=True)
        settings = load_settings(data_dir=copy)
        embedder = shared_embedder(settings)
        llm = counting(ScriptedLLM() if args.scripted else make_llm(settings))
        ws = Workspace(settings, embedder, llm)
        # add_missing_summaries embeds through `ws.embedder.inner` (routing_quality's query cache);
        # the modes here get the plain embedder, so that no mode finds another's query embedded.
        added = add_missing_summaries(SimpleNamespace(kb=ws.kb, settings=ws.settings,
                                                      embedder=SimpleNamespace(inner=embedder)))
        if added:
            print(f"added summaries for {added} documents to the copy")
        kb_files = [d.filename for d in ws.kb.documents() if d.status == "indexed"]
        pipelines = {"pipeline_nodecomp": AnswerPipeline(ws.kb, ws.retriever, ws.llm,
                                                         replace(settings, query_decomposition=False)),
                     "pipeline": ws.pipeline}
        all_rows = load_multi_doc(args.shared)
        questions = select(all_rows, args.limit, settings)
        print(f"{len(kb_files)} documents; {len(questions)} of {len(all_rows)} multi-document questions "
              f"({sum(len(q['rule_sub_queries']) > 1 for q in questions)} split by the rules); modes {args.modes}; "
              f"model {ws.llm.name} {ws.llm.model}", flush=True)

        started = time.perf_counter()
        embedder.embed(["warm up"])
        ws.llm.complete([{"role": "user", "content": "Say OK."}], max_tokens=4, temperature=0.0)
        load_s = round(time.perf_counter() - started, 2)
        print(f"embedder + LLM load and first call {load_s} s", flush=True)

        rows: list[dict] = []
        out_jsonl = RESULTS / f"{name}.jsonl"
        eval_started = time.perf_counter()
        with out_jsonl.open("w", encoding="utf-8") as fh:
            for i, q in enumerate(questions):
                expected = expected_documents(q, kb_files)
                order = args.modes[i % len(args.modes):] + args.modes[: i % len(args.modes)]
                row = {"id": q["id"], "Source Docs": q["Source Docs"], "question": q["Question"],
                       "chunk_type": q["Source Chunk Type"], "reference": q["Answer"],
                       "rule_sub_queries": q["rule_sub_queries"], "expected_documents": expected, "order": order}
                for mode in order:
                    row[mode] = run_mode(ws, pipelines, mode, q, expected, company_documents(q, kb_files))
                    x = row[mode]
                    print(f"[{time.perf_counter() - eval_started:7.0f}s] {i + 1}/{len(questions)} {q['id']} "
                          f"{mode:17} {'OK ' if x['score']['correct'] else 'no '}{'R' if x['score']['refusal'] else ' '} "
                          f"w{x['score']['word_recall']:.2f} {x['seconds']:6.1f}s {x['llm_calls']} calls "
                          f"{x['tokens']['prompt']} ptok", flush=True)
                rows.append(row)
                fh.write(json.dumps(row, default=str) + "\n")
                fh.flush()
        eval_s = round(time.perf_counter() - eval_started, 1)
        ws.close()

    summary = summarize(rows, args.modes)
    print()
    print_report(summary, rows, args.modes)
    total_s = round(time.perf_counter() - run_started, 1)
    print(f"\nevaluation {eval_s} s; whole run {total_s} s ({total_s / 60:.1f} min); peak RSS {peak_rss_mb()} MB")
    path = write_json(name, {
        "machine": machine_at_start, "source": str(args.source), "scripted": args.scripted, "modes": args.modes,
        "model": {"provider": llm.name, "model": llm.model}, "load_seconds": load_s,
        "settings": {k: getattr(settings, k) for k in (
            "query_decomposition", "decomposition_llm", "max_sub_queries", "top_k", "context_token_budget",
            "answer_style", "answer_temperature", "answer_max_tokens", "max_reflection_iterations",
            "document_routing", "max_tool_calls", "max_iterations", "max_reprompts", "max_context_citations",
            "llm_threads", "llm_context_tokens")},
        "scoring": {"recall_threshold": RECALL_THRESHOLD},
        "questions": [q["id"] for q in questions],
        "summary": summary, "per_question": rows,
        "evaluation_seconds": eval_s, "total_seconds": total_s, "peak_rss_mb": peak_rss_mb(),
    })
    print(f"wrote {path.relative_to(ROOT)} and {out_jsonl.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
