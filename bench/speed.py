"""Speed on this machine, each figure against its baseline in the same run (issue 25).

    python -m bench.speed embeddings --data-dir KB [--sample 1000]
        The same chunk texts (a seeded sample of a knowledge base's indexed chunks) embedded by each
        embedding model in its own process, one after the other: model load, chunks/s, a query's
        milliseconds, peak memory, and how close each model's vectors are to the torch reference's.
    python -m bench.speed cli --data-dir KB --question "..." [--runs 3]
        `python -m core ask` end to end as a user runs it, start-up included, and the time to import
        the modules the question needs.
    python -m bench.speed calls --data-dir KB --questions FILE.jsonl [--ids ID ...] [--limit N]
        Questions asked through Workspace with the model loaded once (a warm-up question first):
        each model call's new prompt tokens (past the KV cache), cached tokens, tokens written and
        seconds, and each answer's wall time: where an answer's seconds go.
    python -m bench.speed warm --data-dir KB --questions FILE.jsonl [--split dev] [--tables 8]
        Tables read ahead against tables not (the app reads its tables' plan prompts once the model has
        loaded): the first question on each of N tables, every other table's plan prompt read ahead first
        (`warm_plan_prompts`, as the app does), each model call's new prompt tokens and seconds.
    python -m bench.speed app [--runs 2]
        The app started as `scripts/run.sh` starts it, on the sample documents indexed with each
        embedding model: seconds until Home shows the knowledge base in Chromium (usable), and until
        it says the language model is loaded.

Timings are only compared within one run; the machine's load is printed with them.
"""
from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import ROOT, describe_code, fmt, machine, p50_p95, peak_rss_mb, table, write_json  # noqa: E402

QUERIES = [
    "What was the total value of orders in 2024?",
    "Which suppliers are paid within 30 days?",
    "net cash provided by operating activities",
    "How many inspections were raised at each site?",
    "What does the handbook say about spending approval limits?",
]


def sample_chunks(data_dir: Path, count: int, seed: int) -> list[str]:
    """Indexed chunk texts as the embedder receives them, in a seeded order."""
    with sqlite3.connect(f"file:{data_dir / 'catalog.sqlite3'}?mode=ro", uri=True) as db:
        texts = [row[0] for row in db.execute("SELECT index_text FROM chunks ORDER BY chunk_id")]
    rng = np.random.default_rng(seed)
    picked = rng.choice(len(texts), size=min(count, len(texts)), replace=False)
    return [texts[i] for i in picked]


def measure_one(model: str, texts_file: Path, vectors_file: Path) -> dict:
    """In a fresh process: load one model, embed the texts, time single queries."""
    from core.config import Settings
    from core.embedding import make_embedder

    texts = json.loads(texts_file.read_text())
    settings = Settings()
    started = time.perf_counter()
    embedder = make_embedder(model, cache_dir=settings.cache_dir, batch_size=settings.embedding_batch_size)
    embedder.embed(["warm up"])
    load_s = time.perf_counter() - started
    started = time.perf_counter()
    vectors = embedder.embed(texts)
    embed_s = time.perf_counter() - started
    np.save(vectors_file, vectors)
    query_ms = []
    for _ in range(5):
        for query in QUERIES:
            started = time.perf_counter()
            embedder.embed([query])
            query_ms.append((time.perf_counter() - started) * 1000)
    return {"model": model, "load_s": round(load_s, 2), "chunks": len(texts), "embed_s": round(embed_s, 2),
            "chunks_per_s": round(len(texts) / embed_s, 1), "query_ms": p50_p95(query_ms),
            "peak_rss_mb": peak_rss_mb()}


