"""Reasoner: the seed 000 prompt, a context built from the relevant sentences, continuation."""
import json

from core.agents.reasoner import (
    INSTRUCTIONS_FIRST, NO_INFORMATION, QUOTE, QUOTE_OPTIONAL_FORM, build_prompt, build_sources, reason, select_passage,
)
from core.embedding import count_tokens
from core.llm.scripted import ScriptedLLM
from core.retrieval import RetrievedChunk

count = count_tokens


def chunk(text, n=0, page="3", filename="handbook.pdf"):
    return RetrievedChunk(f"d_{n}", "d", filename, n, text, page, None, None, 0.1, vector_score=0.7)


def test_the_prompt_follows_the_seed_template_and_names_file_and_page():
    sources = build_sources("warranty?", [chunk("The warranty is 25 years.")], 300, count)
    prompt = build_prompt("How long is the warranty?", sources, "bullet")
    assert prompt.startswith("You are a helpful assistant answering questions based only on the provided document context.")
    assert "Question: How long is the warranty?" in prompt
    assert "[Source 1] (handbook.pdf, p. 3)\nThe warranty is 25 years." in prompt
    assert "- Provide the answer as bullet points." in prompt
    assert f'say "{NO_INFORMATION}"' in prompt
    assert "using [Source N] notation" in prompt and prompt.endswith("Answer:")


def test_context_keeps_the_passage_that_matches_the_question_within_budget():
    filler = " ".join(f"Paragraph {i} describes the company history and its offices." for i in range(30))
    text = filler + " The output warranty lasts 25 years. " + filler
    selected = select_passage(text, "How long does the output warranty last?", 40, count)
    assert "The output warranty lasts 25 years." in selected
    assert sum(count([selected])) <= 40


def test_the_passage_is_one_unbroken_piece_of_a_wrapped_pdf_page():
    """Lines picked one by one from a PDF page (half a sentence here, a row without its header
    there) read as noise; the passage is the best stretch, as printed."""
    page = "\n".join([
        "Item 9.01 Financial Statements and Exhibits.", "(d) Exhibits.", "Exhibit No. Description",
        "4.1 Second Supplemental Indenture, dated as of June 30, 2022, among Amcor Finance (USA), Inc.,",
        "Amcor Flexibles North America, Inc. and Deutsche Bank Trust Company Americas, as trustee.",
        *[f"Signature line {i} of the registrant, duly authorized, on behalf of the company." for i in range(12)],
        "Dated: July 5, 2022",
    ])
    selected = select_passage(page, "What was the key agenda of the Amcor 8-K filing dated July 2022?", 60, count)
    assert selected in page
    assert "Indenture, dated as of June 30, 2022, among Amcor Finance (USA), Inc.,\nAmcor Flexibles North America" in selected
    assert sum(count([selected])) <= 60


def test_a_passage_that_runs_out_of_budget_inside_a_wrapped_sentence_finishes_it():
    page = "\n".join([
        *[f"Note {i}: the board met and reviewed the quarterly figures of the group." for i in range(8)],
        "Net income and diluted earnings per share were reduced in fiscal 2025 and 2024 by the effects of the",
        "Inflation Reduction Act of 2022, which set a minimum tax on book income.",
        *[f"Schedule line {i} lists the subsidiaries of the group." for i in range(8)],
    ])
    selected = select_passage(page, "Why were net income and diluted earnings per share reduced in fiscal 2025?", 30, count)
    assert selected.endswith("by the effects of the\nInflation Reduction Act of 2022, which set a minimum tax on book income.")


def test_a_wrapped_sentence_that_starts_mid_line_is_finished_too():
    page = "\n".join([
        *[f"Note {i}: the board met and reviewed the quarterly figures of the group." for i in range(8)],
        "The depot logged 40 calls in the quarter. The main event of the quarter was a power cut at the depot on 14",
        "August, caused by a failed transformer, which lasted 3.5 hours and affected 38 staff.",
        *[f"Schedule line {i} lists the subsidiaries of the group." for i in range(8)],
    ])
    selected = select_passage(page, "What was the main event at the depot in the quarter, the power cut?", 30, count)
    assert selected.endswith("on 14\nAugust, caused by a failed transformer, which lasted 3.5 hours and affected 38 staff."), selected


