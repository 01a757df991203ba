"""Ingest the whole shared corpus in one batch into a fresh temporary data dir: time, throughput,
peak memory, and how fast questions are answered while it runs.

    .venv/bin/python bench/ingest_corpus.py [--corpus ../shared/corpus] [--limit N] [--probe-every 20]
                                            [--stand-in-embedder] [--keep]

- Every supported file under --corpus, in one `Ingestor.ingest_paths` call (one batch, one write
  bracket), as `python -m core ingest FOLDER` does. --limit N takes N files round-robin across the
  corpus folders, so a short run still sees every kind of file.
- Memory: the resident set of this process sampled every 0.5 s (peak and at the end), and the
  largest peak of a file-reading child process (each file is parsed in one, see
  core/ingest/isolation.py).
- Responsiveness: every --probe-every seconds another thread asks a question through the same
  Workspace (hybrid search + the pipeline with the extractive stand-in model, so no LLM time)
  while the ingest holds its write lock; the latencies are reported.
- --stand-in-embedder replaces the model by a hash of each text (same dimension, no model time):
  everything else (reading, OCR, chunking, facts, Chroma and BM25 writes) is the real work. The
  model embeds about 14 chunks/s on 2 idle cores (bench/scale.py); on a shared machine much less,
  which makes a whole-corpus run with it take hours.
Figures are printed and written to bench/results/ingest_corpus[_stand_in].json. The data dir is
removed unless --keep.
"""
from __future__ import annotations

import argparse
import itertools
import logging
import resource
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import (  # noqa: E402
    ROOT, StepTimer, describe_code, fmt, ingest_table, machine, p50_p95, summarize_ingest, table, write_json,
)

PROBE_QUESTION = "What was the total revenue in the most recent quarter?"


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    p.add_argument("--limit", type=int, help="at most N files, round-robin across the corpus folders")
    p.add_argument("--probe-every", type=float, default=20.0, help="seconds between probe questions (0: none)")
    p.add_argument("--stand-in-embedder", action="store_true", help="hash vectors instead of the model")
    p.add_argument("--keep", action="store_true", help="keep the temporary data dir")
    return p.parse_args(argv)


def corpus_files(root: Path, extensions: tuple[str, ...], limit: int | None) -> list[Path]:
    folders: dict[Path, list[Path]] = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.suffix.lower() in extensions:
            folders.setdefault(path.parent, []).append(path)
    if limit is None:
        return [p for files in folders.values() for p in files]
    mixed = [p for group in itertools.zip_longest(*folders.values()) for p in group if p is not None]
    return mixed[:limit]


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Sampler(threading.Thread):
    def __init__(self, every: float = 0.5) -> None:
        super().__init__(daemon=True)
        self.every, self.samples, self.stop = every, [], threading.Event()

    def run(self) -> None:
        started = time.perf_counter()
        while not self.stop.wait(self.every):
            self.samples.append((round(time.perf_counter() - started, 1), round(rss_mb(), 1)))


class HashEmbedder:
    """Deterministic unit vectors from a hash of each text: the shape of the model's output, none of its cost."""

    model_name, dim = "hash-stand-in", 384

    def embed(self, texts):
        import hashlib

        import numpy as np

        rows = [np.frombuffer(hashlib.sha512(t.encode()).digest() * 6, dtype=np.uint8)[: self.dim] for t in texts]
        vectors = np.asarray(rows, dtype=np.float32) - 127.5
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    def count_tokens(self, texts):
        from core.embedding import count_tokens

        return count_tokens(texts)  # the real tokenizer: chunk sizes stay real


class Prober(threading.Thread):
    """Asks a question every `every` seconds while the ingest runs: the chat's view of the load."""

    def __init__(self, workspace, every: float) -> None:
        super().__init__(daemon=True)
        self.workspace, self.every, self.stop = workspace, every, threading.Event()
        self.latencies_ms: list[float] = []
        self.errors: list[str] = []

    def run(self) -> None:
        while not self.stop.wait(self.every):
            started = time.perf_counter()
            try:
                self.workspace.ask(PROBE_QUESTION)
            except Exception as exc:  # reported, never fatal to the benchmark
                self.errors.append(f"{type(exc).__name__}: {exc}")
            self.latencies_ms.append((time.perf_counter() - started) * 1000)


