"""CreateTable, DescribeTable, ListTables, DeleteTable, UpdateTable."""

from __future__ import annotations

import uuid

import pytest

from ddb_helpers import (
    NAME_PATTERN,
    assert_client_error,
    gsi,
    lsi,
    table_request,
    unique_table_name,
    validation_errors,
    violation,
    wait_table_active,
)

#: AWS's words for CreateTable's keys and indexes (tests/aws_differences.py: architect/dynalite's suite, run against
#: the service); Local answers each in its own words
INVALID = "One or more parameter values were invalid: "
NO_DEFINITION = "Invalid KeySchema: Some index key attribute have no definition"
#: AWS's constraint on a table name a name breaks (Local answers its own words: tests/aws_differences.py)
NAME_CONSTRAINTS = {
    "ab": "Member must have length greater than or equal to 3",
    "a" * 256: "Member must have length less than or equal to 255",
}
NOT_FOUND = "Cannot do operations on a non-existent table"
DATA_NOT_FOUND = "Requested resource not found"  # AWS's, in data-plane calls (Local's is NOT_FOUND)

HASH = [{"AttributeName": "pk", "KeyType": "HASH"}]
HASH_RANGE = HASH + [{"AttributeName": "sk", "KeyType": "RANGE"}]
PPR = {"BillingMode": "PAY_PER_REQUEST"}


def attrs(**types: str) -> list[dict[str, str]]:
    return [{"AttributeName": name, "AttributeType": type_} for name, type_ in types.items()]


def index(name: str, *keys: str, projection: dict | None = None) -> dict:
    return {
        "IndexName": name,
        "KeySchema": [
            {"AttributeName": k, "KeyType": t}
            for k, t in zip(keys, ("HASH", "RANGE")[: len(keys)], strict=True)
        ],
        "Projection": {"ProjectionType": "ALL"} if projection is None else projection,
    }


def by_name(indexes: list[dict]) -> dict[str, dict]:
    return {i["IndexName"]: i for i in indexes}


# -- CreateTable: shapes -----------------------------------------------------------------------------------------


