"""A candidate passage as retrieval hands it on: the chunk, where it is, and its rank and score in each retriever,
so the trace can show why it was (or was not) used. Shared by the retriever and its re-rankers."""
from __future__ import annotations

from dataclasses import asdict, dataclass

from core.ingest.context import context_of
from core.store.catalog import ChunkRecord

BM25, VECTOR = "bm25", "vector"


@dataclass
class RetrievedChunk:
    chunk_id: str
    doc_id: str
    filename: str
    chunk_index: int
    text: str
    page: str | None
    sheet: str | None
    rows: str | None
    score: float  # fused score (RRF)
    vector_score: float | None = None  # cosine similarity 0-1
    bm25_score: float | None = None
    vector_rank: int | None = None  # 1-based rank in that retriever, None if it did not find it
    bm25_rank: int | None = None
    used: bool = False  # within top_k, i.e. handed on to the answer
    matched: bool = False  # a row a records query matched: exact, so its 1.0 is no similarity
    expanded_from: str | None = None  # set on neighbours added by the sliding window
    # Which document and section the chunk is from ("Apple Inc. · Form 10-Q · quarter ended ...
    # — Item 2. ..."), as indexed with it; the Reasoner shows it above the chunk's passage.
    context: str = ""
    # Set by passage-level re-ranking: the chunk's best-matching window of a few sentences or rows
    # (core/retrieval/evidence.py) and the score that ordered it; empty / None when not re-ranked.
    focus: str = ""
    rerank_score: float | None = None
    # Set when the chunk was put in as the best of a section the question needs ("cash flows":
    # core/retrieval/sections.py), whatever its rank in the whole search.
    section: str = ""

    @property
    def retrievers(self) -> list[str]:
        return [name for name, rank in ((BM25, self.bm25_rank), (VECTOR, self.vector_rank)) if rank]

    @classmethod
    def from_record(cls, record: ChunkRecord, score: float, **extra) -> RetrievedChunk:
        return cls(
            chunk_id=record.chunk_id, doc_id=record.doc_id, filename=record.filename,
            chunk_index=record.chunk_index, text=record.text, page=record.page_label,
            sheet=record.sheet, rows=record.rows_label, score=round(score, 6),
            context=context_of(record.index_text, record.text), **extra,
        )

    @property
    def similarity(self) -> float:
        """Cosine similarity where the vector side saw the chunk, else 0 (score)."""
        return self.vector_score or 0.0

    def to_dict(self) -> dict:
        data = asdict(self)
        data["retrievers"] = self.retrievers
        return data
