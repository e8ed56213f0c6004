"""The legacy (pre-expression) parameters: KeyConditions, QueryFilter, ScanFilter, ConditionalOperator, Expected,
AttributesToGet and AttributeUpdates -- their semantics, and the errors for mixing them with expressions and for
wrong argument counts.

Every AttributeUpdates entry here names its Action: DynamoDB Local ignores an entry without one (where AWS
defaults to PUT), so that case is left untested.
"""

from __future__ import annotations

import pytest

from ddb_helpers import assert_client_error, scan_all

INVALID = "One or more parameter values were invalid: "
CCF = "The conditional request failed"


def S(value):
    return {"S": value}


def N(value):
    return {"N": str(value)}


def cond(operator, *values):
    condition = {"ComparisonOperator": operator}
    if values:
        condition["AttributeValueList"] = list(values)
    return condition


def arguments_error(operator):
    return INVALID + f"Invalid number of argument(s) for the {operator} ComparisonOperator"


def mixing_error(non_expression, expression):
    return (
        "Can not use both expression and non-expression parameters in the same request: "
        f"Non-expression parameters: {{{non_expression}}} Expression parameters: {{{expression}}}"
    )


HASH = {"pk": cond("EQ", S("a"))}


@pytest.fixture
def numbers(client, num_range_table):
    """Partition ``a`` of a (pk:S, sk:N) table: sk 1..5 with x = 10*sk, s = "v<sk>", odd on odd sk, ss = {p, q<sk>}."""
    for i in range(1, 6):
        item = {"pk": S("a"), "sk": N(i), "x": N(i * 10), "s": S(f"v{i}"), "ss": {"SS": ["p", f"q{i}"]}}
        if i % 2:
            item["odd"] = {"BOOL": True}
        client.put_item(TableName=num_range_table, Item=item)
    client.put_item(TableName=num_range_table, Item={"pk": S("b"), "sk": N(1)})
    return num_range_table


def sks(items):
    return [int(item["sk"]["N"]) for item in items]


def query(client, table, **kwargs):
    return client.query(TableName=table, **kwargs)


def scan_sks(client, table, **kwargs):
    return sorted(sks(i for i in scan_all(client, TableName=table, **kwargs) if i["pk"] == S("a")))


# -- KeyConditions -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "condition, expected",
    [
        (None, [1, 2, 3, 4, 5]),
        (cond("EQ", N(2)), [2]),
        (cond("LE", N(2)), [1, 2]),
        (cond("LT", N(2)), [1]),
        (cond("GE", N(4)), [4, 5]),
        (cond("GT", N(4)), [5]),
        (cond("BETWEEN", N(2), N(4)), [2, 3, 4]),
        (cond("BETWEEN", N(3), N(3)), [3]),
        (cond("EQ", N(9)), []),
    ],
    ids=["hash-only", "EQ", "LE", "LT", "GE", "GT", "BETWEEN", "BETWEEN-equal", "EQ-nothing"],
)
def test_key_conditions(client, numbers, condition, expected):
    conditions = dict(HASH)
    if condition:
        conditions["sk"] = condition
    result = query(client, numbers, KeyConditions=conditions)
    assert sks(result["Items"]) == expected
    assert result["Count"] == result["ScannedCount"] == len(expected)


def test_key_conditions_descending(client, numbers):
    result = query(client, numbers, KeyConditions={**HASH, "sk": cond("GE", N(3))}, ScanIndexForward=False)
    assert sks(result["Items"]) == [5, 4, 3]


@pytest.mark.parametrize(
    "condition, expected",
    [
        (cond("BEGINS_WITH", S("ab")), ["ab", "abc"]),
        (cond("GT", S("ab")), ["abc", "b"]),
        (cond("BETWEEN", S("a"), S("abc")), ["a", "ab", "abc"]),
    ],
    ids=["BEGINS_WITH", "GT", "BETWEEN"],
)
def test_key_conditions_on_string_sort_key(client, range_table, condition, expected):
    for sk in ("a", "ab", "abc", "b"):
        client.put_item(TableName=range_table, Item={"pk": S("a"), "sk": S(sk)})
    result = query(client, range_table, KeyConditions={**HASH, "sk": condition})
    assert [item["sk"]["S"] for item in result["Items"]] == expected


def test_key_conditions_empty_string_sort_key_value(client, range_table):
    assert_client_error(
        lambda: query(client, range_table, KeyConditions={**HASH, "sk": cond("BEGINS_WITH", S(""))}),
        "ValidationException",
        "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty "
        "string value. Key: sk",
    )


def test_key_conditions_on_binary_sort_key(client, binary_table):
    for sk in (b"\x01", b"\x01\x02", b"\x02"):
        client.put_item(TableName=binary_table, Item={"pk": {"B": b"p"}, "sk": {"B": sk}})
    result = query(
        client,
        binary_table,
        KeyConditions={"pk": cond("EQ", {"B": b"p"}), "sk": cond("BEGINS_WITH", {"B": b"\x01"})},
    )
    assert [item["sk"]["B"] for item in result["Items"]] == [b"\x01", b"\x01\x02"]


