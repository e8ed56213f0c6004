"""The shortcuts for numbers already in normal form agree with the general path (Decimal arithmetic)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from botocore.exceptions import ClientError
from hypothesis import given, settings
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


@settings(deadline=None)  # the first example opens the engine
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


# -- any number DynamoDB accepts reads back equal; anything else is refused with DynamoDB's message --------------

OVERFLOW = "Number overflow. Attempting to store a number with magnitude larger than supported range"
UNDERFLOW = "Number underflow. Attempting to store a number with magnitude smaller than supported range"
PRECISION = "DynamoDB only supports precision up to 38 digits"
NOT_A_NUMBER = "A value provided cannot be converted into a number"


def _expected(sign: str, whole: str, fraction: str, exponent: int | None) -> tuple[str | None, str | None]:
    """(canonical text, error) worked out with strings and ints only, independently of the engine."""
    if exponent is not None and (exponent > 2**31 - 1 or len(fraction) - exponent > 2**31 - 1):
        return None, NOT_A_NUMBER
    digits = (whole + fraction).lstrip("0")
    if not digits:
        return "0", None
    point = len(whole) - ((len(whole + fraction)) - len(digits)) + (exponent or 0)  # digits before the point
    significant = digits.rstrip("0")
    if len(significant) > 38:
        return None, PRECISION
    if point > 126:
        return None, OVERFLOW
    if point < -129:
        return None, UNDERFLOW
    if point <= 0:
        text = "0." + "0" * -point + significant
    elif point >= len(significant):
        text = significant + "0" * (point - len(significant))
    else:
        text = significant[:point] + "." + significant[point:]
    return ("-" if sign == "-" else "") + text, None


exponents = st.one_of(
    st.none(),
    st.integers(-200, 200),
    st.integers(-(2**31) - 5, 2**31 + 5),
    st.sampled_from([2**31 - 1, 2**31, -(2**31) + 1, -(2**31), 999999999, -999999999, 10**12, -(10**12)]),
)
texts = st.tuples(
    st.sampled_from(["", "+", "-"]),
    st.text("0123456789", min_size=1, max_size=45) | st.from_regex(r"0{0,3}[1-9]0{0,60}", fullmatch=True),
    st.text("0123456789", max_size=45),
    exponents,
)


def _spell(sign, whole, fraction, exponent):
    text = sign + whole + ("." + fraction if fraction else "")
    return text if exponent is None else f"{text}e{exponent:+d}"


@settings(deadline=None, max_examples=300)
@given(texts)
def test_every_accepted_number_reads_back_equal(parts):
    sign, whole, fraction, exponent = parts
    text = _spell(sign, whole, fraction, exponent)
    canonical, error = _expected(sign, whole, fraction, exponent)
    client = _counter_client()
    item = {"pk": {"S": "roundtrip"}, "n": {"N": text}, "s": {"NS": [text]}, "l": {"L": [{"N": text}]}}
    if error is not None:
        with pytest.raises(ClientError) as raised:
            client.put_item(TableName="numbers", Item=item)
        assert raised.value.response["Error"]["Message"] == error
        return
    client.put_item(TableName="numbers", Item=item)
    stored = client.get_item(TableName="numbers", Key={"pk": {"S": "roundtrip"}})["Item"]
    assert stored["n"] == {"N": canonical if canonical != "-0" else "0"}
    assert Decimal(stored["n"]["N"]) == Decimal(text)
    assert Decimal(stored["s"]["NS"][0]) == Decimal(text)
    assert Decimal(stored["l"]["L"][0]["N"]) == Decimal(text)  # nested numbers are kept as written
