"""AttributeValue types: round trips, number normalisation and limits, empty values, sets, sizes, key rules."""

from __future__ import annotations

import pytest

from ddb_helpers import assert_client_error

KEY = {"pk": {"S": "k"}}

PRECISION = "DynamoDB only supports precision up to 38 digits"
OVERFLOW = "Number overflow. Attempting to store a number with magnitude larger than supported range"
UNDERFLOW = "Number underflow. Attempting to store a number with magnitude smaller than supported range"
NOT_A_NUMBER = "A value provided cannot be converted into a number"
# AWS's messages (Local's: "Hash primary key values must be under 2048 bytes, ...", tests/aws_differences.py)
HASH_TOO_BIG = "One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes"
RANGE_TOO_BIG = (
    "One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of "
    "1024 bytes"
)
ITEM_SIZE = "Item size has exceeded the maximum allowed size"
NESTING = "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"


def roundtrip(client, table, value):
    client.put_item(TableName=table, Item={**KEY, "v": value})
    return client.get_item(TableName=table, Key=KEY)["Item"]["v"]


def put_error(client, table, item, message, code="ValidationException"):
    return assert_client_error(lambda: client.put_item(TableName=table, Item=item), code, message)


def set_sorted(value):
    """Set members in a canonical order: the order DynamoDB returns set members in is unspecified."""
    ((type_, members),) = value.items()
    if type_ == "NS":
        from decimal import Decimal

        return {type_: sorted(members, key=Decimal)}
    return {type_: sorted(members)}


# -- round trips -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        {"S": "hello"},
        {"S": "ünïcödé 日本語 😀"},
        {"S": "with\x00nul"},
        {"S": " leading and trailing "},
        {"N": "42"},
        {"N": "-3.25"},
        {"B": b"\x00\x01\xfe\xff"},
        {"B": bytes(range(256))},
        {"BOOL": True},
        {"BOOL": False},
        {"NULL": True},
        {"L": []},
        {"M": {}},
        {"L": [{"S": "a"}, {"N": "1"}, {"BOOL": False}, {"NULL": True}, {"B": b"x"}]},
        {"M": {"a": {"S": "x"}, "b": {"L": [{"M": {"c": {"SS": ["y"]}}}]}}},
        {"L": [{"L": [{"L": []}]}]},
        {"M": {" ": {"S": "space key"}}},
    ],
    ids=[
        "S",
        "S-unicode",
        "S-nul",
        "S-spaces",
        "N-int",
        "N-negative-decimal",
        "B",
        "B-all-bytes",
        "BOOL-true",
        "BOOL-false",
        "NULL",
        "L-empty",
        "M-empty",
        "L-mixed",
        "M-nested",
        "L-nested",
        "M-space-key",
    ],
)
def test_roundtrip(client, hash_table, value):
    assert roundtrip(client, hash_table, value) == value


@pytest.mark.parametrize(
    "value",
    [{"SS": ["a", "b", "c"]}, {"NS": ["1", "2.5", "-3"]}, {"BS": [b"a", b"\x00", b"\xff"]}],
    ids=["SS", "NS", "BS"],
)
def test_set_roundtrip(client, hash_table, value):
    assert set_sorted(roundtrip(client, hash_table, value)) == set_sorted(value)


def test_string_set_may_contain_empty_string(client, hash_table):
    assert set_sorted(roundtrip(client, hash_table, {"SS": ["", "a"]})) == {"SS": ["", "a"]}


def test_binary_set_may_contain_empty_binary(client, hash_table):
    assert roundtrip(client, hash_table, {"BS": [b""]}) == {"BS": [b""]}


def test_whole_item_roundtrip(client, hash_table):
    item = {
        **KEY,
        "s": {"S": "x"},
        "n": {"N": "1"},
        "b": {"B": b"y"},
        "t": {"BOOL": True},
        "z": {"NULL": True},
        "l": {"L": [{"S": "a"}]},
        "m": {"M": {"k": {"N": "2"}}},
    }
    client.put_item(TableName=hash_table, Item=item)
    assert client.get_item(TableName=hash_table, Key=KEY)["Item"] == item


