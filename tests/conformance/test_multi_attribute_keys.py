"""Multi-attribute keys in global secondary indexes (DynamoDB, November 2025; DynamoDB Local 3.3).

A GSI's KeySchema may list up to 4 HASH and then up to 4 RANGE elements. A Query names every partition attribute
with ``=`` and may constrain the sort attributes left to right (``=`` on a prefix, then one condition on the next);
items missing any key attribute are not in the index. Messages are DynamoDB Local's.
"""

from __future__ import annotations

import re

import pytest

from ddb_helpers import assert_client_error, gsi, parse_key, query_all, scan_all, wait_table_active

H, R = "HASH", "RANGE"


def multi_gsi(name: str, hash_keys: list[str], sort_keys: list[str], projection="ALL") -> dict:
    """A GSI whose key has several partition (``hash_keys``) and sort (``sort_keys``) attributes ("name:T")."""
    index = gsi(name, hash_keys[0], projection=projection)
    index["KeySchema"] = [{"AttributeName": k.split(":")[0], "KeyType": H} for k in hash_keys] + [
        {"AttributeName": k.split(":")[0], "KeyType": R} for k in sort_keys
    ]
    index["_keys"] = [parse_key(k) for k in hash_keys + sort_keys]
    return index


GSI = multi_gsi("bytenant", ["tenant:S", "site:S"], ["n:N", "s:S", "c:S"])


def item(pk, tenant="T1", site="eu", n=None, s=None, c=None, **extra):
    out = {"pk": {"S": pk}, "tenant": {"S": tenant}, "site": {"S": site}, **extra}
    for name, value in (("n", n), ("s", s), ("c", c)):
        if value is not None:
            out[name] = {"N": str(value)} if name == "n" else {"S": value}
    return out


ROWS = [
    # (pk, n, s, c): the composite sort key is (n, s, c); "a" < "ab" must hold whatever follows it
    ("p1", 1, "a", "x"),
    ("p2", 1, "a", "y"),
    ("p3", 1, "ab", "a"),
    ("p4", 1, "b", "x"),
    ("p5", 2, "a", "x"),
    ("p6", 10, "a", "x"),
    ("p7", -1, "z", "z"),
    ("p8", 1.5, "a", "x"),
]
ORDER = ["p7", "p1", "p2", "p3", "p4", "p8", "p5", "p6"]


@pytest.fixture
def multi_table(client, make_table):
    table = make_table(("pk:S",), gsis=[GSI])
    for pk, n, s, c in ROWS:
        client.put_item(TableName=table, Item=item(pk, n=n, s=s, c=c))
    client.put_item(TableName=table, Item=item("other", tenant="T2", n=1, s="a", c="x"))
    client.put_item(TableName=table, Item=item("nosort", n=1, s="a"))  # missing c: not in the index
    client.put_item(TableName=table, Item={"pk": {"S": "noregion"}, "tenant": {"S": "T1"}, "n": {"N": "1"}})
    return table


def query(client, table, condition, values, **kwargs):
    return client.query(
        TableName=table,
        IndexName="bytenant",
        KeyConditionExpression=condition,
        ExpressionAttributeValues={k: v for k, v in values.items() if re.search(rf"{k}\b", condition)},
        **kwargs,
    )


def vals(**kwargs):
    out = {":t": {"S": "T1"}, ":r": {"S": "eu"}}
    for name, value in kwargs.items():
        out[f":{name}"] = value if isinstance(value, dict) else {"S": value}
    return out


def pks(response_or_items):
    items = response_or_items["Items"] if isinstance(response_or_items, dict) else response_or_items
    return [i["pk"]["S"] for i in items]


HR = "tenant = :t AND site = :r"

# -- control plane -------------------------------------------------------------------------------------------


def test_create_and_describe_keep_the_key_schema_in_order(client, make_table):
    table = make_table(("pk:S",), gsis=[GSI])
    described = client.describe_table(TableName=table)["Table"]
    (index,) = described["GlobalSecondaryIndexes"]
    assert index["KeySchema"] == [
        {"AttributeName": "tenant", "KeyType": "HASH"},
        {"AttributeName": "site", "KeyType": "HASH"},
        {"AttributeName": "n", "KeyType": "RANGE"},
        {"AttributeName": "s", "KeyType": "RANGE"},
        {"AttributeName": "c", "KeyType": "RANGE"},
    ]
    assert {d["AttributeName"]: d["AttributeType"] for d in described["AttributeDefinitions"]} == {
        "pk": "S",
        "tenant": "S",
        "site": "S",
        "n": "N",
        "s": "S",
        "c": "S",
    }
    assert described["KeySchema"] == [{"AttributeName": "pk", "KeyType": "HASH"}]


