"""Complex questions (seed 003): classification and decomposition by rules (the model only when
the rules are unsure), concurrent retrieval per sub-query with global dedup, one synthesis,
self-reflection, and every fallback of the seed's error-handling list."""
import threading

import pytest

from core.agents import decompose as d
from core.agents.decompose import COMPARATIVE, MULTI_STEP, SIMPLE, TEMPORAL, SubQueryResult
from core.config import Settings
from core.llm import LLMTimeout
from core.llm.scripted import ScriptedLLM, scripted_json
from core.retrieval import RetrievalResult, RetrievedChunk

S = Settings()


def rules(question):
    return d.decompose(question, S)


# --- classification and decomposition by rules (no model) ----------------------------------------

@pytest.mark.parametrize("question, kind, sub_queries", [
    # seed 003's examples
    ("Compare first-line treatments for hypertension vs diabetes", COMPARATIVE,
     ["first-line treatments for hypertension", "first-line treatments for diabetes"]),
    ("What changed in diabetes guidelines from 2020 to 2023?", TEMPORAL,
     ["diabetes guidelines 2020", "diabetes guidelines 2023"]),
    # comparisons: the shared part of the question goes with each thing compared
    ("Compare the gross margin of Apple and Microsoft in 2023", COMPARATIVE,
     ["the gross margin of Apple in 2023", "the gross margin of Microsoft in 2023"]),
    ("Compare the warranty of HX-400 versus HX-550", COMPARATIVE, ["the warranty of HX-400", "the warranty of HX-550"]),
    ("Compare Apple with Microsoft on margins", COMPARATIVE, ["Apple on margins", "Microsoft on margins"]),
    ("How does Apple's gross margin differ from Microsoft's?", COMPARATIVE,
     ["Apple's gross margin", "Microsoft's gross margin"]),
    ("Which had higher revenue in 2023, Apple or Amazon?", COMPARATIVE,
     ["revenue in 2023, Apple", "revenue in 2023, Amazon"]),
    ("Compare revenue and net income of Apple", COMPARATIVE, ["revenue of Apple", "net income of Apple"]),
    ("In the latest 10-Q, how does the revenue from new products compare with the marketing expenses?", COMPARATIVE,
     ["In the latest 10-Q, the revenue from new products", "In the latest 10-Q, the marketing expenses"]),
    # change over time
    ("How did revenue change since 2021?", TEMPORAL, ["revenue 2021", "revenue"]),
    ("What was the revenue in 2022 and 2023?", TEMPORAL, ["revenue 2022", "revenue 2023"]),
    ("How does Boeing's effective tax rate in FY2022 compare to FY2021?", COMPARATIVE,
     ["Boeing's effective tax rate in FY2022", "Boeing's effective tax rate in FY2021"]),
    ("How much was the change in Sales for AMCOR in FY 2023 vs FY 2022, if we exclude FX, costs and one-offs?",
     COMPARATIVE, ["How much was the change in Sales for AMCOR in FY 2023, if we exclude FX, costs and one-offs",
                   "How much was the change in Sales for AMCOR in FY 2022, if we exclude FX, costs and one-offs"]),
    # the question proper, not the instructions after it, is what each period searches
    ("What is Amazon's year-over-year change in revenue from FY2016 to FY2017 (in percent)? Round to one decimal.",
     TEMPORAL, ["Amazon's revenue FY2016", "Amazon's revenue FY2017"]),
    ("Was there any change in the number of stores between Q2 of FY2024 and FY2023?", TEMPORAL,
     ["number stores Q2 of FY2024", "number stores FY2023"]),
    # several questions in one; "it" carries the subject along
    ("What is EBITDA, and how is it calculated?", MULTI_STEP, ["What is EBITDA", "how is it calculated (EBITDA)"]),
    # simple, for sure: no model call
    ("What is machine learning?", SIMPLE, ["What is machine learning?"]),
    ("Does Adobe have an improving operating margin? If margin is not useful, then state that and explain why.", SIMPLE,
     ["Does Adobe have an improving operating margin? If margin is not useful, then state that and explain why."]),
    ("How do I install the panel?", SIMPLE, ["How do I install the panel?"]),
    ("What were Johnson and Johnson's sales in 2022?", SIMPLE, ["What were Johnson and Johnson's sales in 2022?"]),
    ("What is the relationship between revenue and research and development?", SIMPLE,
     ["What is the relationship between revenue and research and development?"]),
])
def test_rules_classify_and_split_the_common_shapes(question, kind, sub_queries):
    result = rules(question)
    assert (result.kind, result.sub_queries, result.source) == (kind, sub_queries, "rules")


