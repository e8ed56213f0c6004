"""PartiQL statements translated into the engine's own requests.

Like ``legacy.py``, every statement becomes wire-shaped requests with expression text and generated placeholders
(``#p0``, ``:p0``), so the one expression evaluator serves PartiQL too: a SELECT becomes Query requests (one per
partition key value) or a Scan, INSERT a conditional PutItem, UPDATE/DELETE an UpdateItem/DeleteItem whose
ConditionExpression carries the rest of the WHERE clause, and EXISTS (in transactions) a ConditionCheck.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Protocol

from ...errors import ResourceNotFoundException, ValidationException
from ...expressions import deep
from ...expressions.paths import PathTree
from ...types import (
    DECIMAL_CONTEXT,
    MAX_HASH_KEY_SIZE,
    MAX_RANGE_KEY_SIZE,
    check_number,
    encode_key,
    format_number,
    parse_number,
)
from .conditions import (
    CONDITION_FUNCTIONS,
    Expressions,
    Placeholders,
    StatementError,
    conjuncts,
    references,
    statement_kind,
)
from .parser import (
    BagLit,
    Between,
    Binary,
    Call,
    Delete,
    ExprStatement,
    In,
    Insert,
    ListLit,
    Lit,
    Missing,
    Node,
    Param,
    Path,
    Select,
    StructLit,
    Subquery,
    Unary,
    Unsupported,
    Update,
    parse,
)

_UPDATE_FUNCTIONS = ("list_append", "if_not_exists", "set_add", "set_delete")
_FLIPPED = {"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
_RETURN_VALUES = {
    ("ALL", "OLD"): "ALL_OLD",
    ("ALL", "NEW"): "ALL_NEW",
    ("MODIFIED", "OLD"): "UPDATED_OLD",
    ("MODIFIED", "NEW"): "UPDATED_NEW",
}
MISSING_KEY = "Where clause does not contain a mandatory equality on all key attributes"
PARAMETER_COUNT = "Number of parameters in request and statement don't match."
TABLE_NAME = (
    "Table name should be within the length [3, 255] and only contain 'a-z', 'A-Z', '0-9', '-', '_', '.'."
)
_NAME = re.compile(r"[a-zA-Z0-9_.-]{3,255}")
EXISTS_ONLY_IN_TRANSACTIONS = "EXISTS can only be used in ExecuteTransaction write requests."


class ItemError(ValidationException):
    """A problem with the item's key (in a transaction: a cancellation reason, not a failed request)."""


class MissingKey(ValidationException):
    """An UPDATE or DELETE without an equality on every key attribute."""


class Tables(Protocol):
    def get(self, name: Any) -> Any: ...


# -- plans ----------------------------------------------------------------------------------------------------


@dataclass
class ReadPlan:
    """A SELECT run by ExecuteStatement: Query requests (one per partition key value) or one Scan request."""

    operation: str  # Query | Scan
    requests: list[dict]
    #: (result name, attribute, steps) per projected path; None for SELECT *
    shape: list[tuple[str, str, list]] | None = None
    #: conditions on key attributes a Query cannot filter on: a ConditionExpression for the items it returns
    post: dict | None = None


@dataclass
class GetPlan:
    """A single-item SELECT of a batch or transaction: a GetItem request."""

    request: dict
    table: Any


@dataclass
class WritePlan:
    """INSERT, UPDATE, DELETE or (in transactions) EXISTS: one item request."""

    kind: str  # insert update delete exists
    operation: str  # PutItem UpdateItem DeleteItem ConditionCheck
    request: dict
    table: Any
    key: dict = field(default_factory=dict)


def compile_statement(statement: str, parameters: list | None, tables: Tables, context: str = "statement"):
    """Translate one statement into a :class:`ReadPlan`, :class:`GetPlan` or :class:`WritePlan`.

    ``context`` is ``statement`` (ExecuteStatement), ``batch`` or ``transaction``; ``parameters`` are the
    request's validated AttributeValues for ``?``.
    """
    parsed = parse(statement)
    return deep.call(
        parsed.nesting, translate, parsed.statement, parsed.parameters, parameters, tables, context
    )


