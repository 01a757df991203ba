"""DocuChat: the navigation. Every page lives in views/ (not Streamlit's pages/ folder, which
would list this script as "app" on a first visit straight to a page's address)."""
import streamlit as st

st.set_page_config(page_title="DocuChat", page_icon=":material/description:", layout="wide")
navigation = st.navigation([
    st.Page("views/0_Home.py", title="Home", icon=":material/home:", default=True),
    st.Page("views/1_Upload.py", title="Upload", icon=":material/upload_file:"),
    st.Page("views/2_Chat.py", title="Chat", icon=":material/chat:"),
    st.Page("views/3_Agent_Trace.py", title="Agent Trace", icon=":material/account_tree:"),
    st.Page("views/4_Structured_Results.py", title="Structured Results", icon=":material/table_chart:"),
    st.Page("views/5_Evaluate.py", title="Evaluate", icon=":material/fact_check:"),
])
navigation.run()
