"""Memory and time stay bounded whatever a file does; the ingesting process is measured from outside."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from core.config import Settings
from core.ingest.pipeline import Ingestor
from tests.hardening import hostile

ROOT = Path(__file__).resolve().parents[2]
PARSE_LIMIT_MB = 512

# Ingests the files named on the command line with a stand-in embedder (the model's own memory
# is not what is measured), then prints the peak RSS of this process before and after, and the
# peak of the largest reader child.
CHILD = """
import hashlib, json, resource, sys
from pathlib import Path
import numpy as np
from core.config import Settings
from core.ingest.pipeline import Ingestor
from core.store.knowledge_base import KnowledgeBase

class HashEmbedder:
    model_name, dim = "hash-stand-in", 384
    def embed(self, texts):
        rows = [np.frombuffer(hashlib.sha256(t.encode()).digest() * 48, dtype=np.uint8)[:384] for t in texts]
        vectors = np.asarray(rows, dtype=np.float32) + 1
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    def count_tokens(self, texts):
        return [len(t.split()) for t in texts]

def peak(who):
    return resource.getrusage(who).ru_maxrss // 1024

settings = Settings(data_dir=Path(sys.argv[1]), max_parse_memory_mb=int(sys.argv[2]), max_rows_per_sheet=1000)
kb = KnowledgeBase(settings, HashEmbedder())
files = [Path(p) for p in sys.argv[3:]]
before = peak(resource.RUSAGE_SELF)
results = Ingestor(kb, settings).ingest_paths(files)
print(json.dumps({
    "before_mb": before, "after_mb": peak(resource.RUSAGE_SELF), "reader_peak_mb": peak(resource.RUSAGE_CHILDREN),
    "results": {r.filename: [r.status, r.message, r.warnings] for r in results},
    "consistent": kb.consistency()["consistent"],
}))
"""


def test_bombs_and_a_million_rows_leave_the_ingesting_process_memory_flat(tmp_path):
    files = [
        hostile.flate_bomb_pdf(tmp_path / "bomb.pdf", "Bomb", 1024),  # 1 GB of stream in a 1 MB file
        hostile.zip_bomb_xlsx(tmp_path / "bomb.xlsx", 900),  # just under the 1,000 MB default
        hostile.xlsx_rows(tmp_path / "million.xlsx", 1_000_000),
        hostile.text_pdf(tmp_path / "fine.pdf", "An ordinary page after the bombs."),
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path / "data"), str(PARSE_LIMIT_MB), *map(str, files)],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])

    results = report["results"]
    assert results["bomb.pdf"][0] == "failed" and "decompression bomb" in results["bomb.pdf"][1]
    # Under max_unpacked_mb, so it is opened: its 900 MB of whitespace meet the reader's heap limit.
    assert results["bomb.xlsx"][0] == "failed" and "512 MB of memory" in results["bomb.xlsx"][1]
    assert results["million.xlsx"][0] == "indexed" and "cut at 1000 rows" in results["million.xlsx"][2][0]
    assert results["fine.pdf"][0] == "indexed"
    assert report["consistent"]
    # The app's process: what it holds is the parsed text, not the inflated streams (PDFium took
    # 2 GB for the bomb in-process). The readers stayed under their heap limit plus libraries.
    assert report["after_mb"] - report["before_mb"] < 150, report
    assert report["reader_peak_mb"] < PARSE_LIMIT_MB + 200, report


class SlowEmbedder:
    """The real model, half a second slower per batch: an ingest that outlives its time limit."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.model_name, self.dim = inner.model_name, inner.dim

    def embed(self, texts):
        time.sleep(0.5)
        return self.inner.embed(texts)

    def count_tokens(self, texts):
        return self.inner.count_tokens(texts)


def test_an_ingest_over_max_ingest_seconds_stops_during_embedding_and_adds_nothing(make_workspace, tmp_path, embedder):
    ws = make_workspace()
    ws.ingestor.ingest_paths([hostile.text_pdf(tmp_path / "kept.pdf", "A document that was there before.")])
    before = (ws.kb.documents(), ws.kb.consistency())
    long_text = tmp_path / "long.txt"
    long_text.write_text("\n\n".join(f"Paragraph {i} about turbine {i} and its yearly output." * 12 for i in range(400)))
    ws.kb.embedder = SlowEmbedder(embedder)  # 400 paragraphs: many batches of 128
    ingestor = Ingestor(ws.kb, ws.settings.replace(max_ingest_seconds=3.0, embedding_batch_size=8))

    started = time.perf_counter()
    [result] = ingestor.ingest_paths([long_text])

    assert time.perf_counter() - started < 10
    assert result.status == "failed" and "longer than 3 s" in result.message
    assert [d for d in ws.kb.documents() if d.status == "indexed"] == [d for d in before[0] if d.status == "indexed"]
    assert ws.kb.consistency() == before[1]
