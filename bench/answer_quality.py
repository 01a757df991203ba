"""Answer quality of the DocuChat pipeline vs. the naive top-5 RAG baseline, same model, same run.

    .venv/bin/python bench/answer_quality.py [--part test|dev|all] [--limit 24 | --all] [--data-dir DIR]
                     [--systems pipeline,baseline] [--reader-form quote|calc|free] [--fast-only]

Questions: FinanceBench (../shared/eval-public/financebench/financebench_subset.jsonl, 66 questions),
the --part of the fixed dev/test split (bench/splits.py; default all). --limit N (default 24) picks N
questions spread deterministically over the question types: each type gets a share proportional to
its size (largest remainder), taken at evenly spaced positions of that type's questions in file
order; --all takes the whole part. Every question is asked against the WHOLE knowledge base (no
document filter). --systems pipeline runs the pipeline alone (half the model time), and its report
classifies every answer: right / evidence not retrieved / no single passage (some of several evidence
pages in context, not all) / retrieved but refused / needs arithmetic (the reference's figures are printed
nowhere in the evidence text) / retrieved but misread.

Systems (both use the same Workspace, the same embedded model, the same hybrid retriever):
  A  pipeline: Workspace.ask(question) with default settings (Planner -> Retriever -> Reasoner ->
     Validator (+ reflection) -> Responder).
  B  baseline: HybridRetriever.search(question, top_k=5); the FULL text of each chunk pasted into
     seed 000's prompt (reasoner.PROMPT_TEMPLATE via reasoner.build_prompt, "[Source N] (file, p. X)"
     labels, the configured answer style); one llm.complete(temperature=0.3, max_tokens=500); no
     validation, no continuation, no citation stripping.
  The order alternates per question (A first on even, B first on odd questions) so that neither
  system systematically profits from llama.cpp's prompt-prefix cache.

--doc-filter (diagnostic, not the main comparison): both systems search only the question's own
document(s), which separates answering quality from whole-knowledge-base retrieval misses.

Scoring (automatic; gold = the `answer` field, with FinanceBench's trailing "The answer here
assumes ..." notes removed):
  * yes/no gold (starts with "Yes"/"No"): correct if the response starts with the same word, or
    its first sentence says exactly one of "yes"/"no" as a standalone word and it is the same.
  * The gold's "first sentence" ends at the first full stop (not after an abbreviation such as
    "Adj." or an initial) or colon.
  * numeric gold: the gold's first sentence (parentheticals removed) contains at least one figure.
    Not figures: bare years (an integer 1990-2035 without $, comma, decimals, % or scale), day
    numbers after a month name ("August 30"), numbers glued to letters ("3M", "777X", "10-K" is
    kept as 10 but "8k" is not) unless "$" + a scale ("$2,018mn"). Correct if EVERY gold figure is
    matched by some number in the response (years in the response are ignored, so a refusal that
    repeats "FY 2023" cannot match "$2,018mn"):
      - percentages (gold has "%"): the response number (with or without "%", or a fraction
        < 5 times 100) rounded to the gold's decimals is within 0.1 point of the gold
        ("24.46%" matches "24.5%"; "31%" does not match "30.8%");
      - other figures: within 1% relative after scale words/units: a number followed by
        thousand/million/billion/trillion (or k, mn/mm/m, bn/b) also counts as its scaled value,
        and the gold also counts as scaled by the unit the question asks for ("in USD millions",
        "in USD billions", ...). So "$1,577 million" == "1.577 billion" == "1577" for a gold
        "$1577.00" asked "in USD millions". Signs are ignored ("(370)", "-14.76%").
  * textual gold: content words (lower-cased; stop words, filler such as "primarily"/"amongst" and
    1-char tokens dropped; plural "s" stripped; billion/million -> bn/mn) of the gold's first
    sentence that do not occur in the question; if fewer than 3 remain, those of the whole gold
    not in the question (all of its content words if none remain). Correct if the response
    contains >= 60% of them (token recall >= 0.6).
  * Every gold of the 66 scores as correct against itself (checked).
  * cites evidence page: some source the answer cites ([Source N] in the answer; Citation.cited for
    the pipeline) is in an evidence document (file stem == evidence doc_name) and its page label
    ("3" or "3-4") covers an evidence page (evidence_page_num is 0-based: page = int(...) + 1).
  * evidence page in context (diagnostic): some source shown to the model covers an evidence page,
    i.e. retrieval found it; separates retrieval misses from reasoning misses.
  * refusal: the answer says the documents do not contain the information (the validator's
    no-information phrases plus "doesn't contain", "not provided", "does not provide",
    "not mentioned", "not available", "not explicitly").

Timing and tokens: seconds = wall time per question per system (retrieval included for both;
model load excluded: the embedder and the LLM are warmed up first). Tokens are the model's own
prompt/completion counts. For the pipeline two token figures are kept: Response.tokens (the final
draft only) and the sum over every Reasoner call in the trace (reflection re-runs the Reasoner;
the discarded drafts cost model time too). Pipeline agent times come from Response.timings.

Fast section (no LLM): plan_question (incl. kb.is_empty(), as the pipeline does), validate and
respond on the pipeline's recorded final drafts (with --fast-only: synthetic drafts, one per
question: the first sentence of source 1 plus one number from source 2, cited) -- --repeats times
each (default 200); p50/p95 of the sum per call in ms (target: < 20 ms).

--reader-form sets Settings.reader_form for the pipeline (how the model is asked; docs/reader.md).

--rescore re-applies these rules to an existing <name>.jsonl without running a model (a stopped run
too); a run over both parts is also reported per part (dev, test).

Outputs: printed tables, bench/results/answer_quality.json (summary + per question) and
bench/results/answer_quality.jsonl (one line per question: question, gold, both answers,
citations, scores, times, tokens, prompts), written as the run goes.
"""
from __future__ import annotations

