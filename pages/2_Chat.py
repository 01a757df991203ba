"""Chat: ask questions, watch the agents work, read cited answers."""
import streamlit as st

from core.conversation import Conversation, update_summary
from ui.components import escape_markdown, render_answer
from ui.state import chat_state, workspace

# Also set here: a first visit straight to this page, before app.py ever ran, skips its config.
st.set_page_config(page_title="Chat · DocuChat", layout="wide")

ws = workspace()
state = chat_state()
AGENT_STEP_LABELS = {  # the live status while agent mode works
    "tool_call": "Agent: reading the results, choosing the next step...",
    "validation": "Agent: checking the answer against the requirements...",
    "reprompt": "Agent: the answer missed a requirement, asking again...",
}

with st.sidebar:
    st.subheader("Answer settings")
    style = st.radio("Style", ["concise", "detailed", "bullet"], horizontal=True,
                     index=["concise", "detailed", "bullet"].index(ws.settings.answer_style))
    top_k = st.slider("Sources to read (top-k)", 1, 10, ws.settings.top_k)
    agent_mode = st.toggle(
        "Agent mode", value=ws.settings.answer_mode == "agent",
        help="Plan, search several times, open the sources and check the answer against the question's "
             "requirements before finishing. Slower: several model calls. Even when off, questions that state "
             "requirements (“use at least three searches”, “quote the exact …”) are answered this way.")
    st.subheader("Conversation")
    conversation: Conversation = state["conversation"]
    if conversation.summary:
        st.text(conversation.summary)
    else:
        st.caption("Nothing yet. Follow-up questions such as “and in 2023?” use this summary.")
    if st.button("New topic", help="Forget the conversation so far"):
        state["conversation"] = Conversation()
        st.rerun()

st.title("Chat with your documents")
ready, llm_status = ws.llm.health()
if not ready:
    st.warning(f"The language model is not available: {llm_status}. Search still works on the Upload page "
               "and from the command line.", icon=":material/warning:")
if ws.kb.is_empty():
    st.info("The knowledge base is empty. Add documents on the Upload page first.", icon=":material/folder_open:")

for message in state["messages"]:
    with st.chat_message(message["role"]):
        if message["role"] == "user":
            st.text(message["content"])
        else:
            render_answer(message["response"], message.get("asked", ""))

question = st.chat_input("Ask a question about your documents", max_chars=ws.settings.max_question_chars + 500)
if question:
    state["messages"].append({"role": "user", "content": question})
    with st.chat_message("user"):
        st.text(question)
    with st.chat_message("assistant"):
        steps = st.status("Working on it...", expanded=False)
        placeholder = st.empty()
        streamed: list[str] = []

        def on_event(event):
            mark = ":material/error:" if event.status == "failed" else ":material/check:"
            steps.write(f"{mark} **{event.agent}**: {escape_markdown(event.summary)} ({event.duration_ms:.0f} ms)")
            if event.kind == "plan":
                steps.update(label="Searching your documents...")
            elif event.kind == "retrieval":
                steps.update(label="Writing the answer (the local model can take a minute)...")
            elif event.kind == "reflection":
                streamed.clear()  # a refined draft replaces the first one
            elif event.kind in AGENT_STEP_LABELS:
                steps.update(label=AGENT_STEP_LABELS[event.kind])

        def on_token(token):
            streamed.append(token)
            placeholder.text("".join(streamed) + " ▌")

        response = ws.ask(question, mode="agent" if agent_mode else None, style=style, top_k=top_k,
                          on_token=on_token, on_event=on_event,
                          previous_question=conversation.last_question,
                          previous_result_set=conversation.result_set_id).to_dict()
        steps.update(label="Done", state="complete" if "llm_error" not in response["safety_flags"] else "error")
        placeholder.empty()
        render_answer(response, question)
    state["messages"].append(
        {"role": "assistant", "content": response["answer"], "response": response, "asked": question}
    )
    base = Conversation() if response["new_topic"] else conversation
    if "prompt_injection" not in response["safety_flags"] and response["question"]:
        result_set_id = (response.get("structured") or {}).get("result_set_id")
        state["conversation"] = update_summary(base, response["question"], response["answer"],
                                               ws.embedder.count_tokens, result_set_id=result_set_id)
    else:
        state["conversation"] = base
    st.session_state.last_turn = response["trace_id"]
    st.rerun()
