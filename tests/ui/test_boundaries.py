"""Workspace is the only way in: the pages, the ui helpers and the CLI never import the stores or
reach through a Workspace into its parts; no benchmark calls a private member or imports the stores
(a benchmark measures what the app does, the way the app does it; bench/scale.py, which times the
keyword index and the vector store themselves, reaches them through core.indexes, their public face)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FRONT_ENDS = [ROOT / "app.py", *sorted((ROOT / "views").glob("*.py")), *sorted((ROOT / "ui").glob("*.py")),
              ROOT / "core" / "cli.py"]
BENCHES = sorted((ROOT / "bench").glob("*.py"))
WORKSPACE_PARTS = {"kb", "catalog", "pipeline", "agent", "ingestor", "retriever", "embedder", "vectors", "facts"}


def _imports(tree: ast.AST) -> list[str]:
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
    return names


def _private_members(tree: ast.AST) -> list[str]:
    return [f"{ast.unparse(node)} (line {node.lineno})" for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
            and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))]


def test_the_front_ends_are_all_found():
    assert len(FRONT_ENDS) >= 10 and all(path.exists() for path in FRONT_ENDS)


@pytest.mark.parametrize("path", FRONT_ENDS, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_front_end_goes_through_the_workspace(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assert not [m for m in _imports(tree) if m.startswith("core.store") or m == "core.indexes"]
    reached = [f"{ast.unparse(node)} (line {node.lineno})" for node in ast.walk(tree)
               if isinstance(node, ast.Attribute) and (node.attr in ("kb", "catalog") or (
                   node.attr in WORKSPACE_PARTS and isinstance(node.value, ast.Name)
                   and node.value.id in ("ws", "workspace")))]
    assert not reached, f"reaches into the workspace's parts: {reached}"
    assert not _private_members(tree)


@pytest.mark.parametrize("path", BENCHES, ids=lambda p: p.name)
def test_a_benchmark_calls_no_private_member(path):
    assert not _private_members(ast.parse(path.read_text(encoding="utf-8")))


def test_every_benchmark_is_checked():
    assert len(BENCHES) >= 15 and ROOT / "bench" / "answer_quality.py" in BENCHES


@pytest.mark.parametrize("path", BENCHES, ids=lambda p: p.name)
def test_a_benchmark_goes_through_the_workspace_not_the_stores(path):
    assert not [m for m in _imports(ast.parse(path.read_text(encoding="utf-8"))) if m.startswith("core.store")]
