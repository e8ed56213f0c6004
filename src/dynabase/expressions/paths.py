"""Resolved document paths: reading them from items, and DynamoDB's overlap rules between them.

A resolved path is a tuple of ``str`` (map keys / attribute names) and ``int`` (list indexes); its first element
is always a ``str``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

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


# DynamoDB Local (its ExpressionValidator) adds the paths of a projection or an update expression, last written
# first, to a tree whose levels are Java HashMaps keyed by path element, and names the paths of an overlap or a
# conflict from that tree: "path one" is the path being added, "path two" is the path it shares with the tree
# down to the level of the clash, then continued from that level by following each level's *first* key in
# HashMap iteration order (which need not be the clashing element: it can be a sibling) down to a leaf.  A
# conflict (a level used both as a map and as a list) is checked only against that first key too.  So the
# messages depend on Java's hash codes; ``java_order`` reproduces the iteration order of a HashMap.

_HASH_SEED = 8191 * 127  # commons-lang HashCodeBuilder(8191, 127) with one field appended


def _java_string_hash(text: str) -> int:
    h = 0
    data = text.encode("utf-16-be", "surrogatepass")
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] << 8 | data[i + 1])) & 0xFFFFFFFF
    return h


@lru_cache(maxsize=4096)
def _bucket_hash(element: str | int) -> int:
    """The spread hash java.util.HashMap buckets a path element by."""
    h = (_HASH_SEED + (element if isinstance(element, int) else _java_string_hash(element))) & 0xFFFFFFFF
    return h ^ (h >> 16)


def _mask(size: int) -> int:
    """The bucket mask of a Java HashMap of ``size`` keys: 16 buckets, doubled whenever more than 3/4 full."""
    capacity = 16
    while size > capacity * 3 // 4:
        capacity *= 2
    return capacity - 1


def _first_key(children: dict) -> str | int:
    """The key a Java HashMap holding ``children`` (inserted in dict order) iterates first."""
    if len(children) == 1:
        return next(iter(children))
    mask = _mask(len(children))
    return min(enumerate(children), key=lambda pair: (_bucket_hash(pair[1]) & mask, pair[0]))[1]


def java_order(children: dict) -> list:
    """The keys of ``children`` (inserted in dict order) in a Java HashMap's iteration order: by bucket, and
    within a bucket in insertion order."""
    if len(children) == 1:
        return list(children)
    mask = _mask(len(children))
    ranked = sorted(enumerate(children), key=lambda pair: (_bucket_hash(pair[1]) & mask, pair[0]))
    return [key for _, key in ranked]


class PathTree:
    """The document paths of one expression, as DynamoDB Local checks them for overlaps and conflicts."""

    __slots__ = ("prefix", "error", "root")

    def __init__(self, kind: str | None, error: type[ValidationException] = ValidationException) -> None:
        #: ``kind`` names the expression in messages (``Invalid ProjectionExpression: ...``); PartiQL has none
        self.prefix = f"Invalid {kind}: " if kind else ""
        self.error = error
        #: element -> subtree (a dict), or None where a path ends
        self.root: dict = {}

    def add(self, path: tuple) -> None:
        node = self.root
        for depth, element in enumerate(path):
            if element not in node:
                # the keys of a level all have one class (a clash is never added), so any key tells
                if node and next(iter(node)).__class__ is not element.__class__:
                    raise self._clash("conflict", path, depth, node)
                node[path[depth]] = _chain(path[depth + 1 :])
                return
            child = node[element]
            if child is None or depth == len(path) - 1:
                raise self._clash("overlap", path, depth, node)
            node = child

    def _clash(self, what: str, path: tuple, depth: int, node: dict) -> ValidationException:
        other = list(path[:depth])
        while node:
            key = _first_key(node)
            other.append(key)
            node = node[key]
        return self.error(
            f"{self.prefix}Two document paths {what} with each other; must remove or rewrite one of these paths; "
            f"path one: {format_path(path)}, path two: {format_path(tuple(other))}"
        )


def _chain(rest: tuple) -> dict | None:
    node: dict | None = None
    for element in reversed(rest):
        node = {element: node}
    return node
