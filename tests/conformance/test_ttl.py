"""Time to Live: UpdateTimeToLive / DescribeTimeToLive, and the deletion of expired items.

Expired items are deleted by a background process; until then they are read, queried and scanned like any other
item.  Items whose TTL attribute is a Number of epoch seconds in the past are deleted -- unless it is more than
five years in the past; any other value (a string, a set, a list, a missing attribute) never expires.

When the deleting happens is up to the backend: DynamoDB Local 3.x deletes expired items on a schedule of its own
(seen anywhere from about a second to not within a minute), so the tests of deletion run on the embedded engine
only, which deletes them on ``client.engine.sweep_expired()`` (its sweeper thread calls it every 60 s).  (Local's
TTL deletes also show up in the stream with ``eventName`` ``UNKNOWN_TO_SDK_VERSION`` and no ``userIdentity``.)
"""

from __future__ import annotations

import time

import pytest
from botocore.exceptions import ParamValidationError

from ddb_helpers import (
    NAME_PATTERN,
    assert_client_error,
    scan_all,
    sorted_items,
    unique_table_name,
    validation_errors,
    violation,
)

NOT_FOUND = "Cannot do operations on a non-existent table"
NAME_ERROR = validation_errors(
    violation("a$b", "tableName", NAME_PATTERN)
)  # AWS's (Local's: aws_differences)
ALREADY_ENABLED = "TimeToLive is already enabled"
ALREADY_DISABLED = "TimeToLive is already disabled"
DIFFERENT_ATTRIBUTE = "TimeToLive is active on a different AttributeName"
DAY = 24 * 3600
YEAR = 365 * DAY


def K(value):
    return {"pk": {"S": value}}


def ttl(client, table, enabled, attribute="exp"):
    return client.update_time_to_live(
        TableName=table, TimeToLiveSpecification={"Enabled": enabled, "AttributeName": attribute}
    )


def description(client, table):
    return client.describe_time_to_live(TableName=table)["TimeToLiveDescription"]


# -- DescribeTimeToLive / UpdateTimeToLive -----------------------------------------------------------------------


def test_disabled_by_default(client, hash_table):
    response = client.describe_time_to_live(TableName=hash_table)
    assert set(response) == {"TimeToLiveDescription", "ResponseMetadata"}
    assert response["TimeToLiveDescription"] == {"TimeToLiveStatus": "DISABLED"}


def test_enable(client, hash_table):
    response = ttl(client, hash_table, True)
    assert set(response) == {"TimeToLiveSpecification", "ResponseMetadata"}
    assert response["TimeToLiveSpecification"] == {"AttributeName": "exp", "Enabled": True}
    assert description(client, hash_table) == {"AttributeName": "exp", "TimeToLiveStatus": "ENABLED"}


def test_disable(client, hash_table):
    ttl(client, hash_table, True)
    response = ttl(client, hash_table, False)
    assert response["TimeToLiveSpecification"] == {"AttributeName": "exp", "Enabled": False}
    assert description(client, hash_table) == {"TimeToLiveStatus": "DISABLED"}


def test_enable_twice(client, hash_table):
    ttl(client, hash_table, True)
    assert_client_error(lambda: ttl(client, hash_table, True), "ValidationException", ALREADY_ENABLED)
    assert description(client, hash_table) == {"AttributeName": "exp", "TimeToLiveStatus": "ENABLED"}


def test_enable_on_a_different_attribute(client, hash_table):
    ttl(client, hash_table, True)
    assert_client_error(
        lambda: ttl(client, hash_table, True, "other"), "ValidationException", DIFFERENT_ATTRIBUTE
    )
    assert description(client, hash_table) == {"AttributeName": "exp", "TimeToLiveStatus": "ENABLED"}


def test_disable_naming_a_different_attribute(client, hash_table):
    ttl(client, hash_table, True)
    assert_client_error(
        lambda: ttl(client, hash_table, False, "other"), "ValidationException", DIFFERENT_ATTRIBUTE
    )
    assert description(client, hash_table) == {"AttributeName": "exp", "TimeToLiveStatus": "ENABLED"}


def test_disable_when_never_enabled(client, hash_table):
    assert_client_error(lambda: ttl(client, hash_table, False), "ValidationException", ALREADY_DISABLED)


def test_disable_twice(client, hash_table):
    ttl(client, hash_table, True)
    ttl(client, hash_table, False)
    assert_client_error(lambda: ttl(client, hash_table, False), "ValidationException", ALREADY_DISABLED)


