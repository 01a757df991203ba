"""`python -m core backup DEST` / `restore SRC`: a restored knowledge base answers like the original."""
from __future__ import annotations

import shutil
import threading
import time

import pytest

from core.cli import main
from core.store import backup as backup_module
from core.store.backup import BackupError, backup, restore

QUESTION = "How long is the output warranty of the Helios panels?"


def _fill(ws, write_text) -> None:
    ws.ingestor.ingest_paths([
        write_text("handbook.txt", "Helios panels carry a 25-year output warranty and a 12-year product warranty."),
        write_text("orders.csv", "order,customer,total\n1,ACME,120\n2,Globex,80\n"),
        write_text("inverter.md", "# Inverter\nThe inverter shuts down above 60 degrees Celsius."),
    ])


def _answer(ws) -> tuple[str, list[tuple]]:
    response = ws.ask(QUESTION)
    return response.answer, [(c.filename, c.page, c.chunk_id, c.score) for c in response.citations]


def _hits(ws) -> list[tuple]:
    return [(h.chunk_id, h.bm25_rank, h.vector_rank) for h in ws.retriever.search("inverter temperature shutdown").hits]


def test_a_backup_restored_into_a_fresh_directory_gives_the_same_answer_and_citations(
    make_workspace, write_text, tmp_path, capsys
):
    original = make_workspace(tmp_path / "kb", llm_provider="scripted")
    _fill(original, write_text)
    answer, citations = _answer(original)
    hits = _hits(original)
    turns = original.kb.catalog.recent_turns()
    original.close()
    shutil.rmtree(tmp_path / "in")  # the user's own copies of the files are gone

    assert main(["--data-dir", str(tmp_path / "kb"), "backup", str(tmp_path / "backup")]) == 0
    assert "Backed up 3 documents" in capsys.readouterr().out
    assert main(["--data-dir", str(tmp_path / "restored"), "restore", str(tmp_path / "backup")]) == 0
    assert "Restored 3 documents" in capsys.readouterr().out

    restored = make_workspace(tmp_path / "restored", llm_provider="scripted")
    assert restored.kb.consistency()["consistent"]
    assert _hits(restored) == hits
    assert _answer(restored) == (answer, citations)
    assert [t["turn_id"] for t in restored.kb.catalog.recent_turns()][1:] == [t["turn_id"] for t in turns]
    # The stored originals moved with it: a document can be rebuilt from the restored copy alone.
    [handbook] = [d for d in restored.kb.documents() if d.filename == "handbook.txt"]
    assert str(tmp_path / "restored") in handbook.stored_path
    assert restored.ingestor.reindex_document(handbook.doc_id).status == "indexed"


def test_restore_refuses_a_directory_in_use_and_a_folder_that_is_not_a_backup(make_workspace, write_text, tmp_path):
    ws = make_workspace(tmp_path / "kb")
    _fill(ws, write_text)
    backup(ws.kb, tmp_path / "backup")

    with pytest.raises(BackupError, match="not empty"):
        restore(tmp_path / "backup", ws.settings)  # would overwrite the live knowledge base
    with pytest.raises(BackupError, match="not a DocuChat backup"):
        restore(tmp_path / "kb", ws.settings.replace(data_dir=tmp_path / "new"))
    with pytest.raises(BackupError, match="not empty"):
        backup(ws.kb, tmp_path / "backup")
    with pytest.raises(BackupError, match="inside the data directory"):
        backup(ws.kb, tmp_path / "kb" / "snapshots")
    assert not (tmp_path / "new").exists()


def test_an_ingest_started_during_a_backup_waits_for_it_and_is_not_half_in_the_copy(
    make_workspace, write_text, tmp_path, monkeypatch
):
    ws = make_workspace(tmp_path / "kb")
    _fill(ws, write_text)
    copy = backup_module._copy_tree
    copying = threading.Event()

    def slow_copy(source, target):
        copying.set()
        time.sleep(1.0)  # long enough for the ingest thread to try its write
        copy(source, target)

    monkeypatch.setattr(backup_module, "_copy_tree", slow_copy)
    finished: dict[str, float] = {}
    late = write_text("late.txt", "A document that arrives while the backup runs.")

    def ingest_late():
        copying.wait()
        ws.ingestor.ingest_paths([late])
        finished["ingest"] = time.perf_counter()

    worker = threading.Thread(target=ingest_late)
    worker.start()
    backup(ws.kb, tmp_path / "backup")
    finished["backup"] = time.perf_counter()
    worker.join()

    assert finished["ingest"] > finished["backup"]
    restore(tmp_path / "backup", ws.settings.replace(data_dir=tmp_path / "restored"))
    restored = make_workspace(tmp_path / "restored")
    assert restored.kb.consistency()["consistent"]
    assert sorted(d.filename for d in restored.kb.documents()) == ["handbook.txt", "inverter.md", "orders.csv"]
