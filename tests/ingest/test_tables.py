"""find_tables: turning a grid of cells into tables, and rows into self-describing lines."""
from __future__ import annotations

import datetime as dt

from core.ingest.tables import cell_text, find_tables, serialize_row, table_lines

N = None  # an empty cell


def test_plain_grid_first_row_is_the_header():
    (table,) = find_tables([["Name", "Qty"], ["Bolt", 3], ["Nut", 5]])
    assert table.header == ["Name", "Qty"]
    assert table.rows == [["Bolt", "3"], ["Nut", "5"]]
    assert table.row_numbers == [2, 3]
    assert table.title_lines == [] and table.note_lines == []


def test_single_cell_rows_above_the_header_are_titles():
    grid = [
        ["Sales Report", N, N],  # a merged title reads as one value
        ["Region: North", N, N],
        ["Month", "Units", "Revenue"],
        ["Jan", 10, 1000],
    ]
    (table,) = find_tables(grid)
    assert table.title_lines == ["Sales Report", "Region: North"]
    assert table.header == ["Month", "Units", "Revenue"]
    assert table.row_numbers == [4]


def test_long_single_cell_row_below_the_data_is_a_note():
    grid = [
        ["Month", "Units", "Revenue"],
        ["Jan", 10, 1000],
        ["Figures are unaudited and rounded to the nearest unit", N, N],
    ]
    (table,) = find_tables(grid)
    assert table.rows == [["Jan", "10", "1000"]]
    assert table.note_lines == ["Figures are unaudited and rounded to the nearest unit"]


def test_short_single_cell_rows_that_start_like_notes_are_notes():
    grid = [["A", "B", "C"], [1, 2, 3], ["Source: ERP"], ["* estimated"], ["Note 2"]]
    (table,) = find_tables(grid)
    assert table.note_lines == ["Source: ERP", "* estimated", "Note 2"]
    assert table.row_numbers == [2]


def test_a_short_single_cell_row_is_data_not_a_note():
    # a row with only its first cell filled is still a row of the table
    grid = [["Item", "Qty", "Price"], ["Bolt", 3, 1.5], ["Spare"]]
    (table,) = find_tables(grid)
    assert table.rows == [["Bolt", "3", "1.5"], ["Spare", "", ""]]
    assert table.note_lines == []


def test_two_column_tables_have_no_notes():
    # with one or two columns a single filled cell is too common to be called a note
    grid = [["Key", "Value"], ["a", 1], ["This long single value is still a data row of the table"]]
    (table,) = find_tables(grid)
    assert len(table.rows) == 2 and table.note_lines == []


def test_tables_separated_by_blank_rows_are_separate_tables_with_real_row_numbers():
    grid = [
        ["Item", "Qty"],  # 1
        ["Bolt", 3],  # 2
        [N, N],  # 3
        [N, N],  # 4
        ["Returns"],  # 5 title of the second table
        ["Order", "Reason"],  # 6
        ["R-1", "Damaged"],  # 7
        ["R-2", "Late"],  # 8
    ]
    first, second = find_tables(grid)
    assert first.header == ["Item", "Qty"] and first.row_numbers == [2]
    assert second.title_lines == ["Returns"]
    assert second.header == ["Order", "Reason"]
    assert second.row_numbers == [7, 8]


def test_rows_of_empty_strings_count_as_blank():
    first, second = find_tables([["a", "b"], [1, 2], ["", "  "], ["c", "d"], [3, 4]])
    assert first.row_numbers == [2] and second.row_numbers == [5]


def test_titles_after_the_last_table_become_its_notes():
    grid = [["A", "B"], [1, 2], [N, N], ["Prepared by finance"]]
    (table,) = find_tables(grid)
    assert table.note_lines == ["Prepared by finance"]


def test_a_sheet_of_single_cell_lines_is_kept_as_text():
    (table,) = find_tables([["Read me first"], [N], ["This sheet only has instructions."]])
    assert table.header == [] and table.rows == []
    lines, _ = table_lines(table)
    assert lines == ["Read me first", "This sheet only has instructions."]


def test_empty_grid_has_no_tables():
    assert find_tables([]) == []
    assert find_tables([[N, N], [N]]) == []


def test_duplicate_header_names_are_numbered():
    (table,) = find_tables([["Amount", "Amount", "Amount"], [1, 2, 3]])
    assert table.header == ["Amount", "Amount (2)", "Amount (3)"]
    assert serialize_row(table.header, table.rows[0]) == "Amount: 1 | Amount (2): 2 | Amount (3): 3"


def test_empty_header_cells_get_a_column_name():
    (table,) = find_tables([["Name", N, "Qty"], ["Bolt", "M6", 3]])
    assert table.header == ["Name", "column 2", "Qty"]


def test_trailing_empty_columns_are_trimmed():
    grid = [["Name", "Qty", N, N, N], ["Bolt", 3, N, N, N], ["Nut", 5, "", N, N]]
    (table,) = find_tables(grid)
    assert table.header == ["Name", "Qty"]
    assert all(len(row) == 2 for row in table.rows)


