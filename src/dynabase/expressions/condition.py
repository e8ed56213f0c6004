"""Condition, filter and key-condition expressions: compile once, bind per request, evaluate per item."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

from ..errors import ValidationException
from . import ast, deep
from .binder import MAX_OPERATORS, Binder, check_names, count_operators
from .parser import parse_condition
from .placeholders import Placeholders


class BoundCondition:
    """A condition bound to one request's placeholders; :meth:`evaluate` tests an item."""

    __slots__ = ("evaluate", "tree", "paths")

    def __init__(self, evaluate: Callable[[dict], bool], tree, paths: Iterable[tuple[Any, ...]] = ()) -> None:
        self.evaluate: Callable[[dict], bool] = evaluate
        self.tree = tree
        #: the resolved document paths the condition reads (first element: the top-level attribute name)
        self.paths = list(paths)

    def __call__(self, item: dict) -> bool:
        return self.evaluate(item)


class Condition:
    """A parsed condition expression (``kind`` is ConditionExpression, FilterExpression or KeyConditionExpression)."""

    __slots__ = ("text", "kind", "tree", "operators", "nesting")

    def __init__(self, text: str, kind: str, tree: ast.Condition, nesting: int = 0) -> None:
        self.text, self.kind, self.tree, self.nesting = text, kind, tree, nesting
        self.operators = count_operators(tree)

    def bind(self, placeholders: Placeholders) -> BoundCondition:
        """Substitute placeholders (marking them used) and run the checks that need no item."""
        return deep.call(self.nesting, self._bind, placeholders)

    def _bind(self, placeholders: Placeholders) -> BoundCondition:
        binder = Binder(placeholders, self.kind)
        evaluate = deep.run(binder.condition(self.tree))
        if self.operators > MAX_OPERATORS:
            raise ValidationException(
                f"Invalid {self.kind}: The expression contains too many operators; operator count: {MAX_OPERATORS + 1}"
            )
        return BoundCondition(evaluate, self.tree, binder.paths)


@lru_cache(maxsize=1024)
def compile_condition(text: str, kind: str = "ConditionExpression") -> Condition:
    """Parse a condition expression and run the checks that need no placeholders.

    Raises ValidationException with DynamoDB's message. Compile and bind each of a request's expressions in
    turn, in the order DynamoDB processes them, after building the request's Placeholders (whose own errors
    come first).
    """
    tree, nesting = parse_condition(text, kind)
    return deep.call(nesting, _checked, text, kind, tree, nesting)


def _checked(text: str, kind: str, tree: ast.Condition, nesting: int) -> Condition:
    check_names(tree, kind, "condition", as_condition=True)
    return Condition(text, kind, tree, nesting)
