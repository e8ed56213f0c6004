"""PartiQL expressions as DynamoDB expression text: literals to AttributeValues, paths to ``#pN`` names,
WHERE clauses to condition expressions, with DynamoDB's own messages for what it does not accept."""

from __future__ import annotations

from dataclasses import fields
from decimal import Decimal
from typing import Any

from ...errors import ValidationException
from ...expressions import deep
from ...types import MAX_NESTING, NESTING, format_number, parse_number
from .parser import (
    IN_OPERANDS,
    BagLit,
    Between,
    Binary,
    Call,
    In,
    Is,
    ListLit,
    Lit,
    Missing,
    Node,
    Param,
    Path,
    Star,
    StructLit,
    Subquery,
    Unary,
)

COMPARISONS = ("=", "<>", "<", "<=", ">", ">=")
_ARITHMETIC = ("+", "-", "*", "/", "%", "||")
CONDITION_FUNCTIONS = (
    "begins_with",
    "contains",
    "attribute_type",
    "attribute_exists",
    "attribute_not_exists",
)
_ION_TYPES = (
    "{HDS,BOOL,INTSET,B,DECIMAL,INT,FS,L,S,N,DOUBLESET,M,DOUBLE,BS,NULL,DECIMALSET,HD,DICT,SS,NS,FLOAT}"
)
_KIND_NAMES = {
    Lit: "Literal",
    Missing: "LiteralMissing",
    ListLit: "Seq",
    BagLit: "Seq",
    StructLit: "Struct",
    Param: "Parameter",
    Is: "Typed",
}


class StatementError(ValidationException):
    """A statement DynamoDB rejects before running it (in a transaction: ``Validation failed in ...``)."""


def statement_kind(node: Node) -> str | None:
    """DynamoDB's name for a bare expression used as a statement (``Unsupported operation: <name>``)."""
    if isinstance(node, Path):
        return "Path" if node.steps else "VariableReference"
    return _KIND_NAMES.get(type(node))


