"""BatchGetItem and BatchWriteItem: limits, duplicates, per-table options, validation, capacity.

A bad request anywhere in a batch fails the whole call before anything is read or written.  DynamoDB Local never
throttles, so ``UnprocessedItems`` is always ``{}``; ``UnprocessedKeys`` is only non-empty when a BatchGetItem
response would exceed 16 MB.  The order of ``ConsumedCapacity`` entries (one per table) is unspecified: they are
compared by table name.
"""

from __future__ import annotations

import pytest
from botocore.exceptions import ParamValidationError

from aws_differences import behaviour
from ddb_helpers import assert_client_error, gsi, scan_all, sorted_items, validation_errors, violation

MISSING_CAPACITY = behaviour("BatchWriteItem and BatchGetItem capacity of missing items")

NOT_FOUND = "Requested resource not found"  # AWS (Local: "Cannot do operations on a non-existent table")
DUPLICATES = "Provided list of item keys contains duplicates"
#: over the limit in all: Local's words, and the engine's (AWS's answer when no one table's list is over its limit was
#: not established)
TOO_MANY_GETS = "Too many items requested for the BatchGetItem call"
TOO_MANY_WRITES = "Too many items requested for the BatchWriteItem call"


def one_list_over(path: str, most: int) -> str:
    """AWS's answer to one table's list over ``most`` (paritysuite/dynamodb-conformance tests/tier3/error-messages
    batchGetItem.test.ts and batchWriteItem.test.ts: the newer form, naming the member)."""
    return validation_errors(violation(..., path, f"Member must have length less than or equal to {most}"))


#: AWS's answer to a key or an item that does not fit the key schema (tests/aws_differences.py)
KEY_NOT_IN_SCHEMA = "The provided key element does not match the schema"
TOO_BIG = "Item size has exceeded the maximum allowed size"
#: Local's answer to a malformed table name, and the engine's where AWS's could not be reproduced: BatchWriteItem's
#: quotes the request in Java's rendering (paritysuite/dynamodb-conformance tests/tier3/error-messages/
#: batchWriteItem.test.ts)
NAME_ERROR = (
    "Invalid table/index name.  Table/index names must be between 3 and 255 characters long, "
    "and may contain only the characters a-z, A-Z, 0-9, '_', '-', and '.'"
)
#: AWS's constraint on the table names of a RequestItems map (the same test suite, batchGetItem.test.ts)
MAP_KEYS = (
    "Map keys must satisfy constraint: [Member must have length less than or equal to 255, Member must have "
    "length greater than or equal to 3, Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+]"
)


def K(value):
    return {"pk": {"S": value}}


def put(item):
    return {"PutRequest": {"Item": item}}


def delete(key):
    return {"DeleteRequest": {"Key": key}}


def by_table(response):
    """ConsumedCapacity entries keyed by table name (their order is unspecified)."""
    entries = response["ConsumedCapacity"]
    by_name = {entry["TableName"]: entry for entry in entries}
    assert len(by_name) == len(entries), entries
    return by_name


def contents(client, table):
    return sorted_items(scan_all(client, TableName=table, ConsistentRead=True), "pk")


@pytest.fixture
def two_tables(make_table):
    return make_table(("pk:S",)), make_table(("pk:S",))


@pytest.fixture
def filled(client, two_tables):
    """Two hash-key tables: ``a``, ``b``, ``c`` in the first, ``a`` and ``z`` in the second."""
    first, second = two_tables
    for key in "abc":
        client.put_item(TableName=first, Item={**K(key), "t": {"S": "first"}, "n": {"N": str(ord(key))}})
    for key in "az":
        client.put_item(TableName=second, Item={**K(key), "t": {"S": "second"}})
    return first, second


# -- BatchGetItem: results ---------------------------------------------------------------------------------------


