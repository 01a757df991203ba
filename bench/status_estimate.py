"""How close the chat status's read-time estimate ("Reading 3 passages (about 15 s)") comes to the
time the model really takes to read the prompt (time to its first token), with the real embedded
model, one process, questions in order: the first estimate uses the setting, later ones the speed
the provider measured on its earlier calls.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/status_estimate.py [--limit 10] [--data-dir DIR]

The questions are the sample documents' example questions (core/evaluate/examples.py): this
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
from core.evaluate.examples import sample_questions  # noqa: E402
from core.samples import make_samples  # noqa: E402
from core.trace.status import LiveStatus  # noqa: E402
from core.workspace import Workspace  # noqa: E402


class Probe(LiveStatus):
    """The chat page's status, noting for the answer prompt its estimate and the real read time."""

    def __init__(self, llm, settings, clock=time.monotonic):
        super().__init__(lambda: llm.prompt_tokens_per_second or settings.llm_prompt_tokens_per_second, clock)
        self.speed_source = "measured" if llm.prompt_tokens_per_second else "setting"
        self.prompt: dict | None = None
        self._call_started = None

    def started(self, event):
        super().started(event)
        if event.kind == "llm_call" and "prompt_tokens_estimate" in event.inputs and self.prompt is None:
            self._call_started = self._clock()
            self.prompt = {"estimate_tokens": event.inputs["prompt_tokens_estimate"],
                           "estimate_s": round(self.estimate_s or 0, 2), "first_token_s": None}

    def on_token(self, token):
        if self.prompt is not None and self.prompt["first_token_s"] is None:
            self.prompt["first_token_s"] = round(self._clock() - self._call_started, 2)
        super().on_token(token)

    def __call__(self, event):
        super().__call__(event)
        if event.kind == "llm_call" and self.prompt is not None and "prompt_tokens" not in self.prompt:
            self.prompt["prompt_tokens"] = event.outputs.get("prompt_tokens")


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
    rows = []
    with out.open("w", encoding="utf-8") as sink:
        for question in sample_questions()[: args.limit]:
            probe = Probe(ws.llm, settings)
            started = time.monotonic()
            ws.ask(question.question, on_token=probe.on_token, on_event=probe)
            if probe.prompt is None or probe.prompt["first_token_s"] is None:
                continue  # answered from records, or the model wrote nothing: no prompt to estimate
            row = {"id": question.id, "speed_source": probe.speed_source, **probe.prompt,
                   "total_s": round(time.monotonic() - started, 2), "load": os.getloadavg()[0]}
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
