"""PII redaction (seed 003): personal data becomes a placeholder and a flag; the figures of
ordinary financial documents pass through untouched."""
import pytest

from core.safety.pii import StreamRedactor, iban_valid, luhn_valid, redact_pii


@pytest.mark.parametrize("text, kind, placeholder", [
    ("Mail jane.doe+tax@example.co.uk about it", "email", "[e-mail address hidden]"),
    ("Call (415) 555-0132 tomorrow", "phone", "[phone number hidden]"),
    ("Call 415-555-0132 tomorrow", "phone", "[phone number hidden]"),
    ("Call +44 20 7946 0958 tomorrow", "phone", "[phone number hidden]"),
    ("Call +1 (651) 733-1110 tomorrow", "phone", "[phone number hidden]"),
    ("Ring 020 7946 0958 tomorrow", "phone", "[phone number hidden]"),
    ("Tel: 5550132 (office)", "phone", "[phone number hidden]"),
    ("Paid with 4111 1111 1111 1111 on Monday", "card_number", "[card number hidden]"),
    ("Paid with 4111-1111-1111-1111 on Monday", "card_number", "[card number hidden]"),
    ("Paid with 5500005555555559 on Monday", "card_number", "[card number hidden]"),
    ("Paid with 3782 822463 10005 on Monday", "card_number", "[card number hidden]"),
    ("Transfer to GB82 WEST 1234 5698 7654 32 today", "iban", "[IBAN hidden]"),
    ("Transfer to DE89370400440532013000 today", "iban", "[IBAN hidden]"),
    ("Debit account no. 12345678 monthly", "account_number", "[account number hidden]"),
    ("Account number: 0012 3456 7890 please", "account_number", "[account number hidden]"),
    ("Sort code 20-00-00 at Barclays", "account_number", "[account number hidden]"),
    ("Routing number 021000021 for wires", "account_number", "[account number hidden]"),
    ("Her SSN is 123-45-6789.", "ssn", "[social security number hidden]"),
    ("SSN: 123456789 on file", "ssn", "[social security number hidden]"),
    ("NI number QQ 12 34 56 C is wrong but AB 12 34 56 C is valid", "national_insurance_number", "[national insurance number hidden]"),
])
def test_each_kind_of_personal_data_is_replaced_by_its_placeholder(text, kind, placeholder):
    result = redact_pii(text)
    assert placeholder in result.text
    assert result.kinds == [kind] and result.flags == [f"pii_redacted:{kind}"]


def test_the_label_stays_and_only_the_number_goes():
    assert redact_pii("Debit account no. 12345678 monthly").text == "Debit account no. [account number hidden] monthly"
    assert redact_pii("Tel: 5550132 (office)").text == "Tel: [phone number hidden] (office)"


def test_several_kinds_are_reported_once_each():
    result = redact_pii("a@b.com, c@d.org, call 415-555-0132, card 4111111111111111")
    assert result.text == "[e-mail address hidden], [e-mail address hidden], call [phone number hidden], card [card number hidden]"
    assert sorted(result.kinds) == ["card_number", "email", "phone"]


@pytest.mark.parametrize("text", [
    "Revenue was $1,234.56 million in FY2022, up from $82,959 million.",
    "Net sales 2021 2022 2023: 300 450 1200",
    "See page 12 and pages 45-46 of the 2023 10-Q (Q3 2023).",
    "Invoice INV-2023-0042 dated 2023-08-03, invoice no. 123456789, total 1.234,56 EUR",
    "Commission File Number 001-37580; I.R.S. Employer Identification No. 41-0417775",
    "ISIN US0378331005, CUSIP 037833100",
    "Operating income of 12,345,678 and 1234567890123 shares",  # 13 digits failing Luhn
    "The accounts receivable balance was 4,111,111,111,111,111.",
    "Accounted for 25% of revenue; account balances 2022 2023",
    "Part number HX-450-2023, model 555-12-3456-A",
    "iPhone 2022 2023 2024 unit sales, Mobile 2022 2023",
    "Temperature range -40 to +85 °C, +12.5% growth",
])
def test_ordinary_document_figures_are_left_alone(text):
    result = redact_pii(text)
    assert result.text == text and result.kinds == []


def test_checksums_decide_for_bare_digit_runs():
    assert luhn_valid("4111111111111111") and not luhn_valid("4111111111111112")
    assert iban_valid("GB82 WEST 1234 5698 7654 32") and not iban_valid("GB83 WEST 1234 5698 7654 32")
    assert redact_pii("card 4111111111111112").kinds == []  # fails Luhn: an ordinary number


def test_empty_and_missing_text_is_fine():
    assert redact_pii("").text == "" and redact_pii(None).text == ""


