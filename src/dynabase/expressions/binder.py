"""Checking a parsed expression and binding it to a request's placeholders.

DynamoDB validates in passes, and the first error of the earliest pass wins:

1. :func:`check_names`, in tree order: reserved words, unknown functions, functions used where they are not
   allowed (``size(a)`` as a condition, ``attribute_exists(a) = :v``, ``list_append`` inside ``+``...).
2. :class:`Binder`, children before their parent: path depth, ``#name`` and ``:value`` substitution, then each
   operator's or function's own checks (operand counts, operand types known before any item is read, distinct
   operands, BETWEEN bounds, IN size).
3. The operator count (conditions only).

Binding produces closures: operands become ``item -> AttributeValue | None`` functions, conditions become
``item -> bool`` predicates, so evaluation does no lookups of placeholders and no tree walking.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from ..errors import ValidationException
from . import ast, deep
from .paths import MAX_DEPTH, format_path, getter
from .placeholders import Placeholders
from .reserved import RESERVED_WORDS
from .values import begins_with, contains, describe, equal, ordering_key, size, type_of

CONDITION_FUNCTIONS = {
    "attribute_exists": 1,
    "attribute_not_exists": 1,
    "attribute_type": 2,
    "begins_with": 2,
    "contains": 2,
}
OPERAND_FUNCTIONS = {"size": 1}
UPDATE_FUNCTIONS = {"if_not_exists": 2, "list_append": 2}
ARITY = {**CONDITION_FUNCTIONS, **OPERAND_FUNCTIONS, **UPDATE_FUNCTIONS}

MAX_OPERATORS = 300
MAX_IN_OPERANDS = 100
ATTRIBUTE_TYPES = ("N", "BS", "L", "B", "NULL", "M", "S", "SS", "NS", "BOOL")
_ANY_TYPE = (
    "{BS,M,B,FS,HD,FLOAT,INTSET,NULL,DOUBLE,DICT,L,INT,S,NS,DOUBLESET,BOOL,DECIMALSET,SS,N,DECIMAL,HDS}"
)
_ORDERED = ("N", "S", "B")


# -- pass 1 ------------------------------------------------------------------------------------------------


def check_names(node, kind: str, context: str, as_condition: bool = False) -> None:
    """Reserved words and function placement, in tree order. ``context`` is "condition" or "update"."""
    deep.run(_check_names(node, kind, context, as_condition, True))


def _check_names(node, kind: str, context: str, as_condition: bool, top: bool) -> deep.Recursive[None]:
    cls = node.__class__
    if cls is ast.Path:
        for element in node.elements:
            if element.__class__ is str and element.upper() in RESERVED_WORDS:
                raise ValidationException(
                    f"Invalid {kind}: Attribute name is a reserved keyword; reserved keyword: {element}"
                )
    elif cls is ast.Function:
        name = node.name
        if name not in ARITY:
            raise ValidationException(f"Invalid {kind}: Invalid function name; function: {name}")
        if context == "condition":
            if name in UPDATE_FUNCTIONS:
                raise ValidationException(
                    f"Invalid {kind}: The function is not allowed in a condition expression; function: {name}"
                )
            if as_condition != (name in CONDITION_FUNCTIONS):
                raise ValidationException(
                    f"Invalid {kind}: The function is not allowed to be used this way in an expression; function: {name}"
                )
        else:
            if name not in UPDATE_FUNCTIONS:
                raise ValidationException(
                    f"Invalid {kind}: The function is not allowed in an update expression; function: {name}"
                )
            if name == "list_append" and not top:
                raise ValidationException(
                    f"Invalid {kind}: The function is not allowed to be used this way in an expression; function: {name}"
                )
        for arg in node.args:
            yield _check_names(arg, kind, context, False, False)
    elif cls in (ast.Compare, ast.Arithmetic):
        yield _check_names(node.left, kind, context, False, False)
        yield _check_names(node.right, kind, context, False, False)
    elif cls is ast.Between:
        for operand in (node.subject, node.low, node.high):
            yield _check_names(operand, kind, context, False, False)
    elif cls is ast.In:
        for operand in (node.subject, *node.options):
            yield _check_names(operand, kind, context, False, False)
    elif cls is ast.Not:
        yield _check_names(node.operand, kind, context, True, True)
    elif cls in (ast.And, ast.Or):
        yield _check_names(node.left, kind, context, True, True)
        yield _check_names(node.right, kind, context, True, True)


def count_operators(node) -> int:
    """Operators and functions in the tree (counted without recursion)."""
    count = 0
    pending = [node]
    while pending:
        node = pending.pop()
        cls = node.__class__
        if cls is ast.Path or cls is ast.Value:
            continue
        count += 1
        if cls is ast.Function:
            pending.extend(node.args)
        elif cls is ast.Between:
            pending += (node.subject, node.low, node.high)
        elif cls is ast.In:
            pending += (node.subject, *node.options)
        elif cls is ast.Not:
            pending.append(node.operand)
        else:  # Compare, And, Or
            pending += (node.left, node.right)
    return count


# -- pass 2 ------------------------------------------------------------------------------------------------


class Operand:
    """A bound operand: how to read it from an item, and what is known about it before any item."""

    __slots__ = ("get", "path", "const", "raw", "type", "function")

    def __init__(self, get, path=None, const=None, raw=None, type=None, function=None) -> None:
        self.get: Callable[[dict], dict | None] = get
        self.path: tuple | None = path  # a document path operand
        self.const: dict | None = const  # a :value operand (validated)
        self.raw: dict | None = raw  # the :value as the request gave it, for messages
        self.type: str | None = type  # the type known before reading any item
        self.function: str | None = function


class Binder:
    """Resolves placeholders and compiles one expression; ``kind`` names it in error messages."""

    def __init__(self, placeholders: Placeholders, kind: str) -> None:
        self.ph = placeholders
        self.kind = kind
        self.paths: list[tuple] = []  # every document path the expression reads, resolved

    def error(self, message: str) -> ValidationException:
        return ValidationException(f"Invalid {self.kind}: {message}")

    def type_error(self, op: str, type_name: str) -> ValidationException:
        return self.error(
            f"Incorrect operand type for operator or function; operator or function: {op}, operand type: {type_name}"
        )

    # -- operands --------------------------------------------------------------------------------------

    def path(self, node: ast.Path) -> tuple:
        if len(node.elements) > MAX_DEPTH:
            raise self.error(
                f"The document path has too many nesting levels; nesting levels: {len(node.elements)}"
            )
        resolved = []
        for element in node.elements:
            if element.__class__ is ast.Name:
                name = self.ph.name(element.text)
                if name is None:
                    if element.text in self.ph.values:  # ``a.:v`` with :v defined: DynamoDB fails oddly
                        raise self.error("Internal server error")
                    raise self.error(
                        f"An expression attribute name used in the document path is not defined; attribute name: {element.text}"
                    )
                resolved.append(name)
            else:
                resolved.append(element)
        path = tuple(resolved)
        self.paths.append(path)
        return path

    def value(self, node: ast.Value) -> dict:
        value = self.ph.value(node.text)
        if value is None:
            raise self.error(
                f"An expression attribute value used in expression is not defined; attribute value: {node.text}"
            )
        return value

    def operand(self, node) -> Operand | deep.Recursive[Operand]:
        """A leaf's Operand, or a function's as a generator (``yield`` either to :func:`.deep.run`)."""
        cls = node.__class__
        if cls is ast.Path:
            path = self.path(node)
            return Operand(getter(path), path=path)
        if cls is ast.Value:
            value = self.value(node)
            return Operand(
                lambda item: value, const=value, raw=self.ph.raw_values[node.text], type=type_of(value)
            )
        return self.function(node)

    def function(self, node: ast.Function) -> deep.Recursive[Operand]:
        args = []
        for arg in node.args:
            args.append((yield self.operand(arg)))
        name = node.name
        if len(args) != ARITY[name]:
            raise self.error(
                f"Incorrect number of operands for operator or function; operator or function: {name}, number of operands: {len(args)}"
            )
        return getattr(self, "f_" + name)(name, *args)

    def distinct(self, op: str, first: Operand, others) -> None:
        if first.path is not None and any(o.path == first.path for o in others):
            raise self.error(
                "The first operand must be distinct from the remaining operands for this operator or function; "
                f"operator: {op}, first operand: {format_path(first.path)}"
            )

    def require_path(self, name: str, operand: Operand) -> None:
        if operand.path is None:
            raise self.error(f"Operator or function requires a document path; operator or function: {name}")

    # -- functions (conditions) --------------------------------------------------------------------------

    def f_attribute_exists(self, name, target):
        self.require_path(name, target)
        get = target.get
        return Operand(lambda item: get(item) is not None, function=name)

    def f_attribute_not_exists(self, name, target):
        self.require_path(name, target)
        get = target.get
        return Operand(lambda item: get(item) is None, function=name)

    def f_attribute_type(self, name, target, type_operand):
        self.distinct(name, target, [type_operand])
        if type_operand.const is None:
            raise self.type_error(name, type_operand.type or _ANY_TYPE)
        if type_operand.type != "S":
            raise self.type_error(name, type_operand.type)
        wanted = type_operand.const["S"]
        if wanted not in ATTRIBUTE_TYPES:
            raise self.error(
                f"Invalid attribute type name found; type: {wanted}, valid types: {{{','.join(ATTRIBUTE_TYPES)}}}"
            )
        get = target.get

        def attribute_type(item):
            value = get(item)
            return value is not None and wanted in value

        return Operand(attribute_type, function=name)

    def f_begins_with(self, name, target, prefix):
        self.distinct(name, target, [prefix])
        for operand in (target, prefix):
            if operand.type is not None and operand.type not in ("S", "B"):
                raise self.type_error(name, operand.type)
        get, get_prefix = target.get, prefix.get
        return Operand(lambda item: begins_with(get(item), get_prefix(item)), function=name)

    def f_contains(self, name, target, needle):
        self.distinct(name, target, [needle])
        get, get_needle = target.get, needle.get
        return Operand(lambda item: contains(get(item), get_needle(item)), function=name)

    def f_size(self, name, target):
        if target.type in ("N", "BOOL", "NULL"):
            raise self.type_error(name, target.type)
        get = target.get
        return Operand(lambda item: size(get(item)), type="N", function=name)

    # -- conditions --------------------------------------------------------------------------------------

    def condition(self, node) -> deep.Recursive[Callable[[dict], bool]]:
        """The predicate for a condition node (post-order checks); a generator, for :func:`.deep.run`."""
        cls = node.__class__
        if cls is ast.And:
            left = yield self.condition(node.left)
            right = yield self.condition(node.right)
            return lambda item: left(item) and right(item)
        if cls is ast.Or:
            left = yield self.condition(node.left)
            right = yield self.condition(node.right)
            return lambda item: left(item) or right(item)
        if cls is ast.Not:
            operand = yield self.condition(node.operand)
            return lambda item: not operand(item)
        if cls is ast.Function:
            # a condition function's operand (attribute_exists, begins_with...) reads a bool, not a value
            return cast("Callable[[dict], bool]", (yield self.function(node)).get)
        if cls is ast.Compare:
            return (yield self.compare(node))
        if cls is ast.Between:
            return (yield self.between(node))
        return (yield self.in_(node))

    def compare(self, node: ast.Compare) -> deep.Recursive[Callable[[dict], bool]]:
        op = node.op
        left = yield self.operand(node.left)
        right = yield self.operand(node.right)
        if op not in ("=", "<>"):
            for operand in (left, right):
                if operand.type is not None and operand.type not in _ORDERED:
                    raise self.type_error(op, operand.type)
        self.distinct(op, left, [right])
        get_left, get_right = left.get, right.get
        if op == "=":

            def eq(item):
                a = get_left(item)
                if a is None:
                    return False
                b = get_right(item)
                return b is not None and (a == b or equal(a, b))

            return eq
        if op == "<>":

            def ne(item):
                a = get_left(item)
                if a is None:
                    return True
                b = get_right(item)
                return b is None or not (a == b or equal(a, b))

            return ne
        compare = _ORDER_TESTS[op]

        def ordered(item):
            a = get_left(item)
            if a is None:
                return False
            b = get_right(item)
            if b is None:
                return False
            ka, kb = ordering_key(a), ordering_key(b)
            return ka is not None and kb is not None and ka[0] == kb[0] and compare(ka[1], kb[1])

        return ordered

    def between(self, node: ast.Between) -> deep.Recursive[Callable[[dict], bool]]:
        subject = yield self.operand(node.subject)
        low = yield self.operand(node.low)
        high = yield self.operand(node.high)
        for operand in (subject, low, high):
            if operand.type is not None and operand.type not in _ORDERED:
                raise self.type_error("BETWEEN", operand.type)
        self.distinct("BETWEEN", subject, [low, high])
        if low.const is not None and high.const is not None:
            assert low.raw is not None and high.raw is not None  # a :value operand has both (see operand)
            bounds = f"lower bound operand: {describe(low.raw)}, upper bound operand: {describe(high.raw)}"
            if low.type != high.type:
                raise self.error(
                    f"The BETWEEN operator requires same data type for lower and upper bounds; {bounds}"
                )
            if ordering_key(low.const)[1] > ordering_key(high.const)[1]:
                raise self.error(
                    f"The BETWEEN operator requires upper bound to be greater than or equal to lower bound; {bounds}"
                )
        get, get_low, get_high = subject.get, low.get, high.get

        def between(item):
            value = get(item)
            if value is None:
                return False
            lo, hi = get_low(item), get_high(item)
            if lo is None or hi is None:
                return False
            k, klo, khi = ordering_key(value), ordering_key(lo), ordering_key(hi)
            if k is None or klo is None or khi is None or not (k[0] == klo[0] == khi[0]):
                return False
            return klo[1] <= k[1] <= khi[1]

        return between

    def in_(self, node: ast.In) -> deep.Recursive[Callable[[dict], bool]]:
        subject = yield self.operand(node.subject)
        options = []
        for option in node.options:
            options.append((yield self.operand(option)))
        if len(options) > MAX_IN_OPERANDS:
            raise self.error(
                f"The IN operator is provided with too many operands; number of operands: {len(options)}"
            )
        self.distinct("IN", subject, options)
        get = subject.get
        getters = [o.get for o in options]

        def in_(item):
            value = get(item)
            if value is None:
                return False
            for get_option in getters:
                option = get_option(item)
                if option is not None and (option == value or equal(value, option)):
                    return True
            return False

        return in_


_ORDER_TESTS = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}
