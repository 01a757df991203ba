"""The fast BM25 (bm25s) ranks like the reference implementation (rank_bm25), and persists."""
from __future__ import annotations

import math
import random

import numpy as np
from rank_bm25 import BM25Okapi

from core.store.keyword import KeywordIndex, tokenize


class LuceneIdfBM25(BM25Okapi):
    """rank_bm25's Okapi scorer with Lucene's IDF, the variant our index uses. Its TF part differs
    from Lucene's only by the constant factor (k1 + 1), which does not change a ranking."""

    def _calc_idf(self, nd):
        for word, freq in nd.items():
            self.idf[word] = math.log(1 + (self.corpus_size - freq + 0.5) / (freq + 0.5))


def _corpus(seed: int = 7, size: int = 400) -> list[str]:
    rng = random.Random(seed)
    common = ["panel", "solar", "warranty", "install", "receipt", "order"]
    vocab = [f"term{i}" for i in range(600)]
    docs = []
    for _ in range(size):
        words = [rng.choice(common) if rng.random() < 0.3 else rng.choice(vocab) for _ in range(rng.randint(8, 80))]
        docs.append(" ".join(words))
    return docs


def test_bm25s_ranks_a_corpus_exactly_like_rank_bm25():
    texts = _corpus()
    ids = [f"c{i}" for i in range(len(texts))]
    fast = KeywordIndex()
    fast.build(ids, texts)
    reference = LuceneIdfBM25([tokenize(t) for t in texts])
    rng = random.Random(3)
    for _ in range(60):
        query = " ".join(rng.sample(["panel", "solar", "warranty"] + [f"term{i}" for i in range(600)], 3))
        expected_scores = reference.get_scores(tokenize(query))
        expected = [ids[i] for i in np.argsort(-expected_scores, kind="stable")[:10] if expected_scores[i] > 0]
        got = [hit.chunk_id for hit in fast.search(query, 10)]
        # Same order, position by position; only exact ties (float32 vs float64) may swap.
        reference_score = dict(zip(ids, expected_scores))
        assert len(got) == len(expected), query
        assert np.allclose(
            [reference_score[c] for c in got], [reference_score[c] for c in expected], rtol=1e-5
        ), query


def test_tokenizer_keeps_identifiers_and_folds_plurals():
    assert tokenize("The 10-Q shows Orders of HX-400 at 3.5%") == ["10-q", "show", "order", "hx-400", "3.5"]


def test_search_can_be_limited_to_some_chunks():
    index = KeywordIndex()
    index.build(["a_0", "b_0", "b_1"], ["tyre change receipt", "tyre rotation", "brake pads"])
    assert {h.chunk_id for h in index.search("tyre", 5)} == {"a_0", "b_0"}
    assert [h.chunk_id for h in index.search("tyre", 5, allowed_ids={"b_0", "b_1"})] == ["b_0"]
    assert index.search("tyre", 5, allowed_ids={"zzz"}) == []
    assert index.search("the of and", 5) == []


def test_the_index_survives_a_save_and_load(tmp_path):
    index = KeywordIndex()
    index.build(["a_0", "b_0"], ["tyre change receipt", "brake pads"], stamp="7")
    index.save(tmp_path / "kw")

    loaded = KeywordIndex.load(tmp_path / "kw")

    assert loaded.stamp == "7"
    assert [h.chunk_id for h in loaded.search("brake", 5)] == ["b_0"]
    assert KeywordIndex.load(tmp_path / "missing") is None
