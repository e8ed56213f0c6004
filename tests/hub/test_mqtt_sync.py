"""Sync over MQTT end to end: devices -> Mosquitto -> hub -> cloud table, and the table's stream -> hub ->
devices; the hub's refusals, answered per change; catching up from checkpoints; duplicates applied once."""

from __future__ import annotations

import copy
import json
import threading
import uuid
from typing import Any

import paho.mqtt.client as mqtt

from dynabase.clock import SEQ_ATTR, VERSION_ATTR
from dynabase.sync import wire

from .conftest import SCHEMA, Fleet, eventually, password


def test_a_device_push_lands_in_the_table_and_reaches_the_other_devices(fleet: Fleet, watching: Any) -> None:
    fleet.start_hub()
    d1, s1 = fleet.device("dev1")
    d2, s2 = fleet.device("dev2")
    s2.sync_once()
    watching(s2)
    d1.Note.create({"id": "n1", "text": "hello"})
    d1.Fault.create({"deviceId": "dev1", "message": "hot"})
    result = s1.sync_once()
    assert (result.pushed, result.quarantined, result.in_step) == (2, 0, True)
    note = fleet.cloud_item("note#", "note#n1")
    assert note is not None and note[VERSION_ATTR]["S"].endswith(".dev1")
    assert fleet.cloud.Fault.find({"deviceId": "dev1"})[0]["message"] == "hot"
    # the shared model reaches dev2 from the stream, without a poll; the up model does not
    eventually(lambda: d2.Note.get({"id": "n1"}), "the note on dev2")
    assert d2.Fault.find({"deviceId": "dev1"}) == []
    assert s1.status().clock_offset is not None  # measured against the hub's clock


def test_a_cloud_write_reaches_only_the_device_of_its_scope(fleet: Fleet, watching: Any) -> None:
    fleet.start_hub()
    d1, s1 = fleet.device("dev1")
    d2, s2 = fleet.device("dev2")
    for sync in (s1, s2):
        sync.sync_once()
        watching(sync)
    fleet.cloud.Setting.create({"deviceId": "dev1", "name": "rate", "value": "5"})
    fleet.cloud.Setting.create({"deviceId": "dev2", "name": "rate", "value": "9"})
    eventually(lambda: d1.Setting.get({"deviceId": "dev1", "name": "rate"}), "dev1's setting")
    eventually(lambda: d2.Setting.get({"deviceId": "dev2", "name": "rate"}), "dev2's setting")
    assert d1.Setting.get({"deviceId": "dev2", "name": "rate"}) is None
    assert d2.Setting.get({"deviceId": "dev1", "name": "rate"}) is None
    fleet.cloud.Setting.update({"deviceId": "dev1", "name": "rate", "value": "6"})
    eventually(lambda: d1.Setting.get({"deviceId": "dev1", "name": "rate"})["value"] == "6", "the update")
    fleet.cloud.Setting.remove({"deviceId": "dev1", "name": "rate"})
    eventually(lambda: d1.Setting.get({"deviceId": "dev1", "name": "rate"}) is None, "the delete")


def test_a_conflict_is_resolved_on_the_device_and_written_over_the_winner(fleet: Fleet) -> None:
    """The hub needs none of the device's resolvers: the edit goes up on its base version, loses to dev1's,
    and dev2's "merge" resolver writes the merged item exactly over the winner's version."""
    fleet.start_hub()
    fleet.cloud.Note.create({"id": "n1", "text": "a", "color": "blue"})
    d1, s1 = fleet.device("dev1")
    d2, s2 = fleet.device("dev2", resolvers={"Note": "merge"})
    s1.sync_once()
    s2.sync_once()
    d1.Note.update({"id": "n1", "text": "b"})
    s1.sync_once()
    d2.Note.update({"id": "n1", "color": "red"})  # concurrent: dev2 has not seen "b"
    result = s2.sync_once()
    assert result.pushed == 1 and s2.pending() == 0
    merged = fleet.cloud.Note.get({"id": "n1"})
    assert (merged["text"], merged["color"]) == ("b", "red")
    assert d2.Note.get({"id": "n1"})["text"] == "b"  # the merged item, down on dev2 too
    winner = fleet.cloud_item("note#", "note#n1")[VERSION_ATTR]["S"]
    assert winner.endswith(".dev2")


