"""Scoring rules, as specifications: each test states one rule of how an answer is judged."""
from __future__ import annotations

import pytest

from core.evaluate.scoring import (SourceRef, answer_matches, calibration, expects_refusal, file_matches, judge,
                                   normalize_text, numbers_in, page_matches, rate, source_hit)

TOLERANCE, RECALL = 0.01, 0.8


def matches(expected: str, answer: str, tolerance: float = TOLERANCE) -> bool:
    return answer_matches(expected, answer, tolerance, RECALL)


# --- answer match -----------------------------------------------------------------------------

def test_text_matches_when_the_expected_answer_occurs_ignoring_case_accents_and_punctuation():
    assert matches("Porto, Portugal", "The modules are assembled in PORTO (Portugal) [Source 1].")
    assert matches("Café Müller", "It was bought at cafe muller.")
    assert not matches("Porto", "They are assembled in Portoroz.")  # whole words only


def test_numbers_match_within_the_relative_tolerance_whatever_surrounds_them():
    assert matches("279.84", "The total paid was £279.84 [Source 2].")
    assert matches("279.84", "about 280", tolerance=0.01)
    assert not matches("279.84", "about 290", tolerance=0.01)
    assert not matches("279.84", "279.80", tolerance=0.0)


def test_every_expected_number_must_be_in_the_answer():
    assert matches("1722 x 1134 x 30 mm", "It measures 1,722 by 1,134 by 30 millimetres.")
    assert not matches("1722 x 1134 x 30 mm", "It is 1722 mm long and 1134 mm wide.")


def test_numbers_are_read_as_people_write_them():
    assert numbers_in("1,234.56 and 1.234,56 and 12,5 and -3 and 0.55 %") == [1234.56, 1234.56, 12.5, -3.0, 0.55]
    assert numbers_in("on 2024-01-18") == [2024.0, 1.0, 18.0]  # not minus one


def test_a_citation_number_is_not_a_number_in_the_answer():
    assert numbers_in("The warranty is long [Source 12].") == []
    assert numbers_in("The warranty is long [3].") == []  # agent mode cites [N]
    assert not matches("12", "The warranty is long [Source 12].")


def test_text_without_numbers_matches_on_most_of_its_words():
    expected = "installed by a certified installer or a licensed electrician"
    assert matches(expected, "It must be installed by a licensed electrician or a certified installer.")
    assert not matches(expected, "It must be installed by an installer.")


def test_an_empty_expected_answer_never_matches():
    assert not matches("", "anything")


def test_normalized_text_keeps_decimal_numbers_whole():
    assert normalize_text("Weight: 24.2 kg [Source 1]!") == "weight 24.2 kg"


# --- refusals ---------------------------------------------------------------------------------

@pytest.mark.parametrize("expected", ["not in documents", "Not in the documents.", "NOT IN DOCUMENTS", "n/a"])
def test_these_expected_answers_mean_the_right_answer_is_a_refusal(expected):
    assert expects_refusal(expected)


def test_an_ordinary_expected_answer_is_not_a_refusal():
    assert not expects_refusal("not at night")
    assert not expects_refusal("25 years")


def test_a_refusal_is_right_only_when_one_is_expected():
    refusal = "The provided documents do not contain information about this."
    refused = judge("not in documents", None, (), refusal, [], [], TOLERANCE, RECALL)
    assert (refused.correct, refused.refused, refused.retrieval_hit, refused.citation_correct) == (True, True, None, None)
    answered = judge("not in documents", None, (), "The CEO is Jane Doe [Source 1].", [], [], TOLERANCE, RECALL)
    assert not answered.correct
    wrongly_refused = judge("25 years", None, (), refusal, [], [], TOLERANCE, RECALL)
    assert wrongly_refused.refused and not wrongly_refused.correct


# --- retrieval hit and citations --------------------------------------------------------------

def test_file_names_match_case_insensitively_with_or_without_extension_or_folder():
    assert file_matches("handbook.pdf", "Handbook.PDF")
    assert file_matches("Handbook", "handbook.pdf")
    assert file_matches("docs/handbook.pdf", "handbook.pdf")
    assert not file_matches("handbook.pdf", "handbook_v2.pdf")


def test_pages_match_a_single_page_or_a_range_and_any_page_when_none_is_expected():
    assert page_matches((4,), "4") and page_matches((4,), "3-5")
    assert not page_matches((4,), "5") and not page_matches((4,), None)
    assert page_matches((), None)


def test_a_source_hit_needs_the_file_and_one_of_the_pages():
    sources = [SourceRef("specs.pdf", "1"), SourceRef("handbook.pdf", "3-4")]
    assert source_hit("handbook.pdf", (4,), sources) is True
    assert source_hit("handbook.pdf", (6,), sources) is False
    assert source_hit("orders.csv", (), [SourceRef("orders.csv", None)]) is True
    assert source_hit(None, (4,), sources) is None  # nothing expected: the check does not apply


def test_retrieval_counts_every_source_given_to_the_model_and_citation_only_the_cited_ones():
    retrieved = [SourceRef("specs.pdf", "1"), SourceRef("handbook.pdf", "4")]
    cited = [SourceRef("specs.pdf", "1")]
    verdict = judge("25 years", "handbook.pdf", (4,), "25 years [Source 1]", retrieved, cited, TOLERANCE, RECALL)
    assert (verdict.correct, verdict.retrieval_hit, verdict.citation_correct) == (True, True, False)


# --- totals and calibration -------------------------------------------------------------------

def test_rates_leave_out_the_questions_a_check_does_not_apply_to():
    assert rate([True, False, None, True]) == pytest.approx(2 / 3)
    assert rate([None, None]) is None


def test_calibration_is_accuracy_per_confidence_level_high_to_low():
    rows = calibration([("high", True), ("high", True), ("high", False), ("medium", True), ("low", False)])
    assert [(r.confidence, r.questions, r.correct) for r in rows] == [("high", 3, 2), ("medium", 1, 1), ("low", 1, 0)]
    assert rows[0].accuracy == pytest.approx(2 / 3)
    assert calibration([])[0].accuracy is None  # no question at that level: no accuracy, not 0 %
