"""Behaviours of DynamoDB Local found by the differential test (tests/differential), pinned on every backend."""

from __future__ import annotations

import pytest

from ddb_helpers import assert_client_error, gsi, lsi

SCALARS = "Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: "


@pytest.fixture
def hr(make_table):
    """pk S, sk N; GSI gsi on g/h (ALL); LSI lsi on l (INCLUDE a)."""
    return make_table(
        ("pk:S", "sk:N"), gsis=[gsi("gsi", "g:S", "h:S")], lsis=[lsi("lsi", "l:N", projection=["a"])]
    )


def _put_q(client, table):
    for sk in (1, 2, 3):
        client.put_item(TableName=table, Item={"pk": {"S": "q"}, "sk": {"N": str(sk)}})


# -- 1: LastEvaluatedKey at the end of the key range ---------------------------------------------------------


@pytest.mark.parametrize(
    "condition, values, forward, has_key",
    [
        ("pk = :p AND sk <= :v", {":v": {"N": "2"}}, True, False),
        ("pk = :p AND sk <= :v", {":v": {"N": "2"}}, False, True),
        ("pk = :p AND sk >= :v", {":v": {"N": "2"}}, False, False),
        ("pk = :p AND sk >= :v", {":v": {"N": "2"}}, True, True),
        ("pk = :p AND sk BETWEEN :v AND :w", {":v": {"N": "1"}, ":w": {"N": "2"}}, True, False),
        ("pk = :p AND sk BETWEEN :v AND :w", {":v": {"N": "1"}, ":w": {"N": "2"}}, False, False),
        ("pk = :p AND sk < :v", {":v": {"N": "3"}}, True, True),
        ("pk = :p AND sk = :v", {":v": {"N": "1"}}, True, True),  # ``=`` keeps the key
        ("pk = :p", {}, True, True),
    ],
)
def test_limit_reached_on_the_inclusive_end_bound(client, hr, condition, values, forward, has_key):
    _put_q(client, hr)
    limit = 1 if "sk = :v" in condition else 2
    response = client.query(
        TableName=hr,
        KeyConditionExpression=condition,
        ExpressionAttributeValues={":p": {"S": "q"}, **values},
        Limit=limit,
        ScanIndexForward=forward,
    )
    assert response["Count"] == limit
    assert ("LastEvaluatedKey" in response) == has_key


def test_hash_only_query_reaching_the_limit_has_no_last_key(client, make_table):
    table = make_table(("pk:B",))
    client.put_item(TableName=table, Item={"pk": {"B": b"\xff"}})
    response = client.query(
        TableName=table,
        KeyConditionExpression="pk = :p",
        ExpressionAttributeValues={":p": {"B": b"\xff"}},
        Limit=1,
    )
    assert response["Count"] == 1
    assert "LastEvaluatedKey" not in response


def test_index_query_keeps_the_last_key_on_the_bound(client, hr):
    for sk in (1, 2):
        client.put_item(TableName=hr, Item={"pk": {"S": "q"}, "sk": {"N": str(sk)}, "l": {"N": "5"}})
    response = client.query(
        TableName=hr,
        IndexName="lsi",
        KeyConditionExpression="pk = :p AND l <= :v",
        ExpressionAttributeValues={":p": {"S": "q"}, ":v": {"N": "5"}},
        Limit=2,
    )
    assert "LastEvaluatedKey" in response


# -- 2: document paths into key attributes -------------------------------------------------------------------


@pytest.mark.parametrize("path", ["#n.#a", "#n[0]"])
@pytest.mark.parametrize("attribute", ["pk", "g", "l"])
def test_paths_into_key_attributes(client, hr, path, attribute):
    where = f"Key: {attribute}" if attribute == "pk" else f"IndexKey: {attribute}"
    names = {"#n": attribute, **({"#a": "a"} if "#a" in path else {})}
    key = {"pk": {"S": "q"}, "sk": {"N": "1"}}
    calls = [
        lambda: client.get_item(
            TableName=hr, Key=key, ProjectionExpression=path, ExpressionAttributeNames=names
        ),
        lambda: client.scan(
            TableName=hr, FilterExpression=f"attribute_exists({path})", ExpressionAttributeNames=names
        ),
        lambda: client.query(
            TableName=hr,
            KeyConditionExpression="pk = :p",
            FilterExpression=f"attribute_exists({path})",
            ExpressionAttributeNames=names,
            ExpressionAttributeValues={":p": {"S": "q"}},
        ),
        lambda: client.put_item(
            TableName=hr,
            Item=key,
            ConditionExpression=f"attribute_exists({path})",
            ExpressionAttributeNames=names,
        ),
        lambda: client.delete_item(
            TableName=hr,
            Key=key,
            ConditionExpression=f"attribute_exists({path})",
            ExpressionAttributeNames=names,
        ),
        lambda: client.update_item(
            TableName=hr, Key=key, UpdateExpression=f"SET z = {path}", ExpressionAttributeNames=names
        ),
        lambda: client.batch_get_item(
            RequestItems={
                hr: {"Keys": [key], "ProjectionExpression": path, "ExpressionAttributeNames": names}
            }
        ),
    ]
    for call in calls:
        assert_client_error(call, "ValidationException", SCALARS + where)


