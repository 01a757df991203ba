"""The mark of a test that needs the shipped language model (Qwen2.5-Coder-1.5B): skipped where its
parts are not installed."""
import pytest

from core.llm.model_file import ModelFileError, part_paths

try:
    part_paths()
    HAVE_MODEL = True
except ModelFileError:
    HAVE_MODEL = False

requires_model = pytest.mark.skipif(not HAVE_MODEL, reason="the Qwen2.5-Coder-1.5B model parts are not installed")
