"""Query: key conditions and ordering, paging, Limit vs filters, Select, indexes and their projections, errors."""

from __future__ import annotations

import pytest

from ddb_helpers import assert_client_error, gsi, lsi, query_all, sorted_items, values

P = {":p": {"S": "p"}}


def query(client, table, condition="pk = :p", vals=None, **kwargs):
    return client.query(
        TableName=table,
        KeyConditionExpression=condition,
        ExpressionAttributeValues={**P, **(vals or {})} if ":p" in condition else (vals or {}),
        **kwargs,
    )


def sort_keys(response, attr="sk"):
    return values(response["Items"], attr)


def invalid(client, table, message, condition="pk = :p", vals=None, **kwargs):
    assert_client_error(
        lambda: query(client, table, condition, vals, **kwargs), "ValidationException", message
    )


# -- ordering ----------------------------------------------------------------------------------------------------

STRINGS = ["a", "B", "b", "A", "é", "z", "Z", "aa", "ä", "~", "0", "10", "9", "ab", "a b", "日本", "😀", "ｚ"]


@pytest.fixture
def string_table(client, range_table):
    for s in STRINGS:
        client.put_item(TableName=range_table, Item={"pk": {"S": "p"}, "sk": {"S": s}})
    return range_table


def test_string_sort_keys_in_utf8_byte_order(client, string_table):
    expected = sorted(STRINGS, key=lambda s: s.encode("utf-8"))
    assert sort_keys(query(client, string_table)) == expected
    assert expected[:4] == ["0", "10", "9", "A"]


def test_string_sort_keys_descending(client, string_table):
    expected = sorted(STRINGS, key=lambda s: s.encode("utf-8"), reverse=True)
    assert sort_keys(query(client, string_table, ScanIndexForward=False)) == expected


@pytest.mark.parametrize(
    "condition, vals, expected",
    [
        ("sk = :v", {":v": {"S": "a"}}, ["a"]),
        ("sk < :v", {":v": {"S": "a"}}, ["0", "10", "9", "A", "B", "Z"]),
        ("sk <= :v", {":v": {"S": "a"}}, ["0", "10", "9", "A", "B", "Z", "a"]),
        ("sk > :v", {":v": {"S": "z"}}, ["~", "ä", "é", "日本", "ｚ", "😀"]),
        ("sk >= :v", {":v": {"S": "z"}}, ["z", "~", "ä", "é", "日本", "ｚ", "😀"]),
        ("sk BETWEEN :a AND :b", {":a": {"S": "a"}, ":b": {"S": "b"}}, ["a", "a b", "aa", "ab", "b"]),
        ("begins_with(sk, :v)", {":v": {"S": "a"}}, ["a", "a b", "aa", "ab"]),
        ("begins_with(sk, :v)", {":v": {"S": "日"}}, ["日本"]),
        ("sk = :v", {":v": {"S": "nope"}}, []),
    ],
)
def test_string_sort_key_conditions(client, string_table, condition, vals, expected):
    assert sort_keys(query(client, string_table, f"pk = :p AND {condition}", vals)) == expected


NUMBERS = [
    "-100",
    "-10.5",
    "-10",
    "-1",
    "-0.001",
    "0",
    "0.001",
    "0.5",
    "1",
    "2",
    "3.14159",
    "10",
    "10.5",
    "100",
]


@pytest.fixture
def number_table(client, num_range_table):
    for n in [*NUMBERS, "1e20", "-1e20"]:
        client.put_item(TableName=num_range_table, Item={"pk": {"S": "p"}, "sk": {"N": n}})
    return num_range_table


def test_number_sort_keys_in_numeric_order(client, number_table):
    big = "100000000000000000000"
    assert sort_keys(query(client, number_table)) == ["-" + big, *NUMBERS, big]


def test_number_sort_keys_descending(client, number_table):
    big = "100000000000000000000"
    assert sort_keys(query(client, number_table, ScanIndexForward=False)) == [
        big,
        *reversed(NUMBERS),
        "-" + big,
    ]


@pytest.mark.parametrize(
    "condition, vals, expected",
    [
        ("sk = :v", {":v": {"N": "0.50"}}, ["0.5"]),
        ("sk < :v", {":v": {"N": "-10"}}, ["-100000000000000000000", "-100", "-10.5"]),
        ("sk <= :v", {":v": {"N": "-10"}}, ["-100000000000000000000", "-100", "-10.5", "-10"]),
        ("sk > :v", {":v": {"N": "10"}}, ["10.5", "100", "100000000000000000000"]),
        ("sk >= :v", {":v": {"N": "10.5"}}, ["10.5", "100", "100000000000000000000"]),
        (
            "sk BETWEEN :a AND :b",
            {":a": {"N": "-1"}, ":b": {"N": "1"}},
            ["-1", "-0.001", "0", "0.001", "0.5", "1"],
        ),
        ("sk BETWEEN :a AND :b", {":a": {"N": "2"}, ":b": {"N": "2"}}, ["2"]),
    ],
)
def test_number_sort_key_conditions(client, number_table, condition, vals, expected):
    assert sort_keys(query(client, number_table, f"pk = :p AND {condition}", vals)) == expected


def test_begins_with_on_number_sort_key(client, number_table):
    invalid(
        client,
        number_table,
        "One or more parameter values were invalid: Condition parameter type does not match schema type",
        "pk = :p AND begins_with(sk, :v)",
        {":v": {"S": "1"}},
    )


BINARIES = [b"\x00", b"\x01", b"\x7f", b"\x80", b"\xff", b"\x00\x00", b"\x01\x00", b"a", b"ab", b"\xff\xff"]


