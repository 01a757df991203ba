"""The catalog opens knowledge bases written by earlier versions."""
from __future__ import annotations

import sqlite3

from core.store.catalog import Catalog


def test_a_catalog_from_before_records_gains_the_new_columns(tmp_path):
    path = tmp_path / "catalog.sqlite"
    Catalog(path)
    with sqlite3.connect(path) as conn:  # as written before facts had records and context values
        conn.execute("ALTER TABLE facts DROP COLUMN record")
        conn.execute("ALTER TABLE fact_values DROP COLUMN context")
    Catalog(path)
    with sqlite3.connect(path) as conn:
        assert "record" in {r[1] for r in conn.execute("PRAGMA table_info(facts)")}
        assert "context" in {r[1] for r in conn.execute("PRAGMA table_info(fact_values)")}
