"""The scale-out path: the same code against a real Chroma server (`chroma run`) on loopback."""
from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

CHROMA = Path(sys.executable).parent / "chroma"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def chroma_server(tmp_path):
    if not CHROMA.exists():
        pytest.fail(f"the chroma CLI is missing at {CHROMA}; it ships with the chromadb package")
    port = _free_port()
    server = subprocess.Popen(
        [str(CHROMA), "run", "--path", str(tmp_path / "server"), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 60
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=1)
            break
        except OSError:
            if time.time() > deadline or server.poll() is not None:
                server.kill()
                pytest.fail("chroma server did not start")
            time.sleep(0.2)
    yield port
    server.terminate()
    server.wait(timeout=10)


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
