"""PutItem, GetItem, UpdateItem, DeleteItem: results, ReturnValues, conditional failures."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from ddb_helpers import assert_client_error

K = {"pk": {"S": "a"}}
CCF = "The conditional request failed"
BAD_RETURN_VALUES = "Return values set to invalid value"
#: a value outside the model's enum: AWS's validator answers before the semantic check (Local: BAD_RETURN_VALUES)
NOT_A_RETURN_VALUE = (
    "1 validation error detected: Value 'BOGUS' at 'returnValues' failed to satisfy constraint: Member must "
    "satisfy enum value set: [NONE, ALL_OLD, UPDATED_OLD, ALL_NEW, UPDATED_NEW]"
)

#: AWS's answer to a Key that does not fit the key schema (tests/aws_differences.py; Local words each case its own way)
KEY_NOT_IN_SCHEMA = "The provided key element does not match the schema"


def get(client, table, key=K, **kwargs):
    return client.get_item(TableName=table, Key=key, **kwargs)


def stored(client, table, key=K):
    return get(client, table, key, ConsistentRead=True).get("Item")


# -- PutItem -----------------------------------------------------------------------------------------------------


def test_put_then_get(client, hash_table):
    item = {**K, "x": {"N": "1"}}
    assert "Attributes" not in client.put_item(TableName=hash_table, Item=item)
    assert get(client, hash_table)["Item"] == item


def test_put_replaces_whole_item(client, hash_table):
    client.put_item(TableName=hash_table, Item={**K, "x": {"N": "1"}, "y": {"S": "old"}})
    client.put_item(TableName=hash_table, Item={**K, "z": {"S": "new"}})
    assert stored(client, hash_table) == {**K, "z": {"S": "new"}}


def test_put_response_has_no_attributes_by_default(client, hash_table):
    response = client.put_item(TableName=hash_table, Item=K)
    assert "Attributes" not in response
    assert "ConsumedCapacity" not in response
    assert "ItemCollectionMetrics" not in response


def test_put_return_values_none(client, hash_table):
    client.put_item(TableName=hash_table, Item={**K, "x": {"N": "1"}})
    response = client.put_item(TableName=hash_table, Item=K, ReturnValues="NONE")
    assert "Attributes" not in response


def test_put_all_old_on_new_item(client, hash_table):
    assert "Attributes" not in client.put_item(TableName=hash_table, Item=K, ReturnValues="ALL_OLD")


def test_put_all_old_returns_replaced_item(client, hash_table):
    client.put_item(TableName=hash_table, Item={**K, "x": {"N": "1"}})
    response = client.put_item(TableName=hash_table, Item={**K, "y": {"N": "2"}}, ReturnValues="ALL_OLD")
    assert response["Attributes"] == {**K, "x": {"N": "1"}}


@pytest.mark.parametrize("return_values", ["ALL_NEW", "UPDATED_OLD", "UPDATED_NEW", "BOGUS"])
def test_put_invalid_return_values(client, hash_table, return_values):
    assert_client_error(
        lambda: client.put_item(TableName=hash_table, Item=K, ReturnValues=return_values),
        "ValidationException",
        NOT_A_RETURN_VALUE if return_values == "BOGUS" else BAD_RETURN_VALUES,
    )
    assert stored(client, hash_table) is None


def test_put_condition_attribute_not_exists_succeeds_on_new_item(client, hash_table):
    client.put_item(TableName=hash_table, Item=K, ConditionExpression="attribute_not_exists(pk)")
    assert stored(client, hash_table) == K


def test_put_condition_fails_on_existing_item(client, hash_table):
    client.put_item(TableName=hash_table, Item={**K, "x": {"N": "1"}})
    error = assert_client_error(
        lambda: client.put_item(
            TableName=hash_table, Item={**K, "x": {"N": "2"}}, ConditionExpression="attribute_not_exists(pk)"
        ),
        "ConditionalCheckFailedException",
        CCF,
    )
    assert "Item" not in error.response
    assert stored(client, hash_table) == {**K, "x": {"N": "1"}}


def test_conditional_check_failed_is_modeled_exception(client, hash_table):
    client.put_item(TableName=hash_table, Item=K)
    with pytest.raises(client.exceptions.ConditionalCheckFailedException) as exc_info:
        client.put_item(TableName=hash_table, Item=K, ConditionExpression="attribute_not_exists(pk)")
    assert isinstance(exc_info.value, ClientError)
    assert exc_info.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400


def test_put_return_old_on_condition_failure(client, hash_table):
    client.put_item(TableName=hash_table, Item={**K, "x": {"N": "1"}})
    error = assert_client_error(
        lambda: client.put_item(
            TableName=hash_table,
            Item=K,
            ConditionExpression="attribute_not_exists(pk)",
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        ),
        "ConditionalCheckFailedException",
        CCF,
    )
    assert error.response["Item"] == {**K, "x": {"N": "1"}}


def test_put_return_none_on_condition_failure(client, hash_table):
    client.put_item(TableName=hash_table, Item=K)
    error = assert_client_error(
        lambda: client.put_item(
            TableName=hash_table,
            Item=K,
            ConditionExpression="attribute_not_exists(pk)",
            ReturnValuesOnConditionCheckFailure="NONE",
        ),
        "ConditionalCheckFailedException",
        CCF,
    )
    assert "Item" not in error.response


def test_return_old_on_condition_failure_of_missing_item(client, hash_table):
    error = assert_client_error(
        lambda: client.put_item(
            TableName=hash_table,
            Item=K,
            ConditionExpression="attribute_exists(pk)",
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        ),
        "ConditionalCheckFailedException",
        CCF,
    )
    assert "Item" not in error.response


def test_invalid_return_values_on_condition_check_failure(client, hash_table):
    assert_client_error(
        lambda: client.put_item(
            TableName=hash_table,
            Item=K,
            ConditionExpression="attribute_exists(pk)",
            ReturnValuesOnConditionCheckFailure="ALL_NEW",
        ),
        "ValidationException",
        "1 validation error detected: Value 'ALL_NEW' at 'returnValuesOnConditionCheckFailure' failed to satisfy "
        "constraint: Member must satisfy enum value set: [ALL_OLD, NONE]",
    )


def test_condition_success_with_return_old_on_failure(client, hash_table):
    client.put_item(TableName=hash_table, Item={**K, "x": {"N": "1"}})
    response = client.put_item(
        TableName=hash_table,
        Item={**K, "x": {"N": "2"}},
        ConditionExpression="x = :one",
        ExpressionAttributeValues={":one": {"N": "1"}},
        ReturnValuesOnConditionCheckFailure="ALL_OLD",
    )
    assert "Attributes" not in response
    assert stored(client, hash_table) == {**K, "x": {"N": "2"}}


def test_put_range_table_items_are_distinct(client, range_table):
    for sk in ("1", "2"):
        client.put_item(TableName=range_table, Item={**K, "sk": {"S": sk}, "v": {"S": sk}})
    for sk in ("1", "2"):
        assert get(client, range_table, {**K, "sk": {"S": sk}})["Item"]["v"] == {"S": sk}


# -- GetItem -----------------------------------------------------------------------------------------------------


def test_get_missing_item_has_no_item_key(client, hash_table):
    response = get(client, hash_table)
    assert "Item" not in response
    assert "ConsumedCapacity" not in response


@pytest.mark.parametrize("consistent", [True, False])
def test_get_consistent_read(client, hash_table, consistent):
    client.put_item(TableName=hash_table, Item={**K, "x": {"S": "y"}})
    assert get(client, hash_table, ConsistentRead=consistent)["Item"] == {**K, "x": {"S": "y"}}


def test_get_with_projection(client, hash_table):
    client.put_item(TableName=hash_table, Item={**K, "x": {"S": "y"}, "z": {"N": "1"}})
    assert get(client, hash_table, ProjectionExpression="z")["Item"] == {"z": {"N": "1"}}


def test_get_projection_of_keys(client, range_table):
    key = {**K, "sk": {"S": "1"}}
    client.put_item(TableName=range_table, Item={**key, "x": {"S": "y"}})
    assert get(client, range_table, key, ProjectionExpression="pk, sk")["Item"] == key


def test_get_projection_of_missing_attributes_returns_empty_item(client, hash_table):
    client.put_item(TableName=hash_table, Item={**K, "x": {"S": "y"}})
    assert get(client, hash_table, ProjectionExpression="nothere")["Item"] == {}


def test_get_projection_on_missing_item(client, hash_table):
    assert "Item" not in get(client, hash_table, ProjectionExpression="x")


def test_get_with_attributes_to_get(client, hash_table):
    client.put_item(TableName=hash_table, Item={**K, "x": {"S": "y"}, "z": {"N": "1"}})
    assert get(client, hash_table, AttributesToGet=["x"])["Item"] == {"x": {"S": "y"}}


def test_get_attributes_to_get_with_projection(client, hash_table):
    assert_client_error(
        lambda: get(client, hash_table, AttributesToGet=["x"], ProjectionExpression="x"),
        "ValidationException",
        "Can not use both expression and non-expression parameters in the same request: Non-expression "
        "parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}",
    )


def test_get_missing_range_key(client, range_table):
    assert_client_error(
        lambda: get(client, range_table, K),
        "ValidationException",
        KEY_NOT_IN_SCHEMA,
    )


def test_get_extra_key_attribute(client, range_table):
    assert_client_error(
        lambda: get(client, range_table, {**K, "sk": {"S": "1"}, "x": {"S": "y"}}),
        "ValidationException",
        KEY_NOT_IN_SCHEMA,
    )


def test_get_wrong_key_name(client, range_table):
    assert_client_error(
        lambda: get(client, range_table, {**K, "zz": {"S": "1"}}),
        "ValidationException",
        KEY_NOT_IN_SCHEMA,
    )


def test_get_key_type_mismatch(client, num_range_table):
    assert_client_error(
        lambda: get(client, num_range_table, {**K, "sk": {"S": "1"}}),
        "ValidationException",
        KEY_NOT_IN_SCHEMA,
    )


def test_get_empty_key(client, hash_table):
    assert_client_error(
        lambda: get(client, hash_table, {}),
        "ValidationException",
        KEY_NOT_IN_SCHEMA,
    )


def test_get_binary_key(client, binary_table):
    key = {"pk": {"B": b"\x00\xff"}, "sk": {"B": b"\x01"}}
    client.put_item(TableName=binary_table, Item={**key, "v": {"S": "x"}})
    assert get(client, binary_table, key)["Item"] == {**key, "v": {"S": "x"}}
    assert "Item" not in get(client, binary_table, {"pk": {"B": b"\x00\xff"}, "sk": {"B": b"\x01\x00"}})


# -- DeleteItem --------------------------------------------------------------------------------------------------


def test_delete_item(client, hash_table):
    client.put_item(TableName=hash_table, Item=K)
    response = client.delete_item(TableName=hash_table, Key=K)
    assert "Attributes" not in response
    assert stored(client, hash_table) is None


def test_delete_missing_item_succeeds(client, hash_table):
    assert "Attributes" not in client.delete_item(TableName=hash_table, Key=K)


def test_delete_all_old(client, hash_table):
    client.put_item(TableName=hash_table, Item={**K, "x": {"N": "1"}})
    response = client.delete_item(TableName=hash_table, Key=K, ReturnValues="ALL_OLD")
    assert response["Attributes"] == {**K, "x": {"N": "1"}}


def test_delete_all_old_on_missing_item(client, hash_table):
    assert "Attributes" not in client.delete_item(TableName=hash_table, Key=K, ReturnValues="ALL_OLD")


def test_delete_return_values_none(client, hash_table):
    client.put_item(TableName=hash_table, Item=K)
    assert "Attributes" not in client.delete_item(TableName=hash_table, Key=K, ReturnValues="NONE")


@pytest.mark.parametrize("return_values", ["ALL_NEW", "UPDATED_OLD", "UPDATED_NEW", "BOGUS"])
def test_delete_invalid_return_values(client, hash_table, return_values):
    client.put_item(TableName=hash_table, Item=K)
    assert_client_error(
        lambda: client.delete_item(TableName=hash_table, Key=K, ReturnValues=return_values),
        "ValidationException",
        NOT_A_RETURN_VALUE if return_values == "BOGUS" else BAD_RETURN_VALUES,
    )
    assert stored(client, hash_table) == K


def test_delete_condition_fails(client, hash_table):
    client.put_item(TableName=hash_table, Item={**K, "x": {"N": "1"}})
    error = assert_client_error(
        lambda: client.delete_item(
            TableName=hash_table,
            Key=K,
            ConditionExpression="x = :v",
            ExpressionAttributeValues={":v": {"N": "5"}},
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        ),
        "ConditionalCheckFailedException",
        CCF,
    )
    assert error.response["Item"] == {**K, "x": {"N": "1"}}
    assert stored(client, hash_table) == {**K, "x": {"N": "1"}}


def test_delete_condition_on_missing_item(client, hash_table):
    assert_client_error(
        lambda: client.delete_item(TableName=hash_table, Key=K, ConditionExpression="attribute_exists(pk)"),
        "ConditionalCheckFailedException",
        CCF,
    )


def test_delete_condition_passes(client, hash_table):
    client.put_item(TableName=hash_table, Item={**K, "x": {"N": "1"}})
    client.delete_item(
        TableName=hash_table,
        Key=K,
        ConditionExpression="x = :v",
        ExpressionAttributeValues={":v": {"N": "1"}},
    )
    assert stored(client, hash_table) is None


def test_delete_requires_full_key(client, range_table):
    assert_client_error(
        lambda: client.delete_item(TableName=range_table, Key=K),
        "ValidationException",
        KEY_NOT_IN_SCHEMA,
    )


# -- UpdateItem --------------------------------------------------------------------------------------------------

BASE = {**K, "x": {"N": "1"}, "y": {"S": "keep"}, "z": {"S": "gone"}}
EXPR = "SET x = x + :one, w = :one REMOVE z"


def _update(client, table, return_values):
    client.put_item(TableName=table, Item=BASE)
    return client.update_item(
        TableName=table,
        Key=K,
        UpdateExpression=EXPR,
        ExpressionAttributeValues={":one": {"N": "1"}},
        ReturnValues=return_values,
    )


def test_update_return_values_default(client, hash_table):
    client.put_item(TableName=hash_table, Item=BASE)
    response = client.update_item(
        TableName=hash_table, Key=K, UpdateExpression=EXPR, ExpressionAttributeValues={":one": {"N": "1"}}
    )
    assert "Attributes" not in response
    assert stored(client, hash_table) == {**K, "x": {"N": "2"}, "y": {"S": "keep"}, "w": {"N": "1"}}


def test_update_return_values_none(client, hash_table):
    assert "Attributes" not in _update(client, hash_table, "NONE")


def test_update_return_all_old(client, hash_table):
    assert _update(client, hash_table, "ALL_OLD")["Attributes"] == BASE


def test_update_return_updated_old(client, hash_table):
    # only attributes that existed before and were touched: the new "w" is absent
    assert _update(client, hash_table, "UPDATED_OLD")["Attributes"] == {"x": {"N": "1"}, "z": {"S": "gone"}}


def test_update_return_all_new(client, hash_table):
    assert _update(client, hash_table, "ALL_NEW")["Attributes"] == {
        **K,
        "x": {"N": "2"},
        "y": {"S": "keep"},
        "w": {"N": "1"},
    }


def test_update_return_updated_new(client, hash_table):
    # removed attributes are absent
    assert _update(client, hash_table, "UPDATED_NEW")["Attributes"] == {"x": {"N": "2"}, "w": {"N": "1"}}


def test_update_invalid_return_values(client, hash_table):
    client.put_item(TableName=hash_table, Item=BASE)
    assert_client_error(
        lambda: client.update_item(
            TableName=hash_table,
            Key=K,
            UpdateExpression="SET x = :v",
            ExpressionAttributeValues={":v": {"N": "9"}},
            ReturnValues="BOGUS",
        ),
        "ValidationException",
        NOT_A_RETURN_VALUE,
    )
    assert stored(client, hash_table) == BASE


@pytest.mark.parametrize(
    "return_values, expected",
    [
        ("NONE", None),
        ("ALL_OLD", None),
        ("UPDATED_OLD", None),
        ("ALL_NEW", {**K, "x": {"N": "1"}}),
        ("UPDATED_NEW", {"x": {"N": "1"}}),
    ],
)
def test_update_creates_item(client, hash_table, return_values, expected):
    response = client.update_item(
        TableName=hash_table,
        Key=K,
        UpdateExpression="SET x = :v",
        ExpressionAttributeValues={":v": {"N": "1"}},
        ReturnValues=return_values,
    )
    if expected is None:
        assert "Attributes" not in response
    else:
        assert response["Attributes"] == expected
    assert stored(client, hash_table) == {**K, "x": {"N": "1"}}


def test_update_without_expression_creates_key_only_item(client, range_table):
    key = {**K, "sk": {"S": "1"}}
    response = client.update_item(TableName=range_table, Key=key, ReturnValues="ALL_NEW")
    assert response["Attributes"] == key
    assert stored(client, range_table, key) == key


def test_update_remove_on_missing_item_creates_it(client, hash_table):
    response = client.update_item(
        TableName=hash_table, Key=K, UpdateExpression="REMOVE q", ReturnValues="ALL_NEW"
    )
    assert response["Attributes"] == K
    assert stored(client, hash_table) == K


def test_update_updated_old_when_nothing_existed(client, hash_table):
    client.put_item(TableName=hash_table, Item=K)
    response = client.update_item(
        TableName=hash_table, Key=K, UpdateExpression="REMOVE q", ReturnValues="UPDATED_OLD"
    )
    assert "Attributes" not in response


def test_update_condition_fails(client, hash_table):
    client.put_item(TableName=hash_table, Item={**K, "x": {"N": "1"}})
    error = assert_client_error(
        lambda: client.update_item(
            TableName=hash_table,
            Key=K,
            UpdateExpression="SET y = :v",
            ConditionExpression="x = :v",
            ExpressionAttributeValues={":v": {"N": "5"}},
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        ),
        "ConditionalCheckFailedException",
        CCF,
    )
    assert error.response["Item"] == {**K, "x": {"N": "1"}}
    assert stored(client, hash_table) == {**K, "x": {"N": "1"}}


def test_update_condition_on_missing_item_does_not_create(client, hash_table):
    assert_client_error(
        lambda: client.update_item(
            TableName=hash_table,
            Key=K,
            UpdateExpression="SET y = :v",
            ConditionExpression="attribute_exists(pk)",
            ExpressionAttributeValues={":v": {"N": "5"}},
        ),
        "ConditionalCheckFailedException",
        CCF,
    )
    assert stored(client, hash_table) is None


def test_update_condition_only(client, hash_table):
    client.put_item(TableName=hash_table, Item={**K, "x": {"N": "1"}})
    assert_client_error(
        lambda: client.update_item(
            TableName=hash_table,
            Key=K,
            ConditionExpression="x = :v",
            ExpressionAttributeValues={":v": {"N": "2"}},
        ),
        "ConditionalCheckFailedException",
        CCF,
    )


@pytest.mark.parametrize(
    "expression, values",
    [
        ("SET pk = :v", {":v": {"S": "b"}}),
        ("REMOVE pk", None),
        ("SET pk = pk", None),
    ],
)
def test_update_key_attribute(client, hash_table, expression, values):
    client.put_item(TableName=hash_table, Item=K)
    kwargs = {"ExpressionAttributeValues": values} if values else {}
    assert_client_error(
        lambda: client.update_item(TableName=hash_table, Key=K, UpdateExpression=expression, **kwargs),
        "ValidationException",
        "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key",
    )
    assert stored(client, hash_table) == K


def test_update_range_key_attribute_via_name(client, range_table):
    key = {**K, "sk": {"S": "1"}}
    client.put_item(TableName=range_table, Item=key)
    assert_client_error(
        lambda: client.update_item(
            TableName=range_table,
            Key=key,
            UpdateExpression="SET #k = :v",
            ExpressionAttributeNames={"#k": "sk"},
            ExpressionAttributeValues={":v": {"S": "2"}},
        ),
        "ValidationException",
        "One or more parameter values were invalid: Cannot update attribute sk. This attribute is part of the key",
    )


def test_update_with_attribute_updates(client, hash_table):
    client.put_item(TableName=hash_table, Item={**K, "n": {"N": "1"}})
    response = client.update_item(
        TableName=hash_table,
        Key=K,
        AttributeUpdates={"n": {"Value": {"N": "2"}, "Action": "PUT"}},
        ReturnValues="ALL_NEW",
    )
    assert response["Attributes"] == {**K, "n": {"N": "2"}}


def test_update_expression_and_attribute_updates(client, hash_table):
    assert_client_error(
        lambda: client.update_item(
            TableName=hash_table,
            Key=K,
            UpdateExpression="SET n = :v",
            AttributeUpdates={"n": {"Value": {"N": "2"}, "Action": "PUT"}},
            ExpressionAttributeValues={":v": {"N": "1"}},
        ),
        "ValidationException",
        "Can not use both expression and non-expression parameters in the same request: Non-expression "
        "parameters: {AttributeUpdates} Expression parameters: {UpdateExpression}",
    )


def test_update_values_without_expression(client, hash_table):
    assert_client_error(
        lambda: client.update_item(TableName=hash_table, Key=K, ExpressionAttributeValues={":v": {"N": "1"}}),
        "ValidationException",
        "ExpressionAttributeValues can only be specified when using expressions: UpdateExpression and "
        "ConditionExpression are null",
    )
    assert stored(client, hash_table) is None


def test_update_condition_and_expected(client, hash_table):
    assert_client_error(
        lambda: client.update_item(
            TableName=hash_table,
            Key=K,
            UpdateExpression="SET n = :v",
            ConditionExpression="n = :v",
            Expected={"n": {"Value": {"N": "1"}}},
            ExpressionAttributeValues={":v": {"N": "1"}},
        ),
        "ValidationException",
        "Can not use both expression and non-expression parameters in the same request: Non-expression "
        "parameters: {Expected} Expression parameters: {UpdateExpression, ConditionExpression}",
    )


@pytest.mark.local_quirk
def test_update_nested_updated_new_returns_top_level_attribute(client, hash_table):
    # DynamoDB Local returns the whole top-level attribute that contains an updated nested path
    client.put_item(TableName=hash_table, Item={**K, "m": {"M": {"k": {"S": "v"}, "o": {"S": "other"}}}})
    response = client.update_item(
        TableName=hash_table,
        Key=K,
        UpdateExpression="SET m.k = :v",
        ExpressionAttributeValues={":v": {"S": "new"}},
        ReturnValues="UPDATED_NEW",
    )
    assert response["Attributes"] == {"m": {"M": {"k": {"S": "new"}, "o": {"S": "other"}}}}


@pytest.mark.local_quirk
def test_update_nested_updated_old(client, hash_table):
    client.put_item(TableName=hash_table, Item={**K, "m": {"M": {"k": {"S": "v"}, "o": {"S": "other"}}}})
    response = client.update_item(
        TableName=hash_table,
        Key=K,
        UpdateExpression="REMOVE m.k",
        ReturnValues="UPDATED_OLD",
    )
    assert response["Attributes"] == {"m": {"M": {"k": {"S": "v"}, "o": {"S": "other"}}}}


def test_update_set_same_value_is_still_updated(client, hash_table):
    client.put_item(TableName=hash_table, Item={**K, "x": {"N": "1"}})
    response = client.update_item(
        TableName=hash_table,
        Key=K,
        UpdateExpression="SET x = :v",
        ExpressionAttributeValues={":v": {"N": "1"}},
        ReturnValues="UPDATED_OLD",
    )
    assert response["Attributes"] == {"x": {"N": "1"}}
