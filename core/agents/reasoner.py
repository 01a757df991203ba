"""Reasoner: one LLM call over a tight, labelled context.

The context is assembled within a token budget from the passage of each chunk that shares the
most words with the question (not a blind cut at 500 characters), and each source names its file
and page. On the 2-core target a prompt token costs ~30 ms, so the budget is the main speed knob.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Callable

from core.agents import calculate, question_kind
from core.annotations.route import StructuredResult, phrase_answer, phrase_table_answer
from core.citations import SOURCE_MARKER, location
from core.ingest.context import without_repeated_heading
from core.ingest.sentences import split_sentences
from core.llm.base import ChatLLM, Completion, LLMError, LLMMalformedJSON, TokenCallback
from core.retrieval import RetrievedChunk
from core.retrieval.evidence import continues, ends_inside_a_sentence, unit_spans
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

# The quote form (bench/reader_quality.py, docs/reader.md): the specified prompt up to its context, then
# the model copies the evidence and answers from it under a JSON schema. Whether the documents hold
# the answer is decided by the Validator finding that quote in its source, not by the model: this
# 1.5B model obeys a refusal line even when the answer is in front of it (issue 15).
QUOTE_INSTRUCTIONS = """Instructions:
- Answer ONLY based on the provided context
- {style_instruction}
- In "quote", copy word for word the sentence or table row of the context that states the answer{optional}
- In "source", give the N of the [Source N] the quote is from
- In "answer", answer the question from the quote

Answer as JSON:"""
QUOTE_OPTIONAL = " (an empty string if no source states it)"
QUOTE_MAX_CHARS = 300
QUOTE_SCHEMA = {
    "type": "object",
    # A quote is one sentence or row: bounded, so a model that starts copying a whole table stops
    # (at ~5-15 generated tokens a second, 300 characters is already several seconds).
    "properties": {"quote": {"type": "string", "maxLength": QUOTE_MAX_CHARS}, "source": {"type": "integer"},
                   "answer": {"type": "string"}},
    "required": ["quote", "source", "answer"],
}
# The calc form: the quote form, plus the figures a calculation needs and its operation, so code
# (core/agents/calculate.py) does the arithmetic the 1.5B model gets wrong (docs/reader.md).
CALC_INSTRUCTIONS = """Instructions:
- Answer ONLY based on the provided context
- {style_instruction}
- In "quote", copy word for word the sentence or table row of the context that states the answer
- In "source", give the N of the [Source N] the quote is from
- If the answer needs a calculation, list in "figures" each number it needs, copied exactly as printed in the context, with a "label" saying what it is and its year; and set "operation" to one of: sum, difference (first minus second), ratio (first divided by second), percent (first as a percent of second), percent_change (from first to second), average, max, min. Otherwise "figures" is [] and "operation" is "none"
- In "answer", answer the question from the quote

Answer as JSON:"""
CALC_SCHEMA = {
    "type": "object",
    "properties": {
        "quote": {"type": "string", "maxLength": QUOTE_MAX_CHARS}, "source": {"type": "integer"},
        # At most 4 figures of bounded length: a statement has at most a few inputs to one ratio, and
        # each extra generated token costs ~0.1 s here.
        "figures": {"type": "array", "maxItems": 4, "items": {
            "type": "object", "properties": {"label": {"type": "string", "maxLength": 80},
                                             "value": {"type": "string", "maxLength": 24}},
            "required": ["label", "value"]}},
        "operation": {"type": "string", "enum": [calculate.NONE, *calculate.OPERATIONS]},
        "answer": {"type": "string"},
    },
    "required": ["quote", "source", "figures", "operation", "answer"],
}
# The line form: the context's sentences and table rows are numbered and the model names the one
# that states the answer under a JSON enum, so code, not the model, copies the quote: it cannot be
# mis-copied, and the model writes a line id (~3 tokens) instead of up to 300 characters before the
# answer's first word. The Validator then checks that line as it checks a quote (docs/reader.md).
LINE_INSTRUCTIONS = """Instructions:
- Answer ONLY based on the provided context
- {style_instruction}
- Every sentence and table row of the context starts with its line id (L1, L2, ...). In "line", give the id of the line that states the answer
- In "answer", answer the question from that line

