"""The fault-injecting proxy: each fault does what it says, on raw sockets, HTTP and boto3 over it."""

from __future__ import annotations

import http.client
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from dynabase.testing.faultproxy import FaultProxy, Plan

BODY = b"x" * 4000


class Upstream:
    """A tiny HTTP server that counts the requests it answered (keep-alive, 4000-byte bodies)."""

    def __init__(self) -> None:
        upstream = self
        self.requests = 0

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                self.rfile.read(int(self.headers["Content-Length"]))
                upstream.requests += 1
                self.send_response(200)
                self.send_header("Content-Length", str(len(BODY)))
                self.end_headers()
                self.wfile.write(BODY)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    @property
    def address(self) -> tuple[str, int]:
        return self.server.server_address[:2]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    server = Upstream()
    yield server
    server.close()


@pytest.fixture
def proxy(upstream: Upstream) -> Iterator[FaultProxy]:
    with FaultProxy(upstream.address, seed=1, idle_timeout=5) as running:
        yield running


def post(
    proxy: FaultProxy, connection: http.client.HTTPConnection | None = None, timeout: float = 3
) -> bytes:
    connection = connection or http.client.HTTPConnection(*proxy.address, timeout=timeout)
    connection.request("POST", "/", body=b"hello")
    return connection.getresponse().read()


def raw_exchange(proxy: FaultProxy) -> tuple[bytes, BaseException | None]:
    """Send one HTTP request on a raw socket; what came back before the connection ended, and how it ended."""
    received = b""
    with socket.create_connection(proxy.address, timeout=3) as sock:
        sock.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello")
        try:
            while chunk := sock.recv(65536):
                received += chunk
        except OSError as error:
            return received, error
    return received, None


def test_pass_forwards_both_ways_and_counts(proxy: FaultProxy, upstream: Upstream) -> None:
    connection = http.client.HTTPConnection(*proxy.address, timeout=3)
    assert post(proxy, connection) == BODY
    assert post(proxy, connection) == BODY  # keep-alive: a second exchange on the same connection
    counts = proxy.counters
    assert (counts["connections"], counts["exchanges"], counts["pass"]) == (1, 2, 2)
    assert upstream.requests == 2
    assert proxy.faults_injected() == 0


def test_delay_holds_the_request(proxy: FaultProxy) -> None:
    proxy.inject("delay", delay_ms=300)
    started = time.monotonic()
    assert post(proxy) == BODY
    assert time.monotonic() - started >= 0.3
    assert proxy.counters["delay"] == 1


def test_drop_closes_without_forwarding(proxy: FaultProxy, upstream: Upstream) -> None:
    proxy.inject("drop")
    received, error = raw_exchange(proxy)
    assert received == b"" and error is None  # a clean close, nothing answered
    assert upstream.requests == 0
    assert proxy.counters["drop"] == 1


def test_reset_mid_response(proxy: FaultProxy, upstream: Upstream) -> None:
    proxy.inject("reset", after_bytes=100)
    received, error = raw_exchange(proxy)
    assert isinstance(error, ConnectionResetError)
    assert 0 < len(received) <= 100 and received.startswith(b"HTTP/1.1 200")
    assert upstream.requests == 1  # the target did the work
    assert proxy.counters["reset"] == 1


@pytest.mark.parametrize("after", [17, 100, 3000])
def test_cut_closes_cleanly_after_part_of_the_answer(
    proxy: FaultProxy, upstream: Upstream, after: int
) -> None:
    proxy.inject("cut", after_bytes=after)
    received, error = raw_exchange(proxy)
    assert error is None  # a FIN, not a reset: the client may take the part for the whole answer
    assert len(received) == after and received.startswith(b"HTTP/1.1 200")
    assert upstream.requests == 1
    assert proxy.counters["cut"] == 1


def test_a_cut_short_answer_ends_before_the_next_request(proxy: FaultProxy, upstream: Upstream) -> None:
    proxy.inject("cut", after_bytes=100_000)
    connection = http.client.HTTPConnection(*proxy.address, timeout=3)
    assert post(proxy, connection) == BODY  # the whole answer fitted
    with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):
        post(proxy, connection)
    assert upstream.requests == 1


