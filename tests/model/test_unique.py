"""Unique fields: ``_unique#`` sentinel items written in one transaction with the item."""

from __future__ import annotations

import pytest

from dynabase.model import NotFoundError, UniqueError

from .conftest import raw_items

SCHEMA = {
    "format": "onetable:1.1.0",
    "version": "0.0.1",
    "indexes": {"primary": {"hash": "pk", "sort": "sk"}},
    "models": {
        "User": {
            "pk": {"type": "string", "value": "user#${id}"},
            "sk": {"type": "string", "value": "user#"},
            "id": {"type": "string", "required": True},
            "email": {"type": "string", "unique": True},
            "phone": {"type": "string", "unique": True},
            "org": {"type": "string"},
            "handle": {"type": "string", "unique": True, "scope": "${org}"},
        }
    },
}


def keys(table):
    return sorted(item["pk"]["S"] for item in raw_items(table))


@pytest.fixture
def utable(make_model_table):
    return make_model_table(SCHEMA)


def test_create_writes_sentinels(utable):
    User = utable.model("User")
    User.create({"id": "1", "email": "a@x.com", "phone": "555", "org": "acme", "handle": "ann"})
    assert keys(utable) == sorted(
        ["_unique#acme#User#handle#ann", "_unique#User#email#a@x.com", "_unique#User#phone#555", "user#1"]
    )
    sentinel = next(i for i in raw_items(utable) if i["pk"]["S"] == "_unique#User#email#a@x.com")
    assert sentinel == {
        "pk": {"S": "_unique#User#email#a@x.com"},
        "sk": {"S": "_unique#"},
        "_type": {"S": "_Unique"},
    }


def test_duplicate_leaves_nothing_half_written(utable):
    User = utable.model("User")
    User.create({"id": "1", "email": "a@x.com", "phone": "555"})
    before = raw_items(utable)
    with pytest.raises(UniqueError) as info:
        User.create({"id": "2", "email": "b@x.com", "phone": "555"})
    assert info.value.code == "UniqueError"
    assert raw_items(utable) == before
    assert User.get({"id": "2"}) is None


def test_same_key_fails_as_unique_error(utable):
    User = utable.model("User")
    User.create({"id": "1", "email": "a@x.com"})
    with pytest.raises(UniqueError):
        User.create({"id": "1", "email": "other@x.com"})
    assert keys(utable) == ["_unique#User#email#a@x.com", "user#1"]


def test_update_moves_sentinel(utable):
    User = utable.model("User")
    User.create({"id": "1", "email": "a@x.com", "phone": "555"})
    updated = User.update({"id": "1", "email": "new@x.com"})
    assert updated["email"] == "new@x.com"
    assert keys(utable) == ["_unique#User#email#new@x.com", "_unique#User#phone#555", "user#1"]
    # the old value is free again
    User.create({"id": "2", "email": "a@x.com"})


def test_update_to_taken_value_changes_nothing(utable):
    User = utable.model("User")
    User.create({"id": "1", "email": "a@x.com"})
    User.create({"id": "2", "email": "b@x.com"})
    before = raw_items(utable)
    with pytest.raises(UniqueError):
        User.update({"id": "2", "email": "a@x.com"})
    assert raw_items(utable) == before


def test_update_removing_unique_field_frees_value(utable):
    User = utable.model("User")
    User.create({"id": "1", "email": "a@x.com"})
    User.update({"id": "1"}, remove=["email"])
    assert keys(utable) == ["user#1"]
    User.update({"id": "1", "phone": "777"})
    assert keys(utable) == ["_unique#User#phone#777", "user#1"]


def test_update_missing_item(utable):
    with pytest.raises(NotFoundError):
        utable.model("User").update({"id": "9", "email": "z@x.com"})
    assert raw_items(utable) == []


def test_remove_deletes_sentinels(utable):
    User = utable.model("User")
    User.create({"id": "1", "email": "a@x.com", "phone": "555"})
    removed = User.remove({"id": "1"})
    assert removed["email"] == "a@x.com"
    assert raw_items(utable) == []


def test_unique_in_caller_transaction(utable):
    User = utable.model("User")
    transaction = {}
    User.create({"id": "1", "email": "a@x.com"}, transaction=transaction)
    User.create({"id": "2", "email": "b@x.com"}, transaction=transaction)
    assert raw_items(utable) == []
    utable.transact("write", transaction)
    assert keys(utable) == ["_unique#User#email#a@x.com", "_unique#User#email#b@x.com", "user#1", "user#2"]