Answer as JSON:"""
FREE, QUOTE, QUOTE_OPTIONAL_FORM, CALC, LINE = "free", "quote", "quote_optional", "calc", "line"
READER_FORMS = (FREE, QUOTE, QUOTE_OPTIONAL_FORM, CALC, LINE)


@dataclass
class Source:
    number: int
    chunk: RetrievedChunk
    text: str  # the sentences shown to the model

    @property
    def label(self) -> str:
        where = location(self.chunk.page, self.chunk.sheet, self.chunk.rows)
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
    doubtful: bool = False  # a stated condition not applied, or a word read as a value by judgement: low confidence
    evidence: str = ""  # computed figures the answer may state beyond the sources' text
    # The quote form: what the model copied as its evidence and the [Source N] it named (None when
    # the answer was written as free text). The Validator looks for the quote in that source.
    quote: str | None = None
    quote_source: int | None = None
    # The calc form: the (label, value as printed) pairs the model named and its operation; the
    # Validator checks each value is printed in a source and computes the answer from them.
    figures: list[tuple[str, str]] = field(default_factory=list)
    operation: str = calculate.NONE
    question: str = ""  # what the model was asked

    @property
    def prompt_tokens(self) -> int:
        return sum(c.prompt_tokens for c in self.completions)

    @property
    def completion_tokens(self) -> int:
        return sum(c.completion_tokens for c in self.completions)

    def describe(self) -> str:
        return f"error: {self.error}" if self.error else f"{self.prompt_tokens} prompt + {self.completion_tokens} answer tokens"

    def trace(self) -> dict:
        """The prompt, the model's raw reply and what was read from it, with the call's costs; an
        answer phrased from facts has only its text and the figures computed for it."""
        if self.exact:
            return {"answer": self.answer, "evidence": self.evidence}
        return {
            "prompt": self.prompt, "raw_output": self.raw_output, "error": self.error,
            "quote": self.quote, "quote_source": self.quote_source,
            "figures": [{"label": label, "value": value} for label, value in self.figures], "operation": self.operation,
            "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
            "cached_tokens": sum(c.cached_tokens for c in self.completions),
            "finish_reasons": [c.finish_reason for c in self.completions], "continued": self.continued,
            "llm_seconds": [c.seconds for c in self.completions],
            "sources": [{"n": x.number, "chunk_id": x.chunk.chunk_id, "label": x.label} for x in self.sources],
        }


_MAX_CONTINUATION_UNITS = 2  # lines a passage may run past its budget to finish its last sentence


def select_passage(text: str, question: str, budget: int, count_tokens: TokenCounter) -> str:
    """The contiguous stretch of `text` within `budget` tokens that holds the most of the question's
    words, cut at sentence or line ends. Contiguous, because scattered lines of a PDF (a table row
    without its header, half a sentence) read to a small model as noise it declines to answer from."""
    spans = unit_spans(text)
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
    # a run that stops inside a sentence ("... by the effects of the") takes the rest of it, past the
    # budget: half a sentence reads to the model as the whole claim
    # (whether it goes on is read off the whole printed line it ends on: a sentence that starts mid-line, "... met
    # their service level. The main event ... at the Leeds office on 14", ran to the margin all the same)
    last = end + _MAX_CONTINUATION_UNITS
    while end < min(last, len(units)) and ends_inside_a_sentence(units[end - 1]) \
            and continues(text[text.rfind("\n", 0, spans[end - 1][1]) + 1:spans[end - 1][1]], units[end]):
        end += 1
    return text[spans[start][0]:spans[end - 1][1]]


def build_sources(question: str, chunks: list[RetrievedChunk], budget: int, count_tokens: TokenCounter) -> list[Source]:
    """Label chunks [Source 1..n]; neighbours from the sliding window join the chunk they
    surround, so numbering follows what a reader would call one passage."""
    if not chunks:
        return []
    share = max(40, budget // len(chunks))
    sources = []
    for chunk in chunks:
        # The chunk's context line (company, form, period, section) goes first and out of its
        # share: a figure is only an answer to "Apple's ... in Q3 2023" if the model sees whose it is.
        room = share - (count_tokens([chunk.context])[0] if chunk.context else 0)
        passage = select_passage(chunk.text, question, max(40, room), count_tokens)
        # An instruction planted in a document reaches the model as a marker, not as an order.
        context = without_repeated_heading(chunk.context, passage) if chunk.context else ""
        text = neutralize("\n".join(p for p in (context, passage) if p)) if passage else ""
        if text:
            sources.append(Source(len(sources) + 1, chunk, text))
    return sources


# A PDF sentence ends at a full stop before a capital (or an opening bracket or quote), not after an
# abbreviation ("the U.S. Tax Act"); a short piece ("Note 4.") stays with what follows it.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"\u201c])")
_MIN_SENTENCE_CHARS = 25


def source_lines(text: str) -> list[str]:
    """A source's text as the line form numbers it: its sentences and table rows. A sentence that
    the PDF wrapped over several lines is one line (evidence.continues), and a line that holds
    several sentences is several, so the line the model names is the whole claim, no more."""
    joined: list[str] = []
    previous = ""
    for raw in text.split("\n"):
        line = raw.strip()
        if not line:
            continue
        if joined and continues(previous, line):
            joined[-1] = f"{joined[-1]} {line}"
        else:
            joined.append(line)
        previous = line
    out: list[str] = []
    for item in joined:
        pieces = split_sentences(item, _SENTENCE_END)
        merged: list[str] = []
        for piece in pieces:
            if merged and len(merged[-1]) < _MIN_SENTENCE_CHARS:
                merged[-1] = f"{merged[-1]} {piece}"
            else:
                merged.append(piece)
        out += merged
    return out


def numbered_lines(sources: list[Source]) -> list[tuple[str, int, str]]:
    """(line id, source number, text) of every line of the sources in the line form, in order."""
    out = []
    for source in sources:
        for text in source_lines(source.text):
            out.append((f"L{len(out) + 1}", source.number, text))
    return out


def line_schema(sources: list[Source]) -> dict:
    """{line, answer}: the line id is one of the context's, enforced by the grammar (an enum)."""
    ids = [line_id for line_id, _, _ in numbered_lines(sources)] or ["L1"]
    return {"type": "object", "properties": {"line": {"type": "string", "enum": ids}, "answer": {"type": "string"}},
            "required": ["line", "answer"]}


