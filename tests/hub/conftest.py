"""Fixtures of the MQTT sync tests: a real Mosquitto, a cloud table with a stream, a hub, devices."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import dynabase
from backends import boto3_client
from dynabase.hub import HubCore
from dynabase.hub.mqtt import MqttHub
from dynabase.model import Table
from dynabase.streams.checkpoints import CheckpointStore
from dynabase.sync import Sync, wire
from dynabase.sync.mqtt import MqttCloud

from .broker import HUB_USER, Broker, ensure_mosquitto

SCHEMA: dict[str, Any] = {
    "format": "onetable:1.1.0",
    "version": "0.0.1",
    "indexes": {"primary": {"hash": "pk", "sort": "sk"}},
    "params": {"isoDates": True, "timestamps": True},
    "process": {
        "Fault": {"sync": "up", "scope": "${deviceId}"},
        "Setting": {"sync": "down", "scope": "${deviceId}"},
        "Reading": {"sync": "both", "scope": "${deviceId}"},
        "Note": {"sync": "both"},
        "Task": {"sync": "both", "scope": "${deviceId}"},
        "Status": {"enable": "cloud"},
    },
    "models": {
        "Fault": {
            "pk": {"type": "string", "value": "dev#${deviceId}"},
            "sk": {"type": "string", "value": "fault#${id}"},
            "deviceId": {"type": "string", "required": True},
            "id": {"type": "string", "generate": "ulid"},
            "message": {"type": "string"},
        },
        "Setting": {
            "pk": {"type": "string", "value": "dev#${deviceId}"},
            "sk": {"type": "string", "value": "setting#${name}"},
            "deviceId": {"type": "string", "required": True},
            "name": {"type": "string", "required": True},
            "value": {"type": "string"},
        },
        "Reading": {
            "pk": {"type": "string", "value": "dev#${deviceId}"},
            "sk": {"type": "string", "value": "reading#${id}"},
            "deviceId": {"type": "string", "required": True},
            "id": {"type": "string", "required": True},
            "value": {"type": "number"},
        },
        "Note": {
            "pk": {"type": "string", "value": "note#"},
            "sk": {"type": "string", "value": "note#${id}"},
            "id": {"type": "string", "required": True},
            "text": {"type": "string"},
            "color": {"type": "string"},
        },
        "Task": {  # its scope is not in its key: who holds a task is a field
            "pk": {"type": "string", "value": "task#"},
            "sk": {"type": "string", "value": "task#${id}"},
            "id": {"type": "string", "required": True},
            "deviceId": {"type": "string", "required": True},
        },
        "Status": {
            "pk": {"type": "string", "value": "status#"},
            "sk": {"type": "string", "value": "status#"},
            "state": {"type": "string"},
        },
    },
}
DEVICES = ("dev1", "dev2", "dev3")
#: a hang guard for waits on something that happens in milliseconds
PATIENCE = 30.0


def password(name: str) -> str:
    return f"secret-{name}"


def eventually(check: Callable[[], Any], what: str, timeout: float = PATIENCE) -> Any:
    """The first true value of ``check()``, polled (a hang guard, not a speed)."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout:g} s")
        time.sleep(0.02)


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    missing = ensure_mosquitto()
    if missing:
        pytest.fail(missing)
    users = {HUB_USER: password(HUB_USER), **{d: password(d) for d in DEVICES}}
    directory = tmp_path / "broker"
    directory.mkdir()
    broker = Broker(directory, users)
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


