"""Regenerate the README screenshots from the real app in Chromium, so they never go stale.

    HF_HUB_OFFLINE=1 .venv/bin/python scripts/screenshots.py [--provider embedded] [--out docs/images]

It indexes the sample documents into a fresh data dir, starts Streamlit on 127.0.0.1, asks two
questions as a user would, and saves: chat-writing.png (the answer's words as the model writes them),
chat-answer.png (the answer with its citations), evidence.png (its chip opened: the cited page with the quoted
words highlighted), agent-trace.png (that answer's trace), refusal.png (a question the documents do not answer)
and structured-result.png (records with the CSV export). The default provider is the embedded model, as a user gets it; `--provider scripted`
makes a quick layout check without a model.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.servers import free_port, running  # noqa: E402  (the same server helper the browser tests use)
from tests.ui.test_browser import CHROMIUM, CHROMIUM_FLAGS, _click_until_open, _settled  # noqa: E402

# A question the handbook's text answers (the panels' dimensions are now answered from the records of
# the spreadsheet and datasheets, which the third screenshot shows).
TEXT_QUESTION = "What torque should the clamps be tightened to?"
RECORDS_QUESTION = "List all panels with a width of at most 1.2 m"  # read whole by the rules: records, no model
UNANSWERED_QUESTION = "Which airline flies to Lisbon on Fridays?"  # no sample document says
ANSWER_TIMEOUT_MS = 600_000
# The live status is checked by eye, not shown in the README: it goes with the test screenshots.
WAITING_SHOT = ROOT / "test-artifacts" / "screenshots" / "chat-waiting.png"  # the embedded model on a busy 2-core machine


def index_samples(data_dir: Path, **settings) -> None:
    from core.config import Settings
    from samples import make_samples
    from core.workspace import Workspace

    ws = Workspace(Settings(data_dir=data_dir, llm_provider="scripted", **settings))
    try:
        files = [p for p in make_samples(data_dir / "samples") if p.suffix != ".md"]
        failed = [r.filename for r in ws.ingest(files) if not r.ok]
        if failed:
            raise SystemExit(f"sample documents failed to index: {failed}")
    finally:
        ws.close()


def ask(page, question: str, waiting: Path | None = None, writing: Path | None = None) -> bool:
    """Ask as a user does; `waiting`: also save the live status while the model reads its prompt; `writing`:
    the answer's words as the model writes them (True if they were caught before the answer was done)."""
    box = page.get_by_placeholder("Ask a question about your documents")
    box.fill(question)
    box.press("Enter")
    done = page.locator("[data-testid=stSidebar]").get_by_text(question).first  # listed once the answer is saved
    if waiting is not None:  # the model reading its passages, if the answer comes that way
        reading = page.get_by_text(re.compile(r"Reading \d+ passages?")).first
        reading.or_(done).first.wait_for(timeout=ANSWER_TIMEOUT_MS)
        if reading.is_visible():
            page.wait_for_timeout(3000)  # a few seconds into the wait: the counter has moved
            page.screenshot(path=str(waiting))
    caught = False
    if writing is not None:  # the words so far, the cursor after them
        words = page.get_by_text(re.compile(r"\S ▌$")).first
        words.or_(done).first.wait_for(timeout=ANSWER_TIMEOUT_MS)
        if words.is_visible():
            page.wait_for_timeout(600)
            page.screenshot(path=str(writing))
            caught = True
    done.wait_for(timeout=ANSWER_TIMEOUT_MS)
    _settled(page)
    page.wait_for_timeout(800)  # let the last deltas paint
    return caught


def go(page, title: str) -> None:
    """Through the sidebar, as a user does."""
    page.locator("[data-testid=stSidebarNav]").get_by_text(title, exact=True).click()
    page.get_by_role("heading", level=1).first.wait_for()
    page.wait_for_timeout(500)


def capture(url: str, out: Path, width: int, model: bool = True) -> list[Path]:
    from playwright.sync_api import sync_playwright

    shots = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": width, "height": 900})
        page.set_default_timeout(120_000)
        try:
            shots += _flow(page, url, out, model)
        except Exception:
            page.screenshot(path=str(WAITING_SHOT.with_name("screenshots-FAILED.png")), full_page=True)
            raise
        browser.close()
    return shots


def _flow(page, url: str, out: Path, model: bool) -> list[Path]:
    """`model`: a real model reads a prompt long enough to photograph its status; the scripted one not."""
    shots = []
    page.goto(url)
    page.get_by_role("heading", level=1).first.wait_for()
    go(page, "Chat")
    if ask(page, TEXT_QUESTION, waiting=WAITING_SHOT if model else None, writing=out / "chat-writing.png"):
        shots.append(out / "chat-writing.png")
    page.wait_for_timeout(500)
    shots.append(out / "chat-answer.png")
    page.screenshot(path=str(shots[-1]))
    chip = page.locator("a[href^='#src-']").first
    if chip.count():
        _click_until_open(page, chip)  # opens the cited source under the answer, as the browser test does
    evidence = page.locator("details[open] img").first  # the cited page, its quoted words highlighted
    if evidence.count():
        evidence.scroll_into_view_if_needed()
        page.wait_for_timeout(500)
        shots.append(out / "evidence.png")
        page.screenshot(path=str(shots[-1]))

    page.get_by_text("View trace").first.click()
    page.get_by_role("heading", name="Timeline").wait_for()
    page.locator("canvas, svg.marks").first.wait_for()
    page.wait_for_timeout(800)
    shots.append(out / "agent-trace.png")
    page.screenshot(path=str(shots[-1]))

    go(page, "Chat")
    page.get_by_role("button", name="New topic").click()
    page.mouse.move(700, 60)  # off the button: its tooltip is not part of the picture
    _settled(page)
    ask(page, UNANSWERED_QUESTION)
    shots.append(out / "refusal.png")
    page.screenshot(path=str(shots[-1]))

    ask(page, RECORDS_QUESTION)
    go(page, "Structured Results")
    page.get_by_role("button", name="Download CSV").first.wait_for()
    page.wait_for_timeout(800)
    shots.append(out / "structured-result.png")
    page.screenshot(path=str(shots[-1]))
    return shots


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    parser.add_argument("--provider", default=os.environ.get("DOCUCHAT_LLM_PROVIDER", "embedded"))
    parser.add_argument("--data-dir", type=Path, help="a fresh folder for the app's data (default: a temporary one)")
    parser.add_argument("--width", type=int, default=1400)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    WAITING_SHOT.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = args.data_dir or Path(tmp) / "data"
        index_samples(data_dir)
        port = free_port()
        env = {**os.environ, "DOCUCHAT_DATA_DIR": str(data_dir), "DOCUCHAT_LLM_PROVIDER": args.provider,
               "HF_HUB_OFFLINE": "1"}
        command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.address", "127.0.0.1",
                   "--server.port", str(port), "--server.headless", "true"]
        url = f"http://127.0.0.1:{port}"
        with running(command, url + "/_stcore/health", "streamlit", cwd=ROOT, env=env):
            for path in capture(url, args.out, args.width, model=args.provider != "scripted"):
                print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)


if __name__ == "__main__":
    main()
