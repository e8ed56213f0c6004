"""TransactWriteItems and TransactGetItems: all-or-nothing, cancellation reasons, validation, idempotency, capacity.

How DynamoDB Local sorts a problem inside a TransactWriteItems action:

* a failed condition is a ``ConditionalCheckFailed`` cancellation reason -- its message ends with a period for a
  ConditionCheck action and has none for Put, Update and Delete;
* a key of the wrong type, and an update of a key attribute, are ``ValidationError`` cancellation reasons;
* every other problem (a missing key attribute, an item too big, an invalid attribute value, an update operand of
  the wrong type at run time, a bad expression) fails the whole request with a ``ValidationException``.

Transactions cost twice the units of the same non-transactional operations.
"""

from __future__ import annotations

import uuid

import pytest
from botocore.exceptions import ClientError, ParamValidationError

from aws_differences import behaviour
from ddb_helpers import assert_client_error, scan_all, sorted_items, validation_errors, violation

CCF = "The conditional request failed"
CCF_CHECK = "The conditional request failed."  # a ConditionCheck action's message has a period
ONE_ITEM = "Transaction request cannot include multiple operations on one item"
NOT_FOUND = "Requested resource not found"  # AWS (Local: "Cannot do operations on a non-existent table")
TYPE_MISMATCH = "One or more parameter values were invalid: Type mismatch for key"
KEY_UPDATE = (
    "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key"
)

#: AWS's answer to over 100 actions, in its newer form naming the member (paritysuite/dynamodb-conformance
#: tests/tier3/error-messages/transactWriteItems.test.ts; the older form quotes the request in Java's rendering)
OVER_100 = validation_errors(
    violation(..., "TransactItems", "Member must have length less than or equal to 100")
)


def K(value):
    return {"pk": {"S": value}}


def Put(table, item, **extra):
    return {"Put": {"TableName": table, "Item": item, **extra}}


def Update(table, key, expression, values=None, **extra):
    action = {"TableName": table, "Key": key, "UpdateExpression": expression, **extra}
    if values:
        action["ExpressionAttributeValues"] = values
    return {"Update": action}


def Delete(table, key, **extra):
    return {"Delete": {"TableName": table, "Key": key, **extra}}


def Check(table, key, condition, **extra):
    return {"ConditionCheck": {"TableName": table, "Key": key, "ConditionExpression": condition, **extra}}


def Get(table, key, **extra):
    return {"Get": {"TableName": table, "Key": key, **extra}}


def canceled_message(codes):
    return (
        f"Transaction cancelled, please refer cancellation reasons for specific reasons [{', '.join(codes)}]"
    )


def assert_canceled(call, reasons):
    """The call fails with TransactionCanceledException and exactly these CancellationReasons; returns the error."""
    codes = [reason["Code"] for reason in reasons]
    error = assert_client_error(call, "TransactionCanceledException", canceled_message(codes))
    assert error.response["CancellationReasons"] == reasons
    return error


def contents(client, table):
    return sorted_items(scan_all(client, TableName=table, ConsistentRead=True), "pk")


def by_table(response):
    entries = response["ConsumedCapacity"]
    by_name = {entry["TableName"]: entry for entry in entries}
    assert len(by_name) == len(entries), entries
    return by_name


NONE = {"Code": "None"}
FAILED = {"Code": "ConditionalCheckFailed", "Message": CCF}
FAILED_CHECK = {"Code": "ConditionalCheckFailed", "Message": CCF_CHECK}

A = {**K("a"), "n": {"N": "1"}, "s": {"S": "old"}}
B = {**K("b"), "n": {"N": "2"}}


@pytest.fixture
def table(client, hash_table):
    """A hash-key table holding items ``a`` (A) and ``b`` (B)."""
    client.put_item(TableName=hash_table, Item=A)
    client.put_item(TableName=hash_table, Item=B)
    return hash_table


@pytest.fixture
def other(make_table):
    return make_table(("pk:S",))


# -- TransactWriteItems: success ---------------------------------------------------------------------------------


def test_write_all_action_kinds(client, table):
    response = client.transact_write_items(
        TransactItems=[
            Put(table, {**K("c"), "n": {"N": "3"}}),
            Update(table, K("a"), "SET n = n + :one REMOVE s", {":one": {"N": "1"}}),
            Delete(table, K("b")),
            Check(table, K("nope"), "attribute_not_exists(pk)"),
        ]
    )
    assert set(response) == {"ResponseMetadata"}
    assert contents(client, table) == [{**K("a"), "n": {"N": "2"}}, {**K("c"), "n": {"N": "3"}}]


