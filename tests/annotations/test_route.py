"""How a query's result is said: the filter and the figure in a reader's words, not the query's."""
import json

from core.annotations.route import column_label, where_text
from core.annotations.tables import TableInfo

FLEET = TableInfo("fleet", "d1", "Fleet.xlsx", "Vehicles", "rows", ["registration", "next_service_date", "total"],
                  {"registration": "Registration", "next_service_date": "Next service", "total": "Total"},
                  {"registration": "TEXT", "next_service_date": "TEXT", "total": "REAL"}, {}, 5)


def test_a_filter_that_only_keeps_rows_with_a_value_is_not_said():
    assert where_text("SELECT registration FROM fleet WHERE next_service_date IS NOT NULL "
                      "ORDER BY next_service_date LIMIT 1", [FLEET]) == ""
    assert where_text("SELECT registration FROM fleet WHERE total > 5 AND next_service_date IS NOT NULL",
                      [FLEET]) == "Total over 5"
    assert where_text("SELECT registration FROM fleet WHERE total BETWEEN 1 AND 3", [FLEET]) == "Total between 1 and 3"


def test_leaving_out_total_rows_is_not_said_they_are_never_records():
    assert where_text("SELECT total FROM fleet WHERE `source_row` NOT LIKE '%total%'", [FLEET]) == ""
    assert where_text("SELECT total FROM fleet WHERE registration = 'AB12' AND lower(registration) NOT LIKE '%total%'",
                      [FLEET]) == "Registration AB12"
    assert where_text("SELECT total FROM fleet WHERE registration <> 'Total'", [FLEET]) == ""
    assert where_text("SELECT total FROM fleet WHERE registration NOT LIKE '%total-x%'", [FLEET]) != ""


def test_the_sum_of_a_total_column_is_the_total_and_other_sums_say_what_they_add():
    assert column_label('SUM("total")', [FLEET]) == "Total"
    assert column_label("COUNT(*)", [FLEET]) == "number of rows"
    assert column_label("AVG(total)", [FLEET]) == "average of Total"


def test_an_expression_the_model_selected_is_said_with_printed_headers_never_stored_names():
    report = TableInfo("c_41", "d2", "annual_report.pdf", "Revenue", "rows", ["description", "c_2019_m", "c_2018_m"],
                       {"description": "Description", "c_2019_m": "2019 £m", "c_2018_m": "2018 £m"},
                       {"description": "TEXT", "c_2019_m": "REAL", "c_2018_m": "REAL"}, {}, 6)
    assert column_label("AVG(c_2019_m + c_2018_m)", [report]) == "average of 2019 £m plus 2018 £m"
    assert column_label('"c_2019_m" - "c_2018_m"', [report]) == "2019 £m minus 2018 £m"
    assert column_label("c_2019_m / c_2018_m * 100", [report]) == "2019 £m divided by 2018 £m times 100"


def test_the_row_order_is_said_as_rows_never_by_its_stored_name():
    assert where_text("SELECT SUM(total) FROM fleet WHERE source_row BETWEEN 1 AND 5", [FLEET]) == "rows 1 to 5"
    assert "source_row" not in where_text("SELECT total FROM fleet WHERE source_row > 3", [FLEET])
    # SQLite's other quotes are quotes too: no "`row`" in an answer
    assert where_text("SELECT total FROM fleet WHERE `source_row` < 4", [FLEET]) == "row under 4"
    assert where_text("SELECT total FROM fleet WHERE [next_service_date] > '2024'", [FLEET]) == "Next service over 2024"
    assert column_label("SUM(`total`)", [FLEET]) == "Total"


def test_a_date_s_sortable_twin_and_a_header_on_two_lines_are_said_as_the_user_reads_them():
    log = TableInfo("log", "d3", "Log.csv", "", "rows", ["aired", "aired_date", "height", "place_number"],
                    {"aired": "Air Date", "aired_date": "Air Date as an ISO date (YYYY-MM-DD)",
                     "height": "Height\nmetres / ft", "place_number": "the number Place starts with"},
                    {"aired": "TEXT", "aired_date": "TEXT", "height": "TEXT", "place_number": "REAL"}, {}, 5)
    assert where_text("SELECT height FROM log WHERE aired_date < '1967-09-23' AND place_number <= 3",
                      [log]) == "Air Date under 1967-09-23 and Place at most 3"
    assert column_label("MAX(height)", [log]) == "highest of Height metres / ft"


