"""The scale-out path: the same code against a real Chroma server (`chroma run`) on loopback."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.servers import free_port, running

CHROMA = Path(sys.executable).parent / "chroma"


@pytest.fixture
def chroma_server(tmp_path):
    if not CHROMA.exists():
        pytest.fail(f"the chroma CLI is missing at {CHROMA}; it ships with the chromadb package")
    port = free_port()
    command = [str(CHROMA), "run", "--path", str(tmp_path / "server"), "--host", "127.0.0.1", "--port", str(port)]
    with running(command, f"http://127.0.0.1:{port}/api/v2/heartbeat", "chroma server"):
        yield port


def test_ingest_search_and_delete_through_a_chroma_server(chroma_server, make_workspace, write_text, tmp_path):
    ws = make_workspace(chroma_host="127.0.0.1", chroma_port=chroma_server)
    assert ws.kb.vectors.location == f"http://127.0.0.1:{chroma_server}"
    assert not (ws.settings.chroma_path).exists()  # nothing embedded locally

    ws.ingestor.ingest_paths([
        write_text("a.txt", "The inverter shuts down above 60 degrees Celsius."),
        write_text("b.txt", "Receipts from QuickFit list four winter tyres."),
    ])
    top = ws.retriever.search("overheating inverter", top_k=1).hits[0]
    assert top.filename == "a.txt" and top.vector_rank == 1

    ws.ingestor.delete("a.txt")
    assert ws.kb.vectors.count() == 1
    assert ws.kb.consistency()["consistent"]
