"""Structured Results: the evidence behind recent answers as a table you can filter and export."""
import pandas as pd
import streamlit as st

from core.exports import citation_rows, rows_to_csv
from ui.state import workspace

st.title("Structured results")
st.caption("Every source cited by recent answers, with file, page and score. Filter, sort by any column, "
           "and download as CSV.")

ws = workspace()
rows = citation_rows(ws.kb.catalog.recent_turns(limit=100))
if not rows:
    st.info("No answers yet. Ask a question on the Chat page; its sources are listed here.")
    st.stop()

table = pd.DataFrame(rows)
left, right = st.columns([2, 1])
query = left.text_input("Filter", placeholder="Words in the question, file or snippet")
files = right.multiselect("Files", sorted(table["filename"].unique()))
only_cited = st.toggle("Only sources the answer cites", value=True)
if query:
    needle = query.lower()
    table = table[table[["question", "filename", "snippet"]].apply(
        lambda column: column.str.lower().str.contains(needle, regex=False)).any(axis=1)]
if files:
    table = table[table["filename"].isin(files)]
if only_cited:
    table = table[table["cited"]]

st.dataframe(
    table, hide_index=True, width="stretch",
    column_order=["asked_at", "question", "filename", "page", "sheet", "rows", "score", "cited", "snippet",
                  "answer_confidence"],
    column_config={
        "asked_at": st.column_config.DatetimeColumn("Asked", format="YYYY-MM-DD HH:mm"),
        "question": "Question", "filename": "File", "page": "Page", "sheet": "Sheet", "rows": "Rows",
        "score": st.column_config.NumberColumn("Similarity", format="%.3f"), "cited": "Cited",
        "snippet": st.column_config.TextColumn("Snippet", width="large"), "answer_confidence": "Confidence",
    },
)
st.download_button("Download CSV", rows_to_csv(table.to_dict("records")), file_name="docuchat_sources.csv",
                   mime="text/csv", type="primary", disabled=table.empty)