def test_a_single_line_over_budget_keeps_the_words_around_its_match():
    line = " ".join(f"word{i}" for i in range(200)) + " warranty 25 years " + " ".join(f"more{i}" for i in range(200))
    selected = select_passage(line, "How long is the warranty?", 40, count)
    assert "warranty" in selected and len(selected.split()) == 30


def test_a_short_chunk_is_kept_whole():
    assert select_passage("Line one.\nLine two.", "anything", 100, count) == "Line one.\nLine two."


def test_tokens_stream_and_a_cut_answer_is_continued():
    llm = ScriptedLLM(["The warranty is " + "very " * 10, "25 years [Source 1]."])
    seen = []
    draft = reason("How long is the warranty?", [chunk("The warranty is 25 years.")], llm, style="concise",
                   budget=200, temperature=0.3, max_tokens=5, count_tokens=count, on_token=seen.append)
    assert draft.continued and len(llm.calls) == 2
    assert llm.calls[1][-1]["content"].startswith("Continue the answer")
    assert draft.answer.endswith("25 years [Source 1].")
    assert "".join(seen).startswith("The warranty is")


def test_an_llm_error_is_reported_not_raised():
    from core.llm import LLMUnavailable

    draft = reason("q?", [chunk("x")], ScriptedLLM(fail_with=LLMUnavailable("model missing")), style="concise",
                   budget=100, temperature=0.3, max_tokens=50, count_tokens=count)
    assert draft.error == "model missing" and draft.answer == ""


def test_the_quote_form_keeps_the_seed_prompt_up_to_its_instructions_and_asks_for_the_evidence():
    sources = build_sources("warranty?", [chunk("The warranty is 25 years.")], 300, count)
    free = build_prompt("How long is the warranty?", sources, "concise")
    quote = build_prompt("How long is the warranty?", sources, "concise", QUOTE)
    head = free[: free.index("Instructions:")]
    assert quote.startswith(head) and "[Source 1] (handbook.pdf, p. 3)" in head
    assert '"quote"' in quote and '"source"' in quote and '"answer"' in quote and "- Provide a brief, direct answer." in quote
    assert NO_INFORMATION not in quote  # the check decides a refusal, not the model
    assert "(an empty string if no source states it)" in build_prompt("q?", sources, "concise", QUOTE_OPTIONAL_FORM)


def test_instructions_first_puts_what_never_changes_before_the_passages_and_asks_the_question_after_them():
    """Two answers' prompts share their instructions as a prefix, so the model's cache of it is reused."""
    first = build_prompt("How long is the warranty?", build_sources("warranty?", [chunk("The warranty is 25 years.")],
                                                                    300, count), "concise", QUOTE, INSTRUCTIONS_FIRST)
    second = build_prompt("Who installs it?", build_sources("installs?", [chunk("Acme installs the panels.", 1)],
                                                           300, count), "concise", QUOTE, INSTRUCTIONS_FIRST)
    shared = first[: next(i for i, (a, b) in enumerate(zip(first, second)) if a != b)]
    assert shared.endswith("Context from documents:\n[Source 1] (handbook.pdf, p. 3)\n")
    assert '"quote"' in shared and "- Provide a brief, direct answer." in shared
    assert first.endswith("[Source 1] (handbook.pdf, p. 3)\nThe warranty is 25 years.\n\n"
                          "Question: How long is the warranty?\n\nAnswer as JSON:")


def test_a_quoted_answer_streams_its_words_then_its_citation():
    reply = '{"quote": "The warranty is 25 years.", "source": 1, "answer": "The warranty lasts \\"25\\" years."}'
    llm = ScriptedLLM([reply])
    seen = []
    draft = reason("How long is the warranty?", [chunk("The warranty is 25 years.")], llm, style="concise",
                   budget=200, temperature=0.3, max_tokens=200, count_tokens=count, on_token=seen.append, form=QUOTE)
    assert (draft.quote, draft.quote_source) == ("The warranty is 25 years.", 1)
    assert draft.answer == 'The warranty lasts "25" years. [Source 1]' and "".join(seen) == draft.answer
    assert draft.raw_output == reply