def test_create_hash_table_description(client, create_table):
    name = unique_table_name()
    desc = create_table(TableName=name, KeySchema=HASH, AttributeDefinitions=attrs(pk="S"), **PPR)[
        "TableDescription"
    ]
    assert desc["TableName"] == name
    assert desc["TableStatus"] == "ACTIVE"
    assert desc["KeySchema"] == HASH
    assert desc["AttributeDefinitions"] == attrs(pk="S")
    assert desc["ItemCount"] == 0
    assert desc["TableSizeBytes"] == 0
    assert desc["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    assert desc["TableArn"].endswith(f":table/{name}")
    assert desc["TableArn"].startswith("arn:aws:dynamodb:")
    assert "CreationDateTime" in desc
    assert desc["DeletionProtectionEnabled"] is False
    for absent in (
        "GlobalSecondaryIndexes",
        "LocalSecondaryIndexes",
        "StreamSpecification",
        "LatestStreamArn",
        "LatestStreamLabel",
    ):
        assert absent not in desc


def test_create_hash_range_table(client, create_table):
    name = unique_table_name()
    desc = create_table(
        TableName=name, KeySchema=HASH_RANGE, AttributeDefinitions=attrs(pk="S", sk="N"), **PPR
    )["TableDescription"]
    assert desc["KeySchema"] == HASH_RANGE
    assert desc["AttributeDefinitions"] == attrs(pk="S", sk="N")


@pytest.mark.parametrize("hash_type", ["S", "N", "B"])
@pytest.mark.parametrize("range_type", [None, "S", "N", "B"])
def test_create_table_key_types(client, create_table, hash_type, range_type):
    name = unique_table_name()
    types = {"pk": hash_type}
    schema = HASH
    if range_type:
        types["sk"] = range_type
        schema = HASH_RANGE
    create_table(TableName=name, KeySchema=schema, AttributeDefinitions=attrs(**types), **PPR)
    desc = client.describe_table(TableName=name)["Table"]
    assert desc["KeySchema"] == schema
    assert desc["AttributeDefinitions"] == attrs(**types)


def test_pay_per_request_throughput_is_zero(client, create_table):
    name = unique_table_name()
    desc = create_table(TableName=name, KeySchema=HASH, AttributeDefinitions=attrs(pk="S"), **PPR)[
        "TableDescription"
    ]
    throughput = desc["ProvisionedThroughput"]
    assert throughput["ReadCapacityUnits"] == 0
    assert throughput["WriteCapacityUnits"] == 0
    assert throughput["NumberOfDecreasesToday"] == 0


@pytest.mark.local_quirk
def test_provisioned_table_description(client, create_table):
    name = unique_table_name()
    desc = create_table(
        TableName=name,
        KeySchema=HASH,
        AttributeDefinitions=attrs(pk="S"),
        ProvisionedThroughput={"ReadCapacityUnits": 3, "WriteCapacityUnits": 4},
    )["TableDescription"]
    throughput = desc["ProvisionedThroughput"]
    assert (throughput["ReadCapacityUnits"], throughput["WriteCapacityUnits"]) == (3, 4)
    assert throughput["NumberOfDecreasesToday"] == 0
    # a table created PROVISIONED (explicitly or by default) has no BillingModeSummary
    assert "BillingModeSummary" not in desc


@pytest.mark.local_quirk
def test_provisioned_billing_mode_explicit(client, create_table):
    name = unique_table_name()
    desc = create_table(
        TableName=name,
        KeySchema=HASH,
        AttributeDefinitions=attrs(pk="S"),
        BillingMode="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
    )["TableDescription"]
    assert desc["ProvisionedThroughput"]["ReadCapacityUnits"] == 1
    assert "BillingModeSummary" not in desc


@pytest.mark.parametrize("billing", [{}, {"BillingMode": "PROVISIONED"}])
def test_provisioned_without_throughput(client, create_table, billing):
    assert_client_error(
        lambda: create_table(
            TableName=unique_table_name(), KeySchema=HASH, AttributeDefinitions=attrs(pk="S"), **billing
        ),
        "ValidationException",
        "No provisioned throughput specified for the table",
    )


def test_create_table_with_gsi_and_lsi_description(client, create_table):
    name = unique_table_name()
    desc = create_table(
        TableName=name,
        KeySchema=HASH_RANGE,
        AttributeDefinitions=attrs(pk="S", sk="S", g="S", l="N"),
        GlobalSecondaryIndexes=[index("byG", "g", "sk", projection={"ProjectionType": "KEYS_ONLY"})],
        LocalSecondaryIndexes=[
            index("byL", "pk", "l", projection={"ProjectionType": "INCLUDE", "NonKeyAttributes": ["x", "y"]})
        ],
        **PPR,
    )["TableDescription"]
    (g,) = desc["GlobalSecondaryIndexes"]
    assert g["IndexName"] == "byG"
    assert g["KeySchema"] == [
        {"AttributeName": "g", "KeyType": "HASH"},
        {"AttributeName": "sk", "KeyType": "RANGE"},
    ]
    assert g["Projection"] == {"ProjectionType": "KEYS_ONLY"}
    assert g["IndexStatus"] == "ACTIVE"
    assert g["IndexSizeBytes"] == 0
    assert g["ItemCount"] == 0
    assert g["IndexArn"].endswith(f":table/{name}/index/byG")
    assert "ProvisionedThroughput" not in g  # on-demand table
    (l_,) = desc["LocalSecondaryIndexes"]
    assert l_["IndexName"] == "byL"
    assert l_["KeySchema"] == [
        {"AttributeName": "pk", "KeyType": "HASH"},
        {"AttributeName": "l", "KeyType": "RANGE"},
    ]
    assert l_["Projection"] == {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["x", "y"]}
    assert l_["IndexSizeBytes"] == 0
    assert l_["ItemCount"] == 0
    assert l_["IndexArn"].endswith(f":table/{name}/index/byL")
    assert "IndexStatus" not in l_
    assert "ProvisionedThroughput" not in l_


def test_gsi_throughput_on_provisioned_table(client, create_table):
    name = unique_table_name()
    desc = create_table(
        TableName=name,
        KeySchema=HASH,
        AttributeDefinitions=attrs(pk="S", g="S"),
        ProvisionedThroughput={"ReadCapacityUnits": 3, "WriteCapacityUnits": 4},
        GlobalSecondaryIndexes=[
            {**index("byG", "g"), "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 2}}
        ],
    )["TableDescription"]
    (g,) = desc["GlobalSecondaryIndexes"]
    assert g["ProvisionedThroughput"]["ReadCapacityUnits"] == 1
    assert g["ProvisionedThroughput"]["WriteCapacityUnits"] == 2


def test_provisioned_table_gsi_needs_throughput(client, create_table):
    assert_client_error(
        lambda: create_table(
            TableName=unique_table_name(),
            KeySchema=HASH,
            AttributeDefinitions=attrs(pk="S", g="S"),
            ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
            GlobalSecondaryIndexes=[index("byG", "g")],
        ),
        "ValidationException",
        "No provisioned throughput specified for the global secondary index",
    )


def test_multiple_gsis_described(client, create_table):
    name = unique_table_name()
    desc = create_table(
        TableName=name,
        KeySchema=HASH,
        AttributeDefinitions=attrs(pk="S", a="S", b="N"),
        GlobalSecondaryIndexes=[index("byA", "a"), index("byB", "b", "a")],
        **PPR,
    )["TableDescription"]
    gsis = by_name(desc["GlobalSecondaryIndexes"])  # order of GSIs in the description is unspecified
    assert sorted(gsis) == ["byA", "byB"]
    assert gsis["byB"]["KeySchema"] == [
        {"AttributeName": "b", "KeyType": "HASH"},
        {"AttributeName": "a", "KeyType": "RANGE"},
    ]


def test_gsi_with_table_hash_key(client, create_table):
    name = unique_table_name()
    desc = create_table(
        TableName=name,
        KeySchema=HASH,
        AttributeDefinitions=attrs(pk="S"),
        GlobalSecondaryIndexes=[index("samePk", "pk")],
        **PPR,
    )["TableDescription"]
    assert desc["GlobalSecondaryIndexes"][0]["KeySchema"] == HASH


def test_include_projection_may_name_key_attribute(client, create_table):
    name = unique_table_name()
    projection = {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["pk"]}
    desc = create_table(
        TableName=name,
        KeySchema=HASH,
        AttributeDefinitions=attrs(pk="S", g="S"),
        GlobalSecondaryIndexes=[index("byG", "g", projection=projection)],
        **PPR,
    )["TableDescription"]
    assert desc["GlobalSecondaryIndexes"][0]["Projection"] == projection


def test_create_duplicate_table(client, create_table, hash_table):
    assert_client_error(
        lambda: create_table(TableName=hash_table, KeySchema=HASH, AttributeDefinitions=attrs(pk="S"), **PPR),
        "ResourceInUseException",
        "Cannot create preexisting table",
    )


def test_create_table_with_stream(client, create_table):
    name = unique_table_name()
    desc = create_table(
        TableName=name,
        KeySchema=HASH,
        AttributeDefinitions=attrs(pk="S"),
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
        **PPR,
    )["TableDescription"]
    assert desc["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
    assert desc["LatestStreamArn"].startswith(desc["TableArn"] + "/stream/")
    assert desc["LatestStreamArn"].endswith("/stream/" + desc["LatestStreamLabel"])


def test_create_table_stream_disabled(client, create_table):
    name = unique_table_name()
    desc = create_table(
        TableName=name,
        KeySchema=HASH,
        AttributeDefinitions=attrs(pk="S"),
        StreamSpecification={"StreamEnabled": False},
        **PPR,
    )["TableDescription"]
    assert "StreamSpecification" not in desc
    assert "LatestStreamArn" not in desc


def test_create_table_stream_enabled_without_view_type(client, create_table):
    assert_client_error(
        lambda: create_table(
            **table_request(unique_table_name(), ("pk:S",), StreamSpecification={"StreamEnabled": True})
        ),
        "ValidationException",
        "Invalid StreamViewType: Stream ViewType must not be null or empty when enabling streams.",
    )


def test_create_table_stream_disabled_with_view_type(client, create_table):
    assert_client_error(
        lambda: create_table(
            **table_request(
                unique_table_name(),
                ("pk:S",),
                StreamSpecification={"StreamEnabled": False, "StreamViewType": "KEYS_ONLY"},
            )
        ),
        "ValidationException",
        "Invalid StreamViewType: Stream StreamEnabled was false but a StreamViewType was present.",
    )


# -- CreateTable: validation --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["ab", "a" * 256, "has space", "dollar$", "slash/name", "ümlaut"],
    ids=["too-short", "too-long", "space", "dollar", "slash", "non-ascii"],
)
def test_invalid_table_names(client, name):
    assert_client_error(
        lambda: client.create_table(
            TableName=name, KeySchema=HASH, AttributeDefinitions=attrs(pk="S"), **PPR
        ),
        "ValidationException",
        validation_errors(violation(name, "tableName", NAME_CONSTRAINTS.get(name, NAME_PATTERN))),
    )


@pytest.mark.parametrize("prefix", ["abc", "A.b_c-1", "x" * 230], ids=["short", "punctuation", "max-length"])
def test_valid_table_names(client, create_table, prefix):
    name = (prefix + uuid.uuid4().hex)[:255]
    desc = create_table(TableName=name, KeySchema=HASH, AttributeDefinitions=attrs(pk="S"), **PPR)
    assert desc["TableDescription"]["TableName"] == name


def test_invalid_index_name(client, create_table):
    assert_client_error(
        lambda: create_table(
            TableName=unique_table_name(),
            KeySchema=HASH,
            AttributeDefinitions=attrs(pk="S", g="S"),
            GlobalSecondaryIndexes=[index("idx!", "g")],
            **PPR,
        ),
        "ValidationException",
        "1 validation error detected: Value 'idx!' at 'globalSecondaryIndexes.1.member.indexName' failed to "
        "satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+",
    )


def test_hash_key_missing_from_attribute_definitions(client, create_table):
    assert_client_error(
        lambda: create_table(
            TableName=unique_table_name(), KeySchema=HASH, AttributeDefinitions=attrs(other="S"), **PPR
        ),
        "ValidationException",
        INVALID
        + "Some index key attributes are not defined in AttributeDefinitions. Keys: [pk], AttributeDefinitions: [other]",
    )


def test_range_key_missing_from_attribute_definitions(client, create_table):
    assert_client_error(
        lambda: create_table(
            TableName=unique_table_name(), KeySchema=HASH_RANGE, AttributeDefinitions=attrs(pk="S"), **PPR
        ),
        "ValidationException",
        NO_DEFINITION,
    )


def test_unused_attribute_definition(client, create_table):
    assert_client_error(
        lambda: create_table(
            TableName=unique_table_name(),
            KeySchema=HASH,
            AttributeDefinitions=attrs(pk="S", extra="S"),
            **PPR,
        ),
        "ValidationException",
        INVALID
        + "Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions",
    )


def test_empty_attribute_definitions(client, create_table):
    assert_client_error(
        lambda: create_table(TableName=unique_table_name(), KeySchema=HASH, AttributeDefinitions=[], **PPR),
        "ValidationException",
        NO_DEFINITION,
    )


def test_duplicate_attribute_definitions(client, create_table):
    assert_client_error(
        lambda: create_table(
            TableName=unique_table_name(),
            KeySchema=HASH,
            AttributeDefinitions=attrs(pk="S") + attrs(pk="S"),
            **PPR,
        ),
        "ValidationException",
        "Cannot have two attributes with the same name",
    )


@pytest.mark.parametrize("type_", ["BOOL", "SS", "M", "X"])
def test_invalid_attribute_type(client, create_table, type_):
    assert_client_error(
        lambda: create_table(
            TableName=unique_table_name(), KeySchema=HASH, AttributeDefinitions=attrs(pk=type_), **PPR
        ),
        "ValidationException",
        f"1 validation error detected: Value '{type_}' at 'attributeDefinitions.1.member.attributeType' failed to "
        "satisfy constraint: Member must satisfy enum value set: [B, N, S]",
    )


def test_too_many_keys(client, create_table):
    schema = HASH_RANGE + [{"AttributeName": "third", "KeyType": "RANGE"}]
    assert_client_error(
        lambda: create_table(
            TableName=unique_table_name(),
            KeySchema=schema,
            AttributeDefinitions=attrs(pk="S", sk="S", third="S"),
            **PPR,
        ),
        "ValidationException",
        validation_errors(  # AWS's (tests/aws_differences.py)
            violation(
                "[KeySchemaElement(attributeName=pk, keyType=HASH), KeySchemaElement(attributeName=sk, "
                "keyType=RANGE), KeySchemaElement(attributeName=third, keyType=RANGE)]",
                "keySchema",
                "Member must have length less than or equal to 2",
            )
        ),
    )


def test_two_hash_keys(client, create_table):
    assert_client_error(
        lambda: create_table(
            TableName=unique_table_name(),
            KeySchema=HASH + [{"AttributeName": "sk", "KeyType": "HASH"}],
            AttributeDefinitions=attrs(pk="S", sk="S"),
            **PPR,
        ),
        "ValidationException",
        "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type",
    )


def test_range_key_only(client, create_table):
    assert_client_error(
        lambda: create_table(
            TableName=unique_table_name(),
            KeySchema=[{"AttributeName": "pk", "KeyType": "RANGE"}],
            AttributeDefinitions=attrs(pk="S"),
            **PPR,
        ),
        "ValidationException",
        "Invalid KeySchema: The first KeySchemaElement is not a HASH key type",
    )


def test_range_key_first(client, create_table):
    assert_client_error(
        lambda: create_table(
            TableName=unique_table_name(),
            KeySchema=[
                {"AttributeName": "sk", "KeyType": "RANGE"},
                {"AttributeName": "pk", "KeyType": "HASH"},
            ],
            AttributeDefinitions=attrs(pk="S", sk="S"),
            **PPR,
        ),
        "ValidationException",
        "Invalid KeySchema: The first KeySchemaElement is not a HASH key type",
    )


def test_hash_and_range_same_attribute(client, create_table):
    assert_client_error(
        lambda: create_table(
            TableName=unique_table_name(),
            KeySchema=HASH + [{"AttributeName": "pk", "KeyType": "RANGE"}],
            AttributeDefinitions=attrs(pk="S"),
            **PPR,
        ),
        "ValidationException",
        NO_DEFINITION,
    )


def test_duplicate_gsi_names(client, create_table):
    assert_client_error(
        lambda: create_table(
            TableName=unique_table_name(),
            KeySchema=HASH,
            AttributeDefinitions=attrs(pk="S", g="S"),
            GlobalSecondaryIndexes=[index("idx", "g"), index("idx", "g")],
            **PPR,
        ),
        "ValidationException",
        INVALID + "Duplicate index name: idx",
    )


def test_duplicate_lsi_names(client, create_table):
    assert_client_error(
        lambda: create_table(
            TableName=unique_table_name(),
            KeySchema=HASH_RANGE,
            AttributeDefinitions=attrs(pk="S", sk="S", l="S"),
            LocalSecondaryIndexes=[index("idx", "pk", "l"), index("idx", "pk", "l")],
            **PPR,
        ),
        "ValidationException",
        INVALID + "Duplicate index name: idx",
    )


def test_gsi_and_lsi_same_name(client, create_table):
    assert_client_error(
        lambda: create_table(
            TableName=unique_table_name(),
            KeySchema=HASH_RANGE,
            AttributeDefinitions=attrs(pk="S", sk="S", g="S", l="S"),
            GlobalSecondaryIndexes=[index("idx", "g")],
            LocalSecondaryIndexes=[index("idx", "pk", "l")],
            **PPR,
        ),
        "ValidationException",
        INVALID + "Duplicate index name: idx",
    )


def test_lsi_on_hash_only_table(client, create_table):
    assert_client_error(
        lambda: create_table(
            TableName=unique_table_name(),
            KeySchema=HASH,
            AttributeDefinitions=attrs(pk="S", l="S"),
            LocalSecondaryIndexes=[index("idx", "pk", "l")],
            **PPR,
        ),
        "ValidationException",
        INVALID
        + "Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex",
    )


def test_lsi_with_different_hash_key(client, create_table):
    assert_client_error(
        lambda: create_table(
            TableName=unique_table_name(),
            KeySchema=HASH_RANGE,
            AttributeDefinitions=attrs(pk="S", sk="S", h="S", l="S"),
            LocalSecondaryIndexes=[index("idx", "h", "l")],
            **PPR,
        ),
        "ValidationException",
        INVALID
        + "Index KeySchema does not have the same leading hash key as table KeySchema for index: idx. index hash key: h, table hash key: pk",
    )


def test_lsi_without_range_key(client, create_table):
    assert_client_error(
        lambda: create_table(
            TableName=unique_table_name(),
            KeySchema=HASH_RANGE,
            AttributeDefinitions=attrs(pk="S", sk="S"),
            LocalSecondaryIndexes=[index("idx", "pk")],
            **PPR,
        ),
        "ValidationException",
        INVALID + "Index KeySchema does not have a range key for index: idx",
    )


def test_lsi_range_key_not_defined(client, create_table):
    assert_client_error(
        lambda: create_table(
            TableName=unique_table_name(),
            KeySchema=HASH_RANGE,
            AttributeDefinitions=attrs(pk="S", sk="S"),
            LocalSecondaryIndexes=[index("idx", "pk", "l")],
            **PPR,
        ),
        "ValidationException",
        INVALID
        + "Some index key attributes are not defined in AttributeDefinitions. Keys: [l, pk], AttributeDefinitions: [sk, pk]",
    )


@pytest.mark.parametrize("keys", [("g",), ("pk", "r")])
def test_gsi_key_not_defined(client, create_table, keys):
    assert_client_error(
        lambda: create_table(
            TableName=unique_table_name(),
            KeySchema=HASH,
            AttributeDefinitions=attrs(pk="S"),
            GlobalSecondaryIndexes=[index("idx", *keys)],
            **PPR,
        ),
        "ValidationException",
        INVALID
        + f"Some index key attributes are not defined in AttributeDefinitions. Keys: [{', '.join(reversed(keys))}], AttributeDefinitions: [pk]",
    )


def test_attribute_definition_unused_with_gsi(client, create_table):
    assert_client_error(
        lambda: create_table(
            TableName=unique_table_name(),
            KeySchema=HASH,
            AttributeDefinitions=attrs(pk="S", g="S", unused="S"),
            GlobalSecondaryIndexes=[index("idx", "g")],
            **PPR,
        ),
        "ValidationException",
        "The number of attributes in key schema must match the number of attributes defined in attribute definitions.",
    )


def test_too_many_lsis(client, create_table):
    assert_client_error(
        lambda: create_table(
            TableName=unique_table_name(),
            KeySchema=HASH_RANGE,
            AttributeDefinitions=attrs(pk="S", sk="S", l="S"),
            LocalSecondaryIndexes=[index(f"idx{i}", "pk", "l") for i in range(6)],
            **PPR,
        ),
        "ValidationException",
        INVALID + "Number of LocalSecondaryIndexes exceeds per-table limit of 5",
    )


def test_too_many_gsis(client, create_table):
    assert_client_error(
        lambda: create_table(
            TableName=unique_table_name(),
            KeySchema=HASH,
            AttributeDefinitions=attrs(pk="S", g="S"),
            GlobalSecondaryIndexes=[index(f"idx{i}", "g") for i in range(21)],
            **PPR,
        ),
        "ValidationException",
        INVALID + "GlobalSecondaryIndex count exceeds the per-table limit of 20",
    )


def test_include_projection_requires_attributes(client, create_table):
    assert_client_error(
        lambda: create_table(
            TableName=unique_table_name(),
            KeySchema=HASH,
            AttributeDefinitions=attrs(pk="S", g="S"),
            GlobalSecondaryIndexes=[index("idx", "g", projection={"ProjectionType": "INCLUDE"})],
            **PPR,
        ),
        "ValidationException",
        "If Projection type INCLUDE is specified, some non-key attributes to include in the projection "
        "must be specified as well",
    )


@pytest.mark.parametrize("projection_type", ["KEYS_ONLY", "ALL"])
def test_non_key_attributes_only_with_include(client, create_table, projection_type):
    projection = {"ProjectionType": projection_type, "NonKeyAttributes": ["a"]}
    assert_client_error(
        lambda: create_table(
            TableName=unique_table_name(),
            KeySchema=HASH,
            AttributeDefinitions=attrs(pk="S", g="S"),
            GlobalSecondaryIndexes=[index("idx", "g", projection=projection)],
            **PPR,
        ),
        "ValidationException",
        INVALID + f"ProjectionType is {projection_type}, but NonKeyAttributes is specified",
    )


def test_include_projection_duplicate_attributes(client, create_table):
    projection = {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["a", "a"]}
    assert_client_error(
        lambda: create_table(
            TableName=unique_table_name(),
            KeySchema=HASH,
            AttributeDefinitions=attrs(pk="S", g="S"),
            GlobalSecondaryIndexes=[index("idx", "g", projection=projection)],
            **PPR,
        ),
        "ValidationException",
        "Cannot have two attributes with the same name",
    )


def test_projection_type_required(client, create_table):
    assert_client_error(
        lambda: create_table(
            TableName=unique_table_name(),
            KeySchema=HASH,
            AttributeDefinitions=attrs(pk="S", g="S"),
            GlobalSecondaryIndexes=[index("idx", "g", projection={})],
            **PPR,
        ),
        "ValidationException",
        INVALID + "Unknown ProjectionType: null",
    )


def test_too_many_projected_attributes(client, create_table):
    # the service model's NonKeyAttributeNameList has max 20 per projection: AWS's validator answers first
    # (Local: "No more than 20 attributes per table can be projected into Local Secondary Indices")
    projections = [
        {"ProjectionType": "INCLUDE", "NonKeyAttributes": [f"a{i}" for i in range(60)]},
        {"ProjectionType": "INCLUDE", "NonKeyAttributes": [f"b{i}" for i in range(60)]},
    ]
    assert_client_error(
        lambda: create_table(
            TableName=unique_table_name(),
            KeySchema=HASH,
            AttributeDefinitions=attrs(pk="S", g="S"),
            GlobalSecondaryIndexes=[
                index("idx1", "g", projection=projections[0]),
                index("idx2", "g", projection=projections[1]),
            ],
            **PPR,
        ),
        "ValidationException",
        "2 validation errors detected: "
        + "; ".join(
            f"Value '[{', '.join(projection['NonKeyAttributes'])}]' at 'globalSecondaryIndexes.{n}.member.projection"
            ".nonKeyAttributes' failed to satisfy constraint: Member must have length less than or equal to 20"
            for n, projection in enumerate(projections, 1)
        ),
    )


# -- DescribeTable -----------------------------------------------------------------------------------------------


def test_describe_table_matches_create(client, create_table):
    name = unique_table_name()
    created = create_table(**table_request(name, ("pk:S", "sk:N"), gsis=[gsi("byG", "g:S")]))[
        "TableDescription"
    ]
    described = client.describe_table(TableName=name)["Table"]
    for key in (
        "TableName",
        "KeySchema",
        "AttributeDefinitions",
        "TableStatus",
        "ItemCount",
        "TableSizeBytes",
    ):
        assert described[key] == created[key]
    assert by_name(described["GlobalSecondaryIndexes"]).keys() == {"byG"}


def test_describe_missing_table(client):
    assert_client_error(
        lambda: client.describe_table(TableName=unique_table_name()), "ResourceNotFoundException", NOT_FOUND
    )


def test_describe_invalid_table_name(client):
    assert_client_error(
        lambda: client.describe_table(TableName="ab"),
        "ValidationException",
        validation_errors(violation("ab", "tableName", NAME_CONSTRAINTS["ab"])),
    )


def test_item_count_and_size_after_writes(client, hash_table):
    client.put_item(TableName=hash_table, Item={"pk": {"S": "a"}, "x": {"S": "abc"}})  # 3 + 4 bytes
    client.put_item(TableName=hash_table, Item={"pk": {"S": "b"}, "n": {"N": "12"}})  # 3 + 3 bytes
    desc = client.describe_table(TableName=hash_table)["Table"]
    assert desc["ItemCount"] == 2
    assert desc["TableSizeBytes"] == 13


def test_item_count_and_size_after_overwrite_and_delete(client, hash_table):
    client.put_item(TableName=hash_table, Item={"pk": {"S": "a"}, "x": {"S": "abc"}})
    client.put_item(TableName=hash_table, Item={"pk": {"S": "a"}, "x": {"S": "abcdef"}})
    client.put_item(TableName=hash_table, Item={"pk": {"S": "b"}})
    desc = client.describe_table(TableName=hash_table)["Table"]
    assert (desc["ItemCount"], desc["TableSizeBytes"]) == (2, 10 + 3)
    client.delete_item(TableName=hash_table, Key={"pk": {"S": "a"}})
    desc = client.describe_table(TableName=hash_table)["Table"]
    assert (desc["ItemCount"], desc["TableSizeBytes"]) == (1, 3)


def test_size_after_update(client, hash_table):
    client.put_item(TableName=hash_table, Item={"pk": {"S": "a"}})
    client.update_item(
        TableName=hash_table,
        Key={"pk": {"S": "a"}},
        UpdateExpression="SET s = :s",
        ExpressionAttributeValues={":s": {"S": "hello"}},
    )
    assert client.describe_table(TableName=hash_table)["Table"]["TableSizeBytes"] == 3 + 6


def test_index_item_counts_after_writes(client, make_table):
    name = make_table(
        ("pk:S", "sk:S"),
        gsis=[gsi("byG", "g:S"), gsi("byGR", "g:S", "gn:N")],
        lsis=[lsi("byL", "l:N")],
    )
    client.put_item(TableName=name, Item={"pk": {"S": "a"}, "sk": {"S": "1"}, "g": {"S": "x"}})
    client.put_item(
        TableName=name, Item={"pk": {"S": "a"}, "sk": {"S": "2"}, "g": {"S": "x"}, "gn": {"N": "1"}}
    )
    client.put_item(TableName=name, Item={"pk": {"S": "a"}, "sk": {"S": "3"}, "l": {"N": "5"}})
    desc = client.describe_table(TableName=name)["Table"]
    assert desc["ItemCount"] == 3
    counts = {
        i["IndexName"]: i["ItemCount"] for i in desc["GlobalSecondaryIndexes"] + desc["LocalSecondaryIndexes"]
    }
    assert counts == {"byG": 2, "byGR": 1, "byL": 1}


@pytest.mark.local_quirk
def test_index_size_bytes_all_projection(client, make_table):
    name = make_table(("pk:S", "sk:S"), gsis=[gsi("byG", "g:S")], lsis=[lsi("byL", "l:N")])
    client.put_item(TableName=name, Item={"pk": {"S": "a"}, "sk": {"S": "1"}, "g": {"S": "x"}})  # 3+3+2
    client.put_item(
        TableName=name, Item={"pk": {"S": "a"}, "sk": {"S": "2"}, "l": {"N": "5"}, "z": {"S": "zz"}}
    )
    desc = client.describe_table(TableName=name)["Table"]
    assert desc["TableSizeBytes"] == 8 + 12
    assert desc["GlobalSecondaryIndexes"][0]["IndexSizeBytes"] == 8
    assert desc["LocalSecondaryIndexes"][0]["IndexSizeBytes"] == 12


# -- ListTables --------------------------------------------------------------------------------------------------


@pytest.fixture
def listed_tables(client, make_table):
    """Three tables whose names sort after every other table of the session (``zzzz-<uuid>-a/b/c``)."""
    prefix = f"zzzz-{uuid.uuid4().hex[:12]}-"
    names = [make_table(("pk:S",), name=prefix + s) for s in "abc"]
    return prefix, names


def test_list_tables_includes_created(client, hash_table):
    names = []
    for page in client.get_paginator("list_tables").paginate():
        names += page["TableNames"]
    assert hash_table in names


def test_list_tables_sorted(client, listed_tables):
    prefix, names = listed_tables
    result = client.list_tables(ExclusiveStartTableName=prefix)
    assert result["TableNames"] == names
    assert "LastEvaluatedTableName" not in result


def test_list_tables_limit(client, listed_tables):
    prefix, names = listed_tables
    result = client.list_tables(ExclusiveStartTableName=prefix, Limit=2)
    assert result["TableNames"] == names[:2]
    assert result["LastEvaluatedTableName"] == names[1]


def test_list_tables_limit_equal_to_remaining(client, listed_tables):
    prefix, names = listed_tables
    result = client.list_tables(ExclusiveStartTableName=prefix, Limit=3)
    assert result["TableNames"] == names
    assert "LastEvaluatedTableName" not in result


def test_list_tables_exclusive_start(client, listed_tables):
    _prefix, names = listed_tables
    result = client.list_tables(ExclusiveStartTableName=names[0], Limit=1)
    assert result["TableNames"] == [names[1]]
    assert result["LastEvaluatedTableName"] == names[1]
    assert client.list_tables(ExclusiveStartTableName=names[2])["TableNames"] == []


def test_list_tables_start_name_need_not_exist(client, listed_tables):
    _prefix, names = listed_tables
    assert client.list_tables(ExclusiveStartTableName=names[0] + "0")["TableNames"] == names[1:]


def test_list_tables_byte_order(client, make_table):
    prefix = f"zzzz-{uuid.uuid4().hex[:12]}-"
    suffixes = ["b", "C", "_", "9", "a", "-", "."]  # (Local cannot hold names differing only in case)
    for s in suffixes:
        make_table(("pk:S",), name=prefix + s)
    listed = client.list_tables(ExclusiveStartTableName=prefix)["TableNames"]
    assert listed == [prefix + s for s in sorted(suffixes)]


def test_list_tables_paginator(client, listed_tables):
    prefix, names = listed_tables
    pages = list(
        client.get_paginator("list_tables").paginate(
            ExclusiveStartTableName=prefix, PaginationConfig={"PageSize": 1}
        )
    )
    assert [p["TableNames"] for p in pages] == [[n] for n in names]


def test_list_tables_limit_too_large(client):
    assert_client_error(
        lambda: client.list_tables(Limit=101),
        "ValidationException",
        "1 validation error detected: Value '101' at 'limit' failed to satisfy constraint: Member must have value "
        "less than or equal to 100",
    )


# -- DeleteTable -------------------------------------------------------------------------------------------------


def test_delete_table_returns_description(client, create_table):
    name = unique_table_name()
    create_table(**table_request(name, ("pk:S", "sk:N"), gsis=[gsi("byG", "g:S")]))
    client.put_item(TableName=name, Item={"pk": {"S": "a"}, "sk": {"N": "1"}})
    desc = client.delete_table(TableName=name)["TableDescription"]
    assert desc["TableName"] == name
    assert desc["KeySchema"] == HASH + [{"AttributeName": "sk", "KeyType": "RANGE"}]
    assert desc["ItemCount"] == 1
    assert by_name(desc["GlobalSecondaryIndexes"]).keys() == {"byG"}
    # DynamoDB says DELETING; DynamoDB Local says ACTIVE (it deletes synchronously)
    assert desc["TableStatus"] in ("ACTIVE", "DELETING")


def test_deleted_table_is_gone(client, create_table):
    name = unique_table_name()
    create_table(**table_request(name, ("pk:S",)))
    client.delete_table(TableName=name)
    assert_client_error(lambda: client.describe_table(TableName=name), "ResourceNotFoundException", NOT_FOUND)
    assert_client_error(
        lambda: client.get_item(TableName=name, Key={"pk": {"S": "a"}}),
        "ResourceNotFoundException",
        DATA_NOT_FOUND,
    )
    assert_client_error(lambda: client.delete_table(TableName=name), "ResourceNotFoundException", NOT_FOUND)


def test_delete_missing_table(client):
    assert_client_error(
        lambda: client.delete_table(TableName=unique_table_name()), "ResourceNotFoundException", NOT_FOUND
    )


def test_recreate_deleted_table_is_empty(client, create_table):
    name = unique_table_name()
    create_table(**table_request(name, ("pk:S",)))
    client.put_item(TableName=name, Item={"pk": {"S": "a"}})
    client.delete_table(TableName=name)
    create_table(**table_request(name, ("pk:S",)))
    assert client.scan(TableName=name)["Items"] == []
    assert client.describe_table(TableName=name)["Table"]["ItemCount"] == 0


# -- UpdateTable -------------------------------------------------------------------------------------------------


def _fill(client, name, n=10):
    for i in range(n):
        item = {"pk": {"S": f"p{i % 3}"}, "sk": {"N": str(i)}, "data": {"S": "x" * i}}
        if i % 2 == 0:
            item["g"] = {"S": f"g{i % 4}"}
        client.put_item(TableName=name, Item=item)


def test_update_table_create_gsi_backfills(client, make_table):
    name = make_table(("pk:S", "sk:N"))
    _fill(client, name)
    desc = client.update_table(
        TableName=name,
        AttributeDefinitions=attrs(g="S", sk="N"),
        GlobalSecondaryIndexUpdates=[
            {
                "Create": {
                    "IndexName": "byG",
                    "KeySchema": [
                        {"AttributeName": "g", "KeyType": "HASH"},
                        {"AttributeName": "sk", "KeyType": "RANGE"},
                    ],
                    "Projection": {"ProjectionType": "KEYS_ONLY"},
                }
            }
        ],
    )["TableDescription"]
    (g,) = desc["GlobalSecondaryIndexes"]
    assert g["IndexName"] == "byG"
    assert g["IndexStatus"] in ("CREATING", "ACTIVE")
    assert {a["AttributeName"]: a["AttributeType"] for a in desc["AttributeDefinitions"]} == {
        "pk": "S",
        "sk": "N",
        "g": "S",
    }
    table = wait_table_active(client, name)
    (g,) = table["GlobalSecondaryIndexes"]
    assert g["IndexStatus"] == "ACTIVE"
    assert g["ItemCount"] == 5
    result = client.query(
        TableName=name,
        IndexName="byG",
        KeyConditionExpression="g = :g",
        ExpressionAttributeValues={":g": {"S": "g0"}},
    )
    assert result["Items"] == [
        {"g": {"S": "g0"}, "pk": {"S": "p0"}, "sk": {"N": "0"}},
        {"g": {"S": "g0"}, "pk": {"S": "p1"}, "sk": {"N": "4"}},
        {"g": {"S": "g0"}, "pk": {"S": "p2"}, "sk": {"N": "8"}},
    ]


def test_update_table_new_gsi_maintained_on_writes(client, make_table):
    name = make_table(("pk:S",))
    client.update_table(
        TableName=name,
        AttributeDefinitions=attrs(g="S"),
        GlobalSecondaryIndexUpdates=[
            {
                "Create": {
                    "IndexName": "byG",
                    "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "ALL"},
                }
            }
        ],
    )
    wait_table_active(client, name)
    client.put_item(TableName=name, Item={"pk": {"S": "a"}, "g": {"S": "x"}, "v": {"N": "1"}})
    result = client.query(
        TableName=name,
        IndexName="byG",
        KeyConditionExpression="g = :g",
        ExpressionAttributeValues={":g": {"S": "x"}},
    )
    assert result["Items"] == [{"pk": {"S": "a"}, "g": {"S": "x"}, "v": {"N": "1"}}]


def test_update_table_create_existing_index(client, make_table):
    name = make_table(("pk:S",), gsis=[gsi("byG", "g:S")])
    assert_client_error(
        lambda: client.update_table(
            TableName=name,
            AttributeDefinitions=attrs(g="S"),
            GlobalSecondaryIndexUpdates=[
                {
                    "Create": {
                        "IndexName": "byG",
                        "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                        "Projection": {"ProjectionType": "ALL"},
                    }
                }
            ],
        ),
        "ValidationException",
        "Attempting to create an index which already exists",
    )


def test_update_table_create_gsi_without_attribute_definitions(client, hash_table):
    assert_client_error(
        lambda: client.update_table(
            TableName=hash_table,
            GlobalSecondaryIndexUpdates=[
                {
                    "Create": {
                        "IndexName": "byH",
                        "KeySchema": [{"AttributeName": "h", "KeyType": "HASH"}],
                        "Projection": {"ProjectionType": "ALL"},
                    }
                }
            ],
        ),
        "ValidationException",
        "No Attribute Schema Defined",
    )


def test_update_table_delete_gsi(client, make_table):
    name = make_table(("pk:S",), gsis=[gsi("byG", "g:S")])
    desc = client.update_table(
        TableName=name, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "byG"}}]
    )["TableDescription"]
    assert desc["GlobalSecondaryIndexes"][0]["IndexStatus"] in ("DELETING", "ACTIVE")
    table = wait_table_active(client, name)
    assert "GlobalSecondaryIndexes" not in table
    assert_client_error(
        lambda: client.query(
            TableName=name,
            IndexName="byG",
            KeyConditionExpression="g = :g",
            ExpressionAttributeValues={":g": {"S": "a"}},
        ),
        "ValidationException",
        "The table does not have the specified index: byG",
    )


