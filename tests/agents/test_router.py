"""Document routing (seed 002): a question that names a document's owner is searched in that
document only; the router falls back to every document when unsure, wrong or weak."""
from dataclasses import replace
from datetime import date

import pytest

from core.agents import retriever as retriever_agent
from core.agents.planner import plan_question
from core.agents.router import AskedPeriod, DocumentRouter, asked_period, is_weak, periods_in
from core.config import Settings
from core.profiles.sec_filing import SEC_FILING
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
    plan = replace(plan, sub_queries=["revenue of Globex", "revenue of Initech"])
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
    plan = replace(plan, doc_ids=ws.kb.resolve_documents(["warranty_guide.txt"]))
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


def cover(form: str, period: str, company: str = "Northwind Traders, Inc.") -> str:
    """A filing's first page, the way SEC covers set it; the file names below carry no period."""
    return (f"UNITED STATES\nSECURITIES AND EXCHANGE COMMISSION\nFORM {form}\n"
            f"For the {period}\n{company}\n(Exact name of registrant as specified in its charter)\n")


FILINGS = {
    "northwind_a.txt": cover("10-Q", "quarterly period ended July 1, 2023") + "Net sales were 30 million dollars.",
    "northwind_b.txt": cover("10-Q", "quarterly period ended April 1, 2023") + "Net sales were 20 million dollars.",
    "northwind_c.txt": cover("10-Q", "quarterly period ended December 31, 2022") + "Net sales were 10 million dollars.",
    "northwind_d.txt": cover("10-K", "fiscal year ended September 30, 2022") + "Net sales were 90 million dollars.",
    "fabrikam.txt": cover("10-Q", "quarterly period ended September 30, 2023", "Fabrikam Corporation")
    + "Revenue was 7 million dollars.",
}


def _routed_workspace(folder, files: dict[str, str], embedder, **settings):
    """The files written to `folder` and ingested: a router over them, and the workspace to close."""
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    workspace = Workspace(Settings(data_dir=folder / "data", **settings), embedder)
    workspace.ingestor.ingest_paths([folder / name for name in files])
    return DocumentRouter(workspace.kb, workspace.settings), workspace


@pytest.fixture(scope="module")
def filings(tmp_path_factory, embedder):
    router, workspace = _routed_workspace(tmp_path_factory.mktemp("filings"), FILINGS, embedder)
    yield router, workspace
    workspace.close()


def test_the_latest_filing_is_the_named_company_s_latest_period_end_on_its_cover(filings):
    router, ws = filings
    routing = router.route("What were Northwind's net sales in the most recent 10-Q?")
    assert filenames(ws, routing.doc_ids) == ["northwind_a.txt"]
    assert "latest period (2023-07-01)" in routing.chosen[0].why
    # Fabrikam's filing ends later, but the question is about Northwind.
    assert filenames(ws, router.route("Northwind's latest quarter: what were net sales?").doc_ids) == ["northwind_a.txt"]


def test_a_question_about_earlier_periods_too_keeps_every_filing_of_the_form(filings):
    router, ws = filings
    routing = router.route("How do Northwind's net sales in the latest 10-Q compare to previous quarters?")
    assert filenames(ws, routing.doc_ids) == ["northwind_a.txt", "northwind_b.txt", "northwind_c.txt"]
    # "these 10-Qs": the quarterly reports, not the annual one.
    assert len(router.route("How did Northwind's net sales change across these 10-Qs?").doc_ids) == 3
    assert len(router.route("How did Northwind's net sales change?").doc_ids) == 4


def test_a_stated_period_end_picks_the_filing_whose_cover_ends_then(filings):
    router, ws = filings
    # A 52/53-week quarter ends on a weekday near the month's end: "July 1, 2023" is June's quarter.
    assert filenames(ws, router.route("Northwind net sales for the quarter ended June 2023?").doc_ids) == ["northwind_a.txt"]
    assert filenames(ws, router.route("Northwind net sales as of December 31, 2022?").doc_ids) == ["northwind_c.txt"]
    assert filenames(ws, router.route("Northwind net sales for the period ending March 2023").doc_ids) == ["northwind_b.txt"]
    # A month is a period, not a name: "April" on a cover does not make the question name that filing.
    assert "april" not in router.route("Northwind net sales for the period ending March 2023").reason


