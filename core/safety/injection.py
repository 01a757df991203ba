"""Prompt-injection patterns, checked on the question and on retrieved text.

The specified phrases: "ignore previous instructions", "disregard above", "forget all",
"new instructions:", "system:", script tags, JavaScript/data URIs. The patterns allow the small
variations attackers use ("ignore all previous instructions", "disregard the above").
"""
from __future__ import annotations

import re

_PATTERNS: dict[str, re.Pattern[str]] = {
    "ignore previous instructions": re.compile(
        r"\bignore\s+(?:all\s+|any\s+|the\s+)?(?:previous|prior|above|earlier)\s+(?:instructions|prompts?|rules)\b", re.I
    ),
    "disregard above": re.compile(r"\bdisregard\s+(?:all\s+|the\s+)?(?:above|previous|prior)\b", re.I),
    "forget all": re.compile(r"\bforget\s+(?:all|everything)\b", re.I),
    "new instructions:": re.compile(r"\bnew\s+instructions\s*:", re.I),
    # At the start of a line (or after a fake turn marker), so "Operating system: Linux" is fine.
    "system:": re.compile(r"(?:^|\n|[\]>|#])\s*system\s*:", re.I),
    "script tag": re.compile(r"<\s*/?\s*script\b", re.I),
    "javascript uri": re.compile(r"\bjavascript\s*:", re.I),
    "data uri": re.compile(r"\bdata\s*:\s*[a-z]+/[a-z0-9.+-]+\s*[;,]", re.I),
}


def find_injection(text: str) -> list[str]:
    """Names of the injection patterns found in `text` (empty when clean)."""
    return [name for name, pattern in _PATTERNS.items() if pattern.search(text or "")]


def has_injection(text: str) -> bool:
    return bool(find_injection(text))


NEUTRALIZED = "[removed: text in the document that reads as an instruction to the assistant]"
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def neutralize(text: str) -> str:
    """Document text as the model may see it: each sentence (or table cell, "Header: value | ...")
    that matches an injection pattern is replaced by a marker, so an instruction planted in a
    document never reaches the model as an instruction, while the rest of its line still does."""
    if not has_injection(text):
        return text
    lines = []
    for line in text.split("\n"):
        if not has_injection(line):
            lines.append(line)
        elif " | " in line:
            lines.append(" | ".join(NEUTRALIZED if has_injection(cell) else cell for cell in line.split(" | ")))
        else:
            parts = _SENTENCE_END.split(line)
            lines.append(" ".join(NEUTRALIZED if has_injection(part) else part for part in parts))
    return "\n".join(lines)
