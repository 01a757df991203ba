"""Hybrid search finds by keyword and by meaning, can be scoped, and explains its ranking."""
from __future__ import annotations

import pytest

DOCS = {
    "warranty.txt": "Helios guarantees 25 years of power output and 12 years on the product itself.",
    "install.txt": "Mount the HX-450 modules on aluminium rails; torque the clamps to 12 Nm.",
    "receipts.csv": "date,vendor,item,amount\n2024-03-02,QuickFit,Winter tyres x4,480\n2024-05-11,AutoParts,Brake pads,90\n",
    "story.txt": "The company was founded by two engineers in a garage in Porto in 1998.",
}


@pytest.fixture
def ws(make_workspace, write_text):
    ws = make_workspace()
    ws.ingestor.ingest_paths([write_text(name, text) for name, text in DOCS.items()])
    return ws


def test_an_exact_identifier_is_found_by_the_keyword_side(ws):
    top = ws.retriever.search("HX-450 clamp torque", top_k=1).hits[0]
    assert top.filename == "install.txt" and top.bm25_rank == 1


def test_a_paraphrase_is_found_by_the_vector_side(ws):
    result = ws.retriever.search("how long is the guarantee on electricity production", top_k=1)
    top = result.hits[0]
    assert top.filename == "warranty.txt" and top.vector_rank == 1


def test_every_hit_explains_where_it_came_from(ws):
    result = ws.retriever.search("winter tyres receipt", top_k=2)
    top = result.hits[0]
    assert top.filename == "receipts.csv" and top.rows == "2-3"
    assert set(top.retrievers) == {"bm25", "vector"}
    assert 0.0 <= top.similarity <= 1.0
    assert all(c.used == (c in result.hits) for c in result.candidates)
    assert [c.score for c in result.candidates] == sorted((c.score for c in result.candidates), reverse=True)
    assert {"bm25_ms", "vector_ms", "embed_ms", "fuse_ms"} <= set(result.timings_ms)


def test_single_retriever_modes_use_only_that_retriever(ws):
    assert all(h.vector_rank is None for h in ws.retriever.search("tyres", retrievers=("bm25",)).candidates)
    assert all(h.bm25_rank is None for h in ws.retriever.search("tyres", retrievers=("vector",)).candidates)


def test_search_can_be_prefiltered_to_documents(ws):
    [story] = ws.kb.resolve_documents(["story.txt"])
    result = ws.retriever.search("tyres and brake pads", doc_ids=[story])
    assert {h.filename for h in result.candidates} == {"story.txt"}


def test_enumeration_questions_weight_keywords_more(ws):
    assert ws.retriever.search("list all receipts").semantic_weight == 0.3
    assert ws.retriever.search("why was the company founded").semantic_weight == 0.7


def test_sliding_window_adds_neighbours_in_reading_order(make_workspace, write_text):
    ws = make_workspace(chunk_size_tokens=40, chunk_overlap_tokens=0)
    lines = [f"Step {i}: tighten bolt number {i} of the frame to the rail." for i in range(1, 13)]
    lines[6] = "Step 7: the grounding lug connects the frame to earth with a green cable."
    ws.ingestor.ingest_paths([write_text("manual.txt", "\n".join(lines))])

    result = ws.retriever.search("grounding lug earth cable", top_k=1, expand=1)

    center = result.candidates[0]
    assert "grounding lug" in center.text
    last = ws.kb.counts()["chunks"] - 1
    expected = [i for i in (center.chunk_index - 1, center.chunk_index, center.chunk_index + 1) if 0 <= i <= last]
    assert [h.chunk_index for h in result.hits] == expected
    assert all(h.expanded_from == center.chunk_id for h in result.hits if h.chunk_index != center.chunk_index)


def test_a_hit_carries_the_context_line_it_was_indexed_with(make_workspace, write_text):
    ws = make_workspace()
    text = "Liquidity and Capital Resources\nCash and equivalents were $2.1 billion at quarter end."
    ws.ingestor.ingest_paths([write_text("report.txt", text)])
    top = ws.retriever.search("cash and equivalents at quarter end", top_k=1).hits[0]
    assert top.context == "Liquidity and Capital Resources"
    assert not top.text.startswith("Liquidity and Capital Resources\nLiquidity")  # the text is the chunk's own


