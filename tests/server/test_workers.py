"""``dynabase serve --workers N``: processes on one file and one port, one log, one ready line, clean stops,
a dead worker replaced, no worker outliving the supervisor."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from dynabase.server.workers import RESTARTS, default_workers, worker_count
from processes import READY_TIMEOUT, Child, dynabase_command

from .helpers import TARGET, raw_request

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="more than one worker needs fork()")


@contextlib.contextmanager
def serving(db: Path, *args: str, workers: int = 2) -> Iterator[tuple[Child, str, list[int]]]:
    """``dynabase serve --workers N`` on ``db``: (the child, its URL, the workers' pids)."""
    command = ["serve", "--db", str(db), "--port", "0", "--workers", str(workers), *args]
    with dynabase_command(command) as child:
        url = child.wait_for("dynabase serving on", "stdout").split()[3]
        pids = [
            int(p) for p in child.wait_for("workers (--workers), pids").rpartition("pids ")[2].split(", ")
        ]
        assert len(pids) == workers
        try:
            yield child, url, pids
        finally:
            for pid in [child.process.pid, *pids]:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)  # a failed test leaves nothing behind (by PID)


def call(url: str, op: str, request: dict[str, Any]) -> tuple[int, dict[str, Any], str]:
    """One request on a new connection: (status, answer, the request id's worker prefix)."""
    response = raw_request(url, TARGET + op, json.dumps(request, ensure_ascii=False).encode())
    return response.status, response.json(), response.headers["x-amzn-requestid"].rsplit("-", 1)[0]


def table_request(name: str, **extra: Any) -> dict[str, Any]:
    return {
        "TableName": name,
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "BillingMode": "PAY_PER_REQUEST",
        **extra,
    }