def test_batch_get_reads_from_several_tables(client, filled):
    first, second = filled
    response = client.batch_get_item(
        RequestItems={first: {"Keys": [K("a"), K("c")]}, second: {"Keys": [K("z")]}}
    )
    assert set(response) == {"Responses", "UnprocessedKeys", "ResponseMetadata"}
    assert response["UnprocessedKeys"] == {}
    assert sorted(response["Responses"]) == sorted([first, second])
    assert sorted_items(response["Responses"][first], "pk") == [
        {**K("a"), "t": {"S": "first"}, "n": {"N": "97"}},
        {**K("c"), "t": {"S": "first"}, "n": {"N": "99"}},
    ]
    assert response["Responses"][second] == [{**K("z"), "t": {"S": "second"}}]


def test_batch_get_omits_missing_keys(client, filled):
    first, second = filled
    response = client.batch_get_item(
        RequestItems={first: {"Keys": [K("a"), K("nope"), K("b")]}, second: {"Keys": [K("nope")]}}
    )
    assert sorted(i["pk"]["S"] for i in response["Responses"][first]) == ["a", "b"]
    assert response["Responses"][second] == []  # the table is listed, with no items
    assert response["UnprocessedKeys"] == {}


def test_batch_get_same_key_in_two_tables(client, filled):
    first, second = filled
    response = client.batch_get_item(RequestItems={first: {"Keys": [K("a")]}, second: {"Keys": [K("a")]}})
    assert response["Responses"][first] == [{**K("a"), "t": {"S": "first"}, "n": {"N": "97"}}]
    assert response["Responses"][second] == [{**K("a"), "t": {"S": "second"}}]


def test_batch_get_composite_keys(client, num_range_table):
    for sk in range(3):
        client.put_item(TableName=num_range_table, Item={**K("p"), "sk": {"N": str(sk)}})
    keys = [{**K("p"), "sk": {"N": "2"}}, {**K("p"), "sk": {"N": "0"}}, {**K("p"), "sk": {"N": "7"}}]
    response = client.batch_get_item(RequestItems={num_range_table: {"Keys": keys}})
    assert sorted_items(response["Responses"][num_range_table]) == [keys[1], keys[0]]


def test_batch_get_100_keys(client, two_tables):
    first, second = two_tables
    client.batch_write_item(RequestItems={first: [put(K(str(i))) for i in range(25)]})
    response = client.batch_get_item(
        RequestItems={
            first: {"Keys": [K(str(i)) for i in range(50)]},
            second: {"Keys": [K(str(i)) for i in range(50)]},
        }
    )
    assert sorted(int(i["pk"]["S"]) for i in response["Responses"][first]) == list(range(25))
    assert response["Responses"][second] == []


@pytest.mark.parametrize("split", [(101, 0), (51, 50), (100, 1)])
def test_batch_get_too_many_keys(client, two_tables, split):
    first, second = two_tables
    request = {first: {"Keys": [K(str(i)) for i in range(split[0])]}}
    if split[1]:
        request[second] = {"Keys": [K(str(i)) for i in range(split[1])]}
    message = one_list_over(f"RequestItems.{first}.member.Keys", 100) if not split[1] else TOO_MANY_GETS
    assert_client_error(lambda: client.batch_get_item(RequestItems=request), "ValidationException", message)


def test_batch_get_duplicate_keys(client, filled):
    first, _ = filled
    assert_client_error(
        lambda: client.batch_get_item(RequestItems={first: {"Keys": [K("a"), K("b"), K("a")]}}),
        "ValidationException",
        DUPLICATES,
    )


@pytest.mark.local_quirk
def test_batch_get_equal_numbers_spelled_differently_are_not_duplicates(client, num_range_table):
    # Local compares BatchGetItem keys as written ("1" vs "1.0") and returns the item once per spelling;
    # BatchWriteItem and the transactions compare the numbers (see test_batch_write_duplicate_composite_keys)
    client.put_item(TableName=num_range_table, Item={**K("p"), "sk": {"N": "1"}})
    response = client.batch_get_item(
        RequestItems={
            num_range_table: {"Keys": [{**K("p"), "sk": {"N": "1"}}, {**K("p"), "sk": {"N": "1.0"}}]}
        }
    )
    assert response["Responses"][num_range_table] == [{**K("p"), "sk": {"N": "1"}}] * 2


