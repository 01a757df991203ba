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

from core.annotations.conditions import MONTH_NAME
from core.citations import MARKER


# Expected answers (after normalize_text) that say the documents do not hold the answer.
_REFUSAL = re.compile(
    r"^(?:not in (?:the |my |these |any )?(?:documents?|files?|sources?)|no answer|not answerable|unanswerable|n a)$"
)
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
    text = MARKER.sub(" ", text)  # [Source 2] (pipeline), [2] (agent mode)
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).lower()
    text = re.sub(r"(?<=\d)[.,](?=\d)", "\x00", text)  # keep decimal and thousands marks inside numbers
    text = re.sub(r"[^\w\x00]+", " ", text).replace("\x00", ".")
    return " ".join(text.split())


def numbers_in(text: str) -> list[float]:
    """Every number in `text`, citations ([Source 2]) left out."""
    return [_number(token) for token in _NUMBER.findall(MARKER.sub(" ", text))]


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


# --- reference answers of financial QA sets (FinanceBench, Docugami): figures with units and
# scale words, yes/no, content words. Used by bench/ (answer_quality, modes_quality, reader_quality).
# The rules are spelled out in bench/answer_quality.py's docstring.

_NOTE = re.compile(r"\s*The answer here assumes.*$", re.I | re.S)
_PAREN = re.compile(r"\([^()]*\)")
_NUM = re.compile(
    r"(?<![A-Za-z0-9.])(?P<neg>[-−–]\s?|\(\s?)?\$?\s?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?P<after>\s*(?:%|percent\b|per cent\b|percentage points?\b|pts?\b)|"
    r"\s*(?:trillion|billion|million|thousand|bn|mn|mm|m|b|k|tn)\b)?",
    re.I,
)
_SCALES = {"thousand": 1e3, "k": 1e3, "million": 1e6, "mn": 1e6, "mm": 1e6, "m": 1e6,
           "billion": 1e9, "bn": 1e9, "b": 1e9, "trillion": 1e12, "tn": 1e12}
_QUESTION_UNIT = re.compile(r"\b(thousands|millions|billions|trillions)\b", re.I)
REFUSAL_PHRASES = (
    "do not contain", "does not contain", "doesn't contain", "don't contain", "no information",
    "cannot answer", "can't answer", "not provided", "does not provide", "do not provide",
    "doesn't provide", "not mentioned", "not available", "not explicitly", "couldn't find this",
)
_STOP = set("""a an the and or of to in on for by with at from as is are was were be been being has have had
do does did this that these those it its it's their there they them which who whom what when where why how
than then so such also into over under between during per about after before up down out not no yes
will would can could should may might shall company fy fiscal year years
primarily mostly approximately amongst among other presented experienced""".split())


def clean_gold(answer: str) -> str:
    return _NOTE.sub("", answer or "").strip()


_ABBREVIATIONS = {"adj", "inc", "ltd", "co", "corp", "no", "vs", "approx", "est", "mr", "ms", "dr", "st", "jr"}
_MONTH = re.compile(MONTH_NAME + r"\.?\s+$", re.I)


def first_sentence(text: str) -> str:
    """Up to the first full stop (not after an abbreviation or an initial) or colon; line breaks
    inside the sentence are spaces."""
    flat = re.sub(r"\s+", " ", text.strip())
    for m in re.finditer(r"[.!?:](?=\s|$)", flat):
        word = re.findall(r"[A-Za-z]+$", flat[: m.start()])
        if m.group() == "." and word and (word[0].lower() in _ABBREVIATIONS or len(word[0]) == 1):
            continue
        return flat[: m.start() + 1]
    return flat


def numbers(text: str) -> list[dict]:
    """Every number in text: value (absolute), decimals, is_percent, scale (1 if none), raw, year."""
    out = []
    for m in _NUM.finditer(text):
        raw_num = m.group("num")
        after_raw = m.group("after") or ""
        glued = text[m.end("num"):m.end("num") + 1].isalpha()
        if glued and not ("$" in m.group(0) and after_raw.strip().lower() in _SCALES):
            continue  # "3M", "777X", "10K", "1st", "8k filing": names, not figures
        if _MONTH.search(text[max(0, m.start() - 12):m.start()]):
            continue  # "August 30, 2023": a date
        value = float(raw_num.replace(",", ""))
        after = (m.group("after") or "").strip().lower()
        percent = bool(after) and (after.startswith("%") or after.startswith("per") or after.startswith("pt"))
        scale = 1.0 if percent or not after else _SCALES.get(after, 1.0)
        decimals = len(raw_num.split(".")[1]) if "." in raw_num else 0
        year = (not percent and scale == 1.0 and "," not in raw_num and "." not in raw_num
                and 1990 <= value <= 2035 and "$" not in m.group(0))
        out.append({"value": value, "decimals": decimals, "percent": percent, "scale": scale,
                    "raw": m.group(0).strip(), "year": year})
    return out


