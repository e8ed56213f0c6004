"""The JSON5 reader (and its strict JSON mode)."""

from __future__ import annotations

import json
import math

import pytest

from dynabase.schema.json5 import JSON5DecodeError, loads


def test_plain_json_round_trips():
    doc = {"a": [1, -2.5, 1e10, True, False, None, "x\n\u00e9\U0001f600"], "b": {"c": {}}, "d": []}
    text = json.dumps(doc)
    assert loads(text) == doc
    assert loads(text, strict_json=True) == doc


def test_json5_features():
    text = r"""
    // line comment
    {
        unquoted: 'single',            /* block
                                          comment */
        "double": "it's",
        $dollar_1: 0x1F,
        trailing: [1, 2, 3,],
        lead: .5, trail: 5., plus: +3, neg: -0x10,
        exp: 1e3, inf: Infinity, ninf: -Infinity,
        multi: 'one \
two',
        escapes: '\x41\u0042\'\"\\\/\b\f\n\r\t\v\0',
        emoji: '\uD83D\uDE00',
        ünïcode: 1,
        nested: {a: {b: [{c: null}]},},
    }
    """
    data = loads(text)
    assert data["unquoted"] == "single"
    assert data["double"] == "it's"
    assert data["$dollar_1"] == 31
    assert data["trailing"] == [1, 2, 3]
    assert (data["lead"], data["trail"], data["plus"], data["neg"]) == (0.5, 5.0, 3, -16)
    assert data["exp"] == 1000.0 and isinstance(data["exp"], float)
    assert data["inf"] == math.inf and data["ninf"] == -math.inf
    assert data["multi"] == "one two"
    assert data["escapes"] == "AB'\"\\/\b\f\n\r\t\v\0"
    assert data["emoji"] == "\U0001f600"
    assert data["ünïcode"] == 1
    assert data["nested"] == {"a": {"b": [{"c": None}]}}
    assert math.isnan(loads("NaN"))
    assert list(data)[:3] == ["unquoted", "double", "$dollar_1"]  # document order


@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        ("", 1, 1, "empty document"),
        ("{a: 1", 1, 6, "expected ',' or '}' in object, found end of input"),
        ("{a 1}", 1, 4, "expected ':' after key 'a', found character '1'"),
        ("[1 2]", 1, 4, "expected ',' or ']' in array, found character '2'"),
        ("[,]", 1, 2, "unexpected character ',', expected a value"),
        ("{,}", 1, 2, "expected a key, found character ','"),
        ("{a: 1} x", 1, 8, "unexpected character 'x' after the end of the document"),
        ("'abc", 1, 1, "unterminated string"),
        ("'a\nb'", 1, 3, "unescaped line break in string (end the line with '\\' to continue it)"),
        ("01", 1, 1, "leading zeros are not allowed"),
        ("0x", 1, 1, "expected hexadecimal digits"),
        ("1e", 1, 1, "expected exponent digits"),
        ("12abc", 1, 1, "invalid number '12a'"),
        ("-foo", 1, 1, "invalid number '-foo'"),
        ("'\\1'", 1, 3, "invalid escape '\\1'"),
        ("'\\x4'", 1, 4, "expected 2 hexadecimal digits"),
        ("/* open", 1, 1, "unterminated /* comment"),
        ("{a: undefined}", 1, 5, "unexpected identifier 'undefined', expected a value"),
        ("{\n\n  a: 1,\n  a: 2}", 4, 3, "duplicate key 'a'"),
        ("\r\n\r\n  ?", 3, 3, "unexpected character '?', expected a value"),
    ],
)
def test_errors_have_positions(text, line, column, message):
    with pytest.raises(JSON5DecodeError) as info:
        loads(text)
    assert (info.value.line, info.value.column, info.value.msg) == (line, column, message)
    assert str(info.value) == f"line {line}, column {column}: {message}"


def test_duplicate_key_error_carries_the_path():
    with pytest.raises(JSON5DecodeError) as info:
        loads("{models: {User: {pk: {}, pk: {}}}}")
    assert info.value.path == "models.User"
    with pytest.raises(JSON5DecodeError) as info:
        loads("{a: [{}, {x: 1, x: 2}]}")
    assert info.value.path == "a[1]"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("// c\n{}", "comments are not allowed in JSON (use JSON5)"),
        ("{a: 1}", "expected a double-quoted key, found character 'a'"),
        ("{'a': 1}", "single-quoted strings are not allowed in JSON (use JSON5)"),
        ('{"a": 1,}', "trailing commas are not allowed in JSON (use JSON5)"),
        ("[1,]", "trailing commas are not allowed in JSON (use JSON5)"),
        ("0x10", "hexadecimal numbers are not allowed in JSON (use JSON5)"),
        ("+1", "a leading '+' is not allowed in JSON (use JSON5)"),
        (".5", "a number needs digits on both sides of '.' in JSON (use JSON5)"),
        ("Infinity", "Infinity is not allowed in JSON (use JSON5)"),
        ('"\\v"', "invalid escape '\\v' in JSON string"),
        ('"a\tb"', "unescaped control character '\\t' in JSON string"),
        ("\u00a0{}", "'\\xa0' is not JSON whitespace"),
    ],
)
def test_strict_json(text, message):
    loads(text)  # fine as JSON5
    with pytest.raises(JSON5DecodeError) as info:
        loads(text, strict_json=True)
    assert info.value.msg == message


def test_depth_limit():
    with pytest.raises(JSON5DecodeError, match="nesting deeper than 256 levels"):
        loads("[" * 300 + "]" * 300)
    assert loads("[" * 200 + "]" * 200) is not None


def test_huge_integer_literal():
    with pytest.raises(JSON5DecodeError, match="integer literal too long"):
        loads("1" * 5000)


def test_only_text():
    with pytest.raises(TypeError):
        loads(b"{}")  # type: ignore[arg-type]
