"""Ioto (examples/ioto): the page's device schema on a device-side and a cloud-side table -- ``process``
honoured (Status only in the cloud, Fault synced up, Settings down to their device, its metrics entry),
Fault's enum severity, ULID ids and
ISO dates, timestamps -- and the page's music example, on every backend."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from ioto import ioto

import dynabase
from ddb_helpers import delete_table_quietly, unique_table_name
from dynabase.model import ModelDisabledError, ValidationError
from dynabase.schema import ulid_timestamp

T0 = datetime(2025, 6, 1, 8, 0, 0, tzinfo=timezone.utc)
ULID = re.compile(r"^[0-9A-HJKMNP-TV-Z]{26}$")
ISO_MS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


@pytest.fixture
def tables(client: Any):
    device = ioto.open_table(client, "device", unique_table_name("ioto-device-"), create=True)
    cloud = ioto.open_table(client, "cloud", unique_table_name("ioto-cloud-"), create=True)
    yield device, cloud
    delete_table_quietly(client, device.name)
    delete_table_quietly(client, cloud.name)


def scan(table) -> list[dict[str, Any]]:
    items = table.client.scan(TableName=table.name, ConsistentRead=True)["Items"]
    return sorted(items, key=lambda i: (i["pk"]["S"], i["sk"]["S"]))


def fault(table, device_id: str = "dev-01", severity: str = "warn", **more: Any) -> dict[str, Any]:
    return ioto.record_fault(
        table,
        device_id,
        source="sensor",
        severity=severity,
        subject="hot",
        message="temperature high",
        **more,
    )


def test_the_schema_as_the_page_gives_it():
    schema = ioto.load()
    assert schema.format == "onetable:1.1.0" and schema.version == "0.0.1"
    assert list(schema.models) == ["Status", "Fault", "Settings"]  # Settings: a dynabase addition
    assert (schema.params.iso_dates, schema.params.timestamps) == (True, True)
    status, fault_process = schema.process_for("Status"), schema.process_for("Fault")
    assert (status.enable, status.sync) == ("cloud", "none")
    assert (fault_process.enable, fault_process.sync) == ("both", "up")
    (metric,) = fault_process.metrics
    assert metric.namespace == "Embedthis/Device"
    assert metric.fields == (("temperature", "temperature"),)
    assert metric.dimensions == ({"Device": "deviceId"},)
    # the page's metric names a field the Fault model does not define: a warning, not an error
    assert [str(w) for w in schema.warnings] == [
        "process.Fault.metrics[0].fields: the model defines no field 'temperature'"
    ]
    severity = schema.model("Fault").field("severity")
    assert severity.enum == ("info", "warn", "error", "critical", "fatal") and severity.required
    assert schema.model("Fault").field("id").generate.kind == "ulid"


def test_device_side_has_no_status_and_cloud_side_has_it(tables):
    device, cloud = tables
    assert device.list_models() == ["Fault", "Settings"]
    assert cloud.list_models() == ["Status", "Fault", "Settings"]
    with pytest.raises(ModelDisabledError, match="cloud side only"):
        device.model("Status")
    with pytest.raises(ModelDisabledError):
        ioto.set_status(device, {"a": 1}, "1")
    assert scan(device) == []
    # the same physical table on both sides
    keys = [t.describe_table()["Table"]["KeySchema"] for t in (device, cloud)]
    assert (
        keys[0]
        == keys[1]
        == [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]
    )


def test_fault_keys_ids_and_dates(tables):
    device, _ = tables
    created = fault(device, at=T0)
    (item,) = scan(device)
    assert item["pk"] == {"S": "device#dev-01"}
    assert item["sk"] == {"S": f"fault#{created['id']}"}
    assert ULID.match(created["id"]) and item["id"] == {"S": created["id"]}
    assert abs(ulid_timestamp(created["id"]) / 1000 - datetime.now(timezone.utc).timestamp()) < 300  # ms
    assert item["timestamp"] == {"S": "2025-06-01T08:00:00.000Z"}  # isoDates
    assert ISO_MS.match(item["created"]["S"]) and item["created"] == item["updated"]  # timestamps
    assert item["_type"] == {"S": "Fault"}
    assert created["timestamp"] == T0 and isinstance(created["created"], datetime)
    assert set(item) == {
        "pk",
        "sk",
        "deviceId",
        "id",
        "timestamp",
        "source",
        "severity",
        "subject",
        "message",
        "_type",
        "created",
        "updated",
    }


def test_fault_validation_writes_nothing(tables):
    device, _ = tables
    with pytest.raises(ValidationError, match="severity"):
        fault(device, severity="panic")
    with pytest.raises(ValidationError, match="message"):
        device.Fault.create(
            {"deviceId": "d", "timestamp": T0, "source": "s", "severity": "info", "subject": "x"}
        )
    with pytest.raises(ValidationError):
        device.Fault.create(
            {"timestamp": T0, "source": "s", "severity": "info", "subject": "x", "message": "m"}
        )
    assert scan(device) == []
    for severity in ioto.SEVERITIES:
        fault(device, severity=severity)
    assert len(scan(device)) == 5


def test_faults_newest_first(tables):
    device, _ = tables
    subjects = []
    for i in range(4):
        subjects.append(
            ioto.record_fault(
                device,
                "dev-01",
                source="s",
                severity="info",
                subject=f"f{i}",
                message="m",
                at=T0 + timedelta(minutes=i),
            )["subject"]
        )
    fault(device, "dev-02")
    assert [f["subject"] for f in ioto.faults(device, "dev-01")] == ["f3", "f2", "f1", "f0"]
    assert [f["subject"] for f in ioto.faults(device, "dev-01", limit=2)] == ["f3", "f2"]
    assert [f["deviceId"] for f in ioto.faults(device, "dev-02")] == ["dev-02"]
    assert ioto.faults(device, "dev-01", severity="warn") == []


def test_status_in_the_cloud(tables):
    _, cloud = tables
    first = ioto.set_status(cloud, {"firmware": "2.1.0", "interval": 60}, "0.0.1")
    (item,) = scan(cloud)
    assert (item["pk"], item["sk"]) == ({"S": "status#"}, {"S": "status#"})
    assert item["parameters"] == {"M": {"firmware": {"S": "2.1.0"}, "interval": {"N": "60"}}}
    assert ISO_MS.match(item["updated"]["S"])
    second = ioto.set_status(cloud, {"firmware": "2.2.0"}, "0.0.2")
    assert second["created"] == first["created"] and second["updated"] >= first["updated"]
    assert ioto.get_status(cloud)["version"] == "0.0.2"
    assert len(scan(cloud)) == 1


def test_faults_sync_up_settings_down_and_status_stays_in_the_cloud(client: Any) -> None:
    name = unique_table_name("ioto-sync-")
    device = ioto.open_table(dynabase.connect(":memory:"), "device", name, create=True)
    cloud = ioto.open_table(client, "cloud", name, create=True)
    try:
        sync = ioto.open_sync(device, cloud, "dev-01")
        fault(device, at=T0)
        fault(device, "dev-01", severity="error", at=T0)
        ioto.set_status(cloud, {"firmware": "2.1.0"}, "0.0.1")
        ioto.set_settings(cloud, "dev-01", interval=30, logLevel="info")
        ioto.set_settings(cloud, "dev-02", interval=90)
        schema = ioto.load()
        assert ioto.synced_models(schema, "up") == ["Fault"]
        assert ioto.synced_models(schema, "down") == ["Settings"]
        result = sync.sync_once()
        assert (result.pushed, result.pulled, result.in_step) == (2, 1, True)
        cloud_faults = {f["id"]: f for f in ioto.faults(cloud, "dev-01")}
        assert cloud_faults == {
            f["id"]: f for f in ioto.faults(device, "dev-01")
        }  # ids, timestamps unchanged
        assert ioto.get_settings(device, "dev-01")["interval"] == 30
        assert ioto.get_settings(device, "dev-02") is None  # another device's settings stay away
        assert {i["_type"]["S"] for i in scan(device)} == {"Fault", "Settings"}  # no Status on the device
        assert (sync.sync_once().pushed, sync.sync_once().pulled) == (0, 0)  # again: nothing new
        removed = next(iter(cloud_faults))
        device.Fault.remove({"deviceId": "dev-01", "id": removed})
        assert sync.sync_once().deletes == 1
        assert removed not in {f["id"] for f in ioto.faults(cloud, "dev-01")}
    finally:
        device.client.close()
        delete_table_quietly(client, name)


def test_metrics_entry():
    schema = ioto.load()
    faults = [{"deviceId": "dev-01", "severity": "warn"}]
    assert ioto.metrics(schema, "Fault", faults) == []  # Fault items carry no 'temperature'
    readings = [{"deviceId": "dev-01", "temperature": 71.5}, {"deviceId": "dev-02", "temperature": 64}]
    assert ioto.metrics(schema, "Fault", readings) == [
        {
            "namespace": "Embedthis/Device",
            "metric": "temperature",
            "value": 71.5,
            "dimensions": {"Device": "dev-01"},
        },
        {
            "namespace": "Embedthis/Device",
            "metric": "temperature",
            "value": 64,
            "dimensions": {"Device": "dev-02"},
        },
    ]
    assert ioto.metrics(schema, "Status", readings) == []


def test_music_example(client):
    music = ioto.open_music(client, unique_table_name("ioto-music-"), create=True)
    try:
        ioto.add_album(music, "Abbey Road", 17)
        ioto.add_artist(music, "The Beatles", {"street": "3 Savile Row", "city": "London", "zip": "W1S 3PR"})
        moved = ioto.move_artist(music, "The Beatles", city="Liverpool")
        assert moved["address"] == {"street": "3 Savile Row", "city": "Liverpool", "zip": "W1S 3PR"}
        items = {i["_type"]["S"]: i for i in scan(music)}
        assert (items["album"]["pk"], items["album"]["sk"]) == ({"S": "album:Abbey Road"}, {"S": "album:"})
        assert (items["artist"]["pk"], items["artist"]["sk"]) == (
            {"S": "artist:The Beatles"},
            {"S": "artist:"},
        )
        assert items["artist"]["address"]["M"]["city"] == {"S": "Liverpool"}
        assert music.album.get({"name": "Abbey Road"})["songs"] == 17
    finally:
        delete_table_quietly(client, music.name)


def test_run_end_to_end_on_the_embedded_default(capsys):
    from ioto import run

    run.main()
    out = capsys.readouterr().out
    assert "device table 'ioto-device'" in out and "models ['Fault', 'Settings']" in out
    assert "(dynabase serve)" in out
    assert (
        "SyncResult(pushed=2, pulled=1, conflicts=0, deletes=0, quarantined=0, discarded=0, in_step=True)"
        in out
    )
    assert "device settings: {'interval': 30, 'logLevel': 'info'}" in out
    assert "dev-02's settings on this device: None" in out
    assert "device items after sync: ['Fault', 'Settings']" in out
    assert (
        "SyncResult(pushed=1, pulled=0, conflicts=0, deletes=1, quarantined=0, discarded=0, in_step=True)"
        in out
    )