def test_write_with_passing_conditions(client, table):
    client.transact_write_items(
        TransactItems=[
            Put(table, {**K("c")}, ConditionExpression="attribute_not_exists(pk)"),
            Update(
                table,
                K("a"),
                "SET s = :new",
                {":new": {"S": "new"}, ":old": {"S": "old"}},
                ConditionExpression="s = :old",
            ),
            Delete(
                table, K("b"), ConditionExpression="n = :two", ExpressionAttributeValues={":two": {"N": "2"}}
            ),
        ]
    )
    assert contents(client, table) == [{**A, "s": {"S": "new"}}, K("c")]


def test_write_across_tables(client, table, other):
    client.transact_write_items(TransactItems=[Put(other, K("a")), Delete(table, K("a")), Put(table, K("x"))])
    assert contents(client, other) == [K("a")]
    assert contents(client, table) == [B, K("x")]


def test_write_same_key_in_two_tables(client, table, other):
    client.transact_write_items(TransactItems=[Put(table, K("a")), Put(other, K("a"))])
    assert contents(client, table) == [K("a"), B]
    assert contents(client, other) == [K("a")]


def test_write_update_creates_item(client, table):
    client.transact_write_items(TransactItems=[Update(table, K("new"), "SET n = :v", {":v": {"N": "9"}})])
    assert client.get_item(TableName=table, Key=K("new"))["Item"] == {**K("new"), "n": {"N": "9"}}


def test_write_delete_of_missing_item(client, table):
    client.transact_write_items(TransactItems=[Delete(table, K("nope"))])
    assert contents(client, table) == [A, B]


def test_write_100_actions(client, hash_table):
    client.transact_write_items(TransactItems=[Put(hash_table, K(f"{i:03d}")) for i in range(100)])
    assert len(contents(client, hash_table)) == 100


def test_write_101_actions(client, hash_table):
    assert_client_error(
        lambda: client.transact_write_items(TransactItems=[Put(hash_table, K(str(i))) for i in range(101)]),
        "ValidationException",
        OVER_100,
    )
    assert contents(client, hash_table) == []


def test_write_no_actions_is_a_parameter_error(client):
    with pytest.raises(ParamValidationError):
        client.transact_write_items(TransactItems=[])


# -- TransactWriteItems: one item, one action --------------------------------------------------------------------


@pytest.mark.parametrize(
    "actions",
    [
        lambda t: [Put(t, K("a")), Put(t, {**K("a"), "x": {"N": "1"}})],
        lambda t: [Put(t, {**K("a"), "x": {"N": "1"}}), Check(t, K("a"), "attribute_exists(pk)")],
        lambda t: [Update(t, K("a"), "SET x = :v", {":v": {"N": "1"}}), Delete(t, K("a"))],
        lambda t: [Check(t, K("a"), "attribute_exists(pk)"), Check(t, K("a"), "attribute_exists(n)")],
    ],
    ids=["put-put", "put-check", "update-delete", "check-check"],
)
def test_write_one_item_touched_twice(client, table, actions):
    assert_client_error(
        lambda: client.transact_write_items(TransactItems=[Put(table, K("new")), *actions(table)]),
        "ValidationException",
        ONE_ITEM,
    )
    assert contents(client, table) == [A, B]


def test_write_one_item_touched_twice_composite_key(client, num_range_table):
    assert_client_error(
        lambda: client.transact_write_items(
            TransactItems=[
                Put(num_range_table, {**K("p"), "sk": {"N": "1"}}),
                Put(num_range_table, {**K("p"), "sk": {"N": "1.0"}}),
            ]
        ),
        "ValidationException",
        ONE_ITEM,
    )


@pytest.mark.local_quirk
def test_write_failed_condition_reported_before_the_one_item_rule(client, table):
    # Local checks the conditions first: when one fails, the duplicate goes unreported
    assert_canceled(
        lambda: client.transact_write_items(
            TransactItems=[Put(table, K("a")), Check(table, K("a"), "attribute_not_exists(pk)")]
        ),
        [NONE, FAILED_CHECK],
    )
    assert contents(client, table) == [A, B]


# -- TransactWriteItems: all or nothing ----------------------------------------------------------------------------


def test_failing_condition_check_undoes_every_write(client, table, other):
    client.put_item(TableName=other, Item=K("o"))
    assert_canceled(
        lambda: client.transact_write_items(
            TransactItems=[
                Put(table, K("c")),
                Update(table, K("a"), "SET s = :v", {":v": {"S": "new"}}),
                Delete(table, K("b")),
                Delete(other, K("o")),
                Put(other, K("p")),
                Check(other, K("q"), "attribute_exists(pk)"),
            ]
        ),
        [NONE, NONE, NONE, NONE, NONE, FAILED_CHECK],
    )
    assert contents(client, table) == [A, B]
    assert contents(client, other) == [K("o")]


