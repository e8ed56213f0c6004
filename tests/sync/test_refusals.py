"""Changes the cloud refuses, device writes the cloud owns, and edits of items deleted while a device was away:
none of them stops the rest of the sync, none vanishes without a word, none resurrects a deleted item."""

from __future__ import annotations

import logging
import time
from typing import Any

import pytest
from botocore.exceptions import ClientError

import dynabase
from dynabase.clock import SEQ_ATTR, VERSION_ATTR, make_seq, make_version
from dynabase.model import Table
from dynabase.model.errors import ModelDisabledError
from dynabase.types import MAX_ITEM_SIZE

from .test_sync import SCHEMA as BASE
from .test_sync import World, world_fixture

SCHEMA = {
    **BASE,
    "process": {
        "Reading": {"sync": "up", "scope": "${deviceId}"},
        "Setting": {"sync": "down", "scope": "${deviceId}"},
        "Note": {"sync": "both"},
    },
    "models": {
        "Reading": {
            "pk": {"type": "string", "value": "reading#"},
            "sk": {"type": "string", "value": "reading#${id}"},
            "id": {"type": "string", "required": True},
            "deviceId": {"type": "string"},
            "value": {"type": "string"},
        },
        "Setting": BASE["models"]["Setting"],
        "Note": BASE["models"]["Note"],
    },
}


world = world_fixture(SCHEMA)


def _raw_reading(device: Table, id: str, **extra: Any) -> None:
    item = {"pk": {"S": "reading#"}, "sk": {"S": f"reading#{id}"}, "_type": {"S": "Reading"}, "id": {"S": id}}
    device.client.put_item(TableName=device.name, Item={**item, **{k: {"S": v} for k, v in extra.items()}})


# -- 5. one refused change does not block the device ----------------------------------------------------------


def test_a_change_the_cloud_refuses_is_quarantined_and_the_rest_syncs(world: World) -> None:
    d1, s1 = world.device("dev1")
    _raw_reading(d1, "noscope", value="v")  # no deviceId: its scope cannot be rendered
    _raw_reading(
        d1, "huge", deviceId="x" * 3000
    )  # a 3000-byte scope: over the sync index's 2048-byte hash key
    d1.Reading.create({"id": "ok", "deviceId": "dev1", "value": "1"})
    world.cloud.Note.create({"id": "n1", "text": "from the cloud"})
    result = s1.sync_once()
    assert (result.pushed, result.pulled, result.quarantined) == (1, 1, 2)
    assert result.in_step  # what is set aside is not pending
    assert world.cloud_item("reading#", "reading#ok") is not None
    assert d1.Note.get({"id": "n1"})["text"] == "from the cloud"
    status = s1.status()
    assert status.pending == 0
    reasons = {q["key"]["sk"]: q for q in status.quarantined}
    assert set(reasons) == {"reading#noscope", "reading#huge"}
    assert reasons["reading#noscope"]["model"] == "Reading"
    assert "process.Reading.scope '${deviceId}' needs deviceId" in reasons["reading#noscope"]["reason"]
    assert reasons["reading#huge"]["reason"].startswith("ValidationException: ")
    # the next rounds do not try them again, and go on with new changes
    d1.Reading.create({"id": "later", "deviceId": "dev1"})
    again = s1.sync_once()
    assert (again.pushed, again.quarantined) == (1, 0)
    # a retry pushes them once more (refused again: the item did not change); a drop forgets the change
    assert s1.retry([{"pk": "reading#", "sk": "reading#noscope"}]) == 1
    assert s1.sync_once().quarantined == 1
    assert s1.drop() == 2
    assert s1.status().quarantined == [] and s1.pending() == 0
    assert d1.Reading.get({"id": "huge"}) is not None  # the device keeps its item
    # a new write of a set-aside key is a new change: pushed as any other
    _raw_reading(d1, "noscope", deviceId="dev1")
    assert s1.sync_once().pushed == 1
    assert world.cloud_item("reading#", "reading#noscope")["deviceId"] == {"S": "dev1"}


def test_quarantine_keys_are_checked(world: World) -> None:
    _, s1 = world.device("dev1")
    with pytest.raises(ValueError, match=r"primary key: \{pk, sk\}"):
        s1.retry([{"pk": "reading#"}])
    assert s1.retry([{"pk": "reading#", "sk": "reading#nothing"}]) == 0


