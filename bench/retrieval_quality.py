"""Retrieval quality of BM25, vector and hybrid search on two public financial QA sets, side by side.

    .venv/bin/python bench/retrieval_quality.py [--data-dir DIR] [--limit N] [--top-k-max 10]
        [--sets financebench,docugami] [--part dev|test|all] [--docs-file FILES.json] [--name NAME]

1. Ingests ../shared/corpus/financebench/*.pdf and ../shared/corpus/docugami-sec10q/*.pdf into
   --data-dir (default bench/results/kb-finance). The directory is reused: documents already
   indexed are skipped by content hash, so a second run goes straight to the evaluation.
2. For each mode (bm25, vector, hybrid) runs every question once against the WHOLE knowledge base
   (no document filter) with top_k = --top-k-max, and scores:
   - FinanceBench (financebench_subset.jsonl): evidence-page recall@5/@10 (a hit is in the evidence
     document and its page range covers an evidence page; evidence pages are 0-based in the data,
     page labels 1-based), page MRR@10, document recall@5/@10.
   - Docugami SEC 10-Q (qna_data.csv): document recall@5/@10 (a hit's file name matches one of the
     `Source Docs` globs), and for Multi-Doc questions the mean fraction of the expected documents
     present in the top 10.
   - latency p50/p95 per mode: wall time of HybridRetriever.search, and the sum of its timings_ms
     without embed_ms (i.e. excluding the query embedding).
   With --route, each question is first routed as the app routes it (core/agents/router.py: names,
   periods from the file name and the cover; a weak filtered search falls back to every document),
   and the figures are of the routed search; "routed right" is the share of questions whose routed
   set holds every expected document (searching everything counts as holding them).
3. With --fusion-sweep, re-fuses the stored BM25 and vector rankings offline over a small grid of
   RRF weights and k (same fusion function and candidate pools as the retriever, no extra searches),
   to show whether another weighting would lift hybrid above both single retrievers.
Figures are printed and written to bench/results/retrieval_quality.json.
"""
from __future__ import annotations

import argparse
import csv
import fnmatch
import itertools
import json
import logging
import os
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import splits  # noqa: E402
from bench._common import (  # noqa: E402
    ROOT, RESULTS, StepTimer, describe_code, fmt, ingest_table, machine, p50_p95, peak_rss_mb, summarize_ingest,
    table, write_json,
)

MODES = {"bm25": ("bm25",), "vector": ("vector",), "hybrid": ("bm25", "vector"), "rerank": ("bm25", "vector")}
RERANKED = {"rerank"}  # hybrid search, then passage-level re-ranking (core/retrieval/evidence.py)
SHARED = ROOT.parent / "shared"


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data-dir", type=Path, default=RESULTS / "kb-finance",
                   help="knowledge base directory, reused across runs (default: bench/results/kb-finance)")
    p.add_argument("--limit", type=int, default=None, help="first N questions of each set (quick run)")
    p.add_argument("--top-k-max", type=int, default=10, help="hits retrieved per query (default 10)")
    p.add_argument("--shared", type=Path, default=SHARED, help="folder holding corpus/ and eval-public/")
    p.add_argument("--skip-ingest", action="store_true", help="evaluate whatever is already indexed")
    p.add_argument("--quiet", action="store_true", help="no per-file ingest progress on stderr")
    p.add_argument("--sets", default="financebench,docugami",
                   help="question sets to run, comma-separated; only their corpora are ingested")
    p.add_argument("--docs-file", type=Path, default=None,
                   help="JSON list of file names: search only these documents and ask only the questions whose "
                        "evidence is among them (to compare two knowledge bases on the same documents)")
    splits.add_argument(p, default="all")
    p.add_argument("--name", default="retrieval_quality", help="results file bench/results/NAME.json")
    p.add_argument("--modes", default=",".join(MODES), help=f"comma-separated, from {', '.join(MODES)}")
    p.add_argument("--search-words", type=Path, default=None,
                   help="search the model's words beside each question (core/agents/search_words.py): the JSON "
                        "file of words per question, written by one model call per question when it is missing")
    p.add_argument("--search-words-weight", type=float, default=None, help="overrides the setting")
    p.add_argument("--search-words-joined", action="store_true",
                   help="the alternative measured against fusion: one search of the question and its words joined")
    p.add_argument("--route", action="store_true",
                   help="route each question to its documents first, as the app does (router.py)")
    p.add_argument("--rerank-sweep", action="store_true",
                   help="also re-rank the hybrid candidates offline over a grid of passage re-ranking settings "
                        "(window size, pool, lexical and prior weights; tune on --part dev)")
    p.add_argument("--rerank-terms-only", action="store_true",
                   help="the re-rank sweep without embedded windows (no embedder calls: fast on a loaded machine)")
    p.add_argument("--fusion-sweep", action="store_true",
                   help="also re-fuse the BM25 and vector rankings offline over a grid of RRF weights and k "
                        "(diagnostic; no extra searches)")
    return p.parse_args(argv)


# --- eval sets ------------------------------------------------------------------------------------

def load_financebench(shared: Path, limit: int | None, part: str | None = None) -> list[dict]:
    path = shared / "eval-public" / "financebench" / "financebench_subset.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = splits.keep(rows, lambda q: q["financebench_id"], part)
    return rows[:limit] if limit else rows