def test_cancellation_reasons_in_order(client, table):
    assert_canceled(
        lambda: client.transact_write_items(
            TransactItems=[
                Put(table, K("c")),
                Put(table, K("a"), ConditionExpression="attribute_not_exists(pk)"),
                Update(
                    table, K("b"), "SET x = :v", {":v": {"N": "1"}}, ConditionExpression="attribute_exists(x)"
                ),
                Delete(table, K("nope"), ConditionExpression="attribute_exists(pk)"),
                Check(table, K("nope2"), "attribute_exists(pk)"),
                Check(table, K("nope3"), "attribute_not_exists(pk)"),
            ]
        ),
        [NONE, FAILED, FAILED, FAILED, FAILED_CHECK, NONE],
    )
    assert contents(client, table) == [A, B]


def test_cancellation_error_shape(client, table):
    with pytest.raises(client.exceptions.TransactionCanceledException) as exc_info:
        client.transact_write_items(TransactItems=[Check(table, K("a"), "attribute_not_exists(pk)")])
    error = exc_info.value
    assert isinstance(error, ClientError)
    message = canceled_message(["ConditionalCheckFailed"])
    assert error.response["Error"] == {"Code": "TransactionCanceledException", "Message": message}
    assert error.response["Message"] == message  # the exception's modeled Message member
    assert error.response["CancellationReasons"] == [FAILED_CHECK]
    assert error.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert error.operation_name == "TransactWriteItems"


