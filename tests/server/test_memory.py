"""Memory of request bodies in flight (issue 23, item 3): one budget across connections, one buffer per body,
messages that quote a prefix of a huge value. Peak memory itself is measured by bench/memory_bench.py."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest

from dynabase.server.budget import FREE_BYTES

from .helpers import FAKE_AUTH, boto_client

SIZE = 600 * 1024  # over FREE_BYTES: charged


def _head(length: int, target: str = "DescribeTable", extra: str = "") -> bytes:
    return (
        "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-amz-json-1.0\r\n"
        f"X-Amz-Target: DynamoDB_20120810.{target}\r\nAuthorization: {FAKE_AUTH}\r\n"
        f"{extra}Content-Length: {length}\r\n\r\n"
    ).encode("ascii")


def _name_body(size: int) -> bytes:
    return b'{"TableName":"' + b"a" * (size - 16) + b'"}'


def _answer(sock: socket.socket) -> tuple[int, dict[str, str], Any]:
    """One answer, read without reading past it (a pipelined next answer stays in the socket)."""
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        byte = sock.recv(1)
        assert byte, f"closed without an answer: {head!r}"
        head += byte
    lines = head.decode("latin-1").split("\r\n")[:-2]
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    body = b""
    while len(body) < int(headers["content-length"]):
        chunk = sock.recv(int(headers["content-length"]) - len(body))
        assert chunk
        body += chunk
    return int(lines[0].split()[1]), headers, json.loads(body)


def _until(condition: Any, what: str) -> None:
    deadline = time.monotonic() + 10
    while not condition():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.005)


@pytest.fixture
def small_budget() -> Iterator[Any]:
    """A server whose bodies in flight may hold 1 MiB: one 600 KiB body fits, two do not."""
    from dynabase.server.runner import Server

    server = Server(max_body_memory=1024 * 1024).start()
    try:
        yield server
    finally:
        server.stop()


def _connect(server: Any) -> socket.socket:
    sock = socket.create_connection((server.http.host, server.http.port), timeout=10)
    return sock


def test_a_body_over_the_budget_left_is_answered_503_with_retry_after(small_budget: Any) -> None:
    budget = small_budget.http.budget
    body = _name_body(SIZE)
    first, second, third = (_connect(small_budget) for _ in range(3))
    try:
        first.sendall(_head(SIZE) + body[: SIZE // 2])  # holds its 600 KiB while the rest is awaited
        _until(lambda: budget.used == SIZE, "the first body is charged")
        second.sendall(_head(SIZE, extra="Expect: 100-continue\r\n"))  # refused before 100 Continue
        status, headers, error = _answer(second)
        assert status == 503
        assert headers["retry-after"] == "1"
        assert error["__type"].endswith("#ThrottlingException")
        assert "retry" in error["Message"]
        # a small request is never refused for a big one in flight
        small = b'{"TableName":"nope"}'
        third.sendall(_head(len(small)) + small)
        assert _answer(third)[0] == 400
        first.sendall(body[SIZE // 2 :])
        status, _, error = _answer(first)
        assert status == 400 and error["__type"].endswith("#ValidationException")
        parsing = small_budget.http.parsing
        _until(
            lambda: budget.used == parsing.used == 0, "the first body's charges are released once answered"
        )
        third.sendall(_head(SIZE) + body)  # now it fits (the same keep-alive connection)
        assert _answer(third)[0] == 400
        _until(lambda: budget.used == 0, "released again")
    finally:
        for sock in (first, second, third):
            sock.close()


def test_a_chunked_body_is_charged_as_it_grows(small_budget: Any) -> None:
    budget = small_budget.http.budget
    holder, chunked = _connect(small_budget), _connect(small_budget)
    try:
        holder.sendall(_head(SIZE) + b"{")
        _until(lambda: budget.used == SIZE, "the first body is charged")
        chunk = b"x" * FREE_BYTES
        head = _head(0).replace(b"Content-Length: 0", b"Transfer-Encoding: chunked")
        chunked.sendall(head)
        for _ in range(8):  # 8 * 64 KiB + the 600 KiB held: over 1 MiB
            chunked.sendall(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
        status, headers, _ = _answer(chunked)
        assert status == 503 and headers["retry-after"] == "1"
    finally:
        holder.close()
        chunked.close()
    _until(lambda: budget.used == 0, "closed connections release their charge")


def test_a_large_body_then_a_pipelined_request_on_one_connection(small_budget: Any) -> None:
    """The body is received into a buffer of its own length: the next request's bytes stay for the next read."""
    body = _name_body(SIZE)
    small = b'{"TableName":"nope"}'
    sock = _connect(small_budget)
    try:
        payload = _head(SIZE) + body + _head(len(small)) + small
        for start in range(0, len(payload), 100_003):  # split across the two requests' boundary
            sock.sendall(payload[start : start + 100_003])
        first = _answer(sock)
        second = _answer(sock)
        assert first[0] == 400 and "'tableName'" in first[2]["Message"]
        assert second[0] == 400 and "non-existent table" in second[2]["Message"]
    finally:
        sock.close()


