"""The engine's side of consuming streams: the change listeners, and GetRecords' cost on a long stream."""

from __future__ import annotations

import json

import pytest

import dynabase
from ddb_helpers import table_request
from dynabase.engine.streams import shard_id


def _table(client) -> str:
    client.create_table(**table_request("long", ("pk:S",), stream="KEYS_ONLY"))
    return client.describe_table(TableName="long")["Table"]["LatestStreamArn"]


def _steps_of_one_get_records(client, arn: str) -> int:
    """SQLite virtual-machine steps (in hundreds) of GetRecords(Limit=1) at the stream's end."""
    streams = client.streams()
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="LATEST")[
        "ShardIterator"
    ]
    steps = [0]
    conn = client.engine.storage.conn
    conn.set_progress_handler(lambda: steps.__setitem__(0, steps[0] + 1) or 0, 100)
    try:
        streams.get_records(ShardIterator=iterator, Limit=1)
    finally:
        conn.set_progress_handler(None, 0)
    return steps[0]


def test_get_records_does_not_scan_the_whole_stream():
    client = dynabase.connect(":memory:")
    arn = _table(client)
    for i in range(200):
        client.put_item(TableName="long", Item={"pk": {"S": f"k{i}"}})
    short = _steps_of_one_get_records(client, arn)
    for start in range(200, 5000, 25):
        client.batch_write_item(
            RequestItems={
                "long": [{"PutRequest": {"Item": {"pk": {"S": f"k{i}"}}}} for i in range(start, start + 25)]
            }
        )
    long = _steps_of_one_get_records(client, arn)
    assert long <= short + 2, (short, long)  # 25 times the records, the same work
    client.close()


def _put(engine, key: str) -> None:
    engine.call("PutItem", {"TableName": "long", "Item": {"pk": {"S": key}}})


def _keys(changes: list) -> list[str]:
    return [json.loads(text)["dynamodb"]["Keys"]["pk"]["S"] for _, _, text in changes]


def test_change_listeners_hear_committed_records_only_in_commit_order():
    client = dynabase.connect(":memory:")
    arn = _table(client)
    engine = client.engine
    assert engine.storage.journal is None  # no listener: writes journal nothing
    heard: list[list] = []
    engine.add_change_listener(heard.append)
    _put(engine, "a")
    client.get_item(TableName="long", Key={"pk": {"S": "a"}})
    with pytest.raises(client.exceptions.ConditionalCheckFailedException):
        client.put_item(
            TableName="long", Item={"pk": {"S": "a"}}, ConditionExpression="attribute_not_exists(pk)"
        )
    client.batch_write_item(RequestItems={"long": [{"PutRequest": {"Item": {"pk": {"S": k}}}} for k in "bc"]})
    client.delete_item(TableName="long", Key={"pk": {"S": "a"}})
    assert [_keys(changes) for changes in heard] == [["a"], ["b", "c"], ["a"]]
    seqs = [seq for changes in heard for seq, _, _ in changes]
    assert seqs == list(range(seqs[0], seqs[0] + 4))  # one sequence, no gap: this engine wrote them all
    assert {stream for changes in heard for _, stream, _ in changes} == {arn}
    stored = client.streams().get_records(
        ShardIterator=client.streams().get_shard_iterator(
            StreamArn=arn, ShardId=shard_id(arn), ShardIteratorType="TRIM_HORIZON"
        )["ShardIterator"]
    )["Records"]
    assert [int(r["dynamodb"]["SequenceNumber"]) for r in stored] == seqs
    engine.remove_change_listener(heard.append)
    assert engine.storage.journal is None and engine.change_listeners == ()
    client.close()


def test_rolled_back_records_never_reach_listeners():
    client = dynabase.connect(":memory:")
    _table(client)
    engine = client.engine
    heard: list[list] = []
    engine.add_change_listener(heard.append)
    with pytest.raises(RuntimeError), engine.storage.write():  # a whole transaction rolled back
        _put(engine, "lost")
        raise RuntimeError
    with engine.storage.write():  # a savepoint rolled back inside a transaction that commits
        _put(engine, "kept")
        with pytest.raises(RuntimeError), engine.storage.write():
            _put(engine, "undone")
            raise RuntimeError
        _put(engine, "after")
    assert [_keys(changes) for changes in heard] == [["kept", "after"]]
    assert sorted(i["pk"]["S"] for i in client.scan(TableName="long")["Items"]) == ["after", "kept"]
    seqs = [seq for seq, _, _ in heard[0]]
    assert seqs[1] == seqs[0] + 1  # the undone record's number was given again
    client.close()


def test_a_failing_listener_does_not_fail_the_committed_write(caplog):
    client = dynabase.connect(":memory:")
    _table(client)

    def broken(changes: list) -> None:
        raise ValueError("listener bug")

    heard: list[list] = []
    client.engine.add_change_listener(broken)
    client.engine.add_change_listener(heard.append)
    client.put_item(TableName="long", Item={"pk": {"S": "a"}})
    assert client.get_item(TableName="long", Key={"pk": {"S": "a"}})["Item"] == {"pk": {"S": "a"}}
    assert len(heard) == 1 and "listener bug" in caplog.text
    client.close()