@pytest.mark.parametrize(
    "conditions, message",
    [
        (
            {**HASH, "sk": cond("BEGINS_WITH", N(1))},
            INVALID + "ComparisonOperator BEGINS_WITH is not valid for N AttributeValue type",
        ),
        ({**HASH, "sk": cond("BETWEEN", N(1))}, arguments_error("BETWEEN")),
        ({**HASH, "sk": cond("BETWEEN", N(1), N(2), N(3))}, arguments_error("BETWEEN")),
        ({**HASH, "sk": cond("EQ")}, arguments_error("EQ")),
        ({**HASH, "sk": cond("LT", N(1), N(2))}, arguments_error("LT")),
        ({"pk": cond("EQ", S("a"), S("b"))}, arguments_error("EQ")),
        (
            {**HASH, "sk": cond("BETWEEN", N(4), N(2))},
            "The BETWEEN condition was provided a range where the lower bound is greater than the upper bound",
        ),
        (
            {**HASH, "sk": cond("CONTAINS", N(1))},
            "Attempted conditional constraint is not an indexable operation",
        ),
        (
            {**HASH, "sk": cond("NOT_CONTAINS", N(1))},
            "Attempted conditional constraint is not an indexable operation",
        ),
        ({**HASH, "sk": cond("IN", N(1))}, "Attempted conditional constraint is not an indexable operation"),
        ({**HASH, "sk": cond("NULL")}, "Only scalar types can be used as Range Key values"),
        ({**HASH, "sk": cond("NOT_NULL")}, "Only scalar types can be used as Range Key values"),
        ({**HASH, "sk": cond("EQ", S("x"))}, INVALID + "Condition parameter type does not match schema type"),
        ({"pk": cond("EQ", N(1))}, INVALID + "Condition parameter type does not match schema type"),
        ({"pk": cond("NE", S("a"))}, "Query key condition not supported"),
        ({"pk": cond("BEGINS_WITH", S("a"))}, "Query key condition not supported"),
        ({"pk": cond("GT", S("a"))}, "Query key condition not supported"),
        ({"sk": cond("EQ", N(1))}, "Query condition missed key schema element"),
        ({**HASH, "zz": cond("EQ", N(1))}, "Query condition missed key schema element"),
        (
            {**HASH, "sk": cond("EQ", N(1)), "x": cond("EQ", N(1))},
            "Conditions can be of length 1 or 2 only",
        ),
        (
            {**HASH, "sk": cond("BOGUS", N(1))},
            "1 validation error detected: Value 'BOGUS' at 'keyConditions.sk.member.comparisonOperator' failed to "
            "satisfy constraint: Member must satisfy enum value set: [EQ, NE, IN, LE, LT, GE, GT, BETWEEN, NOT_NULL, "
            "NULL, CONTAINS, NOT_CONTAINS, BEGINS_WITH]",
        ),
    ],
    ids=[
        "begins-with-number",
        "between-one-value",
        "between-three-values",
        "eq-no-value",
        "lt-two-values",
        "hash-eq-two-values",
        "between-reversed",
        "contains",
        "not-contains",
        "in",
        "null",
        "not-null",
        "sort-type-mismatch",
        "hash-type-mismatch",
        "hash-ne",
        "hash-begins-with",
        "hash-gt",
        "no-hash",
        "unknown-attribute",
        "three-conditions",
        "bogus-operator",
    ],
)
def test_key_conditions_errors(client, numbers, conditions, message):
    assert_client_error(
        lambda: query(client, numbers, KeyConditions=conditions), "ValidationException", message
    )


def test_neither_key_conditions_nor_expression(client, numbers):
    assert_client_error(
        lambda: query(client, numbers),
        "ValidationException",
        "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.",
    )


def test_key_conditions_with_key_condition_expression(client, numbers):
    assert_client_error(
        lambda: query(
            client,
            numbers,
            KeyConditions=HASH,
            KeyConditionExpression="pk = :a",
            ExpressionAttributeValues={":a": S("a")},
        ),
        "ValidationException",
        mixing_error("KeyConditions", "KeyConditionExpression"),
    )


def test_key_conditions_with_expression_attribute_names(client, numbers):
    assert_client_error(
        lambda: query(client, numbers, KeyConditions=HASH, ExpressionAttributeNames={"#x": "x"}),
        "ValidationException",
        "ExpressionAttributeNames can only be specified when using expressions",
    )


def test_key_conditions_with_expression_attribute_values(client, numbers):
    assert_client_error(
        lambda: query(client, numbers, KeyConditions=HASH, ExpressionAttributeValues={":x": N(1)}),
        "ValidationException",
        "ExpressionAttributeValues can only be specified when using expressions: FilterExpression and "
        "KeyConditionExpression are null",
    )


@pytest.mark.local_quirk
def test_key_conditions_with_filter_expression(client, numbers):
    # Local lets KeyConditions go with a FilterExpression and a ProjectionExpression
    result = query(
        client,
        numbers,
        KeyConditions=HASH,
        FilterExpression="x > :v",
        ProjectionExpression="sk",
        ExpressionAttributeValues={":v": N(25)},
    )
    assert result["Items"] == [{"sk": N(3)}, {"sk": N(4)}, {"sk": N(5)}]