import argparse
import json
import logging
import re
import shutil
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import splits  # noqa: E402
from bench._common import ROOT, RESULTS, fmt, keep_answers, machine, p50_p95, peak_rss_mb, percentile, table, write_json  # noqa: E402
from bench.financebench import (  # noqa: E402
    SHARED, evidence_pages, load_questions, on_evidence_page, part_of_questions, spread_over_types,
)
from core.citations import cited_numbers  # noqa: E402
from core.evaluate.scoring import gold_figures, numbers, score_answer  # noqa: E402

AGENTS = ("Planner", "Retriever", "Reasoner", "Validator", "Responder")
SYSTEMS = ("pipeline", "baseline")


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data-dir", type=Path, default=RESULTS / "kb-answers",
                   help="knowledge base to open (default bench/results/kb-answers; only this copy is opened)")
    p.add_argument("--copy-from", type=Path, default=RESULTS / "kb-finance",
                   help="if --data-dir does not exist, copy this knowledge base there first")
    p.add_argument("--limit", type=int, default=24, help="questions, spread over question types (default 24)")
    p.add_argument("--all", action="store_true", help="all 66 questions")
    p.add_argument("--shared", type=Path, default=SHARED, help="folder holding eval-public/")
    p.add_argument("--repeats", type=int, default=200, help="repetitions per draft in the fast section")
    p.add_argument("--fast-only", action="store_true",
                   help="no LLM: only the Planner+Validator+Responder timing on synthetic drafts")
    p.add_argument("--name", default="answer_quality", help="output file stem in bench/results/")
    p.add_argument("--reader-form", choices=("free", "quote", "quote_optional", "calc"), default=None,
                   help="Settings.reader_form for the pipeline (default: the configured one)")
    p.add_argument("--systems", default=",".join(SYSTEMS),
                   help="which systems to run: pipeline,baseline (default both) or one of them")
    splits.add_argument(p, default="all")
    p.add_argument("--rescore", action="store_true",
                   help="no model: re-score <name>.jsonl with the current rules and rewrite the report/JSON")
    p.add_argument("--resume", action="store_true",
                   help="keep the questions already in <name>.jsonl (same selection) and run only the rest")
    p.add_argument("--keep-answers", action="store_true",
                   help="keep the pipeline's answers as bench/answers/financebench_<part>.jsonl (the leak test reads them)")
    p.add_argument("--doc-filter", action="store_true",
                   help="diagnostic variant: both systems search only the question's own document(s) "
                        "(isolates answering from whole-KB retrieval misses); default off")
    return p.parse_args(argv)


# --- scoring: core/evaluate/scoring.py (shared with `core eval` and the reader benchmark) ------------

def needs_arithmetic(q: dict) -> bool:
    """Whether the reference answer's figures are printed nowhere in the evidence text, so reading
    them off the page cannot answer it (a ratio, a share, a change must be computed)."""
    figures = gold_figures(q["answer"])
    if not figures:
        return False
    printed = numbers(" ".join(e.get("evidence_text") or "" for e in q["evidence"]))
    return not any(abs(abs(g["value"]) - abs(r["value"])) <= 0.01 * abs(g["value"]) for g in figures for r in printed)


def classify_miss(q: dict, score: dict, result: dict) -> str:
    """Why an answer is not right, in the issue's classes (checked in this order). "no single passage":
    the evidence is on several pages and the context held some of them, not all."""
    if score["correct"]:
        return "right"
    if not result["evidence_in_context"]:
        return "evidence not retrieved"
    pages = evidence_pages(q)
    shown = {p for p in pages if any(on_evidence_page(c["filename"], c["page"], {p}) for c in result["citations"])}
    if len(pages) > 1 and shown != pages:
        return "no single passage"
    if score["refusal"]:
        return "retrieved but refused"
    if needs_arithmetic(q):
        return "needs arithmetic"
    return "retrieved but misread"


# --- the two systems ------------------------------------------------------------------------------

