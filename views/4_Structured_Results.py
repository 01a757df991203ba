"""Structured Results: the records behind answers, every stored fact, and cited sources — each as
a sortable, filterable table with a CSV download that keeps file, page, sheet and row."""
import altair as alt
import pandas as pd
import streamlit as st

from core.exports import citation_rows, export_filename, rows_to_csv
from ui.components import match_summary, page_header, show_records
from ui.state import workspace

page_header("Structured Results", "Structured results",
            "Records found for your questions, every structured fact extracted from your documents, and the "
            "sources cited by recent answers. Sort by any column; downloads keep file, page, sheet and row.")

ws = workspace()
turns = ws.recent_turns(limit=100)
results, facts_tab, sources = st.tabs(["Answer results", "All facts", "Cited sources"])

with results:
    answered = [t for t in turns if t["response"].get("structured")]
    if not answered:
        st.info("No structured answers yet. Ask a question about records on the Chat page, for example "
                "“which panels are no wider than 1.2 m?” or “total per customer in 2024”.")
    else:
        labels = {t["turn_id"]: f"{t['created_at'][:16].replace('T', ' ')} · {t['question'][:90]}" for t in answered}
        turn_id = st.selectbox("Question", list(labels), format_func=labels.get)
        turn = next(t for t in answered if t["turn_id"] == turn_id)
        structured = turn["response"]["structured"]
        st.markdown(f"**{match_summary(structured)}** · understood as: "
                    f"{', '.join(structured['understood']) or 'all records'}")
        if structured.get("conditions"):  # what the question stated, and how each reached the query
            st.dataframe(pd.DataFrame([{"Condition": c["condition"], "Column": c["column"] or "",
                                        "Applied": c["how"] + (f" ({c['note']})" if c["note"] else "")}
                                       for c in structured["conditions"]]),
                         hide_index=True, width="stretch")
        rows = ws.result_rows(structured["result_set_id"]) or []
        if structured.get("aggregates") and any(g["group"] for g in structured["aggregates"]):
            chart_data = pd.DataFrame(structured["aggregates"])
            measure = next((k for k in ("sum", "avg", "max", "min") if k in chart_data), "count")
            st.altair_chart(
                alt.Chart(chart_data).mark_bar().encode(
                    x=alt.X(f"{measure}:Q", title=measure), y=alt.Y("group:N", sort="-x", title=None),
                    tooltip=["group", measure, "count"],
                ),
                width="stretch",
            )
        if rows:
            show_records(rows)
            data, _ = ws.export_result_set(structured["result_set_id"])
            st.download_button("Download CSV", data, type="primary",
                               file_name=export_filename(turn["question"], [r.filename for r in rows], turn["created_at"]),
                               mime="text/csv", key="download-results")
        else:
            st.warning("The documents behind this result set have been deleted.")

with facts_tab:
    counts = ws.counts()
    if counts["facts"] == 0:
        st.info("No structured facts yet. Spreadsheets, CSV files, receipts, invoices and datasheets give "
                "facts when they are uploaded.")
    else:
        documents = {d.doc_id: d.filename for d in ws.documents() if d.status == "indexed"}
        left, middle, right = st.columns(3)
        chosen = left.multiselect("Documents", list(documents), format_func=documents.get)
        label = middle.text_input("Column or label", placeholder="e.g. width, total, customer")
        value = right.text_input("Value contains", placeholder="e.g. ACME, tyre")
        rows = ws.search_facts(chosen, label=label, value=value)
        st.caption(f"{len(rows)} of {counts['facts']} facts" + (" (showing the first 2,000)" if len(rows) > 2000 else ""))
        if rows:
            show_records(rows[:2000])
            st.download_button("Download CSV", ws.export_facts(rows), file_name="docuchat_facts.csv",
                               mime="text/csv", key="download-facts")

with sources:
    rows = citation_rows(turns)
    if not rows:
        st.info("No answers yet. Ask a question on the Chat page; its sources are listed here.")
    else:
        table = pd.DataFrame(rows)
        left, right = st.columns([2, 1])
        needle = left.text_input("Filter", placeholder="Words in the question, file or snippet").lower()
        files = right.multiselect("Files", sorted(table["filename"].unique()))
        only_cited = st.toggle("Only sources the answer cites", value=True)
        if needle:
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
                           mime="text/csv", key="download-sources", disabled=table.empty)
