"""Questions about records go to the stored facts, are answered exactly, and fall back to text.

These tests drive the free SQL writer (table_query_form="sql"), the query plan's fallback; the plan itself
is specified in tests/annotations/test_plan.py."""
import json

import pytest

from core.annotations.route import format_number
from core.cli import main
from core.config import Settings
from core.llm.scripted import ScriptedLLM, extractive_answer
from core.workspace import Workspace

ORDERS = "order_id,date,customer,total\n" + "\n".join(
    f"O{i},{2023 + i % 2}-0{1 + i % 9}-10,{['ACME', 'Globex', 'Initech'][i % 3]},{i}.25" for i in range(1, 301))


def sql(query: str, table: str = "orders") -> str:
    """A scripted model reply: the JSON the table route decodes."""
    return json.dumps({"table": table, "sql": query})


@pytest.fixture
def ws(tmp_path, embedder, ingested):
    data_dir = ingested({"orders.csv": ORDERS, "notes.txt": "Our customers are mostly installers in the north."},
                        tmp_path / "kb")
    ws = Workspace(Settings(table_query_form="sql", data_dir=data_dir), embedder, ScriptedLLM([]))  # no unscripted LLM call
    yield ws
    ws.close()


def test_a_count_is_the_query_the_model_wrote_over_the_selected_table(ws):
    ws.llm.script = [sql("SELECT COUNT(*) FROM orders WHERE customer = 'ACME' AND date LIKE '2024%'")]
    response = ws.ask("How many orders did ACME place in 2024?")
    expected = sum(1 for i in range(1, 301) if i % 3 == 0 and 2023 + i % 2 == 2024)
    assert response.route == "structured"
    assert response.answer.startswith(f"{expected} orders with customer ACME and date containing 2024 (from orders.csv)")
    structured = response.structured
    assert structured["tables"] == ["orders"] and structured["query"].startswith("SELECT COUNT(*)")
    assert structured["query_path"] == "model" and response.confidence == "medium"  # the model's query: not proof
    assert response.citations[0].filename == "orders.csv"
    prompt = ws.llm.calls[0][-1]["content"]
    assert "CREATE TABLE orders" in prompt and '"total" REAL' in prompt and "3 example rows" in prompt
    assert "notes" not in prompt  # only the selected table is shown
    data, count = ws.export_result_set(structured["result_set_id"])
    assert count == expected  # the rows the query counted, with provenance
    assert data.decode("utf-8-sig").splitlines()[0].endswith("filename,page,sheet,row,doc_id,chunk_id,fact_id")


def test_sums_per_group_come_from_the_query_with_each_row_s_own_columns(ws):
    ws.llm.script = [sql("SELECT customer, SUM(total) FROM orders GROUP BY customer ORDER BY customer")]
    response = ws.ask("Break the orders down by customer with their summed totals")
    totals = {name: sum(i + 0.25 for i in range(1, 301) if ['ACME', 'Globex', 'Initech'][i % 3] == name)
              for name in ("ACME", "Globex", "Initech")}
    for name, total in totals.items():
        assert f"customer: {name}, total: {format_number(total)}" in response.answer
    assert response.structured["rows"][0] == ["ACME", totals["ACME"]]  # a row keeps its columns
    assert "unsupported_claims" not in response.safety_flags


def test_a_complete_rule_parse_is_the_fast_path_without_the_model(ws):
    response = ws.ask("List every order from Globex")
    structured = response.structured
    assert structured["query_path"] == "rules" and ws.llm.calls == []
    assert structured["total_matches"] == 100 and structured["rows_shown"] == 10
    assert "Showing 10 of 100" in response.answer
    data, count = ws.export_result_set(structured["result_set_id"])
    assert count == 100 and data.decode("utf-8-sig").splitlines()[0].endswith("filename,page,sheet,row,doc_id,chunk_id,fact_id")


