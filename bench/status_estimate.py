"""How close the chat status's read-time estimate ("Reading 3 passages (about 15 s)") comes to the
time the model really takes to read the prompt (time to its first token, as the provider times it), with the real embedded
model, one process, questions in order: the first estimate uses the setting, later ones the speed
the provider measured on its earlier calls.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/status_estimate.py [--limit 10] [--data-dir DIR]

The questions are the sample documents' example questions (samples/questions.py): this
measures timing, not answers, so no public set is needed and nothing is tuned on it. One JSON
line per question goes to bench/results/status_estimate.jsonl as it is answered.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import RESULTS, table  # noqa: E402
from core.config import Settings  # noqa: E402
from samples import make_samples, sample_questions  # noqa: E402
from core.trace.status import LiveStatus  # noqa: E402
from core.workspace import Workspace  # noqa: E402


class Probe(LiveStatus):
    """The chat page's status, noting the estimate it showed when the answer prompt started."""

    def __init__(self, llm, settings):
        super().__init__(lambda: llm.prompt_tokens_per_second or settings.llm_prompt_tokens_per_second)
        self.speed_source = "measured" if llm.prompt_tokens_per_second else "setting"
        self.prompt: dict | None = None

    def started(self, event):
        super().started(event)
        if event.kind == "llm_call" and "prompt_tokens_estimate" in event.inputs and self.prompt is None:
            self.prompt = {"estimate_tokens": event.inputs["prompt_tokens_estimate"],
                           "estimate_s": round(self.estimate_s or 0, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=Path("/work/kb/ux/estimate"))
    parser.add_argument("--limit", type=int, default=10)
    args = parser.parse_args()
    settings = Settings(data_dir=args.data_dir, llm_provider="embedded")
    ws = Workspace(settings)
    if ws.kb.is_empty():
        ws.ingestor.ingest_paths([p for p in make_samples(args.data_dir / "samples") if p.suffix != ".md"])
    ws.llm.load_in_background()
    while ws.llm.loading:
        time.sleep(0.5)
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / "status_estimate.jsonl"
    # The model's own time to first token (before the screen's PII hold-back), per streamed call.
    completions = []
    ws.llm.on_completion = lambda completion: completions.append(completion) if completion.first_token_seconds else None
    rows = []
    with out.open("w", encoding="utf-8") as sink:
        for question in sample_questions()[: args.limit]:
            probe = Probe(ws.llm, settings)
            completions.clear()
            started = time.monotonic()
            ws.ask(question.question, on_token=probe.on_token, on_event=probe)
            if probe.prompt is None or not completions:
                continue  # answered from records: no prompt to estimate
            first = completions[0]
            row = {"id": question.id, "speed_source": probe.speed_source, **probe.prompt,
                   "first_token_s": first.first_token_seconds, "prompt_tokens": first.prompt_tokens,
                   "cached_tokens": first.cached_tokens, "total_s": round(time.monotonic() - started, 2),
                   "load": round(os.getloadavg()[0], 1)}
            rows.append(row)
            sink.write(json.dumps(row) + "\n")
            sink.flush()
            print(row, flush=True)
    ws.close()
    print(table(["id", "speed from", "est. tokens", "real tokens", "est. s", "real s", "load"],
                [[r["id"], r["speed_source"], r["estimate_tokens"], r["prompt_tokens"], r["estimate_s"],
                  r["first_token_s"], f"{r['load']:.1f}"] for r in rows]))
    for source in ("setting", "measured"):
        errors = [abs(r["estimate_s"] - r["first_token_s"]) for r in rows if r["speed_source"] == source]
        ratios = [r["first_token_s"] / r["estimate_s"] for r in rows if r["speed_source"] == source and r["estimate_s"]]
        if errors:
            print(f"{source}: n={len(errors)}, median |error| {statistics.median(errors):.1f} s, "
                  f"median real/estimate {statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()
