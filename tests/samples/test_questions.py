"""The example question file for the sample documents: readable by the question-file reader, and
every question answerable (or, for the refusals, not) from what the samples actually contain."""
from __future__ import annotations

import csv
import json
import re

import pytest

from core.config import Settings
from core.evaluate import parse_questions
from core.evaluate.scoring import answer_matches, expects_refusal, normalize_text
from core.ingest.loaders import load_document
from samples import QUESTIONS_FILENAME, make_samples, question_lines, sample_questions
from samples.__main__ import main
from samples.documents import ORDERS_CSV

QUESTIONS = sample_questions()


@pytest.fixture(scope="module")
def documents(tmp_path_factory):
    folder = tmp_path_factory.mktemp("samples")
    return {path.name: load_document(path, Settings()) for path in make_samples(folder) if path.suffix != ".md"}, folder


def test_the_file_reads_back_as_the_same_questions_without_problems():
    parsed = parse_questions(question_lines(QUESTIONS), QUESTIONS_FILENAME, 500)
    assert parsed.problems == [] and parsed.questions == QUESTIONS
    assert len({q.id for q in QUESTIONS}) == len(QUESTIONS)


@pytest.mark.parametrize("question", [q for q in QUESTIONS if q.expected_pages], ids=lambda q: q.id)
def test_the_expected_answer_is_on_the_expected_pages(documents, question):
    loaded, _ = documents
    pages = " ".join(s.text for s in loaded[question.expected_file].sections if s.page in question.expected_pages)
    if question.id == "quickfit-spend":  # a sum: each receipt's total is on its page, the sum on none
        totals = [float(t.replace(",", "")) for t in re.findall(r"Total paid: £([\d,.]+)", pages)]
        assert sum(totals) == pytest.approx(float(question.expected))
    else:
        assert answer_matches(question.expected, pages, tolerance=0.0, min_word_recall=1.0), question.expected


def test_the_spreadsheet_and_csv_answers_are_in_their_files(documents):
    loaded, folder = documents
    width = next(q for q in QUESTIONS if q.id == "sunpeak-width")
    sheet = " ".join(s.text for s in loaded[width.expected_file].sections)
    assert "Type: SP-M 0.43 | W [m]: 1.134" in sheet and width.expected == "1.134 m"

    acme = next(q for q in QUESTIONS if q.id == "acme-orders-2024")
    with (folder / ORDERS_CSV).open(encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if r["customer"] == "ACME" and r["date"].startswith("2024")]
    assert str(len(rows)) == acme.expected


def test_what_the_refusal_questions_ask_about_is_in_no_sample(documents):
    loaded, _ = documents
    everything = normalize_text(" ".join(s.text for d in loaded.values() for s in d.sections))
    refusals = [q for q in QUESTIONS if expects_refusal(q.expected)]
    assert [q.id for q in refusals] == ["ceo", "employees"]
    for words in ("chief executive", "employees", "ceo"):
        assert f" {words} " not in f" {everything} "


def test_the_command_writes_the_file_into_a_folder(tmp_path, capsys):
    assert main(["--out", str(tmp_path)]) == 0
    lines = (tmp_path / QUESTIONS_FILENAME).read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(QUESTIONS) and json.loads(lines[0])["expected_answer"] == "25 years"