def test_a_count_of_what_a_number_column_measures_is_no_count_of_rows(tmp_path, embedder, ingested):
    # a sheet called Hours with a column Hours: "how many hours" adds the column up, it does not count rows
    hours = "Volunteer,Month,Hours\n" + "\n".join(f"{n},{m},{h}" for n, m, h in
                                                   [("Ana", "May", 6), ("Ana", "June", 4), ("Bo", "May", 9)])
    data_dir = ingested({"volunteer_hours.csv": hours}, tmp_path / "kb")
    ws = Workspace(Settings(table_query_form="sql", data_dir=data_dir), embedder, ScriptedLLM([]))
    route = ws.tables_named("How many hours did Ana volunteer in May?")
    assert route.selections and route.parsed.aggregate == "count" and not route.fast
    ws.close()


def test_an_incomplete_rule_parse_goes_to_the_model(ws):
    ws.llm.script = [sql("SELECT order_id FROM orders WHERE customer = 'Initech' ORDER BY total DESC LIMIT 1")]
    response = ws.ask("Which order of Initech was the biggest one?")  # the rules do not read "biggest one"
    assert response.structured["query_path"] == "model" and len(ws.llm.calls) == 1
    assert response.answer.startswith("The order_id for customer Initech is O299")


def test_a_yes_no_question_answered_by_a_count_says_yes_or_no(ws):
    ws.llm.script = [sql("SELECT COUNT(*) FROM orders WHERE customer = 'Globex' AND total > 297")]
    assert ws.ask("Did Globex place an order above 297?").answer.startswith("Yes: 1 row with customer Globex")
    ws.llm.script = [sql("SELECT COUNT(*) FROM orders WHERE customer = 'Globex' AND total > 2000")] * 2
    assert ws.ask("Did Globex place an order above 2000?").answer.startswith("No: 0 rows")


def test_a_date_read_from_the_iso_column_is_answered_as_printed(ws, write_text):
    ws.ingestor.ingest_paths([write_text("launches.csv", "Ship,Launched\nAlba,11 July 1918\nBrise,1 February 1919\n")])
    ws.llm.script = [sql("SELECT MIN(launched_date) FROM launches", "launches")]
    answer = ws.ask("When was the first ship of the launches launched?").answer
    assert "is 11 July 1918" in answer and "ISO" not in answer


def test_a_query_error_goes_back_to_the_model_once_with_its_text(ws):
    ws.llm.script = [sql("SELECT COUNT(*) FROM orders WHERE client = 'ACME'"),
                     sql("SELECT COUNT(*) FROM orders WHERE customer = 'ACME'")]
    response = ws.ask("How many orders did ACME place?")
    assert "no such column: client" in ws.llm.calls[1][-1]["content"]
    assert response.answer.startswith("100 orders with customer ACME") and response.confidence == "medium"
    events = ws.kb.catalog.turn(response.trace_id)["trace"]["events"]
    retrieval = next(e for e in events if e["kind"] == "retrieval")
    assert [a["error"] is None for a in retrieval["outputs"]["query"]["attempts"]] == [False, True]


def test_a_text_question_still_goes_to_hybrid_search(tmp_path, embedder, write_text):
    ws = Workspace(Settings(table_query_form="sql", data_dir=tmp_path / "kb2"), embedder, ScriptedLLM())
    ws.ingestor.ingest_paths([write_text("orders.csv", ORDERS), write_text("notes.txt", "Installers are in the north.")])
    response = ws.ask("Where are the installers based?")
    assert response.route == "hybrid" and response.structured is None
    ws.close()


def test_cli_ask_json_has_the_structured_object_and_export_writes_it(tmp_path, write_text, capsys, monkeypatch):
    monkeypatch.setenv("DOCUCHAT_LLM_PROVIDER", "scripted")
    data = str(tmp_path / "kb3")
    main(["--data-dir", data, "ingest", str(write_text("orders.csv", ORDERS))])
    capsys.readouterr()
    assert main(["--data-dir", data, "ask", "List every order from Initech in 2023", "--json"]) == 0
    structured = json.loads(capsys.readouterr().out)["structured"]
    assert {"route", "columns", "rows_shown", "total_matches", "result_set_id"} <= set(structured)
    out = tmp_path / "initech.csv"
    assert main(["--data-dir", data, "export", structured["result_set_id"], "--out", str(out)]) == 0
    assert len(out.read_text(encoding="utf-8-sig").splitlines()) == structured["total_matches"] + 1
    assert main(["--data-dir", data, "facts", "--label", "customer", "--limit", "2"]) == 0
    assert "300 facts" in capsys.readouterr().out


