"""KnowledgeBase: the catalog, vector store and keyword index kept consistent with each other.

Write order makes every crash recoverable:
- ingest: catalog rows as 'indexing' -> vectors -> 'indexed' -> keyword index rebuilt;
- delete: catalog rows removed -> vectors removed -> keyword index rebuilt.
A 'dirty' flag brackets each write; on open, a dirty knowledge base is reconciled: partial
documents are removed and listed as failed ("ingest again"), so are the files of an interrupted
batch that were never reached, orphan vectors are dropped, missing vectors are restored from the
embedding cache, and a stale keyword index is rebuilt.
"""
from __future__ import annotations

import hashlib
import logging
import threading
from contextlib import contextmanager
from typing import Iterator

import numpy as np

from core.config import Settings
from core.embedding import Embedder
from core.store.catalog import (
    FAILED, INDEXED, INDEXING, Catalog, ChunkRecord, DocumentRecord, now, text_hash,
)
from core.store.keyword import KeywordIndex
from core.store.vectors import VectorStore

log = logging.getLogger(__name__)

INTERRUPTED_MESSAGE = "Ingest was interrupted before it finished. Please ingest this file again."
PENDING_FILES = "pending_files"  # meta key: the files of the running batch not yet done


def failed_doc_id(filename: str) -> str:
    """The id of a file's 'failed' row: one per file name, so a retry replaces it."""
    return "f" + hashlib.sha1(filename.encode()).hexdigest()[:12]


def _vector_metadata(chunk, filename: str) -> dict:
    return {
        "doc_id": chunk.doc_id,
        "chunk_index": chunk.chunk_index,
        "filename": filename,
        "page": chunk.page_label,
        "sheet": chunk.sheet,
    }


class IndexSettingsChanged(RuntimeError):
    """The stored index was built with other parameters than the current settings."""


