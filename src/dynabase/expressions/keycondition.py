"""Query key conditions: a KeyConditionExpression reduced to the hash key value and one range-key test."""

from __future__ import annotations

from typing import NamedTuple

from ..errors import ValidationException
from . import ast
from .condition import BoundCondition, compile_condition
from .placeholders import Placeholders

_KIND = "KeyConditionExpression"
#: a Query with neither KeyConditions nor a KeyConditionExpression (reported before a QueryFilter's own checks)
NO_KEY_CONDITION = (
    "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request."
)
_MISSED = "Query condition missed key schema element"
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
    bound = bind_key_condition(text, placeholders)
    for path in bound.paths:  # (the engine checks these against all of the table's key attributes)
        if len(path) > 1 and path[0] in (hash_name, range_name):
            raise ValidationException(
                "Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: "
                f"Key: {path[0]}"
            )
    return schema_key_condition(extract_key_conditions(bound, placeholders), hash_name, range_name)


def bind_key_condition(text: str, placeholders: Placeholders) -> BoundCondition:
    """Compile and bind a KeyConditionExpression as any condition (syntax, placeholder and operand checks)."""
    condition = compile_condition(text, _KIND)
    return condition.bind(placeholders)


def extract_key_conditions(bound: BoundCondition, placeholders: Placeholders) -> dict[str, tuple[str, tuple]]:
    """The conditions of a bound KeyConditionExpression, ``{attribute name: (operator, values)}``.

    As DynamoDB Local does, the conditions joined by AND are taken one by one, in the order written, each
    checked (its operator, then its operands in order) before the next.
    """
    conditions: dict[str, tuple[str, tuple]] = {}
    _walk(bound.tree, _Names(placeholders), conditions)
    return conditions


def schema_key_condition(
    conditions: dict[str, tuple[str, tuple]], hash_name: str, range_name: str | None
) -> KeyCondition:
    """The key condition the extracted conditions state against a key schema, or DynamoDB's error."""
    if len(conditions) > 2:
        raise ValidationException("Conditions can be of length 1 or 2 only")
    if range_name is None and len(conditions) == 2:  # two conditions on a hash-only key schema
        raise ValidationException("Query key condition not supported")
    hash_value, range_op, range_values = None, None, ()
    for name, (op, values) in conditions.items():
        if name == hash_name:
            if op != "=":
                raise ValidationException("Query key condition not supported")
            hash_value = values[0]
        elif name == range_name:
            range_op, range_values = op, values
        elif hash_name in conditions:
            raise ValidationException(_MISSED)  # AWS's words not established: Local's (no key named)
        else:
            raise ValidationException(f"{_MISSED}: {hash_name}")
    if hash_value is None:
        # the partition key missing: AWS names it (paritysuite/dynamodb-conformance tests/tier3/error-messages
        # query.test.ts: 'sk = :v' and 'attr1 = :v' both answer "...: pk"); Local does not
        raise ValidationException(f"{_MISSED}: {hash_name}")
    return KeyCondition(hash_value, range_op, range_values)


class MultiKeyCondition(NamedTuple):
    """A key condition on a multi-attribute key: every partition attribute's value (KeySchema order), the values
    of the leading sort attributes compared with ``=`` (``sort_prefix``), then at most one ``range_op`` with its
    ``range_values`` on the next sort attribute (``range_name``)."""

    hash_values: tuple
    sort_prefix: tuple
    range_name: str | None
    range_op: str | None
    range_values: tuple