def test_an_expression_with_a_case_a_function_or_a_condition_is_never_said_as_query_text():
    label = column_label("SUM(CASE WHEN fuel_type = 'DEF' THEN total ELSE 0 END) * 100 / SUM(total)", [FLEET])
    assert label == "result"
    assert column_label("ROUND(SUM(total), 2)", [FLEET]) == "Total"
    assert column_label("julianday(next_service_date) - julianday('now')", [FLEET]) == "result"
    assert column_label("SUM(CASE WHEN total < 5 THEN 1 ELSE 0 END)", [FLEET]) == "result"  # not "total of result"
    assert column_label("share_pct", [FLEET]) == "share pct"
    assert column_label("Diesel_share", [FLEET]) == "Diesel share"  # an alias the model capitalised


def test_a_column_named_through_its_tables_alias_is_said_without_the_alias():
    assert column_label("SUM(T1.total)", [FLEET]) == "Total"
    assert where_text("SELECT SUM(T1.total) FROM fleet AS T1 WHERE T1.registration = 'AB12' AND fleet.total > 5.5",
                      [FLEET]) == "Registration AB12 and Total over 5.5"


def test_rows_of_positions_or_a_zero_count_of_a_text_no_cell_holds_are_no_answer(tmp_path):
    import sqlite3

    from core.annotations.route import not_an_answer
    from core.annotations.sql import QueryResult, ReadOnlyExecutor

    with sqlite3.connect(tmp_path / "t.sqlite3") as conn:
        conn.execute("CREATE TABLE fleet (registration TEXT, next_service_date TEXT, total REAL, source_row INTEGER)")
        conn.executemany("INSERT INTO fleet VALUES (?, ?, ?, ?)", [("KX21 ABC", "2025-01-04", 3.0, 1),
                                                                  ("KX22 DEF", None, 5.0, 2)])
    executor = ReadOnlyExecutor(tmp_path / "t.sqlite3", max_rows=10, timeout_s=2.0)

    def result(sql):
        found = executor.run(sql, ["fleet"])
        return QueryResult(sql, found.columns, found.rows)

    assert "row positions (source_row)" in not_an_answer(result("SELECT source_row FROM fleet"), [FLEET], executor)
    cracked = "SELECT COUNT(*) FROM fleet WHERE registration LIKE '%cracked%'"
    assert not_an_answer(result(cracked), [FLEET], executor) == "no cell holds 'cracked'"
    # A zero count over a value the table holds is an answer: none of them matched the other conditions.
    assert not_an_answer(result("SELECT COUNT(*) FROM fleet WHERE registration LIKE '%KX21%' AND total > 9"),
                         [FLEET], executor) is None
    assert not_an_answer(result("SELECT registration FROM fleet WHERE total > 4"), [FLEET], executor) is None
    # a figure the query cut out of a text cell that came out 0 missed the number: the pages may hold it
    cut = "SELECT CAST(SUBSTR(registration, 1, 2) AS REAL) * 100 AS rate FROM fleet WHERE registration LIKE 'KX21%'"
    assert not_an_answer(result(cut), [FLEET], executor) == "the figure the query cut out of a text cell came out empty"
    whole = "SELECT CAST(SUBSTR(registration, 3, 2) AS REAL) AS year FROM fleet WHERE registration LIKE 'KX21%'"
    assert not_an_answer(result(whole), [FLEET], executor) is None  # "21": a number was cut out
    # every row counted answers only a question that counts every row ("Vehicles" is the sheet's name)
    every = result("SELECT COUNT(*) AS n FROM fleet")
    assert not_an_answer(every, [FLEET], executor, "How many vehicles are there?") is None
    # a count answers a question that counts, or a yes or no; not one that asks for a figure
    one = result("SELECT COUNT(*) FROM fleet WHERE registration = 'KX21 ABC'")
    assert not_an_answer(one, [FLEET], executor, "What is the total of KX21 ABC?") is None
    assert not_an_answer(one, [FLEET], executor, "Is KX21 ABC due a service?") is None
    assert not_an_answer(one, [FLEET], executor, "What is the next service date of KX21 ABC?") == \
        "the query counts rows, and the question asks for no count"
    assert not_an_answer(every, [FLEET], executor, "How many vans failed their MOT?") == \
        "the query counts every row, and the question counts only some (failed mot)"
    # lines of a report's table added up answer only a question that asks for figures added up
    report = TableInfo("fleet", "d9", "annual_report.pdf", None, "rows", FLEET.columns, FLEET.printed, FLEET.types, {}, 2)
    added = result("SELECT SUM(total) FROM fleet")
    assert not_an_answer(added, [report], executor, "What was the fleet's service cost?") == \
        "the query adds up lines of a report's table, and the question asks for one figure"
    assert not_an_answer(added, [report], executor, "What was the fleet's total service cost?") is None
    assert not_an_answer(added, [FLEET], executor, "What was the fleet's service cost?") is None  # the sheet is the records
    one = result("SELECT SUM(total) FROM fleet WHERE registration = 'KX22 DEF'")
    assert not_an_answer(one, [report], executor, "What was KX22 DEF's service cost?") is None  # one line: its figure


