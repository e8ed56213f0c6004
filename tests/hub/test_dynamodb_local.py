"""The hub's cloud table on DynamoDB Local with its stream on (NEW_AND_OLD_IMAGES): devices' pushes land there
with the devices' versions, and the table's stream -- read through DynamoDB Local's own ``dynamodbstreams``
API -- fans them and the cloud's own writes out to the devices of their scope. In process (a refused push, a
hub restarted over its checkpoints, the stream disabled and enabled again), then as the ``dynabase sync-hub
--endpoint-url`` and ``dynabase sync --mqtt`` commands. Skipped only when DynamoDB Local cannot be installed
or started, or ``DYNABASE_BACKENDS`` leaves it out."""

from __future__ import annotations

import os
import re
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import dynabase
from backends import FAKE_CREDENTIALS, REGION, DynamoDBLocalError, selected_backends
from dynabase.clock import VERSION_ATTR
from dynabase.model import Table
from dynabase.streams.checkpoints import TableCheckpoints
from processes import dynabase_command

from .broker import HUB_USER, Broker
from .commands import device_db, files, hub_command, sync_command
from .conftest import SCHEMA, Fleet, eventually
from .test_faults import stream_enabled_again

#: DynamoDB Local keeps a database per access key and region: a command's are the harness's, as the fleet's
_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": FAKE_CREDENTIALS["aws_access_key_id"],
    "AWS_SECRET_ACCESS_KEY": FAKE_CREDENTIALS["aws_secret_access_key"],
}


@pytest.fixture
def endpoint(request: pytest.FixtureRequest) -> str:
    """The session's DynamoDB Local (the harness's ``dynamodb_local_endpoint``)."""
    if not os.environ.get("DYNAMODB_LOCAL_ENDPOINT") and "dynamodb-local" not in selected_backends():
        pytest.skip("DYNABASE_BACKENDS leaves out dynamodb-local")
    try:
        url: str = request.getfixturevalue("dynamodb_local_endpoint")
    except DynamoDBLocalError as error:
        pytest.skip(f"DynamoDB Local cannot be installed or started: {error}")
    return url


@pytest.fixture
def local_fleet(endpoint: str, broker: Broker, tmp_path: Path) -> Iterator[Fleet]:
    fleet = Fleet(broker, tmp_path, endpoint=endpoint)
    try:
        yield fleet
    finally:
        fleet.close()


def _fanned_out(sync: Any, what: str) -> int:
    """Wait for the hub's fan-out to reach the device (its transport's ``arrived``: no pull asked for it),
    then apply it; the changes applied."""
    eventually(sync.transport.arrived.is_set, what)
    return int(sync.receive())


def test_pushes_land_and_the_stream_fans_out_in_process(local_fleet: Fleet) -> None:
    fleet = local_fleet
    hub = fleet.start_hub()
    d1, s1 = fleet.device("dev1")
    d2, s2 = fleet.device("dev2")
    for sync in (s1, s2):  # connected and subscribed; from here on neither pulls
        assert sync.sync_once().in_step
    # a device's push lands with the device's version, and reaches the other device through the stream
    d1.Note.create({"id": "n1", "text": "from dev1"})
    result = s1.sync_once()
    assert (result.pushed, result.quarantined, result.in_step) == (1, 0, True)
    landed = fleet.cloud_item("note#", "note#n1")
    local = d1.client.get_item(TableName=fleet.name, Key={"pk": {"S": "note#"}, "sk": {"S": "note#n1"}})
    assert landed is not None and landed["text"] == {"S": "from dev1"}
    assert landed[VERSION_ATTR] == local["Item"][VERSION_ATTR]
    assert landed[VERSION_ATTR]["S"].endswith(".dev1")
    assert _fanned_out(s2, "dev1's note fanned out to dev2") >= 1
    assert d2.Note.get({"id": "n1"})["text"] == "from dev1"
    eventually(lambda: hub.fanned_out >= 1, "the hub's count (once the broker acknowledged)")
    # a cloud app's own write (PutItem to DynamoDB Local through the entity layer) reaches its device only
    eventually(s1.transport.arrived.is_set, "dev1's note, on the shared topic, back to dev1")
    assert [item["sk"] for item in s1.transport.take_changes()] == [{"S": "note#n1"}]
    before = hub.fanned_out
    fleet.cloud.Setting.create({"deviceId": "dev1", "name": "rate", "value": "5"})
    assert _fanned_out(s1, "the cloud's setting fanned out to dev1") == 1
    assert d1.Setting.get({"deviceId": "dev1", "name": "rate"})["value"] == "5"
    eventually(lambda: hub.fanned_out > before, "the hub's count")
    assert d2.Setting.get({"deviceId": "dev1", "name": "rate"}) is None
    # a push into another device's scope: refused, quarantined on the device, nothing written
    d1.Reading.create({"deviceId": "dev2", "id": "r1", "value": 1})
    result = s1.sync_once()
    assert (result.pushed, result.quarantined) == (0, 1)
    [refused] = s1.quarantine()
    assert refused["key"]["sk"] == "reading#r1" and "is not this device's" in refused["reason"]
    assert fleet.cloud_item("dev#dev2", "reading#r1") is None


