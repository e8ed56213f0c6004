"""Table: create_table from the schema, context, fetch, batches, transactions, low-level API, streams."""

from __future__ import annotations

import pytest

from dynabase.model import OneTableArgError, Table, TransactionError, ValidationError

from .conftest import SCHEMA, raw_item, raw_items


def test_table_definition_from_schema(table):
    definition = table.get_table_definition()
    assert definition["KeySchema"] == [
        {"AttributeName": "pk", "KeyType": "HASH"},
        {"AttributeName": "sk", "KeyType": "RANGE"},
    ]
    gsis = {g["IndexName"]: g for g in definition["GlobalSecondaryIndexes"]}
    assert gsis["gs1"]["Projection"] == {"ProjectionType": "ALL"}
    assert gsis["gs2"]["Projection"] == {"ProjectionType": "KEYS_ONLY"}
    (lsi,) = definition["LocalSecondaryIndexes"]
    assert lsi["IndexName"] == "ls1" and lsi["KeySchema"][0]["AttributeName"] == "pk"
    assert lsi["Projection"] == {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["name", "status"]}
    described = table.describe_table()["Table"]
    assert {g["IndexName"] for g in described["GlobalSecondaryIndexes"]} == {"gs1", "gs2"}
    assert table.exists()


def test_numeric_key_attribute_definition(make_model_table):
    schema = {
        "version": "0.0.1",
        "indexes": {"primary": {"hash": "pk", "sort": "n"}},
        "models": {"N": {"pk": {"type": "string"}, "n": {"type": "number"}}},
    }
    table = make_model_table(schema)
    types = {
        a["AttributeName"]: a["AttributeType"] for a in table.get_table_definition()["AttributeDefinitions"]
    }
    assert types == {"pk": "S", "n": "N"}
    N = table.model("N")
    for n in (10, 2, 33):
        N.create({"pk": "x", "n": n})
    assert [i["n"] for i in N.find({"pk": "x", "n": {">": 5}})] == [10, 33]


def test_delete_table_needs_confirmation(make_model_table):
    table = make_model_table()
    with pytest.raises(OneTableArgError):
        table.delete_table()
    table.delete_table("DeleteTableForever")
    assert not table.exists()


def test_context_fills_templates_and_fields(table):
    User = table.model("User")
    table.set_context({"accountId": "tenant1"})
    User.create({"email": "c@t.com"})
    assert raw_item(table, "account#tenant1", "user#c@t.com")["accountId"] == {"S": "tenant1"}
    assert User.get({"email": "c@t.com"})["accountId"] == "tenant1"
    # context overrides properties (a tenant cannot write into another tenant)
    User.create({"email": "d@t.com", "accountId": "other"})
    assert raw_item(table, "account#tenant1", "user#d@t.com") is not None
    assert [u["email"] for u in User.find({})] == ["c@t.com", "d@t.com"]
    table.set_context({"role": "admin"}, merge=True)
    assert table.get_context() == {"accountId": "tenant1", "role": "admin"}
    # a per-call context replaces the table's
    assert User.get({"email": "c@t.com", "accountId": "tenant1"}, context={}) is not None
    table.clear_context()
    assert table.get_context() == {}
    with pytest.raises(ValidationError):
        User.get({"email": "c@t.com"})


def test_fetch_groups_collection_by_type(make_model_table):
    schema = {
        "version": "0.0.1",
        "indexes": {"primary": {"hash": "pk", "sort": "sk"}},
        "models": {
            "Account": {
                "pk": {"type": "string", "value": "account#${name}"},
                "sk": {"type": "string", "value": "account#"},
                "name": {"type": "string", "required": True},
            },
            "User": {
                "pk": {"type": "string", "value": "account#${accountName}"},
                "sk": {"type": "string", "value": "user#${email}"},
                "accountName": {"type": "string", "required": True},
                "email": {"type": "string", "required": True},
            },
            "Invoice": {
                "pk": {"type": "string", "value": "account#${accountName}"},
                "sk": {"type": "string", "value": "invoice#${n}"},
                "accountName": {"type": "string", "required": True},
                "n": {"type": "number", "required": True},
            },
        },
    }
    table = make_model_table(schema)
    table.Account.create({"name": "acme"})
    for email in ("a@x", "b@x"):
        table.User.create({"accountName": "acme", "email": email})
    table.Invoice.create({"accountName": "acme", "n": 1})
    got = table.fetch(["Account", "User"], {"pk": "account#acme"})
    assert sorted(got) == ["Account", "User"]
    assert [u["email"] for u in got["User"]] == ["a@x", "b@x"]
    assert got["Account"][0]["name"] == "acme" and got["Account"][0]["sk"] == "account#"
    # the partition may also be given by the first model's key properties
    again = table.fetch(["User", "Invoice"], {"name": "acme", "accountName": "acme"})
    assert len(again["User"]) == 2 and again["Invoice"][0]["n"] == 1
    with pytest.raises(ValidationError):
        table.fetch(["Nope"], {"pk": "account#acme"})