def test_four_partition_and_four_sort_attributes(client, make_table):
    index = multi_gsi("wide", [f"h{i}:S" for i in range(4)], [f"r{i}:N" for i in range(4)])
    table = make_table(("pk:S",), gsis=[index])
    described = client.describe_table(TableName=table)["Table"]["GlobalSecondaryIndexes"][0]
    assert [k["KeyType"] for k in described["KeySchema"]] == [H] * 4 + [R] * 4
    row = {"pk": {"S": "x"}, **{f"h{i}": {"S": f"v{i}"} for i in range(4)}}
    row.update({f"r{i}": {"N": str(i)} for i in range(4)})
    client.put_item(TableName=table, Item=row)
    condition = " AND ".join(f"h{i} = :h{i}" for i in range(4)) + " AND r0 = :r0 AND r1 = :r1 AND r2 = :r2"
    values = {f":h{i}": {"S": f"v{i}"} for i in range(4)} | {f":r{i}": {"N": str(i)} for i in range(3)}
    out = client.query(
        TableName=table,
        IndexName="wide",
        KeyConditionExpression=condition + " AND r3 > :r2",
        ExpressionAttributeValues=values,
    )
    assert pks(out) == ["x"]


def _schema(*pairs):
    return [{"AttributeName": n, "KeyType": k} for n, k in pairs]


@pytest.mark.parametrize(
    "schema, message",
    [
        (
            _schema(("a", H), ("b", H), ("c", H), ("d", H), ("e", H)),
            "Too many partition keys. GSI can have at most 4 partition keys",
        ),
        (
            _schema(("a", H), ("b", R), ("c", R), ("d", R), ("e", R), ("f", R)),
            "Too many sort keys. GSI can have at most 4 sort keys",
        ),
        (
            _schema(*[(x, H) for x in "abcde"], *[(x, R) for x in "fghi"]),
            "Key Schema too big.  Key Schema must at most consist of the hash and range key of a table",
        ),
        (
            _schema(("a", H), ("c", R), ("b", H)),
            "Invalid key order. Hash Key must be specified first in key schema, Range Key must be specifed second",
        ),
        (  # a partition and a sort key: AWS's words (tests/aws_differences.py)
            _schema(("c", R), ("a", H)),
            "Invalid KeySchema: The first KeySchemaElement is not a HASH key type",
        ),
        (
            _schema(("c", R), ("d", R)),
            "No Hash Key specified in schema.  All Dynamo DB tables must have exactly one hash key",
        ),
        (_schema(("a", H), ("a", H)), "Two keys can not have the same name"),
        (_schema(("a", H), ("b", R), ("a", R)), "Two keys can not have the same name"),
        (_schema(("a", H), ("zz", H), ("c", R)), "Attribute zz is not defined in AttributeDefinitions"),
        (_schema(("a", H), ("c", R), ("zz", R)), "Attribute zz is not defined in AttributeDefinitions"),
    ],
)
def test_create_table_refuses_bad_multi_attribute_key_schemas(client, schema, message):
    names = ["pk"] + sorted({k["AttributeName"] for k in schema} - {"zz"})
    assert_client_error(
        lambda: client.create_table(
            TableName="multiattr_bad",
            AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in names],
            KeySchema=_schema(("pk", H)),
            GlobalSecondaryIndexes=[
                {"IndexName": "gsi", "KeySchema": schema, "Projection": {"ProjectionType": "ALL"}}
            ],
            BillingMode="PAY_PER_REQUEST",
        ),
        "ValidationException",
        message,
    )


TOO_BIG = "Key Schema too big.  Key Schema must at most consist of the hash and range key of a table"


