"""Does routing to a few documents (seed 002) help retrieval? Page and document recall with and
without the document router, on the 46-PDF finance knowledge base. No LLM.

    .venv/bin/python bench/routing_quality.py [--source bench/results/kb-finance] [--limit N]

1. Copies --source (built by bench/retrieval_quality.py) to a temporary folder and opens the copy:
   the source is never written. Knowledge bases ingested before document summaries existed get
   them added to the copy, made exactly as ingest makes them (core.ingest.summary from the
   stored original), cached by content hash in bench/results/routing_summaries.json.
2. For every FinanceBench (financebench_subset.jsonl) and Docugami 10-Q (qna_data.csv) question:
   routes it (core.agents.router.DocumentRouter, with the unsure threshold at 0 so that every
   question gets a routing to study), searches the whole knowledge base, and searches the routed
   documents only; top_k = --top-k.
3. Scores, as bench/retrieval_quality.py does: FinanceBench evidence-page recall@5 and document
   recall@5, Docugami document recall@5 and Multi-Doc coverage@10, for
   - all: no routing (today's search),
   - routed: pre-filtered to the routed documents whenever the router chose some,
   - routed+fallback: as routed, but back to all documents when the filtered search is weak
     (core.agents.router.is_weak) or the best summary similarity is under the unsure threshold,
   - routed by names only, and by summaries only (DocumentRouter.by_summary for every question),
   - the Retriever agent as the pipeline runs it (planner, rule-based decomposition without the
     LLM, concurrent sub-query searches merged to top_k), without and with the router;
   with offline sweeps of both thresholds over the same searches, and how often the router's
   choice contained the expected document.
Figures are printed and written to bench/results/routing_quality.json.
"""
from __future__ import annotations

import argparse
import json
import logging
import shutil
import sys
import tempfile
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import RESULTS, ROOT, describe_code, machine, p50_p95, table, write_json  # noqa: E402
from bench.retrieval_quality import (  # noqa: E402
    SHARED, globs_of, load_docugami, load_financebench, mean, pct, rate, score_docugami, score_financebench,
)

SUMMARY_CACHE = RESULTS / "routing_summaries.json"


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--source", type=Path, default=RESULTS / "kb-finance",
                   help="knowledge base to copy and evaluate (default: bench/results/kb-finance)")
    p.add_argument("--limit", type=int, default=None, help="first N questions of each set (quick run)")
    p.add_argument("--top-k", type=int, default=10, help="hits per search (default 10)")
    p.add_argument("--shared", type=Path, default=SHARED, help="folder holding eval-public/")
    return p.parse_args(argv)


