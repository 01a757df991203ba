"""Ingestion: file -> load -> chunk -> embed (cached by content hash) -> stores, with progress.

Each file succeeds or fails on its own: a bad file gets a clear message and a 'failed' row, and
the rest of the batch goes on. The keyword index is rebuilt once per batch, not once per file.
"""
from __future__ import annotations

import hashlib
import logging
import re
import shutil
import tempfile
import time
import uuid
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from core.config import Settings
from core.ingest.categories import category_hints
from core.ingest.chunking import Chunk, chunk_document
from core.ingest.context import compose_index_text, context_line, document_identity
from core.ingest.document import IngestError, LoadedDocument
from core.ingest.extract import assign_chunks
from core.ingest.isolation import load_isolated, time_message
from core.ingest.summary import section_summaries, summarize
from core.profiles import active_profiles
from core.store.catalog import FAILED, INDEXED, DocumentRecord, now, text_hash
from core.store.knowledge_base import KnowledgeBase, failed_doc_id
from core.store.lock import WriterBusy

log = logging.getLogger(__name__)

# Statuses of one file in a batch
ADDED, DUPLICATE, REPLACED = "indexed", "duplicate", "replaced"
BEFORE_WRITE = ("parsing", "chunking", "embedding", "indexing")


@dataclass
class IngestProgress:
    filename: str
    step: str  # waiting (for another process) | hashing | parsing | chunking | embedding | indexing | done | failed
    file_index: int  # 0-based position in the batch
    file_count: int
    done: int = 0  # units of this step done (e.g. chunks embedded)
    total: int = 0
    message: str = ""

    @property
    def fraction(self) -> float:
        """Overall progress of the batch, 0..1, for one progress bar."""
        within = self.done / self.total if self.total else (1.0 if self.step in ("done", "failed") else 0.0)
        weight = {"waiting": 0.0, "hashing": 0.0, "parsing": 0.05, "chunking": 0.15, "embedding": 0.2, "indexing": 0.95}
        start = weight.get(self.step, 1.0)
        share = start + (0.75 * within if self.step == "embedding" else 0.0)
        return min(1.0, (self.file_index + share) / max(self.file_count, 1))


ProgressCallback = Callable[[IngestProgress], None]


@dataclass
class IngestResult:
    filename: str
    status: str  # indexed | duplicate | replaced | failed
    doc_id: str | None = None
    pages: int = 0
    chunks: int = 0
    message: str = ""
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    embedded: int = 0  # chunks that needed the model (the rest came from the cache)
    facts: int = 0

    @property
    def ok(self) -> bool:
        return self.status != FAILED


def content_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


_UNSAFE = re.compile(r"[^\w.\- ()\[\]]+", re.UNICODE)


def doc_id_of(digest: str) -> str:
    """A document's id: its content's hash, so the same bytes are the same document."""
    return "d" + digest[:12]


def safe_filename(name: str, max_length: int = 120) -> str:
    """A file name that cannot leave the data directory or break a terminal or a page."""
    name = name.replace("\\", "/").split("/")[-1]
    name = "".join(ch for ch in name if ch.isprintable())
    name = _UNSAFE.sub("_", name).strip(" ._") or "file"
    stem, dot, suffix = name.rpartition(".")
    if not dot:
        stem, suffix = name, ""
    suffix = suffix[:10]
    stem = stem[: max_length - len(suffix) - 1]
    return f"{stem}.{suffix}" if suffix else stem


def index_text(title: str, chunk: Chunk, identity: str = "", heading: bool = True) -> str:
    """What is embedded and keyword-indexed: the chunk under a short header naming its source,
    so a page that never repeats the company or product name can still be found by it, and a
    line saying which document it is from and under which heading (core/ingest/context.py)."""
    where = f"page {chunk.page_label}" if chunk.page_label else (f"sheet {chunk.sheet}" if chunk.sheet else "")
    header = f"{title} | {where}" if where else title
    return compose_index_text(header, context_line(identity, chunk.heading if heading else None), chunk.text)


