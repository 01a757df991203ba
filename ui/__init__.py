"""Streamlit glue shared by the pages: cached core objects and small rendering helpers."""
