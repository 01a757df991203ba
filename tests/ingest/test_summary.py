"""Document summaries in seed 002's schema, made at ingest without the LLM, and searchable."""
from core.ingest.document import LoadedDocument, Section
from core.ingest.summary import summarize

PROSE = ("Helios panels must be installed by a certified electrician on a sound roof. "
         "The output warranty lasts twenty-five years and covers degradation of the modules. "
         "Clean the glass with water only, never with abrasive products or pressure washers.")


def test_type_summary_topics_and_use():
    document = LoadedDocument("Helios_Installation_Manual.pdf", "pdf", [Section(PROSE, page=1)], page_count=1)
    summary = summarize(document, ["short", "text-heavy"])
    assert summary.document_type == "Manual" and "procedures" in summary.use_for
    assert summary.summary.startswith("Helios panels must be installed")
    assert "warranty" in summary.key_topics or "panels" in summary.key_topics
    assert set(summary.to_dict()) == {"document_type", "summary", "key_topics", "use_for"}


def test_a_table_is_described_by_its_first_rows():
    document = LoadedDocument("orders.csv", "csv", [Section("order_id: 1 | customer: ACME\norder_id: 2 | customer: Globex",
                                                             is_table=True)], page_count=1)
    summary = summarize(document, ["short", "data-heavy"])
    assert summary.document_type == "Order records" and "order_id: 1" in summary.summary


def test_summaries_route_a_question_to_the_right_document(make_workspace, write_text):
    ws = make_workspace()
    ws.ingestor.ingest_paths([write_text("installation_manual.txt", PROSE),
                              write_text("orders.csv", "order_id,customer,total\n1,ACME,10\n2,Globex,20\n")])
    [(doc_id, score, summary)] = ws.kb.search_summaries(ws.embedder.embed(["how do I clean the panels"])[0], k=1)
    assert ws.kb.catalog.document(doc_id).filename == "installation_manual.txt" and summary["document_type"] == "Manual"
    ws.ingestor.delete("installation_manual.txt")
    assert [d for d, _, _ in ws.kb.search_summaries(ws.embedder.embed(["clean"])[0], k=5)] == ws.kb.resolve_documents(["orders.csv"])


def _long_manual(topics: list[str], pages_each: int) -> LoadedDocument:
    sections, page = [], 0
    for topic in topics:
        for n in range(pages_each):
            page += 1
            text = (f"This part of the manual explains {topic} in detail for the installer on site. "
                    f"Check the {topic} steps {n} before moving on. ") * 8
            sections.append(Section(text, page=page))
    return LoadedDocument("manual.pdf", "pdf", sections, page_count=page)


def test_long_documents_are_summarized_in_spans_named_by_their_distinctive_words():
    from core.ingest.summary import section_summaries

    document = _long_manual(["grounding", "inverters", "warranty"], pages_each=4)
    spans = section_summaries(document, macro_chunk_tokens=900)  # a page is ~228 tokens
    assert [(s.page_start, s.page_end) for s in spans] == [(1, 4), (5, 8), (9, 12)]
    assert "grounding" in spans[0].text.split("Topics:")[1][:40] and "warranty" in spans[2].text
    assert section_summaries(document, macro_chunk_tokens=10**6) == []  # one span: the document summary says it


def test_the_long_text_route_searches_only_the_pages_of_the_best_span(make_workspace, tmp_path):
    from tests.ingest.conftest import write_text_pdf

    from core.retrieval.long_text import summary_then_segment

    pages = ([f"Grounding the frame: connect the earth cable to lug {n}." for n in range(12)]
             + [f"Inverter start-up: wait for the green light, step {n}." for n in range(12)])
    ws = make_workspace(long_document_pages=20, macro_chunk_tokens=100)
    assert ws.ingestor.ingest_paths([write_text_pdf(tmp_path / "manual.pdf", pages)])[0].ok
    result, spans = summary_then_segment(ws.retriever, "How do I start the inverter?", 3, sections=1)
    [span] = spans
    assert span.page_start > 12  # the inverter half
    assert result.hits and all(int(str(h.page).split("-")[0]) >= span.page_start for h in result.hits)


def test_the_file_name_types_a_document_before_its_first_page_mentions_other_kinds():
    text = "Keep your invoice as proof of purchase for the warranty. " + PROSE
    handbook = LoadedDocument("Helios_Product_Handbook.pdf", "pdf", [Section(text, page=1)], page_count=1)
    assert summarize(handbook, ["text-heavy"]).document_type == "Manual"
    orders = LoadedDocument("orders_2023_2024.csv", "csv", [Section("id: 1 | total: 5", is_table=True)], page_count=1)
    assert summarize(orders, ["data-heavy"]).document_type == "Order records"


def test_without_a_telling_name_the_earliest_kind_on_the_first_page_wins():
    text = "Product handbook for the HX series. Returns need the original invoice and receipt."
    document = LoadedDocument("hx.pdf", "pdf", [Section(text, page=1)], page_count=1)
    assert summarize(document, ["text-heavy"]).document_type == "Manual"
