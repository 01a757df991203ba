"""Small helpers shared by the benchmark scripts: percentiles, tables, JSON output, ingest timing."""
from __future__ import annotations

import json
import platform
import resource
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"


def percentile(values, q: float) -> float | None:
    values = [v for v in values if v is not None]
    if not values:
        return None
    return float(np.percentile(np.asarray(values, dtype=np.float64), q))


def p50_p95(values) -> dict[str, float | None]:
    return {"p50": _r(percentile(values, 50)), "p95": _r(percentile(values, 95)), "n": len(values)}


def _r(value: float | None, digits: int = 3) -> float | None:
    return None if value is None else round(value, digits)


def fmt(value, digits: int = 1, suffix: str = "") -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.{digits}f}{suffix}"
    if isinstance(value, int):
        return f"{value:,}{suffix}"
    return f"{value}{suffix}"


def table(headers: list[str], rows: list[list], title: str | None = None) -> str:
    """A plain-text table; the first column left-aligned, the others right-aligned."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]

    def line(row: list[str]) -> str:
        return "  ".join(
            (c.ljust(widths[i]) if i == 0 else c.rjust(widths[i])) for i, c in enumerate(row)
        ).rstrip()

    out = []
    if title:
        out.append(title)
    out.append(line(cells[0]))
    out.append("  ".join("-" * w for w in widths))
    out.extend(line(r) for r in cells[1:])
    return "\n".join(out)


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far (Linux reports ru_maxrss in KiB)."""
    kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(kib / 1024 if sys.platform != "darwin" else kib / (1024 * 1024), 1)


def dir_size_mb(path: Path) -> float:
    total = sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())
    return round(total / (1024 * 1024), 2)


def code_version() -> dict:
    """The commit under test and any uncommitted changes to core/ (others edit it concurrently)."""
    import subprocess

    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10).stdout.rstrip()
        except (OSError, subprocess.SubprocessError):
            return ""

    dirty = [line[3:] for line in git("status", "--porcelain", "--", "core").splitlines()]
    return {"commit": git("rev-parse", "--short", "HEAD").strip(), "core_uncommitted": dirty}


def machine() -> dict:
    import os

    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "cpu": cpu(),
        "loadavg_at_start": [round(x, 2) for x in os.getloadavg()],
        "code": code_version(),
    }


def cpu() -> dict:
    """The CPU's name and the vector extensions that decide int8 and llama.cpp speed: the int8 embedder ran
    2.9x torch in session 15 (CPU not recorded) and 1.8x on an AVX2-only AMD EPYC (docs/benchmarks.md)."""
    info = Path("/proc/cpuinfo")
    text = info.read_text() if info.exists() else ""
    name = next((line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("model name")), "")
    flags = next((line.split(":", 1)[1].split() for line in text.splitlines() if line.startswith("flags")), [])
    return {"model": name or platform.processor(),
            "vector_flags": sorted(f for f in flags if f.startswith(("avx", "amx")) or "vnni" in f)}


def describe_code() -> str:
    v = code_version()
    dirty = f"; uncommitted changes in {', '.join(v['core_uncommitted'])}" if v["core_uncommitted"] else ""
    return f"code under test: commit {v['commit'] or '?'}{dirty}"


ANSWERS = ROOT / "bench" / "answers"


def keep_answers(name: str, answers: list[dict]) -> Path:
    """The answers a user would have read, as scored ({id, question, answer, confidence, correct} each), kept in
    the repository as bench/answers/NAME.jsonl: tests/bench/test_leaks.py checks that none shows SQL, an
    internal name, error text or a path."""
    kept = ANSWERS / f"{name}.jsonl"
    kept.write_text("".join(json.dumps({k: a.get(k) for k in ("id", "question", "answer", "confidence", "correct")},
                                       ensure_ascii=False) + "\n" for a in answers), encoding="utf-8")
    return kept


def write_json(name: str, payload: dict) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(payload, indent=2, default=str))
    return path