def load_docugami(shared: Path, limit: int | None, part: str | None = None) -> list[dict]:
    path = shared / "eval-public" / "docugami-sec10q" / "qna_data.csv"
    with path.open(encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    rows = splits.keep(rows, lambda q: q["Question"], part)
    return rows[:limit] if limit else rows


def page_numbers(label: str | None) -> set[int]:
    """'3' -> {3}; '3-4' -> {3, 4}; None -> set()."""
    if not label:
        return set()
    first, _, last = str(label).partition("-")
    try:
        lo = int(first)
        hi = int(last) if last else lo
    except ValueError:
        return set()
    return set(range(lo, hi + 1))


def first_rank(hits, predicate) -> int | None:
    for rank, hit in enumerate(hits, start=1):
        if predicate(hit):
            return rank
    return None


def globs_of(source_docs: str) -> list[str]:
    return [g.strip() for g in source_docs.split(",") if g.strip()]


# --- ingest ---------------------------------------------------------------------------------------

CORPORA = {"financebench": "financebench", "docugami": "docugami-sec10q"}


def corpus_paths(shared: Path, sets: tuple[str, ...] = tuple(CORPORA)) -> list[Path]:
    paths = []
    for name in (CORPORA[s] for s in sets):
        found = sorted((shared / "corpus" / name).glob("*.pdf"))
        if not found:
            raise SystemExit(f"No PDFs in {shared / 'corpus' / name}")
        paths += found
    return paths


def ingest(ws, paths: list[Path], echo: bool) -> dict:
    timer = StepTimer(echo=echo)
    started = time.perf_counter()
    results = ws.ingestor.ingest_paths(paths, progress=timer)
    wall = time.perf_counter() - started
    return summarize_ingest(results, wall, timer.finish())


# --- evaluation -----------------------------------------------------------------------------------

def search_words_of(ws, questions: list[str], path: Path) -> dict[str, str]:
    """The model's search words per question, read from `path`, the missing ones asked (the model is
    loaded once) and written back, so that weights and modes can be compared without the model."""
    from core.agents.search_words import suggest

    known = json.loads(path.read_text()) if path.exists() else {}
    missing = [q for q in questions if q not in known]
    seconds = []
    for n, question in enumerate(missing, start=1):
        found = suggest(question, ws.llm, ws.settings.search_words_max_tokens)
        known[question] = found.words
        seconds.append(found.completion.seconds if found.completion else 0.0)
        path.write_text(json.dumps(known, indent=1, ensure_ascii=False))
        if n % 10 == 0:
            print(f"  search words {n}/{len(missing)}", file=sys.stderr, flush=True)
    if seconds:
        print(f"search words: {len(seconds)} model calls, seconds p50/p95 {p50_p95(seconds)}")
    print(f"search words: {sum(1 for q in questions if known.get(q))} of {len(questions)} questions have some")
    return known


def run_query(ws, question: str, mode: str, top_k: int, doc_ids: list[str] | None = None, routing=None,
              also: str = ""):
    """One search; with `routing` (the router's answer for the question), filtered to its documents
    and searched again over `doc_ids` when that comes back weak, each routed document's best hit
    first when it routed to several by name, as core/agents/retriever.py does. `also`: the model's
    search words, searched beside the question (core/agents/search_words.py)."""
    from core.agents.router import is_weak

    started = time.perf_counter()
    search = lambda ids, spread=False: ws.retriever.search(  # noqa: E731
        question, top_k=top_k, expand=0, retrievers=MODES[mode], doc_ids=ids, rerank=mode in RERANKED, spread=spread,
        also=also)
    routed = routing.doc_ids if routing is not None and routing.doc_ids else None
    spread = routed is not None and routing.method == "name" and len(routed) > 1
    result = search(routed or doc_ids, spread)
    if routed and is_weak(result.hits, ws.settings):
        result = search(doc_ids)
    wall = (time.perf_counter() - started) * 1000
    return result, wall


def routed_files(ws, routing, kb_files: list[str]) -> list[str]:
    """The files a routing searches (every file of the knowledge base when it does not narrow)."""
    if routing is None or not routing.doc_ids:
        return list(kb_files)
    names = {d.doc_id: d.filename for d in ws.kb.documents()}
    return [names[d] for d in routing.doc_ids if d in names]


def evaluate(ws, fin: list[dict], dg: list[dict], top_k: int, kb_files: list[str],
             doc_ids: list[str] | None = None, modes: tuple[str, ...] = tuple(MODES), route: bool = False,
             search_words: dict[str, str] | None = None, joined: bool = False) -> dict:
    """search_words: per question, the model's search words (searched beside it, or with `joined` one
    search of the question and its words joined), or None for none."""
    per_mode = {m: {"wall_ms": [], "no_embed_ms": [], "parts": defaultdict(list), "fin": [], "dg": []} for m in modes}
    weights = Counter()
    rankings: list[dict[str, list[str]]] = []  # per question: each single retriever's candidate ids
    chunks: dict[str, object] = {}  # chunk id -> a RetrievedChunk (file name, page) for re-scoring
    fused: list[list] = []  # per question: hybrid search's first fused candidates, for --rerank-sweep
    queries = [("fin", q["question"], q) for q in fin] + [("dg", q["Question"], q) for q in dg]
    for n, (kind, question, q) in enumerate(queries, start=1):
        rankings.append({})
        routing = ws.pipeline.router.route(question) if route and ws.pipeline.router is not None else None
        searched = routed_files(ws, routing, kb_files) if route else None
        for mode in modes:  # interleaved, so background load hits every mode alike
            words = (search_words or {}).get(question, "")
            result, wall = run_query(ws, f"{question} {words}" if joined and words else question, mode, top_k,
                                     doc_ids, routing, "" if joined else words)
            hits, timings, alpha = result.hits, result.timings_ms, result.semantic_weight
            if mode in ("bm25", "vector"):
                rankings[-1][mode] = [c.chunk_id for c in result.candidates]
                chunks.update({c.chunk_id: c for c in result.candidates})
            bucket = per_mode[mode]
            bucket["wall_ms"].append(wall)
            bucket["no_embed_ms"].append(sum(v for k, v in timings.items() if k != "embed_ms"))
            for k, v in timings.items():
                bucket["parts"][k].append(v)
            if mode == "hybrid":
                weights[alpha] += 1
                fused.append(result.candidates[:RERANK_SWEEP_POOL])
            scored = score_financebench(q, hits) if kind == "fin" else score_docugami(q, hits, kb_files)
            if searched is not None:
                expected = ({f for f in kb_files if Path(f).stem in scored["expected_stems"]} if kind == "fin"
                            else {f for f in kb_files if any(fnmatch.fnmatchcase(f, g) for g in globs_of(q["Source Docs"]))})
                scored["routed_docs"] = len(searched)
                scored["routed_right"] = bool(expected) and expected <= set(searched)
            bucket[kind].append(scored)
        if n % 25 == 0:
            print(f"  {n}/{len(queries)} questions", file=sys.stderr, flush=True)
    return {"per_mode": per_mode, "semantic_weights": {str(k): v for k, v in sorted(weights.items())},
            "queries": queries, "rankings": rankings, "chunks": chunks, "fused": fused}


RERANK_SWEEP_POOL = 20
RERANK_GRID = {
    "window_units": (2, 4),
    "pool": (10, 20),
    "embed": (True, False),
    "lexical_weight": (0.0, 0.15, 0.3, 0.5, 1.0),
    "prior_weight": (0.0, 0.15, 0.3, 0.6, 1.0),
}


def rerank_sweep(ev: dict, embed, kb_files: list[str], embedded_windows: bool = True) -> list[dict]:
    """Re-rank the stored hybrid candidates of every question offline over a grid of window size,
    pool, embedder on/off, lexical and prior weights (core/retrieval/evidence.py, the retriever's own
    functions; one embedder call per question and window size), and re-score."""
    from core.retrieval import evidence

    rows = []
    for size in RERANK_GRID["window_units"]:
        embedded_scores = [evidence.score_windows(question, [c.text for c in cands], [c.context for c in cands],
                                                  embed if embedded_windows else None, size)
                           for cands, (_kind, question, _q) in zip(ev["fused"], ev["queries"])]
        lexical_scores = [[[(w, 0.0, lex) for w, _cos, lex in row] for row in scored] for scored in embedded_scores]
        for pool, embedded, lw, pw in itertools.product(RERANK_GRID["pool"], RERANK_GRID["embed"] if embedded_windows else (False,),
                                                        RERANK_GRID["lexical_weight"], RERANK_GRID["prior_weight"]):
            if not embedded and lw == 0.0:
                continue  # nothing left to rank by but the fused order
            fin, dg = [], []
            for cands, scored, (kind, _question, q) in zip(
                    ev["fused"], embedded_scores if embedded else lexical_scores, ev["queries"]):
                head = cands[:pool]
                ranked = evidence.combine(scored[:pool], [c.score for c in head], lw, pw)
                hits = [head[r.index] for r in ranked] + list(cands[pool:])
                (fin if kind == "fin" else dg).append(
                    score_financebench(q, hits) if kind == "fin" else score_docugami(q, hits, kb_files))
            rows.append({
                "window_units": size, "pool": pool, "embed": embedded, "lexical_weight": lw, "prior_weight": pw,
                "fin_page@1": rate(fin, "page_rank", 1), "fin_page@3": rate(fin, "page_rank", 3),
                "fin_page@5": rate(fin, "page_rank", 5), "fin_mrr": mrr(fin, "page_rank"),
                "dg_answer@3": rate(dg, "answer_rank", 3), "dg_answer@5": rate(dg, "answer_rank", 5),
            })
    return rows


def print_rerank_sweep(rows: list[dict], summary: dict, top: int = 15) -> None:
    keys = ["fin_page@1", "fin_page@3", "fin_page@5", "fin_mrr", "dg_answer@3", "dg_answer@5"]
    base = summary["hybrid"]
    base_row = ["hybrid, no re-ranking", pct(base["financebench"]["page_recall@1"]), pct(base["financebench"]["page_recall@3"]),
                pct(base["financebench"]["page_recall@5"]), fmt(base["financebench"]["page_mrr@10"], 3),
                pct(base["docugami"]["answer_recall@3"]), pct(base["docugami"]["answer_recall@5"])]

    def order(r):  # what the reader reads (the top 3) first, then the top 1, then the top 5
        return (-((r["fin_page@3"] or 0) + (r["dg_answer@3"] or 0)), -(r["fin_page@1"] or 0),
                -((r["fin_page@5"] or 0) + (r["dg_answer@5"] or 0)))

    best = sorted(rows, key=order)[:top]
    body = [base_row] + [[f"win={r['window_units']} pool={r['pool']} embed={int(r['embed'])} lex={r['lexical_weight']} "
                          f"prior={r['prior_weight']}"]
                         + [fmt(r[k], 3) if k == "fin_mrr" else pct(r[k]) for k in keys] for r in best]
    print(table(["re-rank sweep (offline; best by page@3 + evidence@3)"] + keys, body))


def fusion_sweep(ev: dict, settings, top_k: int, kb_files: list[str]) -> list[dict]:
    """Re-fuse the stored single-retriever rankings with other weights and RRF k, as the retriever
    would (same function, same candidate pools), and re-score. 'adaptive' is the app's rule."""
    from core.retrieval.fusion import reciprocal_rank_fusion, semantic_weight

    grid = [("adaptive", settings.rrf_k)] + [(a, k) for k in (60, 20) for a in (0.5, 0.6, 0.7, 0.8, 0.9)]
    rows = []
    for alpha, k in grid:
        fin, dg = [], []
        for (kind, question, q), ranking in zip(ev["queries"], ev["rankings"]):
            a = semantic_weight(question, settings.semantic_weight_enumeration, settings.semantic_weight_reasoning) \
                if alpha == "adaptive" else alpha
            fused = reciprocal_rank_fusion(ranking, {"bm25": 1.0 - a, "vector": a}, k=k)
            hits = [ev["chunks"][c] for c, _ in fused if c in ev["chunks"]][:top_k]
            (fin if kind == "fin" else dg).append(
                score_financebench(q, hits) if kind == "fin" else score_docugami(q, hits, kb_files)
            )
        rows.append({
            "alpha_vector": alpha, "rrf_k": k,
            "fin_page_recall@3": rate(fin, "page_rank", 3),
            "fin_page_recall@5": rate(fin, "page_rank", 5), "fin_page_recall@10": rate(fin, "page_rank", 10),
            "dg_answer@3": rate(dg, "answer_rank", 3), "dg_answer@5": rate(dg, "answer_rank", 5),
            "fin_doc_recall@5": rate(fin, "doc_rank", 5), "dg_doc_recall@5": rate(dg, "doc_rank", 5),
            "dg_multi_doc_coverage@10": mean(d["coverage10"] for d in dg if d["question_type"] == "Multi-Doc RAG"),
        })
    return rows


def print_sweep(rows: list[dict], summary: dict) -> None:
    keys = ["fin_page_recall@3", "fin_page_recall@5", "fin_page_recall@10", "fin_doc_recall@5", "dg_doc_recall@5",
            "dg_answer@3", "dg_answer@5", "dg_multi_doc_coverage@10"]
    single = {
        mode: [summary[mode]["financebench"]["page_recall@3"], summary[mode]["financebench"]["page_recall@5"],
               summary[mode]["financebench"]["page_recall@10"], summary[mode]["financebench"]["doc_recall@5"],
               summary[mode]["docugami"]["doc_recall@5"], summary[mode]["docugami"]["answer_recall@3"],
               summary[mode]["docugami"]["answer_recall@5"], summary[mode]["docugami"]["multi_doc_coverage@10"]]
        for mode in ("bm25", "vector")
    }
    table_rows = [[f"{name} only"] + [pct(v) for v in values] for name, values in single.items()]
    table_rows += [[f"alpha={r['alpha_vector']} k={r['rrf_k']}"] + [pct(r[k]) for k in keys] for r in rows]
    print(table(["fusion sweep (offline re-fusion)", "FB page@3", "FB page@5", "FB page@10", "FB doc@5", "DG doc@5",
                 "DG evidence@3", "DG evidence@5", "DG multi cov@10"],
                table_rows))


def score_financebench(q: dict, hits) -> dict:
    evidence = {(e.get("doc_name") or q["doc_name"], int(e["evidence_page_num"]) + 1) for e in q["evidence"]}
    docs = {d for d, _ in evidence} | {q["doc_name"]}

    def on_page(hit) -> bool:
        stem = Path(hit.filename).stem
        return any((stem, p) in evidence for p in page_numbers(hit.page))

    return {
        "id": q.get("financebench_id"),
        "doc_name": q["doc_name"],
        "question_type": q.get("question_type"),
        "evidence_pages_1based": sorted(p for _, p in evidence),
        "expected_stems": sorted(docs),
        "page_rank": first_rank(hits, on_page),
        "doc_rank": first_rank(hits, lambda h: Path(h.filename).stem in docs),
        "top5": [f"{h.filename} p.{h.page}" for h in hits[:5]],
    }


def score_docugami(q: dict, hits, kb_files: list[str]) -> dict:
    globs = globs_of(q["Source Docs"])

    def matches(name: str) -> bool:
        return any(fnmatch.fnmatchcase(name, g) for g in globs)

    expected = {f for f in kb_files if matches(f)}
    top10 = {h.filename for h in hits[:10]}
    evidence = reference_evidence(q)
    return {
        "answer_rank": first_rank(hits, lambda h: matches(h.filename) and holds_evidence(evidence, h.text, h.context)),
        "evidence_kind": evidence["kind"],
        "question": q["Question"][:120],
        "source_docs": q["Source Docs"],
        "question_type": q["Question Type"],
        "chunk_type": q["Source Chunk Type"],
        "doc_rank": first_rank(hits, lambda h: matches(h.filename)),
        "expected_docs": len(expected),
        "coverage10": (len(top10 & expected) / len(expected)) if expected else None,
        # Per expected filing: the rank of its first hit that states one of the reference's figures
        # (a multi-period answer takes each quarter's figure from that quarter's filing).
        "filing_evidence_ranks": ({f: first_rank(hits, lambda h, f=f: h.filename == f and states_a_figure(evidence, h.text, h.context))
                                   for f in sorted(expected)} if evidence["kind"] == "figures" else None),
        "top5": [f"{h.filename} p.{h.page}" for h in hits[:5]],
    }


def reference_evidence(q: dict) -> dict:
    """What a chunk must hold to be the evidence of a Docugami reference answer: its figures (not
    years, dates or list markers), else the content words it adds to the question."""
    from bench.modes_quality import BOILERPLATE, clean_reference
    from core.evaluate.scoring import content_words, numbers

    reference = clean_reference(q["Answer"])
    figures = [n for n in numbers(reference) if not n["year"]]
    if figures:
        return {"kind": "figures", "figures": figures}
    asked = set(content_words(q["Question"]))
    return {"kind": "words", "words": [w for w in content_words(reference) if w not in asked and w not in BOILERPLATE]}


def evidence_coverage(evidence: dict, text: str, headers: str = "") -> float:
    """Share of the reference's figures that `text` states (1 % or the reference's rounding,
    core.evaluate.scoring.figure_matches), or, for an answer without figures, of its added words.
    `headers` is what the reader sees above the text (the chunk's context line: heading, table headers):
    a table row's "7,730" under "(In Millions)" states "$7.7 billion"."""
    return _coverage(evidence, [(text, headers)])


def source_coverage(evidence: dict, prompt: str) -> float:
    """evidence_coverage of a prompt, each [Source N] block read with the headers it shows."""
    blocks = [b for b in re.split(r"(?=\[Source \d+\])", prompt) if b.strip()]
    return _coverage(evidence, [(b, b) for b in blocks])


def _coverage(evidence: dict, texts: list[tuple[str, str]]) -> float:
    from core.evaluate.scoring import content_words, figure_matches, numbers

    if evidence["kind"] == "figures":
        found = [n if n["scale"] != 1.0 or n["percent"] else {**n, "scale": headers_scale(headers)}
                 for text, headers in texts for n in numbers(text) if not n["year"]]
        hit = sum(1 for g in evidence["figures"] if any(figure_matches(g, r, 1.0) for r in found))
        return hit / len(evidence["figures"])
    words = evidence["words"]
    stated = {w for text, _ in texts for w in content_words(text)}
    return len(set(words) & stated) / len(words) if words else 0.0


def headers_scale(headers: str) -> float:
    """The factor a table's headers state for its bare figures ("(In Millions; Unaudited)": 1e6), else 1.
    An exception ("except per share amounts") is ignored: a per-share figure still matches unscaled."""
    from core.annotations.units import SCALES, stated_scale

    stated = stated_scale([headers], row="") if headers else None
    return SCALES.get(stated[1], 1.0) if stated else 1.0


def states_a_figure(evidence: dict, text: str, headers: str = "") -> bool:
    """`text` states at least one of the reference's figures."""
    return evidence_coverage(evidence, text, headers) * len(evidence["figures"]) >= 1


def filing_coverage(items: list[dict], k: int) -> float | None:
    """Mean share of a question's expected filings that have a passage stating one of the
    reference's figures in the top k (questions whose reference has figures)."""
    return mean(sum(1 for r in d["filing_evidence_ranks"].values() if r and r <= k) / len(d["filing_evidence_ranks"])
                for d in items if d.get("filing_evidence_ranks"))


def holds_evidence(evidence: dict, text: str, headers: str = "") -> bool:
    """A chunk holds the evidence when it states half of the reference's figures or added words."""
    return evidence_coverage(evidence, text, headers) >= 0.5


def rate(items: list[dict], key: str, k: int) -> float | None:
    if not items:
        return None
    return round(sum(1 for it in items if it[key] is not None and it[key] <= k) / len(items), 4)


def mrr(items: list[dict], key: str) -> float | None:
    if not items:
        return None
    return round(sum(1 / it[key] for it in items if it[key]) / len(items), 4)


def mean(values) -> float | None:
    values = [v for v in values if v is not None]
    return round(sum(values) / len(values), 4) if values else None


def summarize(evaluation: dict) -> dict:
    out = {}
    for mode, b in evaluation["per_mode"].items():
        fin, dg = b["fin"], b["dg"]
        multi = [d for d in dg if d["question_type"] == "Multi-Doc RAG"]
        out[mode] = {
            "financebench": {
                "n": len(fin),
                "page_recall@1": rate(fin, "page_rank", 1),
                "page_recall@3": rate(fin, "page_rank", 3),
                "page_recall@5": rate(fin, "page_rank", 5),
                "page_recall@10": rate(fin, "page_rank", 10),
                "page_mrr@10": mrr(fin, "page_rank"),
                "doc_recall@5": rate(fin, "doc_rank", 5),
                "doc_recall@10": rate(fin, "doc_rank", 10),
                **routed_summary(fin),
                "by_question_type": {
                    t: {"n": len(items), "page_recall@5": rate(items, "page_rank", 5),
                        "page_recall@10": rate(items, "page_rank", 10), "doc_recall@5": rate(items, "doc_rank", 5)}
                    for t, items in _group(fin, "question_type").items()
                },
            },
            "docugami": {
                "n": len(dg),
                "doc_recall@5": rate(dg, "doc_rank", 5),
                "doc_recall@10": rate(dg, "doc_rank", 10),
                "answer_recall@1": rate(dg, "answer_rank", 1),
                "answer_recall@3": rate(dg, "answer_rank", 3),
                "answer_recall@5": rate(dg, "answer_rank", 5),
                "multi_doc_n": len(multi),
                "multi_doc_coverage@10": mean(d["coverage10"] for d in multi),
                **{f"multi_doc_filing_evidence@{k}": filing_coverage(multi, k) for k in (3, 4, 5, 10)},
                **routed_summary(dg),
                "by_question_type": {
                    t: {"n": len(items), "doc_recall@5": rate(items, "doc_rank", 5),
                        "doc_recall@10": rate(items, "doc_rank", 10), "answer_recall@1": rate(items, "answer_rank", 1),
                        "answer_recall@3": rate(items, "answer_rank", 3), "answer_recall@5": rate(items, "answer_rank", 5),
                        **routed_summary(items)}
                    for t, items in _group(dg, "question_type").items()
                },
                "by_chunk_type": {
                    t: {"n": len(items), "doc_recall@5": rate(items, "doc_rank", 5)}
                    for t, items in _group(dg, "chunk_type").items()
                },
            },
            "latency_ms": {
                "total_wall": p50_p95(b["wall_ms"]),
                "excluding_embed": p50_p95(b["no_embed_ms"]),
                "parts": {k: p50_p95(v) for k, v in b["parts"].items()},
            },
        }
    return out


def routed_summary(items: list[dict]) -> dict:
    """With --route: the share routed to a set holding every expected document, and the set's mean size."""
    routed = [it for it in items if "routed_right" in it]
    if not routed:
        return {}
    return {"routed_right": mean(it["routed_right"] for it in routed), "routed_docs_mean": mean(it["routed_docs"] for it in routed)}


def _group(items: list[dict], key: str) -> dict[str, list[dict]]:
    groups: dict[str, list[dict]] = defaultdict(list)
    for it in items:
        groups[str(it[key])].append(it)
    return dict(sorted(groups.items()))


def pct(value) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def print_report(summary: dict, ev: dict) -> None:
    modes = list(summary)
    first = modes[0]
    fin_n = summary[first]["financebench"]["n"]
    dg_n = summary[first]["docugami"]["n"]
    rows = [
        [f"FinanceBench evidence-page recall@1 (n={fin_n})"] + [pct(summary[m]["financebench"]["page_recall@1"]) for m in modes],
        ["FinanceBench evidence-page recall@3"] + [pct(summary[m]["financebench"]["page_recall@3"]) for m in modes],
        ["FinanceBench evidence-page recall@5"] + [pct(summary[m]["financebench"]["page_recall@5"]) for m in modes],
        ["FinanceBench evidence-page recall@10"] + [pct(summary[m]["financebench"]["page_recall@10"]) for m in modes],
        ["FinanceBench evidence-page MRR@10"] + [fmt(summary[m]["financebench"]["page_mrr@10"], 3) for m in modes],
        ["FinanceBench document recall@5"] + [pct(summary[m]["financebench"]["doc_recall@5"]) for m in modes],
        ["FinanceBench document recall@10"] + [pct(summary[m]["financebench"]["doc_recall@10"]) for m in modes],
        [f"Docugami document recall@5 (n={dg_n})"] + [pct(summary[m]["docugami"]["doc_recall@5"]) for m in modes],
        ["Docugami document recall@10"] + [pct(summary[m]["docugami"]["doc_recall@10"]) for m in modes],
        ["Docugami evidence chunk recall@1"] + [pct(summary[m]["docugami"]["answer_recall@1"]) for m in modes],
        ["Docugami evidence chunk recall@3"] + [pct(summary[m]["docugami"]["answer_recall@3"]) for m in modes],
        ["Docugami evidence chunk recall@5"] + [pct(summary[m]["docugami"]["answer_recall@5"]) for m in modes],
        [f"Docugami Multi-Doc coverage@10 (n={summary[first]['docugami']['multi_doc_n']})"]
        + [pct(summary[m]["docugami"]["multi_doc_coverage@10"]) for m in modes],
        ["Docugami Multi-Doc filings with a passage stating a reference figure @3/@4/@5/@10"]
        + ["/".join(pct(summary[m]["docugami"][f"multi_doc_filing_evidence@{k}"]) for k in (3, 4, 5, 10)) for m in modes],
    ]
    routed = "routed_right" in summary[first]["docugami"] or "routed_right" in summary[first]["financebench"]
    if routed:
        rows += [[f"{label} routed set holds the expected documents"] + [pct(summary[m][key].get("routed_right"))
                                                                       for m in modes]
                 for label, key in (("FinanceBench", "financebench"), ("Docugami", "docugami"))]
    for t, by_type in summary[first]["docugami"]["by_question_type"].items():
        rows.append([f"Docugami {t} (n={by_type['n']}) evidence@1/@3/@5" + (", routed right" if routed else "")]
                    + ["/".join(pct(summary[m]["docugami"]["by_question_type"][t].get(k)) for k in
                                ("answer_recall@1", "answer_recall@3", "answer_recall@5") + (("routed_right",) if routed else ()))
                       for m in modes])
    scope = "each question routed to its documents first" if routed else "whole knowledge base, no doc filter"
    print(table([f"quality ({scope})"] + modes, rows))
    print()

    lat = []
    for label, key in (("total wall (search call)", "total_wall"), ("excluding query embedding", "excluding_embed")):
        for q in ("p50", "p95"):
            lat.append([f"{label} {q} ms"] + [fmt(summary[m]["latency_ms"][key][q], 2) for m in modes])
    for part in ("bm25_ms", "embed_ms", "vector_ms", "fuse_ms", "rerank_ms"):
        lat.append([f"  {part} p50"] + [fmt(summary[m]["latency_ms"]["parts"].get(part, {}).get("p50"), 2) for m in modes])
    n_q = summary[first]["latency_ms"]["total_wall"]["n"]
    print(table([f"latency per query (n={n_q} per mode)"] + modes, lat))
    print()

    rows = []
    for t in summary[first]["financebench"]["by_question_type"]:
        d = {m: summary[m]["financebench"]["by_question_type"][t] for m in modes}
        rows.append([f"FinanceBench {t} (n={d[first]['n']}) page@5"] + [pct(d[m]["page_recall@5"]) for m in modes])
    for t in summary[first]["docugami"]["by_question_type"]:
        d = {m: summary[m]["docugami"]["by_question_type"][t] for m in modes}
        rows.append([f"Docugami {t} (n={d[first]['n']}) doc@5"] + [pct(d[m]["doc_recall@5"]) for m in modes])
        rows.append([f"Docugami {t} evidence chunk@3"] + [pct(d[m]["answer_recall@3"]) for m in modes])
        rows.append([f"Docugami {t} evidence chunk@5"] + [pct(d[m]["answer_recall@5"]) for m in modes])
    for t in summary[first]["docugami"]["by_chunk_type"]:
        d = {m: summary[m]["docugami"]["by_chunk_type"][t] for m in modes}
        rows.append([f"Docugami chunk type {t} (n={d[first]['n']}) doc@5"] + [pct(d[m]["doc_recall@5"]) for m in modes])
    print(table(["breakdown"] + modes, rows))
    print()
    print(f"hybrid semantic weight (alpha) per question: {ev['semantic_weights']}  "
          "(RRF weights: vector=alpha, bm25=1-alpha)")


def main(argv=None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    from core.config import load_settings
    from core.workspace import IndexSettingsChanged, Workspace

    run_started = time.perf_counter()
    machine_at_start = machine()  # the code version as the run starts (others commit meanwhile)
    settings = load_settings(data_dir=args.data_dir)
    if args.search_words_weight is not None:
        settings = settings.replace(search_words_weight=args.search_words_weight)
    print(describe_code())
    print(f"data dir: {settings.data_dir}")
    print("index parameters: " + json.dumps(settings.index_parameters()))
    retrieval_params = {k: getattr(settings, k) for k in (
        "candidate_pool", "rrf_k", "semantic_weight_enumeration", "semantic_weight_reasoning",
        "bm25_k1", "bm25_b", "hnsw_ef_search", "hnsw_ef_construction", "hnsw_max_neighbors", "expand_window",
        "passage_rerank", "rerank_pool", "rerank_window_units", "rerank_lexical_weight", "rerank_prior_weight",
    )}
    print("retrieval parameters: " + json.dumps(retrieval_params))
    try:
        ws = Workspace(settings)
    except IndexSettingsChanged as exc:
        print(f"error: {exc}\nUse another --data-dir or delete {settings.data_dir}.", file=sys.stderr)
        return 2

    started = time.perf_counter()
    ws.embedder.embed(["warm up"])  # load torch + the model once, outside every timing
    model_load_s = round(time.perf_counter() - started, 2)
    print(f"embedding model load: {model_load_s} s")

    ingest_summary = None
    sets = tuple(x.strip() for x in args.sets.split(",") if x.strip())
    paths = corpus_paths(args.shared, sets)
    if not args.skip_ingest:
        print(f"\ningesting {len(paths)} PDFs ...", flush=True)
        ingest_summary = ingest(ws, paths, echo=not args.quiet)
        if ingest_summary["indexed"]:
            print(ingest_table(ingest_summary))
        else:
            print(f"ingest: nothing new ({ingest_summary['duplicates']} already indexed, "
                  f"{len(ingest_summary['failed'])} failed; {ingest_summary['seconds']} s)")
        for f in ingest_summary["failed"]:
            print(f"  FAILED {f['filename']}: {f['message']}")

    docs = [d for d in ws.kb.documents() if d.status == "indexed"]
    counts = ws.kb.counts()
    kb_pages = sum(d.pages or 0 for d in docs)
    print(f"knowledge base: {counts['documents']} documents, {kb_pages} pages, {counts['chunks']} chunks")
    kb_files = [d.filename for d in docs]
    missing = sorted({p.name for p in paths} - set(kb_files))
    if missing:
        print(f"WARNING: {len(missing)} corpus files are not indexed: {missing}")

    fin = load_financebench(args.shared, args.limit, args.part) if "financebench" in sets else []
    dg = load_docugami(args.shared, args.limit, args.part) if "docugami" in sets else []
    doc_ids = None
    if args.docs_file:
        wanted = set(json.loads(args.docs_file.read_text()))
        missing_here = sorted(wanted - set(kb_files))
        if missing_here:
            print(f"WARNING: {len(missing_here)} documents of --docs-file are not indexed here: {missing_here}")
        kb_files = [f for f in kb_files if f in wanted]
        doc_ids = [d.doc_id for d in docs if d.filename in wanted]
        stems = {Path(f).stem for f in kb_files}
        fin = [q for q in fin if q["doc_name"] in stems
               and all((e.get("doc_name") or q["doc_name"]) in stems for e in q["evidence"])]
        dg = [q for q in dg if all(any(fnmatch.fnmatchcase(f, g) for f in kb_files) for g in globs_of(q["Source Docs"]))]
        print(f"restricted to {len(kb_files)} documents of {args.docs_file}")
    print(f"part of the dev/test split: {args.part}")
    print(f"\nevaluating {len(fin)} FinanceBench + {len(dg)} Docugami questions x {args.modes} modes, "
          f"top_k={args.top_k_max} ...", flush=True)
    load_before = [round(x, 2) for x in os.getloadavg()]
    eval_started = time.perf_counter()
    modes = tuple(m.strip() for m in args.modes.split(",") if m.strip())
    if args.rerank_sweep and "hybrid" not in modes or args.fusion_sweep and not {"bm25", "vector"} <= set(modes):
        print("error: --rerank-sweep needs the hybrid mode, --fusion-sweep bm25 and vector", file=sys.stderr)
        return 2
    words = None
    if args.search_words:
        words = search_words_of(ws, [q["question"] for q in fin] + [q["Question"] for q in dg], args.search_words)
    ev = evaluate(ws, fin, dg, args.top_k_max, kb_files, doc_ids, modes, args.route, words, args.search_words_joined)
    eval_s = round(time.perf_counter() - eval_started, 1)
    load_after = [round(x, 2) for x in os.getloadavg()]
    summary = summarize(ev)
    print()
    print_report(summary, ev)
    print(f"load average (1, 5, 15 min) before evaluation {load_before}, after {load_after} on "
          f"{os.cpu_count()} CPUs: latency figures include contention from other processes")
    sweep = None
    if args.fusion_sweep:
        sweep = fusion_sweep(ev, settings, args.top_k_max, kb_files)
        print()
        print_sweep(sweep, summary)

    rerank_rows = None
    if args.rerank_sweep:
        rerank_rows = rerank_sweep(ev, ws.embedder.embed, kb_files, not args.rerank_terms_only)
        print()
        print_rerank_sweep(rerank_rows, summary)

    total_s = round(time.perf_counter() - run_started, 1)
    print(f"\nevaluation {eval_s} s; whole run {total_s} s; peak RSS {peak_rss_mb()} MB")
    path = write_json(args.name, {
        "machine": machine_at_start,
        "data_dir": str(settings.data_dir),
        "index_parameters": settings.index_parameters(),
        "retrieval_parameters": retrieval_params,
        "embedding_model_load_s": model_load_s,
        "ingest": ingest_summary,
        "knowledge_base": {"documents": counts["documents"], "pages": kb_pages, "chunks": counts["chunks"]},
        "questions": {"financebench": len(fin), "docugami": len(dg)},
        "part": args.part,
        "docs_file": str(args.docs_file) if args.docs_file else None,
        "top_k_max": args.top_k_max,
        "routed": args.route,
        "semantic_weights": ev["semantic_weights"],
        "loadavg_eval": {"before": load_before, "after": load_after},
        "summary": summary,
        "fusion_sweep": sweep,
        "rerank_sweep": rerank_rows,
        "per_question": {m: {"financebench": b["fin"], "docugami": b["dg"]} for m, b in ev["per_mode"].items()},
        "evaluation_seconds": eval_s,
        "total_seconds": total_s,
        "peak_rss_mb": peak_rss_mb(),
    })
    print(f"wrote {path.relative_to(ROOT)}")
    ws.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
