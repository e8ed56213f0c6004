"""Engine change capture: every write path queues the change in its own transaction; acks never lose a newer
write; pulled changes apply without capture and by version."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

import dynabase
from backends import boto3_client
from dynabase.clock import VERSION_ATTR, make_version
from dynabase.server import run_in_thread

TABLE = "devtable"


def _create(client: Any, enable: bool = True, **capture: Any) -> None:
    client.create_table(
        TableName=TABLE,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    if enable:
        client.enable_change_capture(TableName=TABLE, **capture)


def _item(pk: str, sk: str = "x", **extra: Any) -> dict:
    return {"pk": {"S": pk}, "sk": {"S": sk}, **{k: {"S": v} for k, v in extra.items()}}


def _pending(client: Any) -> dict[str, dict]:
    changes = client.read_changes(TableName=TABLE, Limit=1000)["Changes"]
    return {c["Key"]["pk"]["S"]: c for c in changes}


@pytest.fixture
def client() -> Any:
    client = dynabase.connect(":memory:", ttl_sweep_seconds=None)
    _create(client)
    yield client
    client.close()


def test_put_update_delete_coalesce_per_key(client: Any) -> None:
    client.put_item(TableName=TABLE, Item=_item("a", v="1"))
    client.update_item(
        TableName=TABLE,
        Key=_item("a"),
        UpdateExpression="SET v = :v",
        ExpressionAttributeValues={":v": {"S": "2"}},
    )
    client.put_item(TableName=TABLE, Item=_item("b", v="1"))
    client.delete_item(TableName=TABLE, Key=_item("b"))
    pending = _pending(client)
    assert set(pending) == {"a", "b"}
    assert pending["a"]["Item"]["v"] == {"S": "2"}
    assert "Item" not in pending["b"] and pending["b"]["OldItem"]["v"] == {"S": "1"}
    assert pending["b"]["Seq"] > pending["a"]["Seq"]
    assert client.read_changes(TableName=TABLE)["Pending"] == 2


def test_unchanged_write_and_failed_condition_queue_nothing(client: Any) -> None:
    client.put_item(TableName=TABLE, Item=_item("a", v="1"))
    first = _pending(client)["a"]["Seq"]
    client.put_item(TableName=TABLE, Item=_item("a", v="1"))
    with pytest.raises(client.exceptions.ConditionalCheckFailedException):
        client.put_item(
            TableName=TABLE, Item=_item("a", v="2"), ConditionExpression="attribute_not_exists(pk)"
        )
    assert _pending(client)["a"]["Seq"] == first


def test_batch_transactions_and_partiql(client: Any) -> None:
    client.batch_write_item(
        RequestItems={TABLE: [{"PutRequest": {"Item": _item("b1")}}, {"PutRequest": {"Item": _item("b2")}}]}
    )
    client.transact_write_items(
        TransactItems=[
            {"Put": {"TableName": TABLE, "Item": _item("t1")}},
            {"Delete": {"TableName": TABLE, "Key": _item("b1")}},
        ]
    )
    client.execute_statement(Statement=f"INSERT INTO \"{TABLE}\" VALUE {{'pk': 'q1', 'sk': 'x'}}")
    assert set(_pending(client)) == {"b1", "b2", "t1", "q1"}
    with pytest.raises(
        client.exceptions.TransactionCanceledException
    ):  # a cancelled transaction queues nothing
        client.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": TABLE, "Item": _item("t9")}},
                {
                    "ConditionCheck": {
                        "TableName": TABLE,
                        "Key": _item("nope"),
                        "ConditionExpression": "attribute_exists(pk)",
                    }
                },
            ]
        )
    assert "t9" not in _pending(client)


def test_ttl_deletes_are_captured(client: Any) -> None:
    client.update_time_to_live(
        TableName=TABLE, TimeToLiveSpecification={"Enabled": True, "AttributeName": "exp"}
    )
    client.put_item(TableName=TABLE, Item={**_item("e"), "exp": {"N": "1000"}})
    seq = _pending(client)["e"]["Seq"]
    assert client.engine.sweep_expired(now=2000.0) == 1
    change = _pending(client)["e"]
    assert change["Seq"] > seq and "OldItem" in change


def test_type_filter_captures_only_synced_models() -> None:
    client = dynabase.connect(":memory:")
    _create(client, TypeAttribute="_type", Types=["Fault"])
    client.put_item(TableName=TABLE, Item=_item("f", _type="Fault"))
    client.put_item(TableName=TABLE, Item=_item("s", _type="Status"))
    client.put_item(TableName=TABLE, Item=_item("n"))
    assert set(_pending(client)) == {"f"}


def test_engine_clock_stamps_changes() -> None:
    client = dynabase.connect(":memory:", clock=lambda: 1234.5)
    _create(client)
    client.put_item(TableName=TABLE, Item=_item("a"))
    assert _pending(client)["a"]["At"] == 1234500


def test_ack_keeps_a_newer_write_and_stamps_version(client: Any) -> None:
    client.put_item(TableName=TABLE, Item=_item("a", v="1"))
    change = _pending(client)["a"]
    client.put_item(TableName=TABLE, Item=_item("a", v="2"))  # a newer write before the ack
    version = "00000000001000.000000.dev"
    assert client.ack_changes(TableName=TABLE, Acks=[{**change, "Version": version}])["Acknowledged"] == 0
    newer = _pending(client)["a"]
    assert newer["Base"] == version  # the next push of this key goes above what the cloud holds
    assert client.ack_changes(TableName=TABLE, Acks=[{**newer, "Version": "00000000002000.000000.dev"}]) == {
        "Acknowledged": 1
    }
    assert _pending(client) == {}
    stored = client.get_item(TableName=TABLE, Key=_item("a"))["Item"]
    assert stored[VERSION_ATTR] == {"S": "00000000002000.000000.dev"} and stored["v"] == {"S": "2"}
    assert _pending(client) == {}  # stamping is not a change


def test_apply_is_not_captured_and_compares_versions(client: Any) -> None:
    v1, v2 = "00000000001000.000000.cloud", "00000000002000.000000.cloud"
    result = client.apply_changes(
        TableName=TABLE,
        Changes=[{"Item": {**_item("a", v="new"), VERSION_ATTR: {"S": v2}}}],
        State={"cp": "7"},
    )
    assert result["Applied"] == 1 and _pending(client) == {}
    assert client.get_sync_state(TableName=TABLE)["cp"] == "7"
    stale = client.apply_changes(
        TableName=TABLE, Changes=[{"Item": {**_item("a", v="old"), VERSION_ATTR: {"S": v1}}}]
    )
    assert stale["Skipped"] == 1
    assert client.get_item(TableName=TABLE, Key=_item("a"))["Item"]["v"] == {"S": "new"}
    # a delete leaves a tombstone: an older put of the key is refused
    v3 = "00000000003000.000000.cloud"
    client.apply_changes(TableName=TABLE, Changes=[{"Key": _item("a"), "Version": v3, "Delete": True}])
    assert "Item" not in client.get_item(TableName=TABLE, Key=_item("a"))
    client.apply_changes(
        TableName=TABLE, Changes=[{"Item": {**_item("a", v="zombie"), VERSION_ATTR: {"S": v2}}}]
    )
    assert "Item" not in client.get_item(TableName=TABLE, Key=_item("a"))


def test_apply_against_a_pending_change_keeps_the_newer() -> None:
    now = [1000.0]
    client = dynabase.connect(":memory:", clock=lambda: now[0])
    _create(client)
    client.put_item(TableName=TABLE, Item=_item("a", v="local"))  # pending, at 1000 s
    older = make_version(999_000, 0, "cloud")
    assert (
        client.apply_changes(TableName=TABLE, Changes=[{"Item": {**_item("a"), VERSION_ATTR: {"S": older}}}])[
            "Skipped"
        ]
        == 1
    )
    assert "a" in _pending(client)
    newer = make_version(1_001_000, 0, "cloud")
    result = client.apply_changes(
        TableName=TABLE, Changes=[{"Item": {**_item("a", v="cloud"), VERSION_ATTR: {"S": newer}}}]
    )
    assert result["Conflicts"] == 1 and _pending(client) == {}
    # the clock offset is applied to the pending change: a device 10 s fast wrote at 995 s true time
    client.put_item(TableName=TABLE, Item=_item("b", v="local"))
    mid = make_version(997_000, 0, "cloud")
    result = client.apply_changes(
        TableName=TABLE, Changes=[{"Item": {**_item("b"), VERSION_ATTR: {"S": mid}}}], ClockOffsetMs=5000
    )
    assert result["Conflicts"] == 1


def test_bad_apply_and_missing_capture_are_clear_errors(client: Any) -> None:
    with pytest.raises(ClientError, match="version"):
        client.apply_changes(TableName=TABLE, Changes=[{"Item": _item("a")}])
    other = dynabase.connect(":memory:")
    other.create_table(
        TableName="plain",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    with pytest.raises(other.exceptions.ResourceNotFoundException, match="change capture"):
        other.read_changes(TableName="plain")


def test_capture_is_persisted_and_serve_over_the_file_captures(tmp_path: Any) -> None:
    path = str(tmp_path / "device.db")
    client = dynabase.connect(path)
    _create(client)
    client.close()
    engine = dynabase.Engine(path)  # another connection: capture comes from the catalog
    url, stop = run_in_thread(engine)
    try:
        remote = boto3_client("dynamodb", url)
        remote.put_item(TableName=TABLE, Item=_item("http", v="1"))
    finally:
        stop()
        engine.close()
    client = dynabase.connect(path)
    assert set(_pending(client)) == {"http"}
    client.close()


def test_a_malformed_clock_skew_is_a_clear_error_at_connect(monkeypatch: Any) -> None:
    monkeypatch.setenv("DYNABASE_CLOCK_SKEW", "ten minutes")
    with pytest.raises(ValueError, match="DYNABASE_CLOCK_SKEW"):
        dynabase.connect(":memory:")
    monkeypatch.setenv("DYNABASE_CLOCK_SKEW", "-600")
    client = dynabase.connect(":memory:")
    _create(client)
    before = __import__("time").time()
    client.put_item(TableName=TABLE, Item=_item("a"))
    assert abs(_pending(client)["a"]["At"] / 1000 - (before - 600)) < 5


def test_enabling_capture_queues_the_items_already_stored() -> None:
    client = dynabase.connect(":memory:")
    _create(client, enable=False)
    client.put_item(TableName=TABLE, Item=_item("old", _type="Fault"))
    client.put_item(TableName=TABLE, Item=_item("other", _type="Status"))
    first = client.enable_change_capture(TableName=TABLE, TypeAttribute="_type", Types=["Fault"])
    assert first["Queued"] == 1 and set(_pending(client)) == {"old"}
    again = client.enable_change_capture(TableName=TABLE, TypeAttribute="_type", Types=["Fault"])
    assert again["Queued"] == 0  # idempotent
    wider = client.enable_change_capture(TableName=TABLE, TypeAttribute="_type", Types=["Fault", "Status"])
    assert wider["Queued"] == 1 and set(_pending(client)) == {"old", "other"}


def test_binary_keys_and_old_images_come_back_as_bytes() -> None:
    """A change's Key and OldItem are kept as text without their form: B and BS values (at any depth) must come
    back as bytes, and an S value that looks like base64 or holds ``{"B`` as text must stay a string."""
    client = dynabase.connect(":memory:", ttl_sweep_seconds=None)
    client.create_table(
        TableName=TABLE,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "B"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    client.enable_change_capture(TableName=TABLE)
    key = {"pk": {"S": "AAE="}, "sk": {"B": b"\x00\x01"}}
    old = {
        **key,
        "blob": {"B": b"zz"},
        "set": {"BS": [b"\xff"]},
        "nested": {"M": {"B": {"L": [{"B": b"\x01"}, {"S": '{"B":"AAE="}'}]}}},
    }
    client.put_item(TableName=TABLE, Item=old)
    client.delete_item(TableName=TABLE, Key=key)
    (change,) = client.read_changes(TableName=TABLE, Limit=10)["Changes"]
    assert change["Key"] == key
    assert change["OldItem"] == old
    client.ack_changes(TableName=TABLE, Acks=[{"Key": change["Key"], "Seq": change["Seq"]}])
    assert client.read_changes(TableName=TABLE)["Pending"] == 0
    client.close()


def test_capture_listeners_hear_each_committed_capture_once(client: Any) -> None:
    heard: list[str] = []
    engine = client.engine
    engine.add_capture_listener(heard.append)
    client.create_table(
        TableName="plain",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    client.put_item(TableName=TABLE, Item=_item("a", v="1"))
    client.transact_write_items(
        TransactItems=[{"Put": {"TableName": TABLE, "Item": _item(k)}} for k in ("b", "c")]
    )
    assert heard == [TABLE, TABLE]  # a transaction of two changes is heard once
    client.put_item(TableName="plain", Item={"pk": {"S": "x"}})  # no capture on it
    client.put_item(TableName=TABLE, Item=_item("a", v="1"))  # unchanged: nothing captured
    with pytest.raises(ClientError):  # cancelled: its capture rolled back
        client.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": TABLE, "Item": _item("d")}},
                {
                    "ConditionCheck": {
                        "TableName": TABLE,
                        "Key": _item("zz"),
                        "ConditionExpression": "attribute_exists(pk)",
                    }
                },
            ]
        )
    assert heard == [TABLE, TABLE]
    engine.remove_capture_listener(heard.append)
    client.put_item(TableName=TABLE, Item=_item("e"))
    assert heard == [TABLE, TABLE]
    assert engine.storage.journal is None  # nobody listens: writes journal nothing
