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
            "The provided key element does not match the schema",  # AWS's (tests/aws_differences.py)
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
        # AWS validates against the model first (Local binds the filter first: see aws_differences)
        "1 validation error detected: Value 'BAD' at 'select' failed to satisfy constraint: Member must satisfy "
        "enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]",
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


# -- 7: which paths an overlap or a conflict names ------------------------------------------------------------
#
# Local adds the paths of a projection or an update, last written first, to a tree of Java HashMaps and names
# "path one" (the path being added) and "path two" (the path it met, continued along each level's first key in
# HashMap order, which may be a sibling).  PartiQL adds a SELECT's or UPDATE's paths in the order written.

OVERLAP = "Two document paths overlap with each other; must remove or rewrite one of these paths; "
CONFLICT = "Two document paths conflict with each other; must remove or rewrite one of these paths; "


@pytest.mark.parametrize(
    "projection, names, message",
    [
        ("#b, #x, #b.#b[1]", {"#b": "b", "#x": "x.y"}, OVERLAP + "path one: [b], path two: [x.y]"),
        ("#b, #b.#a, #b", {"#b": "b", "#a": "a"}, OVERLAP + "path one: [b, a], path two: [b]"),
        ("#a.#a.#a, #a, #a", {"#a": "a"}, OVERLAP + "path one: [a], path two: [a]"),
        ("#x, #x, #x[1][2]", {"#x": "x.y"}, OVERLAP + "path one: [x.y], path two: [x.y, [1], [2]]"),
        ("a.b, a.c, a[0]", None, CONFLICT + "path one: [a, c], path two: [a, [0]]"),
        ("a[1], a[2], a[3], a.b", None, CONFLICT + "path one: [a, [3]], path two: [a, b]"),
        (
            "a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, a",  # a resized HashMap
            None,
            OVERLAP + "path one: [a], path two: [n]",
        ),
    ],
)
def test_projection_overlap_names_the_paths_of_locals_tree(client, hr, projection, names, message):
    request = {
        "TableName": hr,
        "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}},
        "ProjectionExpression": projection,
    }
    if names:
        request["ExpressionAttributeNames"] = names
    assert_client_error(
        lambda: client.get_item(**request), "ValidationException", "Invalid ProjectionExpression: " + message
    )


def test_projection_paths_are_resolved_last_to_first(client, hr):
    assert_client_error(
        lambda: client.scan(
            TableName=hr, ProjectionExpression="#m, a, a", ExpressionAttributeNames={"#x": "x"}
        ),
        "ValidationException",
        "Invalid ProjectionExpression: " + OVERLAP + "path one: [a], path two: [a]",
    )


@pytest.mark.parametrize(
    "update, names, message",
    [
        (
            "DELETE #x :s ADD #b :n, #b :n SET #b.#a = list_append(if_not_exists(#a, :l), :l) REMOVE #l",
            {"#x": "x.y", "#b": "b", "#a": "a", "#l": "l"},
            OVERLAP + "path one: [b], path two: [l]",
        ),
        ("SET b = :n, a = :n REMOVE a.x, g", None, OVERLAP + "path one: [a], path two: [g]"),
        ("SET a.b = :n, a[1] = :n, a.c = :n", None, CONFLICT + "path one: [a, [1]], path two: [a, c]"),
    ],
)
def test_update_overlap_names_the_paths_of_locals_tree(client, hr, update, names, message):
    values = {":n": {"N": "1"}, ":s": {"SS": ["a"]}, ":l": {"L": []}}
    request = {
        "TableName": hr,
        "Key": {"pk": {"S": "a"}, "sk": {"N": "1"}},
        "UpdateExpression": update,
        "ExpressionAttributeValues": {k: v for k, v in values.items() if k in update},
    }
    if names:
        request["ExpressionAttributeNames"] = names
    assert_client_error(
        lambda: client.update_item(**request), "ValidationException", "Invalid UpdateExpression: " + message
    )


