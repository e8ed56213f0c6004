"""Projection expressions: the attributes, nested paths and list elements a read returns."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from . import ast
from .binder import Binder, check_names
from .parser import parse_projection
from .paths import PathTree
from .placeholders import Placeholders

_KIND = "ProjectionExpression"


class Projection:
    """A parsed projection expression."""

    __slots__ = ("text", "tree")

    def __init__(self, text: str, tree: ast.ProjectionExpression) -> None:
        self.text, self.tree = text, tree

    def bind(self, placeholders: Placeholders) -> BoundProjection:
        binder = Binder(placeholders, _KIND)
        # DynamoDB resolves the paths last to first, adding each to its overlap-checking tree as it goes
        nodes = self.tree.paths
        paths: list = [None] * len(nodes)
        tree = PathTree(_KIND)
        for index in range(len(nodes) - 1, -1, -1):
            paths[index] = path = binder.path(nodes[index])
            tree.add(path)
        return BoundProjection(paths)


class BoundProjection:
    """A projection bound to a request's placeholders; :meth:`apply` projects an item."""

    def __init__(self, paths: list[tuple]) -> None:
        self.paths = paths
        #: the top-level attributes the projection reads
        self.top_level_names: set[str] = {path[0] for path in paths}
        self._flat = all(len(path) == 1 for path in paths)
        self._tree = _tree(paths)

    def apply(self, item: dict) -> dict:
        """The projected item: requested attributes and nested elements that exist, as DynamoDB returns them."""
        if self._flat:
            return {name: item[name] for name in self.top_level_names if name in item}
        out = {}
        for name, sub in self._tree.items():
            value = item.get(name)
            if value is None:
                continue
            if sub is not None:
                value = _project(value, sub)
                if value is None:
                    continue
            out[name] = value
        return out


def _tree(paths: list[tuple]) -> dict:
    """Paths as nested dicts: element -> subtree, or None where the whole value is wanted."""
    root: dict = {}
    for path in paths:
        node = root
        for element in path[:-1]:
            node = node.setdefault(element, {})
        node[path[-1]] = None
    return root


def _project(value: dict, tree: dict) -> dict | None:
    """The parts of ``value`` that ``tree`` selects, or None if none of them exists."""
    first = next(iter(tree))
    if first.__class__ is int:
        elements = value.get("L")
        if elements is None:
            return None
        picked: list[Any] = []
        for index in sorted(tree):
            if index < len(elements):
                element = elements[index]
                sub = tree[index]
                if sub is not None:
                    element = _project(element, sub)
                if element is not None:
                    picked.append(element)
        return {"L": picked} if picked else None
    members = value.get("M")
    if members is None:
        return None
    picked_members: dict[str, Any] = {}
    for key, sub in tree.items():
        member = members.get(key)
        if member is not None and sub is not None:
            member = _project(member, sub)
        if member is not None:
            picked_members[key] = member
    return {"M": picked_members} if picked_members else None


@lru_cache(maxsize=1024)
def compile_projection(text: str) -> Projection:
    """Parse a projection expression and run the checks that need no placeholders."""
    tree = parse_projection(text)
    for path in tree.paths:
        check_names(path, _KIND, "projection")
    return Projection(text, tree)
