"""The reader, isolated: the same model answers FinanceBench questions from FIXED contexts, in
several prompt forms, in one run (model loaded once). Replaces bench/prompt_probe.py.

    .venv/bin/python bench/reader_quality.py [--shared /work/shared] retrieve --kb /work/kb/reader/fb [--part dev]
    .venv/bin/python bench/reader_quality.py run --part dev --limit 12 [--contexts oracle,retrieved,other]
                     [--variants today,wide,quote,quote_optional] [--name reader_dev] [--resume]
    .venv/bin/python bench/reader_quality.py report --name reader_dev [--revalidate]

Questions: ../shared/eval-public/financebench/financebench_subset.jsonl, the `--part` of the fixed
dev/test split (bench/splits.py, key financebench_id); --limit N spreads N over the question types
(bench/financebench.spread_over_types).

Contexts (each a list of chunks, as the Reasoner receives them from retrieval):
  oracle     the evidence page (page numbers 0-based in the set), read by the app's own PDF loader
             and cut by its chunker (core.ingest.chunking, the configured sizes); the chunk sharing the most
             words with the evidence snippet and its neighbours on the page, up to --oracle-chunks
             chunks in page order. Labelled with the filing's file name and 1-based page.
  retrieved  what today's retrieval gives over a knowledge base of all 26 FinanceBench filings
             (Planner rules + document router + hybrid search, top_k): recorded once by `retrieve`
             into bench/results/reader_retrieval.jsonl, so every variant reads the same chunks.
  other      the oracle context of another question about a different company: it does not hold
             the answer, so refusing is right.

Variants (core.agents.reasoner.reason with these arguments, then core.agents.validator.validate;
the answer scored is the one the Responder would show):
  today           seed 000's free-text prompt, every chunk, context_token_budget 250 (as shipped before)
  wide            the same prompt over the first 3 chunks, 320 tokens in all (~600 prompt tokens)
  quote           the quote form over the first 3 chunks, 320 tokens: the model returns {quote, source,
                  answer} under a JSON schema; the Validator looks for the quote in its source and
                  answers seed 000's no-information sentence when it is missing or not found
  quote_optional  as quote, and the prompt allows an empty quote when no source states the answer
  calc            as quote, plus {figures: [{label, value}], operation} when the answer needs a
                  calculation: the Validator checks each figure is printed in a source and code
                  computes the answer (core/agents/calculate.py)
  line            the line form over the first 3 chunks, 320 tokens: every sentence and table row of the
                  context carries an id (L1, L2, ...); the model returns {line, answer} with the id under a
                  JSON enum, code takes that line as the quote, and the Validator checks it as a quote
  quote_2x160, quote_3x200, quote_5x200
                  the prompt-size curve: the quote form over 2 chunks in 320 tokens, 3 whole chunks
                  (600), 5 whole chunks (1000); on the fixed contexts each reads that many chunks
                  around the evidence
  quote_instructions_first
                  the quote form, its instructions before the passages and the question after them
                  (reasoner.INSTRUCTIONS_FIRST, the app's default); the others keep the seed's order
  quote_if_3x160, quote_if_2x100
                  the curve below the default in its layout: 3 passages in 160 tokens, 2 in 100
The three 3-chunk variants share the question and context, so llama.cpp reuses their prompt prefix.

Scoring: core.evaluate.scoring.score_answer (numbers within 1 % or the reference's rounding,
yes/no, content words; the rules are in bench/answer_quality.py's docstring). On `other`, a
refusal is right and any other answer is a wrong non-refusal. Also per answer: prompt tokens,
seconds, seconds to the first streamed character the user would see, confidence, figures the
answer states that are not in its cited source (the Validator's count).
Rows go to bench/results/<name>.jsonl as they finish; `report` re-reads them.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import splits  # noqa: E402
from bench._common import RESULTS, fmt, machine, percentile, table, write_json  # noqa: E402
from bench.financebench import SHARED, evidence_pages, load_questions, on_evidence_page, spread_over_types  # noqa: E402

CONTEXTS = ("oracle", "retrieved", "other")
# name: (form, context budget in embedder tokens, at most this many chunks; None = all[, prompt layout])
VARIANTS = {
    "today": ("free", 250, None),
    "wide": ("free", 320, 3),
    "quote": ("quote", 320, 3),
    "quote_optional": ("quote_optional", 320, 3),
    "calc": ("calc", 320, 3),
    "line": ("line", 320, 3),
    # the prompt-size curve (docs/reader.md): the quote form over fewer or more, shorter or whole chunks
    "quote_2x160": ("quote", 320, 2),
    "quote_3x200": ("quote", 600, 3),
    "quote_5x200": ("quote", 1000, 5),
    # the instructions first, so their KV cache is reused, and the question after the passages (the app's default)
    "quote_instructions_first": ("quote", 320, 3, "instructions_first"),
    # the curve below the default, toward the speed issue's 8 s text answer: shorter passages, then fewer
    "quote_if_3x160": ("quote", 160, 3, "instructions_first"),
    "quote_if_2x100": ("quote", 100, 2, "instructions_first"),
}
RETRIEVAL_FILE = RESULTS / "reader_retrieval.jsonl"


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--shared", type=Path, default=SHARED, help="folder holding eval-public/ (default ../shared)")
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("retrieve", help="record today's retrieval for every question (needs --kb)")
    r.add_argument("--kb", type=Path, required=True, help="data dir of a knowledge base of the FinanceBench filings")
    splits.add_argument(r, default="all")
    run = sub.add_parser("run", help="answer from fixed contexts with the real model")
    splits.add_argument(run, default=splits.DEV)
    run.add_argument("--limit", type=int, default=0, help="questions, spread over types (0: the whole part)")
    run.add_argument("--contexts", default=",".join(CONTEXTS))
    run.add_argument("--variants", default=",".join(VARIANTS))
    run.add_argument("--oracle-chunks", type=int, default=3)
    run.add_argument("--name", default="reader_quality")
    run.add_argument("--resume", action="store_true", help="keep rows already in <name>.jsonl")
    rep = sub.add_parser("report", help="summarize <name>.jsonl")
    rep.add_argument("--name", default="reader_quality")
    rep.add_argument("--revalidate", action="store_true",
                     help="no model: rebuild each row's sources, re-run today's Validator on the recorded model "
                          "output, re-score, rewrite <name>.jsonl")
    rep.add_argument("--oracle-chunks", type=int, default=3)
    rep.add_argument("--complete", action="store_true",
                     help="only questions answered in every (context, variant) of the file: a stopped run "
                          "compares its points on the same questions")
    return p.parse_args(argv)


# --- contexts -------------------------------------------------------------------------------------

def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


_PAGES: dict[str, dict[int, str]] = {}


def page_text(doc: str, page: int, shared: Path, settings) -> str | None:
    """A filing's page as the app reads it (core.ingest.loaders, the same text extraction)."""
    from core.ingest.loaders import load_document

    if doc not in _PAGES:
        path = shared / "corpus" / "financebench" / f"{doc}.pdf"
        _PAGES[doc] = {s.page: s.text for s in load_document(path, settings).sections if s.page} if path.exists() else {}
    return _PAGES[doc].get(page)


