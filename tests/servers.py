"""Start a local server process for a test and wait until it answers (loopback only)."""
from __future__ import annotations

import socket
import subprocess
import time
import urllib.request
from contextlib import contextmanager
from typing import Iterator

import pytest


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def running(command: list[str], ready_url: str, name: str, timeout: float = 90, **popen) -> Iterator[subprocess.Popen]:
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **popen)
    deadline = time.time() + timeout
    while True:
        try:
            urllib.request.urlopen(ready_url, timeout=2)
            break
        except OSError:
            if time.time() > deadline or server.poll() is not None:
                server.kill()
                pytest.fail(f"{name} did not start")
            time.sleep(0.2)
    try:
        yield server
    finally:
        server.terminate()
        server.wait(timeout=20)
