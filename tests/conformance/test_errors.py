"""Errors: unknown tables, malformed requests, parameter validation, and failed writes leaving items untouched."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError, ParamValidationError

from ddb_helpers import NAME_PATTERN, assert_client_error, unique_table_name, validation_errors, violation

NOT_FOUND = "Cannot do operations on a non-existent table"
DATA_NOT_FOUND = "Requested resource not found"  # AWS's, in data-plane calls (Local's is NOT_FOUND)
CONTROL_PLANE = {"describe_table", "delete_table", "update_table"}
#: AWS's answer to a malformed table name, as PutItem's (paritysuite/dynamodb-conformance tests/tier3/error-messages/
#: putItem.test.ts); Local words it its own way (tests/aws_differences.py)
NAME_ERROR = validation_errors(violation("a$b", "tableName", NAME_PATTERN))
K = {"pk": {"S": "a"}}
INVALID = "One or more parameter values were invalid: "

OPERATIONS = {
    "describe_table": {},
    "delete_table": {},
    "update_table": {"BillingMode": "PAY_PER_REQUEST"},
    "put_item": {"Item": K},
    "get_item": {"Key": K},
    "update_item": {
        "Key": K,
        "UpdateExpression": "SET x = :v",
        "ExpressionAttributeValues": {":v": {"N": "1"}},
    },
    "delete_item": {"Key": K},
    "query": {"KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "a"}}},
    "scan": {},
}


@pytest.mark.parametrize("operation", sorted(OPERATIONS))
def test_unknown_table(client, operation):
    assert_client_error(
        lambda: getattr(client, operation)(TableName=unique_table_name(), **OPERATIONS[operation]),
        "ResourceNotFoundException",
        NOT_FOUND if operation in CONTROL_PLANE else DATA_NOT_FOUND,
    )


@pytest.mark.parametrize("operation", sorted(OPERATIONS))
def test_invalid_table_name(client, operation):
    assert_client_error(
        lambda: getattr(client, operation)(TableName="a$b", **OPERATIONS[operation]),
        "ValidationException",
        NAME_ERROR,
    )


def test_resource_not_found_is_modeled_exception(client):
    with pytest.raises(client.exceptions.ResourceNotFoundException) as exc_info:
        client.describe_table(TableName=unique_table_name())
    error = exc_info.value
    assert isinstance(error, ClientError)
    assert error.response["Error"] == {"Code": "ResourceNotFoundException", "Message": NOT_FOUND}
    assert error.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert error.operation_name == "DescribeTable"


def test_resource_in_use_is_modeled_exception(client, hash_table):
    with pytest.raises(client.exceptions.ResourceInUseException):
        client.create_table(
            TableName=hash_table,
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )


def test_validation_error_shape(client, hash_table):
    with pytest.raises(ClientError) as exc_info:
        client.put_item(TableName=hash_table, Item={"pk": {"N": "1"}})
    error = exc_info.value
    assert error.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert error.operation_name == "PutItem"
    message = error.response["Error"]["Message"]
    assert (
        str(error) == f"An error occurred (ValidationException) when calling the PutItem operation: {message}"
    )
    # AWS's words (Local's are listed in tests/aws_differences.py)
    assert_client_error(
        error, "ValidationException", f"{INVALID}Type mismatch for key pk expected: S actual: N"
    )


def test_empty_item(client, hash_table):
    assert_client_error(
        lambda: client.put_item(TableName=hash_table, Item={}),
        "ValidationException",
        "One or more parameter values were invalid: Missing the key pk in the item",  # AWS's (aws_differences)
    )


def test_delete_with_extra_key_attribute(client, hash_table):
    assert_client_error(
        lambda: client.delete_item(TableName=hash_table, Key={**K, "x": {"S": "b"}}),
        "ValidationException",
        "The provided key element does not match the schema",  # AWS's (aws_differences)
    )


def test_update_with_extra_key_attribute(client, hash_table):
    assert_client_error(
        lambda: client.update_item(TableName=hash_table, Key={**K, "x": {"S": "b"}}),
        "ValidationException",
        "The provided key element does not match the schema",
    )
    assert "Item" not in client.get_item(TableName=hash_table, Key=K)


def test_values_without_condition_on_put(client, hash_table):
    assert_client_error(
        lambda: client.put_item(TableName=hash_table, Item=K, ExpressionAttributeValues={":v": {"S": "x"}}),
        "ValidationException",
        "ExpressionAttributeValues can only be specified when using expressions: ConditionExpression is null",
    )


def test_values_without_filter_on_scan(client, hash_table):
    assert_client_error(
        lambda: client.scan(TableName=hash_table, ExpressionAttributeValues={":v": {"S": "x"}}),
        "ValidationException",
        "ExpressionAttributeValues can only be specified when using expressions: FilterExpression is null",
    )


@pytest.mark.parametrize(
    "operation, kwargs",
    [
        ("put_item", {"Item": K}),
        ("delete_item", {"Key": K}),
        ("get_item", {"Key": K}),
        ("scan", {}),
    ],
)
def test_names_without_expression(client, hash_table, operation, kwargs):
    assert_client_error(
        lambda: getattr(client, operation)(
            TableName=hash_table, ExpressionAttributeNames={"#v": "x"}, **kwargs
        ),
        "ValidationException",
        "ExpressionAttributeNames can only be specified when using expressions",
    )


def test_legacy_expected_still_works(client, hash_table):
    client.put_item(TableName=hash_table, Item=K)
    assert_client_error(
        lambda: client.put_item(TableName=hash_table, Item=K, Expected={"pk": {"Exists": False}}),
        "ConditionalCheckFailedException",
        "The conditional request failed",
    )


# -- client-side parameter validation (botocore) -----------------------------------------------------------------


def test_param_validation_missing_required(client, hash_table):
    with pytest.raises(ParamValidationError) as exc_info:
        client.put_item(TableName=hash_table)
    assert 'Missing required parameter in input: "Item"' in str(exc_info.value)


def test_param_validation_wrong_type(client, hash_table):
    with pytest.raises(ParamValidationError) as exc_info:
        client.put_item(TableName=hash_table, Item={"pk": {"S": "a"}, "n": {"N": 1}})
    assert "Invalid type for parameter Item.n.N" in str(exc_info.value)


def test_param_validation_unknown_parameter(client, hash_table):
    with pytest.raises(ParamValidationError) as exc_info:
        client.get_item(TableName=hash_table, Key=K, Bogus=1)
    assert 'Unknown parameter in input: "Bogus"' in str(exc_info.value)


def test_param_validation_range(client, hash_table):
    with pytest.raises(ParamValidationError) as exc_info:
        client.scan(TableName=hash_table, Limit=0)
    assert "Invalid value for parameter Limit, value: 0, valid min value: 1" in str(exc_info.value)


def test_param_validation_unknown_attribute_type(client, hash_table):
    with pytest.raises(ParamValidationError) as exc_info:
        client.put_item(TableName=hash_table, Item={**K, "x": {"FOO": "1"}})
    assert 'Unknown parameter in Item.x: "FOO"' in str(exc_info.value)


# -- failed writes leave the stored item unchanged ---------------------------------------------------------------

ORIGINAL = {
    **K,
    "n": {"N": "5"},
    "s": {"S": "text"},
    "ss": {"SS": ["a", "b"]},
    "l": {"L": [{"N": "1"}]},
}

FAILING_WRITES = {
    "put-key-type": ("put_item", {"Item": {"pk": {"N": "1"}, "n": {"N": "6"}}}, "ValidationException"),
    "put-bad-number": ("put_item", {"Item": {**K, "n": {"N": "abc"}}}, "ValidationException"),
    "put-empty-set": ("put_item", {"Item": {**K, "ss": {"SS": []}}}, "ValidationException"),
    "put-too-big": ("put_item", {"Item": {**K, "big": {"S": "x" * 409600}}}, "ValidationException"),
    "put-condition": (
        "put_item",
        {"Item": {**K, "n": {"N": "6"}}, "ConditionExpression": "attribute_not_exists(pk)"},
        "ConditionalCheckFailedException",
    ),
    "put-bad-condition": (
        "put_item",
        {"Item": {**K, "n": {"N": "6"}}, "ConditionExpression": "n = "},
        "ValidationException",
    ),
    "update-condition": (
        "update_item",
        {
            "Key": K,
            "UpdateExpression": "SET n = :v",
            "ConditionExpression": "n = :v",
            "ExpressionAttributeValues": {":v": {"N": "6"}},
        },
        "ConditionalCheckFailedException",
    ),
    "update-syntax": ("update_item", {"Key": K, "UpdateExpression": "SET n ="}, "ValidationException"),
    "update-key": (
        "update_item",
        {"Key": K, "UpdateExpression": "SET pk = :v", "ExpressionAttributeValues": {":v": {"S": "b"}}},
        "ValidationException",
    ),
    "update-type-error": (
        "update_item",
        {
            "Key": K,
            "UpdateExpression": "SET n = n + :v, x = :v",
            "ExpressionAttributeValues": {":v": {"S": "1"}},
        },
        "ValidationException",
    ),
    "update-runtime-type-error": (
        "update_item",
        {
            "Key": K,
            "UpdateExpression": "SET x = :v ADD s :v",
            "ExpressionAttributeValues": {":v": {"N": "1"}},
        },
        "ValidationException",
    ),
    "update-missing-operand": (
        "update_item",
        {
            "Key": K,
            "UpdateExpression": "SET x = :v, n = nope",
            "ExpressionAttributeValues": {":v": {"N": "1"}},
        },
        "ValidationException",
    ),
    "update-bad-path": (
        "update_item",
        {
            "Key": K,
            "UpdateExpression": "SET x = :v, s.y = :v",
            "ExpressionAttributeValues": {":v": {"N": "1"}},
        },
        "ValidationException",
    ),
    "update-overflow": (
        "update_item",
        {
            "Key": K,
            "UpdateExpression": "SET n = n + :v",
            "ExpressionAttributeValues": {":v": {"N": "9.9e125"}},
        },
        "ValidationException",
    ),
    "update-too-big": (
        "update_item",
        {
            "Key": K,
            "UpdateExpression": "SET big = :v",
            "ExpressionAttributeValues": {":v": {"S": "x" * 409600}},
        },
        "ValidationException",
    ),
    "update-unused-value": (
        "update_item",
        {"Key": K, "UpdateExpression": "REMOVE n", "ExpressionAttributeValues": {":v": {"N": "1"}}},
        "ValidationException",
    ),
    "update-bad-return-values": (
        "update_item",
        {"Key": K, "UpdateExpression": "REMOVE n", "ReturnValues": "EVERYTHING"},
        "ValidationException",
    ),
    "delete-condition": (
        "delete_item",
        {"Key": K, "ConditionExpression": "n > :v", "ExpressionAttributeValues": {":v": {"N": "6"}}},
        "ConditionalCheckFailedException",
    ),
    "delete-bad-return-values": ("delete_item", {"Key": K, "ReturnValues": "ALL_NEW"}, "ValidationException"),
}


@pytest.mark.parametrize("case", sorted(FAILING_WRITES))
def test_failed_write_leaves_item_unchanged(client, hash_table, case):
    operation, kwargs, code = FAILING_WRITES[case]
    client.put_item(TableName=hash_table, Item=ORIGINAL)
    with pytest.raises(ClientError) as exc_info:
        getattr(client, operation)(TableName=hash_table, **kwargs)
    assert exc_info.value.response["Error"]["Code"] == code
    assert client.get_item(TableName=hash_table, Key=K, ConsistentRead=True)["Item"] == ORIGINAL


def test_failed_write_does_not_create_item(client, hash_table):
    with pytest.raises(ClientError):
        client.update_item(
            TableName=hash_table,
            Key=K,
            UpdateExpression="SET x = :v, y = nope",
            ExpressionAttributeValues={":v": {"N": "1"}},
        )
    assert "Item" not in client.get_item(TableName=hash_table, Key=K)
    assert client.describe_table(TableName=hash_table)["Table"]["ItemCount"] == 0


def test_failed_write_leaves_indexes_unchanged(client, make_table):
    from ddb_helpers import gsi

    table = make_table(("pk:S",), gsis=[gsi("byG", "g:S")])
    client.put_item(TableName=table, Item={**K, "g": {"S": "G"}})
    with pytest.raises(ClientError):
        client.update_item(
            TableName=table,
            Key=K,
            UpdateExpression="SET g = :h",
            ConditionExpression="attribute_not_exists(pk)",
            ExpressionAttributeValues={":h": {"S": "H"}},
        )
    result = client.query(
        TableName=table,
        IndexName="byG",
        KeyConditionExpression="g = :g",
        ExpressionAttributeValues={":g": {"S": "G"}},
    )
    assert result["Items"] == [{**K, "g": {"S": "G"}}]
