"""Chunking, measured with the real tokenizer of the embedding model (MiniLM word pieces)."""
from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings as hypothesis_settings, strategies as st

from core.ingest.chunking import chunk_document
from core.ingest.document import LoadedDocument, Section

NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven"]
MARKER = re.compile(r"page (\w+) line (\w+)")


def prose_line(page: int, line: int) -> str:
    """A 12-token line that names its page and position (number words tokenize evenly)."""
    return f"page {NUMBER_WORDS[page]} line {NUMBER_WORDS[line]} checks every cable and each clamp."


def prose_pages(pages: int, lines: int) -> list[Section]:
    return [
        Section("\n".join(prose_line(p, k) for k in range(lines)), page=p) for p in range(1, pages + 1)
    ]


def document(sections: list[Section], kind: str = "pdf") -> LoadedDocument:
    return LoadedDocument("doc." + kind, kind, sections, page_count=len(sections))


def pages_named_in(text: str) -> set[int]:
    return {NUMBER_WORDS.index(page) for page, _ in MARKER.findall(text)}


def table_section(rows: int, sheet: str = "Orders", first_row: int = 2) -> Section:
    lines = [
        f"Order: SO-{1000 + i} | Customer: {['ACME', 'Globex', 'Initech'][i % 3]} | "
        f"Product: Panel HX-{400 + 50 * (i % 3)} | Quantity: {i % 7 + 1} | Total: {(i % 7 + 1) * 189.5}"
        for i in range(rows)
    ]
    numbers = list(range(first_row, first_row + rows))
    return Section("\n".join(lines), sheet=sheet, is_table=True, row_numbers=numbers)


@pytest.fixture(scope="module")
def twelve(count_tokens):
    """Precondition of the page-range tests: every prose line is exactly 12 tokens."""
    counts = count_tokens([prose_line(p, k) for p in range(1, 5) for k in range(10)])
    assert set(counts) == {12}
    return 12


# --- the token budget ---------------------------------------------------------------------------

MIXED = [
    *prose_pages(3, 10),
    Section(" ".join(["solar"] * 700), page=4),  # one very long line, no punctuation
    Section(
        " ".join(f"Sentence {NUMBER_WORDS[i]} explains how the inverter limits the current." for i in range(12)),
        page=5,
    ),
    table_section(40),
]


@pytest.mark.parametrize("strategy", ["page", "document"])
@pytest.mark.parametrize("size,overlap", [(40, 10), (100, 30), (200, 30)])
def test_every_chunk_fits_the_token_budget_counted_by_the_same_tokenizer(count_tokens, strategy, size, overlap):
    chunks = chunk_document(document(MIXED), "d1", count_tokens, strategy, size, overlap)
    recounted = count_tokens([c.text for c in chunks])
    assert all(n <= size for n in recounted), max(recounted)
    assert [c.token_count for c in chunks] == recounted  # the stored count is the real count


@pytest.mark.parametrize(
    "text",
    ["太阳能电池板的安装需要专业人员" * 40, ",".join(str(i) for i in range(300))],
    ids=["cjk", "comma-run"],
)
def test_text_without_spaces_is_still_cut_to_the_budget(count_tokens, text):
    chunks = chunk_document(document([Section(text, page=1)]), "d1", count_tokens, "page", 100, 0)
    assert max(count_tokens([c.text for c in chunks])) <= 100


def test_a_long_line_without_punctuation_is_cut_into_word_windows(count_tokens):
    words = [f"{NUMBER_WORDS[i % 12]}" for i in range(600)]
    doc = document([Section(" ".join(words), page=1)])
    chunks = chunk_document(doc, "d1", count_tokens, "page", size=50, overlap=0)
    assert len(chunks) > 1
    assert all(c.token_count <= 50 for c in chunks)
    assert " ".join(c.text for c in chunks).split() == words  # nothing lost, nothing repeated, in order
    assert all(c.page_label == "1" for c in chunks)