def test_a_streamed_answer_is_redacted_before_it_is_shown():
    answer = ("The vendor can be reached at billing@acme-supplies.com or on (415) 555-0132; " * 3
              + "the total was $1,234.56 [Source 1].")
    shown: list[str] = []
    stream = StreamRedactor(shown.append)
    for i in range(0, len(answer), 3):  # tokens that cut through the e-mail and the phone number
        stream(answer[i:i + 3])
    stream.flush()
    assert "".join(shown) == redact_pii(answer).text
    assert "@" not in "".join(shown) and stream.kinds == ["email", "phone"]
    assert len(shown) > 1  # released as it goes, not only at the end


def test_the_first_words_are_shown_once_the_stream_has_moved_past_them():
    shown: list[str] = []
    stream = StreamRedactor(shown.append)
    for word in ("The HX-450 panel measures 1903 by 1134 by 30 millimetres and weighs 24.2 kg, "
                 "according to its datasheet").split(" "):
        stream(word + " ")
    assert "".join(shown).startswith("The HX-450 panel measures")  # before the answer is finished


# --- in the pipeline: the question before it is logged or sent, the answer before it is shown ----

def test_personal_data_never_reaches_the_log_the_model_or_the_screen_when_answers_are_redacted(make_workspace, write_text):
    from core.llm.scripted import ScriptedLLM

    ws = make_workspace()
    ws.llm = ws.pipeline.llm = ScriptedLLM(lambda messages: "Support is reached on 415-555-0132 [Source 1].")
    ws.ingestor.ingest_paths([write_text("support.txt", "Support questions are answered by the support desk.")])
    shown: list[str] = []

    response = ws.ask("Who answers support questions? Reply to jane.doe@example.com", on_token=shown.append,
                      redact_answers=True)

    assert "jane.doe@example.com" not in ws.llm.calls[0][0]["content"]
    saved = ws.kb.catalog.turn(response.trace_id)
    assert saved["question"] == "Who answers support questions? Reply to [e-mail address hidden]"
    assert "jane.doe" not in str(saved)  # nowhere in the persisted turn or its trace
    assert response.answer.startswith("Support is reached on [phone number hidden]")
    assert "555" not in "".join(shown) and "[phone number hidden]" in "".join(shown)
    assert {"pii_redacted:email", "pii_redacted:phone"} <= set(response.safety_flags)


def test_by_default_the_answer_shows_what_the_users_own_documents_state_and_the_question_is_still_redacted(
        make_workspace, write_text):
    from core.llm.scripted import ScriptedLLM

    ws = make_workspace()
    assert ws.settings.redact_answers is False
    ws.llm = ws.pipeline.llm = ScriptedLLM(lambda messages: "Support is reached on 415-555-0132 [Source 1].")
    ws.ingestor.ingest_paths([write_text("support.txt", "Support is reached on 415-555-0132.")])
    shown: list[str] = []

    response = ws.ask("What number reaches support? I am jane.doe@example.com", on_token=shown.append)

    assert "jane.doe@example.com" not in ws.llm.calls[0][0]["content"]
    assert response.answer.startswith("Support is reached on 415-555-0132")
    assert "415-555-0132" in "".join(shown)
    assert "pii_redacted:phone" not in response.safety_flags and "pii_redacted:email" in response.safety_flags


def test_a_hidden_value_and_its_flag_read_as_plain_words():
    from core.safety.pii import hidden_label

    assert redact_pii("Call 415-555-0132").text == "Call [phone number hidden]"
    assert hidden_label("pii_redacted:phone") == "phone number hidden"
    assert hidden_label("pii_redacted:email") == "e-mail address hidden"
    assert hidden_label("no_citation") is None


def test_the_spans_of_personal_data_leave_its_label_and_the_figures_around_it():
    from core.safety.pii import personal_data_spans

    text = "Tel: 020 7946 0958, invoice INV-2023-0042 for $1,234.56; mail jo@example.com"
    assert [text[a:b] for a, b in personal_data_spans(text)] == ["020 7946 0958", "jo@example.com"]


def test_hidden_answers_hide_the_same_data_in_the_passages_shown_as_their_sources(make_workspace, write_text):
    from core.llm.scripted import ScriptedLLM

    ws = make_workspace()
    ws.llm = ws.pipeline.llm = ScriptedLLM(lambda messages: "Support is reached on 415-555-0132 [Source 1].")
    ws.ingestor.ingest_paths([write_text("support.txt", "Support is reached on 415-555-0132 from nine to five.")])
    response = ws.ask("How is support reached?", redact_answers=True)
    assert response.personal_data_hidden and response.citations
    assert all("415-555-0132" not in c.snippet and "415-555-0132" not in c.quote for c in response.citations)
    shown = ws.ask("How is support reached?")  # the user's own documents, as they are
    assert not shown.personal_data_hidden and any("415-555-0132" in c.snippet for c in shown.citations)
