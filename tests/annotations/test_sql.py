"""The read-only executor and the query the model writes: only reads of the selected tables run."""
import json
import sqlite3

import pytest

from core.annotations import sql as sql_module
from core.annotations.sql import QueryRefused, ReadOnlyExecutor, clean_sql, schema_text, write_query
from core.annotations.tables import TableInfo
from core.llm.scripted import ScriptedLLM


@pytest.fixture
def executor(tmp_path):
    path = tmp_path / "tables.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE races (athlete TEXT, nation TEXT, time_s REAL, fact_id TEXT, source_row INTEGER)")
        conn.executemany("INSERT INTO races VALUES (?, ?, ?, ?, ?)",
                         [(f"A{i}", "Kenya" if i % 2 else "Sri Lanka", 100.0 + i, f"f{i}", i) for i in range(50)])
        conn.execute("CREATE TABLE secrets (value TEXT)")
    return ReadOnlyExecutor(path, max_rows=10, timeout_s=2.0)


TABLE = TableInfo("races", "d1", "races.csv", None, "rows", ["athlete", "nation", "time_s"],
                  {"athlete": "Athlete", "nation": "Nation", "time_s": "Finish time (s)"},
                  {"athlete": "TEXT", "nation": "TEXT", "time_s": "REAL"}, {}, 50)


def test_a_select_runs_and_is_cut_at_the_row_limit(executor):
    result = executor.run("SELECT athlete FROM races ORDER BY time_s", ["races"])
    assert len(result.rows) == 10 and result.truncated and result.columns == ["athlete"]
    assert executor.run("SELECT COUNT(*) FROM races WHERE nation = 'Kenya'", ["races"]).rows == [(25,)]


@pytest.mark.parametrize("sql, says", [
    ("INSERT INTO races VALUES ('x', 'y', 1, 'f', 1)", "insert"),
    ("DELETE FROM races", "delete"),
    ("DROP TABLE races", "may only read"),
    ("ATTACH DATABASE ':memory:' AS other", "attach"),
    ("PRAGMA journal_mode = DELETE", "pragma"),
    ("SELECT value FROM secrets", "not one of the selected tables"),
])
def test_anything_but_reading_the_selected_tables_is_refused_with_a_clear_message(executor, sql, says):
    with pytest.raises(QueryRefused) as refused:
        executor.run(sql, ["races"])
    assert str(refused.value).startswith("Refused") and says in str(refused.value).lower()
    assert executor.run("SELECT COUNT(*) FROM races", ["races"]).rows == [(50,)]  # nothing changed


def test_two_statements_are_refused(executor):
    with pytest.raises(QueryRefused):
        executor.run("SELECT 1 FROM races; DELETE FROM races", ["races"])


def test_a_runaway_query_is_stopped_by_the_time_limit(tmp_path, executor):
    executor.timeout_s = 0.05
    endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT COUNT(*) FROM n, races"
    with pytest.raises(QueryRefused, match="longer than"):
        executor.run(endless, ["races"])


def test_the_prompt_shows_types_labels_and_three_example_rows(executor):
    rows = executor.run("SELECT athlete, nation, time_s FROM races LIMIT 3", ["races"])
    text = schema_text(TABLE, rows.rows, rows.columns)
    assert '"time_s" REAL' in text and "Finish time (s)" in text and "3 example rows" in text and "A2\tSri Lanka\t102" in text


def test_an_error_goes_back_to_the_model_once_with_its_text(executor):
    llm = ScriptedLLM([json.dumps({"table": "races", "sql": "SELECT runner FROM races"}),
                       json.dumps({"table": "races", "sql": "SELECT COUNT(*) FROM races WHERE nation LIKE 'sri lanka';"})])
    written = write_query("How many athletes are from Sri Lanka?", [TABLE], llm, executor, 3, 200)
    assert written.result.rows == [(25,)] and written.retried and written.error is None
    assert "no such column: runner" in llm.calls[1][-1]["content"]
    assert llm.calls[0][1]["content"].endswith("Answer with JSON: one SQLite query.")
    assert json.loads(llm.calls[1][2]["content"]) == {"sql": "SELECT runner FROM races"}  # no table to name
    prompt_words = sum(len(m["content"].split()) for call in llm.calls for m in call)  # the scripted model's count
    reply_words = sum(len(reply.split(" ")) for reply in llm.script)
    assert written.tokens == {"prompt": prompt_words, "completion": reply_words}  # both calls are counted


class SchemaLLM(ScriptedLLM):
    """The scripted model, keeping the JSON schema of each call."""

    def __init__(self, script):
        super().__init__(script)
        self.schemas = []

    def _chat(self, messages, *, schema, **kwargs):
        self.schemas.append(schema)
        return super()._chat(messages, schema=schema, **kwargs)


