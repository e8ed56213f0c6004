"""Everything stored reads back exactly, through every read path, whatever the item's size (embedded only).

Items are drawn at random (every attribute type, non-ASCII text so that parts split inside a character,
bodies from a few bytes to past the 4 KB page, key attributes of each type) and read back with GetItem, Query
(table and GSI), Scan, BatchGetItem, TransactGetItems, PartiQL, UpdateItem's ALL_OLD, stream images, an export
and import, and a copy of the database (the test snapshots' backup); each must equal the item written.
"""

from __future__ import annotations

import sqlite3

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dynabase
from conformance.test_streams import records
from dynabase.testing.state import copy_database
from dynabase.transfer import export_table, import_table

text = st.text(st.characters(exclude_categories=["Cs"], max_codepoint=0x1F600), max_size=8)
long_text = st.tuples(st.sampled_from(["a", "é", "€", "😀", "ab€"]), st.integers(0, 6000)).map(
    lambda t: (t[0] * t[1])[: t[1]]
)
number = st.one_of(st.integers(-(10**30), 10**30).map(str), st.integers(1, 999).map(lambda n: f"{n}.5"))
scalar = st.one_of(
    st.one_of(text, long_text).map(lambda s: {"S": s}),
    number.map(lambda n: {"N": n}),
    st.one_of(st.binary(max_size=8), st.integers(0, 5000).map(lambda n: bytes(range(256)) * (n // 256))).map(
        lambda b: {"B": b}
    ),
    st.booleans().map(lambda b: {"BOOL": b}),
    st.just({"NULL": True}),
    st.lists(text, min_size=1, max_size=3, unique=True).map(lambda v: {"SS": v}),
    st.lists(st.integers(-99, 99).map(str), min_size=1, max_size=3, unique=True).map(lambda v: {"NS": v}),
    st.lists(st.binary(min_size=1, max_size=4), min_size=1, max_size=3, unique=True).map(lambda v: {"BS": v}),
)
value = st.recursive(
    scalar,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3).map(lambda v: {"L": v}),
        st.dictionaries(text.filter(bool), inner, max_size=3).map(lambda v: {"M": v}),
    ),
    max_leaves=6,
)
# the table's keys: pk (S, B or N) and sk (N, S or B); g is the GSI's partition key
KEY_TYPES = [("S", "S"), ("S", "N"), ("B", "S"), ("N", "B"), ("N", "S")]  # every loader of row_loader
key_value = {
    "S": st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=20).map(lambda s: {"S": s}),
    "N": st.integers(-(10**12), 10**12).map(lambda n: {"N": str(n)}),
    "B": st.binary(min_size=1, max_size=20).map(lambda b: {"B": b}),
}


def _items(pk_type: str, sk_type: str) -> st.SearchStrategy[list[dict]]:
    attrs = st.dictionaries(
        st.text(min_size=1, max_size=6).filter(lambda n: n not in ("pk", "sk", "g")), value, max_size=5
    )
    item = st.tuples(key_value[pk_type], key_value[sk_type], attrs, st.sampled_from(["g1", "g2"])).map(
        lambda t: {**t[2], "pk": t[0], "sk": t[1], "g": {"S": t[3]}}
    )
    return st.lists(item, min_size=1, max_size=6, unique_by=lambda i: (repr(i["pk"]), repr(i["sk"])))


def _create(client, name: str, pk_type: str, sk_type: str) -> None:
    client.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": pk_type},
            {"AttributeName": "sk", "AttributeType": sk_type},
            {"AttributeName": "g", "AttributeType": "S"},
        ],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "by-g",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
        BillingMode="PAY_PER_REQUEST",
    )


def _all(call, key: str = "Items", **request) -> list[dict]:
    out, start = [], None
    while True:
        page = call(**request, **({"ExclusiveStartKey": start} if start else {}))
        out += page[key]
        start = page.get("LastEvaluatedKey")
        if not start:
            return out


def _ident(item: dict) -> tuple[str, str]:
    return repr(item["pk"]), repr(item["sk"])