# -- QueryFilter -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "query_filter, operator, expected",
    [
        ({"x": cond("GT", N(25))}, None, [3, 4, 5]),
        ({"x": cond("GT", N(15)), "odd": cond("NOT_NULL")}, None, [3, 5]),
        ({"x": cond("GT", N(15)), "odd": cond("NOT_NULL")}, "AND", [3, 5]),
        ({"x": cond("LT", N(15)), "odd": cond("NULL")}, "OR", [1, 2, 4]),
        ({"ss": cond("CONTAINS", S("q3"))}, None, [3]),
        ({"s": cond("NOT_CONTAINS", S("3"))}, None, [1, 2, 4, 5]),
        ({"x": cond("IN", N(10), N(30), N(99))}, None, [1, 3]),
        ({"s": cond("BEGINS_WITH", S("v2"))}, None, [2]),
    ],
)
def test_query_filter(client, numbers, query_filter, operator, expected):
    extra = {"ConditionalOperator": operator} if operator else {}
    result = query(client, numbers, KeyConditions=HASH, QueryFilter=query_filter, **extra)
    assert sks(result["Items"]) == expected
    assert (result["Count"], result["ScannedCount"]) == (len(expected), 5)


@pytest.mark.parametrize("attribute", ["pk", "sk"])
def test_query_filter_on_key_attribute(client, numbers, attribute):
    assert_client_error(
        lambda: query(client, numbers, KeyConditions=HASH, QueryFilter={attribute: cond("NOT_NULL")}),
        "ValidationException",
        f"QueryFilter can only contain non-primary key attributes: Primary key attribute: {attribute}",
    )


def test_query_filter_with_key_condition_expression(client, numbers):
    assert_client_error(
        lambda: query(
            client,
            numbers,
            KeyConditionExpression="pk = :a",
            ExpressionAttributeValues={":a": S("a")},
            QueryFilter={"x": cond("GT", N(1))},
        ),
        "ValidationException",
        mixing_error("QueryFilter", "KeyConditionExpression"),
    )


def test_query_filter_with_projection_expression(client, numbers):
    assert_client_error(
        lambda: query(
            client, numbers, KeyConditions=HASH, QueryFilter={"x": cond("GT", N(1))}, ProjectionExpression="x"
        ),
        "ValidationException",
        mixing_error("QueryFilter", "ProjectionExpression"),
    )


def test_conditional_operator_without_filter(client, numbers):
    assert_client_error(
        lambda: query(client, numbers, KeyConditions=HASH, ConditionalOperator="OR"),
        "ValidationException",
        "ConditionalOperator cannot be used without Filter or Expected",
    )


def test_conditional_operator_with_key_condition_expression(client, numbers):
    assert_client_error(
        lambda: query(
            client,
            numbers,
            KeyConditionExpression="pk = :a",
            ExpressionAttributeValues={":a": S("a")},
            ConditionalOperator="OR",
        ),
        "ValidationException",
        mixing_error("ConditionalOperator", "KeyConditionExpression"),
    )


# -- ScanFilter --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "condition, expected",
    [
        (cond("EQ", N(20)), [2]),
        (cond("NE", N(20)), [1, 3, 4, 5]),
        (cond("LE", N(20)), [1, 2]),
        (cond("LT", N(20)), [1]),
        (cond("GE", N(40)), [4, 5]),
        (cond("GT", N(40)), [5]),
        (cond("BETWEEN", N(20), N(40)), [2, 3, 4]),
        (cond("IN", N(10), N(50)), [1, 5]),
        (cond("NOT_NULL"), [1, 2, 3, 4, 5]),
        (cond("NULL"), []),
        (cond("CONTAINS", N(1)), []),
        (cond("NOT_CONTAINS", N(1)), [1, 2, 3, 4, 5]),
        (cond("EQ", S("20")), []),
        (cond("NE", S("20")), [1, 2, 3, 4, 5]),
        (cond("EQ", {"NULL": True}), []),
    ],
    ids=[
        "EQ",
        "NE",
        "LE",
        "LT",
        "GE",
        "GT",
        "BETWEEN",
        "IN",
        "NOT_NULL",
        "NULL",
        "CONTAINS",
        "NOT_CONTAINS",
        "EQ-other-type",
        "NE-other-type",
        "EQ-null-value",
    ],
)
def test_scan_filter_on_numbers(client, numbers, condition, expected):
    assert scan_sks(client, numbers, ScanFilter={"x": condition}) == expected


SCAN_FILTERS = [
    ("s", cond("BEGINS_WITH", S("v2")), [2]),
    ("s", cond("CONTAINS", S("3")), [3]),
    ("s", cond("NOT_CONTAINS", S("3")), [1, 2, 4, 5]),
    ("s", cond("GT", S("v3")), [4, 5]),
    ("s", cond("IN", S("v1"), S("v4")), [1, 4]),
    ("ss", cond("CONTAINS", S("p")), [1, 2, 3, 4, 5]),
    ("ss", cond("NOT_CONTAINS", S("q2")), [1, 3, 4, 5]),
    ("ss", cond("EQ", {"SS": ["q2", "p"]}), [2]),
    ("ss", cond("NE", {"SS": ["q2", "p"]}), [1, 3, 4, 5]),
    ("odd", cond("NULL"), [2, 4]),
    ("odd", cond("NOT_NULL"), [1, 3, 5]),
    ("odd", cond("EQ", {"BOOL": True}), [1, 3, 5]),
    ("missing", cond("NE", N(1)), [1, 2, 3, 4, 5]),
    ("missing", cond("NOT_CONTAINS", S("a")), []),
    ("sk", cond("GT", N(2)), [3, 4, 5]),
    ("pk", cond("EQ", S("a")), [1, 2, 3, 4, 5]),
]


