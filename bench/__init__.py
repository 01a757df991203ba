"""Benchmarks: retrieval quality on public eval sets, and query latency / ingest throughput at scale.

Run from the repository root, e.g. `.venv/bin/python bench/retrieval_quality.py --help`.
Figures are printed and written to bench/results/<name>.json (git-ignored).
"""
