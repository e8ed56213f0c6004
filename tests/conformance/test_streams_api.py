"""DynamoDB Streams API: ListStreams, DescribeStream, GetShardIterator, GetRecords (``streams_client``).

Each table has one shard per stream.  Records come in write order with increasing 21-digit sequence numbers; a
write that changes nothing (an identical put, a no-op update, a delete of a missing item, a failed condition)
writes no record.  What a record carries depends on the StreamViewType: ``Keys`` always, ``NewImage`` and/or
``OldImage`` as the view type says.  Where ListStreams returns streams in an unspecified order, they are compared
as sets.
"""

from __future__ import annotations

import datetime
import re
import time

import pytest
from botocore.exceptions import ClientError, ParamValidationError

from ddb_helpers import assert_client_error

SEQUENCE = re.compile(r"\d{21}")
SHARD_ID = re.compile(r"shardId-\d{20}-[0-9a-f]{8}")
LABEL = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}")
VIEW_TYPES = ["KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES"]
INVALID = "One or more parameter values were invalid: "


def K(value):
    return {"pk": {"S": value}}


@pytest.fixture
def stream_table(client, make_table):
    """``stream_table(view_type="NEW_AND_OLD_IMAGES", keys=("pk:S",)) -> (table, stream arn)``."""

    def create(view_type="NEW_AND_OLD_IMAGES", keys=("pk:S",)):
        table = make_table(keys, stream=view_type)
        return table, client.describe_table(TableName=table)["Table"]["LatestStreamArn"]

    return create


def describe(streams_client, arn, **extra):
    return streams_client.describe_stream(StreamArn=arn, **extra)["StreamDescription"]


def shard_id(streams_client, arn):
    (shard,) = describe(streams_client, arn)["Shards"]
    return shard["ShardId"]


def iterator(streams_client, arn, kind="TRIM_HORIZON", **extra):
    return streams_client.get_shard_iterator(
        StreamArn=arn, ShardId=shard_id(streams_client, arn), ShardIteratorType=kind, **extra
    )["ShardIterator"]


def read(streams_client, arn, kind="TRIM_HORIZON", **extra):
    """Every record from an iterator of ``kind`` (following NextShardIterator until a page comes back empty)."""
    records = []
    position = iterator(streams_client, arn, kind, **extra)
    while position:
        page = streams_client.get_records(ShardIterator=position)
        if not page["Records"]:
            break
        records += page["Records"]
        position = page.get("NextShardIterator")
    return records


def summary(records):
    return [(r["eventName"], r["dynamodb"]["Keys"]) for r in records]


# -- ListStreams -------------------------------------------------------------------------------------------------


def test_list_streams_of_a_table(client, streams_client, stream_table, hash_table):
    table, arn = stream_table()
    stream_table()  # another table's stream
    response = streams_client.list_streams(TableName=table)
    assert set(response) == {"Streams", "ResponseMetadata"}
    assert response["Streams"] == [
        {"StreamArn": arn, "TableName": table, "StreamLabel": arn.rsplit("/", 1)[1]}
    ]
    assert streams_client.list_streams(TableName=hash_table)["Streams"] == []


def test_stream_arn_and_label(client, stream_table):
    table, arn = stream_table()
    description = client.describe_table(TableName=table)["Table"]
    label = description["LatestStreamLabel"]
    assert LABEL.fullmatch(label), label
    table_arn = description["TableArn"]
    assert arn == f"{table_arn}/stream/{label}"


def test_list_streams_without_filter_includes_the_table(streams_client, stream_table):
    table, arn = stream_table()
    streams, start = [], {}
    while True:
        page = streams_client.list_streams(Limit=100, **start)
        streams += page["Streams"]
        if "LastEvaluatedStreamArn" not in page:
            break
        start = {"ExclusiveStartStreamArn": page["LastEvaluatedStreamArn"]}
    assert {"StreamArn": arn, "TableName": table, "StreamLabel": arn.rsplit("/", 1)[1]} in streams


@pytest.fixture
def three_streams(client, stream_table):
    """A table whose stream was enabled three times: (table, [stream arns, oldest first])."""
    table, arn = stream_table("KEYS_ONLY")
    arns = [arn]
    for _ in range(2):
        client.update_table(TableName=table, StreamSpecification={"StreamEnabled": False})
        time.sleep(0.01)  # see test_quick_reenabling_creates_new_streams
        arns.append(
            client.update_table(
                TableName=table, StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}
            )["TableDescription"]["LatestStreamArn"]
        )
    return table, arns


