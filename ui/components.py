"""Small rendering helpers shared by pages. Text from users and documents is never rendered as
HTML: it goes through st.text / st.code / st.dataframe, or markdown with HTML disabled."""
from __future__ import annotations

import re

from datetime import date

import pandas as pd
import streamlit as st

from core.citations import how_found, location, nearest_sentence, place_citations, quoted_evidence
from core.exports import export_filename, record_tables
from core.safety.flags import flag_label
from core.safety.pii import hidden_label

CONFIDENCE_COLOURS = {"high": "green", "medium": "orange", "low": "red"}
CITED_ROW = "rgba(255, 214, 0, 0.35)"  # the evidence view's highlight, as on a cited PDF page
EVIDENCE_PAGE_PX = 640  # a cited page's width on screen (narrower screens shrink it to fit)


def page_header(tab: str, title: str, caption: str) -> None:
    """A page's browser-tab name, heading and one-line explanation (app.py set the app-wide layout)."""
    st.set_page_config(page_title=f"{tab} · DocuChat", layout="wide")
    st.title(title)
    st.caption(caption)


def match_summary(structured: dict) -> str:
    """ "6 matching records": what the answer counted, in the reader's word (the stored facts are internal);
    "6 matching records in 9 rows" when one record is a row of several files (a panel in a datasheet and
    in a spreadsheet), so the count and the rows listed and exported never disagree unexplained."""
    records, rows = structured.get("total_records", structured["total_matches"]), structured["total_matches"]
    return f"{records} matching records" + (f" in {rows} rows" if rows != records else "")

def where(citation: dict) -> str:
    return location(citation.get("page"), citation.get("sheet"), citation.get("rows"))


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|$~])")
_LIST_ITEM = re.compile(r"^(\s*)([-*•]|\d+[.)])\s+(.*)$")


_LIST_NUMBER = re.compile(r"^(\s*\d+)([.)])", re.M)


def escape_markdown(text: str) -> str:
    """Markdown that shows text literally: no links, images, headings, lists or HTML from a document."""
    return _LIST_NUMBER.sub(r"\1\\\2", _MARKDOWN_SPECIAL.sub(r"\\\1", text))


def safe_markdown(text: str) -> str:
    """Literal text, except that the model's bullet and numbered lists still render as lists."""
    lines = []
    for line in text.splitlines():
        item = _LIST_ITEM.match(line)
        if item:
            marker = item.group(2) if item.group(2)[0].isdigit() else "-"
            lines.append(f"{item.group(1)}{marker} {escape_markdown(item.group(3))}")
        else:
            lines.append(escape_markdown(line))
    return "  \n".join(lines)


def answer_meta(response: dict, trace_link: bool = True) -> None:
    """Confidence badge, safety flags and the link to this turn's trace."""
    cols = st.columns([1, 3, 1])
    confidence = response.get("confidence", "low")
    cols[0].badge(f"{confidence} confidence", color=CONFIDENCE_COLOURS.get(confidence, "gray"))
    if response.get("mode") == "agent":
        cols[0].badge("agent mode", icon=":material/smart_toy:", color="violet")
    flags = response.get("safety_flags", [])
    hidden = [label for f in flags if (label := hidden_label(f))]
    others = [flag_label(f) for f in flags if not hidden_label(f)]
    if others:
        cols[1].caption(":material/warning: " + " · ".join(others))
    if hidden:
        cols[1].caption(":material/visibility_off: " + " · ".join(hidden).capitalize()
                        + " in this answer. To see it, turn off “Hide personal data in answers” in the sidebar.")
    if trace_link and response.get("trace_id"):
        cols[2].page_link("views/3_Agent_Trace.py", label="View trace", icon=":material/account_tree:",
                          query_params={"turn": response["trace_id"]})


def source_anchor(response: dict, number: int) -> str:
    """The id a citation chip links to: unique per answer, hex and digits only."""
    return f"src-{response.get('trace_id') or 'answer'}-{number}"