def test_tables_and_local_indexes_keep_single_attribute_keys(client):
    definitions = [{"AttributeName": n, "AttributeType": "S"} for n in ("pk", "sk", "a", "c")]
    assert_client_error(
        lambda: client.create_table(
            TableName="multiattr_bad",
            AttributeDefinitions=definitions[:1] + definitions[2:],
            KeySchema=_schema(("pk", H), ("a", R), ("c", R)),
            BillingMode="PAY_PER_REQUEST",
        ),
        "ValidationException",
        # AWS's, for a table (tests/aws_differences.py); an LSI's answer is Local's
        "1 validation error detected: Value '[KeySchemaElement(attributeName=pk, keyType=HASH), "
        "KeySchemaElement(attributeName=a, keyType=RANGE), KeySchemaElement(attributeName=c, keyType=RANGE)]' at "
        "'keySchema' failed to satisfy constraint: Member must have length less than or equal to 2",
    )
    assert_client_error(
        lambda: client.create_table(
            TableName="multiattr_bad",
            AttributeDefinitions=definitions,
            KeySchema=_schema(("pk", H), ("sk", R)),
            LocalSecondaryIndexes=[
                {
                    "IndexName": "lsi",
                    "KeySchema": _schema(("pk", H), ("a", R), ("c", R)),
                    "Projection": {"ProjectionType": "ALL"},
                }
            ],
            BillingMode="PAY_PER_REQUEST",
        ),
        "ValidationException",
        TOO_BIG,
    )


def test_update_table_creates_a_multi_attribute_index_over_existing_items(client, make_table):
    table = make_table(("pk:S",))
    for pk, n, s, c in ROWS:
        client.put_item(TableName=table, Item=item(pk, n=n, s=s, c=c))
    client.put_item(TableName=table, Item=item("nosort", n=1, s="a"))
    client.update_table(
        TableName=table,
        AttributeDefinitions=[
            {"AttributeName": n, "AttributeType": t}
            for n, t in (("tenant", "S"), ("site", "S"), ("n", "N"), ("s", "S"), ("c", "S"))
        ],
        GlobalSecondaryIndexUpdates=[
            {"Create": {k: v for k, v in GSI.items() if not k.startswith("_")}},
        ],
    )
    described = wait_table_active(client, table)["GlobalSecondaryIndexes"][
        0
    ]  # Local backfills in the background
    assert described["KeySchema"] == GSI["KeySchema"]
    assert (
        pks(
            query_all(
                client,
                TableName=table,
                IndexName="bytenant",
                KeyConditionExpression=HR,
                ExpressionAttributeValues=vals(),
            )
        )
        == ORDER
    )


# -- what the index holds ------------------------------------------------------------------------------------


def test_items_missing_a_key_attribute_are_not_in_the_index(client, multi_table):
    scanned = scan_all(client, TableName=multi_table, IndexName="bytenant")
    assert sorted(pks(scanned)) == sorted(ORDER + ["other"])
    described = client.describe_table(TableName=multi_table)["Table"]["GlobalSecondaryIndexes"][0]
    assert described["ItemCount"] == len(ORDER) + 1


def test_updates_move_items_in_and_out_of_the_index(client, multi_table):
    client.update_item(
        TableName=multi_table,
        Key={"pk": {"S": "nosort"}},
        UpdateExpression="SET c = :c",
        ExpressionAttributeValues={":c": {"S": "a"}},
    )
    client.update_item(TableName=multi_table, Key={"pk": {"S": "p2"}}, UpdateExpression="REMOVE s")
    client.update_item(
        TableName=multi_table,
        Key={"pk": {"S": "p6"}},
        UpdateExpression="SET n = :n",
        ExpressionAttributeValues={":n": {"N": "0"}},
    )
    out = query_all(
        client,
        TableName=multi_table,
        IndexName="bytenant",
        KeyConditionExpression=HR,
        ExpressionAttributeValues=vals(),
    )
    assert pks(out) == ["p7", "p6", "nosort", "p1", "p3", "p4", "p8", "p5"]


def test_a_second_partition_attribute_of_the_wrong_type_is_refused(client, multi_table):
    assert_client_error(
        lambda: client.put_item(TableName=multi_table, Item=item("bad", site="eu") | {"site": {"N": "1"}}),
        "ValidationException",
        "One or more parameter values were invalid: Type mismatch for Index Key",
    )
    assert_client_error(
        lambda: client.put_item(TableName=multi_table, Item=item("bad", site="")),
        "ValidationException",
        "One or more parameter values are not valid. A value specified for a secondary index key is not "
        "supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: "
        "bytenant, IndexKey: site",
    )