class Placeholders:
    """``#pN`` names and ``:pN`` values of one request."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.values: dict[str, dict] = {}
        self._by_name: dict[str, str] = {}

    def name(self, name: str) -> str:
        if name not in self._by_name:
            self._by_name[name] = f"#p{len(self._by_name)}"
            self.names[self._by_name[name]] = name
        return self._by_name[name]

    def value(self, value: dict) -> str:
        placeholder = f":p{len(self.values)}"
        self.values[placeholder] = value
        return placeholder

    def into(self, request: dict) -> dict:
        if self.names:
            request["ExpressionAttributeNames"] = dict(self.names)
        if self.values:
            request["ExpressionAttributeValues"] = dict(self.values)
        return request


def conjuncts(node: Node | None) -> list[Node]:
    """The operands of a chain of ANDs, left to right (the node itself when it is not an AND)."""
    found: list[Node] = []
    pending = [node] if node is not None else []
    while pending:  # without recursion: the chain may be as long as a statement's 8 KB allow
        node = pending.pop()
        if isinstance(node, Binary) and node.op == "and":
            pending += (node.right, node.left)
        else:
            found.append(node)
    return found


def references(node: Any) -> set[str]:
    """The attribute names (first path steps) an expression reads (found without recursion)."""
    names: set[str] = set()
    pending = [node]
    while pending:
        node = pending.pop()
        if isinstance(node, Path):
            names.add(node.name)
        elif isinstance(node, Node):
            pending += (getattr(node, f.name) for f in fields(node) if f.name != "tok")
        elif isinstance(node, (list, tuple)):
            pending += node
    return names


def is_condition(node: Node) -> bool:
    """Whether a node is a boolean expression (a comparison, AND/OR/NOT, a predicate function...)."""
    if isinstance(node, Binary):
        return node.op in COMPARISONS or node.op in ("and", "or", "like")
    if isinstance(node, Unary):
        return node.op == "not"
    if isinstance(node, Call):
        return node.name != "size"
    return isinstance(node, (Between, In, Is))


def _under(path: tuple) -> str:
    """Where a literal sits, as DynamoDB's messages put it (an INSERT's own attribute names are left out)."""
    return "key " + ".".join(["root", *path[1:]])


def _kind(node: Node) -> str:
    """PartiQL's AST name of a node, as DynamoDB's messages quote it."""
    if isinstance(node, Lit):
        if node.type == "N":
            return "DECIMAL" if "." in node.value else "FLOAT" if "e" in node.value.lower() else "INT"
        return {"S": "STRING", "BOOL": "BOOL", "NULL": "NULL"}[node.type]
    return statement_kind(node) or node.tok.text


class Expressions:
    """Translation of expressions for one statement: its parameters and its request's placeholders."""

    def __init__(self, parameters: list) -> None:
        self.parameters = parameters
        self.ph = Placeholders()
        self.literal_depth = 0  # the list and map literals being built around the current one

    def constant(self, node: Node, path: tuple = ()) -> dict | None:
        """The AttributeValue of a literal (None when the node is not one); ``path`` locates it in messages."""
        if isinstance(node, Lit):
            if node.type == "N":
                return {"N": format_number(parse_number(node.value))}
            return {node.type: node.value}
        if isinstance(node, Param):
            return self.parameters[node.index]
        if isinstance(node, Unary) and node.op in "+-" and isinstance(node.operand, (Lit, Unary, Param)):
            signs = []  # a chain of signs (an 8 KB statement holds thousands): walked, not recursed into
            while (
                isinstance(node, Unary) and node.op in "+-" and isinstance(node.operand, (Lit, Unary, Param))
            ):
                signs.append(node)
                node = node.operand
            value = self.constant(node, path)
            for sign in reversed(signs):  # from the innermost out
                if value is None or "N" not in value:
                    return None
                if sign.op == "-":
                    number = sign.operand
                    if isinstance(number, Lit) and "." in number.value and Decimal(number.value) == 0:
                        raise StatementError(
                            f"Negative zero decimal is not supported under {_under(path)} at {number.tok.where}"
                        )
                    value = {"N": format_number(parse_number(value["N"]).copy_negate())}  # exact: no context
            return value
        if isinstance(node, (ListLit, StructLit)):
            self.literal_depth += 1
            try:
                if self.literal_depth >= MAX_NESTING:  # checked before building deeper, as DynamoDB does
                    raise ValidationException(NESTING)
                return self.document(node, path)
            finally:
                self.literal_depth -= 1
        if isinstance(node, BagLit):
            return self.bag(node)
        return None

    def document(self, node: ListLit | StructLit, path: tuple) -> dict:
        """A list or map literal's AttributeValue."""
        if isinstance(node, ListLit):
            return {"L": [self.value(item, (*path, str(i))) for i, item in enumerate(node.items)]}
        out: dict[str, dict] = {}
        for key, value in node.pairs:
            name = self.constant(key) if isinstance(key, (Lit, Param)) else None
            if name is None or "S" not in name:
                raise StatementError(
                    f"Tuple keys must be of type String. Actual type: {_kind(key)} under root at {key.tok.where}"
                )
            if name["S"] in out:
                at = node.tok if path else key.tok
                raise StatementError(f"Duplicate keys in tuple. Key: {name['S']} under root at {at.where}")
            out[name["S"]] = self.value(value, (*path, name["S"]))
        return {"M": out}

    def value(self, node: Node, path: tuple = ()) -> dict:
        """A literal that must be constant: the item of an INSERT, inside list and map literals."""
        value = None if isinstance(node, Missing) else self.constant(node, path)
        if value is None:
            # an INSERT's attributes are at "root": the item's own keys are not part of the path
            kind = node.tok.text if len(path) <= 1 else _kind(node)
            raise StatementError(f"Unsupported data type: {kind} under {_under(path)} at {node.tok.where}")
        return value

    def item(self, node: StructLit) -> dict:
        """An INSERT's item: the attribute names are not part of the paths in messages."""
        self.literal_depth = -1  # the item's own map is not a nesting level of its attributes
        try:
            return self.constant(node, ())["M"]  # type: ignore[index]
        finally:
            self.literal_depth = 0

    def bag(self, node: BagLit) -> dict:
        if not node.items:
            raise StatementError(f"Empty bags are not supported at {node.tok.where}")
        kind, members = None, []
        for item in node.items:
            value = self.constant(item)
            item_kind = next(iter(value)) if value else None
            if item_kind not in ("S", "N") or kind not in (None, item_kind):
                at = "" if kind == "N" else f" at {item.tok.where}"
                raise StatementError(
                    f"Unsupported data type in Bag. DynamoDB only supports either numbers or strings in bags{at}"
                )
            kind = item_kind
            members.append(value[item_kind])  # type: ignore[index]
        canonical = [parse_number(m) for m in members] if kind == "N" else members
        if len(set(canonical)) != len(canonical):
            raise StatementError("Input collection contains duplicates")
        return {kind + "S": members}  # type: ignore[operator]

    # -- conditions

    def path(self, node: Path) -> str:
        text = self.ph.name(node.name)
        for step in self.steps(node):
            text += f"[{step}]" if isinstance(step, int) else "." + self.ph.name(step)
        return text

    def steps(self, node: Path) -> list:
        steps = []
        for step in node.steps:
            if isinstance(step, Param):
                value = self.parameters[step.index]
                step = int(value["N"]) if "N" in value else value.get("S", "")
            steps.append(step)
        return steps

    def operand(self, node: Node) -> str:
        if isinstance(node, Path):
            return self.path(node)
        if isinstance(node, Missing):
            raise StatementError("MISSING must be compared using IS operator")
        if isinstance(node, Subquery):
            raise StatementError(f"Unsupported token in expression: SELECT at {node.select.tok.where}")
        if isinstance(node, Binary) and node.op in _ARITHMETIC:
            raise StatementError(f"Unsupported operator in Condition Expression. Operator: {node.op}")
        if isinstance(node, Call):
            return self.call(node)
        value = self.constant(node)
        if value is None:
            op = node.op if isinstance(node, (Binary, Unary)) else node.tok.text
            raise StatementError(f"Unsupported operator in Condition Expression. Operator: {op}")
        return self.ph.value(value)

    def call(self, node: Call) -> str:
        args = []
        for i, arg in enumerate(node.args):
            if isinstance(arg, Star):
                raise StatementError(f"Unsupported token in expression: * at {arg.tok.where}")
            if node.name == "attribute_type" and i == 1 and not isinstance(arg, (Lit, Param)):
                raise StatementError(
                    "Incorrect operand type for operator or function; operator or function: attribute_type, "
                    f"operand type: {_ION_TYPES}"
                )
            args.append(self.operand(arg))
        if node.name not in CONDITION_FUNCTIONS and node.name != "size":
            raise StatementError(f"Unrecognized function: {node.name}")
        return f"{node.name}({', '.join(args)})"

    def condition(self, node: Node) -> str:
        """Condition-expression text of a boolean PartiQL expression."""
        return deep.run(self._condition(node))

    def _condition(self, node: Node) -> deep.Recursive[str]:
        if isinstance(node, Binary) and node.op in ("and", "or"):
            if not (is_condition(node.left) and is_condition(node.right)):
                raise StatementError("The arguments to AND/OR must be Expressions")
            left = yield self._condition(node.left)
            return f"({left}) {node.op.upper()} ({(yield self._condition(node.right))})"
        if isinstance(node, Unary) and node.op == "not":
            if not is_condition(node.operand):
                raise StatementError("The argument to NOT must be a Type or Expression")
            return f"NOT ({(yield self._condition(node.operand))})"
        if isinstance(node, Binary) and node.op == "like":
            raise StatementError("Unsupported operator in Condition Expression. Operator: like")
        if isinstance(node, Binary):
            return f"{self.operand(node.left)} {node.op} {self.operand(node.right)}"
        if isinstance(node, Between):
            text = (
                f"{self.operand(node.value)} BETWEEN {self.operand(node.low)} AND {self.operand(node.high)}"
            )
            return f"NOT ({text})" if node.negated else text
        if isinstance(node, In):
            if not node.items or not isinstance(node.value, (Path, Call)):
                raise StatementError(IN_OPERANDS)
            text = f"{self.operand(node.value)} IN ({', '.join(self.operand(i) for i in node.items)})"
            return f"NOT ({text})" if node.negated else text
        if isinstance(node, Is):
            target = self.operand(node.value)
            if node.what == "missing":
                return f"attribute_exists({target})" if node.negated else f"attribute_not_exists({target})"
            text = f"attribute_type({target}, {self.ph.value({'S': 'NULL'})})"
            return f"NOT {text}" if node.negated else text
        if isinstance(node, Call):
            return self.call(node)
        raise StatementError("WHERE clause must contain an expression that resolves to a boolean")

    def where(self, node: Node | None) -> None:
        """Validate a WHERE clause (its translation is thrown away)."""
        if node is None:
            return
        if not is_condition(node):
            raise StatementError("WHERE clause must contain an expression that resolves to a boolean")
        saved, self.ph = self.ph, Placeholders()
        try:
            self.condition(node)
        finally:
            self.ph = saved

    def join(self, nodes: list[Node]) -> str | None:
        if not nodes:
            return None
        if len(nodes) == 1:
            return self.condition(nodes[0])
        return " AND ".join(f"({self.condition(n)})" for n in nodes)
