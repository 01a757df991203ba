"""Chunking: page-level or document-level, sized for the embedding model.

Units are lines (a table row is always one line, so rows are never cut); a line over the budget
is split at sentences, then at words. Units are packed up to `chunk_size_tokens`, and prose chunks
start with the last `chunk_overlap_tokens` of the previous one. With the document strategy,
chunks may span pages and carry a page range ("3-4").
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterable

from core.ingest.context import heading_marks
from core.ingest.document import LoadedDocument, Section
from core.ingest.sentences import split_sentences

TokenCounter = Callable[[list[str]], list[int]]

_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+(?=\S)|(?<=[。！？])")


@dataclass
class Chunk:
    doc_id: str
    chunk_index: int
    text: str
    token_count: int
    page_start: int | None = None
    page_end: int | None = None
    sheet: str | None = None
    row_start: int | None = None
    row_end: int | None = None
    heading: str | None = None  # the section heading in force at the chunk's first line

    @property
    def chunk_id(self) -> str:
        return f"{self.doc_id}_{self.chunk_index}"

    @property
    def page_label(self) -> str | None:
        if self.page_start is None:
            return None
        if self.page_end is None or self.page_end == self.page_start:
            return str(self.page_start)
        return f"{self.page_start}-{self.page_end}"


@dataclass
class _Unit:
    text: str
    tokens: int
    page: int | None
    sheet: str | None
    row: int | None
    heading: str | None = None


def chunk_document(
    document: LoadedDocument,
    doc_id: str,
    count_tokens: TokenCounter,
    strategy: str = "page",
    size: int = 200,
    overlap: int = 30,
) -> list[Chunk]:
    if strategy not in {"page", "document"}:
        raise ValueError(f"Unknown chunking strategy {strategy!r}: use 'page' or 'document'.")
    chunks: list[Chunk] = []
    marks = dict(zip(map(id, document.sections), heading_marks(document.sections)))
    for group, is_table in _groups(document.sections, strategy):
        room = size
        head = group[0].head if is_table else None
        if head:  # a PDF table: every chunk of it carries its head, in its heading (the reader's context line)
            room = max(size // 2, size - sum(count_tokens(head)))
            marks[id(group[0])] = ["\n".join(h for h in (mark, *head) if h) for mark in marks[id(group[0])]]
        units = _units(group, count_tokens, room, marks)
        for packed in _pack(units, room, 0 if is_table else overlap):
            chunks.append(_make_chunk(doc_id, len(chunks), packed))
    return chunks


def _groups(sections: list[Section], strategy: str) -> Iterable[tuple[list[Section], bool]]:
    """Sections packed together: one at a time, or runs of prose pages under 'document'."""
    run: list[Section] = []
    for section in sections:
        if section.is_table or strategy == "page":
            if run:
                yield run, False
                run = []
            yield [section], section.is_table
        else:
            run.append(section)
    if run:
        yield run, False


def _units(
    sections: list[Section], count_tokens: TokenCounter, size: int, marks: dict[int, list[str | None]],
) -> list[_Unit]:
    raw: list[tuple[str, Section, int | None, str | None]] = []
    for section in sections:
        rows = section.row_numbers or []
        headings = marks.get(id(section), [])
        for i, line in enumerate(section.text.split("\n")):
            line = " ".join(line.split())
            if line:
                raw.append((line, section, rows[i] if i < len(rows) else None,
                            headings[i] if i < len(headings) else None))
    counts = count_tokens([text for text, _, _, _ in raw])
    units: list[_Unit] = []
    for (text, section, row, heading), tokens in zip(raw, counts):
        pieces = [(text, tokens)] if tokens <= size else _split_long(text, count_tokens, size)
        units.extend(_Unit(t, n, section.page, section.sheet, row, heading) for t, n in pieces)
    return units


def _split_long(text: str, count_tokens: TokenCounter, size: int) -> list[tuple[str, int]]:
    """Sentences first; a sentence still over budget is cut into word windows."""
    sentences = split_sentences(text, _SENTENCE_END)
    pieces: list[tuple[str, int]] = []
    for sentence, tokens in zip(sentences, count_tokens(sentences)):
        if tokens <= size:
            pieces.append((sentence, tokens))
            continue
        words = [w for w in sentence.split(" ") if w]
        word_counts = count_tokens(words)
        window: list[str] = []
        window_tokens = 0
        for word, word_tokens in zip(words, word_counts):
            for piece, piece_tokens in _split_word(word, word_tokens, count_tokens, size):
                if window and window_tokens + piece_tokens > size:
                    pieces.append((" ".join(window), window_tokens))
                    window, window_tokens = [], 0
                window.append(piece)
                window_tokens += piece_tokens
        if window:
            pieces.append((" ".join(window), window_tokens))
    return _merge_small(pieces, size)


def _split_word(word: str, tokens: int, count_tokens: TokenCounter, size: int) -> list[tuple[str, int]]:
    """A "word" over the budget (text without spaces: Chinese, "1,2,3,..." runs) cut in halves."""
    if tokens <= size or len(word) < 2:
        return [(word, tokens)]
    middle = len(word) // 2
    halves = [word[:middle], word[middle:]]
    result: list[tuple[str, int]] = []
    for half, half_tokens in zip(halves, count_tokens(halves)):
        result.extend(_split_word(half, half_tokens, count_tokens, size))
    return result


def _merge_small(pieces: list[tuple[str, int]], size: int) -> list[tuple[str, int]]:
    merged: list[tuple[str, int]] = []
    for text, tokens in pieces:
        if merged and merged[-1][1] + tokens <= size:
            merged[-1] = (merged[-1][0] + " " + text, merged[-1][1] + tokens)
        else:
            merged.append((text, tokens))
    return merged


def _pack(units: list[_Unit], size: int, overlap: int) -> Iterable[list[_Unit]]:
    current: list[_Unit] = []
    total = 0
    fresh = 0  # units in `current` that are not overlap carried from the previous chunk
    for unit in units:
        if fresh and total + unit.tokens > size:
            yield current
            current, total = _tail(current, overlap, size - unit.tokens)
            fresh = 0
        current.append(unit)
        total += unit.tokens
        fresh += 1
    if fresh:
        yield current


def _tail(units: list[_Unit], overlap: int, room: int) -> tuple[list[_Unit], int]:
    """The last units of a chunk, up to `overlap` tokens, that still leave room for the next."""
    tail: list[_Unit] = []
    total = 0
    budget = min(overlap, room)
    for unit in reversed(units[1:]):  # never carry a whole chunk over
        if total + unit.tokens > budget:
            break
        tail.insert(0, unit)
        total += unit.tokens
    return tail, total


def _make_chunk(doc_id: str, index: int, units: list[_Unit]) -> Chunk:
    pages = [u.page for u in units if u.page is not None]
    rows = [u.row for u in units if u.row is not None]
    return Chunk(
        doc_id=doc_id,
        chunk_index=index,
        text="\n".join(u.text for u in units),
        token_count=sum(u.tokens for u in units),
        page_start=min(pages) if pages else None,
        page_end=max(pages) if pages else None,
        sheet=units[0].sheet,
        row_start=min(rows) if rows else None,
        row_end=max(rows) if rows else None,
        heading=units[0].heading,
    )