# -- Query -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "condition, values, expected",
    [
        (HR, {}, ORDER),
        (f"{HR} AND n = :n", {"n": {"N": "1"}}, ["p1", "p2", "p3", "p4"]),
        (f"{HR} AND n < :n", {"n": {"N": "1.5"}}, ["p7", "p1", "p2", "p3", "p4"]),
        (f"{HR} AND n <= :n", {"n": {"N": "1"}}, ["p7", "p1", "p2", "p3", "p4"]),
        (f"{HR} AND n > :n", {"n": {"N": "1"}}, ["p8", "p5", "p6"]),
        (f"{HR} AND n >= :n", {"n": {"N": "1.5"}}, ["p8", "p5", "p6"]),
        (
            f"{HR} AND n BETWEEN :a AND :b",
            {"a": {"N": "1"}, "b": {"N": "2"}},
            ["p1", "p2", "p3", "p4", "p8", "p5"],
        ),
        (f"{HR} AND n = :n AND s = :s", {"n": {"N": "1"}, "s": "a"}, ["p1", "p2"]),
        (f"{HR} AND n = :n AND s > :s", {"n": {"N": "1"}, "s": "a"}, ["p3", "p4"]),
        (f"{HR} AND n = :n AND s >= :s", {"n": {"N": "1"}, "s": "ab"}, ["p3", "p4"]),
        (f"{HR} AND n = :n AND s < :s", {"n": {"N": "1"}, "s": "ab"}, ["p1", "p2"]),
        (f"{HR} AND n = :n AND s <= :s", {"n": {"N": "1"}, "s": "ab"}, ["p1", "p2", "p3"]),
        (f"{HR} AND n = :n AND begins_with(s, :s)", {"n": {"N": "1"}, "s": "a"}, ["p1", "p2", "p3"]),
        (f"{HR} AND n = :n AND s BETWEEN :a AND :b", {"n": {"N": "1"}, "a": "ab", "b": "b"}, ["p3", "p4"]),
        (f"{HR} AND n = :n AND s = :s AND c = :c", {"n": {"N": "1"}, "s": "a", "c": "y"}, ["p2"]),
        (f"{HR} AND n = :n AND s = :s AND c < :c", {"n": {"N": "1"}, "s": "a", "c": "y"}, ["p1"]),
        (f"{HR} AND n = :n AND s = :s AND c >= :c", {"n": {"N": "1"}, "s": "a", "c": "x"}, ["p1", "p2"]),
        ("site = :r AND s = :s AND tenant = :t AND n = :n", {"n": {"N": "1"}, "s": "b"}, ["p4"]),
        (f"{HR} AND n = :n", {"n": {"N": "3"}}, []),
    ],
)
def test_key_conditions_constrain_sort_attributes_left_to_right(
    client, multi_table, condition, values, expected
):
    assert pks(query(client, multi_table, condition, vals(**values))) == expected
    backward = query(client, multi_table, condition, vals(**values), ScanIndexForward=False)
    assert pks(backward) == expected[::-1]


def test_other_partitions_are_apart(client, multi_table):
    assert pks(query(client, multi_table, HR, vals() | {":t": {"S": "T2"}})) == ["other"]
    assert pks(query(client, multi_table, HR, vals() | {":r": {"S": "us"}})) == []


def _range_message(names, because):
    return (
        f"RANGE key attributes {names} must have equality conditions specified in the query because a condition "
        f"is present on key attribute {because}"
    )


def _hash_message(names):
    return f"HASH key attributes {names} must have equality conditions specified in the query"


