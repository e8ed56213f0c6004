"""Fixtures for the lean clients: a ``dynabase serve`` in a thread, and scripted fake endpoints."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator

import pytest

import dynabase
from backends import FAKE_CREDENTIALS, REGION
from dynabase.server import run_in_thread


@pytest.fixture(scope="module")
def serve_url() -> Iterator[str]:
    engine = dynabase.Engine(":memory:")
    url, stop = run_in_thread(engine)
    yield url
    stop()
    engine.close()


@pytest.fixture
def lean(serve_url: str) -> Iterator[dynabase.client.http.LeanClient]:  # type: ignore[name-defined]
    client = dynabase.endpoint(serve_url, region=REGION, **FAKE_CREDENTIALS)
    yield client
    client.close()


def http_response(status: int, body: bytes, extra: str = "") -> bytes:
    return (
        f"HTTP/1.1 {status} X\r\nx-amzn-RequestId: r{status}\r\nContent-Type: application/x-amz-json-1.0\r\n"
        f"Content-Length: {len(body)}\r\n{extra}\r\n"
    ).encode() + body


@pytest.fixture
def scripted() -> Iterator[Callable[[list[bytes | None]], tuple[str, list[bytes]]]]:
    """A loopback endpoint answering each request with the next scripted response (None: close the connection
    without answering); returns (url, the requests it received)."""
    listeners: list[socket.socket] = []

    def start(script: list[bytes | None]) -> tuple[str, list[bytes]]:
        listener = socket.create_server(("127.0.0.1", 0))
        listeners.append(listener)
        received: list[bytes] = []
        answers = iter(script)

        def serve() -> None:
            while True:
                try:
                    conn, _ = listener.accept()
                except OSError:
                    return
                with conn:
                    while True:
                        data = b""
                        while b"\r\n\r\n" not in data:
                            chunk = conn.recv(65536)
                            if not chunk:
                                break
                            data += chunk
                        if not data:
                            break
                        head, _, body = data.partition(b"\r\n\r\n")
                        length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                                          if line.lower().startswith(b"content-length")))  # fmt: skip
                        while len(body) < length:
                            body += conn.recv(65536)
                        received.append(data)
                        answer = next(answers, None)
                        if answer is None:
                            break
                        conn.sendall(answer)

        threading.Thread(target=serve, daemon=True).start()
        return f"http://127.0.0.1:{listener.getsockname()[1]}", received

    yield start
    for listener in listeners:
        listener.close()