def test_follow_ups_page_and_export_the_previous_result(ws):
    first = ws.ask("List every order from Globex")
    rest = ws.ask("show the rest", previous_question=first.question,
                  previous_result_set=first.structured["result_set_id"])
    assert rest.structured["total_matches"] == 90  # 100 minus the 10 already shown
    export = ws.ask("export that table", previous_question=first.question,
                    previous_result_set=first.structured["result_set_id"])
    assert export.structured["total_matches"] == 100


def test_no_matching_records_falls_back_to_text_and_says_what_would_help(tmp_path, embedder, write_text):
    ws = Workspace(Settings(table_query_form="sql", data_dir=tmp_path / "kb4"), embedder, ScriptedLLM())
    ws.ingestor.ingest_paths([write_text("orders.csv", ORDERS), write_text("notes.txt", "Installers are in the north.")])
    response = ws.ask("List every order with skateboards")
    assert response.route == "hybrid"
    assert response.clarification.startswith("No rows of") and "a time range" in response.clarification
    assert "skateboard" not in response.clarification  # what was tried is in the trace, not in the note
    retrieval = [e for e in ws.turn(response.trace_id)["trace"]["events"] if e["kind"] == "retrieval"][0]
    assert "skateboard" in str(retrieval["outputs"])
    ws.close()


def test_a_query_that_finds_only_a_blank_is_no_answer_and_the_text_is_read(tmp_path, embedder, write_text):
    """A SUM over rows the filter missed is one blank row: not "the total is (blank)" but the text route,
    which reads the page the figure is printed on."""
    replies = [sql("SELECT SUM(total) FROM orders WHERE customer = 'Umbrella'")] * 2

    def script(messages):
        return replies.pop() if replies else extractive_answer(messages)
    ws = Workspace(Settings(table_query_form="sql", data_dir=tmp_path / "kb5"), embedder, ScriptedLLM(script))
    ws.ingestor.ingest_paths([write_text("orders.csv", ORDERS)])
    response = ws.ask("What did ACME order from us, all told?")
    assert ws.llm.calls[0][-1]["content"].startswith("CREATE TABLE orders")  # the table was asked first
    assert response.route == "hybrid" and "(blank)" not in response.answer
    ws.close()


def test_new_documents_are_seen_by_the_next_question(ws, write_text):
    assert ws.ask("List every order from Hooli").route == "hybrid"  # no table holds Hooli yet
    ws.ingestor.ingest_paths([write_text("more_orders.csv", "order_id,date,customer,total\nX1,2024-02-01,Hooli,5.00\n")])
    response = ws.ask("List every order from Hooli")
    assert response.route == "structured" and response.structured["files"] == ["more_orders.csv"]
    assert "X1" in response.answer


def test_the_invoice_named_in_the_question_answers_not_an_unrelated_table(tmp_path, embedder, write_text):
    """issue 14: "What is the total amount of the Azure Interior invoice?" once summed a race CSV."""
    races = "Rank,Athlete,Nationality,Amount\n" + "\n".join(f"{i},Runner {i},Kenya,{i * 10}.00" for i in range(1, 40))
    invoice = ("Azure Interior\nInvoice INV/2023/03/0008\nInvoice Date: 03/20/2023\nSubtotal $ 262.90\n"
               "Tax 15% $ 16.94\nTotal $ 279.84\n")
    summed = json.dumps({"table": "azure_interior_invoice_fields", "sql": "SELECT SUM(number) FROM azure_interior_invoice_fields"})
    picked = json.dumps({"table": "azure_interior_invoice_fields",
                         "sql": "SELECT value FROM azure_interior_invoice_fields WHERE label LIKE 'subtotal'"})
    ws = Workspace(Settings(table_query_form="sql", data_dir=tmp_path / "kb5"), embedder, ScriptedLLM([summed, picked]))
    ws.ingestor.ingest_paths([write_text("race_results.csv", races), write_text("azure_interior_invoice.txt", invoice)])
    # one field of a named invoice: its document record, read by the rules, without the model
    for question, printed in [("What is the total amount of the Azure Interior invoice?", "$279.84"),
                              ("How much is the total due on invoice INV/2023/03/0008?", "$279.84"),
                              ("What is the date of the Azure Interior invoice?", "2023-03-20")]:
        response = ws.ask(question)
        assert response.route == "structured" and printed in response.answer, question
        assert response.structured["query_path"] == "rules" and response.confidence == "high"
        assert {c.filename for c in response.citations} == {"azure_interior_invoice.txt"}
    assert ws.llm.calls == []
    # anything else about it is the model's query; adding up its label lines is refused once
    response = ws.ask("What is the subtotal of the Azure Interior invoice?")
    assert response.route == "structured" and "262.90" in response.answer
    assert "do not add or count them" in ws.llm.calls[1][-1]["content"]
    assert "Athlete" not in ws.llm.calls[0][-1]["content"]  # the race table was never offered
    ws.close()


