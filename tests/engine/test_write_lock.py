"""Processes writing one database file take turns through ``FILE-lock`` (:mod:`dynabase.engine.writelock`)."""

from __future__ import annotations

import multiprocessing
import os
import time

import pytest
from botocore.exceptions import ClientError

import dynabase
from dynabase.engine.writelock import WriteLock

fork = multiprocessing.get_context("fork")


def _hold(path: str, held: object, release: object) -> None:
    lock = WriteLock.open(path)
    assert lock is not None
    lock.acquire(5)
    held.set()  # type: ignore[attr-defined]
    release.wait(30)  # type: ignore[attr-defined]
    lock.close()


def test_a_write_waits_for_the_process_holding_the_turn_and_goes_as_it_is_released(tmp_path):
    path = str(tmp_path / "app.db")
    held, release = fork.Event(), fork.Event()
    other = fork.Process(target=_hold, args=(path, held, release))
    other.start()
    try:
        assert held.wait(30)
        lock = WriteLock.open(path)
        assert lock is not None
        lock.acquire(0.2)  # the other process holds it: given up after the timeout, not held
        assert not lock.held
        release.set()
        lock.acquire(30)
        assert lock.held
        lock.close()
    finally:
        release.set()
        other.join(30)
    assert other.exitcode == 0


def _count_with_writes(path: str, n: int) -> None:
    client = dynabase.connect(path)
    for _ in range(n):
        client.update_item(
            TableName="tab",
            Key={"pk": {"S": "counter"}},
            UpdateExpression="ADD n :one",
            ExpressionAttributeValues={":one": {"N": "1"}},
        )
    client.close()


def test_processes_writing_one_file_lose_no_write(tmp_path):
    path = str(tmp_path / "app.db")
    client = dynabase.connect(path)
    client.create_table(
        TableName="tab",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    workers = [fork.Process(target=_count_with_writes, args=(path, 200)) for _ in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
        assert worker.exitcode == 0
    item = client.get_item(TableName="tab", Key={"pk": {"S": "counter"}}, ConsistentRead=True)["Item"]
    assert item["n"] == {"N": "600"}
    assert os.path.exists(path + "-lock")
    client.close()


def test_a_write_lock_is_released_when_the_transaction_fails(tmp_path):
    path = str(tmp_path / "app.db")
    client = dynabase.connect(path)
    with pytest.raises(ClientError, match="ResourceNotFoundException"):
        client.put_item(TableName="missing", Item={"pk": {"S": "a"}})
    storage = client.engine.storage
    assert storage.write_lock is not None and not storage.write_lock.held
    client.close()


def test_none_where_there_can_be_no_lock_file(tmp_path):
    assert WriteLock.open(":memory:") is None
    assert WriteLock.open("file::memory:?cache=shared") is None
    read_only = tmp_path / "ro"
    read_only.mkdir()
    read_only.chmod(0o500)
    try:
        if os.geteuid() != 0:  # root writes anywhere
            assert WriteLock.open(str(read_only / "app.db")) is None
    finally:
        read_only.chmod(0o700)
    assert dynabase.connect(":memory:").engine.storage.write_lock is None


def test_a_forked_child_does_not_share_its_parents_turn(tmp_path):
    """lockf locks belong to a process: a worker forked from a supervisor that opened the file waits for it."""
    path = str(tmp_path / "app.db")
    lock = WriteLock.open(path)
    assert lock is not None
    lock.acquire(5)
    result = fork.Queue()

    def child() -> None:
        started = time.monotonic()
        lock.acquire(0.3)  # the inherited descriptor; the parent's lock is not the child's
        result.put((lock.held, time.monotonic() - started))

    process = fork.Process(target=child)
    process.start()
    held, waited = result.get(timeout=30)
    process.join(30)
    assert not held and waited >= 0.3
    lock.close()
