"""PartiQL in the embedded engine: lexer, parser, the statement -> request translation, and what only the
embedded engine can show (DynamoDB Local is the oracle for everything else: tests/conformance/test_partiql.py)."""

from __future__ import annotations

import base64
import json
import re
from typing import Any

import pytest

from ddb_helpers import on_small_stack
from dynabase.engine import Engine
from dynabase.engine.partiql import batch_execute_statement, execute_statement, execute_transaction
from dynabase.engine.partiql.lexer import Malformed, tokenize
from dynabase.engine.partiql.operations import decode_token, encode_token
from dynabase.engine.partiql.parser import Between, Binary, In, Is, Path, Unary, parse
from dynabase.engine.partiql.translate import GetPlan, ReadPlan, WritePlan, compile_statement
from dynabase.errors import DynamoDBError, ValidationException


@pytest.fixture
def engine() -> Any:
    engine = Engine(":memory:", ttl_sweep_seconds=None)
    engine.call(
        "CreateTable",
        {
            "TableName": "things",
            "KeySchema": [
                {"AttributeName": "pk", "KeyType": "HASH"},
                {"AttributeName": "sk", "KeyType": "RANGE"},
            ],
            "AttributeDefinitions": [
                {"AttributeName": "pk", "AttributeType": "S"},
                {"AttributeName": "sk", "AttributeType": "N"},
                {"AttributeName": "g", "AttributeType": "S"},
            ],
            "GlobalSecondaryIndexes": [
                {
                    "IndexName": "byG",
                    "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "ALL"},
                }
            ],
            "BillingMode": "PAY_PER_REQUEST",
        },
    )
    engine.call(
        "CreateTable",
        {
            "TableName": "blobs",
            "KeySchema": [{"AttributeName": "b", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "b", "AttributeType": "B"}],
            "BillingMode": "PAY_PER_REQUEST",
        },
    )
    for pk in "ab":
        for sk in range(3):
            engine.call(
                "PutItem",
                {
                    "TableName": "things",
                    "Item": {"pk": {"S": pk}, "sk": {"N": str(sk)}, "x": {"N": str(sk * 10)}},
                },
            )
    yield engine
    engine.close()


def plan(engine: Any, statement: str, parameters: list | None = None, context: str = "statement") -> Any:
    return compile_statement(statement, parameters, engine.catalog, context)


def keys(items: list[dict]) -> list[tuple[str, str]]:
    return [(i["pk"]["S"], i["sk"]["N"]) for i in items]


def select(engine: Any, statement: str, **request: Any) -> dict:
    return execute_statement(engine, {"Statement": statement, **request})


def placeholders_used(request: dict) -> None:
    """Every generated placeholder appears in some expression (DynamoDB rejects unused ones)."""
    text = " ".join(v for k, v in request.items() if k.endswith("Expression"))
    for name in list(request.get("ExpressionAttributeNames", {})) + list(
        request.get("ExpressionAttributeValues", {})
    ):
        assert re.search(re.escape(name) + r"(?![0-9])", text), (name, text)


# -- lexer ----------------------------------------------------------------------------------------------------


def test_tokens_and_positions():
    tokens = tokenize("SELECT a.\"b c\" FROM t\n  WHERE x != 'it''s' -- note\n AND y >= 1.5e3")
    assert [(t.kind, t.value) for t in tokens] == [
        ("kw", "select"), ("id", "a"), ("op", "."), ("qid", "b c"), ("kw", "from"), ("id", "t"),
        ("kw", "where"), ("id", "x"), ("op", "<>"), ("str", "it's"),
        ("kw", "and"), ("id", "y"), ("op", ">="), ("num", "1.5e3"), ("eof", ""),
    ]  # fmt: skip
    where = next(t for t in tokens if t.value == "where")
    assert where.where == "2:3:5"
    assert tokens[9].where == "2:14:7"  # the string as written, quotes and doubled quote included