def _tampered() -> dict[str, Any]:
    """A device's schema that disagrees with the hub's: it pushes a down model, and Reading.value is a string."""
    schema = copy.deepcopy(SCHEMA)
    schema["process"]["Setting"]["sync"] = "both"
    schema["models"]["Reading"]["value"] = {"type": "string"}
    return schema


def test_the_hub_refuses_per_change_and_the_queue_moves_on(fleet: Fleet) -> None:
    fleet.start_hub()
    d1, s1 = fleet.device("dev1", schema=_tampered())
    d1.Setting.create({"deviceId": "dev1", "name": "rate", "value": "1"})  # a down model
    d1.Reading.create({"deviceId": "dev2", "id": "r1", "value": "1"})  # another device's scope
    d1.Reading.create({"deviceId": "dev1", "id": "r2", "value": "not a number"})  # invalid
    d1.Reading.create(
        {"deviceId": "dev1", "id": "r3", "value": "3"}
    )  # valid: a number's text is a string here
    d1.Note.create({"id": "ok", "text": "fine"})
    result = s1.sync_once()
    assert result.in_step and s1.pending() == 0
    reasons = {q["key"]["sk"]: q["reason"] for q in s1.quarantine()}
    assert "process.Setting.sync is down" in reasons["setting#rate"]
    assert "is not this device's" in reasons["reading#r1"]
    assert 'the field "value" is a number, not a S value' in reasons["reading#r2"]
    assert "reading#r3" in reasons  # a string where the hub's schema has a number
    assert result.pushed == 1 and fleet.cloud_item("note#", "note#ok") is not None
    assert fleet.cloud_item("dev#dev1", "setting#rate") is None
    assert fleet.cloud_item("dev#dev2", "reading#r1") is None


def test_a_device_may_not_overwrite_an_item_of_another_scope(fleet: Fleet) -> None:
    """dev1 writes a task dev2 holds, naming itself as the holder: the item's own scope is dev1's, but the
    one stored is dev2's, and that decides."""
    fleet.start_hub()
    fleet.cloud.Task.create({"id": "t1", "deviceId": "dev2"})
    d1, s1 = fleet.device("dev1")
    d1.Task.create({"id": "t1", "deviceId": "dev1"})
    s1.sync_once()
    assert "another scope" in s1.quarantine()[0]["reason"]
    assert fleet.cloud.Task.get({"id": "t1"})["deviceId"] == "dev2"


def test_an_offline_device_catches_up_from_its_checkpoint(fleet: Fleet, tmp_path: Any) -> None:
    fleet.start_hub()
    db = str(tmp_path / "dev1.db")
    d1, s1 = fleet.device("dev1", db=db)
    fleet.cloud.Setting.create({"deviceId": "dev1", "name": "a", "value": "1"})
    assert s1.sync_once().pulled == 1
    checkpoint = s1.status().checkpoints["Setting#dev1"]
    s1.transport.close()  # offline
    d1.client.close()
    fleet.cloud.Setting.create({"deviceId": "dev1", "name": "b", "value": "2"})
    fleet.cloud.Setting.update({"deviceId": "dev1", "name": "a", "value": "3"})
    d1, s1 = fleet.device("dev1", db=db)  # back, the same database
    result = s1.sync_once()
    assert result.pulled == 2 and result.in_step
    assert d1.Setting.get({"deviceId": "dev1", "name": "a"})["value"] == "3"
    assert d1.Setting.get({"deviceId": "dev1", "name": "b"})["value"] == "2"
    assert s1.status().checkpoints["Setting#dev1"] > checkpoint


