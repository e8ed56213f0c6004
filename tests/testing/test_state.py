"""Databases copied from a base with SQLite's backup API behave as the base did, and stay independent."""

from __future__ import annotations

from dynabase.client import EmbeddedClient
from dynabase.testing.state import Databases, account_of

KEYS = {
    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
    "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
    "BillingMode": "PAY_PER_REQUEST",
}


def test_a_copy_takes_writes_and_leaves_the_base_alone() -> None:
    base = Databases()
    EmbeddedClient(base.engine()).create_table(TableName="shared", **KEYS)
    EmbeddedClient(base.engine()).put_item(TableName="shared", Item={"pk": {"S": "seed"}})
    for _ in range(2):
        copy = Databases(base=base)
        client = EmbeddedClient(copy.engine())
        client.put_item(TableName="shared", Item={"pk": {"S": "mine"}})  # the copy's catalog is current
        client.create_table(TableName="other", **KEYS)
        assert client.scan(TableName="shared")["Count"] == 2
        copy.close()
    assert EmbeddedClient(base.engine()).scan(TableName="shared")["Count"] == 1
    assert base.engine().catalog.names() == ["shared"]
    base.close()


def test_only_opened_keys_are_copied_and_regions_stay_apart() -> None:
    base = Databases()
    EmbeddedClient(base.engine(region="eu-west-1")).create_table(TableName="west", **KEYS)
    copy = Databases(base=base)
    assert copy.engine(region="us-east-1").catalog.names() == []
    assert copy.engine(region="eu-west-1").catalog.names() == ["west"]
    assert copy.engine(region="eu-west-1").catalog.arn("west").split(":")[3:5] == [
        "eu-west-1",
        "123456789012",
    ]
    assert sorted(copy.opened()) == [("123456789012", "eu-west-1"), ("123456789012", "us-east-1")]


def test_account_of() -> None:
    assert account_of("AKIA", {}) == "123456789012"
    assert account_of("AKIA", {"AKIA": "1"}) == "1"
    assert account_of("444455556666", {}) == "444455556666"
    assert account_of("44445555666x", {}, "9") == "9"