@pytest.mark.parametrize("text", ["'open", '"open', "/* open", "a # b", "`ion`"])
def test_lexer_rejects(text):
    with pytest.raises(
        Malformed, match=re.escape(f"Statement wasn't well formed, can't be processed: {text}")
    ):
        tokenize(text)


def test_bags_and_numbers():
    assert [t.value for t in tokenize("<<1, .5, 5., 2E-3>>")][:-1] == [
        "<<",
        "1",
        ",",
        ".5",
        ",",
        "5.",
        ",",
        "2E-3",
        ">>",
    ]


# -- parser ---------------------------------------------------------------------------------------------------


def test_precedence():
    where = parse(
        "SELECT * FROM t WHERE NOT a = 1 AND b BETWEEN 1 AND 2 OR c IN [1] AND d IS NOT MISSING"
    ).statement.where
    assert isinstance(where, Binary) and where.op == "or"
    left, right = where.left, where.right
    assert isinstance(left, Binary) and left.op == "and"
    assert (
        isinstance(left.left, Unary) and isinstance(left.left.operand, Binary) and left.left.operand.op == "="
    )
    assert isinstance(left.right, Between)
    assert isinstance(right.left, In) and isinstance(right.right, Is) and right.right.negated


def test_arithmetic_binds_tighter_than_comparison():
    where = parse("SELECT * FROM t WHERE a + 1 * 2 < 3").statement.where
    assert where.op == "<" and where.left.op == "+" and where.left.right.op == "*"


def test_paths():
    path = parse("SELECT m.a[0]['b'].\"c d\"[x] FROM t").statement.items[0]
    assert isinstance(path, Path) and (path.name, path.steps) == ("m", ["a", 0, "b", "c d", "x"])


def test_syntax_errors_win_over_unsupported_features():
    with pytest.raises(Malformed):
        parse("SELECT DISTINCT pk FROM")
    with pytest.raises(ValidationException, match="^Unsupported token in expression: DISTINCT$"):
        parse("SELECT DISTINCT pk FROM t")


def test_parameters_are_counted():
    assert parse("SELECT * FROM t WHERE a = ? AND b IN [?, ?]").parameters == 3


# -- translation ----------------------------------------------------------------------------------------------


def test_query_plan(engine):
    read = plan(engine, "SELECT pk, m.a[1] FROM things WHERE pk = 'a' AND sk >= 1 AND x <> 5")
    assert isinstance(read, ReadPlan) and read.operation == "Query"
    (request,) = read.requests
    assert request == {
        "TableName": "things",
        "KeyConditionExpression": "#p0 = :p0 AND #p1 >= :p1",
        "FilterExpression": "#p2 <> :p2",
        "ProjectionExpression": "#p0, #p3",
        "ExpressionAttributeNames": {"#p0": "pk", "#p1": "sk", "#p2": "x", "#p3": "m"},
        "ExpressionAttributeValues": {":p0": {"S": "a"}, ":p1": {"N": "1"}, ":p2": {"N": "5"}},
    }
    assert read.shape == [("pk", "pk", []), ("a[1]", "m", ["a", 1])]


def test_scan_plan(engine):
    read = plan(engine, "SELECT * FROM things WHERE pk = 'a' OR x = 1")
    assert read.operation == "Scan"
    assert read.requests == [
        {
            "TableName": "things",
            "FilterExpression": "(#p0 = :p0) OR (#p1 = :p1)",
            "ExpressionAttributeNames": {"#p0": "pk", "#p1": "x"},
            "ExpressionAttributeValues": {":p0": {"S": "a"}, ":p1": {"N": "1"}},
        }
    ]


def test_in_plans_one_query_per_distinct_key_in_key_order(engine):
    read = plan(engine, "SELECT * FROM things WHERE pk IN ['b', 'a', 'b'] AND sk = 1")
    assert [r["ExpressionAttributeValues"][":p0"] for r in read.requests] == [{"S": "a"}, {"S": "b"}]
    descending = plan(engine, "SELECT * FROM things WHERE pk IN ['b', 'a'] ORDER BY pk DESC")
    assert [r["ExpressionAttributeValues"][":p0"] for r in descending.requests] == [{"S": "b"}, {"S": "a"}]


