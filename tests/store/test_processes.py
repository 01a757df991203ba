"""One knowledge base, several processes: real processes, the real OS lock, no mocks of either.

A process that reads (docs, search, ask, the app's pages) never waits for a writing process, never
changes the stores, never calls a live writer's work "interrupted", and sees the documents indexed
so far. A second writer waits for the first, saying so. A killed writer's leftovers are cleaned up
once, by the next process to take the lock.
"""
from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.cli import main
from core.store.catalog import FAILED
from core.store.knowledge_base import INTERRUPTED_MESSAGE
from tests.ui.apptest import RUN_TIMEOUT

ROOT = Path(__file__).resolve().parents[2]
LINE_TIMEOUT = 240  # a child loads the embedding model first; the machine is shared


class Child:
    """A subprocess whose stdout lines are awaited one pattern at a time."""

    def __init__(self, *args: str, env: dict | None = None) -> None:
        self.process = subprocess.Popen(
            [sys.executable, *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", **(env or {})},
        )
        self.lines: list[str] = []

    def wait_for(self, prefix: str, timeout: float = LINE_TIMEOUT) -> str:
        for line in self.lines:
            if line.startswith(prefix):
                return line
        deadline = time.time() + timeout
        while time.time() < deadline:
            ready, _, _ = select.select([self.process.stdout], [], [], 1)
            if ready:
                line = self.process.stdout.readline()
                assert line, f"the child ended before printing {prefix!r}; it printed: {self.lines}"
                self.lines.append(line.rstrip("\n"))
                if line.startswith(prefix):
                    return line.rstrip("\n")
        pytest.fail(f"the child did not print {prefix!r} in {timeout} s; it printed: {self.lines}")

    def finish(self, timeout: float = LINE_TIMEOUT) -> int:
        out, _ = self.process.communicate(timeout=timeout)
        self.lines += out.splitlines()
        return self.process.returncode

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def children():
    started: list[Child] = []

    def start(*args: str, **kwargs) -> Child:
        child = Child(*args, **kwargs)
        started.append(child)
        return child

    yield start
    for child in started:
        child.kill()


def _reports(folder: Path, names: list[str]) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in names:
        body = "\n".join(f"{name}: turbine {name}-{j} produced {j * 7} kWh in week {j}." for j in range(60))
        (folder / f"{name}.txt").write_text(body)
        paths.append(folder / f"{name}.txt")
    return paths


def _writer(children, data_dir: Path, pause: float, files: list[Path]) -> Child:
    return children("-m", "tests.store.writer_child", str(data_dir), str(pause), *map(str, files))


def _docs(data_dir: Path, capsys) -> str:
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "docs"]) == 0
    return capsys.readouterr().out


