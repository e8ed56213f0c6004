"""``dynabase serve`` against hostile connections (issue 10): request smuggling, slowloris, connection
starvation, and the limits that stop them (``--max-connections``, ``--idle-timeout``, ``--request-timeout``)."""

from __future__ import annotations

import io
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from .helpers import assert_healthy, boto_client, new_engine, raw_socket_exchange

SIGNED = (
    b"X-Amz-Target: DynamoDB_20120810.ListTables\r\n"
    b"Authorization: AWS4-HMAC-SHA256 Credential=k/20240101/us-east-1/dynamodb/aws4_request, "
    b"SignedHeaders=host, Signature=0\r\n"
)
DELETE = (
    b"POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Target: DynamoDB_20120810.DeleteTable\r\n"
    b"Authorization: AWS4-HMAC-SHA256 Credential=k/20240101/us-east-1/dynamodb/aws4_request, "
    b"SignedHeaders=host, Signature=0\r\nContent-Length: 22\r\n\r\n"
    b'{"TableName":"victim"}'
)


def _address(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    assert parts.hostname and parts.port
    return parts.hostname, parts.port


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, io.StringIO]]:
    """A server with small limits (so that they bite within a test) and its log."""
    from dynabase.server import run_in_thread

    engine = new_engine()
    log = io.StringIO()
    url, stop = run_in_thread(
        engine, max_connections=24, idle_timeout=5.0, request_timeout=1.5, log_level=1, log_stream=log
    )
    yield url, log
    stop()
    engine.close()


