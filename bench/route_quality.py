"""Route accuracy (issue 22): does the question go where a person would send it? Over the labelled
set bench/data/route_labels.jsonl (records / text / summary, drawn from every public set; the
labelling convention is in docs/routing.md), by class and by source, for the rules alone and for
rules + model (the model decides only the questions the rules are unsure of).

    .venv/bin/python -m bench.route_quality [--part dev|test|all]             # rules only, no model
    flock /tmp/docuchat-model.lock .venv/bin/python -m bench.route_quality --model [--part test]

Every question is classified as if a table had been selected for it: that is where the kind
decides the route (without a table every kind goes to the text route). Figures are printed and
written to bench/results/route_quality.json.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

from bench import splits
from bench._common import RESULTS, ROOT, p50_p95, table
from core.agents.question_kind import KINDS, by_model, by_rules

LABELS = ROOT / "bench" / "data" / "route_labels.jsonl"


def load(part: str) -> list[dict]:
    rows = [json.loads(line) for line in LABELS.read_text(encoding="utf-8").splitlines() if line.strip()]
    return rows if part == "all" else [r for r in rows if r["part"] == part]


def accuracy(rows: list[dict], key: str, group: str) -> dict[str, str]:
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in rows:
        counts[r[group]][0] += r[key] == r["label"]
        counts[r[group]][1] += 1
    return {name: f"{right}/{n} ({100 * right / n:.1f} %)" for name, (right, n) in sorted(counts.items())}


def overall(rows: list[dict], key: str) -> str:
    right = sum(r[key] == r["label"] for r in rows)
    return f"{right}/{len(rows)} ({100 * right / max(len(rows), 1):.1f} %)"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    splits.add_argument(parser)
    parser.add_argument("--model", action="store_true", help="also ask the shipped model for the unsure questions")
    parser.add_argument("--show-errors", action="store_true", help="print each misrouted question (dev only)")
    args = parser.parse_args(argv)
    rows = load(args.part)
    for r in rows:
        kind = by_rules(r["question"])
        r["rules"], r["sure"], r["rules_reason"] = kind.kind, kind.sure, kind.reason
    report = {"part": args.part, "questions": len(rows), "labels": accuracy(rows, "label", "label"),
              "unsure": sum(not r["sure"] for r in rows), "rules": overall(rows, "rules"),
              "rules_by_class": accuracy(rows, "rules", "label"), "rules_by_source": accuracy(rows, "rules", "source")}
    if args.model:
        from core.config import load_settings
        from core.llm import make_llm

        settings = load_settings()
        llm = make_llm(settings)
        seconds = []
        for r in rows:
            r["model"] = r["rules"]
            if not r["sure"]:
                started = time.perf_counter()
                kind = by_model(r["question"], llm, settings.route_kind_max_tokens, by_rules(r["question"]))
                seconds.append(time.perf_counter() - started)
                r["model"], r["model_reason"] = kind.kind, kind.reason
        report.update({"model": f"{llm.name} {llm.model}", "asked_model": len(seconds),
                       "model_seconds": p50_p95(seconds), "rules_and_model": overall(rows, "model"),
                       "rules_and_model_by_class": accuracy(rows, "model", "label"),
                       "rules_and_model_by_source": accuracy(rows, "model", "source")})
    keys = ["rules"] + (["model"] if args.model else [])
    for group in ("label", "source"):
        names = sorted({r[group] for r in rows})
        print(table([group, *[("rules+model" if k == "model" else k) for k in keys]],
                    [[n, *[accuracy(rows, k, group)[n] for k in keys]] for n in names]
                    + [["all", *[overall(rows, k) for k in keys]]]), "\n")
    print(f"unsure by the rules: {report['unsure']} of {len(rows)}"
          + (f"; asked the model: {report['asked_model']}, seconds p50 {report['model_seconds']['p50']}"
             if args.model else ""))
    if args.show_errors:
        if args.part != splits.DEV:
            parser.error("--show-errors reads the dev part only: the rules are tuned on dev")
        for r in rows:
            for k in keys:
                if r[k] != r["label"]:
                    print(f"{k:>5}: {r['label']:>7} -> {r[k]:<7} {r['question'][:110]!r}  [{r['rules_reason']}]",
                          file=sys.stderr)
    report["kinds"] = list(KINDS)
    report["rows"] = rows  # each question with its label, the rules' kind and reason, and the model's
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"route_quality_{args.part}{'_model' if args.model else ''}.json"
    out.write_text(json.dumps(report, indent=1, ensure_ascii=False))
    print(f"written to {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