@pytest.mark.parametrize(
    "condition, values, message",
    [
        ("tenant = :t", {}, _hash_message("site")),
        ("site = :r", {}, _hash_message("tenant")),
        ("tenant = :t AND site > :r", {}, _hash_message("site")),
        ("pk = :p", {"p": "p1"}, _hash_message("tenant, site")),
        ("tenant = :t AND x = :x", {"x": "1"}, _hash_message("site")),
        (f"{HR} AND s = :s", {"s": "a"}, _range_message("n", "s")),
        (f"{HR} AND c = :c", {"c": "a"}, _range_message("n, s", "c")),
        (f"{HR} AND n > :n AND c = :c", {"n": {"N": "1"}, "c": "a"}, _range_message("s", "c")),
        (f"{HR} AND s > :s AND c = :c", {"s": "a", "c": "a"}, _range_message("n", "s")),
        (f"{HR} AND n > :n AND s = :s", {"n": {"N": "1"}, "s": "a"}, _range_message("n", "s")),
        (
            f"{HR} AND n > :n AND s > :s AND c > :c",
            {"n": {"N": "1"}, "s": "a", "c": "a"},
            _range_message("n, s", "c"),
        ),
        (
            f"{HR} AND n = :n AND begins_with(s, :s) AND c = :c",
            {"n": {"N": "1"}, "s": "a", "c": "a"},
            _range_message("s", "c"),
        ),
        (f"{HR} AND s = :s AND x = :x", {"s": "a", "x": "1"}, _range_message("n", "s")),
        (f"{HR} AND pk = :p", {"p": "p1"}, "Query condition missed key schema element"),
        (
            f"{HR} AND n = :n AND x = :x",
            {"n": {"N": "1"}, "x": "1"},
            "Query condition missed key schema element",
        ),
        (
            f"{HR} AND n = :n AND s = :s AND c = :c AND pk = :p",
            {"n": {"N": "1"}, "s": "a", "c": "a", "p": "p1"},
            "Query key condition not supported",
        ),
        (
            f"{HR} AND n = :n AND n = :n",
            {"n": {"N": "1"}},
            "KeyConditionExpressions must only contain one condition per key",
        ),
        (
            f"{HR} AND n = :n",
            {"n": "1"},
            "One or more parameter values were invalid: Condition parameter type does not match schema type",
        ),
        (
            HR,
            {"r": {"N": "1"}},
            "One or more parameter values were invalid: Condition parameter type does not match schema type",
        ),
        (
            f"{HR} AND begins_with(n, :n)",
            {"n": {"N": "1"}},
            "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: "
            "begins_with, operand type: N",
        ),
        (
            f"{HR} AND n = :n AND s BETWEEN :a AND :b",
            {"n": {"N": "1"}, "a": "b", "b": "a"},
            "Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to "
            "lower bound; lower bound operand: AttributeValue: {S:b}, upper bound operand: AttributeValue: {S:a}",
        ),
        (
            f"{HR} AND n = :n AND s = :s",
            {"n": {"N": "1"}, "s": ""},
            "One or more parameter values are not valid. A value specified for a secondary index key is not "
            "supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: "
            "bytenant, IndexKey: s",
        ),
        (
            HR,
            {"r": ""},
            "One or more parameter values are not valid. A value specified for a secondary index key is not "
            "supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: "
            "bytenant, IndexKey: site",
        ),
    ],
)
def test_key_condition_errors(client, multi_table, condition, values, message):
    assert_client_error(
        lambda: query(client, multi_table, condition, vals(**values)), "ValidationException", message
    )


@pytest.mark.parametrize("limit", [1, 3, 5])
@pytest.mark.parametrize("forward", [True, False])
def test_pages_resume_from_last_evaluated_key(client, multi_table, limit, forward):
    seen, start = [], None
    while True:
        kwargs = {"Limit": limit, "ScanIndexForward": forward}
        if start:
            kwargs["ExclusiveStartKey"] = start
        page = query(client, multi_table, HR, vals(), **kwargs)
        seen += pks(page)
        start = page.get("LastEvaluatedKey")
        if start is None:
            break
        assert set(start) == {"pk", "tenant", "site", "n", "s", "c"}
    assert seen == (ORDER if forward else ORDER[::-1])


def test_a_start_key_outside_the_key_condition_is_refused(client, multi_table):
    page = query(client, multi_table, HR, vals(), Limit=1)  # p7, n = -1
    for condition, values in ((f"{HR} AND n = :n", {"n": {"N": "1"}}), (HR, {"t": "T2"})):
        assert_client_error(
            lambda condition=condition, values=values: query(
                client, multi_table, condition, vals(**values), ExclusiveStartKey=page["LastEvaluatedKey"]
            ),
            "ValidationException",
            "The provided starting key does not match the range key predicate",
        )
    start = dict(page["LastEvaluatedKey"])
    del start["c"]
    assert_client_error(
        lambda: query(client, multi_table, HR, vals(), ExclusiveStartKey=start),
        "ValidationException",
        "The provided starting key is invalid",
    )


def test_scan_pages_cover_the_index(client, multi_table):
    seen, start = [], None
    while True:
        page = client.scan(
            TableName=multi_table,
            IndexName="bytenant",
            Limit=2,
            **({"ExclusiveStartKey": start} if start else {}),
        )
        seen += pks(page)
        start = page.get("LastEvaluatedKey")
        if start is None:
            break
        assert set(start) == {"pk", "tenant", "site", "n", "s", "c"}
    assert sorted(seen) == sorted(ORDER + ["other"])


