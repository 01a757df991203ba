"""The rolling summary stays small, follow-ups become standalone questions, 'new topic' resets."""
from core.agents.planner import plan_question
from core.config import Settings
from core.conversation import Conversation, is_new_topic, resolve_follow_up, update_summary
from core.conversation.summary import rewrite_by_rule
from core.embedding import MiniLMEmbedder
from core.llm import LLMTimeout
from core.llm.scripted import ScriptedLLM, scripted_json

count = MiniLMEmbedder().count_tokens


def test_a_year_follow_up_reuses_the_previous_question():
    resolved = resolve_follow_up("and in 2023?", "What was revenue in 2022?")
    assert (resolved.question, resolved.by) == ("What was revenue in 2023?", "rule")


def test_asking_for_another_field_of_the_same_thing_is_rewritten_by_rule_without_a_model():
    model = ScriptedLLM([])  # any call fails the test: the rule parses this completely
    resolved = resolve_follow_up("what about the due date", "What is the invoice date on the Azure Interior invoice?",
                                 model)
    assert (resolved.question, resolved.by) == ("What is the due date on the Azure Interior invoice?", "rule")
    assert rewrite_by_rule("And the total?", "What was the net income of Apple in 2022?") == \
        "What was the total of Apple in 2022?"


def test_narrowing_the_previous_question_is_a_rule():
    assert rewrite_by_rule("only those from 2024", "List every order from Globex") == \
        "List every order from Globex from 2024?"


def test_a_follow_up_the_rules_cannot_parse_is_rewritten_by_one_constrained_model_call():
    model = ScriptedLLM([scripted_json({"standalone_question": "How much do the panels wider than 1.1 m weigh"})])
    resolved = resolve_follow_up("how much do those panels weigh?", "Which panels are wider than 1.1 m?", model)
    assert (resolved.question, resolved.by) == ("How much do the panels wider than 1.1 m weigh?", "model")
    prompt = model.calls[0][0]["content"]
    assert "Which panels are wider than 1.1 m?" in prompt and "how much do those panels weigh?" in prompt
    assert "follow-up to:" not in resolved.question


def test_without_a_usable_model_the_follow_up_is_kept_as_typed_and_the_trace_says_why():
    for model in (None, ScriptedLLM(fail_with=LLMTimeout("no reply")), ScriptedLLM(["not json"])):
        resolved = resolve_follow_up("how much do those panels weigh?", "Which panels are wider than 1.1 m?", model)
        assert resolved.question == "how much do those panels weigh?" and resolved.by == "" and resolved.note


def test_a_pronoun_or_a_verb_in_the_follow_up_is_not_guessed_by_the_rule():
    previous = "What is the invoice date on the Azure Interior invoice?"
    assert rewrite_by_rule("what about its total?", previous) is None
    assert rewrite_by_rule("and how was it paid?", previous) is None


def test_a_standalone_question_is_left_alone():
    question = "What is the warranty period for the HX-450 module?"
    resolved = resolve_follow_up(question, "What was revenue in 2022?", ScriptedLLM([]))
    assert (resolved.question, resolved.by) == (question, "")


def test_new_topic_resets_the_conversation():
    assert is_new_topic("New topic: what is the warranty?")
    plan = plan_question("new topic: and in 2023?", knowledge_base_empty=False, settings=Settings(),
                         previous_question="What was revenue in 2022?")
    assert plan.new_topic and plan.question == "and in 2023?" and plan.asked == ""


def test_the_planner_records_the_question_as_typed():
    plan = plan_question("and in 2023?", knowledge_base_empty=False, settings=Settings(),
                         previous_question="What was revenue in 2022?")
    assert plan.question == "What was revenue in 2023?" and plan.asked == "and in 2023?"


def test_the_summary_keeps_recent_exchanges_within_its_budget():
    conversation = Conversation()
    for i in range(40):
        conversation = update_summary(
            conversation, f"Question number {i} about panel model HX-{i}?",
            f"Panel HX-{i} weighs {i} kg [Source 1]. It has a long second sentence that is dropped.", count,
        )
    assert sum(count([conversation.summary])) <= 350
    assert "HX-39" in conversation.summary and "HX-0 " not in conversation.summary
    assert "[Source" not in conversation.summary and "second sentence" not in conversation.summary
    assert conversation.last_question == "Question number 39 about panel model HX-39?"
