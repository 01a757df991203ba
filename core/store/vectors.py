"""Vector store: Chroma, embedded (PersistentClient) by default, a Chroma server when a host is set.

We always pass our own embeddings: Chroma's default embedding function downloads a model,
which cannot work offline.

Embedded Chroma is not safe across processes: a second PersistentClient on the same folder keeps a
stale HNSW graph in memory, failed with "Error finding id" and half-read index files while another
process wrote (measured), and its in-process compactor writes index files even when it only reads.
So KnowledgeBase lets only the process holding the data-dir lock touch it; any other process
searches `CatalogVectors`: the same vectors, exactly, from the catalog's embedding cache.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Callable

import numpy as np

from core.config import Settings


@dataclass
class VectorHit:
    chunk_id: str
    similarity: float  # cosine similarity, 1 - distance


class _Ranking:
    """Exact ranking among given ids, for stores that can say how similar each id is."""

    def similarities(self, vector: np.ndarray, ids: list[str]) -> dict[str, float]:
        raise NotImplementedError

    def rank(self, vector: np.ndarray, ids: list[str], k: int) -> list[VectorHit]:
        """Exact nearest neighbours among `ids`: for a search pre-filtered to a few documents this
        is ~7 ms where Chroma's metadata filter took 200-320 ms at 100k chunks."""
        scores = self.similarities(vector, ids)
        best = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:k]
        return [VectorHit(chunk_id, score) for chunk_id, score in best]


class VectorStore(_Ranking):
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.shared = bool(settings.chroma_host)  # a server serves many processes safely
        self.location = (f"http://{settings.chroma_host}:{settings.chroma_port}" if self.shared
                         else str(settings.chroma_path))
        self.name = settings.chroma_collection
        # Chroma's default ef_search (100) missed an outlier chunk that brute force ranked first
        # (an orders CSV beside a 160-page filing); 200 found every true top-5 in our checks.
        self.hnsw = {
            "space": "cosine",
            "ef_search": settings.hnsw_ef_search,
            "ef_construction": settings.hnsw_ef_construction,
            "max_neighbors": settings.hnsw_max_neighbors,
        }
        self._client = self._collection = None  # opened on first use, by the process allowed to
        # Sub-queries search from threads: two threads opening (or one closing) the embedded client at
        # once left Chroma's shared system half-stopped ("Could not connect to tenant default_tenant").
        self._opening = threading.RLock()

    def _connect(self):
        import chromadb
        from chromadb.config import Settings as ChromaSettings

        chroma_settings = ChromaSettings(anonymized_telemetry=False, allow_reset=False)
        if self.shared:
            return chromadb.HttpClient(
                host=self.settings.chroma_host, port=self.settings.chroma_port, settings=chroma_settings
            )
        self.settings.chroma_path.mkdir(parents=True, exist_ok=True)
        return chromadb.PersistentClient(path=str(self.settings.chroma_path), settings=chroma_settings)

    @property
    def client(self):
        with self._opening:
            if self._client is None:
                self._client = self._connect()
            return self._client

    @property
    def collection(self):
        with self._opening:
            if self._collection is None:
                self._collection = self._open()
            return self._collection

    def _open(self):
        return self.client.get_or_create_collection(
            name=self.name, embedding_function=None, configuration={"hnsw": self.hnsw}
        )

    def close(self) -> None:
        """Drop the client and its in-memory index: the next use opens anew and reads what other
        processes wrote since."""
        with self._opening:
            if self._client is not None and not self.shared:
                self._client.close()
            self._client = self._collection = None

    def add(self, ids: list[str], vectors: np.ndarray, metadatas: list[dict]) -> None:
        batch = 1000  # under Chroma's max batch size
        for start in range(0, len(ids), batch):
            end = start + batch
            self.collection.upsert(
                ids=ids[start:end],
                embeddings=vectors[start:end],
                metadatas=[_clean(m) for m in metadatas[start:end]],
            )

    def delete(self, ids: list[str]) -> None:
        for start in range(0, len(ids), 1000):
            self.collection.delete(ids=ids[start:start + 1000])

    def delete_document(self, doc_id: str) -> None:
        self.collection.delete(where={"doc_id": doc_id})

    def query(self, vector: np.ndarray, k: int, doc_ids: list[str] | None = None) -> list[VectorHit]:
        # No count() first: it cost 12-17 ms at 100k chunks, more than half the query, and Chroma
        # already returns fewer results when the collection is smaller than k.
        if k <= 0:
            return []
        where = None
        if doc_ids:
            where = {"doc_id": doc_ids[0]} if len(doc_ids) == 1 else {"doc_id": {"$in": list(doc_ids)}}
        result = self.collection.query(
            query_embeddings=[vector.astype(np.float32)],
            n_results=k,
            where=where,
            include=["distances"],
        )
        ids = result["ids"][0]
        distances = result["distances"][0]
        return [VectorHit(i, round(1.0 - float(d), 6)) for i, d in zip(ids, distances)]

    def similarities(self, vector: np.ndarray, ids: list[str]) -> dict[str, float]:
        """Exact cosine similarity of `vector` to the stored vectors of `ids`."""
        if not ids:
            return {}
        got = self.collection.get(ids=list(ids), include=["embeddings"])
        stored = np.asarray(got["embeddings"], dtype=np.float32)
        if stored.size == 0:
            return {}
        scores = stored @ vector.astype(np.float32)
        return {i: round(float(s), 6) for i, s in zip(got["ids"], scores)}

    def all_ids(self) -> set[str]:
        ids: set[str] = set()
        offset, page = 0, 5000
        while True:
            got = self.collection.get(include=[], limit=page, offset=offset)["ids"]
            ids.update(got)
            if len(got) < page:
                return ids
            offset += page

    def count(self) -> int:
        return self.collection.count()

    def reset(self) -> None:
        """Drop every vector (used when index parameters change)."""
        self.client.delete_collection(self.name)
        self._collection = None


