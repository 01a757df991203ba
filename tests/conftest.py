"""Shared fixtures: a real embedding model (loaded once), knowledge bases in temporary folders."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from core.config import Settings  # noqa: E402
from core.embedding import shared_embedder  # noqa: E402
from core.workspace import Workspace  # noqa: E402


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
