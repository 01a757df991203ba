"""The rolling summary stays small and 'new topic' resets."""
from core.agents.planner import plan_question
from core.config import Settings
from core.conversation import Conversation, is_new_topic, update_summary
from core.embedding import count_tokens

count = count_tokens


def test_new_topic_resets_the_conversation():
    assert is_new_topic("New topic: what is the warranty?")
    plan = plan_question("new topic: and in 2023?", knowledge_base_empty=False, settings=Settings(),
                         previous_question="What was revenue in 2022?")
    assert plan.new_topic and plan.question == "and in 2023?" and plan.asked == ""


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