@pytest.fixture
def bin_table(client, binary_table):
    for b in BINARIES:
        client.put_item(TableName=binary_table, Item={"pk": {"B": b"p"}, "sk": {"B": b}})
    return binary_table


def bquery(client, table, condition="pk = :p", vals=None, **kwargs):
    return client.query(
        TableName=table,
        KeyConditionExpression=condition,
        ExpressionAttributeValues={":p": {"B": b"p"}, **(vals or {})},
        **kwargs,
    )


def test_binary_sort_keys_in_unsigned_byte_order(client, bin_table):
    assert sort_keys(bquery(client, bin_table)) == sorted(BINARIES)


def test_binary_sort_keys_descending(client, bin_table):
    assert sort_keys(bquery(client, bin_table, ScanIndexForward=False)) == sorted(BINARIES, reverse=True)


@pytest.mark.parametrize(
    "condition, vals, expected",
    [
        ("sk = :v", {":v": {"B": b"\x80"}}, [b"\x80"]),
        ("sk < :v", {":v": {"B": b"\x01"}}, [b"\x00", b"\x00\x00"]),
        ("sk <= :v", {":v": {"B": b"\x01"}}, [b"\x00", b"\x00\x00", b"\x01"]),
        ("sk > :v", {":v": {"B": b"\x7f"}}, [b"\x80", b"\xff", b"\xff\xff"]),
        ("sk >= :v", {":v": {"B": b"\xff"}}, [b"\xff", b"\xff\xff"]),
        (
            "sk BETWEEN :a AND :b",
            {":a": {"B": b"\x01"}, ":b": {"B": b"ab"}},
            [b"\x01", b"\x01\x00", b"a", b"ab"],
        ),
        ("begins_with(sk, :v)", {":v": {"B": b"\x01"}}, [b"\x01", b"\x01\x00"]),
    ],
)
def test_binary_sort_key_conditions(client, bin_table, condition, vals, expected):
    assert sort_keys(bquery(client, bin_table, f"pk = :p AND {condition}", vals)) == expected


def test_query_only_returns_the_partition(client, range_table):
    for pk in ("p", "q", "pp"):
        client.put_item(TableName=range_table, Item={"pk": {"S": pk}, "sk": {"S": "1"}})
    assert query(client, range_table)["Items"] == [{"pk": {"S": "p"}, "sk": {"S": "1"}}]


def test_query_hash_only_table(client, hash_table):
    client.put_item(TableName=hash_table, Item={"pk": {"S": "p"}, "x": {"N": "1"}})
    result = query(client, hash_table)
    assert result["Items"] == [{"pk": {"S": "p"}, "x": {"N": "1"}}]
    assert (result["Count"], result["ScannedCount"]) == (1, 1)


def test_query_empty_partition(client, range_table):
    result = query(client, range_table)
    assert result["Items"] == []
    assert (result["Count"], result["ScannedCount"]) == (0, 0)
    assert "LastEvaluatedKey" not in result


def test_key_condition_with_names(client, range_table):
    client.put_item(TableName=range_table, Item={"pk": {"S": "p"}, "sk": {"S": "1"}})
    result = query(
        client,
        range_table,
        "#h = :p AND #r = :s",
        {":s": {"S": "1"}},
        ExpressionAttributeNames={"#h": "pk", "#r": "sk"},
    )
    assert result["Count"] == 1


def test_key_condition_sort_key_first(client, range_table):
    client.put_item(TableName=range_table, Item={"pk": {"S": "p"}, "sk": {"S": "1"}})
    assert query(client, range_table, "sk = :s AND pk = :p", {":s": {"S": "1"}})["Count"] == 1


def test_key_condition_with_parentheses(client, range_table):
    client.put_item(TableName=range_table, Item={"pk": {"S": "p"}, "sk": {"S": "1"}})
    assert query(client, range_table, "(pk = :p) AND (sk = :s)", {":s": {"S": "1"}})["Count"] == 1


def test_legacy_key_conditions(client, range_table):
    client.put_item(TableName=range_table, Item={"pk": {"S": "p"}, "sk": {"S": "1"}})
    result = client.query(
        TableName=range_table,
        KeyConditions={"pk": {"AttributeValueList": [{"S": "p"}], "ComparisonOperator": "EQ"}},
    )
    assert result["Count"] == 1


