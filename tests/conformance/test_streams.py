"""DynamoDB Streams basics (skipped on backends without a streams client)."""

from __future__ import annotations

import re

import pytest

from aws_differences import behaviour

EVENT_ID = behaviour("stream record eventID")


@pytest.fixture
def stream_table(client, make_table):
    table = make_table(("pk:S",), stream="NEW_AND_OLD_IMAGES")
    return table, client.describe_table(TableName=table)["Table"]["LatestStreamArn"]


def records(streams_client, arn):
    description = streams_client.describe_stream(StreamArn=arn)["StreamDescription"]
    out = []
    for shard in description["Shards"]:
        iterator = streams_client.get_shard_iterator(
            StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
        )["ShardIterator"]
        out += streams_client.get_records(ShardIterator=iterator)["Records"]
    return out


def test_list_streams_by_table(streams_client, stream_table):
    table, arn = stream_table
    streams = streams_client.list_streams(TableName=table)["Streams"]
    assert [s["StreamArn"] for s in streams] == [arn]
    assert streams[0]["TableName"] == table


def test_describe_stream(streams_client, stream_table):
    table, arn = stream_table
    description = streams_client.describe_stream(StreamArn=arn)["StreamDescription"]
    assert description["StreamArn"] == arn
    assert description["TableName"] == table
    assert description["StreamStatus"] == "ENABLED"
    assert description["StreamViewType"] == "NEW_AND_OLD_IMAGES"
    assert description["KeySchema"] == [{"AttributeName": "pk", "KeyType": "HASH"}]
    assert len(description["Shards"]) >= 1


def test_stream_records_for_writes(client, streams_client, stream_table):
    table, arn = stream_table
    key = {"pk": {"S": "a"}}
    client.put_item(TableName=table, Item={**key, "x": {"N": "1"}})
    client.update_item(
        TableName=table, Key=key, UpdateExpression="SET x = :v", ExpressionAttributeValues={":v": {"N": "2"}}
    )
    client.delete_item(TableName=table, Key=key)
    got = [
        (r["eventName"], r["dynamodb"]["Keys"], r["dynamodb"].get("OldImage"), r["dynamodb"].get("NewImage"))
        for r in records(streams_client, arn)
    ]
    assert got == [
        ("INSERT", key, None, {**key, "x": {"N": "1"}}),
        ("MODIFY", key, {**key, "x": {"N": "1"}}, {**key, "x": {"N": "2"}}),
        ("REMOVE", key, {**key, "x": {"N": "2"}}, None),
    ]


def test_describe_unknown_stream(streams_client, stream_table):
    _table, arn = stream_table
    with pytest.raises(streams_client.exceptions.ResourceNotFoundException):
        streams_client.describe_stream(StreamArn=arn + "x")


def test_stream_records_carry_an_event_id_and_whole_creation_seconds(client, streams_client, stream_table):
    table, arn = stream_table
    client.put_item(TableName=table, Item={"pk": {"S": "a"}})
    client.put_item(TableName=table, Item={"pk": {"S": "b"}})
    got = records(streams_client, arn)
    assert len({r["eventID"] for r in got}) == 2
    for record in got:
        created = record["dynamodb"]["ApproximateCreationDateTime"]
        assert created.microsecond == 0  # whole seconds on the wire


@pytest.mark.aws_only(reason=EVENT_ID.local, ref=EVENT_ID.ref)
def test_event_ids_are_32_hex_digits(client, streams_client, stream_table):
    table, arn = stream_table
    client.put_item(TableName=table, Item={"pk": {"S": "a"}})
    client.delete_item(TableName=table, Key={"pk": {"S": "a"}})
    assert [bool(re.fullmatch("[0-9a-f]{32}", r["eventID"])) for r in records(streams_client, arn)] == [
        True
    ] * 2
