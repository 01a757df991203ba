"""DocuChat home: what the app does, the state of the knowledge base, and where to start."""
import pandas as pd
import streamlit as st

from ui.state import workspace

st.set_page_config(page_title="DocuChat", page_icon="📄", layout="wide")

st.title("DocuChat")
st.write(
    "Ask questions of your own documents: PDFs, spreadsheets and text files, on this computer only. "
    "Answers cite the file and page they come from."
)

ws = workspace()
status = ws.status()

cols = st.columns(3)
cols[0].metric("Documents", status["documents"])
cols[1].metric("Searchable chunks", status["chunks"])
cols[2].metric("Files needing attention", len(status["failed"]))

with st.container(border=True):
    st.subheader("Where things run")
    st.write(f"**Embedding model:** {status['embedding_model']} (local, offline)")
    st.write(f"**Vector store:** {status['vector_store']}")
    st.write(f"**Data folder:** {status['data_dir']}")

documents = ws.kb.documents()
if documents:
    st.subheader("Documents")
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "File": d.filename,
                    "Status": d.status,
                    "Pages": d.pages,
                    "Chunks": d.n_chunks,
                    "Category": d.category or "",
                    "Added": d.created_at[:16].replace("T", " "),
                    "Problem": d.error or "",
                }
                for d in documents
            ]
        ),
        hide_index=True,
        use_container_width=True,
    )
else:
    st.info("The knowledge base is empty. Add your own files, or start with the sample documents.")

if st.button("Load sample documents", type="primary" if not documents else "secondary"):
    from core.samples import make_samples

    with st.status("Preparing sample documents...", expanded=True) as progress:
        files = [p for p in make_samples(ws.settings.data_dir / "samples") if p.suffix != ".md"]
        bar = st.progress(0.0)

        def on_progress(event):
            bar.progress(event.fraction, text=f"{event.filename}: {event.step}")

        results = ws.ingestor.ingest_paths(files, progress=on_progress)
        for r in results:
            st.write(("✅ " if r.ok else "⚠️ ") + f"{r.filename}: {r.message}")
        progress.update(label="Sample documents ready", state="complete")
    st.rerun()