# -- ordering of the composite key ------------------------------------------------------------------------------


def test_binary_and_string_parts_sort_attribute_by_attribute(client, make_table):
    table = make_table(("pk:S",), gsis=[multi_gsi("bin", ["h:S"], ["b:B", "s:S"])])
    rows = [
        (b"\x00", "z"),
        (b"\x00\x00", "a"),
        (b"\x00\x01", "a"),
        (b"\x01", "a"),
        (b"\xff", "a"),
        (b"\xff\xff", ""),
    ]
    for number, (b, s) in enumerate(rows):
        row = {"pk": {"S": f"r{number}"}, "h": {"S": "h"}, "b": {"B": b}}
        if s:
            row["s"] = {"S": s}
        client.put_item(TableName=table, Item=row)
    out = client.query(
        TableName=table,
        IndexName="bin",
        KeyConditionExpression="h = :h",
        ExpressionAttributeValues={":h": {"S": "h"}},
    )
    assert pks(out) == ["r0", "r1", "r2", "r3", "r4"]
    prefixed = client.query(
        TableName=table,
        IndexName="bin",
        KeyConditionExpression="h = :h AND begins_with(b, :b)",
        ExpressionAttributeValues={":h": {"S": "h"}, ":b": {"B": b"\x00"}},
    )
    assert pks(prefixed) == ["r0", "r1", "r2"]


def test_several_partition_attributes_and_one_sort_attribute(client, make_table):
    table = make_table(("pk:S",), gsis=[multi_gsi("two", ["a:S", "b:N"], ["s:S"])])
    for pk, a, b, s in (("x1", "a", 1, "k"), ("x2", "a", 1, "j"), ("x3", "a", 2, "k"), ("x4", "ab", 1, "k")):
        client.put_item(
            TableName=table, Item={"pk": {"S": pk}, "a": {"S": a}, "b": {"N": str(b)}, "s": {"S": s}}
        )
    out = client.query(
        TableName=table,
        IndexName="two",
        KeyConditionExpression="a = :a AND b = :b AND s <= :s",
        ExpressionAttributeValues={":a": {"S": "a"}, ":b": {"N": "1"}, ":s": {"S": "k"}},
    )
    assert pks(out) == ["x2", "x1"]
    assert_client_error(
        lambda: client.query(
            TableName=table,
            IndexName="two",
            KeyConditionExpression="a = :a",
            ExpressionAttributeValues={":a": {"S": "a"}},
        ),
        "ValidationException",
        _hash_message("b"),
    )


# -- the other ways to read an index ----------------------------------------------------------------------------


def _eq(value):
    return {"AttributeValueList": [value], "ComparisonOperator": "EQ"}


def test_legacy_key_conditions_on_a_multi_attribute_key(client, multi_table):
    base = {"tenant": _eq({"S": "T1"}), "site": _eq({"S": "eu"})}

    def legacy(**more):
        return client.query(TableName=multi_table, IndexName="bytenant", KeyConditions={**base, **more})

    assert pks(legacy()) == ORDER
    assert pks(legacy(n=_eq({"N": "1"}), s=_eq({"S": "a"}))) == ["p1", "p2"]
    gt = {"AttributeValueList": [{"N": "1"}], "ComparisonOperator": "GT"}
    assert_client_error(
        lambda: legacy(n=gt, s=_eq({"S": "a"})), "ValidationException", _range_message("n", "s")
    )
    assert_client_error(
        lambda: client.query(
            TableName=multi_table, IndexName="bytenant", KeyConditions={"tenant": base["tenant"]}
        ),
        "ValidationException",
        _hash_message("site"),
    )
    assert_client_error(
        lambda: legacy(n=_eq({"S": "1"})),
        "ValidationException",
        "One or more parameter values were invalid: Condition parameter type does not match schema type",
    )


def test_partiql_refuses_a_multi_attribute_index(client, multi_table):
    assert_client_error(
        lambda: client.execute_statement(
            Statement=f"SELECT * FROM \"{multi_table}\".\"bytenant\" WHERE tenant = 'T1' AND site = 'eu'"
        ),
        "ValidationException",
        "PartiQL statements cannot be executed on tables with composite HASH keys or composite RANGE keys.",
    )
    # the table itself is still readable
    out = client.execute_statement(Statement=f"SELECT * FROM \"{multi_table}\" WHERE pk = 'p1'")
    assert pks(out) == ["p1"]
