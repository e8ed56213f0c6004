"""Limits of secondary index keys: key values over 2048 (partition) and 1024 (sort) bytes are refused on write,
a GSI added later leaves out items whose new key is an empty string, and attribute names of key schemas and
projections over 255 characters are refused by the model's validation."""

from __future__ import annotations

import time

import pytest

from ddb_helpers import assert_client_error, gsi, lsi, unique_table_name

TOO_BIG = (
    "One or more parameter values were invalid: Size limit exceeded"  # (AWS's for sort keys not established)
)


def partition_too_big(attribute, size, index):
    """AWS's answer to a GSI partition key value over 2048 bytes (Local's: TOO_BIG, tests/aws_differences.py)."""
    return (
        f"One or more parameter values were invalid: Size limit exceeded for Index Key {attribute} Actual Size: "
        f"{size} bytes Max Size: 2048 bytes IndexName: {index}"
    )


@pytest.fixture
def indexed(make_table):
    return make_table(
        ("pk:S", "sk:S"), gsis=[gsi("byG", "g:S", "gr:S"), gsi("byB", "b:B")], lsis=[lsi("byL", "l:S")]
    )


def item(sk, **attrs):
    return {"pk": {"S": "a"}, "sk": {"S": sk}, **attrs}


@pytest.mark.parametrize(
    "attrs, message",
    [
        ({"g": {"S": "x" * 2049}, "gr": {"S": "a"}}, partition_too_big("g", 2049, "byG")),
        ({"g": {"S": "é" * 1025}}, partition_too_big("g", 2050, "byG")),  # 2050 bytes in UTF-8
        ({"g": {"S": "a"}, "gr": {"S": "x" * 1025}}, TOO_BIG),
        ({"b": {"B": b"x" * 2049}}, partition_too_big("b", 2049, "byB")),
        ({"l": {"S": "x" * 1025}}, TOO_BIG),
    ],
    ids=["gsi-partition", "gsi-partition-utf8", "gsi-sort", "gsi-binary", "lsi-sort"],
)
def test_index_key_over_its_limit(client, indexed, attrs, message):
    """The partition key's message: dynalite#35, wellcomecollection/platform#2285 (AWS's answers)."""
    assert_client_error(
        lambda: client.put_item(TableName=indexed, Item=item("1", **attrs)), "ValidationException", message
    )
    assert_client_error(
        lambda: client.transact_write_items(
            TransactItems=[{"Put": {"TableName": indexed, "Item": item("1", **attrs)}}]
        ),
        "ValidationException",
        message,
    )
    if len(attrs) == 1 and "l" not in attrs:  # the LSI case: test_lsi_key_over_its_limit_by_update
        assert_client_error(lambda: update(client, indexed, attrs), "ValidationException", message)
    assert "Item" not in client.get_item(TableName=indexed, Key=item("1"))


def update(client, table, attrs):
    ((name, value),) = attrs.items()
    return client.update_item(
        TableName=table,
        Key=item("1"),
        UpdateExpression="SET #n = :v",
        ExpressionAttributeNames={"#n": name},
        ExpressionAttributeValues={":v": value},
    )


@pytest.mark.aws_only(
    reason="DynamoDB Local refuses an oversized LSI sort key on PutItem but not on UpdateItem",
    ref="DynamoDB developer guide, quotas: sort key values are limited to 1024 bytes, index keys included",
)
def test_lsi_key_over_its_limit_by_update(client, indexed):
    assert_client_error(
        lambda: update(client, indexed, {"l": {"S": "x" * 1025}}), "ValidationException", TOO_BIG
    )
    assert "Item" not in client.get_item(TableName=indexed, Key=item("1"))


def test_index_keys_at_their_limits(client, indexed):
    written = item("1", g={"S": "x" * 2048}, gr={"S": "y" * 1024}, b={"B": b"z" * 2048}, l={"S": "w" * 1024})
    client.put_item(TableName=indexed, Item=written)
    assert client.get_item(TableName=indexed, Key=item("1"))["Item"] == written


def add_gsi(client, table, *keys):
    """Add a GSI ``byN`` keyed on ``keys`` (``"name:type"``, partition first) and wait until it is ACTIVE."""
    attrs = [k.split(":") for k in keys]
    client.update_table(
        TableName=table,
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": t} for n, t in attrs],
        GlobalSecondaryIndexUpdates=[
            {
                "Create": {
                    "IndexName": "byN",
                    "KeySchema": [
                        {"AttributeName": n, "KeyType": kind}
                        for (n, _), kind in zip(attrs, ("HASH", "RANGE"), strict=False)
                    ],
                    "Projection": {"ProjectionType": "ALL"},
                }
            }
        ],
    )
    for _ in range(120):
        indexes = client.describe_table(TableName=table)["Table"]["GlobalSecondaryIndexes"]
        if all(i["IndexStatus"] == "ACTIVE" for i in indexes):
            return
        time.sleep(0.5)
    raise AssertionError(f"the index of {table} did not become ACTIVE")


