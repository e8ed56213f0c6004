"""Replay expressions whose outcome was recorded from DynamoDB Local (see recorded.py)."""

from __future__ import annotations

import copy
import re

import pytest

from dynabase.errors import ValidationException
from dynabase.expressions import (
    Placeholders,
    compile_condition,
    compile_projection,
    compile_update,
    key_condition,
)

from .record import keep_listed_difference
from .recorded import CONDITION_CASES, ITEM, KEY_CASES, NAMES, PROJECTION_CASES, UPDATE_CASES, VALUES


def placeholders(expression: str, with_values: bool = True) -> Placeholders:
    values = {k: VALUES[k] for k in sorted(set(re.findall(r":\w+", expression))) if k in VALUES}
    names = {k: NAMES[k] for k in sorted(set(re.findall(r"#\w+", expression))) if k in NAMES}
    return Placeholders(names or None, (values or None) if with_values else None)


def outcome(run):
    try:
        return run()
    except ValidationException as error:
        return {"error": error.message}


def sets_sorted(value):
    if isinstance(value, dict):
        return {k: sorted(v) if k in ("SS", "NS", "BS") else sets_sorted(v) for k, v in value.items()}
    if isinstance(value, list):
        return [sets_sorted(v) for v in value]
    return value


@pytest.mark.parametrize(("expression", "expected"), CONDITION_CASES)
def test_condition(expression, expected):
    def run():
        ph = placeholders(expression)
        bound = compile_condition(expression, "ConditionExpression").bind(ph)
        ph.check_unused()
        return bound.evaluate(copy.deepcopy(ITEM))

    assert outcome(run) == expected


@pytest.mark.parametrize(("expression", "expected"), UPDATE_CASES)
def test_update(expression, expected):
    item = copy.deepcopy(ITEM)

    def run():
        ph = placeholders(expression)
        bound = compile_update(expression).bind(ph)
        ph.check_unused()
        return bound.apply(item)

    assert sets_sorted(outcome(run)) == sets_sorted(expected)
    assert item == ITEM  # the input item is never modified


@pytest.mark.parametrize(("expression", "expected"), PROJECTION_CASES)
def test_projection(expression, expected):
    def run():
        ph = placeholders(expression, with_values=False)
        bound = compile_projection(expression).bind(ph)
        ph.check_unused()
        return bound.apply(copy.deepcopy(ITEM))

    assert outcome(run) == expected


SCHEMA_TYPE_ERROR = (
    "One or more parameter values were invalid: Condition parameter type does not match schema type"
)


@pytest.mark.parametrize(("expression", "expected"), KEY_CASES)
def test_key_condition(expression, expected):
    def run():
        ph = placeholders(expression)
        key_condition(expression, ph, "pk", "sk")
        ph.check_unused()
        return "OK"

    if expected == {"error": SCHEMA_TYPE_ERROR}:
        expected = "OK"  # value types against the key schema are the engine's check
    # the engine answers AWS's words where they differ from Local's (a difference listed in aws_differences)
    assert keep_listed_difference(expected, outcome(run)) == expected
