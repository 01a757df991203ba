"""An empty chat's overview and example questions come from the user's own documents: their
names, table columns and topics, never a fixed list."""
from core.suggestions import DocumentFacts, describe_knowledge_base, example_questions, question_for


def test_the_overview_counts_documents_by_kind():
    documents = [DocumentFacts("a.pdf", "pdf"), DocumentFacts("b.pdf", "pdf"), DocumentFacts("c.csv", "csv")]
    assert describe_knowledge_base(documents) == "3 documents: 2 PDFs and 1 CSV table."
    assert describe_knowledge_base([DocumentFacts("s.xlsx", "xlsx")]) == "1 document: 1 spreadsheet."
    assert describe_knowledge_base([]) == "The knowledge base is empty."


def test_a_table_with_amounts_and_a_grouping_column_gets_a_total_per_group():
    sales = DocumentFacts("sales_q3.csv", "csv", columns={"region": {None}, "net revenue": {None}, "date": {None}})
    assert question_for(sales) == "What is the total net revenue per region in sales_q3.csv?"
    invoices = DocumentFacts("ledger.xlsx", "xlsx", columns={"supplier": {None}, "total due": {"currency"}})
    assert question_for(invoices) == "What is the total due per supplier in ledger.xlsx?"


def test_measured_columns_are_compared_not_summed():
    pumps = DocumentFacts("pumps.xlsx", "xlsx", columns={"model": {None}, "flow": {None}, "weight": {"mass"}})
    assert question_for(pumps) == "Which model has the highest weight in pumps.xlsx?"


def test_a_text_document_is_asked_about_a_stated_fact_or_its_own_topic():
    lease = DocumentFacts("lease.pdf", "pdf", "Document", ["lease", "deposit"], {"heading": {None}, "notice period": {None}})
    assert question_for(lease) == "What is the notice period in lease.pdf?"
    notes = DocumentFacts("team_notes.txt", "txt", "Document", ["notes", "rollout", "budget"])
    assert question_for(notes) == "What does team_notes.txt say about rollout?"  # "notes" is in the file name
    assert question_for(DocumentFacts("blank.txt", "txt")) == "What is blank.txt about?"


def test_examples_cover_each_kind_of_document_before_repeating_one():
    receipts = [DocumentFacts(f"r{i}.pdf", "pdf", "Receipt", columns={"vendor": {None}, "total": {"currency"}})
                for i in range(50)]
    manual = DocumentFacts("guide.pdf", "pdf", "Manual", ["calibration"])
    questions = example_questions(receipts + [manual], limit=3)
    assert questions == ["What is the total per vendor in r0.pdf?", "What does guide.pdf say about calibration?",
                         "What is the total per vendor in r1.pdf?"]
    assert example_questions([]) == []
