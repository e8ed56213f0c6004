"""AWS DynamoDB's behaviour where DynamoDB Local is known to differ: the engine follows AWS.

Each test is marked ``aws_only`` with the reference that establishes AWS's answer; it runs on the embedded
engine and the server, and is skipped on DynamoDB Local (see ``tests/conformance/README.md``).  Differences in
wording only are listed in ``tests/aws_differences.py`` instead, and asserted by the ordinary tests.
"""

from __future__ import annotations

import uuid

import pytest

from ddb_helpers import assert_client_error, unique_table_name

K = {"pk": {"S": "a"}}
PROVISIONED_5 = {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}
MODEL = "botocore's dynamodb service model (the constraints the service validates first)"


def aws_only(reason: str, ref: str):
    return pytest.mark.aws_only(reason=reason, ref=ref)


# -- request validation from the model -------------------------------------------------------------------------


@aws_only(
    "Local answers one error of its own wording",
    "https://github.com/ExtendDB/extenddb/pull/9 (enum members, the service's answers); " + MODEL,
)
def test_several_violations_in_one_message(client, hash_table):
    assert_client_error(
        lambda: client.query(
            TableName=hash_table,
            KeyConditionExpression="pk = :p",
            ExpressionAttributeValues={":p": {"S": "a"}},
            Select="EVERYTHING",
            ReturnConsumedCapacity="ALL",
        ),
        "ValidationException",
        "2 validation errors detected: Value 'EVERYTHING' at 'select' failed to satisfy constraint: Member must "
        "satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]; "
        "Value 'ALL' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value "
        "set: [INDEXES, TOTAL, NONE]",
    )


@aws_only(
    "the model's checks come before the table is looked up; Local answers ResourceNotFound",
    "https://github.com/scylladb/scylladb/pull/12608 (validation before the missing table); " + MODEL,
)
def test_validation_comes_before_missing_table(client):
    assert_client_error(
        lambda: client.put_item(TableName=unique_table_name(), Item=K, ReturnValues="BOGUS"),
        "ValidationException",
        "1 validation error detected: Value 'BOGUS' at 'returnValues' failed to satisfy constraint: Member must "
        "satisfy enum value set: [NONE, ALL_OLD, UPDATED_OLD, ALL_NEW, UPDATED_NEW]",
    )


@aws_only("Local does not check ExecuteTransaction's token length", MODEL + " (ClientRequestToken: max 36)")
def test_execute_transaction_token_too_long(client, hash_table):
    token = "x" * 37
    assert_client_error(
        lambda: client.execute_transaction(
            TransactStatements=[{"Statement": f"SELECT * FROM \"{hash_table}\" WHERE pk = 'a'"}],
            ClientRequestToken=token,
        ),
        "ValidationException",
        f"1 validation error detected: Value '{token}' at 'clientRequestToken' failed to satisfy constraint: "
        "Member must have length less than or equal to 36",
    )


# -- UpdateTable's billing rules --------------------------------------------------------------------------------

BILLING_REF = (
    "DynamoDB API reference, UpdateTable (BillingMode, ProvisionedThroughput); "
    "https://github.com/cortexproject/cortex/pull/441 (the unchanged-throughput message)"
)


@aws_only("Local answers 'Nothing to update'", BILLING_REF)
def test_restating_on_demand_billing_is_a_no_op(client, hash_table):
    before = client.describe_table(TableName=hash_table)["Table"]
    desc = client.update_table(TableName=hash_table, BillingMode="PAY_PER_REQUEST")["TableDescription"]
    assert desc["BillingModeSummary"] == before["BillingModeSummary"]
    assert desc["TableStatus"] == "ACTIVE"


@aws_only("Local accepts throughput with on-demand billing and ignores it", BILLING_REF)
def test_on_demand_with_throughput_is_refused(client, make_table):
    name = make_table(("pk:S",), throughput=(5, 5))
    assert_client_error(
        lambda: client.update_table(
            TableName=name, BillingMode="PAY_PER_REQUEST", ProvisionedThroughput=PROVISIONED_5
        ),
        "ValidationException",
        "One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be "
        "specified when BillingMode is PAY_PER_REQUEST",
    )
    desc = client.describe_table(TableName=name)["Table"]
    assert "BillingModeSummary" not in desc or desc["BillingModeSummary"]["BillingMode"] == "PROVISIONED"


@pytest.mark.parametrize("billing", [{}, {"BillingMode": "PROVISIONED"}])
@aws_only("Local accepts an unchanged throughput", BILLING_REF)
def test_unchanged_throughput_is_refused(client, make_table, billing):
    name = make_table(("pk:S",), throughput=(5, 5))
    assert_client_error(
        lambda: client.update_table(TableName=name, ProvisionedThroughput=PROVISIONED_5, **billing),
        "ValidationException",
        "The provisioned throughput for the table will not change. The requested value equals the current value. "
        "Current ReadCapacityUnits provisioned for the table: 5. Requested ReadCapacityUnits: 5. Current "
        "WriteCapacityUnits provisioned for the table: 5. Requested WriteCapacityUnits: 5. Refer to the Amazon "
        "DynamoDB Developer Guide for current limits and how to request higher limits.",
    )