# -- key condition errors ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "condition, vals, message",
    [
        ("pk = :p AND sk <> :v", {":v": {"S": "a"}}, "Invalid operator used in KeyConditionExpression: <>"),
        ("pk = :p AND sk IN (:v)", {":v": {"S": "a"}}, "Invalid operator used in KeyConditionExpression: IN"),
        (
            "pk = :p AND contains(sk, :v)",
            {":v": {"S": "a"}},
            "Invalid operator used in KeyConditionExpression: contains",
        ),
        ("pk = :p OR sk = :v", {":v": {"S": "a"}}, "Invalid operator used in KeyConditionExpression: OR"),
        (
            "pk = :p AND NOT sk = :v",
            {":v": {"S": "a"}},
            "Invalid operator used in KeyConditionExpression: NOT",
        ),
        (
            "pk = :p AND attribute_exists(sk)",
            {},
            "Invalid operator used in KeyConditionExpression: attribute_exists",
        ),
        (
            "pk = :p AND sk = :v AND sk = :v",
            {":v": {"S": "a"}},
            "KeyConditionExpressions must only contain one condition per key",
        ),
        ("pk = :p AND pk = :p", {}, "KeyConditionExpressions must only contain one condition per key"),
        ("pk = :p AND x = :v", {":v": {"S": "a"}}, "Query condition missed key schema element"),
        ("pk < :p", {}, "Query key condition not supported"),
        ("begins_with(pk, :p)", {}, "Query key condition not supported"),
        ("pk BETWEEN :p AND :p", {}, "Query key condition not supported"),
        (
            "pk = :p AND size(sk) = :v",
            {":v": {"N": "1"}},
            "KeyConditionExpressions cannot contain nested operations",
        ),
        (
            "pk = :p AND sk < :v",
            {":v": {"N": "1"}},
            "One or more parameter values were invalid: Condition parameter type does not match schema type",
        ),
        (
            "pk = :v",
            {":v": {"N": "1"}},
            "One or more parameter values were invalid: Condition parameter type does not match schema type",
        ),
        (
            "pk = :p AND begins_with(sk, :v)",
            {":v": {"N": "1"}},
            "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: "
            "begins_with, operand type: N",
        ),
        (
            "pk = :p AND sk BETWEEN :a AND :b",
            {":a": {"S": "b"}, ":b": {"S": "a"}},
            "Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to "
            "lower bound; lower bound operand: AttributeValue: {S:b}, upper bound operand: AttributeValue: {S:a}",
        ),
        (
            "pk = :p AND sk = sk",
            {},
            "Invalid KeyConditionExpression: The first operand must be distinct from the remaining operands for this "
            "operator or function; operator: =, first operand: [sk]",
        ),
        (
            "pk = :p AND ((sk > :v))",
            {":v": {"S": "a"}},
            "Invalid KeyConditionExpression: The expression has redundant parentheses;",
        ),
        ("pk = :p AND", {}, 'Invalid KeyConditionExpression: Syntax error; token: "<EOF>", near: "AND"'),
        (
            "pk = :p AND status > :v",
            {":v": {"S": "a"}},
            "Invalid KeyConditionExpression: Attribute name is a reserved keyword; reserved keyword: status",
        ),
    ],
)
def test_key_condition_errors(client, range_table, condition, vals, message):
    invalid(client, range_table, message, condition, vals)


def test_key_condition_without_hash_key(client, range_table):
    assert_client_error(
        lambda: client.query(
            TableName=range_table,
            KeyConditionExpression="sk = :v",
            ExpressionAttributeValues={":v": {"S": "a"}},
        ),
        "ValidationException",
        "Query condition missed key schema element: pk",  # AWS names the partition key (aws_differences)
    )


def test_key_condition_on_non_key_attribute_only(client, range_table):
    assert_client_error(
        lambda: client.query(
            TableName=range_table,
            KeyConditionExpression="x = :v",
            ExpressionAttributeValues={":v": {"S": "a"}},
        ),
        "ValidationException",
        "Query condition missed key schema element: pk",
    )


def test_key_condition_sort_key_range_on_number_table(client, num_range_table):
    invalid(
        client,
        num_range_table,
        "Invalid KeyConditionExpression: The BETWEEN operator requires same data type for lower and upper bounds; "
        "lower bound operand: AttributeValue: {N:1}, upper bound operand: AttributeValue: {S:1}",
        "pk = :p AND sk BETWEEN :a AND :b",
        {":a": {"N": "1"}, ":b": {"S": "1"}},
    )


def test_two_conditions_on_sort_key(client, num_range_table):
    invalid(
        client,
        num_range_table,
        "KeyConditionExpressions must only contain one condition per key",
        "pk = :p AND sk > :a AND sk < :b",
        {":a": {"N": "1"}, ":b": {"N": "3"}},
    )


def test_empty_key_condition(client, range_table):
    assert_client_error(
        lambda: client.query(TableName=range_table, KeyConditionExpression=""),
        "ValidationException",
        "Invalid KeyConditionExpression: The expression can not be empty;",
    )


def test_missing_key_condition(client, range_table):
    assert_client_error(
        lambda: client.query(TableName=range_table),
        "ValidationException",
        "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.",
    )


def test_key_conditions_and_expression(client, range_table):
    invalid(
        client,
        range_table,
        "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: "
        "{KeyConditions} Expression parameters: {KeyConditionExpression}",
        KeyConditions={"pk": {"AttributeValueList": [{"S": "p"}], "ComparisonOperator": "EQ"}},
    )


def test_empty_string_hash_key_value(client, range_table):
    invalid(
        client,
        range_table,
        "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty "
        "string value. Key: pk",
        "pk = :v",
        {":v": {"S": ""}},
    )


def test_unused_value_in_query(client, range_table):
    invalid(
        client,
        range_table,
        "Value provided in ExpressionAttributeValues unused in expressions: keys: {:unused}",
        vals={":unused": {"S": "x"}},
    )


# -- Limit, filters, paging --------------------------------------------------------------------------------------


@pytest.fixture
def six(client, num_range_table):
    for i in range(6):
        client.put_item(
            TableName=num_range_table,
            Item={"pk": {"S": "p"}, "sk": {"N": str(i)}, "odd": {"BOOL": bool(i % 2)}, "n": {"N": str(i)}},
        )
    return num_range_table


def test_limit_and_last_evaluated_key(client, six):
    result = query(client, six, Limit=2)
    assert sort_keys(result) == ["0", "1"]
    assert (result["Count"], result["ScannedCount"]) == (2, 2)
    assert result["LastEvaluatedKey"] == {"pk": {"S": "p"}, "sk": {"N": "1"}}


