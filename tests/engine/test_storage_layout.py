"""The item table's layout: rows that fit their pages, and files written with the old layout (embedded only)."""

from __future__ import annotations

import gzip
import sqlite3
from pathlib import Path

import pytest

import dynabase
from dynabase.engine.storage import (
    BINARY,
    ROWID_ITEM_TABLE,
    SHORT,
    WITHOUT_ROWID_ITEM_TABLE,
    drop_item_table,
    dump_item,
    item_sql,
    load_item,
    row_loader,
)
from dynabase.types import item_size

from .layout_fixture import items as fixture_items
from .test_concurrency import _integrity_problems

TABLE = {
    "TableName": "orders",
    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
    "AttributeDefinitions": [
        {"AttributeName": "pk", "AttributeType": "S"},
        {"AttributeName": "sk", "AttributeType": "S"},
        {"AttributeName": "g", "AttributeType": "S"},
    ],
    "GlobalSecondaryIndexes": [
        {
            "IndexName": "by-g",
            "KeySchema": [
                {"AttributeName": "g", "KeyType": "HASH"},
                {"AttributeName": "sk", "KeyType": "RANGE"},
            ],
            "Projection": {"ProjectionType": "ALL"},
        }
    ],
    "BillingMode": "PAY_PER_REQUEST",
}


def _item(n: int, body: int = 40) -> dict:
    return {
        "pk": {"S": f"p{n % 7}"},
        "sk": {"S": f"s{n:05d}"},
        "g": {"S": f"g{n % 3}"},
        "blob": {"B": bytes([n % 256]) * 3},
        "body": {"S": "x" * body},
    }


def _item_table(path: str) -> tuple[str, str]:
    """The name of the test table's item table (a view, or a table in a file of an earlier layout) and its SQL."""
    with sqlite3.connect(path) as raw:
        (table_id,) = raw.execute("SELECT id FROM dynabase_tables WHERE name = 'orders'").fetchone()
        (sql,) = raw.execute("SELECT sql FROM sqlite_master WHERE name = ?", (f"t{table_id}",)).fetchone()
    return f"t{table_id}", sql


def _used_bytes(path: str) -> int:
    with sqlite3.connect(path) as raw:
        raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        pages = (
            raw.execute("PRAGMA page_count").fetchone()[0]
            - raw.execute("PRAGMA freelist_count").fetchone()[0]
        )
        return pages * raw.execute("PRAGMA page_size").fetchone()[0]


def _downgrade(path: str, name: str, ddl: str) -> None:
    """Rebuild the item table ``name`` with an earlier DDL and whole bodies holding every key attribute, as an
    earlier version wrote it (the test table's keys are both S)."""
    raw = sqlite3.connect(path, isolation_level=None)
    raw.execute("BEGIN IMMEDIATE")
    rows = raw.execute(f"SELECT h, pk, sk, {item_sql(name)}, size, bin FROM {name}").fetchall()
    drop_item_table(raw, name)
    raw.execute(ddl.format(name=name))
    if "WITHOUT ROWID" not in ddl:
        raw.execute(f'CREATE UNIQUE INDEX "{name} key" ON {name} (h, pk, sk)')
    keys = (("pk", "S", 0), ("sk", "S", 1))
    for h, pk, sk, text, size, binary in rows:
        whole = dump_item(row_loader(keys)(text, binary, pk, sk))
        raw.execute(f"INSERT INTO {name} VALUES (?, ?, ?, ?, ?, ?)", (h, pk, sk, whole[0], size, whole[1]))
    raw.execute("COMMIT")
    raw.close()


def _parts_problems(path: str, name: str) -> list[str]:
    """Parts no row points at and parts a row points at that are missing; rows without a key, keys without a row."""
    with sqlite3.connect(path) as raw:
        stored = {i for (i,) in raw.execute(f'SELECT id FROM "{name} parts"')}
        wanted = set()
        for first, count in raw.execute(
            f'SELECT first_part, parts FROM "{name} items" WHERE parts IS NOT NULL'
        ):
            wanted.update(range(first, first + count))
        rows = {i for (i,) in raw.execute(f'SELECT id FROM "{name} items"')}
        keyed = {i for (i,) in raw.execute(f'SELECT id FROM "{name} keys"')}
    return (
        [f"orphan part {i}" for i in sorted(stored - wanted)]
        + [f"missing part {i}" for i in sorted(wanted - stored)]
        + [f"row {i} without a key" for i in sorted(rows - keyed)]
        + [f"key of a missing row {i}" for i in sorted(keyed - rows)]
    )


