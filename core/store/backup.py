"""Back up a data directory to a folder, and restore it into a fresh data directory.

The snapshot is taken while the knowledge base's write lock is held, so no ingest or delete of
this process is half-way. SQLite files (the catalog, Chroma's own database) are copied with
SQLite's backup API, which gives a consistent copy even while another process writes; the other
files are copied as they are. A restored knowledge base is marked 'dirty', so its first start
checks the three stores against the catalog (KnowledgeBase.recover) before it serves anything:
a vector or keyword entry a concurrent writer in another process left out is put back then.

With a Chroma server (DOCUCHAT_CHROMA_HOST) the vectors live on the server and are not copied;
the catalog keeps every embedding in its cache, so a restore rebuilds them without the model.
"""
from __future__ import annotations

import json
import shutil
import sqlite3
from datetime import datetime, timezone
from pathlib import Path

from core.config import Settings

MANIFEST = "docuchat-backup.json"
FORMAT = 1


class BackupError(RuntimeError):
    """A backup or restore that cannot go ahead; the message says why."""


def _copy_sqlite(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(source, timeout=30) as src, sqlite3.connect(target) as dst:
        src.backup(dst)
    dst.close()
    src.close()


def _copy_tree(source: Path, target: Path) -> None:
    """Every file under `source`; SQLite databases through the backup API (never their -wal)."""
    for path in sorted(source.rglob("*")):
        relative = path.relative_to(source)
        if path.is_dir() or path.name.endswith(("-wal", "-shm", "-journal")):
            continue
        if path.suffix == ".sqlite3":
            _copy_sqlite(path, target / relative)
        else:
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target / relative)


def _empty_or_missing(folder: Path) -> bool:
    return not folder.exists() or (folder.is_dir() and not any(folder.iterdir()))


def backup(kb, destination: Path) -> dict:
    """Copy `kb`'s data directory into `destination` (a new or empty folder). Returns the manifest."""
    settings: Settings = kb.settings
    destination = Path(destination)
    if not _empty_or_missing(destination):
        raise BackupError(f"{destination} is not empty; back up into a new folder.")
    if destination.resolve().is_relative_to(settings.data_dir.resolve()):
        raise BackupError("The backup folder cannot be inside the data directory it backs up.")
    with kb.exclusive():  # no process writes while the copy is taken
        state = kb.consistency()
        counts = kb.counts()
        destination.mkdir(parents=True, exist_ok=True)
        _copy_sqlite(settings.catalog_path, destination / settings.catalog_path.name)
        vectors = "server" if settings.chroma_host else "copied"
        if not settings.chroma_host:
            _copy_tree(settings.chroma_path, destination / settings.chroma_path.name)
        for folder in (settings.keyword_index_path, settings.files_dir):
            if folder.exists():
                _copy_tree(folder, destination / folder.name)
    manifest = {
        "format": FORMAT,
        "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "source": str(settings.data_dir.resolve()),
        "documents": counts["documents"],
        "chunks": counts["chunks"],
        "facts": counts["facts"],
        "consistent": bool(state["consistent"]),
        "vectors": vectors,
    }
    (destination / MANIFEST).write_text(json.dumps(manifest, indent=2))
    return manifest


def restore(source: Path, settings: Settings) -> dict:
    """Copy a backup into `settings.data_dir`, which must be new or empty. Returns the manifest."""
    source, data_dir = Path(source), settings.data_dir
    manifest_path = source / MANIFEST
    if not manifest_path.is_file():
        raise BackupError(f"{source} is not a DocuChat backup (no {MANIFEST}).")
    manifest = json.loads(manifest_path.read_text())
    if manifest.get("format") != FORMAT:
        raise BackupError(f"Unknown backup format {manifest.get('format')!r}.")
    if not _empty_or_missing(data_dir):
        raise BackupError(f"{data_dir} is not empty; restore into a new data directory.")
    staging = data_dir.with_name(data_dir.name + ".restoring")
    shutil.rmtree(staging, ignore_errors=True)
    _copy_tree(source, staging)
    (staging / MANIFEST).unlink()
    _point_at(staging / settings.catalog_path.name, settings.files_dir)
    if data_dir.exists():
        data_dir.rmdir()
    staging.rename(data_dir)  # all or nothing: a half-copied restore never looks like a data dir
    return manifest


def _point_at(catalog: Path, files_dir: Path) -> None:
    """Stored originals move with the data directory; the first start then checks every store."""
    with sqlite3.connect(catalog) as conn:
        rows = conn.execute("SELECT doc_id, stored_path FROM documents WHERE stored_path IS NOT NULL").fetchall()
        conn.executemany(
            "UPDATE documents SET stored_path=? WHERE doc_id=?",
            [(str(files_dir / doc_id / Path(stored).name), doc_id) for doc_id, stored in rows],
        )
        conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES('dirty', '1')")
    conn.close()
