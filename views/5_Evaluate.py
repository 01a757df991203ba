"""Evaluate: run a file of questions with expected answers through the same pipeline as Chat, and
see per question and in total how often retrieval, answers, citations and refusals are right."""
import pandas as pd
import streamlit as st

from core.citations import place_citations
from core.evaluate import (EvalRun, QuestionFileError, ResultsFileError, compare_runs, list_runs, load_results,
                           parse_questions, read_results_csv, results_csv)
from core.evaluate.background import BackgroundEvaluation, say_seconds
from core.evaluate.report import percent
from samples import QUESTIONS_FILENAME, missing_samples, question_lines, sample_questions
from ui.components import escape_markdown, page_header
from ui.state import evaluations, remembered, workspace

page_header("Evaluate", "Evaluate on your documents",
            "Upload questions with the answers you expect. Each one is answered exactly as in Chat, then scored: "
            "was the right file and page retrieved, does the answer match, does it cite the right source, does it "
            "refuse when the answer is not in the documents, and is its confidence level worth trusting.")

ws = workspace()
folder = ws.settings.evaluations_dir


@st.fragment(run_every=1)
def run_progress(job: BackgroundEvaluation) -> None:
    """The run in progress, redrawn every second; it goes on if this page is left."""
    if not job.running:
        if job.run is not None:
            st.session_state.evaluation_run = job.run.run_id
        st.rerun(scope="app")
    left = job.seconds_left()
    st.progress(job.answered / max(job.total, 1),
                text=f"{job.answered} of {job.total} answered" + (f" · {say_seconds(left)} left" if left else ""))
    if not job.stopping and st.button("Stop", icon=":material/stop_circle:",
                                      help="End the run after the answer in progress; what was answered is kept."):
        job.stop()
    if job.stopping:
        st.caption("Stopping after the answer in progress…")
    st.caption("The run goes on if you leave this page." + ("" if job.answered else " The time left is shown after "
               "the first answer, from this run's own answer times."))
    if job.run and job.run.results:  # each answer as it is scored, the newest first
        st.dataframe(pd.DataFrame([{"Question": r.question, "Answer": place_citations(r.answer), "Right": r.correct,
                                    "Confidence": r.confidence, "Seconds": r.seconds}
                                   for r in reversed(job.run.results)]),
                     hide_index=True, width="stretch", key="answered-so-far",
                     column_config={"Answer": st.column_config.TextColumn(width="large"),
                                    "Seconds": st.column_config.NumberColumn(format="%.1f")})

with st.expander("Question file format"):
    st.markdown(
        "A **CSV** with a header row, or **JSONL** (one JSON object a line), with these columns:\n"
        "- `question` and `expected_answer` (required). Write `not in documents` when the right answer is a refusal.\n"
        "- `expected_file` and `expected_page` (optional, e.g. `4`, `3-4` or `1, 4`): where the answer is.\n"
        "- `tolerance` (optional): how far a number may be off, e.g. `0.01` for 1 %. "
        f"The default is {ws.settings.eval_number_tolerance:g}.\n"
        "- `id` (optional): a short name for the question.\n\n"
        "An answer matches when it contains the expected text, or every expected number (within the tolerance), "
        "or most of the expected words."
    )
    st.download_button("Download the example questions for the sample documents", question_lines(sample_questions()),
                       file_name=QUESTIONS_FILENAME, mime="application/json", key="download-example")


active = evaluations().get(str(folder))
if active is not None and active.running:
    run_progress(active)
    st.stop()
if active is not None and active.error:
    st.error(f"The last run failed: {escape_markdown(active.error)}", icon=":material/error:")

SOURCES = ["Upload a question file", "Example questions for the sample documents"]
source = st.radio("Questions", SOURCES, horizontal=True, label_visibility="collapsed", key="eval-source",
                  index=SOURCES.index(remembered("eval-source", SOURCES[0])))
agent_mode = st.toggle("Agent mode", value=remembered("eval-agent-mode", ws.settings.answer_mode == "agent"),
                       key="eval-agent-mode",
                       help="Answer with the agent's tool loop, as the Chat toggle does. Slower: several model "
                            "calls a question.")
question_set = None
if source.startswith("Upload"):
    upload = st.file_uploader("Question file (CSV or JSONL)", type=["csv", "jsonl", "json"])
    if upload is not None:
        try:
            question_set = parse_questions(upload.getvalue(), upload.name, ws.settings.eval_max_questions)
            source_name = upload.name
        except QuestionFileError as exc:
            st.error(escape_markdown(str(exc)), icon=":material/error:")
else:
    question_set = parse_questions(question_lines(sample_questions()), QUESTIONS_FILENAME, ws.settings.eval_max_questions)
    source_name = QUESTIONS_FILENAME
    missing = missing_samples(ws.indexed_filenames())
    if missing:
        st.caption(f"These questions are about the sample documents; {len(missing)} of them are not loaded yet "
                   "(load them on the home page).")