def test_a_change_compared_with_earlier_periods_is_temporal_and_one_search():
    result = rules("How does Apple's R&D spending in the latest quarter compare to previous quarters?")
    assert result.kind == TEMPORAL and result.sub_queries == [
        "How does Apple's R&D spending in the latest quarter compare to previous quarters?"]


def test_never_more_than_max_sub_queries():
    result = rules("Compare revenue of Apple, Amazon, Intel, Nvidia and Microsoft")
    assert len(result.sub_queries) == S.max_sub_queries == 4


def test_the_common_path_makes_no_model_call():
    llm = ScriptedLLM([])
    for question in ("What is machine learning?", "Compare Apple and Amazon on revenue", "List all risk factors"):
        d.decompose(question, S, llm)
    assert llm.calls == []


# --- the model, only when the rules are unsure ----------------------------------------------------

UNSURE = "Step-by-step protocol for acute MI management"  # a procedure whose steps are not in the question


def test_when_unsure_one_schema_constrained_call_classifies_and_splits():
    llm = ScriptedLLM([scripted_json({"type": "MULTI_STEP", "sub_queries": [
        "acute MI initial assessment and diagnosis", "acute MI immediate interventions",
        "acute MI post-intervention monitoring"]})])
    result = d.decompose(UNSURE, S, llm)
    assert (result.kind, result.source, len(result.sub_queries)) == (MULTI_STEP, "llm", 3)
    assert len(llm.calls) == 1 and "3 queries, one per step" in llm.calls[0][0]["content"]


def test_a_numbered_list_from_the_model_is_parsed():
    llm = ScriptedLLM([scripted_json({"type": "COMPARATIVE", "sub_queries": "1. Treatment A\n2) Treatment B"})])
    assert d.decompose(UNSURE, S, llm).sub_queries == ["Treatment A", "Treatment B"]
    assert d.parse_sub_queries("Sub-queries:\n1. a b\n- c d\n• e f\nnot a list item", 4) == ["a b", "c d", "e f"]


def test_classification_failure_defaults_to_simple():
    for llm in (ScriptedLLM(fail_with=LLMTimeout("no reply")), ScriptedLLM(["not json"]),
                ScriptedLLM([scripted_json({"type": "OTHER", "sub_queries": ["x", "y"]})])):
        result = d.decompose(UNSURE, S, llm)
        assert (result.kind, result.sub_queries, result.source) == (SIMPLE, [UNSURE], "fallback") and result.error


def test_decomposition_failure_falls_back_to_the_single_question():
    llm = ScriptedLLM([scripted_json({"type": "MULTI_STEP", "sub_queries": ["only one"]})])
    result = d.decompose(UNSURE, S, llm)
    assert (result.kind, result.sub_queries, result.source) == (MULTI_STEP, [UNSURE], "fallback")


def test_a_rule_that_breaks_defaults_to_simple(monkeypatch):
    monkeypatch.setattr(d, "classify_by_rules", lambda q: 1 / 0)
    result = d.decompose("Compare Apple and Amazon", S)
    assert (result.kind, result.sub_queries, result.source) == (SIMPLE, ["Compare Apple and Amazon"], "fallback")


def test_switches_keep_the_model_out_or_decomposition_off():
    llm = ScriptedLLM([])
    assert d.decompose(UNSURE, S.replace(decomposition_llm=False), llm).sub_queries == [UNSURE]
    assert d.decompose("Compare Apple and Amazon", S.replace(query_decomposition=False), llm).kind == SIMPLE
    assert llm.calls == []


# --- retrieval per sub-query: concurrent, deduplicated, every part represented --------------------

def chunk(chunk_id, score):
    return RetrievedChunk(chunk_id, "doc", "f.txt", 0, chunk_id, "1", None, None, score=score, vector_score=score)


def result(query, *chunks):
    return SubQueryResult(query, RetrievalResult(query, list(chunks), list(chunks), 0.7))


def test_sub_queries_are_searched_concurrently():
    both_running = threading.Barrier(2, timeout=5)  # fails unless the two searches overlap

    def search(query):
        both_running.wait()
        return result(query, chunk(query, 0.5))

    results = d.search_all(["a", "b"], search)
    assert [(r.query, r.error) for r in results] == [("a", None), ("b", None)]


def test_a_failing_sub_query_does_not_stop_the_others():
    def search(query):
        if query == "bad":
            raise RuntimeError("index unavailable")
        return result(query, chunk(query, 0.5))

    results = d.search_all(["good", "bad"], search)
    assert results[0].result is not None and results[1].error == "RuntimeError: index unavailable"
    chunks, stats = d.merge(results, 5)
    assert [c.chunk_id for c in chunks] == ["good"]


