"""Fixtures of the table tests."""
import pytest

from core.config import Settings
from core.llm.scripted import ScriptedLLM
from core.workspace import Workspace
from tests.report_pdfs import write_statement


@pytest.fixture
def kb_of(tmp_path, embedder, ingested):
    """A knowledge base of one file, with the scripted model (no reply unless a test scripts one):
    `kb_of("name.csv", text)`."""
    opened = []

    def open_kb(filename: str, text: str) -> Workspace:
        data_dir = ingested({filename: text}, tmp_path / f"kb{len(opened)}")
        ws = Workspace(Settings(data_dir=data_dir), embedder, ScriptedLLM([]))
        opened.append(ws)
        return ws
    yield open_kb
    for ws in opened:
        ws.close()


@pytest.fixture
def pdf_statement(tmp_path, embedder):
    """A knowledge base of one statement printed in a PDF (its total lines are rows, as printed), read by the rules:
    `ws, scope = pdf_statement(["2018", "2019"], [(label, figures), ...], caption="the line above", notes=[...])`."""
    opened = []

    def open_one(years, rows, caption="", notes=()):
        ws = Workspace(Settings(data_dir=tmp_path / f"kb{len(opened)}"), embedder, ScriptedLLM([]))
        opened.append(ws)
        ws.ingestor.ingest_paths([write_statement(tmp_path / f"statement{len(opened)}.pdf", years, rows, caption, notes)])
        return ws, [ws.documents()[0].doc_id]
    yield open_one
    for ws in opened:
        ws.close()
