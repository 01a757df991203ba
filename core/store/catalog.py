"""The catalog: SQLite is the source of truth for documents, chunks and index parameters.

A document is 'indexing' while its vectors and keyword entries are being written and becomes
'indexed' only after both are in place, so after a crash anything not 'indexed' is known to be
partial and is cleaned out of the other stores (see KnowledgeBase.recover).
"""
from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

import numpy as np

from core.store import facts as fact_tables
from core.store.facts import FactTables

if TYPE_CHECKING:
    from core.annotations.model import Fact
    from core.ingest.chunking import Chunk
    from core.ingest.summary import SectionSummary

INDEXING, INDEXED, FAILED = "indexing", "indexed", "failed"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    doc_id TEXT PRIMARY KEY,
    filename TEXT NOT NULL,
    title TEXT NOT NULL,
    content_hash TEXT,
    kind TEXT,
    size_bytes INTEGER,
    pages INTEGER,
    category TEXT,
    status TEXT NOT NULL,
    error TEXT,
    warnings TEXT,
    n_chunks INTEGER DEFAULT 0,
    stored_path TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS documents_hash ON documents(content_hash);
CREATE INDEX IF NOT EXISTS documents_filename ON documents(filename);
CREATE TABLE IF NOT EXISTS chunks (
    chunk_id TEXT PRIMARY KEY,
    doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
    chunk_index INTEGER NOT NULL,
    text TEXT NOT NULL,
    index_text TEXT NOT NULL,
    token_count INTEGER,
    page_start INTEGER,
    page_end INTEGER,
    sheet TEXT,
    row_start INTEGER,
    row_end INTEGER,
    text_hash TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(doc_id, chunk_index);
CREATE TABLE IF NOT EXISTS embedding_cache (
    text_hash TEXT NOT NULL,
    model TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (text_hash, model)
);
CREATE TABLE IF NOT EXISTS summaries (
    doc_id TEXT PRIMARY KEY,
    summary TEXT NOT NULL,
    vector BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS section_summaries (
    doc_id TEXT NOT NULL,
    page_start INTEGER NOT NULL,
    page_end INTEGER NOT NULL,
    text TEXT NOT NULL,
    vector BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS section_summaries_doc ON section_summaries(doc_id);
CREATE TABLE IF NOT EXISTS result_sets (
    result_set_id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    question TEXT NOT NULL,
    attempts TEXT NOT NULL,
    fact_ids TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS turns (
    turn_id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    question TEXT NOT NULL,
    answer TEXT NOT NULL,
    confidence TEXT,
    response TEXT NOT NULL,
    trace TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS turns_created ON turns(created_at);
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""


def text_hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass
class DocumentRecord:
    doc_id: str
    filename: str
    title: str
    content_hash: str | None
    kind: str | None
    size_bytes: int | None
    pages: int | None
    category: str | None
    status: str
    error: str | None
    warnings: str | None
    n_chunks: int
    stored_path: str | None
    created_at: str
    updated_at: str

    @property
    def category_hints(self) -> list[str]:
        return self.category.split(",") if self.category else []


@dataclass
class ChunkRecord:
    chunk_id: str
    doc_id: str
    chunk_index: int
    text: str
    index_text: str
    token_count: int
    page_start: int | None
    page_end: int | None
    sheet: str | None
    row_start: int | None
    row_end: int | None
    filename: str = ""

    @property
    def page_label(self) -> str | None:
        if self.page_start is None:
            return None
        if self.page_end in (None, self.page_start):
            return str(self.page_start)
        return f"{self.page_start}-{self.page_end}"

    @property
    def rows_label(self) -> str | None:
        if self.row_start is None:
            return None
        if self.row_end in (None, self.row_start):
            return str(self.row_start)
        return f"{self.row_start}-{self.row_end}"


_CHUNK_COLUMNS = (
    "c.chunk_id, c.doc_id, c.chunk_index, c.text, c.index_text, c.token_count, c.page_start, "
    "c.page_end, c.sheet, c.row_start, c.row_end, d.filename"
)


def _insert_summaries(conn: sqlite3.Connection, doc_id: str, summary: tuple[dict, np.ndarray] | None,
                      sections) -> None:
    if summary is not None:
        conn.execute("INSERT INTO summaries VALUES (?,?,?)",
                     (doc_id, json.dumps(summary[0]), summary[1].astype(np.float32).tobytes()))
    conn.executemany("INSERT INTO section_summaries VALUES (?,?,?,?,?)", [
        (doc_id, section.page_start, section.page_end, section.text, vector.astype(np.float32).tobytes())
        for section, vector in sections])


def _replace_document(conn: sqlite3.Connection, record: DocumentRecord) -> None:
    fact_tables.delete(conn, record.doc_id)
    conn.execute("DELETE FROM summaries WHERE doc_id=?", (record.doc_id,))
    conn.execute("DELETE FROM section_summaries WHERE doc_id=?", (record.doc_id,))
    conn.execute("DELETE FROM chunks WHERE doc_id=?", (record.doc_id,))
    conn.execute("DELETE FROM documents WHERE doc_id=?", (record.doc_id,))
    conn.execute(
        "INSERT INTO documents VALUES (:doc_id, :filename, :title, :content_hash, :kind, "
        ":size_bytes, :pages, :category, :status, :error, :warnings, :n_chunks, "
        ":stored_path, :created_at, :updated_at)",
        record.__dict__,
    )


def _turn(row: sqlite3.Row) -> dict:
    return {
        "turn_id": row["turn_id"], "created_at": row["created_at"], "question": row["question"],
        "answer": row["answer"], "confidence": row["confidence"],
        "response": json.loads(row["response"]), "trace": json.loads(row["trace"]),
    }


class Catalog:
    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._write_lock = threading.RLock()
        with self._write_lock:
            self._conn().executescript(_SCHEMA + fact_tables.SCHEMA)
            self._add_missing_columns()
        self.facts = FactTables(self._conn)  # the structured facts, read by core.annotations

    # Columns added after a knowledge base may already exist: (table, column, declaration).
    _LATER_COLUMNS = fact_tables.LATER_COLUMNS

    def _add_missing_columns(self) -> None:
        conn = self._conn()
        for table, column, declaration in self._LATER_COLUMNS:
            present = {r["name"] for r in conn.execute(f"PRAGMA table_info({table})")}
            if column not in present:
                conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=ON")
            self._local.conn = conn
        return conn

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """A write transaction: all of it is on disk, or none of it."""
        with self._write_lock:
            conn = self._conn()
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    # --- meta ---------------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        row = self._conn().execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row["value"] if row else None

    def set_meta(self, key: str, value: str) -> None:
        with self._connect() as conn:
            conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", (key, value))

    def get_json(self, key: str) -> object | None:
        raw = self.get_meta(key)
        return json.loads(raw) if raw is not None else None

    def set_json(self, key: str, value: object) -> None:
        self.set_meta(key, json.dumps(value, sort_keys=True))

    # --- documents ----------------------------------------------------------------------------

    def begin_document(
        self, record: DocumentRecord, chunks: "list[Chunk]", index_texts: list[str], facts: "list[Fact]" = (),
        summary: tuple[dict, np.ndarray] | None = None, sections: "list[tuple[SectionSummary, np.ndarray]]" = (),
    ) -> None:
        """Write the document as 'indexing' with all its chunks, facts and summaries, in one transaction."""
        with self._connect() as conn:
            _replace_document(conn, record)
            conn.executemany(
                "INSERT INTO chunks VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                [
                    (
                        c.chunk_id, c.doc_id, c.chunk_index, c.text, index_text, c.token_count,
                        c.page_start, c.page_end, c.sheet, c.row_start, c.row_end,
                        text_hash(index_text),
                    )
                    for c, index_text in zip(chunks, index_texts)
                ],
            )
            fact_tables.insert(conn, facts)
            _insert_summaries(conn, record.doc_id, summary, sections)

    def add_summaries(self, doc_id: str, summary: tuple[dict, np.ndarray] | None = None,
                      sections: "list[tuple[SectionSummary, np.ndarray]]" = ()) -> None:
        """A document's summary and page-span summaries in place of any it has: for a knowledge base
        indexed before summaries existed (the benchmarks bring their older copies up to date)."""
        with self._connect() as conn:
            if summary is not None:
                conn.execute("DELETE FROM summaries WHERE doc_id=?", (doc_id,))
            if sections:
                conn.execute("DELETE FROM section_summaries WHERE doc_id=?", (doc_id,))
            _insert_summaries(conn, doc_id, summary, sections)

    def set_status(self, doc_id: str, status: str, error: str | None = None) -> None:
        with self._connect() as conn:
            conn.execute(
                "UPDATE documents SET status=?, error=?, updated_at=? WHERE doc_id=?",
                (status, error, now(), doc_id),
            )

    def record_failure(self, record: DocumentRecord) -> None:
        """A file that could not be ingested stays listed with its error, and nothing else."""
        with self._connect() as conn:
            _replace_document(conn, record)

    def delete_document(self, doc_id: str) -> None:
        with self._connect() as conn:
            fact_tables.delete(conn, doc_id)
            conn.execute("DELETE FROM summaries WHERE doc_id=?", (doc_id,))
            conn.execute("DELETE FROM section_summaries WHERE doc_id=?", (doc_id,))
            conn.execute("DELETE FROM chunks WHERE doc_id=?", (doc_id,))
            conn.execute("DELETE FROM documents WHERE doc_id=?", (doc_id,))

    def documents(self, status: str | None = None) -> list[DocumentRecord]:
        sql = "SELECT * FROM documents"
        args: tuple = ()
        if status:
            sql += " WHERE status=?"
            args = (status,)
        rows = self._conn().execute(sql + " ORDER BY created_at, filename", args).fetchall()
        return [DocumentRecord(**dict(r)) for r in rows]

    def document(self, doc_id: str) -> DocumentRecord | None:
        row = self._conn().execute("SELECT * FROM documents WHERE doc_id=?", (doc_id,)).fetchone()
        return DocumentRecord(**dict(row)) if row else None

    def find_documents(self, *, content_hash: str | None = None, filename: str | None = None) -> list[DocumentRecord]:
        clauses, args = [], []
        if content_hash:
            clauses.append("content_hash=?")
            args.append(content_hash)
        if filename:
            clauses.append("filename=?")
            args.append(filename)
        where = " AND ".join(clauses) or "1"
        rows = self._conn().execute(f"SELECT * FROM documents WHERE {where}", args).fetchall()
        return [DocumentRecord(**dict(r)) for r in rows]

    # --- chunks -------------------------------------------------------------------------------

    def chunks(self, chunk_ids: list[str]) -> dict[str, ChunkRecord]:
        """Chunks of indexed documents only: a document still being written is not searchable."""
        found: dict[str, ChunkRecord] = {}
        for start in range(0, len(chunk_ids), 500):
            part = chunk_ids[start:start + 500]
            marks = ",".join("?" * len(part))
            rows = self._conn().execute(
                f"SELECT {_CHUNK_COLUMNS} FROM chunks c JOIN documents d USING(doc_id) "
                f"WHERE d.status='{INDEXED}' AND c.chunk_id IN ({marks})",
                part,
            ).fetchall()
            found.update({r["chunk_id"]: ChunkRecord(**dict(r)) for r in rows})
        return found

    def neighbours(self, doc_id: str, first: int, last: int) -> list[ChunkRecord]:
        rows = self._conn().execute(
            f"SELECT {_CHUNK_COLUMNS} FROM chunks c JOIN documents d USING(doc_id) "
            "WHERE c.doc_id=? AND c.chunk_index BETWEEN ? AND ? ORDER BY c.chunk_index",
            (doc_id, first, last),
        ).fetchall()
        return [ChunkRecord(**dict(r)) for r in rows]

    def document_chunks(self, doc_id: str) -> list[ChunkRecord]:
        return self.neighbours(doc_id, 0, 1 << 62)

    def indexed_chunk_texts(self) -> tuple[list[str], list[str]]:
        """Ids and keyword-index texts of every chunk of every indexed document, in a stable order."""
        rows = self._conn().execute(
            "SELECT c.chunk_id, c.index_text FROM chunks c JOIN documents d USING(doc_id) "
            "WHERE d.status=? ORDER BY c.doc_id, c.chunk_index",
            (INDEXED,),
        ).fetchall()
        return [r["chunk_id"] for r in rows], [r["index_text"] for r in rows]

    def indexed_vectors(self, model: str) -> tuple[list[str], list[str], np.ndarray]:
        """Chunk ids, their doc ids and their vectors (from the embedding cache) for every indexed chunk."""
        rows = self._conn().execute(
            "SELECT c.chunk_id, c.doc_id, e.vector FROM chunks c JOIN documents d USING(doc_id) "
            "JOIN embedding_cache e ON e.text_hash=c.text_hash AND e.model=? "
            "WHERE d.status=? ORDER BY c.doc_id, c.chunk_index",
            (model, INDEXED),
        ).fetchall()
        if not rows:
            return [], [], np.zeros((0, 0), dtype=np.float32)
        matrix = np.stack([np.frombuffer(r["vector"], dtype=np.float32) for r in rows])
        return [r["chunk_id"] for r in rows], [r["doc_id"] for r in rows], matrix

    def chunk_ids_of(self, doc_id: str) -> list[str]:
        rows = self._conn().execute(
            "SELECT chunk_id FROM chunks WHERE doc_id=? ORDER BY chunk_index", (doc_id,)
        ).fetchall()
        return [r["chunk_id"] for r in rows]

    def chunk_ids_in_pages(self, spans: list[tuple[str, int, int]]) -> set[str]:
        found: set[str] = set()
        for doc_id, first, last in spans:
            rows = self._conn().execute(
                "SELECT chunk_id FROM chunks WHERE doc_id=? AND page_start <= ? AND COALESCE(page_end, page_start) >= ?",
                (doc_id, last, first),
            ).fetchall()
            found.update(r["chunk_id"] for r in rows)
        return found

    def counts(self) -> dict[str, int]:
        conn = self._conn()
        documents = conn.execute(
            "SELECT COUNT(*) FROM documents WHERE status=?", (INDEXED,)
        ).fetchone()[0]
        chunks = conn.execute(
            "SELECT COUNT(*) FROM chunks c JOIN documents d USING(doc_id) WHERE d.status=?",
            (INDEXED,),
        ).fetchone()[0]
        return {"documents": documents, "chunks": chunks, "facts": fact_tables.count_indexed(conn, INDEXED)}

    # --- turns: the audit log of every answer shown, with its trace ----------------------------

    def save_turn(self, turn_id: str, question: str, answer: str, confidence: str | None,
                  response: dict, trace: dict) -> None:
        with self._connect() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO turns VALUES (?,?,?,?,?,?,?)",
                (turn_id, now(), question, answer, confidence, json.dumps(response), json.dumps(trace)),
            )

    def turn(self, turn_id: str) -> dict | None:
        row = self._conn().execute("SELECT * FROM turns WHERE turn_id=?", (turn_id,)).fetchone()
        return _turn(row) if row else None

    def recent_turns(self, limit: int = 50) -> list[dict]:
        rows = self._conn().execute(
            "SELECT * FROM turns ORDER BY created_at DESC, rowid DESC LIMIT ?", (limit,)
        ).fetchall()
        return [_turn(r) for r in rows]

    # --- document summaries (schema), with their embedding for routing ---------

    def summaries(self) -> list[tuple[str, dict, np.ndarray]]:
        rows = self._conn().execute(
            "SELECT s.doc_id, s.summary, s.vector FROM summaries s JOIN documents d USING(doc_id) "
            "WHERE d.status=? ORDER BY s.doc_id", (INDEXED,)
        ).fetchall()
        return [(r["doc_id"], json.loads(r["summary"]), np.frombuffer(r["vector"], dtype=np.float32)) for r in rows]

    def section_summaries(self) -> list[tuple[str, int, int, str, np.ndarray]]:
        """(doc_id, page_start, page_end, text, vector) of the long documents' page spans."""
        rows = self._conn().execute(
            "SELECT s.* FROM section_summaries s JOIN documents d USING(doc_id) WHERE d.status=? "
            "ORDER BY s.doc_id, s.page_start", (INDEXED,)
        ).fetchall()
        return [(r["doc_id"], r["page_start"], r["page_end"], r["text"], np.frombuffer(r["vector"], dtype=np.float32))
                for r in rows]

    # --- result sets: every match of a structured answer, for paging and export --------------

    def save_result_set(self, result_set_id: str, question: str, attempts: str, fact_ids: list[str]) -> None:
        with self._connect() as conn:
            conn.execute("INSERT INTO result_sets VALUES (?,?,?,?,?)",
                         (result_set_id, now(), question, attempts, json.dumps(fact_ids)))

    def result_set(self, result_set_id: str) -> dict | None:
        row = self._conn().execute("SELECT * FROM result_sets WHERE result_set_id=?", (result_set_id,)).fetchone()
        if row is None:
            return None
        return {"result_set_id": row["result_set_id"], "created_at": row["created_at"], "question": row["question"],
                "attempts": json.loads(row["attempts"]), "fact_ids": json.loads(row["fact_ids"])}

    # --- embedding cache: the model is the slow step, so a text is embedded once ------------

    def cached_embeddings(self, hashes: list[str], model: str) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        for start in range(0, len(hashes), 500):
            part = hashes[start:start + 500]
            marks = ",".join("?" * len(part))
            rows = self._conn().execute(
                f"SELECT text_hash, vector FROM embedding_cache WHERE model=? AND text_hash IN ({marks})",
                [model, *part],
            ).fetchall()
            found.update({r["text_hash"]: np.frombuffer(r["vector"], dtype=np.float32) for r in rows})
        return found

    def cache_embeddings(self, items: dict[str, np.ndarray], model: str) -> None:
        with self._connect() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO embedding_cache(text_hash, model, vector) VALUES (?,?,?)",
                [(h, model, v.astype(np.float32).tobytes()) for h, v in items.items()],
            )
