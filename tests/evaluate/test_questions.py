"""Question files: CSV or JSONL, flexible column names, and every unusable row named by its line."""
from __future__ import annotations

import json

import pytest

from core.evaluate.questions import EvalQuestion, QuestionFileError, parse_pages, parse_questions

LIMIT = 500


def parse(text: str, name: str = "questions.csv", limit: int = LIMIT):
    return parse_questions(text.encode("utf-8"), name, limit)


def test_a_csv_with_every_column():
    parsed = parse("id,question,expected_answer,expected_file,expected_page,tolerance\n"
                   "w1,How long is the warranty?,25 years,handbook.pdf,4,0.05\n")
    assert parsed.problems == []
    assert parsed.questions == [EvalQuestion("w1", "How long is the warranty?", "25 years", "handbook.pdf", (4,), 0.05)]


def test_column_names_are_flexible_and_only_question_and_answer_are_required():
    parsed = parse("Question;Answer;Page\nWhat is the total?;272.40;\n", name="q.txt")  # semicolons, no file
    assert parsed.questions == [EvalQuestion("q2", "What is the total?", "272.40")]  # id: the line number


def test_jsonl_lines_are_questions_and_a_bad_line_is_reported_with_its_number():
    text = "\n".join([
        json.dumps({"question": "What is the VAT rate?", "expected": "20 %", "file": "r.pdf", "page": [1, 4]}),
        "{not json",
        json.dumps(["a", "list"]),
        "",
        json.dumps({"question": "Who is the CEO?", "expected_answer": "not in documents"}),
    ])
    parsed = parse(text, name="q.jsonl")
    assert [q.question for q in parsed.questions] == ["What is the VAT rate?", "Who is the CEO?"]
    assert parsed.questions[0].expected_pages == (1, 4)
    assert parsed.problems == ["line 2: not valid JSON (Expecting property name enclosed in double quotes)",
                               "line 3: not a JSON object"]


def test_a_json_array_of_questions_is_read_too():
    parsed = parse(json.dumps([{"question": "Q one here?", "answer": "1"}]), name="q.json")
    assert [q.expected for q in parsed.questions] == ["1"]


def test_rows_without_a_question_or_an_expected_answer_are_reported_not_dropped_silently():
    parsed = parse("question,expected_answer\nFirst question?,yes\n,orphan answer\nNo answer here?,\n")
    assert [q.question for q in parsed.questions] == ["First question?"]
    assert parsed.problems == ["line 3: no question.", "line 4: no expected answer (column 'expected_answer')."]


def test_a_bad_page_or_tolerance_is_reported():
    parsed = parse("question,expected_answer,page,tolerance\nA?,1,four,\nB?,2,,lots\nC?,3,,5%\n")
    assert [q.question for q in parsed.questions] == ["C?"]
    assert parsed.questions[0].tolerance == pytest.approx(0.05)
    assert "line 2: the page 'four'" in parsed.problems[0] and "line 3: the tolerance 'lots'" in parsed.problems[1]


def test_a_repeated_id_is_made_unique_and_reported():
    parsed = parse("id,question,expected_answer\nq,A?,1\nq,B?,2\n")
    assert [q.id for q in parsed.questions] == ["q", "q@3"]
    assert "used twice" in parsed.problems[0]


def test_more_questions_than_the_limit_are_cut_and_the_cut_is_reported():
    rows = "".join(f"Question {n}?,{n}\n" for n in range(5))
    parsed = parse("question,expected_answer\n" + rows, limit=3)
    assert len(parsed.questions) == 3 and "only the first 3" in parsed.problems[0]


@pytest.mark.parametrize("text, message", [
    ("", "empty"),
    ("name,value\nx,1\n", "'question' column"),
    ("question,expected_answer\n,\n", "No usable questions"),
])
def test_a_file_that_cannot_be_used_at_all_says_why(text, message):
    with pytest.raises(QuestionFileError) as info:
        parse(text)
    assert message in str(info.value)


def test_a_binary_file_is_refused():
    with pytest.raises(QuestionFileError, match="not a text file"):
        parse_questions(b"\x00\x01\x02PK", "q.csv", LIMIT)


@pytest.mark.parametrize("value, pages", [(4, (4,)), ("3-4", (3, 4)), ("1, 4", (1, 4)), ([2, 2], (2,)), (None, ()),
                                          (4.0, (4,))])
def test_pages_can_be_a_number_a_range_or_a_list(value, pages):
    assert parse_pages(value) == pages


@pytest.mark.parametrize("value", ["0", "5-3", "p. 4", "4.5"])
def test_impossible_pages_are_refused(value):
    with pytest.raises(ValueError):
        parse_pages(value)