@pytest.mark.parametrize(
    "statement, message",
    [
        ('SELECT b, "x.y", b.b[1] FROM "{t}"', OVERLAP + "path one: [b, b, [1]], path two: [x.y]"),
        ('SELECT a.b, a.c, a[0] FROM "{t}"', CONFLICT + "path one: [a, [0]], path two: [a, c]"),
        (
            "UPDATE \"{t}\" SET b = -c SET a = 1 SET a = 2 WHERE pk = 'a' AND sk = 1",
            OVERLAP + "path one: [a], path two: [b]",
        ),
        (
            "UPDATE \"{t}\" SET a = 1 REMOVE a.b WHERE pk = 'a' AND sk = 1",
            OVERLAP + "path one: [a, b], path two: [a]",
        ),
        # the overlap comes before the key checks and the unary minus, after the statement's own errors
        ('UPDATE "{t}" SET a = 1 SET a = 2 WHERE nokey = 1', OVERLAP + "path one: [a], path two: [a]"),
        (
            "UPDATE \"{t}\" SET a = 1 SET a = 2 SET b = 3 * c WHERE pk = 'a'",
            "Unsupported operator in Update Expression. Operator: *",
        ),
        (
            'UPDATE "{t}" SET b = -c WHERE pk = 1',
            "Incorrect number of operands for operator or function; operator or function: -, number of operands: 1",
        ),
    ],
)
def test_partiql_overlap_names_paths_in_written_order(client, hr, statement, message):
    assert_client_error(
        lambda: client.execute_statement(Statement=statement.replace("{t}", hr)),
        "ValidationException",
        message,
    )


# -- 8: UpdateItem meets its errors along the tree of its paths --------------------------------------------------
#
# Local applies an update by walking its path tree (each level in Java HashMap order) and fails at the first
# problem on the way: a path through a missing or non-container value, a SET value with a missing attribute or
# an operand of the wrong type, an ADD/DELETE of the wrong type.


@pytest.mark.parametrize(
    "update, message",
    [
        (
            "SET #n = :v + a, a.a = :l",
            "The document path provided in the update expression is invalid for update",
        ),
        (
            "SET #n = :v + m, zz.a = :l",
            "The document path provided in the update expression is invalid for update",
        ),
        (
            "SET #n = :v + zz REMOVE m.x.y",
            "The document path provided in the update expression is invalid for update",
        ),
        ("ADD s :v, zz.y :v", "An operand in the update expression has an incorrect data type"),
        ("DELETE zz.y :ss, m :ss", "An operand in the update expression has an incorrect data type"),
        ("SET #n = :v + m ADD zz :v", "An operand in the update expression has an incorrect data type"),
    ],
)
def test_update_errors_in_the_order_of_locals_path_tree(client, hr, update, message):
    key = {"pk": {"S": "u"}, "sk": {"N": "1"}}
    client.put_item(TableName=hr, Item={**key, "s": {"S": "str"}, "m": {"M": {}}})
    values = {":v": {"N": "1"}, ":l": {"L": []}, ":ss": {"SS": ["1"]}}
    request = {
        "TableName": hr,
        "Key": key,
        "UpdateExpression": update,
        "ExpressionAttributeValues": {k: v for k, v in values.items() if k in update},
    }
    if "#n" in update:
        request["ExpressionAttributeNames"] = {"#n": "name"}
    assert_client_error(lambda: client.update_item(**request), "ValidationException", message)


def test_update_of_a_missing_item_with_a_nested_path_and_a_missing_operand(client, hr):
    assert_client_error(
        lambda: client.update_item(
            TableName=hr,
            Key={"pk": {"S": "none"}, "sk": {"N": "1"}},
            UpdateExpression="SET #n = :v + a, a.a = :l",
            ExpressionAttributeNames={"#n": "name"},
            ExpressionAttributeValues={":v": {"N": "1"}, ":l": {"L": []}},
        ),
        "ValidationException",
        "The document path provided in the update expression is invalid for update",
    )


# -- 9: a failed condition's item is read after the whole transaction ----------------------------------------


def _cancellation_reasons(call) -> list:
    return assert_client_error(call, "TransactionCanceledException").response["CancellationReasons"]