def test_a_write_without_room_for_the_sync_metadata_is_refused_at_the_write(world: World) -> None:
    d1, s1 = world.device("dev1")
    base = {"pk": {"S": "reading#"}, "sk": {"S": "reading#big"}, "_type": {"S": "Reading"}}
    base["deviceId"] = {"S": "dev1"}
    overhead = dynabase.types.item_size({**base, "value": {"S": ""}})
    fits = {**base, "value": {"S": "v" * (MAX_ITEM_SIZE - overhead)}}  # exactly 400 KB: the engine takes it
    assert dynabase.types.item_size(fits) == MAX_ITEM_SIZE
    with pytest.raises(ClientError, match="bytes of sync metadata") as refused:
        d1.client.put_item(TableName=d1.name, Item=fits)
    assert refused.value.response["Error"]["Code"] == "ValidationException"
    assert s1.pending() == 0
    room = MAX_ITEM_SIZE - overhead - d1.sync_plan.metadata_reserve("dev1")
    d1.client.put_item(TableName=d1.name, Item={**base, "value": {"S": "v" * room}})
    result = s1.sync_once()
    assert (result.pushed, result.quarantined) == (1, 0)  # what the device takes, the cloud takes
    # models that do not sync have the whole 400 KB
    plain = {"pk": {"S": "x"}, "sk": {"S": "y"}, "_type": {"S": "Other"}}
    plain["value"] = {"S": "v" * (MAX_ITEM_SIZE - dynabase.types.item_size({**plain, "value": {"S": ""}}))}
    d1.client.put_item(TableName=d1.name, Item=plain)


# -- 7. device writes of a model the cloud owns --------------------------------------------------------------


def test_the_entity_layer_refuses_device_writes_of_a_down_model(world: World) -> None:
    d1, s1 = world.device("dev1")
    world.cloud.Setting.create({"deviceId": "dev1", "name": "rate", "value": "5"})
    s1.sync_once()
    for write in (
        lambda: d1.Setting.create({"deviceId": "dev1", "name": "mine", "value": "1"}),
        lambda: d1.Setting.update({"deviceId": "dev1", "name": "rate", "value": "9"}),
        lambda: d1.Setting.upsert({"deviceId": "dev1", "name": "rate", "value": "9"}),
        lambda: d1.Setting.remove({"deviceId": "dev1", "name": "rate"}),
    ):
        with pytest.raises(ModelDisabledError, match=r"process\.Setting\.sync is 'down'"):
            write()
    assert d1.Setting.get({"deviceId": "dev1", "name": "rate"})["value"] == "5"  # reads still work


def test_raw_device_writes_of_a_down_model_are_undone_and_reported(world: World, caplog: Any) -> None:
    d1, s1 = world.device("dev1")
    world.cloud.Setting.create({"deviceId": "dev1", "name": "rate", "value": "5"})
    s1.sync_once()
    key = {"pk": {"S": "dev#dev1"}, "sk": {"S": "setting#rate"}}
    d1.client.update_item(
        TableName=d1.name,
        Key=key,
        UpdateExpression="SET #v = :v",
        ExpressionAttributeNames={"#v": "value"},
        ExpressionAttributeValues={":v": {"S": "9"}},
    )
    mine = {"pk": {"S": "dev#dev1"}, "sk": {"S": "setting#mine"}, "_type": {"S": "Setting"}}
    d1.client.put_item(TableName=d1.name, Item={**mine, "deviceId": {"S": "dev1"}, "name": {"S": "mine"}})
    with caplog.at_level(logging.WARNING, logger="dynabase.sync"):
        result = s1.sync_once()
    assert (result.discarded, result.pushed, result.deletes) == (2, 0, 0)
    assert "process.Setting.sync is down" in caplog.text
    assert d1.Setting.get({"deviceId": "dev1", "name": "rate"})["value"] == "5"  # the cloud's again
    assert d1.Setting.get({"deviceId": "dev1", "name": "mine"}) is None
    assert world.cloud_item("dev#dev1", "setting#mine") is None
    assert s1.pending() == 0 and s1.sync_once().discarded == 0


