"""Citation grounding: the answer's [N] markers become real citations.

[N] is the N-th opened citation. Markers that point at nothing the agent opened are stripped
(a hallucinated [5] when two were opened); when nothing was opened, the citations fall back to
the search results the answer was written from.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.agents.agent_mode.state import SearchHit
from core.agents.responder import Citation

# [1], [1, 2], and the pipeline's [Source 1], which small models also write.
MARKER = re.compile(r"\[\s*(?:Source\s+)?(\d{1,2}(?:\s*,\s*(?:Source\s+)?\d{1,2})*)\s*\]", re.I)
_SPACED_MARKER = re.compile(r"([ \t]*)" + MARKER.pattern, re.I)


def marker_numbers(marker_body: str) -> list[int]:
    return [int(n) for n in re.findall(r"\d+", marker_body)]


def cited_markers(answer: str) -> list[int]:
    """Every N the answer cites, sorted, once each."""
    return sorted({n for m in MARKER.finditer(answer) for n in marker_numbers(m.group(1))})


def strip_markers(answer: str, valid: set[int]) -> str:
    """Markers in one form, [1] or [1, 2], with only their valid numbers; a marker left with none
    goes, with the space before it. The rest of the text (code, indentation) is untouched."""
    def keep(match: re.Match[str]) -> str:
        numbers = [n for n in marker_numbers(match.group(2)) if n in valid]
        return match.group(1) + "[" + ", ".join(map(str, numbers)) + "]" if numbers else ""

    return _SPACED_MARKER.sub(keep, answer).strip()


@dataclass
class Grounded:
    answer: str
    citations: list[Citation]
    stripped: list[int] = field(default_factory=list)  # hallucinated marker numbers removed
    from_snippets: bool = False
    attributed: list[int] = field(default_factory=list)  # markers placed by word overlap, not by the model


def ground_citations(answer: str, sources: list[SearchHit], *, from_snippets: bool = False,
                     fallback: list[SearchHit] | None = None) -> Grounded:
    """Map [N] to sources[N-1]; strip the rest. With no sources, the fallback hits (the search
    results) are attached as uncited citations so the reader still sees where the answer came from."""
    cited = cited_markers(answer)
    valid = set(range(1, len(sources) + 1))
    stripped = [n for n in cited if n not in valid]
    text = strip_markers(answer, valid)
    if sources:
        citations = [_citation(n, hit, n in cited, from_snippets) for n, hit in enumerate(sources, start=1)]
        citations.sort(key=lambda c: (not c.cited, c.number))
        return Grounded(text, citations, stripped, from_snippets)
    citations = [_citation(n, hit, False, True) for n, hit in enumerate(fallback or [], start=1)]
    return Grounded(text, citations, stripped, from_snippets=bool(citations))


def _citation(number: int, hit: SearchHit, cited: bool, snippet_only: bool) -> Citation:
    chunk = hit.chunk
    return Citation(
        number=number, doc_id=chunk.doc_id, filename=chunk.filename, page=chunk.page, sheet=chunk.sheet,
        chunk_id=chunk.chunk_id, score=round(chunk.similarity, 3), rows=chunk.rows,
        snippet=hit.snippet if snippet_only else chunk.text, cited=cited, matched=chunk.matched,
    )
