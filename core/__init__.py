"""DocuChat core: everything that is not Streamlit. See README for the map of the packages."""