def test_batch_write_and_get(table):
    Item = table.model("Item")
    batch = {}
    for seq in range(40):  # more than one BatchWriteItem (25)
        Item.create({"group": "b", "seq": seq, "label": f"l{seq}"}, batch=batch)
    assert raw_items(table) == []
    assert table.batch_write(batch) is True
    assert len(raw_items(table)) == 40
    batch = {}
    for seq in range(0, 40, 3):
        Item.get({"group": "b", "seq": seq}, batch=batch)
    got = table.batch_get(batch, consistent=True)
    assert sorted(i["seq"] for i in got) == list(range(0, 40, 3))
    assert all(i["label"] == f"l{i['seq']}" for i in got)
    batch = {}
    for seq in range(40):
        Item.remove({"group": "b", "seq": seq}, batch=batch)
    table.batch_write(batch)
    assert raw_items(table) == []


def test_batch_get_over_100_keys(table):
    Item = table.model("Item")
    batch = {}
    for seq in range(130):
        Item.create({"group": "big", "seq": seq}, batch=batch)
    table.batch_write(batch)
    batch = {}
    for seq in range(130):
        Item.get({"group": "big", "seq": seq}, batch=batch)
    assert len(table.batch_get(batch)) == 130


class FlakyClient:
    """Wraps a client: the first batch calls leave half their requests unprocessed."""

    def __init__(self, client, failures=2):
        self.client = client
        self.failures = failures
        self.calls = 0

    def __getattr__(self, name):
        return getattr(self.client, name)

    def batch_write_item(self, RequestItems):  # noqa: N803
        self.calls += 1
        if self.failures:
            self.failures -= 1
            name, requests = next(iter(RequestItems.items()))
            half = len(requests) // 2
            self.client.batch_write_item(RequestItems={name: requests[:half]})
            return {"UnprocessedItems": {name: requests[half:]}}
        return self.client.batch_write_item(RequestItems=RequestItems)

    def batch_get_item(self, RequestItems):  # noqa: N803
        self.calls += 1
        if self.failures:
            self.failures -= 1
            name, entry = next(iter(RequestItems.items()))
            keys = entry["Keys"]
            half = len(keys) // 2
            done = self.client.batch_get_item(RequestItems={name: {**entry, "Keys": keys[:half]}})
            return {"Responses": done["Responses"], "UnprocessedKeys": {name: {**entry, "Keys": keys[half:]}}}
        return self.client.batch_get_item(RequestItems=RequestItems)


def test_batch_retries_unprocessed_with_backoff(client, make_model_table):
    table = make_model_table()
    delays = []
    flaky = FlakyClient(client)
    retrying = Table(table.name, flaky, SCHEMA, sleep=delays.append)
    Item = retrying.model("Item")
    batch = {}
    for seq in range(10):
        Item.create({"group": "r", "seq": seq}, batch=batch)
    assert retrying.batch_write(batch) is True
    assert len(raw_items(table)) == 10
    assert flaky.calls == 3 and delays == [0.01, 0.02]
    flaky.failures, flaky.calls = 2, 0
    delays.clear()
    batch = {}
    for seq in range(10):
        Item.get({"group": "r", "seq": seq}, batch=batch)
    assert len(retrying.batch_get(batch)) == 10
    assert delays == [0.01, 0.02]