@pytest.mark.parametrize(
    "bodies",
    [
        [1100, 4000],  # took ~4.3x in the WITHOUT ROWID table (a mostly empty overflow page each)
        [2048 + 96 * n for n in range(8)],  # 2.1-2.8 KB items: a rowid row over half a page took a page alone
    ],
    ids=["1-4KB", "over-half-a-page"],
)
def test_items_of_1_to_4_kb_fill_their_pages(tmp_path, bodies):
    path = str(tmp_path / "fit.db")
    client = dynabase.connect(path)
    client.create_table(**TABLE)
    total = 0
    for n in range(240):
        item = _item(n, body=bodies[n % len(bodies)])
        total += item_size(item)
        client.put_item(TableName="orders", Item=item)
    client.close()
    assert _used_bytes(path) <= 1.5 * total


def _small_item(n: int, shape: str) -> dict:
    """A ~100 B item: words, or a map, a binary value and a short text."""
    item = {
        "pk": {"S": f"user#{n // 10:07d}"},
        "sk": {"S": f"order#{n % 10:05d}"},
        "status": {"S": "shipped"},
        "total": {"N": str(n * 7 % 10000)},
    }
    if shape == "text":
        return {**item, "body": {"S": "some words of the text " * 2 + f"{n:x}"}}
    return {
        **item,
        "n": {"N": str(n)},
        "address": {"M": {"city": {"S": "cvg"}, "zip": {"S": f"{n % 99999:05d}"}}},
        "blob": {"B": n.to_bytes(4, "big") * 2},
        "body": {"S": f"w{n:07x}"},
    }


@pytest.mark.parametrize("shape", ["text", "map-and-binary"])
def test_items_of_100_bytes_take_at_most_twice_their_size(tmp_path, shape):
    """Each key was stored three times (body, row, key index): 2.8x; now once in the body's place. With a map
    and a binary value they took 2.3x: the plain JSON body of such an item is 1.7x its bytes."""
    path = str(tmp_path / "small.db")
    client = dynabase.connect(path)
    client.create_table(**TABLE)
    client.close()
    empty = _used_bytes(path)
    client = dynabase.connect(path)
    items = [_small_item(n, shape) for n in range(4000)]
    assert {item_size(i) for i in items} <= set(range(95, 106))
    for start in range(0, len(items), 25):
        client.batch_write_item(
            RequestItems={"orders": [{"PutRequest": {"Item": i}} for i in items[start : start + 25]]}
        )
    client.close()
    assert _used_bytes(path) - empty <= 2.0 * sum(map(item_size, items))


@pytest.mark.parametrize("ddl", [WITHOUT_ROWID_ITEM_TABLE, ROWID_ITEM_TABLE], ids=["without-rowid", "rowid"])
def test_a_file_with_an_old_layout_is_upgraded_on_open_and_keeps_every_item(tmp_path, ddl):
    path = str(tmp_path / "old.db")
    client = dynabase.connect(path)
    client.create_table(**TABLE)
    items = [_item(n, body=40 if n % 3 else 2500 + 7 * n) for n in range(60)]  # whole bodies of 2.5-3 KB too
    for item in items:
        client.put_item(TableName="orders", Item=item)
    client.close()
    name, _ = _item_table(path)
    _downgrade(path, name, ddl)
    assert _item_table(path)[1] == ddl.format(name=name)
    with sqlite3.connect(path) as raw:  # bodies as earlier versions wrote them: with the key attributes
        assert all('"pk":' in text for (text,) in raw.execute(f"SELECT item FROM {name}"))

    client = dynabase.connect(path)
    assert _item_table(path)[1].startswith(f"CREATE VIEW {name} AS")
    with sqlite3.connect(path) as raw:
        assert _integrity_problems(raw) == []
    scanned = client.scan(TableName="orders")["Items"]
    assert sorted(scanned, key=lambda i: i["sk"]["S"]) == items
    assert client.describe_table(TableName="orders")["Table"]["ItemCount"] == 60
    assert (
        client.get_item(TableName="orders", Key={"pk": {"S": "p3"}, "sk": {"S": "s00010"}})["Item"]
        == items[10]
    )
    page = client.query(
        TableName="orders", KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": {"S": "p2"}}
    )
    assert page["Items"] == [i for i in items if i["pk"]["S"] == "p2"]
    by_g = client.query(
        TableName="orders",
        IndexName="by-g",
        KeyConditionExpression="g = :g",
        ExpressionAttributeValues={":g": {"S": "g1"}},
    )
    assert by_g["Items"] == [i for i in items if i["g"]["S"] == "g1"]
    # and it takes writes: overwrite, update, delete, a new item
    client.put_item(TableName="orders", Item={**items[0], "body": {"S": "new"}})
    client.update_item(
        TableName="orders",
        Key={"pk": items[1]["pk"], "sk": items[1]["sk"]},
        UpdateExpression="SET g = :g",
        ExpressionAttributeValues={":g": {"S": "moved"}},
    )
    client.delete_item(TableName="orders", Key={"pk": items[2]["pk"], "sk": items[2]["sk"]})
    client.put_item(TableName="orders", Item=_item(1000))
    assert client.get_item(TableName="orders", Key={"pk": items[0]["pk"], "sk": items[0]["sk"]})["Item"][
        "body"
    ] == {"S": "new"}
    moved = client.query(
        TableName="orders",
        IndexName="by-g",
        KeyConditionExpression="g = :g",
        ExpressionAttributeValues={":g": {"S": "moved"}},
    )["Items"]
    assert [i["sk"] for i in moved] == [items[1]["sk"]]
    assert client.describe_table(TableName="orders")["Table"]["ItemCount"] == 60
    # a whole long body stored by the old layout is split when rewritten
    long_one = {**items[3], "extra": {"S": "e" * 5000}}
    client.put_item(TableName="orders", Item=long_one)
    assert (
        client.get_item(TableName="orders", Key={"pk": long_one["pk"], "sk": long_one["sk"]})["Item"]
        == long_one
    )
    client.close()
    assert _parts_problems(path, name) == []
    with sqlite3.connect(path) as raw:
        assert raw.execute(f'SELECT count(*) FROM "{name} parts"').fetchone()[0] >= 5


