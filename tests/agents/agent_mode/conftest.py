"""A small operations knowledge base and a scripted agent: replies may be functions of the
prompt, because the ids the model must use (R1, R2, ...) come from real search results."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Callable

import pytest

from core.config import Settings
from core.llm.scripted import ScriptedLLM
from core.workspace import Workspace

DOCS = {
    "operations.md": "Rebuilding the search index. Run the statement REINDEX TABLE documents; during the "
                     "nightly window, then check the index log for errors.",
    "deletes.md": "Deleting an order. Before deleting an order, verify it with "
                  "SELECT status FROM orders WHERE id = :id; and delete only orders in status cancelled.",
    "limits.md": "Rate limits. The public API allows 100 requests per minute per client. Clients that hit "
                 "the limit retry after 30 seconds with exponential backoff.",
}

RUNBOOK = ("Produce an operational runbook with sections Reindex, Delete and Retry. Use separate tool searches "
           "for each topic, call open_citation for at least two results, quote one exact SQL statement, and "
           "where something is missing explicitly say 'Insufficient documentation'.")

Reply = str | dict | Callable[[str], "str | dict"]


def last_prompt(messages) -> str:
    return messages[-1]["content"]


def handle(prompt: str, filename: str) -> str:
    """The id the search results gave `filename`'s chunk."""
    match = re.search(rf"\b(R\d+) {re.escape(filename)}\b", prompt)
    assert match, f"{filename} is not among the search results:\n{prompt}"
    return match.group(1)


def search(*queries: str) -> dict:
    return {"type": "tool_call", "tool": "search_docs", "input": {"queries": list(queries)}}


def open_files(*filenames: str) -> Callable[[str], dict]:
    return lambda prompt: {"type": "tool_call", "tool": "open_citation",
                           "input": {"ids": [handle(prompt, f) for f in filenames]}}


def final(answer: str, insufficiencies: list[dict] | None = None) -> dict:
    return {"type": "final", "answer": answer, "insufficiencies": insufficiencies or []}


def scripted_agent(*replies: Reply) -> ScriptedLLM:
    """Plays `replies` in order; dicts are sent as JSON, functions get the last prompt."""
    queue = list(replies)

    def play(messages) -> str:
        if not queue:
            raise AssertionError("the agent asked the model more often than scripted")
        reply = queue.pop(0)
        if callable(reply):
            reply = reply(last_prompt(messages))
        return reply if isinstance(reply, str) else json.dumps(reply)

    return ScriptedLLM(play)


@pytest.fixture(scope="session")
def runbook_kb(tmp_path_factory, embedder) -> Path:
    """The three documents, ingested once; each test works on its own copy."""
    folder = tmp_path_factory.mktemp("runbook")
    paths = []
    for name, text in DOCS.items():
        paths.append(folder / "in" / name)
        paths[-1].parent.mkdir(exist_ok=True)
        paths[-1].write_text(text, encoding="utf-8")
    ws = Workspace(Settings(data_dir=folder / "kb"), embedder, ScriptedLLM())
    try:
        assert all(r.ok for r in ws.ingestor.ingest_paths(paths))
    finally:
        ws.close()
    return folder / "kb"


@pytest.fixture
def agent_ws(tmp_path, embedder, runbook_kb):
    """make(llm, **settings): a workspace over a copy of the three operations documents. The
    scripted model makes every tool call, as in seed 001's tests, unless a test turns the
    automatic first search back on."""
    opened: list[Workspace] = []

    def make(llm: ScriptedLLM, **settings) -> Workspace:
        data_dir = tmp_path / f"kb{len(opened)}"
        shutil.copytree(runbook_kb, data_dir)
        settings.setdefault("agent_initial_search", False)
        ws = Workspace(Settings(data_dir=data_dir, **settings), embedder, llm)
        opened.append(ws)
        return ws

    yield make
    for ws in opened:
        ws.close()
