"""Ingestion: loaders per file kind, chunking, category hints, and the batch pipeline
(core.ingest.pipeline.Ingestor, imported from its module: it depends on the stores)."""
from core.ingest.document import IngestError, LoadedDocument, Section

__all__ = ["IngestError", "LoadedDocument", "Section"]