def test_a_figure_the_query_names_a_percentage_is_said_with_its_percent_sign():
    from core.annotations.query import StructuredQuery
    from core.annotations.route import StructuredResult, TableQuery, phrase_table_answer
    from core.annotations.search import FactQuery
    from core.annotations.select import Selection

    query = TableQuery([Selection(FLEET, 1.0)], sql="SELECT (SUM(total) - 4) * 100.0 / 4 AS percentage_change FROM fleet",
                       columns=["percentage_change"], rows=[(-21.52,)])
    result = StructuredResult(StructuredQuery(FactQuery(doc_ids=["d1"])), [], table_query=query,
                              parsed_question="What is the percentage change in the fleet's total?")
    assert phrase_table_answer(result, 10, 3).text.startswith("The percentage change is -21.52% (from Fleet.xlsx)")


def test_a_figure_the_query_computed_from_columns_is_named_as_the_question_names_it():
    from core.annotations.query import StructuredQuery
    from core.annotations.route import StructuredResult, TableQuery, phrase_table_answer
    from core.annotations.search import FactQuery
    from core.annotations.select import Selection

    def said(sql: str, column: str, question: str) -> str:
        query = TableQuery([Selection(FLEET, 1.0)], sql=sql, columns=[column], rows=[(412.0,)])
        result = StructuredResult(StructuredQuery(FactQuery(doc_ids=["d1"])), [], table_query=query,
                                  parsed_question=question)
        return phrase_table_answer(result, 10, 3).text

    # not "The Total minus Next service for Registration containing AB12 is 412"
    assert said("SELECT total - next_service_date FROM fleet WHERE registration LIKE '%AB12%'",
                "total - next_service_date", "What was the increase in the van's total since its service?").startswith(
        "The increase in the van's total since its service is 412 (from Fleet.xlsx).")
    assert said("SELECT CASE WHEN total > 3 THEN total END FROM fleet", "CASE WHEN total > 3 THEN total END",
                "How much is the fleet's total over the threshold?").startswith("The fleet's total over the threshold is 412")
    # a question that does not say what it asks for as "what is the …" keeps the query's own words
    assert said("SELECT total * 2 FROM fleet WHERE registration = 'AB12'", "total * 2",
                "What did the van come to at twice the rate?").startswith("The Total times 2 for Registration AB12 is 412")


def test_a_filter_inside_a_case_or_a_sub_query_is_never_said():
    sql = ("SELECT CASE WHEN total > (SELECT total FROM fleet WHERE registration = 'CD34') THEN 'more' ELSE 'less' "
           "END FROM fleet WHERE registration = 'AB12'")
    assert where_text(sql, [FLEET]) == ""
    assert where_text("SELECT total FROM fleet WHERE registration <> total_2009", [FLEET]) == ""  # no header for it


REPORT = TableInfo("report", "d2", "annual_report.pdf", None, "rows", ["description", "c_2019", "c_2018"],
                   {"description": "Description", "c_2019": "2019", "c_2018": "2018"},
                   {"description": "TEXT", "c_2019": "REAL", "c_2018": "REAL"}, {}, 12)


