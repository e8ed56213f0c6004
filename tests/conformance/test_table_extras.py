"""Table extras: DeletionProtectionEnabled, DescribeLimits, tags, DescribeEndpoints, continuous backups.

DynamoDB Local 3.x implements deletion protection and DescribeLimits, and accepts (and ignores) Tags in
CreateTable.  It does not implement the rest:

* TagResource / UntagResource / ListTagsOfResource answer ``UnknownOperationException`` "Tagging is not currently
  supported in DynamoDB Local.";
* DescribeEndpoints, DescribeContinuousBackups and UpdateContinuousBackups answer ``UnknownOperationException``
  "An unknown operation was requested.".

Those are tested on the other backends only, against the documented AWS behaviour, with error codes but no error
messages (there is no oracle for the wording); an empty tag list may come back as ``[]`` or be left out.
"""

from __future__ import annotations

import datetime

import pytest
from botocore.exceptions import ClientError

from aws_differences import behaviour
from ddb_helpers import assert_client_error, table_request, unique_table_name

PROTECTED = "Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first."
NOT_FOUND = "Cannot do operations on a non-existent table"


def not_on_local(backend_name, what):
    if backend_name == "dynamodb-local":
        pytest.skip(f"DynamoDB Local does not implement {what}")


# -- deletion protection -----------------------------------------------------------------------------------------


@pytest.fixture
def protected(client, make_table):
    """``protected(**shape) -> name``: a table created with deletion protection, unprotected again after the test."""
    names = []

    def create(keys=("pk:S",), **shape):
        name = make_table(keys, DeletionProtectionEnabled=True, **shape)
        names.append(name)
        return name

    yield create
    for name in names:
        try:
            client.update_table(TableName=name, DeletionProtectionEnabled=False)
        except ClientError as error:
            if error.response["Error"]["Code"] != "ResourceNotFoundException":
                raise


def deletion_protection(client, table):
    return client.describe_table(TableName=table)["Table"]["DeletionProtectionEnabled"]


def test_deletion_protection_off_by_default(client, hash_table):
    assert deletion_protection(client, hash_table) is False


def test_create_table_with_deletion_protection(client, create_table):
    name = unique_table_name()
    request = table_request(name, ("pk:S",), DeletionProtectionEnabled=True)
    try:
        description = create_table(**request)["TableDescription"]
        assert description["DeletionProtectionEnabled"] is True
        assert deletion_protection(client, name) is True
    finally:
        client.update_table(TableName=name, DeletionProtectionEnabled=False)


def test_delete_protected_table_refused(client, protected):
    table = protected()
    assert_client_error(lambda: client.delete_table(TableName=table), "ValidationException", PROTECTED)
    assert client.describe_table(TableName=table)["Table"]["TableStatus"] == "ACTIVE"
    assert table in client.list_tables(ExclusiveStartTableName=table[:-1], Limit=100)["TableNames"]


def test_turn_deletion_protection_off_then_delete(client, protected):
    table = protected()
    description = client.update_table(TableName=table, DeletionProtectionEnabled=False)["TableDescription"]
    assert description["DeletionProtectionEnabled"] is False
    assert deletion_protection(client, table) is False
    deleted = client.delete_table(TableName=table)["TableDescription"]
    assert deleted["DeletionProtectionEnabled"] is False
    assert_client_error(
        lambda: client.describe_table(TableName=table), "ResourceNotFoundException", NOT_FOUND
    )


def test_turn_deletion_protection_on(client, hash_table):
    description = client.update_table(TableName=hash_table, DeletionProtectionEnabled=True)[
        "TableDescription"
    ]
    try:
        assert description["DeletionProtectionEnabled"] is True
        assert deletion_protection(client, hash_table) is True
        assert_client_error(
            lambda: client.delete_table(TableName=hash_table), "ValidationException", PROTECTED
        )
    finally:
        client.update_table(TableName=hash_table, DeletionProtectionEnabled=False)


def test_turn_deletion_protection_on_twice(client, protected):
    table = protected()
    description = client.update_table(TableName=table, DeletionProtectionEnabled=True)["TableDescription"]
    assert description["DeletionProtectionEnabled"] is True