def run_pipeline(ws, q: dict, captured: dict, doc_ids: list[str] | None = None) -> dict:
    events = []
    captured.clear()
    first: list[float] = []
    started = time.perf_counter()

    def on_token(token: str) -> None:  # what the user sees first (after the PII redactor's hold-back)
        if not first and token.strip():
            first.append(time.perf_counter() - started)

    # --doc-filter: the route is chosen as usual, then the text searches only see the question's documents
    response = ws.ask(q["question"], on_event=events.append, on_token=on_token, search_in=doc_ids)
    seconds = time.perf_counter() - started
    evidence = evidence_pages(q)
    llm_events = [e for e in events if e.kind == "llm_call"]
    validations = [e for e in events if e.kind == "validation"]
    citations = [
        {"number": c.number, "filename": c.filename, "page": c.page, "cited": c.cited, "score": c.score,
         "evidence_page": on_evidence_page(c.filename, c.page, evidence), "chunk_id": c.chunk_id}
        for c in response.citations
    ]
    draft = captured.get("draft")
    return {
        "answer": response.answer,
        "raw_answer": draft.answer if draft else None,
        "confidence": response.confidence,
        "safety_flags": response.safety_flags,
        "unsupported": response.unsupported,
        "reasoning": response.reasoning,
        "citations": citations,
        "cites_evidence_page": any(c["cited"] and c["evidence_page"] for c in citations),
        "evidence_in_context": any(c["evidence_page"] for c in citations),
        "seconds": round(seconds, 3),
        "first_token_s": round(first[0], 3) if first else None,
        "calculation": next((e.outputs.get("calculation") for e in reversed(validations)), None),
        "misread": next((e.outputs.get("misread") for e in reversed(validations)), None),
        "timings_ms": response.timings,
        "tokens_final": dict(response.tokens),
        "tokens_all_calls": {
            "prompt": sum(e.outputs.get("prompt_tokens", 0) or 0 for e in llm_events),
            "completion": sum(e.outputs.get("completion_tokens", 0) or 0 for e in llm_events),
            "cached": sum(e.outputs.get("cached_tokens", 0) or 0 for e in llm_events),
        },
        "llm_calls": sum(len(e.outputs.get("llm_seconds") or []) for e in llm_events),
        "reasoner_runs": len(llm_events),
        "continued": [bool(e.outputs.get("continued")) for e in llm_events],
        "finish_reasons": [e.outputs.get("finish_reasons") for e in llm_events],
        "reflections": sum(1 for e in events if e.kind == "reflection"),
        "validations": [{"unsupported": e.outputs.get("unsupported"), "cited": e.outputs.get("cited"),
                         "invalid": e.outputs.get("invalid_citations"), "confidence": e.outputs.get("confidence")}
                        for e in validations],
        "trace_id": response.trace_id,
        "route": response.route,
        "semantic_weights": [r.get("semantic_weight") for e in events if e.kind == "retrieval"
                             for r in (e.outputs.get("searches") or [])],
        "prompt": draft.prompt if draft else None,
    }


def run_baseline(ws, q: dict, style: str, doc_ids: list[str] | None = None) -> dict:
    from core.agents.reasoner import Source, build_prompt
    from core.llm import LLMError

    started = time.perf_counter()
    result = ws.retriever.search(q["question"], top_k=5, doc_ids=doc_ids)
    hits = result.hits[:5]
    sources = [Source(i, h, h.text) for i, h in enumerate(hits, start=1)]
    prompt = build_prompt(q["question"], sources, style)
    error = None
    completion = None
    try:
        completion = ws.llm.complete([{"role": "user", "content": prompt}], max_tokens=500, temperature=0.3)
        answer = completion.text.strip()
    except LLMError as exc:
        error, answer = str(exc), ""
    seconds = time.perf_counter() - started
    evidence = evidence_pages(q)
    cited = cited_numbers(answer)
    citations = [
        {"number": s.number, "filename": s.chunk.filename, "page": s.chunk.page, "cited": s.number in cited,
         "score": round(s.chunk.similarity, 3), "evidence_page": on_evidence_page(s.chunk.filename, s.chunk.page, evidence),
         "chunk_id": s.chunk.chunk_id}
        for s in sources
    ]
    return {
        "answer": answer,
        "error": error,
        "citations": citations,
        "invalid_citations": sorted(n for n in cited if not 1 <= n <= len(sources)),
        "cites_evidence_page": any(c["cited"] and c["evidence_page"] for c in citations),
        "evidence_in_context": any(c["evidence_page"] for c in citations),
        "seconds": round(seconds, 3),
        "retrieval_ms": round(sum(result.timings_ms.values()), 2),
        "semantic_weight": result.semantic_weight,
        "llm_seconds": completion.seconds if completion else None,
        "finish_reason": completion.finish_reason if completion else None,
        "tokens": {"prompt": completion.prompt_tokens if completion else 0,
                   "completion": completion.completion_tokens if completion else 0,
                   "cached": completion.cached_tokens if completion else 0},
        "prompt": prompt,
    }


# --- fast section ---------------------------------------------------------------------------------

def synthetic_draft(ws, question: str):
    """A draft like the scripted model's: first sentence of source 1 and a number from source 2."""
    from core.agents.reasoner import Draft, build_prompt, build_sources

    s = ws.settings
    hits = ws.retriever.search(question, top_k=s.top_k).hits
    sources = build_sources(question, hits, s.context_token_budget, ws.kb.embedder.count_tokens)
    first = re.split(r"(?<=[.!?])\s+", sources[0].text.strip())[0][:300] if sources else ""
    answer = f"{first} [Source 1]."
    if len(sources) > 1:
        figures = re.findall(r"\$?\d[\d,]*(?:\.\d+)?%?", sources[1].text)
        if figures:
            answer += f" The figure is {figures[0]} [Source 2]."
    return Draft(answer, "\n\n".join(f"{x.label} {x.text}" for x in sources), len(sources), sources,
                 prompt=build_prompt(question, sources, s.answer_style), raw_output=answer)


