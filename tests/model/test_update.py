"""update: set/add/remove/delete/push params, partial nested updates, nulls, conditions."""

from __future__ import annotations

import pytest

from dynabase.model import ConditionFailedError, OneTableArgError

from .conftest import raw_item

KEY = {"accountId": "acme", "email": "u@acme.com"}


@pytest.fixture
def User(table):
    model = table.model("User")
    model.create(
        {
            **KEY,
            "name": "Una",
            "age": 30,
            "tags": {"a", "b"},
            "history": ["x"],
            "address": {"street": "1 Main", "city": "Springfield", "zip": "12345"},
            "prefs": {"theme": "dark", "lang": "en"},
        }
    )
    return model


def stored(table):
    return raw_item(table, "account#acme", "user#u@acme.com")


def test_set_expression(User, table):
    updated = User.update(KEY, set={"age": "${age} + {5}", "status": "{ok}"})
    assert updated["age"] == 35 and updated["status"] == "ok"
    updated = User.update(KEY, set={"name": "plain text"})
    assert updated["name"] == "plain text"


def test_add(User):
    assert User.update(KEY, add={"age": 2})["age"] == 32
    assert User.update(KEY, add={"tags": ["c"]})["tags"] == {"a", "b", "c"}


def test_delete_from_set(User):
    assert User.update(KEY, delete={"tags": ["a"]})["tags"] == {"b"}


def test_remove(User, table):
    updated = User.update(KEY, remove=["name", "age"])
    assert "name" not in updated and "age" not in updated
    assert "name" not in stored(table)


def test_none_removes_attribute(User, table):
    updated = User.update({**KEY, "name": None})
    assert "name" not in updated
    assert "name" not in stored(table)


def test_the_callers_remove_list_is_left_as_given(User, table):
    """A None property joins the attributes to remove in the call's own list, not in the caller's."""
    removing = ["age"]
    updated = User.update({**KEY, "name": None}, remove=removing)
    assert "name" not in updated and "age" not in updated
    assert removing == ["age"]


def test_push(User):
    assert User.update(KEY, push={"history": ["y", "z"]})["history"] == ["x", "y", "z"]
    assert User.update(KEY, push={"history": "w"})["history"] == ["x", "y", "z", "w"]


def test_push_creates_list(table):
    Item = table.model("Item")
    Item.create({"group": "p", "seq": 1})
    # push onto a field that does not exist yet (list_append over if_not_exists)
    updated = table.model("User").upsert({"accountId": "p", "email": "p@p.com"}, push={"history": [1]})
    assert updated["history"] == [1]


def test_cannot_touch_keys(User):
    with pytest.raises(OneTableArgError):
        User.update(KEY, set={"pk": "{x}"})


def test_partial_nested_update(User, table):
    updated = User.update({**KEY, "address": {"city": "Shelbyville"}})
    assert updated["address"] == {"street": "1 Main", "city": "Shelbyville", "zip": "12345"}
    assert stored(table)["address"]["M"]["city"] == {"S": "Shelbyville"}


def test_partial_nested_none_removes_member(User):
    updated = User.update({**KEY, "address": {"street": None}})
    assert updated["address"] == {"city": "Springfield", "zip": "12345"}


def test_partial_false_replaces_object(User):
    updated = User.update({**KEY, "address": {"city": "Ogdenville"}}, partial=False)
    assert updated["address"] == {"city": "Ogdenville"}


def test_plain_object_is_replaced(User):
    updated = User.update({**KEY, "prefs": {"theme": "light"}})
    assert updated["prefs"] == {"theme": "light"}


def test_partial_table_default_off(make_model_table):
    table = make_model_table(partial=False)
    User = table.model("User")
    User.create({**KEY, "address": {"street": "s", "city": "c"}})
    assert User.update({**KEY, "address": {"city": "d"}})["address"] == {"city": "d"}


def test_update_where_condition(User):
    with pytest.raises(ConditionFailedError):
        User.update({**KEY, "name": "x"}, where="${age} > {100}")
    assert User.update({**KEY, "name": "y"}, where="${age} = {30}")["name"] == "y"


def test_return_values(User):
    assert User.update({**KEY, "age": 31}, return_="NONE") is None
    old = User.update({**KEY, "age": 32}, **{"return": "ALL_OLD"})
    assert old["age"] == 31
    # return_='get' does not ask DynamoDB for values; the result is a get
    assert User.update({**KEY, "age": 33}, return_="UPDATED_NEW")["age"] == 33


def test_update_gsi_keys_follow_templates(User, table):
    User.update({**KEY, "name": "Neo"})
    assert stored(table)["gs2pk"] == {"S": "user-name#Neo"}
    assert User.find({"name": "Neo"}, index="gs2")[0]["email"] == "u@acme.com"


def test_update_timestamps(User, table):
    before = stored(table)
    updated = User.update({**KEY, "age": 40})
    after = stored(table)
    assert after["created"] == before["created"]
    assert after["updated"]["S"] >= before["updated"]["S"]
    assert updated["updated"] >= updated["created"]


def test_timestamps_false_param(User, table):
    before = stored(table)["updated"]
    User.update({**KEY, "age": 41}, timestamps=False)
    assert stored(table)["updated"] == before