def test_update_table_delete_missing_gsi(client, hash_table):
    assert_client_error(
        lambda: client.update_table(
            TableName=hash_table, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "nope"}}]
        ),
        "ResourceNotFoundException",
        "Requested resource not found",
    )


def create_gsi(attribute):
    return {
        "Create": {
            "IndexName": f"by_{attribute}",
            "KeySchema": [{"AttributeName": attribute, "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"},
        }
    }


def test_update_table_creating_two_gsis(client, hash_table):
    """A quota (one GSI created or deleted per UpdateTable), answered LimitExceededException, as AWS answers it:
    https://github.com/architect/architect/issues/334, https://github.com/noppoMan/npdynamodb/issues/29."""
    assert_client_error(
        lambda: client.update_table(
            TableName=hash_table,
            AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ("a", "b")],
            GlobalSecondaryIndexUpdates=[create_gsi("a"), create_gsi("b")],
        ),
        "LimitExceededException",
        "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table",
    )
    assert "GlobalSecondaryIndexes" not in client.describe_table(TableName=hash_table)["Table"]


def test_update_table_nothing_to_update(client, hash_table):
    assert_client_error(
        lambda: client.update_table(TableName=hash_table), "ValidationException", "Nothing to update"
    )


def test_update_missing_table(client):
    assert_client_error(
        lambda: client.update_table(TableName=unique_table_name(), BillingMode="PAY_PER_REQUEST"),
        "ResourceNotFoundException",
        NOT_FOUND,
    )


