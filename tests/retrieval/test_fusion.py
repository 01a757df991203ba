"""Reciprocal rank fusion and the enumeration/reasoning weighting of seed 002."""
from core.retrieval.fusion import is_enumeration, reciprocal_rank_fusion, semantic_weight


def test_an_item_found_by_both_retrievers_beats_one_found_by_one():
    fused = reciprocal_rank_fusion({"bm25": ["a", "b"], "vector": ["b", "c"]}, {"bm25": 0.5, "vector": 0.5})
    assert [item for item, _ in fused] == ["b", "a", "c"]


def test_weights_decide_between_the_retrievers():
    rankings = {"bm25": ["keyword_hit"], "vector": ["semantic_hit"]}
    assert reciprocal_rank_fusion(rankings, {"bm25": 0.7, "vector": 0.3})[0][0] == "keyword_hit"
    assert reciprocal_rank_fusion(rankings, {"bm25": 0.3, "vector": 0.7})[0][0] == "semantic_hit"


def test_fused_score_is_the_weighted_sum_of_reciprocal_ranks():
    [(item, score)] = reciprocal_rank_fusion({"bm25": ["x"], "vector": ["x"]}, {"bm25": 0.3, "vector": 0.7}, k=60)
    assert item == "x" and abs(score - (0.3 / 61 + 0.7 / 61)) < 1e-12


def test_enumeration_questions_lean_on_keywords():
    assert is_enumeration("List all receipts with tyres")
    assert is_enumeration("How many orders did ACME place?")
    assert not is_enumeration("Why did revenue fall in 2022?")
    assert semantic_weight("list every panel", 0.3, 0.7) == 0.3
    assert semantic_weight("explain the warranty", 0.3, 0.7) == 0.7


def test_a_question_naming_a_code_keeps_the_reasoning_weight():
    assert semantic_weight("What was 3M's FY2018 capital expenditure?", 0.3, 0.7) == 0.7