def run_embeddings(args) -> int:
    from core.embedding import INT8_MODEL, TORCH_MODEL, count_tokens

    texts = sample_chunks(Path(args.data_dir), args.sample, args.seed)
    tokens = count_tokens(texts)
    print(describe_code())
    print(f"{len(texts)} chunks from {args.data_dir}: {np.mean(tokens):.0f} word pieces on average "
          f"(p95 {np.percentile(tokens, 95):.0f}); load average {os.getloadavg()[0]:.2f} at start")
    results = []
    with tempfile.TemporaryDirectory(prefix="speed-") as tmp:
        texts_file = Path(tmp) / "texts.json"
        texts_file.write_text(json.dumps(texts))
        for model in [TORCH_MODEL, INT8_MODEL]:  # the reference first
            out = Path(tmp) / f"{model}.npy"
            child = subprocess.run(
                [sys.executable, "-m", "bench.speed", "_one", model, str(texts_file), str(out)],
                cwd=ROOT, capture_output=True, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"},
            )
            if child.returncode:
                print(child.stderr, file=sys.stderr)
                return 1
            result = json.loads(child.stdout.strip().splitlines()[-1])
            result["vectors"] = np.load(out)
            results.append(result)
    reference = results[0]["vectors"]
    rows = []
    for result in results:
        cosine = (result.pop("vectors") * reference).sum(axis=1)
        result["cosine_to_reference"] = {"min": round(float(cosine.min()), 4), "mean": round(float(cosine.mean()), 4)}
        rows.append([result["model"], fmt(result["load_s"], 2, " s"), fmt(result["chunks_per_s"], 1),
                     f"{results[0]['chunks_per_s'] and result['chunks_per_s'] / results[0]['chunks_per_s']:.2f}x",
                     fmt(result["query_ms"]["p50"], 1, " ms"), fmt(result["peak_rss_mb"], 0, " MB"),
                     f"{result['cosine_to_reference']['mean']:.4f} (min {result['cosine_to_reference']['min']:.4f})"])
    print(table(["model", "load", "chunks/s", "vs torch", "query p50", "peak memory", "cosine to torch"], rows))
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
    path = write_json(args.name, {"machine": machine(), "sample": len(texts), "results": results})
    print(f"wrote {path}")
    return 0


def run_cli(args) -> int:
    """`python -m core ask` as a user runs it: a fresh process each time, start-up included."""
    print(describe_code())
    print(f"load average {os.getloadavg()[0]:.2f} at start; question: {args.question!r}")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "DOCUCHAT_DATA_DIR": str(args.data_dir)}
    rows, runs = [], []
    for number in range(1, args.runs + 1):
        started = time.perf_counter()
        child = subprocess.run([sys.executable, "-X", "importtime", "-m", "core", "ask", args.question, "--json"],
                               cwd=ROOT, capture_output=True, text=True, env=env)
        wall = time.perf_counter() - started
        imports_s = _import_seconds(child.stderr)
        answer = json.loads(child.stdout) if child.returncode == 0 else {}
        runs.append({"wall_s": round(wall, 2), "imports_s": imports_s, "returncode": child.returncode,
                     "timings": answer.get("timings"), "answer": (answer.get("answer") or "")[:200]})
        rows.append([number, fmt(wall, 1, " s"), fmt(imports_s, 1, " s"), child.returncode,
                     (answer.get("answer") or child.stderr.strip()[-120:])[:70]])
    print(table(["run", "wall", "imports", "exit", "answer"], rows))
    path = write_json(args.name, {"machine": machine(), "question": args.question, "runs": runs})
    print(f"wrote {path}")
    return 0


def run_calls(args) -> int:
    """Each model call of each question, as the provider reports it when done (the model loaded once)."""
    from core.config import load_settings
    from core.workspace import Workspace

    print(describe_code())
    print(f"load average {os.getloadavg()[0]:.2f} at start")
    asked = [json.loads(line) for line in Path(args.questions).read_text(encoding="utf-8").splitlines() if line.strip()]
    asked = [q for q in asked if not args.ids or q["id"] in args.ids][: args.limit]
    workspace = Workspace(load_settings().replace(data_dir=Path(args.data_dir)))
    calls: list[dict] = []

    def record(done) -> None:
        calls.append({"seconds": round(done.seconds, 2), "cached": done.cached_tokens,
                      "new": done.prompt_tokens - done.cached_tokens, "written": done.completion_tokens})

    workspace.llm.on_completion = record
    workspace.ask("How many rows does the first table have?")  # loads the model: not counted
    rows, answers = [], []
    for question in asked:
        calls.clear()
        started = time.perf_counter()
        response = workspace.ask(question["question"])
        wall = time.perf_counter() - started
        answers.append({"id": question.get("id"), "wall_s": round(wall, 2), "route": response.route,
                        "calls": list(calls)})
        spent = " + ".join(f"{c['seconds']:.1f} s ({c['new']} new, {c['cached']} cached, {c['written']} out)"
                           for c in calls) or "no model call"
        rows.append([question.get("id", ""), fmt(wall, 1, " s"), response.route, spent])
    workspace.close()
    print(table(["question", "wall", "route", "model calls"], rows))
    walls = [a["wall_s"] for a in answers]
    print(f"wall p50/p95: {p50_p95(walls)}")
    path = write_json(args.name, {"machine": machine(), "answers": answers})
    print(f"wrote {path}")
    return 0