def test_the_model_names_the_table_only_when_more_than_one_is_selected(executor):
    one = SchemaLLM([json.dumps({"sql": "SELECT COUNT(*) FROM races"})])
    assert write_query("How many athletes?", [TABLE], one, executor, 3, 200).result.rows == [(50,)]
    assert "table" not in one.schemas[0]["properties"] and one.schemas[0]["required"] == ["sql"]
    other = TableInfo("secrets", "d9", "secrets.csv", None, "rows", ["value"], {"value": "Value"}, {"value": "TEXT"}, {}, 0)
    two = SchemaLLM([json.dumps({"table": "races", "sql": "SELECT COUNT(*) FROM races"})])
    write_query("How many athletes?", [TABLE, other], two, executor, 3, 200)
    assert two.schemas[0]["properties"]["table"]["enum"] == ["races", "secrets"] and "table" in two.schemas[0]["required"]
    assert two.calls[0][1]["content"].endswith("Answer with JSON: the table used and one SQLite query.")


def test_the_example_rows_show_a_row_that_holds_each_value_the_question_names(executor):
    table = TableInfo(**{**TABLE.__dict__, "values": ["A1", "A2", "A37", "Kenya", "Sri Lanka"]})
    columns, rows = sql_module.examples_of(executor, table, 3, "What was the time of a37?")
    assert [r[0] for r in rows] == ["A0", "A1", "A37"]  # a37's row, then the first rows, in the table's order
    columns, rows = sql_module.examples_of(executor, table, 3, "How many athletes?")
    assert [r[0] for r in rows] == ["A0", "A1", "A2"]  # nothing named: the first rows


def test_after_two_failures_there_is_no_result_and_the_error_is_kept(executor):
    bad = json.dumps({"table": "races", "sql": "DELETE FROM races"})
    written = write_query("Remove everything", [TABLE], ScriptedLLM([bad, bad]), executor, 3, 200)
    assert written.result is None and "Refused" in written.error and len(written.attempts) == 2


def test_code_fences_and_a_trailing_semicolon_are_removed():
    assert clean_sql("```sql\nSELECT 1;\n```") == "SELECT 1"


def test_a_query_that_finds_nothing_goes_back_once_and_a_second_empty_result_stands(executor):
    llm = ScriptedLLM([json.dumps({"table": "races", "sql": "SELECT COUNT(*) FROM races WHERE nation = 'SRI'"}),
                       json.dumps({"table": "races", "sql": "SELECT COUNT(*) FROM races WHERE nation LIKE '%sri%'"})])
    written = write_query("How many athletes are from Sri Lanka?", [TABLE], llm, executor, 3, 200)
    assert written.result.rows == [(25,)] and written.retried and "found nothing" in llm.calls[1][-1]["content"]
    nothing = json.dumps({"table": "races", "sql": "SELECT athlete FROM races WHERE nation = 'Peru'"})
    written = write_query("Who is from Peru?", [TABLE], ScriptedLLM([nothing, nothing]), executor, 3, 200)
    assert written.result.rows == [] and written.error is None and len(written.attempts) == 2


def test_the_retry_after_nothing_found_names_the_cells_close_to_the_filter_s_values(executor):
    llm = ScriptedLLM([json.dumps({"table": "races", "sql": "SELECT athlete FROM races WHERE nation = 'Sri Lankaa'"}),
                       json.dumps({"table": "races", "sql": "SELECT athlete FROM races WHERE nation = 'Sri Lanka'"})])
    written = write_query("Who ran for Sri Lankaa?", [TABLE], llm, executor, 3, 200)
    feedback = llm.calls[1][-1]["content"]
    assert "No cell is 'Sri Lankaa'; close: \"nation\" 'Sri Lanka'." in feedback and "Kenya" not in feedback
    assert written.result.rows[0] == ("A0",)


def test_the_question_follows_the_schema_as_a_sql_comment(executor):
    llm = ScriptedLLM([json.dumps({"table": "races", "sql": "SELECT COUNT(*) FROM races"})])
    write_query("How many athletes?", [TABLE], llm, executor, 3, 200)
    assert "-- Question: How many athletes?" in llm.calls[0][1]["content"]


ITEMS = TableInfo("items", "d2", "receipt.pdf", None, "rows", ["description", "amount"],
                  {"description": "Description", "amount": "Amount"}, {"description": "TEXT", "amount": "REAL"}, {}, 3)


def test_a_judged_filter_keeps_only_real_values_the_model_picked_and_code_sums_them(tmp_path):
    path = tmp_path / "items.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE items (description TEXT, amount REAL, fact_id TEXT, source_row INTEGER)")
        conn.executemany("INSERT INTO items VALUES (?, ?, ?, ?)", [
            ("Solar panel 400 W", 199.0, "f1", 1), ("Installation service", 120.0, "f2", 2),
            ("Mounting bracket", 15.0, "f3", 3), ("Solar panel 450 W", 229.0, "f4", 4)])
    executor = ReadOnlyExecutor(path, max_rows=10, timeout_s=2.0)
    query = {"table": "items", "sql": "SELECT SUM(amount) FROM items WHERE description IN KEPT",
             "judge": {"column": "description", "keep": "the products themselves, not services or accessories"}}
    llm = ScriptedLLM([json.dumps(query),
                       json.dumps({"keep": ["Solar panel 400 W", "Solar panel 450 W", "A value not in the table"]})])
    written = write_query("What did the products themselves cost, not services or accessories?", [ITEMS], llm,
                          executor, 3, 200)
    assert written.result.rows == [(428.0,)]
    [judged] = written.judgements
    assert judged["kept"] == ["Solar panel 400 W", "Solar panel 450 W"] and judged["values"] == 4
    assert "- Installation service" in llm.calls[1][-1]["content"]  # the model read the real distinct values
    assert "KEPT" not in written.result.sql and "'Solar panel 450 W'" in written.result.sql


