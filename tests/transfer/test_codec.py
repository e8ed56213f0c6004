"""DynamoDB JSON lines: encoding for export, strict decoding (with attribute paths in errors) for import."""

from __future__ import annotations

import base64
import json

import pytest

from dynabase.transfer import InvalidItem, decode_item, encode_item, item_line, parse_line

from .helpers import all_types_item, canonical_item


def test_line_round_trips_every_type() -> None:
    item = all_types_item(7)
    line = item_line(item)
    assert "\n" not in line
    assert canonical_item(parse_line(line.encode())) == canonical_item(item)


def test_binaries_are_base64_and_numbers_strings() -> None:
    line = json.loads(
        item_line({"pk": {"S": "a"}, "b": {"B": b"\x00\xff"}, "bs": {"BS": [b"x"]}, "n": {"N": "1"}})
    )
    assert line == {
        "Item": {
            "pk": {"S": "a"},
            "b": {"B": base64.b64encode(b"\x00\xff").decode()},
            "bs": {"BS": ["eA=="]},
            "n": {"N": "1"},
        }
    }


def test_line_is_compact_utf8() -> None:
    line = item_line({"pk": {"S": "ü ✓"}})
    assert line == '{"Item":{"pk":{"S":"ü ✓"}}}'


def test_bare_items_are_accepted_too() -> None:
    assert decode_item({"pk": {"S": "a"}}) == {"pk": {"S": "a"}}


def test_encode_item_does_not_touch_the_input() -> None:
    item = {"b": {"B": b"\x01"}}
    encode_item(item)
    assert item == {"b": {"B": b"\x01"}}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b"not json", "invalid JSON"),
        (b'{"Item": {"pk": {"S": "a"}', "invalid JSON"),
        (b"\xff\xfe{}", "not UTF-8"),
        (b"[1, 2]", "JSON object"),
        (b'{"Item": []}', "Item must be an object"),
        (b'{"Item": {}}', "no attributes"),
        (b'{"Item": {"a": {"S": 1}}}', "attribute a: S must be a string"),
        (b'{"Item": {"a": {"N": 1}}}', "attribute a: N must be a number in a string"),
        (b'{"Item": {"a": {"B": "%%%"}}}', "attribute a: invalid base64"),
        (b'{"Item": {"a": {"S": "x", "N": "1"}}}', "exactly one type key"),
        (b'{"Item": {"a": {}}}', "exactly one type key"),
        (b'{"Item": {"a": "plain"}}', "must be an object"),
        (b'{"Item": {"a": {"X": 1}}}', "unknown AttributeValue type 'X'"),
        (b'{"Item": {"a": {"BOOL": "yes"}}}', "BOOL must be true or false"),
        (b'{"Item": {"a": {"NULL": false}}}', "NULL must be true"),
        (b'{"Item": {"a": {"SS": []}}}', "must not be empty"),
        (b'{"Item": {"a": {"NS": [1]}}}', "attribute a[0]: NS elements must be strings"),
        (b'{"Item": {"a": {"BS": ["??"]}}}', "attribute a[0]: invalid base64"),
        (b'{"Item": {"a": {"M": {"b": {"L": [{"S": "x"}, {"Q": 1}]}}}}}', "attribute a.b[1]: unknown"),
        (b'{"Item": {"a": {"M": []}}}', "M must be an object"),
        (b'{"Item": {"a": {"L": {}}}}', "L must be a list"),
    ],
)
def test_bad_lines_are_explained(line: bytes, message: str) -> None:
    with pytest.raises(InvalidItem) as caught:
        parse_line(line)
    assert message in str(caught.value)


def test_absurd_nesting_is_an_invalid_line_not_a_crash() -> None:
    deep = b'{"Item": {"a": ' + b'{"L": [' * 5000 + b"]}" * 5000 + b"}}"
    with pytest.raises(InvalidItem):
        parse_line(deep)