class _Client:
    """A bare MQTT client with a user's credentials (its client id: the user name), to send what a device's
    Sync would not; it keeps the messages it receives, in order."""

    def __init__(self, fleet: Fleet, user: str, *subscriptions: str) -> None:
        self.fleet, self.user = fleet, user
        self.topics: list[str] = []
        self.answers: list[dict[str, Any]] = []
        self.arrived = threading.Condition()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=user, protocol=mqtt.MQTTv5)
        self.client.username_pw_set(user, password(user))
        self.client.on_message = self._message
        self.client.connect("127.0.0.1", fleet.broker.port)
        if subscriptions:
            self.client.subscribe([(topic, 1) for topic in subscriptions])
        self.client.loop_start()

    def _message(self, client: Any, userdata: Any, message: Any) -> None:
        with self.arrived:
            self.topics.append(message.topic)
            if message.topic == wire.down_topic(self.fleet.name, self.user):
                self.answers.append(json.loads(message.payload))
            self.arrived.notify_all()

    def wait_for(self, topic: str) -> list[str]:
        with self.arrived:
            assert self.arrived.wait_for(lambda: topic in self.topics, 30), self.topics
            return list(self.topics)

    def publish(self, topic: str, payload: bytes = b"{}") -> None:
        self.client.publish(topic, payload, qos=1).wait_for_publish(10)

    def send(self, payload: bytes, answers: int) -> list[dict[str, Any]]:
        """Publish a request on the user's up topic; the answers once there are ``answers`` of them."""
        self.publish(wire.up_topic(self.fleet.name, self.user), payload)
        with self.arrived:
            assert self.arrived.wait_for(lambda: len(self.answers) >= answers, 30), self.answers
        return self.answers

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def test_a_duplicate_delivery_changes_nothing(fleet: Fleet) -> None:
    fleet.start_hub()
    raw = _Client(fleet, "dev1", wire.down_topic(fleet.name, "dev1"))
    try:
        item = {"pk": {"S": "note#"}, "sk": {"S": "note#n1"}, "_type": {"S": "Note"}, "id": {"S": "n1"}}
        change = {
            "Key": {"pk": item["pk"], "sk": item["sk"]},
            "Item": item,
            "Version": "01700000000000.000000.dev1",
        }
        payload = wire.dumps({"op": "push", "id": uuid.uuid4().hex, "changes": [change]})
        first = raw.send(payload, 1)[0]
        assert first["outcomes"] == [{"outcome": "landed", "version": change["Version"]}]
        landed = fleet.cloud_item("note#", "note#n1")
        second = raw.send(payload, 2)[1]  # the same message again (QoS 1 delivers at least once)
        assert second["outcomes"] == [{"outcome": "landed", "version": change["Version"], "repeat": True}]
        again = fleet.cloud_item("note#", "note#n1")
        assert again[VERSION_ATTR] == landed[VERSION_ATTR] and again[SEQ_ATTR]["S"] >= landed[SEQ_ATTR]["S"]
        # an older version of the same change, delivered late, loses to the one there
        older = {**change, "Version": "01600000000000.000000.dev1"}
        late = raw.send(wire.dumps({"op": "push", "id": "late", "changes": [older]}), 3)[2]
        assert late["outcomes"][0]["outcome"] == "held"
        assert fleet.cloud_item("note#", "note#n1")[VERSION_ATTR] == landed[VERSION_ATTR]
    finally:
        raw.close()


