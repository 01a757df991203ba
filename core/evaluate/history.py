"""Finished runs, kept in the data directory (evaluations/<run_id>.csv and .json), so the next
run can be compared with them without the user keeping the downloads."""
from __future__ import annotations

import json
import logging
import re
from pathlib import Path

from core.evaluate.report import ResultsFileError, read_results_csv, results_csv
from core.evaluate.runner import EvalResult, EvalRun

log = logging.getLogger(__name__)
_RUN_ID = re.compile(r"^[\w-]+$")


def save_run(run: EvalRun, folder: Path) -> Path:
    """Write the run's results and summary; the summary goes last, so a listed run is complete."""
    folder.mkdir(parents=True, exist_ok=True)
    csv_path = folder / f"{run.run_id}.csv"
    _write(csv_path, results_csv(run.results))
    _write(folder / f"{run.run_id}.json", json.dumps(run.summary(), indent=2).encode("utf-8"))
    return csv_path


def _write(path: Path, data: bytes) -> None:
    partial = path.with_suffix(path.suffix + ".part")
    partial.write_bytes(data)
    partial.replace(path)


def list_runs(folder: Path) -> list[dict]:
    """Summaries of the stored runs, newest first; unreadable ones are skipped (and logged)."""
    runs = []
    for path in folder.glob("*.json") if folder.is_dir() else []:
        try:
            summary = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            log.warning("Skipping unreadable evaluation summary %s: %s", path.name, exc)
            continue
        if (folder / f"{summary.get('run_id')}.csv").is_file():
            runs.append(summary)
    return sorted(runs, key=lambda s: s.get("started_at", ""), reverse=True)


def load_results(folder: Path, run_id: str) -> list[EvalResult]:
    if not _RUN_ID.match(run_id):
        raise ResultsFileError(f"'{run_id}' is not a run id.")
    path = folder / f"{run_id}.csv"
    if not path.is_file():
        raise ResultsFileError(f"No stored run '{run_id}'.")
    return read_results_csv(path.read_bytes())