@pytest.mark.parametrize("question", [
    "What is the total amount of the Contoso invoice?",  # an invoice that is not in the knowledge base
    "What investment in marketable securities was disclosed in September 2023?",  # a month and year
    "What did the site survey say about the roof access?",
])
def test_a_question_naming_no_stored_table_is_a_text_question(ws, question):
    ws.llm.script = None  # the text route's extractive stand-in
    response = ws.ask(question)
    assert response.route == "hybrid" and response.structured is None


def test_a_question_opening_with_a_company_no_table_holds_is_not_answered_from_another_s(ws, write_text):
    # Globex's income statement; the question is about Umbrella, named as its first word
    ws.ingestor.ingest_paths([write_text("income_statement.csv",
                                         "Net income attributable to shareholders,FY2022,FY2021\n"
                                         "Revenue of Globex Corp,1200,1100\nNet income of Globex Corp,320,290\n")])
    query = sql("SELECT fy2022 FROM income_statement WHERE net_income_attributable_to_shareholders LIKE 'Net%'",
                "income_statement")  # what a model writes when it is shown the table
    ws.llm.script = lambda messages: query if "CREATE TABLE" in messages[-1]["content"] else extractive_answer(messages, None)
    assert "320" in ws.ask("What is Globex's net income attributable to shareholders in FY2022?").answer
    for question in ("Umbrella's net income attributable to shareholders in FY2022?",
                     "UMBRELLA net income attributable to shareholders in FY2022?"):
        response = ws.ask(question)
        assert response.route == "hybrid" and response.structured is None, (question, response.answer)


def test_cli_ask_scoped_to_a_document_answers_from_its_table(tmp_path, write_text, capsys, monkeypatch):
    monkeypatch.setenv("DOCUCHAT_LLM_PROVIDER", "scripted")
    data = str(tmp_path / "kb6")
    main(["--data-dir", data, "ingest", str(write_text("orders.csv", ORDERS)), str(write_text("other.csv", "a,b\n1,2\n"))])
    capsys.readouterr()
    # the question names nothing in any table; scoped, it is asked of that document's table
    assert main(["--data-dir", data, "ask", "List every order from Initech in 2023", "--doc", "orders.csv", "--json"]) == 0
    structured = json.loads(capsys.readouterr().out)["structured"]
    assert structured["files"] == ["orders.csv"] and structured["query_path"] == "rules"
    assert main(["--data-dir", data, "ask", "anything at all here", "--doc", "missing.csv"]) == 1


def test_the_rule_fast_path_over_a_named_table_is_high_confidence(ws):
    response = ws.ask("List every order from Initech in 2023")
    assert response.structured["query_path"] == "rules" and response.confidence == "high"


def test_a_named_file_without_a_table_is_asked_of_its_text(ws, write_text):
    ws.ingestor.ingest_paths([write_text("orlen_faktura.txt", "Faktura VAT\nZakup paliwa na stacji dla firmy ACME\n")])
    assert "orlen_faktura.txt" not in {t.filename for t in ws.pipeline.tables.tables()}
    ws.llm.script = None  # the text route's extractive stand-in
    # orders.csv has a "total" column and the value ACME: without the named file, it would be chosen
    response = ws.ask("What is the total amount of the Orlen Faktura invoice for ACME?")
    assert response.route == "hybrid" and response.structured is None


