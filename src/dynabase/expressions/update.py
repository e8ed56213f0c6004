"""Update expressions: ``SET``, ``REMOVE``, ``ADD`` and ``DELETE`` actions applied to an item.

DynamoDB evaluates every SET value against the item as it was before the update, applies the actions to
disjoint paths (overlapping paths are rejected when binding), addresses list elements by their original
positions, and appends SETs or ADDs to positions past a list's end in index order.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from functools import lru_cache
from typing import Any

from ..errors import ValidationException
from ..types import DECIMAL_CONTEXT, PLAIN_INTEGER, check_number, normalize_number
from . import ast, deep
from .binder import Binder, Operand, check_names
from .parser import parse_update
from .paths import PathTree, getter, java_order
from .placeholders import Placeholders
from .values import LONG_TYPE_NAMES, type_of

MISSING = "The provided expression refers to an attribute that does not exist in the item"
BAD_TYPE = "An operand in the update expression has an incorrect data type"
BAD_PATH = "The document path provided in the update expression is invalid for update"

_SETS = ("SS", "NS", "BS")
_KIND = "UpdateExpression"


class Update:
    """A parsed update expression."""

    __slots__ = ("text", "tree", "actions", "nesting")

    def __init__(self, text: str, tree: ast.UpdateExpression, nesting: int = 0) -> None:
        self.text, self.tree, self.nesting = text, tree, nesting
        self.actions = [action for _, actions in tree.sections for action in actions]

    def bind(self, placeholders: Placeholders) -> BoundUpdate:
        return deep.call(self.nesting, self._bind, placeholders)

    def _bind(self, placeholders: Placeholders) -> BoundUpdate:
        binder = _UpdateBinder(placeholders, _KIND)
        # DynamoDB binds the actions last to first: all paths (checking overlaps), then all values
        paths: list = [None] * len(self.actions)
        tree = PathTree(_KIND)
        for index in range(len(self.actions) - 1, -1, -1):
            paths[index] = path = binder.path(self.actions[index].path)
            tree.add(path)
        steps: list = [None] * len(self.actions)
        for index in range(len(self.actions) - 1, -1, -1):
            action, path = self.actions[index], paths[index]
            cls = action.__class__
            if cls is ast.SetAction:
                steps[index] = ("SET", path, deep.run(binder.set_value(action.value)).get)
            elif cls is ast.RemoveAction:
                steps[index] = ("REMOVE", path, None)
            else:
                op = "ADD" if cls is ast.AddAction else "DELETE"
                binder.value(action.value)
                value = placeholders.literal(action.value.text)
                allowed = ("N", *_SETS) if op == "ADD" else _SETS
                if type_of(value) not in allowed:
                    raise binder.error(
                        f"Incorrect operand type for operator or function; operator: {op}, operand type: "
                        f"{LONG_TYPE_NAMES[type_of(value)]}, typeSet: ALLOWED_FOR_{op}_OPERAND"
                    )
                steps[index] = (op, path, value)
        return BoundUpdate(steps, binder.paths[len(self.actions) :])


class BoundUpdate:
    """An update bound to a request's placeholders."""

    def __init__(self, steps: list, read_paths: Iterable[tuple[Any, ...]] = ()) -> None:
        self.steps = steps
        #: the resolved document paths the update's operands read
        self.read_paths: list[tuple] = list(read_paths)
        #: every document path the update sets, removes, adds to or deletes from, in the order written
        self.updated_paths: list[tuple] = [path for _, path, _ in steps]
        #: the top-level attribute names the update touches (for "This attribute is part of the key")
        self.paths: list[str] = list(dict.fromkeys(path[0] for path in self.updated_paths))
        self._getters = [getter(path) for path in self.updated_paths]
        self._walk = _walk_order(self.updated_paths)

    def updated_attributes(self, item: dict) -> dict:
        """The top-level attributes of ``item`` holding an updated path, as ReturnValues UPDATED_OLD (pass the
        old item) or UPDATED_NEW (pass the new item) returns them on DynamoDB Local: the whole attribute."""
        return {
            path[0]: item[path[0]]
            for path, get in zip(self.updated_paths, self._getters, strict=True)
            if get(item) is not None
        }

    def updated(self, old: dict, new_item: dict, new: bool = False) -> dict:
        """ReturnValues UPDATED_NEW (``new=True``, from ``new_item``) or UPDATED_OLD (from ``old``)."""
        return self.updated_attributes(new_item if new else old)

    def apply(self, item: dict) -> dict:
        """The item after the update (``item`` itself is not modified); raises DynamoDB's errors.

        As DynamoDB Local does, the actions are visited along the tree of their paths (see :func:`_walk_order`),
        and the first error met on the way is raised: a path through a missing or non-container value is invalid
        for update, a SET value refers to a missing attribute or has an operand of the wrong type, an ADD or
        DELETE meets a value of the wrong type.  Only then are the results written.
        """
        new = dict(item)
        steps = self.steps
        results: list = [None] * len(steps)
        targets: list = [None] * len(steps)
        for element, sub in self._walk:
            if sub.__class__ is int:
                targets[sub] = (new, element)
                results[sub] = _result(steps[sub], new.get(element), item)
            else:
                value = new.get(element)
                if value is None:
                    raise ValidationException(BAD_PATH)
                new[element] = value = _copy(value)
                _visit(sub, value, steps, results, targets, item)
        appends: dict[int, tuple] = {}  # id(list) -> (list, [(index, value)])
        removals = []
        for (op, path, _), (parent, key), value in zip(steps, targets, results, strict=True):
            if op == "REMOVE" or (op == "DELETE" and value is None):
                removals.append((path, parent, key))
            elif value is not ABSENT:
                _assign(parent, key, value, appends)
        for _, parent, key in sorted(removals, key=lambda r: r[0], reverse=True):
            if parent.__class__ is list:
                if key < len(parent):
                    del parent[key]
            else:
                parent.pop(key, None)
        for target, pending in appends.values():
            target.extend(value for _, value in sorted(pending, key=lambda p: p[0]))
        return new