def gold_figures(gold: str) -> list[dict]:
    return [n for n in numbers(_PAREN.sub(" ", first_sentence(gold))) if not n["year"]]


def _close(a: float, b: float, rel: float = 0.01) -> bool:
    return abs(a - b) <= rel * max(abs(a), abs(b)) + 1e-12


def figure_matches(g: dict, r: dict, question_scale: float) -> bool:
    if g["percent"]:
        if r["scale"] != 1.0:
            return False
        candidates = [r["value"]] + ([r["value"] * 100] if not r["percent"] and r["value"] < 5 else [])
        return any(abs(round(c, g["decimals"]) - g["value"]) <= 0.1 + 1e-9 for c in candidates)
    gold_values = {g["value"], g["value"] * g["scale"], g["value"] * question_scale}
    resp_values = {r["value"], r["value"] * r["scale"]}
    return any(_close(a, b) for a in gold_values for b in resp_values)


def question_scale(question: str) -> float:
    m = _QUESTION_UNIT.search(question)
    return _SCALES[m.group(1).lower().rstrip("s")] if m else 1.0


def polarity(text: str) -> str | None:
    body = re.sub(r"^[\s*#>_`\"'-]*(answer\s*:)?[\s*#>_`\"'-]*", "", text.strip(), flags=re.I)
    m = re.match(r"(yes|no)\b", body, re.I)
    if m:
        return m.group(1).lower()
    head = first_sentence(body).lower()
    head = re.sub(r"\bno (information|data|evidence|mention|details?|specific)\b", " ", head)
    found = set(re.findall(r"\b(yes|no)\b[,.!:;]", head))
    return found.pop() if len(found) == 1 else None


_SYNONYMS = {"billion": "bn", "million": "mn", "thousand": "k", "percent": "%"}


def content_words(text: str) -> list[str]:
    words = []
    text = re.sub(r"\bu\.\s?s\.?", "us", text.lower().replace("’", "'"))
    for w in re.findall(r"[a-z]+(?:'[a-z]+)?|\d+(?:[.,]\d+)*", text):
        w = _SYNONYMS.get(w.replace("'s", ""), w.replace("'s", "")).replace(",", "")
        if len(w) <= 1 or w in _STOP:
            continue
        if w.endswith("s") and len(w) > 3 and w.isalpha():
            w = w[:-1]
        words.append(w)
    return list(dict.fromkeys(words))


def is_refusal(answer: str) -> bool:
    lowered = answer.lower().replace("’", "'")
    return any(p in lowered for p in REFUSAL_PHRASES)


def gold_kind(gold: str) -> str:
    if re.match(r"\s*(yes|no)\b", gold, re.I):
        return "yes/no"
    return "numeric" if gold_figures(gold) else "textual"


def score_answer(q: dict, answer: str) -> dict:
    gold = clean_gold(q["answer"])
    kind = gold_kind(gold)
    detail: dict = {"kind": kind}
    if kind == "yes/no":
        want = re.match(r"\s*(yes|no)\b", gold, re.I).group(1).lower()
        got = polarity(answer)
        detail.update(gold_polarity=want, answer_polarity=got)
        correct = got == want
    elif kind == "numeric":
        figs = gold_figures(gold)
        resp = [r for r in numbers(answer) if not r["year"]]  # "FY 2023" must not match "$2,018mn"
        qs = question_scale(q["question"])
        matched = [any(figure_matches(g, r, qs) for r in resp) for g in figs]
        detail.update(gold_figures=[g["raw"] for g in figs], matched=matched,
                      answer_figures=[r["raw"] for r in resp][:20])
        correct = all(matched)
    else:
        q_words = set(content_words(q["question"]))
        wanted = [w for w in content_words(first_sentence(gold)) if w not in q_words]
        if len(wanted) < 3:  # a headline like "Amcor completed these acquisitions:" says little
            gold_words = content_words(gold)
            wanted = [w for w in gold_words if w not in q_words] or gold_words
        have = set(content_words(answer))
        hit = [w for w in wanted if w in have]
        recall = len(hit) / len(wanted) if wanted else 0.0
        detail.update(wanted=wanted, found=hit, recall=round(recall, 3))
        correct = recall >= 0.6
    return {"correct": bool(correct), "refusal": is_refusal(answer), **detail}