def test_switch_to_provisioned(client, hash_table):
    desc = client.update_table(
        TableName=hash_table,
        BillingMode="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 2, "WriteCapacityUnits": 3},
    )["TableDescription"]
    assert desc["BillingModeSummary"]["BillingMode"] == "PROVISIONED"
    assert desc["ProvisionedThroughput"]["ReadCapacityUnits"] == 2
    assert desc["ProvisionedThroughput"]["WriteCapacityUnits"] == 3
    table = client.describe_table(TableName=hash_table)["Table"]
    assert table["BillingModeSummary"]["BillingMode"] == "PROVISIONED"
    assert (
        table["ProvisionedThroughput"]["ReadCapacityUnits"],
        table["ProvisionedThroughput"]["WriteCapacityUnits"],
    ) == (2, 3)


def test_switch_to_provisioned_needs_throughput(client, hash_table):
    assert_client_error(
        lambda: client.update_table(TableName=hash_table, BillingMode="PROVISIONED"),
        "ValidationException",
        "No provisioned throughput specified for the table",
    )


def test_switch_back_to_pay_per_request(client, hash_table):
    client.update_table(
        TableName=hash_table,
        BillingMode="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 2, "WriteCapacityUnits": 3},
    )
    desc = client.update_table(TableName=hash_table, BillingMode="PAY_PER_REQUEST")["TableDescription"]
    assert desc["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    assert desc["ProvisionedThroughput"]["ReadCapacityUnits"] == 0
    assert desc["ProvisionedThroughput"]["WriteCapacityUnits"] == 0


def test_provisioned_to_pay_per_request(client, make_table):
    name = make_table(("pk:S",), throughput=(5, 5))
    desc = client.update_table(TableName=name, BillingMode="PAY_PER_REQUEST")["TableDescription"]
    assert desc["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"


def test_update_provisioned_throughput(client, make_table):
    name = make_table(("pk:S",), throughput=(5, 5))
    client.update_table(
        TableName=name, ProvisionedThroughput={"ReadCapacityUnits": 7, "WriteCapacityUnits": 8}
    )
    throughput = client.describe_table(TableName=name)["Table"]["ProvisionedThroughput"]
    assert (throughput["ReadCapacityUnits"], throughput["WriteCapacityUnits"]) == (7, 8)


def test_enable_stream(client, hash_table):
    desc = client.update_table(
        TableName=hash_table, StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}
    )["TableDescription"]
    assert desc["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}
    assert "LatestStreamArn" in desc
    table = client.describe_table(TableName=hash_table)["Table"]
    assert table["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}
    assert table["LatestStreamArn"] == desc["LatestStreamArn"]
    assert table["LatestStreamLabel"] == desc["LatestStreamLabel"]


def test_enable_stream_twice(client, make_table):
    name = make_table(("pk:S",), stream="NEW_IMAGE")
    assert_client_error(
        lambda: client.update_table(
            TableName=name, StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}
        ),
        "ValidationException",
        "Table already has an enabled stream",
    )


@pytest.mark.local_quirk
def test_disable_stream(client, make_table):
    name = make_table(("pk:S",), stream="NEW_AND_OLD_IMAGES")
    arn = client.describe_table(TableName=name)["Table"]["LatestStreamArn"]
    desc = client.update_table(TableName=name, StreamSpecification={"StreamEnabled": False})[
        "TableDescription"
    ]
    assert "StreamSpecification" not in desc
    assert desc["LatestStreamArn"] == arn  # the old stream stays described
    table = client.describe_table(TableName=name)["Table"]
    assert "StreamSpecification" not in table
    assert table["LatestStreamArn"] == arn


def test_disable_stream_without_stream(client, hash_table):
    assert_client_error(
        lambda: client.update_table(TableName=hash_table, StreamSpecification={"StreamEnabled": False}),
        "ValidationException",
        "Table has no stream to disable",
    )


def test_enable_stream_without_view_type(client, hash_table):
    assert_client_error(
        lambda: client.update_table(TableName=hash_table, StreamSpecification={"StreamEnabled": True}),
        "ValidationException",
        "Invalid StreamViewType: Stream ViewType must not be null or empty when enabling streams.",
    )
