"""Which stored tables a question is about: the words first, a named file alone, the user's scope as given."""
from core.config import Settings
from core.llm.scripted import ScriptedLLM
from core.workspace import Workspace

ORDERS = "Customer,Total,Year\n" + "\n".join(f"{c},{100 + i},{2023 + i % 2}" for i, c in
                                               enumerate(["Acme", "Globex", "Initech"] * 4))
MORE_ORDERS = "Customer,Total,Year\nAcme,900,2024\nUmbrella,50,2024\n"
STAFF = "Name,Team,Start year\nAda,Field,2019\nBo,Office,2021\n"
INVOICES = "Customer,Total,Paid\nAcme,70,yes\nGlobex,20,no\n"  # the same words, another file


def workspace(tmp_path, embedder, write_text, *files):
    ws = Workspace(Settings(data_dir=tmp_path / "kb"), embedder, ScriptedLLM([]))
    ws.ingestor.ingest_paths([write_text(name, text) for name, text in files])
    return ws


def test_nothing_stored_is_no_table_route(tmp_path, embedder):
    ws = Workspace(Settings(data_dir=tmp_path / "kb"), embedder, ScriptedLLM([]))
    assert ws.pipeline.finder.find("How many orders did Acme place?") is None
    ws.close()


def test_a_question_naming_a_file_reads_that_file_and_files_sharing_its_name_only(tmp_path, embedder, write_text):
    ws = workspace(tmp_path, embedder, write_text, ("orders.csv", ORDERS), ("more_orders.csv", MORE_ORDERS),
                   ("invoices.csv", INVOICES))
    assert "invoices.csv" in {x.table.filename for x in ws.pipeline.finder.find("What is the total for Acme?").ranked}
    route = ws.pipeline.finder.find("What is the total for Acme in orders.csv?", with_model=False)
    assert {x.table.filename for x in route.ranked} <= {"orders.csv", "more_orders.csv"}
    assert route.selections and route.selections[0].table.filename in {"orders.csv", "more_orders.csv"}
    ws.close()


def test_a_scope_the_user_gave_is_kept_even_where_the_words_name_another_table(tmp_path, embedder, write_text):
    ws = workspace(tmp_path, embedder, write_text, ("orders.csv", ORDERS), ("staff.csv", STAFF))
    staff = next(d.doc_id for d in ws.documents() if d.filename == "staff.csv")
    route = ws.pipeline.finder.find("What is the total for Acme?", doc_ids=[staff])
    assert [x.table.filename for x in route.selections] == ["staff.csv"]
    assert route.selections[0].reasons[0] == "scoped to this document"
    ws.close()