def test_order_by_sort_key(engine):
    (request,) = plan(engine, "SELECT * FROM things WHERE pk = 'a' ORDER BY sk DESC").requests
    assert request["ScanIndexForward"] is False


def test_one_sort_key_condition_at_most(engine):
    read = plan(engine, "SELECT x FROM things WHERE pk = 'a' AND sk > 0 AND sk < 2 AND x = 1")
    (request,) = read.requests
    assert request["KeyConditionExpression"] == "#p0 = :p0"
    assert request["FilterExpression"] == "#p1 = :p1"
    assert request["ProjectionExpression"] == "#p1, #p2"  # what the statement selects and the sort key
    # a Query may not filter on key attributes: the engine checks those conditions on the items it returns
    assert read.post == {
        "ConditionExpression": "(#p0 > :p0) AND (#p0 < :p1)",
        "ExpressionAttributeNames": {"#p0": "sk"},
        "ExpressionAttributeValues": {":p0": {"N": "0"}, ":p1": {"N": "2"}},
    }


def test_conditions_on_key_attributes_after_the_query(engine):
    items = select(engine, "SELECT x FROM things WHERE pk = 'a' AND (sk = 0 OR x = 20) AND pk <> 'b'")[
        "Items"
    ]
    assert items == [{"x": {"N": "0"}}, {"x": {"N": "20"}}]
    page = select(engine, "SELECT x FROM things WHERE pk = 'a' AND sk <> 0", Limit=1)
    assert page["Items"] == [] and "NextToken" in page  # Limit counts the items read, as a filter would


def test_literal_first_comparisons_are_flipped(engine):
    (request,) = plan(engine, "SELECT * FROM things WHERE 'a' = pk AND 1 < sk").requests
    assert request["KeyConditionExpression"] == "#p0 = :p0 AND #p1 > :p1"


def test_index_query(engine):
    (request,) = plan(engine, "SELECT * FROM things.byG WHERE g = 'x' AND pk = 'a'").requests
    assert request["IndexName"] == "byG"
    assert request["KeyConditionExpression"] == "#p0 = :p0"
    assert request["FilterExpression"] == "#p1 = :p1"


def test_parameters_become_values(engine):
    (request,) = plan(
        engine, "SELECT * FROM things WHERE pk = ? AND x IN [?, 3]", [{"S": "a"}, {"N": "2"}]
    ).requests
    assert request["ExpressionAttributeValues"] == {":p0": {"S": "a"}, ":p1": {"N": "2"}, ":p2": {"N": "3"}}


def test_insert_plan(engine):
    write = plan(engine, "INSERT INTO things VALUE {'pk': 'c', 'sk': 1, 'l': [1, {'s': <<'x'>>}]}")
    assert isinstance(write, WritePlan) and write.operation == "PutItem"
    assert write.request == {
        "TableName": "things",
        "Item": {"pk": {"S": "c"}, "sk": {"N": "1"}, "l": {"L": [{"N": "1"}, {"M": {"s": {"SS": ["x"]}}}]}},
        "ConditionExpression": "attribute_not_exists(#p0)",
        "ExpressionAttributeNames": {"#p0": "pk"},
    }


def test_update_plan(engine):
    write = plan(
        engine,
        "UPDATE things SET a = a + 1 REMOVE b SET s = set_add(s, <<1>>), t = set_delete(t, <<'x'>>) "
        "WHERE pk = 'a' AND sk = 1 AND a < 10 RETURNING MODIFIED OLD *",
    )
    assert write.operation == "UpdateItem"
    request = write.request
    assert request["Key"] == {"pk": {"S": "a"}, "sk": {"N": "1"}}
    assert request["UpdateExpression"] == "SET #p0 = #p0 + :p0 REMOVE #p1 ADD #p2 :p1 DELETE #p3 :p2"
    assert request["ConditionExpression"] == "attribute_exists(#p4) AND (#p0 < :p3)"
    assert request["ReturnValues"] == "UPDATED_OLD"
    placeholders_used(request)


