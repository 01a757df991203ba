"""Durable state: the SQLite catalog, the Chroma vector store and the BM25 keyword index."""
from core.store.knowledge_base import IndexSettingsChanged, KnowledgeBase

__all__ = ["IndexSettingsChanged", "KnowledgeBase"]