# -- numbers -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "given, stored",
    [
        ("1.0", "1"),
        ("1e2", "100"),
        ("1E2", "100"),
        ("+5", "5"),
        ("-0", "0"),
        ("0.0", "0"),
        ("-0.0", "0"),
        ("0e5", "0"),
        ("00012", "12"),
        ("1.50", "1.5"),
        ("100.00100", "100.001"),
        ("-1.50e-3", "-0.0015"),
        ("1e-5", "0.00001"),
        ("0.000001", "0.000001"),
        (".5", "0.5"),
        ("-.5", "-0.5"),
        ("5.", "5"),
        ("12345678901234567890123456789012345678", "12345678901234567890123456789012345678"),
        ("1234567890123456789012345678901234567800", "1234567890123456789012345678901234567800"),
        ("1e125", "1" + "0" * 125),
        ("-1e125", "-1" + "0" * 125),
        ("9.9999999999999999999999999999999999999e125", "9" * 38 + "0" * 88),
        ("1e-130", "0." + "0" * 129 + "1"),
    ],
)
def test_number_normalisation(client, hash_table, given, stored):
    assert roundtrip(client, hash_table, {"N": given}) == {"N": stored}


def test_number_set_members_normalised(client, hash_table):
    stored = roundtrip(client, hash_table, {"NS": ["1.0", "2.50", "-0", "1e2"]})
    assert set_sorted(stored) == {"NS": ["0", "1", "2.5", "100"]}


@pytest.mark.local_quirk
def test_numbers_nested_in_documents_are_stored_verbatim(client, hash_table):
    # DynamoDB Local normalises top-level N and NS values only
    value = {"L": [{"N": "1.50"}, {"NS": ["1.0"]}, {"M": {"x": {"N": "0.0"}}}]}
    assert roundtrip(client, hash_table, value) == value


@pytest.mark.parametrize(
    "number",
    [
        "123456789012345678901234567890123456789",
        "1234567890123456789012345678901234567890",
        "1.23456789012345678901234567890123456789",
        "0.000123456789012345678901234567890123456789",
        # more digits than an exact 300-digit context holds: rounding them first would store 1
        "1." + "0" * 500 + "1",
        "0." + "0" * 100 + "1" + "0" * 300 + "1",
    ],
)
def test_number_precision_limit(client, hash_table, number):
    put_error(client, hash_table, {**KEY, "v": {"N": number}}, PRECISION)


HUGE = ["1e999999999", "-1e999999999", "1.0e100000000", "1e2147483647", "1e0000000000000000002147483647"]
TINY = ["1e-999999999", "-1e-999999999", "1e-2147483647", "0.1e-2147483646"]


@pytest.mark.parametrize("number", ["1e126", "-1e126", "1" + "0" * 126, "0.1e127", *HUGE])
def test_number_overflow(client, hash_table, number):
    put_error(client, hash_table, {**KEY, "v": {"N": number}}, OVERFLOW)


@pytest.mark.parametrize("number", ["1e-131", "-1e-131", "0." + "0" * 130 + "1", *TINY])
def test_number_underflow(client, hash_table, number):
    put_error(client, hash_table, {**KEY, "v": {"N": number}}, UNDERFLOW)


@pytest.mark.parametrize(
    "number",
    ["abc", "", " 1", "1 ", "NaN", "Infinity", "-Infinity", "0x10", "1e", "e1", "1_000", "1.2.3", "--1"]
    # exponents and scales beyond a 32-bit integer (DynamoDB reads numbers as Java BigDecimals)
    + [
        "1e2147483648",
        "1.5e2147483648",
        "1e-2147483648",
        "1.0e-2147483647",
        "0e2147483648",
        "1e" + "9" * 5000,
    ],
)
def test_invalid_numbers(client, hash_table, number):
    put_error(client, hash_table, {**KEY, "v": {"N": number}}, NOT_A_NUMBER)


