"""How many passages the answer reads: one per filing the question names, when it names several."""
from __future__ import annotations

from core.agents.planner import Plan
from core.agents.retriever import passages_to_read
from core.agents.router import Routing
from core.config import Settings

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