def test_transaction_condition_failure_returns_the_item_as_later_actions_left_it(client, hr):
    key = {"pk": {"S": "t"}, "sk": {"N": "1"}}
    put = {
        "Put": {
            "TableName": hr,
            "Item": {**key, "r": {"S": "x"}},
            "ConditionExpression": "attribute_exists(zz)",
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        }
    }
    update = {
        "Update": {
            "TableName": hr,
            "Key": key,
            "UpdateExpression": "SET q = :v",
            "ExpressionAttributeValues": {":v": {"N": "1"}},
        }
    }
    check = {
        "ConditionCheck": {
            "TableName": hr,
            "Key": key,
            "ConditionExpression": "attribute_exists(zz)",
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        }
    }
    # the Put fails; the Update after it on the same item still runs, and the Put's reason shows its result
    reasons = _cancellation_reasons(lambda: client.transact_write_items(TransactItems=[put, update]))
    assert reasons[0]["Item"] == {**key, "q": {"N": "1"}}
    assert reasons[1] == {"Code": "None"}
    # a failed check before a Put of the item shows the item put
    reasons = _cancellation_reasons(
        lambda: client.transact_write_items(
            TransactItems=[check, {"Put": {"TableName": hr, "Item": {**key}}}]
        )
    )
    assert reasons[0]["Item"] == key
    # and after a Delete of the item, no item
    delete = {"Delete": {"TableName": hr, "Key": key}}
    reasons = _cancellation_reasons(lambda: client.transact_write_items(TransactItems=[put, delete]))
    assert "Item" not in reasons[0]
    assert client.get_item(TableName=hr, Key=key).get("Item") is None


# -- 10: the order of a Query's and a Scan's checks -------------------------------------------------------------
#
# Local binds the FilterExpression, then the ProjectionExpression, then the KeyConditionExpression; then come
# unused placeholders, paths into key attributes, the key condition's shape (condition by condition, as
# written), a consistent read of a GSI, the key values, the ExclusiveStartKey, a filter on key attributes, and
# Select.

DISTINCT = (
    "Invalid FilterExpression: The first operand must be distinct from the remaining operands for this operator "
    "or function; operator: =, first operand: [a]"
)


@pytest.mark.parametrize(
    "request_, message",
    [
        ({"KeyConditionExpression": "pk = :p AND a = :s", "FilterExpression": "a = a"}, DISTINCT),
        ({"KeyConditionExpression": "pk = :p AND AND", "FilterExpression": "a = a"}, DISTINCT),
        (
            {
                "KeyConditionExpression": "#u = :p",
                "FilterExpression": "a = a",
                "ExpressionAttributeNames": {"#x": "x"},
            },
            DISTINCT,
        ),
        (
            {"KeyConditionExpression": "pk = :p AND begins_with(sk, :n)", "ProjectionExpression": "x, x"},
            "Invalid ProjectionExpression: " + OVERLAP + "path one: [x], path two: [x]",
        ),
        (
            {
                "KeyConditionExpression": "pk = :p AND pk = :n",
                "ExpressionAttributeValues": {":q": {"N": "1"}},
            },
            "Value provided in ExpressionAttributeValues unused in expressions: keys: {:q}",
        ),
        (
            {"KeyConditionExpression": "pk = :p OR sk.x = :n"},
            SCALARS + "Key: sk",
        ),
        (
            {"KeyConditionExpression": "pk = :p AND pk = :n", "FilterExpression": "sk.x = :n"},
            SCALARS + "Key: sk",
        ),
        (
            {"KeyConditionExpression": "pk = :p AND foo.x = :n"},
            "KeyConditionExpressions cannot have conditions on nested attributes",
        ),
        (
            {"KeyConditionExpression": "pk = :p AND pk = :n AND foo.x = :n"},
            "KeyConditionExpressions must only contain one condition per key",
        ),
        (
            {"KeyConditionExpression": "pk = :p AND sk = :n AND zz = :n"},
            "Conditions can be of length 1 or 2 only",
        ),
        (
            {"KeyConditionExpression": "pk = :p AND pk = :n", "IndexName": "gsi", "ConsistentRead": True},
            "KeyConditionExpressions must only contain one condition per key",
        ),
        (
            {
                "KeyConditionExpression": "pk = :p AND a = :n AND b = :n",
                "IndexName": "gsi",
                "ConsistentRead": True,
            },
            "Consistent reads are not supported on global secondary indexes",
        ),
        (
            {
                "KeyConditionExpression": "g = :p AND h = :n",
                "IndexName": "gsi",
                "Select": "COUNT",
                "ProjectionExpression": "zz",
            },
            "One or more parameter values were invalid: Condition parameter type does not match schema type",
        ),
        (
            {
                "KeyConditionExpression": "pk = :p",
                "FilterExpression": "sk = :p",
                "ExclusiveStartKey": {"zz": {"S": "a"}},
            },
            "Exclusive Start Key must have same size as table's key schema",
        ),
        (
            {
                "KeyConditionExpression": "pk = :p",
                "FilterExpression": "sk = :p",
                "Select": "COUNT",
                "ProjectionExpression": "x",
            },
            "Filter Expression can only contain non-primary key attributes: Primary key attribute: sk",
        ),
    ],
)
def test_query_checks_in_locals_order(client, hr, request_, message):
    values = {":p": {"S": "a"}, ":n": {"N": "1"}, ":s": {"S": ""}}
    text = " ".join(str(v) for k, v in request_.items() if k.endswith("Expression"))
    request = {"TableName": hr, **request_}
    used = {k: v for k, v in values.items() if k in text}
    request["ExpressionAttributeValues"] = {**used, **request_.get("ExpressionAttributeValues", {})}
    assert_client_error(lambda: client.query(**request), "ValidationException", message)