def test_exclusive_start_key_continues(client, six):
    result = query(client, six, Limit=2, ExclusiveStartKey={"pk": {"S": "p"}, "sk": {"N": "1"}})
    assert sort_keys(result) == ["2", "3"]
    assert result["LastEvaluatedKey"] == {"pk": {"S": "p"}, "sk": {"N": "3"}}


def test_limit_equal_to_item_count_still_returns_key(client, six):
    result = query(client, six, Limit=6)
    assert result["Count"] == 6
    assert result["LastEvaluatedKey"] == {"pk": {"S": "p"}, "sk": {"N": "5"}}
    rest = query(client, six, ExclusiveStartKey=result["LastEvaluatedKey"])
    assert (rest["Items"], rest["Count"]) == ([], 0)
    assert "LastEvaluatedKey" not in rest


def test_limit_larger_than_item_count(client, six):
    result = query(client, six, Limit=7)
    assert result["Count"] == 6
    assert "LastEvaluatedKey" not in result


def test_paging_descending(client, six):
    result = query(client, six, Limit=2, ScanIndexForward=False)
    assert sort_keys(result) == ["5", "4"]
    assert result["LastEvaluatedKey"] == {"pk": {"S": "p"}, "sk": {"N": "4"}}
    result = query(client, six, Limit=2, ScanIndexForward=False, ExclusiveStartKey=result["LastEvaluatedKey"])
    assert sort_keys(result) == ["3", "2"]


def test_exclusive_start_key_need_not_exist(client, six):
    result = query(client, six, ExclusiveStartKey={"pk": {"S": "p"}, "sk": {"N": "2.5"}})
    assert sort_keys(result) == ["3", "4", "5"]


def test_limit_applies_before_filter(client, six):
    result = query(client, six, vals={":t": {"BOOL": True}}, FilterExpression="odd = :t", Limit=3)
    assert sort_keys(result) == ["1"]
    assert (result["Count"], result["ScannedCount"]) == (1, 3)
    assert result["LastEvaluatedKey"] == {"pk": {"S": "p"}, "sk": {"N": "2"}}


def test_filter_matching_nothing_still_pages(client, six):
    result = query(client, six, vals={":v": {"N": "100"}}, FilterExpression="n > :v", Limit=3)
    assert (result["Items"], result["Count"], result["ScannedCount"]) == ([], 0, 3)
    assert result["LastEvaluatedKey"] == {"pk": {"S": "p"}, "sk": {"N": "2"}}


def test_filter_without_limit(client, six):
    result = query(client, six, vals={":t": {"BOOL": True}}, FilterExpression="odd = :t")
    assert sort_keys(result) == ["1", "3", "5"]
    assert (result["Count"], result["ScannedCount"]) == (3, 6)
    assert "LastEvaluatedKey" not in result


def test_filter_and_key_condition_together(client, six):
    result = query(
        client,
        six,
        "pk = :p AND sk >= :two",
        {":two": {"N": "2"}, ":t": {"BOOL": True}},
        FilterExpression="odd = :t",
    )
    assert sort_keys(result) == ["3", "5"]
    assert (result["Count"], result["ScannedCount"]) == (2, 4)


def test_filter_on_key_attribute_rejected(client, six):
    invalid(
        client,
        six,
        "Filter Expression can only contain non-primary key attributes: Primary key attribute: sk",
        vals={":v": {"N": "1"}},
        FilterExpression="sk > :v",
    )


def test_filter_on_hash_key_rejected(client, six):
    invalid(
        client,
        six,
        "Filter Expression can only contain non-primary key attributes: Primary key attribute: pk",
        FilterExpression="pk = :p",
    )


def test_empty_filter_expression(client, six):
    invalid(client, six, "Invalid FilterExpression: The expression can not be empty;", FilterExpression="")


def test_filter_undefined_value(client, six):
    invalid(
        client,
        six,
        "Invalid FilterExpression: An expression attribute value used in expression is not defined; attribute value: :x",
        FilterExpression="n = :x",
    )


def test_full_pagination_round_trip(client, six):
    assert values(
        query_all(
            client, TableName=six, KeyConditionExpression="pk = :p", ExpressionAttributeValues=P, Limit=4
        ),
        "sk",
    ) == [str(i) for i in range(6)]


def test_query_paginator(client, six):
    paginator = client.get_paginator("query")
    pages = list(
        paginator.paginate(
            TableName=six,
            KeyConditionExpression="pk = :p",
            ExpressionAttributeValues=P,
            PaginationConfig={"PageSize": 4},
        )
    )
    assert [p["Count"] for p in pages] == [4, 2]
    assert [v for p in pages for v in values(p["Items"], "sk")] == [str(i) for i in range(6)]


def test_query_paginator_build_full_result(client, six):
    result = (
        client.get_paginator("query")
        .paginate(
            TableName=six,
            KeyConditionExpression="pk = :p",
            ExpressionAttributeValues=P,
            PaginationConfig={"PageSize": 5, "MaxItems": 3},
        )
        .build_full_result()
    )
    assert values(result["Items"], "sk") == ["0", "1", "2"]


def test_exclusive_start_key_wrong_size(client, six):
    invalid(
        client,
        six,
        "Exclusive Start Key must have same size as table's key schema",
        ExclusiveStartKey={"pk": {"S": "p"}},
    )


def test_exclusive_start_key_extra_attribute(client, six):
    invalid(
        client,
        six,
        "Exclusive Start Key must have same size as table's key schema",
        ExclusiveStartKey={"pk": {"S": "p"}, "sk": {"N": "1"}, "x": {"S": "y"}},
    )


