"""Value templates: parsing, rendering as OneTable does, padding, nested references, prefixes."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from dynabase.schema import Template, TemplateError, format_value
from dynabase.schema.template import Ref, lookup


def test_parse_refs_and_fields():
    t = Template("${_type}#${name}#${n:6}#${addr.zip:5:_}#${name}")
    assert t.refs == (
        Ref("_type", None, "0", "${_type}"),
        Ref("name", None, "0", "${name}"),
        Ref("n", 6, "0", "${n:6}"),
        Ref("addr.zip", 5, "_", "${addr.zip:5:_}"),
        Ref("name", None, "0", "${name}"),
    )
    assert t.fields == ("_type", "name", "n", "addr.zip")
    assert t.roots == ("_type", "name", "n", "addr")
    assert not t.is_literal
    assert Template("status#").is_literal and Template("").is_literal
    assert str(t) == t.text
    assert Template("a${x}") == Template("a${x}") and Template("a${x}") != Template("a${y}")


def test_render_simple():
    t = Template("account#${name}")
    assert t.render({"name": "Acme"}) == "account#Acme"
    assert Template("${a}${b}").render({"a": "x", "b": "y"}) == "xy"
    assert Template("status#").render({}) == "status#"
    assert Template("$a {b} $${a}").render({"a": "1"}) == "$a {b} $1"


def test_missing_values_leave_the_template_unresolved():
    t = Template("user#${account}#${email}")
    assert t.render({"account": "a"}) is None
    assert t.render({"account": "a", "email": None}) is None
    assert t.render({}) is None
    assert t.missing({"account": "a"}) == ("email",)
    # An empty string is a value (JavaScript: '' != null).
    assert t.render({"account": "", "email": ""}) == "user##"


def test_prefix_up_to_the_first_unresolved_reference():
    t = Template("user#${account}#${email}#x")
    assert t.prefix({}) == "user#"
    assert t.prefix({"account": "a"}) == "user#a#"
    assert t.prefix({"email": "e"}) == "user#"
    assert t.prefix({"account": "a", "email": "e"}) == "user#a#e#x"
    assert Template("${a}x").prefix({}) == ""
    assert Template("fixed").prefix({}) == "fixed"


def test_padding_defaults_to_zero_and_never_truncates():
    assert Template("${n:6}").render({"n": 42}) == "000042"
    assert Template("${n:6:0}").render({"n": 42}) == "000042"
    assert Template("${n:6:_}").render({"n": 42}) == "____42"
    assert Template("${n:3}").render({"n": 123456}) == "123456"
    assert Template("${n:0}").render({"n": 7}) == "7"
    assert Template("${n:4}").render({"n": "ab"}) == "00ab"
    # An empty pad falls back to '0' ("${n:6:}"), and a longer pad is prepended whole, as in OneTable.
    assert Template("${n:6:}").render({"n": 1}) == "000001"
    assert Template("${n:5:ab}").render({"n": 1}) == "abab1"
    assert Template("${n:6:ab}").render({"n": 1}) == "ababab1"
    assert Template("v${n:3}").prefix({"n": 5}) == "v005"


def test_nested_references():
    t = Template("${address.city}#${address.zip:5}")
    assert t.render({"address": {"city": "Seattle", "zip": 98}}) == "Seattle#00098"
    assert t.render({"address": {"city": "Seattle"}}) is None
    assert t.render({"address": None}) is None
    assert t.render({"address": "flat"}) is None
    assert Template("${tags.1}").render({"tags": ["a", "b"]}) == "b"
    assert Template("${tags.5}").render({"tags": ["a"]}) is None
    assert Template("${tags.x}").render({"tags": ["a"]}) is None
    assert lookup({"a": {"b": {"c": 1}}}, "a.b.c") == 1


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("s", "s"),
        (True, "true"),
        (False, "false"),
        (0, "0"),
        (-12, "-12"),
        (1.0, "1"),
        (1.5, "1.5"),
        (-0.0, "0"),
        (1e21, "1e+21"),
        (1e-7, "1e-7"),
        (123456789.125, "123456789.125"),
        (float("inf"), "Infinity"),
        (float("nan"), "NaN"),
        (Decimal("5"), "5"),
        (Decimal("5.000"), "5"),
        (Decimal("2.5"), "2.5"),
        (b"\x00\x01", "AAE="),
    ],
)
def test_values_print_like_javascript(value, text):
    assert format_value(value) == text
    assert Template("${v}").render({"v": value}) == text


def test_dates():
    when = dt.datetime(2024, 1, 2, 3, 4, 5, 678901, tzinfo=dt.timezone.utc)
    assert format_value(when) == "1704164645678"
    assert format_value(when, iso_dates=True) == "2024-01-02T03:04:05.678Z"
    naive = dt.datetime(2024, 1, 2, 3, 4, 5)
    assert format_value(naive, iso_dates=True) == "2024-01-02T03:04:05.000Z"
    offset = dt.datetime(2024, 1, 2, 5, 4, 5, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    assert format_value(offset, iso_dates=True) == "2024-01-02T03:04:05.000Z"
    assert format_value(dt.date(1970, 1, 2)) == "86400000"
    assert Template("d#${when}").render({"when": when}, iso_dates=True) == "d#2024-01-02T03:04:05.678Z"
    assert Template("d#${when}").prefix({"when": when}) == "d#1704164645678"


def test_objects_cannot_go_into_a_template():
    with pytest.raises(TemplateError, match="value for 'v' is not a primitive value: dict"):
        Template("${v}").render({"v": {"a": 1}})
    with pytest.raises(TemplateError, match="not a primitive value: list"):
        Template("${v}").render({"v": [1]})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a${b", "unterminated '${' at position 1"),
        ("${}", "empty reference '${}'"),
        ("${a..b}", "invalid reference '${a..b}'"),
        ("${.a}", "invalid reference '${.a}'"),
        ("${a:x}", "padding size in '${a:x}' must be a whole number"),
        ("${a:}", "padding size in '${a:}' must be a whole number"),
        ("${a:-1}", "padding size in '${a:-1}' must be a whole number"),
        ("${a:1:2:3}", "too many ':' in '${a:1:2:3}' (expected ${name}, ${name:size} or ${name:size:pad})"),
        ("${a\nb}", "line break inside '${a\\nb}'"),
    ],
)
def test_syntax_errors(text, message):
    with pytest.raises(TemplateError) as info:
        Template(text)
    assert str(info.value) == message


def test_template_must_be_text():
    with pytest.raises(TemplateError):
        Template(5)  # type: ignore[arg-type]