def fast_section(ws, items: list[tuple[str, object]], repeats: int) -> dict:
    from core.agents.planner import plan_question
    from core.agents.responder import respond
    from core.agents.validator import validate

    s = ws.settings
    parts: dict[str, list[float]] = {"plan": [], "validate": [], "respond": [], "sum": []}
    per_draft_p95 = []
    for question, draft in items:  # warm regex caches etc. once, outside the timing
        validate(draft, s)
    for question, draft in items:
        sums = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            plan = plan_question(question, knowledge_base_empty=ws.kb.is_empty(), settings=s)
            t1 = time.perf_counter()
            validation = validate(draft, s)
            t2 = time.perf_counter()
            respond(plan, draft, validation)
            t3 = time.perf_counter()
            parts["plan"].append((t1 - t0) * 1000)
            parts["validate"].append((t2 - t1) * 1000)
            parts["respond"].append((t3 - t2) * 1000)
            parts["sum"].append((t3 - t0) * 1000)
            sums.append((t3 - t0) * 1000)
        per_draft_p95.append(percentile(sums, 95))
    return {
        "drafts": len(items), "repeats": repeats,
        **{k: p50_p95(v) for k, v in parts.items()},
        "max_ms": round(max(parts["sum"]), 3) if parts["sum"] else None,
        "worst_draft_p95_ms": round(max(per_draft_p95), 3) if per_draft_p95 else None,
        "target_ms": 20.0,
    }


# --- summary --------------------------------------------------------------------------------------

def _rate(flags) -> float | None:
    flags = list(flags)
    return round(sum(bool(f) for f in flags) / len(flags), 4) if flags else None


def _mean(values) -> float | None:
    values = [v for v in values if v is not None]
    return round(sum(values) / len(values), 1) if values else None


def systems_in(rows: list[dict]) -> list[str]:
    return [s for s in SYSTEMS if rows and all(s in r for r in rows)]


def summarize(rows: list[dict]) -> dict:
    out = {}
    for system in systems_in(rows):
        rs = [r[system] for r in rows]
        sc = [r["score"][system] for r in rows]
        tokens = [x["tokens_all_calls"] if system == "pipeline" else x["tokens"] for x in rs]
        entry = {
            "n": len(rs),
            "accuracy": _rate(s["correct"] for s in sc),
            "cites_evidence_page": _rate(x["cites_evidence_page"] for x in rs),
            "evidence_in_context": _rate(x["evidence_in_context"] for x in rs),
            "refusal": _rate(s["refusal"] for s in sc),
            "any_citation": _rate(any(c["cited"] for c in x["citations"]) for x in rs),
            "seconds": p50_p95([x["seconds"] for x in rs]),
            "seconds_mean": _mean(x["seconds"] for x in rs),
            "prompt_tokens_mean": _mean(t["prompt"] for t in tokens),
            "completion_tokens_mean": _mean(t["completion"] for t in tokens),
            "cached_tokens_mean": _mean(t.get("cached") for t in tokens),
            "by_kind": {},
            "by_question_type": {},
        }
        for key, field in (("by_kind", lambda r: r["score"][system]["kind"]),
                           ("by_question_type", lambda r: r["question_type"])):
            groups: dict[str, list[dict]] = defaultdict(list)
            for r in rows:
                groups[field(r)].append(r)
            entry[key] = {k: {"n": len(v), "accuracy": _rate(x["score"][system]["correct"] for x in v)}
                          for k, v in sorted(groups.items())}
        with_evidence = [r for r in rows if r[system]["evidence_in_context"]]
        entry["refused_with_evidence"] = f"{sum(r['score'][system]['refusal'] for r in with_evidence)}/{len(with_evidence)}"
        entry["misses"] = dict(Counter(classify_miss(q_of(r), r["score"][system], r[system]) for r in rows))
        if system == "pipeline":
            entry["first_token_s"] = p50_p95([x.get("first_token_s") for x in rs if x.get("first_token_s") is not None])
            entry["calculated"] = sum(1 for x in rs if x.get("calculation"))
            entry["misread_flagged"] = {"right": sum(1 for r in rows if r["pipeline"].get("misread") and r["score"]["pipeline"]["correct"]),
                                        "wrong": sum(1 for r in rows if r["pipeline"].get("misread") and not r["score"]["pipeline"]["correct"])}
            entry["confidence_of_wrong"] = dict(Counter(r["pipeline"]["confidence"] for r in rows
                                                        if not r["score"]["pipeline"]["correct"] and not r["score"]["pipeline"]["refusal"]))
            entry["agent_ms"] = {a: p50_p95([x["timings_ms"].get(a, 0.0) for x in rs]) for a in AGENTS}
            entry["prompt_tokens_final_draft_mean"] = _mean(x["tokens_final"]["prompt"] for x in rs)
            entry["completion_tokens_final_draft_mean"] = _mean(x["tokens_final"]["completion"] for x in rs)
            entry["llm_calls_mean"] = _mean(x["llm_calls"] for x in rs)
            entry["questions_with_reflection"] = sum(1 for x in rs if x["reflections"])
            entry["confidence"] = dict(Counter(x["confidence"] for x in rs))
            entry["flags"] = dict(Counter(f for x in rs for f in x["safety_flags"]))
            entry["answer_changed_by_responder"] = sum(1 for x in rs if x["raw_answer"] is not None
                                                       and x["answer"].strip() != x["raw_answer"].strip())
        else:
            entry["llm_seconds_p50"] = p50_p95([x["llm_seconds"] for x in rs if x["llm_seconds"] is not None])["p50"]
            entry["questions_with_invalid_citation"] = sum(1 for x in rs if x["invalid_citations"])
            entry["errors"] = sum(1 for x in rs if x["error"])
        out[system] = entry
    if len(out) < 2:
        return out
    a, b = out["pipeline"], out["baseline"]
    out["ratio_pipeline_over_baseline"] = {
        "prompt_tokens": _ratio(a["prompt_tokens_mean"], b["prompt_tokens_mean"]),
        "completion_tokens": _ratio(a["completion_tokens_mean"], b["completion_tokens_mean"]),
        "seconds_p50": _ratio(a["seconds"]["p50"], b["seconds"]["p50"]),
        "seconds_p95": _ratio(a["seconds"]["p95"], b["seconds"]["p95"]),
        "seconds_mean": _ratio(a["seconds_mean"], b["seconds_mean"]),
    }
    out["both_correct"] = sum(1 for r in rows if r["score"]["pipeline"]["correct"] and r["score"]["baseline"]["correct"])
    out["only_pipeline_correct"] = sum(1 for r in rows if r["score"]["pipeline"]["correct"] and not r["score"]["baseline"]["correct"])
    out["only_baseline_correct"] = sum(1 for r in rows if r["score"]["baseline"]["correct"] and not r["score"]["pipeline"]["correct"])
    return out


