"""A new user's first ten minutes (issue 16), through AppTest with the scripted model: an honest
status while waiting, an empty chat that shows what is loaded and what to ask, answers without
machinery, and the small things on every page."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from core.llm.scripted import NO_INFORMATION, ScriptedLLM, extractive_answer
from tests.ui.apptest import HANDBOOK, answer_markdown, open_page

ORDERS = ("order_id,date,customer,total\n" + "\n".join(
    f"O{i},2024-0{1 + i % 9}-10,{'ACME' if i % 3 == 0 else 'Globex'},{i}.00" for i in range(1, 31))).encode()


def upload(at: AppTest, files) -> AppTest:
    open_page(at, "1_Upload.py")
    at.file_uploader[0].set_value(files)
    at.button[0].click().run()
    assert not at.exception, at.exception
    return at


def ask(at: AppTest, question: str) -> AppTest:
    open_page(at, "2_Chat.py")
    at.chat_input[0].set_value(question).run()
    assert not at.exception, at.exception
    return at


def blocks(at: AppTest, kind: str) -> list:
    found, stack = [], [getattr(at, "_tree", at)]
    while stack:
        node = stack.pop()
        if getattr(node, "type", None) == kind:
            found.append(node)
        stack.extend(getattr(node, "children", {}).values())
    return found


def texts(at: AppTest) -> str:
    return "\n".join(str(e.value) for e in (*at.markdown, *at.text, *at.caption, *at.info, *at.success, *at.error,
                                            *at.warning))


# --- 1. waiting --------------------------------------------------------------------------------

def test_the_status_lists_the_steps_that_ran_and_never_claims_agent_mode_when_it_is_off(app):
    upload(app, [("handbook.txt", HANDBOOK, "text/plain")])
    ask(app, "How long is the output warranty?")

    [status] = blocks(app.chat_message[1], "status")
    assert status.proto.label.startswith("Done in ") and status.proto.label.endswith(" s")
    steps = "\n".join(m.value for m in status.markdown)
    assert "**Retriever**" in steps and "**Validator**" in steps and " s)" in steps
    assert "Agent" not in status.proto.label and "Agent:" not in steps


def test_opening_the_app_starts_loading_the_model_and_home_shows_its_state(tmp_path, monkeypatch):
    from core.llm.base import ChatLLM
    from tests.ui.apptest import ROOT, RUN_TIMEOUT

    started = []
    monkeypatch.setattr(ChatLLM, "load_in_background", lambda self: started.append(self.name))
    monkeypatch.setattr(ChatLLM, "loading", property(lambda self: bool(started)))
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("DOCUCHAT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DOCUCHAT_LLM_PROVIDER", "scripted")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=RUN_TIMEOUT)
    at.run()
    assert not at.exception, at.exception
    assert started == ["scripted"]  # at start-up, not inside the first question
    assert any(i.value == "scripted" for i in at.info)  # shown as loading (an info box, not green yet)


# --- 2. an empty chat --------------------------------------------------------------------------

def test_an_empty_chat_shows_what_is_loaded_and_example_questions_from_the_documents(app):
    upload(app, [("handbook.txt", HANDBOOK, "text/plain"), ("orders.csv", ORDERS, "text/csv")])
    open_page(app, "2_Chat.py")

    assert "2 documents: 1 text file and 1 CSV table." in texts(app)
    examples = [b for b in app.button if b.key and b.key.startswith("example-")]
    labels = [b.label for b in examples]
    assert "What is the total per customer in orders.csv?" in labels  # from the table's own columns
    assert any("handbook.txt" in label for label in labels)

    next(b for b in examples if "orders.csv" in b.label).click().run()
    assert not app.exception, app.exception
    assert app.chat_message[0].text[0].value == "What is the total per customer in orders.csv?"  # asked as if typed
    assert not [b for b in app.button if b.key and b.key.startswith("example-")]  # no longer empty


# --- 3. answers without machinery --------------------------------------------------------------

def test_a_refusal_folds_its_closest_passages_into_one_closed_section(app, monkeypatch):
    monkeypatch.setattr(ScriptedLLM, "_chat", _refusing_chat)
    upload(app, [("handbook.txt", HANDBOOK, "text/plain")])
    ask(app, "Who is the chief executive of Helios?")

    answer = app.chat_message[1]
    [section] = answer.expander
    assert section.label == "Closest passages found (1), not evidence for an answer" and not section.proto.expanded
    assert "Sources" not in [c.value for c in answer.caption]
    assert answer_markdown(answer) == "I couldn't find this in your documents."


_original_chat = ScriptedLLM._chat


def _refusing_chat(self, messages, **options):
    self.script = lambda m: NO_INFORMATION if "chief executive" in m[-1]["content"] else extractive_answer(m)
    return _original_chat(self, messages, **options)


def test_records_show_their_own_columns_with_blank_page_and_sheet_cells(app):
    upload(app, [("orders.csv", ORDERS, "text/csv")])
    ask(app, "List every order from ACME in 2024")  # the rule fast path reads every word: no model needed

    table = app.chat_message[1].dataframe[0].value
    assert list(table.columns) == ["order_id", "date", "customer", "total", "Row"]  # not one squashed "record"
    assert not (table == "None").any().any()  # blank, not "None"
    # no File column (one file, named above the table), no empty Page or Sheet, no internal ids


def test_a_documents_record_shows_no_row_0_and_no_page_beside_its_own_pages():
    from ui.components import records_frame
    invoices = [{"Issuer": "Meridian Labs", "Total": "1,204.00", "Pages": "1-2", "filename": f"inv{n}.pdf", "page": 1,
                 "sheet": None, "row": 0, "doc_id": "d", "chunk_id": "c", "fact_id": "f"} for n in (1, 2)]
    assert list(records_frame(invoices).columns) == ["Issuer", "Total", "Pages", "File"]


def test_records_from_different_tables_are_each_shown_in_their_own_columns(app):
    app.button[0].click().run()  # the samples: a spreadsheet of two makers' panels and a PDF of datasheets
    ask(app, "List all panels with a width of at most 1.2 m")  # read whole by the rule fast path: no model

    for where in (app.chat_message[1], open_page(app, "4_Structured_Results.py")):
        tables = [d.value for d in where.dataframe if "Row" in d.value.columns]
        assert len(tables) > 1  # a table per set of columns, each titled by where it comes from
        assert any(c.value.replace("\\", "").startswith("Product_Specs_by_Maker.xlsx, sheet ") for c in where.caption)
        for table in tables:
            own = table.drop(columns=["File", "Page", "Sheet", "Row"], errors="ignore")
            filled = own != ""
            # no record is blank where the table starts: its own columns (or its Field and Value) come first
            assert filled.iloc[:, 0].all() and filled.iloc[:, 1].all(), table


def test_understood_as_is_shown_when_the_response_carries_it():
    def page():
        from ui.components import render_answer

        response = {"answer": "Due on 04/19/2023 [Source 1].", "confidence": "high", "safety_flags": [],
                    "citations": [], "understood_as": "What is the due date of the Azure Interior invoice?"}
        render_answer(response, "what about the due date", trace_link=False)
        render_answer({**response, "understood_as": ""}, "and the total?", trace_link=False)

    at = AppTest.from_function(page)
    at.run()
    assert [c.value for c in at.caption if c.value.startswith("Understood as")] == [
        "Understood as: What is the due date of the Azure Interior invoice?"]


def test_the_conversation_list_shows_a_sentence_not_a_list_number(app, monkeypatch):
    monkeypatch.setattr(ScriptedLLM, "_chat", _listing_chat)
    upload(app, [("handbook.txt", HANDBOOK, "text/plain")])
    ask(app, "Which warranties do Helios panels have?")

    sidebar = "\n".join(m.value for m in app.sidebar.markdown)
    # the whole first item, its "1." escaped so that it is not read as a list of one
    assert "**Which warranties do Helios panels have?**  \n1\\. 25-year output warranty 2. 12-year" in sidebar


def _listing_chat(self, messages, **options):
    self.script = lambda m: "1. 25-year output warranty [Source 1]\n2. 12-year product warranty [Source 1]"
    return _original_chat(self, messages, **options)


# --- 4. the small things -----------------------------------------------------------------------

def test_home_offers_only_the_samples_not_loaded_and_shows_a_problem_in_full(app):
    assert [b.label for b in app.button] == ["Load sample documents"]
    app.button[0].click().run()
    assert not app.exception, app.exception
    assert not any("sample" in b.label.lower() for b in app.button)  # all five are loaded

    reason = "not a PDF"
    upload(app, [("broken.pdf", b"not a pdf at all", "application/pdf")])
    app.switch_page("views/0_Home.py").run()
    assert any("broken.pdf" in e.value and reason in e.value for e in app.error)


def test_the_samples_are_typed_by_what_they_are(app):
    app.button[0].click().run()
    table = app.dataframe[0].value.set_index("File")
    assert table.loc["Helios_Product_Handbook.pdf", "Type"] == "Manual"
    assert table.loc["orders_2023_2024.csv", "Type"] == "Order records"


def test_a_batch_with_a_failed_file_does_not_end_on_a_green_check(app):
    upload(app, [("handbook.txt", HANDBOOK, "text/plain"), ("broken.pdf", b"not a pdf", "application/pdf")])

    [status] = blocks(app, "status")
    assert status.proto.label == "Indexed 1 of 2 file(s); 1 could not be read"
    assert status.proto.state == status.proto.State.ERROR
    pages = app.dataframe[0].value.set_index("File")["Pages"]
    assert pages["broken.pdf"] == "" and pages.map(type).eq(str).all()  # one type: Arrow converts it


def test_the_evaluate_page_knows_the_samples_are_loaded(app):
    app.button[0].click().run()
    open_page(app, "5_Evaluate.py")
    app.radio[0].set_value("Example questions for the sample documents").run()
    assert "not loaded yet" not in texts(app)
    assert next(b for b in app.button if b.label.startswith("Run ")).disabled is False


def test_choosing_a_question_on_the_trace_page_puts_it_in_the_url(app):
    upload(app, [("handbook.txt", HANDBOOK, "text/plain")])
    ask(app, "How long is the output warranty?")
    ask(app, "How long is the product warranty?")
    open_page(app, "3_Agent_Trace.py")
    newest = app.session_state.last_turn
    assert app.query_params["turn"] == newest

    older = app.session_state.chat["messages"][1]["response"]["trace_id"]  # the first question's turn
    app.selectbox[0].set_value(older).run()
    assert not app.exception, app.exception
    assert app.query_params["turn"] == older
