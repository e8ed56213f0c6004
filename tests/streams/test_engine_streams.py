"""The engine's side of consuming streams: the write listeners, and GetRecords' cost on a long stream."""

from __future__ import annotations

import dynabase
from ddb_helpers import table_request


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


def test_write_listeners_hear_committed_writes_only():
    client = dynabase.connect(":memory:")
    _table(client)
    heard: list[str] = []
    client.engine.write_listeners.append(heard.append)
    client.put_item(TableName="long", Item={"pk": {"S": "a"}})
    client.get_item(TableName="long", Key={"pk": {"S": "a"}})
    try:
        client.put_item(
            TableName="long", Item={"pk": {"S": "a"}}, ConditionExpression="attribute_not_exists(pk)"
        )
    except client.exceptions.ConditionalCheckFailedException:
        pass
    client.delete_item(TableName="long", Key={"pk": {"S": "a"}})
    assert heard == ["PutItem", "DeleteItem"]
    client.close()
