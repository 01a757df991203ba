"""One question's lifecycle, the same for both engines (the pipeline and agent mode).

Personal data leaves the question before it is logged or reaches the model, and leaves the answer too when
the user asks for it (redact_answers). Every step is traced.
Just before the model starts writing (its words reach the screen as they come), the turn is saved
as interrupted, so an answer the user saw always has its audit record even if the app stops. The
final answer is scanned for personal data once more and saved with its trace, replacing that record.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable

from core.agents.planner import Plan
from core.agents.responder import Response, interrupted, save_turn
from core.llm.base import TokenCallback
from core.safety.pii import StreamRedactor, merge_flags, redact_pii
from core.store.catalog import Catalog
from core.trace import TraceRecorder
from core.trace.events import Listener


class Turn:
    def __init__(self, catalog: Catalog, question: str, on_event: Listener | None, mode: str,
                 redact_answers: bool) -> None:
        redaction = redact_pii(question)
        self.redact_answers = redact_answers
        self.question = redaction.text
        self.question_flags = redaction.flags
        self.mode = mode
        self.trace = TraceRecorder(self.question, on_event)
        self._catalog = catalog

    @property
    def turn_id(self) -> str:
        return self.trace.trace.turn_id

    def accept(self, plan: Plan) -> Plan:
        """The plan, carrying the flags of what was redacted from the question."""
        return replace(plan, safety_flags=merge_flags(plan.safety_flags, self.question_flags))

    def before_writing(self, plan: Plan) -> None:
        """Saved as interrupted: from here on, the model's words may reach the screen."""
        save_turn(self._catalog, interrupted(plan, self.turn_id, self.mode), plan.question, self.trace)

    def stream(self, on_token: TokenCallback | None) -> StreamRedactor | None:
        """The model's words as they come (when answers are redacted, personal data is held back until it is)."""
        return StreamRedactor(on_token, enabled=self.redact_answers) if on_token else None

    def finish(self, plan: Plan, build: Callable[[], Response],
               describe: Callable[[Response], tuple[str, dict]] | None = None) -> Response:
        """The final step: the engine builds its Response; the answer is redacted (if asked), traced and saved.
        describe: the engine's own summary and trace outputs for the final step."""
        with self.trace.step("final", "Responder") as event:
            response = build()
            if self.redact_answers:  # the answer, and the passages shown as its sources
                redacted = redact_pii(response.answer)
                response.answer = redacted.text
                response.safety_flags = merge_flags(response.safety_flags, redacted.flags)
                for citation in response.citations:
                    citation.snippet, citation.quote = redact_pii(citation.snippet).text, redact_pii(citation.quote).text
                response.personal_data_hidden = True
            response.mode = self.mode
            response.trace_id = self.turn_id
            summary, outputs = describe(response) if describe else (
                f"{response.confidence} confidence, {len(response.citations)} citations", {})
            event.summary = summary
            event.outputs.update(answer=response.answer, safety_flags=response.safety_flags, **outputs)
        save_turn(self._catalog, response, plan.question, self.trace)
        return response