def test_a_value_beyond_the_header_keeps_its_column():
    (table,) = find_tables([["Name", "Qty", N], ["Bolt", 3, "loose"]])
    assert table.header == ["Name", "Qty", "column 3"]
    assert serialize_row(table.header, table.rows[0]) == "Name: Bolt | Qty: 3 | column 3: loose"


def test_ragged_rows_are_padded():
    (table,) = find_tables([["A", "B", "C"], [1], [1, 2, 3]])
    assert table.rows == [["1", "", ""], ["1", "2", "3"]]


def test_serialized_row_skips_empty_cells():
    assert serialize_row(["A", "B", "C"], ["1", "", "3"]) == "A: 1 | C: 3"
    assert serialize_row(["A", "B"], ["", ""]) == ""


def test_table_lines_titles_then_rows_then_notes_with_row_numbers():
    grid = [["Stock"], ["Item", "Qty", "Bin"], ["Bolt", 3, "A1"], ["Nut", 5, "A2"], ["Note: counted on Monday"]]
    (table,) = find_tables(grid)
    lines, numbers = table_lines(table)
    assert lines == ["Stock", "Item: Bolt | Qty: 3 | Bin: A1", "Item: Nut | Qty: 5 | Bin: A2", "Note: counted on Monday"]
    assert numbers == [3, 3, 4, 5]  # titles carry the first data row, a note its own row


def test_cell_text_formats_values_as_people_write_them():
    assert cell_text(None) == ""
    assert cell_text(3.0) == "3"
    assert cell_text(3.25) == "3.25"
    assert cell_text(7) == "7"
    assert cell_text("  padded  ") == "padded"
    assert cell_text(dt.datetime(2024, 3, 1)) == "2024-03-01"
    assert cell_text(dt.datetime(2024, 3, 1, 14, 30)) == "2024-03-01 14:30:00"
    assert cell_text(dt.date(2024, 3, 1)) == "2024-03-01"


# --- office files: titles, notes and totals around the records ------------------------------------

def test_a_till_export_has_its_title_above_and_its_total_line_aside():
    grid = [
        ["The Copper Kettle – till export, week 12", N, N, N],  # 1 merged title
        [N, N, N, N],  # 2
        ["Receipt", "Item", "Qty", "Amount"],  # 3
        ["R-001", "Flat white", 2, "£6.40"],  # 4
        ["R-002", "Scone", 1, "£2.75"],  # 5
        ["TOTAL", N, 3, "£9.15"],  # 6: sums the rows above, no record
    ]
    (table,) = find_tables(grid)
    assert table.title_lines == ["The Copper Kettle – till export, week 12"]
    assert table.header == ["Receipt", "Item", "Qty", "Amount"]
    assert table.row_numbers == [4, 5]
    assert table.total_rows == [(6, ["TOTAL", "", "3", "£9.15"])]
    lines, numbers = table_lines(table)
    assert lines[-1] == "Receipt: TOTAL | Qty: 3 | Amount: £9.15" and numbers[-1] == 6  # still text to read


def test_a_total_label_under_any_column_closes_the_table():
    grid = [["Week", "Volunteer", "Hours"], ["2025-03-07", "Ines", 4], ["2025-03-07", "Rafa", 6],
            [N, "Grand total", 10]]
    (table,) = find_tables(grid)
    assert table.row_numbers == [2, 3] and [n for n, _ in table.total_rows] == [4]


def test_a_record_whose_name_starts_like_a_total_stays_a_record():
    grid = [["Item", "Category", "Price"], ["Total Gym 2000", "Fitness", 299], ["Subtotal", N, 299]]
    (table,) = find_tables(grid)
    assert table.rows == [["Total Gym 2000", "Fitness", "299"]]  # other words beside it: a record
    assert [n for n, _ in table.total_rows] == [3]


def test_a_title_and_a_notes_row_above_a_blank_row_are_not_a_one_column_table():
    grid = [
        ["Greenfield Rowing Club – boat log 2025", N, N],  # 1 merged
        ["Notes: a blank 'Back' time means the boat was still out at dusk. Times are local.", N, N],  # 2 merged
        [N, N, N],  # 3
        ["Boat", "Out", "Back"],  # 4: the header
        ["Heron", "07:10", "08:05"],  # 5
        ["Kingfisher", "07:30", N],  # 6
    ]
    (table,) = find_tables(grid)
    assert table.header == ["Boat", "Out", "Back"] and table.row_numbers == [5, 6]
    assert table.title_lines == ["Greenfield Rowing Club – boat log 2025"]
    assert table.note_lines[0].startswith("Notes: a blank") and table.note_numbers == [2]


def test_the_header_is_found_below_a_short_notes_row():
    grid = [["Prepared by:", "J. Osei", N, N, N], ["Plot", "Tenant", "Size (m2)", "Rent", "Paid"],
            ["P1", "Ada", 120, 40, "yes"], ["P2", "Bo", 90, 30, "no"]]
    (table,) = find_tables(grid)
    assert table.header == ["Plot", "Tenant", "Size (m2)", "Rent", "Paid"]
    assert table.title_lines == ["Prepared by: J. Osei"] and table.row_numbers == [3, 4]