def main(argv=None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    from core.config import load_settings
    from core.workspace import Workspace

    data_dir = Path(tempfile.mkdtemp(prefix="docuchat-corpus-"))
    settings = load_settings(data_dir=data_dir).replace(llm_provider="scripted", chroma_host="", ollama_host="")
    files = corpus_files(args.corpus, settings.supported_extensions, args.limit)
    if not files:
        raise SystemExit(f"No supported files under {args.corpus}")
    print(describe_code())
    print(f"{len(files)} files from {args.corpus} into {data_dir}", flush=True)
    machine_at_start = machine()
    loaded = time.perf_counter()
    workspace = Workspace(settings, HashEmbedder() if args.stand_in_embedder else None)
    workspace.embedder.embed(["warm up the model"])
    model_load_s = time.perf_counter() - loaded
    rss_before = rss_mb()

    sampler, steps = Sampler(), StepTimer()
    prober = Prober(workspace, args.probe_every) if args.probe_every > 0 else None
    sampler.start()
    if prober:
        prober.start()
    started = time.perf_counter()
    results = workspace.ingestor.ingest_paths(files, progress=steps)
    wall = time.perf_counter() - started
    sampler.stop.set()
    if prober:
        prober.stop.set()
        prober.join()
    sampler.join()

    summary = summarize_ingest(results, wall, steps.finish())
    peaks = [mb for _, mb in sampler.samples] or [rss_mb()]
    memory = {
        "rss_before_batch_mb": round(rss_before, 1),
        "rss_peak_mb": max(peaks),
        "rss_end_mb": round(rss_mb(), 1),
        "process_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "largest_reader_child_peak_mb": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1),
        "samples": sampler.samples[:: max(1, len(sampler.samples) // 200)],
    }
    probes = {"question": PROBE_QUESTION, "latency_ms": p50_p95(prober.latencies_ms) if prober else None,
              "max_ms": round(max(prober.latencies_ms), 1) if prober and prober.latencies_ms else None,
              "errors": prober.errors if prober else []}
    by_kind: dict[str, list[int]] = {}
    for path, result in zip(files, results):
        counts = by_kind.setdefault(path.suffix.lower(), [0, 0])
        counts[0 if result.ok else 1] += 1

    print()
    print(ingest_table(summary))
    print()
    print(table(["memory", "MB"], [
        ["RSS before the batch (model loaded)", fmt(memory["rss_before_batch_mb"])],
        ["RSS peak during the batch", fmt(memory["rss_peak_mb"])],
        ["RSS at the end", fmt(memory["rss_end_mb"])],
        ["largest file-reading child, peak", fmt(memory["largest_reader_child_peak_mb"])],
    ]))
    print()
    print(table(["files by kind", "ok", "failed"], [[k, v[0], v[1]] for k, v in sorted(by_kind.items())]))
    for failure in summary["failed"]:
        print(f"  failed: {failure['filename']}: {failure['message']}")
    if prober:
        lat = probes["latency_ms"]
        print(f"\nquestions during the ingest: {lat['n']}, p50 {fmt(lat['p50'])} ms, p95 {fmt(lat['p95'])} ms, "
              f"max {fmt(probes['max_ms'])} ms, errors {len(probes['errors'])}")
    print(f"embedding model load {model_load_s:.1f} s (not counted); "
          f"consistent after the batch: {workspace.kb.consistency()['consistent']}")
    path = write_json("ingest_corpus_stand_in" if args.stand_in_embedder else "ingest_corpus", {
        "machine": machine_at_start, "corpus": str(args.corpus), "limit": args.limit, "files": len(files),
        "embedder": workspace.embedder.model_name,
        "ingest": summary, "memory": memory, "probes": probes, "by_kind": by_kind,
        "model_load_s": round(model_load_s, 1),
    })
    print(f"wrote {path.relative_to(ROOT)}")
    workspace.close()
    if args.keep:
        print(f"kept {data_dir}")
    else:
        shutil.rmtree(data_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
