"""Bound expressions are reused across requests that repeat them (embedded only: this is about the engine's
cache, whose answers must be exactly those of binding afresh)."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

import dynabase
from dynabase.errors import DynamoDBError

TABLE = "bound"


@pytest.fixture
def client():
    client = dynabase.connect(":memory:")
    client.create_table(
        TableName=TABLE,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    client.put_item(TableName=TABLE, Item={"pk": {"S": "a"}, "c": {"N": "0"}, "flag": {"BOOL": True}})
    yield client
    client.close()


def _error(call, **request) -> str:
    with pytest.raises(ClientError) as caught:
        call(**request)
    return caught.value.response["Error"]["Message"]


def test_a_repeated_update_gives_the_same_answers(client):
    request = {
        "TableName": TABLE,
        "Key": {"pk": {"S": "a"}},
        "UpdateExpression": "SET #c = #c + :one",
        "ConditionExpression": "attribute_exists(pk)",
        "ExpressionAttributeNames": {"#c": "c"},
        "ExpressionAttributeValues": {":one": {"N": "1"}},
    }
    for _ in range(3):
        client.update_item(**request)
    assert client.get_item(TableName=TABLE, Key={"pk": {"S": "a"}})["Item"]["c"] == {"N": "3"}
    with pytest.raises(client.exceptions.ConditionalCheckFailedException):
        client.update_item(**{**request, "Key": {"pk": {"S": "missing"}}})


def test_a_bad_value_is_refused_even_when_an_equal_good_one_was_bound_before(client):
    good = {
        "TableName": TABLE,
        "Key": {"pk": {"S": "a"}},
        "ConditionExpression": "flag = :t",
        "ExpressionAttributeValues": {":t": {"BOOL": True}},
    }
    client.delete_item(
        **{
            **good,
            "Key": {"pk": {"S": "absent"}},
            "ConditionExpression": "attribute_not_exists(pk) OR flag = :t",
        }
    )
    client.get_item(TableName=TABLE, Key={"pk": {"S": "a"}})
    client.update_item(**good, UpdateExpression="SET c = :t")
    # 1 == True in Python: the cache must still see that this value is not a boolean (asked of the engine
    # itself, below boto3's parameter validation)
    bad = {**good, "ExpressionAttributeValues": {":t": {"BOOL": 1}}, "UpdateExpression": "SET c = :t"}
    with pytest.raises(DynamoDBError) as caught:
        client.engine.call("UpdateItem", bad)
    assert "ExpressionAttributeValues contains invalid value" in caught.value.message


def test_an_unused_placeholder_is_refused_after_the_same_expression_bound_cleanly(client):
    request = {
        "TableName": TABLE,
        "Key": {"pk": {"S": "a"}},
        "ProjectionExpression": "#c",
        "ExpressionAttributeNames": {"#c": "c"},
    }
    assert client.get_item(**request)["Item"] == {"c": {"N": "0"}}
    message = _error(client.get_item, **{**request, "ExpressionAttributeNames": {"#c": "c", "#d": "d"}})
    assert message == "Value provided in ExpressionAttributeNames unused in expressions: keys: {#d}"


def test_changing_an_answer_does_not_change_later_updates(client):
    def request() -> dict:  # a fresh request each time: the answer may share the caller's own value objects
        return {
            "TableName": TABLE,
            "Key": {"pk": {"S": "a"}},
            "UpdateExpression": "SET label = :v",
            "ExpressionAttributeValues": {":v": {"S": "first"}},
        }

    for return_values in ("NONE", "ALL_NEW", "UPDATED_NEW", "NONE"):
        answer = client.update_item(**request(), ReturnValues=return_values)
        if "Attributes" in answer:
            answer["Attributes"]["label"]["S"] = "changed by the caller"
        stored = client.get_item(TableName=TABLE, Key={"pk": {"S": "a"}})["Item"]["label"]
        assert stored == {"S": "first"}
