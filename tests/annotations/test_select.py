"""A question is answered from the table it names: by file name, cell values and column labels."""
import pytest

from core.annotations.select import named_files, score_table, select_tables, table_card
from core.annotations.tables import TableInfo

RACES = TableInfo("races", "d1", "marathon_results.csv", None, "rows", ["athlete", "nationality", "time"],
                  {"athlete": "Athlete", "nationality": "Nationality", "time": "Time"}, {}, {}, 227,
                  values=["Kenya", "Sri Lanka", "Ethiopia", "Paul Tergat"])
ORDERS = TableInfo("orders", "d2", "orders.csv", None, "rows", ["order_id", "customer", "total"],
                   {"order_id": "order_id", "customer": "customer", "total": "total"}, {}, {}, 300,
                   values=["ACME", "Globex", "Initech"])
INVOICE = TableInfo("azureinterior_fields", "d3", "AzureInterior.pdf", None, "fields", ["label", "value"],
                    {"label": "Label", "value": "Value"}, {}, {}, 11,
                    values=["Invoice Date", "Due Date", "Total", "Subtotal"])
TABLES = [RACES, ORDERS, INVOICE]


def names(question):
    return [s.table.name for s in select_tables(question, TABLES, 3.0)[0]]


def test_the_file_named_in_the_question_is_selected():
    assert names("What is the total amount of the Azure Interior invoice?") == ["azureinterior_fields"]


def test_cell_values_and_columns_select_the_table_that_holds_them():
    assert names("How many athletes have nationality Sri Lanka?") == ["races"]
    assert names("How many orders did ACME place in 2024?")[0] == "orders"


def test_a_month_is_no_stranger_name_even_may():
    assert names("How many orders did ACME place in May?")[0] == "orders"  # "May" alone is no month, "in May" is
    assert names("How many orders did ACME place in March?")[0] == "orders"


def test_a_month_stated_as_a_period_names_no_table_whose_month_column_prints_it():
    rota = TableInfo("rota", "d4", "rota.xlsx", "Shifts", "rows", ["name", "month", "shifts"],
                     {"name": "Name", "month": "Month", "shifts": "Shifts"}, {}, {}, 24,
                     values=["January", "February", "March", "Ann", "Raj"])
    asked = score_table("How many orders did Globex place between January and March 2025?", rota)
    assert not any(r.startswith("names values") for r in asked.reasons), asked.reasons
    # the other values it names still are
    assert any("ann" in r for r in score_table("How many shifts did Ann work in March?", rota).reasons)


def test_a_stated_year_a_log_s_dates_hold_counts_as_much_as_a_report_header_naming_it():
    report = TableInfo("report", "d5", "annual_report.pdf", None, "rows", ["ward", "q1", "q2"],
                       {"ward": "Ward", "q1": "Year to March 2025 Q1", "q2": "Year to March 2025 Q2"}, {}, {}, 4,
                       values=["North", "South"])
    log = TableInfo("log", "d6", "admissions_log.csv", None, "rows", ["date", "ward", "admissions"],
                    {"date": "Date", "ward": "Ward", "admissions": "Admissions"}, {}, {}, 300,
                    values=["03/01/2025", "14/02/2025", "North", "South"], dates={"date": {"twin": "date_date"}})
    question = "How many patients did North ward see in February 2025?"
    assert any("2025" in r for r in score_table(question, log).reasons)
    assert score_table(question, log).score >= score_table(question, report).score
    # a year its dates do not hold is no condition the log can keep
    assert "2023" not in " ".join(score_table("How many admissions did North have in 2023?", log).reasons)


def test_a_question_naming_no_table_selects_none():
    assert names("What investment did the company disclose in September 2023?") == []
    assert names("What did the site survey find about the roof?") == []
    assert names("What is the total amount of the Contoso invoice?") == []  # an invoice not in the knowledge base


def test_a_document_s_label_lines_need_its_name_and_a_label():
    assert score_table("What is the total?", INVOICE).score == 0  # which invoice?
    assert score_table("Tell me about Azure Interior", INVOICE).score == 0  # which figure?