def translate(node: Node, wanted: int, parameters: list | None, tables: Tables, context: str):
    """Translate a parsed statement (see :func:`compile_statement`)."""
    if isinstance(node, ExprStatement):
        return _expression_statement(node.expr, wanted, parameters, tables, context)
    if wanted > len(parameters or ()):
        raise StatementError(PARAMETER_COUNT)
    return _Translator(parameters or [], tables, context).statement(node)


def _expression_statement(expr: Node, wanted: int, parameters: list | None, tables: Tables, context: str):
    kind = statement_kind(expr)
    if context == "transaction":
        if kind is not None:
            raise Unsupported(f"Unsupported operation: {kind}")
        if (
            isinstance(expr, Call)
            and expr.name == "exists"
            and len(expr.args) == 1
            and isinstance(expr.args[0], Subquery)
        ):
            if wanted > len(parameters or ()):
                raise StatementError(PARAMETER_COUNT)
            return _Translator(parameters or [], tables, context).exists(expr.args[0].select)
        raise Unsupported("Unsupported operation in transaction.")
    if kind is not None:
        if context == "batch":
            raise StatementError(
                "Invalid operation. Only select, insert, update and delete operations are valid"
            )
        raise Unsupported(f"Unsupported operation: {kind}")
    raise StatementError(EXISTS_ONLY_IN_TRANSACTIONS)


# -- translation --------------------------------------------------------------------------------------------


