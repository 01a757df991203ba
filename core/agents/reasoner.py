"""Reasoner (seed 000, step 3): one LLM call over a tight, labelled context.

The context is assembled within a token budget from the passage of each chunk that shares the
most words with the question (not a blind cut at 500 characters), and each source names its file
and page. On the 2-core target a prompt token costs ~30 ms, so the budget is the main speed knob.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from core.annotations.route import StructuredResult, phrase_answer, phrase_table_answer
from core.llm.base import ChatLLM, Completion, LLMError, TokenCallback
from core.retrieval import RetrievedChunk
from core.safety.injection import neutralize
from core.store.keyword import tokenize

TokenCounter = Callable[[list[str]], list[int]]

STYLE_INSTRUCTIONS = {
    "concise": "Provide a brief, direct answer.",
    "detailed": "Provide a comprehensive, detailed answer.",
    "bullet": "Provide the answer as bullet points.",
}
NO_INFORMATION = "The provided documents do not contain information about this."

PROMPT_TEMPLATE = """You are a helpful assistant answering questions based only on the provided document context.

Question: {question}

Context from documents:
{context}

Instructions:
- Answer ONLY based on the provided context
- {style_instruction}
- If the context doesn't contain the answer, say "{no_information}"
- Cite which source(s) support each claim using [Source N] notation

