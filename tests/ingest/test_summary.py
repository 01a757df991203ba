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
