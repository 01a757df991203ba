"""Ingestion: loaders per file kind, chunking, category hints, and the batch pipeline."""
from core.ingest.document import IngestError, LoadedDocument, Section
from core.ingest.pipeline import IngestProgress, IngestResult, Ingestor

__all__ = ["IngestError", "IngestProgress", "IngestResult", "Ingestor", "LoadedDocument", "Section"]