def gone(pid: int) -> bool:
    """Whether ``pid`` has exited (a zombie child of another process counts as exited)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rpartition(")")[2].split()[0] == "Z"
    except FileNotFoundError:
        return True
    except OSError:  # no /proc: signal 0
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False


def wait_gone(pids: list[int]) -> None:
    deadline = time.monotonic() + READY_TIMEOUT  # a hang guard
    while not all(gone(pid) for pid in pids):
        assert time.monotonic() < deadline, f"still running: {[p for p in pids if not gone(p)]}"
        time.sleep(0.05)


# -- how many ------------------------------------------------------------------------------------------------


def test_the_default_is_the_cpus_for_a_file_and_one_for_memory_or_the_console() -> None:
    def count(db: str, **options: Any) -> int:
        return worker_count(SimpleNamespace(db=db, **options))

    assert count("app.db") == default_workers() >= 1
    assert count("app.db", workers=3) == 3
    assert count(":memory:") == 1
    assert count("file::memory:?cache=shared") == 1
    assert count("app.db", ui=True) == 1
    assert count(":memory:", workers=1) == 1


def test_without_fork_one_worker_is_the_default_and_more_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(os, "fork")
    assert worker_count(SimpleNamespace(db="app.db")) == 1
    with pytest.raises(ValueError, match="--workers 2: more workers need fork"):
        worker_count(SimpleNamespace(db="app.db", workers=2))


def test_where_the_kernel_cannot_spread_connections_the_workers_share_one_socket(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from dynabase.server import workers

    monkeypatch.setattr(workers.sys, "platform", "darwin")  # SO_REUSEPORT does not balance there
    shared = workers.listeners("127.0.0.1", 0, 3)
    try:
        assert len(shared) == 3 and len({id(sock) for sock in shared}) == 1
    finally:
        shared[0].close()
    monkeypatch.setattr(workers.sys, "platform", "linux")
    own = workers.listeners("127.0.0.1", 0, 3)
    try:
        assert len({id(sock) for sock in own}) == 3
        assert len({sock.getsockname() for sock in own}) == 1  # one port
    finally:
        for sock in own:
            sock.close()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--db", ":memory:", "--workers", "2"], "--workers 2: a :memory: database lives inside one process"),
        (["--db", "x.db", "--ui", "--workers", "3"], "--workers 3: the web console (--ui)"),
        (["--db", "x.db", "--workers", "0"], "--workers: must be a positive finite number, not 0"),
    ],
)
def test_workers_that_cannot_be_had_are_a_clear_error(tmp_path: Path, args: list[str], message: str) -> None:
    with dynabase_command(["serve", "--port", "0", *args], cwd=str(tmp_path)) as child:
        assert child.process.wait(READY_TIMEOUT) == 2
        assert message in child.rest()
    assert not (tmp_path / "x.db").exists()


def test_a_port_in_use_is_refused_even_by_a_group_that_would_let_us_in(tmp_path: Path) -> None:
    for reuse in (False, True):
        holder = socket.socket()
        if reuse:  # another server's SO_REUSEPORT socket: joining it would share its clients
            holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        try:
            command = ["serve", "--db", str(tmp_path / "p.db"), "--port", str(port), "--workers", "2"]
            with dynabase_command(command) as child:
                assert child.process.wait(READY_TIMEOUT) == 1
                assert f"cannot serve on 127.0.0.1:{port}: the port is in use" in child.rest()
        finally:
            holder.close()
    assert not (tmp_path / "p.db").exists()


# -- one database ------------------------------------------------------------------------------------------


def test_a_table_made_through_one_worker_is_used_at_once_through_the_others(tmp_path: Path) -> None:
    with serving(tmp_path / "ddl.db") as (child, url, _):
        status, _, maker = call(url, "CreateTable", table_request("fresh"))
        assert status == 200
        workers = {maker}
        for n in range(24):  # each on a new connection: the kernel spreads them over the workers
            status, answer, worker = call(
                url, "PutItem", {"TableName": "fresh", "Item": {"pk": {"S": f"k{n}"}}}
            )
            assert status == 200, answer
            status, answer, _ = call(url, "GetItem", {"TableName": "fresh", "Key": {"pk": {"S": f"k{n}"}}})
            assert answer["Item"] == {"pk": {"S": f"k{n}"}}
            workers.add(worker)
        assert len(workers) == 2, "every connection landed on one worker"
        status, _, dropper = call(url, "DeleteTable", {"TableName": "fresh"})
        assert status == 200
        others = set()
        for _ in range(24):
            status, answer, worker = call(url, "GetItem", {"TableName": "fresh", "Key": {"pk": {"S": "k0"}}})
            assert status == 400 and answer["__type"].endswith("#ResourceNotFoundException"), answer
            others.add(worker)
        assert others - {dropper}, "no request reached another worker than the one that deleted the table"
        assert child.stop(signal.SIGTERM) == 0


def test_one_request_log_of_whole_lines(tmp_path: Path) -> None:
    """-v logs bodies: lines longer than a pipe writes at once (4 KiB), from two workers at the same time."""
    requests = 0
    with serving(tmp_path / "log.db", "-v") as (child, url, _):
        assert call(url, "CreateTable", table_request("logged"))[0] == 200
        requests += 1
        text = "é" * 3000  # "\u00e9" in the log: lines of ~12,000 characters
        errors: list[BaseException] = []

        def write(thread: int) -> None:
            try:
                for n in range(15):
                    item = {"pk": {"S": f"{thread}-{n}"}, "text": {"S": text}}
                    assert call(url, "PutItem", {"TableName": "logged", "Item": item})[0] == 200
                    assert call(url, "GetItem", {"TableName": "logged", "Key": {"pk": item["pk"]}})[0] == 200
            except BaseException as error:  # surfaced below
                errors.append(error)

        threads = [threading.Thread(target=write, args=(t,)) for t in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not errors, errors
        requests += 6 * 15 * 2
        assert child.stop(signal.SIGTERM) == 0
        log = child.rest()
    lines = [line for line in log.splitlines() if " op=" in line]
    assert len(lines) == requests, log[-3000:]
    for line in lines:
        assert line.startswith("ts=") and line.count(" op=") == 1 and line.count(" rid=") == 1, line
        if " op=PutItem" in line or " op=GetItem" in line:
            # whole: both bodies, up to the response's closing quote
            assert line.count(" request=") == line.count(" response=") == 1 and line.endswith('"'), line
            assert len(line) > 4096
    assert log.count("dynabase: 2 workers (--workers)") == 1
    assert log.count("limits of each of 2 workers: 512 connections") == 1


# -- stopping ----------------------------------------------------------------------------------------------


def _partial_put(url: str, key: str) -> tuple[socket.socket, bytes]:
    """A PutItem without its last byte, in flight on its connection."""
    host, port = url.removeprefix("http://").rsplit(":", 1)
    body = json.dumps({"TableName": "flight", "Item": {"pk": {"S": key}}}).encode()
    head = (
        f"POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Target: {TARGET}PutItem\r\n"
        "Authorization: AWS4-HMAC-SHA256 Credential=k/20240101/us-east-1/dynamodb/aws4_request, "
        f"SignedHeaders=host, Signature=0\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    sock = socket.create_connection((host, int(port)), timeout=READY_TIMEOUT)
    sock.sendall(head + body[:-1])
    return sock, body[-1:]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_every_worker_after_the_requests_in_flight(tmp_path: Path, signum: int) -> None:
    db = tmp_path / "stop.db"
    with serving(db, "-v") as (child, url, pids):
        assert call(url, "CreateTable", table_request("flight"))[0] == 200
        flights = [_partial_put(url, f"k{n}") for n in range(8)]  # on both workers, very likely
        child.wait_for("op=CreateTable")
        # every worker has read the head of its requests before the signal (the lines show when they answer)
        time.sleep(0.3)
        child.process.send_signal(signum)
        time.sleep(0.5)
        assert child.process.poll() is None, "stopped before the requests in flight were answered"
        for sock, rest in flights:
            sock.sendall(rest)
            answer = sock.recv(65536)
            assert answer.startswith(b"HTTP/1.1 200 ") and b"Connection: close" in answer, answer
            sock.close()
        assert child.process.wait(READY_TIMEOUT) == 0
        wait_gone(pids)
        assert "dynabase: stopped" in child.rest()
        assert child.seen["stdout"].count(f"dynabase serving on {url} (db: {db})") == 1
    import dynabase

    client = dynabase.connect(str(db))
    try:
        assert client.scan(TableName="flight", Select="COUNT")["Count"] == 8
    finally:
        client.close()


def test_a_worker_killed_is_reported_and_another_takes_its_place(tmp_path: Path) -> None:
    with serving(tmp_path / "kill.db") as (child, url, pids):
        assert call(url, "CreateTable", table_request("alive"))[0] == 200
        os.kill(pids[0], signal.SIGKILL)
        line = child.wait_for(f"worker 0 (pid {pids[0]}) was killed by SIGKILL: started pid")
        replacement = int(line.rpartition("started pid ")[2].split()[0])
        assert not gone(replacement)
        workers = set()
        for n in range(24):
            status, _, worker = call(url, "PutItem", {"TableName": "alive", "Item": {"pk": {"S": f"k{n}"}}})
            assert status == 200
            workers.add(worker)
        assert len(workers) == 2, "the replacement answers nothing"
        assert child.stop(signal.SIGTERM) == 0
        wait_gone([replacement, pids[1]])


def test_workers_dying_again_and_again_stop_the_server(tmp_path: Path) -> None:
    with serving(tmp_path / "loop.db") as (child, _, pids):
        pid = pids[1]
        for _ in range(RESTARTS):
            os.kill(pid, signal.SIGKILL)
            line = child.wait_for(f"(pid {pid}) was killed by SIGKILL: started pid")
            pid = int(line.rpartition("started pid ")[2].split()[0])
        os.kill(pid, signal.SIGKILL)
        child.wait_for(f"{RESTARTS + 1} workers died within 60s, stopping")
        assert child.process.wait(READY_TIMEOUT) == 1
        wait_gone([pid, pids[0]])


def test_no_worker_outlives_a_supervisor_killed_with_sigkill(tmp_path: Path) -> None:
    with serving(tmp_path / "orphan.db") as (child, url, pids):
        assert call(url, "CreateTable", table_request("orphans"))[0] == 200
        os.kill(child.process.pid, signal.SIGKILL)
        wait_gone(pids)
        host, port = url.removeprefix("http://").rsplit(":", 1)
        with pytest.raises(OSError):
            socket.create_connection((host, int(port)), timeout=5).close()


# -- durability: the engine's kill -9 cases (tests/engine/test_durability.py) through two workers -------------


def _crash(child: Child, pids: list[int]) -> None:
    """SIGKILL every process of the server at once: the supervisor frozen first, so it restarts nothing."""
    os.kill(child.process.pid, signal.SIGSTOP)
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    os.kill(child.process.pid, signal.SIGKILL)
    child.process.wait(READY_TIMEOUT)
    wait_gone(pids)


def _concurrently(url: str, count: int, one: Any, enough: int, then: Any) -> tuple[list[int], set[str]]:
    """``count`` threads call ``one(url, thread, n)`` for n = 0, 1, ... until each has ``enough`` acknowledged,
    then ``then()`` runs while they go on: (the last n each had acknowledged, the workers that answered)."""
    acknowledged = [-1] * count
    workers: set[str] = set()
    crashing = threading.Event()

    def run(thread: int) -> None:
        n = 0
        while True:  # until the server is gone
            try:
                status, answer, worker = one(url, thread, n)
            except OSError:
                if crashing.is_set():
                    return
                raise
            assert status == 200, answer
            acknowledged[thread] = n
            workers.add(worker)
            n += 1

    threads = [threading.Thread(target=run, args=(t,), daemon=True) for t in range(count)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + READY_TIMEOUT  # a hang guard
    while min(acknowledged) < enough:
        assert all(t.is_alive() for t in threads) and time.monotonic() < deadline, acknowledged
        time.sleep(0.01)
    crashing.set()
    then()  # while the threads write
    for thread in threads:
        thread.join(READY_TIMEOUT)
    return acknowledged, workers


def _put(url: str, thread: int, n: int) -> tuple[int, dict[str, Any], str]:
    item = {"pk": {"S": f"k{thread}-{n:06d}"}, "n": {"N": str(n)}, "pad": {"S": "x" * 500}}
    return call(url, "PutItem", {"TableName": "durable", "Item": item})


def test_sigkill_with_concurrent_writers_keeps_every_acknowledged_write(tmp_path: Path) -> None:
    import sqlite3

    import dynabase

    db = tmp_path / "crash.db"
    with serving(db) as (child, url, pids):
        assert call(url, "CreateTable", table_request("durable"))[0] == 200
        seen, workers = _concurrently(url, 4, _put, 100, lambda: _crash(child, pids))
    assert len(workers) == 2
    with sqlite3.connect(db) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    client = dynabase.connect(str(db))
    try:
        keys = {i["pk"]["S"] for i in client.scan(TableName="durable", ConsistentRead=True)["Items"]}
        for thread, last in enumerate(seen):
            mine = sorted(k for k in keys if k.startswith(f"k{thread}-"))
            # every acknowledged write is there; one in flight may be too, never with a gap before it
            assert mine[: last + 1] == [f"k{thread}-{n:06d}" for n in range(last + 1)], (
                f"writer {thread} lost"
            )
            assert mine == [f"k{thread}-{n:06d}" for n in range(len(mine))] and len(mine) <= last + 2
    finally:
        client.close()


def _move(url: str, thread: int, n: int) -> tuple[int, dict[str, Any], str]:
    """Move one unit from account a to account b and log the move: three items, all or nothing."""
    add = "ADD balance :v"
    return call(
        url,
        "TransactWriteItems",
        {
            "TransactItems": [
                {"Update": {"TableName": "ledger", "Key": {"pk": {"S": "a"}}, "UpdateExpression": add,
                            "ExpressionAttributeValues": {":v": {"N": "-1"}}}},
                {"Update": {"TableName": "ledger", "Key": {"pk": {"S": "b"}}, "UpdateExpression": add,
                            "ExpressionAttributeValues": {":v": {"N": "1"}}}},
                {"Put": {"TableName": "ledger", "Item": {"pk": {"S": f"move#{thread}#{n:06d}"}}}},
            ]
        },
    )  # fmt: skip


def test_sigkill_during_concurrent_transactions_leaves_none_partial_and_no_orphan_stream_record(
    tmp_path: Path,
) -> None:
    import sqlite3

    import dynabase

    db = tmp_path / "ledger.db"
    stream = {"StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}}
    with serving(db) as (child, url, pids):
        assert call(url, "CreateTable", table_request("ledger", **stream))[0] == 200
        seen, workers = _concurrently(url, 3, _move, 40, lambda: _crash(child, pids))
    assert len(workers) == 2
    with sqlite3.connect(db) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    client = dynabase.connect(str(db))
    try:
        items = {i["pk"]["S"]: i for i in client.scan(TableName="ledger", ConsistentRead=True)["Items"]}
        moves = [k for k in items if k.startswith("move#")]
        for thread, last in enumerate(seen):
            mine = sorted(k for k in moves if k.startswith(f"move#{thread}#"))
            assert mine == [f"move#{thread}#{n:06d}" for n in range(len(mine))] and len(mine) >= last + 1
        assert items["a"]["balance"] == {"N": str(-len(moves))}
        assert items["b"]["balance"] == {"N": str(len(moves))}
        streams = client.streams()
        arn = client.describe_table(TableName="ledger")["Table"]["LatestStreamArn"]
        shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
        iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")
        iterator, records = iterator["ShardIterator"], []
        while True:
            page = streams.get_records(ShardIterator=iterator)
            if not page["Records"]:
                break
            records += page["Records"]
            iterator = page["NextShardIterator"]
        assert len(records) == 3 * len(moves)  # each change has exactly its record
        sequence = [int(r["dynamodb"]["SequenceNumber"]) for r in records]
        assert sequence == sorted(sequence) and len(set(sequence)) == len(sequence)
    finally:
        client.close()


def test_updates_through_two_workers_are_never_lost(tmp_path: Path) -> None:
    with serving(tmp_path / "counter.db") as (child, url, _):
        assert call(url, "CreateTable", table_request("counter"))[0] == 200
        workers: set[str] = set()

        def count(_: int) -> None:
            for _ in range(60):
                status, answer, worker = call(
                    url,
                    "UpdateItem",
                    {
                        "TableName": "counter",
                        "Key": {"pk": {"S": "hits"}},
                        "UpdateExpression": "ADD hits :one",
                        "ExpressionAttributeValues": {":one": {"N": "1"}},
                    },
                )
                assert status == 200, answer
                workers.add(worker)

        threads = [threading.Thread(target=count, args=(t,)) for t in range(5)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(READY_TIMEOUT)
        status, answer, _ = call(url, "GetItem", {"TableName": "counter", "Key": {"pk": {"S": "hits"}}})
        assert answer["Item"]["hits"] == {"N": "300"} and len(workers) == 2
        assert child.stop(signal.SIGTERM) == 0


def test_long_log_lines_from_many_threads_stay_whole_in_a_full_pipe() -> None:
    """A worker's request log is a pipe to the supervisor: a line longer than the pipe takes at once is written
    in parts, and the parts of two threads' lines must not alternate."""
    from dynabase.server.app import RequestLog

    read, write = os.pipe()
    log = RequestLog(os.fdopen(write, "w"), level=1)
    received = bytearray()

    def drain() -> None:
        while chunk := os.read(read, 997):  # small reads: the pipe stays full, the writers wait inside lines
            received.extend(chunk)

    reader = threading.Thread(target=drain)
    reader.start()
    writers = [
        threading.Thread(target=lambda c=c: [log.write(c * 20_000) for _ in range(10)]) for c in "abcdefgh"
    ]
    for thread in writers:
        thread.start()
    for thread in writers:
        thread.join(READY_TIMEOUT)
    log.stream.close()
    reader.join(READY_TIMEOUT)
    os.close(read)
    lines = received.decode().splitlines()
    assert sorted(lines) == sorted(c * 20_000 for c in "abcdefgh" for _ in range(10))


def test_a_second_signal_stops_every_worker_at_once(tmp_path: Path) -> None:
    with serving(tmp_path / "twice.db") as (child, url, pids):
        assert call(url, "CreateTable", table_request("flight"))[0] == 200
        flights = [
            _partial_put(url, f"k{n}") for n in range(4)
        ]  # never finished: the stop cannot wait them out
        time.sleep(0.3)
        child.process.send_signal(signal.SIGTERM)
        time.sleep(0.3)
        assert child.process.poll() is None  # waiting for the requests in flight
        assert child.stop(signal.SIGTERM) == 128 + signal.SIGTERM
        wait_gone(pids)
        for sock, _ in flights:
            sock.close()