@pytest.mark.parametrize(
    "attribute, condition, expected",
    SCAN_FILTERS,
    ids=[f"{a}-{c['ComparisonOperator']}-{i}" for i, (a, c, _) in enumerate(SCAN_FILTERS)],
)
def test_scan_filter(client, numbers, attribute, condition, expected):
    assert scan_sks(client, numbers, ScanFilter={attribute: condition}) == expected


@pytest.mark.parametrize(
    "operator, expected",
    [(None, [4]), ("AND", [4]), ("OR", [1, 4, 5])],
)
def test_scan_filter_conditional_operator(client, numbers, operator, expected):
    scan_filter = {"x": cond("GT", N(30)), "odd": cond("NULL")}
    if operator == "OR":
        scan_filter = {"sk": cond("LT", N(2)), "x": cond("GT", N(40)), "s": cond("EQ", S("v4"))}
    extra = {"ConditionalOperator": operator} if operator else {}
    assert scan_sks(client, numbers, ScanFilter=scan_filter, **extra) == expected


def test_scan_filter_counts(client, numbers):
    result = client.scan(TableName=numbers, ScanFilter={"x": cond("GE", N(40))})
    assert (result["Count"], result["ScannedCount"]) == (2, 6)


def test_empty_scan_filter(client, numbers):
    assert scan_sks(client, numbers, ScanFilter={}) == [1, 2, 3, 4, 5]


@pytest.mark.parametrize(
    "operator, count",
    [
        ("EQ", 0),
        ("EQ", 2),
        ("NE", 2),
        ("LE", 0),
        ("LT", 2),
        ("GE", 2),
        ("GT", 0),
        ("BEGINS_WITH", 2),
        ("CONTAINS", 0),
        ("NOT_CONTAINS", 2),
        ("IN", 0),
        ("BETWEEN", 1),
        ("BETWEEN", 3),
        ("NULL", 1),
        ("NOT_NULL", 1),
    ],
)
def test_scan_filter_argument_counts(client, numbers, operator, count):
    values = [S(str(i)) for i in range(count)]
    assert_client_error(
        lambda: client.scan(TableName=numbers, ScanFilter={"x": cond(operator, *values)}),
        "ValidationException",
        arguments_error(operator),
    )


@pytest.mark.parametrize(
    "condition, message",
    [
        (
            cond("BEGINS_WITH", N(1)),
            INVALID + "ComparisonOperator BEGINS_WITH is not valid for N AttributeValue type",
        ),
        (
            cond("BEGINS_WITH", {"SS": ["a"]}),
            INVALID + "ComparisonOperator BEGINS_WITH is not valid for SS AttributeValue type",
        ),
        (
            cond("LT", {"SS": ["a"]}),
            INVALID + "ComparisonOperator LT is not valid for SS AttributeValue type",
        ),
        (
            cond("GT", {"BOOL": True}),
            INVALID + "ComparisonOperator GT is not valid for BOOL AttributeValue type",
        ),
        (
            cond("CONTAINS", {"SS": ["a"]}),
            INVALID + "ComparisonOperator CONTAINS is not valid for SS AttributeValue type",
        ),
        (
            cond("CONTAINS", {"NS": ["1"]}),
            INVALID + "ComparisonOperator CONTAINS is not valid for NS AttributeValue type",
        ),
        (
            cond("CONTAINS", {"L": [N(1)]}),
            INVALID + "ComparisonOperator CONTAINS is not valid for L AttributeValue type",
        ),
        (
            cond("NOT_CONTAINS", {"M": {}}),
            INVALID + "ComparisonOperator NOT_CONTAINS is not valid for M AttributeValue type",
        ),
        (
            cond("IN", {"SS": ["a"]}),
            INVALID + "ComparisonOperator IN is not valid for SS AttributeValue type",
        ),
        (cond("IN", {"L": []}), INVALID + "ComparisonOperator IN is not valid for L AttributeValue type"),
        (
            cond("IN", N(1), S("a")),
            INVALID + "AttributeValues inside AttributeValueList must be of same type",
        ),
        (
            cond("BETWEEN", N(1), S("a")),
            INVALID + "AttributeValues inside AttributeValueList must be of same type",
        ),
        (
            cond("BETWEEN", N(5), N(1)),
            "The BETWEEN condition was provided a range where the lower bound is greater than the upper bound",
        ),
    ],
    ids=[
        "begins-with-number",
        "begins-with-set",
        "lt-set",
        "gt-bool",
        "contains-string-set",
        "contains-number-set",
        "contains-list",
        "not-contains-map",
        "in-set",
        "in-list",
        "in-mixed-types",
        "between-mixed-types",
        "between-reversed",
    ],
)
def test_scan_filter_type_errors(client, numbers, condition, message):
    assert_client_error(
        lambda: client.scan(TableName=numbers, ScanFilter={"x": condition}), "ValidationException", message
    )


def test_conditional_operator_with_one_condition(client, numbers):
    assert_client_error(
        lambda: client.scan(TableName=numbers, ScanFilter={"x": cond("NOT_NULL")}, ConditionalOperator="OR"),
        "ValidationException",
        "ConditionalOperator can only be used when Filter or Expected has two or more elements",
    )


def test_scan_filter_with_filter_expression(client, numbers):
    assert_client_error(
        lambda: client.scan(
            TableName=numbers,
            ScanFilter={"x": cond("NOT_NULL")},
            FilterExpression="x > :v",
            ExpressionAttributeValues={":v": N(1)},
        ),
        "ValidationException",
        mixing_error("ScanFilter", "FilterExpression"),
    )