def quoted_answer(question: str, passage: str, quote: str, answer: str) -> str:
    """The answer the quote form gives when the model replies with `quote` and `answer` from one passage."""
    reply = json.dumps({"quote": quote, "source": 1, "answer": answer})
    return reason(question, [chunk(passage)], ScriptedLLM([reply]), style="concise", budget=200, temperature=0.0,
                  max_tokens=200, count_tokens=count, form=QUOTE).answer


def test_a_reason_answered_with_a_few_words_of_its_quote_is_answered_with_the_quoted_sentence():
    sentence = "Net income fell in 2025 because of the one-off restructuring charge at the Leeds plant."
    assert quoted_answer("Why did net income fall in 2025?", sentence, sentence, "the restructuring charge") \
        == f"{sentence} [Source 1]"
    # quoted loosely, answered as printed
    printed = "Net income fell because of the U.S.\ntax change."
    assert quoted_answer("Why did net income fall in 2025?", printed, "Net income fell because of the U. S. tax change.",
                         "the tax change") == "Net income fell because of the U.S. tax change. [Source 1]"
    # a figure asked for stays as the model wrote it
    figure = "Net income was £4.2m in 2025."
    assert quoted_answer("What was net income in 2025?", figure, figure, "£4.2m") == "£4.2m [Source 1]"


def test_a_bare_yes_or_no_is_said_with_the_sentence_it_rests_on():
    rule = "Guests may bring a dog onto the terrace only if it stays on a lead."
    assert quoted_answer("Can guests bring a dog onto the terrace?", rule, rule, "Yes") == f"Yes: {rule} [Source 1]"


def test_a_quoted_reply_cut_short_is_read_as_no_quote_not_raised():
    draft = reason("q?", [chunk("x y z")], ScriptedLLM(['{"quote": "x y']), style="concise", budget=100,
                   temperature=0.3, max_tokens=200, count_tokens=count, form=QUOTE)
    assert draft.error is None and draft.quote == "" and draft.answer == ""


def test_the_reader_reads_at_most_max_sources_chunks():
    chunks = [chunk(f"Fact number {i}.", n=i) for i in range(5)]
    draft = reason("q?", chunks, ScriptedLLM(['{"quote": "", "source": 1, "answer": ""}']), style="concise",
                   budget=300, temperature=0.3, max_tokens=50, count_tokens=count, form=QUOTE, max_sources=2)
    assert draft.num_sources == 2 and "[Source 3]" not in draft.prompt


def test_each_source_shows_whose_document_and_section_it_is_above_its_passage():
    hit = chunk("Net sales were $81.8 billion.")
    hit.context = "Apple Inc. · Form 10-Q · quarter ended July 1, 2023 — Item 2. Results of Operations"
    (source,) = build_sources("What were net sales?", [hit], 300, count)
    assert source.text == f"{hit.context}\nNet sales were $81.8 billion."


def test_the_calc_form_asks_for_figures_and_one_operation_and_reads_them_back():
    from core.agents.reasoner import CALC, CALC_SCHEMA

    sources = build_sources("ratio?", [chunk("Total assets 8,000. Total liabilities 4,000.")], 300, count)
    prompt = build_prompt("What is the ratio of assets to liabilities?", sources, "concise", CALC)
    assert '"figures"' in prompt and '"operation"' in prompt and "percent_change" in prompt
    assert CALC_SCHEMA["properties"]["operation"]["enum"][0] == "none"
    reply = ('{"quote": "Total assets 8,000.", "source": 1, "figures": [{"label": "assets", "value": "8,000"}, '
             '{"label": "liabilities", "value": "4,000"}], "operation": "ratio", "answer": "2"}')
    draft = reason("What is the ratio of assets to liabilities?", [chunk("Total assets 8,000. Total liabilities 4,000.")],
                   ScriptedLLM([reply]), style="concise", budget=200, temperature=0.3, max_tokens=200,
                   count_tokens=count, form=CALC)
    assert draft.figures == [("assets", "8,000"), ("liabilities", "4,000")] and draft.operation == "ratio"