def test_a_judged_filter_on_a_column_that_is_not_text_is_refused():
    from core.annotations.sql import judge_values
    with pytest.raises(QueryRefused, match="no text column"):
        judge_values("SELECT 1 FROM items WHERE amount IN KEPT", {"column": "amount", "keep": "big"}, "items",
                     [ITEMS], ScriptedLLM([]), None, None)


def test_a_double_quoted_name_that_is_no_column_is_refused_not_read_as_text():
    """SQLite reads an unknown "name" as the text 'name': "width" > 1.1 is true of the word, so the
    query runs and answers nonsense; refused with the real columns, so the retry can use them."""
    from core.annotations.sql import check_meaning
    with pytest.raises(QueryRefused, match=r'no column is named width.*races: athlete, nation, time_s'):
        check_meaning('SELECT DISTINCT "width" FROM races WHERE "width" > 1.1', [TABLE])
    check_meaning('SELECT "athlete" AS "who" FROM "races" WHERE "time_s" > 1 AND athlete = \'Paul "the" Kip\' '
                  'ORDER BY "who", "source_row"', [TABLE])  # columns, an alias, a quote inside a value
    check_meaning('WITH "fast" AS (SELECT * FROM races WHERE time_s < 120) SELECT COUNT(*) FROM "fast"', [TABLE])


def test_a_where_clause_that_compares_no_column_is_refused():
    """"WHERE 'mulch' IN (SELECT 'mulch' FROM t)" is true of every row: the query ran, counted the table
    and answered "1 bags" for a question about one line; refused, so the retry filters a column."""
    from core.annotations.sql import check_meaning
    with pytest.raises(QueryRefused, match="compares no column"):
        check_meaning("SELECT COUNT(*) FROM races WHERE 'kip' IN (SELECT 'kip' FROM races)", [TABLE])
    check_meaning("SELECT COUNT(*) FROM races WHERE athlete LIKE '%kip%'", [TABLE])
    check_meaning("SELECT athlete FROM races WHERE source_row = 1", [TABLE])  # a provenance column filters too
    check_meaning("WITH t AS (SELECT nation, COUNT(*) AS n FROM races GROUP BY nation) SELECT * FROM t WHERE n > 1",
                  [TABLE])  # a name the query defines


# --- second looks by code: a query that ran and found something, but cannot be the answer ---


@pytest.fixture
def medals(tmp_path):
    """Five nations over a totals row, as WikiTableQuestions' medal tables print them."""
    path = tmp_path / "medals.sqlite3"
    rows = [("Kenya", "Africa", 3), ("Norway", "Europe", 5), ("Sweden", "Europe", 2), ("Chile", "Americas", 1),
            ("Ghana", "Africa", 1), ("Total", None, 12)]
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE medals (nation TEXT COLLATE NOCASE, region TEXT COLLATE NOCASE, gold REAL, "
                     "fact_id TEXT, source_row INTEGER)")
        conn.executemany("INSERT INTO medals VALUES (?, ?, ?, ?, ?)",
                         [(*r, f"m{i}", i) for i, r in enumerate(rows, start=1)])
    table = TableInfo("medals", "d2", "medals.csv", None, "rows", ["nation", "region", "gold"],
                      {"nation": "Nation", "region": "Region", "gold": "Gold"},
                      {"nation": "TEXT", "region": "TEXT", "gold": "REAL"}, {}, 6,
                      values=sorted({r[0] for r in rows} | {r[1] for r in rows if r[1]}))
    return ReadOnlyExecutor(path, max_rows=100, timeout_s=2.0), table


def _ask(medals, question, *replies):
    executor, table = medals
    llm = ScriptedLLM([json.dumps({"table": "medals", "sql": sql}) for sql in replies])
    return write_query(question, [table], llm, executor, 3, 200), llm


def test_a_count_with_no_where_for_a_question_naming_a_value_goes_back_once(medals):
    written, llm = _ask(medals, "how many nations from europe are listed?",
                        "SELECT COUNT(nation) FROM medals", "SELECT COUNT(*) FROM medals WHERE region = 'europe'")
    assert written.result.rows == [(2,)] and written.retried
    told = llm.calls[1][-1]["content"]
    assert "'Europe'" in told and '"region" holds in 2 of 6 rows' in told and "no WHERE" in told


def test_a_count_with_no_where_stands_when_the_question_names_no_value_that_singles_rows_out(medals):
    executor, table = medals
    for question in ("how many nations are listed?", "how many nations won gold in total?"):
        written, llm = _ask(medals, question, "SELECT COUNT(*) FROM medals WHERE nation NOT LIKE 'total%'")
        assert written.result.rows == [(5,)] and not written.retried and len(llm.calls) == 1
    assert sql_module.unfiltered_aggregate("what is the sum of gold?", "SELECT SUM(gold) FROM medals", [table],
                                           executor) is None  # names no value: nothing to filter on