def test_readers_see_a_live_batch_as_indexing_and_change_nothing(tmp_path, children, capsys, monkeypatch, make_workspace):
    data_dir = tmp_path / "kb"
    files = _reports(tmp_path / "in", ["alpha", "bravo", "charlie", "delta"])
    writer = _writer(children, data_dir, 4.0, files)
    writer.wait_for("INDEXED alpha.txt")

    # docs: nothing failed, nothing "recovered", the rest of the batch shown as being indexed
    listing = _docs(data_dir, capsys)
    assert "failed" not in listing and INTERRUPTED_MESSAGE not in listing
    assert "indexed    alpha.txt" in listing
    assert all(name in listing for name in ("bravo.txt", "charlie.txt", "delta.txt"))
    assert "indexing" in listing

    # search, from a workspace opened while the writer holds the lock: it finds what is indexed
    # so far and leaves the embedded Chroma alone (another process is writing to it)
    reader = make_workspace(data_dir)
    assert reader.kb.recovered == []
    hits = reader.retriever.search("turbine alpha-12 produced").hits
    assert hits and hits[0].filename == "alpha.txt"
    assert reader.kb.vectors._client is None
    assert not any(d.status == FAILED for d in reader.kb.documents())

    # ask through the CLI, and the home page of the app, while the writer still writes
    monkeypatch.setenv("DOCUCHAT_LLM_PROVIDER", "scripted")
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "ask", "How much did turbine alpha-12 produce?"]) == 0
    assert "alpha.txt" in capsys.readouterr().out
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("DOCUCHAT_DATA_DIR", str(data_dir))
    home = AppTest.from_file(str(ROOT / "app.py"), default_timeout=RUN_TIMEOUT)
    home.run()
    assert not home.exception
    attention = {m.label: m.value for m in home.metric}["Files needing attention"]
    assert attention == "0"
    assert writer.process.poll() is None, "the readers ran while the batch was still being written"

    assert writer.finish() == 0 and "FINISHED" in writer.lines
    # Afterwards every file is listed once, indexed, and the three stores agree; the reader that
    # was open all along now searches the documents the writer added after it opened.
    listing = _docs(data_dir, capsys)
    for name in ("alpha.txt", "bravo.txt", "charlie.txt", "delta.txt"):
        assert listing.count(name) == 1 and f"indexed    {name}" in listing
    hits = reader.retriever.search("turbine delta-30 produced").hits
    assert hits and hits[0].filename == "delta.txt"
    assert reader.kb.consistency()["consistent"]


def test_two_writers_take_turns_and_every_file_is_indexed_once(tmp_path, children, make_workspace):
    data_dir = tmp_path / "kb"
    first_files = _reports(tmp_path / "a", ["echo", "foxtrot"])
    second_files = _reports(tmp_path / "b", ["golf", "hotel"])
    first = _writer(children, data_dir, 4.0, first_files)
    first.wait_for("INDEXED echo.txt")
    second = _writer(children, data_dir, 0.0, second_files)

    assert "Another DocuChat process is indexing 1 file" in second.wait_for("WAITING")
    assert first.finish() == 0 and "FINISHED" in first.lines
    assert second.finish() == 0 and "FINISHED" in second.lines

    kb = make_workspace(data_dir).kb
    names = sorted(d.filename for d in kb.documents())
    assert names == ["echo.txt", "foxtrot.txt", "golf.txt", "hotel.txt"]
    assert all(d.status == "indexed" for d in kb.documents())
    assert kb.consistency()["consistent"]


def test_a_waiting_writer_cleans_up_after_a_killed_one_once(tmp_path, children, capsys, make_workspace):
    data_dir = tmp_path / "kb"
    inbox = tmp_path / "inbox"
    for i in range(4):  # the crash child's own inbox: it stops inside the second file's embedding
        _reports(inbox, [f"report_{i}"])
    crashed = children("-m", "tests.hardening.crash_child", "embedding", str(data_dir), str(inbox))
    crashed.wait_for("AT embedding")
    [late] = _reports(tmp_path / "late", ["india"])
    waiting = children("-m", "core", "--data-dir", str(data_dir), "ingest", str(late))
    time.sleep(3)
    assert waiting.process.poll() is None, "the second writer must wait while the first one lives"

    crashed.process.send_signal(signal.SIGKILL)
    assert waiting.finish() == 0, waiting.lines
    output = "\n".join(waiting.lines)
    assert "Another DocuChat process is indexing 3 files; waiting" in output
    assert output.count("Recovered after an interrupted write") == 1
    assert "india.txt: indexed" in output

    listing = _docs(data_dir, capsys)  # a later start finds nothing left to recover
    kb = make_workspace(data_dir).kb
    assert kb.recovered == []
    status = {d.filename: (d.status, d.error) for d in kb.documents()}
    assert status["report_0.txt"][0] == "indexed" and status["india.txt"][0] == "indexed"
    for name in ("report_1.txt", "report_2.txt", "report_3.txt"):
        assert status[name] == (FAILED, INTERRUPTED_MESSAGE)
        assert f"failed     {name}  ({INTERRUPTED_MESSAGE})" in listing
    assert kb.consistency()["consistent"]
