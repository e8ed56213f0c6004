"""Deeply nested expressions get DynamoDB's ValidationException in every expression parameter, never a 500.

DynamoDB bounds expressions to 4 KB, not their nesting: 1,000 NOTs are "too many operators", 2,000 parentheses are
"redundant parentheses", 500 nested ``size`` calls an operand type error, and 299 NOTs evaluate.
"""

from __future__ import annotations

import pytest

from ddb_helpers import assert_client_error, on_small_stack

KEY = {"pk": {"S": "k"}}
V = {":v": {"N": "1"}}


def _invalid(kind, message):
    return f"Invalid {kind}: {message}"


TOO_MANY = "The expression contains too many operators; operator count: 301"
REDUNDANT = "The expression has redundant parentheses;"

CONDITIONS = [
    ("NOT " * 1000 + "n = :v", TOO_MANY),
    ("(NOT " * 300 + "n = :v" + ")" * 300, TOO_MANY),
    ("(" * 2000 + "n = :v" + ")" * 2000, REDUNDANT),
    ("(" * 2000 + "n" + ")" * 2000 + " = :v", REDUNDANT),
    (
        "size(" * 500 + "n" + ")" * 500 + " = :v",
        "Incorrect operand type for operator or function; operator or function: size, operand type: N",
    ),
    (
        "attribute_exists(" + ".".join(["a"] * 1000) + ")",
        "The document path has too many nesting levels; nesting levels: 1000",
    ),
    (
        "attribute_exists(a" + "[0]" * 1000 + ")",
        "The document path has too many nesting levels; nesting levels: 1001",
    ),
]


@pytest.mark.parametrize("expression, message", CONDITIONS, ids=range(len(CONDITIONS)))
def test_deep_condition_and_filter_expressions(client, hash_table, expression, message):
    values = V if ":v" in expression else None
    extra = {"ExpressionAttributeValues": values} if values else {}
    client.put_item(TableName=hash_table, Item={**KEY, "n": {"N": "1"}})
    assert_client_error(
        lambda: client.put_item(TableName=hash_table, Item=KEY, ConditionExpression=expression, **extra),
        "ValidationException",
        _invalid("ConditionExpression", message),
    )
    assert_client_error(
        lambda: client.scan(TableName=hash_table, FilterExpression=expression, **extra),
        "ValidationException",
        _invalid("FilterExpression", message),
    )


def test_deep_key_condition_update_and_projection_expressions(client, hash_table):
    deep = "(" * 2000
    assert_client_error(
        lambda: client.query(
            TableName=hash_table,
            KeyConditionExpression=deep + "pk = :v" + ")" * 2000,
            ExpressionAttributeValues=V,
        ),
        "ValidationException",
        _invalid("KeyConditionExpression", REDUNDANT),
    )
    assert_client_error(
        lambda: client.update_item(
            TableName=hash_table,
            Key=KEY,
            UpdateExpression="SET a = " + deep + ":v" + ")" * 2000,
            ExpressionAttributeValues=V,
        ),
        "ValidationException",
        _invalid("UpdateExpression", REDUNDANT),
    )
    assert_client_error(
        lambda: client.get_item(TableName=hash_table, Key=KEY, ProjectionExpression=deep + "a" + ")" * 2000),
        "ValidationException",
        _invalid("ProjectionExpression", 'Syntax error; token: "(", near: "(("'),
    )


def test_deep_valid_expressions_evaluate(client, hash_table):
    client.put_item(TableName=hash_table, Item={**KEY, "n": {"N": "1"}})
    for nots in (298, 299):
        page = client.scan(
            TableName=hash_table, FilterExpression="NOT " * nots + "n = :v", ExpressionAttributeValues=V
        )
        assert page["Count"] == 1 - nots % 2  # an even number of NOTs keeps n = :v true
    client.update_item(
        TableName=hash_table,
        Key=KEY,
        UpdateExpression="SET l = " + "if_not_exists(l, " * 200 + ":v" + ")" * 200,
        ExpressionAttributeValues={":v": {"L": [{"N": "1"}]}},
    )
    assert client.get_item(TableName=hash_table, Key=KEY)["Item"]["l"] == {"L": [{"N": "1"}]}


def test_deep_expressions_on_a_thread_with_a_small_stack(client, hash_table):
    """The server answers on threads; a deep expression must not need the caller's stack or recursion budget."""

    def run():
        for expression, message in CONDITIONS[:4]:
            assert_client_error(
                lambda e=expression: client.scan(
                    TableName=hash_table, FilterExpression=e, ExpressionAttributeValues=V
                ),
                "ValidationException",
                _invalid("FilterExpression", message),
            )

    on_small_stack(run)