class KnowledgeBase:
    def __init__(self, settings: Settings, embedder: Embedder) -> None:
        self.settings = settings
        self.embedder = embedder
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        self.catalog = Catalog(settings.catalog_path)
        self.vectors = VectorStore(settings)
        self.write_lock = threading.RLock()  # one writer at a time; readers never wait on it
        self.parameter_changes = self._parameter_changes()
        if self.parameter_changes and not settings.reindex_on_settings_change:
            raise IndexSettingsChanged(
                "The index in "
                f"{settings.data_dir} was built with different settings ({self.parameter_changes}). "
                "Run `python -m core reindex` to rebuild it with the current settings, "
                "or restore the previous settings."
            )
        self.recovered: list[str] = self.recover()
        self.keyword = self._open_keyword_index()

    # --- index parameters ---------------------------------------------------------------------

    def _parameter_changes(self) -> str:
        current = self.settings.index_parameters()
        stored = self.catalog.get_json("index_parameters")
        if stored is None or not self.catalog.documents():
            self.catalog.set_json("index_parameters", current)
            return ""
        changed = [f"{k}: {stored.get(k)} -> {v}" for k, v in current.items() if stored.get(k) != v]
        return ", ".join(changed)

    def accept_current_parameters(self) -> None:
        """Called by a full re-index once every document is rebuilt with the current settings."""
        self.catalog.set_json("index_parameters", self.settings.index_parameters())
        self.parameter_changes = ""

    # --- write brackets -----------------------------------------------------------------------

    @contextmanager
    def writing(self) -> Iterator[None]:
        with self.write_lock:
            self.catalog.set_meta("dirty", "1")
            yield
            self.refresh_keyword_index()
            self.catalog.set_meta("dirty", "0")

    def _bump_generation(self) -> None:
        generation = int(self.catalog.get_meta("generation") or 0) + 1
        self.catalog.set_meta("generation", str(generation))

    # --- writes -------------------------------------------------------------------------------

    def add_document(
        self, record: DocumentRecord, chunks, index_texts: list[str], vectors: np.ndarray, facts=(), summary=None,
        sections=(),
    ) -> None:
        """Make one document, its structured facts and its summaries searchable. Call inside `writing()`."""
        record.status = INDEXING
        self.catalog.begin_document(record, chunks, index_texts, facts, summary, sections)
        self.vectors.add(
            [c.chunk_id for c in chunks],
            vectors,
            [_vector_metadata(c, record.filename) for c in chunks],
        )
        self.catalog.set_status(record.doc_id, INDEXED)
        self._bump_generation()

    def set_pending(self, filenames: list[str], batch_started: str | None = None) -> None:
        """The files of the running batch not yet done: after a crash they are listed as failed."""
        self.catalog.set_json(PENDING_FILES, {"started": batch_started or now(), "files": filenames})

    def record_failure(self, record: DocumentRecord) -> None:
        record.status = FAILED
        self.catalog.record_failure(record)

    def delete_document(self, doc_id: str) -> None:
        """Remove every trace: catalog rows, vectors, keyword entries. Call inside `writing()`."""
        chunk_ids = self.catalog.chunk_ids_of(doc_id)
        self.catalog.delete_document(doc_id)
        self._bump_generation()
        self.vectors.delete(chunk_ids)
        self.vectors.delete_document(doc_id)

    def reset_index(self) -> None:
        """Drop all vectors and chunk rows, keeping the document list (for a full re-index)."""
        self.vectors.reset()
        for record in self.catalog.documents():
            self.catalog.delete_document(record.doc_id)
        self._bump_generation()

    # --- keyword index ------------------------------------------------------------------------

    def _open_keyword_index(self) -> KeywordIndex:
        index = KeywordIndex.load(self.settings.keyword_index_path, self.settings.bm25_k1, self.settings.bm25_b)
        if index is not None and index.stamp == self._generation():
            return index
        log.info("Keyword index missing or stale; rebuilding from the catalog")
        return self._build_keyword_index()

    def _generation(self) -> str:
        return self.catalog.get_meta("generation") or "0"

    def _build_keyword_index(self) -> KeywordIndex:
        ids, texts = self.catalog.indexed_chunk_texts()
        index = KeywordIndex(self.settings.bm25_k1, self.settings.bm25_b)
        index.build(ids, texts, stamp=self._generation())
        index.save(self.settings.keyword_index_path)
        return index

    def refresh_keyword_index(self) -> None:
        if self.keyword.stamp != self._generation():
            self.keyword = self._build_keyword_index()

    # --- crash recovery -----------------------------------------------------------------------

    def recover(self) -> list[str]:
        """Bring the three stores back into agreement. Returns the files that need re-ingesting."""
        if self.catalog.get_meta("dirty") != "1":
            return []
        with self.write_lock:
            interrupted = []
            for record in self.catalog.documents(status=INDEXING):
                chunk_ids = self.catalog.chunk_ids_of(record.doc_id)
                self.vectors.delete(chunk_ids)
                self.catalog.delete_document(record.doc_id)
                record.status, record.error, record.n_chunks = FAILED, INTERRUPTED_MESSAGE, 0
                record.updated_at = now()
                self.catalog.record_failure(record)
                interrupted.append(record.filename)
            changed = bool(interrupted)
            interrupted += self._fail_pending(set(interrupted))
            indexed_ids, _ = self.catalog.indexed_chunk_texts()
            expected = set(indexed_ids)
            stored = self.vectors.all_ids()
            orphans = sorted(stored - expected)
            if orphans:
                self.vectors.delete(orphans)
            missing = sorted(expected - stored)
            if missing:
                self._restore_vectors(missing)
            if changed:  # the keyword index follows the catalog's chunks, which only this changes
                self._bump_generation()
            self.catalog.set_meta("dirty", "0")
        if interrupted or orphans or missing:
            log.warning(
                "Recovered after an interrupted write: %d partial documents, %d orphan vectors, "
                "%d restored vectors", len(interrupted), len(orphans), len(missing),
            )
        return interrupted

    def _fail_pending(self, already: set[str]) -> list[str]:
        """Files of an interrupted batch that never finished (not even started) become 'failed'
        rows, so the user sees what to ingest again. A file indexed by that batch is done."""
        pending = self.catalog.get_json(PENDING_FILES) or {}
        failed = []
        for filename in pending.get("files", []):
            done = any(d.status == INDEXED and d.updated_at >= pending["started"]
                       for d in self.catalog.find_documents(filename=filename))
            if filename in already or done:
                continue
            for old in self.catalog.find_documents(filename=filename):
                if old.status == FAILED:
                    self.catalog.delete_document(old.doc_id)
            self.catalog.record_failure(DocumentRecord(
                doc_id=failed_doc_id(filename), filename=filename, title=filename, content_hash=None, kind=None,
                size_bytes=None, pages=None, category=None, status=FAILED, error=INTERRUPTED_MESSAGE,
                warnings=None, n_chunks=0, stored_path=None, created_at=now(), updated_at=now(),
            ))
            failed.append(filename)
        self.catalog.set_json(PENDING_FILES, {})
        return failed

    def _restore_vectors(self, chunk_ids: list[str]) -> None:
        records = self.catalog.chunks(chunk_ids)
        chunks = [records[c] for c in chunk_ids if c in records]
        hashes = [text_hash(c.index_text) for c in chunks]
        cached = self.catalog.cached_embeddings(hashes, self.embedder.model_name)
        todo = [i for i, h in enumerate(hashes) if h not in cached]
        if todo:
            fresh = self.embedder.embed([chunks[i].index_text for i in todo])
            cached.update({hashes[i]: v for i, v in zip(todo, fresh)})
        self.vectors.add(
            [c.chunk_id for c in chunks],
            np.stack([cached[h] for h in hashes]),
            [_vector_metadata(c, c.filename) for c in chunks],
        )

    # --- reads --------------------------------------------------------------------------------

    def documents(self) -> list[DocumentRecord]:
        return self.catalog.documents()

    def counts(self) -> dict[str, int]:
        return self.catalog.counts()

    def is_empty(self) -> bool:
        return self.counts()["documents"] == 0

    def chunks(self, chunk_ids: list[str]) -> dict[str, ChunkRecord]:
        return self.catalog.chunks(chunk_ids)

    def document_summaries(self) -> dict[str, dict]:
        """doc_id -> seed 002's summary (document_type, summary, key_topics, use_for)."""
        return {doc_id: summary for doc_id, summary, _ in self.catalog.summaries()}

    def search_summaries(self, vector: np.ndarray, k: int = 3) -> list[tuple[str, float, dict]]:
        """search_vector(scope=summary): the documents whose summaries are closest to `vector`."""
        stored = self.catalog.summaries()
        if not stored:
            return []
        scores = np.stack([v for _, _, v in stored]) @ vector.astype(np.float32)
        order = np.argsort(-scores)[:k]
        return [(stored[i][0], round(float(scores[i]), 6), stored[i][1]) for i in order]

    def search_sections(self, vector: np.ndarray, k: int) -> list[tuple[str, int, int, float]]:
        """search_vector(scope=summary) over long documents' page spans: (doc_id, first page, last page, score)."""
        stored = self.catalog.section_summaries()
        if not stored:
            return []
        scores = np.stack([s[4] for s in stored]) @ vector.astype(np.float32)
        return [(stored[i][0], stored[i][1], stored[i][2], round(float(scores[i]), 6)) for i in np.argsort(-scores)[:k]]

    def chunk_ids_in_pages(self, spans: list[tuple[str, int, int]]) -> set[str]:
        """The chunks of each (doc_id, first page, last page) span."""
        return self.catalog.chunk_ids_in_pages(spans)

    def resolve_documents(self, names_or_ids: list[str]) -> list[str]:
        """Doc ids for a mix of ids and file names (the user names files, the code uses ids)."""
        wanted = set(names_or_ids)
        return [
            d.doc_id for d in self.catalog.documents(status=INDEXED)
            if d.doc_id in wanted or d.filename in wanted
        ]

    def chunk_ids_for_documents(self, doc_ids: list[str]) -> set[str]:
        return {c for d in doc_ids for c in self.catalog.chunk_ids_of(d)}

    def consistency(self) -> dict[str, object]:
        """Whether catalog, vector store and keyword index hold exactly the same chunks."""
        indexed, _ = self.catalog.indexed_chunk_texts()
        expected = set(indexed)
        vectors = self.vectors.all_ids()
        keyword = set(self.keyword.chunk_ids)
        partial = [d.filename for d in self.catalog.documents(status=INDEXING)]
        return {
            "consistent": expected == vectors == keyword and not partial,
            "catalog_chunks": len(expected),
            "vector_chunks": len(vectors),
            "keyword_chunks": len(keyword),
            "partial_documents": partial,
        }

    def close(self) -> None:
        self.catalog.close()
