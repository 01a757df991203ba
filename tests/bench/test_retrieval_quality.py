"""The Docugami evidence measure reads a table row as the reader does: with the scale its headers state."""
from bench.retrieval_quality import evidence_coverage, headers_scale, source_coverage

BILLIONS = {"kind": "figures", "figures": [{"value": 7.7, "decimals": 1, "percent": False, "scale": 1e9,
                                             "raw": "$7.7 billion", "year": False}]}
ROW = "Net cash provided by operating activities | 7,730 | 24,053"


def test_a_bare_table_figure_takes_the_scale_its_headers_state():
    assert evidence_coverage(BILLIONS, ROW) == 0
    assert evidence_coverage(BILLIONS, ROW, "Cash Flows\n(In Millions; Unaudited) | Oct 1, 2022 | Sep 25, 2021") == 1


def test_headers_in_thousands_do_not_make_millions_match():
    assert evidence_coverage(BILLIONS, ROW, "(In thousands)") == 0


def test_an_exception_for_per_share_amounts_still_scales_the_rest():
    assert headers_scale("(In millions, except per share amounts)") == 1e6
    assert headers_scale("Results of operations") == 1.0


def test_each_prompt_source_is_read_with_its_own_headers():
    prompt = ("[Source 1] (a.pdf, p. 3)\nSegment results (In thousands)\nRevenue | 7,730\n"
              f"[Source 2] (a.pdf, p. 8)\nCash flows\n(In Millions)\n{ROW}\n")
    assert source_coverage(BILLIONS, prompt) == 1
    assert source_coverage(BILLIONS, prompt.split("[Source 2]")[0]) == 0