def test_deletion_protection_with_other_updates(client, protected):
    table = protected()
    description = client.update_table(
        TableName=table,
        DeletionProtectionEnabled=False,
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"},
    )["TableDescription"]
    assert description["DeletionProtectionEnabled"] is False
    assert description["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}


def test_other_updates_keep_deletion_protection(client, protected):
    table = protected()
    description = client.update_table(
        TableName=table, StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}
    )["TableDescription"]
    assert description["DeletionProtectionEnabled"] is True
    assert_client_error(lambda: client.delete_table(TableName=table), "ValidationException", PROTECTED)


def test_protected_table_items_can_be_written_and_deleted(client, protected):
    table = protected()
    client.put_item(TableName=table, Item={"pk": {"S": "a"}})
    client.delete_item(TableName=table, Key={"pk": {"S": "a"}})
    assert client.scan(TableName=table)["Items"] == []


# -- DescribeLimits ----------------------------------------------------------------------------------------------


def test_describe_limits(client):
    response = client.describe_limits()
    assert set(response) == {
        "AccountMaxReadCapacityUnits",
        "AccountMaxWriteCapacityUnits",
        "TableMaxReadCapacityUnits",
        "TableMaxWriteCapacityUnits",
        "ResponseMetadata",
    }
    assert {k: v for k, v in response.items() if k != "ResponseMetadata"} == {
        "AccountMaxReadCapacityUnits": 80000,
        "AccountMaxWriteCapacityUnits": 80000,
        "TableMaxReadCapacityUnits": 40000,
        "TableMaxWriteCapacityUnits": 40000,
    }


# -- tags --------------------------------------------------------------------------------------------------------


def test_create_table_with_tags(client, create_table, backend_name):
    name = unique_table_name()
    description = create_table(**table_request(name, ("pk:S",), Tags=[{"Key": "team", "Value": "data"}]))[
        "TableDescription"
    ]
    assert "Tags" not in description
    assert description["TableStatus"] == "ACTIVE"
    if backend_name != "dynamodb-local":  # Local accepts and drops them
        tags = client.list_tags_of_resource(ResourceArn=description["TableArn"])["Tags"]
        assert tags == [{"Key": "team", "Value": "data"}]


CREATE_TAGS = behaviour("tags given to CreateTable")


@pytest.mark.aws_only(reason=CREATE_TAGS.local, ref=CREATE_TAGS.ref)
def test_create_table_with_a_tag_key_given_twice_keeps_one(client, create_table):
    tags = [{"Key": "team", "Value": "a"}, {"Key": "team", "Value": "b"}]
    description = create_table(**table_request(unique_table_name(), ("pk:S",), Tags=tags))["TableDescription"]
    assert client.list_tags_of_resource(ResourceArn=description["TableArn"])["Tags"] == [
        {"Key": "team", "Value": "b"}
    ]


@pytest.mark.aws_only(reason=CREATE_TAGS.local, ref=CREATE_TAGS.ref)
@pytest.mark.parametrize(
    "tags",
    [[{"Key": "aws:reserved", "Value": "1"}], [{"Key": f"k{i}", "Value": "1"} for i in range(51)]],
    ids=["aws-prefix", "too-many"],
)
def test_create_table_with_invalid_tags(client, tags):
    name = unique_table_name()
    assert_client_error(
        lambda: client.create_table(**table_request(name, ("pk:S",), Tags=tags)), "ValidationException"
    )
    assert name not in client.list_tables()["TableNames"]


@pytest.fixture
def table_arn(client, hash_table, backend_name):
    not_on_local(backend_name, "tagging")
    return client.describe_table(TableName=hash_table)["Table"]["TableArn"]


#: each tagging call and the rest of a valid request
TAG_CALLS = {
    "tag_resource": {"Tags": [{"Key": "a", "Value": "1"}]},
    "untag_resource": {"TagKeys": ["a"]},
    "list_tags_of_resource": {},
}


def tags_of(client, arn):
    response = client.list_tags_of_resource(ResourceArn=arn)
    assert "NextToken" not in response
    return sorted((tag["Key"], tag["Value"]) for tag in response.get("Tags", []))


def test_no_tags(client, table_arn):
    assert tags_of(client, table_arn) == []