def test_batch_get_number_keys_differing_only_in_sort_key_are_distinct(client, num_range_table):
    keys = [{**K("p"), "sk": {"N": "1"}}, {**K("p"), "sk": {"N": "2"}}]
    response = client.batch_get_item(RequestItems={num_range_table: {"Keys": keys}})
    assert response["Responses"][num_range_table] == []


# -- BatchGetItem: per-table options -----------------------------------------------------------------------------


def test_batch_get_projection_per_table(client, two_tables):
    first, second = two_tables
    client.put_item(
        TableName=first,
        Item={**K("a"), "name": {"S": "x"}, "m": {"M": {"b": {"N": "1"}, "c": {"N": "2"}}}, "o": {"S": "o"}},
    )
    client.put_item(TableName=second, Item={**K("a"), "name": {"S": "y"}, "o": {"S": "o"}})
    response = client.batch_get_item(
        RequestItems={
            first: {
                "Keys": [K("a")],
                "ProjectionExpression": "#n, m.b",
                "ExpressionAttributeNames": {"#n": "name"},
            },
            second: {"Keys": [K("a")], "ProjectionExpression": "pk, o, gone"},
        }
    )
    assert response["Responses"][first] == [{"name": {"S": "x"}, "m": {"M": {"b": {"N": "1"}}}}]
    assert response["Responses"][second] == [{**K("a"), "o": {"S": "o"}}]


def test_batch_get_projection_of_missing_attributes_gives_empty_item(client, filled):
    first, _ = filled
    response = client.batch_get_item(RequestItems={first: {"Keys": [K("a")], "ProjectionExpression": "zz"}})
    assert response["Responses"][first] == [{}]


def test_batch_get_attributes_to_get(client, filled):
    first, second = filled
    response = client.batch_get_item(
        RequestItems={first: {"Keys": [K("a")], "AttributesToGet": ["n", "zz"]}, second: {"Keys": [K("a")]}}
    )
    assert response["Responses"][first] == [{"n": {"N": "97"}}]
    assert response["Responses"][second] == [{**K("a"), "t": {"S": "second"}}]


@pytest.mark.parametrize(
    "options, message",
    [
        (
            {"ProjectionExpression": "n", "AttributesToGet": ["n"]},
            "Can not use both expression and non-expression parameters in the same request: "
            "Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}",
        ),
        (
            {"ProjectionExpression": "n", "ExpressionAttributeNames": {"#u": "x"}},
            "Value provided in ExpressionAttributeNames unused in expressions: keys: {#u}",
        ),
        (
            {"ExpressionAttributeNames": {"#u": "x"}},
            "ExpressionAttributeNames can only be specified when using expressions",
        ),
        (
            {"ProjectionExpression": "#q"},
            "Invalid ProjectionExpression: An expression attribute name used in the document path is not defined; "
            "attribute name: #q",
        ),
        (
            {"ProjectionExpression": "n,,"},
            'Invalid ProjectionExpression: Syntax error; token: ",", near: ",,"',
        ),
    ],
)
def test_batch_get_projection_errors(client, filled, options, message):
    first, second = filled
    assert_client_error(
        lambda: client.batch_get_item(
            RequestItems={second: {"Keys": [K("a")]}, first: {"Keys": [K("a")], **options}}
        ),
        "ValidationException",
        message,
    )


def item_of_kb(key, kb):
    """An item a little over ``kb`` KB (so reads of it cost ceil(size/4KB) units)."""
    return {**K(key), "d": {"S": "x" * (kb * 1024)}}


def test_batch_get_consistent_read_per_table(client, two_tables):
    first, second = two_tables
    client.put_item(TableName=first, Item=item_of_kb("a", 5))  # 2 x 4KB
    client.put_item(TableName=second, Item=item_of_kb("a", 5))
    response = client.batch_get_item(
        RequestItems={
            first: {"Keys": [K("a")], "ConsistentRead": True},
            second: {"Keys": [K("a")], "ConsistentRead": False},
        },
        ReturnConsumedCapacity="TOTAL",
    )
    assert by_table(response) == {
        first: {"TableName": first, "CapacityUnits": 2.0},
        second: {"TableName": second, "CapacityUnits": 1.0},
    }


