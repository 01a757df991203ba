"""Structured facts: extraction at ingest, typed values with units, search, aggregates, export."""
