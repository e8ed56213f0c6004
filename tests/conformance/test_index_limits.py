"""Limits of secondary index keys: key values over 2048 (partition) and 1024 (sort) bytes are refused on write,
a GSI added later leaves out items whose new key is an empty string, and attribute names of key schemas and
projections over 255 characters are refused by the model's validation."""

from __future__ import annotations

import time

import pytest

from ddb_helpers import assert_client_error, gsi, lsi, unique_table_name

TOO_BIG = "One or more parameter values were invalid: Size limit exceeded"


@pytest.fixture
def indexed(make_table):
    return make_table(
        ("pk:S", "sk:S"), gsis=[gsi("byG", "g:S", "gr:S"), gsi("byB", "b:B")], lsis=[lsi("byL", "l:S")]
    )


def item(sk, **attrs):
    return {"pk": {"S": "a"}, "sk": {"S": sk}, **attrs}


@pytest.mark.parametrize(
    "attrs",
    [
        {"g": {"S": "x" * 2049}, "gr": {"S": "a"}},
        {"g": {"S": "é" * 1025}},  # 2050 bytes in UTF-8
        {"g": {"S": "a"}, "gr": {"S": "x" * 1025}},
        {"b": {"B": b"x" * 2049}},
        {"l": {"S": "x" * 1025}},
    ],
    ids=["gsi-partition", "gsi-partition-utf8", "gsi-sort", "gsi-binary", "lsi-sort"],
)
def test_index_key_over_its_limit(client, indexed, attrs):
    assert_client_error(
        lambda: client.put_item(TableName=indexed, Item=item("1", **attrs)), "ValidationException", TOO_BIG
    )
    assert_client_error(
        lambda: client.transact_write_items(
            TransactItems=[{"Put": {"TableName": indexed, "Item": item("1", **attrs)}}]
        ),
        "ValidationException",
        TOO_BIG,
    )
    if len(attrs) == 1 and "l" not in attrs:  # the LSI case: test_lsi_key_over_its_limit_by_update
        assert_client_error(lambda: update(client, indexed, attrs), "ValidationException", TOO_BIG)
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


def test_new_gsi_leaves_out_empty_string_keys(client, make_table):
    name = make_table(("pk:S",))
    client.put_item(TableName=name, Item={"pk": {"S": "1"}, "n": {"S": ""}})
    client.put_item(TableName=name, Item={"pk": {"S": "2"}, "n": {"S": "v"}})
    client.update_table(
        TableName=name,
        AttributeDefinitions=[{"AttributeName": "n", "AttributeType": "S"}],
        GlobalSecondaryIndexUpdates=[
            {
                "Create": {
                    "IndexName": "byN",
                    "KeySchema": [{"AttributeName": "n", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "ALL"},
                }
            }
        ],
    )
    for _ in range(120):
        indexes = client.describe_table(TableName=name)["Table"]["GlobalSecondaryIndexes"]
        if all(i["IndexStatus"] == "ACTIVE" for i in indexes):
            break
        time.sleep(0.5)
    assert client.scan(TableName=name, IndexName="byN")["Items"] == [{"pk": {"S": "2"}, "n": {"S": "v"}}]


def test_key_attribute_name_over_255_characters(client, create_table):
    long_name = "p" * 256
    assert_client_error(
        lambda: create_table(
            TableName=unique_table_name(),
            KeySchema=[{"AttributeName": long_name, "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": long_name, "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        ),
        "ValidationException",
        f"2 validation errors detected: Value '{long_name}' at 'attributeDefinitions.1.member.attributeName' failed "
        "to satisfy constraint: Member must have length less than or equal to 255; "
        f"Value '{long_name}' at 'keySchema.1.member.attributeName' failed to satisfy constraint: Member must have "
        "length less than or equal to 255",
    )


def test_projected_attribute_name_over_255_characters(client, create_table):
    long_name = "n" * 256
    assert_client_error(
        lambda: create_table(
            TableName=unique_table_name(),
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[
                {"AttributeName": "pk", "AttributeType": "S"},
                {"AttributeName": "g", "AttributeType": "S"},
            ],
            GlobalSecondaryIndexes=[
                {
                    "IndexName": "byG",
                    "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": [long_name]},
                }
            ],
            BillingMode="PAY_PER_REQUEST",
        ),
        "ValidationException",
        f"1 validation error detected: Value '{long_name}' at "
        "'globalSecondaryIndexes.1.member.projection.nonKeyAttributes.1.member' failed to satisfy constraint: "
        "Member must have length less than or equal to 255",
    )