def test_delete_plan(engine):
    write = plan(engine, "DELETE FROM things WHERE pk = 'a' AND sk = 1 AND x = 10 RETURNING ALL OLD *")
    assert write.request["ConditionExpression"] == "attribute_not_exists(#p0) OR (#p1 = :p0)"
    assert write.request["ReturnValues"] == "ALL_OLD"
    assert "ConditionExpression" not in plan(engine, "DELETE FROM things WHERE sk = 1 AND pk = 'a'").request


def test_exists_plan(engine):
    check = plan(
        engine, "EXISTS(SELECT * FROM things WHERE pk = 'a' AND sk = 1 AND x > 1)", context="transaction"
    )
    assert check.operation == "ConditionCheck"
    assert check.request["ConditionExpression"] == "attribute_exists(#p0) AND (#p1 > :p0)"


def test_batch_select_plan_keeps_nested_projection(engine):
    get = plan(engine, "SELECT m.a[0], pk FROM things WHERE sk = 1 AND pk = 'a'", context="batch")
    assert isinstance(get, GetPlan)
    assert get.request == {
        "TableName": "things",
        "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}},
        "ProjectionExpression": "#p0.#p1[0], #p2",
        "ExpressionAttributeNames": {"#p0": "m", "#p1": "a", "#p2": "pk"},
    }


@pytest.mark.parametrize(
    "statement",
    [
        "SELECT a, b.c FROM things WHERE pk = 'a' AND (x = 1 OR NOT contains(y, 'z')) AND size(l) > 2",
        "SELECT * FROM things WHERE x BETWEEN 1 AND 2 AND y NOT IN [1, 2] AND z IS NULL AND w IS NOT MISSING",
        "SELECT * FROM things WHERE pk IN ['a', 'b'] AND begins_with(s, 'x') AND attribute_type(t, 'N')",
        "SELECT * FROM things WHERE pk = 'a' AND begins_with(sk, 'x') = TRUE OR sk = 1",
    ],
)
def test_no_unused_placeholders(engine, statement):
    for request in plan(engine, statement).requests:
        placeholders_used(request)


# -- running statements -----------------------------------------------------------------------------------------


def test_literal_first_sort_key_condition_runs_as_written(engine):
    # DynamoDB Local reads "1 < sk" as "sk < 1"; the engine keeps the comparison's meaning
    assert keys(select(engine, "SELECT * FROM things WHERE pk = 'a' AND 1 < sk")["Items"]) == [("a", "2")]


def test_order_by_descending_pages_in_order(engine):
    statement = "SELECT pk, sk FROM things WHERE pk = 'a' ORDER BY sk DESC"
    first = select(engine, statement, Limit=2)
    assert keys(first["Items"]) == [("a", "2"), ("a", "1")]
    second = select(engine, statement, Limit=2, NextToken=first["NextToken"])
    assert keys(second["Items"]) == [("a", "0")]


def test_limit_ending_on_a_partition_boundary(engine):
    statement = "SELECT pk, sk FROM things WHERE pk IN ['a', 'b']"
    first = select(engine, statement, Limit=3)
    assert keys(first["Items"]) == [("a", "0"), ("a", "1"), ("a", "2")]
    second = select(engine, statement, Limit=3, NextToken=first["NextToken"])
    assert keys(second["Items"]) == [("b", "0"), ("b", "1"), ("b", "2")]
    third = select(engine, statement, Limit=3, NextToken=second["NextToken"])
    assert third == {"Items": []}