def test_passage_reranking_marks_each_hit_with_its_best_window(make_workspace, write_text):
    ws = make_workspace(passage_rerank=True, rerank_embed=False, rerank_window_units=1)
    text = "Installation overview.\nThe rails rest on hooks.\nTighten the clamp bolts to 8-12 N m.\nCheck fuses yearly."
    ws.ingestor.ingest_paths([write_text("manual.txt", text), *(write_text(n, t) for n, t in DOCS.items())])

    result = ws.retriever.search("tighten the clamp bolts", top_k=2)

    assert "rerank_ms" in result.timings_ms
    top = result.hits[0]
    assert top.filename == "manual.txt" and top.focus == "Tighten the clamp bolts to 8-12 N m."
    assert top.rerank_score is not None
    plain = ws.retriever.search("tighten the clamp bolts", top_k=2, rerank=False)
    assert "rerank_ms" not in plain.timings_ms and all(h.focus == "" for h in plain.hits)


def test_the_retriever_runs_its_rerankers_in_order_over_the_fused_candidates(make_workspace, write_text):
    """A re-ranker is one class with `rerank(query, candidates)`; the retriever runs its list in order."""
    ws = make_workspace(passage_rerank=True)
    ws.ingestor.ingest_paths([write_text(n, t) for n, t in DOCS.items()])
    fused = ws.retriever.search("tighten the clamp bolts", top_k=3, rerank=False).candidates

    class Reverse:
        def rerank(self, query, candidates):
            return candidates[::-1]

    class FirstTwoSwapped:
        def rerank(self, query, candidates):
            return [candidates[1], candidates[0], *candidates[2:]]

    ws.retriever.rerankers = [Reverse(), FirstTwoSwapped()]
    reordered = ws.retriever.search("tighten the clamp bolts", top_k=3).candidates
    expected = fused[::-1]
    assert [c.chunk_id for c in reordered] == [c.chunk_id for c in [expected[1], expected[0], *expected[2:]]]
    ws.retriever.rerankers = []
    assert [c.chunk_id for c in ws.retriever.search("tighten the clamp bolts", top_k=3).candidates] == \
        [c.chunk_id for c in fused]


def test_a_spread_search_puts_each_document_s_best_hit_first(make_workspace, write_text):
    ws = make_workspace(chunk_size_tokens=40, chunk_overlap_tokens=0)
    sales = "Net sales rose on strong iPhone demand in every region this quarter. " * 8
    other = "The weather was mild and rainfall was average. Our offices moved to a new building in the spring."
    ws.ingestor.ingest_paths([write_text("q2.txt", sales), write_text("q3.txt", other)])
    plain = ws.retriever.search("net sales this quarter", top_k=2)
    assert [h.filename for h in plain.hits] == ["q2.txt", "q2.txt"]  # the filing it words most alike
    spread = ws.retriever.search("net sales this quarter", top_k=2, spread=True)
    assert [h.filename for h in spread.hits] == ["q2.txt", "q3.txt"]
    assert [h.chunk_id for h in spread.candidates][2:] == [h.chunk_id for h in plain.candidates if h.chunk_id not in
                                                           {x.chunk_id for x in spread.hits}]


def test_a_hit_cut_inside_a_sentence_reads_on_into_the_next_chunk(make_workspace, write_text):
    """A hard-wrapped text (an e-mail, a PDF page) is chunked by its lines, so a chunk can stop at
    "... at the end of year 25 the"; the hit handed to the answer finishes that sentence."""
    ws = make_workspace(chunk_size_tokens=40, chunk_overlap_tokens=0)
    lines = ["Helios warrants a linear power output for twenty five years on every module it sells",
             "to a customer, and the output declines by a small share each year, so that at the end the",
             "module still delivers at least 84.8 % of its nominal power after all those years.",
             "Claims go to the installer first, who forwards them to the maker within sixty days."]
    ws.ingestor.ingest_paths([write_text("warranty.txt", "\n".join(lines))])
    chunks = [ws.kb.catalog.neighbours(doc.doc_id, 0, 9) for doc in ws.documents()][0]
    assert chunks[0].text.endswith("at the end the")  # the chunker did cut the sentence

    hit = ws.retriever.search("linear power output warranty", top_k=1).hits[0]

    assert hit.chunk_index == 0
    assert hit.text.endswith("at the end the\nmodule still delivers at least 84.8 % of its nominal power after all those years.")


def test_for_a_text_answer_a_tables_rows_that_share_no_word_with_the_question_are_left_out(ws):
    question = "Who started the firm, and where?"  # no word of it is in the receipts' rows
    everything = ws.retriever.search(question, top_k=4)
    worded = ws.retriever.search(question, top_k=4, worded_rows=True)
    assert any(h.rows and h.bm25_rank is None for h in everything.hits)  # found by meaning alone
    assert not any(h.rows and h.bm25_rank is None for h in worded.hits)
    assert worded.hits[0].filename == "story.txt"
    # rows the question's words find stay
    assert ws.retriever.search("winter tyres receipt", top_k=2, worded_rows=True).hits[0].filename == "receipts.csv"
