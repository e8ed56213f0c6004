"""The encoding of multi-attribute GSI keys: concatenated parts sort attribute by attribute, as DynamoDB does."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from dynabase.types import encode_composite_key, encode_key, escape_key_bytes

# a few characters that stress the encoding: NUL, the escape's bytes, multi-byte UTF-8
strings = st.text(
    alphabet=st.sampled_from(["\x00", "\x01", "a", "b", "ÿ", "é", "😀"]), min_size=1, max_size=4
)
binaries = st.binary(min_size=1, max_size=4)
numbers = st.one_of(
    st.integers(-(10**6), 10**6).map(str),
    st.decimals(min_value=-1000, max_value=1000, places=3, allow_nan=False).map(str),
)

VALUES = {
    "S": strings.map(lambda s: {"S": s}),
    "B": binaries.map(lambda b: {"B": b}),
    "N": numbers.map(lambda n: {"N": n}),
}


def natural(value: dict) -> object:
    """The value as DynamoDB orders it: S by UTF-8 bytes, B by bytes, N numerically."""
    ((kind, inner),) = value.items()
    return inner.encode("utf-8") if kind == "S" else inner if kind == "B" else Decimal(inner)


@st.composite
def keys(draw, types):
    return [draw(VALUES[t]) for t in types]


@given(st.data())
def test_composite_keys_sort_attribute_by_attribute(data):
    types = data.draw(st.lists(st.sampled_from("SBN"), min_size=2, max_size=4))
    rows = data.draw(st.lists(keys(types), min_size=2, max_size=8))
    by_encoding = sorted(rows, key=encode_composite_key)
    by_value = sorted(rows, key=lambda row: [natural(v) for v in row])
    assert [[natural(v) for v in row] for row in by_encoding] == [
        [natural(v) for v in row] for row in by_value
    ]
    for a in rows:  # equal keys encode equally, different keys differently
        for b in rows:
            same = [natural(v) for v in a] == [natural(v) for v in b]
            assert (encode_composite_key(a) == encode_composite_key(b)) == same


@given(st.data())
def test_begins_with_is_a_byte_prefix_of_the_part(data):
    kind = data.draw(st.sampled_from("SB"))
    value, prefix, rest = (data.draw(VALUES[kind]) for _ in range(3))
    encoded = encode_composite_key([value, rest])
    starts = natural(value).startswith(natural(prefix))
    assert encoded.startswith(escape_key_bytes(encode_key(prefix))) == starts
