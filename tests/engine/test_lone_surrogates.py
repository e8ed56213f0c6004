"""Strings with a lone surrogate (U+D800..U+DFFF without its pair) in a request: no UTF-8 text holds one, so
no SDK can send such a request as JSON, and ``dynabase serve`` refuses the body as not valid JSON. The embedded
engine takes Python strings straight, and answers the same kind of error, SerializationException, wherever the
string is (a key, a value, a name, a map key, an expression value), with nothing written. Before, each of these
was an InternalFailure (a 500) from the place that encoded the string.

DynamoDB Local stores such strings in values (Java strings are UTF-16) and answers a 500 for them in names; what
AWS answers was not established, so these cases are the engine's own and not in the conformance suite."""

from __future__ import annotations

from typing import Any

import pytest

from dynabase.engine.engine import LONE_SURROGATE
from dynabase.errors import SerializationException

BAD = "x\ud800"


def _items(engine: Any) -> list[Any]:
    return sorted(engine.call("Scan", {"TableName": "things"})["Items"], key=lambda item: item["pk"]["S"])


GOOD = {"pk": {"S": "good"}}


@pytest.mark.parametrize(
    ("operation", "request_"),
    [
        ("PutItem", {"Item": {"pk": {"S": BAD}}}),
        ("PutItem", {"Item": {"pk": {"S": "a"}, "v": {"S": BAD}}}),
        ("PutItem", {"Item": {"pk": {"S": "a"}, BAD: {"S": "v"}}}),
        ("PutItem", {"Item": {"pk": {"S": "a"}, "m": {"M": {BAD: {"S": "v"}}}}}),
        ("PutItem", {"Item": {"pk": {"S": "a"}, "l": {"L": [{"S": BAD}]}}}),
        ("PutItem", {"Item": {"pk": {"S": "a"}, "ss": {"SS": ["ok", BAD]}}}),
        ("GetItem", {"Key": {"pk": {"S": BAD}}}),
        ("DeleteItem", {"Key": {"pk": {"S": BAD}}}),
        (
            "UpdateItem",
            {
                "Key": {"pk": {"S": "good"}},
                "UpdateExpression": "SET v = :v",
                "ExpressionAttributeValues": {":v": {"S": BAD}},
            },
        ),
        (
            "Query",
            {"KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": BAD}}},
        ),
    ],
)
def test_a_lone_surrogate_is_a_serialization_error_and_writes_nothing(
    engine: Any, operation: str, request_: dict[str, Any]
) -> None:
    engine.call("PutItem", {"TableName": "things", "Item": GOOD})
    before = _items(engine)
    with pytest.raises(SerializationException) as info:
        engine.call(operation, {"TableName": "things", **request_})
    assert info.value.message == LONE_SURROGATE
    assert _items(engine) == before


def test_a_transaction_or_a_batch_with_one_such_string_writes_none_of_its_items(engine: Any) -> None:
    puts = [{"Put": {"TableName": "things", "Item": {"pk": {"S": "t1"}}}}]
    puts.append({"Put": {"TableName": "things", "Item": {"pk": {"S": "t2"}, "v": {"S": BAD}}}})
    with pytest.raises(SerializationException):
        engine.call("TransactWriteItems", {"TransactItems": puts})
    requests = [{"PutRequest": {"Item": {"pk": {"S": f"b{n}"}}}} for n in range(3)]
    requests.append({"PutRequest": {"Item": {"pk": {"S": "b9"}, "v": {"S": BAD}}}})
    with pytest.raises(SerializationException):
        engine.call("BatchWriteItem", {"RequestItems": {"things": requests}})
    assert _items(engine) == []


def test_surrogate_pairs_are_text_as_any_other(engine: Any) -> None:
    pair = "\U0001f600"  # one code point: the pair U+D83D U+DE00 in UTF-16
    engine.call("PutItem", {"TableName": "things", "Item": {"pk": {"S": pair}, "v": {"S": pair}}})
    assert engine.call("GetItem", {"TableName": "things", "Key": {"pk": {"S": pair}}})["Item"]["v"] == {
        "S": pair
    }
