"""Request validation in AWS's words and order (issue 25, item 1): table names, CreateTable's key schema and index
definitions, batch and transaction request lists, parallel scan parameters, Query's checks, duplicate set members.

Each expected message is AWS's, established from the service's answers as a public suite records them (cited per
test: mostly paritysuite/dynamodb-conformance, whose tier 3 tests were captured from the service in 2026, and
architect/dynalite, whose suite was run against the service). On DynamoDB Local the listed wording differences of
``tests/aws_differences.py`` let Local's own words stand in (``assert_client_error``); the engine answers AWS's.
"""

from __future__ import annotations

import pytest

from ddb_helpers import NAME_PATTERN, assert_client_error, unique_table_name, validation_errors, violation

PPR = {"BillingMode": "PAY_PER_REQUEST"}
HASH_RANGE = [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]
DEFINED = [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"}]
K = {"pk": {"S": "a"}}
MIN_3 = "Member must have length greater than or equal to 3"

# -- table names -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, constraint",
    [("a" * 256, "Member must have length less than or equal to 255"), ("bad table!@#", NAME_PATTERN)],
    ids=["too-long", "pattern"],
)
def test_put_item_table_name(client, name, constraint):
    # paritysuite/dynamodb-conformance tests/tier3/error-messages/putItem.test.ts (four regions): the name is
    # held to the TableName shape although the model allows an ARN of up to 1024 characters here
    assert_client_error(
        lambda: client.put_item(TableName=name, Item=K),
        "ValidationException",
        validation_errors(violation(name, "tableName", constraint)),
    )


def test_table_name_off_the_pattern_and_too_short(client):
    # architect/dynalite test/createTable.js (its suite run against the service): both constraints of one value,
    # the pattern's first
    assert_client_error(
        lambda: client.create_table(
            TableName="a;", KeySchema=HASH_RANGE[:1], AttributeDefinitions=DEFINED[:1], **PPR
        ),
        "ValidationException",
        validation_errors(violation("a;", "tableName", NAME_PATTERN), violation("a;", "tableName", MIN_3)),
    )


def test_get_item_table_name_too_short(client):
    # the TableName shape's minimum, in the words of the constraints above (this case's answer was not captured)
    assert_client_error(
        lambda: client.get_item(TableName="ab", Key=K),
        "ValidationException",
        validation_errors(violation("ab", "tableName", MIN_3)),
    )


# -- CreateTable -------------------------------------------------------------------------------------------------


def _lsi(name):
    return {
        "IndexName": name,
        "KeySchema": [
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "lr", "KeyType": "RANGE"},
        ],
        "Projection": {"ProjectionType": "ALL"},
    }


def _gsi(name):
    return {
        "IndexName": name,
        "KeySchema": [{"AttributeName": "gh", "KeyType": "HASH"}],
        "Projection": {"ProjectionType": "ALL"},
    }


@pytest.mark.parametrize(
    "lsi_name, gsi_name", [("l1", "g1"), ("aa", "zz")], ids=["listed-first", "sorts-first"]
)
def test_a_gsi_error_comes_before_an_lsi_error(unchecked, lsi_name, gsi_name):
    # paritysuite/dynamodb-conformance tests/tier3/validation-ordering/createTable.test.ts (two regions): whatever
    # the request's order or the names' sort order
    assert_client_error(
        lambda: unchecked.create_table(
            TableName=unique_table_name(),
            AttributeDefinitions=DEFINED,
            KeySchema=HASH_RANGE,
            LocalSecondaryIndexes=[_lsi(lsi_name)],
            GlobalSecondaryIndexes=[_gsi(gsi_name)],
            **PPR,
        ),
        "ValidationException",
        validation_errors(
            violation(gsi_name, "globalSecondaryIndexes.1.member.indexName", MIN_3),
            violation(lsi_name, "localSecondaryIndexes.1.member.indexName", MIN_3),
        ),
    )


