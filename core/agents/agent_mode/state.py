"""What the agent has gathered so far: searches, the chunks it may open, the citations it opened.

The prompt of each iteration is rebuilt from this state; its observation log only grows, so
consecutive prompts share their prefix and the local model reuses it from its KV cache.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from core.retrieval import RetrievedChunk


@dataclass
class SearchHit:
    handle: str  # "R1": the id the model passes to open_citation
    chunk: RetrievedChunk
    query: str
    snippet: str


@dataclass
class OpenedCitation:
    number: int  # the N of the [N] marker that cites it
    hit: SearchHit
    dated: str | None = None  # ISO date of its document, for "the newest dated document wins"

    @property
    def text(self) -> str:
        return self.hit.chunk.text


@dataclass
class Insufficiency:
    section: str
    missing: str
    queries_tried: list[str] = field(default_factory=list)


@dataclass
class ToolResult:
    tool: str
    input: dict
    summary: str  # the trace's outputSummary
    observation: str  # what the model reads in the next prompt
    calls: int = 0  # tool calls consumed from the budget
    error: str | None = None


@dataclass
class AgentState:
    question: str
    tool_calls_used: int = 0
    search_queries: list[str] = field(default_factory=list)
    hits: dict[str, SearchHit] = field(default_factory=dict)  # by handle, in the order found
    opened: list[OpenedCitation] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)  # figures computed by the fact tools
    observations: list[str] = field(default_factory=list)

    def handle_of(self, chunk_id: str) -> str | None:
        return next((h.handle for h in self.hits.values() if h.chunk.chunk_id == chunk_id), None)

    def opened_as(self, chunk_id: str) -> OpenedCitation | None:
        return next((c for c in self.opened if c.hit.chunk.chunk_id == chunk_id), None)

    @property
    def searches_done(self) -> int:
        return len(self.search_queries)