@pytest.mark.aws_only(reason=MISSING_CAPACITY.local, ref=MISSING_CAPACITY.ref)
def test_batch_get_capacity_sums_items_and_missing_ones(client, two_tables):
    first, second = two_tables
    for key in "abc":
        client.put_item(TableName=first, Item=item_of_kb(key, 5))
    response = client.batch_get_item(
        RequestItems={
            first: {"Keys": [K("a"), K("b"), K("c"), K("nope")], "ConsistentRead": True},
            second: {"Keys": [K("nope")], "ConsistentRead": True},
        },
        ReturnConsumedCapacity="TOTAL",
    )
    assert by_table(response) == {
        first: {"TableName": first, "CapacityUnits": 7.0},
        second: {"TableName": second, "CapacityUnits": 1.0},
    }


def test_batch_get_capacity_small_item(client, filled):
    first, _ = filled
    response = client.batch_get_item(RequestItems={first: {"Keys": [K("a")]}}, ReturnConsumedCapacity="TOTAL")
    assert response["ConsumedCapacity"] == [{"TableName": first, "CapacityUnits": 0.5}]


def test_batch_get_capacity_indexes(client, filled):
    first, second = filled
    response = client.batch_get_item(
        RequestItems={first: {"Keys": [K("a")], "ConsistentRead": True}, second: {"Keys": [K("a")]}},
        ReturnConsumedCapacity="INDEXES",
    )
    assert by_table(response) == {
        first: {"TableName": first, "CapacityUnits": 1.0, "Table": {"CapacityUnits": 1.0}},
        second: {"TableName": second, "CapacityUnits": 0.5, "Table": {"CapacityUnits": 0.5}},
    }


def test_batch_get_capacity_none(client, filled):
    first, _ = filled
    response = client.batch_get_item(RequestItems={first: {"Keys": [K("a")]}}, ReturnConsumedCapacity="NONE")
    assert "ConsumedCapacity" not in response


# -- BatchGetItem: errors ----------------------------------------------------------------------------------------


def test_batch_get_unknown_table(client, filled):
    first, _ = filled
    assert_client_error(
        lambda: client.batch_get_item(
            RequestItems={first: {"Keys": [K("a")]}, "dynabase_test-no-such-table": {"Keys": [K("a")]}}
        ),
        "ResourceNotFoundException",
        NOT_FOUND,
    )


def test_batch_get_invalid_table_name(client):
    assert_client_error(
        lambda: client.batch_get_item(RequestItems={"a$b": {"Keys": [K("a")]}}),
        "ValidationException",
        validation_errors(violation('{"a$b":{"Keys":[{"pk":{"S":"a"}}]}}', "requestItems", MAP_KEYS)),
    )


@pytest.mark.parametrize(
    "key, message",
    [
        ({"pk": {"N": "1"}}, KEY_NOT_IN_SCHEMA),
        ({"pk": {"S": "a"}, "x": {"S": "1"}}, KEY_NOT_IN_SCHEMA),
        ({"x": {"S": "1"}}, KEY_NOT_IN_SCHEMA),
    ],
)
def test_batch_get_key_errors(client, filled, key, message):
    first, second = filled
    assert_client_error(
        lambda: client.batch_get_item(
            RequestItems={second: {"Keys": [K("a")]}, first: {"Keys": [K("a"), key]}}
        ),
        "ValidationException",
        message,
    )


def test_batch_get_empty_request_items(client):
    assert_client_error(
        lambda: client.batch_get_item(RequestItems={}),
        "ValidationException",
        validation_errors(
            violation(..., "RequestItems", "Member must have length greater than or equal to 1")
        ),  # AWS's (batchGetItem.test.ts)
    )


def test_batch_get_empty_keys_is_a_parameter_error(client, hash_table):
    with pytest.raises(ParamValidationError):
        client.batch_get_item(RequestItems={hash_table: {"Keys": []}})


# -- BatchGetItem: 16 MB response limit ----------------------------------------------------------------------------


