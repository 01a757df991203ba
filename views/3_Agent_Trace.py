"""Agent Trace: how one answer was reached, step by step."""
import altair as alt
import pandas as pd
import streamlit as st

from ui.components import agent_trace_event, escape_markdown, flag_label, page_header, render_answer
from ui.state import workspace

page_header("Agent Trace", "Agent trace",
            "Every answer is produced by five agents: the Planner reads the question, the Retriever "
            "searches the documents, the Reasoner asks the language model, the Validator checks the "
            "answer against the sources, and the Responder formats it.")

ws = workspace()
turns = ws.recent_turns(limit=50)
if not turns:
    st.info("No questions asked yet. Ask one on the Chat page and its trace appears here.")
    st.stop()

labels = {t["turn_id"]: f"{t['created_at'][:16].replace('T', ' ')} · {t['question'][:80]}" for t in turns}
wanted = st.query_params.get("turn") or st.session_state.get("last_turn")
ids = list(labels)
turn_id = st.selectbox("Question", ids, index=ids.index(wanted) if wanted in labels else 0, format_func=labels.get)
st.query_params["turn"] = turn_id  # the URL names the question shown: it can be shared and reloaded
turn = ws.turn(turn_id)
events = turn["trace"]["events"]
response = turn["response"]

if response.get("mode") == "agent":
    st.caption("Answered in agent mode: a plan, then tool calls chosen by the model one at a time, each final "
               "answer checked by the validation gate against the question's requirements.")

with st.container(border=True):
    st.markdown("**Question**")
    st.text(turn["question"])
    render_answer(response, trace_link=False)

total_ms = sum(e["duration_ms"] for e in events)
tokens = response.get("tokens", {})
cols = st.columns(4)
cols[0].metric("Total time", f"{total_ms / 1000:.1f} s")
cols[1].metric("Steps", len(events))
cols[2].metric("Prompt tokens", tokens.get("prompt", 0))
cols[3].metric("Answer tokens", tokens.get("completion", 0))

st.subheader("Timeline")
timeline = pd.DataFrame(
    {
        "Agent": e["agent"],
        "Step": e["kind"].replace("_", " "),
        "Start (ms)": e["started_ms"],
        "End (ms)": e["started_ms"] + max(e["duration_ms"], 0.5),
        "Duration (ms)": e["duration_ms"],
        "Summary": e["summary"],
    }
    for e in events
)
agents = ["Planner", "Retriever", "Reasoner", "Validator", "Responder"]
agents += [a for a in timeline["Agent"].unique() if a not in agents]  # agent mode's own steps
# calm colours, none of them red: a bar's colour names its agent, never a failure
PALETTE = ["#4e79a7", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#9c755f", "#bab0ac", "#f28e2b"]
chart = (
    alt.Chart(timeline)
    .mark_bar(cornerRadius=3, height=18)
    .encode(
        x=alt.X("Start (ms):Q", title="milliseconds since the question"),
        x2="End (ms):Q",
        y=alt.Y("Agent:N", sort=agents, title=None),
        color=alt.Color("Agent:N", sort=agents, legend=None,
                        scale=alt.Scale(domain=agents, range=(PALETTE * 2)[:len(agents)])),
        tooltip=["Agent", "Step", "Duration (ms)", "Summary"],
    )
    .properties(height=220)
)
st.altair_chart(chart, width="stretch")
st.dataframe(timeline[["Agent", "Step", "Duration (ms)", "Summary"]], hide_index=True, width="stretch")

for event in events:
    if agent_trace_event(event):
        continue
    if event["kind"] == "retrieval" and "attempts" in event["outputs"]:
        outputs = event["outputs"]
        st.subheader("Matched facts")
        st.caption("Structured route: every stored fact was filtered, so counts and sums cover all records. "
                   "Each attempt below relaxed the previous one only if it found nothing.")
        st.dataframe(pd.DataFrame(outputs["attempts"]).rename(columns={"description": "Attempt", "matches": "Matches"}),
                     hide_index=True, width="stretch")
        if outputs.get("facts"):
            st.dataframe(pd.DataFrame(outputs["facts"]).drop(columns=["fact_id"]), hide_index=True, width="stretch")
    if event["kind"] == "retrieval":
        for search in event["outputs"].get("searches", []):
            st.subheader("Retrieved candidates")
            st.caption(f"Query: “{escape_markdown(search['query'])}” · semantic weight {search['semantic_weight']} "
                       "(keyword weight is 1 minus this) · ranks are 1-based; blank means that search did not find it.")
            table = pd.DataFrame(search["candidates"])
            if not table.empty:
                table = table.rename(columns={
                    "filename": "File", "page": "Page", "sheet": "Sheet", "bm25_rank": "Keyword rank",
                    "vector_rank": "Vector rank", "fused_score": "Fused score", "similarity": "Similarity",
                    "section": "Read as the section asked for", "used": "Used in answer",
                })
                table = table[[c for c in ("File", "Page", "Sheet", "Keyword rank", "Vector rank", "Fused score", "Similarity",
                                           "Read as the section asked for", "Used in answer") if c in table.columns]]
                table = table.astype(object).where(table.notna(), "")  # blank, as the caption says, not "None"
                st.dataframe(table, hide_index=True, width="stretch")
    elif event["kind"] == "llm_call":
        outputs = event["outputs"]
        st.subheader("Language model call")
        st.caption(f"{event['inputs'].get('provider')} · {event['inputs'].get('model')} · "
                   f"{outputs.get('prompt_tokens', 0)} prompt tokens ({outputs.get('cached_tokens', 0)} reused), "
                   f"{outputs.get('completion_tokens', 0)} answer tokens · {event['duration_ms'] / 1000:.1f} s")
        with st.expander("Exact prompt sent to the model"):
            st.code(outputs.get("prompt", ""), language=None, wrap_lines=True)
        with st.expander("Raw model output"):
            st.code(outputs.get("raw_output") or outputs.get("error") or "", language=None, wrap_lines=True)
    elif event["kind"] == "validation":
        outputs = event["outputs"]
        st.subheader("Validation")
        passed = outputs.get("is_valid")
        checks = {
            "Passed every check": "—" if passed is None else "yes" if passed else "no",
            "Confidence": outputs.get("confidence"),
            "Average similarity of cited sources": outputs.get("average_similarity"),
            "Sources cited": ", ".join(map(str, outputs.get("cited", []))) or "none",
            "Citations that do not exist": ", ".join(map(str, outputs.get("invalid_citations", []))) or "none",
            "Not found in the cited sources": ", ".join(outputs.get("unsupported", [])) or "nothing",
            "Flags": ", ".join(flag_label(f) for f in outputs.get("safety_flags", [])) or "none",
            "Reason": outputs.get("reason"),
        }
        st.table(pd.DataFrame({"Check": list(checks), "Result": ["—" if v in (None, "") else str(v) for v in checks.values()]}))
    elif event["kind"] == "reflection":
        missing = ", ".join(event["outputs"].get("unsupported") or [])
        said = f"mentioned {missing}, which the sources did not contain" if missing else "was not supported by its sources"
        st.info(f"Reflection: the first answer {said}, so retrieval was refined and the answer rewritten.",
                icon=":material/autorenew:")

with st.expander("Raw trace (JSON)"):
    st.json(turn["trace"], expanded=False)
