"""DocuChat core: everything that is not Streamlit. See docs/architecture.md for the map of the packages."""
