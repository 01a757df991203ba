"""One Workspace per server process, shared by every page and session."""
import streamlit as st

from core.config import load_settings
from core.workspace import Workspace


@st.cache_resource(show_spinner="Opening the knowledge base...")
def workspace() -> Workspace:
    return Workspace(load_settings())
