"""The shortcuts for numbers already in normal form agree with the general path (Decimal arithmetic)."""

from __future__ import annotations

from decimal import Decimal

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
