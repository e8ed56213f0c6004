"""Key value limits that reads check too: a Query's key condition values over the key size limits (a sort key's
1024 bytes, a partition key's 2048).

References: DynamoDB developer guide, "Service, account, and table quotas" (partition key values 2048 bytes, sort
key values 1024 bytes); AWS's messages: tests/aws_differences.py (KEY_SIZE_REF)."""

from __future__ import annotations

import pytest

from ddb_helpers import assert_client_error, gsi, lsi

HASH_TOO_BIG = "One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes"
RANGE_TOO_BIG = (
    "One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of "
    "1024 bytes"
)
NAME_TOO_LONG = "Names of key attributes and attributes projected into an index must be between 1 and 255 characters, inclusive"
LONG = {"S": "y" * 1025}


@pytest.fixture
def indexed(make_table):
    return make_table(("pk:S", "sk:S"), gsis=[gsi("byG", "g:S", "gr:S")], lsis=[lsi("byL", "l:S")])


@pytest.mark.parametrize(
    "condition, values, index",
    [
        ("pk = :p AND sk = :s", {":s": LONG}, None),
        ("pk = :p AND sk < :s", {":s": LONG}, None),
        ("pk = :p AND sk BETWEEN :a AND :s", {":a": {"S": "a"}, ":s": LONG}, None),
        ("pk = :p AND begins_with(sk, :s)", {":s": LONG}, None),
        ("pk = :p AND sk = :s", {":s": {"S": "é" * 513}}, None),  # 1026 bytes in UTF-8
        ("g = :p AND gr > :s", {":s": LONG}, "byG"),
        ("pk = :p AND l = :s", {":s": LONG}, "byL"),
    ],
    ids=["eq", "lt", "between", "begins-with", "utf8", "gsi", "lsi"],
)
def test_query_sort_key_value_over_1024_bytes(client, indexed, condition, values, index):
    extra = {"IndexName": index} if index else {}
    assert_client_error(
        lambda: client.query(
            TableName=indexed,
            KeyConditionExpression=condition,
            ExpressionAttributeValues={":p": {"S": "a"}, **values},
            **extra,
        ),
        "ValidationException",
        RANGE_TOO_BIG,
    )


def test_query_sort_key_value_over_1024_bytes_in_key_conditions(client, indexed):
    assert_client_error(
        lambda: client.query(
            TableName=indexed,
            KeyConditions={
                "pk": {"AttributeValueList": [{"S": "a"}], "ComparisonOperator": "EQ"},
                "sk": {"AttributeValueList": [LONG], "ComparisonOperator": "EQ"},
            },
        ),
        "ValidationException",
        RANGE_TOO_BIG,
    )


def test_query_key_values_at_their_limits(client, indexed):
    response = client.query(
        TableName=indexed,
        KeyConditionExpression="pk = :p AND sk = :s",
        ExpressionAttributeValues={":p": {"S": "x" * 2048}, ":s": {"S": "y" * 1024}},
    )
    assert response["Items"] == []


@pytest.mark.aws_only(
    reason="DynamoDB Local answers a Query on an oversized partition key value with no items",
    ref="https://github.com/facebook/ThreatExchange/issues/1324 (AWS's answer to a Query: 'Size of hashkey has "
    "exceeded the maximum size limit of2048 bytes')",
)
def test_query_partition_key_value_over_2048_bytes(client, indexed):
    assert_client_error(
        lambda: client.query(
            TableName=indexed,
            KeyConditionExpression="pk = :p",
            ExpressionAttributeValues={":p": {"S": "x" * 2049}},
        ),
        "ValidationException",
        HASH_TOO_BIG,
    )


@pytest.mark.local_quirk
def test_oversized_exclusive_start_key_is_accepted(client, indexed):
    """DynamoDB Local resumes after an ExclusiveStartKey over the key size limits (AWS's answer could not be
    established: the references give its answers for Key and Item, not for a start key)."""
    page = client.query(
        TableName=indexed,
        KeyConditionExpression="pk = :p",
        ExpressionAttributeValues={":p": {"S": "a"}},
        ExclusiveStartKey={"pk": {"S": "a"}, "sk": LONG},
    )
    assert page["Items"] == []
    page = client.scan(TableName=indexed, ExclusiveStartKey={"pk": {"S": "x" * 2049}, "sk": {"S": "a"}})
    assert page["Count"] == 0