def test_the_cli_lists_retries_and_drops_refused_changes(
    tmp_path: Any, capsys: Any, monkeypatch: Any
) -> None:
    import json

    from backends import boto3_client
    from dynabase.cli.main import main
    from dynabase.server import run_in_thread

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "fake")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "fake")
    engine = dynabase.Engine(":memory:")
    url, stop = run_in_thread(engine)
    try:
        Table("clitable", boto3_client("dynamodb", url), SCHEMA, side="cloud").create_table()
        schema, db = tmp_path / "schema.json", tmp_path / "device.db"
        schema.write_text(json.dumps(SCHEMA))
        device = Table("clitable", dynabase.connect(str(db)), SCHEMA, side="device")
        device.create_table()
        _raw_reading(device, "a")
        _raw_reading(device, "b")
        device.client.close()
        common = [str(schema), "--db", str(db), "--table", "clitable", "--endpoint-url", url]
        assert main(["sync", *common, "--device-id", "dev1", "--once"]) == 0  # the rest is in step
        assert "2 changes the cloud refused are set aside" in capsys.readouterr().err
        assert main(["sync", "status", *common]) == 0
        out = capsys.readouterr().out
        assert "quarantined:     2" in out
        assert 'Reading {"pk": "reading#", "sk": "reading#a"}' in out and "needs deviceId" in out
        assert main(["sync", "quarantine", *common, "--json"]) == 0
        listed = json.loads(capsys.readouterr().out)
        assert [e["key"]["sk"] for e in listed] == ["reading#a", "reading#b"]
        key = json.dumps(listed[0]["key"])
        assert main(["sync", "quarantine", *common, "--retry", key]) == 0
        assert "1 changes will be pushed again" in capsys.readouterr().err
        assert main(["sync", "quarantine", *common, "--drop", '{"pk": "reading#", "sk": "nope"}']) == 1
        assert "1 of the keys given are not in the quarantine" in capsys.readouterr().err
        assert main(["sync", "quarantine", *common, "--drop-all"]) == 0
        assert main(["sync", "quarantine", *common]) == 0
        assert capsys.readouterr().out.startswith("0 changes the cloud refused")
        assert main(["sync", "status", *common, "--retry-all"]) == 2  # a usage error
        assert "go with: quarantine SCHEMA" in capsys.readouterr().err
        with pytest.raises(SystemExit):
            main(["sync", "quarantine", *common, "--retry", "pk=1"])
        assert "--retry: not JSON" in capsys.readouterr().err
    finally:
        stop()
        engine.close()


# -- 4. an edit of an item deleted while the device was away -----------------------------------------------------

DAY = 86400.0


def _sweep(world: World, pk: str, sk: str) -> None:
    """What DynamoDB's TTL does to an expired tombstone."""
    world.cloud_client.delete_item(TableName=world.name, Key={"pk": {"S": pk}, "sk": {"S": sk}})


def test_an_old_offline_edit_of_an_item_deleted_meanwhile_is_not_resurrected(caplog: Any) -> None:
    """B edits an item offline; later A deletes it; the tombstone expires and is swept; B comes back: its edit
    lost to the delete, so it is discarded and reported, and the item stays deleted everywhere."""
    clock = {"a": time.time() - 50 * DAY, "b": time.time() - 50 * DAY}
    world = World(dynabase.connect(":memory:"), SCHEMA)  # no Date header: the devices' clocks are the time
    try:
        a, sa = world.device("devA", clock=lambda: clock["a"])
        b, sb = world.device("devB", clock=lambda: clock["b"])
        a.Note.create({"id": "x", "text": "v1"})
        a.Reading.create({"id": "r", "deviceId": "devA", "value": "1"})
        sa.sync_once()
        sb.sync_once()
        clock["b"] += 10 * DAY  # B, offline, edits
        b.Note.update({"id": "x", "text": "B's offline edit"})
        clock["a"] += 11 * DAY  # A deletes later, and syncs
        a.Note.remove({"id": "x"})
        assert sa.sync_once().in_step
        a.Reading.update({"id": "r", "value": "old edit"})  # an up-only item, edited before the cloud lost it
        _sweep(world, "note#", "note#x")  # the tombstone expires (30 days) and is swept
        _sweep(world, "reading#", "reading#r")  # (an up-only item removed in the cloud)
        clock["a"] = clock["b"] = time.time()  # 39 days on
        a.Reading.create({"id": "later", "deviceId": "devA"})  # a genuinely new item
        with caplog.at_level(logging.WARNING, logger="dynabase.sync"):
            result = sb.sync_once()
        assert (result.discarded, result.pushed) == (1, 0)
        assert "older than the delete" in caplog.text
        assert world.cloud_item("note#", "note#x") is None
        assert b.Note.get({"id": "x"}) is None and sb.pending() == 0
        assert a.Note.get({"id": "x"}) is None
        assert (sa.sync_once().discarded, sa.status().pending) == (1, 0)
        assert a.Note.get({"id": "x"}) is None
        assert world.cloud_item("reading#", "reading#r") is None  # not resurrected either
        assert a.Reading.get({"id": "r"})["value"] == "old edit"  # an up model's device keeps its copy
        assert world.cloud_item("reading#", "reading#later") is not None
    finally:
        world.close()


def test_an_edit_newer_than_a_swept_delete_is_pushed(world: World) -> None:
    """The cloud lost the item, but the edit is younger than any delete whose tombstone could be gone: last
    writer wins, the item comes back (on every backend: the revalidating condition, then the re-push)."""
    d1, s1 = world.device("dev1")
    d2, s2 = world.device("dev2")
    d1.Note.create({"id": "x", "text": "v1"})
    s1.sync_once()
    s2.sync_once()
    d2.Note.update({"id": "x", "text": "edited"})
    _sweep(world, "note#", "note#x")
    result = s2.sync_once()
    assert (result.pushed, result.discarded) == (1, 0)
    assert world.cloud_item("note#", "note#x")["text"] == {"S": "edited"}
    s1.sync_once()
    assert d1.Note.get({"id": "x"})["text"] == "edited"


