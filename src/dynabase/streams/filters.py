"""Lambda's event filtering (``FilterCriteria``) for DynamoDB stream records: the subset dynabase supports.

A filter is a pattern (a dict, or its JSON text) matched against the Lambda-shaped record: every key of the
pattern must match; a nested dict descends into the record (into each element of an array of objects, any of
which may match); a list holds the accepted values or comparison objects, any of which may match a leaf's
value (or any element of an array of values, such as an ``SS`` attribute's). Comparisons: ``{"prefix": "x"}``,
``{"suffix": "x"}``, ``{"anything-but": [..]}`` (or one value), ``{"numeric": [">", 0, "<=", 5]}``,
``{"exists": true|false}``, ``{"equals-ignore-case": "x"}``. A record passes when any filter matches (no
filters: every record passes).

As Lambda applies them (AWS Lambda developer guide, "Control which events Lambda sends to your function" and
"Using event filtering with a DynamoDB event source"): ``numeric`` matches JSON numbers only, so it never
matches an attribute's ``N`` value (a string in the record); ``exists`` looks at leaf nodes only, so
``{"exists": true}`` on an object (an attribute's ``{"L": [...]}``, a map) matches nothing and
``{"exists": false}`` matches a leaf that is absent, its parents absent too.

Example, new faults of severity ``error``::

    {"eventName": ["INSERT"], "dynamodb": {"NewImage": {"severity": {"S": ["error"]}}}}
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

_MISSING = object()
_NUMERIC = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    "=": lambda a, b: a == b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


class FilterError(ValueError):
    """A filter pattern dynabase cannot use (the message says which part)."""


def compile_filters(filters: Sequence[Any] | None) -> list[dict[str, Any]]:
    """Patterns from dicts, JSON texts or Lambda's ``{"Pattern": "..."}`` entries, checked."""
    out = []
    for entry in filters or ():
        if isinstance(entry, Mapping) and set(entry) == {"Pattern"}:
            entry = entry["Pattern"]
        if isinstance(entry, str):
            try:
                entry = json.loads(entry)
            except ValueError as error:
                raise FilterError(f"filter pattern is not JSON: {error}") from None
        if not isinstance(entry, Mapping):
            raise FilterError("a filter pattern must be a JSON object")
        _check(entry, "")
        out.append(dict(entry))
    return out


def _check(pattern: Mapping[str, Any], path: str) -> None:
    for key, rule in pattern.items():
        where = f"{path}.{key}" if path else key
        if isinstance(rule, Mapping):
            _check(rule, where)
        elif isinstance(rule, list):
            for value in rule:
                if isinstance(value, Mapping):
                    if len(value) != 1 or next(iter(value)) not in _ARGUMENTS:
                        raise FilterError(f"{where}: unsupported comparison {json.dumps(value)}")
                    ((operator, argument),) = value.items()
                    if not isinstance(argument, _ARGUMENTS[operator]) or (
                        isinstance(argument, bool) and operator != "exists"
                    ):
                        raise FilterError(f"{where}: {operator} does not take {json.dumps(argument)}")
                    if operator == "numeric":
                        _numeric_pairs(value["numeric"], where)
        else:
            raise FilterError(f"{where}: must be an object or a list of values")


def matches(record: Mapping[str, Any], filters: Sequence[Mapping[str, Any]]) -> bool:
    """Whether the record passes any of the compiled filters (all records pass without filters)."""
    return not filters or any(_match(pattern, record) for pattern in filters)


def _match(pattern: Mapping[str, Any], value: Any) -> bool:
    for key, rule in pattern.items():
        inner = value.get(key, _MISSING) if isinstance(value, Mapping) else _MISSING
        if isinstance(rule, Mapping):
            if not _match_below(rule, inner):
                return False
        elif not any(_accepts(choice, _leaves(inner)) for choice in rule):
            return False
    return True


def _match_below(rule: Mapping[str, Any], inner: Any) -> bool:
    """A nested pattern against an object, an array of objects (any element may match: an ``L`` of ``M``
    values), or nothing (a leaf or an absent node: only ``{"exists": false}`` below can match)."""
    if isinstance(inner, list):
        objects = [element for element in inner if isinstance(element, Mapping)]
        return any(_match(rule, element) for element in objects) if objects else _match(rule, _MISSING)
    return _match(rule, inner if isinstance(inner, Mapping) else _MISSING)


def _leaves(value: Any) -> list[Any]:
    """The JSON primitives (strings, numbers, booleans, null) at a node: an array's primitive elements (an
    ``SS`` or ``NS``), the value itself, or none for an absent node or an object (not a leaf)."""
    if isinstance(value, list):
        return [element for element in value if not isinstance(element, (Mapping, list))]
    return [] if value is _MISSING or isinstance(value, Mapping) else [value]


def _accepts(choice: Any, values: list[Any]) -> bool:
    if isinstance(choice, Mapping):
        ((operator, argument),) = choice.items()
        if operator == "exists":  # a leaf node with a value, or (false) none
            return bool(values) is argument
        return any(_OPERATORS[operator](argument, value) for value in values)
    return any(_equal(choice, value) for value in values)


def _equal(choice: Any, value: Any) -> bool:
    if isinstance(choice, bool) or isinstance(value, bool):
        return choice is value
    return bool(choice == value)


def _number(value: Any) -> Decimal | None:
    if isinstance(value, bool) or value is _MISSING or value is None:
        return None
    try:
        return Decimal(str(value))
    except InvalidOperation:
        return None


def _numeric_pairs(argument: Any, where: str) -> list[tuple[str, Decimal]]:
    if not isinstance(argument, list) or not argument or len(argument) % 2:
        raise FilterError(f"{where}: numeric takes [operator, number, ...]")
    pairs = []
    for operator, number in zip(argument[::2], argument[1::2], strict=True):
        bound = _number(number)
        if operator not in _NUMERIC or bound is None or isinstance(number, str):
            raise FilterError(f"{where}: numeric takes [operator, number, ...]")
        pairs.append((operator, bound))
    return pairs


def _numeric(argument: list[Any], value: Any) -> bool:
    if not isinstance(value, (int, float, Decimal)) or isinstance(value, bool):
        return False  # a JSON number only: an N attribute's value is a string, which Lambda never matches
    number = _number(value)
    if number is None:
        return False
    return all(_NUMERIC[op](number, bound) for op, bound in _numeric_pairs(argument, "numeric"))


def _anything_but(argument: Any, value: Any) -> bool:
    if isinstance(argument, Mapping) and "prefix" in argument:
        return not (isinstance(value, str) and value.startswith(argument["prefix"]))
    rejected = argument if isinstance(argument, list) else [argument]
    return not any(_equal(r, value) for r in rejected)


_OPERATORS: dict[str, Callable[[Any, Any], bool]] = {
    "prefix": lambda arg, v: isinstance(v, str) and v.startswith(arg),
    "suffix": lambda arg, v: isinstance(v, str) and v.endswith(arg),
    "equals-ignore-case": lambda arg, v: isinstance(v, str) and v.lower() == str(arg).lower(),
    "anything-but": _anything_but,
    "numeric": _numeric,
}
_ARGUMENTS = {  # each comparison, and what it takes (numeric's list is checked by _numeric_pairs)
    "prefix": (str,),
    "suffix": (str,),
    "equals-ignore-case": (str,),
    "exists": (bool,),
    "anything-but": (str, int, float, list, dict),
    "numeric": (list,),
}

__all__ = ["FilterError", "compile_filters", "matches"]