def test_key_schema_element_nulls_and_enum(unchecked):
    # architect/dynalite test/createTable.js: the list's length first, then each element's members
    schema = [{"KeyType": "HASH"}, {"AttributeName": "a"}, {"KeyType": "Woop", "AttributeName": "a"}]
    shown = (
        "[KeySchemaElement(attributeName=null, keyType=HASH), KeySchemaElement(attributeName=a, keyType=null), "
        "KeySchemaElement(attributeName=a, keyType=Woop)]"
    )
    assert_client_error(
        lambda: unchecked.create_table(
            TableName=unique_table_name(), AttributeDefinitions=DEFINED[:1], KeySchema=schema, **PPR
        ),
        "ValidationException",
        validation_errors(
            violation(shown, "keySchema", "Member must have length less than or equal to 2"),
            violation(None, "keySchema.1.member.attributeName", "Member must not be null"),
            violation(None, "keySchema.2.member.keyType", "Member must not be null"),
            violation(
                "Woop", "keySchema.3.member.keyType", "Member must satisfy enum value set: [HASH, RANGE]"
            ),
        ),
    )


def test_at_most_ten_violations_are_listed(unchecked):
    # architect/dynalite test/createTable.js: nine empty LSIs break 27 constraints, the service lists and counts 10
    # (the model's member order within each index: the ordering of its own three could not be established)
    expected = [
        violation(None, f"localSecondaryIndexes.{n}.member.{member}", "Member must not be null")
        for n in range(1, 5)
        for member in ("indexName", "keySchema", "projection")
    ][:10]
    assert_client_error(
        lambda: unchecked.create_table(
            TableName=unique_table_name(),
            AttributeDefinitions=DEFINED,
            KeySchema=HASH_RANGE,
            LocalSecondaryIndexes=[{}] * 4,
            **PPR,
        ),
        "ValidationException",
        validation_errors(*expected),
    )


# -- batch and transaction request lists -------------------------------------------------------------------------


def test_batch_write_a_tables_empty_list(unchecked, hash_table):
    # paritysuite/dynamodb-conformance tests/tier3/error-messages/batchWriteItem.test.ts (four regions): the map's
    # value constraint, the map quoted as Java renders it
    assert_client_error(
        lambda: unchecked.batch_write_item(RequestItems={hash_table: []}),
        "ValidationException",
        validation_errors(
            violation(
                f"{{{hash_table}=[]}}",
                "requestItems",
                "Map value must satisfy constraint: [Member must have length less than or equal to 25, Member must "
                "have length greater than or equal to 1]",
            )
        ),
    )


def test_batch_get_a_tables_empty_keys(unchecked, hash_table):
    # paritysuite/dynamodb-conformance tests/tier3/error-messages/batchGetItem.test.ts: the newer form
    assert_client_error(
        lambda: unchecked.batch_get_item(RequestItems={hash_table: {"Keys": []}}),
        "ValidationException",
        validation_errors(
            violation(
                ...,
                f"RequestItems.{hash_table}.member.Keys",
                "Member must have length greater than or equal to 1",
            )
        ),
    )


def test_batch_get_malformed_table_name_listed_with_an_enum(client):
    # paritysuite/dynamodb-conformance tests/tier3/validation-ordering/batchOperations.test.ts (two regions): the
    # map's keys constraint (the map quoted as JSON) and the enum, in one message
    keys = (
        "Map keys must satisfy constraint: [Member must have length less than or equal to 255, Member must have "
        "length greater than or equal to 3, Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+]"
    )
    assert_client_error(
        lambda: client.batch_get_item(
            RequestItems={"bad!name": {"Keys": [{"pk": {"S": "a"}}]}}, ReturnConsumedCapacity="BOGUS"
        ),
        "ValidationException",
        validation_errors(
            violation('{"bad!name":{"Keys":[{"pk":{"S":"a"}}]}}', "requestItems", keys),
            violation(
                "BOGUS",
                "returnConsumedCapacity",
                "Member must satisfy enum value set: [INDEXES, TOTAL, NONE]",
            ),
        ),
    )


def test_transact_get_empty_list(unchecked):
    # paritysuite/dynamodb-conformance tests/tier3/error-messages/transactWriteItems.test.ts (30 of 33 regions,
    # TransactWriteItems; TransactGetItems answers alike there): the older form, the empty list quoted
    assert_client_error(
        lambda: unchecked.transact_get_items(TransactItems=[]),
        "ValidationException",
        validation_errors(
            violation("[]", "transactItems", "Member must have length greater than or equal to 1")
        ),
    )