def test_next_token_round_trip_with_binary_keys(engine):
    for i in range(3):
        engine.call("PutItem", {"TableName": "blobs", "Item": {"b": {"B": bytes([i, 255])}}})
    found, token = [], None
    while True:
        page = select(engine, "SELECT * FROM blobs", Limit=1, **({"NextToken": token} if token else {}))
        found += [i["b"]["B"] for i in page["Items"]]
        token = page.get("NextToken")
        if token is None:
            break
    assert sorted(found) == [bytes([i, 255]) for i in range(3)]


def test_next_token_format():
    token = encode_token(1, {"pk": {"S": "a"}, "b": {"B": b"\x00"}})
    body = json.loads(base64.b64decode(token))
    assert body["opIndexToExclusiveNextKey"] == {"1": {"pk": {"S": "a"}, "b": {"B": "AA=="}}}
    assert decode_token(token, 2) == (1, {"pk": {"S": "a"}, "b": {"B": b"\x00"}})
    with pytest.raises(ValidationException, match="^Invalid NextToken$"):
        decode_token(token, 1)  # a token of another statement


@pytest.mark.parametrize("mode", ["TOTAL", "INDEXES"])
def test_consumed_capacity(engine, mode):
    read = select(engine, "SELECT * FROM things WHERE pk IN ['a', 'b']", ReturnConsumedCapacity=mode)
    assert read["ConsumedCapacity"]["TableName"] == "things"
    assert read["ConsumedCapacity"]["CapacityUnits"] == 1.0  # 0.5 per eventually consistent query
    write = select(engine, "UPDATE things SET y = 1 WHERE pk = 'a' AND sk = 0", ReturnConsumedCapacity=mode)
    assert write["ConsumedCapacity"]["CapacityUnits"] >= 1.0
    batch = batch_execute_statement(
        engine,
        {
            "Statements": [
                {"Statement": "SELECT * FROM things WHERE pk = 'a' AND sk = 0"},
                {"Statement": "SELECT * FROM things WHERE pk = 'b' AND sk = 0"},
            ],
            "ReturnConsumedCapacity": mode,
        },
    )
    assert [c["TableName"] for c in batch["ConsumedCapacity"]] == ["things"]
    transaction = execute_transaction(
        engine,
        {
            "TransactStatements": [{"Statement": "UPDATE things SET y = 2 WHERE pk = 'a' AND sk = 0"}],
            "ReturnConsumedCapacity": mode,
        },
    )
    assert transaction["ConsumedCapacity"][0]["TableName"] == "things"


def test_no_consumed_capacity_unless_asked(engine):
    assert "ConsumedCapacity" not in select(engine, "SELECT * FROM things WHERE pk = 'a'")


def test_duplicate_item_error_code(engine):
    with pytest.raises(DynamoDBError) as error:
        select(engine, "INSERT INTO things VALUE {'pk': 'a', 'sk': 0}")
    assert (error.value.code, error.value.message) == (
        "DuplicateItemException",
        "Duplicate primary key exists in table",
    )


def test_expression_errors_lose_their_prefix(engine):
    with pytest.raises(ValidationException) as error:
        select(engine, "SELECT * FROM things WHERE x BETWEEN 2 AND 1")
    assert not error.value.message.startswith("Invalid")


def test_transaction_expression_errors_name_the_statement(engine):
    with pytest.raises(ValidationException) as error:
        execute_transaction(
            engine,
            {
                "TransactStatements": [
                    {"Statement": "UPDATE things SET y = 1 WHERE pk = 'a' AND sk = 0"},
                    {"Statement": "UPDATE things SET x = x + 'a' WHERE pk = 'a' AND sk = 1"},
                ]
            },
        )
    assert error.value.message.startswith(
        "Validation failed in TransactStatements[1]: Incorrect operand type"
    )


# -- what DynamoDB Local answers with a 500: huge number literals, deep nesting ------------------------------
# Local fails these with an HTTP 500 (and spends minutes and gigabytes on ``1.0e100000000``); the engine answers
# as DynamoDB does for the same numbers in every other API, and parses any nesting a statement's 8 KB can hold.

