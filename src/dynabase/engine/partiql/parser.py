"""PartiQL statements parsed into a small AST.

A recursive-descent parser for statements and a precedence climber for expressions, with PartiQL's operator
groups (OR < AND < NOT < = <> IS IN < comparisons BETWEEN LIKE < + - || < * / %). Text that does not parse is
:class:`Malformed`; constructs that parse but DynamoDB rejects are reported after the whole statement parsed, in
DynamoDB's words, as DynamoDB Local does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NoReturn

from ...errors import ValidationException
from ...expressions import deep
from .lexer import FUNCTION_KEYWORDS, Token, malformed, tokenize

IN_OPERANDS = (
    "IN operator must have a left hand argument of type Variable Reference and right hand argument of type Seq "
    "with at least one member"
)

_PRECEDENCE = {
    "or": 10,
    "and": 20,
    "=": 40,
    "<>": 40,
    "is": 40,
    "in": 40,
    "not in": 40,
    "<": 50,
    "<=": 50,
    ">": 50,
    ">=": 50,
    "between": 50,
    "not between": 50,
    "like": 50,
    "not like": 50,
    "+": 60,
    "-": 60,
    "||": 60,
    "*": 70,
    "/": 70,
    "%": 70,
}
_NOT_PRECEDENCE = 30


class Unsupported(ValidationException):
    """A statement kind DynamoDB does not run (``Unsupported operation: ...``)."""


# -- the AST ------------------------------------------------------------------------------------------------


@dataclass(eq=False)
class Node:
    tok: Token  # the token DynamoDB's messages point at (an operator's own token, a path's first name)


@dataclass(eq=False)
class Lit(Node):
    type: str  # S N BOOL NULL
    value: Any


@dataclass(eq=False)
class Missing(Node):
    pass


@dataclass(eq=False)
class Param(Node):
    index: int


@dataclass(eq=False)
class Path(Node):
    name: str
    steps: list = field(default_factory=list)  # str: map key, int: list index, Param: bound later


@dataclass(eq=False)
class ListLit(Node):
    items: list


@dataclass(eq=False)
class BagLit(Node):
    items: list


@dataclass(eq=False)
class StructLit(Node):
    pairs: list  # [(key node, value node)]


@dataclass(eq=False)
class Unary(Node):
    op: str  # not - +
    operand: Node


@dataclass(eq=False)
class Binary(Node):
    op: str
    left: Node
    right: Node


@dataclass(eq=False)
class Between(Node):
    value: Node
    low: Node
    high: Node
    negated: bool


@dataclass(eq=False)
class In(Node):
    value: Node
    items: list | None  # None: the right-hand side is not a sequence
    negated: bool


@dataclass(eq=False)
class Is(Node):
    value: Node
    what: str  # missing null
    negated: bool


@dataclass(eq=False)
class Call(Node):
    name: str  # lower-cased
    args: list


@dataclass(eq=False)
class Star(Node):
    pass


@dataclass(eq=False)
class Subquery(Node):
    select: Select


@dataclass(eq=False)
class Select(Node):
    items: list | None  # None: SELECT *
    table: str
    index: str | None
    where: Node | None
    order: list  # [(node, descending)]


@dataclass(eq=False)
class Insert(Node):
    table: str
    index: str | None
    value: Node


@dataclass(eq=False)
class Update(Node):
    table: str
    index: str | None
    actions: list  # [("set", Path, Node) | ("remove", Path, None)]
    where: Node | None
    returning: tuple[str, str] | None  # (ALL|MODIFIED, OLD|NEW)


@dataclass(eq=False)
class Delete(Node):
    table: str
    index: str | None
    where: Node | None
    returning: tuple[str, str] | None


@dataclass(eq=False)
class ExprStatement(Node):
    expr: Node


@dataclass
class Parsed:
    statement: Node
    parameters: int  # how many ``?`` the statement holds
    nesting: int = 0  # a bound on the tree's depth, for :func:`dynabase.expressions.deep.call`


# -- the parser ---------------------------------------------------------------------------------------------


def parse(statement: str) -> Parsed:
    """Parse one statement; raise :class:`Malformed` or DynamoDB's ValidationException."""
    parser = _Parser(statement)
    level = nesting(parser.tokens)
    parsed = parser.parse()
    parsed.nesting = level
    return parsed


_OPENING = frozenset({"(", "[", "{", "<<"})
_CLOSING = frozenset({")", "]", "}", ">>"})
_CHAINED = frozenset({"not", "and", "or", "-", "+", "||", "*", "/", "%"})


def nesting(tokens: list[Token]) -> int:
    """An upper bound on a statement's tree depth, counted without recursion: brackets plus chained operators."""
    depth = deepest = chained = 0
    for tok in tokens:
        value = tok.value
        if tok.kind == "op" and value in _OPENING:
            depth += 1
            if depth > deepest:
                deepest = depth
        elif tok.kind == "op" and value in _CLOSING:
            depth -= 1
        elif value in _CHAINED and tok.kind in ("op", "kw"):
            chained += 1
    return deepest + chained + 2