def test_a_name_the_question_gives_and_the_query_never_mentions_goes_back_once(medals):
    written, llm = _ask(medals, "How many gold medals did Ghana win?",
                        "SELECT gold FROM medals WHERE region = 'Africa' LIMIT 1",
                        "SELECT gold FROM medals WHERE nation = 'Ghana'")
    assert written.result.rows == [(1,)] and written.retried
    assert "'Ghana'" in llm.calls[1][-1]["content"] and "never mentions it" in llm.calls[1][-1]["content"]
    # a name the query keeps, in any case or as a pattern, stands; so does a lower-case word that is no name
    for sql in ("SELECT gold FROM medals WHERE lower(nation) LIKE '%ghana%'", "SELECT gold FROM medals WHERE nation = 'Ghana'"):
        written, llm = _ask(medals, "How many gold medals did Ghana win?", sql)
        assert not written.retried, sql
    written, llm = _ask(medals, "how many gold medals did the total of europe win?", "SELECT SUM(gold) FROM medals WHERE region = 'Europe'")
    assert not written.retried


def test_a_result_that_depends_on_the_totals_row_goes_back_once(medals):
    written, llm = _ask(medals, "which nation won the most gold medals?",
                        "SELECT nation FROM medals ORDER BY gold DESC LIMIT 1",
                        "SELECT nation FROM medals WHERE nation NOT LIKE 'total%' ORDER BY gold DESC LIMIT 1")
    assert written.result.rows == [("Norway",)] and written.retried
    assert "'Total'" in llm.calls[1][-1]["content"] and "totals the other rows" in llm.calls[1][-1]["content"]


def test_a_count_that_takes_the_totals_row_for_a_nation_goes_back(medals):
    written, llm = _ask(medals, "how many nations won at least 2 gold medals?",
                        "SELECT COUNT(*) FROM medals WHERE gold >= 2",
                        "SELECT COUNT(*) FROM medals WHERE gold >= 2 AND nation != 'Total'")
    assert written.result.rows == [(3,)] and len(llm.calls) == 2


def test_a_query_that_picks_the_totals_row_by_its_label_or_does_not_depend_on_it_stands(medals):
    for sql, rows in (("SELECT gold FROM medals WHERE nation = 'Total'", [(12,)]),  # on purpose
                      ("SELECT nation FROM medals ORDER BY gold ASC LIMIT 1", [("Chile",)]),  # the totals row changes nothing
                      ("WITH best AS (SELECT MAX(gold) AS g FROM medals WHERE nation NOT LIKE 'total%') "
                       "SELECT nation FROM medals, best WHERE gold = g", [("Norway",)])):
        written, llm = _ask(medals, "what is it?", sql)
        assert written.result.rows == rows and len(llm.calls) == 1, sql


def test_only_trailing_totals_rows_count_as_totals(medals):
    executor, table = medals
    assert sql_module.totals_rows(table, executor) == [("m6", "Total")]
    other = TableInfo("films", "d3", "films.csv", None, "rows", ["title"], {"title": "Title"}, {"title": "TEXT"}, {}, 2)
    path = executor.path.parent / "films.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE films (title TEXT, fact_id TEXT, source_row INTEGER)")
        conn.executemany("INSERT INTO films VALUES (?, ?, ?)", [("Total Recall", "a", 1), ("Heat", "b", 2)])
    assert sql_module.totals_rows(other, ReadOnlyExecutor(path, 10, 2.0)) == []


def test_when_the_retry_of_a_doubted_result_finds_nothing_the_first_result_stands(medals):
    written, llm = _ask(medals, "how many nations from europe are listed?",
                        "SELECT COUNT(nation) FROM medals", "SELECT COUNT(*) FROM medals WHERE region = 'Europa'")
    assert written.result.rows == [(6,)] and len(llm.calls) == 2


def test_an_example_cell_printed_over_two_lines_stays_on_its_row():
    table = TableInfo("doubles", "d4", "doubles.csv", None, "rows", ["opponents", "score"],
                      {"opponents": "Opponents", "score": "Score"}, {"opponents": "TEXT", "score": "TEXT"}, {}, 1)
    text = schema_text(table, [("Kerry Reid\n Wendy Turnbull", "2–6, 6–4")], ["opponents", "score"])
    assert "Kerry Reid Wendy Turnbull\t2–6, 6–4\n*/" in text


def test_a_count_of_rows_for_how_many_of_a_number_column_goes_back_once(medals):
    written, llm = _ask(medals, "how many gold did norway win?",
                        "SELECT COUNT(*) FROM medals WHERE nation = 'Norway'", "SELECT gold FROM medals WHERE nation = 'Norway'")
    assert written.result.rows == [(5,)] and written.retried
    assert '"gold" is a column of numbers' in llm.calls[1][-1]["content"]
    for question in ("how many nations won gold?", "how many times did norway win gold?"):  # a count of rows
        assert sql_module.counted_quantity(question, "SELECT COUNT(*) FROM medals WHERE gold > 0", [medals[1]],
                                           medals[0]) is None
    assert sql_module.counted_quantity("how many gold did norway win?", "SELECT SUM(gold) FROM medals WHERE nation = 'Norway'",
                                       [medals[1]], medals[0]) is None


