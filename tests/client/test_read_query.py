"""The embedded client's ``read_query``: the internal, optional seam through which the entity layer reads each
item of a Query as the engine makes it."""

from __future__ import annotations

import pytest

import dynabase


def test_read_query_is_query_with_each_item_read() -> None:
    """``EmbeddedClient.read_query``: the response of ``query`` with ``reader(item)`` for each item (after
    filter and projection), the rest unchanged; errors are ``query``'s, and later calls read nothing."""
    client = dynabase.connect(":memory:")
    client.create_table(
        TableName="rows",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "N"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    for n in range(6):
        client.put_item(
            TableName="rows", Item={"pk": {"S": "p"}, "sk": {"N": str(n)}, "odd": {"BOOL": n % 2 == 1}}
        )
    requests = [
        {"KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "p"}}},
        {
            "KeyConditionExpression": "pk = :p",
            "FilterExpression": "odd = :t",
            "ProjectionExpression": "sk",
            "ExpressionAttributeValues": {":p": {"S": "p"}, ":t": {"BOOL": True}},
            "Limit": 4,
            "ReturnConsumedCapacity": "TOTAL",
        },
    ]
    for request in requests:
        want = client.query(TableName="rows", **request)
        got = client.read_query(lambda item: ("read", item), TableName="rows", **request)
        assert got["Items"] == [("read", item) for item in want["Items"]]
        del want["Items"], got["Items"], want["ResponseMetadata"], got["ResponseMetadata"]
        assert got == want
    with pytest.raises(client.exceptions.ResourceNotFoundException):
        client.read_query(lambda item: 1 / 0, TableName="missing", **requests[0])
    assert client.query(TableName="rows", **requests[0])["Items"][0]["pk"] == {"S": "p"}
    client.close()


def test_what_the_reader_raises_reaches_the_caller_as_it_is() -> None:
    """A reader's error is the caller's, not an engine failure (no InternalFailure, nothing logged as one)."""
    client = dynabase.connect(":memory:")
    client.create_table(
        TableName="rows",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    client.put_item(TableName="rows", Item={"pk": {"S": "p"}})

    class Odd(Exception):
        pass

    def reader(item: dict) -> None:
        raise Odd(item["pk"]["S"])

    request = {"KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "p"}}}
    with pytest.raises(Odd, match="p"):
        client.read_query(reader, TableName="rows", **request)
    assert client.query(TableName="rows", **request)["Items"] == [{"pk": {"S": "p"}}]
    client.close()