@pytest.mark.parametrize(
    "value, message",
    [
        ({"NS": ["1", "x"]}, NOT_A_NUMBER),
        ({"NS": ["1e126"]}, OVERFLOW),
        ({"NS": ["123456789012345678901234567890123456789"]}, PRECISION),
        ({"L": [{"N": "abc"}]}, NOT_A_NUMBER),
        ({"M": {"a": {"N": "1e-131"}}}, UNDERFLOW),
        ({"NS": ["1", "1e999999999"]}, OVERFLOW),
        ({"NS": ["1", "1e-999999999"]}, UNDERFLOW),
        ({"L": [{"N": "1e999999999"}]}, OVERFLOW),
        ({"M": {"a": {"N": "-1e-999999999"}}}, UNDERFLOW),
        ({"NS": ["1234567890123456789012345678901234567890e999999"]}, PRECISION),
    ],
    ids=[
        "NS-nan",
        "NS-overflow",
        "NS-precision",
        "L-nan",
        "M-underflow",
        "NS-huge",
        "NS-tiny",
        "L-huge",
        "M-tiny",
        "NS-precision-before-range",
    ],
)
def test_number_errors_in_sets_and_documents(client, hash_table, value, message):
    put_error(client, hash_table, {**KEY, "v": value}, message)


def test_number_key_normalised(client, make_table):
    table = make_table(("pk:N",))
    client.put_item(TableName=table, Item={"pk": {"N": "1.0"}})
    for spelling in ("1", "1e0", "1.000", "+1"):
        assert client.get_item(TableName=table, Key={"pk": {"N": spelling}})["Item"] == {"pk": {"N": "1"}}


def test_number_key_equal_values_are_one_item(client, make_table):
    table = make_table(("pk:N",))
    client.put_item(TableName=table, Item={"pk": {"N": "100"}, "x": {"S": "first"}})
    client.put_item(TableName=table, Item={"pk": {"N": "1e2"}, "x": {"S": "second"}})
    assert client.scan(TableName=table)["Items"] == [{"pk": {"N": "100"}, "x": {"S": "second"}}]


@pytest.mark.parametrize("number, message", [("1e999999999", OVERFLOW), ("1e-999999999", UNDERFLOW)])
def test_number_out_of_range_in_keys(client, make_table, number, message):
    table = make_table(("pk:N",))
    put_error(client, table, {"pk": {"N": number}}, message)
    for call in (
        lambda: client.get_item(TableName=table, Key={"pk": {"N": number}}),
        lambda: client.scan(TableName=table, ExclusiveStartKey={"pk": {"N": number}}),
        lambda: client.batch_get_item(RequestItems={table: {"Keys": [{"pk": {"N": number}}]}}),
    ):
        assert_client_error(call, "ValidationException", message)


def test_invalid_number_in_key(client, num_range_table):
    put_error(client, num_range_table, {"pk": {"S": "a"}, "sk": {"N": "abc"}}, NOT_A_NUMBER)


# -- empty values ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [{"S": ""}, {"B": b""}], ids=["S", "B"])
def test_empty_scalar_in_non_key_attribute(client, hash_table, value):
    assert roundtrip(client, hash_table, value) == value


def test_empty_string_in_nested_map(client, hash_table):
    value = {"M": {"a": {"S": ""}, "b": {"L": [{"B": b""}]}}}
    assert roundtrip(client, hash_table, value) == value


def test_empty_string_hash_key(client, hash_table):
    put_error(
        client,
        hash_table,
        {"pk": {"S": ""}},
        "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an "
        "empty string value. Key: pk",
    )


def test_empty_string_range_key(client, range_table):
    put_error(
        client,
        range_table,
        {"pk": {"S": "a"}, "sk": {"S": ""}},
        "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an "
        "empty string value. Key: sk",
    )


def test_empty_binary_key(client, binary_table):
    put_error(
        client,
        binary_table,
        {"pk": {"B": b""}, "sk": {"B": b"x"}},
        "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an "
        "empty binary value. Key: pk",
    )


def test_empty_string_key_in_get_item(client, hash_table):
    assert_client_error(
        lambda: client.get_item(TableName=hash_table, Key={"pk": {"S": ""}}),
        "ValidationException",
        "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an "
        "empty string value. Key: pk",
    )


@pytest.mark.parametrize(
    "value, message",
    [
        ({"SS": []}, "One or more parameter values were invalid: An string set  may not be empty"),
        ({"NS": []}, "One or more parameter values were invalid: An number set  may not be empty"),
        ({"BS": []}, "One or more parameter values were invalid: Binary sets should not be empty"),
        (
            {"M": {"a": {"SS": []}}},
            "One or more parameter values were invalid: An string set  may not be empty",
        ),
    ],
    ids=["SS", "NS", "BS", "nested-SS"],
)
def test_empty_sets_rejected(client, hash_table, value, message):
    put_error(client, hash_table, {**KEY, "v": value}, message)


