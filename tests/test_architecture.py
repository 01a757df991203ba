"""The package boundaries a newcomer relies on, read from the import statements themselves."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, at any depth (function-level imports included)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def offenders(folder: str, forbidden: tuple[str, ...]) -> dict[str, list[str]]:
    found = {}
    for path in sorted((ROOT / folder).rglob("*.py")):
        bad = sorted(m for m in imported_modules(path) if any(m == f or m.startswith(f + ".") for f in forbidden))
        if bad:
            found[str(path.relative_to(ROOT))] = bad
    return found


def test_core_never_imports_streamlit_or_the_ui():
    assert offenders("core", ("streamlit", "ui", "pages")) == {}


def test_core_never_imports_the_demo_data():
    """The sample documents are for demos and tests; the product must work without them."""
    assert offenders("core", ("samples",)) == {}


def test_the_finder_reads_function_level_imports(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("def f():\n    import streamlit as st\n    from core.store import x\n")
    assert imported_modules(module) == {"streamlit", "core.store"}