class Fleet:
    """A cloud table (stream on), a hub over the broker, devices over MQTT. The table is in an embedded
    database file, or behind ``endpoint`` (DynamoDB Local, say: boto3 clients with the harness's fake
    credentials and region)."""

    def __init__(
        self,
        broker: Broker,
        directory: Path,
        schema: dict[str, Any] = SCHEMA,
        endpoint: str | None = None,
    ) -> None:
        self.broker = broker
        self.directory = directory
        self.schema = schema
        self.endpoint = endpoint
        self.name = f"app{uuid.uuid4().hex[:6]}"
        self.cloud_path = directory / "cloud.db"
        if endpoint is None:
            self.client = dynabase.connect(str(self.cloud_path))
            self.streams = self.client.streams()
        else:
            self.client = boto3_client("dynamodb", endpoint)
            self.streams = boto3_client("dynamodbstreams", endpoint)
        self.cloud = Table(self.name, self.client, schema, side="cloud")
        self.cloud.create_table(stream="NEW_AND_OLD_IMAGES")
        self.syncs: list[Sync] = []
        self.hubs: list[tuple[MqttHub, threading.Event, threading.Thread]] = []

    def start_hub(self, checkpoints: CheckpointStore | None = None, **options: Any) -> MqttHub:
        """A hub in a thread (``options``: its core's), its stream checkpoints in ``checkpoints`` (default: in
        memory)."""
        core = HubCore(self.cloud, **options)
        hub = MqttHub(
            core,
            self.broker.url,
            streams=self.streams,
            checkpoints=checkpoints,
            username=HUB_USER,
            password=password(HUB_USER),
            client_id=f"hub-{len(self.hubs)}",
            poll_interval=0.05,
        )
        stop, ready = threading.Event(), threading.Event()
        thread = threading.Thread(target=hub.run, args=(stop, ready.set), daemon=True)
        thread.start()
        assert ready.wait(PATIENCE), "the hub did not get ready"
        self.hubs.append((hub, stop, thread))
        return hub

    def stop_hub(self, hub: MqttHub) -> None:
        """Stop a hub :meth:`start_hub` started (its checkpoints saved, its connection closed)."""
        for running, stop, thread in self.hubs:
            if running is hub:
                stop.set()
                thread.join(PATIENCE)
                assert not thread.is_alive(), "the hub did not stop"

    def device(
        self, device_id: str, schema: dict[str, Any] | None = None, db: str = ":memory:", **options: Any
    ) -> tuple[Table, Sync]:
        table = Table(self.name, dynabase.connect(db), schema or self.schema, side="device")
        if not table.exists():
            table.create_table()
        cloud = MqttCloud(
            self.broker.url,
            table=self.name,
            device_id=device_id,
            username=device_id,
            password=password(device_id),
            timeout=options.pop("timeout", 10.0),
            max_payload=options.pop("max_payload", wire.MAX_PAYLOAD),
        )
        sync = Sync(table, cloud, **options)
        self.syncs.append(sync)
        return table, sync

    def cloud_item(self, pk: str, sk: str) -> dict[str, Any] | None:
        key = {"pk": {"S": pk}, "sk": {"S": sk}}
        item: dict[str, Any] | None = self.client.get_item(
            TableName=self.name, Key=key, ConsistentRead=True
        ).get("Item")
        return item

    def close(self) -> None:
        for sync in self.syncs:
            sync.transport.close()
        for _, stop, thread in self.hubs:
            stop.set()
            thread.join(PATIENCE)
        if self.endpoint is not None:  # a server that outlives the test: leave nothing behind in it
            self.client.delete_table(TableName=self.name)
            self.client.close()
            self.streams.close()


@pytest.fixture
def fleet(broker: Broker, tmp_path: Path) -> Iterator[Fleet]:
    fleet = Fleet(broker, tmp_path)
    try:
        yield fleet
    finally:
        fleet.close()


@pytest.fixture
def watching() -> Iterator[Callable[[Sync], None]]:
    """``watch(sync)``: run the sync loop in a thread until the test ends."""
    runs: list[tuple[threading.Event, threading.Thread]] = []

    def watch(sync: Sync) -> None:
        stop = threading.Event()
        thread = threading.Thread(target=sync.run, kwargs={"interval": 0.2, "stop": stop}, daemon=True)
        thread.start()
        runs.append((stop, thread))

    yield watch
    for stop, thread in runs:
        stop.set()
        thread.join(PATIENCE)
