"""Chat: ask questions, watch the agents work, read cited answers."""
import streamlit as st

from core.conversation import Conversation
from core.citations import short_answer
from core.suggestions import describe_knowledge_base, example_questions
from ui.components import escape_markdown, render_answer
from ui.live import ask_live, finished_status
from ui.state import chat_state, workspace

# The browser tab names the page (app.py set the app-wide layout before running it).
st.set_page_config(page_title="Chat · DocuChat", layout="wide")

ws = workspace()
state = chat_state()

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
    redact_answers = st.toggle(
        "Hide personal data in answers", value=ws.settings.redact_answers,
        help="Show e-mail addresses, phone numbers, card and account numbers in answers as “[phone number "
             "hidden]”, for a shared screen. Your questions are always cleared of them before they are logged "
             "or read by the model.")
    st.subheader("Conversation")
    conversation: Conversation = state["conversation"]
    exchanges = [(m["asked"], m["content"]) for m in state["messages"] if m["role"] == "assistant"]
    if conversation.exchanges and exchanges:
        for asked, answer in exchanges[-len(conversation.exchanges):]:
            st.markdown(f"**{escape_markdown(asked)}**  \n{escape_markdown(short_answer(answer))}")
    else:
        st.caption("Nothing yet. Follow-up questions such as “and in 2023?” use this conversation.")
    if st.button("New topic", help="Forget the conversation so far"):
        state["conversation"] = Conversation()
        st.rerun()

st.title("Chat with your documents")
ready, llm_status = ws.llm.health()
if not ready:
    st.warning(f"The language model is not available: {llm_status}. Search still works on the Upload page "
               "and from the command line.", icon=":material/warning:")
if ws.is_empty():
    st.info("The knowledge base is empty. Add documents on the Upload page first.", icon=":material/folder_open:")
intro = st.empty()  # what an empty chat offers; cleared as soon as the first question is asked
if not ws.is_empty() and not state["messages"]:
    with intro.container():
        documents = ws.document_facts()
        st.markdown(f"**Your knowledge base:** {escape_markdown(describe_knowledge_base(documents))}")
        examples = example_questions(documents)
        if examples:
            st.caption("Try one of these, or ask your own:")
            for n, example in enumerate(examples):
                if st.button(example, key=f"example-{n}", icon=":material/lightbulb:"):
                    st.session_state.pending_question = example

for message in state["messages"]:
    with st.chat_message(message["role"]):
        if message["role"] == "user":
            st.text(message["content"])
        else:
            if message.get("status"):
                finished_status(message["status"])
            render_answer(message["response"], message.get("asked", ""))

question = st.chat_input("Ask a question about your documents", max_chars=ws.settings.max_question_chars + 500)
question = question or st.session_state.pop("pending_question", None)
if question:
    intro.empty()
    state["messages"].append({"role": "user", "content": question})
    with st.chat_message("user"):
        st.text(question)
    with st.chat_message("assistant"):
        response, state["conversation"], finished = ask_live(
            ws, conversation, question, mode="agent" if agent_mode else None, style=style, top_k=top_k,
            redact_answers=redact_answers)
        render_answer(response, question)
    state["messages"].append(
        {"role": "assistant", "content": response["answer"], "response": response, "asked": question,
         "status": finished}
    )
    st.session_state.last_turn = response["trace_id"]
    st.rerun()
