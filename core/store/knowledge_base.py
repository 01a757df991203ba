"""KnowledgeBase: the catalog, vector store and keyword index kept consistent with each other.

Write order makes every crash recoverable:
- ingest: catalog rows as 'indexing' -> vectors -> 'indexed' -> keyword index rebuilt;
- delete: catalog rows removed -> vectors removed -> keyword index rebuilt.
A 'dirty' flag brackets each write. Several processes may open one data directory (the app, the
CLI, a second app): writes are serialized by an OS lock on the directory (core/store/lock.py), and
only a dirty knowledge base whose lock is free was left by a crashed writer. That one is reconciled
by the next process to take the lock: partial documents are removed and listed as failed ("ingest
again"), so are the files of its batch that were never reached, orphan vectors are dropped, missing
vectors are restored from the embedding cache, and a stale keyword index is rebuilt.
A process that does not hold the lock only reads: the catalog (SQLite, WAL), the last saved keyword
index, and the vectors, from Chroma while no other process writes and from the catalog's copy of
them while one does (see core/store/vectors.py for why).
"""
from __future__ import annotations

import hashlib
import logging
import os
import threading
from contextlib import contextmanager
from typing import Callable, Iterator

import numpy as np

from core.config import INDEX_PARAMETERS_BEFORE, Settings
from core.embedding import Embedder
from core.store.catalog import (
    FAILED, INDEXED, INDEXING, Catalog, ChunkRecord, DocumentRecord, now, text_hash,
)
from core.store.keyword import KeywordIndex
from core.store.lock import DataDirLock, WriterBusy
from core.store.vectors import CatalogVectors, VectorStore

log = logging.getLogger(__name__)

