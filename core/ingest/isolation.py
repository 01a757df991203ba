"""Read each file in a child process with a memory ceiling and a time limit.

A 1 MB PDF whose stream inflates to 1 GB made PDFium take 2 GB, and under a memory limit it
aborts the whole process; pdfminer spent 13 s on the same file. In the app's own process that
would take the user's session down with it. Here the child dies instead, and the file gets a
clear message. The child also runs the structured-fact extraction, because pdfplumber reads the
same PDF streams again.

The child's answer comes back as JSON, never as a pickle: a parser exploited by a crafted file
must not be able to run code in the app.
"""
from __future__ import annotations

import dataclasses
import json
import os
import pickle
import resource
import signal
import subprocess
import sys
from pathlib import Path

from core.annotations.model import Fact, FactValue
from core.config import Settings
from core.ingest.document import IngestError, LoadedDocument, Section
from core.ingest.tables import TableBlock

ROOT = Path(__file__).resolve().parents[2]


def memory_message(settings: Settings) -> str:
    return (f"Reading this file needed more than {settings.max_parse_memory_mb} MB of memory "
            "(max_parse_memory_mb), so it was stopped. It may be a 'decompression bomb'; "
            "if it is genuine, raise the limit.")


def time_message(settings: Settings) -> str:
    return (f"Ingesting this file took longer than {settings.max_ingest_seconds:g} s "
            "(max_ingest_seconds), so it was stopped and nothing was added.")


def load_isolated(
    path: Path, settings: Settings, filename: str, doc_id: str, timeout: float,
) -> tuple[LoadedDocument, list[Fact]]:
    """The document and its structured facts, read by a child process within the limits."""
    if timeout <= 0:
        raise IngestError(time_message(settings))
    # The child runs in the project folder, so a path relative to the caller's folder is made absolute here.
    request = pickle.dumps((str(Path(path).absolute()), settings, filename, doc_id))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    try:
        done = subprocess.run(
            [sys.executable, "-m", "core.ingest.isolation"], input=request, capture_output=True,
            timeout=timeout, env=env, cwd=ROOT,
        )
    except subprocess.TimeoutExpired:  # subprocess.run has killed the child
        raise IngestError(time_message(settings)) from None
    try:
        answer = json.loads(done.stdout)
    except ValueError:
        answer = None
    if not isinstance(answer, dict):
        if done.returncode < 0:  # PDFium aborts when an allocation fails
            raise IngestError(f"{memory_message(settings)} (the reader stopped with "
                              f"{signal.Signals(-done.returncode).name})")
        detail = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
        raise IngestError(f"Could not read this file (the reader failed: {detail[0][:200]}).")
    if "error" in answer:
        raise IngestError(str(answer["error"]))
    return _document(answer["document"]), [_fact(f) for f in answer["facts"]]


def _document(data: dict) -> LoadedDocument:
    sections = [
        Section(**{**s, "table": TableBlock(**s["table"]) if s.get("table") else None})
        for s in data.pop("sections")
    ]
    return LoadedDocument(sections=sections, **data)


def _fact(data: dict) -> Fact:
    return Fact(**{**data, "values": [FactValue(**v) for v in data["values"]]})


# --- the child ----------------------------------------------------------------------------------

def _child() -> None:
    path, settings, filename, doc_id = pickle.loads(sys.stdin.buffer.read())
    limit = settings.max_parse_memory_mb * 2**20
    try:
        resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    except (ValueError, OSError):  # a system that does not enforce it (macOS): the time limit still holds
        pass
    # Imported after the limit is set, so that what they allocate counts too.
    from core.ingest.extract import extract_facts
    from core.ingest.loaders import load_document
    from core.profiles import active_profiles

    try:
        document = load_document(Path(path), settings, filename=filename)
        facts = extract_facts(document, doc_id, Path(path), settings.max_table_pages,
                              settings.long_pdf_table_facts, active_profiles(settings))
        answer = {"document": dataclasses.asdict(document), "facts": [f.to_dict() for f in facts]}
    except IngestError as exc:
        answer = {"error": str(exc)}
    except MemoryError:
        answer = {"error": memory_message(settings)}
    except Exception as exc:  # a parser bug: the message names it, the batch goes on
        answer = {"error": f"Could not read this file ({type(exc).__name__}: {str(exc)[:200]})."}
    sys.stdout.write(json.dumps(answer))


if __name__ == "__main__":
    _child()