# -- AttributesToGet ---------------------------------------------------------------------------------------------


def test_attributes_to_get_on_query_and_scan(client, numbers):
    result = query(
        client, numbers, KeyConditions={**HASH, "sk": cond("EQ", N(1))}, AttributesToGet=["x", "nope", "sk"]
    )
    assert result["Items"] == [{"sk": N(1), "x": N(10)}]
    items = scan_all(client, TableName=numbers, AttributesToGet=["sk"])
    assert sorted(int(i["sk"]["N"]) for i in items) == [1, 1, 2, 3, 4, 5]


def test_attributes_to_get_with_select_specific_attributes(client, numbers):
    result = query(
        client,
        numbers,
        KeyConditions={**HASH, "sk": cond("EQ", N(1))},
        AttributesToGet=["x"],
        Select="SPECIFIC_ATTRIBUTES",
    )
    assert result["Items"] == [{"x": N(10)}]


@pytest.mark.parametrize(
    "select, message",
    [
        ("ALL_ATTRIBUTES", "Cannot specify the AttributesToGet when choosing to get ALL_ATTRIBUTES"),
        ("COUNT", "Cannot specify the AttributesToGet when choosing to get only the Count"),
    ],
)
def test_attributes_to_get_with_select(client, numbers, select, message):
    assert_client_error(
        lambda: client.scan(TableName=numbers, AttributesToGet=["x"], Select=select),
        "ValidationException",
        message,
    )


@pytest.mark.parametrize("operation", ["get_item", "query", "scan"])
def test_attributes_to_get_duplicates(client, numbers, operation):
    call = {
        "get_item": lambda: client.get_item(
            TableName=numbers, Key={"pk": S("a"), "sk": N(1)}, AttributesToGet=["x", "x"]
        ),
        "query": lambda: query(client, numbers, KeyConditions=HASH, AttributesToGet=["x", "x"]),
        "scan": lambda: client.scan(TableName=numbers, AttributesToGet=["x", "x"]),
    }[operation]
    assert_client_error(call, "ValidationException", "Cannot have two attributes with the same name")


@pytest.mark.parametrize(
    "operation, expressions",
    [
        ("get_item", "ProjectionExpression"),
        ("query", "ProjectionExpression, KeyConditionExpression"),
        ("scan", "ProjectionExpression"),
    ],
)
def test_attributes_to_get_with_projection_expression(client, numbers, operation, expressions):
    call = {
        "get_item": lambda: client.get_item(
            TableName=numbers, Key={"pk": S("a"), "sk": N(1)}, AttributesToGet=["x"], ProjectionExpression="x"
        ),
        "query": lambda: query(
            client,
            numbers,
            KeyConditionExpression="pk = :a",
            ExpressionAttributeValues={":a": S("a")},
            AttributesToGet=["x"],
            ProjectionExpression="x",
        ),
        "scan": lambda: client.scan(TableName=numbers, AttributesToGet=["x"], ProjectionExpression="x"),
    }[operation]
    assert_client_error(call, "ValidationException", mixing_error("AttributesToGet", expressions))


def test_attributes_to_get_with_expression_attribute_names(client, numbers):
    assert_client_error(
        lambda: client.get_item(
            TableName=numbers,
            Key={"pk": S("a"), "sk": N(1)},
            AttributesToGet=["x"],
            ExpressionAttributeNames={"#x": "x"},
        ),
        "ValidationException",
        "ExpressionAttributeNames can only be specified when using expressions",
    )


# -- Expected ----------------------------------------------------------------------------------------------------

K = {"pk": S("a")}
BASE = {**K, "x": N(5), "s": S("hello"), "ss": {"SS": ["a", "b"]}, "l": {"L": [N(1)]}}


@pytest.fixture
def item(client, hash_table):
    client.put_item(TableName=hash_table, Item=BASE)
    return hash_table


def put_expecting(client, table, **kwargs):
    return client.put_item(TableName=table, Item={**K, "y": N(1)}, **kwargs)


def stored(client, table, key=K):
    return client.get_item(TableName=table, Key=key, ConsistentRead=True).get("Item")


EXPECTATIONS = [
    ({"x": {"Value": N(5)}}, True),
    ({"x": {"Value": N(6)}}, False),
    ({"x": {"Value": S("5")}}, False),
    ({"x": {"Value": N(5), "Exists": True}}, True),
    ({"nothere": {"Exists": False}}, True),
    ({"x": {"Exists": False}}, False),
    ({"x": {"Value": N(5), "ComparisonOperator": "EQ"}}, True),
    ({"x": cond("GT", N(4))}, True),
    ({"x": cond("GT", N(5))}, False),
    ({"x": cond("NE", N(5))}, False),
    ({"nothere": cond("NE", N(5))}, True),
    ({"nothere": cond("NULL")}, True),
    ({"x": cond("NULL")}, False),
    ({"x": cond("NOT_NULL")}, True),
    ({"nothere": cond("NOT_NULL")}, False),
    ({"s": cond("BEGINS_WITH", S("he"))}, True),
    ({"s": cond("CONTAINS", S("ll"))}, True),
    ({"ss": cond("CONTAINS", S("b"))}, True),
    ({"ss": cond("NOT_CONTAINS", S("b"))}, False),
    ({"l": cond("CONTAINS", N(1))}, True),
    ({"x": cond("IN", N(1), N(5))}, True),
    ({"x": cond("IN", N(1), N(2))}, False),
    ({"x": cond("BETWEEN", N(1), N(5))}, True),
    ({"x": cond("BETWEEN", N(6), N(9))}, False),
    ({"x": {"Value": N(5)}, "s": {"Value": S("hello")}}, True),
    ({"x": {"Value": N(6)}, "s": {"Value": S("hello")}}, False),
]


