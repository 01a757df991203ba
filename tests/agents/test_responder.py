"""Responder: citations with full metadata, invalid markers removed, fallbacks shown."""
from core.agents.planner import Plan
from core.agents.reasoner import Draft, Source
from core.agents.responder import respond, strip_invalid_citations
from core.agents.validator import Validation
from core.retrieval import RetrievedChunk


def test_citations_carry_metadata_and_scores_to_three_places():
    chunk = RetrievedChunk("d1_0", "d1", "ai_intro.pdf", 0, "ML is...", "5", None, None, 0.02, vector_score=0.89234)
    draft = Draft("Machine learning is a subset of AI [Source 1].", "", 1, [Source(1, chunk, "ML is...")])
    response = respond(Plan("q", True), draft, Validation(True, "high", cited=[1]))
    [c] = response.citations
    assert (c.doc_id, c.filename, c.page, c.sheet, c.chunk_id, c.score, c.cited) == (
        "d1", "ai_intro.pdf", "5", None, "d1_0", 0.892, True)
    assert response.reasoning.startswith("Used 1 source chunks")


def test_hallucinated_markers_are_removed_from_the_answer():
    assert strip_invalid_citations("A [Source 1]. B [Source 7].", {1}) == "A [Source 1]. B."


def test_an_invalid_draft_shows_the_fallback_response():
    draft = Draft("ok", "", 0, [])
    response = respond(Plan("q", True), draft, Validation(False, "low", ["answer_too_short"], fallback_response="Rephrase?"))
    assert response.answer == "Rephrase?" and response.safety_flags == ["answer_too_short"]


def test_a_stopped_plan_answers_with_its_message():
    response = respond(Plan("q", False, response="No documents...", safety_flags=["empty_knowledge_base"]), None, None)
    assert (response.answer, response.citations, response.confidence) == ("No documents...", [], "low")