def test_an_over_budget_line_is_cut_at_sentence_ends_first(count_tokens):
    sentences = [f"Step {NUMBER_WORDS[i]} is to check the torque of every bolt on the rail." for i in range(12)]
    chunks = chunk_document(document([Section(" ".join(sentences), page=1)]), "d1", count_tokens, "page", 60, 0)
    assert len(chunks) > 1
    assert all(c.text.endswith(".") for c in chunks)
    assert " ".join(c.text.replace("\n", " ") for c in chunks) == " ".join(sentences)


def test_a_line_is_not_cut_after_an_abbreviation(count_tokens):
    text = ("Net income fell in fiscal 2025 because of the U.S. Inflation Reduction Act and its minimum tax. "
            "Dr. Okafor chaired the audit committee. " * 6)
    chunks = chunk_document(document([Section(text.strip(), page=1)]), "d1", count_tokens, "page", 40, 0)
    assert len(chunks) > 1
    assert not any(c.text.endswith(("U.S.", "Dr.")) for c in chunks)


# --- page and document strategies ------------------------------------------------------------------

def test_page_strategy_never_crosses_a_page(count_tokens, twelve):
    chunks = chunk_document(document(prose_pages(4, 10)), "d1", count_tokens, "page", 50, 20)
    for chunk in chunks:
        assert chunk.page_start == chunk.page_end
        assert pages_named_in(chunk.text) == {chunk.page_start}
    assert {c.page_start for c in chunks} == {1, 2, 3, 4}


def test_page_strategy_gives_a_short_page_its_own_chunk(count_tokens, twelve):
    chunks = chunk_document(document(prose_pages(4, 5)), "d1", count_tokens, "page", 120, 0)
    assert [c.page_label for c in chunks] == ["1", "2", "3", "4"]


def test_document_strategy_packs_pages_together_and_labels_the_range(count_tokens, twelve):
    # four pages of 60 tokens, budget 120: two pages per chunk
    chunks = chunk_document(document(prose_pages(4, 5)), "d1", count_tokens, "document", 120, 0)
    assert [c.page_label for c in chunks] == ["1-2", "3-4"]
    assert [(c.page_start, c.page_end) for c in chunks] == [(1, 2), (3, 4)]


def test_document_strategy_page_range_matches_the_text_it_holds(count_tokens, twelve):
    chunks = chunk_document(document(prose_pages(4, 7)), "d1", count_tokens, "document", 100, 30)
    assert any("-" in c.page_label for c in chunks)
    for chunk in chunks:
        named = pages_named_in(chunk.text)
        assert (chunk.page_start, chunk.page_end) == (min(named), max(named))


def test_document_strategy_keeps_tables_out_of_prose_chunks(count_tokens):
    sections = [*prose_pages(2, 3), table_section(3), *prose_pages(1, 3)]
    chunks = chunk_document(document(sections), "d1", count_tokens, "document", 200, 0)
    assert [(c.sheet, c.page_label) for c in chunks] == [(None, "1-2"), ("Orders", None), (None, "1")]


def test_text_without_pages_has_no_page_label(count_tokens):
    (chunk,) = chunk_document(document([Section("Just a note.\nSecond line.")], "txt"), "d1", count_tokens)
    assert chunk.page_start is None and chunk.page_label is None
    assert chunk.text == "Just a note.\nSecond line."


def test_whitespace_is_normalised_and_blank_lines_dropped(count_tokens):
    (chunk,) = chunk_document(document([Section("  a   b \n\n\t\n c  ", page=1)]), "d1", count_tokens)
    assert chunk.text == "a b\nc"


def test_a_document_without_text_has_no_chunks(count_tokens):
    assert chunk_document(document([Section("  \n ", page=1)]), "d1", count_tokens) == []


# --- overlap -------------------------------------------------------------------------------------

def test_prose_chunks_start_with_the_end_of_the_previous_chunk(count_tokens, twelve):
    chunks = chunk_document(document(prose_pages(1, 10)), "d1", count_tokens, "page", size=60, overlap=30)
    assert len(chunks) >= 3
    for previous, current in zip(chunks, chunks[1:]):
        before, after = previous.text.split("\n"), current.text.split("\n")
        carried = [line for line in after if line in before]
        assert carried, "no overlap"
        assert after[: len(carried)] == before[-len(carried):]  # a prefix of the new chunk, a suffix of the old
        assert sum(count_tokens(carried)) <= 30
        assert len(carried) < len(before)  # never a whole chunk carried over