OVERFLOW = "Number overflow. Attempting to store a number with magnitude larger than supported range"
UNDERFLOW = "Number underflow. Attempting to store a number with magnitude smaller than supported range"


@pytest.mark.parametrize(
    "number, message",
    [("1e999999999", OVERFLOW), ("-1.0e100000000", OVERFLOW), ("1e-999999999", UNDERFLOW)],
)
@pytest.mark.parametrize(
    "template",
    [
        "INSERT INTO things VALUE {{'pk': 'n', 'sk': 1, 'v': {}}}",
        "INSERT INTO things VALUE {{'pk': 'n', 'sk': 1, 'v': [<<{}>>]}}",
        "UPDATE things SET v = {} + 1 WHERE pk = 'a' AND sk = 1",
        "SELECT * FROM things WHERE pk = 'a' AND x > {}",
        "SELECT * FROM things WHERE pk = 'a' AND sk = {}",
    ],
)
def test_number_literals_out_of_range(engine, template, number, message):
    with pytest.raises(ValidationException) as raised:
        execute_statement(engine, {"Statement": template.format(number)})
    assert raised.value.message == message
    assert select(engine, "SELECT * FROM things WHERE pk = 'a' AND sk = 1")["Items"][0].get("v") is None


def test_literal_beyond_a_java_exponent_is_malformed(engine):
    statement = "SELECT * FROM things WHERE pk = 'a' AND x > 1e2147483648"
    with pytest.raises(Malformed, match="Statement wasn't well formed"):
        execute_statement(engine, {"Statement": statement})


def test_deep_statements_parse_on_a_small_stack(engine):
    """2,000 parentheses, 1,500 NOTs and 3,000 brackets: answered on a server-sized thread, no RecursionError."""
    statements = [
        "SELECT * FROM things WHERE " + "(" * 2000 + "pk = 'a'" + ")" * 2000,
        "SELECT * FROM things WHERE pk = 'a' AND " + "NOT " * 1500 + "x = 0",
        "INSERT INTO things VALUE {'pk': 'd', 'sk': 1, 'v': " + "[" * 3000 + "1" + "]" * 3000 + "}",
        "UPDATE things SET v = " + "-" * 3000 + "1 WHERE pk = 'a' AND sk = 1",
    ]

    def run():
        outcomes = []
        for statement in statements:
            try:
                outcomes.append(len(select(engine, statement)["Items"]))
            except DynamoDBError as error:
                outcomes.append(error.message[:60])
        return outcomes

    outcomes = on_small_stack(run)
    assert outcomes == [
        3,
        # the filter the NOTs translate to is over DynamoDB's 4 KB (Local: 500; with 400 NOTs, as Local says,
        # "too many operators")
        "Expression size has exceeded the maximum allowed size; expre",
        "Nesting Levels have exceeded supported limits",
        "Statement wasn't well formed, can't be processed: UPDATE thi",
    ]


def test_deep_sub_queries_and_signs_without_the_recursion_limit(engine):
    """200 nested sub-queries and 2,000 nested signs: the answers they had when the recursion limit was raised
    for them (a sub-query is refused, the signs fold to a number), now with the process's limit untouched."""
    import sys

    limit = sys.getrecursionlimit()
    sub_queries = (
        "SELECT * FROM things WHERE " + "EXISTS(SELECT * FROM things WHERE " * 200 + "pk = 'a'" + ")" * 200
    )
    with pytest.raises(ValidationException, match="Unsupported token in expression: SELECT at 1:35:6"):
        select(engine, sub_queries)
    signs = "SELECT * FROM things WHERE pk = 'a' AND sk = " + "-(" * 2000 + "1" + ")" * 2000
    assert [item["sk"] for item in select(engine, signs)["Items"]] == [{"N": "1"}]
    assert sys.getrecursionlimit() == limit