def _context(sources: list[Source], form: str) -> str:
    if form != LINE:
        return "\n\n".join(f"{s.label}\n{s.text}" for s in sources)
    lines = numbered_lines(sources)
    return "\n\n".join(s.label + "".join(f"\n{line_id} {text}" for line_id, number, text in lines if number == s.number)
                       for s in sources)


# Where the question and the passages sit in the prompt. SEED is the specified prompt (question, context,
# instructions). INSTRUCTIONS_FIRST puts what never changes first, so llama.cpp reuses that prefix's KV cache
# from the previous answer and the model reads only the passages and the question (~110 tokens fewer, ~17 % of
# a prompt, at ~36 tokens/s here), and asks the question after the passages. On the FinanceBench dev part's
# fixed contexts it answered 11 of 24 right against the seed's 8, with 2 wrong answers against 6; keeping the
# question before the passages answered 7 (docs/reader.md, session 39).
SEED, INSTRUCTIONS_FIRST = "seed", "instructions_first"
PROMPT_LAYOUTS = (SEED, INSTRUCTIONS_FIRST)


def _instructions(form: str, style_instruction: str) -> str:
    """The form's instruction block, from "Instructions:" to its answer cue."""
    if form == FREE:
        return PROMPT_TEMPLATE[PROMPT_TEMPLATE.index("Instructions:"):].format(
            style_instruction=style_instruction, no_information=NO_INFORMATION)
    if form == CALC:
        return CALC_INSTRUCTIONS.format(style_instruction=style_instruction)
    if form == LINE:
        return LINE_INSTRUCTIONS.format(style_instruction=style_instruction)
    return QUOTE_INSTRUCTIONS.format(
        style_instruction=style_instruction, optional=QUOTE_OPTIONAL if form == QUOTE_OPTIONAL_FORM else "")


def build_prompt(question: str, sources: list[Source], style: str, form: str = FREE, layout: str = SEED) -> str:
    """The specified answer prompt (docs/specification.md); in the quote forms its instructions ask for {quote, source, answer},
    in the line form for {line, answer} over a context whose lines carry ids. `layout` orders its parts
    (PROMPT_LAYOUTS)."""
    context = _context(sources, form) or "(no documents matched)"
    style_instruction = STYLE_INSTRUCTIONS.get(style, STYLE_INSTRUCTIONS["concise"])
    instructions = _instructions(form, style_instruction)
    if layout == SEED:
        head = PROMPT_TEMPLATE[: PROMPT_TEMPLATE.index("Instructions:")].format(question=question, context=context)
        return head + instructions
    rules, cue = instructions.rsplit("\n\n", 1)
    opening = PROMPT_TEMPLATE[: PROMPT_TEMPLATE.index("\n")]
    return "\n\n".join((opening, rules, f"Context from documents:\n{context}", f"Question: {question}", cue))


