"""Shared fixtures: a real embedding model (loaded once), knowledge bases in temporary folders."""
from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from core.config import Settings  # noqa: E402
from core.embedding import shared_embedder  # noqa: E402
from core.llm.scripted import ScriptedLLM  # noqa: E402
from core.workspace import Workspace  # noqa: E402


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """Under pytest-xdist (scripts/test.sh runs two workers) each test file runs whole on one worker, in its order:
    its module fixtures are made once, and the browser tests build on the flow before them. The files that run the
    language model (named *real_model*) share one worker: two llama.cpp processes on 2 cores slow each other 5-10x.
    (xdist's own `xdist_group` mark does nothing under pytest 9, whose node ids it can no longer rewrite.)"""
    from xdist.scheduler import LoadFileScheduling

    class ByFile(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = super()._split_scope(nodeid)
            return "the language model" if "real_model" in path else path

    return ByFile(config, log)


@pytest.fixture(scope="session")
def embedder():
    return shared_embedder()


@pytest.fixture
def make_workspace(tmp_path, embedder):
    """Open (or re-open) a workspace on a data dir; all are closed at the end of the test."""
    opened: list[Workspace] = []

    def open_workspace(data_dir: Path | None = None, **settings) -> Workspace:
        workspace = Workspace(Settings(data_dir=data_dir or tmp_path / "data", **settings), embedder)
        opened.append(workspace)
        return workspace

    yield open_workspace
    for workspace in opened:
        workspace.close()


@pytest.fixture
def write_text(tmp_path):
    def write(name: str, text: str) -> Path:
        path = tmp_path / "in" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    return write


@pytest.fixture(scope="session")
def ingested(tmp_path_factory, embedder):
    """`ingested({name: text}, into)`: `into` becomes the data dir of a knowledge base holding those files,
    ingested once a session (with the scripted model, default settings) and copied for each test: ingesting a
    file takes seconds, a copy of its stores milliseconds, and each test still owns its knowledge base."""
    templates: dict[tuple, Path] = {}

    def copy_of(files: dict[str, str], into: Path) -> Path:
        key = tuple(sorted(files.items()))
        if key not in templates:
            root = tmp_path_factory.mktemp("ingested")
            paths = []
            for name, text in files.items():
                paths.append(root / "in" / name)
                paths[-1].parent.mkdir(parents=True, exist_ok=True)
                paths[-1].write_text(text, encoding="utf-8")
            workspace = Workspace(Settings(data_dir=root / "kb"), embedder, ScriptedLLM([]))
            workspace.ingestor.ingest_paths(paths)
            workspace.close()
            templates[key] = root / "kb"
        shutil.copytree(templates[key], into)
        with sqlite3.connect(into / "catalog.sqlite3") as catalog:  # the stored files are the copy's own
            catalog.execute("UPDATE documents SET stored_path = replace(stored_path, ?, ?)",
                            (str(templates[key]), str(into)))
        catalog.close()
        return into

    return copy_of
