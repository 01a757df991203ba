"""A second process that writes: `python -m tests.store.writer_child DATA_DIR PAUSE FILE...`.

It ingests FILEs through the real Workspace and Ingestor, pausing PAUSE seconds as each file
starts embedding, so another process has time to look while it writes. It prints one line per
event: "WAITING <message>" while another process holds the lock, "INDEXED <file>" as each file is
done, "FINISHED" at the end.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

from core.config import Settings
from core.llm.scripted import ScriptedLLM
from core.workspace import Workspace

data_dir, pause, files = Path(sys.argv[1]), float(sys.argv[2]), [Path(f) for f in sys.argv[3:]]
workspace = Workspace(Settings(data_dir=data_dir), llm=ScriptedLLM())
told_waiting = False


def progress(event) -> None:
    global told_waiting
    if event.step == "waiting" and not told_waiting:
        told_waiting = True
        print(f"WAITING {event.message}", flush=True)
    if event.step == "embedding" and event.done == 0:
        time.sleep(pause)
    if event.step == "done":
        print(f"INDEXED {event.filename}", flush=True)


results = workspace.ingestor.ingest_paths(files, progress=progress)
workspace.close()
print("FINISHED" if all(r.ok for r in results) else f"FAILED {[r.message for r in results if not r.ok]}", flush=True)
