"""Unique fields across the fleet: a pushed item claims its sentinels in the cloud in the item's transaction, a
claim another item holds is a refused change, and pulled items bring their sentinels to the device."""

from __future__ import annotations

import pytest

from dynabase.model.errors import UniqueError

from .test_sync import SCHEMA as BASE
from .test_sync import World, world_fixture

SCHEMA = {
    **BASE,
    "process": {"Member": {"sync": "both"}, "Note": {"sync": "both"}},
    "models": {
        "Member": {
            "pk": {"type": "string", "value": "member#"},
            "sk": {"type": "string", "value": "member#${id}"},
            "id": {"type": "string", "required": True},
            "email": {"type": "string", "unique": True},
        },
        "Note": BASE["models"]["Note"],
    },
}


world = world_fixture(SCHEMA)


def _sentinel(world: World, email: str) -> dict | None:
    return world.cloud_item(f"_unique#Member#email#{email}", "_unique#")


def test_a_pushed_item_holds_its_unique_values_in_the_cloud(world: World) -> None:
    d1, s1 = world.device("dev1")
    d1.Member.create({"id": "m1", "email": "a@x"})
    assert s1.sync_once().pushed == 1
    assert _sentinel(world, "a@x") is not None
    with pytest.raises(UniqueError):
        world.cloud.Member.create({"id": "m2", "email": "a@x"})  # succeeded before: two members, one email
    d1.Member.update({"id": "m1", "email": "b@x"})  # the value moves: the old one is released
    assert s1.sync_once().pushed == 1
    assert _sentinel(world, "a@x") is None and _sentinel(world, "b@x") is not None
    world.cloud.Member.create({"id": "m2", "email": "a@x"})
    d1.Member.remove({"id": "m1"})  # a delete releases its values
    s1.sync_once()
    assert _sentinel(world, "b@x") is None
    # pulled items hold their values on the device too
    assert d1.Member.get({"id": "m2"})["email"] == "a@x"
    with pytest.raises(UniqueError):
        d1.Member.create({"id": "m3", "email": "a@x"})
    world.cloud.Member.update({"id": "m2", "email": "c@x"})
    s1.sync_once()
    d1.Member.create({"id": "m3", "email": "a@x"})  # released on the device when the pulled item moved on
    with pytest.raises(UniqueError):
        d1.Member.create({"id": "m4", "email": "c@x"})
    world.cloud.Member.remove({"id": "m2"})  # a pulled delete releases them too
    s1.sync_once()
    d1.Member.create({"id": "m4", "email": "c@x"})


def test_two_offline_devices_claiming_one_value(world: World) -> None:
    """The first push holds the value; the second device's item is refused (quarantined, the value named) while
    the rest of its changes sync; it pulls the winner, and a new write of its item (another value) syncs."""
    d1, s1 = world.device("dev1")
    d2, s2 = world.device("dev2")
    d1.Member.create({"id": "m1", "email": "same@x"})
    d2.Member.create({"id": "m2", "email": "same@x"})
    d2.Note.create({"id": "n", "text": "also offline"})
    assert s1.sync_once().pushed == 1
    result = s2.sync_once()
    assert (result.pushed, result.quarantined, result.pulled) == (1, 1, 1)
    (refused,) = s2.status().quarantined
    assert refused["key"] == {"pk": "member#", "sk": "member#m2"}
    assert "_unique#Member#email#same@x" in refused["reason"]
    assert world.cloud.Member.get({"id": "m2"}) is None and world.cloud.Note.get({"id": "n"}) is not None
    assert d2.Member.get({"id": "m1"})["email"] == "same@x"  # the winner reaches the loser
    d2.Member.update({"id": "m2", "email": "other@x"})
    assert s2.sync_once().pushed == 1 and s2.status().quarantined == []
    assert world.cloud.Member.get({"id": "m2"})["email"] == "other@x"


def test_a_unique_value_the_cloud_cannot_hold_is_refused(world: World) -> None:
    """A raw device item whose unique value makes a sentinel key over DynamoDB's 2048-byte partition key: the
    transaction is refused for what it is (quarantined), not retried forever, and the rest syncs."""
    d1, s1 = world.device("dev1")
    item = {"pk": {"S": "member#"}, "sk": {"S": "member#long"}, "_type": {"S": "Member"}, "id": {"S": "long"}}
    d1.client.put_item(TableName=d1.name, Item={**item, "email": {"S": "e" * 3000}})
    d1.Member.create({"id": "fine", "email": "fine@x"})
    result = s1.sync_once()
    assert (result.pushed, result.quarantined) == (1, 1)
    (refused,) = s1.status().quarantined
    assert refused["key"]["sk"] == "member#long" and "ValidationException" in refused["reason"]