def test_exclusive_start_key_other_partition(client, six):
    invalid(
        client,
        six,
        "The provided starting key does not match the range key predicate",
        ExclusiveStartKey={"pk": {"S": "q"}, "sk": {"N": "1"}},
    )


def test_exclusive_start_key_outside_range(client, six):
    invalid(
        client,
        six,
        "The provided starting key does not match the range key predicate",
        "pk = :p AND sk > :three",
        {":three": {"N": "3"}},
        ExclusiveStartKey={"pk": {"S": "p"}, "sk": {"N": "1"}},
    )


# -- the 1 MB page -----------------------------------------------------------------------------------------------


def _fill_mb(client, table, item_size, count=6):
    # pk "p" (3 bytes) + sk 1..9 (2 + 2 bytes) + "d" (1 + len): item_size bytes per item
    for i in range(1, count + 1):
        client.put_item(
            TableName=table, Item={"pk": {"S": "p"}, "sk": {"N": str(i)}, "d": {"S": "x" * (item_size - 8)}}
        )


def test_page_stops_once_1mb_is_reached(client, num_range_table):
    _fill_mb(client, num_range_table, 262144)  # four items are exactly 1 MB
    result = query(client, num_range_table, ProjectionExpression="sk")
    assert sort_keys(result) == ["1", "2", "3", "4"]
    assert result["ScannedCount"] == 4
    assert result["LastEvaluatedKey"] == {"pk": {"S": "p"}, "sk": {"N": "4"}}
    rest = query(
        client, num_range_table, ProjectionExpression="sk", ExclusiveStartKey=result["LastEvaluatedKey"]
    )
    assert sort_keys(rest) == ["5", "6"]
    assert "LastEvaluatedKey" not in rest


def test_page_includes_item_crossing_1mb(client, num_range_table):
    _fill_mb(client, num_range_table, 262143)  # four items are 4 bytes short of 1 MB
    result = query(client, num_range_table, ProjectionExpression="sk")
    assert sort_keys(result) == ["1", "2", "3", "4", "5"]
    assert result["LastEvaluatedKey"] == {"pk": {"S": "p"}, "sk": {"N": "5"}}


def test_1mb_page_with_100kb_items(client, num_range_table):
    for i in range(15):
        client.put_item(
            TableName=num_range_table, Item={"pk": {"S": "p"}, "sk": {"N": str(i)}, "d": {"S": "x" * 100000}}
        )
    result = query(client, num_range_table, ProjectionExpression="sk")
    assert result["Count"] == 11
    assert result["LastEvaluatedKey"] == {"pk": {"S": "p"}, "sk": {"N": "10"}}
    descending = query(client, num_range_table, ProjectionExpression="sk", ScanIndexForward=False)
    assert descending["Count"] == 11
    assert descending["LastEvaluatedKey"] == {"pk": {"S": "p"}, "sk": {"N": "4"}}
    counted = query(client, num_range_table, Select="COUNT")
    assert (counted["Count"], counted["LastEvaluatedKey"]) == (11, {"pk": {"S": "p"}, "sk": {"N": "10"}})


def test_limit_smaller_than_1mb_page(client, num_range_table):
    _fill_mb(client, num_range_table, 262144)
    result = query(client, num_range_table, ProjectionExpression="sk", Limit=2)
    assert sort_keys(result) == ["1", "2"]
    assert result["LastEvaluatedKey"] == {"pk": {"S": "p"}, "sk": {"N": "2"}}


# -- Select ------------------------------------------------------------------------------------------------------


def test_select_count(client, six):
    result = query(client, six, Select="COUNT")
    assert "Items" not in result
    assert (result["Count"], result["ScannedCount"]) == (6, 6)
    assert "LastEvaluatedKey" not in result


def test_select_count_with_limit(client, six):
    result = query(client, six, Select="COUNT", Limit=2)
    assert "Items" not in result
    assert result["Count"] == 2
    assert result["LastEvaluatedKey"] == {"pk": {"S": "p"}, "sk": {"N": "1"}}


def test_select_count_with_filter(client, six):
    result = query(client, six, vals={":t": {"BOOL": True}}, Select="COUNT", FilterExpression="odd = :t")
    assert (result["Count"], result["ScannedCount"]) == (3, 6)


def test_select_all_attributes(client, six):
    result = query(client, six, Select="ALL_ATTRIBUTES", Limit=1)
    assert result["Items"] == [{"pk": {"S": "p"}, "sk": {"N": "0"}, "odd": {"BOOL": False}, "n": {"N": "0"}}]


def test_select_specific_attributes(client, six):
    result = query(client, six, Select="SPECIFIC_ATTRIBUTES", ProjectionExpression="n", Limit=1)
    assert result["Items"] == [{"n": {"N": "0"}}]


def test_select_specific_without_projection(client, six):
    invalid(
        client,
        six,
        "Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES",
        Select="SPECIFIC_ATTRIBUTES",
    )


def test_select_all_attributes_with_projection(client, six):
    invalid(
        client,
        six,
        "Cannot specify the ProjectionExpression when choosing to get ALL_ATTRIBUTES",
        Select="ALL_ATTRIBUTES",
        ProjectionExpression="n",
    )


def test_select_count_with_projection(client, six):
    invalid(
        client,
        six,
        "Cannot specify the ProjectionExpression when choosing to get only the Count",
        Select="COUNT",
        ProjectionExpression="n",
    )