def test_a_school_sheet_with_two_titled_tables_and_a_note_inside_the_first():
    grid = [
        ["St Brigid's School – exam entries 2025", N, N, N],  # 1
        [N, N, N, N],  # 2
        ["Entries", N, N, N],  # 3
        ["Candidate", "Subject", "Tier", "Fee"],  # 4
        ["C-01", "Maths", "Higher", 42],  # 5
        ["Late entries below are charged a further £20 each by the board", N, N, N],  # 6: a note inside
        ["C-02", "Biology", "Foundation", 62],  # 7
        [N, N, N, N],  # 8
        ["Invigilators", N, N, N],  # 9
        ["Name", "Room", "Days", N],  # 10
        ["Mr Quinn", "Hall", "Mon, Tue", N],  # 11
        ["Ms Ahmed", "Gym", "Wed", N],  # 12
    ]
    entries, invigilators = find_tables(grid)
    assert entries.title_lines == ["St Brigid's School – exam entries 2025", "Entries"]
    assert entries.row_numbers == [5, 7] and entries.note_numbers == [6]
    assert invigilators.title_lines == ["Invigilators"] and invigilators.header == ["Name", "Room", "Days"]
    assert invigilators.row_numbers == [11, 12]


def test_a_units_row_under_the_header_joins_it_and_is_no_record():
    grid = [["", "", "2025", "2024"], ["", "Note", "£m", "£m"], ["Fixed assets", "", "", ""],
            ["Investments", "3", "1,216.0", "1,212.9"]]
    (table,) = find_tables(grid)
    assert table.header == ["column 1", "Note", "2025 (£m)", "2024 (£m)"]
    assert table.rows[-1] == ["Investments", "3", "1,216.0", "1,212.9"] and len(table.rows) == 2
    (thousands,) = find_tables([["Region", "Sales"], ["", "$'000"], ["North", "3,770"]])
    assert thousands.header == ["Region", "Sales ($'000)"]


def test_one_scale_in_the_units_row_of_a_report_table_is_the_whole_tables():
    grid = [["", "", "Year Ended", ""], ["", "2021", "2020", "2019"], ["", "", "(in millions)", ""],
            ["Revenue", "$410", "$388", "$350"], ["Cost of sales", "(210)", "(199)", "(180)"]]
    (table,) = find_tables(grid)
    assert table.header == ["column 1", "2021", "2020", "2019"]
    assert table.title_lines == ["Year Ended", "(in millions)"] and len(table.rows) == 2


def test_a_first_row_of_codes_or_figures_stays_a_record():
    assert find_tables([["Name", "Sex", "Grade"], ["", "M", "F"], ["Ann", "F", "B"]])[0].rows[0] == ["", "M", "F"]
    assert find_tables([["Item", "Price"], ["Bolt", "£5m"]])[0].header == ["Item", "Price"]


def test_a_header_set_on_several_rows_is_one_header_and_a_list_of_words_keeps_its_rows():
    # a ruled report table whose column names run over three rows, the stub's scale on the last
    (table,) = find_tables([
        ["", "Provisional", "Measurement", "Provisional"],
        ["", "Allocation", "Period", "Allocation"],
        ["(In £m)", "At 1 April 2024", "Adjustments", "At 31 March 2025"],
        ["Cash", "16.0", "(0.2)", "15.8"],
        ["Debtors", "37.3", "—", "37.3"],
    ])
    assert table.header[1:] == ["Provisional Allocation At 1 April 2024", "Measurement Period Adjustments",
                                "Provisional Allocation At 31 March 2025"]
    assert [r[0] for r in table.rows] == ["Cash", "Debtors"]
    # a list whose rows are all words (a rota) is not one long header
    (rota,) = find_tables([["Day", "Lead", "Second"], ["Monday", "Asha", "Tom"], ["Tuesday", "Bea", "Ravi"]])
    assert len(rota.rows) == 2


def test_a_period_printed_once_over_the_figure_columns_is_part_of_each_of_their_names():
    grid = [
        ["Referrals by clinic", N, N, N],
        [N, "2023/24", N, N],  # printed once, over the columns it heads
        ["Clinic", "H1", "H2", "Year"],
        ["Eastfield", 410, 388, 798],
    ]
    (table,) = find_tables(grid)
    assert table.header == ["Clinic", "2023/24 H1", "2023/24 H2", "2023/24 Year"]
    assert table.title_lines == ["Referrals by clinic"]
    # a title in the first column, or words that are no period, stay titles
    (titled,) = find_tables([[N, "Draft", N], ["Clinic", "H1", "H2"], ["Eastfield", 410, 388]])
    assert titled.header == ["Clinic", "H1", "H2"] and titled.title_lines == ["Draft"]