def test_how_many_over_a_column_that_numbers_the_rows_is_a_count(tmp_path):
    path = tmp_path / "tablets.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE tablets (tablet REAL, genealogy TEXT, final_points REAL, fact_id TEXT, source_row INTEGER)")
        conn.executemany("INSERT INTO tablets VALUES (?, ?, ?, ?, ?)", [(i, f"G{i}", 10.5 * i, f"t{i}", i) for i in range(1, 12)])
    table = TableInfo("tablets", "d5", "tablets.csv", None, "rows", ["tablet", "genealogy", "final_points"],
                      {"tablet": "Tablet", "genealogy": "Genealogy", "final_points": "Final Points"},
                      {"tablet": "REAL", "genealogy": "TEXT", "final_points": "REAL"}, {}, 11)
    executor = ReadOnlyExecutor(path, 100, 2.0)
    assert sql_module.counted_quantity("how many tablets are there?", "SELECT COUNT(*) FROM tablets", [table], executor) is None
    told = sql_module.counted_quantity("how many points did G3 get?", "SELECT COUNT(*) FROM tablets WHERE genealogy = 'G3'",
                                       [table], executor)
    assert told.startswith('"final_points" is a column of numbers')


def test_a_figure_asked_per_group_and_summed_over_every_row_goes_back_once(medals):
    written, llm = _ask(medals, "what is the total of gold medals per region?",
                        "SELECT SUM(gold) FROM medals WHERE nation NOT LIKE 'total%'",
                        "SELECT region, SUM(gold) FROM medals WHERE nation NOT LIKE 'total%' GROUP BY region")
    assert written.retried and len(written.result.rows) == 3
    assert "per region" in llm.calls[1][-1]["content"] and "GROUP BY" in llm.calls[1][-1]["content"]


def test_a_rate_or_a_filter_by_a_name_is_no_group():
    assert sql_module.ungrouped_aggregate("what did fuel cost per litre?", "SELECT SUM(cost) / SUM(litres) FROM f") is None
    assert sql_module.ungrouped_aggregate("how many goals were scored by messi?",
                                          "SELECT SUM(goals) FROM f WHERE player LIKE 'messi'") is None
    assert sql_module.ungrouped_aggregate("orders for each customer", "SELECT customer, COUNT(*) FROM o GROUP BY customer") is None


def test_how_many_names_a_column_by_another_form_of_its_word(tmp_path):
    path = tmp_path / "games.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE games (opponent TEXT, attendance REAL, fact_id TEXT, source_row INTEGER)")
        conn.executemany("INSERT INTO games VALUES (?, ?, ?, ?)", [("Leeds", 21840.0, "g1", 1), ("Hull", 9012.0, "g2", 2)])
    table = TableInfo("games", "d6", "games.csv", None, "rows", ["opponent", "attendance"],
                      {"opponent": "Opponent", "attendance": "Attendance"}, {"opponent": "TEXT", "attendance": "REAL"}, {}, 2)
    executor = ReadOnlyExecutor(path, 100, 2.0)
    told = sql_module.counted_quantity("how many attended the game against leeds?",
                                       "SELECT COUNT(*) FROM games WHERE opponent = 'Leeds'", [table], executor)
    assert told.startswith('"attendance" is a column of numbers')
    assert sql_module.counted_quantity("how many attacks were there?", "SELECT COUNT(*) FROM games", [table], executor) is None


def test_a_row_before_another_read_with_source_row_greater_goes_back_once(executor):
    after = "SELECT athlete FROM races WHERE source_row > (SELECT source_row FROM races WHERE athlete = 'A5') ORDER BY source_row LIMIT 1"
    before = "SELECT athlete FROM races WHERE source_row < (SELECT source_row FROM races WHERE athlete = 'A5') ORDER BY source_row DESC LIMIT 1"
    llm = ScriptedLLM([json.dumps({"sql": after}), json.dumps({"sql": before})])
    written = write_query("Who ran before A5?", [TABLE], llm, executor, 3, 200)
    assert written.result.rows == [("A4",)] and "a row before another" in llm.calls[1][-1]["content"]
    assert sql_module.row_direction("Who ran after A5?", after) is None
    assert sql_module.row_direction("Who ran before 2009?", "SELECT athlete FROM races WHERE time_s < 2009") is None
    assert "a row after another" in sql_module.row_direction("Who came next after A5?", before)


def test_the_row_right_before_another_is_the_last_of_those_before_it_whatever_order_the_model_wrote(executor):
    first_row = "SELECT athlete FROM races WHERE source_row < (SELECT source_row FROM races WHERE athlete = 'A5') ORDER BY source_row LIMIT 1"
    written = write_query("Who ran right before A5?", [TABLE], ScriptedLLM([json.dumps({"sql": first_row})]), executor, 3, 200)
    assert written.result.rows == [("A4",)] and len(written.attempts) == 1  # set by code, no second call
    descending = "SELECT athlete FROM races WHERE source_row > (SELECT source_row FROM races WHERE athlete = 'A5') ORDER BY source_row DESC LIMIT 1"
    assert sql_module.nearest_row("Who ran next after A5?", descending).endswith("ORDER BY source_row LIMIT 1")
    assert sql_module.nearest_row("Who ran before or after A5?", first_row) == first_row  # both ways: left alone


