"""The embedding model: the int8 ONNX model by default, measured against the torch reference."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from core.config import Settings
from core.embedding import (
    INT8_MODEL, TORCH_MODEL, EmbeddingModelError, export_int8_model, int8_model_file, make_embedder,
    shared_embedder,
)

ROOT = Path(__file__).resolve().parents[1]
PASSAGES = [
    "The HX-450 solar panel weighs 21.5 kg and measures 1.72 m by 1.13 m.",
    "Invoices are paid within 30 days of receipt unless the supplier agreed other terms.",
    "Burst mains repaired in the fourth quarter: 118, against 97 a year earlier.",
    "The committee approved the new pump station at Corrie Hill for £2.4 million.",
    "Staff may approve purchases up to £500 without a second signature.",
]
QUERIES = {
    "How heavy is the HX-450 panel?": 0,
    "When do we pay supplier invoices?": 1,
    "How many burst mains were fixed in Q4?": 2,
    "What did the committee decide about Corrie Hill?": 3,
    "What is the spending limit without a second signature?": 4,
}


@pytest.fixture(scope="module")
def int8():
    return shared_embedder(Settings(embedding_model=INT8_MODEL))


@pytest.fixture(scope="module")
def reference():
    return shared_embedder(Settings(embedding_model=TORCH_MODEL))


def test_the_default_is_the_int8_model(embedder):
    assert Settings().embedding_model == INT8_MODEL
    assert embedder.model_name == INT8_MODEL


def test_a_text_has_one_unit_length_vector_whatever_texts_are_embedded_with_it(int8):
    together = int8.embed(PASSAGES)
    alone = np.vstack([int8.embed([text]) for text in reversed(PASSAGES)])[::-1]

    assert together.shape == (5, 384) and together.dtype == np.float32
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(together, alone)  # a passage embedded at ingest and again as a query match
    assert int8.embed([]).shape == (0, 384)


def test_int8_vectors_stay_close_to_the_torch_reference_and_rank_passages_alike(int8, reference):
    cosine = (int8.embed(PASSAGES) * reference.embed(PASSAGES)).sum(axis=1)
    assert cosine.min() > 0.97

    for embedder in (int8, reference):
        scores = embedder.embed(list(QUERIES)) @ embedder.embed(PASSAGES).T
        assert list(scores.argmax(axis=1)) == list(QUERIES.values())


def test_a_text_longer_than_the_model_reads_is_cut_at_its_limit_as_the_reference_cuts_it(int8, reference):
    long_text = " ".join(f"clause {i} of the supply agreement covers delivery." for i in range(120))
    tail_changed = long_text + " An unrelated sentence about penguins at the very end."

    for embedder in (int8, reference):
        first, second = embedder.embed([long_text, tail_changed])
        assert float(first @ second) > 0.9999  # both read only the first 256 word pieces


def test_an_unknown_model_name_is_refused_with_the_choices(tmp_path):
    with pytest.raises(EmbeddingModelError) as error:
        make_embedder("all-mpnet-base-v2", cache_dir=tmp_path)
    assert INT8_MODEL in str(error.value) and TORCH_MODEL in str(error.value)


def test_the_int8_model_is_exported_once_from_the_packaged_model_and_then_reused(tmp_path):
    path = export_int8_model(tmp_path)
    made = path.stat().st_mtime_ns

    assert path == int8_model_file(tmp_path) and path.stat().st_size > 10_000_000
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no scratch file left behind
    assert export_int8_model(tmp_path).stat().st_mtime_ns == made


def test_searching_needs_no_torch(tmp_path):
    """The query path of the default model: a search in a fresh process never imports torch."""
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from core.config import Settings\n"
        "from core.workspace import Workspace\n"
        f"ws = Workspace(Settings(data_dir=Path({str(tmp_path / 'kb')!r})))\n"
        "ws.embedder.embed(['How heavy is the panel?'])\n"
        "ws.retriever.search('How heavy is the panel?')\n"
        "print('torch' in sys.modules)\n"
    )
    child = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True,
                           env={"HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"}, timeout=120)
    assert child.returncode == 0, child.stderr
    assert child.stdout.strip().splitlines()[-1] == "False"
