"""ProjectionExpression (GetItem, Query, Scan): nested paths, list indexes, the exact shape returned, errors."""

from __future__ import annotations

import pytest

from ddb_helpers import assert_client_error

K = {"pk": {"S": "a"}}
ITEM = {
    **K,
    "a": {"S": "x"},
    "n": {"N": "1"},
    "l": {"L": [{"S": "0"}, {"S": "1"}, {"S": "2"}]},
    "m": {
        "M": {
            "b": {"L": [{"N": "1"}, {"M": {"c": {"S": "d"}, "e": {"S": "f"}}}, {"N": "3"}]},
            "z": {"BOOL": True},
        }
    },
    "ll": {"L": [{"L": [{"S": "a"}, {"S": "b"}]}, {"L": [{"S": "c"}]}]},
}


@pytest.fixture
def table(client, hash_table):
    client.put_item(TableName=hash_table, Item=ITEM)
    return hash_table


def project(client, table, expression, names=None):
    kwargs = {"ExpressionAttributeNames": names} if names else {}
    return client.get_item(TableName=table, Key=K, ProjectionExpression=expression, **kwargs)["Item"]


def invalid(client, table, expression, message, names=None):
    assert_client_error(lambda: project(client, table, expression, names), "ValidationException", message)


@pytest.mark.parametrize(
    "expression, expected",
    [
        ("a", {"a": {"S": "x"}}),
        ("a, n", {"a": {"S": "x"}, "n": {"N": "1"}}),
        ("n,a", {"a": {"S": "x"}, "n": {"N": "1"}}),
        ("pk", K),
        ("l[1]", {"l": {"L": [{"S": "1"}]}}),
        ("l[2], l[0]", {"l": {"L": [{"S": "0"}, {"S": "2"}]}}),
        ("m.z", {"m": {"M": {"z": {"BOOL": True}}}}),
        ("m.b[1].c", {"m": {"M": {"b": {"L": [{"M": {"c": {"S": "d"}}}]}}}}),
        (
            "m.b[1].c, m.b[0], l[2], l[0]",
            {
                "l": {"L": [{"S": "0"}, {"S": "2"}]},
                "m": {"M": {"b": {"L": [{"N": "1"}, {"M": {"c": {"S": "d"}}}]}}},
            },
        ),
        ("m.b[1].c, m.z", {"m": {"M": {"b": {"L": [{"M": {"c": {"S": "d"}}}]}, "z": {"BOOL": True}}}}),
        ("ll[0][1]", {"ll": {"L": [{"L": [{"S": "b"}]}]}}),
        ("ll[1][0], ll[0][0]", {"ll": {"L": [{"L": [{"S": "a"}]}, {"L": [{"S": "c"}]}]}}),
        ("a, nope", {"a": {"S": "x"}}),
    ],
)
def test_projection_shape(client, table, expression, expected):
    assert project(client, table, expression) == expected


@pytest.mark.parametrize(
    "expression", ["nope", "m.b[5]", "l[9]", "a.b", "l[0][0]", "m[0]", "l.x", "nope.x[1]"]
)
def test_projection_of_nothing_gives_empty_item(client, table, expression):
    assert project(client, table, expression) == {}


def test_projection_with_names(client, table):
    assert project(client, table, "#a, #m.#z", {"#a": "a", "#m": "m", "#z": "z"}) == {
        "a": {"S": "x"},
        "m": {"M": {"z": {"BOOL": True}}},
    }


def test_projection_of_dotted_attribute_name(client, hash_table):
    client.put_item(
        TableName=hash_table, Item={**K, "a.b": {"S": "dotted"}, "a": {"M": {"b": {"S": "nested"}}}}
    )
    item = client.get_item(
        TableName=hash_table, Key=K, ProjectionExpression="#ab", ExpressionAttributeNames={"#ab": "a.b"}
    )["Item"]
    assert item == {"a.b": {"S": "dotted"}}
    assert client.get_item(TableName=hash_table, Key=K, ProjectionExpression="a.b")["Item"] == {
        "a": {"M": {"b": {"S": "nested"}}}
    }