def _expected_id(i, expected, passes):
    forms = "+".join(
        f"{name}:{c.get('ComparisonOperator') or ('Exists' if 'Exists' in c else 'Value')}"
        for name, c in expected.items()
    )
    return f"{i}-{forms}-{'passes' if passes else 'fails'}"


@pytest.mark.parametrize(
    "expected, passes",
    EXPECTATIONS,
    ids=[_expected_id(i, e, p) for i, (e, p) in enumerate(EXPECTATIONS)],
)
def test_expected(client, item, expected, passes):
    if passes:
        put_expecting(client, item, Expected=expected)
        assert stored(client, item) == {**K, "y": N(1)}
    else:
        assert_client_error(
            lambda: put_expecting(client, item, Expected=expected), "ConditionalCheckFailedException", CCF
        )
        assert stored(client, item) == BASE


@pytest.mark.parametrize(
    "expected, operator, passes",
    [
        ({"x": {"Value": N(6)}, "s": {"Value": S("hello")}}, "OR", True),
        ({"x": {"Value": N(6)}, "s": {"Value": S("bye")}}, "OR", False),
        ({"x": {"Value": N(5)}, "s": {"Value": S("hello")}}, "AND", True),
        ({"x": {"Value": N(6)}, "s": {"Value": S("hello")}}, "AND", False),
    ],
)
def test_expected_conditional_operator(client, item, expected, operator, passes):
    call = lambda: put_expecting(client, item, Expected=expected, ConditionalOperator=operator)  # noqa: E731
    if passes:
        call()
        assert stored(client, item) == {**K, "y": N(1)}
    else:
        assert_client_error(call, "ConditionalCheckFailedException", CCF)


def test_expected_on_missing_item(client, hash_table):
    assert_client_error(
        lambda: put_expecting(client, hash_table, Expected={"x": {"Value": N(5)}}),
        "ConditionalCheckFailedException",
        CCF,
    )
    put_expecting(client, hash_table, Expected={"pk": {"Exists": False}})
    assert stored(client, hash_table) == {**K, "y": N(1)}


def test_expected_returns_old_item_on_failure(client, item):
    error = assert_client_error(
        lambda: put_expecting(
            client, item, Expected={"x": {"Value": N(6)}}, ReturnValuesOnConditionCheckFailure="ALL_OLD"
        ),
        "ConditionalCheckFailedException",
        CCF,
    )
    assert error.response["Item"] == BASE


def test_expected_on_delete_and_update(client, item):
    assert_client_error(
        lambda: client.delete_item(TableName=item, Key=K, Expected={"x": {"Value": N(6)}}),
        "ConditionalCheckFailedException",
        CCF,
    )
    assert_client_error(
        lambda: client.update_item(
            TableName=item,
            Key=K,
            AttributeUpdates={"x": {"Value": N(9), "Action": "PUT"}},
            Expected={"x": cond("LT", N(5))},
        ),
        "ConditionalCheckFailedException",
        CCF,
    )
    assert stored(client, item) == BASE
    response = client.delete_item(
        TableName=item, Key=K, Expected={"x": {"Value": N(5)}}, ReturnValues="ALL_OLD"
    )
    assert response["Attributes"] == BASE
    assert stored(client, item) is None


@pytest.mark.parametrize(
    "expected, message",
    [
        ({"x": {"Exists": True}}, INVALID + "Value must be provided when Exists is true for Attribute: x"),
        ({"x": {}}, INVALID + "Value must be provided when Exists is null for Attribute: x"),
        (
            {"x": {"Value": N(5), "Exists": False}},
            INVALID + "Value cannot be used when Exists is false for Attribute: x",
        ),
        (
            {"x": {"Value": N(5), **cond("EQ", N(5))}},
            INVALID + "Value and AttributeValueList cannot be used together for Attribute: x",
        ),
        (
            {"x": {"Exists": True, **cond("GT", N(1))}},
            INVALID + "Exists and ComparisonOperator cannot be used together for Attribute: x",
        ),
        (
            {"x": {"Exists": False, **cond("NULL")}},
            INVALID + "Exists and ComparisonOperator cannot be used together for Attribute: x",
        ),
        (
            {"x": {"AttributeValueList": [N(1)]}},
            INVALID + "AttributeValueList can only be used with a ComparisonOperator for Attribute: x",
        ),
        (
            {"x": {"ComparisonOperator": "EQ"}},
            INVALID + "Value or AttributeValueList must be used with ComparisonOperator: EQ for Attribute: x",
        ),
        ({"x": cond("EQ", N(1), N(2))}, arguments_error("EQ")),
        ({"x": cond("NE", N(1), N(2))}, arguments_error("NE")),
        ({"x": cond("BETWEEN", N(1))}, arguments_error("BETWEEN")),
        ({"x": {"ComparisonOperator": "IN", "AttributeValueList": []}}, arguments_error("IN")),
        (
            {"x": cond("IN")},
            INVALID + "Value or AttributeValueList must be used with ComparisonOperator: IN for Attribute: x",
        ),
        ({"x": cond("NULL", N(1))}, arguments_error("NULL")),
        ({"x": cond("NOT_NULL", N(1))}, arguments_error("NOT_NULL")),
        (
            {"x": cond("BEGINS_WITH", N(1))},
            INVALID + "ComparisonOperator BEGINS_WITH is not valid for N AttributeValue type",
        ),
    ],
    ids=[
        "exists-true-without-value",
        "empty",
        "value-with-exists-false",
        "value-and-list",
        "exists-and-operator",
        "exists-false-and-operator",
        "list-without-operator",
        "operator-without-values",
        "eq-two-values",
        "ne-two-values",
        "between-one-value",
        "in-empty-list",
        "in-no-list",
        "null-with-value",
        "not-null-with-value",
        "begins-with-number",
    ],
)
def test_expected_errors(client, item, expected, message):
    assert_client_error(
        lambda: put_expecting(client, item, Expected=expected), "ValidationException", message
    )
    assert stored(client, item) == BASE


