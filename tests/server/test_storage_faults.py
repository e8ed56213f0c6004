"""Storage faults reach the client as DynamoDB's InternalServerError saying what happened (a full disk, a damaged
file), not the generic "unknown error" that left the cause in the server's log only."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from dynabase.server import run_in_thread, start_subprocess

from .helpers import TARGET, boto_client, new_engine, raw_request

INTERNAL = "com.amazonaws.dynamodb.v20120810#InternalServerError"


def _fill(engine: Any, count: int = 60) -> None:
    engine.call(
        "CreateTable",
        {
            "TableName": "things",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "BillingMode": "PAY_PER_REQUEST",
        },
    )
    for i in range(count):
        engine.call("PutItem", {"TableName": "things", "Item": {"pk": {"S": f"k{i}"}, "v": {"S": "x" * 100}}})


def test_a_full_disk_is_named(tmp_path: Path) -> None:
    engine = new_engine(str(tmp_path / "full.db"))
    _fill(engine)
    conn = engine.storage.conn
    conn.execute(f"PRAGMA max_page_count = {conn.execute('PRAGMA page_count').fetchone()[0]}")  # no more room
    url, stop = run_in_thread(engine)
    try:
        big = {"TableName": "things", "Item": {"pk": {"S": "big"}, "v": {"S": "x" * 300_000}}}
        answer = raw_request(url, TARGET + "PutItem", json.dumps(big).encode())
        assert answer.status == 500
        assert answer.json() == {
            "__type": INTERNAL,
            "message": "the database's disk is full (SQLite: database or disk is full)",
        }
        from botocore.exceptions import ClientError

        with pytest.raises(ClientError) as caught:
            boto_client(url).put_item(**big)
        assert caught.value.response["Error"]["Code"] == "InternalServerError"
        assert caught.value.response["Error"]["Message"].startswith("the database's disk is full")
        assert boto_client(url).get_item(TableName="things", Key={"pk": {"S": "k1"}})["Item"]["v"]["S"]
    finally:
        stop()
        engine.close()


def test_a_damaged_file_is_named_at_the_failing_request(tmp_path: Path) -> None:
    path = tmp_path / "damaged.db"
    engine = new_engine(str(path))
    _fill(engine)
    engine.close()
    with sqlite3.connect(path) as conn:
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        (root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name LIKE '% items'").fetchone()
    conn.close()
    with open(path, "r+b") as handle:  # flip the bytes of the item table's b-tree page header
        handle.seek((root - 1) * page_size)
        header = handle.read(8)
        handle.seek((root - 1) * page_size)
        handle.write(bytes(b ^ 0xFF for b in header))
    process = start_subprocess(str(path), args=["-q"])
    try:
        answer = raw_request(process.url, TARGET + "Scan", b'{"TableName":"things"}')
        assert answer.status == 500
        assert answer.json() == {
            "__type": INTERNAL,
            "message": "the database file is damaged (SQLite: database disk image is malformed)",
        }
        assert "the database file is damaged" in process.output()  # and the log says it too
    finally:
        process.close()
