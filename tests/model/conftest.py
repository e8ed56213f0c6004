"""Fixtures for the entity layer: throwaway tables built from a schema, on every backend."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

from ddb_helpers import delete_table_quietly, unique_table_name
from dynabase.model import Table

#: a OneTable schema exercising most field properties (used by many tests)
SCHEMA: dict[str, Any] = {
    "format": "onetable:1.1.0",
    "version": "0.0.1",
    "indexes": {
        "primary": {"hash": "pk", "sort": "sk"},
        "gs1": {"hash": "gs1pk", "sort": "gs1sk", "project": "all"},
        "gs2": {"hash": "gs2pk", "sort": "gs2sk", "project": "keys", "follow": True},
        "ls1": {"type": "local", "sort": "ls1sk", "project": ["name", "status"]},
    },
    "models": {
        "Account": {
            "pk": {"type": "string", "value": "account#${id}"},
            "sk": {"type": "string", "value": "account#"},
            "id": {"type": "string", "generate": "ulid"},
            "name": {"type": "string", "required": True, "unique": True},
            "status": {"type": "string", "default": "active", "enum": ["active", "closed"]},
            "balance": {"type": "number", "default": 0},
            "gs1pk": {"type": "string", "value": "account-name#${name}"},
            "gs1sk": {"type": "string", "value": "account#"},
        },
        "User": {
            "pk": {"type": "string", "value": "account#${accountId}"},
            "sk": {"type": "string", "value": "user#${email}"},
            "accountId": {"type": "string", "required": True},
            "email": {"type": "string", "required": True, "validate": "/^[^@]+@[^@]+$/"},
            "name": {"type": "string"},
            "role": {"type": "string", "enum": ["user", "admin"], "default": "user"},
            "age": {"type": "number"},
            "active": {"type": "boolean"},
            "born": {"type": "date"},
            "photo": {"type": "binary"},
            "tags": {"type": "set"},
            "prefs": {"type": "object"},
            "history": {"type": "array"},
            "address": {
                "type": "object",
                "schema": {
                    "street": {"type": "string"},
                    "city": {"type": "string"},
                    "zip": {"type": "string", "validate": "/^[0-9]{5}$/"},
                },
            },
            "status": {"type": "string"},
            "ls1sk": {"type": "string", "value": "user-age#${age:4}"},
            "gs2pk": {"type": "string", "value": "user-name#${name}"},
            "gs2sk": {"type": "string", "value": "user#${email}"},
        },
        "Item": {
            "pk": {"type": "string", "value": "item#${group}"},
            "sk": {"type": "string", "value": "item#${seq:6}"},
            "group": {"type": "string", "required": True},
            "seq": {"type": "number", "required": True},
            "label": {"type": "string"},
            "color": {"type": "string"},
        },
    },
    "params": {"isoDates": True, "timestamps": True},
}


@pytest.fixture
def make_model_table(client: Any) -> Iterator[Any]:
    """``make_model_table(schema=SCHEMA, **table_options) -> Table`` with its DynamoDB table created."""
    created: list[str] = []

    def factory(schema: dict[str, Any] | None = None, *, create: bool = True, **options: Any) -> Table:
        name = unique_table_name("dynabase_model-")
        table = Table(name, client, copy.deepcopy(schema if schema is not None else SCHEMA), **options)
        if create:
            table.create_table()
            created.append(name)
        return table

    factory.created = created
    yield factory
    for name in created:
        delete_table_quietly(client, name)


@pytest.fixture
def table(make_model_table: Any) -> Table:
    return make_model_table()


def raw_items(table: Table) -> list[dict[str, Any]]:
    """Every item in the table, as stored (AttributeValues), sorted by key."""
    items: list[dict[str, Any]] = []
    kwargs: dict[str, Any] = {"TableName": table.name, "ConsistentRead": True}
    while True:
        page = table.client.scan(**kwargs)
        items.extend(page["Items"])
        if "LastEvaluatedKey" not in page:
            break
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
    return sorted(items, key=lambda i: (i["pk"].get("S", ""), i.get("sk", {}).get("S", "")))


def raw_item(table: Table, pk: str, sk: str) -> dict[str, Any] | None:
    return table.client.get_item(
        TableName=table.name, Key={"pk": {"S": pk}, "sk": {"S": sk}}, ConsistentRead=True
    ).get("Item")