def test_quick_reenabling_creates_new_streams(client, streams_client, stream_table):
    table, arn = stream_table("KEYS_ONLY")
    arns = [arn]
    for _ in range(3):
        client.update_table(TableName=table, StreamSpecification={"StreamEnabled": False})
        arns.append(
            client.update_table(
                TableName=table, StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}
            )["TableDescription"]["LatestStreamArn"]
        )
    assert len(set(arns)) == 4
    assert [describe(streams_client, a)["StreamStatus"] for a in arns] == ["DISABLED"] * 3 + ["ENABLED"]


def test_each_enable_creates_a_new_stream(client, streams_client, three_streams):
    table, arns = three_streams
    assert len(set(arns)) == 3
    listed = streams_client.list_streams(TableName=table)["Streams"]
    assert sorted(s["StreamArn"] for s in listed) == sorted(arns)
    assert [describe(streams_client, arn)["StreamStatus"] for arn in arns] == [
        "DISABLED",
        "DISABLED",
        "ENABLED",
    ]


def test_list_streams_pages(streams_client, three_streams):
    table, arns = three_streams
    seen, start, pages = [], {}, 0
    while True:
        page = streams_client.list_streams(TableName=table, Limit=1, **start)
        pages += 1
        assert len(page["Streams"]) == 1
        seen.append(page["Streams"][0]["StreamArn"])
        if "LastEvaluatedStreamArn" not in page:
            break
        assert page["LastEvaluatedStreamArn"] == seen[-1]
        start = {"ExclusiveStartStreamArn": page["LastEvaluatedStreamArn"]}
    assert pages == 3
    assert sorted(seen) == sorted(arns)


def test_list_streams_limit_below_the_count(streams_client, three_streams):
    table, arns = three_streams
    page = streams_client.list_streams(TableName=table, Limit=2)
    assert len(page["Streams"]) == 2
    assert page["LastEvaluatedStreamArn"] in arns


def test_list_streams_limit_equal_to_the_count(streams_client, three_streams):
    table, _ = three_streams
    page = streams_client.list_streams(TableName=table, Limit=3)
    assert len(page["Streams"]) == 3
    assert "LastEvaluatedStreamArn" not in page


def test_list_streams_limit_too_large(streams_client):
    assert_client_error(
        lambda: streams_client.list_streams(Limit=101),
        "ValidationException",
        INVALID + "Limit cannot be greater than the maximum allowed size: 100",
    )


def test_list_streams_limit_zero_is_a_parameter_error(streams_client):
    with pytest.raises(ParamValidationError):
        streams_client.list_streams(Limit=0)


def test_list_streams_unknown_table(streams_client):
    response = streams_client.list_streams(TableName="dynabase_test-no-such-table")
    assert response["Streams"] == []
    assert "LastEvaluatedStreamArn" not in response


@pytest.mark.aws_only(
    reason="Local lists no streams for a table name the model refuses",
    ref="botocore's dynamodbstreams model: TableName pattern [a-zA-Z0-9_.-]+",
)
def test_list_streams_invalid_table_name(streams_client):
    assert_client_error(
        lambda: streams_client.list_streams(TableName="a$b"),
        "ValidationException",
        "1 validation error detected: Value 'a$b' at 'tableName' failed to satisfy constraint: Member must satisfy "
        "regular expression pattern: [a-zA-Z0-9_.-]+",
    )


def test_stream_of_deleted_table_stays_listed(client, streams_client, make_table):
    table = make_table(("pk:S",), stream="KEYS_ONLY")
    arn = client.describe_table(TableName=table)["Table"]["LatestStreamArn"]
    client.put_item(TableName=table, Item=K("a"))
    client.delete_table(TableName=table)
    assert [s["StreamArn"] for s in streams_client.list_streams(TableName=table)["Streams"]] == [arn]
    description = describe(streams_client, arn)
    assert description["StreamStatus"] == "DISABLED"
    assert summary(read(streams_client, arn)) == [("INSERT", K("a"))]