def multi_key_condition(
    conditions: dict[str, tuple[str, tuple]], hash_names: list[str], range_names: list[str]
) -> MultiKeyCondition:
    """The key condition the extracted conditions state against a multi-attribute key, or DynamoDB Local's
    error: equality on every partition attribute, then sort attributes constrained left to right."""
    if len(conditions) > len(hash_names) + len(range_names):
        raise ValidationException("Query key condition not supported")
    unequal = [n for n in hash_names if n not in conditions or conditions[n][0] != "="]
    if unequal:
        raise ValidationException(
            f"HASH key attributes {', '.join(unequal)} must have equality conditions specified in the query"
        )
    constrained = [n for n in range_names if n in conditions]
    for position, name in enumerate(range_names):  # a sort attribute left out before a constrained one
        if name in conditions:
            absent = [n for n in range_names[:position] if n not in conditions]
            if absent:
                _range_error(absent, name)
    if constrained:
        unequal = [n for n in constrained[:-1] if conditions[n][0] != "="]
        if unequal:
            _range_error(unequal, constrained[-1])
    if any(name not in hash_names and name not in range_names for name in conditions):
        raise ValidationException("Query condition missed key schema element")
    last = constrained[-1] if constrained else None
    op, values = conditions[last] if last else (None, ())
    return MultiKeyCondition(
        tuple(conditions[n][1][0] for n in hash_names),
        tuple(conditions[n][1][0] for n in constrained[:-1]),
        last,
        op,
        values,
    )


def _range_error(names: list[str], because: str) -> None:
    raise ValidationException(
        f"RANGE key attributes {', '.join(names)} must have equality conditions specified in the query because "
        f"a condition is present on key attribute {because}"
    )


def _walk(node, names: _Names, conditions: dict[str, tuple[str, tuple]]) -> None:
    cls = node.__class__
    if cls is ast.And:
        _walk(node.left, names, conditions)
        _walk(node.right, names, conditions)
        return
    _check_operator(node)
    name, op, values = _leaf(node, names)
    if name in conditions:
        raise ValidationException("KeyConditionExpressions must only contain one condition per key")
    conditions[name] = (op, values)


class _Names:
    def __init__(self, placeholders: Placeholders) -> None:
        self.ph = placeholders

    def path(self, node: ast.Path) -> str:
        first = node.elements[0]
        name = self.ph.names[first.text] if first.__class__ is ast.Name else first
        if (
            len(node.elements) > 1
        ):  # (a nested path into a key attribute failed before, see check_scalar_keys)
            raise ValidationException("KeyConditionExpressions cannot have conditions on nested attributes")
        return name


def _check_operator(node) -> None:
    """Reject the operators a key condition cannot use."""
    cls = node.__class__
    if cls is ast.Or:
        raise ValidationException("Invalid operator used in KeyConditionExpression: OR")
    if cls is ast.Not:
        raise ValidationException("Invalid operator used in KeyConditionExpression: NOT")
    if cls is ast.In:
        raise ValidationException("Invalid operator used in KeyConditionExpression: IN")
    if cls is ast.Compare and node.op == "<>":
        raise ValidationException("Invalid operator used in KeyConditionExpression: <>")
    if cls is ast.Function and node.name != "begins_with":
        raise ValidationException(f"Invalid operator used in KeyConditionExpression: {node.name}")


def _leaf(node, names: _Names) -> tuple[str, str, tuple]:
    """``(attribute name, operator, values)`` of one key condition, its operands checked in order."""
    if node.__class__ is ast.Compare:
        operands, op = [node.left, node.right], node.op
    elif node.__class__ is ast.Between:
        operands, op = [node.subject, node.low, node.high], "BETWEEN"
    else:
        operands, op = list(node.args), "begins_with"
    name = None
    values = []
    for operand in operands:
        if operand.__class__ is ast.Path:  # (mypy narrows on `x.__class__ is X`, not on a saved `cls`)
            if name is not None:
                raise ValidationException(
                    "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition"
                )
            name = names.path(operand)
        elif operand.__class__ is ast.Value:
            if name is None:
                if op in ("BETWEEN", "begins_with"):
                    raise ValidationException(
                        f"Invalid condition in KeyConditionExpression: {op} operator must have the key attribute "
                        "as its first operand"
                    )
                op = _FLIPPED[op]
            values.append(names.ph.values[operand.text])
        else:
            raise ValidationException("KeyConditionExpressions cannot contain nested operations")
    if name is None:
        raise ValidationException("Invalid condition in KeyConditionExpression: No key attribute specified")
    return name, op, tuple(values)
