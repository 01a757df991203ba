"""The knowledge base keeps catalog, vectors and keyword index in step through every write."""
from __future__ import annotations

import pytest

from core.store import IndexSettingsChanged

HANDBOOK = (
    "Helios panels must be installed by a certified electrician.\n"
    "The product warranty lasts twelve years and the output warranty lasts twenty-five years.\n"
)
ORDERS = "order_id,customer,total\n1,ACME,120\n2,Globex,80\n"


def test_ingest_makes_a_document_searchable_in_every_store(make_workspace, write_text):
    ws = make_workspace()
    [result] = ws.ingestor.ingest_paths([write_text("handbook.txt", HANDBOOK)])

    assert result.status == "indexed" and result.chunks == 1
    assert ws.kb.consistency()["consistent"]
    hit = ws.retriever.search("how long is the warranty", top_k=1).hits[0]
    assert hit.filename == "handbook.txt" and hit.bm25_rank == 1 and hit.vector_rank == 1


def test_the_same_content_twice_is_not_duplicated(make_workspace, write_text):
    ws = make_workspace()
    ws.ingestor.ingest_paths([write_text("handbook.txt", HANDBOOK)])
    [again] = ws.ingestor.ingest_paths([write_text("copy-of-handbook.txt", HANDBOOK)])

    assert again.status == "duplicate"
    assert "handbook.txt" in again.message
    assert ws.kb.counts() == {"documents": 1, "chunks": 1, "facts": 0}


def test_unchanged_text_is_never_embedded_twice(make_workspace, write_text):
    ws = make_workspace()
    [first] = ws.ingestor.ingest_paths([write_text("a.txt", HANDBOOK)])
    [second] = ws.ingestor.ingest_paths([write_text("a.txt", HANDBOOK + "\n\nA second paragraph about cleaning.")])

    assert first.embedded == 2  # the one chunk and the document summary
    assert second.status == "replaced"
    # The new version is one chunk (the old text plus a paragraph): it is new text, embedded once;
    # re-ingesting it after a delete costs no model call at all.
    ws.ingestor.delete("a.txt")
    [third] = ws.ingestor.ingest_paths([write_text("a.txt", HANDBOOK + "\n\nA second paragraph about cleaning.")])
    assert third.embedded == 0


def test_replacing_a_file_reindexes_it_and_drops_the_old_version(make_workspace, write_text):
    ws = make_workspace()
    ws.ingestor.ingest_paths([write_text("prices.txt", "The HX-400 panel costs 199 euros.")])
    [result] = ws.ingestor.ingest_paths([write_text("prices.txt", "The HX-400 panel costs 249 euros.")])

    assert result.status == "replaced"
    docs = ws.kb.documents()
    assert [d.filename for d in docs] == ["prices.txt"]
    text = ws.retriever.search("HX-400 price", top_k=1).hits[0].text
    assert "249" in text and "199" not in text
    assert ws.kb.consistency()["consistent"]


def test_delete_removes_every_trace(make_workspace, write_text):
    ws = make_workspace()
    ws.ingestor.ingest_paths([write_text("handbook.txt", HANDBOOK), write_text("orders.csv", ORDERS)])
    stored = [d.stored_path for d in ws.kb.documents() if d.filename == "orders.csv"][0]

    assert ws.ingestor.delete("orders.csv") == ["orders.csv"]

    assert [d.filename for d in ws.kb.documents()] == ["handbook.txt"]
    state = ws.kb.consistency()
    assert state["consistent"] and state["vector_chunks"] == state["keyword_chunks"] == 1
    assert all(h.filename != "orders.csv" for h in ws.retriever.search("ACME orders").candidates)
    assert not (ws.settings.files_dir / stored.split("/")[-2]).exists()


def test_a_bad_file_fails_alone_and_the_batch_goes_on(make_workspace, write_text, tmp_path):
    ws = make_workspace()
    empty = write_text("empty.txt", "")
    fake_pdf = write_text("report.pdf", "this is not a pdf")
    results = ws.ingestor.ingest_paths([empty, write_text("handbook.txt", HANDBOOK), fake_pdf])

    assert [r.status for r in results] == ["failed", "indexed", "failed"]
    assert "empty" in results[0].message.lower()
    assert "not a pdf" in results[2].message.lower()
    failed = {d.filename: d.error for d in ws.kb.documents() if d.status == "failed"}
    assert set(failed) == {"empty.txt", "report.pdf"}
    assert ws.kb.counts() == {"documents": 1, "chunks": 1, "facts": 0}
    assert ws.kb.consistency()["consistent"]


def test_a_failed_file_that_is_fixed_replaces_its_error(make_workspace, write_text):
    ws = make_workspace()
    ws.ingestor.ingest_paths([write_text("notes.txt", "")])
    ws.ingestor.ingest_paths([write_text("notes.txt", HANDBOOK)])

    assert [(d.filename, d.status) for d in ws.kb.documents()] == [("notes.txt", "indexed")]


def test_file_names_cannot_escape_the_data_directory(make_workspace, write_text):
    ws = make_workspace()
    path = write_text("plain.txt", HANDBOOK)
    [result] = ws.ingestor.ingest_paths([path], names=["../../etc/<script>evil</script>.txt"])

    stored = ws.kb.documents()[0].stored_path
    assert result.ok
    assert stored.startswith(str(ws.settings.files_dir))
    assert "/" not in result.filename and "<" not in result.filename