def _walk_order(paths: list[tuple]) -> list:
    """The order DynamoDB Local visits an update's actions in: the tree of their paths (built from the last
    action to the first, see :class:`~.paths.PathTree`), each level in Java HashMap iteration order.  A level
    is a list of ``(element, sub)``: ``sub`` is the index of the action ending there, or the next level."""
    root: dict = {}
    for index in range(len(paths) - 1, -1, -1):
        node, path = root, paths[index]
        for element in path[:-1]:
            node = node.setdefault(element, {})
        node[path[-1]] = index

    def level(node: dict) -> list:
        return [(e, node[e] if node[e].__class__ is int else level(node[e])) for e in java_order(node)]

    return level(root)


def _visit(level: list, value: dict, steps: list, results: list, targets: list, item: dict) -> None:
    """Visit the actions under ``level`` inside ``value`` (a copy the results will be written into)."""
    container = value.get("L" if level[0][0].__class__ is int else "M")
    if container is None:
        raise ValidationException(BAD_PATH)
    for element, sub in level:
        child = _child(container, element)
        if sub.__class__ is int:
            targets[sub] = (container, element)
            results[sub] = _result(steps[sub], child, item)
        else:
            if child is None:
                raise ValidationException(BAD_PATH)
            _visit(sub, child, steps, results, targets, item)


def _result(step: tuple, current: dict | None, item: dict):
    """What one action writes where ``current`` is now: a value, None (remove it) or ABSENT (leave it)."""
    op, _, value = step
    if op == "SET":
        value = value(item)
        if value is ABSENT:
            raise ValidationException(MISSING)
        return value
    if op == "REMOVE":
        return None
    if op == "ADD":
        return _add(current, value)
    return _delete(current, value) if current is not None else ABSENT  # nothing to delete from