def test_the_registrant_s_name_stays_a_name_however_many_filings_it_has(filings):
    _, ws = filings
    # Four Northwind filings, two allowed per name: "northwind" would name none of them, but it
    # is the registrant on their covers, and the period then narrows them.
    router = DocumentRouter(ws.kb, ws.settings.replace(router_max_docs=2))
    assert filenames(ws, router.route("What were Northwind's net sales in the most recent 10-Q?").doc_ids) == [
        "northwind_a.txt"]
    assert router.route("How did Northwind's net sales change over time?").reason.startswith("unsure")


def test_asked_period_reads_only_what_it_parses_completely():
    assert asked_period("What was revenue in the quarter ended March 31, 2023?").ends == [date(2023, 3, 31)]
    assert asked_period("cash as of Sept. 30, 2022").ends == [date(2022, 9, 30)]
    assert asked_period("What was the gross margin in the latest 10-Q?", (SEC_FILING,)) == AskedPeriod([], True, "10-Q")
    assert not asked_period("How has R&D in the most recent quarter changed versus prior quarters?").latest
    assert not asked_period("What was the latest news?").latest  # not a period
    assert periods_in("the third quarter of fiscal 2023") == {"q3", "2023"}


SUPPLIER_INVOICE = ("INVOICE\nAmazon Web Services, Inc.\n410 Terry Ave North, Seattle, WA\nAWS Account Number 1234\n"
                    "Bill to: Contoso Ltd.\nTotal due: 120.00 USD\n")


@pytest.fixture(scope="module")
def supplier(tmp_path_factory, embedder):
    """Two quarterly filings of a registrant, and an invoice from a company whose longer name
    contains the registrant's ("Northwind Cloud Services", "NCS") and says it several ways; the
    invoice's file name does not name anyone."""
    folder = tmp_path_factory.mktemp("supplier")
    files = {
        "northwind_q2.txt": FILINGS["northwind_a.txt"],
        "northwind_q1.txt": FILINGS["northwind_b.txt"],
        "invoice_0042.txt": SUPPLIER_INVOICE.replace("Amazon Web Services", "Northwind Cloud Services").replace("AWS", "NCS"),
        "fabrikam.txt": FILINGS["fabrikam.txt"],
    }
    router, workspace = _routed_workspace(folder, files, embedder, router_top_k_docs=2)
    yield router, workspace
    workspace.close()


def test_a_longer_name_written_several_ways_does_not_outvote_the_registrant(supplier):
    router, ws = supplier
    # "NCS (Northwind Cloud Services)" is one name of the invoice, not three; "Northwind's" names
    # the registrant, whose filings are about it; the invoice only carries the names on its page.
    routing = router.route("How did Northwind's NCS (Northwind Cloud Services) revenue change over the quarters?")
    assert filenames(ws, routing.doc_ids) == ["northwind_q1.txt", "northwind_q2.txt"]
    # A named form keeps that form's documents before names are counted.
    assert filenames(ws, router.route("How did NCS revenue change in Northwind's 10-Q for the quarter ended June 2023?")
                     .doc_ids) == ["northwind_q2.txt"]


def test_a_word_written_only_inside_a_longer_name_is_that_name(supplier):
    router, ws = supplier
    # "Northwind" here is only part of "Northwind Cloud Services": the invoice, not the filings.
    assert filenames(ws, router.route("How much did we pay Northwind Cloud Services?").doc_ids) == ["invoice_0042.txt"]
    assert filenames(ws, router.route("What is the total of the NCS invoice?").doc_ids) == ["invoice_0042.txt"]
    # "Northwind's ... NCS": as many names each (the invoice's NCS is one of its longer name);
    # the filings are the registrant's, the invoice only carries the names.
    assert filenames(ws, router.route("What was Northwind's revenue from NCS services last quarter?").doc_ids) == [
        "northwind_q1.txt", "northwind_q2.txt"]