@dataclass
class StepTimer:
    """Progress callback for Ingestor.ingest_paths that splits wall time by ingest step.

    Each event's step lasts until the next event (of the same batch). Steps: hashing, parsing
    (load_document: PDF text extraction), chunking (chunk_document + token counting), embedding
    (the model, cache misses only), indexing (copy original + catalog + Chroma). The keyword index
    is rebuilt after the last file, inside the batch's write bracket: that is the time between the
    last event and the return of ingest_paths, added by `finish()` as 'keyword_rebuild'.
    """

    echo: bool = True
    seconds: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    _last: tuple[str, float] | None = None
    _files_done: int = 0
    _started: float = field(default_factory=time.perf_counter)

    def __call__(self, event) -> None:
        t = time.perf_counter()
        if self._last is not None:
            step, since = self._last
            self.seconds[step] += t - since
        self._last = (event.step, t)
        if event.step in ("done", "failed"):
            self._files_done += 1
            if self.echo and not event.message.startswith("already in the knowledge base"):
                print(
                    f"  [{time.perf_counter() - self._started:7.1f}s] {event.file_index + 1}/{event.file_count} "
                    f"{event.filename}: {event.step} {event.message}",
                    file=sys.stderr, flush=True,
                )

    def finish(self) -> dict[str, float]:
        t = time.perf_counter()
        if self._last is not None:
            step, since = self._last
            if step in ("done", "failed"):
                self.seconds["keyword_rebuild"] += t - since
            else:
                self.seconds[step] += t - since
        self._last = None
        self.seconds.pop("done", None)
        self.seconds.pop("failed", None)
        return {k: round(v, 3) for k, v in self.seconds.items()}


def summarize_ingest(results, wall_seconds: float, steps: dict[str, float]) -> dict:
    """Pages/chunks of the files actually indexed in this batch, and throughput."""
    new = [r for r in results if r.status in ("indexed", "replaced")]
    pages = sum(r.pages for r in new)
    chunks = sum(r.chunks for r in new)
    parse_chunk = steps.get("hashing", 0) + steps.get("parsing", 0) + steps.get("chunking", 0)
    embedding = steps.get("embedding", 0)
    return {
        "files": len(results),
        "indexed": len(new),
        "duplicates": sum(r.status == "duplicate" for r in results),
        "failed": [{"filename": r.filename, "message": r.message} for r in results if not r.ok],
        "pages": pages,
        "chunks": chunks,
        "embedded_chunks": sum(r.embedded for r in new),
        "seconds": round(wall_seconds, 2),
        "pages_per_s": round(pages / wall_seconds, 2) if wall_seconds else None,
        "chunks_per_s": round(chunks / wall_seconds, 2) if wall_seconds else None,
        "steps_seconds": steps,
        "parse_chunk_seconds": round(parse_chunk, 2),
        "embedding_seconds": round(embedding, 2),
        "embedding_chunks_per_s": round(sum(r.embedded for r in new) / embedding, 2) if embedding else None,
        "per_file": [
            {"filename": r.filename, "status": r.status, "pages": r.pages, "chunks": r.chunks,
             "seconds": round(r.seconds, 2)}
            for r in results
        ],
    }


def ingest_table(summary: dict) -> str:
    steps = summary["steps_seconds"]
    order = ["hashing", "parsing", "chunking", "embedding", "indexing", "keyword_rebuild"]
    rows = [
        ["files (indexed / duplicate / failed)",
         f"{summary['indexed']} / {summary['duplicates']} / {len(summary['failed'])}"],
        ["pages", fmt(summary["pages"])],
        ["chunks", fmt(summary["chunks"])],
        ["seconds (wall, batch)", fmt(summary["seconds"])],
        ["pages/s", fmt(summary["pages_per_s"], 2)],
        ["chunks/s", fmt(summary["chunks_per_s"], 2)],
        ["  parse+chunk s (hashing+parsing+chunking)", fmt(summary["parse_chunk_seconds"])],
        ["  embedding s", fmt(summary["embedding_seconds"])],
        ["  embedding chunks/s (model only)", fmt(summary["embedding_chunks_per_s"], 2)],
    ]
    rows += [[f"  step {s} s", fmt(steps.get(s), 2)] for s in order if s in steps]
    return table(["ingest", "value"], rows)