def test_the_hub_answers_what_is_not_the_protocol(fleet: Fleet) -> None:
    fleet.start_hub()
    raw = _Client(fleet, "dev1", wire.down_topic(fleet.name, "dev1"))
    try:
        answers = raw.send(b"not json", 1)
        assert answers[0]["op"] == "error" and "not JSON" in answers[0]["reason"]
        deep = raw.send(b"[" * 60000 + b"]" * 60000, 2)[1]  # refused before the parser recurses into it
        assert deep["op"] == "error" and "nesting deeper than" in deep["reason"] and not deep["retryable"]
        bad = wire.dumps({"op": "push", "id": "x", "changes": [{"Key": {"pk": {"Q": "?"}}}]})
        outcome = raw.send(bad, 3)[2]["outcomes"][0]
        assert outcome["outcome"] == "refused" and "changes[0].Key" in outcome["reason"]
        pull = wire.dumps({"op": "pull", "id": "y", "scope": "Setting#dev2"})
        answer = raw.send(pull, 4)[3]
        assert answer["op"] == "error" and "not one this device pulls" in answer["reason"]
    finally:
        raw.close()


def test_a_payload_over_the_limit_travels_in_parts(fleet: Fleet) -> None:
    fleet.start_hub(max_payload=4096)
    d1, s1 = fleet.device("dev1", max_payload=4096)
    d1.Note.create({"id": "big", "text": "x" * 20000})
    assert s1.sync_once().pushed == 1
    assert len(fleet.cloud_item("note#", "note#big")["text"]["S"]) == 20000
    d2, s2 = fleet.device("dev2", max_payload=4096)
    assert s2.sync_once().pulled == 1  # the page comes back in parts too
    assert d2.Note.get({"id": "big"})["text"] == "x" * 20000


def test_the_broker_acl_keeps_a_device_to_its_own_topics(fleet: Fleet) -> None:
    """The ACL of docs/sync.md, enforced by Mosquitto from the client id: dev1 receives its own down topic and
    the shared ones, not dev2's; it publishes to its own up topic only. (Messages from one publisher arrive in
    order: when the last has come, an earlier one that did not never will.)"""
    name = fleet.name
    device = _Client(fleet, "dev1", f"dynabase/v1/{name}/down/+", f"dynabase/v1/{name}/shared/#")
    hub = _Client(fleet, "hub", f"dynabase/v1/{name}/up/+")
    try:
        for topic in (
            wire.down_topic(name, "dev2"),
            wire.shared_topic(name, "Note"),
            wire.down_topic(name, "dev1"),
        ):
            hub.publish(topic)
        assert device.wait_for(wire.down_topic(name, "dev1")) == [
            wire.shared_topic(name, "Note"),
            wire.down_topic(name, "dev1"),
        ]
        device.publish(wire.up_topic(name, "dev2"))
        device.publish(wire.up_topic(name, "dev1"))
        assert hub.wait_for(wire.up_topic(name, "dev1")) == [wire.up_topic(name, "dev1")]
    finally:
        device.close()
        hub.close()


def test_unique_values_are_claimed_through_the_hub(broker: Any, tmp_path: Any) -> None:
    schema = copy.deepcopy(SCHEMA)
    schema["process"]["Tag"] = {"sync": "both"}
    schema["models"]["Tag"] = {
        "pk": {"type": "string", "value": "tag#"},
        "sk": {"type": "string", "value": "tag#${id}"},
        "id": {"type": "string", "required": True},
        "name": {"type": "string", "unique": True},
    }
    fleet = Fleet(broker, tmp_path, schema)
    try:
        fleet.start_hub()
        d1, s1 = fleet.device("dev1")
        d2, s2 = fleet.device("dev2")
        d1.Tag.create({"id": "1", "name": "red"})
        d2.Tag.create({"id": "2", "name": "red"})
        assert s1.sync_once().pushed == 1
        result = s2.sync_once()
        assert result.quarantined == 1
        assert "unique value already held" in s2.quarantine()[0]["reason"]
        assert fleet.cloud_item("tag#", "tag#2") is None
        assert d2.Tag.get({"id": "1"})["name"] == "red"  # pulled, with its sentinel
    finally:
        fleet.close()
