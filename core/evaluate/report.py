"""Results as CSV (to download, and to compare a later run with), and the comparison of two runs."""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass, fields

from core.evaluate.runner import EvalResult
from core.evaluate.scoring import normalize_text

COLUMNS = [f.name for f in fields(EvalResult)]
_BOOLEAN = {"correct", "expects_refusal", "refused", "retrieval_hit", "citation_correct"}
_REQUIRED = {"question", "correct"}


class ResultsFileError(ValueError):
    """A previous run's CSV that cannot be compared with. The message is shown to the user as is."""


def results_csv(results: list[EvalResult]) -> bytes:
    """One row per question; yes/no for the checks, empty where a check does not apply."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for result in results:
        row = {name: getattr(result, name) for name in COLUMNS}
        writer.writerow({k: _cell(v) for k, v in row.items()})
    return out.getvalue().encode("utf-8")


def _cell(value: object) -> object:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return value


def read_results_csv(data: bytes) -> list[EvalResult]:
    """A results CSV written by results_csv (a download from an earlier run)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ResultsFileError("The previous results are not a UTF-8 CSV file.") from None
    reader = csv.DictReader(io.StringIO(text))
    missing = _REQUIRED - set(reader.fieldnames or [])
    if missing:
        raise ResultsFileError(
            f"This is not a results file from the Evaluate page (no column {', '.join(sorted(missing))})."
        )
    return [_result(row) for row in reader]


def _result(row: dict) -> EvalResult:
    values: dict[str, object] = {}
    for name in COLUMNS:
        raw = (row.get(name) or "").strip()
        if name in _BOOLEAN:
            values[name] = None if raw == "" else raw.lower() in {"yes", "true", "1"}
        elif name == "seconds":
            try:
                values[name] = float(raw or 0)
            except ValueError:
                values[name] = 0.0
        else:
            values[name] = raw
    values["correct"] = bool(values["correct"])
    values["expects_refusal"] = bool(values["expects_refusal"])
    values["refused"] = bool(values["refused"])
    return EvalResult(**values)  # type: ignore[arg-type]


# --- comparing two runs -----------------------------------------------------------------------

ASPECTS = (("correct", "answer"), ("citation_correct", "citation"), ("retrieval_hit", "retrieval"))


@dataclass(frozen=True)
class Change:
    question: str
    before: EvalResult
    after: EvalResult
    what: str  # "answer: wrong → right; retrieval: miss → hit"


@dataclass
class Comparison:
    better: list[Change]
    worse: list[Change]
    unchanged: int
    only_before: list[str]  # questions the earlier run had and this one has not
    only_now: list[str]


def compare_runs(before: list[EvalResult], after: list[EvalResult]) -> Comparison:
    """Question by question (matched on their text): better when the answer went from wrong to
    right, or stayed as it was while its citation or retrieval improved; worse the other way."""
    earlier = {_key(r.question): r for r in before}
    later = {_key(r.question): r for r in after}
    better, worse, unchanged = [], [], 0
    for key, now in later.items():
        then = earlier.get(key)
        if then is None:
            continue
        old, new = _score(then), _score(now)
        if old == new:
            unchanged += 1
            continue
        change = Change(now.question, then, now, _describe(then, now))
        (better if new > old else worse).append(change)
    return Comparison(
        better, worse, unchanged,
        only_before=[r.question for k, r in earlier.items() if k not in later],
        only_now=[r.question for k, r in later.items() if k not in earlier],
    )


def _key(question: str) -> str:
    return normalize_text(question)


def _score(result: EvalResult) -> tuple[bool, ...]:
    return tuple(bool(getattr(result, name)) for name, _ in ASPECTS)


_WORDS = {"answer": ("wrong", "right"), "citation": ("wrong", "right"), "retrieval": ("miss", "hit")}


def _describe(before: EvalResult, after: EvalResult) -> str:
    parts = []
    for name, label in ASPECTS:
        old, new = bool(getattr(before, name)), bool(getattr(after, name))
        if old != new:
            words = _WORDS[label]
            parts.append(f"{label}: {words[old]} → {words[new]}")
    return "; ".join(parts)


# --- the report in words (the CLI) ------------------------------------------------------------

def percent(share: float | None) -> str:
    return "n/a" if share is None else f"{100 * share:.0f}%"


def _mark(value: bool | None) -> str:
    return "-" if value is None else ("yes" if value else "no")


def text_report(run, comparison: Comparison | None = None) -> str:
    """Per question, the totals, accuracy per confidence level and, if given, what changed."""
    lines = [f"{'id':<20} {'right':<5} {'retr.':<5} {'cited':<5} {'conf.':<6} {'sec':>6}  question"]
    for r in run.results:
        right = "ERR" if r.error else _mark(r.correct)
        lines.append(f"{r.id[:20]:<20} {right:<5} {_mark(r.retrieval_hit):<5} {_mark(r.citation_correct):<5} "
                     f"{r.confidence:<6} {r.seconds:>6.1f}  {r.question[:70]}")
    t = run.totals
    lines += [
        "",
        f"{t.questions} questions: answers right {percent(t.correct)}, retrieval hit {percent(t.retrieval_hit)}, "
        f"citations right {percent(t.citation_correct)}, refusals right {percent(t.refusals_correct)} "
        f"(of {t.refusal_questions}), errors {t.errors}",
        f"time: {t.seconds_total:.1f} s in total, median {t.seconds_median or 0:.1f} s a question",
        "accuracy by confidence: " + ", ".join(
            f"{c.confidence} {percent(c.accuracy)} ({c.correct}/{c.questions})" for c in run.calibration),
    ]
    if comparison is not None:
        lines.append(f"compared with the previous run: {len(comparison.better)} better, {len(comparison.worse)} worse, "
                     f"{comparison.unchanged} unchanged")
        lines += [f"  better: {c.question[:70]} ({c.what})" for c in comparison.better]
        lines += [f"  worse:  {c.question[:70]} ({c.what})" for c in comparison.worse]
    return "\n".join(lines)