def test_a_share_keeps_its_condition_in_the_case_and_not_in_the_where(executor):
    itself = ("SELECT SUM(CASE WHEN nation = 'Kenya' THEN time_s ELSE 0 END) * 100 / SUM(time_s) FROM races "
              "WHERE nation = 'Kenya'")
    written = write_query("What share of the total time did Kenyans run, as a percentage?", [TABLE],
                          ScriptedLLM([json.dumps({"sql": itself})]), executor, 3, 200)
    kenya = sum(100.0 + i for i in range(50) if i % 2)
    assert abs(written.result.rows[0][0] - kenya * 100 / sum(100.0 + i for i in range(50))) < 1e-9  # set by code
    # a WHERE the repair cannot read (an OR) is told to the model instead, once
    bracketed = itself.replace("WHERE nation = 'Kenya'", "WHERE (nation = 'Kenya' OR nation = 'Kenya')")
    told = sql_module.share_of_itself(bracketed, executor.run(bracketed, ["races"]))
    assert "leave it out of the WHERE" in told


def test_rows_returned_only_as_their_positions_go_back_once_for_the_column_asked_for(executor):
    positions = "SELECT source_row FROM races WHERE nation = 'Kenya'"
    athletes = "SELECT athlete FROM races WHERE nation = 'Kenya'"
    llm = ScriptedLLM([json.dumps({"sql": positions}), json.dumps({"sql": athletes})])
    written = write_query("Who ran for Kenya?", [TABLE], llm, executor, 3, 200)
    assert "only where the rows are (source_row)" in llm.calls[1][-1]["content"]
    assert written.result.columns == ["athlete"]


def test_a_filter_text_no_cell_contains_is_named_and_one_some_cell_contains_is_not(executor):
    assert sql_module.named_nowhere("SELECT COUNT(*) FROM races WHERE nation LIKE '%cracked%'", [TABLE], executor) \
        == ["cracked"]
    assert sql_module.named_nowhere("SELECT COUNT(*) FROM races WHERE nation LIKE '%lanka%'", [TABLE], executor) == []
    assert sql_module.named_nowhere("SELECT COUNT(*) FROM races WHERE time_s > 120", [TABLE], executor) == []


def test_a_figure_of_0_from_a_case_no_row_the_where_keeps_meets_goes_back_and_is_no_answer(executor):
    from core.annotations.route import not_an_answer

    nothing = ("SELECT SUM(CASE WHEN nation = 'Kenya' THEN time_s ELSE 0 END) * 100 / SUM(time_s) FROM races "
               "WHERE nation = 'Sri Lanka'")
    fixed = "SELECT SUM(CASE WHEN nation = 'Kenya' THEN time_s ELSE 0 END) * 100 / SUM(time_s) FROM races"
    llm = ScriptedLLM([json.dumps({"sql": nothing}), json.dumps({"sql": fixed})])
    written = write_query("What share of the total time did Kenyans run, as a percentage?", [TABLE], llm, executor, 3, 200)
    assert "no row the WHERE keeps meets nation = 'Kenya'" in llm.calls[1][-1]["content"]
    assert written.result.rows[0][0] > 0
    zero = executor.run(nothing, ["races"])
    assert "leaves out the rows its calculation picks" in not_an_answer(zero, [TABLE], executor, "What share did Kenyans run?")
    # a 0 the rows give honestly is an answer: no row of the table meets the CASE, or some row the WHERE keeps does
    none_slow = "SELECT SUM(CASE WHEN time_s > 1000 THEN 1 ELSE 0 END) FROM races WHERE nation = 'Kenya'"
    assert sql_module.share_of_nothing(none_slow, executor.run(none_slow, ["races"]), executor) is None
    honest = "SELECT SUM(CASE WHEN nation = 'Kenya' THEN 0 ELSE 0 END) FROM races WHERE nation = 'Kenya'"
    assert sql_module.share_of_nothing(honest, executor.run(honest, ["races"]), executor) is None


@pytest.fixture
def timesheet(tmp_path):
    """Weekly hours over two years, with the ISO twin a dated table carries (core.annotations.tables)."""
    path = tmp_path / "hours.sqlite3"
    weeks = [(f"2023-{m:02d}-15", "Ana", 10.0) for m in range(1, 13)] + [(f"2024-{m:02d}-15", "Ana", float(m)) for m in range(1, 13)]
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE hours (week TEXT, week_date TEXT, employee TEXT, hrs REAL, fact_id TEXT, source_row INTEGER)")
        conn.executemany("INSERT INTO hours VALUES (?, ?, ?, ?, ?, ?)",
                         [(d, d, e, h, f"h{i}", i) for i, (d, e, h) in enumerate(weeks, start=1)])
    table = TableInfo("hours", "d5", "hours.csv", None, "rows", ["week", "week_date", "employee", "hrs"],
                      {"week": "Week", "week_date": "Week as an ISO date (YYYY-MM-DD)", "employee": "Employee", "hrs": "Hrs"},
                      {"week": "TEXT", "week_date": "TEXT", "employee": "TEXT", "hrs": "REAL"}, {}, len(weeks),
                      dates={"week": {"twin": "week_date"}})
    return ReadOnlyExecutor(path, max_rows=100, timeout_s=2.0), table