def test_update_of_a_path_into_an_index_key_after_the_condition(client, hr):
    key = {"pk": {"S": "q"}, "sk": {"N": "1"}}
    values = {":v": {"S": "v"}}
    assert_client_error(
        lambda: client.update_item(
            TableName=hr, Key=key, UpdateExpression="SET g.a = :v", ExpressionAttributeValues=values
        ),
        "ValidationException",
        SCALARS + "IndexKey: g",
    )
    assert_client_error(
        lambda: client.update_item(
            TableName=hr,
            Key=key,
            UpdateExpression="SET g.a = :v",
            ConditionExpression="attribute_exists(zz)",
            ExpressionAttributeValues=values,
        ),
        "ConditionalCheckFailedException",
    )


# -- 3: UpdateItem checks its condition before "part of the key" ---------------------------------------------


def test_update_condition_before_key_attribute_rule(client, hr):
    key = {"pk": {"S": "q"}, "sk": {"N": "1"}}
    assert_client_error(
        lambda: client.update_item(
            TableName=hr,
            Key=key,
            UpdateExpression="REMOVE #pk",
            ConditionExpression="attribute_exists(#pk)",
            ExpressionAttributeNames={"#pk": "pk"},
        ),
        "ConditionalCheckFailedException",
    )
    assert_client_error(
        lambda: client.update_item(
            TableName=hr, Key=key, UpdateExpression="REMOVE #pk", ExpressionAttributeNames={"#pk": "pk"}
        ),
        "ValidationException",
        "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key",
    )


# -- 4: LSI filters on attributes it does not project --------------------------------------------------------


def test_lsi_filter_on_unprojected_attributes(client, hr):
    for sk in range(3):
        client.put_item(
            TableName=hr,
            Item={"pk": {"S": "q"}, "sk": {"N": str(sk)}, "l": {"N": "1"}, "x": {"M": {"y": {"N": str(sk)}}}},
        )
    values = {":z": {"N": "0"}}
    scanned = client.scan(
        TableName=hr, IndexName="lsi", FilterExpression="x.y > :z", ExpressionAttributeValues=values
    )
    assert scanned["Count"] == 2 and all("x" not in item for item in scanned["Items"])
    for select in (None, "ALL_ATTRIBUTES", "COUNT"):
        assert_client_error(
            lambda select=select: client.query(
                TableName=hr,
                IndexName="lsi",
                KeyConditionExpression="pk = :p",
                FilterExpression="b > :z AND x.y > :z AND c > :z",
                ExpressionAttributeValues={**values, ":p": {"S": "q"}},
                **({"Select": select} if select else {}),
            ),
            "ValidationException",
            "One or more parameter values were invalid: Secondary index lsi does not project one or more filter "
            "attributes: [b, c, x]",
        )


# -- 5: error messages and their order -----------------------------------------------------------------------


def test_index_query_with_an_empty_string_key(client, hr):
    for condition, values, name in [
        ("g = :v", {":v": {"S": ""}}, "g"),
        ("g = :w AND h > :v", {":v": {"S": ""}, ":w": {"S": "x"}}, "h"),
    ]:
        assert_client_error(
            lambda condition=condition, values=values: client.query(
                TableName=hr,
                IndexName="gsi",
                KeyConditionExpression=condition,
                ExpressionAttributeValues=values,
            ),
            "ValidationException",
            "One or more parameter values are not valid. A value specified for a secondary index key is not "
            "supported. The AttributeValue for a key attribute cannot contain an empty string value. "
            f"IndexName: gsi, IndexKey: {name}",
        )


def test_two_conditions_on_a_hash_only_key(client, make_table):
    table = make_table(("pk:B",))
    assert_client_error(
        lambda: client.query(
            TableName=table,
            KeyConditionExpression="pk = :v AND a = :w",
            ExpressionAttributeValues={":v": {"B": b"1"}, ":w": {"B": b"1"}},
        ),
        "ValidationException",
        "Query key condition not supported",
    )