if question_set is not None:
    for problem in question_set.problems:
        st.warning(escape_markdown(problem), icon=":material/warning:")
    count = len(question_set.questions)
    st.caption(f"{count} question{'s' * (count != 1)} to run:")
    st.dataframe(pd.DataFrame([{"Id": q.id, "Question": q.question, "Expected": q.expected,
                                "File": q.expected_file or "", "Pages": ", ".join(map(str, q.expected_pages))}
                               for q in question_set.questions]),
                 hide_index=True, width="stretch", height=min(38 + 35 * count, 300), key="preview")
    empty = ws.is_empty()
    if empty:
        st.info("The knowledge base is empty: upload documents (or load the samples on the home page) first.")
    if st.button(f"Run {count} question{'s' * (count != 1)}", type="primary", disabled=empty):
        evaluations()[str(folder)] = ws.evaluate_in_background(question_set.questions, source_name,
                                                                mode="agent" if agent_mode else None)
        st.rerun()

runs = list_runs(folder)
if not runs:
    st.info("No evaluation runs yet. Choose a question file and run it; results are kept for comparison.")
    st.stop()

st.divider()
labels = {r["run_id"]: f"{r['started_at'][:16].replace('T', ' ')} · {r['source_name']} · "
                       f"{r['totals']['questions']} questions · {percent(r['totals']['correct'])} right" for r in runs}
chosen = st.session_state.get("evaluation_run")
run_id = st.selectbox("Run", list(labels), format_func=labels.get,
                      index=list(labels).index(chosen) if chosen in labels else 0)
summary = next(r for r in runs if r["run_id"] == run_id)
run = EvalRun(run_id, summary["started_at"], summary["source_name"], load_results(folder, run_id), summary.get("planned", 0))
totals = run.totals

if run.planned > len(run.results):
    st.warning(f"This run stopped after {len(run.results)} of {run.planned} questions.", icon=":material/warning:")
cols = st.columns(5)
cols[0].metric("Answers right", percent(totals.correct), help="Answer matches the expected one (or refuses, when a "
               "refusal is expected).")
cols[1].metric("Retrieval hit", percent(totals.retrieval_hit), help="The expected file and page were among the "
               "sources given to the model. Only questions with an expected file count.")
cols[2].metric("Citations right", percent(totals.citation_correct), help="The answer cites the expected file and page.")
cols[3].metric("Refusals right", percent(totals.refusals_correct),
               help=f"Of {totals.refusal_questions} questions whose answer is not in the documents.")
cols[4].metric("Median time", f"{totals.seconds_median or 0:.1f} s", help=f"{totals.seconds_total:.0f} s in total.")
if totals.errors:
    st.error(f"{totals.errors} question(s) failed with an error; see the 'error' column.", icon=":material/error:")

st.subheader("Confidence calibration")
st.caption("How often answers at each confidence level are right: trustworthy levels are right more often at high "
           "than at medium, and at medium than at low.")
st.dataframe(pd.DataFrame([{"Confidence": c.confidence, "Questions": c.questions, "Right": c.correct,
                            "Accuracy": percent(c.accuracy)} for c in run.calibration]), hide_index=True)

st.subheader("Per question")
table = pd.DataFrame([{**r.__dict__, "answer": place_citations(r.answer)} for r in run.results])  # "[1]", as in Chat
st.dataframe(
    table, hide_index=True, width="stretch",
    column_order=["id", "question", "expected", "answer", "correct", "retrieval_hit", "citation_correct", "confidence",
                  "seconds", "expected_file", "expected_pages", "cited", "sources", "route", "mode", "trace_id", "error"],
    column_config={
        "id": "Id", "question": "Question", "expected": "Expected",
        "answer": st.column_config.TextColumn("Answer", width="large"),
        "correct": "Right", "retrieval_hit": "Retrieval hit", "citation_correct": "Citation right",
        "confidence": "Confidence", "seconds": st.column_config.NumberColumn("Seconds", format="%.1f"),
        "expected_file": "Expected file", "expected_pages": "Expected pages", "cited": "Cited", "sources": "Retrieved",
        "route": "Route", "mode": "Mode", "trace_id": "Trace", "error": "Error",
    },
)
st.download_button("Download results CSV", results_csv(run.results), file_name=f"{run.run_id}.csv", mime="text/csv",
                   type="primary", key="download-results")

st.subheader("Compare with a previous run")
earlier = {k: v for k, v in labels.items() if k != run_id}
left, right = st.columns(2)
previous_id = left.selectbox("Stored run", list(earlier), format_func=earlier.get, index=None,
                             placeholder="Choose a run" if earlier else "No other runs yet")
previous_file = right.file_uploader("or a downloaded results CSV", type=["csv"], key="previous-results")
previous = None
try:
    if previous_file is not None:
        previous = read_results_csv(previous_file.getvalue())
    elif previous_id is not None:
        previous = load_results(folder, previous_id)
except ResultsFileError as exc:
    st.error(escape_markdown(str(exc)), icon=":material/error:")
if previous is not None:
    comparison = compare_runs(previous, run.results)
    st.markdown(f"**{len(comparison.better)} better · {len(comparison.worse)} worse · {comparison.unchanged} unchanged**"
                + (f" · {len(comparison.only_now)} new questions" if comparison.only_now else "")
                + (f" · {len(comparison.only_before)} no longer asked" if comparison.only_before else ""))
    for title, changes in (("Better", comparison.better), ("Worse", comparison.worse)):
        if changes:
            st.markdown(f"**{title}**")
            st.dataframe(pd.DataFrame([{"Question": c.question, "What changed": c.what, "Answer before": c.before.answer,
                                        "Answer now": c.after.answer} for c in changes]), hide_index=True, width="stretch")
