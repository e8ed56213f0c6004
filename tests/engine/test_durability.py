"""Durability and concurrency of the embedded engine's file storage (embedded only: these are about SQLite)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading

import pytest

import dynabase

TABLE = "durable"

WRITER = textwrap.dedent(
    """
    import sys, dynabase
    client = dynabase.connect(sys.argv[1])
    n = 0
    while True:
        client.put_item(TableName="durable", Item={"pk": {"S": f"k{n:08d}"}, "n": {"N": str(n)},
                                                   "pad": {"S": "x" * 500}})
        print(n, flush=True)
        n += 1
    """
)

COUNTER = textwrap.dedent(
    """
    import sys, dynabase
    client = dynabase.connect(sys.argv[1])
    for _ in range(int(sys.argv[2])):
        client.update_item(TableName="durable", Key={"pk": {"S": "counter"}},
                           UpdateExpression="ADD hits :one", ExpressionAttributeValues={":one": {"N": "1"}})
    """
)


def _create(path: str) -> None:
    client = dynabase.connect(path)
    client.create_table(
        TableName=TABLE,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    client.close()


def test_sigkill_mid_stream_keeps_every_acknowledged_write(tmp_path):
    path = str(tmp_path / "crash.db")
    _create(path)
    proc = subprocess.Popen([sys.executable, "-c", WRITER, path], stdout=subprocess.PIPE, text=True)
    acknowledged = -1
    try:
        for line in proc.stdout:
            acknowledged = int(line)
            if acknowledged >= 400:
                break
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    assert acknowledged >= 400
    # the file opens cleanly and passes SQLite's own integrity check
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    client = dynabase.connect(path)
    for n in range(acknowledged + 1):
        item = client.get_item(TableName=TABLE, Key={"pk": {"S": f"k{n:08d}"}}).get("Item")
        assert item is not None and item["n"] == {"N": str(n)}, f"acknowledged write {n} lost"
    # writes acknowledged after the last line we read may be there too, but never with a gap before them
    count = client.scan(TableName=TABLE, Select="COUNT")["Count"]
    assert count >= acknowledged + 1
    for n in range(acknowledged + 1, count):
        assert client.get_item(TableName=TABLE, Key={"pk": {"S": f"k{n:08d}"}}).get("Item") is not None
    client.close()


def test_processes_sharing_a_file_never_lose_an_update(tmp_path):
    path = str(tmp_path / "shared.db")
    _create(path)
    procs = [subprocess.Popen([sys.executable, "-c", COUNTER, path, "150"]) for _ in range(3)]
    for proc in procs:
        assert proc.wait(timeout=120) == 0
    client = dynabase.connect(path)
    item = client.get_item(TableName=TABLE, Key={"pk": {"S": "counter"}}, ConsistentRead=True)["Item"]
    assert item["hits"] == {"N": "450"}
    client.close()


def test_threads_sharing_a_client_never_lose_an_update(tmp_path):
    path = str(tmp_path / "threads.db")
    _create(path)
    client = dynabase.connect(path)
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(200):
                client.update_item(
                    TableName=TABLE,
                    Key={"pk": {"S": "counter"}},
                    UpdateExpression="ADD hits :one",
                    ExpressionAttributeValues={":one": {"N": "1"}},
                )
        except BaseException as error:  # surfaced below
            errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    item = client.get_item(TableName=TABLE, Key={"pk": {"S": "counter"}})["Item"]
    assert item["hits"] == {"N": "800"}
    client.close()


def test_a_second_connection_sees_tables_created_by_the_first(tmp_path):
    path = str(tmp_path / "catalog.db")
    first = dynabase.connect(path)
    second = dynabase.connect(path)
    assert second.list_tables()["TableNames"] == []
    _create(path)
    assert second.list_tables()["TableNames"] == [TABLE]
    second.put_item(TableName=TABLE, Item={"pk": {"S": "a"}})
    first.delete_table(TableName=TABLE)
    with pytest.raises(second.exceptions.ResourceNotFoundException):
        second.get_item(TableName=TABLE, Key={"pk": {"S": "a"}})
    first.close()
    second.close()


TRANSACTOR = textwrap.dedent(
    """
    import sys, dynabase
    client = dynabase.connect(sys.argv[1])
    n = 0
    while True:
        # move one unit from account a to account b, and log the move: three items, all or nothing
        client.transact_write_items(TransactItems=[
            {"Update": {"TableName": "ledger", "Key": {"pk": {"S": "a"}}, "UpdateExpression": "ADD balance :m",
                        "ExpressionAttributeValues": {":m": {"N": "-1"}}}},
            {"Update": {"TableName": "ledger", "Key": {"pk": {"S": "b"}}, "UpdateExpression": "ADD balance :p",
                        "ExpressionAttributeValues": {":p": {"N": "1"}}}},
            {"Put": {"TableName": "ledger", "Item": {"pk": {"S": f"move#{n:08d}"}, "pad": {"S": "x" * 300}}}},
        ])
        print(n, flush=True)
        n += 1
    """
)


def test_sigkill_during_transactions_leaves_no_partial_transaction_or_orphan_stream_record(tmp_path):
    path = str(tmp_path / "ledger.db")
    client = dynabase.connect(path)
    client.create_table(
        TableName="ledger",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
    )
    client.close()
    proc = subprocess.Popen([sys.executable, "-c", TRANSACTOR, path], stdout=subprocess.PIPE, text=True)
    acknowledged = -1
    try:
        for line in proc.stdout:
            acknowledged = int(line)
            if acknowledged >= 200:
                break
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    client = dynabase.connect(path)
    items = {i["pk"]["S"]: i for i in client.scan(TableName="ledger", ConsistentRead=True)["Items"]}
    moves = sorted(k for k in items if k.startswith("move#"))
    # every committed transaction is whole: balances agree with the number of moves logged, which is at least
    # the number acknowledged, with no gap
    assert len(moves) >= acknowledged + 1
    assert moves == [f"move#{n:08d}" for n in range(len(moves))]
    assert items["a"]["balance"] == {"N": str(-len(moves))}
    assert items["b"]["balance"] == {"N": str(len(moves))}
    # and each change has exactly its stream record: 2 balance changes + 1 insert per transaction
    streams = client.streams()
    arn = client.describe_table(TableName="ledger")["Table"]["LatestStreamArn"]
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")[
        "ShardIterator"
    ]
    records = []
    while True:
        page = streams.get_records(ShardIterator=iterator)
        records += page["Records"]
        if not page["Records"]:
            break
        iterator = page["NextShardIterator"]
    inserts = [
        r
        for r in records
        if r["eventName"] == "INSERT" and r["dynamodb"]["Keys"]["pk"]["S"].startswith("move#")
    ]
    assert len(inserts) == len(moves)
    assert len(records) == 3 * len(moves)
    sequence = [int(r["dynamodb"]["SequenceNumber"]) for r in records]
    assert sequence == sorted(sequence) and len(set(sequence)) == len(sequence)
    client.close()


def test_a_connection_with_a_cached_table_follows_changes_made_by_another(tmp_path):
    path = str(tmp_path / "stale.db")
    _create(path)
    first, second = dynabase.connect(path), dynabase.connect(path)
    first.put_item(TableName=TABLE, Item={"pk": {"S": "a"}, "g": {"S": "x"}})  # first now caches the table
    second.update_table(
        TableName=TABLE,
        AttributeDefinitions=[{"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexUpdates=[
            {
                "Create": {
                    "IndexName": "by-g",
                    "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "ALL"},
                }
            }
        ],
    )
    first.put_item(TableName=TABLE, Item={"pk": {"S": "b"}, "g": {"S": "x"}})  # must maintain the new index
    found = second.query(
        TableName=TABLE,
        IndexName="by-g",
        KeyConditionExpression="g = :g",
        ExpressionAttributeValues={":g": {"S": "x"}},
    )
    assert sorted(i["pk"]["S"] for i in found["Items"]) == ["a", "b"]
    second.delete_table(TableName=TABLE)
    with pytest.raises(first.exceptions.ResourceNotFoundException):
        first.put_item(TableName=TABLE, Item={"pk": {"S": "c"}})
    first.close()
    second.close()


def test_a_cached_table_never_reads_a_table_created_after_it_was_deleted(tmp_path):
    # GetItem trusts its cached table without a catalog check: this holds only because table ids are never reused
    path = str(tmp_path / "reuse.db")
    _create(path)
    first, second = dynabase.connect(path), dynabase.connect(path)
    first.put_item(TableName=TABLE, Item={"pk": {"S": "old"}})
    assert "Item" in first.get_item(TableName=TABLE, Key={"pk": {"S": "old"}})  # first caches the table
    second.delete_table(TableName=TABLE)
    with pytest.raises(first.exceptions.ResourceNotFoundException):
        first.get_item(TableName=TABLE, Key={"pk": {"S": "old"}})
    for name in ("other-table", TABLE):  # a new table may not take the deleted one's place in storage
        second.create_table(
            TableName=name,
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        second.put_item(TableName=name, Item={"pk": {"S": "old"}, "table": {"S": name}})
    third = dynabase.connect(path)
    ids = [third.engine.catalog.get(n).id for n in ("other-table", TABLE)]
    assert len(set(ids)) == 2 and min(ids) > 1
    got = first.get_item(TableName=TABLE, Key={"pk": {"S": "old"}})
    assert got["Item"]["table"] == {"S": TABLE}
    for client in (first, second, third):
        client.close()