def test_hash_only_query_filter_error_before_key_condition_shape(client, make_table):
    table = make_table(("pk:B",))
    assert_client_error(
        lambda: client.query(
            TableName=table,
            KeyConditionExpression="#k = :v AND #a = :s",
            FilterExpression="#a = #a",
            ExpressionAttributeNames={"#k": "pk", "#a": "a"},
            ExpressionAttributeValues={":v": {"B": b"\x00"}, ":s": {"S": ""}},
        ),
        "ValidationException",
        DISTINCT,
    )


def test_scan_exclusive_start_key_before_select_and_segment(client, hr):
    assert_client_error(
        lambda: client.scan(
            TableName=hr, Select="COUNT", ProjectionExpression="x", ExclusiveStartKey={"zz": {"S": "a"}}
        ),
        "ValidationException",
        "Exclusive Start Key must have same size as table's key schema",
    )


# -- 11: smaller orders ------------------------------------------------------------------------------------------


def test_update_of_key_attributes_names_the_first_in_key_schema_order(client, hr):
    assert_client_error(
        lambda: client.update_item(
            TableName=hr,
            Key={"pk": {"S": "a"}, "sk": {"N": "1"}},
            UpdateExpression="SET sk = :v DELETE pk.b[1] :s",
            ExpressionAttributeValues={":v": {"N": "2"}, ":s": {"SS": ["a"]}},
        ),
        "ValidationException",
        "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key",
    )


def test_transact_get_checks_paths_into_keys_before_the_key(client, hr):
    key = {"pk": {"S": "a"}, "sk": {"N": "1"}}
    for items in (
        [{"Get": {"TableName": hr, "Key": {"pk": {"S": "a"}}, "ProjectionExpression": "l.b"}}],
        [
            {"Get": {"TableName": hr, "Key": key}},
            {"Get": {"TableName": hr, "Key": key, "ProjectionExpression": "l.b"}},
        ],
    ):
        assert_client_error(
            lambda items=items: client.transact_get_items(TransactItems=items),
            "ValidationException",
            SCALARS + "IndexKey: l",
        )


@pytest.mark.parametrize(
    "key",
    [
        {"pk": {"S": "a"}},
        {"pk": {"N": "1"}, "sk": {"N": "1"}},
        {"pk": {"S": ""}, "sk": {"N": "1"}},
        {"pk": {"S": "a"}, "sk": {"N": "1"}, "zz": {"S": "q"}},
    ],
)
def test_get_item_checks_paths_into_keys_before_the_key(client, hr, key):
    assert_client_error(
        lambda: client.get_item(
            TableName=hr,
            Key=key,
            ProjectionExpression="#k.#a",
            ExpressionAttributeNames={"#k": "pk", "#a": "a"},
        ),
        "ValidationException",
        SCALARS + "Key: pk",
    )


# -- 12: the one-item rule of TransactWriteItems compares key text ------------------------------------------------
#
# Local tells a transaction's items apart by the text of their key values: a Put's as stored (numbers in normal
# form), the Key of an Update, Delete or ConditionCheck as written.  Two spellings of one number are then two
# items to the rule (though one in the table), and the actions apply one after the other.


