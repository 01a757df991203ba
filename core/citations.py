"""How an answer's citations read: where a source is in its file ("p. 3, rows 4-9"), the one form
every screen, prompt and CLI line uses; compact "[1][2]" attached where the claim ends, instead of
runs of "[Source 1] [Source 2] …" or a marker in mid-sentence; and the one-line form of an answer
that the conversation list shows. Display only: the stored answer is unchanged."""
from __future__ import annotations

import re
from collections.abc import Callable

from core.store.keyword import tokenize

# "[Source 3]": the marker the pipeline's prompt asks for, and the one its checks count.
SOURCE_MARKER = re.compile(r"\[\s*Source\s+(\d+)\s*\]", re.I)
# "[Source 3]" (the pipeline) or "[3]" (agent mode); in runs joined by spaces, commas, "and".
MARKER = re.compile(r"\[\s*(?:Source\s+)?(\d+)\s*\]", re.I)
_RUN = re.compile(r"\s*" + MARKER.pattern + r"(?:\s*(?:,|;|and|&)?\s*" + MARKER.pattern + r")*", re.I)
# A claim ends at . ! ? ; followed by a space, unless the period ends a bare number ("1. " in a list), a name's
# initial or a title ("R. Okafor (Chair), J. Whitfield", "Dr. Patel": one person, not three sentences to cite)
_NOT_AN_END = r"(?<!\b\d\.)(?<!\b\d\d\.)(?<!\b[A-Z]\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bDr\.)(?<!\bMrs\.)(?<!\bSt\.)"
_SENTENCE_END = re.compile(_NOT_AN_END + r"(?<=[.!?;])\s+")
_SENTENCE = re.compile(_NOT_AN_END + r"(?<=[.!?])\s+")
_CLOSING = re.compile(r"([.!?:;,]+[\"')\]]*)$")


def location(page: int | str | None = None, sheet: str | None = None, rows: str | None = None,
             row: int | None = None) -> str:
    """ "p. 3", "sheet Orders, rows 4-9" (a passage's rows), "sheet Orders, row 5" (one record's row),
    or "" when the file is one piece (a CSV, a text file)."""
    parts = [f"p. {page}" if page else "", f"sheet {sheet}" if sheet else "", f"rows {rows}" if rows else "",
             f"row {row}" if row else ""]
    return ", ".join(p for p in parts if p)


def nearest_sentence(near: dict) -> str:
    """A refusal's nearest figure in words: "Nearest I found, not the same thing: “Leakage averaged 11.3 Ml/d
    in 2023.” (report.pdf, p. 4): it is about 2023, not 2022." """
    where = ", ".join(p for p in (near["filename"], location(near.get("page"), near.get("sheet"), near.get("rows"))) if p)
    return f"Nearest I found, not the same thing: “{near['quote']}” ({where}): {near['why']}."


# An answer of this many words or fewer is a figure, a name or a yes: the sentence it was read from says what it covers
_SHORT_ANSWER_WORDS = 12


def quoted_evidence(answer: str, citations: list[dict]) -> str:
    """The sentence a short answer was read from, and where: ‘“We spent £1.42m on planned maintenance, up from
    £1.18m.” (report.pdf, p. 1)’, shown under "£1.42m" so the figure comes with what it covers; "" for a longer
    answer, which says that itself, and for an answer no cited source was quoted for (a records answer)."""
    said = _RUN.sub("", answer).split()
    if len(said) > _SHORT_ANSWER_WORDS:
        return ""
    quoted = next((c for c in citations if c.get("cited") and c.get("quote")), None)
    quote = " ".join(quoted["quote"].split()) if quoted else ""
    if not quote or quote.lower() in " ".join(said).lower():
        return ""
    where = ", ".join(p for p in (quoted["filename"], location(quoted.get("page"), quoted.get("sheet"), quoted.get("rows"))) if p)
    return f"“{quote}” ({where})"


def how_found(matched: bool, score: float) -> str:
    """ "similarity 0.612" for a passage a search found; rows a records query matched are exact, not similar."""
    return "rows the query matched" if matched else f"similarity {score:.3f}"


def cited_numbers(answer: str) -> list[int]:
    """The source numbers an answer cites with "[Source N]", each once, in order."""
    return sorted({int(n) for n in SOURCE_MARKER.findall(answer)})


