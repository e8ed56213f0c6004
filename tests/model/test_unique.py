"""Unique fields: ``_unique#`` sentinel items written in one transaction with the item."""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dynabase
from dynabase.model import NotFoundError, OneTableError, Table, UniqueError

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


def test_removing_an_item_that_is_not_there_leaves_another_items_sentinels(utable):
    """The values given to remove name another item's sentinels when the item itself is not stored: they stay,
    and that item's values stay taken (OneTable removes them, and a second item could then take the value)."""
    User = utable.model("User")
    User.create({"id": "1", "email": "a@x.com", "phone": "555", "org": "acme", "handle": "ann"})
    before = raw_items(utable)
    assert (
        User.remove({"id": "2", "email": "a@x.com", "phone": "555", "org": "acme", "handle": "ann"}) is None
    )
    assert raw_items(utable) == before
    with pytest.raises(UniqueError):
        User.create({"id": "3", "email": "a@x.com"})
    with pytest.raises(NotFoundError):
        User.remove({"id": "2", "email": "a@x.com"}, exists=True)
    assert raw_items(utable) == before


def test_removing_an_item_removes_its_stored_values_sentinels_not_the_given_ones(utable):
    User = utable.model("User")
    User.create({"id": "1", "email": "a@x.com"})
    User.create({"id": "2", "email": "b@x.com"})
    User.remove({"id": "1", "email": "b@x.com"})  # the stored email of user 1 is a@x.com
    assert keys(utable) == ["_unique#User#email#b@x.com", "user#2"]
    with pytest.raises(UniqueError):
        User.create({"id": "3", "email": "b@x.com"})


def test_changing_the_scope_moves_the_sentinel_to_the_new_scope(utable):
    """A scoped value is unique within its scope: moving the item to another scope moves its sentinel (OneTable
    leaves it in the old scope, which then stays taken while the new one is not guarded)."""
    User = utable.model("User")
    User.create({"id": "1", "org": "acme", "handle": "ann"})
    User.update({"id": "1", "org": "beta"})
    assert keys(utable) == ["_unique#beta#User#handle#ann", "user#1"]
    with pytest.raises(UniqueError):
        User.create({"id": "2", "org": "beta", "handle": "ann"})
    User.create({"id": "3", "org": "acme", "handle": "ann"})  # free again in acme
    # a scope the item can no longer have is refused, and nothing changes
    before = raw_items(utable)
    with pytest.raises(UniqueError, match="scope"):
        User.update({"id": "1"}, remove=["org"])
    assert raw_items(utable) == before


def test_a_scoped_value_changed_alone_keeps_the_stored_scope(utable):
    User = utable.model("User")
    User.create({"id": "1", "org": "acme", "handle": "ann"})
    User.update({"id": "1", "handle": "bob"})  # org is the stored one
    assert keys(utable) == ["_unique#acme#User#handle#bob", "user#1"]


def test_a_field_given_and_removed_is_removed_and_takes_no_sentinel(utable):
    User = utable.model("User")
    User.upsert({"id": "1", "email": "a@x.com", "phone": "555"}, remove=["email"])
    assert keys(utable) == ["_unique#User#phone#555", "user#1"]
    assert "email" not in User.get({"id": "1"})
    User.create({"id": "2", "email": "a@x.com"})  # the value was never taken


def test_unique_in_caller_transaction(utable):
    User = utable.model("User")
    transaction = {}
    User.create({"id": "1", "email": "a@x.com"}, transaction=transaction)
    User.create({"id": "2", "email": "b@x.com"}, transaction=transaction)
    assert raw_items(utable) == []
    utable.transact("write", transaction)
    assert keys(utable) == ["_unique#User#email#a@x.com", "_unique#User#email#b@x.com", "user#1", "user#2"]


# == random writes keep the sentinels and the items in step ============================================================

_VALUES = st.sampled_from(["a", "b", None, "", 5, "5"])
_STEPS = st.lists(
    st.tuples(
        st.sampled_from(["create", "update", "upsert", "remove"]),
        st.dictionaries(st.sampled_from(["id", "email", "phone", "org", "handle"]), _VALUES, max_size=4),
        st.sampled_from([{}, {"remove": ["email"]}, {"remove": ["org"]}, {"exists": None}, {"exists": True}]),
    ),
    max_size=8,
)


def _sentinels_match_items(table: Table) -> None:
    """Every sentinel is one that a stored item's unique value (in its scope) needs, and every such value has one."""
    items = table.client.scan(TableName=table.name)["Items"]
    wanted = []
    for item in (i for i in items if i["_type"]["S"] == "User"):
        wanted += [f"_unique#User#{name}#{item[name]['S']}" for name in ("email", "phone") if name in item]
        if "handle" in item:
            wanted.append(f"_unique#{item['org']['S']}#User#handle#{item['handle']['S']}")
    assert sorted(i["pk"]["S"] for i in items if i["_type"]["S"] == "_Unique") == sorted(wanted)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(steps=_STEPS)
def test_random_writes_keep_each_sentinel_with_its_item(steps):
    table = Table("unique_random", dynabase.connect(":memory:"), copy.deepcopy(SCHEMA))
    table.create_table()
    User = table.model("User")
    for method, properties, params in steps:
        given_ = copy.deepcopy((properties, params))
        try:
            getattr(User, method)(properties, **({} if method == "create" else params))
        except OneTableError:
            pass
        assert (properties, params) == given_, "the call changed its arguments"
        _sentinels_match_items(table)