@pytest.mark.parametrize(
    "value, message",
    [
        (
            {"SS": ["a", "a"]},
            "One or more parameter values were invalid: Input collection [a, a] contains duplicates.",
        ),
        ({"NS": ["1", "1"]}, "Input collection contains duplicates"),
        ({"NS": ["1", "1.0"]}, "Input collection contains duplicates"),
        (
            {"BS": [b"a", b"a"]},
            "One or more parameter values were invalid: Input collection [YQ==, YQ==]of type BS contains duplicates.",
        ),
    ],
    ids=["SS", "NS", "NS-equal-values", "BS"],
)
def test_duplicate_set_members_rejected(client, hash_table, value, message):
    put_error(client, hash_table, {**KEY, "v": value}, message)


@pytest.mark.parametrize("value", [{"NULL": False}, {"L": [{"NULL": False}]}], ids=["top", "nested"])
def test_null_false_rejected(client, hash_table, value):
    put_error(
        client,
        hash_table,
        {**KEY, "v": value},
        "One or more parameter values were invalid: Null attribute value types must have the value of true",
    )


def test_attribute_value_without_type(client, hash_table):
    put_error(
        client,
        hash_table,
        {**KEY, "v": {}},
        "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes",
    )


def test_attribute_value_with_two_types(client, hash_table):
    put_error(
        client,
        hash_table,
        {**KEY, "v": {"S": "a", "N": "1"}},
        "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes",
    )


def test_empty_attribute_name(client, hash_table):
    put_error(client, hash_table, {**KEY, "": {"S": "x"}}, "Empty attribute name")


def test_empty_map_key(client, hash_table):
    put_error(client, hash_table, {**KEY, "v": {"M": {"": {"S": "x"}}}}, "Empty attribute name")


# -- nesting -----------------------------------------------------------------------------------------------------


def _nested_maps(depth):
    value = {"S": "leaf"}
    for _ in range(depth):
        value = {"M": {"a": value}}
    return value


def _nested_lists(depth):
    value = {"S": "leaf"}
    for _ in range(depth):
        value = {"L": [value]}
    return value


def test_nesting_31_levels_allowed(client, hash_table):
    value = _nested_maps(31)
    assert roundtrip(client, hash_table, value) == value


@pytest.mark.parametrize("nest", [_nested_maps, _nested_lists], ids=["maps", "lists"])
def test_nesting_32_levels_rejected(client, hash_table, nest):
    put_error(client, hash_table, {**KEY, "v": nest(32)}, NESTING)


# -- keys ------------------------------------------------------------------------------------------------------------


def test_key_type_mismatch_hash(client, hash_table):
    put_error(
        client,
        hash_table,
        {"pk": {"N": "1"}},
        "One or more parameter values were invalid: Type mismatch for key pk expected: S actual: N",  # AWS's
    )


def test_key_type_mismatch_range(client, num_range_table):
    put_error(
        client,
        num_range_table,
        {"pk": {"S": "a"}, "sk": {"S": "1"}},
        "One or more parameter values were invalid: Type mismatch for key sk expected: N actual: S",
    )


def test_key_type_mismatch_binary(client, binary_table):
    put_error(
        client,
        binary_table,
        {"pk": {"S": "a"}, "sk": {"B": b"1"}},
        "One or more parameter values were invalid: Type mismatch for key pk expected: B actual: S",
    )


@pytest.mark.parametrize(
    "value",
    [{"SS": ["a"]}, {"M": {}}, {"L": []}, {"NULL": True}, {"BOOL": True}],
    ids=["SS", "M", "L", "NULL", "BOOL"],
)
def test_key_of_non_scalar_type(client, hash_table, value):
    (kind,) = value
    put_error(
        client,
        hash_table,
        {"pk": value},
        f"One or more parameter values were invalid: Type mismatch for key pk expected: S actual: {kind}",
    )


def test_missing_hash_key(client, hash_table):
    put_error(
        client,
        hash_table,
        {"x": {"S": "1"}},
        "One or more parameter values were invalid: Missing the key pk in the item",
    )


def test_missing_range_key(client, range_table):
    put_error(
        client,
        range_table,
        {"pk": {"S": "a"}},
        "One or more parameter values were invalid: Missing the key sk in the item",
    )


