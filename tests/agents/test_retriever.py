"""Which passages the answer reads: one per filing the question names, when it names several; a summary of a
meeting or a month, the passages under that date's heading."""
from __future__ import annotations

from core.agents.planner import Plan
from core.agents.retriever import of_the_period_asked, passages_to_read, without_rows_read
from core.agents.router import Routing
from core.config import Settings
from core.retrieval import RetrievedChunk

SETTINGS = Settings(reader_max_sources=3, reader_max_named_filings=4)


def read(routing: Routing | None, settings: Settings = SETTINGS, doc_ids: list[str] | None = None) -> int | None:
    plan = Plan("What was Apple's net income in each of these quarters?", True, doc_ids=doc_ids)
    return passages_to_read(plan, routing, settings)


def test_four_named_filings_are_read_one_passage_each():
    assert read(Routing(["q1", "q2", "q3", "q4"], "named", "name")) == 4


def test_one_named_filing_or_filings_chosen_by_summary_keep_the_reader_s_own_number():
    assert read(Routing(["q1"], "named", "name")) == 3
    assert read(Routing(["q1", "q2", "q3", "q4"], "by summary", "summary")) == 3
    assert read(None) == 3


def test_the_number_of_named_filings_read_is_capped_and_the_user_s_own_choice_is_not_widened():
    many = Routing([f"q{n}" for n in range(9)], "named", "name")
    assert read(many) == 4
    assert read(many, doc_ids=["q1", "q2", "q3", "q4", "q5"]) == 3


def test_reading_every_passage_stays_every_passage():
    assert read(Routing(["q1", "q2"], "named", "name"), Settings(reader_max_sources=0)) is None


def passage(n: int, heading: str, text: str = "1. Points agreed.") -> RetrievedChunk:
    return RetrievedChunk(f"c{n}", "d", "choir_minutes.pdf", n, text, str(n), None, None, 0.1,
                          context=f"Riverside Choir — {heading}" if heading else "")


def test_a_summary_of_a_dated_meeting_reads_the_passages_under_that_dates_heading():
    october, june, rules = (passage(1, "Committee Meeting of 5 October 2022"), passage(2, "Committee Meeting of 8 June 2022"),
                            passage(3, "Membership Rules"))
    kept, set_aside = of_the_period_asked("Sum up the June committee meeting", [october, june, rules])
    assert kept == [june, rules] and set_aside == [october]
    kept, set_aside = of_the_period_asked("Summarise the 2022 committee meetings", [october, june, rules])
    assert kept == [october, june, rules] and set_aside == []


def test_a_meetings_heading_inside_the_passage_dates_it_too():
    """A page whose first line is the organisation's name has that name as its heading in force; the meeting's
    title comes a line later."""
    june = passage(1, "Riverside Choir", "Riverside Choir\nCommittee Meeting of 8 June 2022\n1. Points agreed.")
    october = passage(2, "Committee Meeting of 5 October 2022")
    assert of_the_period_asked("Sum up the June committee meeting", [october, june]) == ([june], [october])


def test_passages_are_kept_when_no_heading_names_the_date_asked_or_no_date_is_asked():
    june, october = passage(1, "Committee Meeting of 8 June 2022"), passage(2, "Committee Meeting of 5 October 2022")
    assert of_the_period_asked("Sum up the April committee meeting", [june, october]) == ([june, october], [])
    assert of_the_period_asked("Sum up the committee meetings", [june, october]) == ([june, october], [])


def test_the_rows_of_a_sheet_a_plan_already_read_are_not_read_again_as_text():
    from types import SimpleNamespace

    def chunk(name, doc, rows=None):
        return RetrievedChunk(name, doc, "f", 0, "text", None, None, rows, 1.0, bm25_rank=1)
    sheet_rows, report, other_rows = chunk("r", "log", rows="3-4"), chunk("p", "report"), chunk("o", "register", rows="1")

    def read(sql, whole=True):
        return SimpleNamespace(planned=SimpleNamespace(sql=sql, table=SimpleNamespace(doc_id="log", is_whole_document=whole)))
    found = [sheet_rows, report, other_rows]
    assert without_rows_read(found, read("SELECT AVG(cost) FROM log")) == [report, other_rows]
    assert without_rows_read(found, read("")) == found  # no plan ran: a row may still say it
    assert without_rows_read(found, read("SELECT 1", whole=False)) == found  # a report's table: its page's text may
