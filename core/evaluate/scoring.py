"""How one answer is scored against its expected answer. Pure functions, no model, no store.

- answer match: the expected text occurs in the answer (case, accents and punctuation ignored);
  else, when the expected answer has numbers, every one of them occurs in the answer within the
  tolerance (units and words around them ignored: "279.84" matches "£279.84" and "279.8");
  else, most of the expected words (eval_min_word_recall) occur in the answer.
- refusal: an expected answer of "not in documents" is right when the answer says the documents
  do not hold it (the Validator's own reading of a no-information answer).
- retrieval hit: one of the sources given to the model is the expected file (and page, if given).
- citation correct: one of the sources the answer cites with [Source N] is the expected file/page.
"""
from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass

from core.agents.validator import is_no_information

# Expected answers (after normalize_text) that say the documents do not hold the answer.
_REFUSAL = re.compile(
    r"^(?:not in (?:the |my |these |any )?(?:documents?|files?|sources?)|no answer|not answerable|unanswerable|n a)$"
)
_CITATION = re.compile(r"\[\s*(?:Source\s+)?\d+\s*\]", re.I)  # [Source 2] (pipeline), [2] (agent mode)
# A number as people write it: 1,234.56 / 1.234,56 / 12,5 / -3 / 0.55; a minus only before a
# number that does not follow a word (the 01 in 2024-01-18 is 1, not -1).
_NUMBER = re.compile(r"(?:(?<![\w.,])-)?(?<![\w.,])\d+(?:[.,']\d+)*")
_STOPWORDS = {
    "a", "an", "the", "of", "in", "on", "at", "to", "for", "and", "or", "is", "are", "was", "were", "be", "by",
    "with", "it", "its", "this", "that", "as", "from",
}
CONFIDENCE_LEVELS = ("high", "medium", "low")


def normalize_text(text: str) -> str:
    """Lower case, no accents, no citations, punctuation as spaces (but 0.55 and 1,234 kept whole)."""
    text = _CITATION.sub(" ", text)
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).lower()
    text = re.sub(r"(?<=\d)[.,](?=\d)", "\x00", text)  # keep decimal and thousands marks inside numbers
    text = re.sub(r"[^\w\x00]+", " ", text).replace("\x00", ".")
    return " ".join(text.split())


def numbers_in(text: str) -> list[float]:
    """Every number in `text`, citations ([Source 2]) left out."""
    return [_number(token) for token in _NUMBER.findall(_CITATION.sub(" ", text))]


def _number(token: str) -> float:
    """The last of "." and "," is the decimal mark when both occur; a lone "," is a thousands
    mark before exactly three digits (1,234) and a decimal mark otherwise (12,5)."""
    token = token.replace("'", "")
    if "." in token and "," in token:
        decimal = "." if token.rfind(".") > token.rfind(",") else ","
        token = token.replace("," if decimal == "." else ".", "").replace(",", ".")
    elif "," in token:
        parts = token.split(",")
        token = "".join(parts) if len(parts) > 2 or len(parts[-1]) == 3 else token.replace(",", ".")
    elif token.count(".") > 1:
        token = token.replace(".", "")
    return float(token)


def number_matches(expected: float, candidates: list[float], tolerance: float) -> bool:
    return any(math.isclose(value, expected, rel_tol=tolerance, abs_tol=1e-9) for value in candidates)


def expects_refusal(expected: str) -> bool:
    return bool(_REFUSAL.match(normalize_text(expected)))


def is_refusal(answer: str) -> bool:
    return is_no_information(answer)


def answer_matches(expected: str, answer: str, tolerance: float, min_word_recall: float) -> bool:
    wanted, said = normalize_text(expected), normalize_text(answer)
    if not wanted:
        return False
    if re.search(rf"(?<!\w){re.escape(wanted)}(?!\w)", said):
        return True
    expected_numbers = numbers_in(expected)
    if expected_numbers:
        answer_numbers = numbers_in(answer)
        return all(number_matches(n, answer_numbers, tolerance) for n in expected_numbers)
    words = [w for w in wanted.split() if w not in _STOPWORDS] or wanted.split()
    present = set(said.split())
    return sum(w in present for w in words) / len(words) >= min_word_recall


@dataclass(frozen=True)
class SourceRef:
    """Where a source the answer was given (or cites) comes from."""

    filename: str
    page: str | None = None  # "4" or a range "3-4"


def file_matches(expected: str, filename: str) -> bool:
    """Same file name, case ignored; the expected name may leave out the extension or the folder."""
    wanted = expected.replace("\\", "/").rsplit("/", 1)[-1].strip().lower()
    name = filename.strip().lower()
    return wanted == name or wanted == name.rsplit(".", 1)[0]


def page_matches(expected_pages: tuple[int, ...], page: str | None) -> bool:
    if not expected_pages:
        return True
    if not page:
        return False
    first, _, last = str(page).partition("-")
    try:
        start, end = int(first), int(last or first)
    except ValueError:
        return False
    return any(start <= p <= end for p in expected_pages)


def source_hit(expected_file: str | None, expected_pages: tuple[int, ...], sources: list[SourceRef]) -> bool | None:
    """Whether any source is the expected file and page; None when no file is expected."""
    if not expected_file:
        return None
    return any(file_matches(expected_file, s.filename) and page_matches(expected_pages, s.page) for s in sources)


@dataclass(frozen=True)
class Verdict:
    correct: bool  # the answer matches, or refuses when a refusal is expected
    expects_refusal: bool
    refused: bool
    retrieval_hit: bool | None  # None: no expected file given, or a refusal is expected
    citation_correct: bool | None


def judge(
    expected: str, expected_file: str | None, expected_pages: tuple[int, ...], answer: str,
    retrieved: list[SourceRef], cited: list[SourceRef], tolerance: float, min_word_recall: float,
) -> Verdict:
    refusal_expected = expects_refusal(expected)
    refused = is_refusal(answer)
    if refusal_expected:
        return Verdict(refused, True, refused, None, None)
    return Verdict(
        correct=answer_matches(expected, answer, tolerance, min_word_recall),
        expects_refusal=False, refused=refused,
        retrieval_hit=source_hit(expected_file, expected_pages, retrieved),
        citation_correct=source_hit(expected_file, expected_pages, cited),
    )


@dataclass(frozen=True)
class CalibrationRow:
    confidence: str
    questions: int
    correct: int

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.questions if self.questions else None


def calibration(pairs: list[tuple[str, bool]]) -> list[CalibrationRow]:
    """Accuracy per confidence level, from (confidence, correct) pairs: a well-calibrated system
    is right more often at "high" than at "medium", and more at "medium" than at "low"."""
    levels = list(CONFIDENCE_LEVELS) + sorted({c for c, _ in pairs} - set(CONFIDENCE_LEVELS))
    return [
        CalibrationRow(level, sum(1 for c, _ in pairs if c == level), sum(1 for c, ok in pairs if c == level and ok))
        for level in levels
    ]


def rate(values: list[bool | None]) -> float | None:
    """Share of True among the values that apply (None is left out); None when none apply."""
    scored = [v for v in values if v is not None]
    return sum(scored) / len(scored) if scored else None