# -- request smuggling (RFC 9112 section 6) ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def victim(served: tuple[str, io.StringIO]) -> str:
    """The server's URL, with the table a smuggled request would delete."""
    boto_client(served[0]).create_table(
        TableName="victim",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    return served[0]


def _framed(headers: bytes, body: bytes = b"{}", version: bytes = b"HTTP/1.1") -> bytes:
    return b"POST / " + version + b"\r\nHost: localhost\r\n" + SIGNED + headers + b"\r\n" + body


@pytest.mark.parametrize(
    ("payload", "status"),
    [
        (_framed(b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", b"0\r\n\r\n" + DELETE), 400),
        (_framed(b"Transfer-Encoding: chunked\r\nContent-Length: 5\r\n", b"0\r\n\r\n" + DELETE), 400),
        (_framed(b"Content-Length: 2\r\nContent-Length: 2\r\n"), 400),
        (_framed(b"Content-Length: 2\r\nContent-Length: 40\r\n"), 400),
        (_framed(b"Content-Length: 2, 2\r\n"), 400),
        (_framed(b"Content-Length: +2\r\n"), 400),
        (_framed(b"Content-Length: \xb2\r\n", b"{}"), 400),  # latin-1 superscript two: str.isdigit() says yes
        (_framed(b"Content-Length: " + b"9" * 5000 + b"\r\n"), 400),
        (
            _framed(b"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n", b"2\r\n{}\r\n0\r\n\r\n"),
            400,
        ),
        (_framed(b"Transfer-Encoding: chunked, identity\r\n", b"2\r\n{}\r\n0\r\n\r\n"), 501),
        (_framed(b"Transfer-Encoding: xchunked\r\n", b"2\r\n{}\r\n0\r\n\r\n"), 501),
        (_framed(b"Transfer-Encoding: chunked\r\n", b"2\r\n{}\r\n0\r\n\r\n", b"HTTP/1.0"), 400),
        (_framed(b"Transfer-Encoding: chunked\r\n", b"0x2\r\n{}\r\n0\r\n\r\n"), 400),
        (_framed(b"Transfer-Encoding: chunked\r\n", b"+2\r\n{}\r\n0\r\n\r\n"), 400),
        (_framed(b"Transfer-Encoding: chunked\r\n", b"2\r\n{}XX0\r\n\r\n"), 400),
        (_framed(b"X-Smuggle: a\nContent-Length: 2\r\n"), 400),  # a bare LF ends a line for some parsers
        (_framed(b"X-Smuggle: a\rContent-Length: 2\r\n"), 400),
        (_framed(b"X-Nul: a\x00b\r\nContent-Length: 2\r\n"), 400),
        (_framed(b"Host: y\r\nContent-Length: 2\r\n"), 400),  # a second Host
    ],
    ids=[
        "cl-then-te",
        "te-then-cl",
        "cl-repeated",
        "cl-conflicting",
        "cl-list",
        "cl-plus",
        "cl-unicode-digit",
        "cl-huge",
        "te-repeated",
        "te-chunked-not-last",
        "te-unknown",
        "te-in-http-1.0",
        "chunk-size-0x",
        "chunk-size-plus",
        "chunk-without-crlf",
        "bare-lf",
        "bare-cr",
        "nul",
        "two-hosts",
    ],
)
def test_ambiguous_framing_is_refused_and_nothing_is_smuggled(
    victim: str, payload: bytes, status: int
) -> None:
    url = victim
    answer = raw_socket_exchange(url, payload)
    assert answer.startswith(b"HTTP/1.1 %d " % status), answer[:300]
    assert answer.count(b"HTTP/1.1 ") == 1, answer  # one answer, then the connection is closed
    assert b"Connection: close" in answer
    assert "victim" in boto_client(url).list_tables()["TableNames"]  # the smuggled DeleteTable never ran


def test_well_framed_requests_still_work(served: tuple[str, io.StringIO]) -> None:
    url, _ = served
    for payload in (
        _framed(b"Content-Length: 2\r\n"),
        _framed(b"Transfer-Encoding: Chunked\r\n", b"2;ext=1\r\n{}\r\n0\r\nX-Trailer: t\r\n\r\n"),
        _framed(b"Transfer-Encoding: chunked\r\n", b"1 ;e\r\n{\r\n1\r\n}\r\n0\r\n\r\n"),
        _framed(b"Content-Length: 2\r\nConnection: close\r\n", b"{}", b"HTTP/1.0"),
    ):
        answer = raw_socket_exchange(url, payload, timeout=3, read_until_close=False)
        assert answer.startswith(b"HTTP/1.1 200 "), answer[:300]


# -- slowloris --------------------------------------------------------------------------------------------------


class _Trickler:
    """``count`` connections that each send a request head one byte at a time, every ``every`` seconds."""

    def __init__(self, url: str, count: int, every: float) -> None:
        self.address = _address(url)
        self.every = every
        self.socks: list[socket.socket] = []
        self.started: dict[int, float] = {}
        # socket index -> seconds from its first byte to the server's close
        self.closed: dict[int, float] = {}
        # socket index -> seconds from before it connected to the server's close: never less than the time
        # the server gave it, however the server counts (from the connection or from its first byte)
        self.lived: dict[int, float] = {}
        self.answers: dict[int, bytes] = {}
        self._stop = threading.Event()
        self.opened = time.monotonic()
        for _ in range(count):
            sock = socket.create_connection(self.address, timeout=5)
            sock.setblocking(False)
            self.socks.append(sock)
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> _Trickler:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join(10)
        for sock in self.socks:
            sock.close()

    def _run(self) -> None:
        head = b"POST / HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + b"a" * 10_000
        sent = 0
        next_byte = time.monotonic()
        while not self._stop.is_set() and len(self.closed) < len(self.socks):
            due = time.monotonic() >= next_byte
            for index, sock in enumerate(self.socks):
                if index not in self.closed:
                    self._step(index, sock, head[sent : sent + 1] if due else b"")
            if due:
                sent += 1
                next_byte += self.every
            self._stop.wait(0.05)

    def _step(self, index: int, sock: socket.socket, byte: bytes) -> None:
        """Note an answer or a close by the server (it closes after answering), else send ``byte``."""
        try:
            data = sock.recv(4096)
        except BlockingIOError:
            data = None
        except OSError:
            data = b""
        if data is not None:
            self.answers[index] = data
            self._ended(index)
            return
        if byte:
            try:
                sock.send(byte)
                self.started.setdefault(index, time.monotonic())
            except BlockingIOError:
                pass
            except OSError:
                self._ended(index)

    def _ended(self, index: int) -> None:
        now = time.monotonic()
        self.closed[index] = now - self.started.get(index, now)
        self.lived[index] = now - self.opened


def test_trickling_connections_neither_hold_slots_nor_outlive_the_request_deadline(
    served: tuple[str, io.StringIO],
) -> None:
    url, log = served
    client = boto_client(url)
    client.list_tables()
    with _Trickler(url, count=40, every=0.25) as trickler:  # more than the 24 connections served at once
        time.sleep(0.5)
        until = time.monotonic() + 2.5
        while time.monotonic() < until:
            fresh = boto_client(url)
            assert "TableNames" in fresh.list_tables()  # a new client: a new connection
            assert "TableNames" in client.list_tables()  # a pooled one
        # every trickler is closed however slowly it kept sending (a hang guard of 60 s: it sends a byte
        # every 0.25 s of a 10 kB head, so without the request deadline it would go on for 40 minutes)
        deadline = time.monotonic() + 60
        while len(trickler.closed) < 40 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(trickler.closed) == 40, trickler.closed
        timed_out = {index: answer for index, answer in trickler.answers.items() if answer}
    # ordinary requests were answered throughout (above; before the fix: 503s); those the deadline ended got a
    # 408, and not before the deadline (the others made room for new clients at the connection cap)
    assert timed_out and all(answer.startswith(b"HTTP/1.1 408 ") for answer in timed_out.values())
    assert min(trickler.lived[index] for index in timed_out) >= 1.5, trickler.lived
    text = log.getvalue()
    assert "request timeout (1.5s, --request-timeout)" in text
    assert "connection cap (24, --max-connections) reached" in text
    assert "status=503" not in text


def test_a_full_table_of_idle_connections_makes_room_for_new_clients() -> None:
    from dynabase.server import run_in_thread

    log = io.StringIO()
    url, stop = run_in_thread(max_connections=24, log_level=1, log_stream=log)
    address = _address(url)
    request = b"POST / HTTP/1.1\r\nHost: localhost\r\n" + SIGNED + b"Content-Length: 2\r\n\r\n{}"
    idle = []
    try:
        for _ in range(30):  # keep-alive connections that each made a request, then went quiet
            sock = socket.create_connection(address, timeout=5)
            sock.sendall(request)
            assert sock.recv(65536).startswith(b"HTTP/1.1 200 ")
            idle.append(sock)
        clients = [boto_client(url) for _ in range(5)]
        for client in clients:
            assert "TableNames" in client.list_tables()
        # the longest-idle connections made room, closed cleanly (an SDK's pool sees that and reconnects)
        made_room = 30 - 24 + len(clients)
        for sock in idle[:made_room]:
            assert sock.recv(1) == b""
        for sock in idle[made_room:]:
            sock.setblocking(False)
            with pytest.raises(BlockingIOError):
                sock.recv(1)
    finally:
        for sock in idle:
            sock.close()
        stop()
    assert log.getvalue().count("connection cap (24, --max-connections) reached") == made_room
    assert "status=503" not in log.getvalue()


def test_503_only_when_every_connection_is_inside_a_request() -> None:
    """A stand-in app whose requests wait on an event keeps both connections busy inside the engine."""
    from dynabase.server.app import RequestLog, Response
    from dynabase.server.httpd import HTTPServer

    release = threading.Event()
    log = io.StringIO()

    class Blocking:
        def __init__(self) -> None:
            self.log = RequestLog(log, 0)

        def handle(self, *args: Any) -> Response:
            release.wait(10)
            return Response(200, b"{}", "rid")

        def request_id(self) -> str:
            return "rid"

    server = HTTPServer(Blocking(), "127.0.0.1", 0, max_connections=2)  # type: ignore[arg-type]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    busy = []
    try:
        for _ in range(2):
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
            sock.sendall(b"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n\r\n{}")
            busy.append(sock)
        deadline = time.monotonic() + 5
        while server.in_flight() < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        refused = raw_socket_exchange(
            server.url, b"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n\r\n{}"
        )
        assert refused.startswith(b"HTTP/1.1 503 ") and b"ThrottlingException" in refused, refused
        assert "status=503" in log.getvalue()  # 5xx are logged even when quiet
        release.set()
        for sock in busy:
            assert sock.recv(65536).startswith(b"HTTP/1.1 200 ")
    finally:
        release.set()
        for sock in busy:
            sock.close()
        server.stop(5)


def test_idle_keep_alive_connections_are_closed_and_sdks_reconnect() -> None:
    from dynabase.server import run_in_thread

    log = io.StringIO()
    url, stop = run_in_thread(idle_timeout=0.4, log_level=2, log_stream=log)
    try:
        client = boto_client(url)
        client.list_tables()
        time.sleep(1.0)  # the pooled connection was closed meanwhile
        assert "TableNames" in client.list_tables()
        started = time.monotonic()
        sock = socket.create_connection(_address(url), timeout=60)  # a hang guard on the recv
        assert sock.recv(1) == b""  # closed by the server, idle
        assert time.monotonic() - started >= 0.4  # not before its idle timeout
        sock.close()
        assert "idle 0.4s (--idle-timeout)" in log.getvalue()
    finally:
        stop()


def test_many_idle_sdk_sized_connections_never_refuse_a_new_client() -> None:
    """The issue's harness: 556 idle keep-alive sockets (one SDK client per test file) against the default
    cap of 512, in a real ``dynabase serve`` process; new clients must still be served."""
    import resource

    from dynabase.server import start_subprocess

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 2048:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(4096, hard), hard))
    request = b"POST / HTTP/1.1\r\nHost: localhost\r\n" + SIGNED + b"Content-Length: 2\r\n\r\n{}"
    with start_subprocess() as process:
        idle = []
        try:
            for _ in range(560):
                sock = socket.create_connection(("127.0.0.1", process.port), timeout=10)
                sock.sendall(request)
                assert sock.recv(65536).startswith(b"HTTP/1.1 200 ")
                idle.append(sock)
            for _ in range(10):
                assert "TableNames" in boto_client(process.url).list_tables()
            assert_healthy(process.url)
        finally:
            for sock in idle:
                sock.close()
        assert "connection cap (512, --max-connections) reached" in process.output()
        assert "status=503" not in process.output()


def test_the_limits_are_options_of_the_command() -> None:
    from dynabase.server import start_subprocess

    args = ["--max-connections", "3", "--idle-timeout", "0.5", "--request-timeout", "0.8", "-v"]
    with start_subprocess(args=args) as process:
        address = ("127.0.0.1", process.port)
        started = time.monotonic()
        slow = socket.create_connection(address, timeout=60)  # a hang guard on the recv
        slow.sendall(b"POST / HTTP/1.1\r\nHost: localhost\r\n")
        assert slow.recv(65536).startswith(b"HTTP/1.1 408 ")
        assert time.monotonic() - started >= 0.8  # not before --request-timeout
        slow.close()
        idle = [socket.create_connection(address, timeout=5) for _ in range(4)]  # one more than the cap
        assert idle[0].recv(1) == b""  # the longest idle made room at once, long before its idle timeout
        assert "TableNames" in boto_client(process.url).list_tables()
        for sock in idle:
            sock.close()
        output = process.output()
    assert "limits: 3 connections (--max-connections), idle 0.5s (--idle-timeout), request 0.8s" in output
    assert "request timeout (0.8s, --request-timeout)" in output
    assert "connection cap (3, --max-connections) reached" in output


@pytest.mark.slow
def test_the_issues_slowloris_against_the_defaults() -> None:
    """The issue's attack on a default ``dynabase serve``: 520 sockets (more than the 512 served at once) each
    trickling a byte every 5 s. Ordinary requests are answered throughout, and no trickler outlives the
    default 30 s request deadline."""
    from dynabase.server import start_subprocess
    from dynabase.server.options import DEFAULT_REQUEST_TIMEOUT

    with start_subprocess() as process:
        client = boto_client(process.url)
        with _Trickler(process.url, count=520, every=5.0) as trickler:
            until = time.monotonic() + DEFAULT_REQUEST_TIMEOUT + 5
            while time.monotonic() < until and len(trickler.closed) < 520:
                fresh = boto_client(process.url)
                assert "TableNames" in fresh.list_tables()
                assert "TableNames" in client.list_tables()
                time.sleep(0.5)
            assert len(trickler.closed) == 520  # all gone by the deadline and 5 s (the loop's bound)
            timed_out = [index for index, answer in trickler.answers.items() if answer]
            assert timed_out and min(trickler.lived[index] for index in timed_out) >= DEFAULT_REQUEST_TIMEOUT
        output = process.output()
    assert "status=503" not in output  # ordinary requests were answered throughout (above)
    assert "request timeout (30s, --request-timeout)" in output
