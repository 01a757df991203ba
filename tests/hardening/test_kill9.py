"""kill -9 at each stage of a write, and of an answer, in a real subprocess; then a restart.

After every kill: catalog, vectors and keyword index agree; no document is half-present; the files
the batch did not finish are listed (`python -m core docs`) as needing another ingest; ingesting
the folder again completes it.
"""
from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.agents.responder import INTERRUPTED_ANSWER
from core.cli import main
from core.store.knowledge_base import INTERRUPTED_MESSAGE

ROOT = Path(__file__).resolve().parents[2]
REACH_TIMEOUT = 240  # the child loads the embedding model first; the machine is shared


def _inbox(folder: Path) -> Path:
    folder.mkdir()
    for i in range(4):
        body = "\n".join(f"Report {i}, line {j}: turbine T{i}-{j} produced {i * j} kWh in week {j}." for j in range(120))
        (folder / f"report_{i}.txt").write_text(body)
    return folder


def _run_until(point: str, data_dir: Path, inbox: Path) -> None:
    """Start the child, wait until it prints 'AT point', kill -9 it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    child = subprocess.Popen([sys.executable, "-m", "tests.hardening.crash_child", point, str(data_dir), str(inbox)],
                             cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    deadline = time.time() + REACH_TIMEOUT
    try:
        while time.time() < deadline:
            ready, _, _ = select.select([child.stdout], [], [], 1)
            if ready:
                line = child.stdout.readline()
                if line.strip() == f"AT {point}":
                    child.send_signal(signal.SIGKILL)
                    assert child.wait(timeout=30) == -signal.SIGKILL
                    return
                assert line, f"the child ended before reaching {point}"
        pytest.fail(f"the child did not reach {point} in {REACH_TIMEOUT} s")
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def _docs_listing(data_dir: Path, capsys) -> str:
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "docs"]) == 0
    return capsys.readouterr().out


# point -> the files the restart must list as needing another ingest (the first is always done)
INTERRUPTED = {
    "parsing": ["report_1.txt", "report_2.txt", "report_3.txt"],
    "embedding": ["report_1.txt", "report_2.txt", "report_3.txt"],
    "index_write": ["report_1.txt", "report_2.txt", "report_3.txt"],
    "keyword_write": [],  # the batch itself was complete
    "answer": [],
}


@pytest.mark.parametrize("point", list(INTERRUPTED))
def test_after_kill_9_the_stores_agree_and_unfinished_files_are_listed(point, tmp_path, make_workspace, capsys):
    inbox = _inbox(tmp_path / "inbox")
    data_dir = tmp_path / "kb"
    _run_until(point, data_dir, inbox)

    listing = _docs_listing(data_dir, capsys)  # the first start after the crash recovers

    ws = make_workspace(data_dir)
    state = ws.kb.consistency()
    assert state["consistent"] and not state["partial_documents"], state
    status = {d.filename: (d.status, d.error) for d in ws.kb.documents()}
    assert status["report_0.txt"][0] == "indexed"
    for name in INTERRUPTED[point]:
        assert status[name] == ("failed", INTERRUPTED_MESSAGE)
        assert f"failed     {name}  ({INTERRUPTED_MESSAGE})" in listing
    assert all(s == "indexed" for name, (s, _) in status.items() if name not in INTERRUPTED[point])
    # Nothing of an unfinished file can be found.
    assert not any(h.filename in INTERRUPTED[point] for h in ws.retriever.search("turbine T1-5 produced").candidates)
    turns = ws.kb.catalog.recent_turns()
    if point == "answer":  # its words were streaming: the audit log says so, with the steps that finished
        [turn] = turns
        assert turn["response"]["interrupted"] and turn["answer"] == INTERRUPTED_ANSWER
        assert [e["agent"] for e in turn["trace"]["events"]] == ["Planner", "Retriever"]
    else:
        assert turns == []

    results = ws.ingestor.ingest_paths(sorted(inbox.iterdir()))
    assert {r.filename for r in results if r.status == "indexed"} == set(INTERRUPTED[point])
    assert ws.kb.counts()["documents"] == 4
    assert ws.kb.consistency()["consistent"]
    assert all(d.status == "indexed" for d in ws.kb.documents())


def test_an_answer_printed_by_ask_has_its_turn_and_trace_on_disk_even_if_killed_right_after(tmp_path, capsys):
    """The CLI prints the answer only after the pipeline returns, and the pipeline saves the turn
    before it returns: killing the process the moment the answer appears loses nothing."""
    data_dir = tmp_path / "kb"
    report = tmp_path / "report.txt"
    report.write_text("The inverter shuts down above 60 degrees Celsius to protect its electronics.")
    assert main(["--data-dir", str(data_dir), "ingest", str(report)]) == 0
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "DOCUCHAT_LLM_PROVIDER": "scripted"}
    child = subprocess.Popen(
        [sys.executable, "-m", "core", "--data-dir", str(data_dir), "ask", "When does the inverter shut down?", "--json"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    printed = ""
    for line in child.stdout:
        printed += line
        try:
            shown = json.loads(printed)
        except ValueError:
            continue
        child.send_signal(signal.SIGKILL)  # the moment the whole answer is on the screen
        break
    child.wait(timeout=30)

    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "trace", shown["trace_id"], "--json"]) == 0
    trace = json.loads(capsys.readouterr().out)
    assert trace["events"][-1]["agent"] == "Responder"
    assert trace["events"][-1]["outputs"]["answer"] == shown["answer"]
