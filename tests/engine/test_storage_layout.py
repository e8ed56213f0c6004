"""The item table's layout: rows that fit their pages, and files written with the old layout (embedded only)."""

from __future__ import annotations

import sqlite3

import dynabase
from dynabase.engine.storage import WITHOUT_ROWID_ITEM_TABLE
from dynabase.types import item_size

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


def _downgrade(path: str, name: str) -> None:
    """Rebuild the item table ``name`` with the old DDL, as a file written by an earlier version holds it."""
    raw = sqlite3.connect(path, isolation_level=None)
    raw.execute("BEGIN IMMEDIATE")
    raw.execute(f'ALTER TABLE {name} RENAME TO "{name} new"')
    raw.execute(f'DROP INDEX "{name} key"')
    raw.execute(WITHOUT_ROWID_ITEM_TABLE.format(name=name))
    raw.execute(f'INSERT INTO {name} SELECT h, pk, sk, item, size, bin FROM "{name} new"')
    raw.execute(f'DROP TABLE "{name} new"')
    raw.execute("COMMIT")
    raw.close()


def test_items_of_1_to_4_kb_fill_their_pages(tmp_path):
    """~1.1 KB items took ~4.3x their size in the WITHOUT ROWID table (a mostly empty overflow page each)."""
    path = str(tmp_path / "fit.db")
    client = dynabase.connect(path)
    client.create_table(**TABLE)
    total = 0
    for n in range(300):
        item = _item(n, body=1100 if n % 2 else 4000)
        total += item_size(item)
        client.put_item(TableName="orders", Item=item)
    client.close()
    assert "WITHOUT ROWID" not in _item_table(path)[1]
    assert _used_bytes(path) <= 1.5 * total


def test_a_file_with_the_old_layout_is_upgraded_on_open_and_keeps_every_item(tmp_path):
    path = str(tmp_path / "old.db")
    client = dynabase.connect(path)
    client.create_table(**TABLE)
    items = [_item(n) for n in range(60)]
    for item in items:
        client.put_item(TableName="orders", Item=item)
    client.close()
    name, _ = _item_table(path)
    _downgrade(path, name)
    assert _item_table(path)[1].endswith("WITHOUT ROWID")

    client = dynabase.connect(path)
    assert "WITHOUT ROWID" not in _item_table(path)[1]
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
    client.close()


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