class _Absent:
    """A SET operand naming an attribute the item does not have."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT = _Absent()


class _UpdateBinder(Binder):
    """Binds SET values: paths must exist in the item (else :data:`ABSENT`), functions are the update ones."""

    def operand(self, node) -> Operand | deep.Recursive[Operand]:
        operand = super().operand(node)
        if not isinstance(operand, Operand):  # a function's, still to bind: its result is read as it is
            return operand
        if node.__class__ is ast.Value:
            literal = self.ph.literal(node.text)
            operand.get = lambda item: literal
        elif operand.path is not None:
            read = operand.get

            def get(item):
                value = read(item)
                return ABSENT if value is None else value

            operand.get = get
        return operand

    def set_value(self, node) -> deep.Recursive[Operand]:
        if node.__class__ is ast.Arithmetic:
            return (yield self.arithmetic(node))
        return (yield self.operand(node))

    def arithmetic(self, node: ast.Arithmetic) -> deep.Recursive[Operand]:
        left = yield self.operand(node.left)
        right = yield self.operand(node.right)
        for operand in (left, right):
            if operand.type is not None and operand.type != "N":
                raise self.type_error(node.op, operand.type)
        get_left, get_right, add = left.get, right.get, node.op == "+"
        plain = PLAIN_INTEGER.fullmatch

        def arithmetic(item):
            # left to right: a missing or wrongly typed left operand fails before the right one is looked at
            a = get_left(item)
            if a is ABSENT:
                return ABSENT
            if "N" not in a:
                raise ValidationException(BAD_TYPE)
            b = get_right(item)
            if b is ABSENT:
                return ABSENT
            if "N" not in b:
                raise ValidationException(BAD_TYPE)
            x, y = a["N"], b["N"]
            if plain(x) is not None and plain(y) is not None:  # integers: exact in Python's int, much faster
                result = int(x) + int(y) if add else int(x) - int(y)
                text = str(result)
                if len(text) <= 38:
                    return {"N": text}
            x, y = Decimal(x), Decimal(y)
            return _number(DECIMAL_CONTEXT.add(x, y) if add else DECIMAL_CONTEXT.subtract(x, y))

        return Operand(arithmetic, type="N")

    def f_if_not_exists(self, name, target, default):
        self.require_path(name, target)
        read, get_default = getter(target.path), default.get

        def if_not_exists(item):
            fallback = get_default(item)
            value = read(item)
            return fallback if value is None or fallback is ABSENT else value

        return Operand(if_not_exists, function=name)

    def f_list_append(self, name, first, second):
        for operand in (first, second):
            if operand.type is not None and operand.type != "L":
                raise self.type_error(name, operand.type)
        get_first, get_second = first.get, second.get

        def list_append(item):
            a = get_first(item)  # left to right, as for arithmetic
            if a is ABSENT:
                return ABSENT
            if "L" not in a:
                raise ValidationException(BAD_TYPE)
            b = get_second(item)
            if b is ABSENT:
                return ABSENT
            if "L" not in b:
                raise ValidationException(BAD_TYPE)
            return {"L": a["L"] + b["L"]}

        return Operand(list_append, type="L", function=name)


# -- applying actions ------------------------------------------------------------------------------------------


def _copy(value: dict) -> dict:
    """A copy of a value whose containers can be modified."""
    kind, inner = next(iter(value.items()))
    if kind == "M":
        return {"M": {k: _copy(v) for k, v in inner.items()}}
    if kind == "L":
        return {"L": [_copy(v) for v in inner]}
    return value


def _child(container, key):
    if container.__class__ is list:
        return container[key] if key < len(container) else None
    return container.get(key)


def _assign(container, key, value, appends: dict) -> None:
    if container.__class__ is list:
        if key < len(container):
            container[key] = value
        else:
            appends.setdefault(id(container), (container, []))[1].append((key, value))
    else:
        container[key] = value


def _number(result: Decimal) -> dict:
    """An arithmetic result, checked for DynamoDB's range, written with its scale as DynamoDB Local does."""
    check_number(result)  # finite from here: as_tuple()'s exponent is an int, not 'n', 'N' or 'F'
    if result.is_zero() and result.as_tuple().exponent >= 0:  # type: ignore[operator]
        return {"N": "0"}
    return {"N": format(result, "f")}


def _add(current: dict | None, value: dict) -> dict:
    if current is None:
        return value
    kind = type_of(value)
    if kind not in current:
        raise ValidationException(BAD_TYPE)
    if kind == "N":
        return _number(DECIMAL_CONTEXT.add(Decimal(current["N"]), Decimal(value["N"])))
    members = list(current[kind])
    if kind == "NS":
        seen = {Decimal(m) for m in members}
        added = [normalize_number(m) for m in value[kind] if Decimal(m) not in seen]
        if not added:  # Local leaves a set it does not change as stored
            return current
        # and writes the members of a set it builds in normal form
        return {kind: [normalize_number(m) for m in members] + added}
    seen = set(members)
    members.extend(m for m in value[kind] if m not in seen)
    return {kind: members}


def _delete(current: dict, value: dict) -> dict | None:
    kind = type_of(value)
    if kind not in current:
        raise ValidationException(BAD_TYPE)
    if kind == "NS":
        gone = {Decimal(m) for m in value[kind]}
        kept = [m for m in current[kind] if Decimal(m) not in gone]
        if len(kept) == len(current[kind]):  # nothing removed: the set stays as stored, as for ADD
            return current
        members = [normalize_number(m) for m in kept]
    else:
        gone = set(value[kind])
        members = [m for m in current[kind] if m not in gone]
    return {kind: members} if members else None


@lru_cache(maxsize=1024)
def compile_update(text: str) -> Update:
    """Parse an update expression and run the checks that need no placeholders."""
    tree, nesting = parse_update(text)
    return deep.call(nesting, _checked, text, tree, nesting)


def _checked(text: str, tree: ast.UpdateExpression, nesting: int) -> Update:
    for _, actions in tree.sections:
        for action in actions:
            check_names(action.path, _KIND, "update")
            if action.__class__ is ast.SetAction:
                check_names(action.value, _KIND, "update")
    seen = set()
    for keyword, _ in tree.sections:
        if keyword in seen:
            raise ValidationException(
                f'Invalid {_KIND}: The "{keyword}" section can only be used once in an update expression;'
            )
        seen.add(keyword)
    return Update(text, tree, nesting)
