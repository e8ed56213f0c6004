"""``Engine.call`` with JSON nulls where structures belong (what ``dynabase serve`` passes on from the wire):
a DynamoDB ValidationException, never an AttributeError/TypeError (``InternalFailure`` over HTTP). The wire
cases, next to DynamoDB Local's answers, are in ``tests/server/test_null_members.py``."""

from __future__ import annotations

from typing import Any

import pytest

from dynabase.errors import ValidationException

KEYS = [{"AttributeName": "pk", "KeyType": "HASH"}]
DEFINITIONS = [{"AttributeName": "pk", "AttributeType": "S"}]


def _table(**members: Any) -> dict[str, Any]:
    return {
        "TableName": "fresh",
        "KeySchema": KEYS,
        "AttributeDefinitions": DEFINITIONS,
        "BillingMode": "PAY_PER_REQUEST",
        **members,
    }


@pytest.mark.parametrize(
    ("operation", "request_", "message"),
    [
        ("BatchGetItem", {"RequestItems": {"things": None}}, "is required: things has empty list"),
        ("CreateTable", _table(KeySchema=[None]), "Key schema element is invalid."),
        ("CreateTable", _table(AttributeDefinitions=[None]), "'attributeDefinitions.1.member'"),
        ("CreateTable", _table(GlobalSecondaryIndexes=[None]), "'globalSecondaryIndexes.1.member'"),
        (
            "UpdateTable",
            {"TableName": "things", "GlobalSecondaryIndexUpdates": [None]},
            "'globalSecondaryIndexUpdates.1.member'",
        ),
        (
            "UpdateTable",
            {"TableName": "things", "GlobalSecondaryIndexUpdates": [{"Create": None}]},
            "action is null",
        ),
        (
            "UpdateTable",
            {"TableName": "things", "GlobalSecondaryIndexUpdates": [{"Delete": None}]},
            "action is null",
        ),
        (
            "TagResource",
            {"ResourceArn": "arn:aws:dynamodb:us-east-1:000000000000:table/things", "Tags": [None]},
            "'tags.1.member'",
        ),
        ("TransactWriteItems", {"TransactItems": [{"Put": None}]}, "should contain Delete or Put or Update"),
    ],
)
def test_null_structures_are_refused(
    engine: Any, operation: str, request_: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValidationException) as raised:
        engine.call(operation, request_)
    assert message in str(raised.value)
    assert engine.call("DescribeTable", {"TableName": "things"})["Table"]["TableStatus"] == "ACTIVE"