def test_new_gsi_leaves_out_empty_string_keys(client, make_table):
    name = make_table(("pk:S",))
    client.put_item(TableName=name, Item={"pk": {"S": "1"}, "n": {"S": ""}})
    client.put_item(TableName=name, Item={"pk": {"S": "2"}, "n": {"S": "v"}})
    add_gsi(client, name, "n:S")
    assert client.scan(TableName=name, IndexName="byN")["Items"] == [{"pk": {"S": "2"}, "n": {"S": "v"}}]


@pytest.mark.aws_only(
    reason="DynamoDB Local indexes the existing items whose new index key is over its size limit",
    ref="DynamoDB developer guide, 'Detecting and correcting index key violations' (GSI.OnlineOps."
    "ViolationDetection): an attribute value over the index key's maximum length (2048 bytes for a partition "
    "key, 1024 for a sort key) is an index key violation; the item stays in the table, out of the index",
)
def test_new_gsi_leaves_out_oversized_keys(client, make_table):
    name = make_table(("pk:S",))
    kept = {"pk": {"S": "ok"}, "n": {"S": "x" * 2048}, "r": {"B": b"y" * 1024}}
    for written in (
        kept,
        {"pk": {"S": "long-partition"}, "n": {"S": "é" * 1025}, "r": {"B": b"y"}},  # 2050 bytes in UTF-8
        {"pk": {"S": "long-sort"}, "n": {"S": "a"}, "r": {"B": b"y" * 1025}},
    ):
        client.put_item(TableName=name, Item=written)
    add_gsi(client, name, "n:S", "r:B")
    assert client.scan(TableName=name, IndexName="byN")["Items"] == [kept]
    assert client.scan(TableName=name, Select="COUNT")["Count"] == 3  # the table keeps them all


#: a name within the model's 255 characters but over the quota's 255 bytes in UTF-8 (200 characters, 400 bytes)
WIDE_NAME = "é" * 200
#: DynamoDB Local's answer to it (AWS's could not be established; the developer guide's quotas count bytes)
NAME_TOO_LONG = "Names of key attributes and attributes projected into an index must be between 1 and 255 characters, inclusive"


def long_key_name_table(name, key, projection):
    """CreateTable of a table keyed on ``pk`` with a GSI keyed on ``key`` (``name`` or ``g``)."""
    return {
        "TableName": unique_table_name(),
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": key, "AttributeType": "S"},
        ],
        "GlobalSecondaryIndexes": [
            {
                "IndexName": "byG",
                "KeySchema": [{"AttributeName": key, "KeyType": "HASH"}],
                "Projection": projection,
            }
        ],
        "BillingMode": "PAY_PER_REQUEST",
    }


def model_length_errors(name):
    return (
        f"2 validation errors detected: Value '{name}' at 'attributeDefinitions.1.member.attributeName' failed "
        "to satisfy constraint: Member must have length less than or equal to 255; "
        f"Value '{name}' at 'keySchema.1.member.attributeName' failed to satisfy constraint: Member must have "
        "length less than or equal to 255"
    )


@pytest.mark.parametrize(
    "name, message",
    [("p" * 256, model_length_errors("p" * 256)), (WIDE_NAME, NAME_TOO_LONG)],
    ids=["over-255-characters", "over-255-bytes"],
)
def test_key_attribute_name_over_its_limit(client, create_table, name, message):
    assert_client_error(
        lambda: create_table(
            TableName=unique_table_name(),
            KeySchema=[{"AttributeName": name, "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": name, "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        ),
        "ValidationException",
        message,
    )


def test_projected_attribute_name_over_255_characters(client, create_table):
    long_name = "n" * 256
    assert_client_error(
        lambda: create_table(
            **long_key_name_table(
                long_name, "g", {"ProjectionType": "INCLUDE", "NonKeyAttributes": [long_name]}
            )
        ),
        "ValidationException",
        f"1 validation error detected: Value '{long_name}' at "
        "'globalSecondaryIndexes.1.member.projection.nonKeyAttributes.1.member' failed to satisfy constraint: "
        "Member must have length less than or equal to 255",
    )


@pytest.mark.parametrize(
    "key, projection",
    [
        (WIDE_NAME, {"ProjectionType": "ALL"}),
        ("g", {"ProjectionType": "INCLUDE", "NonKeyAttributes": [WIDE_NAME]}),
    ],
    ids=["gsi-key", "projected"],
)
def test_index_attribute_name_over_255_bytes(client, create_table, key, projection):
    assert_client_error(
        lambda: create_table(**long_key_name_table(WIDE_NAME, key, projection)),
        "ValidationException",
        NAME_TOO_LONG,
    )


def test_key_attribute_name_of_255_bytes(client, make_table):
    name = "é" * 127 + "e"  # 255 bytes
    table = make_table((f"{name}:S",))
    client.put_item(TableName=table, Item={name: {"S": "a"}})
    assert client.get_item(TableName=table, Key={name: {"S": "a"}})["Item"] == {name: {"S": "a"}}