def test_one_column_word_alone_is_not_enough():
    assert names("What was the total?") == []


def test_a_word_of_a_printed_label_selects_the_document_it_names():
    assert names("What is the date of the Azure Interior invoice?") == ["azureinterior_fields"]


def test_a_file_is_named_by_all_the_words_of_its_name():
    files = ["AzureInterior.pdf", "Orlen.txt", "orders.csv", "203_259.csv"]
    assert named_files("What is the total amount of the Orlen invoice?", files) == ["Orlen.txt"]
    assert named_files("the Azure Interior invoice", files) == ["AzureInterior.pdf"]
    assert named_files("How many orders did ACME place?", files) == ["orders.csv"]
    assert named_files("What is the interior colour?", files) == []  # one word of two


def test_a_file_named_with_its_extension_is_named():
    files = ["orders.csv", "fleet_register_2024.xlsx", "minutes.pdf"]
    assert named_files("How many rows of orders.csv are from 2024?", files) == ["orders.csv"]
    assert named_files("Which pumps in fleet_register_2024.xlsx run on diesel?", files) == ["fleet_register_2024.xlsx"]
    assert named_files("What does Minutes.PDF say about budgets?", files) == ["minutes.pdf"]


def test_a_bounded_quantity_selects_the_table_with_that_column():
    specs = TableInfo("specs", "d4", "maker_a.xlsx", "Panels", "rows", ["model", "w"], {"model": "Model", "w": "W [m]"},
                      {}, {}, 5, values=["SP-M 0.38"])
    assert [s.table.name for s in select_tables("Which are no wider than 1.2 m?", TABLES + [specs], 3.0,
                                                measured={"width"})[0]] == ["specs"]


def _record_table(filename="AzureInterior.pdf", issuer="Azure Interior", number="INV/2023/03/0008"):
    from core.annotations.tables import TableInfo
    columns = ["issuer", "number", "date", "total", "currency", "pages"]
    return TableInfo("azureinterior_record", "d1", filename, None, "record", columns,
                     {c: c.capitalize() for c in columns}, {}, {}, 1, [issuer, number, "2023-03-20", "USD"])


@pytest.mark.parametrize("question, column", [
    ("What is the total amount of the Azure Interior invoice?", "total"),
    ("How much is the total due on invoice INV/2023/03/0008?", "total"),
    ("When is the Azure Interior invoice dated?", "date"),
    ("When was the Azure Interior invoice issued?", "date"),
    ("What is the invoice number of the Azure Interior invoice?", "number"),
])
def test_one_field_of_a_named_invoice_is_a_record_lookup(question, column):
    from core.annotations.select import record_lookup, select_tables
    selected, _ = select_tables(question, [_record_table()], 3.0)
    found = record_lookup(question, selected)
    assert found is not None and found[1] == column


@pytest.mark.parametrize("question", [
    "What is the total amount and the date of the Azure Interior invoice?",  # two fields
    "Which items on the Azure Interior invoice cost more than 50?",  # not a field of the record
    "When is the Azure Interior invoice due?",  # its due date, which the record does not hold: not the total "due"
])
def test_anything_more_than_one_field_is_left_to_the_model(question):
    from core.annotations.select import record_lookup, select_tables
    selected, _ = select_tables(question, [_record_table()], 3.0)
    assert record_lookup(question, selected) is None


def test_the_issuer_of_a_record_is_no_answer_to_a_question_that_names_it_by_the_issuers_own_words():
    from core.annotations.select import record_lookup, select_tables
    # a page of a report read as a record whose first line, a row label, became its issuer
    report = _record_table(filename="annual_report_p12.pdf", issuer="Leased vehicles", number="")
    question = "What is the company's 2023 leased vehicles?"
    selected, _ = select_tables(question, [report], 3.0)
    assert record_lookup(question, selected) is None
    # a file named for its issuer is asked for by name
    question = "Which company issued the Azure Interior invoice?"
    selected, _ = select_tables(question, [_record_table()], 3.0)
    assert record_lookup(question, selected)[1] == "issuer"


