"""Shared by the AppTest page tests (the `app` fixture is in conftest.py)."""
from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
RUN_TIMEOUT = 90
HANDBOOK = b"Helios panels carry a 25-year output warranty and a 12-year product warranty.\n"


def open_page(at: AppTest, name: str) -> AppTest:
    at.switch_page(f"views/{name}")
    at.run()
    assert not at.exception, at.exception
    return at


def answer_markdown(message) -> str:
    """The answer's text in a chat message: its first Markdown outside the closed status of steps."""
    return next(m.value for m in message.markdown if not m.value.startswith(":material/"))