@pytest.mark.parametrize(
    "expression, one, two",
    [
        ("m.z, m", "[m, z]", "[m]"),
        ("m.b[1], m.b[1].c", "[m, b, [1]]", "[m, b, [1], c]"),
        ("a, a", "[a]", "[a]"),
        ("l[1], l", "[l, [1]]", "[l]"),
    ],
)
def test_overlapping_paths(client, table, expression, one, two):
    invalid(
        client,
        table,
        expression,
        "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of "
        f"these paths; path one: {one}, path two: {two}",
    )


def test_overlap_through_names(client, table):
    invalid(
        client,
        table,
        "#a, a",
        "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of "
        "these paths; path one: [a], path two: [a]",
        {"#a": "a"},
    )


def test_undefined_name(client, table):
    invalid(
        client,
        table,
        "#x",
        "Invalid ProjectionExpression: An expression attribute name used in the document path is not defined; "
        "attribute name: #x",
    )


def test_unused_name(client, table):
    invalid(
        client,
        table,
        "a",
        "Value provided in ExpressionAttributeNames unused in expressions: keys: {#a}",
        {"#a": "a"},
    )


def test_empty_projection(client, table):
    invalid(client, table, "", "Invalid ProjectionExpression: The expression can not be empty;")


@pytest.mark.parametrize(
    "expression, token, near",
    [
        ("a,", "<EOF>", ","),
        ("size(a)", "(", "size(a"),
        ("l[-1]", "-", "[-1"),
        ("a b", "b", "a b"),
        (":v", ":v", ":v"),
    ],
)
def test_syntax_errors(client, table, expression, token, near):
    invalid(
        client,
        table,
        expression,
        f'Invalid ProjectionExpression: Syntax error; token: "{token}", near: "{near}"',
    )


def test_reserved_word(client, table):
    invalid(
        client,
        table,
        "status",
        "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: status",
    )


def test_projection_in_query(client, range_table):
    client.put_item(
        TableName=range_table, Item={**K, "sk": {"S": "1"}, "m": {"M": {"x": {"N": "1"}, "y": {"N": "2"}}}}
    )
    client.put_item(TableName=range_table, Item={**K, "sk": {"S": "2"}})
    result = client.query(
        TableName=range_table,
        KeyConditionExpression="pk = :p",
        ProjectionExpression="sk, m.y",
        ExpressionAttributeValues={":p": {"S": "a"}},
    )
    assert result["Items"] == [{"sk": {"S": "1"}, "m": {"M": {"y": {"N": "2"}}}}, {"sk": {"S": "2"}}]


def test_projection_in_scan_may_give_empty_items(client, hash_table):
    client.put_item(TableName=hash_table, Item={**K, "x": {"N": "1"}})
    result = client.scan(TableName=hash_table, ProjectionExpression="y")
    assert result["Items"] == [{}]
    assert result["Count"] == 1


def test_projection_does_not_limit_filter(client, hash_table):
    client.put_item(TableName=hash_table, Item={**K, "x": {"N": "1"}, "y": {"N": "2"}})
    result = client.scan(
        TableName=hash_table,
        ProjectionExpression="y",
        FilterExpression="x = :one",
        ExpressionAttributeValues={":one": {"N": "1"}},
    )
    assert result["Items"] == [{"y": {"N": "2"}}]


def test_projection_names_shared_with_filter(client, hash_table):
    client.put_item(TableName=hash_table, Item={**K, "status": {"S": "ok"}})
    result = client.scan(
        TableName=hash_table,
        ProjectionExpression="#s",
        FilterExpression="#s = :ok",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues={":ok": {"S": "ok"}},
    )
    assert result["Items"] == [{"status": {"S": "ok"}}]