def test_expected_conditional_operator_with_one_condition(client, item):
    assert_client_error(
        lambda: put_expecting(client, item, Expected={"x": {"Value": N(5)}}, ConditionalOperator="OR"),
        "ValidationException",
        "ConditionalOperator can only be used when Filter or Expected has two or more elements",
    )


def test_conditional_operator_without_expected(client, item):
    assert_client_error(
        lambda: put_expecting(client, item, ConditionalOperator="OR"),
        "ValidationException",
        "ConditionalOperator cannot be used without Filter or Expected",
    )


def test_expected_with_condition_expression(client, item):
    assert_client_error(
        lambda: put_expecting(
            client, item, Expected={"x": {"Value": N(5)}}, ConditionExpression="attribute_exists(x)"
        ),
        "ValidationException",
        mixing_error("Expected", "ConditionExpression"),
    )


def test_expected_with_expression_attribute_values(client, item):
    assert_client_error(
        lambda: put_expecting(
            client, item, Expected={"x": {"Value": N(5)}}, ExpressionAttributeValues={":v": N(1)}
        ),
        "ValidationException",
        "ExpressionAttributeValues can only be specified when using expressions: ConditionExpression is null",
    )


def test_expected_with_expression_attribute_names(client, item):
    assert_client_error(
        lambda: put_expecting(
            client, item, Expected={"x": {"Value": N(5)}}, ExpressionAttributeNames={"#x": "x"}
        ),
        "ValidationException",
        "ExpressionAttributeNames can only be specified when using expressions",
    )


# -- AttributeUpdates --------------------------------------------------------------------------------------------


def update(client, table, updates, key=K, **kwargs):
    return client.update_item(
        TableName=table, Key=key, AttributeUpdates=updates, ReturnValues="ALL_NEW", **kwargs
    )


@pytest.mark.parametrize(
    "updates, changes, removed",
    [
        (
            {"x": {"Value": N(7), "Action": "PUT"}, "new": {"Value": S("n"), "Action": "PUT"}},
            {"x": N(7), "new": S("n")},
            [],
        ),
        (
            {"x": {"Value": N(2), "Action": "ADD"}, "cnt": {"Value": N(3), "Action": "ADD"}},
            {"x": N(7), "cnt": N(3)},
            [],
        ),
        ({"x": {"Value": N(-5.5), "Action": "ADD"}}, {"x": N(-0.5)}, []),
        (
            {
                "ss": {"Value": {"SS": ["c", "a"]}, "Action": "ADD"},
                "ns": {"Value": {"NS": ["9"]}, "Action": "ADD"},
            },
            {"ss": {"SS": ["a", "b", "c"]}, "ns": {"NS": ["9"]}},
            [],
        ),
        ({"l": {"Value": {"L": [N(2)]}, "Action": "ADD"}}, {"l": {"L": [N(1), N(2)]}}, []),
        ({"l2": {"Value": {"L": [N(2)]}, "Action": "ADD"}}, {"l2": {"L": [N(2)]}}, []),
        ({"x": {"Action": "DELETE"}, "nothere": {"Action": "DELETE"}}, {}, ["x"]),
        ({"ss": {"Value": {"SS": ["a", "zz"]}, "Action": "DELETE"}}, {"ss": {"SS": ["b"]}}, []),
        ({"ss": {"Value": {"SS": ["a", "b"]}, "Action": "DELETE"}}, {}, ["ss"]),
        ({"nothere": {"Value": {"SS": ["a"]}, "Action": "DELETE"}}, {}, []),
        ({}, {}, []),
    ],
    ids=[
        "put",
        "add-numbers",
        "add-negative-decimal",
        "add-to-sets",
        "add-to-list",
        "add-new-list",
        "delete-attributes",
        "delete-set-elements",
        "delete-all-set-elements",
        "delete-from-missing-set",
        "nothing",
    ],
)
def test_attribute_updates(client, item, updates, changes, removed):
    expected = {k: v for k, v in {**BASE, **changes}.items() if k not in removed}
    assert update(client, item, updates)["Attributes"] == expected
    assert stored(client, item) == expected


def test_attribute_updates_create_item(client, hash_table):
    key = {"pk": S("new")}
    response = update(
        client, hash_table, {"x": {"Value": N(1), "Action": "ADD"}, "y": {"Action": "DELETE"}}, key=key
    )
    assert response["Attributes"] == {**key, "x": N(1)}


