"""The embedded client's ``read_query``: the internal, optional seam through which the entity layer reads each
item of a Query as the engine makes it."""

from __future__ import annotations

from typing import Any

import pytest

import dynabase


def _rows(sort_type: str, **options: Any) -> Any:
    """An embedded client with the table "rows" (pk S, sk ``sort_type``; ``g`` S for an index's key)."""
    client = dynabase.connect(":memory:")
    definitions = [
        {"AttributeName": "pk", "AttributeType": "S"},
        {"AttributeName": "sk", "AttributeType": sort_type},
    ]
    if "GlobalSecondaryIndexes" in options:
        definitions.append({"AttributeName": "g", "AttributeType": "S"})
    client.create_table(
        TableName="rows",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=definitions,
        BillingMode="PAY_PER_REQUEST",
        **options,
    )
    return client


def test_read_query_is_query_with_each_item_read() -> None:
    """``EmbeddedClient.read_query``: the response of ``query`` with ``reader(item)`` for each item (after
    filter and projection), the rest unchanged; errors are ``query``'s, and later calls read nothing."""
    client = _rows("N")
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
        del want["Items"], got["Items"], want["ResponseMetadata"]
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


def test_with_whole_the_reader_gets_items_without_their_keys() -> None:
    """``read_query(reader, whole)``: a Query of the table hands ``reader`` its items without the table's key
    attributes; an item ``reader`` returns None for goes to ``whole`` with them; the page's LastEvaluatedKey is
    the same. A Query with a projection, and one of an index, hand ``reader`` items as ``query`` gives them."""
    client = _rows(
        "S",
        GlobalSecondaryIndexes=[
            {
                "IndexName": "byG",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
    )
    for n in range(5):
        item = {"pk": {"S": "p"}, "sk": {"S": f"s{n}"}, "g": {"S": "g"}, "n": {"N": str(n)}}
        client.put_item(TableName="rows", Item=item)
    request = {
        "KeyConditionExpression": "pk = :p",
        "FilterExpression": "n <> :two",
        "ExpressionAttributeValues": {":p": {"S": "p"}, ":two": {"N": "2"}},
        "Limit": 4,
    }
    want = client.query(TableName="rows", **request)

    def reader(item: dict) -> Any:
        return None if item["n"] == {"N": "3"} else ("part", item)

    got = client.read_query(reader, lambda item: ("whole", item), TableName="rows", **request)
    strip = {"pk", "sk"}
    assert got["Items"] == [
        ("whole", item)
        if item["n"] == {"N": "3"}
        else ("part", {k: v for k, v in item.items() if k not in strip})
        for item in want["Items"]
    ]
    assert got["LastEvaluatedKey"] == want["LastEvaluatedKey"] == {"pk": {"S": "p"}, "sk": {"S": "s3"}}
    assert (got["Count"], got["ScannedCount"]) == (want["Count"], want["ScannedCount"])
    for other in (
        {**request, "ProjectionExpression": "pk, n"},
        {
            "IndexName": "byG",
            "KeyConditionExpression": "g = :g",
            "ExpressionAttributeValues": {":g": {"S": "g"}},
        },
    ):
        plain = client.query(TableName="rows", **other)["Items"]
        assert (
            client.read_query(lambda item: item, lambda item: 1 / 0, TableName="rows", **other)["Items"]
            == plain
        )
    client.close()
