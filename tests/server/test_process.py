"""``dynabase serve`` as a process: readiness line, --port 0, graceful SIGTERM/SIGINT, start-up, options."""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path
from typing import Any

import pytest

from dynabase.server.runner import start_subprocess
from processes import dynabase_command

from .helpers import assert_healthy, boto_client

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "dynabase.cli.main", *args],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=timeout,
    )


def test_port_zero_prints_the_port_it_took() -> None:
    with start_subprocess(":memory:", port=0) as process:
        assert process.port > 0
        assert process.url == f"http://127.0.0.1:{process.port}"
        assert_healthy(process.url)
        assert boto_client(process.url).list_tables()["TableNames"] == []


def test_readiness_line_and_request_log(tmp_path: Path) -> None:
    db = tmp_path / "app.db"
    command = [sys.executable, "-m", "dynabase.cli.main", "serve", "--db", str(db), "--port", "0"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())
    try:
        line = process.stdout.readline()
        assert line.startswith("dynabase serving on http://127.0.0.1:"), line
        assert line.rstrip().endswith(f"(db: {db})")
        url = line.split()[3]
        client = boto_client(url)
        client.create_table(
            TableName="logged",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        with pytest.raises(client.exceptions.ResourceNotFoundException):
            client.describe_table(TableName="missing")
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=30)
    assert process.returncode == 0
    lines = [line for line in stderr.splitlines() if line.startswith("ts=")]
    assert any("op=CreateTable table=logged status=200 ms=" in line for line in lines), stderr
    assert any(
        "op=DescribeTable table=missing status=400" in line and "error=ResourceNotFoundException" in line
        for line in lines
    ), stderr
    assert "dynabase: stopped" in stderr


def _send_partial_request(url: str) -> tuple[socket.socket, bytes]:
    """Open a connection and send a PutItem request without its last byte (so it is in flight)."""
    host, port = url.removeprefix("http://").rsplit(":", 1)
    body = b'{"TableName":"flight","Item":{"pk":{"S":"in-flight"},"v":{"B":"AAEC"}}}'
    head = (
        b"POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Target: DynamoDB_20120810.PutItem\r\n"
        b"Authorization: AWS4-HMAC-SHA256 Credential=k/20240101/us-east-1/dynamodb/aws4_request, "
        b"SignedHeaders=host, Signature=0\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n"
    )
    sock = socket.create_connection((host, int(port)), timeout=20)
    sock.sendall(head + body[:-1])
    return sock, body[-1:]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_signal_lets_the_request_in_flight_finish(tmp_path: Path, signum: int) -> None:
    db = tmp_path / "graceful.db"
    process = start_subprocess(str(db), port=0)
    try:
        client = boto_client(process.url)
        client.create_table(
            TableName="flight",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        idle = socket.create_connection(("127.0.0.1", process.port))  # an idle keep-alive connection
        sock, rest = _send_partial_request(process.url)
        time.sleep(0.3)
        process.process.send_signal(signum)
        time.sleep(0.5)
        assert process.process.poll() is None, "stopped before the request in flight was answered"
        sock.sendall(rest)
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = sock.recv(65536)
            if not chunk:
                break
            answer += chunk
        sock.close()
        assert answer.startswith(b"HTTP/1.1 200 "), answer
        assert b"Connection: close" in answer
        assert process.process.wait(30) == 0
        assert idle.recv(10) == b""  # the idle connection was closed, not left hanging
        idle.close()
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", process.port), timeout=2).close()
    finally:
        process.close()
    # the engine closed cleanly: the write is in the file and SQLite left no WAL behind
    assert not Path(str(db) + "-wal").exists() or Path(str(db) + "-wal").stat().st_size == 0
    import dynabase

    reopened = dynabase.connect(str(db))
    try:
        item = reopened.get_item(TableName="flight", Key={"pk": {"S": "in-flight"}})["Item"]
        assert item["v"] == {"B": b"\x00\x01\x02"}
    finally:
        reopened.close()


def test_the_first_request_after_spawning_is_answered() -> None:
    """From spawn, polled until a raw ListTables is answered (a hang guard of 60 s, not a speed: the start-up
    time is measured against DynamoDB Local's by bench/server_bench.py, goal < 0.3 s)."""
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "dynabase.server", "--db", ":memory:", "--port", str(port), "-q"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=_env(),
    )
    try:
        deadline = time.monotonic() + 60
        answered = False
        while not answered:
            assert process.poll() is None, f"exited {process.returncode}"
            assert time.monotonic() < deadline, "no answer in 60 s"
            try:
                answered = _raw_list_tables(port)
            except OSError:
                time.sleep(0.002)
    finally:
        process.terminate()
        process.wait(60)


