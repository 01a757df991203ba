"""Citation grounding: [N] is the N-th opened citation; the rest is stripped."""
from core.agents.agent_mode.grounding import cited_markers, ground_citations, strip_markers
from core.agents.agent_mode.state import SearchHit
from core.citations import attribute_markers
from core.retrieval import RetrievedChunk
from tests.agents.agent_mode.conftest import DOCS


def _hit(n: int, filename: str) -> SearchHit:
    chunk = RetrievedChunk(f"c{n}", f"d{n}", filename, 0, f"text of {filename}", "1", None, None, score=0.1,
                           vector_score=0.75)
    return SearchHit(f"R{n}", chunk, "query", f"snippet of {filename}")


def test_markers_in_every_form_are_found():
    assert cited_markers("A [1], B [2, 3] and C [Source 4]; not [2023].") == [1, 2, 3, 4]


def test_markers_map_to_opened_citations_and_hallucinated_ones_are_stripped():
    grounded = ground_citations("Reindex nightly [1]. Verify first [2]. Use pg_reindex [5].",
                                [_hit(1, "operations.md"), _hit(2, "deletes.md")])
    assert grounded.answer == "Reindex nightly [1]. Verify first [2]. Use pg_reindex."
    assert grounded.stripped == [5]
    first, second = grounded.citations
    assert (first.number, first.filename, first.chunk_id, first.cited) == (1, "operations.md", "c1", True)
    assert first.snippet == "text of operations.md" and first.score == 0.75
    assert second.cited


def test_markers_take_one_form_and_keep_their_valid_numbers_only():
    assert strip_markers("Both say so [1, 7]. See [Source 2].", {1, 2}) == "Both say so [1]. See [2]."
    assert strip_markers("```\n    REINDEX  TABLE x; [9]\n```", {1}) == "```\n    REINDEX  TABLE x;\n```"


def test_with_nothing_opened_citations_fall_back_to_search_snippets():
    grounded = ground_citations("Reindex nightly [1].", [], fallback=[_hit(1, "operations.md")])
    assert grounded.answer == "Reindex nightly." and grounded.from_snippets
    [citation] = grounded.citations
    assert citation.snippet == "snippet of operations.md" and not citation.cited


def test_a_sentence_joining_two_facts_gets_both_sources():
    """Qwen 1.5B's answer to a two-part question, word for word."""
    answer = ("The client must wait 30 seconds before retrying after hitting the rate limit, and an order is "
              "verified before deletion by checking the status in the orders table.")
    marked, placed = attribute_markers(answer, [DOCS["deletes.md"], DOCS["limits.md"], DOCS["operations.md"]], 0.5)
    assert marked.endswith("in the orders table [1, 2].") and placed == [1, 2]
