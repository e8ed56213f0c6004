"""Client style: the low-level API with expressions, conditions, transactions, batches and paginators."""

from __future__ import annotations

import re

import boto3
import pytest
from botocore.exceptions import ClientError

from ._mock import mock_aws

TABLE = "inventory"


def make_table(client):
    client.create_table(
        TableName=TABLE,
        KeySchema=[{"AttributeName": "sku", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "sku", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )


def put(client, sku, **attrs):
    item = {"sku": {"S": sku}}
    for name, value in attrs.items():
        item[name] = {"N": str(value)} if isinstance(value, int) else {"S": value}
    client.put_item(TableName=TABLE, Item=item)


@pytest.fixture
def client():
    with mock_aws():
        client = boto3.client("dynamodb")
        make_table(client)
        yield client


@pytest.mark.parametrize(
    "condition,expected",
    [
        ("qty > :n", True),
        ("qty < :n", False),
        ("qty >= :n", True),
        ("qty <> :n", True),
        ("qty BETWEEN :n AND :m", True),
        ("attribute_exists(qty)", True),
        ("attribute_not_exists(qty)", False),
        ("attribute_type(qty, :t)", True),
        ("begins_with(colour, :c)", True),
        ("contains(colour, :c)", True),
        ("size(colour) > :n", False),
        ("qty IN (:n, :m)", False),
        ("NOT qty = :n", True),
        ("qty > :n AND colour = :colour", True),
        ("qty < :n OR colour = :colour", True),
    ],
)
def test_condition_expressions(client, condition, expected):
    put(client, "s1", qty=10, colour="red")
    values = {
        ":n": {"N": "5"},
        ":m": {"N": "20"},
        ":t": {"S": "N"},
        ":c": {"S": "re"},
        ":colour": {"S": "red"},
    }
    used = {k: v for k, v in values.items() if re.search(re.escape(k) + r"\b", condition)}
    try:
        client.update_item(
            TableName=TABLE,
            Key={"sku": {"S": "s1"}},
            UpdateExpression="SET checked = :yes",
            ConditionExpression=condition,
            ExpressionAttributeValues={**used, ":yes": {"BOOL": True}},
        )
        passed = True
    except client.exceptions.ConditionalCheckFailedException:
        passed = False
    assert passed is expected


@pytest.mark.parametrize(
    "update,values,expected",
    [
        ("SET qty = qty + :n", {":n": {"N": "3"}}, {"qty": {"N": "13"}}),
        ("SET qty = qty - :n", {":n": {"N": "3"}}, {"qty": {"N": "7"}}),
        ("ADD qty :n", {":n": {"N": "-10"}}, {"qty": {"N": "0"}}),
        ("REMOVE colour", {}, {"colour": None}),
        ("SET tags = :l", {":l": {"L": [{"S": "a"}]}}, {"tags": {"L": [{"S": "a"}]}}),
        ("SET note = if_not_exists(note, :s)", {":s": {"S": "first"}}, {"note": {"S": "first"}}),
        ("SET colour = if_not_exists(colour, :s)", {":s": {"S": "blue"}}, {"colour": {"S": "red"}}),
        ("ADD labels :ss", {":ss": {"SS": ["x", "y"]}}, {"labels": {"SS": ["x", "y"]}}),
        ("SET #m = :m", {":m": {"M": {"k": {"N": "1"}}}}, {"meta": {"M": {"k": {"N": "1"}}}}),
        ("SET qty = :n, colour = :s", {":n": {"N": "1"}, ":s": {"S": "green"}}, {"qty": {"N": "1"}}),
    ],
)
def test_update_expressions(client, update, values, expected):
    put(client, "s1", qty=10, colour="red")
    kwargs = {"ExpressionAttributeValues": values} if values else {}
    if "#m" in update:
        kwargs["ExpressionAttributeNames"] = {"#m": "meta"}
    client.update_item(TableName=TABLE, Key={"sku": {"S": "s1"}}, UpdateExpression=update, **kwargs)
    item = client.get_item(TableName=TABLE, Key={"sku": {"S": "s1"}}, ConsistentRead=True)["Item"]
    for name, value in expected.items():
        if value is None:
            assert name not in item
        elif "SS" in value:
            assert sorted(item[name]["SS"]) == value["SS"]
        else:
            assert item[name] == value


@pytest.mark.parametrize("n", [1, 10, 25])
def test_transaction_writes_all(client, n):
    client.transact_write_items(
        TransactItems=[{"Put": {"TableName": TABLE, "Item": {"sku": {"S": f"t{i}"}}}} for i in range(n)]
    )
    assert client.scan(TableName=TABLE, Select="COUNT")["Count"] == n


@pytest.mark.parametrize("failing", [0, 1, 2])
def test_transaction_cancelled_writes_nothing(client, failing):
    put(client, "exists", qty=1)
    items = [{"Put": {"TableName": TABLE, "Item": {"sku": {"S": f"t{i}"}}}} for i in range(3)]
    items[failing] = {
        "ConditionCheck": {
            "TableName": TABLE,
            "Key": {"sku": {"S": "exists"}},
            "ConditionExpression": "qty > :n",
            "ExpressionAttributeValues": {":n": {"N": "5"}},
        }
    }
    with pytest.raises(ClientError) as caught:
        client.transact_write_items(TransactItems=items)
    assert caught.value.response["Error"]["Code"] == "TransactionCanceledException"
    assert client.scan(TableName=TABLE, Select="COUNT")["Count"] == 1


def test_transact_get(client):
    put(client, "a", qty=1)
    put(client, "b", qty=2)
    got = client.transact_get_items(
        TransactItems=[{"Get": {"TableName": TABLE, "Key": {"sku": {"S": s}}}} for s in ("a", "b", "c")]
    )["Responses"]
    assert [r.get("Item", {}).get("qty") for r in got] == [{"N": "1"}, {"N": "2"}, None]


@pytest.mark.parametrize("n", [1, 30, 100])
def test_batch_write_and_get(client, n):
    for start in range(0, n, 25):
        client.batch_write_item(
            RequestItems={
                TABLE: [
                    {"PutRequest": {"Item": {"sku": {"S": f"b{i}"}, "qty": {"N": str(i)}}}}
                    for i in range(start, min(n, start + 25))
                ]
            }
        )
    keys = [{"sku": {"S": f"b{i}"}} for i in range(min(n, 100))]
    got = client.batch_get_item(RequestItems={TABLE: {"Keys": keys}})["Responses"][TABLE]
    assert sorted(int(it["qty"]["N"]) for it in got) == list(range(min(n, 100)))


@pytest.mark.parametrize("page_size", [1, 2, 3, 5, 7, 10, 20, 50])
def test_scan_paginator_with_filter(client, page_size):
    for i in range(20):
        put(client, f"p{i:02d}", qty=i)
    paginator = client.get_paginator("scan")
    seen = []
    for page in paginator.paginate(
        TableName=TABLE,
        FilterExpression="qty >= :n",
        ExpressionAttributeValues={":n": {"N": "10"}},
        PaginationConfig={"PageSize": page_size},
    ):
        seen += [it["sku"]["S"] for it in page["Items"]]
    assert sorted(seen) == [f"p{i:02d}" for i in range(10, 20)]


@pytest.mark.parametrize(
    "item",
    [
        {"sku": {"N": "1"}},  # the key has the wrong type
        {"qty": {"N": "1"}},  # no key at all
        {"sku": {"S": ""}},  # empty key string
    ],
)
def test_bad_items_are_validation_errors(client, item):
    with pytest.raises(ClientError) as caught:
        client.put_item(TableName=TABLE, Item=item)
    assert caught.value.response["Error"]["Code"] == "ValidationException"


def test_unknown_table(client):
    with pytest.raises(client.exceptions.ResourceNotFoundException):
        client.get_item(TableName="nope-table", Key={"sku": {"S": "x"}})


def test_creating_a_table_twice(client):
    with pytest.raises(client.exceptions.ResourceInUseException):
        make_table(client)


def test_delete_with_return_values(client):
    put(client, "d", qty=4)
    old = client.delete_item(TableName=TABLE, Key={"sku": {"S": "d"}}, ReturnValues="ALL_OLD")["Attributes"]
    assert old["qty"] == {"N": "4"}
    assert "Item" not in client.get_item(TableName=TABLE, Key={"sku": {"S": "d"}})


@mock_aws
def test_tables_of_one_test_are_gone_in_the_next():
    assert boto3.client("dynamodb").list_tables()["TableNames"] == []


@pytest.fixture
def readings():
    with mock_aws():
        client = boto3.client("dynamodb")
        client.create_table(
            TableName="readings",
            KeySchema=[
                {"AttributeName": "device", "KeyType": "HASH"},
                {"AttributeName": "ts", "KeyType": "RANGE"},
            ],
            AttributeDefinitions=[
                {"AttributeName": "device", "AttributeType": "S"},
                {"AttributeName": "ts", "AttributeType": "N"},
            ],
            BillingMode="PAY_PER_REQUEST",
        )
        for ts in range(20):
            client.put_item(TableName="readings", Item={"device": {"S": "d1"}, "ts": {"N": str(ts)}})
        client.put_item(TableName="readings", Item={"device": {"S": "d2"}, "ts": {"N": "5"}})
        yield client


@pytest.mark.parametrize("forward", [True, False])
@pytest.mark.parametrize(
    "condition,bounds,expected",
    [
        ("ts = :a", (5,), [5]),
        ("ts < :a", (3,), [0, 1, 2]),
        ("ts <= :a", (3,), [0, 1, 2, 3]),
        ("ts > :a", (16,), [17, 18, 19]),
        ("ts >= :a", (18,), [18, 19]),
        ("ts BETWEEN :a AND :b", (4, 7), [4, 5, 6, 7]),
        ("ts BETWEEN :a AND :b", (7, 7), [7]),
        ("ts > :a", (19,), []),
        ("ts < :a", (0,), []),
    ],
)
def test_key_conditions(readings, forward, condition, bounds, expected):
    values = {":d": {"S": "d1"}, **{f":{n}": {"N": str(v)} for n, v in zip("ab", bounds, strict=False)}}
    page = readings.query(
        TableName="readings",
        KeyConditionExpression=f"device = :d AND {condition}",
        ExpressionAttributeValues=values,
        ScanIndexForward=forward,
    )
    got = [int(it["ts"]["N"]) for it in page["Items"]]
    assert got == (expected if forward else expected[::-1])