def test_batch_get_response_over_16mb_leaves_unprocessed_keys(client, hash_table):
    big = "x" * (399 * 1024)  # items of 408,581 bytes: 41 of them fit in 16 MB, 42 do not
    keys = [K(f"{i:02d}") for i in range(45)]
    for key in keys:
        client.put_item(TableName=hash_table, Item={**key, "d": {"S": big}})
    response = client.batch_get_item(
        RequestItems={
            hash_table: {
                "Keys": keys,
                "ConsistentRead": True,
                "ProjectionExpression": "#d, pk",
                "ExpressionAttributeNames": {"#d": "d"},
            }
        }
    )
    returned = [item["pk"]["S"] for item in response["Responses"][hash_table]]
    assert len(returned) == 41
    unprocessed = response["UnprocessedKeys"]
    assert list(unprocessed) == [hash_table]
    # the unprocessed entry is a ready-to-resend request: the left-over keys with the table's options
    assert {k: v for k, v in unprocessed[hash_table].items() if k != "Keys"} == {
        "ConsistentRead": True,
        "ProjectionExpression": "#d, pk",
        "ExpressionAttributeNames": {"#d": "d"},
    }
    left = [key["pk"]["S"] for key in unprocessed[hash_table]["Keys"]]
    assert len(left) == 4
    assert sorted(returned + left) == [key["pk"]["S"] for key in keys]


# -- BatchWriteItem: results -------------------------------------------------------------------------------------


def test_batch_write_puts_and_deletes_in_several_tables(client, filled):
    first, second = filled
    response = client.batch_write_item(
        RequestItems={
            first: [put({**K("d"), "v": {"N": "1"}}), delete(K("a")), put({**K("b"), "v": {"N": "2"}})],
            second: [delete(K("z")), delete(K("nope"))],
        }
    )
    assert set(response) == {"UnprocessedItems", "ResponseMetadata"}
    assert response["UnprocessedItems"] == {}
    assert contents(client, first) == [
        {**K("b"), "v": {"N": "2"}},  # a put replaces the whole item
        {**K("c"), "t": {"S": "first"}, "n": {"N": "99"}},
        {**K("d"), "v": {"N": "1"}},
    ]
    assert contents(client, second) == [{**K("a"), "t": {"S": "second"}}]


def test_batch_write_25_requests(client, two_tables):
    first, second = two_tables
    response = client.batch_write_item(
        RequestItems={first: [put(K(str(i))) for i in range(20)], second: [put(K(str(i))) for i in range(5)]}
    )
    assert response["UnprocessedItems"] == {}
    assert len(contents(client, first)) == 20
    assert len(contents(client, second)) == 5


@pytest.mark.parametrize("split", [(26, 0), (13, 13), (25, 1)])
def test_batch_write_too_many_requests(client, two_tables, split):
    first, second = two_tables
    request = {first: [put(K(str(i))) for i in range(split[0])]}
    if split[1]:
        request[second] = [put(K(str(i))) for i in range(split[1])]
    message = one_list_over(f"RequestItems.{first}.member", 25) if not split[1] else TOO_MANY_WRITES
    assert_client_error(lambda: client.batch_write_item(RequestItems=request), "ValidationException", message)
    assert contents(client, first) == []
    assert contents(client, second) == []


@pytest.mark.parametrize(
    "requests",
    [
        [put({**K("a"), "v": {"N": "1"}}), put({**K("a"), "v": {"N": "2"}})],
        [put({**K("a"), "v": {"N": "1"}}), delete(K("a"))],
        [delete(K("a")), put({**K("a"), "v": {"N": "1"}})],
        [delete(K("a")), delete(K("a"))],
    ],
    ids=["put-put", "put-delete", "delete-put", "delete-delete"],
)
def test_batch_write_duplicate_keys(client, filled, requests):
    first, _ = filled
    before = contents(client, first)
    assert_client_error(
        lambda: client.batch_write_item(RequestItems={first: [put(K("new")), *requests]}),
        "ValidationException",
        DUPLICATES,
    )
    assert contents(client, first) == before


