"""Stream records are kept for 24 hours (embedded engine: the retention is the engine's own bookkeeping)."""

from __future__ import annotations

import time

import dynabase


def test_records_older_than_24_hours_are_trimmed():
    client = dynabase.connect(":memory:")
    client.create_table(
        TableName="events",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"},
    )
    for key in ("old", "new"):
        client.put_item(TableName="events", Item={"pk": {"S": key}})
    conn = client.engine.storage.conn
    # age the first record past the retention period
    conn.execute(
        "UPDATE dynabase_stream_records SET created = ? WHERE seq = (SELECT min(seq) FROM dynabase_stream_records)",
        (time.time() - 25 * 3600,),
    )
    client.engine.trim_streams()
    streams = client.streams()
    arn = client.describe_table(TableName="events")["Table"]["LatestStreamArn"]
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")
    records = streams.get_records(ShardIterator=iterator["ShardIterator"])["Records"]
    assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in records] == ["new"]
    client.close()
