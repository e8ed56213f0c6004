"""Resolved document paths: reading them from items, and DynamoDB's overlap rules between them.

A resolved path is a tuple of ``str`` (map keys / attribute names) and ``int`` (list indexes); its first element
is always a ``str``.
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import ValidationException

MAX_DEPTH = 32


def format_path(path: tuple) -> str:
    """``[a, b, [0]]``, as DynamoDB prints document paths in messages."""
    return "[" + ", ".join(f"[{e}]" if isinstance(e, int) else e for e in path) + "]"


def getter(path: tuple) -> Callable[[dict], dict | None]:
    """A fast function reading ``path`` from an item: the AttributeValue, or None where it does not exist."""
    first = path[0]
    if len(path) == 1:
        return lambda item: item.get(first)
    rest = path[1:]

    def get(item: dict) -> dict | None:
        value = item.get(first)
        for element in rest:
            if value is None:
                return None
            if element.__class__ is int:
                inner = value.get("L")
                if inner is None or element >= len(inner):
                    return None
                value = inner[element]
            else:
                inner = value.get("M")
                if inner is None:
                    return None
                value = inner.get(element)
        return value

    return get


def check_overlaps(paths: list[tuple], kind: str) -> None:
    """Raise DynamoDB's error for two paths where one contains the other, or that use one level both ways."""
    for j, second in enumerate(paths):
        for first in paths[:j]:
            for a, b in zip(first, second, strict=False):
                if a == b and a.__class__ is b.__class__:
                    continue
                if a.__class__ is not b.__class__:
                    raise ValidationException(
                        f"Invalid {kind}: Two document paths conflict with each other; must remove or rewrite one "
                        f"of these paths; path one: {format_path(first)}, path two: {format_path(second)}"
                    )
                break
            else:
                raise ValidationException(
                    f"Invalid {kind}: Two document paths overlap with each other; must remove or rewrite one of "
                    f"these paths; path one: {format_path(first)}, path two: {format_path(second)}"
                )