# -- Scan and Query ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "segments, member, constraint",
    [
        ({"Segment": -1, "TotalSegments": 2}, "segment", "Member must have value greater than or equal to 0"),
        (
            {"Segment": 0, "TotalSegments": 0},
            "totalSegments",
            "Member must have value greater than or equal to 1",
        ),
    ],
    ids=["negative-segment", "no-segments"],
)
def test_scan_segments_out_of_the_models_range(unchecked, hash_table, segments, member, constraint):
    # architect/dynalite test/scan.js (its suite run against the service): the model's ranges
    value = segments["Segment" if member == "segment" else "TotalSegments"]
    assert_client_error(
        lambda: unchecked.scan(TableName=hash_table, **segments),
        "ValidationException",
        validation_errors(violation(value, member, constraint)),
    )


def test_scan_limit_quotes_the_value(unchecked, hash_table):
    # paritysuite/dynamodb-conformance tests/tier3/error-messages/scan.test.ts
    assert_client_error(
        lambda: unchecked.scan(TableName=hash_table, Limit=0),
        "ValidationException",
        validation_errors(violation(0, "limit", "Member must have value greater than or equal to 1")),
    )


def test_query_limit_names_the_member(unchecked, hash_table):
    # paritysuite/dynamodb-conformance query error messages (the service's answer): 'Limit', no value quoted
    assert_client_error(
        lambda: unchecked.query(
            TableName=hash_table,
            KeyConditionExpression="pk = :v",
            ExpressionAttributeValues={":v": {"S": "a"}},
            Limit=0,
        ),
        "ValidationException",
        validation_errors(violation(..., "Limit", "Member must have value greater than or equal to 1")),
    )


def test_query_filter_on_a_key_without_a_key_condition(client, range_table):
    # the missing key condition is reported first (DynamoDB Local answers the same)
    assert_client_error(
        lambda: client.query(
            TableName=range_table,
            QueryFilter={"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "a"}]}},
        ),
        "ValidationException",
        "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.",
    )


def test_query_key_condition_on_a_non_key_attribute_of_a_hash_table(client, hash_table):
    # two conditions on a table with a partition key only: DynamoDB Local's words (AWS's not established)
    assert_client_error(
        lambda: client.query(
            TableName=hash_table,
            KeyConditionExpression="pk = :p AND x = :x",
            ExpressionAttributeValues={":p": {"S": "a"}, ":x": {"S": "b"}},
        ),
        "ValidationException",
        "Query key condition not supported",
    )


# -- transaction size ------------------------------------------------------------------------------------------


def test_transaction_payload_over_4mb(client, hash_table):
    # DynamoDB Local's words, counted up to the item that crosses 4 MB (AWS's words could not be established): 11
    # items of 390,006 bytes (name and value bytes: "pk" and "big<n>", "v" and 390,000 characters), the 11th's
    # key one byte longer
    actions = [
        {"Put": {"TableName": hash_table, "Item": {"pk": {"S": f"big{n}"}, "v": {"S": "x" * 390_000}}}}
        for n in range(12)
    ]
    total = sum(2 + len(f"big{n}") + 1 + 390_000 for n in range(11))
    assert_client_error(
        lambda: client.transact_write_items(TransactItems=actions),
        "ValidationException",
        f"Transaction payload size cannot exceed 4MB. Payload Size: {total}",
    )
    assert client.scan(TableName=hash_table)["Count"] == 0


# -- UpdateTable ---------------------------------------------------------------------------------------------------


def test_update_table_redefining_an_attributes_type(client, make_table):
    # DynamoDB Local's words: AWS's answer could not be established (paritysuite/dynamodb-conformance#78 reports
    # the service accepting a table key attribute restated with another type; for a new index's key the answer
    # is not on record)
    table = make_table(("pk:S", "sk:N"))
    assert_client_error(
        lambda: client.update_table(
            TableName=table,
            AttributeDefinitions=[{"AttributeName": "sk", "AttributeType": "S"}],
            GlobalSecondaryIndexUpdates=[
                {
                    "Create": {
                        "IndexName": "bySk",
                        "KeySchema": [{"AttributeName": "sk", "KeyType": "HASH"}],
                        "Projection": {"ProjectionType": "ALL"},
                    }
                }
            ],
        ),
        "ValidationException",
        "invalid attribute, SchemaElement redefined should be of same type as previously defined",
    )
