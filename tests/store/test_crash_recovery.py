"""After a crash at any point of a write, the next start finds the three stores in agreement."""
from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from core.ingest.chunking import Chunk
from core.store.catalog import INDEXING, DocumentRecord, now
from core.store.knowledge_base import INTERRUPTED_MESSAGE

ROOT = Path(__file__).resolve().parents[2]


def _partial_document(ws, doc_id: str = "dpartial") -> None:
    """What a crash between writing the catalog rows and marking them indexed leaves behind."""
    chunk = Chunk(doc_id, 0, "Half-written text about turbines.", 6, page_start=1, page_end=1)
    record = DocumentRecord(
        doc_id, "half.pdf", "half", "h" * 64, "pdf", 10, 1, "short", INDEXING, None, None, 1, None,
        now(), now(),
    )
    ws.kb.catalog.set_meta("dirty", "1")
    ws.kb.catalog.begin_document(record, [chunk], [chunk.text])
    ws.kb.vectors.add([chunk.chunk_id], ws.embedder.embed([chunk.text]), [{"doc_id": doc_id}])


def test_a_document_left_half_written_is_removed_and_listed_for_re_ingest(make_workspace, write_text, tmp_path):
    ws = make_workspace(tmp_path / "kb")
    ws.ingestor.ingest_paths([write_text("good.txt", "Wind turbines need yearly inspection.")])
    _partial_document(ws)
    ws.close()

    reopened = make_workspace(tmp_path / "kb")

    assert reopened.kb.recovered == ["half.pdf"]
    status = {d.filename: (d.status, d.error) for d in reopened.kb.documents()}
    assert status["half.pdf"] == ("failed", INTERRUPTED_MESSAGE)
    assert status["good.txt"][0] == "indexed"
    assert reopened.kb.consistency()["consistent"]


def test_orphan_vectors_are_dropped_and_missing_vectors_restored_without_the_model(
    make_workspace, write_text, tmp_path
):
    ws = make_workspace(tmp_path / "kb")
    ws.ingestor.ingest_paths([write_text("good.txt", "Wind turbines need yearly inspection.")])
    [chunk_id] = ws.kb.catalog.chunk_ids_of(ws.kb.documents()[0].doc_id)
    ws.kb.catalog.set_meta("dirty", "1")
    ws.kb.vectors.delete([chunk_id])
    ws.kb.vectors.add(["ghost_0"], np.ones((1, 384), dtype=np.float32) / np.sqrt(384), [{"doc_id": "ghost"}])
    ws.close()

    class NoModel:  # restoring must come from the embedding cache
        model_name, dim = ws.embedder.model_name, ws.embedder.dim
        count_tokens = staticmethod(ws.embedder.count_tokens)

        def embed(self, texts):
            raise AssertionError("the model was called during recovery")

    from core.config import Settings
    from core.store.knowledge_base import KnowledgeBase

    kb = KnowledgeBase(Settings(data_dir=tmp_path / "kb"), NoModel())
    assert kb.vectors.all_ids() == {chunk_id}
    assert kb.consistency()["consistent"]
    kb.close()


def test_a_missing_or_stale_keyword_index_is_rebuilt_at_start(make_workspace, write_text, tmp_path):
    ws = make_workspace(tmp_path / "kb")
    ws.ingestor.ingest_paths([write_text("good.txt", "Wind turbines need yearly inspection.")])
    ws.close()
    shutil.rmtree(tmp_path / "kb" / "keyword_index")

    reopened = make_workspace(tmp_path / "kb")

    assert reopened.retriever.search("turbines inspection").hits[0].bm25_rank == 1
    assert reopened.kb.consistency()["consistent"]


CHILD = """
import sys
from pathlib import Path
from core.config import Settings
from core.workspace import Workspace
ws = Workspace(Settings(data_dir=Path(sys.argv[1])))
ws.ingestor.ingest_paths(sorted(Path(sys.argv[2]).iterdir()))
print("finished", flush=True)
"""


def _indexed_count(catalog: Path) -> int:
    try:
        with sqlite3.connect(catalog, timeout=5) as conn:
            return conn.execute("SELECT COUNT(*) FROM documents WHERE status='indexed'").fetchone()[0]
    except sqlite3.Error:
        return 0


def test_kill_9_in_the_middle_of_a_batch_leaves_consistent_stores(make_workspace, tmp_path):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for i in range(12):
        body = "\n".join(f"Report {i}, line {j}: turbine T{i}-{j} produced {i * j} kWh." for j in range(60))
        (inbox / f"report_{i:02d}.txt").write_text(body)
    data_dir = tmp_path / "kb"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(data_dir), str(inbox)], env=env, cwd=ROOT,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 180
    while _indexed_count(data_dir / "catalog.sqlite3") < 2 and time.time() < deadline:
        assert child.poll() is None, "the batch finished before it could be interrupted"
        time.sleep(0.05)
    child.send_signal(signal.SIGKILL)
    child.wait()

    ws = make_workspace(data_dir)

    state = ws.kb.consistency()
    assert state["consistent"], state
    indexed = [d for d in ws.kb.documents() if d.status == "indexed"]
    assert 2 <= len(indexed) < 12
    assert all(d.status in ("indexed", "failed") for d in ws.kb.documents())
    # The user can simply ingest the folder again: what was done is kept, the rest is added.
    results = ws.ingestor.ingest_paths(sorted(inbox.iterdir()))
    assert {r.status for r in results} <= {"duplicate", "indexed"}
    assert ws.kb.counts()["documents"] == 12
    assert ws.kb.consistency()["consistent"]