def test_opening_an_upgraded_file_again_changes_nothing(tmp_path):
    path = str(tmp_path / "again.db")
    client = dynabase.connect(path)
    client.create_table(**TABLE)
    client.put_item(TableName="orders", Item=_item(1))
    client.close()
    with sqlite3.connect(path) as raw:
        before = raw.execute("SELECT name, sql FROM sqlite_master ORDER BY name").fetchall()
    dynabase.connect(path).close()
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT name, sql FROM sqlite_master ORDER BY name").fetchall() == before


def test_parts_go_with_their_rows_on_every_write(tmp_path):
    """Long bodies' parts are dropped when their item is overwritten, updated, deleted or its table deleted."""
    path = str(tmp_path / "parts.db")
    client = dynabase.connect(path)
    client.create_table(**TABLE)
    name, _ = _item_table(path)
    expected = {}
    for n in range(40):
        item = _item(n, body=(n % 5) * 1500)
        expected[item["sk"]["S"]] = item
        client.put_item(TableName="orders", Item=item)
    items = list(expected.values())
    for n, item in enumerate(items[:10]):  # overwritten: longer or shorter
        new = {**item, "body": {"S": "y" * (9000 if n % 2 else 10)}}
        client.put_item(TableName="orders", Item=new)
        expected[item["sk"]["S"]] = new
    for item in items[10:20]:
        client.update_item(
            TableName="orders",
            Key={"pk": item["pk"], "sk": item["sk"]},
            UpdateExpression="SET body = :b",
            ExpressionAttributeValues={":b": {"S": "u" * 3100}},
        )
        expected[item["sk"]["S"]] = {**item, "body": {"S": "u" * 3100}}
    client.batch_write_item(
        RequestItems={
            "orders": [{"DeleteRequest": {"Key": {"pk": i["pk"], "sk": i["sk"]}}} for i in items[20:30]]
        }
    )
    client.transact_write_items(
        TransactItems=[
            {"Delete": {"TableName": "orders", "Key": {"pk": i["pk"], "sk": i["sk"]}}} for i in items[30:35]
        ]
    )
    for item in items[20:35]:
        del expected[item["sk"]["S"]]
    assert _parts_problems(path, name) == []
    scanned = client.scan(TableName="orders")["Items"]
    assert sorted(scanned, key=lambda i: i["sk"]["S"]) == [expected[k] for k in sorted(expected)]
    client.delete_table(TableName="orders")
    client.close()
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT name FROM sqlite_master WHERE name LIKE 't%'").fetchall() == []


