"""Home: what the app does, the state of the knowledge base and the models, where to start."""
import streamlit as st

from core.ingest.ocr import ocr_status
from samples import make_samples, missing_samples
from ui.components import documents_table
from ui.state import workspace


def model_status(ws) -> None:
    ready, message = ws.llm.health()
    if ws.llm.loading:
        loading_status(ws)
    else:
        (st.success if ready else st.error)(message)


@st.fragment(run_every=2)
def loading_status(ws) -> None:
    """Redrawn every 2 s while the model loads in the background; the page reruns once it is done."""
    if not ws.llm.loading:
        st.rerun(scope="app")
    st.info(ws.llm.health()[1], icon=":material/hourglass_top:")


st.title("DocuChat")
st.write(
    "Ask questions of your own PDFs, spreadsheets and text files, privately, on this computer. "
    "Every answer cites the file and page it comes from, says how confident it is, and shows how it was found."
)

ws = workspace()
status = ws.status()

cols = st.columns(4)
cols[0].metric("Documents", status["documents"])
cols[1].metric("Searchable chunks", status["chunks"])
cols[2].metric("Table rows and fields", status["facts"],
               help="Rows of tables and fields of forms and invoices, read for exact answers about records.")
cols[3].metric("Files needing attention", len(status["failed"]),
               help="Files that could not be read; see the Upload page for the reason.")

with st.container(border=True):
    st.subheader("Models and storage")
    left, right = st.columns(2)
    left.markdown(f"**Language model** ({status['llm_provider']})")
    with left:
        model_status(ws)
    right.markdown("**Embedding model**")
    right.success(f"{status['embedding_model']}, local, offline")
    ocr_ready, ocr_message = ocr_status(ws.settings)
    store = "a Chroma server" if status["vector_store"].startswith("http") else "Chroma, on this computer"
    st.caption(f"Search index: {store} · scanned images and pages: "
               f"{ocr_message if ocr_ready else 'not read. ' + ocr_message}")
    with st.expander("Where your data is kept"):  # folded: a path is for the user who asks for it
        st.caption(f"Data folder: {status['data_dir']} · search index: {status['vector_store']}")

st.subheader("Start here")
# Two short rows, so every label fits its column at laptop and phone widths.
first, second = st.columns(3), st.columns(3)
first[0].page_link("views/1_Upload.py", label="Upload documents", icon=":material/upload_file:")
first[1].page_link("views/2_Chat.py", label="Ask questions", icon=":material/chat:")
first[2].page_link("views/3_Agent_Trace.py", label="See how answers were found", icon=":material/account_tree:")
second[0].page_link("views/4_Structured_Results.py", label="Export results", icon=":material/table_chart:")
second[1].page_link("views/5_Evaluate.py", label="Measure answers", icon=":material/fact_check:")

documents = ws.documents()
if documents:
    st.subheader("Documents")
    documents_table(documents, ws.document_summaries())
else:
    st.info("The knowledge base is empty. Upload your own files, or start with the sample documents: "
            "a solar-panel handbook, spec sheets, receipts, a product spreadsheet and an orders table.")

missing = missing_samples(ws.indexed_filenames())
if missing and st.button("Load sample documents" if len(missing) == len(missing_samples(set())) else
                         f"Load the {len(missing)} missing sample documents",
                         type="secondary" if documents else "primary"):
    with st.status("Preparing sample documents...", expanded=True) as progress:
        files = [p for p in make_samples(ws.settings.data_dir / "samples") if p.name in missing]
        bar = st.progress(0.0)
        results = ws.ingest(files, progress=lambda e: bar.progress(e.fraction, text=f"{e.filename}: {e.step}"))
        for r in results:
            st.write(f"{r.filename}: {r.message}")
        progress.update(label="Sample documents ready", state="complete")
    st.rerun()