class CachedEmbedder:
    """The shared model, remembering query vectors: each question is embedded once, not once per
    search variant (the searches themselves are what is compared)."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.model_name, self.dim = inner.model_name, inner.dim
        self.memory: dict[str, np.ndarray] = {}

    def embed(self, texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self.memory]
        if missing:
            self.memory.update(zip(missing, self.inner.embed(missing)))
        return np.stack([self.memory[t] for t in texts]) if texts else self.inner.embed([])

    def count_tokens(self, texts: list[str]) -> list[int]:
        return self.inner.count_tokens(texts)


def add_missing_summaries(ws) -> int:
    """Summaries for documents ingested before summaries existed, as ingest makes them."""
    from core.ingest.categories import category_hints
    from core.ingest.loaders import load_document
    from core.ingest.summary import DocumentSummary, summarize

    have = set(ws.kb.document_summaries())
    missing = [d for d in ws.kb.documents() if d.status == "indexed" and d.doc_id not in have]
    if not missing:
        return 0
    cache = json.loads(SUMMARY_CACHE.read_text()) if SUMMARY_CACHE.exists() else {}
    for d in missing:
        if d.content_hash not in cache:
            print(f"  summarizing {d.filename}", file=sys.stderr, flush=True)
            document = load_document(Path(d.stored_path), ws.settings, filename=d.filename)
            summary = summarize(document, category_hints(document, ws.settings))
            cache[d.content_hash] = {"summary": summary.to_dict(), "text": summary.text(document.title)}
    SUMMARY_CACHE.parent.mkdir(parents=True, exist_ok=True)
    SUMMARY_CACHE.write_text(json.dumps(cache, indent=1))
    vectors = ws.embedder.inner.embed([cache[d.content_hash]["text"] for d in missing])
    with ws.kb.writing():  # the copy only
        for d, v in zip(missing, vectors):
            ws.kb.add_summaries(d.doc_id, (DocumentSummary(**cache[d.content_hash]["summary"]).to_dict(), v))
    return len(missing)


def expected_docs(kind: str, q: dict, kb_files: list[str]) -> set[str]:
    import fnmatch

    if kind == "fin":
        stems = {q["doc_name"]} | {e.get("doc_name") or q["doc_name"] for e in q["evidence"]}
        return {f for f in kb_files if Path(f).stem in stems}
    return {f for f in kb_files if any(fnmatch.fnmatchcase(f, g) for g in globs_of(q["Source Docs"]))}


def evaluate(ws, questions, top_k: int, kb_files: list[str]) -> list[dict]:
    from core.agents.decompose import decompose
    from core.agents.planner import plan_question
    from core.agents.retriever import retrieve
    from core.agents.router import DocumentRouter

    # Route every question (unsure threshold 0), so the thresholds can be swept offline.
    router = DocumentRouter(ws.kb, replace(ws.settings, router_min_similarity=0.0))
    started = time.perf_counter()
    router.profiles()  # built once per knowledge base generation, outside the per-question timings
    print(f"router profiles built in {time.perf_counter() - started:.2f} s", flush=True)
    live_router = DocumentRouter(ws.kb, ws.settings)  # the defaults, as the pipeline uses them
    rows = []
    for n, (kind, question, q) in enumerate(questions, start=1):
        ws.embedder.embed([question])
        started = time.perf_counter()
        routing = router.route(question, ws.embedder.embed)
        route_ms = (time.perf_counter() - started) * 1000
        everything = ws.retriever.search(question, top_k=top_k, expand=0)
        filtered = (ws.retriever.search(question, top_k=top_k, doc_ids=routing.doc_ids, expand=0)
                    if routing.doc_ids else None)
        # The Retriever agent as the pipeline runs it: rule-based decomposition (no LLM), each
        # sub-query searched and merged, with and without the router.
        plan = plan_question(question, knowledge_base_empty=False, settings=ws.settings)
        if not plan.enumeration:
            decomposition = decompose(plan.question, ws.settings)
            plan = replace(plan, classification=decomposition.kind, sub_queries=decomposition.sub_queries)
        agent_routed = retrieve(plan, ws.retriever, top_k, ws.settings, expand=0, router=live_router)
        agent_all = retrieve(plan, ws.retriever, top_k, ws.settings, expand=0)
        # The summaries alone, for every question, to judge them apart from the names.
        by_summary = router.by_summary(question, ws.embedder.embed)
        summary_hits = (ws.retriever.search(question, top_k=top_k, doc_ids=by_summary.doc_ids, expand=0).hits
                        if by_summary.doc_ids else None)
        chosen = {c.filename for c in routing.chosen}
        expected = expected_docs(kind, q, kb_files)
        rows.append({
            "kind": kind, "q": q, "question": question, "method": routing.method, "reason": routing.reason,
            "chosen": sorted(chosen), "best_summary": routing.considered[0].score if routing.considered else None,
            "route_ms": route_ms,
            "router_right": bool(chosen & expected) if chosen else None,
            "router_complete": expected <= chosen if chosen else None,
            "all_hits": everything.hits, "filtered_hits": filtered.hits if filtered else None,
            "summary_hits": summary_hits, "summary_best": by_summary.considered[0].score if by_summary.considered else None,
            "summary_right": bool({c.filename for c in by_summary.chosen} & expected),
            "sub_queries": len(plan.sub_queries),
            "agent_routed_hits": agent_routed.chunks, "agent_all_hits": agent_all.chunks,
        })
        if n % 25 == 0:
            print(f"  {n}/{len(questions)} questions", file=sys.stderr, flush=True)
    return rows


def pick(row: dict, settings, top_k: int, min_similarity: float | None, weak: float | None):
    """The hits a configuration would use: filtered when routed (and sure, and not weak)."""
    from core.agents.router import is_weak

    if row["filtered_hits"] is None:
        return row["all_hits"]
    if min_similarity is not None and row["method"] == "summary" and row["best_summary"] < min_similarity:
        return row["all_hits"]
    if weak is not None and is_weak(row["filtered_hits"], replace(settings, router_weak_similarity=weak)):
        return row["all_hits"]
    return row["filtered_hits"]


def score(rows: list[dict], choose, kb_files: list[str]) -> dict:
    fin = [score_financebench(r["q"], choose(r)) for r in rows if r["kind"] == "fin"]
    dg = [score_docugami(r["q"], choose(r), kb_files) for r in rows if r["kind"] == "dg"]
    return {
        "fin_page@5": rate(fin, "page_rank", 5), "fin_page@10": rate(fin, "page_rank", 10),
        "fin_doc@5": rate(fin, "doc_rank", 5),
        "dg_doc@5": rate(dg, "doc_rank", 5),
        "dg_multi_cov@10": mean(d["coverage10"] for d in dg if d["question_type"] == "Multi-Doc RAG"),
        "filtered": sum(1 for r in rows if choose(r) is r["filtered_hits"]),
    }


KEYS = ["fin_page@5", "fin_page@10", "fin_doc@5", "dg_doc@5", "dg_multi_cov@10"]


def main(argv=None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    from core.config import load_settings
    from core.embedding import shared_embedder
    from core.workspace import Workspace

    if not (args.source / "catalog.sqlite3").exists():
        print(f"error: no knowledge base in {args.source}; build it with bench/retrieval_quality.py", file=sys.stderr)
        return 2
    print(describe_code())
    machine_at_start = machine()
    with tempfile.TemporaryDirectory(prefix="routing-kb-") as tmp:
        copy = Path(tmp) / "kb"
        started = time.perf_counter()
        shutil.copytree(args.source, copy)
        print(f"copied {args.source} to {copy} in {time.perf_counter() - started:.1f} s")
        settings = load_settings(data_dir=copy)
        ws = Workspace(settings, CachedEmbedder(shared_embedder(settings)))
        added = add_missing_summaries(ws)
        if added:
            print(f"added summaries for {added} documents to the copy")
        kb_files = [d.filename for d in ws.kb.documents() if d.status == "indexed"]
        fin = load_financebench(args.shared, args.limit)
        dg = load_docugami(args.shared, args.limit)
        questions = [("fin", q["question"], q) for q in fin] + [("dg", q["Question"], q) for q in dg]
        print(f"{len(kb_files)} documents; {len(fin)} FinanceBench + {len(dg)} Docugami questions; "
              f"router_top_k_docs={settings.router_top_k_docs}, router_max_docs={settings.router_max_docs}, "
              f"margin={settings.router_similarity_margin}, top_k={args.top_k}", flush=True)
        started = time.perf_counter()
        rows = evaluate(ws, questions, args.top_k, kb_files)
        eval_s = round(time.perf_counter() - started, 1)
        ws.close()

    s, k = settings, args.top_k
    configs = {
        "all documents (no routing)": lambda r: r["all_hits"],
        "routed, strict": lambda r: pick(r, s, k, None, None),
        "routed by names only, strict": lambda r: r["filtered_hits"] if r["method"] == "name" else r["all_hits"],
        f"routed, unsure < {s.router_min_similarity}, weak < {s.router_weak_similarity} (defaults)":
            lambda r: pick(r, s, k, s.router_min_similarity, s.router_weak_similarity),
    }
    configs["Retriever agent: decomposition, no routing"] = lambda r: r["agent_all_hits"]
    configs["Retriever agent: decomposition + routing (the pipeline's defaults)"] = lambda r: r["agent_routed_hits"]
    for threshold in (0.3, 0.4, 0.5, 0.6):
        configs[f"routed by summaries only, unsure < {threshold}"] = (
            lambda r, t=threshold: r["summary_hits"] if r["summary_hits"] is not None and r["summary_best"] >= t
            else r["all_hits"])
    results = {name: score(rows, choose, kb_files) for name, choose in configs.items()}
    print()
    print(table(["retrieval, top_k=%d" % k] + KEYS + ["filtered"],
                [[name] + [pct(v[key]) for key in KEYS] + [v["filtered"]] for name, v in results.items()]))

    sweep = []
    for min_sim in (0.0, 0.2, 0.3, 0.4, 0.5):
        for weak in (None, 0.2, 0.3, 0.4, 0.5):
            v = score(rows, lambda r: pick(r, s, k, min_sim, weak), kb_files)
            sweep.append({"router_min_similarity": min_sim, "router_weak_similarity": weak, **v})
    print()
    print(table(["sweep: unsure below / weak below"] + KEYS + ["filtered"],
                [[f"{r['router_min_similarity']} / {r['router_weak_similarity']}"] + [pct(r[key]) for key in KEYS]
                 + [r["filtered"]] for r in sweep]))

    # Where filtering changed FinanceBench's evidence-page rank, for the questions routed by name.
    moved = Counter()
    for r in rows:
        if r["kind"] == "fin" and r["method"] == "name":
            before = score_financebench(r["q"], r["all_hits"])["page_rank"] or 99
            after = score_financebench(r["q"], r["filtered_hits"])["page_rank"] or 99
            moved["better" if after < before else "worse" if after > before else "same"] += 1
    print(f"\nFinanceBench questions routed by name: evidence-page rank with the filter vs without: {dict(moved)}")

    split = Counter(r["sub_queries"] for r in rows)
    print(f"sub-queries per question (rules, no LLM): {dict(sorted(split.items()))}")
    methods = Counter(r["method"] for r in rows)
    router = {}
    for kind in ("fin", "dg"):
        for method in ("name", "summary"):
            sel = [r for r in rows if r["kind"] == kind and r["method"] == method]
            router[f"{kind}/{method}"] = {
                "n": len(sel),
                "expected_doc_chosen": round(sum(bool(r["router_right"]) for r in sel) / len(sel), 4) if sel else None,
                "all_expected_chosen": round(sum(bool(r["router_complete"]) for r in sel) / len(sel), 4) if sel else None,
            }
    print()
    print(table(["router choice", "n", "expected doc chosen", "all expected chosen"],
                [[name, v["n"], pct(v["expected_doc_chosen"]), pct(v["all_expected_chosen"])] for name, v in router.items()]))
    summary_right = [r["summary_right"] for r in rows]
    print(f"routing by summaries alone chose an expected document for {sum(summary_right)} of {len(rows)} questions; "
          "best summary similarity p50 "
          f"{p50_p95([r['summary_best'] for r in rows])['p50']}")
    route_ms = p50_p95([r["route_ms"] for r in rows])
    print(f"\nrouting methods: {dict(methods)}; routing time p50 {route_ms['p50']:.1f} ms, p95 {route_ms['p95']:.1f} ms "
          f"(question embedding excluded: cached)")
    print(f"evaluation {eval_s} s")
    path = write_json("routing_quality", {
        "machine": machine_at_start, "source": str(args.source), "top_k": k,
        "router_settings": {f: getattr(s, f) for f in (
            "router_top_k_docs", "router_max_docs", "router_min_similarity", "router_similarity_margin",
            "router_weak_similarity")},
        "results": results, "sweep": sweep, "router": router, "fin_name_page_rank_moved": dict(moved), "methods": dict(methods), "route_ms": route_ms,
        "per_question": [
            {"kind": r["kind"], "question": r["question"], "method": r["method"], "reason": r["reason"],
             "chosen": r["chosen"], "best_summary": r["best_summary"], "router_right": r["router_right"],
             "summary_best": r["summary_best"], "summary_right": r["summary_right"]}
            for r in rows
        ],
        "evaluation_seconds": eval_s,
    })
    print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
