"""A follow-up becomes a standalone question that keeps the previous question's measure and
conditions and replaces only what the user changed: by rule where the rule is sure (the stored tables
say two names are of one kind), else by one constrained model call whose rewrite code checks."""
from core.conversation import resolve_follow_up
from core.conversation.follow_up import rewrite_by_rule, rewrite_problems
from core.llm import LLMTimeout
from core.llm.scripted import ScriptedLLM, scripted_json
from tests.conversation.bakery import FIRST, stored_columns

def test_a_name_of_the_same_kind_replaces_the_previous_one_and_keeps_the_rest():
    assert rewrite_by_rule("What about Fernley Green?", FIRST, stored_columns) == \
        "What were Fernley Green's sourdough sales in 2024?"
    assert rewrite_by_rule("And Ashgate?", FIRST, stored_columns) == "What were Ashgate's sourdough sales in 2024?"
    assert rewrite_by_rule("and for kingsmoor?", FIRST, stored_columns) == "What were kingsmoor's sourdough sales in 2024?"
    # Another product replaces the product, not the shop: the tables hold it in the product column.
    assert rewrite_by_rule("and croissants?", FIRST, stored_columns) == "What were Millbrook's croissants sales in 2024?"
    assert rewrite_by_rule("How about Ashgate in 2023?", FIRST, stored_columns) == \
        "What were Ashgate's sourdough sales in 2023?"


def test_the_site_in_an_electricity_bill_question_is_replaced_not_the_bill():
    previous = "What was Hartwell's electricity bill for 2024?"
    assert rewrite_by_rule("What about Corrie Hill?", previous) == "What was Corrie Hill's electricity bill for 2024?"
    assert rewrite_by_rule("And Brindlecote?", previous) == "What was Brindlecote's electricity bill for 2024?"


def test_without_stored_values_only_a_sole_proper_name_is_replaced_by_rule():
    assert rewrite_by_rule("what about the Ovenmaster X3?", "When does the warranty of the Ovenmaster X2 expire?") == \
        "When does the warranty of the Ovenmaster X3 expire?"
    assert rewrite_by_rule("And Ashgate?", "How many rye loaves did Millbrook sell in 2024?") == \
        "How many rye loaves did Ashgate sell in 2024?"
    # Two names and nothing saying which is a shop: not the rule's to guess.
    assert rewrite_by_rule("And Ashgate?", "How many loaves did Priya sell at Millbrook in 2024?") is None
    assert rewrite_by_rule("And Ashgate?", "How many loaves did Priya sell at Millbrook in 2024?",
                           lambda texts: {t: {"shop"} for t in texts if t in ("millbrook", "ashgate")}) == \
        "How many loaves did Priya sell at Ashgate in 2024?"


def test_a_period_replaces_the_period_of_its_kind():
    assert rewrite_by_rule("and in 2023?", FIRST, stored_columns) == "What were Millbrook's sourdough sales in 2023?"
    assert rewrite_by_rule("and in March?", "How many croissants did Ashgate sell in February 2024?") == \
        "How many croissants did Ashgate sell in March 2024?"
    assert rewrite_by_rule("and Q3?", "What were Kingsmoor's sales in Q2 2024?") == "What were Kingsmoor's sales in Q3 2024?"
    assert rewrite_by_rule("and in 2023?", "What were Kingsmoor's total sales?") == \
        "What were Kingsmoor's total sales in 2023?"
    assert rewrite_by_rule("and in 2023?", "What was revenue in 2022?") == "What was revenue in 2023?"
    # One year for two: which one it replaces is not clear.
    assert rewrite_by_rule("and in 2023?", "How did Millbrook's sales change from 2021 to 2022?") is None


def test_an_aggregate_replaces_the_aggregate():
    assert rewrite_by_rule("and the average?", "What was the total of Ashgate's sales in 2024?", stored_columns) == \
        "What was the average of Ashgate's sales in 2024?"
    assert rewrite_by_rule("and the lowest?", "Which shop had the highest sourdough sales in 2024?", stored_columns) == \
        "Which shop had the lowest sourdough sales in 2024?"
    assert rewrite_by_rule("how about the quietest?", "Which was Ashgate's busiest day in 2024?", stored_columns) == \
        "Which was Ashgate's quietest day in 2024?"
    # No aggregate to replace: one goes to whose figure it is, not the lookup rule's "the average of 2024".
    assert rewrite_by_rule("and the average?", FIRST, stored_columns) == "What were Millbrook's average sourdough sales in 2024?"
    assert rewrite_by_rule("and the average?", "What was the revenue of Millbrook's sourdough loaves in 2024?") is None
    # "interest" is no superlative: it is the field asked for instead.
    assert rewrite_by_rule("and the interest?", "What was the highest loan in 2024?") == "What was the interest in 2024?"


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


def test_the_model_rewrite_keeps_every_condition_the_user_did_not_replace():
    model = ScriptedLLM([scripted_json({"standalone_question": "What were Ashgate's sourdough sales in 2024?"})])
    resolved = resolve_follow_up("and how did Ashgate do?", FIRST, model, value_columns=stored_columns)
    assert (resolved.question, resolved.by) == ("What were Ashgate's sourdough sales in 2024?", "model")

    dropped = ScriptedLLM([scripted_json({"standalone_question": "What were Ashgate's sales?"})])
    resolved = resolve_follow_up("and how did Ashgate do?", FIRST, dropped, value_columns=stored_columns)
    assert resolved.unclear and resolved.question == "and how did Ashgate do?" and resolved.by == ""
    assert resolved.note.endswith("leaves out 2024, sourdough")