# -- DescribeStream ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("view_type", VIEW_TYPES)
def test_describe_stream(client, streams_client, stream_table, view_type):
    table, arn = stream_table(view_type, keys=("pk:S", "sk:N"))
    response = streams_client.describe_stream(StreamArn=arn)
    assert set(response) == {"StreamDescription", "ResponseMetadata"}
    description = response["StreamDescription"]
    assert set(description) == {
        "StreamArn",
        "StreamLabel",
        "StreamStatus",
        "StreamViewType",
        "CreationRequestDateTime",
        "TableName",
        "KeySchema",
        "Shards",
    }
    assert description["StreamArn"] == arn
    assert description["StreamLabel"] == arn.rsplit("/", 1)[1]
    assert description["StreamStatus"] == "ENABLED"
    assert description["StreamViewType"] == view_type
    assert description["TableName"] == table
    assert description["KeySchema"] == [
        {"AttributeName": "pk", "KeyType": "HASH"},
        {"AttributeName": "sk", "KeyType": "RANGE"},
    ]
    assert isinstance(description["CreationRequestDateTime"], datetime.datetime)
    (shard,) = description["Shards"]
    assert set(shard) == {"ShardId", "SequenceNumberRange"}
    assert SHARD_ID.fullmatch(shard["ShardId"]), shard["ShardId"]
    assert set(shard["SequenceNumberRange"]) == {"StartingSequenceNumber"}
    assert SEQUENCE.fullmatch(shard["SequenceNumberRange"]["StartingSequenceNumber"])


def test_shard_starts_at_the_first_record(client, streams_client, stream_table):
    table, arn = stream_table()
    client.put_item(TableName=table, Item=K("a"))
    client.put_item(TableName=table, Item=K("b"))
    (shard,) = describe(streams_client, arn)["Shards"]
    first = read(streams_client, arn)[0]["dynamodb"]["SequenceNumber"]
    assert shard["SequenceNumberRange"] == {"StartingSequenceNumber": first}


def test_describe_disabled_stream(client, streams_client, stream_table):
    table, arn = stream_table()
    client.put_item(TableName=table, Item=K("a"))
    client.put_item(TableName=table, Item=K("b"))
    client.update_table(TableName=table, StreamSpecification={"StreamEnabled": False})
    description = describe(streams_client, arn)
    assert description["StreamStatus"] == "DISABLED"
    assert description["StreamViewType"] == "NEW_AND_OLD_IMAGES"
    (shard,) = description["Shards"]
    sequence_numbers = [r["dynamodb"]["SequenceNumber"] for r in read(streams_client, arn)]
    assert shard["SequenceNumberRange"] == {
        "StartingSequenceNumber": sequence_numbers[0],
        "EndingSequenceNumber": sequence_numbers[-1],
    }


def test_describe_stream_limit_too_large(streams_client, stream_table):
    _, arn = stream_table()
    assert_client_error(
        lambda: streams_client.describe_stream(StreamArn=arn, Limit=101),
        "ValidationException",
        INVALID + "Limit cannot be greater than the maximum: 100",
    )


def test_describe_stream_limit(streams_client, stream_table):
    _, arn = stream_table()
    description = describe(streams_client, arn, Limit=1)
    assert len(description["Shards"]) == 1
    assert "LastEvaluatedShardId" not in description


def test_describe_stream_after_the_last_shard(streams_client, stream_table):
    _, arn = stream_table()
    description = describe(streams_client, arn, ExclusiveStartShardId=shard_id(streams_client, arn))
    assert description["Shards"] == []
    assert description["StreamStatus"] == "ENABLED"


@pytest.mark.parametrize("shard_filter", [{}, {"ShardId": "shardId-00000000000000000000-00000000"}])
def test_describe_stream_shard_filter_without_type(streams_client, stream_table, shard_filter):
    """DynamoDB Local's answer (AWS's could not be established; botocore's model makes neither member required)."""
    _, arn = stream_table()
    assert_client_error(
        lambda: streams_client.describe_stream(StreamArn=arn, ShardFilter=shard_filter),
        "ValidationException",
        "1 validation error detected: Value 'null' at 'shardFilter.type' failed to satisfy constraint: Member must "
        "be CHILD_SHARDS",
    )


def test_describe_stream_shard_filter_without_shard_id(streams_client, stream_table):
    """DynamoDB Local lists no shard (AWS's answer could not be established, so Local's is kept)."""
    _, arn = stream_table()
    assert describe(streams_client, arn, ShardFilter={"Type": "CHILD_SHARDS"})["Shards"] == []


