"""Citations on screen: compact, deduplicated, attached where the claim ends."""
from core.citations import MARKER, attribute_markers, cited_numbers, location, place_citations, quoted_evidence, short_answer


def test_a_run_of_source_markers_becomes_compact_chips_before_the_period():
    answer = "The invoice total is 1,250.00 EUR. [Source 1] [Source 2] [Source 3]"
    assert place_citations(answer) == "The invoice total is 1,250.00 EUR [1][2][3]."


def test_a_marker_in_mid_sentence_moves_to_the_end_of_its_claim():
    answer = "The invoice date is [Source 1] 03/20/2023. The due date is 04/19/2023 [Source 2]."
    assert place_citations(answer) == "The invoice date is 03/20/2023 [1]. The due date is 04/19/2023 [2]."


def test_repeats_are_dropped_and_agent_mode_numbers_read_the_same():
    assert place_citations("Run it nightly [1], [1] and [2].") == "Run it nightly [1][2]."
    assert place_citations("Warranty: 25 years [Source 1]") == "Warranty: 25 years [1]"


def test_list_lines_keep_their_markers_and_numbers_that_are_not_citations_stay():
    answer = "Panels:\n1. HX-400 is 1.134 m wide [Source 1]\n2. HX-450 [Source 2]; see list [a]."
    assert place_citations(answer) == "Panels:\n1. HX-400 is 1.134 m wide [1]\n2. HX-450 [2]; see list [a]."


def test_the_short_answer_is_the_first_sentence_not_a_list_number():
    assert short_answer("1. ACME: 3 orders [Source 1]\n2. Globex: 2 orders") == "1. ACME: 3 orders 2. Globex: 2 orders"
    assert short_answer("There are 3 orders. ACME placed them.") == "There are 3 orders."
    assert short_answer("word " * 100, limit=20) == "word word word word…"


def test_a_location_names_page_sheet_and_rows_and_is_empty_for_a_one_piece_file():
    assert location(page=3) == "p. 3"
    assert location(sheet="Orders", rows="4-9") == "sheet Orders, rows 4-9"
    assert location(page="3-4") == "p. 3-4"
    assert location() == ""


def test_one_record_is_a_row_and_a_passage_is_rows():
    assert location(page=2, row=5) == "p. 2, row 5"
    assert location(sheet="Orders", row=7) == "sheet Orders, row 7"


def test_the_pipeline_cites_source_n_and_agent_mode_may_cite_n_alone():
    assert cited_numbers("Total 5 [Source 2]; date [source 1] and [Source 2] again, see [3].") == [1, 2]
    assert MARKER.sub("", "Total 5 [Source 2], [3], [a]") == "Total 5 , , [a]"


def test_an_unmarked_answer_gets_the_marker_of_the_source_holding_its_words():
    sources = ["Run REINDEX TABLE documents during the nightly window.",
               "Clients retry after 30 seconds with exponential backoff."]
    answer = ("## Steps\nRun REINDEX TABLE documents in the nightly window.\n```sql\nREINDEX TABLE documents;\n```\n"
              "Clients retry after 30 seconds. Unrelated words here entirely.")
    marked, placed = attribute_markers(answer, sources, 0.5)
    assert marked == ("## Steps\nRun REINDEX TABLE documents in the nightly window [1].\n```sql\n"
                      "REINDEX TABLE documents;\n```\nClients retry after 30 seconds [2]. Unrelated words here entirely.")
    assert placed == [1, 2]


def test_a_marker_placed_by_code_takes_the_form_its_caller_writes():
    marked, placed = attribute_markers("- Clients retry after 30 seconds.", ["Clients retry after 30 seconds."], 0.5,
                                       lambda numbers: "".join(f"[Source {n + 4}]" for n in numbers))
    assert marked == "- Clients retry after 30 seconds [Source 5]." and placed == [1]


def test_a_names_initial_or_title_does_not_end_the_claim_a_marker_is_placed_after():
    sources = ["Present: P. Ames (Chair), D. Rowe, Dr. Lin. The orchestra approved the new tour budget."]
    marked, _ = attribute_markers("- Present were P. Ames (Chair), D. Rowe and Dr. Lin.", sources, 0.5)
    assert marked == "- Present were P. Ames (Chair), D. Rowe and Dr. Lin [1]."
    assert place_citations("Chaired by P. Ames [Source 1]. The tour was approved [Source 1].") \
        == "Chaired by P. Ames [1]. The tour was approved [1]."
    assert short_answer("Chaired by P. Ames. The tour was approved.") == "Chaired by P. Ames."


def test_a_short_answer_comes_with_the_sentence_it_was_read_from_and_a_longer_one_says_it_itself():
    quoted = {"cited": True, "quote": "The orchestra spent £8,400 on  instrument repairs in 2024.", "filename": "report.pdf",
              "page": "3", "sheet": None, "rows": None}
    read = {"cited": True, "quote": "", "filename": "notes.txt", "page": None, "sheet": None, "rows": None}
    assert quoted_evidence("£8,400 [Source 1]", [read, quoted]) \
        == "“The orchestra spent £8,400 on instrument repairs in 2024.” (report.pdf, p. 3)"
    assert quoted_evidence("The orchestra spent £8,400 on instrument repairs in 2024 [Source 1].", [quoted]) == ""  # it is the quote
    long = "The orchestra spent £8,400 on instrument repairs, most of it on the two cellos damaged on tour [Source 1]."
    assert quoted_evidence(long, [quoted]) == ""
    assert quoted_evidence("14 rows with Section Strings", [read]) == ""  # no quote: a records answer shows its rows