def test_reset_after_a_point_deep_in_the_answer(proxy: FaultProxy) -> None:
    proxy.inject("reset", after_bytes=3000)
    received, error = raw_exchange(proxy)
    assert isinstance(error, ConnectionResetError)
    assert len(received) == 3000


def test_reset_after_a_short_answer_comes_before_the_next_request(
    proxy: FaultProxy, upstream: Upstream
) -> None:
    proxy.inject("reset", after_bytes=100_000)
    connection = http.client.HTTPConnection(*proxy.address, timeout=3)
    assert post(proxy, connection) == BODY  # the whole answer fitted
    with pytest.raises((ConnectionError, http.client.HTTPException)):
        post(proxy, connection)
    assert upstream.requests == 1


def test_close_after_request_discards_the_answer(proxy: FaultProxy, upstream: Upstream) -> None:
    proxy.inject("close_after_request")
    with pytest.raises(http.client.RemoteDisconnected):
        post(proxy)
    assert upstream.requests == 1  # committed, but the client never heard
    assert proxy.counters["close_after_request"] == 1


def test_fault_on_a_later_exchange_of_a_keepalive_connection(proxy: FaultProxy, upstream: Upstream) -> None:
    connection = http.client.HTTPConnection(*proxy.address, timeout=3)
    assert post(proxy, connection) == BODY
    proxy.inject("drop")
    with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):
        post(proxy, connection)
    assert upstream.requests == 1


def test_blackhole_hangs_then_heal_restores(proxy: FaultProxy, upstream: Upstream) -> None:
    proxy.blackhole(30)
    with pytest.raises(TimeoutError):
        post(proxy, timeout=0.5)
    assert upstream.requests == 0
    proxy.heal()
    assert post(proxy) == BODY
    assert proxy.counters["blackhole"] == 1


def test_blackhole_ends_by_itself(proxy: FaultProxy) -> None:
    proxy.blackhole(0.3)
    time.sleep(0.4)
    assert post(proxy) == BODY


def test_seeded_rates_are_reproducible_and_heal_turns_them_off(upstream: Upstream) -> None:
    rates = {"drop": 0.2, "delay": 0.2, "reset": 0.2, "close_after_request": 0.2, "cut": 0.1}
    first = FaultProxy(upstream.address, seed=42, rates=rates)
    second = FaultProxy(upstream.address, seed=42, rates=rates)
    plans = [first.next_plan() for _ in range(200)]
    assert plans == [second.next_plan() for _ in range(200)]
    kinds = {plan.kind for plan in plans}
    assert kinds == {"pass", "drop", "delay", "reset", "close_after_request", "cut"}
    assert all(1 <= p.delay_ms <= 50 for p in plans if p.kind == "delay")
    first.heal()
    assert {first.next_plan().kind for _ in range(100)} == {"pass"}


def test_random_faults_through_the_proxy_then_heal(proxy: FaultProxy, upstream: Upstream) -> None:
    proxy.set_rates({"drop": 0.25, "reset": 0.25, "close_after_request": 0.25})
    outcomes = {"ok": 0, "failed": 0}
    for _ in range(40):
        try:
            outcomes["ok" if post(proxy) == BODY else "failed"] += 1
        except (OSError, http.client.HTTPException):
            outcomes["failed"] += 1
    assert outcomes["failed"] > 0 and proxy.faults_injected() == outcomes["failed"]
    proxy.heal()
    assert all(post(proxy) == BODY for _ in range(10))


def test_bad_arguments_are_refused(upstream: Upstream) -> None:
    with pytest.raises(ValueError, match="loopback only"):
        FaultProxy(upstream.address, host="0.0.0.0")
    with pytest.raises(ValueError, match="unknown fault"):
        FaultProxy(upstream.address, rates={"explode": 0.1})
    with pytest.raises(ValueError, match="summing to at most 1"):
        FaultProxy(upstream.address, rates={"drop": 0.7, "reset": 0.7})
    with pytest.raises(ValueError, match="unknown fault"):
        Plan("explode")
    with pytest.raises(ValueError, match="HOST:PORT"):
        FaultProxy("no-port-here")
    assert FaultProxy("http://127.0.0.1:8000/").target == ("127.0.0.1", 8000)