def test_select_all_projected_on_table(client, six):
    invalid(
        client,
        six,
        "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName",
        Select="ALL_PROJECTED_ATTRIBUTES",
    )


def test_select_invalid(client, six):
    invalid(
        client,
        six,
        "1 validation error detected: Value 'EVERYTHING' at 'select' failed to satisfy constraint: Member must "
        "satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]",
        Select="EVERYTHING",
    )


def test_attributes_to_get_with_key_condition_expression(client, six):
    invalid(
        client,
        six,
        "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: "
        "{AttributesToGet} Expression parameters: {KeyConditionExpression}",
        AttributesToGet=["n"],
    )


# -- indexes -----------------------------------------------------------------------------------------------------


@pytest.fixture
def indexed(client, make_table):
    table = make_table(
        ("pk:S", "sk:N"),
        gsis=[
            gsi("byG", "g:S", "gs:N"),
            gsi("byGK", "g:S", projection="KEYS_ONLY"),
            gsi("byGI", "g:S", "gs:N", projection=["a"]),
        ],
        lsis=[
            lsi("byL", "l:N"),
            lsi("byLK", "l:N", projection="KEYS_ONLY"),
            lsi("byLI", "l:N", projection=["a"]),
        ],
    )
    for i in range(6):
        client.put_item(
            TableName=table,
            Item={
                "pk": {"S": "p"},
                "sk": {"N": str(i)},
                "g": {"S": "G"},
                "gs": {"N": str(10 - i)},
                "l": {"N": str(100 - i)},
                "a": {"S": f"a{i}"},
                "b": {"S": f"b{i}"},
            },
        )
    return table


def full(i):
    return {
        "pk": {"S": "p"},
        "sk": {"N": str(i)},
        "g": {"S": "G"},
        "gs": {"N": str(10 - i)},
        "l": {"N": str(100 - i)},
        "a": {"S": f"a{i}"},
        "b": {"S": f"b{i}"},
    }


def gquery(client, table, index, **kwargs):
    return client.query(
        TableName=table,
        IndexName=index,
        KeyConditionExpression="g = :g",
        ExpressionAttributeValues={":g": {"S": "G"}},
        **kwargs,
    )


def test_gsi_all_projection_ordered_by_index_range_key(client, indexed):
    result = gquery(client, indexed, "byG")
    assert result["Items"] == [full(i) for i in (5, 4, 3, 2, 1, 0)]


def test_gsi_range_condition(client, indexed):
    result = client.query(
        TableName=indexed,
        IndexName="byG",
        KeyConditionExpression="g = :g AND gs BETWEEN :a AND :b",
        ExpressionAttributeValues={":g": {"S": "G"}, ":a": {"N": "6"}, ":b": {"N": "7"}},
    )
    assert values(result["Items"], "sk") == ["4", "3"]


def test_gsi_keys_only_projection(client, indexed):
    result = gquery(client, indexed, "byGK")
    assert sorted_items(result["Items"], "sk") == [
        {"pk": {"S": "p"}, "sk": {"N": str(i)}, "g": {"S": "G"}} for i in range(6)
    ]


def test_gsi_include_projection(client, indexed):
    result = gquery(client, indexed, "byGI", Limit=1)
    assert result["Items"] == [
        {"pk": {"S": "p"}, "sk": {"N": "5"}, "g": {"S": "G"}, "gs": {"N": "5"}, "a": {"S": "a5"}}
    ]


def test_gsi_all_projected_attributes(client, indexed):
    result = gquery(client, indexed, "byGI", Limit=1, Select="ALL_PROJECTED_ATTRIBUTES")
    assert result["Items"] == [
        {"pk": {"S": "p"}, "sk": {"N": "5"}, "g": {"S": "G"}, "gs": {"N": "5"}, "a": {"S": "a5"}}
    ]


def test_gsi_select_all_attributes_needs_all_projection(client, indexed):
    assert_client_error(
        lambda: gquery(client, indexed, "byGI", Select="ALL_ATTRIBUTES"),
        "ValidationException",
        "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary "
        "index byGI because its projection type is not ALL",
    )


def test_gsi_select_all_attributes_with_all_projection(client, indexed):
    assert gquery(client, indexed, "byG", Select="ALL_ATTRIBUTES", Limit=1)["Items"] == [full(5)]


def test_gsi_projection_of_unprojected_attribute(client, indexed):
    assert_client_error(
        lambda: gquery(client, indexed, "byGI", ProjectionExpression="b"),
        "ValidationException",
        "One or more parameter values were invalid: Global secondary index byGI does not project [b]",
    )


def test_gsi_projection_of_projected_attribute(client, indexed):
    assert gquery(client, indexed, "byGI", ProjectionExpression="a", Limit=2)["Items"] == [
        {"a": {"S": "a5"}},
        {"a": {"S": "a4"}},
    ]


def test_gsi_consistent_read_rejected(client, indexed):
    assert_client_error(
        lambda: gquery(client, indexed, "byG", ConsistentRead=True),
        "ValidationException",
        "Consistent reads are not supported on global secondary indexes",
    )


def test_gsi_last_evaluated_key_has_index_and_table_keys(client, indexed):
    result = gquery(client, indexed, "byG", Limit=2, ProjectionExpression="sk")
    assert values(result["Items"], "sk") == ["5", "4"]
    assert result["LastEvaluatedKey"] == {
        "pk": {"S": "p"},
        "sk": {"N": "4"},
        "g": {"S": "G"},
        "gs": {"N": "6"},
    }
    rest = gquery(
        client, indexed, "byG", ProjectionExpression="sk", ExclusiveStartKey=result["LastEvaluatedKey"]
    )
    assert values(rest["Items"], "sk") == ["3", "2", "1", "0"]