def test_bodies_leave_out_the_s_and_b_keys_and_keep_n_keys(tmp_path):
    """The row's pk/sk columns hold S and B keys exactly; an N key's encoding does not keep its text."""
    path = str(tmp_path / "keys.db")
    client = dynabase.connect(path)
    for name, types in (("sbkeys", ("S", "B")), ("nskeys", ("N", "S"))):
        client.create_table(
            TableName=name,
            KeySchema=[
                {"AttributeName": "pk", "KeyType": "HASH"},
                {"AttributeName": "sk", "KeyType": "RANGE"},
            ],
            AttributeDefinitions=[
                {"AttributeName": "pk", "AttributeType": types[0]},
                {"AttributeName": "sk", "AttributeType": types[1]},
            ],
            BillingMode="PAY_PER_REQUEST",
        )
    sb = {"pk": {"S": "é#1"}, "sk": {"B": b"\x00\xff"}, "v": {"S": "x"}}
    ns = {"pk": {"N": "12.5"}, "sk": {"S": "s"}, "v": {"S": "x"}}
    client.put_item(TableName="sbkeys", Item=sb)
    client.put_item(TableName="nskeys", Item=ns)
    assert client.get_item(TableName="sbkeys", Key={"pk": sb["pk"], "sk": sb["sk"]})["Item"] == sb
    assert client.get_item(TableName="nskeys", Key={"pk": ns["pk"], "sk": ns["sk"]})["Item"] == ns
    client.close()
    with sqlite3.connect(path) as raw:
        ids = dict(raw.execute("SELECT name, id FROM dynabase_tables"))
        bodies = {
            name: [load_item(*row) for row in raw.execute(f"SELECT item, bin FROM t{ids[name]}")]
            for name in ids
        }
    assert bodies == {"sbkeys": [{"v": {"S": "x"}}], "nskeys": [{"pk": {"N": "12.5"}, "v": {"S": "x"}}]}


def test_bodies_over_32_kb_stay_whole(tmp_path):
    """SQLite's overflow pages hold them as densely, and parts would cost 1.7x the time to write and read."""
    path = str(tmp_path / "whole.db")
    client = dynabase.connect(path)
    client.create_table(**TABLE)
    name, _ = _item_table(path)
    items = [_item(1, body=30_000), _item(2, body=40_000)]
    for item in items:
        client.put_item(TableName="orders", Item=item)
    assert [
        client.get_item(TableName="orders", Key={"pk": i["pk"], "sk": i["sk"]})["Item"] for i in items
    ] == items
    client.close()
    with sqlite3.connect(path) as raw:
        assert raw.execute(f"SELECT parts FROM {name} ORDER BY size").fetchall() == [(30,), (None,)]


def test_a_file_of_the_previous_layout_reads_back_and_takes_writes(tmp_path):
    """Bodies written plain (before short ones were shortened) read back, and are shortened when rewritten."""
    path = tmp_path / "layout-2.db"
    path.write_bytes(gzip.decompress((Path(__file__).parent / "data" / "layout-2.db.gz").read_bytes()))
    expected = sorted(fixture_items(), key=_sort_key)
    client = dynabase.connect(str(path))
    assert sorted(client.scan(TableName="kept")["Items"], key=_sort_key) == expected
    assert sorted(_all_of_g(client), key=_sort_key) == expected
    with sqlite3.connect(path) as raw:
        assert {form for (form,) in raw.execute('SELECT bin FROM "t1 items"')} == {0, BINARY}
    for item in expected:
        client.put_item(TableName="kept", Item=item)
    for item in expected:
        key = {"pk": item["pk"], "sk": item["sk"]}
        assert client.get_item(TableName="kept", Key=key, ConsistentRead=True)["Item"] == item
    new = {**expected[0], "sk": {"N": "1000"}}  # a new item: through the insert trigger the view got on open
    client.put_item(TableName="kept", Item=new)
    assert client.get_item(TableName="kept", Key={"pk": new["pk"], "sk": new["sk"]})["Item"] == new
    assert client.describe_table(TableName="kept")["Table"]["ItemCount"] == len(expected) + 1
    client.close()
    with sqlite3.connect(path) as raw:
        assert SHORT in {form for (form,) in raw.execute('SELECT bin FROM "t1 items"')}
        assert _integrity_problems(raw) == []
    assert _parts_problems(str(path), "t1") == []


def _sort_key(item: dict) -> float:
    return float(item["sk"]["N"])


def _all_of_g(client) -> list[dict]:
    return [
        item
        for g in ("g0", "g1", "g2")
        for item in client.query(
            TableName="kept",
            IndexName="by-g",
            KeyConditionExpression="g = :g",
            ExpressionAttributeValues={":g": {"S": g}},
        )["Items"]
    ]