def test_zero_overlap_repeats_nothing(count_tokens, twelve):
    chunks = chunk_document(document(prose_pages(1, 10)), "d1", count_tokens, "page", size=60, overlap=0)
    lines = [line for c in chunks for line in c.text.split("\n")]
    assert lines == [prose_line(1, k) for k in range(10)]


def test_page_strategy_overlap_never_carries_text_from_another_page(count_tokens, twelve):
    chunks = chunk_document(document(prose_pages(3, 10)), "d1", count_tokens, "page", size=60, overlap=30)
    first_of_page = [c for prev, c in zip([None, *chunks], chunks) if prev is None or prev.page_start != c.page_start]
    for chunk in first_of_page:
        assert chunk.text.split("\n")[0] == prose_line(chunk.page_start, 0)


# --- tables ----------------------------------------------------------------------------------------

def test_table_chunks_do_not_overlap_and_never_split_a_row(count_tokens):
    section = table_section(30)
    rows = section.text.split("\n")
    chunks = chunk_document(document([section], "csv"), "d1", count_tokens, "page", size=80, overlap=30)
    assert len(chunks) > 2
    seen: list[str] = []
    for chunk in chunks:
        lines = chunk.text.split("\n")
        assert all(line in rows for line in lines)  # whole rows only
        seen.extend(lines)
    assert seen == rows  # every row exactly once, in order: no overlap for tables


def test_table_chunks_name_their_sheet_and_row_range(count_tokens):
    section = table_section(30, sheet="Q3", first_row=5)
    chunks = chunk_document(document([section], "xlsx"), "d1", count_tokens, "page", size=80, overlap=30)
    assert all(c.sheet == "Q3" for c in chunks)
    assert chunks[0].row_start == 5 and chunks[-1].row_end == 34
    for previous, current in zip(chunks, chunks[1:]):
        assert current.row_start == previous.row_end + 1
    for chunk in chunks:
        first_order = int(re.search(r"SO-(\d+)", chunk.text).group(1))
        assert chunk.row_start == first_order - 1000 + 5


# --- identity ----------------------------------------------------------------------------------------

def test_chunk_index_counts_from_zero_and_chunk_id_joins_doc_id_and_index(count_tokens):
    chunks = chunk_document(document(MIXED), "d0123abc", count_tokens, "page", 60, 20)
    assert [c.chunk_index for c in chunks] == list(range(len(chunks)))
    assert [c.chunk_id for c in chunks] == [f"d0123abc_{i}" for i in range(len(chunks))]
    assert all(c.doc_id == "d0123abc" for c in chunks)


def test_unknown_strategy_is_a_value_error(count_tokens):
    with pytest.raises(ValueError, match="strategy"):
        chunk_document(document(prose_pages(1, 2)), "d1", count_tokens, strategy="paragraph")


# --- property: any prose keeps every word, in order, within the budget -----------------------------

WORDS = st.sampled_from(["panel", "inverter", "the", "of", "kWh", "20.5%", "HX-400", "warranty", "25-year", "A"])
LINE = st.lists(WORDS, min_size=1, max_size=120).map(" ".join)
PAGE = st.lists(LINE, min_size=1, max_size=6).map("\n".join)


@hypothesis_settings(max_examples=40, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pages=st.lists(PAGE, min_size=1, max_size=4), size=st.integers(20, 120), strategy=st.sampled_from(["page", "document"]))
def test_property_chunks_fit_and_lose_no_words(count_tokens, pages, size, strategy):
    doc = document([Section(text, page=i + 1) for i, text in enumerate(pages)])
    chunks = chunk_document(doc, "d1", count_tokens, strategy, size, overlap=0)
    assert all(n <= size for n in count_tokens([c.text for c in chunks]))
    assert " ".join(c.text for c in chunks).split() == " ".join(pages).split()