Answer:"""

CONTINUE_INSTRUCTION = "Continue the answer exactly where it stopped. Do not repeat what was already written."

_UNIT = re.compile(r"\S[^\n]*?(?:[.!?](?=\s)|$)", re.MULTILINE)  # a sentence, or a line's end


@dataclass
class Source:
    number: int
    chunk: RetrievedChunk
    text: str  # the sentences shown to the model

    @property
    def label(self) -> str:
        where = f"p. {self.chunk.page}" if self.chunk.page else (f"sheet {self.chunk.sheet}" if self.chunk.sheet else "")
        if self.chunk.rows:
            where = f"{where}, rows {self.chunk.rows}".strip(", ")
        return f"[Source {self.number}] ({self.chunk.filename}{', ' + where if where else ''})"


@dataclass
class Draft:
    answer: str
    context_used: str
    num_sources: int
    sources: list[Source]
    prompt: str = ""
    raw_output: str = ""
    completions: list[Completion] = field(default_factory=list)
    error: str | None = None
    continued: bool = False
    exact: bool = False  # phrased from structured facts: figures computed, not generated
    relaxed: bool = False  # filters were dropped to find anything
    evidence: str = ""  # computed figures the answer may state beyond the sources' text

    @property
    def prompt_tokens(self) -> int:
        return sum(c.prompt_tokens for c in self.completions)

    @property
    def completion_tokens(self) -> int:
        return sum(c.completion_tokens for c in self.completions)


def select_passage(text: str, question: str, budget: int, count_tokens: TokenCounter) -> str:
    """The contiguous stretch of `text` within `budget` tokens that holds the most of the question's
    words, cut at sentence or line ends. Contiguous, because scattered lines of a PDF (a table row
    without its header, half a sentence) read to a small model as noise it declines to answer from."""
    spans = [m.span() for m in _UNIT.finditer(text)]
    if not spans:
        return ""
    units = [text[a:b] for a, b in spans]
    counts = count_tokens(units)
    if sum(counts) <= budget:
        return text[spans[0][0]:spans[-1][1]]
    wanted = set(tokenize(question))
    matched = [wanted & set(tokenize(u)) for u in units]
    best: tuple | None = None
    for start in range(len(units)):
        used, covered, hits, end = 0, set(), 0, start
        while end < len(units) and used + counts[end] <= budget:
            used += counts[end]
            covered |= matched[end]
            hits += len(matched[end])
            end += 1
        if end > start and (best is None or (len(covered), hits) > best[0]):
            best = ((len(covered), hits), start, end)
    if best is None:  # every unit alone is over budget: the words around the best one's first match
        unit = max(range(len(units)), key=lambda i: (len(matched[i]), -i))
        words = units[unit].split()
        first = next((i for i, w in enumerate(words) if wanted & set(tokenize(w))), 0)
        keep = max(1, budget * 3 // 4)
        start = max(0, min(first - keep // 4, len(words) - keep))
        return " ".join(words[start:start + keep])
    _, start, end = best
    return text[spans[start][0]:spans[end - 1][1]]


def build_sources(question: str, chunks: list[RetrievedChunk], budget: int, count_tokens: TokenCounter) -> list[Source]:
    """Label chunks [Source 1..n]; neighbours from the sliding window join the chunk they
    surround, so numbering follows what a reader would call one passage."""
    if not chunks:
        return []
    share = max(40, budget // len(chunks))
    sources = []
    for chunk in chunks:
        # An instruction planted in a document reaches the model as a marker, not as an order.
        text = neutralize(select_passage(chunk.text, question, share, count_tokens))
        if text:
            sources.append(Source(len(sources) + 1, chunk, text))
    return sources


def build_prompt(question: str, sources: list[Source], style: str) -> str:
    context = "\n\n".join(f"{s.label}\n{s.text}" for s in sources) or "(no documents matched)"
    return PROMPT_TEMPLATE.format(
        question=question, context=context,
        style_instruction=STYLE_INSTRUCTIONS.get(style, STYLE_INSTRUCTIONS["concise"]),
        no_information=NO_INFORMATION,
    )


def reason(
    question: str,
    chunks: list[RetrievedChunk],
    llm: ChatLLM,
    *,
    style: str,
    budget: int,
    temperature: float,
    max_tokens: int,
    count_tokens: TokenCounter,
    on_token: TokenCallback | None = None,
) -> Draft:
    sources = build_sources(question, chunks, budget, count_tokens)
    prompt = build_prompt(question, sources, style)
    context_used = "\n\n".join(f"{s.label} {s.text}" for s in sources)
    draft = Draft("", context_used, len(sources), sources, prompt=prompt)
    messages = [{"role": "user", "content": prompt}]
    try:
        first = llm.stream(messages, on_token or (lambda _: None), max_tokens=max_tokens, temperature=temperature)
        draft.completions.append(first)
        text = first.text
        if first.finish_reason != "stop":
            # Seed 004, step 8: same question, trimmed context, continue from the partial answer.
            trimmed = build_prompt(question, sources[: max(1, len(sources) // 2)], style)
            follow = [
                {"role": "user", "content": trimmed},
                {"role": "assistant", "content": text},
                {"role": "user", "content": CONTINUE_INSTRUCTION},
            ]
            more = llm.stream(follow, on_token or (lambda _: None), max_tokens=max_tokens, temperature=temperature)
            draft.completions.append(more)
            draft.continued = True
            text = text.rstrip() + " " + more.text.lstrip()
    except LLMError as exc:
        draft.error = str(exc)
        return draft
    draft.raw_output = text
    draft.answer = text.strip()
    return draft


def phrase_structured(
    result: StructuredResult, chunks: list[RetrievedChunk], max_rows: int, max_sources: int,
    on_token: TokenCallback | None = None,
) -> Draft:
    """The structured route's answer: phrased by a template from the facts, no LLM call, so
    counts, sums and lists are exact and the answer is instant."""
    answer = (phrase_table_answer(result, max_rows, max_sources) if result.table_query is not None else
              phrase_answer(result, max_rows, max_sources, result.measure_columns))
    by_id = {c.chunk_id: c for c in chunks}
    sources = []
    for number, row in enumerate(answer.source_rows, start=1):
        chunk = by_id.get(row.chunk_id or "") or RetrievedChunk(
            row.fact_id, row.doc_id, row.filename, 0, "; ".join(f"{k}: {v}" for k, v in row.properties.items()),
            str(row.page) if row.page else None, row.sheet, str(row.row_index) if row.row_index else None,
            score=1.0, vector_score=1.0, used=True,
        )
        sources.append(Source(number, chunk, chunk.text))
    if on_token:
        on_token(answer.text)
    context = "\n\n".join(f"{s.label} {s.text}" for s in sources)
    return Draft(answer.text, context, len(sources), sources, raw_output=answer.text, exact=True,
                 relaxed=bool(result.relaxed), evidence=answer.evidence)
