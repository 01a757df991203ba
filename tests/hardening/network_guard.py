"""Refuse every connection and name lookup that is not loopback, and record each attempt.

Installed in a process before anything else is imported, it shows that the code under test
neither needs nor tries the network. Where the test can (as root), the process also runs in a
network namespace of its own with only loopback up, which stops connections made below Python.
"""
from __future__ import annotations

import ipaddress
import os
import shutil
import socket

ATTEMPTS: list[str] = []
_connect, _connect_ex, _getaddrinfo = socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo


def _loopback(host: object) -> bool:
    text = str(host)
    if text in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(text.split("%")[0]).is_loopback
    except ValueError:
        return False


def _check(sock: socket.socket, address) -> None:
    if sock.family in (socket.AF_INET, socket.AF_INET6) and not _loopback(address[0]):
        ATTEMPTS.append(f"connect {address[0]}:{address[1]}")
        raise ConnectionRefusedError(f"network access blocked by the test: {address[0]}")


def _guarded_connect(self, address):
    _check(self, address)
    return _connect(self, address)


def _guarded_connect_ex(self, address):
    _check(self, address)
    return _connect_ex(self, address)


def _guarded_getaddrinfo(host, *args, **kwargs):
    if host is not None and not _loopback(host.decode() if isinstance(host, bytes) else host):
        ATTEMPTS.append(f"lookup {host}")
        raise socket.gaierror(socket.EAI_NONAME, f"name lookup blocked by the test: {host}")
    return _getaddrinfo(host, *args, **kwargs)


def install() -> None:
    socket.socket.connect = _guarded_connect
    socket.socket.connect_ex = _guarded_connect_ex
    socket.getaddrinfo = _guarded_getaddrinfo


def isolated_command(command: list[str]) -> tuple[list[str], bool]:
    """`command` inside a new network namespace with only loopback, when this user may make one."""
    if os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("ip"):
        return command, False
    return ["unshare", "--net", "sh", "-c", 'ip link set lo up && exec "$@"', "sh", *command], True