def _ratio(a, b) -> float | None:
    return round(a / b, 2) if a is not None and b else None


def pct(v) -> str:
    return "-" if v is None else f"{100 * v:.1f}%"


_QUESTIONS: dict[str, dict] = {}


def q_of(row: dict) -> dict:
    """The FinanceBench item of a result row (for the miss classes, which read its evidence)."""
    if not _QUESTIONS:
        _QUESTIONS.update({q["financebench_id"]: q for q in load_questions(SHARED)})
    return _QUESTIONS[row["financebench_id"]]


def print_pipeline_report(summary: dict, rows: list[dict], scope: str) -> None:
    """The pipeline alone (--systems pipeline): accuracy, refusals, the miss classes, time."""
    a = summary["pipeline"]
    print(table([f"FinanceBench, pipeline (n={a['n']}, {scope})", "value"], [
        ["accuracy (auto-scored)", pct(a["accuracy"])],
        ["refusals", pct(a["refusal"])],
        ["refusals with the evidence page in context", a["refused_with_evidence"]],
        ["evidence page in the model's context", pct(a["evidence_in_context"])],
        ["cites an evidence page", pct(a["cites_evidence_page"])],
        ["seconds per question p50 / p95", f"{fmt(a['seconds']['p50'])} / {fmt(a['seconds']['p95'])}"],
        ["first visible token p50 / p95 (s)", f"{fmt(a['first_token_s']['p50'])} / {fmt(a['first_token_s']['p95'])}"],
        ["prompt / completion tokens per question (all calls)", f"{fmt(a['prompt_tokens_mean'])} / {fmt(a['completion_tokens_mean'])}"],
        ["LLM calls / question", fmt(a["llm_calls_mean"], 2)],
        ["answers computed by code (calc form)", a["calculated"]],
        ["misread flag on right / wrong answers", f"{a['misread_flagged']['right']} / {a['misread_flagged']['wrong']}"],
        ["confidence of wrong non-refusals", str(a["confidence_of_wrong"])],
    ]))
    print()
    print(table(["outcome", "questions"], [[k, v] for k, v in sorted(a["misses"].items(), key=lambda kv: -kv[1])]))
    print()
    print(table(["question type", "n", "accuracy"], [[t, v["n"], pct(v["accuracy"])] for t, v in a["by_question_type"].items()]))
    print()
    per = [[r["id"], r["question_type"][:6], r["score"]["pipeline"]["kind"],
            classify_miss(q_of(r), r["score"]["pipeline"], r["pipeline"]), r["pipeline"]["confidence"],
            fmt(r["pipeline"]["seconds"]), fmt(r["pipeline"].get("first_token_s")), r["pipeline"]["answer"][:70]]
           for r in rows]
    print(table(["question", "type", "gold", "outcome", "conf", "s", "1st tok s", "answer"], per))


