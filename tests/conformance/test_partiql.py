"""PartiQL: ExecuteStatement, BatchExecuteStatement and ExecuteTransaction.

Expected values and messages are DynamoDB Local's. Where Local reads a whole table (a Scan) the order of items is
its own, so those results are compared sorted.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from aws_differences import behaviour
from ddb_helpers import N, S, assert_client_error, gsi

MALFORMED = "Statement wasn't well formed, can't be processed: {}"
MISSING_KEY = "Where clause does not contain a mandatory equality on all key attributes"
KEY_TYPE = "Key attribute's data type should match its data type in table's schema: Key {}"
PARAMETERS = "Number of parameters in request and statement don't match."
NO_TABLE = "Cannot do operations on a non-existent table"
DUPLICATE = "Duplicate primary key exists in table"
FAILED = "The conditional request failed"


def item(pk: str, sk: int, **attrs: Any) -> dict:
    return {"pk": S(pk), "sk": N(sk), **attrs}


@pytest.fixture
def table(client: Any, make_table: Any) -> str:
    """``pk:S, sk:N`` with a GSI ``byG`` on ``g``; partitions a and b hold sk 0..2."""
    name = make_table(("pk:S", "sk:N"), gsis=[gsi("byG", "g:S")])
    for pk in "ab":
        for sk in range(3):
            client.put_item(
                TableName=name,
                Item=item(pk, sk, x=N(sk * 10), g=S(f"g{sk}"), m={"M": {"a": {"L": [S("z")]}}}),
            )
    return name


@pytest.fixture
def things(client: Any, hash_table: str) -> str:
    """``pk:S`` holding one item ``h1``."""
    client.put_item(
        TableName=hash_table,
        Item={"pk": S("h1"), "n": N(1), "ss": {"SS": ["a", "b"]}, "l": {"L": [N(1)]}},
    )
    return hash_table


def run(client: Any, statement: str, **kwargs: Any) -> dict:
    response = client.execute_statement(Statement=statement, **kwargs)
    response.pop("ResponseMetadata", None)
    return response


def select(client: Any, statement: str, **kwargs: Any) -> list[dict]:
    return run(client, statement, **kwargs)["Items"]


def keys(items: list[dict]) -> list[tuple[str, str]]:
    return [(i["pk"]["S"], i["sk"]["N"]) for i in items]


def fails(client: Any, statement: str, message: Any, code: str = "ValidationException", **kwargs: Any):
    return assert_client_error(lambda: client.execute_statement(Statement=statement, **kwargs), code, message)


def get(client: Any, table: str, **key: Any) -> dict | None:
    return client.get_item(TableName=table, Key=key, ConsistentRead=True).get("Item")


# -- SELECT --------------------------------------------------------------------------------------------------


def test_select_partition_in_sort_key_order(client, table):
    assert keys(select(client, f"SELECT * FROM \"{table}\" WHERE pk = 'a'")) == [
        ("a", "0"),
        ("a", "1"),
        ("a", "2"),
    ]


def test_select_star_returns_whole_items(client, table):
    items = select(client, f"SELECT * FROM \"{table}\" WHERE pk = 'a' AND sk = 1")
    assert items == [item("a", 1, x=N(10), g=S("g1"), m={"M": {"a": {"L": [S("z")]}}})]


def test_select_projection_and_sort_key_condition(client, table):
    items = select(client, f"select pk, x from \"{table}\" where pk='a' and sk > 0")
    assert items == [{"pk": S("a"), "x": N(10)}, {"pk": S("a"), "x": N(20)}]


@pytest.mark.parametrize(
    "condition, expected",
    [
        ("sk = 1", ["1"]),
        ("sk < 1", ["0"]),
        ("sk <= 1", ["0", "1"]),
        ("sk > 1", ["2"]),
        ("sk >= 1", ["1", "2"]),
        ("sk BETWEEN 1 AND 2", ["1", "2"]),
        ("1 = sk", ["1"]),  # (DynamoDB Local reads "1 < sk" as "sk < 1": not tested here)
        ("sk > 0 AND sk < 2", ["1"]),
        ("sk IN [0, 2]", ["0", "2"]),
        ("x = 20", ["2"]),
        ("(sk = 0 OR x = 20)", ["0", "2"]),
    ],
)
def test_select_partition_with_conditions(client, table, condition, expected):
    items = select(client, f"SELECT pk, sk FROM \"{table}\" WHERE pk = 'a' AND {condition}")
    assert [i["sk"]["N"] for i in items] == expected


def test_select_partition_key_may_come_last_or_first(client, table):
    statement = f"SELECT pk, sk FROM \"{table}\" WHERE sk = 2 AND 'b' = pk"
    assert keys(select(client, statement)) == [("b", "2")]


def test_select_whole_table(client, table):
    items = select(client, f'SELECT pk, sk FROM "{table}"')
    assert sorted(keys(items)) == [(p, str(s)) for p in "ab" for s in range(3)]


def test_select_scan_with_filter(client, table):
    items = select(client, f'SELECT pk, sk FROM "{table}" WHERE x = 10')
    assert sorted(keys(items)) == [("a", "1"), ("b", "1")]


def test_select_from_index(client, table):
    for statement in (
        f'SELECT * FROM "{table}"."byG" WHERE g = \'g1\'',
        f"SELECT * FROM \"{table}\".byG WHERE g = 'g1'",
    ):
        assert sorted(keys(select(client, statement))) == [("a", "1"), ("b", "1")]


def test_select_in_partition_keys_reads_partitions_in_key_order(client, table):
    items = select(client, f"SELECT pk, sk FROM \"{table}\" WHERE pk IN ['b', 'a'] AND sk > 0")
    assert keys(items) == [("a", "1"), ("a", "2"), ("b", "1"), ("b", "2")]


def test_select_in_with_parentheses(client, table):
    items = select(client, f"SELECT pk, sk FROM \"{table}\" WHERE pk IN ('a') AND sk = 0")
    assert keys(items) == [("a", "0")]


def test_select_order_by_sort_key_descending(client, table):
    statement = f"SELECT pk, sk FROM \"{table}\" WHERE pk = 'a' ORDER BY sk DESC"
    assert keys(select(client, statement)) == [("a", "2"), ("a", "1"), ("a", "0")]


def test_select_order_by_partition_key_descending(client, table):
    statement = f"SELECT pk, sk FROM \"{table}\" WHERE pk IN ['a', 'b'] ORDER BY pk DESC, sk DESC"
    assert keys(select(client, statement)) == [
        ("b", "2"),
        ("b", "1"),
        ("b", "0"),
        ("a", "2"),
        ("a", "1"),
        ("a", "0"),
    ]


def test_select_order_by_ascending(client, table):
    statement = f"SELECT pk, sk FROM \"{table}\" WHERE pk = 'a' ORDER BY sk ASC"
    assert keys(select(client, statement)) == [("a", "0"), ("a", "1"), ("a", "2")]


def test_select_parameters(client, table):
    statement = f'SELECT pk, sk FROM "{table}" WHERE pk = ? AND sk >= ?'
    assert keys(select(client, statement, Parameters=[S("b"), N(1)])) == [("b", "1"), ("b", "2")]


def test_select_extra_parameters_are_ignored(client, table):
    statement = f'SELECT pk, sk FROM "{table}" WHERE pk = ? AND sk = 0'
    assert keys(select(client, statement, Parameters=[S("b"), S("unused")])) == [("b", "0")]


def test_select_nested_paths_are_named_by_their_last_step(client, things):
    client.put_item(
        TableName=things,
        Item={
            "pk": S("p"),
            "l": {"L": [N(1), {"L": [S("deep")]}]},
            "m": {"M": {"a": N(1), "b": {"M": {"c": N(2)}}}},
        },
    )
    items = select(client, f"SELECT m.a, m.b.c, l[0] FROM \"{things}\" WHERE pk = 'p'")
    assert items == [{"a": N(1), "c": N(2), "l[0]": N(1)}]
    items = select(client, f'SELECT m[\'a\'], "m"."b" FROM "{things}" WHERE pk = \'p\'')
    assert items == [{"a": N(1), "b": {"M": {"c": N(2)}}}]


def test_select_list_element_of_nested_attribute(client, table):
    items = select(client, f"SELECT m.a[0] FROM \"{table}\" WHERE pk = 'a' AND sk = 1")
    assert items == [{"a[0]": S("z")}]


def test_select_absent_attribute_gives_empty_item(client, table):
    assert select(client, f"SELECT nope, m.zz FROM \"{table}\" WHERE pk = 'a' AND sk = 1") == [{}]


def test_select_nothing_found(client, table):
    assert run(client, f"SELECT * FROM \"{table}\" WHERE pk = 'zzz'") == {"Items": []}


def test_select_statement_may_end_with_semicolon_and_comments(client, table):
    statement = f"SELECT pk, sk FROM \"{table}\" -- a comment\n WHERE pk = 'a' /* another */ AND sk = 1;"
    assert keys(select(client, statement)) == [("a", "1")]


def test_select_parenthesised(client, table):
    assert keys(select(client, f"(SELECT pk, sk FROM \"{table}\" WHERE pk = 'a' AND sk = 1)")) == [("a", "1")]


def test_select_keywords_are_case_insensitive(client, table):
    statement = f"sElEcT pk, sk FrOm \"{table}\" wHeRe pk = 'a' AnD BEGINS_WITH(g, 'g1')"
    assert keys(select(client, statement)) == [("a", "1")]


# -- WHERE: operators and functions ---------------------------------------------------------------------------


@pytest.fixture
def shapes(client: Any, hash_table: str) -> str:
    """Items of many shapes for WHERE-clause tests."""
    rows = [
        {"pk": S("num"), "v": N(10), "tags": {"SS": ["red", "blue"]}},
        {"pk": S("str"), "v": S("hello"), "tags": {"SS": ["red"]}},
        {"pk": S("nul"), "v": {"NULL": True}},
        {"pk": S("map"), "v": {"M": {"a": {"L": [S("z"), N(2)]}}}},
        {"pk": S("lst"), "v": {"L": [N(1), S("x")]}},
        {"pk": S("bool"), "v": {"BOOL": True}},
        {"pk": S("none")},
    ]
    for row in rows:
        client.put_item(TableName=hash_table, Item=row)
    return hash_table


@pytest.mark.parametrize(
    "where, expected",
    [
        ("v = 10", ["num"]),
        ("v <> 10", ["bool", "lst", "map", "none", "nul", "str"]),
        ("v != 10", ["bool", "lst", "map", "none", "nul", "str"]),
        ("NOT v = 10", ["bool", "lst", "map", "none", "nul", "str"]),
        ("v > 5", ["num"]),
        ("v BETWEEN 5 AND 15", ["num"]),
        ("v NOT BETWEEN 5 AND 15", ["bool", "lst", "map", "none", "nul", "str"]),
        ("v IN [10, 'hello']", ["num", "str"]),
        ("v NOT IN [10, 'hello']", ["bool", "lst", "map", "none", "nul"]),
        ("v IN (10)", ["num"]),
        ("begins_with(v, 'he')", ["str"]),
        ("contains(v, 'ell')", ["str"]),
        ("contains(tags, 'red')", ["num", "str"]),
        ("contains(v.a, 'z')", ["map"]),
        ("attribute_type(v, 'N')", ["num"]),
        ("attribute_type(v, 'M')", ["map"]),
        ("size(tags) = 2", ["num"]),
        ("size(v) > 1", ["lst", "str"]),
        ("size(v.a) = 2", ["map"]),
        ("v IS MISSING", ["none"]),
        ("v IS NOT MISSING", ["bool", "lst", "map", "nul", "num", "str"]),
        ("v IS NULL", ["nul"]),
        ("v IS NOT NULL", ["bool", "lst", "map", "none", "num", "str"]),
        ("v = NULL", ["nul"]),
        ("v = TRUE", ["bool"]),
        ("v = false", []),
        ("v = [1, 'x']", ["lst"]),
        ("v = {'a': ['z', 2]}", ["map"]),
        ("v.a[0] = 'z'", ["map"]),
        ("v['a'][1] = 2", ["map"]),
        ("v[0] = 1", ["lst"]),
        ("v.a[5] IS MISSING", ["bool", "lst", "map", "none", "nul", "num", "str"]),
        ("tags = <<'blue', 'red'>>", ["num"]),
        ("v = 'hello' OR v = 10", ["num", "str"]),
        ("(v = 'hello' OR v = 10) AND size(tags) = 1", ["str"]),
        ("NOT (v IS MISSING OR v IS NULL) AND NOT NOT attribute_type(v, 'S')", ["str"]),
        ("attribute_exists(tags)", ["num", "str"]),
        ("attribute_not_exists(tags)", ["bool", "lst", "map", "none", "nul"]),
        ("v = 1e1", ["num"]),
        ("v = 10.0", ["num"]),
        ("v = +10", ["num"]),
        ("1 = 1", ["bool", "lst", "map", "none", "nul", "num", "str"]),
        ("pk = 'it''s'", []),
        ("pk > 'nul'", ["num", "str"]),
    ],
)
def test_where(client, shapes, where, expected):
    items = select(client, f'SELECT pk FROM "{shapes}" WHERE {where}')
    assert sorted(i["pk"]["S"] for i in items) == expected


def test_where_quoted_identifiers_and_strings(client, shapes):
    client.put_item(TableName=shapes, Item={"pk": S("q"), "odd name": S("it's")})
    items = select(client, f'SELECT "odd name" FROM "{shapes}" WHERE "odd name" = \'it\'\'s\'')
    assert items == [{"odd name": S("it's")}]


# -- Limit and NextToken --------------------------------------------------------------------------------------


def test_limit_pages_a_partition(client, table):
    statement = f"SELECT pk, sk FROM \"{table}\" WHERE pk = 'a'"
    first = run(client, statement, Limit=2)
    assert keys(first["Items"]) == [("a", "0"), ("a", "1")]
    second = run(client, statement, Limit=2, NextToken=first["NextToken"])
    assert keys(second["Items"]) == [("a", "2")]
    assert "NextToken" not in second


def test_limit_counts_items_read_not_items_returned(client, table):
    page = run(client, f"SELECT pk, sk FROM \"{table}\" WHERE pk = 'a' AND x > 0", Limit=1)
    assert page["Items"] == []
    assert "NextToken" in page


def test_limit_spans_partitions_of_in(client, table):
    statement = f"SELECT pk, sk FROM \"{table}\" WHERE pk IN ['b', 'a']"
    first = run(client, statement, Limit=4)
    assert keys(first["Items"]) == [("a", "0"), ("a", "1"), ("a", "2"), ("b", "0")]
    second = run(client, statement, Limit=4, NextToken=first["NextToken"])
    assert keys(second["Items"]) == [("b", "1"), ("b", "2")]
    assert "NextToken" not in second


def test_next_token_pages_through_a_scan(client, table):
    statement = f'SELECT pk, sk FROM "{table}"'
    found, token, pages = [], None, 0
    while True:
        page = run(client, statement, Limit=2, **({"NextToken": token} if token else {}))
        found += keys(page["Items"])
        pages += 1
        token = page.get("NextToken")
        if token is None:
            break
    assert sorted(found) == [(p, str(s)) for p in "ab" for s in range(3)]
    assert pages >= 3


def test_invalid_next_token(client, table):
    fails(client, f'SELECT * FROM "{table}"', "Invalid NextToken", NextToken="abc")


def test_consistent_read_on_table(client, table):
    assert len(select(client, f"SELECT * FROM \"{table}\" WHERE pk = 'a'", ConsistentRead=True)) == 3


def test_consistent_read_on_global_index(client, table):
    fails(
        client,
        f'SELECT * FROM "{table}"."byG" WHERE g = \'g1\'',
        "Consistent reads are not supported on global secondary indexes",
        ConsistentRead=True,
    )


# -- SELECT errors --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "statement",
    [
        "SELECT * FROM",
        "SELEC * FROM {t}",
        "SELECT * FROM {t} WHERE",
        "SELECT *, pk FROM {t}",
        "SELECT pk, * FROM {t}",
        "SELECT * FROM {t} WHERE pk = ",
        "SELECT * FROM {t} WHERE pk = 'a",
        "SELECT * FROM {t} WHERE pk == 'a'",
        "SELECT * FROM {t} WHERE (pk = 'a'",
        "SELECT * FROM {t} WHERE pk = 'a')",
        "SELECT * FROM {t} WHERE pk = :x",
        "SELECT * FROM {t} WHERE x = 0x10",
        "SELECT * FROM {t} WHERE x IS TRUE",
        "SELECT * FROM {t}; SELECT * FROM {t}",
        "SELECT * FROM {t} JOIN {t}",
        "SELECT value FROM {t}",
        "SELECT size FROM {t}",
        "SELECT date FROM {t}",
        "SELECT * FROM {t} WHERE pk = 'a' OFFSET 1",
        "SELECT * FROM {t} WHERE pk = 'a' ORDER BY sk DESC NULLS FIRST",
        "   ",
    ],
)
def test_malformed_statements(client, table, statement):
    statement = statement.format(t=f'"{table}"')
    fails(client, statement, MALFORMED.format(statement))


@pytest.mark.parametrize(
    "statement, message",
    [
        ("SELECT count(*) FROM {t}", "Unexpected path component at 1:8:5"),
        ("SELECT x + 1 FROM {t}", "Unexpected path component at 1:10:1"),
        ("SELECT size(m) FROM {t}", "Unexpected path component at 1:8:4"),
        ("SELECT missing FROM {t}", "Unexpected path component at 1:8:7"),
        ("SELECT pk AS k FROM {t}", "Aliasing is not supported"),
        ("SELECT * FROM {t} AS x", "Aliasing is not supported"),
        ("SELECT * FROM {t} x WHERE x.pk = 'a'", "Aliasing is not supported"),
        ("SELECT VALUE pk FROM {t}", "Select projection doesn't support value or pivot keywords"),
        ("SELECT DISTINCT pk FROM {t}", "Unsupported token in expression: DISTINCT"),
        ("SELECT pk, pk FROM {t}", "Duplicate identifiers in select clause: pk"),
        ("SELECT m.a, n.a FROM {t}", "Duplicate identifiers in select clause: a"),
        (
            "SELECT m.a[0], m.a FROM {t}",
            "Two document paths overlap with each other; must remove or rewrite one of these paths; "
            "path one: [m, a], path two: [m, a, [0]]",
        ),
        ("SELECT * FROM {t} WHERE pk = 'a' GROUP BY pk", "Unsupported clause: GROUP BY"),
        (
            "SELECT * FROM {t} ORDER BY sk",
            "Must have WHERE clause in the statement when using ORDER BY clause.",
        ),
        (
            "SELECT * FROM {t} WHERE x = 1 ORDER BY sk",
            "Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause.",
        ),
        (
            "SELECT * FROM {t} WHERE (pk = 'a' OR x = 1) ORDER BY sk",
            "Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause.",
        ),
        (
            "SELECT * FROM {t} WHERE pk = 'a' ORDER BY x",
            "Variable reference x in ORDER BY clause must be part of the primary key",
        ),
        (
            "SELECT * FROM {t} WHERE pk = 'a' ORDER BY m.a",
            "Argument to ORDER BY must be of type VariableReference. Type: PATH",
        ),
        ("SELECT * FROM {t}, {t}", "Only select from a single table or index is supported."),
        ("SELECT * FROM (SELECT * FROM {t})", "Unexpected from source"),
        ('SELECT * FROM {t}."byG"."x"', "A path may contain at most 2 components in the FROM clause"),
        ('SELECT * FROM {t}."nope"', "The table does not have the specified index: nope"),
        (
            "SELECT * FROM {t} WHERE TRUE",
            "WHERE clause must contain an expression that resolves to a boolean",
        ),
        ("SELECT * FROM {t} WHERE x", "WHERE clause must contain an expression that resolves to a boolean"),
        ("SELECT * FROM {t} WHERE g = 'g1' AND TRUE", "The arguments to AND/OR must be Expressions"),
        ("SELECT * FROM {t} WHERE NOT x", "The argument to NOT must be a Type or Expression"),
        ("SELECT * FROM {t} WHERE x = MISSING", "MISSING must be compared using IS operator"),
        ("SELECT * FROM {t} WHERE x + 1 = 11", "Unsupported operator in Condition Expression. Operator: +"),
        (
            "SELECT * FROM {t} WHERE x LIKE '1%'",
            "Unsupported operator in Condition Expression. Operator: like",
        ),
        ("SELECT * FROM {t} WHERE upper(g) = 'G1'", "Unrecognized function: upper"),
        ("SELECT * FROM {t} WHERE EXISTS(x)", "Unrecognized function: exists"),
        (
            "SELECT * FROM {t} WHERE x IN 10",
            "IN operator must have a left hand argument of type Variable Reference "
            "and right hand argument of type Seq with at least one member",
        ),
        (
            "SELECT * FROM {t} WHERE x IN []",
            "IN operator must have a left hand argument of type Variable Reference "
            "and right hand argument of type Seq with at least one member",
        ),
        (
            "SELECT * FROM {t} WHERE begins_with(x, 1)",
            "Incorrect operand type for operator or function; operator or function: begins_with, operand type: N",
        ),
        (
            "SELECT * FROM {t} WHERE m.a = m.a",
            "The first operand must be distinct from the remaining operands for this operator or function; "
            "operator: =, first operand: [m, a]",
        ),
        (
            "SELECT * FROM {t} WHERE x BETWEEN 20 AND 10",
            "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound "
            "operand: AttributeValue: {N:20}, upper bound operand: AttributeValue: {N:10}",
        ),
        (
            "SELECT * FROM {t} WHERE pk = 'a' AND sk BETWEEN 2 AND 1",
            "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound "
            "operand: AttributeValue: {N:2}, upper bound operand: AttributeValue: {N:1}",
        ),
        ("SELECT * FROM {t} WHERE pk = 1", KEY_TYPE.format("pk")),
        ("SELECT * FROM {t} WHERE pk = NULL", KEY_TYPE.format("pk")),
        ("SELECT * FROM {t} WHERE pk = 'a' AND sk = 'x'", KEY_TYPE.format("sk")),
        ("SELECT * FROM {t} WHERE pk = 'a' AND sk BETWEEN 'a' AND 'b'", KEY_TYPE.format("sk")),
        (
            "SELECT * FROM {t} WHERE pk = ''",
            "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain "
            "an empty string value. Key: pk",
        ),
        ("SELECT * FROM {t} WHERE pk = ?", PARAMETERS),
        (
            "SELECT * FROM {t} WHERE x = 1e500",
            "Number overflow. Attempting to store a number with magnitude larger than supported range",
        ),
        (
            "SELECT * FROM {t} WHERE x = 123456789012345678901234567890123456789",
            "DynamoDB only supports precision up to 38 digits",
        ),
        (
            "SELECT * FROM {t} WHERE x = -0.0",
            "Negative zero decimal is not supported under key root at 1:{at}:3",
        ),
    ],
)
def test_select_errors(client, table, statement, message):
    statement = statement.format(t=f'"{table}"')
    if "{at}" in message:
        message = message.format(at=statement.index("0.0") + 1)
    fails(client, statement, message)


@pytest.mark.parametrize(
    "where, message",
    [
        ("m.a[-1] IS MISSING", "List index is not within the allowable range; index: [-1] at 1:{at}:1"),
        ("m.* IS MISSING", "Unpivot path component like a.*.b are not supported at 1:{at}:1"),
        ("m[*] IS MISSING", "Wildcard path component like a[*].b are not supported at 1:{at}:1"),
        ("m = <<>>", "Empty bags are not supported at 1:{at}:2"),
        (
            "m = <<'z', 1>>",
            "Unsupported data type in Bag. DynamoDB only supports either numbers or strings in bags at 1:{at}:1",
        ),
        (
            "m = {a: 1}",
            "Tuple keys must be of type String. Actual type: VariableReference under root at 1:{at}:1",
        ),
    ],
)
def test_select_errors_with_positions(client, table, where, message):
    statement = f'SELECT * FROM "{table}" WHERE {where}'
    marker = {"[-1]": "1]", ".*": "*", "[*]": "*", "<<>>": "<<", "'z', 1": "1>>", "{a": "a:"}
    at = next(
        statement.index(k) + statement[statement.index(k) :].index(v)
        for k, v in marker.items()
        if k in statement
    )
    fails(client, statement, message.format(at=at + 1))


def test_select_limit_clause_is_unsupported(client, table):
    statement = f"SELECT * FROM \"{table}\" WHERE pk = 'a' LIMIT 1"
    fails(client, statement, f"Unsupported clause: LIMIT at 1:{len(statement)}:1")


def test_select_from_missing_table(client):
    fails(client, 'SELECT * FROM "dynabase_test-missing"', NO_TABLE, "ResourceNotFoundException")


def test_select_from_impossible_table_name(client):
    fails(
        client,
        "SELECT * FROM ab",
        "Table name should be within the length [3, 255] and only contain 'a-z', 'A-Z', '0-9', '-', '_', '.'.",
    )


def test_select_from_impossible_index_name(client, table):
    fails(
        client,
        f'SELECT * FROM "{table}".ix',
        "Table name should be within the length [3, 255] and only contain 'a-z', 'A-Z', '0-9', '-', '_', '.'.",
    )


def test_select_from_keys_only_index(client, make_table):
    name = make_table(("pk:S",), gsis=[gsi("keysOnly", "g:S", projection="KEYS_ONLY")])
    client.put_item(TableName=name, Item={"pk": S("a"), "g": S("x"), "v": N(1)})
    assert select(client, f"SELECT * FROM \"{name}\".keysOnly WHERE g = 'x'") == [{"pk": S("a"), "g": S("x")}]
    fails(
        client,
        f"SELECT pk, v FROM \"{name}\".keysOnly WHERE g = 'x'",
        "One or more parameter values were invalid: Global secondary index keysOnly does not project [v]",
    )


def test_table_names_are_case_sensitive(client, table):
    fails(client, f'SELECT * FROM "{table.upper()}"', NO_TABLE, "ResourceNotFoundException")


@pytest.mark.parametrize(
    "statement, message",
    [
        ("garbage", "Unsupported operation: VariableReference"),
        ("1", "Unsupported operation: Literal"),
        ("'a'", "Unsupported operation: Literal"),
        ("NULL", "Unsupported operation: Literal"),
        ("MISSING", "Unsupported operation: LiteralMissing"),
        ("a.b", "Unsupported operation: Path"),
        ("[1]", "Unsupported operation: Seq"),
        ("<<1>>", "Unsupported operation: Seq"),
        ("{'a': 1}", "Unsupported operation: Struct"),
        ("?", "Unsupported operation: Parameter"),
        ("x IS MISSING", "Unsupported operation: Typed"),
        ("CREATE TABLE foo", "Unsupported operation: CreateTable"),
        ("EXEC foo", "Unsupported operation: Exec"),
        ("x = 1", "EXISTS can only be used in ExecuteTransaction write requests."),
        ("NOT x", "EXISTS can only be used in ExecuteTransaction write requests."),
        (
            "EXISTS(SELECT * FROM t WHERE pk = 'a' AND x = 1)",
            "EXISTS can only be used in ExecuteTransaction write requests.",
        ),
    ],
)
def test_unsupported_operations(client, statement, message):
    fails(client, statement, message)


def test_request_enum_is_validated(client, table):
    fails(
        client,
        f'SELECT * FROM "{table}"',
        "1 validation error detected: Value 'bogus' at 'returnValuesOnConditionCheckFailure' failed to satisfy "
        "constraint: Member must satisfy enum value set: [ALL_OLD, NONE]",
        ReturnValuesOnConditionCheckFailure="bogus",
    )


# -- INSERT ---------------------------------------------------------------------------------------------------


def test_insert_all_types(client, hash_table):
    statement = (
        f"INSERT INTO \"{hash_table}\" VALUE {{'pk': 'n1', 'a': 1.50, 'b': 1e2, 'c': -5, 'd': 007, 'e': 0.0, "
        "'s': 'x', 't': TRUE, 'f': false, 'z': NULL, 'l': [1, 'x', [TRUE]], 'm': {'k': {'q': <<1, 2>>}}, "
        "'ss': <<'a', 'b'>>, 'empty': ''}"
    )
    assert run(client, statement) == {"Items": []}
    assert get(client, hash_table, pk=S("n1")) == {
        "pk": S("n1"),
        "a": N("1.5"),
        "b": N("100"),
        "c": N("-5"),
        "d": N("7"),
        "e": N("0"),
        "s": S("x"),
        "t": {"BOOL": True},
        "f": {"BOOL": False},
        "z": {"NULL": True},
        "l": {"L": [N(1), S("x"), {"L": [{"BOOL": True}]}]},
        "m": {"M": {"k": {"M": {"q": {"NS": ["1", "2"]}}}}},
        "ss": {"SS": ["a", "b"]},
        "empty": S(""),
    }


def test_insert_with_parameters(client, hash_table):
    statement = f"INSERT INTO \"{hash_table}\" VALUE {{'pk': ?, 'b': ?, 'set': ?}}"
    run(client, statement, Parameters=[S("p1"), {"B": b"\x00\x01"}, {"SS": ["x", "y"]}])
    assert get(client, hash_table, pk=S("p1")) == {
        "pk": S("p1"),
        "b": {"B": b"\x00\x01"},
        "set": {"SS": ["x", "y"]},
    }


def test_insert_into_range_table(client, table):
    run(client, f"INSERT INTO \"{table}\" VALUE {{'pk': 'c', 'sk': 5}}")
    assert get(client, table, pk=S("c"), sk=N(5)) == item("c", 5)


DUPLICATE_ITEM = behaviour("PartiQL INSERT of an existing primary key")


@pytest.mark.aws_only(reason=DUPLICATE_ITEM.local, ref=DUPLICATE_ITEM.ref)
def test_insert_existing_item(client, things):
    error = fails(
        client, f"INSERT INTO \"{things}\" VALUE {{'pk': 'h1'}}", DUPLICATE, "DuplicateItemException"
    )
    assert "Item" not in error.response
    assert get(client, things, pk=S("h1"))["n"] == N(1)


@pytest.mark.aws_only(reason=DUPLICATE_ITEM.local, ref=DUPLICATE_ITEM.ref)
def test_insert_existing_item_is_the_modelled_exception(client, things):
    with pytest.raises(client.exceptions.DuplicateItemException):
        client.execute_statement(Statement=f"INSERT INTO \"{things}\" VALUE {{'pk': 'h1'}}")


@pytest.mark.aws_only(reason=DUPLICATE_ITEM.local, ref=DUPLICATE_ITEM.ref)
def test_insert_existing_item_ignores_return_values_on_failure(client, things):
    error = fails(
        client,
        f"INSERT INTO \"{things}\" VALUE {{'pk': 'h1'}}",
        DUPLICATE,
        "DuplicateItemException",
        ReturnValuesOnConditionCheckFailure="ALL_OLD",
    )
    assert "Item" not in error.response


@pytest.mark.parametrize(
    "value, message",
    [
        ("{'a': 1}", "Key attribute should be present in the item: Key pk"),
        ("{'pk': 1}", KEY_TYPE.format("pk")),
        ("{'pk': ['x']}", KEY_TYPE.format("pk")),
        (
            "{'pk': ''}",
            "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an "
            "empty string value. Key: pk",
        ),
        ("{'pk': 'x', 'e': <<'a', 'a'>>}", "Input collection contains duplicates"),
        ("{'pk': 'x', 'e': <<1, 1.0>>}", "Input collection contains duplicates"),
        (
            "{'pk': 'x', 'a': <<1, 'a'>>}",
            "Unsupported data type in Bag. DynamoDB only supports either numbers or strings in bags",
        ),
    ],
)
def test_insert_invalid_items(client, hash_table, value, message):
    fails(client, f'INSERT INTO "{hash_table}" VALUE {value}', message)


def test_insert_missing_range_key(client, table):
    fails(
        client,
        f"INSERT INTO \"{table}\" VALUE {{'pk': 'c'}}",
        "Key attribute should be present in the item: Key sk",
    )


@pytest.mark.parametrize(
    "value, message, marker",
    [
        (
            "[{'pk': 'x'}]",
            "Unsupported format in item expression. Please use struct format {{...}} to express item "
            "values for insert statement. at 1:{at}:1",
            "[",
        ),
        (
            "<<{'pk': 'x'}>>",
            "Unsupported format in item expression. Please use struct format {{...}} to express item "
            "values for insert statement. at 1:{at}:2",
            "<<",
        ),
        ("{'pk': 'x', 'pk': 'y'}", "Duplicate keys in tuple. Key: pk under root at 1:{at}:4", "'pk': 'y'"),
        ("{'pk': 'x', 'm': MISSING}", "Unsupported data type: MISSING under key root at 1:{at}:7", "MISSING"),
        ("{'pk': 'x', 'v': x}", "Unsupported data type: x under key root at 1:{at}:1", "x}"),
        ("{'pk': 'x', 'v': 1+1}", "Unsupported data type: + under key root at 1:{at}:1", "+"),
        (
            "{'pk': 'x', 'w': -0.0}",
            "Negative zero decimal is not supported under key root at 1:{at}:3",
            "0.0",
        ),
        (
            "{'pk': 'x', 'a': {'b': MISSING}}",
            "Unsupported data type: LiteralMissing under key root.b at 1:{at}:7",
            "MISSING",
        ),
        (
            "{'pk': 'x', 'a': {'b': {'c': y}}}",
            "Unsupported data type: VariableReference under key root.b.c at 1:{at}:1",
            "y}",
        ),
        (
            "{'pk': 'x', 'a': [MISSING]}",
            "Unsupported data type: LiteralMissing under key root.0 at 1:{at}:7",
            "MISSING",
        ),
        (
            "{'pk': 'x', 'a': {'b': 1, 'b': 2}}",
            "Duplicate keys in tuple. Key: b under root at 1:{at}:1",
            "{'b'",
        ),
        (
            "{'pk': 'x', 1: 2}",
            "Tuple keys must be of type String. Actual type: INT under root at 1:{at}:1",
            "1:",
        ),
        (
            "{'pk': 'x', 'a': <<'a', 1>>}",
            "Unsupported data type in Bag. DynamoDB only supports either numbers or "
            "strings in bags at 1:{at}:1",
            "1>>",
        ),
        ("{'pk': 'x', 'a': <<>>}", "Empty bags are not supported at 1:{at}:2", "<<"),
    ],
)
def test_insert_invalid_values(client, hash_table, value, message, marker):
    statement = f'INSERT INTO "{hash_table}" VALUE {value}'
    fails(client, statement, message.format(at=statement.index(marker) + 1))


@pytest.mark.parametrize(
    "statement, message",
    [
        ("INSERT INTO {t} VALUES {{'pk': 'x'}}", None),
        ("INSERT INTO {t} (pk) VALUES ('x')", None),
        ("INSERT INTO {t} VALUE {{'pk': 'x'}}, {{'pk': 'y'}}", None),
        ("INSERT INTO {t} VALUE {{'pk': 'x'}} WHERE a = 1", None),
        ("INSERT INTO {t} VALUE {{'pk': 'x'}} RETURNING ALL OLD *", "RETURNING is not supported in INSERT"),
        (
            "INSERT INTO {t}.\"idx\" VALUE {{'pk': 'x'}}",
            "FROM clause may only contain a single table name in data manipulation statements",
        ),
        ("INSERT INTO {t} VALUE {{'pk': ?}}", PARAMETERS),
    ],
)
def test_insert_statement_errors(client, hash_table, statement, message):
    statement = statement.format(t=f'"{hash_table}"')
    fails(client, statement, message or MALFORMED.format(statement))


def test_insert_into_missing_table(client):
    fails(
        client,
        "INSERT INTO \"dynabase_test-missing\" VALUE {'pk': 'x'}",
        NO_TABLE,
        "ResourceNotFoundException",
    )


# -- UPDATE ---------------------------------------------------------------------------------------------------


def test_update_set(client, things):
    assert run(client, f"UPDATE \"{things}\" SET n = 5, s = 'x' WHERE pk = 'h1'") == {"Items": []}
    assert get(client, things, pk=S("h1"))["n"] == N(5)


@pytest.mark.parametrize(
    "returning, expected",
    [
        ("ALL OLD", {"pk": S("h1"), "n": N(1), "ss": {"SS": ["a", "b"]}, "l": {"L": [N(1)]}}),
        ("ALL NEW", {"pk": S("h1"), "n": N(2), "ss": {"SS": ["a", "b"]}, "l": {"L": [N(1)]}, "q": S("x")}),
        ("MODIFIED OLD", {"n": N(1)}),
        ("MODIFIED NEW", {"n": N(2), "q": S("x")}),
    ],
)
def test_update_returning(client, things, returning, expected):
    items = select(
        client, f"UPDATE \"{things}\" SET n = n + 1 SET q = 'x' WHERE pk = 'h1' RETURNING {returning} *"
    )
    assert items == [expected]


def test_update_returning_modified_old_of_new_attributes_is_empty(client, things):
    assert select(client, f"UPDATE \"{things}\" SET q = 1 WHERE pk = 'h1' RETURNING MODIFIED OLD *") == []


@pytest.mark.parametrize(
    "action, expected",
    [
        ("SET n = n - 3", {"n": N(-2)}),
        ("SET n = 10 - n", {"n": N(9)}),
        ("SET n = 1 + 2", {"n": N(3)}),
        ("SET n = (1 + 2) + 3", {"n": N(6)}),
        ("SET y = n", {"y": N(1)}),
        ("SET l = list_append(l, [2, 3])", {"l": {"L": [N(1), N(2), N(3)]}}),
        ("SET l = list_append([0], l)", {"l": {"L": [N(0), N(1)]}}),
        ("SET ss = set_add(ss, <<'c'>>)", {"ss": {"SS": ["a", "b", "c"]}}),
        ("SET ss = set_delete(ss, <<'a'>>)", {"ss": {"SS": ["b"]}}),
        ("SET ns = set_add(ns, <<1, 2>>)", {"ns": {"NS": ["1", "2"]}}),
        ("SET y = if_not_exists(y, 7)", {"y": N(7)}),
        ("SET n = if_not_exists(n, 7)", {"n": N(1)}),
        ("SET l[0] = 9", {"l": {"L": [N(9)]}}),
        ("SET m = {'a': [1, <<'x'>>]}", {"m": {"M": {"a": {"L": [N(1), {"SS": ["x"]}]}}}}),
        ("SET z = NULL", {"z": {"NULL": True}}),
        ('SET "odd name" = 1', {"odd name": N(1)}),
        ("REMOVE n", None),
        ("REMOVE l[0]", None),
        ("SET n = 2 REMOVE l SET q = 'q'", {"n": N(2), "q": S("q")}),
        ("REMOVE n REMOVE l", None),
    ],
)
def test_update_actions(client, things, action, expected):
    items = select(client, f"UPDATE \"{things}\" {action} WHERE pk = 'h1' RETURNING MODIFIED NEW *")
    assert items == ([expected] if expected is not None else [])


def test_update_remove_effects(client, things):
    run(client, f"UPDATE \"{things}\" REMOVE n REMOVE ss WHERE pk = 'h1'")
    assert get(client, things, pk=S("h1")) == {"pk": S("h1"), "l": {"L": [N(1)]}}


def test_update_nested_map_path(client, things):
    run(client, f"UPDATE \"{things}\" SET m = {{'x': 1}} WHERE pk = 'h1'")
    items = select(
        client, f'UPDATE "{things}" SET m.x = 9, m."y z" = 1 WHERE pk = \'h1\' RETURNING MODIFIED NEW *'
    )
    assert items == [{"m": {"M": {"x": N(9), "y z": N(1)}}}]


def test_update_with_parameters(client, things):
    statement = f'UPDATE "{things}" SET n = n + ? WHERE pk = ? AND n = ? RETURNING MODIFIED NEW *'
    assert select(client, statement, Parameters=[N(4), S("h1"), N(1)]) == [{"n": N(5)}]


def test_update_range_table_with_condition(client, table):
    statement = f"UPDATE \"{table}\" SET q = 1 WHERE sk = 1 AND (pk = 'a' AND x = 10) RETURNING ALL NEW *"
    assert select(client, statement)[0]["q"] == N(1)


def test_update_missing_item_fails(client, things):
    fails(
        client, f"UPDATE \"{things}\" SET n = 1 WHERE pk = 'nope'", FAILED, "ConditionalCheckFailedException"
    )
    assert get(client, things, pk=S("nope")) is None


def test_update_condition_fails(client, things):
    error = fails(
        client,
        f"UPDATE \"{things}\" SET n = 5 WHERE pk = 'h1' AND n = 2",
        FAILED,
        "ConditionalCheckFailedException",
    )
    assert "Item" not in error.response
    assert get(client, things, pk=S("h1"))["n"] == N(1)


def test_update_condition_fails_returning_old_item(client, things):
    error = fails(
        client,
        f"UPDATE \"{things}\" SET n = 5 WHERE pk = 'h1' AND n = 2",
        FAILED,
        "ConditionalCheckFailedException",
        ReturnValuesOnConditionCheckFailure="ALL_OLD",
    )
    assert error.response["Item"] == get(client, things, pk=S("h1"))


def test_update_condition_holds(client, things):
    run(client, f"UPDATE \"{things}\" SET n = 5 WHERE pk = 'h1' AND n = 1 AND attribute_type(ss, 'SS')")
    assert get(client, things, pk=S("h1"))["n"] == N(5)


@pytest.mark.parametrize(
    "statement, message",
    [
        ("UPDATE {t} SET n = 1 WHERE n = 100", MISSING_KEY),
        ("UPDATE {t} SET n = 1", MISSING_KEY),
        ("UPDATE {t} SET n = 1 WHERE pk = 'h1' OR pk = 'h2'", MISSING_KEY),
        ("UPDATE {t} SET n = 1 WHERE pk IN ['h1']", MISSING_KEY),
        ("UPDATE {t} SET n = 1 WHERE pk > 'h1'", MISSING_KEY),
        ("UPDATE {t} SET n = 1 WHERE pk = 1", KEY_TYPE.format("pk")),
        (
            "UPDATE {t} SET pk = 'z' WHERE pk = 'h1'",
            "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key",
        ),
        (
            "UPDATE {t} SET n = n * 2 WHERE pk = 'h1'",
            "Unsupported operator in Update Expression. Operator: *",
        ),
        (
            "UPDATE {t} SET n = n || 'a' WHERE pk = 'h1'",
            "Unsupported operator in Update Expression. Operator: ||",
        ),
        (
            "UPDATE {t} SET n = -n WHERE pk = 'h1'",
            "Incorrect number of operands for operator or function; operator or function: -, number of operands: 1",
        ),
        (
            "UPDATE {t} SET n = size(l) WHERE pk = 'h1'",
            "The function is not allowed in an update expression; function: size",
        ),
        ("UPDATE {t} SET n = upper(l) WHERE pk = 'h1'", "Unrecognized function: upper"),
        (
            "UPDATE {t} SET n = nope + 1 WHERE pk = 'h1'",
            "The provided expression refers to an attribute that does not exist in the item",
        ),
        (
            "UPDATE {t} SET m.x = 1 WHERE pk = 'h1'",
            "The document path provided in the update expression is invalid for update",
        ),
        ("UPDATE {t} SET a = MISSING WHERE pk = 'h1'", "MISSING must be compared using IS operator"),
        (
            "UPDATE {t} SET a = 1, a = 2 WHERE pk = 'h1'",
            "Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], "
            "path two: [a]",
        ),
        (
            "UPDATE {t} SET x = set_add(ss, <<'c'>>) WHERE pk = 'h1'",
            "The first argument to SET_ADD must equal the assignment value",
        ),
        (
            "UPDATE {t} SET ss = set_delete(<<'c'>>, ss) WHERE pk = 'h1'",
            "The first argument to SET_DELETE must equal the assignment value",
        ),
        (
            "UPDATE {t} SET n = 1 WHERE pk = 'h1' AND n = 1 + 1",
            "Unsupported operator in Condition Expression. Operator: +",
        ),
        (
            "UPDATE {t} SET n = 1 WHERE pk = 'h1' AND begins_with(ss, 1)",
            "Incorrect operand type for operator or function; operator or function: begins_with, operand type: N",
        ),
        (
            "UPDATE {t} SET n = 1 WHERE pk = 'h1' RETURNING ALL OLD pk",
            "Expected '*' after ( MODIFIED | ALL ) ( NEW | OLD ) in RETURNING clause",
        ),
        ("UPDATE {t}.\"idx\" SET n = 1 WHERE pk = 'h1'", "This operation is not supported on an index"),
        ("UPDATE {t} SET n = ? WHERE pk = 'h1'", PARAMETERS),
        ("UPDATE {t} REMOVE a, b WHERE pk = 'h1'", None),
        ("UPDATE {t} WHERE pk = 'h1'", None),
        ("UPDATE {t} SET n = 1 WHERE pk = 'h1' RETURNING NONE", None),
        ("UPDATE {t} SET n = 1 WHERE pk = 'h1' RETURNING ALL *", None),
    ],
)
def test_update_errors(client, things, statement, message):
    statement = statement.format(t=f'"{things}"')
    fails(client, statement, message or MALFORMED.format(statement))


def test_update_set_add_needs_a_set(client, things):
    statement = f"UPDATE \"{things}\" SET ss = set_add(ss, 'd') WHERE pk = 'h1'"
    at = statement.index("ss, 'd'") + 1
    fails(client, statement, f"The second argument to SET_ADD must be a value with type SET at 1:{at}:2")


def test_update_missing_key_of_range_table(client, table):
    fails(client, f"UPDATE \"{table}\" SET n = 1 WHERE pk = 'a'", MISSING_KEY)
    fails(client, f"UPDATE \"{table}\" SET n = 1 WHERE pk = 'a' AND sk > 1", MISSING_KEY)


def test_update_repeated_key_equality(client, things):
    run(client, f"UPDATE \"{things}\" SET n = 2 WHERE pk = 'h1' AND pk = 'h1'")
    assert get(client, things, pk=S("h1"))["n"] == N(2)
    message = "Multiple conditions on same key pk. Only single item Update/Insert/Delete are supported"
    fails(client, f"UPDATE \"{things}\" SET n = 3 WHERE pk = 'h1' AND pk = 'h2'", message)
    fails(client, f"DELETE FROM \"{things}\" WHERE pk = 'h1' AND pk = 'h2'", message)
    assert select(client, f"SELECT pk FROM \"{things}\" WHERE pk = 'h1' AND pk = 'h2'") == []


# -- DELETE ---------------------------------------------------------------------------------------------------


def test_delete(client, things):
    assert run(client, f"DELETE FROM \"{things}\" WHERE pk = 'h1'") == {"Items": []}
    assert get(client, things, pk=S("h1")) is None


def test_delete_missing_item_is_not_an_error(client, things):
    assert run(client, f"DELETE FROM \"{things}\" WHERE pk = 'nope'") == {"Items": []}
    assert select(client, f"DELETE FROM \"{things}\" WHERE pk = 'nope' RETURNING ALL OLD *") == []


def test_delete_returning_old_item(client, things):
    old = get(client, things, pk=S("h1"))
    assert select(client, f"DELETE FROM \"{things}\" WHERE pk = 'h1' AND n = 1 RETURNING ALL OLD *") == [old]


def test_delete_condition_fails(client, things):
    error = fails(
        client,
        f"DELETE FROM \"{things}\" WHERE pk = 'h1' AND n = 2",
        FAILED,
        "ConditionalCheckFailedException",
        ReturnValuesOnConditionCheckFailure="ALL_OLD",
    )
    assert error.response["Item"]["n"] == N(1)
    assert get(client, things, pk=S("h1")) is not None


def test_delete_from_range_table(client, table):
    run(client, f"DELETE FROM \"{table}\" WHERE pk = 'a' AND sk = 1")
    assert keys(select(client, f"SELECT pk, sk FROM \"{table}\" WHERE pk = 'a'")) == [("a", "0"), ("a", "2")]


@pytest.mark.parametrize(
    "statement, message",
    [
        (
            "DELETE FROM {t} WHERE pk = 'h1' RETURNING ALL NEW *",
            "Invalid returning clause: RETURNING ALL NEW *. Only RETURNING ALL OLD * is allowed in DELETE statements.",
        ),
        (
            "DELETE FROM {t} WHERE pk = 'h1' RETURNING MODIFIED OLD *",
            "Invalid returning clause: RETURNING MODIFIED OLD *. Only RETURNING ALL OLD * is allowed in DELETE "
            "statements.",
        ),
        ("DELETE FROM {t} WHERE n = 1", MISSING_KEY),
        ("DELETE FROM {t}", MISSING_KEY),
        ("DELETE FROM {t}.\"idx\" WHERE pk = 'h1'", "This operation is not supported on an index"),
        ("DELETE FROM {t} WHERE pk = 1", KEY_TYPE.format("pk")),
        ("DELETE {t} WHERE pk = 'h1'", None),
    ],
)
def test_delete_errors(client, things, statement, message):
    statement = statement.format(t=f'"{things}"')
    fails(client, statement, message or MALFORMED.format(statement))


# -- BatchExecuteStatement -------------------------------------------------------------------------------------


def batch(client: Any, *statements: Any, **kwargs: Any) -> list[dict]:
    specs = [s if isinstance(s, dict) else {"Statement": s} for s in statements]
    return client.batch_execute_statement(Statements=specs, **kwargs)["Responses"]


def error(code: str, message: str, **extra: Any) -> dict:
    return {"Error": {"Code": code, "Message": message}, **extra}


def test_batch_reads(client, table, things):
    responses = batch(
        client,
        f"SELECT * FROM \"{things}\" WHERE pk = 'h1'",
        f"SELECT * FROM \"{things}\" WHERE pk = 'nope'",
        f"SELECT pk, x FROM \"{table}\" WHERE sk = 1 AND pk = 'a'",
        {
            "Statement": f'SELECT m.a[0] FROM "{table}" WHERE pk = ? AND sk = ?',
            "Parameters": [S("b"), N(2)],
            "ConsistentRead": True,
        },
    )
    assert responses == [
        {"TableName": things, "Item": get(client, things, pk=S("h1"))},
        {"TableName": things},
        {"TableName": table, "Item": {"pk": S("a"), "x": N(10)}},
        {"TableName": table, "Item": {"m": {"M": {"a": {"L": [S("z")]}}}}},
    ]


def test_batch_read_errors(client, table, things):
    responses = batch(
        client,
        f"SELECT * FROM \"{things}\" WHERE pk = 'h1' AND n = 1",
        f'SELECT * FROM "{things}"',
        f"SELECT * FROM \"{table}\" WHERE pk = 'a'",
        f'SELECT * FROM "{table}"."byG" WHERE g = \'g1\'',
        f"SELECT * FROM \"{things}\" WHERE pk = 'h1' OR pk = 'h2'",
        "SELECT * FROM \"dynabase_test-missing\" WHERE pk = 'h1'",
        f'SELECT * FROM "{things}" WHERE pk = ?',
        f'SELECT * FROM "{things}" WHERE pk = 1',
        "SELECT * FROM",
        "garbage",
        "x = 1",
        f"SELECT * FROM \"{things}\" WHERE pk = 'h1' AND pk = 'h1'",
    )
    single = error("ValidationError", "Only single item select is supported")
    assert responses == [
        single,
        single,
        single,
        single,
        single,
        error("ResourceNotFound", NO_TABLE),
        error("ValidationError", PARAMETERS),
        error("ValidationError", KEY_TYPE.format("pk")),
        error("ValidationError", MALFORMED.format("SELECT * FROM")),
        error(
            "ValidationError",
            "Invalid operation. Only select, insert, update and delete operations are valid",
        ),
        error("ValidationError", "EXISTS can only be used in ExecuteTransaction write requests."),
        {"TableName": things, "Item": get(client, things, pk=S("h1"))},
    ]


def test_batch_writes(client, table, things):
    client.put_item(TableName=things, Item={"pk": S("h2")})
    responses = batch(
        client,
        f"INSERT INTO \"{things}\" VALUE {{'pk': 'b1'}}",
        f"INSERT INTO \"{things}\" VALUE {{'pk': 'h1'}}",
        f"UPDATE \"{things}\" SET a = 1 WHERE pk = 'zz'",
        f"DELETE FROM \"{things}\" WHERE pk = 'zz2' AND a = 1",
        f"UPDATE \"{things}\" SET a = 1 WHERE pk = 'h2' RETURNING MODIFIED NEW *",
        f"DELETE FROM \"{table}\" WHERE pk = 'a' AND sk = 0 RETURNING ALL OLD *",
        "INSERT INTO \"dynabase_test-missing\" VALUE {'pk': 'b1'}",
        f"INSERT INTO \"{things}\" VALUE {{'pkx': 'b1'}}",
        f"INSERT INTO \"{things}\" VALUE {{'pk': 1}}",
        f'UPDATE "{things}" SET a = 1 WHERE a = 2',
        "garbage",
        f"INSERT INTO \"{things}\" VALUE {{'pk': ?}}",
    )
    assert responses == [
        {"TableName": things},
        error("DuplicateItem", DUPLICATE, TableName=things),
        error("ConditionalCheckFailed", FAILED, TableName=things),
        {"TableName": things},
        {"TableName": things, "Item": {"a": N(1)}},
        {"TableName": table, "Item": item("a", 0, x=N(0), g=S("g0"), m={"M": {"a": {"L": [S("z")]}}})},
        error("ResourceNotFound", NO_TABLE),
        error("ValidationError", "Key attribute should be present in the item: Key pk"),
        error("ValidationError", KEY_TYPE.format("pk")),
        error("ValidationError", MISSING_KEY),
        error(
            "ValidationError",
            "Invalid operation. Only select, insert, update and delete operations are valid",
        ),
        error("ValidationError", PARAMETERS),
    ]
    assert get(client, things, pk=S("b1")) == {"pk": S("b1")}
    assert get(client, things, pk=S("zz")) is None
    assert get(client, table, pk=S("a"), sk=N(0)) is None


def test_batch_write_failure_returns_old_item(client, things):
    client.put_item(TableName=things, Item={"pk": S("h2"), "n": N(1)})
    responses = batch(
        client,
        {
            "Statement": f"UPDATE \"{things}\" SET a = 1 WHERE pk = 'h1' AND n = 5",
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        },
        f"DELETE FROM \"{things}\" WHERE pk = 'h2' AND n = 5",
        f"DELETE FROM \"{things}\" WHERE pk = 'other' AND n = 5",  # no item: no condition to fail
    )
    old = get(client, things, pk=S("h1"))
    assert responses == [
        {"Error": {"Code": "ConditionalCheckFailed", "Message": FAILED, "Item": old}, "TableName": things},
        error("ConditionalCheckFailed", FAILED, TableName=things),
        {"TableName": things},
    ]


def test_batch_mixing_reads_and_writes(client, things):
    assert_client_error(
        lambda: batch(
            client,
            f"SELECT * FROM \"{things}\" WHERE pk = 'h1'",
            f"INSERT INTO \"{things}\" VALUE {{'pk': 'x'}}",
        ),
        "ValidationException",
        "Read and write requests together in the same batch is not supported.",
    )


@pytest.mark.parametrize(
    "statements",
    [
        ["INSERT INTO {t} VALUE {{'pk': 'b2'}}", "INSERT INTO {t} VALUE {{'pk': 'b2'}}"],
        ["UPDATE {t} SET a = 2 WHERE pk = 'h1'", "DELETE FROM {t} WHERE pk = 'h1'"],
        ["SELECT * FROM {t} WHERE pk = 'h1'", "SELECT pk FROM {t} WHERE pk = 'h1'"],
    ],
)
def test_batch_duplicate_keys(client, things, statements):
    assert_client_error(
        lambda: batch(client, *[s.format(t=f'"{things}"') for s in statements]),
        "ValidationException",
        "Provided list of item keys contains duplicates",
    )


def test_batch_size_limit(client, things):
    reads = [f"SELECT * FROM \"{things}\" WHERE pk = 'k{i}'" for i in range(26)]
    assert_client_error(
        lambda: batch(client, *reads), "ValidationException", "BatchGetItem cannot fetch more than 25 items"
    )
    writes = [f"INSERT INTO \"{things}\" VALUE {{'pk': 'k{i}'}}" for i in range(26)]
    assert_client_error(
        lambda: batch(client, *writes),
        "ValidationException",
        "BatchWriteItem cannot write more than 25 items",
    )
    assert len(batch(client, *writes[:25])) == 25


# -- ExecuteTransaction ----------------------------------------------------------------------------------------


def transact(client: Any, *statements: Any, **kwargs: Any) -> dict:
    specs = [s if isinstance(s, dict) else {"Statement": s} for s in statements]
    response = client.execute_transaction(TransactStatements=specs, **kwargs)
    response.pop("ResponseMetadata", None)
    return response


def cancelled(client: Any, *statements: Any, **kwargs: Any) -> list[dict]:
    error = assert_client_error(
        lambda: transact(client, *statements, **kwargs), "TransactionCanceledException"
    )
    reasons = error.response["CancellationReasons"]
    codes = ", ".join(r["Code"] for r in reasons)
    assert error.response["Error"]["Message"] == (
        f"Transaction cancelled, please refer cancellation reasons for specific reasons [{codes}]"
    )
    return reasons


def test_transaction_writes(client, table, things):
    response = transact(
        client,
        f"INSERT INTO \"{things}\" VALUE {{'pk': 't1'}}",
        f"UPDATE \"{things}\" SET a = 1 WHERE pk = 'h1'",
        f"DELETE FROM \"{things}\" WHERE pk = 'zz'",
        f"UPDATE \"{table}\" SET q = 1 WHERE pk = 'a' AND sk = 1 AND x = 10",
        {
            "Statement": f'UPDATE "{table}" SET q = ? WHERE pk = ? AND sk = ?',
            "Parameters": [N(2), S("b"), N(2)],
        },
    )
    assert response == {"Responses": []}
    assert get(client, things, pk=S("t1")) == {"pk": S("t1")}
    assert get(client, things, pk=S("h1"))["a"] == N(1)
    assert get(client, table, pk=S("a"), sk=N(1))["q"] == N(1)
    assert get(client, table, pk=S("b"), sk=N(2))["q"] == N(2)


def test_transaction_reads(client, table, things):
    response = transact(
        client,
        f"SELECT * FROM \"{things}\" WHERE pk = 'h1'",
        f"SELECT pk, m.a FROM \"{table}\" WHERE pk = 'a' AND sk = 1",
        f"SELECT * FROM \"{things}\" WHERE pk = 'nope'",
    )
    assert response == {
        "Responses": [
            {"Item": get(client, things, pk=S("h1"))},
            {"Item": {"pk": S("a"), "m": {"M": {"a": {"L": [S("z")]}}}}},
            {},
        ]
    }


def test_transaction_cancelled(client, things):
    reasons = cancelled(
        client,
        f"INSERT INTO \"{things}\" VALUE {{'pk': 'h1'}}",
        f"UPDATE \"{things}\" SET a = 2 WHERE pk = 'h2' AND a = 5",
        f"UPDATE \"{things}\" SET a = 1 WHERE pk = 'zz'",
        f"DELETE FROM \"{things}\" WHERE pk = 'zz2'",
    )
    assert reasons == [
        {"Code": "ValidationError", "Message": DUPLICATE},
        {"Code": "ConditionalCheckFailed", "Message": FAILED},
        {"Code": "ConditionalCheckFailed", "Message": FAILED},
        {"Code": "None"},
    ]


def test_transaction_cancelled_changes_nothing(client, things):
    cancelled(
        client,
        f"INSERT INTO \"{things}\" VALUE {{'pk': 't2'}}",
        f"UPDATE \"{things}\" SET n = 9 WHERE pk = 'h1' AND n = 5",
    )
    assert get(client, things, pk=S("t2")) is None
    assert get(client, things, pk=S("h1"))["n"] == N(1)


def test_transaction_cancelled_returning_old_item(client, things):
    reasons = cancelled(
        client,
        f"INSERT INTO \"{things}\" VALUE {{'pk': 't2'}}",
        {
            "Statement": f"UPDATE \"{things}\" SET a = 2 WHERE pk = 'h1' AND a = 5",
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        },
    )
    assert reasons == [
        {"Code": "None"},
        {"Code": "ConditionalCheckFailed", "Message": FAILED, "Item": get(client, things, pk=S("h1"))},
    ]


def test_transaction_exists(client, things):
    condition = f"EXISTS(SELECT * FROM \"{things}\" WHERE pk = 'h1' AND n = 1)"
    assert transact(client, condition, f"INSERT INTO \"{things}\" VALUE {{'pk': 't5'}}") == {"Responses": []}
    assert get(client, things, pk=S("t5")) is not None
    lowercase = f"exists (select * from \"{things}\" where pk = 'h1' and n <> 5)"
    assert transact(client, lowercase) == {"Responses": []}


@pytest.mark.parametrize("condition", ["pk = 'h1' AND n = 2", "pk = 'zz' AND n <> 5"])
def test_transaction_exists_fails(client, things, condition):
    reasons = cancelled(
        client,
        f'EXISTS(SELECT * FROM "{things}" WHERE {condition})',
        f"INSERT INTO \"{things}\" VALUE {{'pk': 't6'}}",
    )
    assert reasons == [{"Code": "ConditionalCheckFailed", "Message": FAILED + "."}, {"Code": "None"}]
    assert get(client, things, pk=S("t6")) is None


def test_transaction_key_errors_are_cancellation_reasons(client, things):
    reasons = cancelled(
        client,
        f"UPDATE \"{things}\" SET a = 1 WHERE pk = 'h1'",
        f"INSERT INTO \"{things}\" VALUE {{'pk': 1}}",
        f"INSERT INTO \"{things}\" VALUE {{'pkx': 'x'}}",
    )
    assert reasons == [  # the first invalid statement only
        {"Code": "None"},
        {"Code": "ValidationError", "Message": KEY_TYPE.format("pk")},
        {"Code": "None"},
    ]
    assert "a" not in get(client, things, pk=S("h1"))


def test_transaction_without_full_key(client, things):
    error = assert_client_error(
        lambda: transact(client, f'UPDATE "{things}" SET a = 1 WHERE a = 1'),
        "TransactionCanceledException",
        f"ValidationError {MISSING_KEY}",
    )
    assert "CancellationReasons" not in error.response


@pytest.mark.parametrize(
    "statements, message",
    [
        (
            ["SELECT * FROM {t} WHERE pk = 'h1'", "INSERT INTO {t} VALUE {{'pk': 'x'}}"],
            "ExecuteTransaction API does not support both read and write operations in the same request.",
        ),
        (
            ["SELECT * FROM {t} WHERE pk = 'h1' AND n = 1"],
            "Validation failed in TransactStatements[0]: Select statements within ExecuteTransaction must specify the "
            "primary key in the where clause.",
        ),
        (
            ["SELECT * FROM {t} WHERE pk = 'h1'", "SELECT * FROM {t}"],
            "Validation failed in TransactStatements[1]: Select statements within ExecuteTransaction must specify the "
            "primary key in the where clause.",
        ),
        (
            ["SELECT * FROM {t} WHERE pk = 'h1'", "SELECT * FROM {t} WHERE pk = ?"],
            f"Validation failed in TransactStatements[1]: {PARAMETERS}",
        ),
        (
            ["UPDATE {t} SET a = 5 WHERE pk = 'h1' RETURNING ALL NEW *"],
            "Validation failed in TransactStatements[0]: RETURNING clause is not supported in ExecuteTransaction.",
        ),
        (
            ["DELETE FROM {t} WHERE pk = 'h1' RETURNING ALL OLD *"],
            "Validation failed in TransactStatements[0]: RETURNING clause is not supported in ExecuteTransaction.",
        ),
        (
            ["EXISTS(SELECT * FROM {t} WHERE pk = 'h1')"],
            "Validation failed in TransactStatements[0]: EXISTS() must contain a single item read with additional "
            "condition",
        ),
        (
            ["INSERT INTO {t} VALUE {{'pk': 'q', 'pk': 'y'}}"],
            "Validation failed in TransactStatements[0]: Duplicate keys in tuple. Key: pk under root at 1:{at}:4",
        ),
        (
            ["UPDATE {t} SET n = n + 'a' WHERE pk = 'h1'"],
            "Validation failed in TransactStatements[0]: Incorrect operand type for operator or function; operator or "
            "function: +, operand type: S",
        ),
        (
            ["UPDATE {t}.\"idx\" SET a = 1 WHERE pk = 'x'"],
            "Validation failed in TransactStatements[0]: This operation is not supported on an index",
        ),
        (
            ["NOT EXISTS(SELECT * FROM {t} WHERE pk = 'h1' AND a <> 5)"],
            "Unsupported operation in transaction.",
        ),
        (["UPDATE {t} SET a = 1 WHERE pk = 't1'", "garbage"], "Unsupported operation: VariableReference"),
        (["UPDATE {t} SET a = 1 WHERE pk = 't1'", "SELECT * FROM"], MALFORMED.format("SELECT * FROM")),
        (
            ["INSERT INTO {t} VALUE {{'pk': 'x'}}", "INSERT INTO {t} VALUE {{'pk': 'x'}}"],
            "Transaction request cannot include multiple operations on one item",
        ),
        (
            ["EXISTS(SELECT * FROM {t} WHERE pk = 'h1' AND n = 1)", "UPDATE {t} SET a = 1 WHERE pk = 'h1'"],
            "Transaction request cannot include multiple operations on one item",
        ),
        (
            ["SELECT * FROM {t} WHERE pk = 'h1'", "SELECT pk FROM {t} WHERE pk = 'h1'"],
            "Transaction request cannot include multiple operations on one item",
        ),
    ],
)
def test_transaction_errors(client, things, statements, message):
    statements = [s.format(t=f'"{things}"') for s in statements]
    if "{at}" in message:
        message = message.format(at=statements[0].index("'pk': 'y'") + 1)
    assert_client_error(lambda: transact(client, *statements), "ValidationException", message)
    assert get(client, things, pk=S("x")) is None


def test_transaction_reads_on_index(client, table):
    assert_client_error(
        lambda: transact(client, f'SELECT * FROM "{table}"."byG" WHERE g = \'g1\''),
        "ValidationException",
        "Validation failed in TransactStatements[0]: Reads on indices are not supported within transactions.",
    )


@pytest.mark.parametrize(
    "statement",
    [
        "INSERT INTO \"dynabase_test-missing\" VALUE {'pk': 'x'}",
        "SELECT * FROM \"dynabase_test-missing\" WHERE pk = 'x'",
    ],
)
def test_transaction_missing_table(client, statement):
    assert_client_error(
        lambda: transact(client, statement), "ResourceNotFoundException", "Requested resource not found"
    )


def test_transaction_size_limit(client, things):
    statements = [f"INSERT INTO \"{things}\" VALUE {{'pk': 'k{i}'}}" for i in range(101)]
    assert_client_error(
        lambda: transact(client, *statements),
        "ValidationException",
        "Member must have length less than or equal to 100",
    )
    assert transact(client, *statements[:100]) == {"Responses": []}


def test_transaction_client_request_token(client, things):
    token = str(uuid.uuid4())  # 36 characters: the model's maximum
    statement = f"UPDATE \"{things}\" SET n = n + 1 WHERE pk = 'h1'"
    transact(client, statement, ClientRequestToken=token)
    transact(client, statement, ClientRequestToken=token)  # a retry: applied once
    assert get(client, things, pk=S("h1"))["n"] == N(2)
    assert_client_error(
        lambda: transact(client, f"UPDATE \"{things}\" SET n = 0 WHERE pk = 'h1'", ClientRequestToken=token),
        "IdempotentParameterMismatchException",
    )


# -- limits: statement length, literal nesting, number range and exact arithmetic ----------------------------

LENGTH = "Member must have length less than or equal to 8192"


def model_length(statement: str, path: str = "statement") -> str:
    """AWS's answer for a statement over 8192 characters: the service model's constraint, in the validator's
    words (DynamoDB Local says only ``LENGTH``: a listed difference, ``tests/aws_differences.py``). A statement
    within 8192 characters but over 8192 UTF-8 bytes gets ``LENGTH`` (the engine's byte check; AWS's wording for
    it is not established)."""
    return (
        f"1 validation error detected: Value '{statement}' at '{path}' failed to satisfy constraint: {LENGTH}"
    )


NESTING = "Nesting Levels have exceeded supported limits"
OVERFLOW = "Number overflow. Attempting to store a number with magnitude larger than supported range"


def test_statement_length_is_limited_to_8192_utf8_bytes(client, things):
    base = f"SELECT * FROM \"{things}\" WHERE pk = 'h1'"
    assert len(select(client, base + " " * (8192 - len(base)))) == 1
    too_long = base + " " * (8193 - len(base))
    fails(client, too_long, model_length(too_long))
    fails(client, too_long, model_length(too_long), Parameters=[{"N": "x"}])  # before the parameters
    quoted = f'SELECT * FROM "{things}" WHERE n = \''
    accented = (8192 - len(quoted) - 1) // 2  # two bytes each: as many as 8192 bytes hold, then one more
    assert select(client, quoted + "é" * accented + "'") == []
    fails(client, quoted + "é" * (accented + 1) + "'", LENGTH)
    nots = f"SELECT * FROM \"{things}\" WHERE pk = 'h1' AND " + "NOT " * 3000 + "n = 1"
    fails(client, nots, model_length(nots))
    statements = [{"Statement": base + " " * 8200}]
    assert_client_error(
        lambda: client.batch_execute_statement(Statements=statements),
        "ValidationException",
        model_length(statements[0]["Statement"], "statements.1.member.statement"),
    )
    assert_client_error(
        lambda: client.execute_transaction(TransactStatements=statements),
        "ValidationException",
        model_length(statements[0]["Statement"], "transactStatements.1.member.statement"),
    )


def test_nested_literals_beyond_32_levels(client, things):
    def nested(n):
        return "[" * n + "1" + "]" * n

    run(client, f"INSERT INTO \"{things}\" VALUE {{'pk': 'deep', 'v': {nested(31)}}}")
    assert get(client, things, pk=S("deep"))["v"] is not None
    fails(client, f"INSERT INTO \"{things}\" VALUE {{'pk': 'deeper', 'v': {nested(32)}}}", NESTING)
    fails(
        client,
        f"INSERT INTO \"{things}\" VALUE {{'pk': 'deeper', 'v': " + "{'a': " * 32 + "1" + "}" * 32 + "}",
        NESTING,
    )
    fails(client, f"UPDATE \"{things}\" SET v = {nested(33)} WHERE pk = 'h1'", NESTING)
    fails(client, f"SELECT * FROM \"{things}\" WHERE pk = 'h1' AND n = {nested(33)}", NESTING)
    statement = f"INSERT INTO \"{things}\" VALUE {{'pk': 'deeper', 'v': {nested(32)}}}"
    assert_client_error(
        lambda: client.execute_transaction(
            TransactStatements=[
                {"Statement": f"INSERT INTO \"{things}\" VALUE {{'pk': 'x', 'v': 1}}"},
                {"Statement": statement},
            ]
        ),
        "ValidationException",
        f"Validation failed in TransactStatements[1]: {NESTING}",
    )
    assert get(client, things, pk=S("deeper")) is None and get(client, things, pk=S("x")) is None


@pytest.mark.parametrize(
    "expression, result",
    [
        ("12345678901234567890123456789012345678 + 1", N("12345678901234567890123456789012345679")),
        ("1234567890123456789012345678 + 0.1", N("1234567890123456789012345678.1")),
        ("12345678901234567890123456789012345678 + 0.5", "DynamoDB only supports precision up to 38 digits"),
        ("9e125 + 9e125", OVERFLOW),
        ("-12345678901234567890123456789012345678", N("-12345678901234567890123456789012345678")),
        (
            "[-1.2345678901234567890123456789012345678E-100]",
            {"L": [N("-0." + "0" * 99 + "12345678901234567890123456789012345678")]},
        ),
    ],
)
def test_update_arithmetic_on_literals_is_exact(client, things, expression, result):
    statement = f"UPDATE \"{things}\" SET v = {expression} WHERE pk = 'h1' RETURNING MODIFIED NEW *"
    if isinstance(result, str):
        fails(client, statement, result)
        assert "v" not in get(client, things, pk=S("h1"))
    else:
        assert select(client, statement) == [{"v": result}]
