"""Answering a question while the page stays alive: the pipeline runs in a worker thread, and the
script thread redraws the status line (the running step, seconds, the read-time estimate) and the
words streamed so far a few times a second. Streamlit elements are only touched from the script
thread; the worker only calls core."""
from __future__ import annotations

import threading

import streamlit as st

from core.conversation import Conversation
from core.trace.status import LiveStatus
from core.workspace import Workspace
from ui.components import escape_markdown

REDRAW_SECONDS = 0.25


def ask_live(ws: Workspace, conversation: Conversation, question: str, **options) -> tuple[dict, Conversation, dict]:
    """ws.chat with a live status box and streamed words: the Response as a dict, the conversation
    after it, and the finished status ({label, state, steps}) for redrawing it with the answer later."""
    status = LiveStatus(lambda: ws.llm.prompt_tokens_per_second or ws.settings.llm_prompt_tokens_per_second)
    box = st.status(status.text(), expanded=False)
    words = st.empty()
    outcome: dict = {}

    def work() -> None:
        try:
            outcome["response"], outcome["conversation"] = ws.chat(
                conversation, question, on_token=status.on_token, on_event=status, **options)
        except BaseException as exc:  # re-raised in the script thread, where Streamlit shows it
            outcome["error"] = exc

    worker = threading.Thread(target=work, name="docuchat-answer", daemon=True)
    worker.start()
    steps: list[str] = []
    while True:
        worker.join(REDRAW_SECONDS)
        for event in status.completed[len(steps):]:
            mark = ":material/error:" if event.status == "failed" else ":material/check:"
            steps.append(f"{mark} **{event.agent}**: {escape_markdown(event.summary)} ({event.duration_ms / 1000:.1f} s)")
            box.write(steps[-1])
        # The model may still be loading from start-up; the first step that needs it waits for it.
        box.update(label=("Loading the language model · " if ws.llm.loading else "") + status.text())
        streamed = status.streamed()
        if streamed:
            words.text(streamed + " ▌")
        if not worker.is_alive():
            break
    if "error" in outcome:
        box.update(label="Failed", state="error")
        raise outcome["error"]
    response = outcome["response"].to_dict()
    failed = "llm_error" in response["safety_flags"]
    finished = {"label": f"{'Failed' if failed else 'Done'} in {status.elapsed():.0f} s",
                "state": "error" if failed else "complete", "steps": steps}
    box.update(label=finished["label"], state=finished["state"])
    words.empty()
    return response, outcome["conversation"], finished


def finished_status(finished: dict) -> None:
    """A past answer's status, closed: how long it took and its steps."""
    with st.status(finished["label"], state=finished["state"], expanded=False):
        for step in finished["steps"]:
            st.write(step)