def test_a_report_rows_label_is_said_by_itself_not_by_the_name_ingest_gave_its_blank_corner():
    assert where_text("SELECT c_2019 FROM report WHERE description = 'Investment income'", [REPORT]) \
        == "Investment income"
    assert where_text("SELECT SUM(c_2018) FROM report WHERE description LIKE '%income tax%' AND c_2019 > 5",
                      [REPORT]) == "income tax and 2019 over 5"
    assert where_text("SELECT c_2019 FROM report WHERE description NOT LIKE '%tax%'", [REPORT]) == "not containing tax"


def test_the_lines_of_a_reports_table_are_added_up_only_for_a_question_that_asks_for_a_total(pdf_statement):
    """A share-award note in a PDF: the expense is stated in the prose above the movements, and adding up every
    movement ("The total 2019 is …, across 4 rows") answers nothing asked. The plan that adds them is no answer,
    and the page is read. Asked for a total, the lines are added."""
    import json

    ws, scope = pdf_statement(["2018", "2019"], [("Unvested at start of year", ["4,040", "4,260"]),
                                                 ("Granted", ["662", "1,133"]), ("Vested", ["(555)", "(1,235)"]),
                                                 ("Unvested at end of year", ["4,147", "4,158"])],
                              caption="Award expense was 1,792 in 2019. The movements in awards were as follows:")
    adds_up = json.dumps({"answer": "sum", "column": "2019", "filters": []})
    ws.llm.script = [adds_up, "Award expense was 1,792 in 2019."]
    response = ws.ask("What was the award expense in 2019?", mode="pipeline", doc_ids=scope)
    assert "1,792" in response.answer and "8,316" not in response.answer, response.answer
    events = ws.turn(response.trace_id)["trace"]["events"]
    tried = [a["description"] for e in events for a in e["outputs"].get("attempts", [])]
    assert any("it added up 4 lines of a report's table, and the question asks for one figure" in t for t in tried), tried

    ws.llm.calls.clear()
    ws.llm.script = [adds_up]
    total = ws.ask("What is the total of the award movements in 2019?", mode="pipeline", doc_ids=scope)
    assert total.answer.startswith("The total 2019 is 8,316, across 4 rows"), total.answer


def test_a_rule_search_that_finds_a_row_only_without_the_names_asked_hands_the_question_to_the_plan(
        tmp_path, embedder, write_text):
    """The years are the table's columns, not dates in its rows: the rules' search for "UK" in 2019 (every word
    known, "revenue" from another file) finds nothing as stated, and every country found without the names and
    the year answers nothing asked."""
    from core.config import Settings
    from core.llm.scripted import ScriptedLLM
    from core.workspace import Workspace

    ws = Workspace(Settings(data_dir=tmp_path / "kb"), embedder, ScriptedLLM([]))
    ws.ingestor.ingest_paths([
        write_text("segments.csv", "Revenue by country,Year ended 31 March 2019 $M,Year ended 31 March 2018 $M\n"
                                   "UK,83.2,73.5\nUSA,222.2,199.0\nGermany,143.5,128.4\n"),
        write_text("budget.csv", "Line,Amount\nRevenue,10\nCosts,5\n")])
    scope = [d.doc_id for d in ws.documents() if d.filename == "segments.csv"]
    response = ws.ask("What is the Revenue from UK in 2019?", doc_ids=scope)
    ws.close()
    assert "83.2" in response.answer and "222.2" not in response.answer, response.answer
    assert "Nothing matched exactly" not in response.answer


def test_a_function_of_the_query_is_never_said_as_a_condition():
    assert where_text("SELECT COUNT(*) FROM fleet WHERE next_service_date < date('now', '-30 days')", [FLEET]) == ""
    assert where_text("SELECT total FROM fleet WHERE substr(registration, 1, 2) = 'AB'", [FLEET]) == ""


