"""The marks of a test that needs the shipped language model (Qwen2.5-Coder-1.5B): skipped where its
parts are not installed."""
import pytest

from core.llm.model_file import ModelFileError, part_paths

try:
    part_paths()
    HAVE_MODEL = True
except ModelFileError:
    HAVE_MODEL = False

# Under pytest-xdist (scripts/test.sh) these tests run one after another on one worker: two llama.cpp
# processes on 2 cores slow each other 5-10x.
requires_model = [
    pytest.mark.skipif(not HAVE_MODEL, reason="the Qwen2.5-Coder-1.5B model parts are not installed"),
    pytest.mark.xdist_group("real_model"),
]