@pytest.mark.parametrize(
    "action, reason",
    [
        (
            lambda t: Check(t, K("a"), "n = :v", ExpressionAttributeValues={":v": {"N": "5"}}),
            {**FAILED_CHECK, "Item": A},
        ),
        (lambda t: Put(t, K("a"), ConditionExpression="attribute_not_exists(pk)"), {**FAILED, "Item": A}),
        (
            lambda t: Update(
                t, K("a"), "SET x = :v", {":v": {"N": "1"}}, ConditionExpression="attribute_exists(x)"
            ),
            {**FAILED, "Item": A},
        ),
        (lambda t: Delete(t, K("a"), ConditionExpression="attribute_exists(x)"), {**FAILED, "Item": A}),
        (lambda t: Delete(t, K("nope"), ConditionExpression="attribute_exists(pk)"), FAILED),
        (lambda t: Check(t, K("nope"), "attribute_exists(pk)"), FAILED_CHECK),
    ],
    ids=["check", "put", "update", "delete", "delete-missing", "check-missing"],
)
def test_return_old_item_on_condition_failure(client, table, action, reason):
    failing = action(table)
    ((kind, body),) = failing.items()
    failing = {kind: {**body, "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}}
    assert_canceled(
        lambda: client.transact_write_items(TransactItems=[failing, Put(table, K("c"))]), [reason, NONE]
    )


def test_return_none_on_condition_failure(client, table):
    assert_canceled(
        lambda: client.transact_write_items(
            TransactItems=[
                Check(table, K("a"), "attribute_not_exists(pk)", ReturnValuesOnConditionCheckFailure="NONE")
            ]
        ),
        [FAILED_CHECK],
    )


@pytest.mark.local_quirk
def test_return_values_on_condition_failure_all_new_accepted(client, table):
    # Local accepts any value here; the API only lists ALL_OLD and NONE
    client.transact_write_items(
        TransactItems=[Put(table, K("c"), ReturnValuesOnConditionCheckFailure="ALL_NEW")]
    )
    assert contents(client, table) == [A, B, K("c")]


# -- TransactWriteItems: validation errors inside actions ----------------------------------------------------------


@pytest.mark.parametrize(
    "action",
    [
        lambda t: Put(t, {"pk": {"N": "1"}}),
        lambda t: Update(t, {"pk": {"N": "1"}}, "SET x = :v", {":v": {"N": "1"}}),
        lambda t: Delete(t, {"pk": {"N": "1"}}),
        lambda t: Check(t, {"pk": {"N": "1"}}, "attribute_exists(pk)"),
    ],
    ids=["put", "update", "delete", "check"],
)
def test_key_type_mismatch_is_a_cancellation_reason(client, table, action):
    assert_canceled(
        lambda: client.transact_write_items(TransactItems=[Put(table, K("c")), action(table)]),
        [NONE, {"Code": "ValidationError", "Message": TYPE_MISMATCH}],
    )
    assert contents(client, table) == [A, B]


@pytest.mark.local_quirk
@pytest.mark.parametrize("expression", ["SET pk = :v", "REMOVE pk"])
@pytest.mark.parametrize("position", [0, 1, 2])
def test_key_update_is_the_only_cancellation_reason(client, table, expression, position):
    # Local cancels with this one reason, whatever the other actions and wherever the update is
    values = {":v": {"S": "x"}} if ":v" in expression else None
    actions = [Put(table, K("c")), Check(table, K("b"), "attribute_not_exists(pk)")]
    actions.insert(position, Update(table, K("a"), expression, values))
    assert_canceled(
        lambda: client.transact_write_items(TransactItems=actions),
        [{"Code": "ValidationError", "Message": KEY_UPDATE}],
    )
    assert contents(client, table) == [A, B]


def test_validation_errors_and_condition_failures_reported_together(client, table):
    assert_canceled(
        lambda: client.transact_write_items(
            TransactItems=[
                Check(table, K("a"), "attribute_not_exists(pk)"),
                Put(table, {"pk": {"N": "1"}}),
                Put(table, K("c")),
            ]
        ),
        [FAILED_CHECK, {"Code": "ValidationError", "Message": TYPE_MISMATCH}, NONE],
    )


@pytest.mark.parametrize(
    "action, message",
    [
        (lambda t: Put(t, {"x": {"S": "1"}}), "One of the required keys was not given a value"),
        (lambda t: Delete(t, {**K("a"), "x": {"S": "1"}}), "The number of conditions on the keys is invalid"),
        (lambda t: Check(t, {}, "attribute_exists(pk)"), "The number of conditions on the keys is invalid"),
        (
            lambda t: Put(t, {"pk": {"S": ""}}),
            "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an "
            "empty string value. Key: pk",
        ),
        (
            lambda t: Put(t, {**K("c"), "s": {"SS": []}}),
            "One or more parameter values were invalid: An string set  may not be empty",
        ),
        (
            lambda t: Put(t, {**K("c"), "s": {"SS": ["a", "a"]}}),
            "One or more parameter values were invalid: Input collection [a, a] contains duplicates.",
        ),
        (
            lambda t: Put(t, {**K("c"), "n": {"N": "abc"}}),
            "A value provided cannot be converted into a number",
        ),
        (
            lambda t: Put(t, {**K("c"), "d": {"S": "x" * (400 * 1024)}}),
            "Item size has exceeded the maximum allowed size",
        ),
        (
            lambda t: Update(t, K("a"), "SET d = :d", {":d": {"S": "x" * (400 * 1024)}}),
            "Item size to update has exceeded the maximum allowed size",
        ),
        (
            lambda t: Update(t, K("a"), "ADD s :v", {":v": {"N": "1"}}),
            "An operand in the update expression has an incorrect data type",
        ),
        (
            lambda t: Update(t, K("a"), "SET x = s + :v", {":v": {"N": "1"}}),
            "An operand in the update expression has an incorrect data type",
        ),
        (
            lambda t: Update(t, K("a"), "SET s.y = :v", {":v": {"N": "1"}}),
            "The document path provided in the update expression is invalid for update",
        ),
    ],
    ids=[
        "missing-key",
        "extra-key-attribute",
        "empty-key",
        "empty-key-value",
        "empty-set",
        "duplicate-set",
        "bad-number",
        "put-too-big",
        "update-too-big",
        "add-to-string",
        "arithmetic-on-string",
        "path-into-string",
    ],
)
def test_request_level_validation_errors(client, table, action, message):
    assert_client_error(
        lambda: client.transact_write_items(TransactItems=[Put(table, K("c")), action(table)]),
        "ValidationException",
        message,
    )
    assert contents(client, table) == [A, B]


def test_run_time_update_error_wins_over_condition_failure(client, table):
    assert_client_error(
        lambda: client.transact_write_items(
            TransactItems=[
                Check(table, K("nope"), "attribute_exists(pk)"),
                Update(table, K("a"), "ADD s :v", {":v": {"N": "1"}}),
            ]
        ),
        "ValidationException",
        "An operand in the update expression has an incorrect data type",
    )


@pytest.mark.parametrize(
    "action, message",
    [
        (
            lambda t: Update(t, K("a"), "SET y = "),
            'Invalid UpdateExpression: Syntax error; token: "<EOF>", near: "= "',
        ),
        (
            lambda t: Update(t, K("a"), "SET y = :v"),
            "Invalid UpdateExpression: An expression attribute value used in expression is not defined; "
            "attribute value: :v",
        ),
        (
            lambda t: Check(t, K("a"), "attribute_exists(pk)", ExpressionAttributeValues={":v": {"S": "1"}}),
            "Value provided in ExpressionAttributeValues unused in expressions: keys: {:v}",
        ),
        (
            lambda t: Check(t, K("a"), "foo(pk)"),
            "Invalid ConditionExpression: Invalid function name; function: foo",
        ),
        (lambda t: Check(t, K("a"), ""), "Invalid ConditionExpression: The expression can not be empty;"),
        (
            lambda t: Update(t, K("a"), "SET s = :v", {":v": {"SS": []}}),
            "ExpressionAttributeValues contains invalid value: One or more parameter values were invalid: "
            "An string set  may not be empty for key :v",
        ),
    ],
    ids=["syntax", "undefined-value", "unused-value", "bad-function", "empty-condition", "empty-set-value"],
)
def test_expression_errors(client, table, action, message):
    assert_client_error(
        lambda: client.transact_write_items(TransactItems=[Put(table, K("c")), action(table)]),
        "ValidationException",
        message,
    )
    assert contents(client, table) == [A, B]


def test_write_unknown_table(client, table):
    assert_client_error(
        lambda: client.transact_write_items(
            TransactItems=[Put(table, K("c")), Put("dynabase_test-no-such-table", K("a"))]
        ),
        "ResourceNotFoundException",
        NOT_FOUND,
    )
    assert contents(client, table) == [A, B]


def test_write_action_with_two_kinds(client, table):
    assert_client_error(
        lambda: client.transact_write_items(TransactItems=[{**Put(table, K("c")), **Delete(table, K("a"))}]),
        "ValidationException",
        "TransactItems can only contain one of Check, Put, Update or Delete",
    )
    assert contents(client, table) == [A, B]


def test_write_action_with_no_kind(client, table):
    assert_client_error(
        lambda: client.transact_write_items(TransactItems=[Put(table, K("c")), {}]),
        "ValidationException",
        "Invalid Request: TransactWriteRequest should contain Delete or Put or Update request",
    )
    assert contents(client, table) == [A, B]


# -- TransactWriteItems: ClientRequestToken ------------------------------------------------------------------------


def new_token():
    """A fresh ClientRequestToken: tokens are remembered across tables (and, on Local, across test runs)."""
    return str(uuid.uuid4())


def counter_increment(table):
    return [Update(table, K("a"), "ADD n :one", {":one": {"N": "1"}})]


def test_same_token_same_request_is_applied_once(client, table):
    token = new_token()
    actions = counter_increment(table)
    first = client.transact_write_items(TransactItems=actions, ClientRequestToken=token)
    second = client.transact_write_items(TransactItems=actions, ClientRequestToken=token)
    assert set(first) == set(second) == {"ResponseMetadata"}
    assert client.get_item(TableName=table, Key=K("a"))["Item"]["n"] == {"N": "2"}


def test_same_token_replay_returns_the_same_capacity(client, table):
    token = new_token()
    actions = counter_increment(table)
    first = client.transact_write_items(
        TransactItems=actions, ClientRequestToken=token, ReturnConsumedCapacity="TOTAL"
    )
    second = client.transact_write_items(
        TransactItems=actions, ClientRequestToken=token, ReturnConsumedCapacity="TOTAL"
    )
    assert (
        first["ConsumedCapacity"]
        == second["ConsumedCapacity"]
        == [{"TableName": table, "CapacityUnits": 2.0}]
    )
    assert client.get_item(TableName=table, Key=K("a"))["Item"]["n"] == {"N": "2"}


def test_same_token_replay_answers_the_new_return_consumed_capacity(client, table):
    token = new_token()
    actions = counter_increment(table)
    client.transact_write_items(
        TransactItems=actions, ClientRequestToken=token, ReturnConsumedCapacity="TOTAL"
    )
    replay = client.transact_write_items(TransactItems=actions, ClientRequestToken=token)
    assert "ConsumedCapacity" not in replay
    assert client.get_item(TableName=table, Key=K("a"))["Item"]["n"] == {"N": "2"}


def test_same_token_different_request(client, table):
    token = new_token()
    client.transact_write_items(TransactItems=counter_increment(table), ClientRequestToken=token)
    with pytest.raises(client.exceptions.IdempotentParameterMismatchException) as exc_info:
        client.transact_write_items(TransactItems=[Put(table, K("c"))], ClientRequestToken=token)
    assert exc_info.value.response["Error"] == {"Code": "IdempotentParameterMismatchException", "Message": ""}
    assert contents(client, table) == [{**A, "n": {"N": "2"}}, B]


def test_different_tokens_apply_twice(client, table):
    token_1 = new_token()
    token_2 = new_token()
    client.transact_write_items(TransactItems=counter_increment(table), ClientRequestToken=token_1)
    client.transact_write_items(TransactItems=counter_increment(table), ClientRequestToken=token_2)
    assert client.get_item(TableName=table, Key=K("a"))["Item"]["n"] == {"N": "3"}


def test_token_of_a_cancelled_transaction_can_be_retried(client, table):
    token = new_token()
    actions = [
        Update(
            table,
            K("a"),
            "ADD n :one",
            {":one": {"N": "1"}, ":s": {"S": "new"}},
            ConditionExpression="s = :s",
        )
    ]
    assert_canceled(
        lambda: client.transact_write_items(TransactItems=actions, ClientRequestToken=token), [FAILED]
    )
    client.put_item(TableName=table, Item={**A, "s": {"S": "new"}})
    client.transact_write_items(TransactItems=actions, ClientRequestToken=token)
    assert client.get_item(TableName=table, Key=K("a"))["Item"]["n"] == {"N": "2"}


def test_token_too_long(client, table):
    token = "x" * 37
    assert_client_error(
        lambda: client.transact_write_items(TransactItems=counter_increment(table), ClientRequestToken=token),
        "ValidationException",
        f"1 validation error detected: Value '{token}' at 'clientRequestToken' failed to satisfy constraint: Member "
        "must have length less than or equal to 36",
    )
    assert contents(client, table) == [A, B]


def test_token_of_36_characters(client, table):
    assert len(new_token()) == 36
    client.transact_write_items(TransactItems=counter_increment(table), ClientRequestToken=new_token())
    assert client.get_item(TableName=table, Key=K("a"))["Item"]["n"] == {"N": "2"}


def test_empty_token_is_a_parameter_error(client, table):
    with pytest.raises(ParamValidationError):
        client.transact_write_items(TransactItems=counter_increment(table), ClientRequestToken="")
    assert contents(client, table) == [A, B]


# -- TransactWriteItems: capacity ----------------------------------------------------------------------------------

BIG = {"d": {"S": "x" * 1500}}  # a 2 KB item


@pytest.mark.parametrize(
    "action, units",
    [
        (lambda t: Put(t, K("c")), 2.0),
        (lambda t: Put(t, {**K("c"), **BIG}), 4.0),
        (lambda t: Put(t, K("big")), 4.0),  # replacing a 2 KB item
        (lambda t: Update(t, K("a"), "SET x = :v", {":v": {"N": "1"}}), 2.0),
        (lambda t: Update(t, K("big"), "SET x = :v", {":v": {"N": "1"}}), 4.0),
        (lambda t: Update(t, K("new"), "SET x = :v", {":v": {"N": "1"}}), 2.0),
        (lambda t: Delete(t, K("a")), 2.0),
        (lambda t: Delete(t, K("big")), 4.0),
        (lambda t: Check(t, K("a"), "attribute_exists(pk)"), 2.0),
        (lambda t: Check(t, K("big"), "attribute_exists(pk)"), 2.0),
        (lambda t: Check(t, K("nope"), "attribute_not_exists(pk)"), 2.0),
    ],
    ids=[
        "put",
        "put-2kb",
        "put-over-2kb",
        "update",
        "update-2kb",
        "update-new",
        "delete",
        "delete-2kb",
        "check",
        "check-2kb",
        "check-missing",
    ],
)
def test_write_capacity_is_doubled(client, table, action, units):
    client.put_item(TableName=table, Item={**K("big"), **BIG})
    response = client.transact_write_items(TransactItems=[action(table)], ReturnConsumedCapacity="TOTAL")
    assert response["ConsumedCapacity"] == [{"TableName": table, "CapacityUnits": units}]


@pytest.mark.local_quirk
def test_write_capacity_of_deleting_a_missing_item(client, table):
    # Local bills a transactional delete of a missing item 1 unit, not 2
    response = client.transact_write_items(
        TransactItems=[Delete(table, K("nope"))], ReturnConsumedCapacity="TOTAL"
    )
    assert response["ConsumedCapacity"] == [{"TableName": table, "CapacityUnits": 1.0}]


def test_write_capacity_sums_a_table_actions(client, table):
    response = client.transact_write_items(
        TransactItems=[Put(table, K("c")), Put(table, {**K("d"), **BIG})], ReturnConsumedCapacity="TOTAL"
    )
    assert response["ConsumedCapacity"] == [{"TableName": table, "CapacityUnits": 6.0}]


def test_write_capacity_per_table(client, table, other):
    response = client.transact_write_items(
        TransactItems=[Put(table, {**K("c"), **BIG}), Check(other, K("a"), "attribute_not_exists(pk)")],
        ReturnConsumedCapacity="INDEXES",
    )
    assert by_table(response) == {
        table: {"TableName": table, "CapacityUnits": 4.0, "Table": {"CapacityUnits": 4.0}},
        other: {"TableName": other, "CapacityUnits": 2.0, "Table": {"CapacityUnits": 2.0}},
    }


def test_write_no_capacity_by_default(client, table):
    assert "ConsumedCapacity" not in client.transact_write_items(TransactItems=[Put(table, K("c"))])


def test_write_no_capacity_in_cancellation(client, table):
    error = assert_canceled(
        lambda: client.transact_write_items(
            TransactItems=[Check(table, K("a"), "attribute_not_exists(pk)")], ReturnConsumedCapacity="TOTAL"
        ),
        [FAILED_CHECK],
    )
    assert "ConsumedCapacity" not in error.response


def test_write_item_collection_metrics_not_returned(client, table):
    response = client.transact_write_items(
        TransactItems=[Put(table, K("c"))], ReturnItemCollectionMetrics="SIZE"
    )
    assert "ItemCollectionMetrics" not in response


# -- TransactGetItems ----------------------------------------------------------------------------------------------


def test_get_responses_in_order(client, table, other):
    client.put_item(TableName=other, Item={**K("a"), "o": {"BOOL": True}})
    response = client.transact_get_items(
        TransactItems=[Get(table, K("b")), Get(table, K("nope")), Get(table, K("a")), Get(other, K("a"))]
    )
    assert set(response) == {"Responses", "ResponseMetadata"}
    assert response["Responses"] == [{"Item": B}, {}, {"Item": A}, {"Item": {**K("a"), "o": {"BOOL": True}}}]


def test_get_composite_keys(client, num_range_table):
    for sk in ("1", "2"):
        client.put_item(TableName=num_range_table, Item={**K("p"), "sk": {"N": sk}})
    response = client.transact_get_items(
        TransactItems=[Get(num_range_table, {**K("p"), "sk": {"N": sk}}) for sk in ("2", "3", "1")]
    )
    assert response["Responses"] == [
        {"Item": {**K("p"), "sk": {"N": "2"}}},
        {},
        {"Item": {**K("p"), "sk": {"N": "1"}}},
    ]


def test_get_projections(client, table):
    client.put_item(
        TableName=table, Item={**K("m"), "m": {"M": {"b": {"N": "1"}, "c": {"N": "2"}}}, "x": {"S": "1"}}
    )
    response = client.transact_get_items(
        TransactItems=[
            Get(table, K("m"), ProjectionExpression="#m.b, x", ExpressionAttributeNames={"#m": "m"}),
            Get(table, K("a"), ProjectionExpression="gone"),
            Get(table, K("nope"), ProjectionExpression="pk"),
            Get(table, K("b")),
        ]
    )
    assert response["Responses"] == [
        {"Item": {"m": {"M": {"b": {"N": "1"}}}, "x": {"S": "1"}}},
        {"Item": {}},
        {},
        {"Item": B},
    ]


def test_get_100_items(client, hash_table):
    response = client.transact_get_items(TransactItems=[Get(hash_table, K(str(i))) for i in range(100)])
    assert response["Responses"] == [{}] * 100


def test_get_101_items(client, hash_table):
    assert_client_error(
        lambda: client.transact_get_items(TransactItems=[Get(hash_table, K(str(i))) for i in range(101)]),
        "ValidationException",
        OVER_100,
    )


def test_get_same_item_twice(client, table):
    assert_client_error(
        lambda: client.transact_get_items(TransactItems=[Get(table, K("a")), Get(table, K("a"))]),
        "ValidationException",
        ONE_ITEM,
    )


def test_get_unknown_table(client, table):
    assert_client_error(
        lambda: client.transact_get_items(
            TransactItems=[Get(table, K("a")), Get("dynabase_test-no-such-table", K("a"))]
        ),
        "ResourceNotFoundException",
        NOT_FOUND,
    )


@pytest.mark.local_quirk
def test_get_key_of_the_wrong_type(client, table):
    # Local reports it as a TransactionCanceledException with the message and no CancellationReasons
    error = assert_client_error(
        lambda: client.transact_get_items(TransactItems=[Get(table, K("a")), Get(table, {"pk": {"N": "1"}})]),
        "TransactionCanceledException",
        TYPE_MISMATCH,
    )
    assert "CancellationReasons" not in error.response


GET_KEY_SHAPE = behaviour("TransactGetItems with a key missing an attribute")


@pytest.mark.aws_only(reason=GET_KEY_SHAPE.local, ref=GET_KEY_SHAPE.ref)
@pytest.mark.parametrize(
    "key", [{}, {"sk": {"S": "1"}}, {**K("a"), "x": {"S": "1"}}], ids=["empty", "no-partition-key", "extra"]
)
def test_get_key_of_the_wrong_shape_cancels_with_a_reason(client, table, key):
    error = assert_client_error(
        lambda: client.transact_get_items(
            TransactItems=[Get(table, K("a")), Get(table, key), Get(table, K("b"))]
        ),
        "TransactionCanceledException",
        "Transaction cancelled, please refer cancellation reasons for specific reasons "
        "[None, ValidationError, None]",
    )
    reasons = error.response["CancellationReasons"]
    assert [reason["Code"] for reason in reasons] == ["None", "ValidationError", "None"]
    assert reasons[1]["Message"] in (
        "The number of conditions on the keys is invalid",
        "One of the required keys was not given a value",
    )


@pytest.mark.parametrize(
    "extra, message",
    [
        (
            {"ProjectionExpression": "x", "ExpressionAttributeNames": {"#n": "q"}},
            "Value provided in ExpressionAttributeNames unused in expressions: keys: {#n}",
        ),
        (
            {"ProjectionExpression": "x,,"},
            'Invalid ProjectionExpression: Syntax error; token: ",", near: ",,"',
        ),
        (
            {"ProjectionExpression": "#q"},
            "Invalid ProjectionExpression: An expression attribute name used in the document path is not defined; "
            "attribute name: #q",
        ),
    ],
)
def test_get_projection_errors(client, table, extra, message):
    assert_client_error(
        lambda: client.transact_get_items(TransactItems=[Get(table, K("b")), Get(table, K("a"), **extra)]),
        "ValidationException",
        message,
    )


def test_get_capacity(client, table, other):
    client.put_item(TableName=table, Item={**K("big"), "d": {"S": "x" * 5000}})
    response = client.transact_get_items(
        TransactItems=[Get(table, K("a")), Get(table, K("big")), Get(table, K("nope")), Get(other, K("a"))],
        ReturnConsumedCapacity="TOTAL",
    )
    # 2 x (1 + 2 + 1) units for the table (a missing item costs a read), 2 x 1 for the other
    assert units_only(by_table(response)) == {
        table: {"TableName": table, "CapacityUnits": 8.0},
        other: {"TableName": other, "CapacityUnits": 2.0},
    }


@pytest.mark.parametrize("key, units", [("a", 2.0), ("big", 4.0), ("nope", 2.0)])
def test_get_capacity_of_one_item(client, table, key, units):
    client.put_item(TableName=table, Item={**K("big"), "d": {"S": "x" * 5000}})
    response = client.transact_get_items(TransactItems=[Get(table, K(key))], ReturnConsumedCapacity="INDEXES")
    assert units_only(response["ConsumedCapacity"]) == [
        {"TableName": table, "CapacityUnits": units, "Table": {"CapacityUnits": units}}
    ]


def units_only(capacity):
    """``capacity`` without the read/write split (the figures all backends give alike)."""
    if isinstance(capacity, list):
        return [units_only(c) for c in capacity]
    if isinstance(capacity, dict):
        return {
            k: units_only(v)
            for k, v in capacity.items()
            if k not in ("ReadCapacityUnits", "WriteCapacityUnits")
        }
    return capacity


READ_SPLIT = behaviour("TransactGetItems capacity split as read units")


@pytest.mark.aws_only(reason=READ_SPLIT.local, ref=READ_SPLIT.ref)
@pytest.mark.parametrize("mode", ["TOTAL", "INDEXES"])
def test_get_capacity_is_read_capacity(client, table, mode):
    response = client.transact_get_items(
        TransactItems=[Get(table, K("a")), Get(table, K("nope"))], ReturnConsumedCapacity=mode
    )
    expected = {"TableName": table, "CapacityUnits": 4.0, "ReadCapacityUnits": 4.0}
    if mode == "INDEXES":
        expected["Table"] = {"CapacityUnits": 4.0, "ReadCapacityUnits": 4.0}
    assert response["ConsumedCapacity"] == [expected]


def test_get_no_capacity_by_default(client, table):
    assert "ConsumedCapacity" not in client.transact_get_items(TransactItems=[Get(table, K("a"))])


def test_get_missing_get_is_a_parameter_error(client):
    with pytest.raises(ParamValidationError):
        client.transact_get_items(TransactItems=[{}])
