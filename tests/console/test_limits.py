"""``dynabase ui`` bounds what slow or idle clients hold, as ``dynabase serve`` does: over real sockets.

Before, it ran the standard library's threading server with no timeouts: 500 unfinished requests held 502
threads. Now it runs on ``serve``'s HTTP server, with ``--max-connections``, ``--idle-timeout`` and
``--request-timeout``.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

SRC = str(Path(__file__).resolve().parents[2] / "src")
#: a safety net for reads that a server should end long before: a hang fails instead of blocking the suite
SAFETY = 60.0


@pytest.fixture
def ui() -> Iterator[tuple[str, int]]:
    """``dynabase ui`` on a free port with a 1 s request timeout and room for 2 connections: (host, port)."""
    command = [
        sys.executable, "-m", "dynabase", "ui", "--db", ":memory:", "--port", "0",
        "--max-connections", "2", "--request-timeout", "1", "--idle-timeout", "600",
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": SRC}
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()  # the ready line: "dynabase console for ...: open http://..."
        assert "open http://" in line, line
        address = urlsplit(line.rsplit("open ", 1)[1].strip())
        yield address.hostname or "127.0.0.1", address.port or 0
    finally:
        if process.poll() is None:
            process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)
        if process.stdout is not None:
            process.stdout.close()


def _connect(address: tuple[str, int]) -> socket.socket:
    sock = socket.create_connection(address, timeout=SAFETY)
    sock.settimeout(SAFETY)
    return sock


def _until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (a hang fails after SAFETY seconds)."""
    chunks = []
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def _exchange(sock: socket.socket, host: str, port: int) -> bytes:
    """One keep-alive request and its whole answer; the connection stays open."""
    sock.sendall(f"GET /console/ HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    while len(body) < length:
        chunk = sock.recv(65536)
        assert chunk
        body += chunk
    return head


def test_a_slow_client_is_disconnected_after_the_request_timeout(ui: tuple[str, int]) -> None:
    host, port = ui
    with _connect(ui) as sock:
        sock.sendall(f"GET /console/ HTTP/1.1\r\nHost: {host}:{port}\r\n".encode())  # the head never ends
        answer = _until_closed(sock)
    assert answer.startswith(b"HTTP/1.1 408 "), answer


def test_beyond_the_cap_the_longest_idle_connection_is_closed(ui: tuple[str, int]) -> None:
    host, port = ui
    first, second = _connect(ui), _connect(ui)
    try:
        for sock in (first, second):
            assert _exchange(sock, host, port).startswith(b"HTTP/1.1 ")
        with _connect(ui) as third:  # over the cap of 2: the longest idle (first) makes room
            assert _exchange(third, host, port).startswith(b"HTTP/1.1 ")
            assert _until_closed(first) == b""
            assert _exchange(second, host, port).startswith(b"HTTP/1.1 ")  # the other one still serves
    finally:
        first.close()
        second.close()
