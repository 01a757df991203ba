"""The Evaluate page through Streamlit's AppTest, with the scripted model (first sentence of the
best source, cited): upload questions, run them, read the scores, download, compare runs."""
from __future__ import annotations

import time

from streamlit.testing.v1 import AppTest

from core.evaluate import list_runs
from tests.ui.apptest import HANDBOOK, open_page

QUESTIONS = (b"id,question,expected_answer,expected_file\n"
             b"output,How long is the output warranty?,25-year,handbook.txt\n"
             b"product,How long is the product warranty?,99 years,handbook.txt\n"
             b"bad,,no question here,\n")


def upload_handbook(at: AppTest) -> None:
    open_page(at, "1_Upload.py")
    at.file_uploader[0].set_value([("handbook.txt", HANDBOOK, "text/plain")])
    at.button[0].click().run()
    assert not at.exception, at.exception


def run_questions(at: AppTest, questions: bytes = QUESTIONS) -> AppTest:
    open_page(at, "5_Evaluate.py")
    at.file_uploader[0].set_value([("questions.csv", questions, "text/csv")]).run()
    next(b for b in at.button if b.label.startswith("Run ")).click().run()
    return wait_for_run(at)


def wait_for_run(at: AppTest) -> AppTest:
    """The run goes on in the background; the page shows its results once it is done."""
    for _ in range(300):
        assert not at.exception, at.exception
        if not any(b.label == "Stop" for b in at.button) and not any("Stopping" in c.value for c in at.caption):
            return at
        time.sleep(0.2)
        at.run()
    raise AssertionError("the evaluation run did not finish")


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_a_question_file_is_run_scored_per_question_and_in_total_and_downloadable(app):
    upload_handbook(app)
    run_questions(app)

    assert any("line 4: no question." in w.value for w in app.warning)  # the bad row is named, not dropped silently
    assert metrics(app) == {"Answers right": "50%", "Retrieval hit": "100%", "Citations right": "100%",
                            "Refusals right": "n/a", "Median time": metrics(app)["Median time"]}
    calibration, per_question = app.dataframe[1].value, app.dataframe[2].value
    assert calibration["Confidence"].tolist() == ["high", "medium", "low"]
    assert per_question["id"].tolist() == ["output", "product"]
    assert per_question["correct"].tolist() == [True, False]
    assert "25-year output warranty" in per_question["answer"][0]
    assert app.get("download_button")[-1].label == "Download results CSV"


def test_a_second_run_is_compared_with_the_first_question_by_question(app, tmp_path):
    upload_handbook(app)
    run_questions(app)
    better = QUESTIONS.replace(b"99 years", b"12-year")
    run_questions(app, better)

    assert metrics(app)["Answers right"] == "100%"
    first = list_runs(tmp_path / "data" / "evaluations")[-1]["run_id"]  # the runs are kept in the data dir
    app.selectbox[1].set_value(first).run()
    assert not app.exception, app.exception
    assert any("1 better · 0 worse · 1 unchanged" in m.value for m in app.markdown)
    changes = app.dataframe[-1].value
    assert changes["Question"].tolist() == ["How long is the product warranty?"]
    assert changes["What changed"].tolist() == ["answer: wrong → right"]


def test_an_unusable_file_gets_a_message_and_an_empty_knowledge_base_cannot_be_run(app):
    open_page(app, "5_Evaluate.py")
    assert any("No evaluation runs yet" in i.value for i in app.info)
    app.file_uploader[0].set_value([("notes.csv", b"name,value\nx,1\n", "text/csv")]).run()
    assert any("'question' column" in e.value for e in app.error)

    app.radio[0].set_value("Example questions for the sample documents").run()
    run_button = next(b for b in app.button if b.label.startswith("Run "))
    assert run_button.label == "Run 15 questions" and run_button.disabled
    assert any("knowledge base is empty" in i.value for i in app.info)


def test_the_questions_are_previewed_before_a_run_and_the_mode_is_remembered(app):
    upload_handbook(app)
    open_page(app, "5_Evaluate.py")
    app.file_uploader[0].set_value([("questions.csv", QUESTIONS, "text/csv")]).run()
    preview = app.dataframe[0].value
    assert preview["Question"].tolist() == ["How long is the output warranty?", "How long is the product warranty?"]
    assert preview["File"].tolist() == ["handbook.txt", "handbook.txt"]

    next(t for t in app.toggle if t.label == "Agent mode").set_value(True).run()
    open_page(app, "2_Chat.py")
    open_page(app, "5_Evaluate.py")
    assert next(t for t in app.toggle if t.label == "Agent mode").value is True


def test_a_running_evaluation_can_be_stopped_and_keeps_its_answers(app, monkeypatch):
    import threading

    from core.workspace import Workspace

    release, original = threading.Event(), Workspace.ask

    def slow_ask(self, question, **options):
        release.wait(10)  # each answer waits until the test lets it go
        return original(self, question, **options)

    monkeypatch.setattr(Workspace, "ask", slow_ask)
    upload_handbook(app)
    open_page(app, "5_Evaluate.py")
    app.file_uploader[0].set_value([("questions.csv", QUESTIONS, "text/csv")]).run()
    next(b for b in app.button if b.label.startswith("Run ")).click().run()
    assert not app.exception, app.exception
    assert any("goes on if you leave this page" in c.value for c in app.caption)
    next(b for b in app.button if b.label == "Stop").click().run()
    release.set()
    wait_for_run(app)
    assert any("This run stopped after 1 of 2 questions" in w.value for w in app.warning)


def answered_so_far(at: AppTest):
    """The table of answers scored so far, shown while a run goes on (None before the first)."""
    return next((d.value for d in at.dataframe if "Right" in d.value.columns and "Seconds" in d.value.columns), None)


def test_each_answer_shows_while_the_run_goes_on_with_the_time_left_from_its_own_answers(app, monkeypatch):
    import threading

    from core.workspace import Workspace

    release, original = threading.Event(), Workspace.ask

    def second_waits(self, question, **options):
        if "product" in question:
            release.wait(10)  # the second answer waits until the test has looked at the page
        else:
            time.sleep(3)  # the first takes long enough to make an estimate worth showing
        return original(self, question, **options)

    monkeypatch.setattr(Workspace, "ask", second_waits)
    upload_handbook(app)
    open_page(app, "5_Evaluate.py")
    app.file_uploader[0].set_value([("questions.csv", QUESTIONS, "text/csv")]).run()
    next(b for b in app.button if b.label.startswith("Run ")).click().run()
    for _ in range(200):  # until the first answer is scored
        if answered_so_far(app) is not None:
            break
        time.sleep(0.1)
        app.run()
    try:
        so_far = answered_so_far(app)
        assert so_far["Question"].tolist() == ["How long is the output warranty?"]
        assert so_far["Right"].tolist() == [True]
        progress = app.get("progress")[0].proto.text
        assert progress.startswith("1 of 2 answered · ") and progress.endswith(" left")
    finally:
        release.set()
    wait_for_run(app)