def test_describe_unknown_stream(streams_client, stream_table):
    _, arn = stream_table()
    unknown = arn.replace("dynabase_test-", "dynabase_gone-")
    error = assert_client_error(
        lambda: streams_client.describe_stream(StreamArn=unknown),
        "ResourceNotFoundException",
        f"Requested resource not found: Stream: {unknown} not found",
    )
    assert isinstance(error, streams_client.exceptions.ResourceNotFoundException)


# -- GetShardIterator --------------------------------------------------------------------------------------------


@pytest.fixture
def three_writes(client, streams_client, stream_table):
    """A stream holding INSERT a, INSERT b, INSERT c: (table, arn, [sequence numbers])."""
    table, arn = stream_table("KEYS_ONLY")
    for key in "abc":
        client.put_item(TableName=table, Item=K(key))
    return table, arn, [r["dynamodb"]["SequenceNumber"] for r in read(streams_client, arn)]


def keys_of(records):
    return [r["dynamodb"]["Keys"]["pk"]["S"] for r in records]


def test_iterator_shape(streams_client, three_writes):
    _, arn, _ = three_writes
    response = streams_client.get_shard_iterator(
        StreamArn=arn, ShardId=shard_id(streams_client, arn), ShardIteratorType="TRIM_HORIZON"
    )
    assert set(response) == {"ShardIterator", "ResponseMetadata"}
    assert isinstance(response["ShardIterator"], str)
    assert response["ShardIterator"].startswith(arn + "|")


def test_trim_horizon(streams_client, three_writes):
    _, arn, _ = three_writes
    assert keys_of(read(streams_client, arn, "TRIM_HORIZON")) == ["a", "b", "c"]


def test_latest(client, streams_client, three_writes):
    table, arn, _ = three_writes
    position = iterator(streams_client, arn, "LATEST")
    page = streams_client.get_records(ShardIterator=position)
    assert page["Records"] == []
    client.put_item(TableName=table, Item=K("d"))
    assert keys_of(streams_client.get_records(ShardIterator=page["NextShardIterator"])["Records"]) == ["d"]
    client.put_item(TableName=table, Item=K("e"))
    assert keys_of(streams_client.get_records(ShardIterator=position)["Records"]) == ["d", "e"]


@pytest.mark.parametrize(
    "kind, index, expected",
    [
        ("AT_SEQUENCE_NUMBER", 0, ["a", "b", "c"]),
        ("AT_SEQUENCE_NUMBER", 1, ["b", "c"]),
        ("AT_SEQUENCE_NUMBER", 2, ["c"]),
        ("AFTER_SEQUENCE_NUMBER", 0, ["b", "c"]),
        ("AFTER_SEQUENCE_NUMBER", 1, ["c"]),
        ("AFTER_SEQUENCE_NUMBER", 2, []),
    ],
)
def test_at_and_after_sequence_number(streams_client, three_writes, kind, index, expected):
    _, arn, sequence_numbers = three_writes
    position = iterator(streams_client, arn, kind, SequenceNumber=sequence_numbers[index])
    page = streams_client.get_records(ShardIterator=position)
    assert keys_of(page["Records"]) == expected
    assert "NextShardIterator" in page


@pytest.mark.parametrize("kind", ["TRIM_HORIZON", "LATEST"])
def test_sequence_number_with_positional_iterator(streams_client, three_writes, kind):
    _, arn, sequence_numbers = three_writes
    assert_client_error(
        lambda: iterator(streams_client, arn, kind, SequenceNumber=sequence_numbers[0]),
        "ValidationException",
        INVALID + "SequenceNumber should not be passed for this iterator type",
    )


@pytest.mark.parametrize("kind", ["AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER"])
def test_sequence_iterator_without_sequence_number(streams_client, three_writes, kind):
    _, arn, _ = three_writes
    assert_client_error(
        lambda: iterator(streams_client, arn, kind), "ValidationException", INVALID + "Invalid SequenceNumber"
    )


@pytest.mark.parametrize("kind", ["AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER"])
@pytest.mark.parametrize("sequence_number", ["0" * 21, "0" * 40])
def test_sequence_number_before_the_shard(streams_client, three_writes, kind, sequence_number):
    _, arn, _ = three_writes
    assert_client_error(
        lambda: iterator(streams_client, arn, kind, SequenceNumber=sequence_number),
        "ValidationException",
        "Invalid SequenceNumber for the shard",
    )


