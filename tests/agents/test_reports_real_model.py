"""Reports with the real model (issue 23): a cell under a stacked header of a long PDF (tests/report_pdfs.py),
and a summary of a meeting's minutes. What only the real model shows: that it names the right row and quarter
under the header the PDF reader built, and that a request for the main points is answered as points from the
minutes, with the minutes as their source, not routed to a table or refused. Each test costs one or two model
calls; skipped where the model is not installed."""
import pytest

from bench.leaks import leaks
from core.config import Settings
from core.workspace import Workspace
from tests.real_model import requires_model
from tests.report_pdfs import write_annual_report

pytestmark = requires_model

MINUTES = """Brookside Allotment Society - committee meeting, 12 February 2025

Present: the chair, the treasurer, the secretary and four plot holders.

1. Plot rent. The committee agreed to raise the annual plot rent from £42 to £48 from April 2025.
2. Water. The supply to the east field will be switched off from November to March so that the pipes do not freeze.
3. New plots. Two new plots will be made from the old compost area; the waiting list has 17 names.
4. Open day. The spring open day will be held on Saturday 26 April 2025.
"""


@pytest.fixture(scope="module")
def ws(tmp_path_factory, embedder):
    folder = tmp_path_factory.mktemp("reports_real")
    (folder / "committee_minutes_2025-02.txt").write_text(MINUTES, encoding="utf-8")
    report = write_annual_report(folder / "depot_report_2025.pdf")
    ws = Workspace(Settings(data_dir=folder / "kb", llm_provider="embedded"), embedder)
    ws.ingestor.ingest_paths([folder / "committee_minutes_2025-02.txt", report])
    yield ws
    ws.close()


def test_a_cell_under_a_stacked_header_is_read_with_its_scale(ws):
    report = next(d.doc_id for d in ws.documents() if d.filename == "depot_report_2025.pdf")
    response = ws.ask("How many passenger journeys did Riverside depot carry in Q3?", mode="pipeline", doc_ids=[report])
    assert "297 thousand" in response.answer, response.answer
    assert leaks(response.answer) == [] and response.confidence != "high"


def test_the_main_points_of_the_minutes_are_cited_points_from_them(ws):
    response = ws.ask("Can you give me the main points from the February committee meeting?", mode="pipeline")
    assert response.route != "structured"
    said = [fact for fact in ("£48", "east field", "compost", "26 April") if fact.lower() in response.answer.lower()]
    assert len(said) >= 2, response.answer
    # the points come with the minutes as their source (the 1.5B model writes the points, not always their [Source N])
    assert [c.filename for c in response.citations][:1] == ["committee_minutes_2025-02.txt"]
    assert leaks(response.answer) == [] and response.confidence != "high"