@pytest.mark.parametrize(
    "first, second, one_item",
    [
        (("Put", "10"), ("Put", "1E+1"), True),
        (("Update", "1E+1"), ("Delete", "1E+1"), True),
        (("Update", "1E+1"), ("Delete", "10"), False),
        (("Update", "10"), ("Put", "1E+1"), True),
        (("Update", "2.50"), ("Put", "2.5"), False),
        (("ConditionCheck", "2.50"), ("Update", "2.5"), False),
        (("Put", "1E+1"), ("ConditionCheck", "1E+1"), False),
        (("Put", "2.50"), ("ConditionCheck", "2.5"), True),
        (("Put", "-0"), ("ConditionCheck", "0"), True),
        (("Update", "-0"), ("ConditionCheck", "0"), False),
    ],
)
def test_transaction_one_item_rule_compares_key_text(client, hr, first, second, one_item):
    def action(kind, sk):
        key = {"pk": {"S": "n"}, "sk": {"N": sk}}
        if kind == "Put":
            return {"Put": {"TableName": hr, "Item": key}}
        if kind == "Update":
            return {
                "Update": {
                    "TableName": hr,
                    "Key": key,
                    "UpdateExpression": "SET q = :v",
                    "ExpressionAttributeValues": {":v": {"N": "1"}},
                }
            }
        if kind == "Delete":
            return {"Delete": {"TableName": hr, "Key": key}}
        return {
            "ConditionCheck": {"TableName": hr, "Key": key, "ConditionExpression": "attribute_not_exists(zz)"}
        }

    call = lambda: client.transact_write_items(TransactItems=[action(*first), action(*second)])  # noqa: E731
    if one_item:
        assert_client_error(
            call, "ValidationException", "Transaction request cannot include multiple operations on one item"
        )
        return
    call()
    item = client.get_item(
        TableName=hr, Key={"pk": {"S": "n"}, "sk": {"N": first[1]}}, ConsistentRead=True
    ).get("Item")
    if second[0] == "Delete":
        assert item is None
    elif second[0] == "Put":
        assert item is not None and "q" not in item  # the Put replaced what the Update wrote
    else:  # one of the two writes it
        assert item is not None


# -- 13: which key attribute "Key attributes must be scalars" names --------------------------------------------
#
# Local goes through the key schemas -- the table's, each LSI's, each GSI's, hash before range -- and names the
# first key attribute some path of the expression goes into; an update's written and read paths count as one.


@pytest.mark.parametrize(
    "update, where",
    [
        ("SET l.a = :v + g.a", "IndexKey: l"),
        ("SET z = g.a + l.a", "IndexKey: l"),
        ("SET g.a = :v + l.a", "IndexKey: l"),
        ("SET h.a = :v, g.b = :v", "IndexKey: g"),
        ("SET z = sk.a + pk.a", "Key: pk"),
    ],
)
def test_paths_into_keys_name_the_first_key_in_schema_order(client, hr, update, where):
    key = {"pk": {"S": "a"}, "sk": {"N": "-1"}}
    client.put_item(TableName=hr, Item=key)
    request = {"TableName": hr, "Key": key, "UpdateExpression": update}
    if ":v" in update:
        request["ExpressionAttributeValues"] = {":v": {"N": "1"}}
    assert_client_error(lambda: client.update_item(**request), "ValidationException", SCALARS + where)
    assert_client_error(
        lambda: client.get_item(TableName=hr, Key=key, ProjectionExpression="g.a, l.a"),
        "ValidationException",
        SCALARS + "IndexKey: l",
    )


# -- 14: a number set that ADD or DELETE leaves unchanged keeps its members as stored ---------------------------

# Local writes a number set it builds in normal form ("1E+1" becomes "10"), but an ADD that adds nothing new and a
# DELETE that removes nothing leave the stored set as it was.


@pytest.mark.parametrize(
    "update, value, expected",
    [
        ("DELETE a :v", ["3"], {"1E+1", "2.50"}),  # nothing removed
        ("DELETE a :v", ["2.5"], {"10"}),  # a member removed: the set is rebuilt
        ("ADD a :v", ["10"], {"1E+1", "2.50"}),  # nothing new
        ("ADD a :v", ["7"], {"10", "2.5", "7"}),  # a member added: the set is rebuilt
    ],
)
def test_number_set_unchanged_by_add_or_delete_stays_as_stored(client, hr, update, value, expected):
    key = {"pk": {"S": "n"}, "sk": {"N": "1"}}
    client.update_item(
        TableName=hr,
        Key=key,
        UpdateExpression="ADD a :v",
        ExpressionAttributeValues={":v": {"NS": ["1E+1", "2.50"]}},
    )
    client.update_item(
        TableName=hr, Key=key, UpdateExpression=update, ExpressionAttributeValues={":v": {"NS": value}}
    )
    assert set(client.get_item(TableName=hr, Key=key)["Item"]["a"]["NS"]) == expected
