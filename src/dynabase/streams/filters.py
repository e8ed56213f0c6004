"""Lambda's event filtering (``FilterCriteria``) for DynamoDB stream records: the subset dynabase supports.

A filter is a pattern (a dict, or its JSON text) matched against the Lambda-shaped record: every key of the
pattern must match; a nested dict descends into the record; a list holds the accepted values or comparison
objects, any of which may match. Comparisons: ``{"prefix": "x"}``, ``{"suffix": "x"}``,
``{"anything-but": [..]}`` (or one value), ``{"numeric": [">", 0, "<=", 5]}``, ``{"exists": true|false}``,
``{"equals-ignore-case": "x"}``. A record passes when any filter matches (no filters: every record passes).

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
                    if len(value) != 1 or next(iter(value)) not in _OPERATORS:
                        raise FilterError(f"{where}: unsupported comparison {json.dumps(value)}")
                    if next(iter(value)) == "numeric":
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
            if inner is _MISSING or not _match(rule, inner):
                return False
        elif not any(_accepts(choice, inner) for choice in rule):
            return False
    return True


def _accepts(choice: Any, value: Any) -> bool:
    if isinstance(choice, Mapping):
        ((operator, argument),) = choice.items()
        return _OPERATORS[operator](argument, value)
    if value is _MISSING:
        return False
    if isinstance(value, list):  # an array matches when any element does
        return any(_equal(choice, v) for v in value)
    return _equal(choice, value)


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
    number = _number(value)
    if number is None:
        return False
    return all(_NUMERIC[op](number, bound) for op, bound in _numeric_pairs(argument, "numeric"))


def _anything_but(argument: Any, value: Any) -> bool:
    if value is _MISSING:
        return False
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
    "exists": lambda arg, v: (v is not _MISSING) is bool(arg),
}

__all__ = ["FilterError", "compile_filters", "matches"]