def _reply(text: str) -> dict:
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        value = {}
    return value if isinstance(value, dict) else {}


def parse_figures(text: str) -> tuple[list[tuple[str, str]], str]:
    """(figures as (label, value) pairs, operation) from a calc-form reply; none when absent."""
    value = _reply(text)
    figures = [(str(f.get("label") or ""), str(f.get("value") or "")) for f in value.get("figures") or []
               if isinstance(f, dict)]
    operation = str(value.get("operation") or calculate.NONE)
    return figures, operation if operation in calculate.OPERATIONS else calculate.NONE


def read_reply(draft: Draft, text: str) -> Draft:
    """Fill the draft's quote, source, figures, operation and answer from the model's JSON reply
    (also used by bench/reader_quality.py to re-read a recorded reply). A line-form reply names a
    line: its text is the quote and its source the quote's source."""
    draft.raw_output = text
    draft.quote, draft.quote_source, answer = parse_quoted(text)
    line_id = _reply(text).get("line")
    if line_id is not None:
        line = next(((number, quote) for i, number, quote in numbered_lines(draft.sources) if i == str(line_id)), None)
        draft.quote, draft.quote_source = (line[1], line[0]) if line else ("", None)
    draft.figures, draft.operation = parse_figures(text)
    draft.answer = render_quoted(answer or draft.quote, draft.quote_source)
    return draft


# A reason or a definition answered in this many content words or fewer (and a third of its quote's at most),
# all of them its quote's, with no verb, is a fragment of it ("The Tax Act"); "Machine learning is a subset of
# AI" is a sentence already
_FRAGMENT_WORDS = 4
_VERB = re.compile(r"\b(?:is|are|was|were|be|been|has|have|had|will|would|can|could|does|do|did|means?)\b", re.I)
_QUOTE_WORDS = 60  # a quote longer than this is more than the sentence that answers


def stated_in_full(question: str, answer: str, quote: str, source: int | None, page: str = "") -> str:
    """A reason, definition or rule the model answered with a few words of its quote ("The Tax Act", "the
    most advantageous market") is answered with the quoted sentence as `page` (its source's text) prints it:
    what a person would write, and every word of it on the page. Figures and other answers are left as the
    model wrote them."""
    said = tokenize(SOURCE_MARKER.sub("", answer))
    quoted = tokenize(quote)
    if said in (["yes"], ["no"]) and quoted and len(quoted) <= _QUOTE_WORDS:
        # a bare "Yes" hides the terms the page puts on it ("... must ask the housing manager in writing first"):
        # the yes or no, then the sentence it rests on
        return render_quoted(f"{said[0].capitalize()}: {_printed(quote, page)}", source)
    if not said or not quoted or len(said) > min(_FRAGMENT_WORDS, len(quoted) / 3) or len(quoted) > _QUOTE_WORDS \
            or _VERB.search(answer) \
            or not set(said) <= set(quoted) or question_kind.by_rules(question).kind != question_kind.TEXT:
        return answer
    return render_quoted(_printed(quote, page), source)


def _printed(quote: str, page: str) -> str:
    """The quote as the page prints it: the model copies loosely ("U. S." for "U.S.", a line break for a space)."""
    printed = re.search(r"\W*".join(map(re.escape, re.findall(r"\w+", quote))) + r"[^\w\s]*", page, re.I)
    return " ".join(printed.group(0).split()) if printed else quote


# The prompt calls the passages "the provided context"; the user gave documents ("There are 10 officers listed in the
# context" was a TAT-QA tuning answer)
_PROMPTS_WORDS = re.compile(r"\b(in|from|within|to)\s+the\s+(?:provided\s+|given\s+)?context\b", re.I)


def in_users_words(answer: str) -> str:
    """The answer with the prompt's name for the passages said as the user's: "in the documents"."""
    return _PROMPTS_WORDS.sub(r"\1 the documents", answer)


def parse_quoted(text: str) -> tuple[str, int | None, str]:
    """(quote, source number, answer) from the model's JSON; a reply cut short or not JSON at all
    gives what could be read, so the Validator's check decides (an empty quote is a refusal)."""
    value = _reply(text)
    source = value.get("source")
    try:
        number = int(source) if source is not None and str(source).strip() else None
    except (TypeError, ValueError):
        number = None
    return str(value.get("quote") or "").strip(), number, str(value.get("answer") or "").strip()


def render_quoted(answer: str, source: int | None) -> str:
    """The answer as the user reads it: its text and the [Source N] it is quoted from."""
    if not answer or source is None or SOURCE_MARKER.search(answer):
        return answer
    return f"{answer.rstrip()} [Source {source}]"


