"""Whatever the input, the expression layer raises ValidationException and nothing else."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dynabase.errors import ValidationException
from dynabase.expressions import Placeholders, compile_condition, compile_projection, compile_update

ITEM = {"a": {"N": "1"}, "l": {"L": [{"S": "x"}, {"M": {"b": {"SS": ["y"]}}}]}, "m": {"M": {"b": {"N": "2"}}}}
NAMES = {"#a": "a", "#b": "b"}
VALUES = {":v": {"N": "1"}, ":s": {"S": "x"}, ":l": {"L": []}, ":t": {"S": "N"}, ":ss": {"SS": ["y"]}}

FRAGMENTS = [
    "a",
    "l",
    "m",
    "b",
    "#a",
    "#b",
    ":v",
    ":s",
    ":l",
    ":t",
    ":ss",
    "(",
    ")",
    "[",
    "]",
    "0",
    "1",
    ".",
    ",",
    "=",
    "<>",
    "<",
    ">=",
    "+",
    "-",
    "AND",
    "OR",
    "NOT",
    "IN",
    "BETWEEN",
    "SET",
    "REMOVE",
    "ADD",
    "DELETE",
    "size",
    "contains",
    "begins_with",
    "attribute_exists",
    "attribute_type",
    "if_not_exists",
    "list_append",
    "name",
    " ",
    "!",
    "\u00e9",
    "\U0001f600",
    ":zz",
    "#zz",
]
texts = st.one_of(st.text(max_size=40), st.lists(st.sampled_from(FRAGMENTS), max_size=14).map(" ".join))


def run(text: str) -> None:
    try:
        ph = Placeholders(NAMES, VALUES)
        compile_condition(text, "FilterExpression").bind(ph).evaluate(ITEM)
    except ValidationException:
        pass
    try:
        compile_update(text).bind(Placeholders(NAMES, VALUES)).apply(ITEM)
    except ValidationException:
        pass
    try:
        compile_projection(text).bind(Placeholders(NAMES, None)).apply(ITEM)
    except ValidationException:
        pass


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts)
def test_garbage_only_raises_validation_errors(text):
    run(text)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=6), st.text(max_size=4), max_size=3), st.text(max_size=20))
def test_placeholder_maps_only_raise_validation_errors(names, text):
    try:
        ph = Placeholders(names or None, None)
        compile_projection(text).bind(ph)
        ph.check_unused()
    except ValidationException:
        pass