def test_a_restarted_hub_fans_out_what_was_written_while_it_was_down(local_fleet: Fleet) -> None:
    """The hub's checkpoints in a table of DynamoDB Local (as ``sync-hub --endpoint-url`` keeps them): the next
    hub starts after the last record the first one fanned out, not at the stream's end."""
    fleet = local_fleet
    store_name = f"{fleet.name}-sync-hub"
    try:
        first = fleet.start_hub(checkpoints=TableCheckpoints(fleet.client, store_name))
        d1, s1 = fleet.device("dev1")
        assert s1.sync_once().in_step  # connected and subscribed; from here on it does not pull
        fleet.cloud.Setting.create({"deviceId": "dev1", "name": "a", "value": "1"})
        assert _fanned_out(s1, "the first setting, by the first hub") == 1
        fleet.stop_hub(first)
        fleet.cloud.Setting.create({"deviceId": "dev1", "name": "b", "value": "2"})  # no hub is running
        fleet.cloud.Setting.update({"deviceId": "dev1", "name": "a", "value": "3"})
        second = fleet.start_hub(checkpoints=TableCheckpoints(fleet.client, store_name))
        fanned: list[dict[str, Any]] = []

        def missed() -> bool:
            fanned.extend(s1.transport.take_changes())
            return {item["sk"]["S"] for item in fanned} == {"setting#a", "setting#b"}

        eventually(missed, "what the second hub missed, fanned out to dev1")
        # from the first hub's checkpoint on: a=1, fanned out before, is not sent again
        assert sorted(item["value"]["S"] for item in fanned) == ["2", "3"]
        eventually(lambda: second.fanned_out >= 1, "the second hub's count")
    finally:
        for hub, _, _ in fleet.hubs:  # before their checkpoint table goes
            fleet.stop_hub(hub)
        fleet.client.delete_table(TableName=store_name)


def test_the_commands_against_dynamodb_local(local_fleet: Fleet, tmp_path: Path) -> None:
    """Two ``dynabase sync-hub --endpoint-url`` processes started at once, side by side (their checkpoints in
    one table of DynamoDB Local, created by whichever comes first), and ``dynabase sync --mqtt --once`` as a
    process; dev2, in process, receives dev1's push from the hubs' fan-out."""
    fleet = local_fleet
    schema, secrets = files(tmp_path)
    args = [*hub_command(fleet, schema), "--region", REGION, "--poll", "0.1"]
    args += ["--username", HUB_USER, "--password-file", secrets[HUB_USER]]
    checkpoints = f"{fleet.name}-sync-hub"
    try:
        with (
            dynabase_command([*args, "--client-id", "hub-a"], env=_CREDENTIALS) as hub_a,
            dynabase_command([*args, "--client-id", "hub-b"], env=_CREDENTIALS) as hub_b,
        ):
            hubs = (hub_a, hub_b)
            for hub in hubs:
                hub.wait_for("sync-hub: ready")
            assert checkpoints in fleet.client.list_tables()["TableNames"]
            d2, s2 = fleet.device("dev2")
            assert s2.sync_once().in_step  # connected and subscribed; from here on it does not pull
            db = tmp_path / "dev1.db"
            device = device_db(fleet, db)
            device.Note.create({"id": "n1", "text": "from dev1"})
            device.client.close()
            fleet.cloud.Setting.create({"deviceId": "dev1", "name": "rate", "value": "5"})
            once = [*sync_command(fleet, schema, db, "dev1", secrets["dev1"]), "--once"]
            with dynabase_command(once) as child:
                assert child.process.wait(60) == 0, child.rest()
                assert "in step: pushed 1, pulled 1" in child.rest()
            note = fleet.cloud_item("note#", "note#n1")
            assert note is not None and note["text"] == {"S": "from dev1"}
            reader = Table(fleet.name, dynabase.connect(str(db)), SCHEMA, side="device")
            try:
                assert reader.Setting.get({"deviceId": "dev1", "name": "rate"})["value"] == "5"
                key = {"pk": {"S": "note#"}, "sk": {"S": "note#n1"}}
                local = reader.client.get_item(TableName=fleet.name, Key=key)["Item"]
                assert local[VERSION_ATTR] == note[VERSION_ATTR]  # landed with the version dev1 gave it
            finally:
                reader.client.close()
            assert _fanned_out(s2, "dev1's note fanned out to dev2 by a hub process") >= 1
            assert d2.Note.get({"id": "n1"})["text"] == "from dev1"
            handled = fanned = 0
            for hub in hubs:
                assert hub.stop(signal.SIGTERM) == 0
                line = re.search(r"sync-hub: stopped \((\d+) device messages, (\d+) fanned out\)", hub.rest())
                assert line is not None, hub.rest()
                handled, fanned = handled + int(line[1]), fanned + int(line[2])
            assert handled >= 2 and fanned >= 1  # dev1's hello, push and pull went to one hub or the other
    finally:
        if checkpoints in fleet.client.list_tables()["TableNames"]:
            fleet.client.delete_table(TableName=checkpoints)


def test_a_stream_enabled_again_is_followed_on_dynamodb_local(local_fleet: Fleet) -> None:
    stream_enabled_again(local_fleet)


def test_sync_hub_names_a_table_without_its_stream(local_fleet: Fleet, tmp_path: Path) -> None:
    fleet = local_fleet
    schema, secrets = files(tmp_path)
    fleet.client.update_table(TableName=fleet.name, StreamSpecification={"StreamEnabled": False})
    args = [*hub_command(fleet, schema), "--region", REGION]
    args += ["--username", HUB_USER, "--password-file", secrets[HUB_USER]]
    with dynabase_command(args, env=_CREDENTIALS) as hub:
        assert hub.process.wait(60) == 1
        assert f"dynabase sync-hub: table {fleet.name} has no stream enabled: enable one" in hub.rest()
