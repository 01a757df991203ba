"""Query latency of keyword, vector and hybrid search at 10k / 100k synthetic chunks, and ingest throughput;
keyword search alone up to 1M chunks and vector search alone at the largest size that builds in time.

    .venv/bin/python bench/scale.py [--sizes 10000,100000] [--queries 200] [--skip-ingest]
                                    [--keyword-sizes 1000000] [--vector-sizes 1000000 [--vector-dir DIR]]

Section 1, per size (each size runs in its own subprocess, so peak RSS is per size):
  - synthetic chunks: ~120-word texts drawn from a vocabulary of --vocab pseudo-words with a
    Zipf-like distribution (numpy, fixed seed), 100 chunks per synthetic document; vectors are
    random unit vectors (float32, dim 384). The embedding model is never run.
  - they are written through a Workspace's KnowledgeBase.add_document (catalog + embedded
    Chroma in a temp data dir), then the BM25 index is built from the catalog and saved, as after
    an ingest batch. Reported: time of each part, on-disk size, peak RSS.
  - queries: keyword queries of 3-6 words drawn from the same Zipf distribution; vector queries are
    random unit vectors; k = 50 (the retriever's candidate pool). p50/p95 over --queries queries of
    KeywordIndex.search (in memory, as after a build; and memory-mapped, as after a restart),
    VectorStore.query, reciprocal_rank_fusion, their per-query sum (the hybrid figure), and the full
    HybridRetriever.search with a stub embedder (embed_ms ~ 0; includes the catalog fetch), also with
    a one-document filter.
Section 1b, --keyword-sizes and --vector-sizes (each size in its own subprocess): one store alone,
  without the catalog, for sizes where writing every chunk through the application would take
  hours. Keyword: the same synthetic texts, KeywordIndex.build + save, then KeywordIndex.search
  (in memory and memory-mapped after a reload), build time, disk size, peak RSS. Vector: the same
  random unit vectors upserted into an embedded Chroma collection with the application's HNSW
  settings (VectorStore.add), then VectorStore.query k=50, build time, disk size, peak RSS; query
  latency also every --checkpoint vectors on the way. With --vector-dir DIR the store is kept and a
  later run continues it (build time adds up across runs, from DIR/progress.json).
Section 2 (unless --skip-ingest): real PDFs ingested through Workspace into a fresh temp data dir:
  pages/s, chunks/s, and seconds per ingest step from the progress callbacks.
Figures are printed and written to bench/results/scale.json.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from bench._common import (  # noqa: E402
    ROOT, RESULTS, StepTimer, describe_code, dir_size_mb, fmt, ingest_table, machine, p50_p95, peak_rss_mb,
    summarize_ingest, table, write_json,
)

DIM = 384
CHUNKS_PER_DOC = 100
K = 50


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="10000,100000", help="comma-separated chunk counts (default 10000,100000)")
    p.add_argument("--queries", type=int, default=200, help="timed queries per size (default 200)")
    p.add_argument("--vocab", type=int, default=5000, help="vocabulary size (default 5000)")
    p.add_argument("--words", type=int, default=120, help="mean words per chunk (default 120)")
    p.add_argument("--zipf", type=float, default=1.05, help="Zipf exponent (default 1.05)")
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--tmp-root", type=Path, default=RESULTS / "tmp",
                   help="where temp data dirs go (default bench/results/tmp; removed afterwards)")
    p.add_argument("--keep", action="store_true", help="keep the temp data dirs")
    p.add_argument("--skip-ingest", action="store_true", help="skip the real-PDF ingest section")
    p.add_argument("--ingest-dir", type=Path, default=ROOT.parent / "shared" / "corpus" / "docugami-sec10q")
    p.add_argument("--ingest-files", type=int, default=5, help="first N PDFs of --ingest-dir (default 5)")
    p.add_argument("--keyword-sizes", default="", help="chunk counts for keyword search alone (e.g. 1000000)")
    p.add_argument("--vector-sizes", default="", help="chunk counts for vector search alone (e.g. 200000)")
    p.add_argument("--vector-dir", type=Path, help="vector-only runs: keep the store here; an existing one is "
                   "continued from its count")
    p.add_argument("--checkpoint", type=int, default=100_000, help="vector-only runs: time queries every N vectors")
    p.add_argument("--checkpoint-queries", type=int, default=50, help="timed queries at each checkpoint (default 50)")
    p.add_argument("--worker", type=int, help=argparse.SUPPRESS)  # internal: one size, in a subprocess
    p.add_argument("--worker-mode", default="full", choices=["full", "keyword", "vector"], help=argparse.SUPPRESS)
    p.add_argument("--worker-out", type=Path, help=argparse.SUPPRESS)
    return p.parse_args(argv)


# --- synthetic data -------------------------------------------------------------------------------

def make_vocab(rng: np.random.Generator, size: int) -> list[str]:
    """Pseudo-words the tokenizer keeps as they are: lowercase letters, not stopwords, no plural 's'."""
    from core.indexes import tokenize

    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    words: list[str] = []
    seen: set[str] = set()
    while len(words) < size:
        n = int(rng.integers(3, 10))
        word = "".join(rng.choice(letters, n))
        if word in seen or word.endswith("s") or tokenize(word) != [word]:
            continue
        seen.add(word)
        words.append(word)
    return words


def zipf_probabilities(size: int, exponent: float) -> np.ndarray:
    ranks = np.arange(1, size + 1, dtype=np.float64)
    weights = 1.0 / ranks ** exponent
    return weights / weights.sum()


def make_texts(rng, vocab: list[str], probs: np.ndarray, n: int, mean_words: int) -> list[str]:
    lengths = np.clip(rng.normal(mean_words, mean_words / 6, n).round(), mean_words // 2, mean_words * 2).astype(int)
    draws = rng.choice(len(vocab), size=int(lengths.sum()), p=probs)
    words = np.array(vocab, dtype=object)[draws]
    texts, start = [], 0
    for length in lengths:
        texts.append(" ".join(words[start:start + length]))
        start += length
    return texts


def unit_vectors(rng, n: int) -> np.ndarray:
    vectors = rng.standard_normal((n, DIM), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors


class StubEmbedder:
    """Stands in for the model: returns the vector set for the next query; counts words as tokens."""

    model_name = "stub-random-unit"
    dim = DIM

    def __init__(self) -> None:
        self.next_vector = np.zeros(DIM, dtype=np.float32)

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.tile(self.next_vector, (len(texts), 1))

    def count_tokens(self, texts: list[str]) -> list[int]:
        return [len(t.split()) for t in texts]


class Stopwatch:
    """Wraps a bound method on one instance to add up the time spent in it."""

    def __init__(self, owner, name: str) -> None:
        self.seconds = 0.0
        self.calls = 0
        inner = getattr(owner, name)

        def timed(*args, **kwargs):
            started = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - started
                self.calls += 1

        setattr(owner, name, timed)


def timed_ms(fn, *args, **kwargs):
    started = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, (time.perf_counter() - started) * 1000


# --- one size (runs in a subprocess) --------------------------------------------------------------

def run_size(n: int, args: argparse.Namespace) -> dict:
    from core.config import load_settings
    from core.indexes import KeywordIndex, embedded_document, tokenize
    from core.ingest.chunking import Chunk
    from core.retrieval.fusion import reciprocal_rank_fusion, semantic_weight
    from core.retrieval.candidates import BM25, VECTOR
    from core.workspace import Workspace

    out: dict = {"chunks": n}
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    vocab = make_vocab(rng, args.vocab)
    probs = zipf_probabilities(len(vocab), args.zipf)
    texts = make_texts(rng, vocab, probs, n, args.words)
    vectors = unit_vectors(rng, n)
    out["generate_s"] = round(time.perf_counter() - started, 2)
    word_counts = [len(t.split()) for t in texts]
    out["mean_words_per_chunk"] = round(float(np.mean(word_counts)), 1)
    out["distinct_words_used"] = int(len({w for t in texts[:20000] for w in t.split()}))

    tmp = Path(tempfile.mkdtemp(prefix=f"scale-{n}-", dir=args.tmp_root))
    settings = load_settings(data_dir=tmp).replace(chroma_host="")  # embedded Chroma, always
    out["hnsw"] = {"ef_search": settings.hnsw_ef_search, "ef_construction": settings.hnsw_ef_construction,
                   "max_neighbors": settings.hnsw_max_neighbors, "space": "cosine"}
    embedder = StubEmbedder()
    ws = Workspace(settings, embedder)  # the language model is loaded on first use: never, here
    kb = ws.kb
    catalog_clock = Stopwatch(kb.catalog, "begin_document")
    chroma_clock = Stopwatch(kb.vectors, "add")
    n_docs = (n + CHUNKS_PER_DOC - 1) // CHUNKS_PER_DOC
    doc_ids = [f"d{i:07d}" for i in range(n_docs)]

    print(f"[{n}] writing {n} chunks in {n_docs} documents ...", file=sys.stderr, flush=True)
    started = time.perf_counter()
    with kb.writing():
        for d, doc_id in enumerate(doc_ids):
            lo, hi = d * CHUNKS_PER_DOC, min(n, (d + 1) * CHUNKS_PER_DOC)
            chunks = [
                Chunk(doc_id, i - lo, texts[i], word_counts[i], page_start=(i - lo) // 4 + 1, page_end=(i - lo) // 4 + 1)
                for i in range(lo, hi)
            ]
            record = embedded_document(doc_id, f"synthetic-{d:07d}.pdf", pages=(hi - lo + 3) // 4, n_chunks=hi - lo)
            kb.add_document(record, chunks, texts[lo:hi], vectors[lo:hi])
            if (d + 1) % max(1, n_docs // 10) == 0:
                print(f"[{n}]   {hi} chunks, {time.perf_counter() - started:.0f}s", file=sys.stderr, flush=True)
        write_s = time.perf_counter() - started
        # The keyword rebuild that KnowledgeBase.writing() runs on exit, step by step:
        t0 = time.perf_counter()
        ids, index_texts = kb.catalog.indexed_chunk_texts()
        t1 = time.perf_counter()
        keyword = KeywordIndex(settings.bm25_k1, settings.bm25_b)
        keyword.build(ids, index_texts, stamp=kb.catalog.get_meta("generation") or "0")
        t2 = time.perf_counter()
        keyword.save(settings.keyword_index_path)
        t3 = time.perf_counter()
        kb.keyword = keyword  # so the exit of writing() finds the index current and does nothing
    del index_texts
    out["build"] = {
        "catalog_write_s": round(catalog_clock.seconds, 2),
        "chroma_add_s": round(chroma_clock.seconds, 2),
        "chroma_add_calls": chroma_clock.calls,
        "add_document_total_s": round(write_s, 2),
        "keyword_read_catalog_s": round(t1 - t0, 2),
        "keyword_build_s": round(t2 - t1, 2),
        "keyword_save_s": round(t3 - t2, 2),
    }
    t0 = time.perf_counter()
    loaded = KeywordIndex.load(settings.keyword_index_path, settings.bm25_k1, settings.bm25_b)
    out["build"]["keyword_load_mmap_s"] = round(time.perf_counter() - t0, 3)
    out["disk_mb"] = {
        "keyword_index": dir_size_mb(settings.keyword_index_path),
        "chroma": dir_size_mb(settings.chroma_path),
        "catalog_sqlite": dir_size_mb(tmp) - dir_size_mb(settings.keyword_index_path) - dir_size_mb(settings.chroma_path),
    }
    out["vector_count"] = kb.vectors.count()
    out["rss_after_build_mb"] = peak_rss_mb()

    # --- queries
    qrng = np.random.default_rng(args.seed + 1)
    n_q = args.queries
    warm = 10
    lengths = qrng.integers(3, 7, size=n_q + warm)
    queries = [" ".join(vocab[i] for i in qrng.choice(len(vocab), size=int(m), p=probs)) for m in lengths]
    qvectors = unit_vectors(qrng, n_q + warm)
    filter_docs = qrng.integers(0, n_docs, size=n_q + warm)
    retriever = ws.retriever

    samples: dict[str, list[float]] = {k: [] for k in (
        "keyword_mem_ms", "keyword_mmap_ms", "vector_ms", "vector_count_call_ms", "rrf_ms", "hybrid_sum_ms",
        "retriever_no_embed_ms", "retriever_bm25_ms", "retriever_vector_ms", "retriever_fuse_ms",
        "filtered_no_embed_ms", "filtered_bm25_ms", "filtered_vector_ms", "filtered_fuse_ms",
    )}
    keyword_hits_n, overlap = [], []
    print(f"[{n}] {n_q} queries (+{warm} warm-up) ...", file=sys.stderr, flush=True)
    for i, (query, vector) in enumerate(zip(queries, qvectors)):
        kw, kw_ms = timed_ms(kb.keyword.search, query, K)
        kw2, kw2_ms = timed_ms(loaded.search, query, K)
        vec, vec_ms = timed_ms(kb.vectors.query, vector, K)
        _, count_ms = timed_ms(kb.vectors.count)
        alpha = semantic_weight(query, settings.semantic_weight_enumeration, settings.semantic_weight_reasoning)
        fused, rrf_ms = timed_ms(
            reciprocal_rank_fusion,
            {BM25: [h.chunk_id for h in kw], VECTOR: [h.chunk_id for h in vec]},
            {BM25: 1.0 - alpha, VECTOR: alpha}, k=settings.rrf_k,
        )
        embedder.next_vector = vector
        full = retriever.search(query, top_k=5, expand=0)
        one_doc = [doc_ids[int(filter_docs[i])]]
        filtered = retriever.search(query, top_k=5, expand=0, doc_ids=one_doc)
        if i < warm:
            continue
        keyword_hits_n.append(len(kw))
        overlap.append(len({h.chunk_id for h in kw} & {h.chunk_id for h in kw2}) / max(1, len(kw)))
        samples["keyword_mem_ms"].append(kw_ms)
        samples["keyword_mmap_ms"].append(kw2_ms)
        samples["vector_ms"].append(vec_ms)
        samples["vector_count_call_ms"].append(count_ms)
        samples["rrf_ms"].append(rrf_ms)
        samples["hybrid_sum_ms"].append(kw_ms + vec_ms + rrf_ms)
        for prefix, result in (("retriever", full), ("filtered", filtered)):
            t = result.timings_ms
            samples[f"{prefix}_no_embed_ms"].append(sum(v for k, v in t.items() if k != "embed_ms"))
            samples[f"{prefix}_bm25_ms"].append(t.get("bm25_ms", 0.0))
            samples[f"{prefix}_vector_ms"].append(t.get("vector_ms", 0.0))
            samples[f"{prefix}_fuse_ms"].append(t.get("fuse_ms", 0.0))
    out["latency_ms"] = {k: p50_p95(v) for k, v in samples.items()}
    out["query_stats"] = {
        "mean_query_terms_after_tokenize": round(float(np.mean([len(tokenize(q)) for q in queries[warm:]])), 2),
        "mean_keyword_hits": round(float(np.mean(keyword_hits_n)), 1),
        "mem_vs_mmap_keyword_overlap": round(float(np.mean(overlap)), 4),
    }
    out["peak_rss_mb"] = peak_rss_mb()
    ws.close()
    del ws, kb, retriever
    if not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        out["data_dir"] = str(tmp)
    return out


def synthetic_texts(rng, args: argparse.Namespace, n: int) -> tuple[list[str], list[str], np.ndarray]:
    """Vocabulary, texts and Zipf probabilities, generated in blocks so 1M texts fit in memory."""
    vocab = make_vocab(rng, args.vocab)
    probs = zipf_probabilities(len(vocab), args.zipf)
    texts: list[str] = []
    for start in range(0, n, 100_000):
        texts.extend(make_texts(rng, vocab, probs, min(100_000, n - start), args.words))
    return vocab, texts, probs


def run_keyword_only(n: int, args: argparse.Namespace) -> dict:
    from core.indexes import KeywordIndex

    out: dict = {"chunks": n, "mode": "keyword"}
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    vocab, texts, probs = synthetic_texts(rng, args, n)
    out["generate_s"] = round(time.perf_counter() - started, 1)
    out["rss_after_generate_mb"] = peak_rss_mb()
    tmp = Path(tempfile.mkdtemp(prefix=f"scale-kw-{n}-", dir=args.tmp_root))
    print(f"[{n}] keyword index: build ...", file=sys.stderr, flush=True)
    index = KeywordIndex()
    started = time.perf_counter()
    index.build([f"c{i}" for i in range(n)], texts, stamp="1")
    out["build_s"] = round(time.perf_counter() - started, 1)
    del texts
    started = time.perf_counter()
    index.save(tmp / "keyword_index")
    out["save_s"] = round(time.perf_counter() - started, 1)
    out["disk_mb"] = dir_size_mb(tmp / "keyword_index")
    out["peak_rss_build_mb"] = peak_rss_mb()
    started = time.perf_counter()
    loaded = KeywordIndex.load(tmp / "keyword_index")
    out["load_mmap_s"] = round(time.perf_counter() - started, 2)
    qrng = np.random.default_rng(args.seed + 1)
    queries = [" ".join(vocab[i] for i in qrng.choice(len(vocab), size=int(m), p=probs))
               for m in qrng.integers(3, 7, size=args.queries + 10)]
    mem, mmap = [], []
    for i, query in enumerate(queries):
        _, a = timed_ms(index.search, query, K)
        _, b = timed_ms(loaded.search, query, K)
        if i >= 10:
            mem.append(a)
            mmap.append(b)
    out["latency_ms"] = {"keyword_mem_ms": p50_p95(mem), "keyword_mmap_ms": p50_p95(mmap)}
    out["peak_rss_mb"] = peak_rss_mb()
    shutil.rmtree(tmp, ignore_errors=True)
    return out


def run_vector_only(n: int, args: argparse.Namespace) -> dict:
    """Random unit vectors into the app's VectorStore up to n, timing queries at every --checkpoint.
    With --vector-dir the store is kept and a later run continues it from its count: at a million
    vectors the build outlasts a working session here."""
    from core.config import load_settings
    from core.indexes import VectorStore

    out: dict = {"chunks": n, "mode": "vector"}
    kept = args.vector_dir is not None
    tmp = args.vector_dir or Path(tempfile.mkdtemp(prefix=f"scale-vec-{n}-", dir=args.tmp_root))
    tmp.mkdir(parents=True, exist_ok=True)
    progress_path = tmp / "progress.json"
    progress = json.loads(progress_path.read_text()) if progress_path.exists() else {"checkpoints": [], "build_s": 0.0}
    settings = load_settings(data_dir=tmp).replace(chroma_host="")
    store = VectorStore(settings)
    out["hnsw"] = store.hnsw
    have = store.count()
    print(f"[{n}] vector store: {have} vectors already, upserting to {n} ...", file=sys.stderr, flush=True)
    rng = np.random.default_rng(args.seed + have)  # a resumed build draws fresh vectors, not the first ones again
    started = time.perf_counter()
    block = 10_000
    done = have
    while done < n:
        start, done = done, min(n, (done // block + 1) * block)  # a resumed build realigns to whole blocks
        ids = [f"c{i}" for i in range(start, done)]
        store.add(ids, unit_vectors(rng, done - start), [{"doc_id": f"d{i // CHUNKS_PER_DOC}"} for i in range(start, done)])
        if done % args.checkpoint == 0 or done == n:
            build_s = round(progress["build_s"] + time.perf_counter() - started, 1)
            queries = query_latency(store, args.seed + done, args.checkpoint_queries)
            progress["checkpoints"].append({"vectors": done, "build_s": build_s, "vector_ms": queries,
                                            "rss_mb": peak_rss_mb(), "disk_mb": dir_size_mb(settings.chroma_path)})
            print(f"[{n}]   {done} vectors, built in {build_s:.0f}s; query p50/p95 {queries['p50']}/{queries['p95']} ms",
                  file=sys.stderr, flush=True)
            progress["build_s"], started = build_s, time.perf_counter()
            progress_path.write_text(json.dumps(progress))
    out["build_s"] = round(progress["build_s"] + time.perf_counter() - started, 1)
    out["vectors_per_s"] = round(n / max(out["build_s"], 1e-9), 1)
    out["peak_rss_build_mb"] = peak_rss_mb()
    out["checkpoints"] = progress["checkpoints"]
    out["latency_ms"] = {"vector_ms": query_latency(store, args.seed + 1, args.queries)}
    out["disk_mb"] = dir_size_mb(settings.chroma_path)
    out["peak_rss_mb"] = peak_rss_mb()
    del store
    if not kept:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def query_latency(store, seed: int, queries: int) -> dict:
    """p50/p95 of VectorStore.query k=K for random unit vectors, after 10 untimed warm-up queries."""
    samples = []
    for i, vector in enumerate(unit_vectors(np.random.default_rng(seed), queries + 10)):
        _, ms = timed_ms(store.query, vector, K)
        if i >= 10:
            samples.append(ms)
    return p50_p95(samples)


def run_size_subprocess(n: int, args: argparse.Namespace, argv: list[str], mode: str = "full") -> dict:
    out_path = args.tmp_root / f"worker-{mode}-{n}-{os.getpid()}.json"
    cmd = [sys.executable, str(Path(__file__).resolve()), *argv, "--worker", str(n), "--worker-mode", mode,
           "--worker-out", str(out_path)]
    started = time.perf_counter()
    proc = subprocess.run(cmd)
    if proc.returncode != 0:
        raise SystemExit(f"worker for {n} chunks failed with exit code {proc.returncode}")
    data = json.loads(out_path.read_text())
    out_path.unlink()
    data["worker_wall_s"] = round(time.perf_counter() - started, 1)
    return data


# --- ingest throughput ----------------------------------------------------------------------------

def run_ingest(args: argparse.Namespace) -> dict:
    from core.config import load_settings
    from core.workspace import Workspace

    paths = sorted(args.ingest_dir.glob("*.pdf"))[: args.ingest_files]
    if not paths:
        raise SystemExit(f"No PDFs in {args.ingest_dir}")
    tmp = Path(tempfile.mkdtemp(prefix="scale-ingest-", dir=args.tmp_root))
    try:
        settings = load_settings(data_dir=tmp).replace(chroma_host="")
        ws = Workspace(settings)
        started = time.perf_counter()
        ws.embedder.embed(["warm up"])
        model_load_s = round(time.perf_counter() - started, 2)
        print(f"ingesting {len(paths)} PDFs into a fresh {tmp} ...", file=sys.stderr, flush=True)
        timer = StepTimer(echo=True)
        started = time.perf_counter()
        results = ws.ingestor.ingest_paths(paths, progress=timer)
        wall = time.perf_counter() - started
        summary = summarize_ingest(results, wall, timer.finish())
        summary["embedding_model_load_s"] = model_load_s
        summary["files_used"] = [p.name for p in paths]
        summary["embedding_batch_size"] = settings.embedding_batch_size
        summary["embedding_threads"] = settings.embedding_threads
        ws.close()
        return summary
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


# --- report ---------------------------------------------------------------------------------------

def print_sizes(results: list[dict]) -> None:
    cols = [f"{r['chunks']:,} chunks" for r in results]
    rows = [
        ["mean words per chunk"] + [fmt(r["mean_words_per_chunk"]) for r in results],
        ["add_document total s (catalog+Chroma)"] + [fmt(r["build"]["add_document_total_s"]) for r in results],
        ["  Chroma add s"] + [fmt(r["build"]["chroma_add_s"]) for r in results],
        ["  catalog write s"] + [fmt(r["build"]["catalog_write_s"]) for r in results],
        ["keyword: read catalog s"] + [fmt(r["build"]["keyword_read_catalog_s"]) for r in results],
        ["keyword: build s (tokenize+bm25s)"] + [fmt(r["build"]["keyword_build_s"]) for r in results],
        ["keyword: save s"] + [fmt(r["build"]["keyword_save_s"]) for r in results],
        ["keyword: load (mmap) s"] + [fmt(r["build"]["keyword_load_mmap_s"], 3) for r in results],
        ["disk MB: keyword index"] + [fmt(r["disk_mb"]["keyword_index"]) for r in results],
        ["disk MB: Chroma"] + [fmt(r["disk_mb"]["chroma"]) for r in results],
        ["disk MB: catalog (SQLite, texts)"] + [fmt(r["disk_mb"]["catalog_sqlite"]) for r in results],
        ["peak RSS MB (after build)"] + [fmt(r["rss_after_build_mb"]) for r in results],
        ["peak RSS MB (end)"] + [fmt(r["peak_rss_mb"]) for r in results],
        ["worker wall s"] + [fmt(r["worker_wall_s"]) for r in results],
    ]
    print(table(["build / size"] + cols, rows))
    print()
    labels = [
        ("keyword_mem_ms", "KeywordIndex.search (in memory)"),
        ("keyword_mmap_ms", "KeywordIndex.search (mmap, after restart)"),
        ("vector_ms", "VectorStore.query k=50"),
        ("vector_count_call_ms", "  of which: collection.count() alone"),
        ("rrf_ms", "reciprocal_rank_fusion"),
        ("hybrid_sum_ms", "HYBRID = keyword + vector + RRF"),
        ("retriever_no_embed_ms", "HybridRetriever.search excl. embed"),
        ("retriever_bm25_ms", "  bm25_ms"),
        ("retriever_vector_ms", "  vector_ms"),
        ("retriever_fuse_ms", "  fuse_ms (RRF + catalog fetch)"),
        ("filtered_no_embed_ms", "same, filtered to 1 document"),
        ("filtered_bm25_ms", "  bm25_ms"),
        ("filtered_vector_ms", "  vector_ms"),
        ("filtered_fuse_ms", "  fuse_ms"),
    ]
    rows = []
    for key, label in labels:
        rows.append([label] + [
            f"{fmt(r['latency_ms'][key]['p50'], 2)} / {fmt(r['latency_ms'][key]['p95'], 2)}" for r in results
        ])
    n_q = results[0]["latency_ms"]["keyword_mem_ms"]["n"]
    print(table([f"query latency ms, p50 / p95 (n={n_q})"] + cols, rows))
    print()
    for r in results:
        s = r["query_stats"]
        print(f"{r['chunks']:,} chunks: mean query terms {s['mean_query_terms_after_tokenize']}, "
              f"mean keyword hits {s['mean_keyword_hits']} (k={K}), in-memory vs mmap top-{K} agreement "
              f"{100 * s['mem_vs_mmap_keyword_overlap']:.1f}%; HNSW {r['hnsw']}")
    target = 50.0
    for r in results:
        p50 = r["latency_ms"]["hybrid_sum_ms"]["p50"]
        full = r["latency_ms"]["retriever_no_embed_ms"]["p50"]
        verdict = "MEETS" if (p50 or 1e9) < target and (full or 1e9) < target else "MISSES"
        print(f"target hybrid p50 < {target:.0f} ms at {r['chunks']:,} chunks: {verdict} "
              f"(components {fmt(p50, 2)} ms; full retriever excl. embed {fmt(full, 2)} ms)")


def print_single_store(results: list[dict]) -> None:
    rows = []
    for r in results:
        latency = next(iter(r["latency_ms"].values()))
        extra = (f"mmap p50/p95 {fmt(r['latency_ms']['keyword_mmap_ms']['p50'], 2)} / "
                 f"{fmt(r['latency_ms']['keyword_mmap_ms']['p95'], 2)} ms; load {r['load_mmap_s']} s"
                 if r["mode"] == "keyword" else f"{fmt(r['vectors_per_s'])} vectors/s")
        rows.append([f"{r['mode']} {r['chunks']:,}", f"{fmt(latency['p50'], 2)} / {fmt(latency['p95'], 2)}",
                     fmt(r["build_s"]), fmt(r["disk_mb"]), fmt(r["peak_rss_mb"]), extra])
    print(table(["one store alone", "query p50 / p95 ms (k=50)", "build s", "disk MB", "peak RSS MB", ""], rows))


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    args.tmp_root.mkdir(parents=True, exist_ok=True)
    if args.worker:
        worker = {"full": run_size, "keyword": run_keyword_only, "vector": run_vector_only}[args.worker_mode]
        result = worker(args.worker, args)
        args.worker_out.parent.mkdir(parents=True, exist_ok=True)  # another run may have removed an empty tmp root
        args.worker_out.write_text(json.dumps(result))
        return 0

    run_started = time.perf_counter()
    machine_at_start = machine()  # the code version as the run starts (others commit meanwhile)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    print(describe_code())
    print(f"sizes {sizes}; {args.queries} queries; vocabulary {args.vocab} words, Zipf s={args.zipf}, "
          f"~{args.words} words/chunk, dim {DIM}, seed {args.seed}")
    results = []
    for n in sizes:
        results.append(run_size_subprocess(n, args, argv))
    if results:
        print()
        print_sizes(results)
    single = [run_size_subprocess(int(n), args, argv, "keyword") for n in args.keyword_sizes.split(",") if n.strip()]
    single += [run_size_subprocess(int(n), args, argv, "vector") for n in args.vector_sizes.split(",") if n.strip()]
    if single:
        print()
        print_single_store(single)

    ingest_summary = None
    if not args.skip_ingest:
        print()
        ingest_summary = run_ingest(args)
        print(f"ingest throughput ({len(ingest_summary['files_used'])} PDFs from {args.ingest_dir.name}: "
              f"{', '.join(ingest_summary['files_used'])}; model load {ingest_summary['embedding_model_load_s']} s, "
              f"not counted)")
        print(ingest_table(ingest_summary))

    total_s = round(time.perf_counter() - run_started, 1)
    print(f"\nwhole run {total_s} s")
    path = write_json("scale" if sizes else "scale_single_store", {
        "machine": machine_at_start,
        "parameters": {"sizes": sizes, "queries": args.queries, "vocab": args.vocab, "words": args.words,
                       "zipf": args.zipf, "seed": args.seed, "k": K, "dim": DIM, "chunks_per_doc": CHUNKS_PER_DOC},
        "sizes": results,
        "single_store": single,
        "ingest": ingest_summary,
        "total_seconds": total_s,
    })
    print(f"wrote {path.relative_to(ROOT)}")
    try:
        args.tmp_root.rmdir()  # only when empty
    except OSError:
        pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