def run_warm(args) -> int:
    """The first question on each table, every other table read ahead (the question file names each one's file)."""
    from core.annotations.plan import warm_plan_prompts
    from core.config import load_settings
    from core.workspace import Workspace

    print(describe_code())
    print(f"load average {os.getloadavg()[0]:.2f} at start")
    asked = [json.loads(line) for line in Path(args.questions).read_text(encoding="utf-8").splitlines() if line.strip()]
    workspace = Workspace(load_settings().replace(data_dir=Path(args.data_dir), llm_warm_tables=0))
    calls: list[dict] = []
    workspace.llm.on_completion = lambda done: calls.append(
        {"seconds": round(done.seconds, 2), "new": done.prompt_tokens - done.cached_tokens, "cached": done.cached_tokens,
         "written": done.completion_tokens})
    workspace.ask("How many rows does the first table have?")  # loads the model: not counted
    tables = {t.filename: t for t in workspace.typed_tables()}
    rows, answers, seen = [], [], set()
    for question in asked:
        files = question.get("files") or []
        if (args.split and question.get("part") != args.split) or len(files) != 1 or files[0] in seen \
                or files[0] not in tables:
            continue
        seen.add(files[0])
        warmed = len(seen) % 2 == 0
        calls.clear()
        if warmed:
            warm_plan_prompts([tables[files[0]]], workspace.llm, workspace.pipeline.executor, 1)
        ahead = list(calls)
        calls.clear()
        started = time.perf_counter()
        workspace.ask(question["question"])
        wall = time.perf_counter() - started
        answers.append({"id": question.get("id"), "warmed": warmed, "wall_s": round(wall, 2), "ahead": ahead,
                        "calls": list(calls)})
        spent = " + ".join(f"{c['seconds']:.1f} s ({c['new']} new, {c['cached']} cached, {c['written']} out)"
                           for c in calls) or "no model call"
        rows.append([question.get("id", ""), "read ahead" if warmed else "cold",
                     f"{ahead[0]['seconds']:.1f} s" if ahead else "", fmt(wall, 1, " s"), spent])
        if len(seen) >= args.tables:
            break
    workspace.close()
    print(table(["question", "table", "read ahead", "wall", "model calls"], rows))
    for warmed in (False, True):
        walls = [a["wall_s"] for a in answers if a["warmed"] == warmed]
        print(f"{'read ahead' if warmed else 'cold'}: wall p50/p95 {p50_p95(walls)} over {len(walls)}")
    path = write_json(args.name, {"machine": machine(), "answers": answers})
    print(f"wrote {path}")
    return 0


def run_app(args) -> int:
    from core.embedding import INT8_MODEL, TORCH_MODEL
    from scripts.screenshots import index_samples
    from tests.servers import free_port
    from tests.ui.test_browser import CHROMIUM, CHROMIUM_FLAGS

    from playwright.sync_api import sync_playwright

    print(describe_code())
    print(f"load average {os.getloadavg()[0]:.2f} at start")
    rows, runs = [], []
    with tempfile.TemporaryDirectory(prefix="speed-app-") as tmp, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        for model in [TORCH_MODEL, INT8_MODEL]:
            data_dir = Path(tmp) / model
            index_samples(data_dir, embedding_model=model)
            for number in range(1, args.runs + 1):
                result = _start_app(browser, data_dir, model, free_port())
                runs.append({"model": model, "run": number, **result})
                rows.append([model, number, fmt(result["home_s"], 1, " s"), fmt(result["model_ready_s"], 1, " s")])
        browser.close()
    print(table(["embedding model", "run", "usable Home", "language model loaded"], rows))
    path = write_json(args.name, {"machine": machine(), "runs": runs})
    print(f"wrote {path}")
    return 0