def test_an_invoice_figure_reads_like_a_sentence(tmp_path, embedder, write_text):
    invoice = "Azure Interior\nInvoice Date: 03/20/2023\nDue Date: 04/04/2023\nTotal $ 279.84\n"
    query = json.dumps({"table": "azure_invoice_fields",
                        "sql": "SELECT date FROM azure_invoice_fields WHERE label = 'Due Date'"})
    ws = Workspace(Settings(table_query_form="sql", data_dir=tmp_path / "kb7"), embedder, ScriptedLLM([query]))
    ws.ingestor.ingest_paths([write_text("azure_invoice.txt", invoice)])
    response = ws.ask("When is the Azure invoice due, which date?")  # two fields of the record: the model's query
    assert response.answer.startswith("The Due Date is 2023-04-04 (from azure_invoice.txt)."), response.answer
    assert "unsupported_claims" not in response.safety_flags  # every word of it is on the page
    # a field found by a part of its label is said by the label as printed
    ws.llm.script.append(json.dumps({"table": "azure_invoice_fields",
                                     "sql": "SELECT date FROM azure_invoice_fields WHERE label LIKE '%Due%'"}))
    response = ws.ask("When is payment of the Azure invoice due?")
    assert response.answer.startswith("The Due Date is 2023-04-04 (from azure_invoice.txt)."), response.answer
    # A filter over the invoice's one-row record picks nothing out, so it is not recited.
    ws.llm.script.append(json.dumps({"table": "azure_invoice_record",
                                     "sql": "SELECT total FROM azure_invoice_record WHERE currency = 'USD'"}))
    response = ws.ask("What is the balance of the Azure invoice, as billed?")
    assert response.answer.startswith("The Total is $279.84 (from azure_invoice.txt)."), response.answer
    # nor is the highest of one record's field a "highest of" it: it is the field
    ws.llm.script.append(json.dumps({"table": "azure_invoice_record", "sql": "SELECT MAX(total) FROM azure_invoice_record"}))
    response = ws.ask("How much do we owe on the Azure invoice?")
    assert response.answer.startswith("The Total is $279.84 (from azure_invoice.txt)."), response.answer
    ws.close()


def test_a_question_across_invoices_is_one_query_over_every_document_record(tmp_path, embedder, write_text):
    """issue 14: "which record has the highest total" was refused; every record is now one table."""
    highest = json.dumps({"table": "document_records",
                          "sql": "SELECT issuer, total FROM document_records ORDER BY total DESC LIMIT 1"})
    ws = Workspace(Settings(table_query_form="sql", data_dir=tmp_path / "kb8"), embedder, ScriptedLLM([highest]))
    ws.ingestor.ingest_paths([
        write_text("azure_interior.txt", "Azure Interior\nInvoice INV/2023/03/0008\nInvoice Date: 03/20/2023\nTotal $ 279.84\n"),
        write_text("quickfit.txt", "QuickFit Tyres Ltd\nReceipt no.: QF-24-0117\nDate: 18/01/2024\nTOTAL   $ 412.00\n"),
        write_text("orders.csv", ORDERS)])
    response = ws.ask("Which invoice or receipt has the highest total?")
    assert response.route == "structured" and "QuickFit Tyres Ltd" in response.answer and "412" in response.answer
    assert "document_records" in response.structured["tables"]
    assert "CREATE TABLE orders" not in ws.llm.calls[0][-1]["content"]  # a table of orders is no invoice
    # one invoice named by its number among all of them: the record lookup, no model call
    response = ws.ask("How much is the total due on invoice INV/2023/03/0008?")
    assert "$279.84" in response.answer and response.structured["query_path"] == "rules" and len(ws.llm.calls) == 1
    # an invoice that is not stored is never answered from the table of the others
    ws.llm.script = None  # the text route's extractive stand-in
    response = ws.ask("What is the total amount of the Contoso invoice?")
    assert response.route == "hybrid" and response.structured is None
    ws.close()


