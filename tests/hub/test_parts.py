"""Payloads in parts joined in the hub's table (the Lambda hub, where each part reaches its own invocation):
the in-process HubCore over an embedded table with a clock the tests move, and the Lambda handler under moto
(DynamoDB and the IoT data plane)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import dynabase
from dynabase.hub import HubCore
from dynabase.hub.parts import PREFIX, TableJoiner
from dynabase.model import Table
from dynabase.streams.events import lambda_record
from dynabase.sync import wire

from .conftest import SCHEMA

VERSION = "01700000000000.000000.dev1"
NOW = 1_700_000_000.0


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> float:
        return self.now


def _core(client: Any, clock: Clock, schema: dict[str, Any] = SCHEMA, durable: bool = True) -> HubCore:
    cloud = Table("app", client, schema, side="cloud")
    if not cloud.exists():
        cloud.create_table(stream="NEW_AND_OLD_IMAGES")
    return HubCore(cloud, clock=clock, durable_parts=durable)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def core(clock: Clock) -> HubCore:
    return _core(dynabase.connect(":memory:"), clock)


def big_push(rid: str = "p", note: str = "big", size: int = 300_000) -> tuple[dict[str, Any], list[bytes]]:
    """A push of one Note of ``size`` characters, and its parts at AWS IoT Core's message limit."""
    key = {"pk": {"S": "note#"}, "sk": {"S": f"note#{note}"}}
    item = {**key, "_type": {"S": "Note"}, "id": {"S": note}, "text": {"S": "x" * size}}
    message = {"op": "push", "id": rid, "changes": [{"Key": key, "Item": item, "Version": VERSION}]}
    parts = wire.split(wire.dumps(message), wire.MAX_PAYLOAD)
    assert len(parts) >= 2
    return message, parts


def answers(out: list[tuple[str, bytes]]) -> list[dict[str, Any]]:
    """The messages a hub published to dev1 (each whole: answers to pushes fit in one message)."""
    assert all(topic == wire.down_topic("app", "dev1") for topic, _ in out)
    return [wire.loads(payload) for _, payload in out]


def reserved_items(client: Any) -> list[dict[str, Any]]:
    items = client.scan(TableName="app", ConsistentRead=True)["Items"]
    return [i for i in items if i["pk"]["S"].startswith(PREFIX)]


def open_parts(client: Any) -> list[dict[str, Any]]:
    """The part items, and ledgers that hold open parts (a ledger keeps the ids it joined for PART_TTL)."""
    return [i for i in reserved_items(client) if "_partData" in i or "_parts" in i]


def landed_once(published: list[dict[str, Any]], rid: str = "p") -> None:
    assert [(a["op"], a["re"]) for a in published] == [("pushed", rid)]
    assert published[0]["outcomes"] == [{"outcome": "landed", "version": VERSION}]


@pytest.mark.parametrize(
    "order",
    [
        pytest.param(lambda parts: parts, id="in-order"),
        pytest.param(lambda parts: [parts[2], parts[0], *parts[3:], parts[1]], id="out-of-order"),
        pytest.param(
            lambda parts: [parts[0], parts[1], parts[0], parts[1], *parts[2:], parts[0], parts[-1]],
            id="duplicates",  # before the join, and after it
        ),
    ],
)
def test_a_change_in_parts_lands_once_and_its_parts_go(
    core: HubCore, order: Callable[[list[bytes]], list[bytes]]
) -> None:
    _, parts = big_push()
    published: list[dict[str, Any]] = []
    for i, part in enumerate(order(parts)):
        published += answers(core.handle("dev1", part))
        if i == 0:  # a part, its item and the device's ledger
            assert len(reserved_items(core.table.client)) == 2
    landed_once(published)
    item = core.table.client.get_item(TableName="app", Key={"pk": {"S": "note#"}, "sk": {"S": "note#big"}})
    assert len(item["Item"]["text"]["S"]) == 300_000
    assert open_parts(core.table.client) == []
    (ledger,) = reserved_items(core.table.client)
    assert ledger["_joined"]["SS"] == [f"{wire.loads(parts[0])['id']} {int(NOW)}"]