class _Translator(Expressions):
    """Planning of one statement against the tables' key schemas."""

    def __init__(self, parameters: list, tables: Tables, context: str) -> None:
        super().__init__(parameters)
        self.tables = tables
        self.context = context
        #: errors an UPDATE's values raise only after its paths passed the overlap check (see ``update``)
        self.late: list[StatementError] = []

    # -- keys

    def key_equality(self, node: Node, name: str) -> dict | None:
        """The value ``node`` sets key attribute ``name`` equal to (``name = v`` or ``v = name``), if it does."""
        if not (isinstance(node, Binary) and node.op == "="):
            return None
        for this, other in ((node.left, node.right), (node.right, node.left)):
            if (
                isinstance(this, Path)
                and not this.steps
                and this.name == name
                and isinstance(other, (Lit, Param, Unary, ListLit, StructLit, BagLit))
            ):
                return self.constant(other)
        return None

    def check_key(self, value: dict, name: str, type_: str, hash_key: bool) -> dict:
        if len(value) != 1 or type_ not in value:
            raise ItemError(
                f"Key attribute's data type should match its data type in table's schema: Key {name}"
            )
        inner = value[type_]
        if type_ in ("S", "B") and len(inner) == 0:
            raise ItemError(
                "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain "
                f"an empty {'string' if type_ == 'S' else 'binary'} value. Key: {name}"
            )
        size = len(inner.encode("utf-8")) if type_ == "S" else len(inner) if type_ == "B" else 0
        if size > (MAX_HASH_KEY_SIZE if hash_key else MAX_RANGE_KEY_SIZE):
            raise ItemError(
                "Hash primary key values must be under 2048 bytes, and range primary key values must "
                "be under 1024 bytes"
            )
        return value

    def full_key(self, table: Any, where: Node | None, single: bool = True) -> tuple[dict | None, list[Node]]:
        """The primary key the WHERE clause's equalities name (None if some key attribute has none) and the other
        conditions. Naming a key attribute twice is fine with the same value; with another, writes (``single``)
        fail and reads are not single-item reads."""
        key: dict[str, dict] = {}
        rest = []
        for node in conjuncts(where):
            for name in table.keys.names:
                value = self.key_equality(node, name)
                if value is not None:
                    break
            else:
                rest.append(node)
                continue
            if name not in key:
                key[name] = value
            elif key[name] != value:
                if not single:
                    return None, rest
                raise StatementError(
                    f"Multiple conditions on same key {name}. Only single item Update/Insert/Delete are supported"
                )
        if len(key) != len(table.keys.names):
            return None, rest
        ks = table.keys
        for name, type_, is_hash in (
            (ks.hash_name, ks.hash_type, True),
            (ks.range_name, ks.range_type, False),
        ):
            if name is not None:
                self.check_key(key[name], name, type_, is_hash)
        return {n: key[n] for n in ks.names}, rest

    # -- statements

    def statement(self, node: Node):
        if isinstance(node, Select):
            return self.select(node) if self.context == "statement" else self.single_select(node)
        if isinstance(node, Insert):
            return self.insert(node)
        if isinstance(node, Update):
            return self.update(node)
        if isinstance(node, Delete):
            return self.delete(node)
        raise AssertionError(node)

    def table(self, name: str, select: bool = False, index: str | None = None) -> Any:
        if select and index is not None and not _NAME.fullmatch(index):
            raise StatementError(TABLE_NAME)
        try:
            return self.tables.get(name)
        except ResourceNotFoundException:
            raise
        except ValidationException:  # a name DynamoDB could not have created
            if select:
                raise StatementError(TABLE_NAME) from None
            raise ResourceNotFoundException("Cannot do operations on a non-existent table") from None

    def projection(self, node: Select) -> list[tuple[str, str, list]] | None:
        """ExecuteStatement's flat projection: each path's value under its last name (``a[0]`` for ``m.a[0]``)."""
        if node.items is None:
            return None
        shape = []
        paths: list[Path] = []
        for item in node.items:
            if not isinstance(item, Path):
                raise StatementError(f"Unexpected path component at {item.tok.where}")
            paths.append(item)
            steps = self.steps(item)
            last = max((i for i, s in enumerate(steps) if isinstance(s, str)), default=-1)
            label = steps[last] if last >= 0 else item.name
            kept = steps[: last + 1]
            if last + 1 < len(steps):
                label += f"[{steps[last + 1]}]"
                kept = steps[: last + 2]
            shape.append((label, item.name, kept))
        labels = [label for label, _, _ in shape]
        for label in labels:
            if labels.count(label) > 1:
                raise StatementError(f"Duplicate identifiers in select clause: {label}")
        # the same path tree as a ProjectionExpression's, but fed in the order written
        tree = PathTree(None, StatementError)
        for path in paths:
            tree.add((path.name, *self.steps(path)))
        return shape

    def select(self, node: Select) -> ReadPlan:
        table = self.table(node.table, select=True, index=node.index)
        index = table.index(node.index) if node.index is not None else None
        keys = index.keys if index is not None else table.keys
        if keys.multi:  # (DynamoDB Local 3.3's words)
            raise ValidationException(
                "PartiQL statements cannot be executed on tables with composite HASH keys or composite RANGE keys."
            )
        shape = self.projection(node)
        self.where(node.where)
        forward, partitions_descending = self.order(node, keys)
        base: dict[str, Any] = {"TableName": table.name}
        if index is not None:
            base["IndexName"] = index.name
        roots = list(dict.fromkeys(name for _, name, _ in shape)) if shape is not None else []

        def request(hash_value: dict | None, key_part: list[Node], rest: list[Node]) -> dict:
            self.ph = Placeholders()
            req = dict(base)
            if hash_value is not None:
                text = f"{self.ph.name(keys.hash_name)} = {self.ph.value(hash_value)}"
                if key_part:
                    text += " AND " + self.key_condition(key_part[0], keys)
                req["KeyConditionExpression"] = text
                if not forward:
                    req["ScanIndexForward"] = False
            filter_text = self.join(rest)
            if filter_text is not None:
                req["FilterExpression"] = filter_text
            if roots:
                req["ProjectionExpression"] = ", ".join(self.ph.name(r) for r in roots)
            return self.ph.into(req)

        parts = conjuncts(node.where)
        hash_values: list[dict] = []
        hash_node: Node | None = None
        for part in parts:
            value = self.key_equality(part, keys.hash_name)
            if value is not None:
                hash_values, hash_node = [value], part
                break
        if hash_node is None:
            for part in parts:
                if (
                    isinstance(part, In)
                    and not part.negated
                    and isinstance(part.value, Path)
                    and not part.value.steps
                    and part.value.name == keys.hash_name
                    and part.items
                ):
                    constants = [self.constant(i) for i in part.items]
                    values = [v for v in constants if v is not None]
                    if len(values) == len(constants):  # every item a constant
                        hash_values, hash_node = values, part
                        break
        if hash_node is None:
            return ReadPlan(
                "Scan", [request(None, [], [node.where] if node.where is not None else [])], shape
            )
        for value in hash_values:
            self.check_key(value, keys.hash_name, keys.hash_type, True)
        rest = [p for p in parts if p is not hash_node]
        ranged = [p for p in rest if keys.range_name is not None and self.range_condition(p, keys.range_name)]
        key_part = ranged if len(ranged) == 1 else []
        rest = [p for p in rest if p not in key_part]
        # a Query's FilterExpression may not name key attributes: those conditions are checked afterwards
        after = [p for p in rest if references(p) & set(keys.names)]
        rest = [p for p in rest if p not in after]
        post = None
        if after:
            self.ph = Placeholders()
            post = self.ph.into({"ConditionExpression": self.join(after)})
            if roots:  # the condition needs what it reads, whatever the statement selects
                roots += sorted(set().union(*map(references, after)) - set(roots))
        unique = {encode_key(v): v for v in hash_values}
        ordered = [unique[k] for k in sorted(unique, reverse=partitions_descending)]
        return ReadPlan("Query", [request(v, key_part, rest) for v in ordered], shape, post)

    def range_condition(self, node: Node, name: str) -> bool:
        def is_key(n: Node) -> bool:
            return isinstance(n, Path) and not n.steps and n.name == name

        def is_value(n: Node) -> bool:
            return isinstance(n, (Lit, Param, Unary)) and self.constant(n) is not None

        if isinstance(node, Binary) and node.op in _FLIPPED:
            return (is_key(node.left) and is_value(node.right)) or (
                is_key(node.right) and is_value(node.left)
            )
        if isinstance(node, Between):
            return not node.negated and is_key(node.value) and is_value(node.low) and is_value(node.high)
        if isinstance(node, Call) and node.name == "begins_with" and len(node.args) == 2:
            return is_key(node.args[0]) and is_value(node.args[1])
        return False

    def key_condition(self, node: Node, keys: Any) -> str:
        name, type_ = keys.range_name, keys.range_type
        placeholder = self.ph.name(name)
        if isinstance(node, Binary):
            op, value_node = node.op, node.right
            if not (isinstance(node.left, Path) and node.left.name == name and not node.left.steps):
                op, value_node = _FLIPPED[node.op], node.left
            value = self.check_key(self.key_constant(value_node), name, type_, False)
            return f"{placeholder} {op} {self.ph.value(value)}"
        if isinstance(node, Between):
            low = self.check_key(self.key_constant(node.low), name, type_, False)
            high = self.check_key(self.key_constant(node.high), name, type_, False)
            return f"{placeholder} BETWEEN {self.ph.value(low)} AND {self.ph.value(high)}"
        assert isinstance(node, Call)  # begins_with: range_condition takes no other node
        prefix = self.key_constant(node.args[1])
        if "N" in prefix:
            raise StatementError(
                "Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"
            )
        prefix = self.check_key(prefix, name, type_, False)
        return f"begins_with({placeholder}, {self.ph.value(prefix)})"

    def key_constant(self, node: Node) -> dict:
        """The value of a key condition's operand, which range_condition found to be a constant."""
        value = self.constant(node)
        assert value is not None
        return value

    def order(self, node: Select, keys: Any) -> tuple[bool, bool]:
        """(ScanIndexForward, partitions in descending order) from ORDER BY."""
        if not node.order:
            return True, False
        if node.where is None:
            raise StatementError("Must have WHERE clause in the statement when using ORDER BY clause.")
        forward, descending = True, False
        for item, desc in node.order:
            if not isinstance(item, Path) or item.steps:
                kind = "PATH" if isinstance(item, Path) else item.tok.text
                raise StatementError(f"Argument to ORDER BY must be of type VariableReference. Type: {kind}")
            if item.name not in keys.names:
                raise StatementError(
                    f"Variable reference {item.name} in ORDER BY clause must be part of the primary key"
                )
            if item.name == keys.range_name:
                forward = not desc
            else:
                descending = desc
        if not _hash_bound(node.where, keys.hash_name):
            raise StatementError(
                "Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause."
            )
        return forward, descending

    def single_select(self, node: Select) -> GetPlan:
        """A batch's or transaction's SELECT: exactly one item by its full primary key."""
        transaction = self.context == "transaction"
        table = self.table(node.table, select=True, index=node.index)
        if node.index is not None:
            if transaction:
                raise StatementError("Reads on indices are not supported within transactions.")
            raise StatementError("Only single item select is supported")
        if node.items is not None:
            for item in node.items:
                if not isinstance(item, Path):
                    raise StatementError(f"Unexpected path component at {item.tok.where}")
        self.where(node.where)
        key, rest = self.full_key(table, node.where, single=False)
        if key is None or rest:
            if transaction:
                raise StatementError(
                    "Select statements within ExecuteTransaction must specify the primary key in the where clause."
                )
            raise StatementError("Only single item select is supported")
        request: dict[str, Any] = {"TableName": table.name, "Key": key}
        if node.items is not None:
            request["ProjectionExpression"] = ", ".join(self.path(item) for item in node.items)
        return GetPlan(self.ph.into(request), table)

    def exists(self, node: Select) -> WritePlan:
        table = self.table(node.table)
        self.where(node.where)
        key, rest = self.full_key(table, node.where) if node.index is None else (None, [])
        if key is None or not rest:
            raise StatementError("EXISTS() must contain a single item read with additional condition")
        condition = f"attribute_exists({self.ph.name(table.keys.hash_name)}) AND ({self.join(rest)})"
        request = {"TableName": table.name, "Key": key, "ConditionExpression": condition}
        return WritePlan("exists", "ConditionCheck", self.ph.into(request), table, key)

    def insert(self, node: Insert) -> WritePlan:
        table = self.table(node.table)
        if not isinstance(node.value, StructLit):
            raise StatementError(
                "Unsupported format in item expression. Please use struct format {...} to express item values for "
                f"insert statement. at {node.value.tok.where}"
            )
        item = self.item(node.value)
        ks = table.keys
        for name, type_, is_hash in (
            (ks.hash_name, ks.hash_type, True),
            (ks.range_name, ks.range_type, False),
        ):
            if name is None:
                continue
            if name not in item:
                raise ItemError(f"Key attribute should be present in the item: Key {name}")
            self.check_key(item[name], name, type_, is_hash)
        request = {
            "TableName": table.name,
            "Item": item,
            "ConditionExpression": f"attribute_not_exists({self.ph.name(ks.hash_name)})",
        }
        return WritePlan("insert", "PutItem", self.ph.into(request), table, table.key_of(item))

    def target(self, node: Update | Delete) -> Any:
        table = self.table(node.table)
        if node.index is not None:
            raise StatementError("This operation is not supported on an index")
        if node.returning is not None and self.context == "transaction":
            raise StatementError("RETURNING clause is not supported in ExecuteTransaction.")
        self.where(node.where)
        return table

    def update(self, node: Update) -> WritePlan:
        # DynamoDB's order: the statement's own errors (WHERE, then the actions' values); the actions' paths,
        # as written, through the overlap tree; a value's unary minus on a non-constant; then the key
        table = self.target(node)
        clauses: dict[str, list[str]] = {"SET": [], "REMOVE": [], "ADD": [], "DELETE": []}
        self.late = []
        for action, path, value in node.actions:
            if action == "remove":
                clauses["REMOVE"].append(self.path(path))
            elif isinstance(value, Call) and value.name in ("set_add", "set_delete"):
                clauses["ADD" if value.name == "set_add" else "DELETE"].append(self.set_function(path, value))
            else:
                clauses["SET"].append(f"{self.path(path)} = {self.update_value(value)}")
        tree = PathTree(None, StatementError)
        for _, path, _ in node.actions:
            tree.add((path.name, *self.steps(path)))
        if self.late:
            raise self.late[0]
        key, rest = self.full_key(table, node.where)
        if key is None:
            raise MissingKey(MISSING_KEY)
        update = " ".join(f"{k} {', '.join(v)}" for k, v in clauses.items() if v)
        condition = f"attribute_exists({self.ph.name(table.keys.hash_name)})"
        if rest:
            condition += f" AND ({self.join(rest)})"
        request: dict[str, Any] = {
            "TableName": table.name,
            "Key": key,
            "UpdateExpression": update,
            "ConditionExpression": condition,
        }
        if node.returning is not None:
            request["ReturnValues"] = _RETURN_VALUES[node.returning]
        return WritePlan("update", "UpdateItem", self.ph.into(request), table, key)

    def set_function(self, path: Path, call: Call) -> str:
        name = call.name.upper()
        first = call.args[0] if call.args else None
        if (
            len(call.args) != 2
            or not isinstance(first, Path)
            or (first.name, self.steps(first)) != (path.name, self.steps(path))
        ):
            raise StatementError(f"The first argument to {name} must equal the assignment value")
        value = self.constant(call.args[1])
        if value is None or next(iter(value)) not in ("SS", "NS", "BS"):
            raise StatementError(
                f"The second argument to {name} must be a value with type SET at {first.tok.where}"
            )
        return f"{self.path(path)} {self.ph.value(value)}"

    def update_value(self, node: Node, top: bool = True) -> str:
        if isinstance(node, Path):
            return self.path(node)
        if isinstance(node, Missing):
            raise StatementError("MISSING must be compared using IS operator")
        if isinstance(node, Binary):
            if node.op not in ("+", "-"):
                raise StatementError(f"Unsupported operator in Update Expression. Operator: {node.op}")
            left, right = self.constant(node.left), self.constant(node.right)
            if left is not None and right is not None and "N" in left and "N" in right:
                a, b = parse_number(left["N"]), parse_number(right["N"])
                exact = DECIMAL_CONTEXT.add(a, b) if node.op == "+" else DECIMAL_CONTEXT.subtract(a, b)
                return self.ph.value({"N": format_number(check_number(exact))})
            text = f"{self.update_value(node.left, False)} {node.op} {self.update_value(node.right, False)}"
            return text if top else f"({text})"
        if isinstance(node, Unary) and node.op == "-" and self.constant(node) is None:
            self.late.append(
                StatementError(
                    "Incorrect number of operands for operator or function; operator or function: -, number of "
                    "operands: 1"
                )
            )
            return "-"
        if isinstance(node, Call):
            if node.name in _UPDATE_FUNCTIONS:
                return f"{node.name}({', '.join(self.update_value(a, False) for a in node.args)})"
            if node.name in CONDITION_FUNCTIONS or node.name == "size":
                raise StatementError(
                    f"The function is not allowed in an update expression; function: {node.name}"
                )
            raise StatementError(f"Unrecognized function: {node.name}")
        value = self.constant(node)
        if value is None:
            op = node.op if isinstance(node, (Binary, Unary)) else node.tok.text
            raise StatementError(f"Unsupported operator in Update Expression. Operator: {op}")
        return self.ph.value(value)

    def delete(self, node: Delete) -> WritePlan:
        if node.returning is not None and node.returning != ("ALL", "OLD") and self.context != "transaction":
            raise StatementError(
                f"Invalid returning clause: RETURNING {' '.join(node.returning)} *. Only RETURNING ALL OLD * is "
                "allowed in DELETE statements."
            )
        table = self.target(node)
        key, rest = self.full_key(table, node.where)
        if key is None:
            raise MissingKey(MISSING_KEY)
        request: dict[str, Any] = {"TableName": table.name, "Key": key}
        if rest:  # deleting an item that is not there succeeds, whatever the condition
            hash_name = self.ph.name(table.keys.hash_name)
            request["ConditionExpression"] = f"attribute_not_exists({hash_name}) OR ({self.join(rest)})"
        if node.returning is not None:
            request["ReturnValues"] = "ALL_OLD"
        return WritePlan("delete", "DeleteItem", self.ph.into(request), table, key)


def _hash_bound(node: Node | None, name: str) -> bool:
    """Whether every item the WHERE clause selects has a given partition key (DynamoDB's ORDER BY rule)."""
    if isinstance(node, Binary) and node.op == "and":
        return _hash_bound(node.left, name) or _hash_bound(node.right, name)
    if isinstance(node, Binary) and node.op == "or":
        return _hash_bound(node.left, name) and _hash_bound(node.right, name)
    if isinstance(node, Binary) and node.op == "=":
        return any(isinstance(n, Path) and not n.steps and n.name == name for n in (node.left, node.right))
    if isinstance(node, In) and not node.negated:
        return isinstance(node.value, Path) and not node.value.steps and node.value.name == name
    return False