@pytest.mark.local_quirk
def test_reenable_on_another_attribute_right_after_disabling(client, hash_table):
    # AWS refuses to change TTL again within an hour of a change; Local does not
    ttl(client, hash_table, True)
    ttl(client, hash_table, False)
    assert ttl(client, hash_table, True, "other")["TimeToLiveSpecification"] == {
        "AttributeName": "other",
        "Enabled": True,
    }
    assert description(client, hash_table) == {"AttributeName": "other", "TimeToLiveStatus": "ENABLED"}


def test_enable_on_the_key_attribute(client, hash_table):
    ttl(client, hash_table, True, "pk")
    assert description(client, hash_table) == {"AttributeName": "pk", "TimeToLiveStatus": "ENABLED"}


def test_attribute_name_of_255_characters(client, hash_table):
    ttl(client, hash_table, True, "a" * 255)
    assert description(client, hash_table) == {"AttributeName": "a" * 255, "TimeToLiveStatus": "ENABLED"}


def test_attribute_name_too_long(client, hash_table):
    assert_client_error(
        lambda: ttl(client, hash_table, True, "a" * 256),
        "ValidationException",
        f"1 validation error detected: Value '{'a' * 256}' at 'timeToLiveSpecification.attributeName' failed to "
        "satisfy constraint: Member must have length less than or equal to 255",
    )
    assert description(client, hash_table) == {"TimeToLiveStatus": "DISABLED"}


def test_empty_attribute_name_is_a_parameter_error(client, hash_table):
    with pytest.raises(ParamValidationError):
        ttl(client, hash_table, True, "")


def test_ttl_not_in_describe_table(client, hash_table):
    before = client.describe_table(TableName=hash_table)["Table"]
    ttl(client, hash_table, True)
    after = client.describe_table(TableName=hash_table)["Table"]
    assert set(after) == set(before)


@pytest.mark.parametrize("operation", ["describe", "enable", "disable"])
def test_unknown_table(client, operation):
    name = unique_table_name()
    call = {
        "describe": lambda: client.describe_time_to_live(TableName=name),
        "enable": lambda: ttl(client, name, True),
        "disable": lambda: ttl(client, name, False),
    }[operation]
    assert_client_error(call, "ResourceNotFoundException", NOT_FOUND)


@pytest.mark.parametrize("operation", ["describe", "update"])
def test_invalid_table_name(client, operation):
    call = {
        "describe": lambda: client.describe_time_to_live(TableName="a$b"),
        "update": lambda: ttl(client, "a$b", True),
    }[operation]
    assert_client_error(call, "ValidationException", NAME_ERROR)


# -- expired items -----------------------------------------------------------------------------------------------


@pytest.fixture
def sweeping_engine(client, backend):
    """The dynabase engine of the backend (embedded, or behind ``dynabase serve``), which deletes expired items
    on ``engine.sweep_expired()``."""
    engine = getattr(client, "engine", None) or backend.served_engine
    if engine is None:
        pytest.skip(
            f"{backend.name}: expired items are deleted on the backend's own schedule (DynamoDB Local: anywhere "
            "from about a second to never), so this cannot be observed reliably; dynabase's engine deletes "
            "them on engine.sweep_expired()"
        )
    return engine


def expiring_items(now):
    """(expired, kept) items for a table with TTL on ``exp``."""
    expired = [
        {**K("an-hour-ago"), "exp": {"N": str(now - 3600)}},
        {**K("four-years-ago"), "exp": {"N": str(now - 4 * YEAR)}, "v": {"S": "x"}},
        {**K("fractional"), "exp": {"N": f"{now - 60}.5"}},
    ]
    kept = [
        {**K("in-a-day"), "exp": {"N": str(now + DAY)}},
        {**K("six-years-ago"), "exp": {"N": str(now - 6 * YEAR)}},
        {**K("zero"), "exp": {"N": "0"}},
        {**K("negative"), "exp": {"N": "-5"}},
        {**K("milliseconds"), "exp": {"N": str(now * 1000)}},
        {**K("string"), "exp": {"S": str(now - 3600)}},
        {**K("number-set"), "exp": {"NS": [str(now - 3600)]}},
        {**K("list"), "exp": {"L": [{"N": str(now - 3600)}]}},
        {**K("no-ttl"), "other": {"N": str(now - 3600)}},
    ]
    return expired, kept


def test_expired_items_are_deleted(client, hash_table, sweeping_engine):
    ttl(client, hash_table, True)
    expired, kept = expiring_items(int(time.time()))
    for item in expired + kept:
        client.put_item(TableName=hash_table, Item=item)
    sweeping_engine.sweep_expired()
    assert sorted_items(scan_all(client, TableName=hash_table), "pk") == sorted_items(kept, "pk")