def test_only_one_of_two_invocations_that_see_the_payload_complete_handles_it(
    core: HubCore, clock: Clock
) -> None:
    """A QoS 1 redelivery of the last part, handled by a second invocation between the first one's record of
    that part and its claim: both see the payload complete, one handles it."""
    second = _core(core.table.client, clock)
    _, parts = big_push()
    for part in parts[:-1]:
        assert core.handle("dev1", part) == []
    joiner = core.joiner
    assert isinstance(joiner, TableJoiner)
    claim = joiner._claim
    inside: list[dict[str, Any]] = []

    def claim_after_the_other(device: str, payload: Any, now: float) -> bool:
        inside.extend(answers(second.handle("dev1", parts[-1])))
        return claim(device, payload, now)

    joiner._claim = claim_after_the_other  # type: ignore[method-assign]
    outside = answers(core.handle("dev1", parts[-1]))
    landed_once(inside + outside)
    assert inside and not outside
    assert open_parts(core.table.client) == []


def test_a_duplicate_recorded_while_its_payload_was_claimed_is_forgotten(core: HubCore, clock: Clock) -> None:
    """A redelivered part recorded in the ledger after the claimer read it: the next part of the device
    removes its element (not the parts: the claimer may be reading them)."""
    _, parts = big_push()
    published = [a for part in parts for a in answers(core.handle("dev1", part))]
    landed_once(published)
    ident = wire.loads(parts[0])["id"]
    (ledger,) = reserved_items(core.table.client)
    late = f"{ident} 0 {len(parts)} {len(wire.loads(parts[0])['data'])} {int(NOW) + 1}"
    key = {"pk": ledger["pk"], "sk": ledger["sk"]}
    core.table.client.update_item(
        TableName="app",
        Key=key,
        UpdateExpression="ADD #p :e",
        ExpressionAttributeNames={"#p": "_parts"},
        ExpressionAttributeValues={":e": {"SS": [late]}},
    )
    _, other = big_push("p2")
    assert core.handle("dev1", other[0]) == []
    ledger = next(i for i in reserved_items(core.table.client) if "_parts" in i)
    assert [e.split(" ")[0] for e in ledger["_parts"]["SS"]] == [wire.loads(other[0])["id"]]


def test_a_payload_missing_a_part_expires_and_is_swept(core: HubCore, clock: Clock) -> None:
    _, parts = big_push()
    for part in parts[:-1]:
        assert core.handle("dev1", part) == []
    stored = reserved_items(core.table.client)
    expiry = {int(i["_syncTtl"]["N"]) for i in stored}  # the schema has no TTL field: the sync's own
    assert len(stored) == len(parts) and min(expiry) > NOW + wire.PART_TTL
    clock.now += wire.PART_TTL + 1
    assert core.handle("dev1", parts[-1]) == []  # too late: nothing is answered (the device asks again)
    assert reserved_items(core.table.client) == []
    _, again = big_push("p2")
    published = [a for part in again for a in answers(core.handle("dev1", part))]
    assert [(a["op"], a["re"]) for a in published] == [("pushed", "p2")]
    assert open_parts(core.table.client) == [] and len(reserved_items(core.table.client)) == 1
    clock.now += wire.PART_TTL + 1  # the joined id is swept with the device's next part
    _, third = big_push("p3")
    assert core.handle("dev1", third[0]) == []
    ledger = next(i for i in reserved_items(core.table.client) if "_parts" in i)
    assert "_joined" not in ledger and len(ledger["_parts"]["SS"]) == 1


def test_another_devices_parts_are_its_own(core: HubCore) -> None:
    _, parts = big_push()
    assert core.handle("dev2", parts[0]) == []
    for part in parts[1:]:
        assert core.handle("dev1", part) == []  # dev1's payload lacks the part dev2 sent
    assert len(reserved_items(core.table.client)) == len(parts) + 2  # two ledgers