def test_a_word_many_file_names_share_names_no_file():
    from core.annotations.select import name_weights
    filings = [TableInfo(f"t{n}", f"d{n}", f"{company}_annual_report.pdf", None, "rows", ["revenue"],
                         {"revenue": "Revenue"}, {}, {}, 3) for n, company in enumerate(["acme", "globex", "initech", "umbrella"])]
    weights = name_weights([t.filename for t in filings])
    assert weights["annual"] == weights["report"] == 0.0 and "acme" not in weights  # unique words keep their weight
    selected, ranked = select_tables("What revenue does the annual report give?", filings, 3.0)
    assert selected == []  # "annual report" names every filing, so none
    selected, _ = select_tables("What revenue does the Acme annual report give?", filings, 3.0)
    assert [s.table.filename for s in selected] == ["acme_annual_report.pdf"]


def test_a_value_is_named_without_its_accents():
    crew = TableInfo("crew", "d4", "harbour_crew.csv", None, "rows", ["skipper", "boat"],
                     {"skipper": "Skipper", "boat": "Boat"}, {}, {}, 12, values=["Seán Ó Brien", "Zoë", "Heron"])
    assert score_table("How many trips did Sean O Brien skipper?", crew).reasons[-1] == "names values: sean o brien"


def test_a_question_that_reads_like_a_table_selects_it_when_it_names_no_file_or_header():
    till = TableInfo("till", "d1", "till_export.csv", None, "rows", ["item", "qty"],
                     printed={"item": "Item", "qty": "Qty"}, values=["Croissant", "Sourdough loaf"])
    rota = TableInfo("rota", "d2", "staff_rota.csv", None, "rows", ["name", "shift"],
                     printed={"name": "Name", "shift": "Shift"}, values=["Early", "Late"])
    question = "How many pastries did we sell?"
    assert select_tables(question, [till, rota], 3.0)[0] == []  # no word of a file, header or cell
    similarity = {"till": 0.55, "rota": 0.12}  # as the embedding reads the question against each table's card
    selected, _ = select_tables(question, [till, rota], 3.0, similarity=similarity, weight=8.0, floor=0.1)
    assert [s.table.name for s in selected] == ["till"]
    assert any(r.startswith("reads like the table") for r in selected[0].reasons)


def test_a_tables_card_holds_its_names_headers_and_values():
    table = TableInfo("t", "d", "fleet_register.xlsx", "Vans", "rows", ["make"], printed={"make": "Make"},
                      values=["Ford", "Iveco"])
    assert table_card(table) == "fleet register Vans: Make. Ford, Iveco"


GARDEN = TableInfo("garden_sales", "d4", "garden_centre_sales.csv", None, "rows", ["item", "category", "amount"],
                   {"item": "Item", "category": "Category", "amount": "Amount (GBP)"}, {}, {}, 500,
                   values=["Terracotta pot 30cm", "Compost bag 40L", "Seedlings", "Tools"])
SEASONS = TableInfo("seasons", "d5", "league_seasons.csv", None, "rows", ["year", "club", "points"],
                    {"year": "Year", "club": "Club", "points": "Points"}, {}, {}, 40, values=["Rovers", "United"])
CLINIC = TableInfo("clinic", "d6", "clinic_treatments.csv", None, "rows", ["treatment", "length"],
                   {"treatment": "Treatment", "length": "Length (min)"}, {}, {}, 12, values=["Scale and polish"])
ROTA = TableInfo("rota", "d7", "staff_rota.csv", None, "rows", ["name", "hours"],
                 {"name": "Name", "hours": "Weekly Hours"}, {}, {}, 12, values=["Ana", "Tom"])


def test_a_word_of_a_cell_value_names_its_table():
    # "pots" is a word of the item "Terracotta pot 30cm", not a whole value
    assert score_table("How many pots did we sell?", GARDEN).score > score_table("How many pots did we sell?", SEASONS).score