def test_batch_write_duplicate_composite_keys(client, num_range_table):
    assert_client_error(
        lambda: client.batch_write_item(
            RequestItems={
                num_range_table: [put({**K("p"), "sk": {"N": "1"}}), delete({**K("p"), "sk": {"N": "1.00"}})]
            }
        ),
        "ValidationException",
        DUPLICATES,
    )


def test_batch_write_same_key_in_two_tables(client, two_tables):
    first, second = two_tables
    client.batch_write_item(RequestItems={first: [put(K("a"))], second: [put(K("a"))]})
    assert contents(client, first) == [K("a")]
    assert contents(client, second) == [K("a")]


# -- BatchWriteItem: a bad request fails the whole batch -----------------------------------------------------------


def test_batch_write_item_too_big(client, filled):
    first, second = filled
    before = contents(client, first), contents(client, second)
    assert_client_error(
        lambda: client.batch_write_item(
            RequestItems={
                second: [put(K("new"))],
                first: [delete(K("a")), put({**K("big"), "d": {"S": "x" * (400 * 1024)}})],
            }
        ),
        "ValidationException",
        TOO_BIG,
    )
    assert (contents(client, first), contents(client, second)) == before


def test_batch_write_item_of_exactly_400kb(client, hash_table):
    item = {**K("a"), "d": {"S": "x" * (400 * 1024 - 4)}}  # pk: 2 + 1, d: 1 + rest
    client.batch_write_item(RequestItems={hash_table: [put(item)]})
    assert len(contents(client, hash_table)) == 1


@pytest.mark.parametrize(
    "request_, message",
    [
        (put({"pk": {"N": "1"}}), KEY_NOT_IN_SCHEMA),
        (put({"x": {"S": "1"}}), KEY_NOT_IN_SCHEMA),
        (delete({"pk": {"N": "1"}}), KEY_NOT_IN_SCHEMA),
        (delete({**K("a"), "x": {"S": "1"}}), KEY_NOT_IN_SCHEMA),
        (delete({"x": {"S": "1"}}), KEY_NOT_IN_SCHEMA),
        (
            put({"pk": {"S": ""}}),
            "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an "
            "empty string value. Key: pk",
        ),
        (
            put({**K("e"), "s": {"SS": []}}),
            "One or more parameter values were invalid: An string set  may not be empty",
        ),
        (
            put({**K("e"), "s": {"SS": ["a", "a"]}}),
            "One or more parameter values were invalid: Input collection [a, a] contains duplicates.",
        ),
        (put({**K("e"), "n": {"N": "abc"}}), "A value provided cannot be converted into a number"),
    ],
    ids=[
        "put-type",
        "put-missing-key",
        "delete-type",
        "delete-extra-attribute",
        "delete-missing-key",
        "put-empty-key",
        "put-empty-set",
        "put-duplicate-set",
        "put-bad-number",
    ],
)
def test_batch_write_validation_errors(client, filled, request_, message):
    first, second = filled
    before = contents(client, first), contents(client, second)
    assert_client_error(
        lambda: client.batch_write_item(
            RequestItems={second: [put(K("new")), delete(K("z"))], first: [delete(K("b")), request_]}
        ),
        "ValidationException",
        message,
    )
    assert (contents(client, first), contents(client, second)) == before


def test_batch_write_unknown_table(client, filled):
    first, _ = filled
    before = contents(client, first)
    assert_client_error(
        lambda: client.batch_write_item(
            RequestItems={
                first: [put(K("new")), delete(K("a"))],
                "dynabase_test-no-such-table": [put(K("a"))],
            }
        ),
        "ResourceNotFoundException",
        NOT_FOUND,
    )
    assert contents(client, first) == before


def test_batch_write_invalid_table_name(client):
    assert_client_error(
        lambda: client.batch_write_item(RequestItems={"a$b": [put(K("a"))]}),
        "ValidationException",
        NAME_ERROR,
    )


def test_batch_write_empty_request_items(client):
    assert_client_error(
        lambda: client.batch_write_item(RequestItems={}),
        "ValidationException",
        validation_errors(
            violation(..., "RequestItems", "Member must have length greater than or equal to 1")
        ),  # AWS's newer form (batchWriteItem.test.ts)
    )


