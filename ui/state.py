"""One Workspace per data dir per server process, shared by every page and session;
per-session chat state lives in st.session_state."""
import streamlit as st

from core.config import Settings, SettingsError, load_settings
from core.conversation import Conversation
from core.embedding import EmbeddingModelError
from core.workspace import IndexSettingsChanged, Workspace


@st.cache_resource(show_spinner="Opening the knowledge base...")
def _open(data_dir: str, _settings: Settings) -> Workspace:
    # Keyed by the data dir alone: two Workspaces on one data dir in one process would be two
    # writers of one knowledge base (its write lock orders threads of one Workspace only).
    ws = Workspace(_settings)
    ws.prepare()  # at start-up, so the first question does not wait for the models
    return ws


def workspace() -> Workspace:
    """The server's Workspace for the configured data dir, shared by every page and session. An index
    built with other settings (an upgrade changed the embedding model) stops the page with what to do,
    rather than a traceback: re-embedding every document is the user's decision, not a side effect."""
    try:
        settings = load_settings()
    except SettingsError as exc:  # a mistyped choice in the environment: say which, and the choices
        st.error(str(exc), icon=":material/settings:")
        st.stop()
    try:
        return _open(str(settings.data_dir.resolve()), settings)
    except (IndexSettingsChanged, EmbeddingModelError) as exc:
        st.error(str(exc), icon=":material/sync_problem:")
        if isinstance(exc, IndexSettingsChanged):
            st.markdown("Re-index once from a terminal in the DocuChat folder, then reload this page:")
            st.code(f"python -m core --data-dir {settings.data_dir} reindex", language="bash")
        st.stop()


def chat_state() -> dict:
    """This session's messages and rolling conversation summary."""
    if "chat" not in st.session_state:
        st.session_state.chat = {"messages": [], "conversation": Conversation()}
    return st.session_state.chat


@st.cache_resource
def evaluations() -> dict:
    """The evaluation run of each data dir, running in the background, shared by every session."""
    return {}


def remembered(key: str, default):
    """The value of the widget with this key, kept across page visits (Streamlit forgets a widget's
    state when its page is left): pass it as the widget's value, with key=key."""
    saved = st.session_state.setdefault("remembered", {})
    if key in st.session_state:
        saved[key] = st.session_state[key]
    return saved.get(key, default)