def oracle_chunks(q: dict, count_tokens, settings, limit: int, shared: Path) -> list:
    """The evidence page(s) as the app would read and chunk them: the chunk that shares the most
    words with the evidence snippet, and its neighbours on the page, `limit` chunks in page order.
    (The dataset's own page text, one table cell per line, only when the PDF is missing.)"""
    from core.ingest.chunking import chunk_document
    from core.ingest.document import LoadedDocument, Section
    from core.retrieval import RetrievedChunk

    out = []
    for e in q["evidence"][:limit]:
        doc = e.get("doc_name") or q["doc_name"]
        page = int(e["evidence_page_num"]) + 1
        text = page_text(doc, page, shared, settings) or e["evidence_text_full_page"]
        loaded = LoadedDocument(f"{doc}.pdf", "pdf", [Section(text, page=page)])
        chunks = chunk_document(loaded, doc, count_tokens, settings.chunking_strategy,
                                settings.chunk_size_tokens, settings.chunk_overlap_tokens)
        wanted = _words(e["evidence_text"])
        best = max(range(len(chunks)), key=lambda i: len(wanted & _words(chunks[i].text)))
        share = max(1, limit // min(limit, len(q["evidence"])))
        lo = max(0, min(best - (share - 1) // 2, len(chunks) - share))
        for c in chunks[lo:lo + share]:
            out.append(RetrievedChunk(c.chunk_id, doc, f"{doc}.pdf", c.chunk_index, c.text, str(page), None, None,
                                      0.0, vector_score=None))
    return out[:limit]


def other_question(q: dict, pool: list[dict]) -> dict:
    """A fixed question about a different company (its evidence page cannot answer q)."""
    i = next(j for j, x in enumerate(pool) if x["financebench_id"] == q["financebench_id"])
    for step in range(1, len(pool)):
        x = pool[(i + step * 7) % len(pool)]
        if x["company"] != q["company"]:
            return x
    raise ValueError("every question is about the same company")


def record_retrieval(args) -> int:
    from core.agents import planner as planner_agent
    from core.agents import retriever as retriever_agent
    from core.config import load_settings
    from core.workspace import Workspace

    settings = load_settings(data_dir=args.kb)
    ws = Workspace(settings)
    questions = splits.keep(load_questions(args.shared), lambda q: q["financebench_id"], args.part)
    counts = ws.kb.counts()
    print(f"knowledge base {args.kb}: {counts['documents']} documents, {counts['chunks']} chunks; "
          f"{len(questions)} questions", flush=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    asked = {q["financebench_id"] for q in questions}
    # One file for every part: the rows of questions not asked now (another part) are kept.
    kept = [x for x in (RETRIEVAL_FILE.read_text().splitlines() if RETRIEVAL_FILE.exists() else [])
            if x.strip() and json.loads(x)["financebench_id"] not in asked]
    with RETRIEVAL_FILE.open("w") as fh:
        fh.write("".join(x + "\n" for x in kept))
        for q in questions:
            plan = planner_agent.plan_question(q["question"], knowledge_base_empty=False, settings=settings)
            started = time.perf_counter()
            evidence = retriever_agent.retrieve(plan, ws.retriever, settings.top_k, settings,
                                                router=ws.pipeline.router)
            chunks = [c.to_dict() for c in evidence.chunks]
            ev = evidence_pages(q)
            hit = [on_evidence_page(c["filename"], c["page"], ev) for c in chunks]
            fh.write(json.dumps({"financebench_id": q["financebench_id"], "chunks": chunks, "evidence_hit": hit,
                                 "seconds": round(time.perf_counter() - started, 3)}) + "\n")
            print(f"{q['financebench_id']}: evidence page at {[i + 1 for i, h in enumerate(hit) if h] or '-'}",
                  flush=True)
    ws.close()
    print(f"wrote {RETRIEVAL_FILE}")
    return 0


def recorded_retrieval() -> dict[str, list]:
    from core.retrieval import RetrievedChunk

    if not RETRIEVAL_FILE.exists():
        return {}
    fields = set(RetrievedChunk.__dataclass_fields__)
    out = {}
    for line in RETRIEVAL_FILE.read_text().splitlines():
        row = json.loads(line)
        out[row["financebench_id"]] = [RetrievedChunk(**{k: v for k, v in c.items() if k in fields})
                                       for c in row["chunks"]]
    return out


# --- the run --------------------------------------------------------------------------------------

def context_chunks(q: dict, context: str, everything: list[dict], retrieved: dict, count_tokens, settings, args,
                   variant: str | None = None) -> list:
    """The chunks a variant reads: on the fixed contexts, as many chunks around the evidence as the
    variant reads (its max_sources; --oracle-chunks when it reads all), so a 2-source variant reads the
    evidence chunk and one neighbour, not the first two of a window chosen for three."""
    count = (VARIANTS[variant][2] if variant else None) or args.oracle_chunks
    if context == "oracle":
        return oracle_chunks(q, count_tokens, settings, count, args.shared)
    if context == "other":
        return oracle_chunks(other_question(q, everything), count_tokens, settings, count, args.shared)
    return retrieved.get(q["financebench_id"], [])


def shown_answer(draft, settings) -> tuple[str, object]:
    """What the Responder would show for `draft`, and the Validator's verdict."""
    from core.agents.validator import validate

    validation = validate(draft, settings)
    if not validation.is_valid:
        return validation.fallback_response or "", validation
    return (validation.answer if validation.answer is not None else draft.answer), validation


def answer_once(question: str, chunks: list, variant: str, llm, settings, count_tokens) -> dict:
    from core.agents.reasoner import SEED, reason

    form, budget, max_sources, *layout = VARIANTS[variant]
    first: list[float] = []
    started = time.perf_counter()

    def on_token(token: str) -> None:
        if not first and token.strip():
            first.append(time.perf_counter() - started)

    draft = reason(question, chunks, llm, style=settings.answer_style, budget=budget,
                   temperature=settings.answer_temperature, max_tokens=settings.answer_max_tokens,
                   count_tokens=count_tokens, on_token=on_token, form=form, max_sources=max_sources,
                   layout=layout[0] if layout else SEED)
    seconds = time.perf_counter() - started
    shown, validation = shown_answer(draft, settings)
    return {
        "answer": shown, "raw": draft.raw_output, "quote": draft.quote, "quote_source": draft.quote_source,
        "quote_found": validation.quote_found, "confidence": validation.confidence,
        "unsupported_figures": validation.unsupported_figures, "cited": validation.cited,
        "calculation": validation.calculation, "misread": validation.misread,
        "sources": [{"n": s.number, "filename": s.chunk.filename, "page": s.chunk.page} for s in draft.sources],
        "prompt_tokens": draft.prompt_tokens, "cached_tokens": sum(c.cached_tokens for c in draft.completions),
        "completion_tokens": draft.completion_tokens, "seconds": round(seconds, 2),
        "first_token_s": round(first[0], 2) if first else None, "error": draft.error,
    }


def run(args) -> int:
    from core.config import load_settings
    from core.embedding import count_tokens
    from core.llm import make_llm

    settings = load_settings(data_dir=RESULTS / "reader-unused")
    contexts = args.contexts.split(",")
    variants = args.variants.split(",")
    everything = load_questions(args.shared)
    part = splits.keep(everything, lambda q: q["financebench_id"], args.part)
    questions = spread_over_types(part, args.limit) if args.limit else part
    retrieved = recorded_retrieval()
    if "retrieved" in contexts and not retrieved:
        print(f"no {RETRIEVAL_FILE.name}: run `retrieve` first, or leave out the retrieved context", file=sys.stderr)
        return 2
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"{args.name}.jsonl"
    done = set()
    rows = []
    if args.resume and out.exists():
        rows = [json.loads(x) for x in out.read_text().splitlines() if x.strip()]
        done = {(r["financebench_id"], r["context"], r["variant"]) for r in rows}
    llm = make_llm(settings)
    started = time.perf_counter()
    llm.complete([{"role": "user", "content": "Say OK."}], max_tokens=4, temperature=0.0)
    print(f"{len(questions)} questions ({args.part}); contexts {contexts}; variants {variants}; "
          f"model {llm.name} {llm.model} loaded in {time.perf_counter() - started:.1f} s; {machine()['loadavg_at_start']}",
          flush=True)
    with out.open("w") as fh:
        for r in rows:
            fh.write(json.dumps(r) + "\n")
        for n, q in enumerate(questions, start=1):
            for context in contexts:
                evidence = evidence_pages(q)
                for variant in variants:
                    if (q["financebench_id"], context, variant) in done:
                        continue
                    chunks = context_chunks(q, context, everything, retrieved, count_tokens, settings, args, variant)
                    a = answer_once(q["question"], chunks, variant, llm, settings, count_tokens)
                    refused, correct = verdict(q, context, a["answer"])
                    row = {"financebench_id": q["financebench_id"], "question_type": q["question_type"],
                           "question": q["question"], "gold": q["answer"], "context": context, "variant": variant,
                           "correct": correct, "refused": refused,
                           "evidence_in_context": any(on_evidence_page(s["filename"], s["page"], evidence)
                                                      for s in a["sources"]) if context != "other" else False,
                           "load": round(__import__("os").getloadavg()[0], 2), **a}
                    rows.append(row)
                    fh.write(json.dumps(row) + "\n")
                    fh.flush()
                    print(f"{n}/{len(questions)} {q['financebench_id']} {context:9} {variant:14} "
                          f"{'OK ' if correct else ('REF' if refused else 'no ')} {a['prompt_tokens']:4d} tok "
                          f"{a['seconds']:5.1f} s | {a['answer'][:90]!r}", flush=True)
    report(rows, args.name)
    return 0


def verdict(q: dict, context: str, answer: str) -> tuple[bool, bool]:
    """(refused, correct): on `other` a refusal is right; elsewhere the reference decides."""
    from core.evaluate.scoring import is_refusal, score_answer

    refused = is_refusal(answer)
    return refused, bool(refused if context == "other" else score_answer(q, answer)["correct"])


def revalidate(args) -> list[dict]:
    """Today's Validator over the recorded model output of every row (the same sources rebuilt),
    so a change to the check is measured without asking the model again."""
    from core.agents.reasoner import Draft, build_sources, read_reply
    from core.config import load_settings
    from core.embedding import count_tokens

    settings = load_settings(data_dir=RESULTS / "reader-unused")
    everything = load_questions(args.shared)
    by_id = {q["financebench_id"]: q for q in everything}
    retrieved = recorded_retrieval()
    path = RESULTS / f"{args.name}.jsonl"
    rows = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    changed = 0
    for r in rows:
        q = by_id[r["financebench_id"]]
        form, budget, max_sources, *_ = VARIANTS[r["variant"]]
        chunks = context_chunks(q, r["context"], everything, retrieved, count_tokens, settings, args, r["variant"])
        sources = build_sources(q["question"], chunks[:max_sources] if max_sources else chunks, budget, count_tokens)
        draft = Draft(r["raw"].strip(), "", len(sources), sources, question=q["question"], error=r.get("error"))
        if form != "free":
            read_reply(draft, r["raw"])
        shown, validation = shown_answer(draft, settings)
        refused, correct = verdict(q, r["context"], shown)
        changed += (correct != r["correct"]) or (refused != r["refused"])
        r.update(answer=shown, refused=refused, correct=correct, quote_found=validation.quote_found,
                 confidence=validation.confidence, unsupported_figures=validation.unsupported_figures,
                 cited=validation.cited, calculation=validation.calculation, misread=validation.misread)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    print(f"re-validated {len(rows)} rows; {changed} changed verdict")
    return rows


def summarize(rows: list[dict]) -> list[dict]:
    groups = defaultdict(list)
    for r in rows:
        groups[(r["variant"], r["context"])].append(r)
    out = []
    for variant in VARIANTS:
        for context in CONTEXTS:
            g = groups.get((variant, context))
            if not g:
                continue
            answered = [r for r in g if not r["refused"]]
            with_evidence = [r for r in g if r["evidence_in_context"]]
            out.append({
                "variant": variant, "context": context, "n": len(g),
                "correct": sum(r["correct"] for r in g),
                "refused": sum(r["refused"] for r in g),
                "refused_with_evidence": sum(r["refused"] for r in with_evidence), "with_evidence": len(with_evidence),
                "wrong_answers": sum(not r["correct"] for r in answered),
                "unsupported_figure_answers": sum(bool(r["unsupported_figures"]) for r in answered),
                "high_confidence_wrong": sum(r["confidence"] == "high" and not r["correct"] for r in answered),
                # the misread check (validator.misread) on right and on wrong answers: it should fire on the latter
                "misread_right": sum(bool(r.get("misread")) and r["correct"] for r in answered),
                "misread_wrong": sum(bool(r.get("misread")) and not r["correct"] for r in answered),
                "calculated": sum(bool(r.get("calculation")) for r in answered),
                "prompt_tokens": round(sum(r["prompt_tokens"] for r in g) / len(g)),
                # what the model writes before the answer's first word is the first-token delay here
                "completion_tokens_p50": percentile([r["completion_tokens"] for r in g], 50),
                "seconds_p50": percentile([r["seconds"] for r in g], 50),
                "first_token_p50": percentile([r["first_token_s"] for r in g if r["first_token_s"] is not None], 50),
                "load_mean": round(sum(r["load"] for r in g) / len(g), 1),
            })
    return out


def report(rows: list[dict], name: str) -> None:
    summary = summarize(rows)
    print(table(
        ["variant", "context", "n", "correct", "refused", "refused w/ evidence", "wrong answers",
         "unsupported fig.", "high-conf wrong", "misread flag right/wrong", "calculated", "prompt tok",
         "written tok p50", "s p50",
         "1st tok s p50", "load"],
        [[s["variant"], s["context"], s["n"], s["correct"], s["refused"],
          f"{s['refused_with_evidence']}/{s['with_evidence']}", s["wrong_answers"], s["unsupported_figure_answers"],
          s["high_confidence_wrong"], f"{s['misread_right']}/{s['misread_wrong']}", s["calculated"], s["prompt_tokens"],
          fmt(s["completion_tokens_p50"]), fmt(s["seconds_p50"]), fmt(s["first_token_p50"]),
          s["load_mean"]] for s in summary]))
    path = write_json(name, {"machine": machine(), "summary": summary})
    print(f"wrote {path}")


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.command == "retrieve":
        return record_retrieval(args)
    if args.command == "run":
        return run(args)
    rows = revalidate(args) if args.revalidate else [
        json.loads(x) for x in (RESULTS / f"{args.name}.jsonl").read_text().splitlines() if x.strip()]
    if args.complete:
        pairs = {(r["context"], r["variant"]) for r in rows}
        have = defaultdict(set)
        for r in rows:
            have[r["financebench_id"]].add((r["context"], r["variant"]))
        rows = [r for r in rows if have[r["financebench_id"]] == pairs]
        print(f"{len({r['financebench_id'] for r in rows})} questions answered in all {len(pairs)} (context, variant)")
    report(rows, args.name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
