"""Query key conditions: a KeyConditionExpression reduced to the hash key value and one range-key test."""

from __future__ import annotations

from typing import NamedTuple

from ..errors import ValidationException
from . import ast
from .condition import compile_condition
from .placeholders import Placeholders

_KIND = "KeyConditionExpression"
_FLIPPED = {"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


class KeyCondition(NamedTuple):
    """``hash_value``; ``range_op`` one of ``= < <= > >= BETWEEN begins_with`` (or None) with its values."""

    hash_value: dict
    range_op: str | None
    range_values: tuple


def key_condition(
    text: str, placeholders: Placeholders, hash_name: str, range_name: str | None
) -> KeyCondition:
    """Compile, bind and analyse a KeyConditionExpression against a key schema, with DynamoDB's errors.

    Checking the values' types against the key schema ("Condition parameter type does not match schema
    type") is left to the caller, which knows the attribute types.
    """
    condition = compile_condition(text, _KIND)
    condition.bind(placeholders)  # placeholder and operand checks, as for any condition
    binder_names = _Names(placeholders)
    leaves = []
    _collect(condition.tree, leaves)
    parsed = [_leaf(node, binder_names) for node in leaves]
    names = [name for name, _, _ in parsed]
    if len(parsed) > 2 or len(set(names)) != len(names):
        raise ValidationException("KeyConditionExpressions must only contain one condition per key")
    if range_name is None and len(parsed) == 2:  # two conditions on a hash-only key schema
        raise ValidationException("Query key condition not supported")
    hash_value, range_op, range_values = None, None, ()
    for name, op, values in parsed:
        if name == hash_name:
            if op != "=":
                raise ValidationException("Query key condition not supported")
            hash_value = values[0]
        elif name == range_name:
            range_op, range_values = op, values
        else:
            raise ValidationException("Query condition missed key schema element")
    if hash_value is None:
        raise ValidationException("Query condition missed key schema element")
    return KeyCondition(hash_value, range_op, range_values)


class _Names:
    def __init__(self, placeholders: Placeholders) -> None:
        self.ph = placeholders

    def path(self, node: ast.Path) -> str:
        first = node.elements[0]
        name = self.ph.names[first.text] if first.__class__ is ast.Name else first
        if len(node.elements) > 1:
            raise ValidationException(
                f"Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: Key: {name}"
            )
        return name


def _collect(node, leaves: list) -> None:
    """The conditions joined by AND, rejecting the operators a key condition cannot use."""
    cls = node.__class__
    if cls is ast.And:
        _collect(node.left, leaves)
        _collect(node.right, leaves)
    elif cls is ast.Or:
        raise ValidationException("Invalid operator used in KeyConditionExpression: OR")
    elif cls is ast.Not:
        raise ValidationException("Invalid operator used in KeyConditionExpression: NOT")
    elif cls is ast.In:
        raise ValidationException("Invalid operator used in KeyConditionExpression: IN")
    elif cls is ast.Compare and node.op == "<>":
        raise ValidationException("Invalid operator used in KeyConditionExpression: <>")
    elif cls is ast.Function and node.name != "begins_with":
        raise ValidationException(f"Invalid operator used in KeyConditionExpression: {node.name}")
    else:
        leaves.append(node)


def _leaf(node, names: _Names) -> tuple[str, str, tuple]:
    """``(attribute name, operator, values)`` of one key condition."""
    if node.__class__ is ast.Compare:
        operands, op = [node.left, node.right], node.op
    elif node.__class__ is ast.Between:
        operands, op = [node.subject, node.low, node.high], "BETWEEN"
    else:
        operands, op = list(node.args), "begins_with"
    if any(o.__class__ is ast.Function for o in operands):
        raise ValidationException("KeyConditionExpressions cannot contain nested operations")
    paths = [o for o in operands if o.__class__ is ast.Path]
    if len(paths) > 1:
        raise ValidationException(
            "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition"
        )
    if not paths:
        raise ValidationException("Invalid condition in KeyConditionExpression: No key attribute specified")
    if op == "begins_with" and operands[0].__class__ is not ast.Path:
        raise ValidationException(
            "Invalid condition in KeyConditionExpression: begins_with operator must have the key attribute as its first operand"
        )
    if op == "BETWEEN" and operands[0].__class__ is not ast.Path:
        raise ValidationException(
            "Invalid condition in KeyConditionExpression: BETWEEN operator must have the key attribute as its first operand"
        )
    name = names.path(paths[0])
    values = tuple(names.ph.values[o.text] for o in operands if o.__class__ is ast.Value)
    if op in _FLIPPED and operands[0].__class__ is not ast.Path:
        op = _FLIPPED[op]
    return name, op, values