def _source_label(c: dict) -> str:
    label = f"[{c['number']}] {escape_markdown(c['filename'])}"  # expander labels render Markdown
    return " · ".join(p for p in (label, where(c), how_found(c.get("matched", False), c["score"])) if p)


def citations(response: dict) -> None:
    """The sources the answer cites, each opened by its chip in the answer (a link to the heading
    anchor inside its expander: the browser opens a closed section to show a link's target). An answer
    that cites nothing, such as a refusal, gets the closest passages folded into one section."""
    items = response.get("citations", [])
    cited = [c for c in items if c.get("cited")]
    if cited:
        st.caption("Sources")
        for c in cited:
            with st.expander(_source_label(c)):
                # A heading's anchor is the chip's target: no HTML from us on any page (tests/hardening).
                st.subheader(f"Source {c['number']}", anchor=source_anchor(response, c["number"]))
                st.text(c.get("snippet", ""))
                evidence(c, response.get("personal_data_hidden", False))
    elif items:
        with st.expander(f"Closest passages found ({len(items)}), not evidence for an answer"):
            for c in items:
                st.caption(_source_label(c))
                st.text(c.get("snippet", ""))


@st.cache_data(max_entries=64, show_spinner=False)
def _page_image(doc_id: str, page: str, quote: str, snippet: str, hidden: bool):
    from ui.state import workspace

    return workspace().evidence_page({"doc_id": doc_id, "page": page, "quote": quote, "snippet": snippet}, hidden)


@st.cache_data(max_entries=64, show_spinner=False)
def _cited_rows(doc_id: str, sheet: str | None, rows: str, hidden: bool):
    from ui.state import workspace

    return workspace().evidence_rows({"doc_id": doc_id, "sheet": sheet, "rows": rows}, hidden)


def evidence(c: dict, hidden: bool = False) -> None:
    """Where the citation points, as the file shows it: the PDF page with the quoted words highlighted, or
    the cited rows of a sheet among their neighbours; personal data covered when the answer hid it."""
    if c.get("page") and c["filename"].lower().endswith(".pdf"):
        image = _page_image(c["doc_id"], str(c["page"]), c.get("quote", ""), c.get("snippet", ""), hidden)
        if image is not None:
            marked = "the quoted words highlighted" if c.get("quote") else "the passage read highlighted"
            # a page at most as wide as a reading column: a whole A4 page stays in view
            st.image(image.png, width=EVIDENCE_PAGE_PX, output_format="PNG", caption=f"Page {image.page} of {c['filename']}, " + (
                marked if image.found else "as printed (the quoted words were not found on it word for word)"))
        return
    rows = _cited_rows(c["doc_id"], c.get("sheet"), c["rows"], hidden) if c.get("rows") else None
    if rows is not None:
        frame = pd.DataFrame(rows.rows, columns=["Row", *rows.columns, "cited"]).astype(object)
        frame = frame.where(frame.notna(), "")
        cited = frame.pop("cited").tolist()
        styled = frame.style.apply(lambda row: [f"background-color: {CITED_ROW}" if cited[row.name] else ""] * len(row),
                                   axis=1)
        st.caption(f"Rows {escape_markdown(c['rows'])} of {escape_markdown(c['filename'])}, highlighted among the rows around them")
        st.dataframe(styled, hide_index=True, width="stretch")


_CHIP = re.compile(r"\\\[(\d+)\\\]")  # a "[N]" chip after escape_markdown: \[N\]


def answer_body(response: dict) -> None:
    """The answer with its citations as compact chips at the end of each claim, each a link to
    its source below."""
    numbers = {c["number"] for c in response.get("citations", []) if c.get("cited")}

    def link(match: re.Match) -> str:
        n = int(match.group(1))
        return f"[\\[{n}\\]](#{source_anchor(response, n)})" if n in numbers else match.group(0)

    text = safe_markdown(place_citations(response.get("answer", "")))
    st.markdown(_CHIP.sub(link, text))
    if said := quoted_evidence(response.get("answer", ""), response.get("citations", [])):
        st.caption(safe_markdown(f"From {said}"))  # a short answer's figure, with the sentence that says what it covers