def test_changed_throughput_is_applied(client, make_table):
    name = make_table(("pk:S",), throughput=(5, 5))
    client.update_table(
        TableName=name, ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 6}
    )
    throughput = client.describe_table(TableName=name)["Table"]["ProvisionedThroughput"]
    assert (throughput["ReadCapacityUnits"], throughput["WriteCapacityUnits"]) == (5, 6)


# -- streams ------------------------------------------------------------------------------------------------------

STREAM_REF = (
    "https://github.com/amazon-archives/logstash-input-dynamodb/issues/18 "
    "('Invalid StreamArn (Service: AmazonDynamoDBStreams; ... Error Code: ValidationException')"
)
MALFORMED_ARN = "arn:aws:dynamodb:us-east-1:000000000000:no-table-here/x/y"


@aws_only("Local answers ResourceNotFoundException", STREAM_REF)
def test_malformed_stream_arn(streams_client):
    assert_client_error(
        lambda: streams_client.describe_stream(StreamArn=MALFORMED_ARN),
        "ValidationException",
        "Invalid StreamArn",
    )
    assert_client_error(
        lambda: streams_client.get_shard_iterator(
            StreamArn=MALFORMED_ARN,
            ShardId="shardId-00000000000000000000-00000000",
            ShardIteratorType="LATEST",
        ),
        "ValidationException",
        "Invalid StreamArn",
    )


@aws_only(
    "Local lists no streams",
    "https://github.com/scylladb/scylladb/blob/001e3b5a68a252e6f7df4494792ac5c012422ff6/test/alternator/"
    "test_streams.py (test_list_streams_with_nonexistent_last_stream, run against AWS: ValidationException; its "
    "note: 'local java dynamodb does _not_ raise validation error for malformed stream arn here')",
)
@pytest.mark.parametrize("table", [{}, {"TableName": "dynabase_test-any"}], ids=["all", "of-a-table"])
def test_list_streams_with_malformed_start(streams_client, table):
    # the code is established, not AWS's message: the engine answers as DescribeStream does (STREAM_REF)
    assert_client_error(
        lambda: streams_client.list_streams(ExclusiveStartStreamArn=MALFORMED_ARN, **table),
        "ValidationException",
    )


def test_well_formed_unknown_stream_arn_is_not_found(streams_client):
    arn = f"arn:aws:dynamodb:us-east-1:000000000000:table/{uuid.uuid4().hex}/stream/2024-01-01T00:00:00.000"
    assert_client_error(
        lambda: streams_client.describe_stream(StreamArn=arn),
        "ResourceNotFoundException",
        f"Requested resource not found: Stream: {arn} not found",
    )


def test_shard_filter_child_shards(client, streams_client, make_table):
    table = make_table(("pk:S",), stream="KEYS_ONLY")
    arn = client.describe_table(TableName=table)["Table"]["LatestStreamArn"]
    (shard,) = streams_client.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
    children = streams_client.describe_stream(
        StreamArn=arn, ShardFilter={"Type": "CHILD_SHARDS", "ShardId": shard["ShardId"]}
    )["StreamDescription"]["Shards"]
    assert children == []  # the one shard of a stream is never split


# -- read capacity of a local index query that fetches from the table ---------------------------------------------


@aws_only(
    "Local charges the whole items to the index",
    "DynamoDB developer guide, local secondary indexes, read capacity: attributes not projected are fetched from "
    "the table at a higher cost; https://docs.aws.amazon.com/whitepapers/latest/comparing-dynamodb-and-hbase-for-"
    "nosql/local-secondary-index-considerations.html",
)
def test_lsi_query_fetching_unprojected_attributes_charges_the_table(client, make_table):
    from ddb_helpers import lsi

    name = make_table(("pk:S", "sk:S"), lsis=[lsi("byL", "l:S", projection="KEYS_ONLY")])
    for sk in ("1", "2"):  # ~5 KB each: two 4 KB read units per item fetched from the table
        client.put_item(
            TableName=name, Item={"pk": {"S": "a"}, "sk": {"S": sk}, "l": {"S": sk}, "big": {"S": "x" * 5000}}
        )
    query = {
        "TableName": name,
        "IndexName": "byL",
        "KeyConditionExpression": "pk = :p",
        "ExpressionAttributeValues": {":p": {"S": "a"}},
        "ConsistentRead": True,
        "ReturnConsumedCapacity": "INDEXES",
    }
    fetched = client.query(Select="ALL_ATTRIBUTES", **query)
    assert len(fetched["Items"]) == 2 and "big" in fetched["Items"][0]
    assert fetched["ConsumedCapacity"] == {
        "TableName": name,
        "CapacityUnits": 5.0,
        "Table": {"CapacityUnits": 4.0},
        "LocalSecondaryIndexes": {"byL": {"CapacityUnits": 1.0}},
    }
    projected = client.query(**query)  # the index's own attributes: no fetch, no table reads
    assert projected["ConsumedCapacity"]["Table"] == {"CapacityUnits": 0.0}
    assert projected["ConsumedCapacity"]["LocalSecondaryIndexes"] == {"byL": {"CapacityUnits": 1.0}}
