"""The FinanceBench subset as every benchmark reads it: its questions, their evidence pages, the
spread of a sample over question types. Data only; scores come from core/evaluate/scoring.py.

(Moved out of bench/answer_quality.py so no bench script is a library for another.)
"""
from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from bench import splits
from bench._common import ROOT
from core.evaluate.scoring import file_matches, page_matches

# ../shared beside the repository (or beside any folder above it, as from a git worktree).
SHARED = next((p / "shared" for p in ROOT.parents if (p / "shared" / "eval-public").is_dir()), ROOT.parent / "shared")


def load_questions(shared: Path) -> list[dict]:
    path = shared / "eval-public" / "financebench" / "financebench_subset.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def part_of_questions(rows: list[dict], part: str | None) -> list[dict]:
    """The questions of one part of the fixed dev/test split (bench/splits.py, key financebench_id)."""
    return splits.keep(rows, lambda q: q["financebench_id"], part)


def spread_over_types(rows: list[dict], n: int) -> list[dict]:
    """n rows, each question type getting a share proportional to its size (largest remainder),
    evenly spaced inside the type; returned in file order."""
    if n >= len(rows):
        return list(rows)
    by_type: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        by_type[r.get("question_type") or "?"].append(i)
    exact = {t: n * len(ix) / len(rows) for t, ix in by_type.items()}
    quota = {t: int(v) for t, v in exact.items()}
    for t in sorted(exact, key=lambda t: (-(exact[t] - quota[t]), t))[: n - sum(quota.values())]:
        quota[t] += 1
    chosen = []
    for t, ix in by_type.items():
        k = quota[t]
        chosen += [ix[int((j + 0.5) * len(ix) / k)] for j in range(k)]
    return [rows[i] for i in sorted(chosen)]


def evidence_pages(q: dict) -> set[tuple[str, int]]:
    """(document stem, 1-based page) of each evidence item (the set's page numbers are 0-based)."""
    return {((e.get("doc_name") or q["doc_name"]), int(e["evidence_page_num"]) + 1) for e in q["evidence"]}


def on_evidence_page(filename: str, page: str | None, evidence: set[tuple[str, int]]) -> bool:
    """Whether a source (file name, page label such as "3" or "3-4") covers an evidence page."""
    return any(file_matches(doc, filename) and page_matches((p,), page) for doc, p in evidence)