def insufficiencies(response: dict) -> None:
    """What agent mode could not find in the documents, and what it tried."""
    gaps = response.get("insufficiencies") or []
    if not gaps:
        return
    lines = []
    for gap in gaps:
        tried = f" (searched: {'; '.join(gap['queries_tried'])})" if gap.get("queries_tried") else ""
        section = f"**{escape_markdown(gap['section'])}**: " if gap.get("section") else ""
        lines.append(f"- {section}{escape_markdown(gap.get('missing', '') + tried)}")
    st.warning("Not covered by the documents:\n" + "\n".join(lines), icon=":material/report:")


PROVENANCE = {"filename": "File", "sheet": "Sheet", "page": "Page", "row": "Row"}


def records_frame(rows: list[dict]) -> pd.DataFrame:
    """Flat record rows as a table: the records' own columns, then where each is (File, Sheet, Page,
    Row), leaving out a file or sheet the whole table shares (its title names it) and a page or row
    column with nothing in it. Blank, never "None"; text throughout (Arrow refuses a column that
    mixes page numbers and blanks). A document's record is no row of a table (its row is 0), and one
    that lists its own Pages needs no Page beside them."""
    table = pd.DataFrame(rows).drop(columns=["doc_id", "chunk_id", "fact_id"], errors="ignore")
    table = table.astype(object).where(table.notna(), "").astype(str)
    if "row" in table:
        table["row"] = table["row"].where(table["row"] != "0", "")
    shared = [c for c in ("filename", "sheet") if c in table and table[c].nunique() == 1]
    empty = [c for c in ("page", "row") if c in table and (table[c] == "").all()]
    own_pages = ["page"] if "page" in table and any(c.lower() == "pages" for c in table.columns) else []
    return table.drop(columns=list(dict.fromkeys(shared + empty + own_pages))).rename(columns=PROVENANCE)


def show_records(rows) -> None:
    """Fact rows as tables of their own columns: one table per set of columns (a spreadsheet's
    rows, a datasheet's fields), each titled with where it comes from when there are several."""
    tables = record_tables(rows)
    for table in tables:
        if len(tables) > 1:
            count = len(table.rows)
            st.caption(f"{escape_markdown(table.title)} · {count} record{'s' * (count != 1)}")
        st.dataframe(records_frame(table.rows), hide_index=True, width="stretch")


def structured_table(response: dict) -> None:
    """The records behind a structured answer, with the whole result set as CSV."""
    structured = response.get("structured")
    if not structured:
        return
    from ui.state import workspace

    ws = workspace()
    rows = ws.result_rows(structured["result_set_id"])
    if rows is None:
        st.warning("The documents behind this result have been deleted.")
        return
    shown, total = min(structured["rows_shown"], len(rows)), len(rows)
    show_records(rows[:shown])
    st.caption(f"{match_summary(structured)}. Showing {shown} of {total} rows; the CSV has all of them." if total > shown
               else f"{match_summary(structured)}.")
    name = export_filename(response.get("question", ""), [r.filename for r in rows], today())
    data, _ = ws.export_result_set(structured["result_set_id"])
    st.download_button(f"Download all {total} rows as CSV", data, file_name=name,
                       mime="text/csv", key=f"download-{structured['result_set_id']}")


def render_answer(response: dict, asked: str = "", trace_link: bool = True) -> None:
    """A whole assistant message: how the question was read, the answer, its badge and sources."""
    understood = response.get("understood_as") or ""
    if understood and understood.strip() != asked.strip():
        st.caption(f"Understood as: {escape_markdown(understood)}")
    answer_body(response)
    if response.get("nearest"):  # a refusal's near miss: what was found, and why it is not the answer
        st.caption(escape_markdown(nearest_sentence(response["nearest"])))
    insufficiencies(response)
    if response.get("clarification"):
        st.info(response["clarification"], icon=":material/help:")
    structured_table(response)
    answer_meta(response, trace_link)
    citations(response)


def today() -> str:
    return date.today().isoformat()


