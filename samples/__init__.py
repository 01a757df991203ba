"""Demo data for a first-time user: five fictional documents and the example questions they answer.

Not part of the product (`core` never imports it): the home page offers the documents, the Evaluate
page the question file, and the tests and benchmarks use both as known data.
"""
from samples.documents import ALL_FILES, check_samples, make_samples, missing_samples
from samples.questions import FILENAME as QUESTIONS_FILENAME
from samples.questions import question_lines, sample_questions, write_sample_questions

__all__ = ["ALL_FILES", "QUESTIONS_FILENAME", "check_samples", "make_samples", "missing_samples",
           "question_lines", "sample_questions", "write_sample_questions"]
