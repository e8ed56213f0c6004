"""ExpressionAttributeNames / ExpressionAttributeValues validation; messages verified on DynamoDB Local."""

from __future__ import annotations

import pytest

from dynabase.errors import ValidationException
from dynabase.expressions import Placeholders, compile_condition

S = {"S": "x"}


def error(names, values) -> str:
    with pytest.raises(ValidationException) as caught:
        Placeholders(names, values)
    return caught.value.message


def test_empty_maps():
    assert error({}, {}) == "ExpressionAttributeNames must not be empty"
    assert error({"#a": "a"}, {}) == "ExpressionAttributeValues must not be empty"
    assert error({}, {"bad": S}) == "ExpressionAttributeNames must not be empty"


def test_key_syntax_and_length():
    assert (
        error({"bad": "x"}, {":bad": {}})
        == 'ExpressionAttributeNames contains invalid key: Syntax error; key: "bad"'
    )
    assert (
        error({"#a": ""}, {"bad": S})
        == 'ExpressionAttributeValues contains invalid key: Syntax error; key: "bad"'
    )
    for key in ("#a-b", "#a#b", "#a.b", "#", "##a", "#\u65e5"):
        assert (
            error({key: "x"}, None)
            == f'ExpressionAttributeNames contains invalid key: Syntax error; key: "{key}"'
        )
    for key in (":a-b", ":", "a", "::a"):
        assert (
            error(None, {key: S})
            == f'ExpressionAttributeValues contains invalid key: Syntax error; key: "{key}"'
        )
    Placeholders({"#1": "a", "#_": "b", " #a": "c", "#A1_": "d"}, {":1": S, ":_": S, ":a ": S})
    long_name = "#" + "a" * 255
    Placeholders({long_name[:-1]: "a"}, None)
    assert error({long_name: "a"}, None) == (
        "ExpressionAttributeNames contains invalid key: The expression attribute map contains a key that is too long; "
        "size of key: 256"
    )
    assert error(None, {":" + "a" * 255: S}) == (
        "ExpressionAttributeValues contains invalid key: The expression attribute map contains a key that is too long;"
    )
    # keys are checked in the order given
    assert error({"b1": "a", "a1": "b"}, None).endswith('key: "b1"')


def test_invalid_values_before_invalid_names():
    assert error({"#a": ""}, {":y": {}}) == (
        "ExpressionAttributeValues contains invalid value: Supplied AttributeValue is empty, must contain exactly "
        "one of the supported datatypes for key :y"
    )
    assert (
        error({"#a": ""}, None)
        == "ExpressionAttributeNames contains invalid value: Empty attribute name for key #a"
    )
    assert error({"#a": "a" * 70000}, None) == (
        "ExpressionAttributeNames contains invalid value: Attribute name is too large, must be less than 65536 bytes "
        "for key #a"
    )
    assert error(None, {":x": {"N": "x"}}) == (
        "ExpressionAttributeValues contains invalid value: A value provided cannot be converted into a number for key :x"
    )


def unused(names, values, expression) -> str:
    ph = Placeholders(names, values)
    compile_condition(expression).bind(ph)
    with pytest.raises(ValidationException) as caught:
        ph.check_unused()
    return caught.value.message


def test_unused_names_first_in_java_hash_order():
    assert unused({"#b": "a", "#a": "a", "#c": "c"}, {":x": S, ":z": S}, "a = :x") == (
        "Value provided in ExpressionAttributeNames unused in expressions: keys: {#c, #a, #b}"
    )
    assert unused(None, {":x": S, ":b": S, ":a": S, ":c": S}, "a = :x") == (
        "Value provided in ExpressionAttributeValues unused in expressions: keys: {:a, :b, :c}"
    )


@pytest.mark.parametrize(
    ("total", "listed"),
    [(3, "{:u0, :u10}"), (11, "{:u0, :u10}"), (12, "{:u10, :u0}"), (13, "{:u10, :u0}")],
)
def test_unused_order_depends_on_the_map_size(total, listed):
    used = [f":k{i}" for i in range(total - 2)]
    values = {k: S for k in used + [":u0", ":u10"]}
    expression = " OR ".join(f"a = {k}" for k in used)
    assert (
        unused(None, values, expression)
        == f"Value provided in ExpressionAttributeValues unused in expressions: keys: {listed}"
    )


def test_used_placeholders_pass():
    ph = Placeholders({"#a": "a"}, {":v": {"N": "1.50"}})
    compile_condition("#a = :v").bind(ph)
    ph.check_unused()
    assert ph.values[":v"] == {"N": "1.5"}
    assert ph.literal(":v") == {"N": "1.50"}