def test_an_operation_outside_the_list_is_read_as_none():
    from core.agents.reasoner import parse_figures

    assert parse_figures('{"figures": [], "operation": "integral"}') == ([], "none")
    assert parse_figures("not json") == ([], "none")



def test_the_line_form_numbers_each_sentence_and_table_row_once():
    """A sentence the PDF wrapped over two lines is one line, a line of two sentences is two, an
    abbreviation ("U.S.") does not end a sentence, and a table row stays a row."""
    from core.agents.reasoner import source_lines

    text = ("ACME CORP · Form 10-Q · Q3 2023\n"
            "Our fiscal years 2023 and 2022 span 53 and 52 weeks. The U.S. Government is a customer\n"
            "of the segment since 2019.\n"
            "Net sales 81,797 82,959")
    assert source_lines(text) == [
        "ACME CORP · Form 10-Q · Q3 2023", "Our fiscal years 2023 and 2022 span 53 and 52 weeks.",
        "The U.S. Government is a customer of the segment since 2019.", "Net sales 81,797 82,959"]


def test_the_line_form_keeps_the_seed_prompt_head_and_asks_for_one_of_the_context_s_line_ids():
    from core.agents.reasoner import LINE, line_schema

    sources = build_sources("weeks?", [chunk("Fiscal 2023 spans 53 weeks."), chunk("Net sales 81,797 82,959", n=1)],
                            300, count)
    free = build_prompt("How many weeks?", sources, "concise")
    prompt = build_prompt("How many weeks?", sources, "concise", LINE)
    assert prompt.startswith(free[: free.index("Context from documents:")])
    assert "[Source 1] (handbook.pdf, p. 3)\nL1 Fiscal 2023 spans 53 weeks." in prompt
    assert "[Source 2] (handbook.pdf, p. 3)\nL2 Net sales 81,797 82,959" in prompt
    assert '"line"' in prompt and '"answer"' in prompt and NO_INFORMATION not in prompt
    assert line_schema(sources)["properties"]["line"]["enum"] == ["L1", "L2"]


def test_the_named_line_is_the_quote_and_its_source_the_quote_s_source():
    from core.agents.reasoner import LINE

    chunks = [chunk("Revenue grew in every segment."), chunk("Fiscal 2023 spans 53 weeks.\nNet sales 81,797", n=1)]
    seen = []
    draft = reason("How many weeks does fiscal 2023 span?", chunks, ScriptedLLM(['{"line": "L2", "answer": "53 weeks"}']),
                   style="concise", budget=300, temperature=0.3, max_tokens=50, count_tokens=count,
                   on_token=seen.append, form=LINE)
    assert (draft.quote, draft.quote_source) == ("Fiscal 2023 spans 53 weeks.", 2)
    assert draft.answer == "53 weeks [Source 2]" and "".join(seen) == draft.answer


def test_a_line_id_that_is_not_in_the_context_is_no_quote():
    """Under the grammar the id is always one of the context's; a provider that ignores the schema
    may write another, which must not become a quote."""
    from core.agents.reasoner import LINE

    draft = reason("q?", [chunk("Fiscal 2023 spans 53 weeks.")], ScriptedLLM(['{"line": "L9", "answer": "53"}']),
                   style="concise", budget=300, temperature=0.3, max_tokens=50, count_tokens=count, form=LINE)
    assert draft.quote == "" and draft.quote_source is None


def test_the_prompts_name_for_the_passages_is_said_as_the_users_documents():
    from core.agents.reasoner import in_users_words

    assert in_users_words("Six wardens are listed in the provided context. [Source 1]") == \
        "Six wardens are listed in the documents. [Source 1]"
    assert in_users_words("According to the context, the fee is £5.") == "According to the documents, the fee is £5."
    assert in_users_words("The contextual note applies.") == "The contextual note applies."