def test_batch_write_empty_request_list_is_a_parameter_error(client, hash_table):
    with pytest.raises(ParamValidationError):
        client.batch_write_item(RequestItems={hash_table: []})


@pytest.mark.local_quirk
@pytest.mark.parametrize(
    "request_",
    [{"PutRequest": {"Item": K("a")}, "DeleteRequest": {"Key": K("b")}}, {}],
    ids=["both", "neither"],
)
def test_batch_write_request_needs_exactly_one_action(client, hash_table, request_):
    # Local answers with the message it uses for an AttributeValue with several types
    assert_client_error(
        lambda: client.batch_write_item(RequestItems={hash_table: [put(K("c")), request_]}),
        "ValidationException",
        "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported "
        "datatypes",
    )
    assert contents(client, hash_table) == []


# -- BatchWriteItem: capacity ------------------------------------------------------------------------------------


def test_batch_write_no_capacity_by_default(client, hash_table):
    assert "ConsumedCapacity" not in client.batch_write_item(RequestItems={hash_table: [put(K("a"))]})


def test_batch_write_capacity_per_table(client, filled):
    first, second = filled
    response = client.batch_write_item(
        RequestItems={
            first: [put(K("new")), put({**K("big"), "d": {"S": "x" * 3000}}), delete(K("a"))],
            second: [put(K("new"))],
        },
        ReturnConsumedCapacity="TOTAL",
    )
    assert by_table(response) == {
        first: {"TableName": first, "CapacityUnits": 5.0},  # 1 + 3 + 1
        second: {"TableName": second, "CapacityUnits": 1.0},
    }
    assert response["UnprocessedItems"] == {}


def test_batch_write_capacity_of_large_delete(client, hash_table):
    client.put_item(TableName=hash_table, Item={**K("a"), "d": {"S": "x" * 2500}})
    response = client.batch_write_item(
        RequestItems={hash_table: [delete(K("a"))]}, ReturnConsumedCapacity="TOTAL"
    )
    assert response["ConsumedCapacity"] == [{"TableName": hash_table, "CapacityUnits": 3.0}]


@pytest.mark.aws_only(reason=MISSING_CAPACITY.local, ref=MISSING_CAPACITY.ref)
def test_batch_write_capacity_of_deleting_missing_items(client, hash_table):
    response = client.batch_write_item(
        RequestItems={hash_table: [delete(K("a")), delete(K("b"))]}, ReturnConsumedCapacity="TOTAL"
    )
    assert response["ConsumedCapacity"] == [{"TableName": hash_table, "CapacityUnits": 2.0}]


@pytest.mark.aws_only(reason=MISSING_CAPACITY.local, ref=MISSING_CAPACITY.ref)
@pytest.mark.parametrize("consistent, units", [(False, 1.0), (True, 2.0)])
def test_batch_get_capacity_of_missing_items(client, hash_table, consistent, units):
    response = client.batch_get_item(
        RequestItems={hash_table: {"Keys": [K("a"), K("b")], "ConsistentRead": consistent}},
        ReturnConsumedCapacity="TOTAL",
    )
    assert response["ConsumedCapacity"] == [{"TableName": hash_table, "CapacityUnits": units}]


def test_batch_write_capacity_indexes(client, make_table):
    table = make_table(("pk:S",), gsis=[gsi("byG", "g:S")])
    response = client.batch_write_item(
        RequestItems={table: [put({**K("a"), "g": {"S": "x"}}), put(K("b"))]},
        ReturnConsumedCapacity="INDEXES",
    )
    assert response["ConsumedCapacity"] == [
        {
            "TableName": table,
            "CapacityUnits": 3.0,
            "Table": {"CapacityUnits": 2.0},
            "GlobalSecondaryIndexes": {"byG": {"CapacityUnits": 1.0}},
        }
    ]


def test_batch_write_item_collection_metrics_not_returned(client, hash_table):
    response = client.batch_write_item(
        RequestItems={hash_table: [put(K("a"))]}, ReturnItemCollectionMetrics="SIZE"
    )
    assert "ItemCollectionMetrics" not in response
