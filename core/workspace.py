"""The wired-up application core: one knowledge base with its ingestor and retriever.

The CLI, the Streamlit pages and the benchmarks all start here.
"""
from __future__ import annotations

from core.config import Settings, load_settings
from core.embedding import Embedder, shared_embedder
from core.ingest.pipeline import Ingestor
from core.retrieval.hybrid import HybridRetriever
from core.store.knowledge_base import KnowledgeBase


class Workspace:
    def __init__(self, settings: Settings | None = None, embedder: Embedder | None = None) -> None:
        self.settings = settings or load_settings()
        self.embedder = embedder or shared_embedder(
            self.settings.embedding_batch_size, self.settings.torch_threads
        )
        self.kb = KnowledgeBase(self.settings, self.embedder)
        self.ingestor = Ingestor(self.kb, self.settings)
        self.retriever = HybridRetriever(self.kb, self.settings)
        self.reindexed_on_open = []
        if self.kb.parameter_changes:  # only reached when re-indexing on change is allowed
            self.reindexed_on_open = self.ingestor.reindex_all()

    def close(self) -> None:
        self.kb.close()