def print_report(summary: dict, rows: list[dict], scope: str = "whole KB") -> None:
    if "baseline" not in summary:
        print_pipeline_report(summary, rows, scope)
        return
    a, b = summary["pipeline"], summary["baseline"]
    n = a["n"]
    main_rows = [
        ["accuracy (auto-scored)", pct(a["accuracy"]), pct(b["accuracy"]), ""],
        ["cites an evidence page", pct(a["cites_evidence_page"]), pct(b["cites_evidence_page"]), ""],
        ["evidence page in the model's context", pct(a["evidence_in_context"]), pct(b["evidence_in_context"]), ""],
        ["cites any source", pct(a["any_citation"]), pct(b["any_citation"]), ""],
        ["refusal (\"documents do not contain\")", pct(a["refusal"]), pct(b["refusal"]), ""],
        ["seconds per question p50", fmt(a["seconds"]["p50"]), fmt(b["seconds"]["p50"]),
         fmt(summary["ratio_pipeline_over_baseline"]["seconds_p50"], 2)],
        ["seconds per question p95", fmt(a["seconds"]["p95"]), fmt(b["seconds"]["p95"]),
         fmt(summary["ratio_pipeline_over_baseline"]["seconds_p95"], 2)],
        ["seconds per question mean", fmt(a["seconds_mean"]), fmt(b["seconds_mean"]),
         fmt(summary["ratio_pipeline_over_baseline"]["seconds_mean"], 2)],
        ["prompt tokens / question (all LLM calls)", fmt(a["prompt_tokens_mean"]), fmt(b["prompt_tokens_mean"]),
         fmt(summary["ratio_pipeline_over_baseline"]["prompt_tokens"], 2)],
        ["completion tokens / question (all LLM calls)", fmt(a["completion_tokens_mean"]),
         fmt(b["completion_tokens_mean"]), fmt(summary["ratio_pipeline_over_baseline"]["completion_tokens"], 2)],
        ["  of which prompt tokens from the KV cache", fmt(a["cached_tokens_mean"]), fmt(b["cached_tokens_mean"]), ""],
        ["prompt / completion tokens (Response.tokens, final draft)",
         f"{fmt(a['prompt_tokens_final_draft_mean'])} / {fmt(a['completion_tokens_final_draft_mean'])}", "-", ""],
        ["LLM calls / question", fmt(a["llm_calls_mean"], 2), "1.00", ""],
    ]
    print(table([f"FinanceBench answers (n={n}, {scope})", "A pipeline", "B baseline", "A/B"], main_rows))
    print()
    kinds = sorted(set(a["by_kind"]) | set(b["by_kind"]))
    types = sorted(set(a["by_question_type"]))
    brk = [[f"gold {k} (n={a['by_kind'][k]['n']})", pct(a["by_kind"][k]["accuracy"]),
            pct(b["by_kind"].get(k, {}).get("accuracy"))] for k in kinds]
    brk += [[f"{t} (n={a['by_question_type'][t]['n']})", pct(a["by_question_type"][t]["accuracy"]),
             pct(b["by_question_type"][t]["accuracy"])] for t in types]
    brk.append(["both correct / only A / only B",
                f"{summary['both_correct']} / {summary['only_pipeline_correct']}",
                f"{summary['only_baseline_correct']}"])
    print(table(["accuracy breakdown", "A pipeline", "B baseline"], brk))
    print()
    ag = [[agent, fmt(a["agent_ms"][agent]["p50"], 1), fmt(a["agent_ms"][agent]["p95"], 1)] for agent in AGENTS]
    print(table(["pipeline agent time (ms)", "p50", "p95"], ag))
    print(f"pipeline: reflection ran on {a['questions_with_reflection']}/{n} questions; confidence {a['confidence']}; "
          f"flags {a['flags']}; answers changed by the Responder {a['answer_changed_by_responder']}")
    print(f"baseline: LLM call p50 {fmt(b['llm_seconds_p50'])} s; questions with an out-of-range [Source N] "
          f"{b['questions_with_invalid_citation']}; LLM errors {b['errors']}")
    print()
    per = []
    for r in rows:
        sa, sb = r["score"]["pipeline"], r["score"]["baseline"]
        per.append([
            r["id"], r["question_type"][:6], sa["kind"],
            ("Y" if sa["correct"] else ".") + ("R" if sa["refusal"] else " ") + ("E" if r["pipeline"]["cites_evidence_page"] else (" " if not r["pipeline"]["evidence_in_context"] else "c")),
            ("Y" if sb["correct"] else ".") + ("R" if sb["refusal"] else " ") + ("E" if r["baseline"]["cites_evidence_page"] else (" " if not r["baseline"]["evidence_in_context"] else "c")),
            fmt(r["pipeline"]["seconds"]), fmt(r["baseline"]["seconds"]),
            r["pipeline"]["tokens_all_calls"]["prompt"], r["baseline"]["tokens"]["prompt"], r["pipeline"]["llm_calls"],
        ])
    print(table(["question", "type", "gold", "A", "B", "A s", "B s", "A ptok", "B ptok", "A calls"], per,
                title="per question (Y correct, R refusal, E cites evidence page, c evidence page in context but not cited)"))


def print_fast(fast: dict, source: str) -> None:
    rows = [[k, fmt(fast[k]["p50"], 3), fmt(fast[k]["p95"], 3)] for k in ("plan", "validate", "respond", "sum")]
    print(table([f"Planner+Validator+Responder, no LLM ({fast['drafts']} {source} drafts x {fast['repeats']})",
                 "p50 ms", "p95 ms"], rows))
    ok = fast["sum"]["p95"] is not None and fast["sum"]["p95"] < fast["target_ms"]
    print(f"max {fmt(fast['max_ms'], 3)} ms; worst draft p95 {fmt(fast['worst_draft_p95_ms'], 3)} ms; "
          f"target < {fast['target_ms']:.0f} ms: {'met' if ok else 'NOT met'} (p95 of the sum)")