def test_a_full_resync_takes_the_cloud_item_even_when_it_went_back(world: World) -> None:
    """The cloud forgot a newer version (its tombstone was swept, then an older create landed: docs/sync.md):
    a device that resyncs in full takes what the cloud holds, instead of keeping its newer copy forever."""
    d1, s1 = world.device("dev1", tombstone_ttl=3600)
    world.cloud.Note.create({"id": "x", "text": "newer"})
    s1.sync_once()
    held = world.cloud_item("note#", "note#x")
    older = {**held, "text": {"S": "older"}, VERSION_ATTR: {"S": make_version(1_000, 0, "dev9")}}
    older[SEQ_ATTR] = {"S": make_seq(int(time.time() * 1000), "dev9")}
    world.cloud_client.put_item(TableName=world.name, Item=older)
    s1.sync_once()
    assert d1.Note.get({"id": "x"})["text"] == "newer"  # an incremental pull keeps the newer version
    stale = str(int((time.time() - 7200) * 1000))
    d1.client.put_sync_state(TableName=world.name, State={"pulledAt:Note#": stale})
    s1.sync_once()
    assert d1.Note.get({"id": "x"})["text"] == "older"  # in step with the cloud again


def test_deleting_a_refused_item_settles_its_change(world: World) -> None:
    d1, s1 = world.device("dev1")
    _raw_reading(d1, "noscope")
    assert s1.sync_once().quarantined == 1
    d1.client.delete_item(TableName=d1.name, Key={"pk": {"S": "reading#"}, "sk": {"S": "reading#noscope"}})
    result = s1.sync_once()  # a new change: the delete of an item the cloud never had
    assert (result.pushed, result.quarantined) == (0, 0)
    assert s1.status().quarantined == [] and s1.pending() == 0
    assert world.cloud_item("reading#", "reading#noscope") is None


def _line_with(stream: Any, text: str, seconds: float) -> str:
    """The first line of ``stream`` that contains ``text`` (a process's ready line), within ``seconds``."""
    import select

    deadline = time.monotonic() + seconds
    seen = []
    while time.monotonic() < deadline:
        ready, _, _ = select.select([stream], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        line = stream.readline()
        if not line:
            break
        seen.append(line)
        if text in line:
            return line
    raise AssertionError(f"no line with {text!r} in {seconds} s: {''.join(seen)}")


def test_watch_goes_on_past_a_refused_change(tmp_path: Any, monkeypatch: Any) -> None:
    """Before, the refused change stopped every round and ``--watch`` exited 1 (a crash loop under systemd)."""
    import json
    import os
    import signal
    import subprocess
    import sys
    from pathlib import Path

    from backends import boto3_client
    from dynabase.server import run_in_thread

    engine = dynabase.Engine(":memory:")
    url, stop = run_in_thread(engine)
    process = None
    try:
        monkeypatch.setenv("AWS_ACCESS_KEY_ID", "fake")
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "fake")
        cloud = Table("watchtable", boto3_client("dynamodb", url), SCHEMA, side="cloud")
        cloud.create_table()
        schema, db = tmp_path / "schema.json", tmp_path / "device.db"
        schema.write_text(json.dumps(SCHEMA))
        device = Table("watchtable", dynabase.connect(str(db)), SCHEMA, side="device")
        device.create_table()
        _raw_reading(device, "poison")  # no deviceId
        device.Reading.create({"id": "fine", "deviceId": "w1"})
        device.client.close()
        src = Path(__file__).resolve().parents[2] / "src"
        command = [
            sys.executable,
            "-c",
            "from dynabase.cli.main import main; raise SystemExit(main())",
            "sync",
        ]
        command += [str(schema), "--db", str(db), "--table", "watchtable", "--endpoint-url", url]
        process = subprocess.Popen(
            [*command, "--watch", "--interval", "0.2", "--device-id", "w1"],
            env={**os.environ, "PYTHONPATH": str(src)},
            stderr=subprocess.PIPE,
            text=True,
        )
        assert "reading#poison" in _line_with(process.stderr, "refused, quarantined", 30)
        assert cloud.Reading.get({"id": "fine"}) is not None  # pushed in the same round
        process.send_signal(signal.SIGINT)  # by PID: the process this test started
        assert process.wait(20) == 0
    finally:
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()
        stop()
        engine.close()