def test_gsi_hash_only_last_evaluated_key(client, indexed):
    result = gquery(client, indexed, "byGK", Limit=2)
    assert set(result["LastEvaluatedKey"]) == {"pk", "sk", "g"}
    rest = query_all(
        client,
        TableName=indexed,
        IndexName="byGK",
        KeyConditionExpression="g = :g",
        ExpressionAttributeValues={":g": {"S": "G"}},
        ExclusiveStartKey=result["LastEvaluatedKey"],
    )
    assert sorted(values(result["Items"] + rest, "sk"), key=int) == [str(i) for i in range(6)]


def test_gsi_exclusive_start_key_without_index_keys(client, indexed):
    assert_client_error(
        lambda: gquery(client, indexed, "byG", ExclusiveStartKey={"pk": {"S": "p"}, "sk": {"N": "1"}}),
        "ValidationException",
        "The provided starting key is invalid",
    )


def test_gsi_items_with_equal_index_keys(client, make_table):
    table = make_table(("pk:S", "sk:N"), gsis=[gsi("byG", "g:S", "gs:N")])
    for i in range(6):
        client.put_item(
            TableName=table,
            Item={"pk": {"S": f"p{i % 2}"}, "sk": {"N": str(i)}, "g": {"S": "G"}, "gs": {"N": "1"}},
        )
    pages = query_all(
        client,
        TableName=table,
        IndexName="byG",
        KeyConditionExpression="g = :g",
        ExpressionAttributeValues={":g": {"S": "G"}},
        Limit=2,
    )
    # order among equal index keys is unspecified, but paging returns every item exactly once
    assert sorted(values(pages, "sk"), key=int) == [str(i) for i in range(6)]


def test_gsi_query_by_table_key_rejected(client, indexed):
    assert_client_error(
        lambda: client.query(
            TableName=indexed, IndexName="byG", KeyConditionExpression="pk = :p", ExpressionAttributeValues=P
        ),
        "ValidationException",
        "Query condition missed key schema element: g",  # the index's partition key
    )


def test_gsi_filter_on_index_key_rejected(client, indexed):
    assert_client_error(
        lambda: gquery(client, indexed, "byG", FilterExpression="gs > :g"),
        "ValidationException",
        "Filter Expression can only contain non-primary key attributes: Primary key attribute: gs",
    )


def test_gsi_filter_on_table_key_allowed(client, indexed):
    result = client.query(
        TableName=indexed,
        IndexName="byG",
        KeyConditionExpression="g = :g",
        FilterExpression="sk > :three",
        ExpressionAttributeValues={":g": {"S": "G"}, ":three": {"N": "3"}},
    )
    assert values(result["Items"], "sk") == ["5", "4"]
    assert (result["Count"], result["ScannedCount"]) == (2, 6)


def test_unknown_index(client, indexed):
    assert_client_error(
        lambda: gquery(client, indexed, "nope"),
        "ValidationException",
        "The table does not have the specified index: nope",
    )


def test_lsi_ordered_by_lsi_range_key(client, indexed):
    result = query(client, indexed, IndexName="byL")
    assert result["Items"] == [full(i) for i in (5, 4, 3, 2, 1, 0)]


def test_lsi_keys_only(client, indexed):
    result = query(client, indexed, IndexName="byLK", Limit=2)
    assert result["Items"] == [
        {"pk": {"S": "p"}, "sk": {"N": "5"}, "l": {"N": "95"}},
        {"pk": {"S": "p"}, "sk": {"N": "4"}, "l": {"N": "96"}},
    ]
    assert result["LastEvaluatedKey"] == {"pk": {"S": "p"}, "sk": {"N": "4"}, "l": {"N": "96"}}


def test_lsi_include(client, indexed):
    result = query(client, indexed, IndexName="byLI", Limit=1)
    assert result["Items"] == [{"pk": {"S": "p"}, "sk": {"N": "5"}, "l": {"N": "95"}, "a": {"S": "a5"}}]


def test_lsi_fetches_unprojected_attributes(client, indexed):
    # an LSI can read the table: ALL_ATTRIBUTES and unprojected attributes are allowed
    assert query(client, indexed, IndexName="byLK", Select="ALL_ATTRIBUTES", Limit=1)["Items"] == [full(5)]
    assert query(client, indexed, IndexName="byLK", ProjectionExpression="b", Limit=1)["Items"] == [
        {"b": {"S": "b5"}}
    ]


def test_lsi_consistent_read_allowed(client, indexed):
    assert query(client, indexed, IndexName="byL", ConsistentRead=True, Limit=1)["Items"] == [full(5)]


def test_lsi_paging(client, indexed):
    first = query(client, indexed, IndexName="byL", Limit=4, ProjectionExpression="sk")
    assert first["LastEvaluatedKey"] == {"pk": {"S": "p"}, "sk": {"N": "2"}, "l": {"N": "98"}}
    rest = query(
        client,
        indexed,
        IndexName="byL",
        ProjectionExpression="sk",
        ExclusiveStartKey=first["LastEvaluatedKey"],
    )
    assert values(first["Items"] + rest["Items"], "sk") == ["5", "4", "3", "2", "1", "0"]


def test_lsi_range_condition(client, indexed):
    result = query(client, indexed, "pk = :p AND l > :v", {":v": {"N": "97"}}, IndexName="byL")
    assert values(result["Items"], "sk") == ["2", "1", "0"]