@pytest.mark.parametrize("command", [["serve"], ["serve", "--ui"], ["ui"]])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_started_with_sigint_ignored_a_signal_still_stops_it_cleanly(
    tmp_path: Path, command: list[str], signum: int
) -> None:
    """As a background job of a non-interactive shell starts them (SIGINT ignored): ``serve`` and ``ui``
    install their own handlers, so Ctrl-C (or ``kill -INT``) and SIGTERM still stop them, exit status 0."""
    args = [*command, "--db", str(tmp_path / "app.db"), "--port", "0"]
    if command == ["ui"]:
        args.append("--create")  # ui opens only an existing file unless told
    with dynabase_command(args) as child:
        if command[0] == "serve":
            url = child.wait_for("dynabase serving on", "stdout").split(" ")[3]
            assert _raw_list_tables(int(url.rsplit(":", 1)[1]))  # serving
        else:
            url = child.wait_for("dynabase console for", "stdout").split("open ", 1)[1]
            parts = urllib.parse.urlsplit(url)
            connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
            connection.request("GET", f"{parts.path}?{parts.query}")  # the printed address: a redirect
            assert connection.getresponse().status in (200, 303)  # serving
            connection.close()
        assert child.stop(signum) == 0


def _raw_list_tables(port: int) -> bool:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(
            b"POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n"
            b"Authorization: AWS4-HMAC-SHA256 Credential=k/20240101/us-east-1/dynamodb/aws4_request, "
            b"SignedHeaders=host, Signature=0\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"
        )
        return sock.recv(65536).startswith(b"HTTP/1.1 200 ")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_port_in_use_is_a_clear_error() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = _cli("serve", "--db", ":memory:", "--port", str(port), timeout=30)
    assert result.returncode == 1
    assert f"cannot serve on 127.0.0.1:{port}" in result.stderr


def test_options(tmp_path: Path) -> None:
    help_text = _cli("serve", "--help").stdout
    for option in (
        "--db",
        "--port",
        "--host",
        "--shared-db",
        "--per-key-db",
        "--credentials",
        "--access-key",
        "-v",
        "-q",
    ):
        assert option in help_text
    result = _cli("serve", "--db", ":memory:", "--port", "0", "--access-key", "only-the-key")
    assert result.returncode == 2 and "--secret-key" in result.stderr
    result = _cli("serve", "--db", ":memory:", "--port", "0", "--credentials", str(tmp_path / "missing"))
    assert result.returncode == 2
    not_a_database = tmp_path / "text.db"
    not_a_database.write_text("not a database")
    result = _cli("serve", "--db", str(not_a_database), "--port", "0")
    assert result.returncode == 1 and f"cannot open database {not_a_database}: file is not a database" in (
        result.stderr
    )


def test_credentials_option_turns_verification_on(tmp_path: Path) -> None:
    credentials = tmp_path / "credentials"
    credentials.write_text("[default]\naws_access_key_id = K1\naws_secret_access_key = S1\n")
    with start_subprocess(":memory:", args=["--credentials", str(credentials), "-q"]) as process:
        assert boto_client(process.url, key="K1", secret="S1").list_tables()["TableNames"] == []
        from botocore.exceptions import ClientError

        with pytest.raises(ClientError) as caught:
            boto_client(process.url, key="K1", secret="nope").list_tables()
        assert caught.value.response["Error"]["Code"] == "InvalidSignatureException"


def test_server_process_helper_reports_failures() -> None:
    with pytest.raises(RuntimeError, match="did not become ready"):
        start_subprocess(":memory:", args=["--no-such-option"], timeout=30)


def test_thread_helper_stops_cleanly(engine: Any) -> None:
    from dynabase.server import run_in_thread

    url, stop = run_in_thread(engine)
    assert_healthy(url)
    stop()
    stop()  # idempotent
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", int(url.rsplit(":", 1)[1])), timeout=2).close()
    assert engine.call("ListTables", {}) is not None  # an engine passed in is not closed