def test_expiry_uses_the_current_ttl_attribute(client, num_range_table, sweeping_engine):
    past = str(int(time.time()) - 3600)
    kept = {**K("a"), "sk": {"N": "1"}, "exp": {"N": past}}
    client.put_item(TableName=num_range_table, Item=kept)
    client.put_item(TableName=num_range_table, Item={**K("a"), "sk": {"N": "2"}, "gone": {"N": past}})
    ttl(client, num_range_table, True, "gone")
    sweeping_engine.sweep_expired()
    assert scan_all(client, TableName=num_range_table) == [kept]


def test_expired_items_stay_readable_until_deleted(client, num_range_table, sweeping_engine):
    ttl(client, num_range_table, True)
    past = str(int(time.time()) - 3600)
    items = [{**K("p"), "sk": {"N": str(i)}, "exp": {"N": past}} for i in range(3)]
    for item in items:
        client.put_item(TableName=num_range_table, Item=item)
    assert client.get_item(TableName=num_range_table, Key={**K("p"), "sk": {"N": "1"}})["Item"] == items[1]
    assert (
        client.query(
            TableName=num_range_table,
            KeyConditionExpression="pk = :p",
            ExpressionAttributeValues={":p": {"S": "p"}},
        )["Items"]
        == items
    )
    assert sorted_items(scan_all(client, TableName=num_range_table), "sk") == items
    response = client.update_item(
        TableName=num_range_table,
        Key={**K("p"), "sk": {"N": "0"}},
        UpdateExpression="SET v = :v",
        ConditionExpression="attribute_exists(exp)",
        ExpressionAttributeValues={":v": {"N": "1"}},
        ReturnValues="ALL_NEW",
    )
    assert response["Attributes"] == {**items[0], "v": {"N": "1"}}
    sweeping_engine.sweep_expired()
    assert scan_all(client, TableName=num_range_table) == []


def stream_records(client, streams_client, table):
    arn = client.describe_table(TableName=table)["Table"]["LatestStreamArn"]
    records = []
    for shard in streams_client.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]:
        iterator = streams_client.get_shard_iterator(
            StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
        )["ShardIterator"]
        records += streams_client.get_records(ShardIterator=iterator)["Records"]
    return records


def test_sweep_counts_deletes_and_records_them_as_the_ttl_service(
    client, streams_client, make_table, sweeping_engine
):
    table = make_table(("pk:S",), stream="NEW_AND_OLD_IMAGES")
    ttl(client, table, True)
    expired, kept = expiring_items(int(time.time()))
    for item in expired + kept:
        client.put_item(TableName=table, Item=item)

    assert sweeping_engine.sweep_expired() == len(expired)

    assert sorted_items(scan_all(client, TableName=table), "pk") == sorted_items(kept, "pk")
    removes = [r for r in stream_records(client, streams_client, table) if r["eventName"] == "REMOVE"]
    assert sorted((r["dynamodb"]["Keys"]["pk"]["S"], r["userIdentity"]) for r in removes) == sorted(
        (item["pk"]["S"], {"PrincipalId": "dynamodb.amazonaws.com", "Type": "Service"}) for item in expired
    )
    assert sorted_items([r["dynamodb"]["OldImage"] for r in removes], "pk") == sorted_items(expired, "pk")
    assert all("NewImage" not in r["dynamodb"] for r in removes)
    assert sweeping_engine.sweep_expired() == 0


def test_user_deletes_have_no_user_identity(client, streams_client, make_table, sweeping_engine):
    table = make_table(("pk:S",), stream="KEYS_ONLY")
    ttl(client, table, True)
    client.put_item(TableName=table, Item={**K("a"), "exp": {"N": str(int(time.time()) + DAY)}})
    client.delete_item(TableName=table, Key=K("a"))
    records = stream_records(client, streams_client, table)
    assert [r["eventName"] for r in records] == ["INSERT", "REMOVE"]
    assert all("userIdentity" not in r for r in records)


def test_sweep_ignores_tables_with_ttl_disabled(client, hash_table, sweeping_engine):
    ttl(client, hash_table, True)
    ttl(client, hash_table, False)
    item = {**K("a"), "exp": {"N": str(int(time.time()) - 3600)}}
    client.put_item(TableName=hash_table, Item=item)
    assert sweeping_engine.sweep_expired() == 0
    assert scan_all(client, TableName=hash_table) == [item]