def test_the_tables_a_question_names_are_listed_without_answering_it(ws):
    route = ws.tables_named("List every order from Globex")
    assert [x.table.filename for x in route.selections] == ["orders.csv"] and route.fast
    assert ws.llm.calls == [] and ws.recent_turns() == []  # nothing asked, nothing logged
    assert ws.tables_named("Where are the installers based?").selections == []
def _invoice_pdf(path, issuer, number, items):
    """An invoice page whose line items are a ruled table (as pdfplumber reads invoices' tables)."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    pdf = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    y = A4[1] - 72
    for line in (issuer, f"Invoice number: {number}", "Invoice date: 03/02/2024"):
        pdf.drawString(72, y, line)
        y -= 14
    y -= 20
    edges, top = [68, 296, 376, 466, 540], y + 12
    for row in [("Description", "Qty", "Unit price", "Amount"), *items]:
        for x, value in zip(edges, row):
            pdf.drawString(x + 4, y, value)
        y -= 18
    for x in edges:
        pdf.line(x, top, x, y + 12)
    for k in range(len(items) + 2):
        pdf.line(edges[0], top - 18 * k, edges[-1], top - 18 * k)
    total = sum(float(i[3].strip("$")) for i in items if i[0] != "Subtotal")
    pdf.drawString(380, y - 10, "Total")
    pdf.drawString(470, y - 10, f"${total:.2f}")
    pdf.showPage()
    pdf.save()
    return path


def test_line_items_of_every_invoice_are_one_table_with_provenance(tmp_path, embedder, write_text):
    """issue 14 item 1: description, quantity, unit price, amount of every invoice, in one query."""
    summed = json.dumps({"table": "line_items",
                         "sql": "SELECT SUM(quantity) FROM line_items WHERE description = 'desk lamp'"})
    ws = Workspace(Settings(table_query_form="sql", data_dir=tmp_path / "kb9"), embedder, ScriptedLLM([summed]))
    ws.ingestor.ingest_paths([
        _invoice_pdf(tmp_path / "northwind.pdf", "Northwind Supplies B.V.", "NW-1001",
                     [("Office chair", "2", "$120.00", "$240.00"), ("Desk lamp", "3", "$25.00", "$75.00")]),
        _invoice_pdf(tmp_path / "fabrikam.pdf", "Fabrikam Ltd", "FB-77",
                     [("Desk lamp", "1", "$27.00", "$27.00"), ("Installation service", "1", "$50.00", "$50.00"),
                      ("Subtotal", "", "", "$77.00")]),  # a total line of the table: no item
        write_text("orders.csv", ORDERS)])
    items = next(t for t in ws.pipeline.tables.tables() if t.kind == "items")
    assert items.columns == ["file", "issuer", "description", "quantity", "unit_price", "amount"]
    assert items.row_count == 4 and "Subtotal" not in items.values
    response = ws.ask("How many desk lamps did we buy across all invoices?")
    assert response.structured["tables"] == ["line_items"] and "is 4" in response.answer
    assert "CREATE TABLE orders" not in ws.llm.calls[0][-1]["content"]
    data, count = ws.export_result_set(response.structured["result_set_id"])
    exported = data.decode("utf-8-sig")
    assert count == 2 and "northwind.pdf" in exported and "fabrikam.pdf" in exported  # each line item's own file
    ws.close()


def test_rows_the_model_selected_whole_are_told_without_their_provenance_columns(ws):
    ws.llm.script = [sql("SELECT * FROM orders WHERE order_id IN ('O1', 'O2')")]
    response = ws.ask("Show me the orders O1 and O2 with all their columns")
    assert response.answer.startswith("2 rows (from orders.csv): order_id: O1, date: 2024-02-10")
    assert "source_row" not in response.answer and "source_file" not in response.answer  # cited, not recited


RECEIPTS = {  # three shops' receipts, item lines printed "description  count x unit price  amount"
    "quickfit.txt": "QuickFit Tyres Ltd\nReceipt no.: QF-24-0117\nDate: 18/01/2024\nTyre 195/65 R15    2 x 89.00   178.00\n"
                    "Wheel balancing    2 x 12.00    24.00\nValve              2 x 2.50      5.00\nTOTAL   $ 207.00\n",
    "baumarkt.txt": "Hornbach Baumarkt AG\nBeleg-Nr.: 4471\nDatum: 02.02.2024\nWinterreifen 205/55 R16   4 x 74,90   299,60\n"
                    "Montage                   1 x 40,00    40,00\nGesamtbetrag EUR 339,60\n",
    "fuel.txt": "QuickFuel Station\nReceipt no.: 88812\nDate: 03/02/2024\nDiesel   40 x 1.70   68.00\n"
                "Coffee    1 x 2.50    2.50\nTOTAL DUE $ 70.50\n",
}


def test_which_receipts_include_tyres_is_a_judgement_over_the_line_items_descriptions(tmp_path, embedder, write_text):
    """issue 14 item 6: no rule or word list knows that "Winterreifen 205/55 R16" is a tyre and "Wheel
    balancing" a service; the model sorts the distinct descriptions under a schema that can only name
    them, code filters by the kept values, and the trace and payload say which it kept."""
    query = json.dumps({"table": "line_items", "sql": "SELECT DISTINCT file, issuer FROM line_items WHERE description IN KEPT",
                        "judge": {"column": "description", "keep": "tyres themselves, not fitting services or valves"}})
    kept = json.dumps({"keep": ["Tyre 195/65 R15", "Winterreifen 205/55 R16"]})
    ws = Workspace(Settings(table_query_form="sql", data_dir=tmp_path / "kb10"), embedder, ScriptedLLM([query, kept]))
    ws.ingestor.ingest_paths([write_text(name, text) for name, text in RECEIPTS.items()])
    response = ws.ask("Which receipts include tyres?")
    assert response.route == "structured" and "line_items" in response.structured["tables"]
    assert "quickfit.txt" in response.answer and "baumarkt.txt" in response.answer and "fuel.txt" not in response.answer
    judged = ws.llm.calls[1]
    assert "Keep: tyres themselves, not fitting services or valves" in judged[-1]["content"]
    for value in ("Winterreifen 205/55 R16", "Wheel balancing", "Montage", "Diesel"):  # every distinct description, once
        assert f"- {value}" in judged[-1]["content"]
    [judgement] = response.structured["judgements"]
    assert judgement["column"] == "description" and judgement["kept"] == ["Tyre 195/65 R15", "Winterreifen 205/55 R16"]
    assert judgement["values"] == 7 and not judgement["truncated"]
    turn = ws.kb.catalog.turn(response.trace_id)
    retrieval = next(e for e in turn["trace"]["events"] if e["kind"] == "retrieval")
    assert "Winterreifen 205/55 R16" in json.dumps(retrieval["outputs"])  # the trace shows what was kept
    assert len(ws.llm.calls) == 2  # the query and one judgement: no more model calls
    ws.close()


def test_the_difference_between_two_figures_is_its_size_whichever_way_the_query_subtracted(ws):
    subtraction = sql("SELECT (SELECT total FROM orders WHERE order_id = 'O1') - "
                      "(SELECT total FROM orders WHERE order_id = 'O5')")
    ws.llm.script = [subtraction, subtraction]
    answer = ws.ask("What is the difference between the totals of orders O1 and O5?").answer
    assert answer.startswith("The difference is 4 (from orders.csv)") and "-4" not in answer and "SELECT" not in answer
    assert "is -4" in ws.ask("How much lower is the total of order O1 than of O5?").answer  # no difference asked: as computed


def write_depot_report(path):
    """A one-page report: a table of journeys by depot under two years, and a paragraph the table leaves out."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    pdf = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    pdf.setFont("Helvetica", 9)
    pdf.drawString(40, 790, "Passenger journeys by depot (in thousands):")
    for x, year in ((330, "2025"), (400, "2024")):
        pdf.drawRightString(x, 772, year)
    for n, (label, figures) in enumerate([("Northgate depot", ("412", "398")), ("Riverside depot", ("288", "301")),
                                          ("Total journeys", ("700", "699"))]):
        pdf.drawString(40, 760 - 12 * n, label)
        for x, figure in zip((330, 400), figures):
            pdf.drawRightString(x, 760 - 12 * n, figure)
    pdf.drawString(40, 700, "The Northgate depot fleet numbered 42 buses at the year end, after six were retired.")
    pdf.showPage()
    pdf.save()
    return path