def test_sequence_number_too_long(streams_client, three_writes):
    _, arn, _ = three_writes
    sequence_number = "0" * 41
    assert_client_error(
        lambda: iterator(streams_client, arn, "AT_SEQUENCE_NUMBER", SequenceNumber=sequence_number),
        "ValidationException",
        f"1 validation error detected: Value '{sequence_number}' at 'sequenceNumber' failed to satisfy constraint: "
        "Member must have length less than or equal to 40",
    )


@pytest.mark.parametrize("sequence_number", ["abc", "1", "0" * 20])
def test_sequence_number_too_short_is_a_parameter_error(streams_client, three_writes, sequence_number):
    _, arn, _ = three_writes
    with pytest.raises(ParamValidationError):
        iterator(streams_client, arn, "AT_SEQUENCE_NUMBER", SequenceNumber=sequence_number)


def test_unknown_shard(streams_client, stream_table):
    _, arn = stream_table()
    assert_client_error(
        lambda: streams_client.get_shard_iterator(
            StreamArn=arn, ShardId="shardId-00000000000000000000-00000000", ShardIteratorType="TRIM_HORIZON"
        ),
        "ResourceNotFoundException",
        "Shard does not exist",
    )


def test_iterator_of_unknown_stream(streams_client, stream_table):
    _, arn = stream_table()
    shard = shard_id(streams_client, arn)
    assert_client_error(
        lambda: streams_client.get_shard_iterator(
            StreamArn=arn.replace("dynabase_test-", "dynabase_gone-"),
            ShardId=shard,
            ShardIteratorType="LATEST",
        ),
        "ResourceNotFoundException",
        "Stream does not exist",
    )


# -- GetRecords: records -----------------------------------------------------------------------------------------

RK = {"pk": {"S": "a"}, "sk": {"N": "1"}}  # 3 + 4 bytes
NEW_KEY = {"pk": {"S": "new"}, "sk": {"N": "5"}}
V1 = {**RK, "x": {"S": "1"}}
V2 = {**RK, "x": {"S": "2"}, "l": {"L": [{"N": "1"}]}}


def write_history(client, table):
    """INSERT a, MODIFY a, INSERT new (an update creating a key-only item), REMOVE a -- and writes that change nothing."""
    client.put_item(TableName=table, Item=V1)
    client.put_item(TableName=table, Item=V1)  # identical
    client.update_item(
        TableName=table, Key=RK, UpdateExpression="SET x = :v", ExpressionAttributeValues={":v": {"S": "1"}}
    )
    client.update_item(TableName=table, Key=RK, UpdateExpression="REMOVE nothere")
    client.put_item(TableName=table, Item=V2)
    client.delete_item(TableName=table, Key={"pk": {"S": "zz"}, "sk": {"N": "1"}})  # missing
    client.update_item(TableName=table, Key=NEW_KEY, UpdateExpression="REMOVE y")
    client.delete_item(TableName=table, Key=RK)
    with pytest.raises(ClientError):
        client.put_item(TableName=table, Item=RK, ConditionExpression="attribute_exists(pk)")


EXPECTED_IMAGES = {
    # view type: [(eventName, Keys, OldImage, NewImage, SizeBytes), ...]
    "KEYS_ONLY": [
        ("INSERT", RK, None, None, 7),
        ("MODIFY", RK, None, None, 7),
        ("INSERT", NEW_KEY, None, None, 9),
        ("REMOVE", RK, None, None, 7),
    ],
    "NEW_IMAGE": [
        ("INSERT", RK, None, V1, 16),
        ("MODIFY", RK, None, V2, 23),
        ("INSERT", NEW_KEY, None, NEW_KEY, 18),
        ("REMOVE", RK, None, None, 7),
    ],
    "OLD_IMAGE": [
        ("INSERT", RK, None, None, 7),
        ("MODIFY", RK, V1, None, 16),
        ("INSERT", NEW_KEY, None, None, 9),
        ("REMOVE", RK, V2, None, 23),
    ],
    "NEW_AND_OLD_IMAGES": [
        ("INSERT", RK, None, V1, 16),
        ("MODIFY", RK, V1, V2, 32),
        ("INSERT", NEW_KEY, None, NEW_KEY, 18),
        ("REMOVE", RK, V2, None, 23),
    ],
}