def test_a_field_of_one_invoice_is_said_as_the_field_not_as_a_total_of_it(kb_of):
    invoice = ("Garden Co Ltd\nInvoice no: GC-118\nInvoice date: 03/02/2025\nInvoice total   £ 2,400.00\n"
               "Deposit received   £ 900.00\nAmount due   £ 1,500.00\n")
    ws = kb_of("garden_co_invoice.txt", invoice)
    ws.llm.script = [json.dumps({"table": "garden_co_invoice_record",
                                 "sql": "SELECT SUM(balance_due) FROM garden_co_invoice_record"})]
    response = ws.ask("What balance is due on the Garden Co invoice?")
    assert response.answer.startswith("The Balance due is £1,500 (from garden_co_invoice.txt)"), response.answer
    # what is still owed is the balance, also where the model's query read the total
    ws.llm.script.append(json.dumps({"table": "garden_co_invoice_record", "sql": "SELECT total FROM garden_co_invoice_record"}))
    response = ws.ask("How much do we still owe Garden Co for the works?")
    assert response.answer.startswith("The Balance due is £1,500"), response.answer
    # ... and read by the rules alone when the question asks that field of the named invoice and nothing else
    calls = len(ws.llm.calls)
    response = ws.ask("How much is outstanding on the Garden Co invoice?")
    assert response.answer.startswith("The Balance due is £1,500") and len(ws.llm.calls) == calls, response.answer


def test_a_figure_the_query_tests_that_the_question_never_states_is_found():
    from core.annotations.route import figure_unstated

    assert figure_unstated("SELECT COUNT(*) FROM t WHERE kind = 'Boiler' AND march = 13", "How many boiler jobs in March?") == "13"
    # stated in digits, in words or as a month's number, or a 0 or 1 (no and yes): not unstated
    assert figure_unstated("SELECT COUNT(*) FROM t WHERE year = 2024 AND month = 3", "How many in March 2024?") is None
    assert figure_unstated("SELECT COUNT(*) FROM t WHERE place = 3", "Who placed three times?") is None
    assert figure_unstated("SELECT COUNT(*) FROM t WHERE done = 0", "How many are not done?") is None
    assert figure_unstated("SELECT COUNT(*) FROM t WHERE total >= 13", "How many over 12?") is None  # a bound, not =


def test_a_count_of_a_report_tables_rows_by_a_figure_copied_from_it_is_no_answer(tmp_path):
    import sqlite3

    from core.annotations.route import not_an_answer
    from core.annotations.sql import QueryResult, ReadOnlyExecutor

    report = TableInfo("calls", "d5", "quarterly_review.pdf", None, "rows", ["kind", "march"],
                       {"kind": "Kind", "march": "March"}, {"kind": "TEXT", "march": "REAL"}, {}, 2)
    with sqlite3.connect(tmp_path / "r.sqlite3") as conn:
        conn.execute("CREATE TABLE calls (kind TEXT, march REAL, source_row INTEGER)")
        conn.executemany("INSERT INTO calls VALUES (?, ?, ?)", [("Boiler", 13, 1), ("Leak", 4, 2)])
    executor = ReadOnlyExecutor(tmp_path / "r.sqlite3", max_rows=10, timeout_s=2.0)
    sql = "SELECT COUNT(*) FROM calls WHERE kind = 'Boiler' AND march = 13"
    found = executor.run(sql, ["calls"])
    assert "never states (13)" in not_an_answer(QueryResult(sql, found.columns, found.rows), [report], executor,
                                                "How many boiler calls were there in March?")


def test_a_table_that_holds_no_word_the_question_narrows_by_leaves_its_refusal_to_the_pages(tmp_path):
    import sqlite3

    from core.annotations.plan import PlannedQuery
    from core.annotations.route import asked_of_nothing_held
    from core.annotations.sql import ReadOnlyExecutor

    laptops = TableInfo("laptops", "d6", "hardware.xlsx", "Laptops", "rows", ["model", "office"],
                        {"model": "Model", "office": "Office"}, {"model": "TEXT", "office": "TEXT"}, {}, 2)
    with sqlite3.connect(tmp_path / "l.sqlite3") as conn:
        conn.execute("CREATE TABLE laptops (model TEXT, office TEXT, source_row INTEGER)")
        conn.executemany("INSERT INTO laptops VALUES (?, ?, ?)", [("ThinkPad T14", "Leeds", 1), ("Latitude", "Bristol", 2)])
    executor = ReadOnlyExecutor(tmp_path / "l.sqlite3", max_rows=10, timeout_s=2.0)

    def held(question):
        return not asked_of_nothing_held(question, PlannedQuery(laptops, question), executor)
    assert not held("What is the minimum password length?")  # a rule the handbook states
    assert held("What is the minimum screen size of the Leeds laptops?")  # Leeds is an Office: the table's to refuse
