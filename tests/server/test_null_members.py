"""JSON nulls where a request has structures (list elements, map values, actions): found by the fuzzer
(``test_fuzz.py``), each answered ``500 InternalFailure`` before. They cannot be sent through boto3 (its
parameter validation refuses ``None``), so they go over raw HTTP: to ``dynabase serve``, and to DynamoDB Local
where Local answers with a 4xx (the same error, message for message).

Where Local itself fails with a 500 (null AttributeDefinitions, GlobalSecondaryIndexes and
GlobalSecondaryIndexUpdates elements) or has no such operation (TagResource), dynabase answers in the
service validator's words (``Value null at '<member>' ...: Member must not be null``); AWS's exact message for
these was not established.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from .helpers import TARGET, RawResponse, raw_request

VALIDATION = "ValidationException"
KEY_SCHEMA = [{"AttributeName": "pk", "KeyType": "HASH"}]
DEFINITIONS = [{"AttributeName": "pk", "AttributeType": "S"}]


def _null_member(path: str) -> str:
    return f"1 validation error detected: Value null at '{path}' failed to satisfy constraint: Member must not be null"


@pytest.fixture(scope="module", params=["dynabase", "dynamodb-local"])
def endpoint(request: pytest.FixtureRequest, server: str) -> Iterator[str]:
    """The server under test, then DynamoDB Local (unless ``DYNABASE_BACKENDS`` leaves it out)."""
    import os

    if request.param == "dynamodb-local":
        if "dynamodb-local" not in os.environ.get("DYNABASE_BACKENDS", "dynamodb-local"):
            pytest.skip("DynamoDB Local not selected")
        yield request.getfixturevalue("dynamodb_local_endpoint")
    else:
        yield server


def _validation_error(response: RawResponse) -> dict[str, Any]:
    """A 400 ValidationException with a message (DynamoDB Local sends no CRC header: only the body is checked)."""
    assert response.status == 400, response
    body = response.json()
    assert body["__type"].rpartition("#")[2] == VALIDATION, body
    return body


def _send(url: str, operation: str, request: dict[str, Any]) -> Any:
    return raw_request(url, TARGET + operation, json.dumps(request).encode())


@pytest.fixture(scope="module")
def table(endpoint: str) -> Iterator[str]:
    name = f"nulls-{uuid.uuid4().hex[:8]}"
    created = _send(
        endpoint,
        "CreateTable",
        {
            "TableName": name,
            "KeySchema": KEY_SCHEMA,
            "AttributeDefinitions": DEFINITIONS,
            "BillingMode": "PAY_PER_REQUEST",
        },
    )
    assert created.status == 200, created
    yield name
    _send(endpoint, "DeleteTable", {"TableName": name})


def _create(name: str, **members: Any) -> dict[str, Any]:
    return {
        "TableName": name,
        "KeySchema": KEY_SCHEMA,
        "AttributeDefinitions": DEFINITIONS,
        "BillingMode": "PAY_PER_REQUEST",
        **members,
    }


def test_batch_get_item_with_a_null_table_entry(endpoint: str, table: str) -> None:
    body = _validation_error(_send(endpoint, "BatchGetItem", {"RequestItems": {table: None}}))
    assert (
        body["Message"]
        == f"The list of keys in RequestItems for BatchGetItem is required: {table} has empty list"
    )


@pytest.mark.parametrize(
    "members",
    [
        {"KeySchema": [None]},
        {"KeySchema": [*KEY_SCHEMA, None]},
        {
            "GlobalSecondaryIndexes": [
                {"IndexName": "gix", "KeySchema": [None], "Projection": {"ProjectionType": "ALL"}}
            ]
        },
        {
            "KeySchema": [*KEY_SCHEMA, {"AttributeName": "sk", "KeyType": "RANGE"}],
            "AttributeDefinitions": [*DEFINITIONS, {"AttributeName": "sk", "AttributeType": "S"}],
            "LocalSecondaryIndexes": [
                {
                    "IndexName": "lix",
                    "KeySchema": [*KEY_SCHEMA, None],
                    "Projection": {"ProjectionType": "ALL"},
                }
            ],
        },
    ],
)
def test_create_table_with_a_null_key_schema_element(endpoint: str, members: dict[str, Any]) -> None:
    response = _send(endpoint, "CreateTable", _create(f"nulls-{uuid.uuid4().hex[:8]}", **members))
    assert _validation_error(response)["Message"] == "Key schema element is invalid."


@pytest.mark.parametrize("action", ["Create", "Update", "Delete"])
def test_update_table_with_a_null_index_action(endpoint: str, table: str, action: str) -> None:
    request = {"TableName": table, "GlobalSecondaryIndexUpdates": [{action: None}]}
    body = _validation_error(_send(endpoint, "UpdateTable", request))
    assert body["Message"] == "Update global secondary index action is null"


@pytest.mark.parametrize("action", ["Put", "Update", "Delete", "ConditionCheck"])
def test_transact_write_items_with_a_null_action(endpoint: str, action: str) -> None:
    body = _validation_error(_send(endpoint, "TransactWriteItems", {"TransactItems": [{action: None}]}))
    assert (
        body["Message"]
        == "Invalid Request: TransactWriteRequest should contain Delete or Put or Update request"
    )


# -- where DynamoDB Local answers 500 or has no such operation: the server alone -----------------------------


@pytest.mark.parametrize(
    ("operation", "request_of", "path"),
    [
        (
            "CreateTable",
            lambda t: _create("nulls-new", AttributeDefinitions=[None]),
            "attributeDefinitions.1.member",
        ),
        (
            "CreateTable",
            lambda t: _create("nulls-new", GlobalSecondaryIndexes=[None]),
            "globalSecondaryIndexes.1.member",
        ),
        (
            "UpdateTable",
            lambda t: {"TableName": t, "AttributeDefinitions": [*DEFINITIONS, None]},
            "attributeDefinitions.2.member",
        ),
        (
            "UpdateTable",
            lambda t: {"TableName": t, "GlobalSecondaryIndexUpdates": [None]},
            "globalSecondaryIndexUpdates.1.member",
        ),
        (
            "TagResource",
            lambda t: {"ResourceArn": f"arn:aws:dynamodb:us-east-1:000000000000:table/{t}", "Tags": [None]},
            "tags.1.member",
        ),
    ],
)
def test_null_structures_where_local_fails(server: str, operation: str, request_of: Any, path: str) -> None:
    name = f"nulls-{uuid.uuid4().hex[:8]}"
    assert _send(server, "CreateTable", _create(name)).status == 200
    try:
        body = _validation_error(_send(server, operation, request_of(name)))
        assert body["Message"] == _null_member(path)
    finally:
        _send(server, "DeleteTable", {"TableName": name})