def _same(got: list[dict], items: list[dict]) -> None:
    assert sorted(got, key=_ident) == sorted(items, key=_ident)


def _stream_images(client, table: str) -> list[dict]:
    arn = client.describe_table(TableName=table)["Table"]["LatestStreamArn"]
    return [r["dynamodb"] for r in records(client.streams(), arn)]


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(KEY_TYPES).flatmap(lambda t: st.tuples(st.just(t), _items(*t))))
def test_every_read_path_gives_back_what_was_written(tmp_path_factory, drawn):
    (pk_type, sk_type), items = drawn
    tmp = tmp_path_factory.mktemp("roundtrip")
    client = dynabase.connect(str(tmp / "a.db"))
    _create(client, "tab", pk_type, sk_type)
    placeholder = [{**item, "g": {"S": "old"}} for item in items]  # overwritten below: OldImage and ALL_OLD
    client.batch_write_item(RequestItems={"tab": [{"PutRequest": {"Item": i}} for i in placeholder]})
    for old, item in zip(placeholder, items, strict=True):
        assert client.put_item(TableName="tab", Item=item, ReturnValues="ALL_OLD")["Attributes"] == old
    keys = [{"pk": i["pk"], "sk": i["sk"]} for i in items]

    for key, item in zip(keys, items, strict=True):
        assert client.get_item(TableName="tab", Key=key, ConsistentRead=True)["Item"] == item
    for item in items:
        got = _all(
            client.query,
            TableName="tab",
            KeyConditionExpression="pk = :p AND sk = :s",
            ExpressionAttributeValues={":p": item["pk"], ":s": item["sk"]},
        )
        assert got == [item]
    _same(_all(client.scan, TableName="tab"), items)
    _same(
        _all(client.scan, TableName="tab", Segment=1, TotalSegments=2)
        + _all(client.scan, TableName="tab", Segment=0, TotalSegments=2),
        items,
    )
    by_g = [
        i
        for g in ("g1", "g2")
        for i in _all(
            client.query,
            TableName="tab",
            IndexName="by-g",
            KeyConditionExpression="g = :g",
            ExpressionAttributeValues={":g": {"S": g}},
        )
    ]
    _same(by_g, items)
    _same(client.batch_get_item(RequestItems={"tab": {"Keys": keys}})["Responses"]["tab"], items)
    got = client.transact_get_items(TransactItems=[{"Get": {"TableName": "tab", "Key": k}} for k in keys])
    assert [r["Item"] for r in got["Responses"]] == items
    _same(_all(client.execute_statement, Statement='SELECT * FROM "tab"'), items)

    images = _stream_images(client, "tab")
    assert [r["NewImage"] for r in images] == placeholder + items
    assert [r.get("OldImage") for r in images] == [None] * len(items) + placeholder

    # an export and import into another file, and a copy of the database, read back the same
    export_table(client, "tab", tmp / "tab.jsonl")
    other = dynabase.connect(str(tmp / "b.db"))
    import_table(other, tmp / "tab.jsonl", create=True)
    _same(_all(other.scan, TableName="tab"), items)
    copy = dynabase.connect(str(tmp / "c.db"))
    copy_database(client.engine, copy.engine)
    _same(_all(copy.scan, TableName="tab"), items)

    # an update reads the stored item (ALL_OLD) and writes it back whole; a delete drops its parts
    for key, item in zip(keys, items, strict=True):
        updated = client.update_item(
            TableName="tab",
            Key=key,
            UpdateExpression="SET z = :z",
            ExpressionAttributeValues={":z": {"N": "1"}},
            ReturnValues="ALL_OLD",
        )
        assert updated["Attributes"] == item
        assert client.get_item(TableName="tab", Key=key)["Item"] == {**item, "z": {"N": "1"}}
        client.delete_item(TableName="tab", Key=key)
    for each in (client, other, copy):
        each.close()
    with sqlite3.connect(str(tmp / "a.db")) as raw:
        assert raw.execute('SELECT count(*) FROM "t1 parts"').fetchone() == (0,)