@pytest.mark.parametrize("view_type", VIEW_TYPES)
def test_records_per_view_type(client, streams_client, stream_table, view_type):
    table, arn = stream_table(view_type, keys=("pk:S", "sk:N"))
    write_history(client, table)
    records = read(streams_client, arn)
    got = [
        (
            r["eventName"],
            r["dynamodb"]["Keys"],
            r["dynamodb"].get("OldImage"),
            r["dynamodb"].get("NewImage"),
            r["dynamodb"]["SizeBytes"],
        )
        for r in records
    ]
    assert got == EXPECTED_IMAGES[view_type]
    assert all(r["dynamodb"]["StreamViewType"] == view_type for r in records)


def test_record_shape(client, streams_client, stream_table):
    table, arn = stream_table()
    client.put_item(TableName=table, Item={**K("a"), "v": {"N": "1"}})
    client.put_item(TableName=table, Item={**K("a"), "v": {"N": "2"}})
    records = read(streams_client, arn)
    region = arn.split(":")[3]
    for record in records:
        assert set(record) == {"eventID", "eventName", "eventVersion", "eventSource", "awsRegion", "dynamodb"}
        assert record["eventVersion"] == "1.1"
        assert record["eventSource"] == "aws:dynamodb"
        assert record["awsRegion"] == region
        assert isinstance(record["eventID"], str) and record["eventID"]
        assert isinstance(record["dynamodb"]["ApproximateCreationDateTime"], datetime.datetime)
    assert set(records[0]["dynamodb"]) == {
        "ApproximateCreationDateTime",
        "Keys",
        "NewImage",
        "SequenceNumber",
        "SizeBytes",
        "StreamViewType",
    }
    assert set(records[1]["dynamodb"]) == set(records[0]["dynamodb"]) | {"OldImage"}
    assert records[0]["eventID"] != records[1]["eventID"]


def test_sequence_numbers_increase(client, streams_client, stream_table):
    table, arn = stream_table("KEYS_ONLY")
    other_table, _ = stream_table("KEYS_ONLY")
    for i in range(5):
        client.put_item(TableName=table, Item=K(str(i)))
        client.put_item(TableName=other_table, Item=K(str(i)))
    numbers = [r["dynamodb"]["SequenceNumber"] for r in read(streams_client, arn)]
    assert len(numbers) == 5
    assert all(SEQUENCE.fullmatch(n) for n in numbers), numbers
    assert [int(n) for n in numbers] == sorted({int(n) for n in numbers})


UNCHANGED = {
    "pk": {"S": "a"},
    "n": {"N": "1"},
    "s": {"SS": ["x", "y"]},
    "m": {"M": {"a": {"N": "1"}, "b": {"S": "b"}}},
}


@pytest.mark.parametrize(
    "write",
    [
        lambda c, t: c.put_item(TableName=t, Item=UNCHANGED),
        lambda c, t: c.put_item(TableName=t, Item={**UNCHANGED, "s": {"SS": ["y", "x"]}}),
        lambda c, t: c.put_item(TableName=t, Item={**UNCHANGED, "n": {"N": "1.0"}}),
        lambda c, t: c.put_item(
            TableName=t, Item={**UNCHANGED, "m": {"M": {"b": {"S": "b"}, "a": {"N": "1"}}}}
        ),
        lambda c, t: c.update_item(
            TableName=t,
            Key=K("a"),
            UpdateExpression="SET n = :n",
            ExpressionAttributeValues={":n": {"N": "1"}},
        ),
        lambda c, t: c.update_item(
            TableName=t,
            Key=K("a"),
            UpdateExpression="SET n = :n",
            ExpressionAttributeValues={":n": {"N": "1.00"}},
        ),
        lambda c, t: c.update_item(
            TableName=t, Key=K("a"), UpdateExpression="ADD n :z", ExpressionAttributeValues={":z": {"N": "0"}}
        ),
        lambda c, t: c.update_item(
            TableName=t,
            Key=K("a"),
            UpdateExpression="DELETE s :z",
            ExpressionAttributeValues={":z": {"SS": ["z"]}},
        ),
        lambda c, t: c.update_item(
            TableName=t,
            Key=K("a"),
            UpdateExpression="ADD s :x",
            ExpressionAttributeValues={":x": {"SS": ["x"]}},
        ),
        lambda c, t: c.update_item(TableName=t, Key=K("a"), UpdateExpression="REMOVE nothere, m.nothere"),
        lambda c, t: c.delete_item(TableName=t, Key=K("nope")),
        lambda c, t: c.batch_write_item(RequestItems={t: [{"DeleteRequest": {"Key": K("nope")}}]}),
        lambda c, t: c.transact_write_items(TransactItems=[{"Delete": {"TableName": t, "Key": K("nope")}}]),
    ],
    ids=[
        "identical-put",
        "put-reordered-set",
        "put-number-spelled-differently",
        "put-reordered-map",
        "set-same-value",
        "set-same-number-spelled-differently",
        "add-zero",
        "delete-absent-set-element",
        "add-present-set-element",
        "remove-absent-attributes",
        "delete-missing-item",
        "batch-delete-missing-item",
        "transaction-delete-missing-item",
    ],
)
def test_unchanged_write_writes_no_record(client, streams_client, stream_table, write):
    table, arn = stream_table()
    client.put_item(TableName=table, Item=UNCHANGED)
    write(client, table)
    assert summary(read(streams_client, arn)) == [("INSERT", K("a"))]


