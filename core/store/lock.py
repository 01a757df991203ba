"""The data directory's writer lock: one writing process at a time, and a crashed writer told from a live one.

An OS file lock (`filelock`, flock on Linux and macOS) is released by the kernel when its process
dies, kill -9 included, so "the lock is free but the knowledge base is marked dirty" means the
last writer crashed, and "the lock is held" means a writer is alive, whatever the flags say.
Threads of one process share the lock (they are ordered by KnowledgeBase's own RLock).
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from filelock import FileLock, Timeout

LOCK_FILE = "write.lock"


class WriterBusy(RuntimeError):
    """Another process kept the knowledge base for longer than the wait limit; the message says who."""


class DataDirLock:
    def __init__(self, data_dir: Path, poll_seconds: float = 1.0) -> None:
        # thread_local=False: a thread that already holds it (an ingest) and one that probes it
        # (a search in the same app) share the count, so the probe never waits on its own process.
        self._lock = FileLock(data_dir / LOCK_FILE, thread_local=False, fallback_to_soft=False)
        self.poll_seconds = poll_seconds

    @property
    def held_here(self) -> bool:
        return self._lock.is_locked

    def try_acquire(self) -> bool:
        """Take the lock if no other process holds it; never waits."""
        try:
            self._lock.acquire(timeout=0)
            return True
        except Timeout:
            return False

    def release(self) -> None:
        self._lock.release()

    @contextmanager
    def held(self, timeout: float, on_wait: Callable[[float], None] | None = None) -> Iterator[None]:
        """Hold the lock, waiting up to `timeout` seconds (< 0: without limit) for another process.
        `on_wait(seconds waited)` is called before the first wait and then about once a second."""
        self.acquire(timeout, on_wait)
        try:
            yield
        finally:
            self.release()

    def acquire(self, timeout: float, on_wait: Callable[[float], None] | None = None) -> None:
        started = time.monotonic()
        while not self.try_acquire():
            waited = time.monotonic() - started
            if 0 <= timeout <= waited:
                raise WriterBusy(f"gave up after waiting {waited:.0f} s")
            if on_wait:
                on_wait(waited)
            time.sleep(self.poll_seconds if timeout < 0 else min(self.poll_seconds, max(timeout - waited, 0.01)))

    @contextmanager
    def probe(self) -> Iterator[bool]:
        """Hold the lock for a short read if no other process is writing: yields whether it is held."""
        got = self.try_acquire()
        try:
            yield got
        finally:
            if got:
                self.release()
