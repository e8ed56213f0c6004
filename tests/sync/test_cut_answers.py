"""Answers cut on their way (a relay that gives up and closes cleanly): sync must take them for the transport
faults they are (retried), never for what the table holds. The cloud is a ``dynabase serve`` in a thread behind
a :class:`FaultProxy` that cuts answers after a chosen number of bytes."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError
from botocore.model import ServiceModel
from botocore.parsers import create_parser
from botocore.session import get_session

import dynabase
from backends import boto3_client
from dynabase.model import Table, syncmeta
from dynabase.server import run_in_thread
from dynabase.sync import Sync, SyncError
from dynabase.sync import pull as pull_module
from dynabase.sync.errors import classify
from dynabase.testing import FaultProxy

from .test_sync import SCHEMA

STATUS_400 = len(b"HTTP/1.1 400 Bad Request\r\n")
STATUS_200 = len(b"HTTP/1.1 200 OK\r\n")


class Cloud:
    """A served cloud table behind a fault proxy, a direct client to it, and devices syncing through the proxy."""

    def __init__(self, name: str) -> None:
        self.engine = dynabase.Engine(":memory:")
        self.url, self._stop = run_in_thread(self.engine)
        self.proxy = FaultProxy(self.url, seed=1).start()
        self.direct = Table(name, boto3_client("dynamodb", self.url), SCHEMA, side="cloud")
        self.direct.create_table()
        self.name = name
        self.devices: list[Table] = []

    def device(
        self, device_id: str, path: str = ":memory:", clock: Any = None, **options: Any
    ) -> tuple[Table, Sync]:
        table = Table(self.name, dynabase.connect(path, clock=clock), SCHEMA, side="device")
        if not table.exists():
            table.create_table()
        self.devices.append(table)
        cloud = Table(self.name, boto3_client("dynamodb", self.proxy.url), SCHEMA, side="cloud")
        return table, Sync(table, cloud, device_id=device_id, **options)

    def close(self) -> None:
        for table in self.devices:
            table.client.close()
        self.proxy.stop()
        self._stop()
        self.engine.close()


@pytest.fixture
def cloud() -> Iterator[Cloud]:
    world = Cloud("cut-answers")
    try:
        yield world
    finally:
        world.close()


def _texts(table: Table) -> dict[str, str]:
    return {item["id"]: item.get("text") for item in table.Note.scan({})}


def test_a_conflict_answer_cut_after_its_status_line_is_retried_not_fatal(
    cloud: Cloud, monkeypatch: Any
) -> None:
    device, sync = cloud.device("d1")
    sync.sync_once()  # the offset is measured: the next exchange is the push
    device.Note.create({"id": "a", "text": "device"})
    monkeypatch.setattr(syncmeta, "wall_clock", lambda: time.time() + 5)
    monkeypatch.setattr(syncmeta, "_last_stamp", [0, 0])  # well past the clock tolerance
    cloud.direct.Note.upsert({"id": "a", "text": "cloud"})  # newer: the push's condition fails (400)
    cloud.proxy.inject("cut", after_bytes=STATUS_400)
    with pytest.raises(SyncError) as raised:
        sync.sync_once()
    assert raised.value.retryable, str(raised.value)
    assert "incomplete answer" in str(raised.value)
    assert sync.pending() == 1  # nothing was decided on the cut answer
    result = sync.sync_once()
    assert result.in_step and result.conflicts == 1
    assert _texts(device) == {"a": "cloud"}


def test_the_loop_rides_out_cut_answers(cloud: Cloud, monkeypatch: Any) -> None:
    device, sync = cloud.device("d1")
    sync.sync_once()
    device.Note.create({"id": "a", "text": "device"})
    monkeypatch.setattr(syncmeta, "wall_clock", lambda: time.time() + 5)
    monkeypatch.setattr(syncmeta, "_last_stamp", [0, 0])
    cloud.direct.Note.upsert({"id": "a", "text": "cloud"})
    cloud.proxy.inject("cut", count=2, after_bytes=STATUS_400)  # the push's answer, and its retry's
    stop = threading.Event()
    failure: list[BaseException] = []

    def run() -> None:
        try:
            sync.run(interval=0.05, stop=stop, max_backoff=0.2)
        except BaseException as error:  # noqa: BLE001 - the test reports it
            failure.append(error)

    thread = threading.Thread(target=run)
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while _texts(device) != {"a": "cloud"} and not failure and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        stop.set()
        thread.join(10)
    assert not failure, failure
    assert _texts(device) == {"a": "cloud"} and sync.pending() == 0
    assert cloud.proxy.counters.get("cut") == 2


def _parsed_error(body: bytes) -> ClientError:
    """What botocore makes of a DynamoDB error answer with ``body`` (and no x-amz-crc32 to check it)."""
    model = ServiceModel(get_session().get_service_data("dynamodb"))
    operation = model.operation_model("PutItem")
    parsed = create_parser("json").parse(
        {"status_code": 400, "headers": {}, "body": body}, operation.output_shape
    )
    return ClientError(parsed, "PutItem")


def test_an_error_body_cut_in_the_middle_is_retryable() -> None:
    whole = (
        b'{"__type":"com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException","message":"failed"}'
    )
    for cut in (0, 10, 40, len(whole) - 12, len(whole) - 1, len(whole)):
        error = _parsed_error(whole[:cut])
        failure = classify(error, "http://cloud")
        if cut == len(whole):  # complete up to its type: a real conflict, not a fault (sync handles it)
            assert error.response["Error"]["Code"] == "ConditionalCheckFailedException"
            continue
        assert failure.retryable and "incomplete answer" in str(failure), (cut, error.response)


def test_a_full_resync_given_a_cut_empty_page_deletes_nothing(cloud: Cloud) -> None:
    device, sync = cloud.device("d1", tombstone_ttl=3600)
    for n in range(5):
        cloud.direct.Note.create({"id": f"n{n}", "text": "t"})
    sync.sync_once()
    assert len(_texts(device)) == 5
    stale = str(int((time.time() - 7200) * 1000))  # offline for longer than the tombstone lifetime
    device.client.put_sync_state(TableName=cloud.name, State={"pulledAt:Note#": stale})
    cloud.proxy.set_rates({"cut": 1.0})  # every answer: the status line alone, read as {}
    cloud.proxy.reset_bytes = (STATUS_200, STATUS_200)
    with pytest.raises(SyncError) as raised:
        sync.sync_once()
    assert raised.value.retryable and "incomplete answer" in str(raised.value)
    assert len(_texts(device)) == 5
    cloud.proxy.heal()
    result = sync.sync_once()
    assert result.in_step and result.deletes == 0 and len(_texts(device)) == 5


def test_a_full_resync_cut_short_resumes_and_removes_only_what_the_cloud_lacks(
    cloud: Cloud, monkeypatch: Any
) -> None:
    monkeypatch.setattr(pull_module, "PULL_PAGE", 2)
    device, sync = cloud.device("d1", tombstone_ttl=3600, batch_size=1)
    for n in range(6):
        cloud.direct.Note.create({"id": f"n{n}", "text": "t"})
    sync.sync_once()
    # while the device is away: one item goes (its tombstone expired too), one is added
    cloud.direct.client.delete_item(TableName=cloud.name, Key={"pk": {"S": "note#"}, "sk": {"S": "note#n1"}})
    cloud.direct.Note.create({"id": "new", "text": "t"})
    stale = str(int((time.time() - 7200) * 1000))
    device.client.put_sync_state(TableName=cloud.name, State={"pulledAt:Note#": stale})
    queries: list[dict[str, Any]] = []
    real = sync.cloud.client.query

    def cut_after_two_pages(**request: Any) -> Any:
        if request["ExpressionAttributeValues"][":s"] == {"S": "Note#"}:
            queries.append(request)
            if len(queries) == 3:  # the third page of Notes: the link goes down
                raise SyncError("cut", retryable=True)
        return real(**request)

    monkeypatch.setattr(sync.cloud.client, "query", cut_after_two_pages)
    with pytest.raises(SyncError):
        sync.sync_once()
    assert "n1" in _texts(device)  # nothing removed by a pass that did not finish
    state = device.client.get_sync_state(TableName=cloud.name)
    assert "resync:Note#" in state
    before = len(queries)
    result = sync.sync_once()
    assert "ExclusiveStartKey" in queries[before]  # it went on from the page it reached, not from the start
    assert result.in_step and result.deletes == 1
    assert sorted(_texts(device)) == ["n0", "n2", "n3", "n4", "n5", "new"]
    assert "resync:Note#" not in device.client.get_sync_state(TableName=cloud.name)
    assert sync.sync_once().deletes == 0


def test_a_conflict_whose_item_read_is_cut_keeps_the_change(monkeypatch: Any) -> None:
    cloud = Table("cut-get", dynabase.connect(":memory:"), SCHEMA, side="cloud")
    cloud.create_table()
    device = Table("cut-get", dynabase.connect(":memory:"), SCHEMA, side="device")
    device.create_table()
    sync = Sync(device, cloud, device_id="d1")
    device.Note.create({"id": "a", "text": "device"})
    conflict = ClientError(  # a conflict answer without the item (older DynamoDB Local gives none)
        {"Error": {"Code": "ConditionalCheckFailedException", "Message": "failed"}}, "PutItem"
    )
    monkeypatch.setattr(cloud.client, "put_item", lambda **request: (_ for _ in ()).throw(conflict))
    monkeypatch.setattr(cloud.client, "get_item", lambda **request: {})  # its read, cut after the status line
    with pytest.raises(SyncError) as raised:
        sync.sync_once()
    assert raised.value.retryable
    assert sync.pending() == 1 and _texts(device) == {"a": "device"}  # the change was not dropped