def depot_workspace(tmp_path, embedder, plan: dict) -> Workspace:
    """The depot report in a knowledge base whose scripted model fills the table plan with `plan`, then reads
    the pages extractively."""
    replies = [json.dumps(plan)]

    def script(messages):
        return replies.pop() if replies else extractive_answer(messages)
    ws = Workspace(Settings(data_dir=tmp_path / "depot_kb"), embedder, ScriptedLLM(script))
    ws.ingestor.ingest_paths([write_depot_report(tmp_path / "depot_report.pdf")])
    return ws


def test_what_a_report_table_has_no_line_for_is_looked_for_in_the_pages_around_it(tmp_path, embedder):
    """A spreadsheet is its table, so "no column for it" is the answer there (tests/annotations/test_plan.py); a
    report's table sits among paragraphs that may state what it leaves out."""
    ws = depot_workspace(tmp_path, embedder, {"answer": "not in table", "column": "", "filters": []})
    response = ws.ask("What was the number of buses in the Northgate depot fleet?", mode="pipeline",
                      doc_ids=[ws.documents()[0].doc_id])
    assert response.route == "hybrid" and "42 buses" in response.answer, response.answer
    events = ws.turn(response.trace_id)["trace"]["events"]
    assert any("the pages around it may" in e["summary"] for e in events if e["kind"] == "reflection")
    ws.close()