def test_sold_names_a_file_of_sales():
    assert "names the file: sale" in " ".join(score_table("What was sold in June?", GARDEN).reasons)


def test_last_year_is_a_period_not_a_year_column():
    assert not any("year" in r for r in score_table("How much compost did we sell last year?", SEASONS).reasons)


def test_a_bound_in_a_unit_selects_a_column_in_that_kind_of_unit_not_a_name_holding_the_unit_word():
    question = "Which treatments take an hour or more?"
    assert score_table(question, CLINIC).score > score_table(question, ROTA).score
    assert any(r.startswith("bounds a quantity") for r in score_table(question, CLINIC).reasons)


def test_a_column_said_with_its_unit_outweighs_a_sheet_named_by_the_unit_word():
    # The mechanics' job log heads its hours "Labour (h)"; the office timesheet sheet is called "Hours".
    jobs = TableInfo("jobs", "d7", "garage_jobs.xlsx", "Jobs", "rows", ["mechanic", "labour_h"],
                     {"mechanic": "Mechanic", "labour_h": "Labour (h)"}, {}, {}, 300, values=["Ana", "Piet"])
    timesheet = TableInfo("hours", "d8", "office_timesheets.xlsx", "Hours", "rows", ["employee", "hrs"],
                          {"employee": "Employee", "hrs": "Hrs"}, {}, {}, 400, values=["Lars", "Mila"])
    question = "Who logged the most labour hours in May?"
    assert "names a column with its unit: Labour (h)" in score_table(question, jobs).reasons
    assert score_table(question, jobs).score > score_table(question, timesheet).score
    assert not any("with its unit" in r for r in score_table("Who logged the most hours in May?", jobs).reasons)


def test_the_table_with_the_column_a_which_question_asks_for_outweighs_one_that_only_codes_it():
    """A garage's job log codes each job's service; its price list names the services: "which services" is
    answered by listing the Service column, which only the price list has."""
    log = TableInfo("jobs", "d9", "garage_jobs_2024.csv", None, "rows", ["job", "code", "labour_h", "reg"],
                    {"job": "Job No", "code": "Code", "labour_h": "Labour (h)", "reg": "Reg"}, {}, {}, 900,
                    values=["MOT", "BRK", "CLT", "AB12 CDE"])
    prices = TableInfo("prices", "d9", "garage_prices.xlsx", "Prices", "rows", ["code", "service", "std_h"],
                       {"code": "Code", "service": "Service", "std_h": "Standard Time (h)"}, {}, {}, 14,
                       values=["MOT test", "Brake pads", "Clutch replacement"])
    question = "Which services take more than two hours?"
    assert "has the column the question asks for: service" in score_table(question, prices).reasons
    assert score_table(question, prices).score > score_table(question, log).score
    assert not any("asks for" in r for r in score_table("How many services took more than two hours?", prices).reasons)


def test_the_words_of_a_count_name_no_number_or_total_column():
    """"The total number of films ..." counts films: it asks for no receipt's number and total, and no Number or
    Total column; "the invoice number of ..." still names the invoice's number."""
    receipts = TableInfo("receipts_record", "d10", "Receipts_2024.pdf", None, "records", ["number", "total", "date"],
                         {"number": "Number", "total": "Total", "date": "Date"}, {}, {}, 12, values=["QuickFit"])
    films = TableInfo("films", "d11", "203_641.csv", None, "rows", ["film", "rating", "year"],
                      {"film": "Film", "rating": "Rating", "year": "Year"}, {}, {}, 40, values=["Vertigo", "Rope"])
    question = "What is the total number of films made with a rating of 8 or higher?"
    assert score_table(question, films).score > score_table(question, receipts).score
    assert not any("number" in r or "total" in r for r in score_table(question, receipts).reasons)
    assert "number" in " ".join(score_table("What is the receipt number of the QuickFit receipt?", receipts).reasons)