@pytest.mark.parametrize("durable", [False, True], ids=["memory", "table"])
def test_limits_are_refused_with_the_in_memory_joiners_reasons(
    clock: Clock, monkeypatch: pytest.MonkeyPatch, durable: bool
) -> None:
    core = _core(dynabase.connect(":memory:"), clock, durable=durable)

    def refused(message: dict[str, Any]) -> str:
        (answer,) = answers(core.handle("dev1", wire.dumps({"op": "part", **message})))
        assert answer["op"] == "error" and answer["retryable"] is False and answer["re"] is None
        return str(answer["reason"])

    assert "at most 256 parts" in refused({"id": "a", "n": 0, "of": 257, "data": "{"})
    assert "at most 256 parts" in refused({"id": "a", "n": 3, "of": 3, "data": "{"})
    assert "part has" in refused({"id": "a", "n": "0", "of": 3, "data": "{"})
    assert "a part's id" in refused({"id": "a#0", "n": 0, "of": 3, "data": "{"})
    assert core.handle("dev1", wire.dumps({"op": "part", "id": "b", "n": 0, "of": 3, "data": "{"})) == []
    assert "other parts say 3 parts" in refused({"id": "b", "n": 1, "of": 2, "data": "x"})
    _, first = big_push("p1", "one", 150_000)
    _, second = big_push("p2", "two", 250_000)
    sizes = [len(wire.loads(p)["data"]) for p in first]
    biggest = max(second, key=lambda p: len(wire.loads(p)["data"]))
    assert len(wire.loads(biggest)["data"]) > sizes[-1]
    monkeypatch.setattr(wire, "MAX_JOINED", sum(sizes))  # the first payload fits, not with the second's
    for part in first[:-1]:
        assert core.handle("dev1", part) == []
    (answer,) = answers(core.handle("dev1", biggest))  # one device's open payloads together
    assert answer["op"] == "error" and f"above {sum(sizes)} bytes from one sender" in answer["reason"]
    published = answers(core.handle("dev1", first[-1]))
    assert [(a["op"], a["re"]) for a in published] == [("pushed", "p1")]  # the first one is whole
    if durable:
        assert open_parts(core.table.client) == []  # the refused payloads' parts went too


def test_a_number_hash_key_is_refused_clearly(clock: Clock) -> None:
    schema = json.loads(json.dumps(SCHEMA))
    schema["indexes"] = {"primary": {"hash": "num"}}
    schema["process"] = {"Counter": {"sync": "both"}}
    schema["models"] = {"Counter": {"num": {"type": "number", "required": True}, "n": {"type": "number"}}}
    core = _core(dynabase.connect(":memory:"), clock, schema)
    _, parts = big_push()
    (answer,) = answers(core.handle("dev1", parts[0]))
    assert answer["op"] == "error"
    assert 'the primary hash key "num" is a number' in answer["reason"]


def test_a_table_without_a_sort_key_joins_too(clock: Clock) -> None:
    schema = json.loads(json.dumps(SCHEMA))
    schema["indexes"] = {"primary": {"hash": "pk"}}
    schema["process"] = {"Note": {"sync": "both"}}
    schema["models"] = {
        "Note": {
            "pk": {"type": "string", "value": "note#${id}"},
            "id": {"type": "string", "required": True},
            "text": {"type": "string"},
        }
    }
    core = _core(dynabase.connect(":memory:"), clock, schema)
    key = {"pk": {"S": "note#big"}}
    item = {**key, "_type": {"S": "Note"}, "id": {"S": "big"}, "text": {"S": "y" * 300_000}}
    change = {"Key": key, "Item": item, "Version": VERSION}
    parts = wire.split(wire.dumps({"op": "push", "id": "p", "changes": [change]}), wire.MAX_PAYLOAD)
    published = [a for part in reversed(parts) for a in answers(core.handle("dev1", part))]
    landed_once(published)
    assert open_parts(core.table.client) == []