# --- main -----------------------------------------------------------------------------------------

def code_version() -> dict:
    import subprocess

    def git(*a: str) -> str:
        try:
            return subprocess.run(["git", *a], cwd=ROOT, capture_output=True, text=True, timeout=10).stdout.strip()
        except Exception:
            return ""

    return {"head": git("rev-parse", "--short", "HEAD"), "head_subject": git("log", "-1", "--format=%s"),
            "core_dirty": [line[3:] for line in git("status", "--porcelain", "--", "core").splitlines()]}


def rescore(args) -> int:
    """Re-apply the scoring rules to a finished run's JSONL; keep its timings and fast section."""
    by_id = {q["financebench_id"]: q for q in load_questions(args.shared)}
    path = RESULTS / f"{args.name}.jsonl"
    rows = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    changed = []
    for r in rows:
        q = by_id[r["financebench_id"]]
        for system in systems_in([r]):
            new = score_answer(q, r[system]["answer"])
            if new["correct"] != r["score"][system]["correct"]:
                changed.append(f"{r['id']} {system}: {r['score'][system]['correct']} -> {new['correct']}")
            r["score"][system] = new
    path.write_text("".join(json.dumps(r, default=str) + "\n" for r in rows))
    summary = summarize(rows)
    json_path = RESULTS / f"{args.name}.json"
    payload = json.loads(json_path.read_text()) if json_path.exists() else {}
    print(f"re-scored {len(rows)} questions from {path.name}; changed: {changed or 'none'}\n")
    scope = "own document only" if payload.get("doc_filter") else "whole KB"
    print_report(summary, rows, scope)
    by_part = {part: [r for r in rows if splits.part_of(r["financebench_id"]) == part] for part in (splits.DEV, splits.TEST)}
    if all(by_part.values()):  # a run over both parts (--part all) is reported per part too: tune on dev, report test
        for part, part_rows in by_part.items():
            print(f"\n--- {part} part only ---")
            print_report(summarize(part_rows), part_rows, scope)
            summary[f"{part}_part"] = summarize(part_rows)
    if payload.get("fast_section"):
        print()
        print_fast(payload["fast_section"], payload["fast_section"].get("draft_source", "recorded"))
    if payload.get("total_seconds"):
        print(f"\nrun wall time {payload['total_seconds']} s ({payload['total_seconds'] / 60:.1f} min), "
              f"evaluation {payload.get('evaluation_seconds')} s")
    payload.update(summary=summary, per_question=rows, rescored=True)
    write_json(args.name, payload)
    print(f"wrote {json_path.relative_to(ROOT)} and {path.relative_to(ROOT)}")
    return 0


