"""Upload: add files to the knowledge base, watch them being indexed, manage what is there."""
import tempfile
from pathlib import Path

import streamlit as st

from ui.components import documents_table, page_header
from ui.state import workspace

page_header("Upload", "Upload documents",
            "PDF, Excel (XLSX), CSV, text and Markdown files, and scanned images (JPG, PNG, TIFF), which are read "
            "by OCR. Everything stays on this computer.")

ws = workspace()
types = [ext.lstrip(".") for ext in ws.settings.supported_extensions]

with st.form("upload", clear_on_submit=True):
    files = st.file_uploader("Choose files", type=types, accept_multiple_files=True)
    submitted = st.form_submit_button("Add to knowledge base", type="primary")

if submitted and not files:
    st.warning("Choose one or more files first.")
elif submitted:
    with tempfile.TemporaryDirectory(dir=ws.settings.data_dir) as tmp:
        paths, names = [], []
        for i, upload in enumerate(files):
            # The user's name is sanitized by the ingestor; the temp file only keeps the suffix.
            path = Path(tmp) / f"upload-{i}{Path(upload.name).suffix.lower()[:10]}"
            path.write_bytes(upload.getbuffer())
            paths.append(path)
            names.append(upload.name)
        with st.status(f"Indexing {len(paths)} file(s)...", expanded=True) as status:
            bar = st.progress(0.0, text="Starting...")

            def on_progress(event):
                detail = f" ({event.done}/{event.total} chunks)" if event.step == "embedding" and event.total else ""
                bar.progress(event.fraction, text=f"{event.filename}: {event.step}{detail}")

            results = ws.ingest(paths, progress=on_progress, names=names)
            bar.progress(1.0, text="Done")
            failed = [r for r in results if not r.ok]
            # A batch with a failed file never ends on a green check: the failure is the news.
            status.update(
                label=f"Indexed {len(results) - len(failed)} of {len(results)} file(s)"
                      + (f"; {len(failed)} could not be read" if failed else ""),
                state="error" if failed else "complete",
            )
    st.session_state.upload_results = [r.__dict__ for r in results]

for result in st.session_state.get("upload_results", []):
    if result["status"] == "failed":
        st.error(f"**{result['filename']}** could not be added: {result['message']}", icon=":material/error:")
    elif result["status"] == "duplicate":
        st.info(f"**{result['filename']}**: {result['message']}", icon=":material/info:")
    else:
        st.success(f"**{result['filename']}**: {result['message']} in {result['seconds']:.1f} s", icon=":material/check_circle:")
    for warning in result.get("warnings") or []:  # e.g. scanned pages that need OCR
        st.warning(f"**{result['filename']}**: {warning}", icon=":material/warning:")

st.divider()
st.subheader("Documents")
documents = ws.documents()
if not documents:
    st.info("No documents yet. Add files above, or load the sample documents from the home page.")
else:
    counts = ws.counts()
    st.caption(f"{counts['documents']} indexed documents, {counts['chunks']} searchable chunks.")
    documents_table(documents, ws.document_summaries(), problems=False)  # this batch's errors are above
    names = {d.doc_id: f"{d.filename} ({d.status})" for d in documents}
    chosen = st.selectbox("Document", list(names), format_func=names.get, index=None,
                          placeholder="Choose a document to re-index or delete")
    left, right, _ = st.columns([1, 1, 4])
    if left.button("Re-index", disabled=chosen is None):
        with st.spinner("Re-indexing..."):
            result = ws.reindex_document(chosen)
        st.session_state.upload_results = [result.__dict__]
        st.rerun()
    if right.button("Delete", disabled=chosen is None):
        removed = ws.delete(chosen)
        st.session_state.upload_results = []
        st.toast(f"Deleted {', '.join(removed)}")
        st.rerun()