def test_attribute_updates_delete_only_creates_key_only_item(client, hash_table):
    key = {"pk": S("new")}
    assert update(client, hash_table, {"y": {"Action": "DELETE"}}, key=key)["Attributes"] == key
    assert stored(client, hash_table, key) == key


@pytest.mark.parametrize(
    "return_values, attributes",
    [("UPDATED_OLD", {"x": N(5)}), ("UPDATED_NEW", {"x": N(9), "z": N(1)}), ("ALL_OLD", BASE)],
)
def test_attribute_updates_return_values(client, item, return_values, attributes):
    response = client.update_item(
        TableName=item,
        Key=K,
        AttributeUpdates={"x": {"Value": N(9), "Action": "PUT"}, "z": {"Value": N(1), "Action": "ADD"}},
        ReturnValues=return_values,
    )
    assert response["Attributes"] == attributes


def test_attribute_updates_with_expected(client, item):
    update(client, item, {"x": {"Value": N(1), "Action": "PUT"}}, Expected={"x": {"Value": N(5)}})
    assert stored(client, item)["x"] == N(1)
    assert_client_error(
        lambda: update(
            client, item, {"x": {"Value": N(2), "Action": "PUT"}}, Expected={"x": {"Value": N(5)}}
        ),
        "ConditionalCheckFailedException",
        CCF,
    )
    assert stored(client, item)["x"] == N(1)


@pytest.mark.parametrize(
    "updates, message",
    [
        (
            {"x": {"Action": "ADD"}},
            INVALID + "Only DELETE action is allowed when no attribute value is specified",
        ),
        (
            {"x": {"Action": "PUT"}},
            INVALID + "Only DELETE action is allowed when no attribute value is specified",
        ),
        ({"x": {}}, INVALID + "Only DELETE action is allowed when no attribute value is specified"),
        (
            {"s": {"Value": S("x"), "Action": "ADD"}},
            INVALID + "ADD action is not supported for the type STRING",
        ),
        ({"s": {"Value": N(1), "Action": "ADD"}}, "Type mismatch for attribute to update"),
        ({"x": {"Value": {"NS": ["1"]}, "Action": "ADD"}}, "Type mismatch for attribute to update"),
        ({"ss": {"Value": {"NS": ["1"]}, "Action": "DELETE"}}, "Type mismatch for attribute to update"),
        (
            {"x": {"Value": N(5), "Action": "DELETE"}},
            INVALID + "DELETE action with value is not supported for the type NUMBER",
        ),
        (
            {"pk": {"Value": S("b"), "Action": "PUT"}},
            INVALID + "Cannot update attribute pk. This attribute is part of the key",
        ),
        (
            {"pk": {"Action": "DELETE"}},
            INVALID + "Cannot update attribute pk. This attribute is part of the key",
        ),
        ({"x": {"Value": {"SS": []}, "Action": "PUT"}}, INVALID + "An string set  may not be empty"),
    ],
    ids=[
        "add-without-value",
        "put-without-value",
        "no-action-no-value",
        "add-string",
        "add-number-to-string",
        "add-set-to-number",
        "delete-other-set-type",
        "delete-number-value",
        "put-key",
        "delete-key",
        "put-empty-set",
    ],
)
def test_attribute_updates_errors(client, item, updates, message):
    assert_client_error(lambda: update(client, item, updates), "ValidationException", message)
    assert stored(client, item) == BASE


@pytest.mark.parametrize(
    "extra, expression",
    [
        ({"UpdateExpression": "SET y = :v", "ExpressionAttributeValues": {":v": N(1)}}, "UpdateExpression"),
        ({"ConditionExpression": "attribute_exists(x)"}, "ConditionExpression"),
    ],
)
def test_attribute_updates_with_expressions(client, item, extra, expression):
    assert_client_error(
        lambda: update(client, item, {"x": {"Value": N(1), "Action": "PUT"}}, **extra),
        "ValidationException",
        mixing_error("AttributeUpdates", expression),
    )
    assert stored(client, item) == BASE


# -- IN lists longer than the expression language's 100 operands ---------------------------------------------

LONG_IN = [N(v) for v in range(0, 500, 2)]  # 250 values: the 100-operand limit is the expression language's


def test_scan_filter_in_over_100_values(client, numbers):
    assert scan_sks(client, numbers, ScanFilter={"x": cond("IN", *LONG_IN)}) == [1, 2, 3, 4, 5]


def test_query_filter_in_over_100_values(client, numbers):
    result = query(client, numbers, KeyConditions=HASH, QueryFilter={"x": cond("IN", *LONG_IN[:-1], N(30))})
    assert sks(result["Items"]) == [1, 2, 3, 4, 5]
    none_stored = [N(v) for v in range(51, 300)]
    result = query(client, numbers, KeyConditions=HASH, QueryFilter={"x": cond("IN", *none_stored)})
    assert sks(result["Items"]) == []


def test_expected_in_over_100_values(client, numbers):
    key = {"pk": S("a"), "sk": N(3)}
    client.put_item(
        TableName=numbers, Item={**key, "x": N(31)}, Expected={"x": cond("IN", *LONG_IN[:150], N(30))}
    )
    assert_client_error(
        lambda: client.put_item(TableName=numbers, Item=key, Expected={"x": cond("IN", *LONG_IN)}),
        "ConditionalCheckFailedException",
        "The conditional request failed",
    )
