"""The evidence view: a cited PDF page drawn with the quoted words highlighted, and a sheet's cited
rows among their neighbours."""
from __future__ import annotations

import io
import time

from PIL import Image

from core.evidence import cited_rows, first_page, matched_spans, row_span
from core.annotations.search import FactRow
from tests.ingest.conftest import write_text_pdf

PAGE = "Mechanical data\r\nModel: HX-450\r\nDimensions: 1903 x 1134 x 30 mm\r\nWeight: 24.2 kg\r\n"


def test_a_quote_is_found_word_by_word_across_separators_and_line_breaks():
    [(start, end)] = matched_spans(PAGE, "dimensions | 1903 x 1134 x 30 mm")
    assert PAGE[start:end] == "Dimensions: 1903 x 1134 x 30 mm"
    spans = matched_spans(PAGE, "Dimensions: 1903 x 1134 x 30 mm Weight: 24.2 kg")  # one run over the line break
    assert [PAGE[s:e] for s, e in spans] == ["Dimensions: 1903 x 1134 x 30 mm\r\nWeight: 24.2 kg"]


def test_only_runs_of_several_quoted_words_are_marked_never_a_lone_common_word():
    assert matched_spans(PAGE, "the weight of the largest panel, in tonnes") == []
    assert [PAGE[s:e] for s, e in matched_spans(PAGE, "Model: HX-450 is lighter")] == ["Model: HX-450"]


def test_a_citation_opens_on_its_first_page_and_names_its_rows():
    assert first_page("3") == 3 and first_page("3-4") == 3 and first_page(None) is None
    assert row_span("62-64") == (62, 64) and row_span("5") == (5, 5) and row_span("") is None


def _yellow_pixels(png: bytes) -> int:
    image = Image.open(io.BytesIO(png)).convert("RGB")
    return sum(1 for r, g, b in image.getdata() if r > 200 and g > 180 and b < 150)


def test_the_cited_page_is_drawn_quickly_with_the_quoted_words_highlighted(tmp_path):
    from core.evidence import page_image

    pdf = write_text_pdf(tmp_path / "specs.pdf", ["Cover page.", "Model: HX-450\nDimensions: 1903 x 1134 x 30 mm"])
    started = time.perf_counter()
    shown = page_image(pdf, 2, ["Dimensions: 1903 x 1134 x 30 mm"], scale=1.5)
    assert time.perf_counter() - started < 1.0  # the bound on these 2 cores (here ~50 ms)
    assert shown.found and shown.page == 2 and shown.width > 800
    assert _yellow_pixels(shown.png) > 500  # the highlight is on the page
    plain = page_image(pdf, 2, ["nothing like this is printed anywhere"], scale=1.5)
    assert not plain.found and _yellow_pixels(plain.png) == 0
    assert page_image(pdf, 3, ["Cover"], scale=1.5) is None  # no such page
    assert page_image(tmp_path / "missing.pdf", 1, ["Cover"], scale=1.5) is None


def _row(n: int, sheet: str | None = None) -> FactRow:
    return FactRow(fact_id=f"f{n}", doc_id="d", filename="log.csv", kind="row", page=None, sheet=sheet, row_index=n,
                   chunk_id=None, table="t", properties={"Unit": f"T-{n}", "Gallons": str(n * 10)}, numbers={})


def test_a_sheets_cited_rows_are_marked_among_their_neighbours():
    facts = [_row(n) for n in range(1, 30)] + [_row(n, sheet="Other") for n in range(1, 30)]
    shown = cited_rows(facts, None, (10, 11), context=2)
    assert [r["Row"] for r in shown.rows] == [8, 9, 10, 11, 12, 13]
    assert [r["Row"] for r in shown.rows if r["cited"]] == [10, 11]
    assert shown.columns == ["Unit", "Gallons"] and shown.rows[2]["Unit"] == "T-10"


def test_personal_data_on_a_drawn_page_is_covered_when_the_answer_hid_it(tmp_path):
    from core.evidence import page_image

    pdf = write_text_pdf(tmp_path / "contacts.pdf", ["Support desk\nTel: 020 7946 0958\nOpen from nine to five."])

    def dark_pixels(png: bytes) -> int:
        image = Image.open(io.BytesIO(png)).convert("RGB")
        return sum(1 for r, g, b in image.getdata() if (r, g, b) == (60, 60, 60))

    covered = dark_pixels(page_image(pdf, 1, ["Support desk"], 1.5, hide_personal_data=True).png)
    assert covered > dark_pixels(page_image(pdf, 1, ["Support desk"], 1.5).png) + 500  # (text has a few such pixels)


def test_personal_data_in_cited_rows_is_hidden_when_asked():
    facts = [FactRow(fact_id="f1", doc_id="d", filename="staff.csv", kind="row", page=None, sheet=None, row_index=1,
                     chunk_id=None, table="t", properties={"Name": "Ana", "Phone": "020 7946 0958"}, numbers={})]
    assert cited_rows(facts, None, (1, 1), 0, hide_personal_data=True).rows[0]["Phone"] == "[phone number hidden]"
    assert cited_rows(facts, None, (1, 1), 0).rows[0]["Phone"] == "020 7946 0958"