def _sentence(sentence: str) -> tuple[str, list[int]]:
    numbers: list[int] = []
    for run in _RUN.finditer(sentence):
        for n in map(int, MARKER.findall(run.group(0))):
            if n not in numbers:
                numbers.append(n)
    text = _RUN.sub("", sentence)
    text = re.sub(r"\s+([.!?:;,])", r"\1", text).strip()  # "is [Source 1] ." -> "is."
    return text, numbers


def chips(numbers: list[int]) -> str:
    return "".join(f"[{n}]" for n in numbers)


def place_citations(answer: str) -> str:
    """Each claim's citations (a claim ends a sentence or a clause before ";"), deduplicated, as
    "[1][2]" just before its closing punctuation; markers alone give theirs to the claim before."""
    lines = []
    for line in answer.splitlines():
        pieces: list[tuple[str, list[int]]] = []
        for sentence in _SENTENCE_END.split(line):
            text, numbers = _sentence(sentence)
            if not text and pieces:
                pieces[-1][1].extend(n for n in numbers if n not in pieces[-1][1])
            elif text or numbers:
                pieces.append((text, numbers))
        out = []
        for text, numbers in pieces:
            closing = _CLOSING.search(text)
            if numbers and closing:
                text = text[: closing.start()] + " " + chips(numbers) + closing.group(1)
            elif numbers:
                text = f"{text} {chips(numbers)}".strip()
            out.append(text)
        lines.append(" ".join(out))
    return "\n".join(lines)


def short_answer(answer: str, limit: int = 160) -> str:
    """The answer's first sentence without its citations, for a list of past questions: a numbered
    list's "1." is not a sentence of its own, and a long first sentence is cut at a word."""
    flat = " ".join(_RUN.sub("", answer).split())
    first = _SENTENCE.split(flat, maxsplit=1)[0] if flat else ""
    if len(first) > limit:
        first = first[:limit].rsplit(" ", 1)[0] + "…"
    return first


# --- citations placed by code, for an answer whose model left them out -----------------------------

# Sentence ends (kept with their sentence) and line breaks: where a marker may be placed.
_SENTENCE_SPLIT = re.compile(_NOT_AN_END + r"(?<=[.!?])(?=\s)|(?=\n)")
_TRAILING = re.compile(r"[.!?:;,]*\s*$")
_STEM = 5


def _stems(text: str) -> set[str]:
    """Word prefixes, so "retrying" meets "retry" and "verified" meets "verify"."""
    return {token[:_STEM] for token in tokenize(text)}


def words_held(piece: str, sources: list[str]) -> float:
    """The share of a sentence's or a point's words (their first letters, as `attribute_markers` compares them)
    that the sources hold together; 0 for a piece with no words."""
    words = _stems(piece)
    return len(words & set().union(*map(_stems, sources))) / len(words) if words else 0.0


def _bracketed(numbers: list[int]) -> str:
    return f"[{', '.join(map(str, numbers))}]"


def attribute_markers(answer: str, sources: list[str], min_overlap: float,
                      marker: Callable[[list[int]], str] = _bracketed) -> tuple[str, list[int]]:
    """For an answer that cites nothing (small models often leave the markers out, in agent mode and in a
    summary's points): each sentence or line gets the marker of the source holding at least `min_overlap` of
    its words, or of the two sources that together do (a sentence that joins two facts); `marker` writes it
    from the sources' 1-based positions ("[1, 2]"). Headings and code blocks are left alone, and a sentence no
    source holds stays uncited, so grounding still finds it unsupported. Returns the answer and the positions
    placed."""
    vocabularies = [_stems(text) for text in sources]
    pieces, placed, in_code = [], [], False
    for piece in _SENTENCE_SPLIT.split(answer):
        fences = piece.count("```")
        words = _stems(piece)
        if fences or in_code or piece.strip().startswith("#") or len(words) < 2 or not vocabularies:
            in_code = in_code != (fences % 2 == 1)
            pieces.append(piece)
            continue
        order = sorted(range(len(vocabularies)), key=lambda i: -len(words & vocabularies[i]))
        chosen = [order[0]]
        if len(words & vocabularies[order[0]]) < min_overlap * len(words) and len(order) > 1:
            chosen.append(order[1])
        covered = set().union(*(words & vocabularies[i] for i in chosen))
        if len(covered) < min_overlap * len(words) or any(not words & vocabularies[i] for i in chosen):
            pieces.append(piece)
            continue
        numbers = sorted(i + 1 for i in chosen)
        end = _TRAILING.search(piece).start()
        pieces.append(f"{piece[:end]} {marker(numbers)}{piece[end:]}")
        placed += numbers
    return "".join(pieces), sorted(set(placed))