def test_index_parameters_are_stored_and_a_change_is_refused_with_a_clear_message(make_workspace, write_text, tmp_path):
    data_dir = tmp_path / "kb"
    ws = make_workspace(data_dir)
    ws.ingestor.ingest_paths([write_text("handbook.txt", HANDBOOK)])
    ws.close()

    with pytest.raises(IndexSettingsChanged) as error:
        make_workspace(data_dir, chunk_size_tokens=120)
    assert "chunk_size_tokens: 200 -> 120" in str(error.value)
    assert "reindex" in str(error.value)


def test_an_index_built_before_a_parameter_existed_reads_as_built_with_its_old_behaviour(make_workspace, write_text,
                                                                                       tmp_path):
    data_dir = tmp_path / "kb"
    ws = make_workspace(data_dir)
    ws.ingestor.ingest_paths([write_text("handbook.txt", HANDBOOK)])
    stored = ws.kb.catalog.get_json("index_parameters")
    del stored["document_profiles"]  # as written before profiles existed, when the SEC rules were always on
    ws.kb.catalog.set_json("index_parameters", stored)
    ws.close()

    make_workspace(data_dir).close()  # the default profiles: nothing to re-index
    with pytest.raises(IndexSettingsChanged) as error:
        make_workspace(data_dir, document_profiles=())
    assert "document_profiles: sec_filing -> " in str(error.value)


def test_a_change_of_index_parameters_can_rebuild_the_index(make_workspace, write_text, tmp_path):
    data_dir = tmp_path / "kb"
    long_text = "\n".join(f"Section {i}. The panel model HX-{i} weighs {i} kilograms." for i in range(60))
    ws = make_workspace(data_dir)
    ws.ingestor.ingest_paths([write_text("long.txt", long_text)])
    before = ws.kb.counts()["chunks"]
    ws.close()

    rebuilt = make_workspace(data_dir, chunk_size_tokens=60, reindex_on_settings_change=True)

    assert [r.status for r in rebuilt.reindexed_on_open] == ["indexed"]
    assert rebuilt.kb.counts()["chunks"] > before
    assert rebuilt.kb.consistency()["consistent"]
    rebuilt.close()
    make_workspace(data_dir, chunk_size_tokens=60)  # the new parameters are now the stored ones


def test_one_document_can_be_reindexed_from_its_stored_original(make_workspace, write_text):
    ws = make_workspace()
    path = write_text("handbook.txt", HANDBOOK)
    [first] = ws.ingestor.ingest_paths([path])
    path.unlink()  # the user's copy is gone; ours is kept

    result = ws.ingestor.reindex_document(first.doc_id)

    assert result.status == "indexed" and result.doc_id == first.doc_id
    assert ws.kb.counts() == {"documents": 1, "chunks": 1, "facts": 0}
    assert ws.kb.consistency()["consistent"]
    assert ws.ingestor.reindex_document("nope").status == "failed"


def test_summaries_can_be_given_to_a_document_indexed_before_they_existed(make_workspace, write_text):
    import numpy as np

    from core.ingest.summary import SectionSummary

    ws = make_workspace()
    ws.ingestor.ingest_paths([write_text("handbook.txt", HANDBOOK)])
    [doc_id] = ws.kb.resolve_documents(["handbook.txt"])
    vector = np.ones(384, dtype=np.float32) / np.sqrt(384)
    spans = [(SectionSummary(1, 2, "Installation and warranty."), vector)]

    with ws.kb.writing():
        ws.kb.add_summaries(doc_id, ({"document_type": "Manual", "summary": "Warranty terms."}, vector), spans)
        ws.kb.add_summaries(doc_id, sections=spans)  # again: replaced, not added twice

    assert ws.kb.document_summaries()[doc_id]["document_type"] == "Manual"
    assert ws.kb.section_summary_documents() == {doc_id}
    assert [(d, first, last) for d, first, last, _ in ws.kb.search_sections(vector, k=5)] == [(doc_id, 1, 2)]


def test_searches_from_several_threads_open_the_vector_store_once(make_workspace, write_text):
    """Sub-queries search in threads; two threads opening (or closing) the embedded Chroma client at
    once half-stopped it ("Could not connect to tenant default_tenant") and a sub-query's search failed."""
    from concurrent.futures import ThreadPoolExecutor

    ws = make_workspace()
    ws.ingestor.ingest_paths([write_text(f"note{i}.txt", f"Note {i} says the pump runs {i} hours a day.") for i in range(4)])
    opened = []
    connect = ws.kb.vectors._connect
    ws.kb.vectors._connect = lambda: opened.append(1) or connect()

    def search(_):
        return len(ws.retriever.search("how many hours does the pump run", top_k=3).hits)

    for _ in range(3):  # each round starts as a fresh process does: no client, a generation not yet seen
        ws.kb.vectors.close()
        ws.kb._chroma_generation = None
        opened.clear()
        with ThreadPoolExecutor(max_workers=6) as pool:
            assert list(pool.map(search, range(6))) == [3] * 6
        assert len(opened) == 1