class FieldStream:
    """Forwards the characters of one string field of a JSON object as the model writes it, so
    the user sees the answer's words while the rest of the JSON is still being generated."""

    def __init__(self, field_name: str, on_token: TokenCallback) -> None:
        self.on_token = on_token
        self.raw = ""
        self.start: int | None = None
        self.position = 0
        self.closed = False
        self._opening = re.compile(rf'"{re.escape(field_name)}"\s*:\s*"')

    def __call__(self, token: str) -> None:
        self.raw += token
        if self.closed:
            return
        if self.start is None:
            match = self._opening.search(self.raw)
            if not match:
                return
            self.start = self.position = match.end()
        out = []
        i = self.position
        while i < len(self.raw):
            ch = self.raw[i]
            if ch == '"':
                self.closed = True
                break
            if ch == "\\":
                escape = self.raw[i:i + 6] if self.raw[i + 1:i + 2] == "u" else self.raw[i:i + 2]
                if len(escape) < (6 if escape[1:2] == "u" else 2):
                    break  # the rest of the escape is still to come
                try:
                    out.append(json.loads(f'"{escape}"'))
                except json.JSONDecodeError:
                    out.append(escape[1:])
                i += len(escape)
                continue
            out.append(ch)
            i += 1
        self.position = i
        if out:
            self.on_token("".join(out))


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
    form: str = FREE,
    max_sources: int | None = None,
    layout: str = SEED,
) -> Draft:
    """One answer from the model over the first `max_sources` chunks (all when None), their best
    passages within `budget` tokens in all; `form` is how the model is asked (READER_FORMS)."""
    sources = build_sources(question, chunks[:max_sources] if max_sources else chunks, budget, count_tokens)
    prompt = build_prompt(question, sources, style, form, layout)
    context_used = "\n\n".join(f"{s.label} {s.text}" for s in sources)
    draft = Draft("", context_used, len(sources), sources, prompt=prompt, question=question)
    messages = [{"role": "user", "content": prompt}]
    if form != FREE:
        schema = CALC_SCHEMA if form == CALC else line_schema(sources) if form == LINE else QUOTE_SCHEMA
        return _reason_quoted(draft, messages, llm, temperature, max_tokens, on_token, schema)
    try:
        first = llm.stream(messages, on_token or (lambda _: None), max_tokens=max_tokens, temperature=temperature)
        draft.completions.append(first)
        text = first.text
        if first.finish_reason != "stop":
            # same question, trimmed context, continue from the partial answer.
            trimmed = build_prompt(question, sources[: max(1, len(sources) // 2)], style, layout=layout)
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


def _reason_quoted(draft: Draft, messages, llm: ChatLLM, temperature: float, max_tokens: int,
                   on_token: TokenCallback | None, schema: dict) -> Draft:
    """The quote forms: {quote, source, (figures, operation,) answer} (the line form: {line, answer})
    under a schema; the answer field streams as it is written, its [Source N] once the JSON is complete."""
    stream = FieldStream("answer", on_token) if on_token else None
    try:
        value, completion = llm.complete_json(messages, schema, max_tokens=max_tokens,
                                              temperature=temperature, on_token=stream)
        text = completion.text
    except LLMMalformedJSON as exc:  # cut off at max_tokens: the check below refuses it
        completion, text = exc.completion, exc.completion.text
    except LLMError as exc:
        draft.error = str(exc)
        return draft
    draft.completions.append(completion)
    read_reply(draft, text)  # the quote answers it when the model left the answer out
    page = next((s.text for s in draft.sources if s.number == draft.quote_source), "")
    draft.answer = in_users_words(stated_in_full(draft.question, draft.answer, draft.quote, draft.quote_source, page))
    answer = parse_quoted(text)[2] or draft.quote
    if on_token and draft.answer.startswith(answer) and len(draft.answer) > len(answer):
        on_token(draft.answer[len(answer):])  # the citation, after the streamed words
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
            score=1.0, vector_score=1.0, used=True, matched=True,
        )
        sources.append(Source(number, chunk, chunk.text))
    if on_token:
        on_token(answer.text)
    context = "\n\n".join(f"{s.label} {s.text}" for s in sources)
    return Draft(answer.text, context, len(sources), sources, raw_output=answer.text, exact=True,
                 relaxed=bool(result.relaxed), evidence=answer.evidence, doubtful=bool(result.doubts or result.readings))
