"""Document routing (seed 002): a question that names a document's owner is searched in that
document only; the router falls back to every document when unsure, wrong or weak."""
import pytest

from core.agents import retriever as retriever_agent
from core.agents.planner import plan_question
from core.agents.router import DocumentRouter, is_weak, periods_in
from core.config import Settings
from core.workspace import Workspace

DOCS = {
    "acme_2022_annual_report.txt": "ACME Corporation annual report for 2022.\nACME revenue was 120 million dollars in 2022. "
                                   "The annual report covers solar panels and inverters.",
    "acme_2023_annual_report.txt": "ACME Corporation annual report for 2023.\nACME revenue was 150 million dollars in 2023. "
                                   "The annual report covers solar panels and batteries.",
    "globex_2023_report.txt": "Globex Inc. report for 2023.\nGlobex revenue was 80 million dollars. "
                              "The report covers wind turbines.",
    "quarterly_filing_7.txt": "Quarterly filing of Initech LLC.\nInitech revenue was 9 million dollars this quarter. "
                              "The filing covers accounting software.",
    "warranty_guide.txt": "Warranty guide.\nThe warranty covers panels for 10 years. A warranty claim needs the receipt.",
}


@pytest.fixture(scope="module")
def ws(tmp_path_factory, embedder):
    """One knowledge base for the tests that only read it (routing settings are passed apart)."""
    folder = tmp_path_factory.mktemp("router")
    paths = []
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
        paths.append(folder / name)
    workspace = Workspace(Settings(data_dir=folder / "data"), embedder)
    workspace.ingestor.ingest_paths(paths)
    yield workspace
    workspace.close()


def filenames(ws, doc_ids):
    names = {d.doc_id: d.filename for d in ws.kb.documents()}
    return sorted(names[d] for d in doc_ids or [])


def test_a_company_named_in_the_file_name_routes_to_its_documents(ws):
    routing = DocumentRouter(ws.kb, ws.settings).route("What was ACME's revenue?")
    assert routing.method == "name" and "acme" in routing.reason
    assert filenames(ws, routing.doc_ids) == ["acme_2022_annual_report.txt", "acme_2023_annual_report.txt"]


def test_a_named_period_picks_the_document_of_that_period(ws):
    routing = DocumentRouter(ws.kb, ws.settings).route("What was ACME's revenue in FY2022?")
    assert filenames(ws, routing.doc_ids) == ["acme_2022_annual_report.txt"]
    assert periods_in("2023Q2 10-Q, Q3 2023") == {"2023", "q2", "q3"}


def test_a_name_only_on_the_first_page_routes_when_written_as_a_name(ws):
    router = DocumentRouter(ws.kb, ws.settings)
    assert filenames(ws, router.route("How much revenue did Initech make?").doc_ids) == ["quarterly_filing_7.txt"]
    # Only capitalised words are names: "initech" in lower case could be any word of a first page.
    assert router.route("how much revenue did initech make?").method != "name"


def test_ordinary_words_and_kinds_of_document_are_not_names(ws):
    router = DocumentRouter(ws.kb, ws.settings)
    # "warranty" is in a file name, but the documents also use it as a word.
    assert router.route("What does the Warranty cover?").method != "name"
    # "report" and "annual" are in several file names and in lower case in the text.
    assert router.route("Which Annual Report mentions batteries?").method != "name"


def test_without_a_name_the_summaries_decide_only_when_similar_enough(ws):
    sure = DocumentRouter(ws.kb, ws.settings.replace(router_min_similarity=0.0)).route("wind turbines")
    assert sure.method == "summary" and sure.doc_ids and len(sure.doc_ids) <= ws.settings.router_top_k_docs
    unsure = DocumentRouter(ws.kb, ws.settings.replace(router_min_similarity=0.99)).route("wind turbines")
    assert unsure.doc_ids is None and unsure.method == "none" and unsure.reason.startswith("unsure")
    assert unsure.considered  # what it looked at is still in the trace


def test_names_that_fit_more_documents_than_routing_keeps_are_unsure(ws):
    # "acme" (two documents) and "globex" (one) together fit three: too many to narrow to.
    routing = DocumentRouter(ws.kb, ws.settings.replace(router_max_docs=2)).route("Compare ACME and Globex")
    assert routing.doc_ids is None and routing.reason.startswith("unsure")
    # A word on more documents than that is no name at all.
    assert DocumentRouter(ws.kb, ws.settings.replace(router_max_docs=1)).route("ACME?").method != "name"