DOCUMENT_COLUMNS = {  # how documents_frame shows: a problem is read whole, not cut at a column's edge
    "Problem": st.column_config.TextColumn("Problem", width="large"),
    "Summary": st.column_config.TextColumn("Summary", width="large"),
}


def documents_table(records, summaries: dict[str, dict] | None = None, problems: bool = True) -> None:
    """The documents, and under them each unreadable file's whole reason (a cell cuts it off)."""
    st.dataframe(documents_frame(records, summaries), hide_index=True, width="stretch", column_config=DOCUMENT_COLUMNS)
    for d in records if problems else []:
        if d.status == "failed" and d.error:
            st.error(f"**{escape_markdown(d.filename)}** could not be read: {escape_markdown(d.error)}",
                     icon=":material/error:")


def documents_frame(records, summaries: dict[str, dict] | None = None) -> pd.DataFrame:
    summaries = summaries or {}
    return pd.DataFrame(
        [
            {
                "File": d.filename,
                "Status": d.status,
                "Type": summaries.get(d.doc_id, {}).get("document_type", ""),
                "Size (KB)": round((d.size_bytes or 0) / 1024, 1),
                "Pages": str(d.pages) if d.pages else "",  # one type: Arrow refuses a column of ints and ""
                "Chunks": d.n_chunks,
                "Category": (d.category or "").replace(",", ", "),
                "Added": d.created_at[:16].replace("T", " "),
                "Problem": d.error or "",
                "Summary": summaries.get(d.doc_id, {}).get("summary", ""),
            }
            for d in records
        ]
    )


AGENT_KINDS = ("plan", "tool_call", "validation", "reprompt", "error")


def agent_trace_event(event: dict) -> bool:
    """Agent mode's steps on the trace page: the plan, each tool call with its input and what the
    model read back, the validation gate's verdicts and the reprompts. False for anything else."""
    kind, outputs = event["kind"], event["outputs"]
    if kind not in AGENT_KINDS or (kind == "plan" and not outputs.get("steps")) or (
            kind == "validation" and "codes" not in outputs):
        return False
    if kind == "plan":
        st.subheader("Plan")
        source = "written by the model" if outputs.get("source") == "llm" else "the default plan"
        st.caption(f"{len(outputs['steps'])} steps, {source}"
                   + (f" (the model's reply had none: {outputs['error']})" if outputs.get("error") else ""))
        st.markdown("\n".join(f"{n}. {escape_markdown(step)}" for n, step in enumerate(outputs["steps"], 1)))
        if outputs.get("requirements"):
            st.caption("Requirements found in the question")
            st.markdown("\n".join(f"- {escape_markdown(r)}" for r in outputs["requirements"]))
    elif kind == "tool_call":
        with st.container(border=True):
            failed = event["status"] == "failed"
            st.markdown(f"{':material/error:' if failed else ':material/build:'} **Tool call · "
                        f"{escape_markdown(event['inputs'].get('tool', ''))}** · {event['duration_ms']:.0f} ms")
            st.caption("Input" + (" (run without a model call: the plan's first search)"
                                  if event["inputs"].get("automatic") else ""))
            st.json(event["inputs"].get("input", {}), expanded=True)
            st.caption("Summary: " + escape_markdown(outputs.get("output_summary", event["summary"])))
            with st.expander("What the model read back"):
                st.code(outputs.get("observation", ""), language=None, wrap_lines=True)
    elif kind == "validation":
        if outputs.get("is_valid"):
            st.success("Validation gate: the answer was accepted.", icon=":material/verified:")
        else:
            errors = "\n".join(f"- {escape_markdown(e)}" for e in outputs.get("errors", []))
            st.error(f"Validation gate: rejected ({escape_markdown(outputs.get('notes', ''))})\n{errors}",
                     icon=":material/gpp_bad:")
    elif kind == "reprompt":
        with st.expander(f"Reprompt {outputs.get('reprompt', '')}: {event['summary']}", icon=":material/replay:"):
            st.code(outputs.get("message", ""), language=None, wrap_lines=True)
    else:
        st.warning(escape_markdown(event["summary"]), icon=":material/warning:")
    return True
