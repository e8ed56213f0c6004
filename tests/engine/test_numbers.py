"""The shortcuts for numbers already in normal form agree with the general path (Decimal arithmetic)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from botocore.exceptions import ClientError
from hypothesis import given
from hypothesis import strategies as st

from dynabase.types import DECIMAL_CONTEXT, format_number, normalize_number, number_size, parse_number


def _general_size(text: str) -> int:
    number = Decimal(text)
    if number.is_zero():
        return 1
    sign, digits, exponent = number.normalize(DECIMAL_CONTEXT).as_tuple()
    return (len(digits) + exponent % 2 + 1) // 2 + 1 + sign


numbers = st.builds(
    lambda sign, whole, zeros, fraction: f"{sign}{whole}.{'0' * zeros}{fraction}",
    st.sampled_from(["", "-"]),
    st.one_of(st.just("0"), st.integers(1, 10**20).map(str)),
    st.integers(0, 20),
    st.integers(0, 10**18).map(str),
) | st.integers(-(10**38) + 1, 10**38 - 1).map(str)


@given(numbers)
def test_number_sizes_and_normal_forms_match_the_general_rules(text):
    try:
        expected = format_number(parse_number(text))
    except Exception as error:  # outside DynamoDB's precision: the shortcut must refuse it as well
        try:
            normalize_number(text)
        except type(error):
            return
        raise AssertionError(f"{text} was accepted")
    assert normalize_number(text) == expected
    assert number_size(expected) == _general_size(expected)
    assert number_size(text) == _general_size(text)


_client = None


def _counter_client():
    global _client
    if _client is None:
        import dynabase

        _client = dynabase.connect(":memory:")
        _client.create_table(
            TableName="numbers",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
    return _client


integers = st.integers(-(10**38) + 1, 10**38 - 1).map(str)


@given(integers, integers, st.sampled_from(["+", "-"]))
def test_integer_arithmetic_matches_decimal_arithmetic(a, b, op):
    client = _counter_client()
    client.put_item(TableName="numbers", Item={"pk": {"S": "n"}, "n": {"N": a}})
    add, subtract = DECIMAL_CONTEXT.add, DECIMAL_CONTEXT.subtract  # exact: the default context has 28 digits
    exact = add(Decimal(a), Decimal(b)) if op == "+" else subtract(Decimal(a), Decimal(b))
    request = {
        "TableName": "numbers",
        "Key": {"pk": {"S": "n"}},
        "UpdateExpression": f"SET n = n {op} :v",
        "ExpressionAttributeValues": {":v": {"N": b}},
        "ReturnValues": "UPDATED_NEW",
    }
    if len(exact.normalize(DECIMAL_CONTEXT).as_tuple().digits) > 38:  # DynamoDB refuses more digits
        with pytest.raises(ClientError, match="precision up to 38 digits"):
            client.update_item(**request)
        return
    assert client.update_item(**request)["Attributes"]["n"] == {"N": format_number(exact)}