class _Parser:
    def __init__(self, statement: str) -> None:
        self.statement = statement
        self.tokens = tokenize(statement)
        self.i = 0
        self.params = 0
        self.problems: list[ValidationException] = []

    # -- token helpers

    def peek(self, k: int = 0) -> Token:
        return self.tokens[min(self.i + k, len(self.tokens) - 1)]

    def take(self) -> Token:
        tok = self.peek()
        if tok.kind != "eof":
            self.i += 1
        return tok

    def kw(self, *words: str, k: int = 0) -> bool:
        tok = self.peek(k)
        return tok.kind == "kw" and tok.value in words

    def op(self, *ops: str, k: int = 0) -> bool:
        tok = self.peek(k)
        return tok.kind == "op" and tok.value in ops

    def expect_kw(self, word: str) -> Token:
        if not self.kw(word):
            self.fail()
        return self.take()

    def expect_op(self, op: str) -> Token:
        if not self.op(op):
            self.fail()
        return self.take()

    def fail(self) -> NoReturn:  # raises Malformed
        raise malformed(self.statement)

    def defer(self, message: str, error: type[ValidationException] = ValidationException) -> None:
        self.problems.append(error(message))

    # -- statements

    def parse(self) -> Parsed:
        tok = self.peek()
        if self.kw("select"):
            stmt: Node = self.select()
        elif self.op("(") and self.kw("select", k=1):
            self.take()
            stmt = self.select()
            self.expect_op(")")
        elif self.kw("insert"):
            stmt = self.insert()
        elif self.kw("update"):
            stmt = self.update()
        elif self.kw("delete"):
            stmt = self.delete()
        elif self.kw("create", "drop") and self.kw("table", "index", k=1):
            kind = self.take().value.capitalize() + self.take().value.capitalize()
            raise Unsupported(f"Unsupported operation: {kind}")
        elif self.kw("exec", "execute"):
            raise Unsupported("Unsupported operation: Exec")
        else:
            stmt = ExprStatement(tok, self.expr())
        if self.op(";"):
            self.take()
        if self.peek().kind != "eof":
            self.fail()
        if self.problems:
            raise self.problems[0]
        return Parsed(stmt, self.params)

    def select(self) -> Select:
        return deep.run(self._select())

    def _select(self) -> deep.Recursive[Select]:
        """A generator, as the expressions: a sub-query is a call inside an expression."""
        tok = self.expect_kw("select")
        if self.kw("distinct", "all") and self.take().value == "distinct":
            self.defer("Unsupported token in expression: DISTINCT")
        items: list | None
        if self.kw("value", "pivot"):
            self.take()
            self.defer("Select projection doesn't support value or pivot keywords")
            items = [(yield self._expr())]
        elif self.op("*"):
            self.take()
            items = None
        else:
            items = [(yield self._projection_item())]
            while self.op(","):
                self.take()
                items.append((yield self._projection_item()))
        self.expect_kw("from")
        table, index = yield self._source()
        if self.op(","):
            self.take()
            yield self._source()
            self.defer("Only select from a single table or index is supported.")
        where = None
        if self.kw("where"):
            self.take()
            where = yield self._expr()
        if self.kw("group"):
            self.take()
            self.expect_kw("by")
            yield self._expr_list()
            self.defer("Unsupported clause: GROUP BY")
        if self.kw("having"):
            self.take()
            yield self._expr()
            self.defer("Unsupported clause: HAVING")
        order = []
        if self.kw("order"):
            self.take()
            self.expect_kw("by")
            while True:
                node = yield self._expr()
                descending = False
                if self.kw("asc", "desc"):
                    descending = self.take().value == "desc"
                order.append((node, descending))
                if not self.op(","):
                    break
                self.take()
        if self.kw("limit"):
            self.take()
            limit = yield self._expr()
            self.defer(f"Unsupported clause: LIMIT at {limit.tok.where}")
            if self.kw("offset"):
                self.take()
                offset = yield self._expr()
                self.defer(f"Unsupported clause: OFFSET at {offset.tok.where}")
        return Select(tok, items, table or "", index, where, order)

    def _projection_item(self) -> deep.Recursive[Node]:
        node = yield self._expr()
        if self.kw("as") or self.peek().kind in ("id", "qid"):
            if self.kw("as"):
                self.take()
            self.name()
            self.defer("Aliasing is not supported")
        return node

    def name(self) -> Token:
        if self.peek().kind not in ("id", "qid"):
            self.fail()
        return self.take()

    def _source(self) -> deep.Recursive[tuple[str | None, str | None]]:
        """``table`` or ``table.index`` after FROM (aliases and sub-queries parse, DynamoDB rejects them)."""
        if self.op("("):
            self.take()
            if self.kw("select"):
                yield self._select()
            else:
                yield self._expr()
            self.expect_op(")")
            self.defer("Unexpected from source")
            return None, None
        names = [self.name().value]
        while self.op("."):
            self.take()
            names.append(self.name().value)
        if len(names) > 2:
            self.defer("A path may contain at most 2 components in the FROM clause")
        if self.kw("as") or self.peek().kind in ("id", "qid"):
            if self.kw("as"):
                self.take()
            self.name()
            self.defer("Aliasing is not supported")
        return names[0], names[1] if len(names) > 1 else None

    def target(self) -> tuple[str, str | None]:
        names = [self.name().value]
        while self.op("."):
            self.take()
            names.append(self.name().value)
        if len(names) > 2:
            self.defer("A path may contain at most 2 components in the FROM clause")
        return names[0], names[1] if len(names) > 1 else None

    def insert(self) -> Insert:
        tok = self.expect_kw("insert")
        self.expect_kw("into")
        table, index = self.target()
        if index is not None:
            self.defer("FROM clause may only contain a single table name in data manipulation statements")
        self.expect_kw("value")
        value = self.expr()
        if self.returning() is not None:
            self.defer("RETURNING is not supported in INSERT")
        return Insert(tok, table, index, value)

    def update(self) -> Update:
        tok = self.expect_kw("update")
        table, index = self.target()
        actions: list = []
        while self.kw("set", "remove"):
            if self.take().value == "remove":
                actions.append(("remove", self.path(), None))
                continue
            while True:
                path = self.path()
                self.expect_op("=")
                actions.append(("set", path, self.expr()))
                if not self.op(","):
                    break
                self.take()
        if not actions:
            self.fail()
        where = None
        if self.kw("where"):
            self.take()
            where = self.expr()
        return Update(tok, table, index, actions, where, self.returning())

    def delete(self) -> Delete:
        tok = self.expect_kw("delete")
        self.expect_kw("from")
        table, index = self.target()
        where = None
        if self.kw("where"):
            self.take()
            where = self.expr()
        return Delete(tok, table, index, where, self.returning())

    def returning(self) -> tuple[str, str] | None:
        if not self.kw("returning"):
            return None
        self.take()
        if not self.kw("modified", "all"):
            self.fail()
        which = self.take().value.upper()
        if not self.kw("new", "old"):
            self.fail()
        version = self.take().value.upper()
        if self.op("*"):
            self.take()
        else:
            self.expr_list()
            self.defer("Expected '*' after ( MODIFIED | ALL ) ( NEW | OLD ) in RETURNING clause")
        return which, version

    def path(self) -> Path:
        node = deep.run(self._postfix_primary())
        if not isinstance(node, Path):
            self.fail()
        return node

    # -- expressions: generators run by deep.run, so that no Python stack grows with the nesting

    def expr(self, min_precedence: int = 0) -> Node:
        return deep.run(self._expr(min_precedence))

    def expr_list(self) -> list[Node]:
        return deep.run(self._expr_list())

    def _expr_list(self) -> deep.Recursive[list[Node]]:
        nodes = [(yield self._expr())]
        while self.op(","):
            self.take()
            nodes.append((yield self._expr()))
        return nodes

    def infix(self) -> tuple[str | None, int]:
        tok = self.peek()
        if tok.kind == "op" and tok.value in _PRECEDENCE:
            return tok.value, 1
        if tok.kind == "kw":
            if tok.value in ("or", "and", "is", "in", "between", "like"):
                return tok.value, 1
            if tok.value == "not" and self.kw("in", "between", "like", k=1):
                return "not " + self.peek(1).value, 2
        return None, 0

    def _expr(self, min_precedence: int = 0) -> deep.Recursive[Node]:
        left = yield self._prefix()
        while True:
            op, width = self.infix()
            if op is None or _PRECEDENCE[op] <= min_precedence:
                return left
            tok = self.peek(width - 1)
            self.i += width
            negated = op.startswith("not ")
            if op == "is":
                negated = self.kw("not")
                if negated:
                    self.take()
                if not self.kw("missing", "null"):
                    self.fail()
                left = Is(tok, left, self.take().value, negated)
            elif op in ("in", "not in"):
                left = In(tok, left, (yield self._in_items()), negated)
            elif op in ("between", "not between"):
                low = yield self._expr(_PRECEDENCE["between"])
                self.expect_kw("and")
                high = yield self._expr(_PRECEDENCE["between"])
                left = Between(tok, left, low, high, negated)
            elif op in ("like", "not like"):
                right = yield self._expr(_PRECEDENCE["like"])
                if self.kw("escape"):
                    self.take()
                    yield self._expr(_PRECEDENCE["like"])
                left = Binary(tok, "like", left, right)
            else:
                left = Binary(tok, op, left, (yield self._expr(_PRECEDENCE[op])))

    def _in_items(self) -> deep.Recursive[list | None]:
        if self.op("[", "<<"):
            items = (yield self._primary()).items  # at [ or <<: a ListLit or BagLit
        elif self.op("(") and not self.kw("select", k=1):
            self.take()
            items = yield self._expr_list()
            self.expect_op(")")
        else:
            yield self._expr(_PRECEDENCE["in"])
            items = None
        if not items:
            self.defer(IN_OPERANDS)
        return items

    def _prefix(self) -> deep.Recursive[Node]:
        tok = self.peek()
        if self.kw("not"):
            self.take()
            return Unary(tok, "not", (yield self._expr(_NOT_PRECEDENCE)))
        if self.op("-", "+"):
            self.take()
            return Unary(tok, tok.value, (yield self._prefix_operand()))
        return (yield self._postfix_primary())

    def _prefix_operand(self) -> deep.Recursive[Node]:
        tok = self.peek()
        if self.op("-", "+"):
            self.take()
            return Unary(tok, tok.value, (yield self._prefix_operand()))
        return (yield self._postfix_primary())

    def _postfix_primary(self) -> deep.Recursive[Node]:
        return (yield self._postfix((yield self._primary())))

    def _primary(self) -> deep.Recursive[Node]:
        tok = self.take()
        kind, value = tok.kind, tok.value
        if kind == "num":
            return Lit(tok, "N", value)
        if kind == "str":
            return Lit(tok, "S", value)
        if kind == "param":
            self.params += 1
            return Param(tok, self.params - 1)
        if kind == "qid":
            return Path(tok, value)
        if kind == "id":
            if self.op("("):
                return Call(tok, value.lower(), (yield self._args()))
            return Path(tok, value)
        if kind == "kw":
            if value == "select":  # a sub-query: EXISTS(SELECT ...), or one DynamoDB rejects
                self.i -= 1
                return Subquery(tok, (yield self._select()))
            if value in ("true", "false"):
                return Lit(tok, "BOOL", value == "true")
            if value == "null":
                return Lit(tok, "NULL", True)
            if value == "missing":
                return Missing(tok)
            if value in FUNCTION_KEYWORDS and self.op("("):
                return Call(tok, value, (yield self._args()))
            self.fail()
        if kind == "op":
            if value == "(":
                node = yield self._expr()
                self.expect_op(")")
                return node
            if value in ("[", "<<"):
                close = "]" if value == "[" else ">>"
                items = []
                if not self.op(close):
                    items = yield self._expr_list()
                self.expect_op(close)
                return ListLit(tok, items) if value == "[" else BagLit(tok, items)
            if value == "{":
                pairs: list[tuple[Node, Node]] = []
                while not self.op("}"):
                    if pairs:
                        self.expect_op(",")
                    key = yield self._expr()
                    self.expect_op(":")
                    pairs.append((key, (yield self._expr())))
                self.take()
                return StructLit(tok, pairs)
        self.fail()

    def _args(self) -> deep.Recursive[list[Node]]:
        self.expect_op("(")
        args: list[Node] = []
        if self.op("*"):
            args.append(Star(self.take()))
        elif not self.op(")"):
            args = yield self._expr_list()
        self.expect_op(")")
        return args

    def _postfix(self, node: Node) -> deep.Recursive[Node]:
        while self.op(".", "["):
            if not isinstance(node, Path):
                self.fail()
            if self.take().value == ".":
                step = self.take()
                if step.kind in ("id", "qid", "kw"):
                    node.steps.append(step.value if step.kind == "qid" else step.text)
                elif step.kind == "op" and step.value == "*":
                    self.defer(f"Unpivot path component like a.*.b are not supported at {step.where}")
                else:
                    self.fail()
                continue
            if self.op("*"):
                star = self.take()
                self.defer(f"Wildcard path component like a[*].b are not supported at {star.where}")
                self.expect_op("]")
                continue
            index = yield self._expr()
            self.expect_op("]")
            node.steps.append(self.step(index))
        return node

    def step(self, index: Node) -> Any:
        if isinstance(index, Lit) and index.type == "N":
            if not index.value.isdigit():
                self.fail()
            return int(index.value)
        if isinstance(index, Unary) and index.op == "-" and isinstance(index.operand, Lit):
            number = index.operand
            self.defer(
                f"List index is not within the allowable range; index: [-{number.value}] at {number.tok.where}"
            )
            return 0
        if isinstance(index, Lit) and index.type == "S":
            return index.value
        if isinstance(index, Path) and not index.steps:
            return index.name
        if isinstance(index, Param):
            return index
        self.fail()