def test_failed_conditional_write_writes_no_record(client, streams_client, stream_table):
    table, arn = stream_table()
    client.put_item(TableName=table, Item=UNCHANGED)
    with pytest.raises(client.exceptions.ConditionalCheckFailedException):
        client.update_item(
            TableName=table,
            Key=K("a"),
            UpdateExpression="SET n = :two",
            ConditionExpression="n = :two",
            ExpressionAttributeValues={":two": {"N": "2"}},
        )
    with pytest.raises(client.exceptions.ConditionalCheckFailedException):
        client.delete_item(TableName=table, Key=K("a"), ConditionExpression="attribute_not_exists(pk)")
    assert summary(read(streams_client, arn)) == [("INSERT", K("a"))]


def test_get_records_limit(client, streams_client, stream_table):
    table, arn = stream_table("KEYS_ONLY")
    for key in "abcde":
        client.put_item(TableName=table, Item=K(key))
    page = streams_client.get_records(ShardIterator=iterator(streams_client, arn), Limit=2)
    assert keys_of(page["Records"]) == ["a", "b"]
    page = streams_client.get_records(ShardIterator=page["NextShardIterator"], Limit=2)
    assert keys_of(page["Records"]) == ["c", "d"]
    page = streams_client.get_records(ShardIterator=page["NextShardIterator"])
    assert keys_of(page["Records"]) == ["e"]
    page = streams_client.get_records(ShardIterator=page["NextShardIterator"])
    assert page["Records"] == []
    assert "NextShardIterator" in page  # the shard is still open


def test_next_iterator_sees_later_writes(client, streams_client, stream_table):
    table, arn = stream_table("KEYS_ONLY")
    page = streams_client.get_records(ShardIterator=iterator(streams_client, arn))
    assert set(page) == {"Records", "NextShardIterator", "ResponseMetadata"}
    assert page["Records"] == []
    client.put_item(TableName=table, Item=K("a"))
    page = streams_client.get_records(ShardIterator=page["NextShardIterator"])
    assert keys_of(page["Records"]) == ["a"]
    client.put_item(TableName=table, Item=K("b"))
    page = streams_client.get_records(ShardIterator=page["NextShardIterator"])
    assert keys_of(page["Records"]) == ["b"]


def test_iterators_can_be_reused(client, streams_client, stream_table):
    table, arn = stream_table("KEYS_ONLY")
    client.put_item(TableName=table, Item=K("a"))
    position = iterator(streams_client, arn)
    first = streams_client.get_records(ShardIterator=position)["Records"]
    second = streams_client.get_records(ShardIterator=position)["Records"]
    assert first == second


def test_get_records_limit_too_large(streams_client, stream_table):
    _, arn = stream_table()
    assert_client_error(
        lambda: streams_client.get_records(ShardIterator=iterator(streams_client, arn), Limit=1001),
        "ValidationException",
        INVALID + "Limit should be less than or equal to 1000",
    )


def test_get_records_limit_zero_is_a_parameter_error(streams_client, stream_table):
    _, arn = stream_table()
    with pytest.raises(ParamValidationError):
        streams_client.get_records(ShardIterator=iterator(streams_client, arn), Limit=0)