@pytest.mark.parametrize("value", [{"L": []}, {"M": {}}, {"SS": ["a"]}, {"BOOL": True}, {"NULL": True}])
def test_index_key_of_a_non_scalar_type(client, hr, value):
    assert_client_error(
        lambda: client.put_item(TableName=hr, Item={"pk": {"S": "a"}, "sk": {"N": "1"}, "g": value}),
        "ValidationException",
        "Invalid attribute value type",
    )


def test_item_and_key_errors_before_expression_errors(client, hr):
    undefined = "attribute_exists(#zz)"
    assert_client_error(
        lambda: client.put_item(
            TableName=hr,
            Item={"pk": {"S": "a"}, "sk": {"N": "1"}, "g": {"N": "1"}},
            ConditionExpression=undefined,
        ),
        "ValidationException",
        "One or more parameter values were invalid: Type mismatch for Index Key",
    )
    for call in (client.delete_item, client.update_item):
        extra = {"UpdateExpression": "SET a = :v", "ExpressionAttributeValues": {":v": {"N": "1"}}}
        assert_client_error(
            lambda call=call, extra=extra: call(
                TableName=hr,
                Key={"pk": {"S": "a"}},
                ConditionExpression=undefined,
                **(extra if call == client.update_item else {}),
            ),
            "ValidationException",
            "The number of conditions on the keys is invalid",
        )
    key = {"pk": {"S": "a"}, "sk": {"N": "1"}}
    assert_client_error(
        lambda: client.batch_get_item(RequestItems={hr: {"Keys": [key, key], "ProjectionExpression": "#zz"}}),
        "ValidationException",
        "Provided list of item keys contains duplicates",
    )


def test_scan_binds_its_filter_before_checking_select(client, hr):
    assert_client_error(
        lambda: client.scan(TableName=hr, Select="BAD", FilterExpression="attribute_exists(#zz)"),
        "ValidationException",
        "Invalid FilterExpression: An expression attribute name used in the document path is not defined; "
        "attribute name: #zz",
    )


# -- 6: number spelling in nested number sets ----------------------------------------------------------------


def test_nested_number_set_members_in_java_decimal_spelling(client, hr):
    key = {"pk": {"S": "a"}, "sk": {"N": "1"}}
    written = ["1e-3", "01.0", "1.50", "1E+1", "0.00", "-1.20E-2", "1E2", "5"]
    client.put_item(TableName=hr, Item={**key, "m": {"M": {"s": {"NS": written}, "n": {"N": "1e-3"}}}})
    item = client.get_item(TableName=hr, Key=key)["Item"]
    expected = ["0.001", "1.0", "1.50", "1E+1", "0.00", "-0.0120", "1E+2", "5"]
    assert sorted(item["m"]["M"]["s"]["NS"]) == sorted(expected)
    assert item["m"]["M"]["n"] == {"N": "1e-3"}  # a nested number keeps its spelling


# -- update operands are evaluated left to right ---------------------------------------------------------------


@pytest.mark.parametrize(
    "update, message",
    [
        ("SET b = list_append(a, zz)", "An operand in the update expression has an incorrect data type"),
        ("SET b = s + zz", "An operand in the update expression has an incorrect data type"),
        (
            "SET b = list_append(zz, a)",
            "The provided expression refers to an attribute that does not exist in the item",
        ),
        ("SET b = a + zz", "The provided expression refers to an attribute that does not exist in the item"),
    ],
)
def test_wrongly_typed_left_operand_fails_before_a_missing_right_one(client, hr, update, message):
    key = {"pk": {"S": "e"}, "sk": {"N": "1"}}
    client.put_item(TableName=hr, Item={**key, "a": {"N": "1"}, "s": {"S": "x"}})
    assert_client_error(
        lambda: client.update_item(TableName=hr, Key=key, UpdateExpression=update),
        "ValidationException",
        message,
    )


def test_number_set_values_written_by_an_update_keep_their_spelling(client, hr):
    key = {"pk": {"S": "e"}, "sk": {"N": "0"}}
    values = {":v": {"NS": ["1E+1", "1e-3", "1.50", "01.0"]}}
    client.update_item(TableName=hr, Key=key, UpdateExpression="ADD ns :v", ExpressionAttributeValues=values)
    item = client.get_item(TableName=hr, Key=key)["Item"]
    assert sorted(item["ns"]["NS"]) == sorted(["0.001", "1.0", "1.50", "1E+1"])
    # adding to (or deleting from) an existing set writes the whole set in normal form
    client.update_item(
        TableName=hr, Key=key, UpdateExpression="ADD ns :w", ExpressionAttributeValues={":w": {"NS": ["2e0"]}}
    )
    item = client.get_item(TableName=hr, Key=key)["Item"]
    assert sorted(item["ns"]["NS"]) == sorted(["0.001", "1", "1.5", "2", "10"])