def test_tag_resource(client, table_arn):
    response = client.tag_resource(
        ResourceArn=table_arn, Tags=[{"Key": "a", "Value": "1"}, {"Key": "b", "Value": "2"}]
    )
    assert set(response) == {"ResponseMetadata"}
    assert tags_of(client, table_arn) == [("a", "1"), ("b", "2")]


def test_tag_resource_overwrites_and_adds(client, table_arn):
    client.tag_resource(ResourceArn=table_arn, Tags=[{"Key": "a", "Value": "1"}, {"Key": "b", "Value": "2"}])
    client.tag_resource(ResourceArn=table_arn, Tags=[{"Key": "a", "Value": "9"}, {"Key": "c", "Value": ""}])
    assert tags_of(client, table_arn) == [("a", "9"), ("b", "2"), ("c", "")]


def test_untag_resource(client, table_arn):
    client.tag_resource(ResourceArn=table_arn, Tags=[{"Key": "a", "Value": "1"}, {"Key": "b", "Value": "2"}])
    response = client.untag_resource(ResourceArn=table_arn, TagKeys=["a", "not-there"])
    assert set(response) == {"ResponseMetadata"}
    assert tags_of(client, table_arn) == [("b", "2")]


def test_tags_go_with_the_table(client, make_table, backend_name):
    not_on_local(backend_name, "tagging")
    name = make_table(("pk:S",))
    arn = client.describe_table(TableName=name)["Table"]["TableArn"]
    client.tag_resource(ResourceArn=arn, Tags=[{"Key": "a", "Value": "1"}])
    client.delete_table(TableName=name)
    client.create_table(**table_request(name, ("pk:S",)))
    assert tags_of(client, arn) == []


@pytest.mark.parametrize("operation", TAG_CALLS)
def test_tagging_unknown_table(client, table_arn, operation):
    arn = table_arn.rsplit("/", 1)[0] + "/" + unique_table_name()
    params = TAG_CALLS[operation]
    assert_client_error(
        lambda: getattr(client, operation)(ResourceArn=arn, **params), "ResourceNotFoundException"
    )


@pytest.mark.parametrize("arn", ["not-an-arn", "arn:aws:dynamodb:xx"])
def test_tagging_invalid_arn(client, table_arn, arn):
    assert_client_error(lambda: client.list_tags_of_resource(ResourceArn=arn), "ValidationException")


FOREIGN_ARN = behaviour("tagging calls on an ARN that is not one of this account's tables")


def _arn_with(arn: str, position: int, value: str) -> str:
    parts = arn.split(":", 5)
    parts[position] = value
    return ":".join(parts)


@pytest.mark.aws_only(reason=FOREIGN_ARN.local, ref=FOREIGN_ARN.ref)
@pytest.mark.parametrize(
    "change, code",
    [
        (lambda arn: _arn_with(arn, 4, "111122223333"), "AccessDeniedException"),  # another account
        (
            lambda arn: _arn_with(_arn_with(arn, 4, "111122223333"), 3, "xx-nowhere-1"),
            "AccessDeniedException",
        ),
        (lambda arn: "arn:aws:s3:::" + arn.rsplit("/", 1)[1], "AccessDeniedException"),  # another service
        (lambda arn: _arn_with(arn, 3, "xx-nowhere-1"), "ValidationException"),  # another region
        (lambda arn: arn.replace(":table/", ":backup/"), "ValidationException"),  # not a table
        (lambda arn: arn + "x", "ResourceNotFoundException"),  # no such table in this account
    ],
    ids=["account", "account-before-region", "service", "region", "resource-type", "missing-table"],
)
@pytest.mark.parametrize("operation", TAG_CALLS)
def test_tagging_foreign_arn(client, table_arn, operation, change, code):
    params = TAG_CALLS[operation]
    assert_client_error(lambda: getattr(client, operation)(ResourceArn=change(table_arn), **params), code)
    assert tags_of(client, table_arn) == []


@pytest.mark.parametrize(
    "tags",
    [
        [{"Key": "aws:reserved", "Value": "1"}],
        [{"Key": "k" * 129, "Value": "1"}],
        [{"Key": "k", "Value": "v" * 257}],
        [{"Key": f"k{i}", "Value": "1"} for i in range(51)],
    ],
    ids=["aws-prefix", "key-too-long", "value-too-long", "too-many"],
)
def test_invalid_tags(client, table_arn, tags):
    assert_client_error(lambda: client.tag_resource(ResourceArn=table_arn, Tags=tags), "ValidationException")
    assert tags_of(client, table_arn) == []


