"""The syntax tree the parser builds: small immutable nodes, placeholders still unresolved.

A document path is a tuple of elements: ``str`` for an attribute name written in the expression, :class:`Name`
for a ``#name`` placeholder and ``int`` for a list index. :class:`Value` is a ``:value`` placeholder. The binder
(:mod:`.binder`) resolves both against the request's :class:`~.placeholders.Placeholders`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Name:
    """An expression attribute name placeholder, ``#name``."""

    text: str


@dataclass(frozen=True)
class Value:
    """An expression attribute value placeholder, ``:value``."""

    text: str


@dataclass(frozen=True)
class Path:
    elements: tuple  # of str | Name | int


@dataclass(frozen=True)
class Function:
    name: str
    args: tuple


Operand = Path | Value | Function


@dataclass(frozen=True)
class Compare:
    op: str  # = <> < <= > >=
    left: Operand
    right: Operand


@dataclass(frozen=True)
class Between:
    subject: Operand
    low: Operand
    high: Operand


@dataclass(frozen=True)
class In:
    subject: Operand
    options: tuple


@dataclass(frozen=True)
class Not:
    operand: Condition


@dataclass(frozen=True)
class And:
    left: Condition
    right: Condition


@dataclass(frozen=True)
class Or:
    left: Condition
    right: Condition


Condition = Compare | Between | In | Function | Not | And | Or


# -- update expressions ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Arithmetic:
    op: str  # + or -
    left: Operand
    right: Operand


@dataclass(frozen=True)
class SetAction:
    path: Path
    value: Operand | Arithmetic


@dataclass(frozen=True)
class RemoveAction:
    path: Path


@dataclass(frozen=True)
class AddAction:
    path: Path
    value: Value


@dataclass(frozen=True)
class DeleteAction:
    path: Path
    value: Value


Action = SetAction | RemoveAction | AddAction | DeleteAction


@dataclass(frozen=True)
class UpdateExpression:
    sections: tuple  # of (keyword, tuple of actions), in the order written


@dataclass(frozen=True)
class ProjectionExpression:
    paths: tuple  # of Path