def test_global_dedup_keeps_the_best_score_and_every_part_gets_evidence():
    first = result("apple", chunk("a1", 0.9), chunk("shared", 0.2), chunk("a2", 0.8), chunk("a3", 0.7))
    second = result("amazon", chunk("shared", 0.6), chunk("b1", 0.1))
    chunks, stats = d.merge([first, second], 4)
    assert [c.chunk_id for c in chunks] == ["a1", "shared", "b1", "a2"]  # in turn, not by raw score
    assert next(c for c in chunks if c.chunk_id == "shared").score == 0.6
    assert stats == {"before_dedup": 6, "after_dedup": 5, "selected": 4}


def test_one_synthesis_question_names_every_part():
    assert d.synthesis_question("Compare A and B", ["A revenue", "B revenue"]) == (
        "Compare A and B\nAddress each part:\n1. A revenue\n2. B revenue")
    assert d.synthesis_question("What is A?", ["What is A?"]) == "What is A?"


# --- self-reflection ------------------------------------------------------------------------------

def reflect(answer, sub_queries=("Apple revenue", "Amazon revenue"), llm=None, settings=S, **kw):
    options = dict(is_valid=True, is_no_information=False, unsupported=[])
    options.update(kw)
    return d.reflect("Compare Apple and Amazon revenue", list(sub_queries), answer, settings=settings, llm=llm, **options)


def test_an_answer_that_addresses_every_part_is_sufficient():
    assert reflect("Apple earned 5 [Source 1]; Amazon earned 7 [Source 2].").sufficient


def test_a_part_the_answer_never_mentions_is_searched_again():
    r = reflect("Apple earned 5 [Source 1].")
    assert not r.sufficient and r.queries[0] == "Amazon revenue" and "Amazon revenue" in r.reason


def test_unsupported_claims_ask_for_a_search_for_them():
    r = reflect("Apple earned 5 and Amazon 9.", unsupported=["9"])
    assert not r.sufficient and r.queries == ["Compare Apple and Amazon revenue", "9"]


def test_failures_and_no_information_answers_are_not_refined():
    assert reflect("", is_valid=False).sufficient
    assert reflect("The provided documents do not contain information about this.", is_no_information=True).sufficient


def test_the_model_reflects_only_when_switched_on_and_its_failure_means_sufficient():
    answer = "Apple earned 5; Amazon earned 7."
    quiet = ScriptedLLM([])
    assert reflect(answer, llm=quiet).sufficient and quiet.calls == []
    on = S.replace(reflection_llm=True)
    asked = reflect(answer, llm=ScriptedLLM([scripted_json({"sufficient": False, "refined_query": "Amazon net sales"})]),
                    settings=on)
    assert (asked.sufficient, asked.source, asked.queries[-1]) == (False, "llm", "Amazon net sales")
    failed = reflect(answer, llm=ScriptedLLM(fail_with=LLMTimeout("no reply")), settings=on)
    assert failed.sufficient and failed.source == "fallback"


def test_a_refined_answer_replaces_the_first_only_when_better():
    assert d.improves((1, 0), (0, 0), True, "rules")
    assert d.improves((0, 1), (0, 0), True, "rules")
    assert not d.improves((0, 1), (0, 1), True, "rules")  # no better: the first answer stands
    assert d.improves((0, 0), (0, 0), True, "llm")  # the model judged the first insufficient
    assert not d.improves((2, 2), (0, 0), False, "rules")  # an invalid answer never wins


# --- in the pipeline ------------------------------------------------------------------------------

REPORTS = {
    "acme_report.txt": "ACME Corporation annual report.\nACME revenue grew because solar panel sales doubled.",
    "globex_report.txt": "Globex Inc. annual report.\nGlobex revenue fell because wind turbine orders were delayed.",
    "initech_report.txt": "Initech LLC annual report.\nInitech revenue was flat as software licences held steady.",
    "umbrella_report.txt": "Umbrella Corp annual report.\nUmbrella revenue rose with new pharmacy contracts.",
}


def citing_all(*answers):
    """A scripted model that gives `answers` in turn, each citing every source in its prompt."""
    replies = iter(answers)

    def reply(messages):
        prompt = messages[-1]["content"]
        sources = "".join(f"[Source {n}]" for n in range(1, prompt.count("[Source ") + 1))
        return f"{next(replies)} {sources}"
    return reply


@pytest.fixture
def reports(make_workspace, write_text):
    def build(script, **settings):
        ws = make_workspace(**settings)
        ws.llm = ws.pipeline.llm = ScriptedLLM(script)
        ws.ingestor.ingest_paths([write_text(name, text) for name, text in REPORTS.items()])
        return ws
    return build


def events(ws, response, kind):
    return [e for e in ws.kb.catalog.turn(response.trace_id)["trace"]["events"] if e["kind"] == kind]


