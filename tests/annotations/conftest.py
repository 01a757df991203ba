"""Fixtures of the table tests."""
import pytest

from core.config import Settings
from core.llm.scripted import ScriptedLLM
from core.workspace import Workspace


@pytest.fixture
def kb_of(tmp_path, embedder, write_text):
    """A knowledge base of one file, with the scripted model (no reply unless a test scripts one):
    `kb_of("name.csv", text)`."""
    opened = []

    def open_kb(filename: str, text: str) -> Workspace:
        ws = Workspace(Settings(data_dir=tmp_path / f"kb{len(opened)}"), embedder, ScriptedLLM([]))
        opened.append(ws)
        ws.ingestor.ingest_paths([write_text(filename, text)])
        return ws
    yield open_kb
    for ws in opened:
        ws.close()
