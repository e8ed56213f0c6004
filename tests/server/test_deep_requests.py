"""Deeply nested requests, at the same time, against a real ``dynabase serve``: answered 400, the server stays up.

A deep PartiQL statement used to raise the process's recursion limit (to ~130,000) while it was parsed; on
Python 3.11 that limit also bounds the C JSON parser on every other thread, so a body of 100,000 ``[`` parsed
meanwhile overflowed its thread's stack and the server died of SIGSEGV.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from dynabase.server.runner import ServerProcess, start_subprocess

from .helpers import TARGET, assert_healthy, raw_request

DEEP_STATEMENT = ("{" + '"Statement": "SELECT * FROM t WHERE ' + "(" * 8150 + '"}').encode()
DEEP_BODY = b"[" * 100_000
ROUNDS = 10


@pytest.fixture
def served() -> Iterator[ServerProcess]:
    with start_subprocess(":memory:", args=["-q"]) as process:
        yield process


def test_deep_statements_and_deep_bodies_at_once(served: ServerProcess) -> None:
    """Deep statements one after another while deep bodies keep arriving on another connection."""
    statements: list[int] = []
    bodies: list[int] = []
    done = threading.Event()

    def answer(operation: str, body: bytes) -> int:
        try:
            return raw_request(served.url, TARGET + operation, body, timeout=60).status
        except OSError:  # the server died: no answer
            done.set()
            return 0

    def send_statements() -> None:
        try:
            for _ in range(ROUNDS):
                statements.append(answer("ExecuteStatement", DEEP_STATEMENT))
        finally:
            done.set()

    def send_bodies() -> None:
        while not done.is_set():
            bodies.append(answer("GetItem", DEEP_BODY))

    threads = [threading.Thread(target=send_statements), threading.Thread(target=send_bodies)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(600)
    assert served.process.poll() is None, served.output()
    assert statements == [400] * ROUNDS
    assert bodies and set(bodies) == {400}
    assert_healthy(served.url)


def test_each_alone_is_a_client_error(served: ServerProcess) -> None:
    statement = raw_request(served.url, TARGET + "ExecuteStatement", DEEP_STATEMENT).json()
    assert statement["__type"].endswith("#ValidationException"), statement
    body = raw_request(served.url, TARGET + "GetItem", DEEP_BODY).json()
    assert body["__type"].endswith("#SerializationException"), body
    assert "nesting deeper than 256 levels" in body["Message"]
