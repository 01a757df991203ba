"""TAT-QA's official scoring rules (exact match and numeracy-focused F1 with the scale), written anew.

Read from the official `tatqa_metric.py` / `tatqa_utils.py` (NExTplusplus/TAT-QA, MIT), not copied;
each rule below says which official step it follows, so a published figure and ours mean the same:

- an answer is a list of strings and a scale ("", thousand, million, billion, percent);
- each string that reads as a number becomes "%.4f" of its value rounded to 2 places times the scale
  ("%.4f" of the value itself when it carries its own "%"); other strings get the scale word appended;
  the strings are sorted and joined into one;
- a prediction that is one bare number with no scale is also tried as that number alone (so 0.2342
  can meet 23.42 percent as the official `add_percent_pred` allows);
- normalisation splits at spaces, lower-cases, drops punctuation from non-numbers, writes numbers
  as their value, drops articles; exact match compares the normalised strings, F1 aligns bags of
  tokens one to one (Hungarian assignment), rounded to 2 places;
- for arithmetic and count answers F1 is the exact match.
"""
from __future__ import annotations

import re
import string

import numpy as np
from scipy.optimize import linear_sum_assignment

SCALES = ("", "thousand", "million", "billion", "percent")
_NOT_IN_NUMBER = set("'\"\\$€£¥%(),[]")
_PUNCTUATION = set(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_FIRST_NUMBER = re.compile(r"([+-]?\d+(\.\d+)?)|([+-]?\.\d+)")


def scale_factor(scale: str) -> float:
    """hundred/thousand/million/billion by the word they contain, percent 0.01, else 1."""
    scale = scale.lower()
    for word, factor in (("hundred", 100), ("thousand", 1000), ("million", 10**6), ("billion", 10**9)):
        if word in scale:
            return factor
    return 0.01 if "percent" in scale else 1


def _clean(text: str) -> str:
    return "".join(ch for ch in str(text) if ch not in _NOT_IN_NUMBER)


def is_number(text: str) -> bool:
    """A first word that parses as a number, and no second word unless it is a scale word."""
    words = " ".join(_clean(w) for w in text.split()).split()
    if not words:
        return False
    try:
        value = float(words[0])
    except ValueError:
        return False
    if np.isnan(value):
        return False
    return len(words) < 2 or scale_factor(words[1]) != 1


def _first_number(text: str) -> float | int | None:
    found = _FIRST_NUMBER.findall(_clean(text))
    if not found or not found[0][0]:
        return None
    number = found[0][0]
    return float(number) if "." in number else int(number)


def to_number(text: str) -> float | int | None:
    """The value a string states: its first number, times a scale word right after a number,
    negative when a number is in brackets, a hundredth when followed by "%"; rounded to 4 places."""
    number = _first_number(text)
    if number is None:
        return None
    worded = re.search(r"[\d.]+\s?[a-zA-Z]+", text)
    factor = scale_factor(worded.group(0)) if worded else 1
    sign = -1 if re.search(r"\([\d.\s]+\)", text.strip()) else 1
    percent = 0.01 if re.search(r"[\d.\s]+%", text.strip()) else 1
    return round(number * factor * sign * percent, 4)


def normalize(text: str) -> str:
    parts = []
    for token in text.split(" "):
        token = token.lower()
        if not is_number(token):
            token = "".join(ch for ch in token if ch not in _PUNCTUATION)
        if is_number(token):
            token = str(to_number(token))
        token = " ".join(_ARTICLES.sub(" ", token).split())
        if token.strip():
            parts.append(token)
    return " ".join(parts).strip()


def answer_string(answers: list[str], scale: str) -> str:
    """The official one-string form of an answer list with its scale."""
    out = []
    for answer in sorted(str(a) for a in answers):
        if is_number(answer):
            value = to_number(answer)
            if value is None:
                out.append(f"{answer} {scale}" if scale else answer)
            elif "%" in answer:
                out.append("%.4f" % value)
            else:
                out.append("%.4f" % (round(value, 2) * scale_factor(scale)))
        else:
            out.append(f"{answer} {scale}" if scale else answer)
    return " ".join(out)


def _f1(predicted: set[str], gold: set[str]) -> float:
    common = len(gold & predicted)
    precision = common / len(predicted) if predicted else 1.0
    recall = common / len(gold) if gold else 1.0
    return 0.0 if precision == 0 and recall == 0 else 2 * precision * recall / (precision + recall)


def em_f1(predicted: str, gold: str) -> tuple[float, float]:
    """Exact match and bag-of-words F1 of two answer strings (each one span here)."""
    p, g = normalize(predicted), normalize(gold)
    exact = 1.0 if p == g else 0.0
    p_bags, g_bags = [set(p.split())], [set(g.split())]
    scores = np.array([[_f1(pb, gb) for pb in p_bags] for gb in g_bags])
    rows, cols = linear_sum_assignment(-scores)
    best = np.zeros(max(len(g_bags), len(p_bags)))
    for r, c in zip(rows, cols):
        best[r] = max(best[r], scores[r, c])
    return exact, round(float(np.mean(best)), 2)


def gold_answers(question: dict) -> list[str]:
    kind, answer = question["answer_type"], question["answer"]
    if kind in ("span", "multi-span"):
        return list(answer)
    if kind == "count":
        return [str(int(answer))]
    return [str(answer)]


def score(question: dict, prediction: list[str], scale: str) -> tuple[float, float]:
    """(exact match, F1) of a prediction (a list of strings and its scale) against a TAT-QA question."""
    if not prediction or not any(str(p).strip() for p in prediction):
        return 0.0, 0.0
    gold = answer_string(gold_answers(question), question["scale"])
    candidates = [answer_string(prediction, scale)]
    if len(prediction) == 1 and not scale and "%" not in str(prediction[0]) and is_number(str(prediction[0])):
        value = to_number(str(prediction[0]))
        if value is not None:
            candidates.append("%.4f" % value)
    exact, f1 = max(em_f1(c, gold) for c in candidates)
    if question["answer_type"] in ("arithmetic", "count"):
        f1 = exact
    return exact, f1
