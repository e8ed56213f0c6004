"""The hub's core without a broker: the protocol's codec and parts, the rules, answers to each request, the
fan-out's routing; and the Lambda handlers under moto (DynamoDB and the IoT data plane)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import dynabase
from dynabase.hub import HubCore
from dynabase.model import Table
from dynabase.sync import wire
from dynabase.sync.mqtt import parse_url

from .conftest import SCHEMA

NOW_VERSION = "01700000000000.000000.dev1"


@pytest.fixture
def core() -> HubCore:
    cloud = Table("app", dynabase.connect(":memory:"), SCHEMA, side="cloud")
    cloud.create_table(stream="NEW_AND_OLD_IMAGES")
    return HubCore(cloud, max_payload=4096)


def _ask(core: HubCore, device: str, message: dict[str, Any]) -> dict[str, Any]:
    out = core.handle(device, wire.dumps(message))
    assert out and all(topic == wire.down_topic("app", device) for topic, _ in out)
    joiner = wire.Joiner()
    answers = [joiner.add("hub", wire.loads(payload)) for _, payload in out]
    answer = answers[-1]
    assert answer is not None and answer["re"] == message.get("id")
    return answer


def _reading(device: str, scope_device: str, value: dict[str, str]) -> dict[str, Any]:
    key = {"pk": {"S": f"dev#{scope_device}"}, "sk": {"S": "reading#r1"}}
    item = {
        **key,
        "_type": {"S": "Reading"},
        "deviceId": {"S": scope_device},
        "id": {"S": "r1"},
        "value": value,
    }
    return {"Key": key, "Item": item, "Version": f"01700000000000.000000.{device}"}


def test_parts_split_and_join_and_refuse_what_is_not_the_protocol() -> None:
    payload = wire.dumps({"op": "push", "id": "a", "text": 'é"\\' * 5000})
    parts = wire.split(payload, 4096)
    assert len(parts) > 1 and all(len(p) <= 4096 for p in parts)
    joiner = wire.Joiner()
    joined = [joiner.add("d", wire.loads(p)) for p in reversed(parts)]  # in any order
    assert joined[:-1] == [None] * (len(parts) - 1) and joined[-1] == wire.loads(payload)
    with pytest.raises(wire.ProtocolError, match="protocol version 2"):
        wire.loads(json.dumps({"v": 2, "op": "push"}))
    with pytest.raises(wire.ProtocolError, match="at most 256 parts"):
        joiner.add("d", {"v": 1, "op": "part", "id": "x", "n": 0, "of": 100000, "data": ""})
    with pytest.raises(wire.ProtocolError, match="Key"):
        wire.item_in({"pk": {"Q": "?"}}, "Key")
    assert wire.item_in({"b": {"B": "AAE="}}, "item") == {"b": {"B": b"\x00\x01"}}
    assert wire.device_of("dynabase/v1/app/up/dev-1", "app") == "dev-1"
    assert wire.device_of("dynabase/v1/app/up/a/b", "app") is None
    with pytest.raises(ValueError, match="one topic level"):
        wire.check_id("dev/1")
    assert parse_url("mqtts://broker") == ("broker", 8883, True)
    with pytest.raises(ValueError, match="mqtt://HOST:PORT"):
        parse_url("tcp://broker:1883")


def test_each_request_is_answered_with_the_hubs_clock(core: HubCore) -> None:
    welcome = _ask(core, "dev1", {"op": "hello", "id": "h", "checkpoints": {}})
    assert welcome["op"] == "welcome" and "Setting#dev1" in welcome["scopes"]
    assert isinstance(welcome["clock"], int)
    pushed = _ask(core, "dev1", {"op": "push", "id": "p", "changes": [_reading("dev1", "dev1", {"N": "1"})]})
    assert pushed["outcomes"] == [{"outcome": "landed", "version": NOW_VERSION}]
    page = _ask(core, "dev1", {"op": "pull", "id": "q", "scope": "Reading#dev1", "after": None, "limit": 10})
    assert [i["id"] for i in page["items"]] == [{"S": "r1"}] and "last" not in page
    got = _ask(core, "dev1", {"op": "get", "id": "g", "keys": [_reading("dev1", "dev1", {"N": "1"})["Key"]]})
    assert len(got["items"]) == 1
    theirs = _ask(
        core, "dev2", {"op": "get", "id": "g2", "keys": [_reading("dev1", "dev1", {"N": "1"})["Key"]]}
    )
    assert theirs["items"] == []  # not in dev2's scopes: as if absent
    for bad, reason in (
        ({"op": "dance", "id": "x"}, "unknown op"),
        ({"op": "push"}, '"id"'),
        ({"op": "pull", "id": "x", "scope": "Reading#dev1", "limit": 5000}, '"limit"'),
        ({"op": "get", "id": "x", "keys": []}, "1-100 primary keys"),
    ):
        answer = _ask(core, "dev1", bad)
        assert answer["op"] == "error" and reason in answer["reason"] and answer["retryable"] is False


@pytest.mark.parametrize(
    ("device", "change", "reason"),
    [
        ("dev1", _reading("dev1", "dev2", {"N": "1"}), "is not this device's ('Reading#dev1')"),
        ("dev1", _reading("dev2", "dev1", {"N": "1"}), "its node is not 'dev1'"),
        ("dev1", _reading("dev1", "dev1", {"S": "one"}), 'the field "value" is a number, not a S value'),
        (
            "dev1",
            {**_reading("dev1", "dev1", {"N": "1"}), "Version": "99999999999999.000000.dev1"},
            "ahead of",
        ),
        (
            "dev1",
            {**_reading("dev1", "dev1", {"N": "1"}), "Key": {"pk": {"S": "x"}, "sk": {"S": "y"}}},
            "Key",
        ),
        ("dev1", {**_reading("dev1", "dev1", {"N": "1"}), "Condition": "always"}, "Condition must be one of"),
    ],
)
def test_the_rules_refuse_with_a_reason(
    core: HubCore, device: str, change: dict[str, Any], reason: str
) -> None:
    answer = _ask(core, device, {"op": "push", "id": "p", "changes": [change]})
    (outcome,) = answer["outcomes"]
    assert outcome["outcome"] == "refused" and reason in outcome["reason"], outcome


def test_an_item_cannot_take_the_key_of_another_model(core: HubCore) -> None:
    key = {"pk": {"S": "dev#dev2"}, "sk": {"S": "setting#rate"}}  # dev2's Setting, as a Note anyone may write
    note = {**key, "_type": {"S": "Note"}, "id": {"S": "x"}, "text": {"S": "mine now"}}
    answer = _ask(
        core,
        "dev1",
        {"op": "push", "id": "p", "changes": [{"Key": key, "Item": note, "Version": NOW_VERSION}]},
    )
    (outcome,) = answer["outcomes"]
    assert (
        outcome["outcome"] == "refused"
        and 'the key attribute "pk" is not what the schema makes it' in outcome["reason"]
    )


def test_a_required_field_and_a_down_model(core: HubCore) -> None:
    change = _reading("dev1", "dev1", {"N": "1"})
    del change["Item"]["id"]
    key = {"pk": {"S": "dev#dev1"}, "sk": {"S": "setting#rate"}}
    setting = {**key, "_type": {"S": "Setting"}, "deviceId": {"S": "dev1"}, "name": {"S": "rate"}}
    answer = _ask(
        core,
        "dev1",
        {"op": "push", "id": "p", "changes": [change, {"Key": key, "Item": setting, "Version": NOW_VERSION}]},
    )
    reasons = [o["reason"] for o in answer["outcomes"]]
    assert 'the required field "id" is missing' in reasons[0]
    assert "process.Setting.sync is down" in reasons[1]


def test_the_fan_out_goes_to_the_scope_of_each_item(core: HubCore) -> None:
    core.table.Setting.create({"deviceId": "dev2", "name": "rate", "value": "1"})
    core.table.Note.create({"id": "n1", "text": "all"})
    core.table.Status.create({"state": "ok"})  # a cloud-only model: no one
    own = _reading("dev1", "dev1", {"N": "1"})
    _ask(core, "dev1", {"op": "push", "id": "p", "changes": [own]})  # dev1's own: not echoed to it
    streams = core.table.client.streams()
    arn = core.table.client.describe_table(TableName="app")["Table"]["LatestStreamArn"]
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")
    records = streams.get_records(ShardIterator=iterator["ShardIterator"])["Records"]
    from dynabase.streams.events import lambda_record

    messages = core.fan_out({"Records": [lambda_record(r, arn) for r in records]})
    topics = sorted(topic for topic, _ in messages)
    assert topics == [wire.down_topic("app", "dev2"), wire.shared_topic("app", "Note")]


def test_the_lambda_handlers_under_moto(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    moto = pytest.importorskip("moto")
    import boto3

    from dynabase.hub import aws

    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    monkeypatch.setenv("DYNABASE_SCHEMA", str(schema))
    monkeypatch.setenv("DYNABASE_TABLE", "app")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    aws.hub.cache_clear()
    aws.iot.cache_clear()
    with moto.mock_aws():
        Table("app", boto3.client("dynamodb"), SCHEMA, side="cloud").create_table(stream="NEW_AND_OLD_IMAGES")
        event = {
            **json.loads(
                wire.dumps({"op": "push", "id": "p", "changes": [_reading("dev1", "dev1", {"N": "2"})]})
            )
        }
        assert aws.on_device_message({**event, "deviceId": "dev1"}) == {"published": 1}
        item = boto3.client("dynamodb").get_item(
            TableName="app", Key=_reading("dev1", "dev1", {"N": "2"})["Key"]
        )
        assert item["Item"]["value"] == {"N": "2"}
        part = {"v": 1, "op": "part", "id": "z", "n": 0, "of": 2, "data": "{", "deviceId": "dev1"}
        assert aws.on_device_message(part) == {"published": 0}  # kept until its other part comes (test_parts)
    aws.hub.cache_clear()
    aws.iot.cache_clear()
