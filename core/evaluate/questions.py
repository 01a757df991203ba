"""A question file: CSV or JSONL, one question with its expected answer per row or line.

Columns (any case; the first name is the one the example file uses):
    question                       required
    expected_answer | expected | answer
                                   required; "not in documents" means the right answer is a refusal
    expected_file | file | source | document      optional: where the answer is
    expected_page | page | pages                  optional: "4", "3-4" or "1, 4"
    tolerance                      optional: relative tolerance for numbers (0.01 = 1 %)
    id                             optional: a name for the question (default: its line number)

Rows that cannot be used are reported with their line number, never silently dropped.
"""
from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass, field

ALIASES = {
    "question": ("question", "query", "q"),
    "expected": ("expected_answer", "expected", "answer", "reference_answer", "gold"),
    "file": ("expected_file", "file", "source", "document", "filename"),
    "pages": ("expected_page", "expected_pages", "page", "pages"),
    "tolerance": ("tolerance",),
    "id": ("id", "question_id", "qid"),
}
_PAGES = re.compile(r"^\s*\d+(?:\s*-\s*\d+)?(?:\s*[,;]\s*\d+(?:\s*-\s*\d+)?)*\s*$")


class QuestionFileError(ValueError):
    """The file as a whole cannot be read. The message is shown to the user as is."""


@dataclass(frozen=True)
class EvalQuestion:
    id: str
    question: str
    expected: str
    expected_file: str | None = None
    expected_pages: tuple[int, ...] = ()
    tolerance: float | None = None  # None: the setting eval_number_tolerance


@dataclass
class QuestionSet:
    questions: list[EvalQuestion]
    problems: list[str] = field(default_factory=list)  # "line 4: no question", shown to the user


def parse_questions(data: bytes, filename: str, max_questions: int) -> QuestionSet:
    text = _decode(data)
    if not text.strip():
        raise QuestionFileError("The question file is empty.")
    is_json = filename.lower().endswith((".jsonl", ".json", ".ndjson")) or text.lstrip().startswith(("{", "["))
    rows = _json_rows(text) if is_json else _csv_rows(text)
    questions: list[EvalQuestion] = []
    problems: list[str] = []
    seen: set[str] = set()
    for line, row in rows:
        if isinstance(row, str):  # a line that is not a JSON object
            problems.append(f"line {line}: {row}")
            continue
        try:
            question = _question(line, row)
        except ValueError as exc:
            problems.append(f"line {line}: {exc}")
            continue
        if question.id in seen:
            problems.append(f"line {line}: the id '{question.id}' is used twice; this one is named '{question.id}@{line}'.")
            question = EvalQuestion(f"{question.id}@{line}", *_rest(question))
        seen.add(question.id)
        questions.append(question)
    if len(questions) > max_questions:
        problems.append(f"{len(questions)} questions: only the first {max_questions} are run (DOCUCHAT_EVAL_MAX_QUESTIONS).")
        questions = questions[:max_questions]
    if not questions:
        detail = f" ({problems[0]})" if problems else ""
        raise QuestionFileError(
            "No usable questions in the file. Each row needs a 'question' and an 'expected_answer'" + detail + "."
        )
    return QuestionSet(questions, problems)


def _rest(question: EvalQuestion) -> tuple:
    return (question.question, question.expected, question.expected_file, question.expected_pages, question.tolerance)


def _decode(data: bytes) -> str:
    if b"\x00" in data[:4096]:
        raise QuestionFileError("This is not a text file. Upload a CSV or JSONL file of questions.")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


def _csv_rows(text: str) -> list[tuple[int, dict]]:
    try:
        dialect = csv.Sniffer().sniff(text[:10_000], delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    reader = csv.DictReader(io.StringIO(text), dialect=dialect)
    if not reader.fieldnames or not any(_key(f) in ALIASES["question"] for f in reader.fieldnames if f):
        raise QuestionFileError(
            "The CSV needs a header row with a 'question' column and an 'expected_answer' column."
        )
    return [(reader.line_num, row) for row in reader]


def _json_rows(text: str) -> list[tuple[int, dict | str]]:
    stripped = text.strip()
    if stripped.startswith("["):  # a JSON array of objects is accepted too
        try:
            items = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise QuestionFileError(f"The JSON could not be read: {exc.msg} (line {exc.lineno}).")
        return [(n, item if isinstance(item, dict) else "not a JSON object") for n, item in enumerate(items, 1)]
    rows: list[tuple[int, dict | str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            rows.append((number, f"not valid JSON ({exc.msg})"))
            continue
        rows.append((number, item if isinstance(item, dict) else "not a JSON object"))
    return rows


def _key(name: str) -> str:
    return re.sub(r"[\s\-]+", "_", str(name).strip().lower())


def _field(row: dict, name: str) -> object:
    values = {_key(k): v for k, v in row.items() if k is not None}
    for alias in ALIASES[name]:
        value = values.get(alias)
        if value is not None and str(value).strip() != "":
            return value
    return None


def _question(line: int, row: dict) -> EvalQuestion:
    question = _field(row, "question")
    expected = _field(row, "expected")
    if question is None:
        raise ValueError("no question.")
    if expected is None:
        raise ValueError("no expected answer (column 'expected_answer').")
    file = _field(row, "file")
    identifier = _field(row, "id")
    return EvalQuestion(
        id=str(identifier).strip() if identifier is not None else f"q{line}",
        question=" ".join(str(question).split()),
        expected=str(expected).strip(),
        expected_file=str(file).strip() if file is not None else None,
        expected_pages=parse_pages(_field(row, "pages")),
        tolerance=_tolerance(_field(row, "tolerance")),
    )


def parse_pages(value: object) -> tuple[int, ...]:
    """4 -> (4,); "3-4" -> (3, 4); "1, 4" -> (1, 4); [1, 4] -> (1, 4); nothing -> ()."""
    if value is None:
        return ()
    if isinstance(value, list):
        value = ",".join(str(v) for v in value)
    text = str(value).strip()
    if isinstance(value, float) and value.is_integer():
        text = str(int(value))
    if not _PAGES.match(text):
        raise ValueError(f"the page '{value}' is not a page number or range (like 4, 3-4 or 1, 4).")
    pages: list[int] = []
    for part in re.split(r"[,;]", text):
        first, _, last = part.partition("-")
        start, end = int(first), int(last or first)
        if start < 1 or end < start:
            raise ValueError(f"the page range '{part.strip()}' is not valid.")
        pages.extend(range(start, end + 1))
    return tuple(dict.fromkeys(pages))


def _tolerance(value: object) -> float | None:
    if value is None:
        return None
    text = str(value).strip()
    try:
        number = float(text.rstrip("%")) / (100 if text.endswith("%") else 1)
    except ValueError:
        raise ValueError(f"the tolerance '{value}' is not a number (like 0.01 or 1%).") from None
    if number < 0:
        raise ValueError("the tolerance cannot be negative.")
    return number
