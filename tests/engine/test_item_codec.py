"""Items are stored as the same JSON text whichever codec wrote them (orjson or the standard library), so a
file written with one reads back with the other."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from dynabase.engine import storage

text = st.text(st.characters(exclude_categories=["Cs"]), max_size=12)  # lone surrogates are not UTF-8
scalar = st.one_of(
    text.map(lambda s: {"S": s}),
    st.decimals(allow_nan=False, allow_infinity=False, places=3).map(lambda d: {"N": str(d)}),
    st.booleans().map(lambda b: {"BOOL": b}),
    st.just({"NULL": True}),
    st.lists(text, min_size=1, max_size=3, unique=True).map(lambda m: {"SS": m}),
)
value = st.recursive(
    scalar,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3).map(lambda v: {"L": v}),
        st.dictionaries(text, inner, max_size=3).map(lambda v: {"M": v}),
    ),
    max_leaves=10,
)
items = st.dictionaries(text.filter(bool), value, min_size=1, max_size=6)


@given(items)
def test_both_codecs_write_the_same_text_and_read_each_other(item):
    fast = storage._dumps_plain(item)
    assert fast == storage._stdlib_dumps(item)
    assert storage._stdlib_loads(fast) == item == storage._loads_plain(fast)


@given(items, st.binary(max_size=8))
def test_items_with_binary_values_round_trip(item, blob):
    item = {**item, "blob": {"B": blob}, "blobs": {"L": [{"BS": [blob, blob + b"x"]}]}}
    text, binary = storage.dump_item(item)
    assert binary == storage.BINARY
    assert text == storage._stdlib_dumps_binary(item)
    assert storage.load_item(text, binary) == item


@given(items, st.binary(max_size=8))
def test_short_bodies_are_shortened_and_read_back(item, blob):
    for whole in (item, {**item, "blob": {"B": blob}, "blobs": {"L": [{"M": {"b": {"BS": [blob + b"y"]}}}]}}):
        text, form = storage.dump_body(whole)
        plain, plain_form = storage.dump_item(whole)
        assert form & storage.BINARY == plain_form
        assert bool(form & storage.SHORT) == (len(text) < len(plain) < storage.SHORT_BELOW)
        assert storage.load_item(text, form) == whole
