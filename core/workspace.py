"""The wired-up application core: one knowledge base with its ingestor and retriever.

The CLI, the Streamlit pages and the benchmarks all start here.
"""
from __future__ import annotations

from core.agents import AnswerPipeline, Response
from core.agents.agent_mode import AGENT, AgentMode, choose_mode
from core.config import Settings, load_settings
from core.conversation.summary import result_set_command
from core.embedding import Embedder, shared_embedder
from core.ingest.pipeline import Ingestor
from core.llm import ChatLLM, make_llm
from core.retrieval.hybrid import HybridRetriever
from core.store.knowledge_base import KnowledgeBase
from core.suggestions import DocumentFacts


class Workspace:
    def __init__(
        self, settings: Settings | None = None, embedder: Embedder | None = None, llm: ChatLLM | None = None
    ) -> None:
        self.settings = settings or load_settings()
        self.embedder = embedder or shared_embedder(
            self.settings.embedding_batch_size, self.settings.torch_threads
        )
        self.kb = KnowledgeBase(self.settings, self.embedder)
        self.ingestor = Ingestor(self.kb, self.settings)
        self.retriever = HybridRetriever(self.kb, self.settings)
        self.llm = llm or make_llm(self.settings)  # providers load their model on first use
        self.pipeline = AnswerPipeline(self.kb, self.retriever, self.llm, self.settings)
        self.agent = AgentMode(self.kb, self.retriever, self.llm, self.settings, self.pipeline.facts)
        self.reindexed_on_open = []
        if self.kb.parameter_changes:  # only reached when re-indexing on change is allowed
            self.reindexed_on_open = self.ingestor.reindex_all()

    def ask(self, question: str, mode: str | None = None, **options) -> Response:
        """Answer one question (options: style, top_k, on_token, on_event, previous_question,
        previous_result_set, doc_ids). mode: pipeline | agent | auto (default: the answer_mode setting)."""
        follow_up = bool(options.get("previous_result_set") and result_set_command(question or ""))
        if options.get("doc_ids"):  # a question scoped to documents (`ask --doc`) runs in the pipeline
            return self.pipeline.ask(question, **options)
        if choose_mode(question or "", mode or self.settings.answer_mode, result_set_follow_up=follow_up) == AGENT:
            return self.agent.ask(question, **options)
        return self.pipeline.ask(question, **options)

    def result_rows(self, result_set_id: str) -> list | None:
        """The facts of a stored result set (None when it is gone), in their stored order."""
        stored = self.kb.catalog.result_set(result_set_id)
        if stored is None:
            return None
        return self.pipeline.facts.rows_by_id(stored["fact_ids"])

    def export_result_set(self, result_set_id: str) -> tuple[bytes, int] | None:
        """The whole stored result set of a structured answer as CSV with provenance, and its size."""
        from core.annotations.search import export_annotations_csv

        rows = self.result_rows(result_set_id)
        if rows is None:
            return None
        return export_annotations_csv(rows), len(rows)

    def document_facts(self) -> list[DocumentFacts]:
        """What the empty chat's overview and example questions are built from: each indexed
        document's name, kind, type, topics and stored table columns."""
        summaries = self.kb.document_summaries()
        return [
            DocumentFacts(d.filename, d.kind or "", summaries.get(d.doc_id, {}).get("document_type", ""),
                          summaries.get(d.doc_id, {}).get("key_topics", []), self.pipeline.facts.columns([d.doc_id]))
            for d in self.kb.documents() if d.status == "indexed"
        ]

    def status(self) -> dict[str, object]:
        """What the home page and `docs` show: knowledge-base size and where things run."""
        documents = self.kb.documents()
        counts = self.kb.counts()
        llm_ready, llm_status = self.llm.health()
        return {
            "documents": counts["documents"],
            "chunks": counts["chunks"],
            "facts": counts["facts"],
            "failed": [d.filename for d in documents if d.status == "failed"],
            "embedding_model": self.embedder.model_name,
            "vector_store": self.kb.vectors.location,
            "llm_provider": self.llm.name,
            "llm_ready": llm_ready,
            "llm_status": llm_status,
            "data_dir": str(self.settings.data_dir),
        }

    def close(self) -> None:
        self.kb.close()
