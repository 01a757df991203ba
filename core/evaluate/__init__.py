"""Evaluate on your own documents: a question file with expected answers, run through the same
pipeline as Chat, scored per question (answer match, retrieval hit, citation, refusal, time) and
in total (with accuracy per confidence level), kept under the data dir, compared run to run."""
from core.evaluate.history import list_runs, load_results, save_run
from core.evaluate.questions import EvalQuestion, QuestionFileError, QuestionSet, parse_questions
from core.evaluate.report import Comparison, ResultsFileError, compare_runs, read_results_csv, results_csv
from core.evaluate.runner import EvalResult, EvalRun, Totals, run_evaluation

__all__ = [
    "Comparison", "EvalQuestion", "EvalResult", "EvalRun", "QuestionFileError", "QuestionSet", "ResultsFileError",
    "Totals", "compare_runs", "list_runs", "load_results", "parse_questions", "read_results_csv", "results_csv",
    "run_evaluation", "save_run",
]