def main(argv=None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    if args.rescore:
        return rescore(args)
    from core.config import load_settings
    from core.workspace import IndexSettingsChanged, Workspace

    run_started = time.perf_counter()
    code = code_version()
    print(f"code: {code['head']} ({'core/ has uncommitted changes: ' + ', '.join(code['core_dirty']) if code['core_dirty'] else 'core/ clean'})")
    if not args.data_dir.exists():
        print(f"copying {args.copy_from} -> {args.data_dir}", flush=True)
        shutil.copytree(args.copy_from, args.data_dir)
    settings = load_settings(data_dir=args.data_dir, reader_form=args.reader_form)
    systems = [x for x in args.systems.split(",") if x]
    assert systems and set(systems) <= set(SYSTEMS) and "pipeline" in systems, f"--systems: {args.systems}"
    print(f"data dir: {settings.data_dir}; llm provider {settings.llm_provider}; top_k {settings.top_k}; "
          f"context budget {settings.context_token_budget} tokens; style {settings.answer_style}; "
          f"max reflection iterations {settings.max_reflection_iterations}")
    try:
        ws = Workspace(settings)
    except IndexSettingsChanged as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    counts = ws.kb.counts()
    print(f"knowledge base: {counts['documents']} documents, {counts['chunks']} chunks")

    rows_all = part_of_questions(load_questions(args.shared), args.part)
    questions = rows_all if args.all else spread_over_types(rows_all, args.limit)
    print(("DIAGNOSTIC VARIANT --doc-filter: retrieval restricted to each question's document(s)\n"
           if args.doc_filter else "") + f"questions: {len(questions)} of {len(rows_all)} "
          f"{dict(Counter(q['question_type'] for q in questions))}", flush=True)

    started = time.perf_counter()
    ws.embedder.embed(["warm up"])
    embed_load_s = round(time.perf_counter() - started, 2)
    out_jsonl = RESULTS / f"{args.name}.jsonl"
    rows: list[dict] = []
    llm_load_s = None
    payload: dict = {"machine": machine(), "code": code, "data_dir": str(settings.data_dir), "embedding_load_s": embed_load_s,
                     "doc_filter": args.doc_filter, "reader_form": settings.reader_form, "part": args.part,
                     "systems": systems}

    if not args.fast_only:
        started = time.perf_counter()
        ws.llm.complete([{"role": "user", "content": "Say OK."}], max_tokens=4, temperature=0.0)
        llm_load_s = round(time.perf_counter() - started, 2)
        print(f"model: {ws.llm.name} {ws.llm.model}; embedder load {embed_load_s} s; LLM load + first call {llm_load_s} s",
              flush=True)

        captured: dict = {}
        # keep the final draft for the fast section and the JSONL
        ws.pipeline.on_answer = lambda draft, validation: captured.update(draft=draft, validation=validation)
        drafts: list[tuple[str, object]] = []
        eval_started = time.perf_counter()
        wanted_ids = {q["financebench_id"] for q in questions}
        if args.resume and out_jsonl.exists():
            rows = [r for r in (json.loads(x) for x in out_jsonl.read_text().splitlines() if x.strip())
                    if r["financebench_id"] in wanted_ids]
            print(f"resuming: {len(rows)} questions already answered in {out_jsonl.name}", flush=True)
        done = {r["financebench_id"] for r in rows}
        with out_jsonl.open("w", encoding="utf-8") as fh:
            for r in rows:
                fh.write(json.dumps(r, default=str) + "\n")
            for i, q in enumerate(questions):
                if q["financebench_id"] in done:
                    continue
                order = tuple(systems) if len(systems) == 1 else (
                    ("pipeline", "baseline") if i % 2 == 0 else ("baseline", "pipeline"))
                result = {}
                doc_ids = None
                if args.doc_filter:
                    names = {f"{d}.pdf" for d, _ in evidence_pages(q)} | {f"{q['doc_name']}.pdf"}
                    doc_ids = ws.kb.resolve_documents(sorted(names)) or None
                for system in order:
                    result[system] = (run_pipeline(ws, q, captured, doc_ids) if system == "pipeline"
                                      else run_baseline(ws, q, settings.answer_style, doc_ids))
                    if system == "pipeline" and captured.get("draft") is not None:
                        drafts.append((q["question"], captured["draft"]))
                row = {
                    "id": q["financebench_id"].replace("financebench_id_", "fb"),
                    "financebench_id": q["financebench_id"], "question_type": q["question_type"],
                    "doc_name": q["doc_name"], "question": q["question"], "gold": q["answer"],
                    "evidence_pages_1based": sorted(f"{d} p.{p}" for d, p in evidence_pages(q)),
                    "order": list(order),
                    "score": {s: score_answer(q, result[s]["answer"]) for s in order},
                    **result,
                }
                rows.append(row)
                fh.write(json.dumps(row, default=str) + "\n")
                fh.flush()
                line = " ".join(f"{x} {'OK ' if row['score'][x]['correct'] else 'no '}{result[x]['seconds']:6.1f}s"
                                for x in order)
                print(f"[{time.perf_counter() - eval_started:7.0f}s] {i + 1}/{len(questions)} {row['id']} "
                      f"{q['question_type'][:6]} {row['score']['pipeline']['kind']:7} {line} "
                      f"{classify_miss(q, row['score']['pipeline'], result['pipeline'])} | "
                      f"{result['pipeline']['answer'][:80]!r}", flush=True)
        eval_s = round(time.perf_counter() - eval_started, 1)
        order_of = {q["financebench_id"]: i for i, q in enumerate(questions)}
        rows.sort(key=lambda r: order_of[r["financebench_id"]])
        summary = summarize(rows)
        print()
        print_report(summary, rows, "own document only" if args.doc_filter else "whole KB")
        payload.update(llm_load_s=llm_load_s, evaluation_seconds=eval_s, summary=summary)
        if args.keep_answers and "pipeline" in systems:
            keep_answers(f"financebench_{args.part}", [
                {"id": r["id"], "question": r["question"], "answer": r["pipeline"]["answer"],
                 "confidence": r["pipeline"]["confidence"], "correct": r["score"]["pipeline"]["correct"]} for r in rows])
        fast_items, source = drafts, "recorded"
    else:
        fast_items = [(q["question"], synthetic_draft(ws, q["question"])) for q in questions]
        source = "synthetic"

    print()
    fast = fast_section(ws, fast_items, args.repeats)
    print_fast(fast, source)
    total_s = round(time.perf_counter() - run_started, 1)
    print(f"\nwhole run {total_s} s ({total_s / 60:.1f} min); peak RSS {peak_rss_mb()} MB")
    payload.update(
        settings={k: getattr(settings, k) for k in (
            "top_k", "context_token_budget", "answer_style", "answer_temperature", "answer_max_tokens",
            "max_reflection_iterations", "llm_context_tokens", "llm_threads", "expand_window")},
        questions=[q["financebench_id"] for q in questions],
        fast_section={"draft_source": source, **fast},
        total_seconds=total_s, peak_rss_mb=peak_rss_mb(),
        per_question=[{k: v for k, v in r.items()} for r in rows],
    )
    path = write_json(args.name, payload)
    print(f"wrote {path.relative_to(ROOT)}" + ("" if args.fast_only else f" and {out_jsonl.relative_to(ROOT)}"))
    ws.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