def _start_app(browser, data_dir: Path, model: str, port: int) -> dict:
    env = {**os.environ, "DOCUCHAT_DATA_DIR": str(data_dir), "DOCUCHAT_EMBEDDING_MODEL": model, "HF_HUB_OFFLINE": "1"}
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.address", "127.0.0.1",
               "--server.port", str(port), "--server.headless", "true"]
    started = time.perf_counter()
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    page = browser.new_page()
    try:
        while True:  # the first page load as soon as the server answers
            try:
                page.goto(f"http://127.0.0.1:{port}", timeout=5_000)
                break
            except Exception:  # noqa: BLE001 - not listening yet
                if time.perf_counter() - started > 120:
                    raise
                time.sleep(0.2)
        page.get_by_text("Searchable chunks").wait_for(timeout=300_000)
        home_s = time.perf_counter() - started
        page.get_by_text("in-process, loaded").wait_for(timeout=300_000)
        return {"home_s": round(home_s, 2), "model_ready_s": round(time.perf_counter() - started, 2)}
    finally:
        page.close()
        server.terminate()
        server.wait(timeout=30)


def _import_seconds(importtime_log: str) -> float:
    """Total of the top-level imports' cumulative microseconds in a `-X importtime` log."""
    total = 0
    for line in importtime_log.splitlines():
        if line.startswith("import time:") and "|" in line:
            _, cumulative, name = line[len("import time:"):].split("|", 2)
            if cumulative.strip().isdigit() and not name.startswith("  "):
                total += int(cumulative)
    return round(total / 1e6, 2)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="part", required=True)
    emb = sub.add_parser("embeddings", help="chunks/s, query ms and memory of each embedding model")
    emb.add_argument("--data-dir", required=True, help="a knowledge base whose chunks are embedded")
    emb.add_argument("--sample", type=int, default=1000)
    emb.add_argument("--seed", type=int, default=15)
    emb.add_argument("--name", default="speed_embeddings")
    cli = sub.add_parser("cli", help="one `python -m core ask`, start-up included")
    cli.add_argument("--data-dir", required=True)
    cli.add_argument("--question", required=True)
    cli.add_argument("--runs", type=int, default=3)
    cli.add_argument("--name", default="speed_cli")
    calls = sub.add_parser("calls", help="each model call's tokens and seconds, questions asked in one process")
    calls.add_argument("--data-dir", required=True)
    calls.add_argument("--questions", required=True, help="JSONL with id and question (a records or eval file)")
    calls.add_argument("--ids", nargs="*", default=None)
    calls.add_argument("--limit", type=int, default=None)
    calls.add_argument("--name", default="speed_calls")
    warm = sub.add_parser("warm", help="a first question on a table read ahead against one not")
    warm.add_argument("--data-dir", required=True)
    warm.add_argument("--questions", required=True, help="JSONL with id, question, part and files (the records set)")
    warm.add_argument("--split", default="dev", help="the questions' part (the records set's dev or test)")
    warm.add_argument("--tables", type=int, default=8)
    warm.add_argument("--name", default="speed_warm")
    app = sub.add_parser("app", help="seconds to a usable Home, each embedding model")
    app.add_argument("--runs", type=int, default=2)
    app.add_argument("--name", default="speed_app")
    one = sub.add_parser("_one")  # the child process of `embeddings`
    one.add_argument("model")
    one.add_argument("texts", type=Path)
    one.add_argument("out", type=Path)
    args = parser.parse_args(argv)
    if args.part == "_one":
        print(json.dumps(measure_one(args.model, args.texts, args.out)))
        return 0
    return {"embeddings": run_embeddings, "cli": run_cli, "calls": run_calls, "warm": run_warm,
            "app": run_app}[args.part](args)


if __name__ == "__main__":
    sys.exit(main())
