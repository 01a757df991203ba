"""Responder: the user-facing answer with citations, confidence and flags."""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from core.agents.confidence import LOW
from core.agents.planner import Plan
from core.agents.reasoner import NO_INFORMATION, Draft
from core.agents.validator import Validation
from core.citations import SOURCE_MARKER
from core.store.catalog import Catalog
from core.trace import TraceRecorder

_CITATION = re.compile(r"\s*" + SOURCE_MARKER.pattern, re.I)  # with the space before it
PIPELINE, AGENT = "pipeline", "agent"  # the two engines that answer a question


@dataclass
class Citation:
    number: int  # the N of [Source N] in the answer
    doc_id: str
    filename: str
    page: str | None
    sheet: str | None
    chunk_id: str
    score: float  # cosine similarity, 3 decimals
    rows: str | None = None
    snippet: str = ""
    cited: bool = False  # referenced by a [Source N] in the answer
    matched: bool = False  # rows a records query matched: shown as such, not as "similarity 1.000"
    quote: str = ""  # the words the answer quoted from this source: what the evidence view highlights


@dataclass
class Response:
    answer: str
    citations: list[Citation]
    confidence: str
    safety_flags: list[str]
    reasoning: str
    timings: dict[str, float] = field(default_factory=dict)
    tokens: dict[str, int] = field(default_factory=dict)
    trace_id: str = ""
    intent: str = ""
    route: str = ""
    unsupported: list[str] = field(default_factory=list)
    structured: dict | None = None
    question: str = ""  # what was answered: the standalone form of a follow-up
    understood_as: str = ""  # the standalone question a follow-up was rewritten to; "" when unchanged
    clarification: str | None = None  # what was tried and what would help, when records found nothing
    new_topic: bool = False
    insufficiencies: list[dict] = field(default_factory=list)  # agent mode: {section, missing, queries_tried}
    mode: str = PIPELINE  # which engine answered: PIPELINE | AGENT
    interrupted: bool = False  # the app stopped while the model was writing this answer
    personal_data_hidden: bool = False  # the answer and its sources were shown with personal data hidden
    # A refusal's nearest figure: what a source does state and why it is not what was asked,
    # {quote, number, filename, page, sheet, rows, why}; shown beside the refusal, never as its answer.
    nearest: dict | None = None

    def to_dict(self) -> dict:
        return asdict(self)


def understood_as(plan: Plan) -> str:
    """The standalone question answered in place of a follow-up as typed; "" when it stood alone."""
    return plan.question if plan.asked else ""


def strip_invalid_citations(answer: str, valid: set[int]) -> str:
    return _CITATION.sub(lambda m: m.group(0) if int(m.group(1)) in valid else "", answer)


# The model's refusal, as a person would say it (the closest passages follow it, folded, as not evidence).
NOT_FOUND_ANSWER = "I couldn't find this in your documents."
INTERRUPTED_ANSWER = ("This answer was interrupted: the app stopped while the model was writing it. "
                      "The trace shows the steps that had finished; ask again for a complete answer.")


def interrupted(plan: Plan, trace_id: str, mode: str) -> Response:
    """What the audit log holds for a turn whose answer was streaming when the app stopped."""
    return Response(INTERRUPTED_ANSWER, [], LOW, list(plan.safety_flags), plan.reason, trace_id=trace_id,
                    intent=plan.intent, route=plan.route, question=plan.question, mode=mode, interrupted=True)


def save_turn(catalog: Catalog, response: Response, question: str, trace: TraceRecorder) -> None:
    """The audit record of a turn: saved before its answer is shown, and again, as interrupted,
    before the model starts streaming words to the screen."""
    response.timings = trace.trace.agent_durations()
    catalog.save_turn(response.trace_id, question, response.answer, response.confidence,
                      response.to_dict(), trace.trace.to_dict())


def respond(plan: Plan, draft: Draft | None, validation: Validation | None) -> Response:
    if not plan.needs_retrieval or draft is None or validation is None:
        return Response(plan.response or "", [], LOW, list(plan.safety_flags), plan.reason,
                        intent=plan.intent, route="none", question=plan.question, new_topic=plan.new_topic,
                        understood_as=understood_as(plan))
    flags = list(dict.fromkeys(plan.safety_flags + validation.safety_flags))
    if not validation.is_valid:
        answer = validation.fallback_response or ""
    else:
        shown = validation.answer if validation.answer is not None else draft.answer
        answer = strip_invalid_citations(shown, {s.number for s in draft.sources})
        if answer.strip() == NO_INFORMATION:
            answer = NOT_FOUND_ANSWER
    cited = set(validation.cited)
    citations = [
        Citation(
            number=s.number, doc_id=s.chunk.doc_id, filename=s.chunk.filename, page=s.chunk.page,
            sheet=s.chunk.sheet, chunk_id=s.chunk.chunk_id, score=round(s.chunk.similarity, 3),
            rows=s.chunk.rows, snippet=s.text, cited=s.number in cited, matched=s.chunk.matched,
            quote=draft.quote or "" if draft.quote_source == s.number else "",
        )
        for s in draft.sources
    ]
    citations.sort(key=lambda c: (not c.cited, c.number))
    used = len(draft.sources)
    reasoning = f"Used {used} source chunks" + (f", cited {len(cited & {c.number for c in citations})}" if cited else "")
    reasoning += f"; average similarity {validation.average_similarity:.2f}; {validation.reason}"
    if validation.calculation:
        reasoning += f"; computed by code from the quoted figures: {validation.calculation}"
    if validation.misread:
        reasoning += f"; confidence lowered: {validation.misread}"
    if validation.unsupported:
        reasoning += "; not found in the cited sources: " + ", ".join(validation.unsupported[:8])
    return Response(answer.strip(), citations, validation.confidence, flags, reasoning,
                    intent=plan.intent, route=plan.route, unsupported=validation.unsupported,
                    question=plan.question, new_topic=plan.new_topic, understood_as=understood_as(plan),
                    nearest=_nearest(validation, draft))


def _nearest(validation: Validation, draft: Draft) -> dict | None:
    near = validation.nearest
    source = next((s for s in draft.sources if near and s.number == near.source), None)
    if source is None:
        return None
    return {"quote": near.quote, "number": near.source, "filename": source.chunk.filename, "page": source.chunk.page,
            "sheet": source.chunk.sheet, "rows": source.chunk.rows, "why": near.why}
