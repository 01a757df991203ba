"""`python -m core eval FILE`: the terminal contract (scripted model, so no model time)."""
from __future__ import annotations

import json

from core.cli import main

QUESTIONS = ("question,expected_answer,expected_file\n"
             "How long is the output warranty?,25-year,handbook.txt\n"
             "How long is the product warranty?,99 years,handbook.txt\n"
             ",orphan,\n")


def test_eval_scores_each_question_saves_the_run_writes_csv_and_compares(tmp_path, write_text, capsys, monkeypatch):
    monkeypatch.setenv("DOCUCHAT_LLM_PROVIDER", "scripted")  # answers with the first sentence of source 1
    data = str(tmp_path / "kb")
    main(["--data-dir", data, "ingest", str(write_text(
        "handbook.txt", "Helios panels carry a 25-year output warranty and a 12-year product warranty.\n"))])
    questions = write_text("questions.csv", QUESTIONS)
    capsys.readouterr()

    out_csv = tmp_path / "run1.csv"
    assert main(["--data-dir", data, "eval", str(questions), "--out", str(out_csv)]) == 0
    printed = capsys.readouterr()
    assert "warning: line 4: no question." in printed.err
    assert "2 questions: answers right 50%, retrieval hit 100%, citations right 100%" in printed.out
    assert out_csv.read_text().count("\n") == 3  # header and two questions
    assert len(list((tmp_path / "kb" / "evaluations").glob("*.csv"))) == 1  # kept for the Evaluate page

    assert main(["--data-dir", data, "eval", str(questions), "--json", "--compare", str(out_csv)]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["totals"]["questions"] == 2 and payload["totals"]["correct"] == 0.5
    assert [c["confidence"] for c in payload["calibration"]] == ["high", "medium", "low"]
    assert [r["correct"] for r in payload["results"]] == [True, False]
    assert payload["comparison"]["unchanged"] == 2


def test_eval_of_an_unusable_file_says_why(tmp_path, write_text, capsys):
    bad = write_text("bad.csv", "name,value\nx,1\n")
    assert main(["--data-dir", str(tmp_path / "kb"), "eval", str(bad)]) == 1
    assert "'question' column" in capsys.readouterr().err
    assert main(["--data-dir", str(tmp_path / "kb"), "eval", str(tmp_path / "missing.csv")]) == 1