# -- size limits -------------------------------------------------------------------------------------------------


def test_hash_key_2048_bytes_allowed(client, hash_table):
    client.put_item(TableName=hash_table, Item={"pk": {"S": "x" * 2048}})
    assert client.get_item(TableName=hash_table, Key={"pk": {"S": "x" * 2048}})["Item"]


def test_hash_key_over_2048_bytes(client, hash_table):
    put_error(client, hash_table, {"pk": {"S": "x" * 2049}}, HASH_TOO_BIG)


def test_hash_key_limit_counts_utf8_bytes(client, range_table):
    client.put_item(TableName=range_table, Item={"pk": {"S": "é" * 1024}, "sk": {"S": "x"}})
    put_error(client, range_table, {"pk": {"S": "é" * 1025}, "sk": {"S": "x"}}, HASH_TOO_BIG)


def test_range_key_1024_bytes_allowed(client, range_table):
    client.put_item(TableName=range_table, Item={"pk": {"S": "a"}, "sk": {"S": "x" * 1024}})


def test_range_key_over_1024_bytes(client, range_table):
    put_error(client, range_table, {"pk": {"S": "a"}, "sk": {"S": "x" * 1025}}, RANGE_TOO_BIG)


@pytest.mark.parametrize(
    "item, message",
    [
        ({"pk": {"B": b"x" * 2049}, "sk": {"B": b"x"}}, HASH_TOO_BIG),
        ({"pk": {"B": b"x"}, "sk": {"B": b"x" * 1025}}, RANGE_TOO_BIG),
    ],
    ids=["hash", "range"],
)
def test_binary_key_size_limits(client, binary_table, item, message):
    put_error(client, binary_table, item, message)


def test_oversized_key_in_get_item(client, range_table):
    assert_client_error(
        lambda: client.get_item(TableName=range_table, Key={"pk": {"S": "a"}, "sk": {"S": "x" * 1025}}),
        "ValidationException",
        RANGE_TOO_BIG,
    )


def test_item_just_under_400kb(client, hash_table):
    # pk "k" is 3 bytes, attribute name "v" 1 byte: 3 + 1 + 409596 == 409600
    client.put_item(TableName=hash_table, Item={**KEY, "v": {"S": "x" * 409596}})
    assert client.describe_table(TableName=hash_table)["Table"]["TableSizeBytes"] == 409600


def test_item_over_400kb(client, hash_table):
    put_error(client, hash_table, {**KEY, "v": {"S": "x" * 409597}}, ITEM_SIZE)
    assert "Item" not in client.get_item(TableName=hash_table, Key=KEY)


def test_update_making_item_too_big(client, hash_table):
    client.put_item(TableName=hash_table, Item={**KEY, "v": {"S": "x" * 409596}})
    assert_client_error(
        lambda: client.update_item(
            TableName=hash_table,
            Key=KEY,
            UpdateExpression="SET w = :w",
            ExpressionAttributeValues={":w": {"S": "y"}},
        ),
        "ValidationException",
        "Item size to update has exceeded the maximum allowed size",
    )
    assert "w" not in client.get_item(TableName=hash_table, Key=KEY)["Item"]


def test_update_creating_too_big_item(client, hash_table):
    assert_client_error(
        lambda: client.update_item(
            TableName=hash_table,
            Key=KEY,
            UpdateExpression="SET w = :w",
            ExpressionAttributeValues={":w": {"S": "y" * 409600}},
        ),
        "ValidationException",
        "Item size to update has exceeded the maximum allowed size",
    )


# -- item size accounting (TableSizeBytes of a one-item table) ---------------------------------------------------


