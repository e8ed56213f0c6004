"""Entity layer: a global index with a multi-attribute key (``hash``/``sort`` naming lists of attributes)."""

from __future__ import annotations

import pytest

from dynabase.model import OneTableArgError, OneTableError

SCHEMA = {
    "format": "onetable:1.1.0",
    "version": "0.0.1",
    "indexes": {
        "primary": {"hash": "pk", "sort": "sk"},
        "gs3": {"hash": ["tenant", "region"], "sort": ["status", "created"], "project": "all"},
        "gs4": {"hash": ["tenant", "region"], "project": "keys"},
    },
    "models": {
        "Order": {
            "pk": {"type": "string", "value": "order#${id}"},
            "sk": {"type": "string", "value": "order#"},
            "id": {"type": "string", "generate": "ulid"},
            "tenant": {"type": "string", "required": True},
            "region": {"type": "string"},
            "status": {"type": "string", "required": True},
            "created": {"type": "number", "required": True},
            "total": {"type": "number"},
        },
    },
}

ROWS = [
    ("acme", "eu", "open", 3, 30),
    ("acme", "eu", "open", 1, 10),
    ("acme", "eu", "paid", 2, 20),
    ("acme", "us", "open", 4, 11),
    ("zeta", "eu", "open", 1, 12),
]


@pytest.fixture
def orders(make_model_table):
    table = make_model_table(SCHEMA)
    Order = table.model("Order")
    for tenant, region, status, created, total in ROWS:
        Order.create(
            {"tenant": tenant, "region": region, "status": status, "created": created, "total": total}
        )
    Order.create({"tenant": "acme", "status": "open", "created": 9, "total": 99})  # no region: in no index
    return Order


def totals(page):
    return [o["total"] for o in page]


def test_create_table_declares_the_multi_attribute_key(orders):
    table = orders.table
    described = table.client.describe_table(TableName=table.name)["Table"]
    by_name = {i["IndexName"]: i["KeySchema"] for i in described["GlobalSecondaryIndexes"]}
    assert by_name["gs3"] == [
        {"AttributeName": "tenant", "KeyType": "HASH"},
        {"AttributeName": "region", "KeyType": "HASH"},
        {"AttributeName": "status", "KeyType": "RANGE"},
        {"AttributeName": "created", "KeyType": "RANGE"},
    ]
    assert by_name["gs4"] == by_name["gs3"][:2]
    types = {d["AttributeName"]: d["AttributeType"] for d in described["AttributeDefinitions"]}
    assert types["created"] == "N" and types["status"] == "S"


@pytest.mark.parametrize(
    ("properties", "expected"),
    [
        ({"tenant": "acme", "region": "eu"}, [10, 30, 20]),
        ({"tenant": "acme", "region": "eu", "status": "open"}, [10, 30]),
        ({"tenant": "acme", "region": "eu", "status": "open", "created": 3}, [30]),
        ({"tenant": "acme", "region": "eu", "status": "open", "created": {">": 1}}, [30]),
        ({"tenant": "acme", "region": "eu", "status": {"begins": "pa"}}, [20]),
        ({"tenant": "acme", "region": "eu", "status": {"between": ["o", "p"]}}, [10, 30]),
        ({"tenant": "acme", "region": "us"}, [11]),
        ({"tenant": "acme", "region": "eu", "total": 20}, [20]),  # a non-key property filters
    ],
)
def test_find_builds_the_key_condition_from_the_properties(orders, properties, expected):
    assert totals(orders.find(properties, index="gs3")) == expected


def test_find_on_a_partition_only_multi_attribute_key(orders):
    found = orders.find({"tenant": "acme", "region": "eu"}, index="gs4", follow=True)
    assert sorted(totals(found)) == [10, 20, 30]


def test_find_needs_every_partition_attribute(orders):
    with pytest.raises(OneTableError, match='Missing hash key attributes region for "find" on index "gs3"'):
        orders.find({"tenant": "acme"}, index="gs3")


def test_find_uses_sort_attributes_left_to_right(orders):
    with pytest.raises(OneTableArgError, match="names created but not status"):
        orders.find({"tenant": "acme", "region": "eu", "created": 1}, index="gs3")


def test_find_pages_through_the_index(orders):
    seen, cursor = [], None
    while True:
        page = orders.find({"tenant": "acme", "region": "eu"}, index="gs3", limit=1, next=cursor)
        seen += totals(page)
        cursor = page.next
        if not cursor:
            break
    assert seen == [10, 30, 20]


def test_updating_a_key_attribute_moves_the_item(orders):
    (order,) = orders.find({"tenant": "acme", "region": "us"}, index="gs3")
    orders.update({"id": order["id"], "region": "eu"})
    assert totals(orders.find({"tenant": "acme", "region": "eu", "status": "open"}, index="gs3")) == [
        10,
        30,
        11,
    ]


def test_the_stored_schema_keeps_the_attribute_lists(orders):
    table = orders.table
    table.save_schema()
    doc = table.read_schema()
    assert doc["indexes"]["gs3"]["hash"] == ["tenant", "region"]
    assert doc["indexes"]["gs3"]["sort"] == ["status", "created"]
    again = type(table)(table.name, table.client, doc)
    found = again.model("Order").find({"tenant": "acme", "region": "eu", "status": "paid"}, index="gs3")
    assert totals(found) == [20]
