"""create / get / find / update / remove: the items written, and what comes back."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from dynabase.model import ConditionFailedError, NonUniqueError, Page, ValidationError

from .conftest import raw_item, raw_items


def test_create_writes_onetable_item(table):
    User = table.model("User")
    user = User.create({"accountId": "acme", "email": "ann@acme.com", "name": "Ann", "age": 42})
    item = raw_item(table, "account#acme", "user#ann@acme.com")
    assert item["_type"] == {"S": "User"}
    assert item["accountId"] == {"S": "acme"}
    assert item["age"] == {"N": "42"}
    assert item["role"] == {"S": "user"}  # default
    assert item["ls1sk"] == {"S": "user-age#0042"}  # padded template
    assert item["gs2pk"] == {"S": "user-name#Ann"}
    # isoDates: created/updated are ISO strings with milliseconds, equal on create
    assert item["created"]["S"].endswith("Z") and len(item["created"]["S"]) == 24
    assert item["created"] == item["updated"]
    # the result: fields by name, hidden (templated) fields and the type left out
    assert user["email"] == "ann@acme.com" and user["age"] == 42 and user["role"] == "user"
    assert "pk" not in user and "sk" not in user and "_type" not in user
    assert isinstance(user["created"], datetime) and user["created"].tzinfo is timezone.utc


def test_create_refuses_existing_key(table):
    User = table.model("User")
    User.create({"accountId": "acme", "email": "a@acme.com"})
    with pytest.raises(ConditionFailedError) as info:
        User.create({"accountId": "acme", "email": "a@acme.com", "name": "again"})
    assert info.value.code == "ConditionalCheckFailedException"
    assert "name" not in table.model("User").get({"accountId": "acme", "email": "a@acme.com"})
    # exists=None overwrites
    User.create({"accountId": "acme", "email": "a@acme.com", "name": "again"}, exists=None)
    assert User.get({"accountId": "acme", "email": "a@acme.com"})["name"] == "again"


def test_get_full_key_and_missing(table):
    User = table.model("User")
    User.create({"accountId": "acme", "email": "b@acme.com", "age": 7})
    got = User.get({"accountId": "acme", "email": "b@acme.com"})
    assert got["age"] == 7
    assert User.get({"accountId": "acme", "email": "nobody@acme.com"}) is None


def test_get_hidden_returns_keys_and_type(table):
    User = table.model("User")
    User.create({"accountId": "acme", "email": "c@acme.com"})
    got = User.get({"accountId": "acme", "email": "c@acme.com"}, hidden=True)
    assert got["pk"] == "account#acme" and got["sk"] == "user#c@acme.com" and got["_type"] == "User"


def test_get_partial_key_falls_back_to_find(table):
    Item = table.model("Item")
    Item.create({"group": "solo", "seq": 1})
    got = Item.get({"group": "solo"})
    assert got["seq"] == 1
    Item.create({"group": "solo", "seq": 2})
    with pytest.raises(NonUniqueError) as info:
        Item.get({"group": "solo"})
    assert info.value.code == "NonUniqueError"


def test_get_on_index(table):
    Account = table.model("Account")
    acct = Account.create({"name": "Acme"})
    got = Account.get({"name": "Acme"}, index="gs1")
    assert got["id"] == acct["id"]


def test_get_follow_keys_only_index(table):
    User = table.model("User")
    User.create({"accountId": "acme", "email": "f@acme.com", "name": "Fay", "age": 30})
    # gs2 projects keys only and is declared follow: the full item is fetched from the primary index
    got = User.get({"name": "Fay"}, index="gs2")
    assert got["age"] == 30 and got["email"] == "f@acme.com"
    found = User.find({"name": "Fay"}, index="gs2", follow=False, hidden=True)
    assert "age" not in found[0]


def test_find_returns_page_of_model_items(table):
    User = table.model("User")
    for i in range(3):
        User.create({"accountId": "acme", "email": f"u{i}@acme.com", "age": 20 + i})
    users = User.find({"accountId": "acme"})
    assert isinstance(users, Page)
    assert [u["age"] for u in users] == [20, 21, 22]
    assert users.next is None


def test_update_returns_all_new(table):
    User = table.model("User")
    User.create({"accountId": "acme", "email": "d@acme.com", "age": 1})
    updated = User.update({"accountId": "acme", "email": "d@acme.com", "name": "Dee"})
    assert updated["name"] == "Dee" and updated["age"] == 1
    assert updated["updated"] >= updated["created"]


def test_update_requires_existing_item(table):
    User = table.model("User")
    with pytest.raises(ConditionFailedError):
        User.update({"accountId": "acme", "email": "ghost@acme.com", "name": "x"})
    assert raw_items(table) == []


def test_upsert_creates_with_created_timestamp(table):
    User = table.model("User")
    made = User.upsert({"accountId": "acme", "email": "e@acme.com", "age": 5})
    assert made["age"] == 5 and made["role"] == "user"
    item = raw_item(table, "account#acme", "user#e@acme.com")
    assert item["_type"] == {"S": "User"}
    assert "created" in item and "updated" in item
    created = item["created"]
    User.upsert({"accountId": "acme", "email": "e@acme.com", "age": 6})
    again = raw_item(table, "account#acme", "user#e@acme.com")
    assert again["created"] == created and again["age"] == {"N": "6"}


def test_remove_returns_old_item(table):
    User = table.model("User")
    User.create({"accountId": "acme", "email": "r@acme.com", "age": 3})
    removed = User.remove({"accountId": "acme", "email": "r@acme.com"})
    assert removed["age"] == 3
    assert raw_items(table) == []
    assert User.remove({"accountId": "acme", "email": "r@acme.com"}) is None
    with pytest.raises(ConditionFailedError):
        User.remove({"accountId": "acme", "email": "r@acme.com"}, exists=True)


def test_remove_many(table):
    Item = table.model("Item")
    for seq in range(4):
        Item.create({"group": "g", "seq": seq})
    with pytest.raises(ValidationError):
        Item.remove({"group": "g"})  # missing sort key without many
    removed = Item.remove({"group": "g"}, many=True)
    assert sorted(r["seq"] for r in removed) == [0, 1, 2, 3]
    assert raw_items(table) == []


def test_remove_with_where_condition(table):
    User = table.model("User")
    User.create({"accountId": "acme", "email": "w@acme.com", "age": 10})
    with pytest.raises(ConditionFailedError):
        User.remove({"accountId": "acme", "email": "w@acme.com"}, where="${age} > {20}")
    assert raw_item(table, "account#acme", "user#w@acme.com") is not None
    User.remove({"accountId": "acme", "email": "w@acme.com"}, where="${age} < {20}")
    assert raw_item(table, "account#acme", "user#w@acme.com") is None


def test_scan_filters_by_type(table):
    table.model("User").create({"accountId": "a", "email": "s@a.com"})
    table.model("Item").create({"group": "g", "seq": 1})
    users = table.model("User").scan()
    assert [u["email"] for u in users] == ["s@a.com"]
    items = table.model("Item").scan({"seq": 1})
    assert [i["seq"] for i in items] == [1]


def test_init_builds_without_writing(table):
    User = table.model("User")
    item = User.init({"accountId": "acme", "email": "i@acme.com"})
    assert item["role"] == "user" and item["age"] is None
    assert item["pk"] == "account#acme"
    assert raw_items(table) == []


def test_execute_false_returns_request(table):
    User = table.model("User")
    cmd = User.get({"accountId": "acme", "email": "x@acme.com"}, execute=False)
    assert cmd["TableName"] == table.name
    assert cmd["Key"] == {"pk": {"S": "account#acme"}, "sk": {"S": "user#x@acme.com"}}
    cmd = User.find({"accountId": "acme"}, execute=False)
    assert cmd["KeyConditionExpression"] == "#_0 = :_0 and begins_with(#_1, :_1)"
    assert cmd["ExpressionAttributeValues"][":_1"] == {"S": "user#"}


def test_table_level_model_calls(table):
    table.create("Item", {"group": "t", "seq": 1, "label": "one"})
    assert table.get("Item", {"group": "t", "seq": 1})["label"] == "one"
    assert len(table.find("Item", {"group": "t"})) == 1
    table.update("Item", {"group": "t", "seq": 1, "label": "uno"})
    assert table.Item.get({"group": "t", "seq": 1})["label"] == "uno"
    table.remove("Item", {"group": "t", "seq": 1})
    assert table.scan("Item") == []