def test_nothing_to_narrow_with_few_documents(make_workspace, write_text):
    ws = make_workspace()
    ws.ingestor.ingest_paths([write_text("acme.txt", DOCS["acme_2022_annual_report.txt"])])
    routing = DocumentRouter(ws.kb, ws.settings).route("What was ACME's revenue?")
    assert routing.doc_ids is None and "nothing to narrow" in routing.reason


def test_routed_names_are_validated_against_the_knowledge_base(ws, monkeypatch):
    router = DocumentRouter(ws.kb, ws.settings)
    router.profiles()
    monkeypatch.setattr(ws.kb, "resolve_documents", lambda ids: [])  # gone since the profiles were read
    routing = router.route("What was ACME's revenue?")
    assert routing.doc_ids is None and "no longer searchable" in routing.reason


def test_profiles_follow_the_knowledge_base(make_workspace, write_text):
    ws = make_workspace()
    ws.ingestor.ingest_paths([write_text(name, text) for name, text in DOCS.items()])
    router = DocumentRouter(ws.kb, ws.settings)
    assert router.route("What did Umbrella earn?").method != "name"
    ws.ingestor.ingest_paths([write_text("umbrella_2023.txt", "Umbrella Corp results.\nUmbrella earned 5 million.")])
    assert filenames(ws, router.route("What did Umbrella earn?").doc_ids) == ["umbrella_2023.txt"]


def test_retrieval_is_prefiltered_to_the_routed_documents(ws):
    plan = plan_question("What was Globex revenue?", knowledge_base_empty=False, settings=ws.settings)
    evidence = retriever_agent.retrieve(plan, ws.retriever, 3, ws.settings, router=DocumentRouter(ws.kb, ws.settings))
    assert {c.filename for c in evidence.chunks} == {"globex_2023_report.txt"}
    assert evidence.searches[0].routing["method"] == "name" and not evidence.searches[0].fell_back


def test_each_sub_query_is_routed_to_its_own_documents(ws):
    plan = plan_question("Compare revenue of Globex and Initech", knowledge_base_empty=False, settings=ws.settings)
    plan.sub_queries = ["revenue of Globex", "revenue of Initech"]
    evidence = retriever_agent.retrieve(plan, ws.retriever, 4, ws.settings, router=DocumentRouter(ws.kb, ws.settings))
    routed = [filenames(ws, s.routing["doc_ids"]) for s in evidence.searches]
    assert routed == [["globex_2023_report.txt"], ["quarterly_filing_7.txt"]]
    assert {c.filename for c in evidence.chunks} == {"globex_2023_report.txt", "quarterly_filing_7.txt"}


def test_a_weak_filtered_search_falls_back_to_every_document(ws):
    settings = ws.settings.replace(router_weak_similarity=0.99)  # nothing is that close: every routed search is weak
    plan = plan_question("What was Globex revenue?", knowledge_base_empty=False, settings=settings)
    evidence = retriever_agent.retrieve(plan, ws.retriever, 5, settings, router=DocumentRouter(ws.kb, settings))
    assert evidence.searches[0].fell_back
    assert len({c.filename for c in evidence.chunks}) > 1
    assert is_weak([], Settings())  # no hits at all is weak too


def test_a_filter_the_user_chose_is_never_replaced(ws):
    plan = plan_question("What was Globex revenue?", knowledge_base_empty=False, settings=ws.settings)
    plan.doc_ids = ws.kb.resolve_documents(["warranty_guide.txt"])
    evidence = retriever_agent.retrieve(plan, ws.retriever, 3, ws.settings, router=DocumentRouter(ws.kb, ws.settings))
    assert {c.filename for c in evidence.chunks} == {"warranty_guide.txt"} and evidence.searches[0].routing is None


def test_a_list_all_question_is_retrieved_broadly_with_a_search_for_contents_and_lists(ws):
    from core.llm.scripted import ScriptedLLM

    ws.llm = ws.pipeline.llm = ScriptedLLM()  # extractive: quotes [Source 1], so the answer is grounded
    response = ws.ask("List all companies that report revenue")
    retrieval = [e for e in ws.kb.catalog.turn(response.trace_id)["trace"]["events"] if e["kind"] == "retrieval"][0]
    assert retrieval["inputs"]["top_k"] == ws.settings.enumeration_top_k
    assert [s["query"] for s in retrieval["outputs"]["searches"]] == [
        "List all companies that report revenue", "table of contents companies that report revenue complete list"]
    assert len(ws.llm.calls) == 1  # the extra search is not a part the answer must address
