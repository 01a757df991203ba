"""The process the kill -9 tests kill: `python -m tests.hardening.crash_child POINT DATA_DIR INBOX`.

It ingests the files in INBOX (and for the answer points asks a question), and when it reaches
POINT it prints "AT POINT" and sleeps until killed. The points are reached by wrapping the real
objects in this process only (no test hook in the application):
  parsing       the second file's progress report before it is read
  embedding     the second file's progress report between two embedding batches
  index_write   half of the second file's vectors written to Chroma, its catalog rows 'indexing'
  keyword_write the keyword index directory moved aside, the new one not yet in place
  answer        inside the language-model call of a question, after the ingest finished
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

from core.config import Settings
from core.llm.scripted import ScriptedLLM
from core.workspace import Workspace

POINT, DATA_DIR, INBOX = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])


def stop_here() -> None:
    print(f"AT {POINT}", flush=True)
    time.sleep(600)
    raise SystemExit("not killed")


def answer_then_stop(messages) -> str:
    stop_here()
    return ""


# Small embedding batches, so a file is embedded in several steps and can be stopped between two.
workspace = Workspace(Settings(data_dir=DATA_DIR, embedding_batch_size=2), llm=ScriptedLLM(answer_then_stop))


def progress(event) -> None:
    if event.file_index == 1 and event.step == POINT and (POINT == "parsing" or event.done > 0):
        stop_here()


if POINT == "index_write":
    add = workspace.kb.vectors.add

    def half_then_stop(ids, vectors, metadatas):
        if any(i.startswith(second_doc_id) for i in ids):
            add(ids[: len(ids) // 2], vectors[: len(ids) // 2], metadatas[: len(ids) // 2])
            stop_here()
        add(ids, vectors, metadatas)

    workspace.kb.vectors.add = half_then_stop

if POINT == "keyword_write":
    workspace.kb.keyword  # opened (and saved) first, as a search would, so the batch's end swaps it
    rename = Path.rename

    def rename_then_stop(self, target):
        moved = rename(self, target)
        if self.name == "keyword_index" and Path(target).name == "keyword_index.old":
            stop_here()
        return moved

    Path.rename = rename_then_stop

files = sorted(INBOX.iterdir())
from core.ingest.pipeline import content_hash  # noqa: E402

second_doc_id = "d" + content_hash(files[1])[:12]
workspace.ingestor.ingest_paths(files, progress=progress)
if POINT == "answer":
    workspace.ask("What does the second document say about the output?")  # a text question: no table is named
print("finished without reaching the point", flush=True)