def index_texts(title: str, identity: str, chunks: list[Chunk], count_tokens, limit: int) -> list[str]:
    """Each chunk's indexed text, within `limit` embedder tokens: the embedder truncates at 256,
    so where the prefix would push a full chunk past it, the heading is left out."""
    texts = [index_text(title, c, identity) for c in chunks]
    for i, tokens in enumerate(count_tokens(texts)):
        if tokens > limit and chunks[i].heading:
            texts[i] = index_text(title, chunks[i], identity, heading=False)
    return texts


class Ingestor:
    def __init__(self, kb: KnowledgeBase, settings: Settings) -> None:
        self.kb = kb
        self.settings = settings

    def ingest_paths(
        self,
        paths: Iterable[Path],
        progress: ProgressCallback | None = None,
        names: list[str] | None = None,
    ) -> list[IngestResult]:
        """Ingest a batch. `names` gives the user's file names when paths are temporary files.
        While another process writes to the knowledge base, the batch waits (reported as step
        'waiting'); if that lasts past the write_wait_seconds setting, every file fails with the reason."""
        paths = [Path(p) for p in paths]
        filenames = [safe_filename(names[index] if names else path.name) for index, path in enumerate(paths)]
        results: list[IngestResult] = []

        def waiting(message: str) -> None:
            if progress:
                progress(IngestProgress(filenames[0] if filenames else "", "waiting", 0, len(paths), message=message))

        try:
            with self.kb.writing(on_wait=waiting), ThreadPoolExecutor(1, "read-ahead") as pool:
                started = now()
                for index, (path, name, read) in enumerate(self._reading_ahead(pool, list(zip(paths, filenames)))):
                    self.kb.set_pending(filenames[index:], started)
                    results.append(self._ingest_one(path, name, index, len(paths), progress, read))
                self.kb.set_pending([], started)
        except WriterBusy as exc:  # nothing was written: the files are simply not in, with the reason
            return [IngestResult(name, FAILED, message=str(exc)) for name in filenames]
        return results

    def _reading_ahead(self, pool: ThreadPoolExecutor, files: list[tuple[Path, str]]):
        """Each file of a batch with the read of the file after it already under way, so the next file
        is parsed (in its own child process) while this one is chunked and embedded. Only the read
        runs ahead: every write stays in the batch's order, in this thread."""
        ahead: Future | None = None
        for index, (path, name) in enumerate(files):
            current = ahead
            ahead = pool.submit(self._read, *files[index + 1]) if index + 1 < len(files) else None
            yield path, name, current

    def _read(self, path: Path, filename: str) -> tuple[str, LoadedDocument, list]:
        digest = content_hash(path)
        document, facts = load_isolated(path, self.settings, filename, doc_id_of(digest),
                                        timeout=self.settings.max_ingest_seconds)
        return digest, document, facts

    def _ingest_one(
        self, path: Path, filename: str, index: int, count: int, progress: ProgressCallback | None,
        read: Future | None = None,
    ) -> IngestResult:
        started = time.perf_counter()

        def report(step: str, done: int = 0, total: int = 0, message: str = "") -> None:
            # Every step up to the write checks the time limit; after the write nothing may fail.
            if step in BEFORE_WRITE and time.perf_counter() - started > self.settings.max_ingest_seconds:
                raise IngestError(time_message(self.settings))
            if progress:
                progress(IngestProgress(filename, step, index, count, done, total, message))

        try:
            report("hashing")
            if not path.is_file():
                raise IngestError("File not found.")
            digest = content_hash(path)
            same_content = [d for d in self.kb.catalog.find_documents(content_hash=digest) if d.status == INDEXED]
            if same_content:
                existing = same_content[0]
                report("done", message="already in the knowledge base")
                return IngestResult(
                    filename, DUPLICATE, existing.doc_id, existing.pages or 0, existing.n_chunks,
                    message=f"Already in the knowledge base as '{existing.filename}'; not added again.",
                    seconds=time.perf_counter() - started,
                )
            previous = self.kb.catalog.find_documents(filename=filename)
            doc_id = doc_id_of(digest)
            report("parsing")
            read_digest, document, facts = read.result() if read else (None, None, None)
            if read_digest != digest:  # not read ahead, or the file changed since
                remaining = self.settings.max_ingest_seconds - (time.perf_counter() - started)
                document, facts = load_isolated(path, self.settings, filename, doc_id, timeout=remaining)
            result = self._index(document, facts, path, doc_id, digest, report)
            for old in previous:  # replace only once the new version is safely in
                if old.doc_id != doc_id:
                    self._remove(old)
                    if old.status == INDEXED:
                        result.status = REPLACED
                        result.message = "Replaced the earlier version of this file."
            report("done", message=f"{result.chunks} chunks")
        except IngestError as exc:
            result = self._fail(filename, path, str(exc))
            report("failed", message=str(exc))
        except Exception as exc:  # a parser bug must not take the batch down
            log.exception("Unexpected error ingesting %s", filename)
            result = self._fail(filename, path, f"Could not read this file ({type(exc).__name__}: {exc}).")
            report("failed", message=result.message)
        result.seconds = time.perf_counter() - started
        return result

    def _index(self, document: LoadedDocument, facts, path: Path, doc_id: str, digest: str, report) -> IngestResult:
        report("chunking")
        s = self.settings
        chunks = chunk_document(
            document, doc_id, self.kb.embedder.count_tokens,
            strategy=s.chunking_strategy, size=s.chunk_size_tokens, overlap=s.chunk_overlap_tokens,
        )
        if not chunks:
            raise IngestError("No text could be extracted from this file.")
        kinds = active_profiles(s)
        texts = index_texts(document.title, document_identity(document, kinds), chunks,
                            self.kb.embedder.count_tokens, s.max_chunk_tokens)
        assign_chunks(facts, chunks)
        hints = category_hints(document, s)
        summary = summarize(document, hints, profiles=kinds)
        sections = section_summaries(document, s.macro_chunk_tokens) if "long" in hints else []
        # Summaries are embedded with the chunks: one batch, one cache, one progress bar, which
        # counts chunks only, so it ends at the chunk count the result reports.
        vectors, embedded = self._embed(texts + [summary.text(document.title)] + [x.text for x in sections],
                                        lambda done, total: report("embedding", min(done, len(texts)), len(texts)))
        vectors, summary_vector, section_vectors = vectors[:len(texts)], vectors[len(texts)], vectors[len(texts) + 1:]
        report("indexing")
        stored = self._store_original(path, doc_id, document.filename)
        record = DocumentRecord(
            doc_id=doc_id, filename=document.filename, title=document.title, content_hash=digest,
            kind=document.kind, size_bytes=path.stat().st_size, pages=document.page_count,
            category=",".join(hints), status=INDEXED, error=None,
            warnings="\n".join(document.warnings) or None, n_chunks=len(chunks),
            stored_path=str(stored), created_at=now(), updated_at=now(),
        )
        try:
            self.kb.add_document(record, chunks, texts, vectors, facts, (summary.to_dict(), summary_vector),
                                 list(zip(sections, section_vectors)))
        except Exception:
            self.kb.delete_document(doc_id)  # leave nothing half-written behind
            raise
        facts_note = f", {len(facts)} structured facts" if facts else ""
        return IngestResult(
            document.filename, ADDED, doc_id, document.page_count, len(chunks),
            message=f"{document.page_count} page(s), {len(chunks)} chunks{facts_note}",
            warnings=document.warnings, embedded=embedded, facts=len(facts),
        )

    def _embed(self, texts: list[str], on_batch: Callable[[int, int], None]) -> tuple[np.ndarray, int]:
        """Vectors for `texts`, from the cache where the same text was embedded before."""
        model = self.kb.embedder.model_name
        hashes = [text_hash(t) for t in texts]
        cached = self.kb.catalog.cached_embeddings(sorted(set(hashes)), model)
        todo = sorted({h: i for i, h in enumerate(hashes) if h not in cached}.values())
        batch = self.settings.embedding_batch_size * 4
        on_batch(0, len(todo))
        for start in range(0, len(todo), batch):
            part = todo[start:start + batch]
            fresh = self.kb.embedder.embed([texts[i] for i in part])
            new = {hashes[i]: v for i, v in zip(part, fresh)}
            self.kb.catalog.cache_embeddings(new, model)
            cached.update(new)
            on_batch(min(start + batch, len(todo)), len(todo))
        return np.stack([cached[h] for h in hashes]), len(todo)

    def _store_original(self, path: Path, doc_id: str, filename: str) -> Path:
        target_dir = self.settings.files_dir / doc_id
        target_dir.mkdir(parents=True, exist_ok=True)
        target = target_dir / filename
        if path.resolve() != target.resolve():
            tmp = target_dir / f".{uuid.uuid4().hex}.part"
            shutil.copyfile(path, tmp)
            tmp.replace(target)
        return target

    def _remove(self, record: DocumentRecord) -> None:
        self.kb.delete_document(record.doc_id)
        if record.stored_path:
            shutil.rmtree(Path(record.stored_path).parent, ignore_errors=True)

    def _fail(self, filename: str, path: Path, message: str) -> IngestResult:
        digest = content_hash(path) if path.is_file() else None
        failed_id = failed_doc_id(filename)
        for old in self.kb.catalog.find_documents(filename=filename):
            if old.status == FAILED:
                self.kb.catalog.delete_document(old.doc_id)
        self.kb.record_failure(DocumentRecord(
            doc_id=failed_id, filename=filename, title=filename, content_hash=digest, kind=None,
            size_bytes=path.stat().st_size if path.is_file() else None, pages=None, category=None,
            status=FAILED, error=message, warnings=None, n_chunks=0, stored_path=None,
            created_at=now(), updated_at=now(),
        ))
        return IngestResult(filename, FAILED, message=message)

    def delete(self, doc_id_or_filename: str) -> list[str]:
        """Delete documents by id or file name. Returns the file names removed."""
        matches = [
            d for d in self.kb.documents()
            if d.doc_id == doc_id_or_filename or d.filename == doc_id_or_filename
        ]
        with self.kb.writing():
            for record in matches:
                self._remove(record)
        return [d.filename for d in matches]

    def reindex_document(self, doc_id: str, progress: ProgressCallback | None = None) -> IngestResult:
        """Rebuild one document from its stored original (e.g. after a parser improvement)."""
        record = self.kb.catalog.document(doc_id)
        if record is None or not record.stored_path or not Path(record.stored_path).is_file():
            name = record.filename if record else doc_id
            return IngestResult(name, FAILED, message="The original file is not stored; please upload it again.")
        with self.kb.writing(), tempfile.TemporaryDirectory(dir=self.settings.data_dir) as tmp:
            copy = Path(tmp) / "original"
            shutil.copyfile(record.stored_path, copy)
            self._remove(record)
            return self._ingest_one(copy, record.filename, 0, 1, progress)

    def reindex_all(self, progress: ProgressCallback | None = None) -> list[IngestResult]:
        """Rebuild every document from its stored original with the current settings."""
        records = [d for d in self.kb.documents() if d.stored_path and d.status == INDEXED]
        with self.kb.writing(), ThreadPoolExecutor(1, "read-ahead") as pool:
            self.kb.reset_index()
            results = []
            files = [(Path(record.stored_path), record.filename) for record in records]
            for index, (path, name, read) in enumerate(self._reading_ahead(pool, files)):
                results.append(self._ingest_one(path, name, index, len(records), progress, read))
            self.kb.accept_current_parameters()
        return results