def test_batch_reprocess_false_returns_leftovers(client, make_model_table):
    table = make_model_table()
    flaky = FlakyClient(client, failures=1)
    retrying = Table(table.name, flaky, SCHEMA, sleep=lambda s: None)
    batch = {}
    for seq in range(4):
        retrying.Item.create({"group": "x", "seq": seq}, batch=batch)
    assert retrying.batch_write(batch, reprocess=False) is False
    assert len(batch["RequestItems"][table.name]) == 2
    assert retrying.batch_write(batch) is True
    assert len(raw_items(table)) == 4


def test_transaction_write_and_get(table):
    User, Item = table.model("User"), table.model("Item")
    User.create({"accountId": "t", "email": "t@t.com", "age": 1})
    transaction = {}
    Item.create({"group": "t", "seq": 1}, transaction=transaction)
    User.update({"accountId": "t", "email": "t@t.com", "age": 2}, transaction=transaction)
    Item.check({"group": "t", "seq": 9}, exists=False, transaction=transaction)
    assert table.transact("write", transaction) is True
    assert User.get({"accountId": "t", "email": "t@t.com"})["age"] == 2
    transaction = {}
    User.get({"accountId": "t", "email": "t@t.com"}, transaction=transaction)
    Item.get({"group": "t", "seq": 1}, transaction=transaction)
    got = table.transact("get", transaction)
    assert [sorted(g)[:2] for g in got] and {g.get("age") for g in got} == {2, None}
    assert table.group_by_type(table.transact("get", transaction, hidden=True)).keys() == {"User", "Item"}


def test_failed_transaction_writes_nothing(table):
    User, Item = table.model("User"), table.model("Item")
    User.create({"accountId": "t", "email": "t@t.com", "age": 1})
    before = raw_items(table)
    transaction = {}
    Item.create({"group": "t", "seq": 1}, transaction=transaction)
    User.update({"accountId": "t", "email": "t@t.com", "age": 5}, transaction=transaction)
    Item.check({"group": "t", "seq": 2}, where="attribute_exists(${pk})", transaction=transaction)
    with pytest.raises(TransactionError) as info:
        table.transact("write", transaction)
    assert "ConditionalCheckFailed" in info.value.reasons
    assert raw_items(table) == before


def test_low_level_api(table):
    table.put_item({"pk": "raw#1", "sk": "x", "anything": 5, "_type": "Raw"})
    assert table.get_item({"pk": "raw#1", "sk": "x"}) == {
        "pk": "raw#1",
        "sk": "x",
        "anything": 5,
        "_type": "Raw",
    }
    assert table.update_item({"pk": "raw#1", "sk": "x", "anything": 6})["anything"] == 6
    assert [i["anything"] for i in table.query_items({"pk": "raw#1"})] == [6]
    assert len(table.scan_items()) == 1
    table.delete_item({"pk": "raw#1", "sk": "x"})
    assert table.get_item({"pk": "raw#1", "sk": "x"}) is None


def test_throw_false(table):
    assert table.model("User").update({"accountId": "q", "email": "q@q.com", "age": 1}, throw=False) is None


def test_stream_records(table):
    User = table.model("User")
    item = {"pk": {"S": "account#s"}, "sk": {"S": "user#s@s"}, "_type": {"S": "User"}, "email": {"S": "s@s"}}
    records = [{"eventName": "INSERT", "dynamodb": {"NewImage": item}}]
    parsed = table.stream(records)
    assert parsed == {"User": [{"type": "INSERT", "new": {"email": "s@s", "role": "user"}}]}
    assert User.name == "User"


def test_table_accepts_a_schema_path(tmp_path):
    import pathlib

    import dynabase
    from dynabase.model import Table

    path = pathlib.Path(tmp_path) / "schema.json"
    path.write_text(
        '{"format": "onetable:1.1.0", "version": "0.0.1", "indexes": {"primary": {"hash": "pk", "sort": "sk"}},'
        ' "models": {"Thing": {"pk": {"type": "string", "value": "thing#${id}"},'
        ' "sk": {"type": "string", "value": "thing#"}, "id": {"type": "string", "required": true}}}}'
    )
    table = Table("things", dynabase.connect(":memory:"), path)
    assert "Thing" in table.list_models()
