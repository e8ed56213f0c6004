"""Faults of sync over MQTT: the broker restarts mid-sync; a hub dies after a write and before its answer (the
device retries until answered: nothing lost, nothing applied twice); a busy device does not hold up others."""

from __future__ import annotations

import threading
from typing import Any

from dynabase.clock import VERSION_ATTR
from dynabase.hub.core import HubCore
from dynabase.streams.checkpoints import TableCheckpoints
from dynabase.sync import wire

from .conftest import Fleet, eventually


def test_a_broker_restart_mid_sync_loses_nothing(fleet: Fleet, watching: Any) -> None:
    fleet.start_hub()
    d1, s1 = fleet.device("dev1")
    d2, s2 = fleet.device("dev2")
    for sync in (s1, s2):
        sync.sync_once()
        watching(sync)
    d1.Note.create({"id": "before", "text": "1"})
    eventually(lambda: d2.Note.get({"id": "before"}), "the first note on dev2")
    fleet.broker.stop()
    d1.Note.create({"id": "during", "text": "2"})  # pushed once the broker is back
    fleet.cloud.Setting.create({"deviceId": "dev2", "name": "rate", "value": "7"})  # fanned out to no one
    fleet.broker.start()  # a new broker process: no session survives (persistence off)
    eventually(lambda: fleet.cloud_item("note#", "note#during"), "dev1's note in the cloud")
    eventually(lambda: d2.Note.get({"id": "during"}), "dev1's note on dev2")
    # dev2 missed the fan-out of its setting while the broker was down: its pull after reconnecting finds it
    eventually(lambda: d2.Setting.get({"deviceId": "dev2", "name": "rate"}), "dev2's setting")
    eventually(lambda: s1.pending() == 0, "dev1 in step")


def test_a_hub_dying_between_write_and_answer(fleet: Fleet, watching: Any) -> None:
    """The first hub writes the change, then dies before it answers; the device gets no answer, asks again,
    and the second hub finds the version there already: landed once, acknowledged, nothing applied twice."""
    first = fleet.start_hub()
    died = threading.Event()
    real = HubCore.handle

    def write_then_die(device: str, payload: Any) -> list[Any]:
        answers = real(first.core, device, payload)  # the write happens
        if wire.loads(payload)["op"] != "push":
            return answers
        if not died.is_set():
            died.set()
            first.link.stop()  # gone before answering: like kill -9, without a goodbye
        return []

    first.core.handle = write_then_die  # type: ignore[method-assign]
    d1, s1 = fleet.device("dev1", timeout=2.0)
    d1.Note.create({"id": "n1", "text": "once"})
    watching(s1)
    eventually(died.is_set, "the first hub's write")
    landed = eventually(lambda: fleet.cloud_item("note#", "note#n1"), "the write in the cloud")
    assert s1.pending() == 1  # not acknowledged: no answer came
    fleet.start_hub()
    eventually(lambda: s1.pending() == 0, "the change acknowledged by the second hub")
    assert fleet.cloud_item("note#", "note#n1")[VERSION_ATTR] == landed[VERSION_ATTR]
    assert s1.status().quarantined == []


def test_a_busy_device_does_not_hold_up_the_others(fleet: Fleet) -> None:
    fleet.start_hub()
    d1, s1 = fleet.device("dev1")
    d2, s2 = fleet.device("dev2")
    for i in range(300):
        d1.Note.create({"id": f"bulk{i}", "text": "x" * 200})
    busy = threading.Thread(target=s1.sync_once, daemon=True)
    busy.start()
    d2.Note.create({"id": "small", "text": "y"})
    assert s2.sync_once().pushed == 1  # answered while dev1's pushes are in flight
    busy.join(60)
    assert s1.pending() == 0 and fleet.cloud_item("note#", "note#bulk299") is not None


def test_two_hubs_side_by_side(fleet: Fleet, watching: Any) -> None:
    """The broker gives each push to one of the two (a shared subscription); both read the stream, so a device
    may get a change twice: it applies it once."""
    hubs = [fleet.start_hub(), fleet.start_hub()]
    devices = [fleet.device(f"dev{i}") for i in (1, 2, 3)]
    for _, sync in devices:
        sync.sync_once()
        watching(sync)
    for i in range(20):
        devices[i % 2][0].Note.create({"id": f"n{i}", "text": str(i)})
    third = devices[2][0]
    eventually(lambda: len(third.Note.find({})) == 20, "every note on dev3")
    eventually(lambda: all(sync.pending() == 0 for _, sync in devices), "every device in step")
    assert all(hub.handled > 0 for hub in hubs)  # both took pushes


def test_failing_stream_reads_are_retried_and_the_fan_out_goes_on(fleet: Fleet) -> None:
    """The stream's reads fail for a while (here: the table of the hub's checkpoints is gone); the hub goes on
    answering devices, and fans out again once its reads work."""
    store = f"{fleet.name}-sync-hub"
    hub = fleet.start_hub(checkpoints=TableCheckpoints(fleet.client, store))
    d1, s1 = fleet.device("dev1")
    assert s1.sync_once().in_step  # connected and subscribed; from here on it does not pull
    fleet.client.delete_table(TableName=store)
    # a record to read: the hub fans it out, then cannot save its checkpoint (it reads its own position from
    # the store once, so an idle hub would not notice the missing table)
    fleet.cloud.Setting.create({"deviceId": "dev1", "name": "early", "value": "1"})
    eventually(lambda: hub.stream_failures >= 1, "a failed read of the stream")
    d1.Note.create({"id": "n1", "text": "while the reads fail"})
    assert s1.sync_once().pushed == 1  # devices are answered meanwhile
    TableCheckpoints(fleet.client, store)  # back (empty): the reader goes on from where it got to
    fleet.cloud.Setting.create({"deviceId": "dev1", "name": "rate", "value": "5"})

    def fanned_out() -> Any:  # by the fan-out alone: the device does not pull
        s1.receive()
        return d1.Setting.get({"deviceId": "dev1", "name": "rate"})

    assert eventually(fanned_out, "the fan-out after the reads work again")["value"] == "5"
    eventually(lambda: hub.fanned_out >= 1, "the hub's count")


def stream_enabled_again(fleet: Fleet) -> None:
    """The table's stream is disabled and enabled again (a new stream, another ARN) under a running hub: the
    hub reads the old stream to its end, then the new one from its start; a device receives what each held."""
    hub = fleet.start_hub()
    first = hub.consumer.stream_arn
    d1, s1 = fleet.device("dev1")
    assert s1.sync_once().in_step  # connected and subscribed; from here on it does not pull
    fleet.cloud.Setting.create({"deviceId": "dev1", "name": "a", "value": "1"})  # in the first stream
    fleet.client.update_table(TableName=fleet.name, StreamSpecification={"StreamEnabled": False})
    fleet.client.update_table(
        TableName=fleet.name,
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
    )
    fleet.cloud.Setting.create({"deviceId": "dev1", "name": "b", "value": "2"})  # in the second
    fanned: list[dict[str, Any]] = []

    def both() -> bool:
        fanned.extend(s1.transport.take_changes())
        return {item["sk"]["S"] for item in fanned} >= {"setting#a", "setting#b"}

    eventually(both, "both settings fanned out to dev1")
    assert (
        hub.consumer.stream_arn
        == fleet.client.describe_table(TableName=fleet.name)["Table"]["LatestStreamArn"]
    )
    assert hub.consumer.stream_arn != first


def test_a_stream_enabled_again_is_followed(fleet: Fleet) -> None:
    stream_enabled_again(fleet)