def test_the_parts_are_never_a_devices_item(core: HubCore) -> None:
    """Not fanned out (their stream records, and one forged to look like a model's), not pulled, not got, and
    a device cannot push an item under their keys."""
    _, parts = big_push()
    for part in parts[:-1]:
        core.handle("dev1", part)
    client = core.table.client
    arn = client.describe_table(TableName="app")["Table"]["LatestStreamArn"]
    streams = client.streams()
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")
    records = [
        lambda_record(r, arn) for r in streams.get_records(ShardIterator=iterator["ShardIterator"])["Records"]
    ]
    assert len(records) >= len(parts)  # every part and the ledger's updates
    stored = reserved_items(client)[0]
    forged = {**stored, "_type": {"S": "Note"}, "_syncScope": {"S": "Note#"}, "_syncVer": {"S": VERSION}}
    assert core.targets(wire.item_in(forged, "item")) == []
    assert core.targets({k: v for k, v in forged.items() if k != "pk"} | {"pk": {"S": "note#"}}) != []
    assert core.fan_out({"Records": records}) == []

    def ask(message: dict[str, Any]) -> dict[str, Any]:
        (answer,) = answers(core.handle("dev1", wire.dumps(message)))
        return answer

    keys = [{"pk": i["pk"], "sk": i["sk"]} for i in reserved_items(client)]
    assert ask({"op": "get", "id": "g", "keys": keys})["items"] == []
    assert ask({"op": "pull", "id": "q", "scope": "Note#", "after": None, "limit": 100})["items"] == []
    key = {"pk": {"S": PREFIX + "dev1"}, "sk": {"S": "reading#r1"}}
    item = {**key, "_type": {"S": "Reading"}, "deviceId": {"S": "dev1"}, "id": {"S": "r1"}}
    pushed = ask({"op": "push", "id": "p", "changes": [{"Key": key, "Item": item, "Version": VERSION}]})
    (outcome,) = pushed["outcomes"]
    assert outcome["outcome"] == "refused" and "the hub's own (payloads in parts)" in outcome["reason"]
    assert len(reserved_items(client)) == len(parts)  # the open payload is untouched


# -- the Lambda handler under moto -------------------------------------------------------------------------


@pytest.fixture
def lambda_hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clock: Clock) -> Iterator[Any]:
    moto = pytest.importorskip("moto")
    import boto3
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.iotdata.models import iotdata_backends

    from dynabase.hub import aws

    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    for name, value in (
        ("DYNABASE_SCHEMA", str(schema)),
        ("DYNABASE_TABLE", "app"),
        ("AWS_DEFAULT_REGION", "us-east-1"),
        ("AWS_ACCESS_KEY_ID", "testing"),
        ("AWS_SECRET_ACCESS_KEY", "testing"),
    ):
        monkeypatch.setenv(name, value)
    aws.hub.cache_clear()
    aws.iot.cache_clear()
    with moto.mock_aws():
        Table("app", boto3.client("dynamodb"), SCHEMA, side="cloud").create_table(stream="NEW_AND_OLD_IMAGES")
        aws.hub().clock = clock
        published = iotdata_backends[DEFAULT_ACCOUNT_ID]["us-east-1"].published_payloads

        def send(part: bytes) -> list[dict[str, Any]]:
            before = len(published)
            aws.on_device_message({**json.loads(part), "deviceId": "dev1"})
            return answers([(t, bytes(p)) for t, p in published[before:]])

        yield send
    aws.hub.cache_clear()
    aws.iot.cache_clear()


def moto_reserved() -> list[dict[str, Any]]:
    import boto3

    return reserved_items(boto3.client("dynamodb"))


@pytest.mark.parametrize(
    "order",
    [
        pytest.param(lambda parts: parts, id="in-order"),
        pytest.param(lambda parts: parts[::-1], id="out-of-order"),
        pytest.param(lambda parts: [parts[1], *parts, parts[1]], id="duplicates"),
    ],
)
def test_the_lambda_handler_joins_a_change_in_parts(
    lambda_hub: Callable[[bytes], list[dict[str, Any]]], order: Callable[[list[bytes]], list[bytes]]
) -> None:
    _, parts = big_push()
    published = [a for part in order(parts) for a in lambda_hub(part)]
    landed_once(published)
    import boto3

    item = boto3.client("dynamodb").get_item(
        TableName="app", Key={"pk": {"S": "note#"}, "sk": {"S": "note#big"}}
    )
    assert len(item["Item"]["text"]["S"]) == 300_000
    import boto3

    assert open_parts(boto3.client("dynamodb")) == []  # a duplicate after the join changed nothing


def test_the_lambda_handler_sweeps_a_payload_missing_a_part(
    lambda_hub: Callable[[bytes], list[dict[str, Any]]], clock: Clock
) -> None:
    _, parts = big_push()
    for part in parts[1:]:
        assert lambda_hub(part) == []
    assert len(moto_reserved()) == len(parts)
    clock.now += wire.PART_TTL + 1
    assert lambda_hub(parts[0]) == []
    assert moto_reserved() == []