@pytest.mark.parametrize("garbage", ["garbage-iterator", "tamper"])
def test_invalid_iterator(streams_client, stream_table, garbage):
    _, arn = stream_table()
    position = iterator(streams_client, arn)
    bad = position[:-3] + "AAA" if garbage == "tamper" else garbage
    assert_client_error(
        lambda: streams_client.get_records(ShardIterator=bad), "ValidationException", "Invalid ShardIterator"
    )


# -- GetRecords: batches, transactions, disabling ------------------------------------------------------------------


def test_records_of_batch_writes(client, streams_client, stream_table):
    table, arn = stream_table("NEW_AND_OLD_IMAGES")
    client.put_item(TableName=table, Item={**K("old"), "v": {"N": "1"}})
    client.batch_write_item(
        RequestItems={
            table: [
                {"PutRequest": {"Item": K("b0")}},
                {"PutRequest": {"Item": {**K("old"), "v": {"N": "2"}}}},
                {"DeleteRequest": {"Key": K("b0-missing")}},
                {"PutRequest": {"Item": K("b1")}},
            ]
        }
    )
    client.batch_write_item(RequestItems={table: [{"DeleteRequest": {"Key": K("old")}}]})
    records = read(streams_client, arn)
    assert summary(records[:1]) == [("INSERT", K("old"))]
    batch = sorted(
        (
            r["eventName"],
            r["dynamodb"]["Keys"]["pk"]["S"],
            r["dynamodb"].get("OldImage"),
            r["dynamodb"].get("NewImage"),
        )
        for r in records[1:4]
    )
    assert batch == [
        ("INSERT", "b0", None, K("b0")),
        ("INSERT", "b1", None, K("b1")),
        ("MODIFY", "old", {**K("old"), "v": {"N": "1"}}, {**K("old"), "v": {"N": "2"}}),
    ]
    assert summary(records[4:]) == [("REMOVE", K("old"))]


def test_records_of_transactions(client, streams_client, stream_table):
    table, arn = stream_table("KEYS_ONLY")
    for key in ("u", "d", "c"):
        client.put_item(TableName=table, Item=K(key))
    client.transact_write_items(
        TransactItems=[
            {"Put": {"TableName": table, "Item": K("p")}},
            {
                "Update": {
                    "TableName": table,
                    "Key": K("u"),
                    "UpdateExpression": "SET v = :v",
                    "ExpressionAttributeValues": {":v": {"N": "1"}},
                }
            },
            {"Delete": {"TableName": table, "Key": K("d")}},
            {
                "ConditionCheck": {
                    "TableName": table,
                    "Key": K("c"),
                    "ConditionExpression": "attribute_exists(pk)",
                }
            },
        ]
    )
    with pytest.raises(client.exceptions.TransactionCanceledException):
        client.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": table, "Item": K("never")}},
                {
                    "ConditionCheck": {
                        "TableName": table,
                        "Key": K("c"),
                        "ConditionExpression": "attribute_not_exists(pk)",
                    }
                },
            ]
        )
    records = read(streams_client, arn)
    assert summary(records[:3]) == [("INSERT", K("u")), ("INSERT", K("d")), ("INSERT", K("c"))]
    assert sorted((r["eventName"], r["dynamodb"]["Keys"]["pk"]["S"]) for r in records[3:]) == [
        ("INSERT", "p"),
        ("MODIFY", "u"),
        ("REMOVE", "d"),
    ]


def test_disabling_the_stream(client, streams_client, stream_table):
    table, arn = stream_table("KEYS_ONLY")
    client.put_item(TableName=table, Item=K("a"))
    position = iterator(streams_client, arn)
    client.update_table(TableName=table, StreamSpecification={"StreamEnabled": False})
    client.put_item(TableName=table, Item=K("b"))  # not recorded anywhere

    page = streams_client.get_records(ShardIterator=position)
    assert keys_of(page["Records"]) == ["a"]
    assert "NextShardIterator" not in page  # the shard is closed and read to its end
    assert keys_of(read(streams_client, arn)) == ["a"]

    new_arn = client.update_table(
        TableName=table, StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}
    )["TableDescription"]["LatestStreamArn"]
    assert new_arn != arn
    client.put_item(TableName=table, Item=K("c"))
    assert keys_of(read(streams_client, arn)) == ["a"]
    new_records = read(streams_client, new_arn)
    assert summary(new_records) == [("INSERT", K("c"))]
    assert new_records[0]["dynamodb"]["NewImage"] == K("c")
    assert shard_id(streams_client, new_arn) != shard_id(streams_client, arn)
