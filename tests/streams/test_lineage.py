"""Shard lineage and parallel shards, on a scripted Streams client.

No backend here splits shards (the engine and DynamoDB Local keep one shard per stream), so AWS's shape --
a closed parent shard and children naming it as ``ParentShardId`` -- is played by a small fake that answers
the four Streams calls the way AWS documents them.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from botocore.exceptions import ClientError

from dynabase.streams import Consumer, MemoryCheckpoints, Options

ARN = "arn:aws:dynamodb:us-east-1:000000000000:table/t/stream/2026-01-01T00:00:00.000"


def record(seq: int, key: str) -> dict:
    return {
        "eventID": f"e{seq}",
        "eventName": "INSERT",
        "eventVersion": "1.1",
        "eventSource": "aws:dynamodb",
        "awsRegion": "us-east-1",
        "dynamodb": {
            "ApproximateCreationDateTime": 1700000000.0,
            "Keys": {"pk": {"S": key}},
            "SequenceNumber": f"{seq:021d}",
            "SizeBytes": 5,
            "StreamViewType": "KEYS_ONLY",
        },
    }


class FakeStreams:
    """shards: id -> (parent id or None, records, closed)."""

    def __init__(self, shards: dict[str, tuple[str | None, list[dict], bool]], page: int = 1000) -> None:
        self.shards = shards
        self.reads: list[str] = []
        self.page = page
        self.expire_on: set[int] = set()  # numbers of get_records calls answered ExpiredIteratorException

    def describe_stream(self, StreamArn: str, **kwargs: Any) -> dict:
        shards = []
        for shard_id, (parent, records, closed) in self.shards.items():
            numbers = {"StartingSequenceNumber": records[0]["dynamodb"]["SequenceNumber"] if records else "0"}
            if closed:
                numbers["EndingSequenceNumber"] = records[-1]["dynamodb"]["SequenceNumber"]
            shard = {"ShardId": shard_id, "SequenceNumberRange": numbers}
            if parent:
                shard["ParentShardId"] = parent
            shards.append(shard)
        return {"StreamDescription": {"StreamArn": StreamArn, "Shards": shards}}

    def get_shard_iterator(self, StreamArn: str, ShardId: str, ShardIteratorType: str, **kwargs: Any) -> dict:
        records = self.shards[ShardId][1]
        if ShardIteratorType == "TRIM_HORIZON":
            position = 0
        elif ShardIteratorType == "LATEST":
            position = len(records)
        else:
            sequences = [r["dynamodb"]["SequenceNumber"] for r in records]
            position = sequences.index(kwargs["SequenceNumber"]) + (
                ShardIteratorType == "AFTER_SEQUENCE_NUMBER"
            )
        return {"ShardIterator": f"{ShardId}|{position}"}

    def get_records(self, ShardIterator: str, Limit: int = 1000) -> dict:
        shard_id, position = ShardIterator.split("|")
        position = int(position)
        _, records, closed = self.shards[shard_id]
        self.reads.append(shard_id)
        if len(self.reads) in self.expire_on:
            error = {"Error": {"Code": "ExpiredIteratorException", "Message": "Iterator expired."}}
            raise ClientError(error, "GetRecords")
        page = records[position : position + min(Limit, self.page)]
        time.sleep(0.02)
        end = position + len(page)
        out: dict[str, Any] = {"Records": page}
        if not (closed and end >= len(records)):
            out["NextShardIterator"] = f"{shard_id}|{end}"
        return out


def keys(batches: list[list[dict]]) -> list[str]:
    return [r["dynamodb"]["Keys"]["pk"]["S"] for b in batches for r in b]


def test_children_wait_for_their_parent():
    streams = FakeStreams(
        {
            "child-a": ("parent", [record(10, "a1"), record(11, "a2")], False),
            "parent": (None, [record(1, "p1"), record(2, "p2"), record(3, "p3")], True),
            "child-b": ("parent", [record(12, "b1")], False),
        }
    )
    batches: list[list[dict]] = []
    options = Options(batch_size=2, poll_interval=0.01, shard_refresh=0.0)
    consumer = Consumer(streams, ARN, lambda e, c: batches.append(e["Records"]), options=options)
    consumer.run(until_idle=True)
    handled = keys(batches)
    assert handled[:3] == ["p1", "p2", "p3"]
    assert sorted(handled[3:]) == ["a1", "a2", "b1"]
    assert consumer.checkpoints.get(consumer.name, ARN, "parent").finished
    assert "child-a" not in streams.reads[: streams.reads.index("parent") + 2]


def test_children_of_a_latest_start_begin_at_their_horizon():
    """A consumer that started at LATEST and saw the parent reads the children from their first record."""
    store = MemoryCheckpoints()
    parent_records = [record(1, "p1")]
    streams = FakeStreams({"parent": (None, parent_records, False)})
    batches: list[list[dict]] = []
    options = Options(starting_position="LATEST", poll_interval=0.01, shard_refresh=0.0)
    consumer = Consumer(
        streams, ARN, lambda e, c: batches.append(e["Records"]), options=options, checkpoints=store
    )
    consumer.prime()
    parent_records.append(record(2, "p2"))
    streams.shards["parent"] = (None, parent_records, True)  # the parent closes; a child takes over
    streams.shards["child"] = ("parent", [record(5, "c1")], False)
    consumer.run(until_idle=True)
    assert keys(batches) == ["p2", "c1"]


def test_parallel_shards_are_read_at_once():
    streams = FakeStreams(
        {f"s{i}": (None, [record(i * 10 + j, f"s{i}-{j}") for j in range(3)], False) for i in range(4)}
    )
    active: set[str] = set()
    most = [0]
    lock = threading.Lock()

    def handler(event: dict, context: Any) -> None:
        name = event["Records"][0]["dynamodb"]["Keys"]["pk"]["S"].split("-")[0]
        with lock:
            active.add(name)
            most[0] = max(most[0], len(active))
        time.sleep(0.1)
        with lock:
            active.discard(name)

    consumer = Consumer(streams, ARN, handler, options=Options(parallel_shards=4, poll_interval=0.01))
    assert consumer.run(until_idle=True) == 12
    assert most[0] > 1


def test_an_iterator_expiring_mid_batch_repeats_nothing():
    streams = FakeStreams({"s": (None, [record(i, f"k{i}") for i in range(1, 7)], False)}, page=2)
    streams.expire_on = {2, 5}
    batches: list[list[dict]] = []
    options = Options(batch_size=4, batching_window=1.0, poll_interval=0.01)
    consumer = Consumer(streams, ARN, lambda e, c: batches.append(e["Records"]), options=options)
    consumer.run(until_idle=True)
    assert keys(batches) == [f"k{i}" for i in range(1, 7)]