def test_a_comparison_is_decomposed_searched_per_part_and_answered_in_one_call(reports):
    ws = reports(citing_all("ACME revenue grew while Globex revenue fell."))
    response = ws.ask("Compare the revenue of ACME and Globex")

    plan = events(ws, response, "plan")[0]["outputs"]
    assert plan["classification"] == COMPARATIVE
    assert plan["sub_queries"] == ["the revenue of ACME", "the revenue of Globex"]
    assert plan["decomposition"]["source"] == "rules"
    searches = events(ws, response, "retrieval")[0]["outputs"]["searches"]
    routed = [[c["filename"] for c in s["routing"]["chosen"]] for s in searches]
    assert routed == [["acme_report.txt"], ["globex_report.txt"]]
    assert {c.filename for c in response.citations} == {"acme_report.txt", "globex_report.txt"}
    assert len(ws.llm.calls) == 1  # one synthesis over both parts, no planning call
    assert "Address each part:\n1. the revenue of ACME\n2. the revenue of Globex" in ws.llm.calls[0][0]["content"]
    assert [e["kind"] for e in ws.kb.catalog.turn(response.trace_id)["trace"]["events"]] == [
        "plan", "retrieval", "llm_call", "validation", "final"]


def test_an_answer_missing_a_part_is_refined_once_and_the_better_answer_kept(reports):
    ws = reports(citing_all("ACME revenue grew strongly this year.",
                            "ACME revenue grew while Globex revenue fell."))
    response = ws.ask("Compare the revenue of ACME and Globex")
    assert len(ws.llm.calls) == 2
    assert response.answer.startswith("ACME revenue grew while Globex revenue fell.")
    reflection = events(ws, response, "reflection")[0]
    assert "does not address: the revenue of Globex" in reflection["summary"]
    assert reflection["outputs"]["queries"][0] == "the revenue of Globex"


def test_a_change_over_time_is_not_refined_for_periods_the_answer_leaves_unnamed(reports):
    ws = reports(citing_all("ACME revenue grew because solar panel sales doubled."))
    response = ws.ask("How did the revenue of ACME change from 2022 to 2023?")
    assert events(ws, response, "plan")[0]["outputs"]["classification"] == TEMPORAL
    assert len(ws.llm.calls) == 1 and events(ws, response, "reflection") == []


def test_reflection_stops_at_max_iterations_with_the_best_answer_so_far(reports):
    ws = reports(citing_all("ACME revenue grew strongly this year.",
                            "ACME revenue grew, Globex revenue fell this year.",
                            "ACME, Globex and Initech revenue: grew, fell, flat."),
                 max_reflection_iterations=2)
    response = ws.ask("Compare the revenue of ACME, Globex and Initech")
    assert len(ws.llm.calls) == 2  # the cap, though Initech is still missing
    assert response.answer.startswith("ACME revenue grew, Globex revenue fell this year.")


def test_an_unsure_question_costs_one_planning_call_and_a_failed_one_is_simple(reports):
    ws = reports([scripted_json({"type": "MULTI_STEP", "sub_queries": ["ACME revenue", "Globex revenue"]}),
                  "ACME revenue grew and Globex revenue fell [Source 1] [Source 2]."])
    response = ws.ask("Step-by-step procedure for reading the annual reports")
    plan = events(ws, response, "plan")[0]["outputs"]
    assert (plan["classification"], plan["decomposition"]["source"]) == (MULTI_STEP, "llm")
    assert len(ws.llm.calls) == 2

    ws = reports(["not json", "The reports describe revenue [Source 1]."])
    response = ws.ask("Step-by-step procedure for reading the annual reports")
    plan = events(ws, response, "plan")[0]["outputs"]
    assert (plan["classification"], plan["decomposition"]["source"]) == (SIMPLE, "fallback")
    assert response.answer.startswith("The reports describe revenue")


def test_a_sub_query_whose_search_fails_is_reported_and_the_answer_uses_the_others(reports, monkeypatch):
    answer = "ACME revenue grew because solar panel sales doubled."
    ws = reports(citing_all(answer, answer))  # the second: reflection searches for the missing part again
    search = ws.retriever.search

    def flaky(query, **options):
        if "Globex" in query:
            raise RuntimeError("index unavailable")
        return search(query, **options)

    monkeypatch.setattr(ws.retriever, "search", flaky)
    response = ws.ask("Compare the revenue of ACME and Globex")
    searches = {s["query"]: s for s in events(ws, response, "retrieval")[0]["outputs"]["searches"]}
    assert searches["the revenue of Globex"]["error"] == "RuntimeError: index unavailable"
    assert searches["the revenue of Globex"]["candidates"] == []
    assert {c.filename for c in response.citations} == {"acme_report.txt"}
    assert response.answer.startswith(answer)