def test_a_table_answer_that_applies_none_of_an_unsure_questions_words_gives_way_to_the_text(tmp_path, embedder):
    """Nothing in "How big was the bus fleet at the year end?" says it asks for records (the rules'
    default sends it to the table); a plan that lists every row applies none of its words, so the pages are read."""
    ws = depot_workspace(tmp_path, embedder, {"answer": "list", "column": "Description", "filters": []})
    response = ws.ask("How big was the bus fleet at the year end?", mode="pipeline",
                      doc_ids=[ws.documents()[0].doc_id])
    assert response.route == "hybrid" and "42 buses" in response.answer, response.answer
    ws.close()


def test_a_table_answer_that_only_lists_the_rows_an_unsure_question_names_gives_way_to_the_text(tmp_path, embedder):
    """"What is the Northgate depot fleet?" names a row of the table; a plan that lists that row's label back
    tells the asker nothing the question did not, so the pages are read."""
    ws = depot_workspace(tmp_path, embedder, {"answer": "list", "column": "Description", "filters": [
        {"column": "Description", "op": "is", "value": "Northgate depot"}]})
    response = ws.ask("What is the Northgate depot fleet?", mode="pipeline", doc_ids=[ws.documents()[0].doc_id])
    assert response.route == "hybrid" and "42 buses" in response.answer, response.answer
    events = ws.turn(response.trace_id)["trace"]["events"]
    assert any("only lists the rows it names" in e["summary"] for e in events if e["kind"] == "reflection")
    ws.close()


def test_a_count_of_report_rows_labelled_with_what_no_line_holds_gives_way_to_the_text(tmp_path, embedder):
    """A report's table counted on a word none of its lines holds found nothing because the table does not record
    it, and the prose around it may. A spreadsheet is its table: there 0 is the answer."""
    ws = depot_workspace(tmp_path, embedder, {"answer": "count", "column": "Description", "filters": [
        {"column": "Description", "op": "contains", "value": "buses"}]})
    response = ws.ask("How many buses did we have at the year end?", mode="pipeline", doc_ids=[ws.documents()[0].doc_id])
    assert response.route == "hybrid" and "42 buses" in response.answer, response.answer
    ws.close()


def test_a_list_of_a_report_tables_rows_leaves_out_its_total_line(tmp_path, embedder):
    ws = depot_workspace(tmp_path, embedder, {"answer": "list", "column": "Description", "filters": []})
    response = ws.ask("Which depots are listed in the journeys table?", mode="pipeline", doc_ids=[ws.documents()[0].doc_id])
    assert "Northgate depot" in response.answer and "Riverside depot" in response.answer, response.answer
    assert "Total journeys" not in response.answer and response.answer.startswith("2 "), response.answer
    ws.close()