def test_a_validation_message_quotes_only_a_prefix_of_a_huge_value() -> None:
    from dynabase.server import run_in_thread

    url, stop = run_in_thread()
    try:
        client = boto_client(url, parameter_validation=False)
        with pytest.raises(Exception) as caught:
            client.describe_table(TableName="a" * (1024 * 1024))
        message = caught.value.response["Error"]["Message"]  # type: ignore[attr-defined]
        assert caught.value.response["Error"]["Code"] == "ValidationException"  # type: ignore[attr-defined]
        assert f"Value '{'a' * 65536}...' at 'tableName' failed to satisfy constraint" in message
        assert len(message) < 66000
    finally:
        stop()


def test_a_short_value_is_still_quoted_whole() -> None:
    from dynabase.engine.validation import render

    assert render("b" * 65536) == "'" + "b" * 65536 + "'"
    assert render("b" * 65537) == "'" + "b" * 65536 + "...'"
    assert render(["x" * 40000, "y" * 40000]) == "'[" + "x" * 40000 + ", " + "y" * 25533 + "...'"


def test_the_budget_is_an_option_of_the_command() -> None:
    import argparse

    from dynabase.server.options import add_limit_arguments

    parser = argparse.ArgumentParser()
    add_limit_arguments(parser)
    assert parser.parse_args([]).max_body_memory == 256 * 1024 * 1024
    assert parser.parse_args(["--max-body-memory", "64"]).max_body_memory == 64 * 1024 * 1024
    with pytest.raises(SystemExit):
        parser.parse_args(["--max-body-memory", "0"])


def test_a_charge_waits_until_it_fits_and_gives_up_after_its_wait() -> None:
    import threading

    from dynabase.server.budget import BodyBudget

    budget = BodyBudget(100)
    assert budget.take(200)  # alone: admitted even over the limit
    assert not budget.take(1)  # no wait: refused at once
    assert not budget.take(1, wait=0.01)  # nothing was released within the wait
    got: list[bool] = []
    waiter = threading.Thread(target=lambda: got.append(budget.take(60, wait=30)))
    waiter.start()
    budget.give(200)  # releasing wakes the waiter
    waiter.join(30)
    assert got == [True] and budget.used == 60


def test_the_parsing_estimate_follows_the_structure_not_the_length() -> None:
    from dynabase.server.budget import parsed_size

    size = 3 * 1024 * 1024
    empties = b"[" + b"{}," * (size // 3 - 1) + b"{}]"
    name = _name_body(size)
    assert parsed_size(empties) > 20 * len(empties)  # a million dicts of 64+ bytes each, and their pointers
    assert parsed_size(name) < 1.01 * len(name)  # one string: about its text