def test_sparse_gsi(client, make_table):
    table = make_table(("pk:S",), gsis=[gsi("byG", "g:S")])
    client.put_item(TableName=table, Item={"pk": {"S": "with"}, "g": {"S": "G"}})
    client.put_item(TableName=table, Item={"pk": {"S": "without"}})
    assert gquery(client, table, "byG")["Items"] == [{"pk": {"S": "with"}, "g": {"S": "G"}}]
    assert client.scan(TableName=table, IndexName="byG")["Items"] == [{"pk": {"S": "with"}, "g": {"S": "G"}}]


def test_sparse_gsi_needs_both_index_keys(client, make_table):
    table = make_table(("pk:S",), gsis=[gsi("byG", "g:S", "gs:N")])
    client.put_item(TableName=table, Item={"pk": {"S": "a"}, "g": {"S": "G"}})
    client.put_item(TableName=table, Item={"pk": {"S": "b"}, "gs": {"N": "1"}})
    client.put_item(TableName=table, Item={"pk": {"S": "c"}, "g": {"S": "G"}, "gs": {"N": "1"}})
    assert values(gquery(client, table, "byG")["Items"], "pk") == ["c"]


def test_sparse_lsi(client, make_table):
    table = make_table(("pk:S", "sk:S"), lsis=[lsi("byL", "l:N")])
    client.put_item(TableName=table, Item={"pk": {"S": "p"}, "sk": {"S": "1"}, "l": {"N": "1"}})
    client.put_item(TableName=table, Item={"pk": {"S": "p"}, "sk": {"S": "2"}})
    assert values(query(client, table, IndexName="byL")["Items"], "sk") == ["1"]


def test_index_follows_updates_and_deletes(client, make_table):
    table = make_table(("pk:S",), gsis=[gsi("byG", "g:S")])
    client.put_item(TableName=table, Item={"pk": {"S": "a"}, "g": {"S": "G"}})
    client.update_item(
        TableName=table,
        Key={"pk": {"S": "a"}},
        UpdateExpression="SET g = :h",
        ExpressionAttributeValues={":h": {"S": "H"}},
    )
    assert gquery(client, table, "byG")["Items"] == []
    client.update_item(
        TableName=table,
        Key={"pk": {"S": "a"}},
        UpdateExpression="SET g = :g",
        ExpressionAttributeValues={":g": {"S": "G"}},
    )
    assert values(gquery(client, table, "byG")["Items"], "pk") == ["a"]
    client.update_item(TableName=table, Key={"pk": {"S": "a"}}, UpdateExpression="REMOVE g")
    assert gquery(client, table, "byG")["Items"] == []
    client.put_item(TableName=table, Item={"pk": {"S": "a"}, "g": {"S": "G"}})
    client.delete_item(TableName=table, Key={"pk": {"S": "a"}})
    assert gquery(client, table, "byG")["Items"] == []


def test_gsi_with_number_hash_key(client, make_table):
    table = make_table(("pk:S",), gsis=[gsi("byN", "n:N", "pk:S")])
    for pk, n in (("b", "1.0"), ("a", "1"), ("c", "2")):
        client.put_item(TableName=table, Item={"pk": {"S": pk}, "n": {"N": n}})
    result = client.query(
        TableName=table,
        IndexName="byN",
        KeyConditionExpression="n = :n",
        ExpressionAttributeValues={":n": {"N": "1"}},
    )
    assert values(result["Items"], "pk") == ["a", "b"]


# -- GSI/LSI key validation on writes ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "item",
    [
        {"g": {"N": "1"}},
        {"gs": {"S": "1"}},
        {"l": {"S": "1"}},
    ],
    ids=["gsi-hash", "gsi-range", "lsi-range"],
)
def test_index_key_type_mismatch(client, indexed, item):
    assert_client_error(
        lambda: client.put_item(TableName=indexed, Item={"pk": {"S": "x"}, "sk": {"N": "1"}, **item}),
        "ValidationException",
        "One or more parameter values were invalid: Type mismatch for Index Key",
    )


def test_index_key_empty_string(client, indexed):
    assert_client_error(
        lambda: client.put_item(TableName=indexed, Item={"pk": {"S": "x"}, "sk": {"N": "1"}, "g": {"S": ""}}),
        "ValidationException",
        "One or more parameter values are not valid. A value specified for a secondary index key is not supported. "
        "The AttributeValue for a key attribute cannot contain an empty string value. IndexName: byG, IndexKey: g",
    )


def test_update_index_key_to_empty_string(client, indexed):
    assert_client_error(
        lambda: client.update_item(
            TableName=indexed,
            Key={"pk": {"S": "p"}, "sk": {"N": "1"}},
            UpdateExpression="SET g = :e",
            ExpressionAttributeValues={":e": {"S": ""}},
        ),
        "ValidationException",
        "One or more parameter values are not valid. The update expression attempted to update a secondary index key "
        "to a value that is not supported. The AttributeValue for a key attribute cannot contain an empty string value.",
    )
    assert client.get_item(TableName=indexed, Key={"pk": {"S": "p"}, "sk": {"N": "1"}})["Item"] == full(1)


def test_update_index_key_type_mismatch(client, indexed):
    assert_client_error(
        lambda: client.update_item(
            TableName=indexed,
            Key={"pk": {"S": "p"}, "sk": {"N": "1"}},
            UpdateExpression="SET g = :n",
            ExpressionAttributeValues={":n": {"N": "1"}},
        ),
        "ValidationException",
        "One or more parameter values were invalid: Type mismatch for Index Key",
    )
