"""ConditionExpression through the API: comparators, BETWEEN, IN, logic, functions, paths, names/values, errors."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from ddb_helpers import assert_client_error

K = {"pk": {"S": "a"}}
ITEM = {
    **K,
    "s": {"S": "hello"},
    "n": {"N": "5"},
    "b": {"B": b"\x01\x02"},
    "t": {"BOOL": True},
    "z": {"NULL": True},
    "ss": {"SS": ["a", "b"]},
    "ns": {"NS": ["1", "2"]},
    "bs": {"BS": [b"a"]},
    "l": {"L": [{"S": "x"}, {"N": "1"}, {"M": {"q": {"S": "r"}}}]},
    "m": {"M": {"k": {"S": "v"}, "nested": {"M": {"deep": {"N": "7"}}}}},
    "e": {"S": ""},
}


@pytest.fixture
def table(client, hash_table):
    client.put_item(TableName=hash_table, Item=ITEM)
    return hash_table


def check(client, table, expression, values=None, names=None):
    """Whether the condition holds on ITEM (a conditional PutItem of the unchanged item)."""
    kwargs = {}
    if values is not None:
        kwargs["ExpressionAttributeValues"] = values
    if names is not None:
        kwargs["ExpressionAttributeNames"] = names
    try:
        client.put_item(TableName=table, Item=ITEM, ConditionExpression=expression, **kwargs)
        return True
    except ClientError as error:
        if error.response["Error"]["Code"] == "ConditionalCheckFailedException":
            return False
        raise


def invalid(client, table, expression, message, values=None, names=None):
    assert_client_error(
        lambda: check(client, table, expression, values, names),
        "ValidationException",
        message,
    )
    assert client.get_item(TableName=table, Key=K)["Item"] == ITEM


def V(**values):
    return {f":{k}": v for k, v in values.items()}


# -- comparators -------------------------------------------------------------------------------------------------


@pytest.mark.local_quirk
@pytest.mark.parametrize(
    "expression, value, expected",
    [
        ("n = :v", {"N": "5"}, True),
        ("n = :v", {"N": "5.0"}, True),
        ("n = :v", {"N": "6"}, False),
        ("n = :v", {"S": "5"}, False),
        ("n <> :v", {"N": "5"}, False),
        ("n <> :v", {"S": "5"}, True),
        ("n < :v", {"N": "6"}, True),
        ("n < :v", {"N": "5"}, False),
        ("n <= :v", {"N": "5"}, True),
        ("n > :v", {"N": "-5"}, True),
        ("n > :v", {"N": "5"}, False),
        ("n >= :v", {"N": "5"}, True),
        ("n >= :v", {"N": "5.0001"}, False),
        ("n < :v", {"S": "6"}, False),
        ("n > :v", {"S": "6"}, False),
        ("s = :v", {"S": "hello"}, True),
        ("s < :v", {"S": "help"}, True),
        ("s > :v", {"S": "Hello"}, True),
        ("s < :v", {"S": "é"}, True),
        ("s <= :v", {"S": "hello"}, True),
        ("s >= :v", {"S": "hello!"}, False),
        ("b = :v", {"B": b"\x01\x02"}, True),
        ("b < :v", {"B": b"\x01\x03"}, True),
        ("b > :v", {"B": b"\x01"}, True),
        ("b < :v", {"B": b"\x01\x02\x00"}, True),
        ("t = :v", {"BOOL": True}, True),
        ("t = :v", {"BOOL": False}, False),
        ("t <> :v", {"BOOL": False}, True),
        ("z = :v", {"NULL": True}, True),
        ("e = :v", {"S": ""}, True),
        ("ss = :v", {"SS": ["b", "a"]}, True),
        ("ss = :v", {"SS": ["a"]}, False),
        ("ns = :v", {"NS": ["2.0", "1"]}, True),
        ("bs = :v", {"BS": [b"a"]}, True),
        ("ss <> :v", {"SS": ["a"]}, True),
        ("l = :v", {"L": [{"S": "x"}, {"N": "1"}, {"M": {"q": {"S": "r"}}}]}, True),
        ("l = :v", {"L": [{"N": "1"}, {"S": "x"}, {"M": {"q": {"S": "r"}}}]}, False),
        ("m = :v", {"M": {"nested": {"M": {"deep": {"N": "7.0"}}}, "k": {"S": "v"}}}, True),
        ("m.k = :v", {"S": "v"}, True),
    ],
)
def test_comparison(client, table, expression, value, expected):
    assert check(client, table, expression, {":v": value}) is expected


@pytest.mark.parametrize(
    "expression, expected",
    [
        ("nope = :v", False),
        ("nope <> :v", True),
        ("nope < :v", False),
        ("nope >= :v", False),
        ("NOT nope = :v", True),
    ],
)
def test_comparison_with_missing_attribute(client, table, expression, expected):
    assert check(client, table, expression, V(v={"S": "v"})) is expected


@pytest.mark.parametrize(
    "attribute, value, type_name",
    [
        ("t", {"BOOL": True}, "BOOL"),
        ("z", {"NULL": True}, "NULL"),
        ("ss", {"SS": ["z"]}, "SS"),
        ("l", {"L": []}, "L"),
        ("m", {"M": {}}, "M"),
    ],
)
def test_ordering_of_unordered_type(client, table, attribute, value, type_name):
    invalid(
        client,
        table,
        f"{attribute} < :v",
        "Invalid ConditionExpression: Incorrect operand type for operator or function; "
        f"operator or function: <, operand type: {type_name}",
        V(v=value),
    )


def test_compare_two_values(client, table):
    assert check(client, table, ":a < :b", V(a={"N": "5"}, b={"N": "6"})) is True
    assert check(client, table, ":a = :a", V(a={"S": "x"})) is True


def test_value_on_left(client, table):
    assert check(client, table, ":v = n", V(v={"N": "5"})) is True
    assert check(client, table, ":v < n", V(v={"N": "4"})) is True


def test_compare_two_attributes(client, table):
    assert check(client, table, "n < m.nested.deep") is True
    assert check(client, table, "s <> n") is True


def test_operand_compared_with_itself(client, table):
    invalid(
        client,
        table,
        "n = n",
        "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this "
        "operator or function; operator: =, first operand: [n]",
    )


def test_operand_compared_with_itself_through_name(client, table):
    invalid(
        client,
        table,
        "s = #s",
        "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this "
        "operator or function; operator: =, first operand: [s]",
        names={"#s": "s"},
    )


# -- BETWEEN and IN ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "low, high, expected",
    [
        ({"N": "1"}, {"N": "5"}, True),
        ({"N": "5"}, {"N": "5"}, True),
        ({"N": "5"}, {"N": "9"}, True),
        ({"N": "6"}, {"N": "9"}, False),
        ({"S": "1"}, {"S": "9"}, False),
    ],
)
def test_between_numbers(client, table, low, high, expected):
    assert check(client, table, "n BETWEEN :lo AND :hi", V(lo=low, hi=high)) is expected


def test_between_strings(client, table):
    assert check(client, table, "s BETWEEN :lo AND :hi", V(lo={"S": "a"}, hi={"S": "z"})) is True
    assert check(client, table, "s BETWEEN :lo AND :hi", V(lo={"S": "hello!"}, hi={"S": "z"})) is False


def test_between_wrong_type_operand_is_false(client, table):
    assert check(client, table, "s BETWEEN :lo AND :hi", V(lo={"N": "1"}, hi={"N": "9"})) is False


def test_between_missing_attribute(client, table):
    assert check(client, table, "nope BETWEEN :lo AND :hi", V(lo={"N": "1"}, hi={"N": "9"})) is False


def test_between_reversed_bounds(client, table):
    invalid(
        client,
        table,
        "n BETWEEN :lo AND :hi",
        "Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to "
        "lower bound; lower bound operand: AttributeValue: {N:6}, upper bound operand: AttributeValue: {N:5}",
        V(lo={"N": "6"}, hi={"N": "5"}),
    )


def test_between_mixed_types(client, table):
    invalid(
        client,
        table,
        "n BETWEEN :lo AND :hi",
        "Invalid ConditionExpression: The BETWEEN operator requires same data type for lower and upper bounds; "
        "lower bound operand: AttributeValue: {N:1}, upper bound operand: AttributeValue: {S:5}",
        V(lo={"N": "1"}, hi={"S": "5"}),
    )


def test_between_with_attribute_bounds(client, table):
    assert check(client, table, ":v BETWEEN n AND m.nested.deep", V(v={"N": "6"})) is True


@pytest.mark.parametrize(
    "values, expected",
    [
        ([{"N": "1"}, {"N": "5"}], True),
        ([{"N": "1"}], False),
        ([{"S": "5"}, {"N": "6"}], False),
        ([{"N": "5.00"}], True),
    ],
)
def test_in(client, table, values, expected):
    names = [f":v{i}" for i in range(len(values))]
    expression = f"n IN ({', '.join(names)})"
    assert check(client, table, expression, dict(zip(names, values, strict=True))) is expected


def test_in_mixed_types(client, table):
    assert check(client, table, "s IN (:a, :b)", V(a={"N": "9"}, b={"S": "hello"})) is True


def test_not_in(client, table):
    assert check(client, table, "NOT s IN (:a)", V(a={"S": "x"})) is True


def test_in_missing_attribute(client, table):
    assert check(client, table, "nope IN (:a)", V(a={"S": "x"})) is False


def test_in_with_100_operands(client, table):
    values = {f":v{i}": {"N": str(i)} for i in range(100)}
    assert check(client, table, f"n IN ({', '.join(values)})", values) is True


def test_in_with_101_operands(client, table):
    values = {f":v{i}": {"N": str(i)} for i in range(101)}
    invalid(
        client,
        table,
        f"n IN ({', '.join(values)})",
        "Invalid ConditionExpression: The IN operator is provided with too many operands; number of operands: 101",
        values,
    )


def test_in_empty_list(client, table):
    invalid(
        client,
        table,
        "n IN ()",
        'Invalid ConditionExpression: Syntax error; token: ")", near: "()"',
        V(v={"N": "1"}),
    )


# -- logic and precedence ----------------------------------------------------------------------------------------

T = "n = :five"  # true
F = "s = :other"  # false
TF = {":five": {"N": "5"}, ":other": {"S": "other"}}


@pytest.mark.parametrize(
    "expression, expected",
    [
        (f"{T} AND {T}", True),
        (f"{T} AND {F}", False),
        (f"{F} OR {T}", True),
        (f"{F} OR {F}", False),
        (f"{T} OR {F} AND {F}", True),  # AND binds tighter than OR
        (f"({T} OR {F}) AND {F}", False),
        (f"{F} AND {F} OR {T}", True),
        (f"{F} AND ({F} OR {T})", False),
        (f"NOT {T} AND {F}", False),  # NOT binds tighter than AND
        (f"NOT ({F} OR {T})", False),
        (f"NOT {F} OR {F}", True),
        (f"NOT {F} AND {T}", True),
        (f"{F} OR NOT {F} AND {T}", True),
        (f"NOT NOT {T} AND {T}", True),
        (f"({T})", True),
        (f"({T} AND ({T}))", True),
        (f"{T} AND {T} AND NOT {F}", True),
    ],
)
def test_logic_precedence(client, table, expression, expected):
    values = {k: v for k, v in TF.items() if k in expression}
    assert check(client, table, expression, values) is expected


def test_keywords_case_insensitive(client, table):
    values = V(v={"N": "5"}, w={"S": "x"})
    assert check(client, table, "n = :v and not s = :w or n between :v and :v", values) is True
    assert check(client, table, "n in (:v)", V(v={"N": "5"})) is True


@pytest.mark.parametrize("function", ["ATTRIBUTE_EXISTS", "Attribute_Exists"])
def test_function_names_case_sensitive(client, table, function):
    invalid(
        client,
        table,
        f"{function}(n)",
        f"Invalid ConditionExpression: Invalid function name; function: {function}",
    )


@pytest.mark.parametrize("expression", ["((n = :v))", "NOT ((n = :v))", "(n = :v) AND ((n = :v))"])
def test_redundant_parentheses(client, table, expression):
    invalid(
        client,
        table,
        expression,
        "Invalid ConditionExpression: The expression has redundant parentheses;",
        V(v={"N": "5"}),
    )


def test_parenthesised_operands(client, table):
    assert check(client, table, "(n) = :v", V(v={"N": "5"})) is True
    assert check(client, table, "(size(s)) = :v", V(v={"N": "5"})) is True
    assert check(client, table, "NOT (n = :v)", V(v={"N": "5"})) is False


# -- functions ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path, expected",
    [
        ("s", True),
        ("e", True),
        ("z", True),
        ("nope", False),
        ("m.k", True),
        ("m.nested.deep", True),
        ("m.nope", False),
        ("l[0]", True),
        ("l[2].q", True),
        ("l[3]", False),
        ("s.x", False),
        ("l.x", False),
        ("m[0]", False),
    ],
)
def test_attribute_exists(client, table, path, expected):
    assert check(client, table, f"attribute_exists({path})") is expected
    assert check(client, table, f"attribute_not_exists({path})") is (not expected)


def test_attribute_not_exists_on_missing_item(client, hash_table):
    client.put_item(TableName=hash_table, Item=K, ConditionExpression="attribute_not_exists(pk)")
    assert client.get_item(TableName=hash_table, Key=K)["Item"] == K


@pytest.mark.parametrize(
    "attribute, type_name",
    [
        ("s", "S"),
        ("n", "N"),
        ("b", "B"),
        ("t", "BOOL"),
        ("z", "NULL"),
        ("ss", "SS"),
        ("ns", "NS"),
        ("bs", "BS"),
        ("l", "L"),
        ("m", "M"),
    ],
)
def test_attribute_type(client, table, attribute, type_name):
    for candidate in ("S", "N", "B", "BOOL", "NULL", "SS", "NS", "BS", "L", "M"):
        holds = check(client, table, f"attribute_type({attribute}, :t)", V(t={"S": candidate}))
        assert holds is (candidate == type_name), candidate


def test_attribute_type_of_missing_attribute(client, table):
    assert check(client, table, "attribute_type(nope, :t)", V(t={"S": "S"})) is False


def test_attribute_type_of_nested_paths(client, table):
    assert check(client, table, "attribute_type(l[2], :t)", V(t={"S": "M"})) is True
    assert check(client, table, "attribute_type(m.nested.deep, :t)", V(t={"S": "N"})) is True


@pytest.mark.local_quirk
def test_attribute_type_invalid_type_name(client, table):
    invalid(
        client,
        table,
        "attribute_type(s, :t)",
        "Invalid ConditionExpression: Invalid attribute type name found; type: FOO, valid types: "
        "{N,BS,L,B,NULL,M,S,SS,NS,BOOL}",
        V(t={"S": "FOO"}),
    )


def test_attribute_type_requires_string(client, table):
    invalid(
        client,
        table,
        "attribute_type(s, :t)",
        "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: "
        "attribute_type, operand type: N",
        V(t={"N": "1"}),
    )


@pytest.mark.parametrize(
    "path, prefix, expected",
    [
        ("s", {"S": "he"}, True),
        ("s", {"S": "hello"}, True),
        ("s", {"S": ""}, True),
        ("s", {"S": "lo"}, False),
        ("s", {"S": "Hello"}, False),
        ("b", {"B": b"\x01"}, True),
        ("b", {"B": b"\x02"}, False),
        ("nope", {"S": "x"}, False),
        ("m.k", {"S": "v"}, True),
        ("l[0]", {"S": "x"}, True),
    ],
)
def test_begins_with(client, table, path, prefix, expected):
    assert check(client, table, f"begins_with({path}, :p)", V(p=prefix)) is expected


def test_begins_with_on_wrong_attribute_type_is_false(client, table):
    assert check(client, table, "begins_with(b, :p)", V(p={"S": "a"})) is False
    assert check(client, table, "begins_with(ss, :p)", V(p={"S": "a"})) is False


def test_begins_with_number_operand(client, table):
    invalid(
        client,
        table,
        "begins_with(s, :p)",
        "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: "
        "begins_with, operand type: N",
        V(p={"N": "5"}),
    )


def test_begins_with_value_first(client, table):
    assert check(client, table, "begins_with(:p, s)", V(p={"S": "h"})) is False


@pytest.mark.parametrize(
    "path, operand, expected",
    [
        ("s", {"S": "ell"}, True),
        ("s", {"S": ""}, True),
        ("s", {"S": "xyz"}, False),
        ("s", {"N": "1"}, False),
        ("ss", {"S": "a"}, True),
        ("ss", {"S": "c"}, False),
        ("ss", {"N": "1"}, False),
        ("ss", {"SS": ["a"]}, False),
        ("ns", {"N": "2"}, True),
        ("ns", {"N": "2.0"}, True),
        ("ns", {"S": "2"}, False),
        ("bs", {"B": b"a"}, True),
        ("b", {"B": b"\x02"}, True),
        ("l", {"S": "x"}, True),
        ("l", {"N": "1.0"}, True),
        ("l", {"M": {"q": {"S": "r"}}}, True),
        ("l", {"S": "r"}, False),
        ("n", {"N": "5"}, False),
        ("m", {"S": "k"}, False),
        ("nope", {"S": "x"}, False),
    ],
)
def test_contains(client, table, path, operand, expected):
    assert check(client, table, f"contains({path}, :v)", V(v=operand)) is expected


@pytest.mark.parametrize(
    "path, size, expected",
    [
        ("s", 5, True),
        ("e", 0, True),
        ("b", 2, True),
        ("ss", 2, True),
        ("ns", 2, True),
        ("bs", 1, True),
        ("l", 3, True),
        ("m", 2, True),
        ("l[2]", 1, True),
        ("m.k", 1, True),
        ("n", 1, False),
        ("t", 1, False),
        ("z", 1, False),
        ("nope", 0, False),
    ],
)
def test_size(client, table, path, size, expected):
    assert check(client, table, f"size({path}) = :n", V(n={"N": str(size)})) is expected


def test_size_of_missing_attribute_is_never_true(client, table):
    assert check(client, table, "size(nope) < :n", V(n={"N": "1"})) is False
    assert check(client, table, "NOT size(nope) < :n", V(n={"N": "1"})) is True


def test_size_comparisons(client, table):
    assert check(client, table, "size(s) > size(b)") is True
    assert check(client, table, "size(s) = size(s)") is True
    assert check(client, table, "size(l) BETWEEN :a AND :b", V(a={"N": "1"}, b={"N": "3"})) is True
    assert check(client, table, "size(ss) IN (:a, :b)", V(a={"N": "7"}, b={"N": "2"})) is True


@pytest.mark.parametrize("text, size", [("é", 1), ("😀", 2), ("é😀", 3), ("abc", 3)])
def test_size_of_string_counts_utf16_code_units(client, hash_table, text, size):
    # DynamoDB Local: size() of a string is its length in UTF-16 code units (not UTF-8 bytes)
    item = {**K, "u": {"S": text}}
    client.put_item(TableName=hash_table, Item=item)
    client.put_item(
        TableName=hash_table,
        Item=item,
        ConditionExpression="size(u) = :n",
        ExpressionAttributeValues={":n": {"N": str(size)}},
    )


def test_size_alone_is_not_a_condition(client, table):
    invalid(
        client,
        table,
        "size(s)",
        "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: size",
    )


@pytest.mark.parametrize(
    "expression, function, count",
    [
        ("attribute_exists(s, s)", "attribute_exists", 2),
        ("begins_with(s)", "begins_with", 1),
        ("contains(s)", "contains", 1),
        ("attribute_type(s)", "attribute_type", 1),
        ("size(s, s) = :v", "size", 2),
    ],
)
def test_wrong_number_of_function_operands(client, table, expression, function, count):
    values = V(v={"N": "1"}) if ":v" in expression else None
    invalid(
        client,
        table,
        expression,
        "Invalid ConditionExpression: Incorrect number of operands for operator or function; "
        f"operator or function: {function}, number of operands: {count}",
        values,
    )


def test_unknown_function(client, table):
    invalid(client, table, "foo(n)", "Invalid ConditionExpression: Invalid function name; function: foo")


def test_function_without_operands(client, table):
    invalid(
        client,
        table,
        "attribute_exists()",
        'Invalid ConditionExpression: Syntax error; token: ")", near: "()"',
    )


# -- paths, names and values -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path, value, expected",
    [
        ("l[0]", {"S": "x"}, True),
        ("l[1]", {"N": "1"}, True),
        ("l[2].q", {"S": "r"}, True),
        ("l[1][0]", {"S": "x"}, False),
        ("l.x", {"S": "x"}, False),
        ("m[0]", {"S": "x"}, False),
        ("m.k.x", {"S": "x"}, False),
        ("m.nested.deep", {"N": "7"}, True),
        ("a.b.c.d", {"S": "x"}, False),
    ],
)
def test_document_paths(client, table, path, value, expected):
    assert check(client, table, f"{path} = :v", V(v=value)) is expected


def test_names_substitute_path_elements(client, table):
    assert (
        check(client, table, "#m.#n.#d = :v", V(v={"N": "7"}), {"#m": "m", "#n": "nested", "#d": "deep"})
        is True
    )


def test_name_with_dot_is_one_attribute(client, table):
    assert check(client, table, "#a = :v", V(v={"N": "7"}), {"#a": "m.nested.deep"}) is False


def test_attribute_named_with_dot(client, hash_table):
    item = {**K, "a.b": {"S": "dotted"}}
    client.put_item(TableName=hash_table, Item=item)
    client.put_item(
        TableName=hash_table,
        Item=item,
        ConditionExpression="#ab = :v",
        ExpressionAttributeNames={"#ab": "a.b"},
        ExpressionAttributeValues={":v": {"S": "dotted"}},
    )


def test_reserved_word_needs_name(client, table):
    invalid(
        client,
        table,
        "status = :v",
        "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: status",
        V(v={"S": "x"}),
    )


def test_reserved_word_case_preserved_in_message(client, table):
    invalid(
        client,
        table,
        "attribute_exists(Status)",
        "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: Status",
    )


@pytest.mark.parametrize(
    "word",
    [
        "comment",
        "data",
        "name",
        "value",
        "count",
        "key",
        "type",
        "date",
        "user",
        "ttl",
        "timestamp",
        "order",
        "items",
    ],
)
def test_common_reserved_words(client, table, word):
    invalid(
        client,
        table,
        f"attribute_exists({word})",
        f"Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: {word}",
    )


def test_size_and_id_are_not_reserved(client, table):
    assert check(client, table, "attribute_exists(size)") is False
    assert check(client, table, "attribute_exists(ID)") is False


def test_reserved_word_in_nested_path(client, table):
    invalid(
        client,
        table,
        "attribute_exists(m.comment)",
        "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: comment",
    )


def test_reserved_word_through_name(client, hash_table):
    item = {**K, "status": {"S": "ok"}}
    client.put_item(TableName=hash_table, Item=item)
    client.put_item(
        TableName=hash_table,
        Item=item,
        ConditionExpression="#s = :v",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues={":v": {"S": "ok"}},
    )


def test_undefined_value(client, table):
    invalid(
        client,
        table,
        "n = :undefined",
        "Invalid ConditionExpression: An expression attribute value used in expression is not defined; "
        "attribute value: :undefined",
        V(v={"N": "1"}),
    )


def test_undefined_value_without_values(client, table):
    invalid(
        client,
        table,
        "n = :v",
        "Invalid ConditionExpression: An expression attribute value used in expression is not defined; "
        "attribute value: :v",
    )


def test_undefined_name(client, table):
    invalid(
        client,
        table,
        "#n = :v",
        "Invalid ConditionExpression: An expression attribute name used in the document path is not defined; "
        "attribute name: #n",
        V(v={"N": "1"}),
    )


def test_unused_value(client, table):
    invalid(
        client,
        table,
        "n = :v",
        "Value provided in ExpressionAttributeValues unused in expressions: keys: {:unused}",
        V(v={"N": "5"}, unused={"N": "6"}),
    )


def test_unused_name(client, table):
    invalid(
        client,
        table,
        "n = :v",
        "Value provided in ExpressionAttributeNames unused in expressions: keys: {#unused}",
        V(v={"N": "5"}),
        {"#unused": "x"},
    )


def test_syntax_error_reported_before_unused_values(client, table):
    invalid(
        client,
        table,
        "n = :v AND",
        'Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "AND"',
        V(v={"N": "5"}, unused={"N": "6"}),
    )


def test_empty_expression_attribute_values(client, table):
    invalid(client, table, "attribute_exists(n)", "ExpressionAttributeValues must not be empty", {})


def test_empty_expression_attribute_names(client, table):
    invalid(client, table, "attribute_exists(n)", "ExpressionAttributeNames must not be empty", None, {})


@pytest.mark.parametrize("key", ["v", ":v-x"])
def test_invalid_value_placeholder(client, table, key):
    invalid(
        client,
        table,
        "attribute_exists(n)",
        f'ExpressionAttributeValues contains invalid key: Syntax error; key: "{key}"',
        {key: {"N": "1"}},
    )


@pytest.mark.parametrize("key", ["n", "#n-x"])
def test_invalid_name_placeholder(client, table, key):
    invalid(
        client,
        table,
        "attribute_exists(n)",
        f'ExpressionAttributeNames contains invalid key: Syntax error; key: "{key}"',
        None,
        {key: "n"},
    )


def test_empty_name_substitution(client, table):
    invalid(
        client,
        table,
        "attribute_exists(#n)",
        "ExpressionAttributeNames contains invalid value: Empty attribute name for key #n",
        None,
        {"#n": ""},
    )


def test_invalid_attribute_value_in_values(client, table):
    invalid(
        client,
        table,
        "n = :v",
        "ExpressionAttributeValues contains invalid value: Supplied AttributeValue is empty, must contain exactly "
        "one of the supported datatypes for key :v",
        {":v": {}},
    )


def test_invalid_number_in_values(client, table):
    invalid(
        client,
        table,
        "n = :v",
        "ExpressionAttributeValues contains invalid value: A value provided cannot be converted into a number for key :v",
        {":v": {"N": "x"}},
    )


def test_empty_set_in_values(client, table):
    invalid(
        client,
        table,
        "ss = :v",
        "ExpressionAttributeValues contains invalid value: One or more parameter values were invalid: An string set  "
        "may not be empty for key :v",
        {":v": {"SS": []}},
    )


def test_numeric_placeholders(client, table):
    assert check(client, table, "#1 = :1", {":1": {"N": "5"}}, {"#1": "n"}) is True


# -- syntax errors -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "expression, token, near",
    [
        ("n = :v AND", "<EOF>", "AND"),
        ("n = :v OR", "<EOF>", "OR"),
        ("n = = :v", "=", "= = :v"),
        ("n == :v", "=", "== :v"),
        ("(n = :v", "<EOF>", ":v"),
        ("n = :v)", ")", ":v)"),
        ("n = :v :v", ":v", ":v :v"),
        ("n BETWEEN :v", "<EOF>", ":v"),
        ("n", "<EOF>", "n"),
        ("n < :v <", "<", ":v <"),
        ("n != :v", "!", "n !="),
        ("n = 5", "5", "= 5"),
        ("n = 'a'", "'", "= 'a"),
        ("NOT n = :v = :v", "=", ":v = :v"),
    ],
)
def test_syntax_errors(client, table, expression, token, near):
    invalid(
        client,
        table,
        expression,
        f'Invalid ConditionExpression: Syntax error; token: "{token}", near: "{near}"',
        V(v={"N": "5"}),
    )


def test_empty_condition_expression(client, table):
    invalid(client, table, "", "Invalid ConditionExpression: The expression can not be empty;")


def test_condition_with_expected(client, table):
    assert_client_error(
        lambda: client.put_item(
            TableName=table,
            Item=ITEM,
            ConditionExpression="attribute_exists(n)",
            Expected={"n": {"Exists": True}},
        ),
        "ValidationException",
        "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: "
        "{Expected} Expression parameters: {ConditionExpression}",
    )


def test_condition_on_key_attributes(client, range_table):
    key = {"pk": {"S": "a"}, "sk": {"S": "b"}}
    client.put_item(TableName=range_table, Item=key)
    client.delete_item(
        TableName=range_table,
        Key=key,
        ConditionExpression="pk = :p AND begins_with(sk, :s)",
        ExpressionAttributeValues={":p": {"S": "a"}, ":s": {"S": "b"}},
    )
    assert "Item" not in client.get_item(TableName=range_table, Key=key)