@pytest.mark.parametrize(
    "value, size",
    [
        ({"S": ""}, 0),
        ({"S": "abc"}, 3),
        ({"S": "é"}, 2),
        ({"S": "😀"}, 4),
        ({"B": b""}, 0),
        ({"B": b"abc"}, 3),
        ({"BOOL": True}, 1),
        ({"NULL": True}, 1),
        ({"N": "0"}, 1),
        ({"N": "1"}, 2),
        ({"N": "12"}, 2),
        ({"N": "123"}, 3),
        ({"N": "1234"}, 3),
        ({"N": "-1"}, 3),
        ({"N": "1.5"}, 3),
        ({"N": "100"}, 2),
        ({"N": "1e10"}, 2),
        ({"N": "0.001"}, 2),
        ({"N": "12345678901234567890123456789012345678"}, 20),
        ({"SS": ["a", "bc"]}, 3),
        ({"NS": ["1", "22"]}, 4),
        ({"BS": [b"a"]}, 1),
        ({"L": []}, 3),
        ({"M": {}}, 3),
        ({"L": [{"S": "a"}]}, 5),
        ({"M": {"k": {"S": "a"}}}, 6),
        ({"L": [{"S": "a"}, {"N": "1"}]}, 8),
        ({"M": {"k": {"S": "a"}, "kk": {"N": "1"}}}, 11),
        ({"L": [{"M": {"x": {"S": "y"}}}]}, 10),
    ],
)
def test_attribute_value_size(client, hash_table, value, size):
    client.put_item(TableName=hash_table, Item={**KEY, "v": value})
    # key attribute: "pk" (2) + "k" (1); attribute name "v": 1
    assert client.describe_table(TableName=hash_table)["Table"]["TableSizeBytes"] == 3 + 1 + size


def test_attribute_name_counts_in_size(client, hash_table):
    client.put_item(TableName=hash_table, Item={**KEY, "a_long_name": {"S": "x"}, "é": {"S": "y"}})
    assert client.describe_table(TableName=hash_table)["Table"]["TableSizeBytes"] == 3 + (11 + 1) + (2 + 1)


# -- out-of-range numbers in expressions, legacy parameters and arithmetic ---------------------------------------


def _eav_message(message, key=":v"):
    return f"ExpressionAttributeValues contains invalid value: {message} for key {key}"


@pytest.mark.parametrize(
    "number, message",
    [("1e999999999", OVERFLOW), ("1e-999999999", UNDERFLOW), ("1e2147483648", NOT_A_NUMBER)],
)
def test_out_of_range_numbers_in_expression_values_and_legacy_parameters(client, hash_table, number, message):
    client.put_item(TableName=hash_table, Item={**KEY, "n": {"N": "1"}})
    value = {"N": number}
    calls = {
        _eav_message(message): [
            lambda: client.update_item(
                TableName=hash_table,
                Key=KEY,
                UpdateExpression="SET z = :v + :v",
                ExpressionAttributeValues={":v": value},
            ),
            lambda: client.scan(
                TableName=hash_table, FilterExpression="n < :v", ExpressionAttributeValues={":v": value}
            ),
            lambda: client.update_item(
                TableName=hash_table,
                Key=KEY,
                UpdateExpression="ADD s :v",
                ExpressionAttributeValues={":v": {"NS": [number]}},
            ),
        ],
        message: [
            lambda: client.put_item(TableName=hash_table, Item=KEY, Expected={"n": {"Value": value}}),
            lambda: client.update_item(
                TableName=hash_table, Key=KEY, AttributeUpdates={"n": {"Value": value, "Action": "ADD"}}
            ),
            lambda: client.scan(
                TableName=hash_table,
                ScanFilter={"n": {"AttributeValueList": [value], "ComparisonOperator": "GT"}},
            ),
        ],
    }
    for expected, requests in calls.items():
        for request in requests:
            assert_client_error(request, "ValidationException", expected)
    assert client.get_item(TableName=hash_table, Key=KEY)["Item"] == {**KEY, "n": {"N": "1"}}


@pytest.mark.parametrize(
    "expression, values, message",
    [
        ("SET z = :a + :a", {":a": {"N": "9E125"}}, OVERFLOW),
        ("SET z = :a - :b", {":a": {"N": "-9E125"}, ":b": {"N": "9E125"}}, OVERFLOW),
        ("ADD big :a", {":a": {"N": "9E125"}}, OVERFLOW),
        ("SET z = big + :a", {":a": {"N": "1"}}, PRECISION),
    ],
)
def test_arithmetic_results_out_of_range(client, hash_table, expression, values, message):
    item = {**KEY, "big": {"N": "9" + "0" * 125}}
    client.put_item(TableName=hash_table, Item=item)
    request = dict(
        TableName=hash_table, Key=KEY, UpdateExpression=expression, ExpressionAttributeValues=values
    )
    assert_client_error(lambda: client.update_item(**request), "ValidationException", message)
    assert client.get_item(TableName=hash_table, Key=KEY)["Item"] == item