def test_a_quantity_the_comparative_names_outranks_another_of_its_unit_kind():
    # The round log's distances are lengths too, but "longer than" names a length column, which only the list has.
    log = TableInfo("rounds", "d9", "round_log.csv", None, "rows", ["van", "distance_km", "driver"],
                    {"van": "Van", "distance_km": "Distance (km)", "driver": "Driver"}, {}, {}, 900, values=["Ana"])
    fleet = TableInfo("fleet", "d10", "fleet_list.xlsx", "Fleet", "rows", ["registration", "length_m", "make"],
                      {"registration": "Registration", "length_m": "Length [m]", "make": "Make"}, {}, {}, 9,
                      values=["Ford", "Iveco"])
    question = "Which vehicles are longer than 20 feet?"
    assert score_table(question, fleet, measured={"length"}).score > score_table(question, log, measured={"length"}).score
    # with no quantity named, a bound's kind of unit still points at the column in it
    assert any(r.startswith("bounds a quantity") for r in score_table("Which rounds were over 80 km?", log).reasons)


def test_a_plural_in_es_names_the_file_of_its_singular():
    fixtures = TableInfo("fixture_list", "d4", "fixture_list.csv", None, "rows", ["date", "team"],
                         {"date": "Date", "team": "Team"}, {}, {}, 40, values=["U12", "Seniors"])
    batches = TableInfo("batch_log", "d5", "batch_log.csv", None, "rows", ["batch", "loaves"],
                        {"batch": "Batch", "loaves": "Loaves"}, {}, {}, 40, values=["B1", "B2"])
    assert any("names the file: batch" in r for r in score_table("How many batches failed in May?", batches).reasons)
    assert score_table("How many batches failed in May?", fixtures).score == 0


def test_a_verb_names_the_column_headed_by_its_noun():
    permits = TableInfo("permits", "d7", "parking.xlsx", "Permits", "rows", ["holder", "bay", "expiry"],
                        {"holder": "Holder", "bay": "Bay", "expiry": "Expiry"}, {}, {}, 40,
                        values=["R. Khan", "B12"], dates={"expiry": {"twin": "expiry_date"}})
    assert "names columns: expiry" in score_table("Whose parking permits expire before June 2026?", permits).reasons
    assert "names columns: expiry" in score_table("Which permits expired last month?", permits).reasons


def test_a_document_the_question_gives_as_its_source_is_the_one_file_its_words_name():
    from core.annotations.select import sourced_files

    files = ["Harbour_Trust_Annual_Report_2023.pdf", "moorings.xlsx", "Skippers_Handbook.pdf", "Trustees_Minutes_2024-05-02.pdf"]
    assert sourced_files("How many berths are there, according to the annual report?", files) == [files[0]]
    assert sourced_files("What did the trustees decide, as the minutes say?", files) == [files[3]]
    assert sourced_files("Which boats pay the most in the moorings sheet?", files) == ["moorings.xlsx"]  # any sheet
    assert sourced_files("How many berths were let in the first quarter?", files) == []  # a period, no document
    assert sourced_files("What is in the report?", files + ["Harbour_Safety_Report.pdf"]) == []  # two reports: which?


def test_a_file_named_like_another_tables_value_is_that_value_unless_the_kind_of_document_is_said():
    from core.annotations.select import names_a_value

    jobs = TableInfo("jobs", "d5", "job_log.csv", None, "rows", ["contractor", "cost"],
                     {"contractor": "Contractor", "cost": "Cost (£)"}, {}, {}, 40, values=["Brightwater Plumbing", "Oakline"])
    invoice = TableInfo("inv", "d6", "Brightwater_Plumbing_Invoice_118.pdf", None, "fields", ["label", "value"],
                        {"label": "label", "value": "value"}, {}, {}, 6, values=["Invoice total"])
    both = [jobs, invoice]
    assert names_a_value("What did we pay Brightwater Plumbing for jobs in 2024?", both) == {"brightwater", "plumbing"}
    assert names_a_value("What is the total of the Brightwater Plumbing invoice?", both) == set()  # the document
    ranked = select_tables("What did we pay Brightwater Plumbing for jobs in 2024?", both, 0.0)[1]
    assert ranked[0].table is jobs
