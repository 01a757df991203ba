"""Passage-level re-ranking of fused candidates (issue 15, item 4).

A chunk is ~200 word pieces; the figure a question asks for is one line of it. The chunk's
embedding averages that line with its neighbours, so the chunk holding the answer often ranks
below chunks that are about the question's topic in general. Before the 2-3 passages the model
reads are chosen, each of the first `rerank_pool` fused candidates is scored by its best window
of a few sentences or table rows:

    window score = cosine(question, window)  (the embedder already loaded)
                 + rerank_lexical_weight x share of the question's terms found in the chunk's
                   context line and the window (names, periods, a figure's row label: exact words)
    chunk score  = its best window's score + rerank_prior_weight x its fused score / the best fused score

The context line (company, form, period, section) counts for every window's terms, since "Apple
... quarter ended July 1, 2023" is what makes "Net sales 81,797" an answer about Apple's Q3; it is
not embedded with each window, because embedding is the cost here (on 2 cores loaded by other
work, 20 chunks' overlapping windows with their context lines took 35 s). Windows do not overlap
for the same reason. The best window is kept on the chunk (`RetrievedChunk.focus`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from core.ingest.sentences import ends_with_abbreviation
from core.store.keyword import tokenize

# A sentence, or a line (a statement row) where lines do not end in a full stop.
_UNIT = re.compile(r"\S[^\n]*?(?:[.!?](?=\s)|$)", re.MULTILINE)
WRAPPED_LINE_CHARS = 80  # a prose line this long with no full stop was wrapped at the page's margin
_MAX_CONTINUATION_LINES = 3  # a sentence's end is read from the next chunk for at most this many lines
_ROW = re.compile(r"\||^\s*[\w ()/.-]{1,40}:\s")  # "order_no: A-1001 | client: ...", "Width: 1134 mm"


@dataclass
class Window:
    start: int  # character offsets in the chunk text
    end: int
    text: str


def continues(line: str, following: str) -> bool:
    """Whether `following` goes on with the sentence `line` is in: a PDF wraps prose at a line's end, so
    "... at the end of year 25 the" / "module still delivers at least 84.8 %" is one sentence. Not a
    table row or a "label: value" line, which start in lower case too. A line that ends in an abbreviation
    ("... by the effects of the U.S.") or runs to the margin without a full stop ("... by the effects of the" /
    "Tax Act of 2017") goes on whatever the case of the next word; a short one may be a heading."""
    line = line.rstrip()
    wrapped = following.lstrip()[:1].islower() or len(line) >= WRAPPED_LINE_CHARS and following.lstrip()[:1].isupper()
    open_ = ends_with_abbreviation(line) or (wrapped and not line.endswith((".", "!", "?", ":", ";")))
    return open_ and not _ROW.search(line) and not _ROW.search(following)


def unit_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the text's sentences, and of its lines where lines do not end in a full stop; a
    sentence goes on past an abbreviation ("the U.S. Tax Act")."""
    spans: list[tuple[int, int]] = []
    for match in _UNIT.finditer(text):
        if spans and ends_with_abbreviation(text[spans[-1][0]:spans[-1][1]]):
            spans[-1] = (spans[-1][0], match.end())
        else:
            spans.append(match.span())
    return spans


def ends_inside_a_sentence(text: str) -> bool:
    text = text.rstrip()
    return bool(text) and (text[-1] not in ".!?:;" or ends_with_abbreviation(text))


def rest_of_sentence(text: str, following: str) -> str:
    """What a chunk cut inside a sentence needs from the next chunk to finish it ("" when it ends a
    sentence, or on a line that is followed by a new one, such as a table row). Chunks are packed
    from PDF lines, so a chunk can end "... at the end of year 25 the" with the figure in the next
    one; the next chunk starts with the last lines of this one (the overlap), which are skipped."""
    if not ends_inside_a_sentence(text):
        return ""
    lines = text.rstrip().split("\n")
    rest = following
    for start in range(len(lines)):  # the longest run of this chunk's last lines that opens the next one
        overlap = "\n".join(lines[start:])
        if following.startswith(overlap):
            rest = following[len(overlap):]
            break
    taken, previous = [], lines[-1]
    for line in rest.lstrip().split("\n")[:_MAX_CONTINUATION_LINES]:
        if not continues(previous, line):  # a new sentence or row
            break
        end = re.search(r"[.!?](?=\s|$)", line)
        taken.append(line[: end.end()] if end else line)
        if end:
            break
        previous = line
    return "".join("\n" + line for line in taken)


def windows(text: str, size: int) -> list[Window]:
    """Consecutive runs of `size` sentences or lines, side by side (every unit in one window; the
    last one may be shorter); one window when the text is shorter."""
    spans = unit_spans(text)
    size = max(1, size)
    runs = [spans[i:i + size] for i in range(0, len(spans), size)]
    return [Window(run[0][0], run[-1][1], text[run[0][0]:run[-1][1]]) for run in runs]


def lexical_share(terms: set[str], text: str) -> float:
    """Share of the question's terms that occur in `text` (keyword-index tokens: lower case, no
    stopwords, plural folded)."""
    if not terms:
        return 0.0
    return len(terms & set(tokenize(text))) / len(terms)


@dataclass
class Scored:
    index: int  # position in the candidate list given
    score: float
    focus: Window | None
    similarity: float  # the best window's cosine
    lexical: float  # the best window's term share


def score_windows(
    question: str, texts: Sequence[str], contexts: Sequence[str],
    embed: Callable[[list[str]], np.ndarray] | None, size: int,
) -> list[list[tuple[Window, float, float]]]:
    """Per text: each window with its (cosine, lexical share). One embedder call for all windows;
    with no embedder, cosines are 0 (lexical re-ranking only, at no model cost)."""
    terms = set(tokenize(question))
    per_text = [windows(t, size) for t in texts]
    flat = [w.text for ws in per_text for w in ws]
    if not flat:
        return [[] for _ in texts]
    if embed is None:
        cosines = np.zeros(len(flat), dtype=np.float32)
    else:
        vectors = embed([question] + flat)
        cosines = vectors[1:] @ vectors[0]
    out, i = [], 0
    for context, ws in zip(contexts, per_text):
        row = []
        for w in ws:
            row.append((w, float(cosines[i]), lexical_share(terms, f"{context}\n{w.text}")))
            i += 1
        out.append(row)
    return out


def combine(
    scored: list[list[tuple[Window, float, float]]], fused: Sequence[float], lexical_weight: float, prior_weight: float,
) -> list[Scored]:
    """Each candidate's score from its best window and its fused score, best first (ties keep the
    fused order)."""
    top = max(fused) if fused else 0.0
    results = []
    for index, (row, fused_score) in enumerate(zip(scored, fused)):
        prior = prior_weight * (fused_score / top if top > 0 else 0.0)
        if not row:
            results.append(Scored(index, prior, None, 0.0, 0.0))
            continue
        window, similarity, lexical = max(row, key=lambda x: x[1] + lexical_weight * x[2])
        results.append(Scored(index, similarity + lexical_weight * lexical + prior, window, similarity, lexical))
    return sorted(results, key=lambda s: (-s.score, s.index))