@pytest.mark.parametrize("sql, kept", [
    ("SELECT SUM(hrs) FROM hours WHERE week_date LIKE '2024-10%'", False),  # one month of the quarter
    ("SELECT SUM(hrs) FROM hours WHERE week_date >= '2024-10-01' AND week_date <= '2024-12-31'", True),
    ("SELECT SUM(hrs) FROM hours WHERE strftime('%Y', week_date) = '2024' AND CAST(strftime('%m', week_date) AS INTEGER) IN (10, 11, 12)", True),
    ("SELECT SUM(hrs) FROM hours WHERE CAST(strftime('%m', week_date) AS INTEGER) BETWEEN 10 AND 12", False),  # every year
])
def test_a_query_that_lets_a_stated_period_go_is_found_by_code(timesheet, sql, kept):
    executor, table = timesheet
    unkept = sql_module.periods_unkept("How many hours did Ana work in Q4 2024?", sql, [table], executor)
    assert (unkept == []) == kept


def test_a_period_the_query_let_go_goes_back_once_and_what_is_still_let_go_is_said(timesheet, tmp_path, embedder):
    executor, table = timesheet
    october = "SELECT SUM(hrs) FROM hours WHERE week_date LIKE '2024-10%'"
    quarter = "SELECT SUM(hrs) FROM hours WHERE week_date BETWEEN '2024-10-01' AND '2024-12-31'"
    llm = ScriptedLLM([json.dumps({"sql": october}), json.dumps({"sql": quarter})])
    written = write_query("How many hours did Ana work in Q4 2024?", [table], llm, executor, 3, 200)
    assert written.result.rows == [(10.0 + 11.0 + 12.0,)] and written.retried
    assert "“Q4 2024”" in llm.calls[1][-1]["content"]
    # "ACME's orders in 2024" summed over every year: the dropped year is found
    dropped = sql_module.periods_unkept("What did Ana work in 2024?", "SELECT SUM(hrs) FROM hours WHERE employee = 'Ana'",
                                        [table], executor)
    assert [p.text.strip() for p in dropped] == ["2024"]


@pytest.fixture
def holdings(tmp_path):
    """A report's table with no date column: the rows of two balance dates under a line naming each."""
    path = tmp_path / "holdings.sqlite3"
    rows = [("March 31, 2025", None), ("Seed bank", 12.0), ("Herbarium", 3.5),
            ("March 31, 2024", None), ("Seed bank", 10.0), ("Herbarium", 3.1)]
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE holdings (description TEXT, net REAL, fact_id TEXT, source_row INTEGER)")
        conn.executemany("INSERT INTO holdings VALUES (?, ?, ?, ?)",
                         [(d, n, f"g{i}", i) for i, (d, n) in enumerate(rows, start=1)])
        conn.execute("CREATE TABLE latest AS SELECT * FROM holdings WHERE source_row <= 3")
    table = TableInfo("holdings", "d6", "holdings.pdf", None, "rows", ["description", "net"],
                      {"description": "Description", "net": "Net"}, {"description": "TEXT", "net": "REAL"}, {}, len(rows))
    return ReadOnlyExecutor(path, max_rows=100, timeout_s=2.0), table


def test_a_year_a_report_table_prints_beside_others_that_the_query_never_names_is_found_by_code(holdings):
    executor, table = holdings
    question = "What was the net seed bank holding as of March 31, 2025?"
    both = "SELECT SUM(net) FROM holdings WHERE description = 'Seed bank'"
    assert [p.text.strip() for p in sql_module.years_unkept(question, both, [table], executor)] == ["March 2025"]
    kept = "SELECT net FROM holdings WHERE description = 'Seed bank' AND source_row > (SELECT source_row FROM holdings " \
           "WHERE description LIKE '%2025%') ORDER BY source_row LIMIT 1"
    assert sql_module.years_unkept(question, kept, [table], executor) == []
    summed = sql_module.QueryResult(both, ["SUM(net)"], [(22.0,)])
    assert "prints beside other years" in sql_module.second_look(question, both, summed, [table], executor)
    # a table that prints one year only need not be kept to it
    latest = TableInfo("latest", "d7", "latest.pdf", None, "rows", ["description", "net"],
                       {"description": "Description", "net": "Net"}, {"description": "TEXT", "net": "REAL"}, {}, 3)
    assert sql_module.years_unkept(question, both.replace("holdings", "latest"), [latest], executor) == []


def test_today_s_date_is_a_condition_only_when_the_question_is_relative_to_today():
    query = "SELECT COUNT(*) FROM stock WHERE received_date < date('now', '-30 days')"
    assert sql_module.dated_from_today(query, "Can we use tins that are past their best-before date?")
    assert not sql_module.dated_from_today(query, "How many deliveries came in the last 30 days?")
    assert not sql_module.dated_from_today("SELECT COUNT(*) FROM loans WHERE due_date < CURRENT_DATE",
                                           "How many loans are overdue?")
    assert not sql_module.dated_from_today("SELECT COUNT(*) FROM stock WHERE received_date < '2025-01-01'",
                                           "How many tins came before 2025?")