class CatalogVectors(_Ranking):
    """Exact search over every indexed chunk's vector as the catalog keeps it: what a process uses
    while another one writes to the embedded Chroma. Reloaded when the catalog's generation moves;
    23 MB and a few ms a query at 15k chunks (the Chroma server path is for far larger stores)."""

    def __init__(self, load: Callable[[], tuple[list[str], list[str], np.ndarray]], generation: Callable[[], str]):
        self._load, self._generation = load, generation
        self._stamp: str | None = None
        self._ids: list[str] = []
        self._doc_ids = np.zeros(0, dtype=object)
        self._matrix = np.zeros((0, 0), dtype=np.float32)
        self._position: dict[str, int] = {}

    def _current(self) -> None:
        stamp = self._generation()
        if stamp != self._stamp:
            self._ids, doc_ids, self._matrix = self._load()
            self._doc_ids = np.asarray(doc_ids, dtype=object)
            self._position = {c: i for i, c in enumerate(self._ids)}
            self._stamp = stamp

    def query(self, vector: np.ndarray, k: int, doc_ids: list[str] | None = None) -> list[VectorHit]:
        self._current()
        if k <= 0 or not self._ids:
            return []
        rows = np.flatnonzero(np.isin(self._doc_ids, list(doc_ids))) if doc_ids else np.arange(len(self._ids))
        scores = self._matrix[rows] @ vector.astype(np.float32)
        best = sorted(zip(rows.tolist(), scores.tolist()), key=lambda item: (-item[1], self._ids[item[0]]))[:k]
        return [VectorHit(self._ids[i], round(float(s), 6)) for i, s in best]

    def similarities(self, vector: np.ndarray, ids: list[str]) -> dict[str, float]:
        self._current()
        rows = [(c, self._position[c]) for c in ids if c in self._position]
        if not rows:
            return {}
        scores = self._matrix[[i for _, i in rows]] @ vector.astype(np.float32)
        return {c: round(float(s), 6) for (c, _), s in zip(rows, scores)}


def _clean(metadata: dict) -> dict:
    """Chroma rejects None values in metadata."""
    return {k: v for k, v in metadata.items() if v is not None}