def test_bounded_connections_and_lifetime(upstream: Upstream) -> None:
    with FaultProxy(upstream.address, max_connections=1, lifetime=1.0) as proxy:
        held = socket.create_connection(proxy.address, timeout=3)
        held.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
        held.recv(10)  # the first connection is being served
        with socket.create_connection(proxy.address, timeout=3) as extra:
            assert extra.recv(10) == b""  # over the bound: closed at once
        assert proxy.counters["refused"] == 1
        held.close()
        time.sleep(1.3)  # past its lifetime the proxy stops listening by itself
        with pytest.raises(OSError):
            socket.create_connection(proxy.address, timeout=1).close()


def test_stop_closes_open_connections(upstream: Upstream) -> None:
    proxy = FaultProxy(upstream.address).start()
    held = socket.create_connection(proxy.address, timeout=60)  # a hang guard on the recv below
    deadline = time.monotonic() + 60
    while not proxy._sockets:  # until the proxy has taken the connection and waits for a request on it
        assert time.monotonic() < deadline, "the proxy never took the connection"
        time.sleep(0.01)
    proxy.stop()
    assert held.recv(10) == b""  # closed by the proxy, not left open
    held.close()
    # stop shut the connection rather than waiting for the client: every thread of the proxy has ended
    # (its join has a 5 s timeout, so a thread still blocked on the held connection would be alive here)
    assert not [thread for thread in proxy._threads if thread.is_alive()]


def test_boto3_through_the_proxy() -> None:
    """A real DynamoDB endpoint (dynabase serve in a thread) behind the proxy; a lost answer is retried."""
    import boto3
    from botocore.config import Config

    import dynabase
    from dynabase.server import run_in_thread

    engine = dynabase.Engine(":memory:")
    url, stop = run_in_thread(engine)
    try:
        with FaultProxy(url, seed=3) as ddb_proxy:
            client = boto3.client(
                "dynamodb",
                endpoint_url=ddb_proxy.url,
                region_name="us-east-1",
                aws_access_key_id="k",
                aws_secret_access_key="s",
                config=Config(retries={"max_attempts": 3, "mode": "standard"}, read_timeout=2),
            )
            client.create_table(
                TableName="things",
                KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                BillingMode="PAY_PER_REQUEST",
            )
            ddb_proxy.inject("close_after_request")
            client.put_item(
                TableName="things", Item={"pk": {"S": "a"}, "n": {"N": "1"}}
            )  # retried by botocore
            ddb_proxy.inject("reset", after_bytes=20)
            item = client.get_item(TableName="things", Key={"pk": {"S": "a"}})["Item"]
            assert item == {"pk": {"S": "a"}, "n": {"N": "1"}}
            assert ddb_proxy.counters["close_after_request"] == 1 and ddb_proxy.counters["reset"] == 1
            # botocore writes headers and body apart: both of the proxy's sockets of an exchange send at once
            # (TCP_NODELAY), or each request would wait out a Nagle / delayed-ACK stall (~40 ms)
            client.list_tables()
            with ddb_proxy._lock:
                sockets = list(ddb_proxy._sockets)
            assert len(sockets) == 2  # the client's pooled connection and its upstream one
            assert all(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) for sock in sockets)
    finally:
        stop()
        engine.close()


def test_the_command_forwards_and_stops_by_itself(upstream: Upstream) -> None:
    import subprocess
    import sys
    from pathlib import Path

    src = str(Path(__file__).resolve().parents[2] / "src")
    host, port = upstream.address
    command = [
        sys.executable,
        "-m",
        "dynabase.testing.faultproxy",
        "--target",
        f"{host}:{port}",
        "--seconds",
        "3",
    ]
    env = {"PYTHONPATH": src, "PATH": ""}
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    ) as child:
        assert child.stdout is not None
        line = child.stdout.readline()
        assert line.startswith("fault proxy on http://127.0.0.1:"), line
        url = line.split()[3]
        connection = http.client.HTTPConnection(url.removeprefix("http://"), timeout=3)
        connection.request("POST", "/", body=b"hello")
        assert connection.getresponse().read() == BODY
        connection.close()
        assert child.wait(timeout=10) == 0  # its --seconds ran out
        assert "'pass': 1" in child.stderr.read()
    bad = subprocess.run([*command[:5], "--rate", "explode=0.5"], capture_output=True, text=True, env=env)
    assert bad.returncode == 2 and "unknown fault" in bad.stderr