# -- DescribeEndpoints -------------------------------------------------------------------------------------------


def test_describe_endpoints(client, backend_name):
    not_on_local(backend_name, "DescribeEndpoints")
    response = client.describe_endpoints()
    assert set(response) == {"Endpoints", "ResponseMetadata"}
    (endpoint,) = response["Endpoints"]
    assert set(endpoint) == {"Address", "CachePeriodInMinutes"}
    assert isinstance(endpoint["Address"], str) and endpoint["Address"]
    assert endpoint["CachePeriodInMinutes"] == 1440


# -- continuous backups (point-in-time recovery) ---------------------------------------------------------------------


@pytest.fixture
def backups_table(hash_table, backend_name):
    not_on_local(backend_name, "DescribeContinuousBackups / UpdateContinuousBackups")
    return hash_table


def point_in_time(response):
    description = response["ContinuousBackupsDescription"]
    assert description["ContinuousBackupsStatus"] == "ENABLED"
    return description["PointInTimeRecoveryDescription"]


def test_point_in_time_recovery_off_by_default(client, backups_table):
    response = client.describe_continuous_backups(TableName=backups_table)
    assert set(response) == {"ContinuousBackupsDescription", "ResponseMetadata"}
    assert point_in_time(response) == {"PointInTimeRecoveryStatus": "DISABLED"}


def enable_pitr(client, table, **extra):
    return client.update_continuous_backups(
        TableName=table, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True, **extra}
    )


def test_enable_point_in_time_recovery(client, backups_table):
    before = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(seconds=5)
    pitr = point_in_time(enable_pitr(client, backups_table))
    assert set(pitr) == {
        "PointInTimeRecoveryStatus",
        "RecoveryPeriodInDays",
        "EarliestRestorableDateTime",
        "LatestRestorableDateTime",
    }
    assert pitr["PointInTimeRecoveryStatus"] == "ENABLED"
    assert pitr["RecoveryPeriodInDays"] == 35
    assert before <= pitr["EarliestRestorableDateTime"] <= pitr["LatestRestorableDateTime"]
    described = point_in_time(client.describe_continuous_backups(TableName=backups_table))
    assert described["PointInTimeRecoveryStatus"] == "ENABLED"
    assert described["EarliestRestorableDateTime"] == pitr["EarliestRestorableDateTime"]


def test_recovery_period(client, backups_table):
    assert (
        point_in_time(enable_pitr(client, backups_table, RecoveryPeriodInDays=10))["RecoveryPeriodInDays"]
        == 10
    )
    described = point_in_time(client.describe_continuous_backups(TableName=backups_table))
    assert described["RecoveryPeriodInDays"] == 10


def test_recovery_period_out_of_range(client, backups_table):
    days = 36
    assert_client_error(
        lambda: enable_pitr(client, backups_table, RecoveryPeriodInDays=days), "ValidationException"
    )
    assert point_in_time(client.describe_continuous_backups(TableName=backups_table)) == {
        "PointInTimeRecoveryStatus": "DISABLED"
    }


def test_disable_point_in_time_recovery(client, backups_table):
    enable_pitr(client, backups_table)
    response = client.update_continuous_backups(
        TableName=backups_table, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": False}
    )
    assert point_in_time(response) == {"PointInTimeRecoveryStatus": "DISABLED"}
    assert point_in_time(client.describe_continuous_backups(TableName=backups_table)) == {
        "PointInTimeRecoveryStatus": "DISABLED"
    }


@pytest.mark.parametrize("operation", ["describe", "update"])
def test_continuous_backups_unknown_table(client, backend_name, operation):
    not_on_local(backend_name, "DescribeContinuousBackups / UpdateContinuousBackups")
    name = unique_table_name()
    call = {
        "describe": lambda: client.describe_continuous_backups(TableName=name),
        "update": lambda: enable_pitr(client, name),
    }[operation]
    assert_client_error(call, "TableNotFoundException")
