"""Passage-level re-ranking: a chunk is judged by its best few lines, not by its average."""
from __future__ import annotations

import numpy as np

from core.retrieval.evidence import (
    combine, ends_inside_a_sentence, lexical_share, rest_of_sentence, score_windows, windows,
)

ROWS = "\n".join(f"Row {i} | 2023: {i}00 | 2022: {i}50" for i in range(1, 8))


def test_windows_are_runs_of_consecutive_lines_covering_the_text():
    found = windows(ROWS, 3)
    assert [len(w.text.splitlines()) for w in found] == [3, 3, 1]
    assert found[0].text.splitlines()[0] == "Row 1 | 2023: 100 | 2022: 150"
    assert found[-1].text == "Row 7 | 2023: 700 | 2022: 750"
    assert all(ROWS[w.start:w.end] == w.text for w in found)


def test_a_window_does_not_end_inside_a_sentence_at_an_abbreviation():
    text = ("Revenue rose in 2025.\nNet income was reduced by the effects of the\nU.S. Inflation Reduction Act of 2022.\n"
            "Margins held.")
    assert [w.text for w in windows(text, 2)] == [
        "Revenue rose in 2025.\nNet income was reduced by the effects of the",
        "U.S. Inflation Reduction Act of 2022.\nMargins held."]


def test_a_text_shorter_than_a_window_is_one_window():
    text = "Net sales rose. Costs fell."
    assert [w.text for w in windows(text, 4)] == [text]
    assert windows("", 3) == []


def test_lexical_share_counts_the_questions_terms_found():
    assert lexical_share({"capital", "expenditure", "2018"}, "Capital expenditures were $1.6 billion in 2018.") == 1.0
    assert lexical_share({"capital", "expenditure", "2018"}, "Revenue in 2018.") == 1 / 3
    assert lexical_share(set(), "anything") == 0.0


def test_a_chunk_with_the_asked_line_beats_a_chunk_about_the_topic_in_general(embedder):
    question = "What was the torque for the clamp bolts?"
    general = ("Installation overview. The modules are mounted on rails. The rails rest on hooks. "
               "Hooks are fixed to rafters. Follow the safety rules. Wear gloves at all times.")
    answer = ("Cable routing keeps wires off the roof. Labels are printed on each string. "
              "Tighten the clamp bolts to a torque of 8-12 N m. Inverters sit in shade. Check fuses yearly.")
    scored = score_windows(question, [general, answer], ["Handbook", "Handbook"], embedder.embed, 2)
    ranked = combine(scored, [1.0, 0.9], lexical_weight=0.3, prior_weight=0.3)
    assert ranked[0].index == 1
    assert "torque of 8-12 N m" in ranked[0].focus.text


def test_the_prior_keeps_the_fused_order_when_windows_tie():
    window = windows("Same text.", 3)[0]
    scored = [[(window, 0.5, 0.0)], [(window, 0.5, 0.0)]]
    assert [r.index for r in combine(scored, [0.5, 1.0], lexical_weight=0.3, prior_weight=0.3)] == [1, 0]
    assert [r.index for r in combine(scored, [1.0, 1.0], lexical_weight=0.3, prior_weight=0.3)] == [0, 1]


def test_one_embedder_call_scores_every_window():
    calls = []

    def embed(texts):
        calls.append(texts)
        return np.eye(len(texts), 4, dtype=np.float32) if len(texts) <= 4 else np.ones((len(texts), 4), np.float32)

    scored = score_windows("row 7 2023", [ROWS, "Short."], ["Ctx", ""], embed, 3)
    assert len(calls) == 1 and calls[0][0] == "row 7 2023"
    assert calls[0][1].startswith("Row 1") and calls[0][-1] == "Short."
    assert [len(row) for row in scored] == [3, 1]
    assert scored[0][2][2] == 1.0  # "row", "7", "2023" all in the last window


def test_without_an_embedder_windows_are_scored_by_their_terms_only():
    scored = score_windows("Row 5 in 2023", [ROWS], [""], None, 1)
    ranked = combine(scored, [1.0], lexical_weight=1.0, prior_weight=0.0)
    assert ranked[0].focus.text == "Row 5 | 2023: 500 | 2022: 550" and ranked[0].similarity == 0.0


def test_a_chunk_cut_inside_a_sentence_is_finished_from_the_next_chunk_past_their_overlap():
    chunk = "Power output warranty: 25 years\nThe output declines by 0.55 % a year, so that at the end of year 25 the"
    following = ("The output declines by 0.55 % a year, so that at the end of year 25 the\n"
                 "module still delivers at least 84.8 % of its power. Claims go to the installer.")
    assert rest_of_sentence(chunk, following) == "\nmodule still delivers at least 84.8 % of its power."


def test_a_chunk_that_ends_in_an_abbreviation_is_finished_from_the_next_chunk():
    chunk = "Our net income was reduced in fiscal 2025 by the effects of the\nU.S."
    following = "Inflation Reduction Act, which raised our tax charge. Other items were small."
    assert ends_inside_a_sentence(chunk)
    assert rest_of_sentence(chunk, following) == "\nInflation Reduction Act, which raised our tax charge."


def test_a_chunk_that_ends_a_sentence_or_a_row_needs_nothing_from_the_next():
    assert rest_of_sentence("The warranty is 25 years.", "more text follows here.") == ""
    assert rest_of_sentence("Net sales 81,797 82,959", "Cost of sales 45,384 47,074") == ""
    rows = "order_no: A-1 | client: Contoso\norder_no: A-2 | client: Northwind"  # rows start in lower case too
    assert rest_of_sentence(rows.split("\n")[0], rows) == ""
    assert not ends_inside_a_sentence("Claims go to the installer.")