def test_a_rewrite_is_checked_for_what_it_lost_kept_or_only_joined():
    def problems(follow_up: str, rewrite: str, previous: str = FIRST) -> list[str]:
        return rewrite_problems(previous, follow_up, rewrite, stored_columns)

    assert problems("What about Fernley Green?", "What was the Fernley Green for 2024?") == \
        ["leaves out sourdough, sales"]
    assert problems("What about Fernley Green?", "What were Millbrook's sourdough sales in 2024?") == \
        ["leaves out Fernley Green", "still says Millbrook"]
    assert problems("and in 2023?", "What were Millbrook's sourdough sales?") == ["leaves out 2023"]
    assert problems("What about Fernley Green in 2023?", "What were Fernley Green's sourdough sales in 2023?") == []
    assert problems("and Kingsmoor?", "Which orders from Kingsmoor were there?",
                    "Which orders from Ashgate were over 2,000?") == ["leaves out 2,000"]
    # The product the user named instead is added beside the old one: another question.
    assert problems("and croissants?", "What were Millbrook's croissants with sourdough sales in 2024?") == \
        ["still says sourdough"]
    assert problems("and the ones that were delayed?", "Which orders that were delayed came from Millbrook in 2024?",
                    "Which orders that were cancelled came from Millbrook in 2024?") == []  # "that" joins nothing
    # What the small model writes when it cannot rewrite: the two questions joined.
    assert problems("and the average?", "What were Millbrook's sourdough sales in 2024 and the average?") == \
        ["joins the two questions instead of rewriting the previous one"]
    assert problems("how much do those panels weigh?", "Which panels are wider than 1.1 m? How much do those weigh?",
                    "Which panels are wider than 1.1 m?") == ["joins the two questions instead of rewriting the previous one"]


def test_without_a_usable_model_the_follow_up_is_kept_as_typed_and_the_trace_says_why():
    for model in (None, ScriptedLLM(fail_with=LLMTimeout("no reply")), ScriptedLLM(["not json"])):
        resolved = resolve_follow_up("how much do those panels weigh?", "Which panels are wider than 1.1 m?", model)
        assert resolved.question == "how much do those panels weigh?" and resolved.by == "" and resolved.note


def test_a_pronoun_or_a_verb_in_the_follow_up_is_not_guessed_by_the_rule():
    previous = "What is the invoice date on the Azure Interior invoice?"
    assert rewrite_by_rule("what about its total?", previous) is None
    assert rewrite_by_rule("and how was it paid?", previous) is None


def test_a_person_the_previous_question_named_is_meant_by_she_or_he():
    from core.conversation.follow_up import is_follow_up
    assert is_follow_up("How many loaves did she bake?") and is_follow_up("What did he sell in May?")
    model = ScriptedLLM([scripted_json({"standalone_question": "How many loaves did Zoë bake?"})])
    resolved = resolve_follow_up("How many loaves did she bake?", "How many shifts did Zoë work?", model)
    assert (resolved.question, resolved.by) == ("How many loaves did Zoë bake?", "model")


def test_their_with_no_owner_named_before_it_points_at_the_previous_question():
    from core.conversation.follow_up import is_follow_up
    assert is_follow_up("How many of their deliveries arrived damaged last spring?")
    assert not is_follow_up("What must tenants do before they sublet their flat?")  # the tenants' flat
    model = ScriptedLLM([scripted_json({"standalone_question": "How many of Acme Freight's deliveries arrived damaged in 2024?"})])
    resolved = resolve_follow_up("How many of their deliveries arrived damaged?", "What did we pay Acme Freight in 2024?", model)
    assert resolved.by == "model" and "Acme Freight" in resolved.question


def test_a_standalone_question_is_left_alone():
    question = "What is the warranty period for the HX-450 module?"
    resolved = resolve_follow_up(question, "What was revenue in 2022?", ScriptedLLM([]))
    assert (resolved.question, resolved.by) == (question, "")
    # Opening with "also" made it look like a follow-up; the model gives it back whole, so it stands alone.
    question = "Also, what is the warranty period of the Ovenmaster X2?"
    model = ScriptedLLM([scripted_json({"standalone_question": "What is the warranty period of the Ovenmaster X2?"})])
    resolved = resolve_follow_up(question, FIRST, model, value_columns=stored_columns)
    assert (resolved.question, resolved.by, resolved.unclear) == (question, "", False)


def test_they_after_a_ranking_is_the_one_name_it_answered_with_and_no_model_is_asked():
    previous = "Which baker worked the most shifts in May?"
    resolved = resolve_follow_up("How many loaves did they bake?", previous, ScriptedLLM([]), previous_subject="Zoë Hart")
    assert (resolved.question, resolved.by) == ("How many loaves did Zoë Hart bake?", "rule")
    resolved = resolve_follow_up("What was her best month?", previous, ScriptedLLM([]), previous_subject="Zoë Hart")
    assert resolved.question == "What was Zoë Hart's best month?"
    # no whole question: the last question's measure is kept by the other rules or the model, not dropped here
    model = ScriptedLLM([scripted_json({"standalone_question": "How many shifts did Zoë Hart work in June?"})])
    resolved = resolve_follow_up("And them in June?", previous, model, previous_subject="Zoë Hart")
    assert resolved.by != "rule"