INTERRUPTED_MESSAGE = "Ingest was interrupted before it finished. Please ingest this file again."
PENDING_FILES = "pending_files"  # meta key: the writing process and the files of its batch not yet done
WaitCallback = Callable[[str], None]


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
        self.exact_vectors = CatalogVectors(lambda: self.catalog.indexed_vectors(embedder.model_name),
                                            self._generation)
        self.lock = DataDirLock(settings.data_dir)  # orders processes; readers never wait on it
        self.write_lock = threading.RLock()  # orders this process's writing threads
        self._exclusive_depth = 0
        self._chroma_generation: str | None = None  # what this process's Chroma client has seen
        self._chroma_sync = threading.Lock()
        self._keyword_file: tuple[int, int] | None = None
        self.parameter_changes = self._parameter_changes()
        if self.parameter_changes and not settings.reindex_on_settings_change:
            raise IndexSettingsChanged(
                "The index in "
                f"{settings.data_dir} was built with different settings ({self.parameter_changes}). "
                "Run `python -m core reindex` to rebuild it with the current settings, "
                "or restore the previous settings."
            )
        self.recovered: list[str] = self._recover_if_abandoned()
        self._keyword: KeywordIndex | None = None  # opened on first use: `docs` and the pages never need it

    # --- index parameters ---------------------------------------------------------------------

    def _parameter_changes(self) -> str:
        current = self.settings.index_parameters()
        stored = self.catalog.get_json("index_parameters")
        if stored is None or not self.catalog.documents():
            return ""  # the first writer records the current parameters
        stored = {**INDEX_PARAMETERS_BEFORE, **stored}
        changed = [f"{k}: {stored.get(k)} -> {v}" for k, v in current.items() if stored.get(k) != v]
        return ", ".join(changed)

    def accept_current_parameters(self) -> None:
        """Called by a full re-index once every document is rebuilt with the current settings."""
        self.catalog.set_json("index_parameters", self.settings.index_parameters())
        self.parameter_changes = ""

    # --- write brackets -----------------------------------------------------------------------

    @contextmanager
    def exclusive(self, on_wait: WaitCallback | None = None) -> Iterator[None]:
        """This process alone may change the stores, and sees every write of the others. Waits for
        another writing process up to the write_wait_seconds setting, telling `on_wait` who it waits for."""
        with self.write_lock:
            if self._exclusive_depth == 0:
                try:
                    self.lock.acquire(self.settings.write_wait_seconds, on_wait and self._wait_reporter(on_wait))
                except WriterBusy as exc:
                    raise WriterBusy(f"{self.writer_activity() or 'Another DocuChat process is writing'}; "
                                     f"{exc}. Try again when it has finished.") from exc
            self._exclusive_depth += 1
            try:
                if self._exclusive_depth == 1:
                    self._take_over()
                yield
            finally:
                self._exclusive_depth -= 1
                if self._exclusive_depth == 0:
                    self.lock.release()

    @contextmanager
    def writing(self, on_wait: WaitCallback | None = None) -> Iterator[None]:
        with self.exclusive(on_wait):
            self.catalog.set_meta("dirty", "1")
            yield
            self.refresh_keyword_index()
            self.catalog.set_meta("dirty", "0")

    def _take_over(self) -> None:
        """What a process does on taking the lock: catch up with the writes of other processes, and
        clean up after one that crashed (the lock was free, so no writer is alive)."""
        self._sync_chroma()
        if self.catalog.get_meta("dirty") == "1":
            self.recovered += self.recover()
        if self.catalog.get_json("index_parameters") is None or not self.catalog.documents():
            self.catalog.set_json("index_parameters", self.settings.index_parameters())

    def _sync_chroma(self) -> None:
        """Drop an embedded Chroma client that has not seen another process's writes (it keeps its
        graph in memory); it reopens on first use. Call only while holding the lock."""
        generation = self._generation()
        with self._chroma_sync:  # sub-queries search from threads: one of them closes, once
            if self._chroma_generation != generation:
                self.vectors.close()
                self._chroma_generation = generation

    def _wait_reporter(self, on_wait: WaitCallback) -> Callable[[float], None]:
        def report(waited: float) -> None:
            who = self.writer_activity() or "Another DocuChat process is writing to this knowledge base"
            on_wait(f"{who}; waiting… ({waited:.0f} s)")
        return report

    def writer_activity(self) -> str | None:
        """What another process is writing, as a sentence, or None when no other process writes."""
        if self.lock.held_here:
            return None
        with self.lock.probe() as free:
            if free:
                return None
        pending = self.catalog.get_json(PENDING_FILES) or {}
        files = pending.get("files") or []
        if not files:
            return "Another DocuChat process is writing to this knowledge base"
        return f"Another DocuChat process is indexing {len(files)} file{'s' if len(files) != 1 else ''}"

    def pending_elsewhere(self) -> list[str]:
        """The files another live process's batch has not finished yet (for listings: 'indexing')."""
        if self.writer_activity() is None:
            return []
        return list((self.catalog.get_json(PENDING_FILES) or {}).get("files") or [])

    def _bump_generation(self) -> None:
        generation = str(int(self.catalog.get_meta("generation") or 0) + 1)
        self.catalog.set_meta("generation", generation)
        self._chroma_generation = generation  # only the lock holder writes, and its Chroma saw this

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

    def add_summaries(self, doc_id: str, summary=None, sections=()) -> None:
        """Give an indexed document its summary and page-span summaries (replacing any), as ingest
        makes them: for a knowledge base indexed before they existed. Call inside `writing()`.
        (Summaries are read from the catalog on every search: no index to refresh.)"""
        self.catalog.add_summaries(doc_id, summary, sections)

    def set_pending(self, filenames: list[str], batch_started: str | None = None) -> None:
        """The files of the running batch not yet done: other processes list them as being indexed,
        and after a crash they are listed as failed."""
        self.catalog.set_json(PENDING_FILES, {"pid": os.getpid(), "started": batch_started or now(),
                                              "files": filenames})

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

    @property
    def keyword(self) -> KeywordIndex:
        if self._keyword is None:
            self._keyword = self._open_keyword_index()
        return self._keyword

    @keyword.setter
    def keyword(self, index: KeywordIndex) -> None:
        self._keyword = index

    def _open_keyword_index(self) -> KeywordIndex:
        index = self._load_keyword_index()
        if index is not None and index.stamp == self._generation():
            return index
        with self.lock.probe() as free:
            log.info("Keyword index missing or stale; rebuilding from the catalog")
            # With another process writing, the rebuild stays in memory: that process saves the
            # index when its batch ends, and sync() loads it then.
            return self._build_keyword_index(save=free)

    def _load_keyword_index(self) -> KeywordIndex | None:
        self._keyword_file = self._keyword_file_state()
        return KeywordIndex.load(self.settings.keyword_index_path, self.settings.bm25_k1, self.settings.bm25_b)

    def _keyword_file_state(self) -> tuple[int, int] | None:
        try:
            stat = (self.settings.keyword_index_path / "ids.json").stat()
        except OSError:
            return None
        return stat.st_mtime_ns, stat.st_size

    def sync(self) -> None:
        """Before a search: load a keyword index that another process saved since (cheap: the
        arrays are memory-mapped; nothing is rebuilt). Vectors need nothing: see searchable_vectors."""
        if self.keyword.stamp == self._generation() or self.lock.held_here:
            return
        if self._keyword_file_state() != self._keyword_file:
            index = self._load_keyword_index()
            if index is not None:  # None: caught between the writer's two renames; next time
                self.keyword = index

    @contextmanager
    def searchable_vectors(self) -> Iterator[CatalogVectors | VectorStore]:
        """The vectors this process may search now, without waiting: Chroma when it is a server or
        no other process is writing (held for the query, so no writer starts under it), otherwise
        the same vectors from the catalog."""
        if self.vectors.shared:
            yield self.vectors
            return
        with self.lock.probe() as free:
            if not free:
                yield self.exact_vectors
                return
            self._sync_chroma()
            yield self.vectors

    def _generation(self) -> str:
        return self.catalog.get_meta("generation") or "0"

    def _build_keyword_index(self, save: bool = True) -> KeywordIndex:
        ids, texts = self.catalog.indexed_chunk_texts()
        index = KeywordIndex(self.settings.bm25_k1, self.settings.bm25_b)
        index.build(ids, texts, stamp=self._generation())
        if save:
            index.save(self.settings.keyword_index_path)
            self._keyword_file = self._keyword_file_state()
        return index

    def refresh_keyword_index(self) -> None:
        if self.keyword.stamp != self._generation():
            self.keyword = self._build_keyword_index()

    # --- crash recovery -----------------------------------------------------------------------

    def _recover_if_abandoned(self) -> list[str]:
        """On open: a dirty knowledge base is recovered only when no process holds the lock, so
        the writer that marked it is dead. A live writer's work in progress is left alone."""
        if self.catalog.get_meta("dirty") != "1":
            return []
        with self.lock.probe() as free:
            if not free:
                return []
            self._sync_chroma()
            return self.recover()

    def recover(self) -> list[str]:
        """Bring the three stores back into agreement after a crashed writer. Returns the files that
        need re-ingesting. Call only while holding the lock (see exclusive and _recover_if_abandoned)."""
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
            if changed or orphans or missing:  # other processes' Chroma and keyword index are stale now
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
        """doc_id -> its summary (document_type, summary, key_topics, use_for)."""
        return {doc_id: summary for doc_id, summary, _ in self.catalog.summaries()}

    def search_summaries(self, vector: np.ndarray, k: int = 3) -> list[tuple[str, float, dict]]:
        """search_vector(scope=summary): the documents whose summaries are closest to `vector`."""
        stored = self.catalog.summaries()
        if not stored:
            return []
        scores = np.stack([v for _, _, v in stored]) @ vector.astype(np.float32)
        order = np.argsort(-scores)[:k]
        return [(stored[i][0], round(float(scores[i]), 6), stored[i][1]) for i in order]

    def section_summary_documents(self) -> set[str]:
        """The documents with page-span summaries (the long ones, as ingest found them)."""
        return {doc_id for doc_id, *_ in self.catalog.section_summaries()}

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
        """Whether catalog, vector store and keyword index hold exactly the same chunks (waits for
        a writing process, so what it compares is at rest)."""
        with self.exclusive():
            indexed, _ = self.catalog.indexed_chunk_texts()
            expected = set(indexed)
            vectors = self.vectors.all_ids()
            if self.keyword.stamp != self._generation():  # another process may have saved a newer one
                self.keyword = self._load_keyword_index() or self.keyword
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
        self.vectors.close()
        self.catalog.close()