def test_a_count_of_rows_over_a_total_of_figures_is_no_share():
    assert sql_module.counts_over_figures("SELECT CAST(SUM(CASE WHEN description LIKE 'Capital leases' THEN 1 ELSE 0 END) "
                                          "AS REAL) * 100 / SUM(total) FROM t")
    assert sql_module.counts_over_figures('SELECT COUNT(*) * 100.0 / SUM("amount") FROM t')
    # a share of figures, and a share of rows, are shares
    assert not sql_module.counts_over_figures("SELECT SUM(CASE WHEN region = 'EU' THEN amount ELSE 0 END) * 100 / "
                                              "SUM(amount) FROM t")
    assert not sql_module.counts_over_figures("SELECT SUM(CASE WHEN status = 'late' THEN 1 ELSE 0 END) * 100.0 / "
                                              "COUNT(*) FROM t")
    assert not sql_module.counts_over_figures("SELECT SUM(CASE WHEN a THEN 1 ELSE 0 END) * 100.0 / SUM(CASE WHEN b "
                                              "THEN 1 ELSE 0 END) FROM t")


def test_dates_subtracted_with_a_minus_go_back_once_for_julianday(tmp_path):
    path = tmp_path / "tables.sqlite3"
    days = ["2024-01-10", "2024-03-02", "2024-12-21"]
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE fills (unit TEXT, filled TEXT, filled_date TEXT, litres REAL, fact_id TEXT, source_row INTEGER)")
        conn.executemany("INSERT INTO fills VALUES (?, ?, ?, ?, ?, ?)",
                         [("V-1", d, d, 40.0, f"f{i}", i) for i, d in enumerate(days)])
    table = TableInfo("fills", "d9", "fills.csv", None, "rows", ["unit", "filled", "filled_date", "litres"],
                      {"unit": "Unit", "filled": "Filled", "filled_date": "Filled (ISO date)", "litres": "Litres"},
                      {"unit": "TEXT", "filled": "TEXT", "filled_date": "TEXT", "litres": "REAL"}, {}, 3,
                      dates={"filled": {"twin": "filled_date", "datetime": None}})
    as_text = "SELECT MAX(filled_date) - MIN(filled_date) AS days FROM fills WHERE unit = 'V-1'"
    in_days = "SELECT julianday(MAX(filled_date)) - julianday(MIN(filled_date)) AS days FROM fills WHERE unit = 'V-1'"
    llm = ScriptedLLM([json.dumps({"sql": as_text}), json.dumps({"sql": in_days})])
    written = write_query("How many days between V-1's first and last fill?", [table], llm,
                          ReadOnlyExecutor(path, 10, 2.0), 3, 200)
    assert "julianday" in llm.calls[1][-1]["content"] and written.result.rows == [(346.0,)]
    assert sql_module.dates_subtracted_as_text(in_days, [table]) is None
    day_of_year = "SELECT strftime('%j', MAX(filled_date) - MIN(filled_date)) FROM fills"
    assert "julianday" in sql_module.dates_subtracted_as_text(day_of_year, [table])
    years = "SELECT strftime('%Y', MAX(filled_date)) - strftime('%Y', MIN(filled_date)) FROM fills"
    assert sql_module.dates_subtracted_as_text(years, [table]) is None
    assert sql_module.dates_subtracted_as_text("SELECT litres - 5 FROM fills WHERE filled_date > '2024-02-01'", [table]) is None


def test_a_column_beside_a_total_outside_any_aggregate_goes_back_to_the_model(executor):
    # SQLite reads the bare column from one arbitrary row: "SUM(a) / b" divides by one row's b
    llm = ScriptedLLM([json.dumps({"sql": "SELECT SUM(time_s) / time_s FROM races"}),
                       json.dumps({"sql": "SELECT SUM(time_s) * 1.0 / COUNT(time_s) FROM races"})])
    written = write_query("What is the mean time?", [TABLE], llm, executor, 3, 200)
    assert written.retried and written.error is None
    assert "time_s stands beside SUM, AVG or COUNT" in llm.calls[1][-1]["content"]


def test_a_column_beside_max_names_the_row_that_holds_it(executor):
    llm = ScriptedLLM([json.dumps({"sql": "SELECT athlete, MAX(time_s) FROM races"})])
    written = write_query("Who was slowest?", [TABLE], llm, executor, 3, 200)
    assert not written.retried and written.error is None


def test_an_answer_the_query_wrote_itself_is_read_from_no_cell():
    from core.annotations.sql import QueryResult, written_not_read
    wrote = "SELECT DISTINCT CASE WHEN kind = 'Kiln' THEN 'Guarantee' ELSE 'None' END FROM kit WHERE kind = 'Kiln'"
    assert written_not_read(QueryResult(wrote, ["x"], [("Guarantee",)]))
    # a cell read from the table, or a figure, is an answer
    assert not written_not_read(QueryResult("SELECT name FROM kit WHERE kind = 'Kiln'", ["name"], [("Kiln A",)]))
    assert not written_not_read(QueryResult("SELECT 'total', SUM(cost) FROM kit", ["x", "y"], [("total", 12.5)]))
