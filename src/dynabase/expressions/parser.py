"""Parse condition, update and projection expressions into :mod:`.ast` trees.

DynamoDB parses expressions with an ANTLR grammar, and its errors show it: a syntax error names the first token
that cannot continue the expression and the text from the token before it to the token after it, and a
redundant pair of parentheses (``((a))``) is reported as soon as the parser leaves it, even when a syntax error
follows. To report the same thing for every input, this parser predicts like ANTLR: where alternatives share a
prefix (``(`` starting a grouped condition or a parenthesised operand, a function call that may be a condition
or an operand) it first recognises each alternative side-effect free (:class:`_Recognizer`) to see how far each
one can go, takes the one that goes furthest, and reports a syntax error before entering any alternative when
they all stop at the same token. The grammar::

    condition  := operand comparator operand | operand IN ( operand {, operand} ) | operand BETWEEN operand AND
                  operand | function | ( condition ) | NOT condition | condition AND condition | condition OR
                  condition                        (precedence: NOT, then AND, then OR)
    operand    := path | :value | function | ( operand )
    function   := ID ( operand {, operand} )
    path       := (ID | #name) {. (ID | #name) | [ INDEX ]}
    update     := {SET action {, action} | REMOVE path {, path} | ADD path :value {, ...} | DELETE path :value {, ...}}+
    action     := path = arithmetic
    arithmetic := operand + operand | operand - operand | ( arithmetic ) | operand
    projection := path {, path}
"""

from __future__ import annotations

from types import GeneratorType

from ..errors import ValidationException
from . import ast, deep
from .lexer import COMPARATORS, Token, from_utf16, tokenize, utf16

MAX_EXPRESSION_SIZE = 4096
MAX_LIST_INDEX = 2**31 - 1

_INF = float("inf")
_FOLLOW_CONDITION = frozenset({"AND", "OR", ")", "EOF"})
_FOLLOW_ARITHMETIC = frozenset({",", ")", "SET", "REMOVE", "ADD", "DELETE", "EOF"})
_SECTIONS = ("SET", "REMOVE", "ADD", "DELETE")


class _Redundant(Exception):
    pass


def check_text(text: str, kind: str) -> str:
    """Validate an expression's size; return it as UTF-16 units."""
    if not isinstance(text, str):
        raise ValidationException(f"Invalid {kind}: The expression can not be empty;")
    units = utf16(text)
    if not units:
        raise ValidationException(f"Invalid {kind}: The expression can not be empty;")
    if len(units) > MAX_EXPRESSION_SIZE:
        suffix = (
            "" if kind in ("UpdateExpression", "ProjectionExpression") else f" expression size: {len(units)}"
        )
        raise ValidationException(
            f"Invalid {kind}: Expression size has exceeded the maximum allowed size;{suffix}"
        )
    return units


def parse_condition(text: str, kind: str = "ConditionExpression") -> tuple[ast.Condition, int]:
    """The tree of a condition, filter or key-condition expression and its nesting level (:func:`.deep.nesting`)."""
    return _Parser(check_text(text, kind), kind).run(_Parser.condition_expression)


def parse_update(text: str) -> tuple[ast.UpdateExpression, int]:
    """The tree of an update expression and its nesting level."""
    return _Parser(check_text(text, "UpdateExpression"), "UpdateExpression").run(_Parser.update_expression)


def parse_projection(text: str) -> ast.ProjectionExpression:
    kind = "ProjectionExpression"
    return _Parser(check_text(text, kind), kind).run(_Parser.projection_expression)[0]


class _Parser:
    def __init__(self, text: str, kind: str) -> None:
        self.text = text
        self.kind = kind
        self.tokens: list[Token] = tokenize(text)
        self.kinds = [t.kind for t in self.tokens]
        self.pos = 0
        self.big_index: str | None = None  # the first list index out of range, reported after parsing
        self.recognizer = _Recognizer(self.kinds)

    def run(self, rule) -> tuple:
        """``(tree, nesting)``: the rule's tree. The recursive rules are generators run by :func:`.deep.run`, and
        a deep expression's recognition is memoised from its last token back, so no stack grows with its
        nesting."""
        level = deep.nesting(self.kinds)
        try:
            if level > deep.SHALLOW:
                self.recognizer.memoise_backwards(self.kind == "UpdateExpression")
            tree = rule(self)
            if isinstance(tree, GeneratorType):
                tree = deep.run(tree)
        except _Redundant:
            raise ValidationException(f"Invalid {self.kind}: The expression has redundant parentheses;")
        if self.big_index is not None:
            raise ValidationException(
                f"Invalid {self.kind}: List index is not within the allowable range; index: [{self.big_index}]"
            )
        return tree, level

    # -- tokens --------------------------------------------------------------------------------------------

    @property
    def kind_(self) -> str:
        return self.kinds[self.pos]

    def expect(self, kind: str) -> Token:
        token = self.tokens[self.pos]
        if token.kind != kind:
            self.syntax_error(self.pos)
        self.pos += 1
        return token

    def syntax_error(self, index: int):
        """Raise DynamoDB's syntax error for the token at ``index``."""
        tokens, token = self.tokens, self.tokens[index]
        start = tokens[index - 1].start if index > 0 else 0
        end = tokens[index + 1].end if index + 1 < len(tokens) - 1 else len(self.text)
        if token.kind == "EOF":
            end = len(self.text)
        near = from_utf16(self.text[start:end])
        raise ValidationException(
            f'Invalid {self.kind}: Syntax error; token: "{from_utf16(token.text)}", near: "{near}"'
        )

    def choose(self, alternatives: list[tuple[str, tuple]], follow: frozenset) -> str:
        """ANTLR's prediction: the alternative that can go furthest, or a syntax error where all stop."""
        kinds = self.kinds
        best, best_die = [], -1.0
        for name, (ends, fail) in alternatives:
            die = float(fail)
            for end in ends:
                die = _INF if kinds[end] in follow else max(die, end)
                if die == _INF:
                    break
            if die > best_die:
                best, best_die = [(name, ends)], die
            elif die == best_die:
                best.append((name, ends))
        if best_die == _INF or len(best) == 1:
            return best[0][0]
        for name, ends in best:  # all stop at the same token: one that completed just before it wins
            if best_die in ends:
                return name
        self.syntax_error(int(best_die))
        raise AssertionError  # pragma: no cover

    # -- top-level rules -----------------------------------------------------------------------------------

    def condition_expression(self) -> deep.Recursive[ast.Condition]:
        node, _ = yield self.condition()
        self.expect("EOF")
        return node

    def projection_expression(self) -> ast.ProjectionExpression:
        paths = [self.path()]
        while self.kind_ == ",":
            self.pos += 1
            paths.append(self.path())
        self.expect("EOF")
        return ast.ProjectionExpression(tuple(paths))

    def update_expression(self) -> deep.Recursive[ast.UpdateExpression]:
        sections = []
        while True:
            keyword = self.kind_
            if keyword not in _SECTIONS:
                self.syntax_error(self.pos)
            self.pos += 1
            rule = getattr(self, keyword.lower() + "_action")
            actions = [(yield rule()) if keyword == "SET" else rule()]
            while self.kind_ == ",":
                self.pos += 1
                actions.append((yield rule()) if keyword == "SET" else rule())
            sections.append((keyword, tuple(actions)))
            if self.kind_ == "EOF":
                return ast.UpdateExpression(tuple(sections))

    # -- update actions ------------------------------------------------------------------------------------

    def set_action(self) -> deep.Recursive[ast.SetAction]:
        path = self.path()
        self.expect("=")
        value, _ = yield self.arithmetic()
        return ast.SetAction(path, value)

    def remove_action(self) -> ast.RemoveAction:
        return ast.RemoveAction(self.path())

    def add_action(self) -> ast.AddAction:
        path = self.path()
        return ast.AddAction(path, ast.Value(self.expect("VALUE").text))

    def delete_action(self) -> ast.DeleteAction:
        path = self.path()
        return ast.DeleteAction(path, ast.Value(self.expect("VALUE").text))

    def arithmetic(self) -> deep.Recursive[tuple]:
        """``(node, parenthesised)`` for an update's value."""
        i = self.pos
        kinds = self.kinds
        if kinds[i] == "(" or (kinds[i] == "ID" and kinds[i + 1] == "("):
            rec = self.recognizer
            alt = self.choose(
                [
                    ("value", rec.arith_value(i)),
                    ("plusminus", rec.plus_minus(i)),
                    ("parens", rec.arith_parens(i)),
                ],
                _FOLLOW_ARITHMETIC,
            )
            if alt == "parens":
                self.pos += 1
                inner, parenthesised = yield self.arithmetic()
                self.expect(")")
                if parenthesised:
                    raise _Redundant
                return inner, True
        left, parenthesised = yield self.operand()
        if self.kind_ in ("+", "-"):
            op = self.kinds[self.pos]
            self.pos += 1
            right, _ = yield self.operand()
            return ast.Arithmetic(op, left, right), False
        return left, parenthesised

    # -- conditions ----------------------------------------------------------------------------------------

    def condition(self) -> deep.Recursive[tuple]:
        """``(node, parenthesised)``: OR of ANDs of unary conditions."""
        node, parenthesised = yield self.conjunction()
        while self.kind_ == "OR":
            self.pos += 1
            right, _ = yield self.conjunction()
            node, parenthesised = ast.Or(node, right), False
        return node, parenthesised

    def conjunction(self) -> deep.Recursive[tuple]:
        node, parenthesised = yield self.primary()
        while self.kind_ == "AND":
            self.pos += 1
            right, _ = yield self.primary()
            node, parenthesised = ast.And(node, right), False
        return node, parenthesised

    def primary(self) -> deep.Recursive[tuple]:
        i = self.pos
        kinds = self.kinds
        first = kinds[i]
        if first == "NOT":
            self.pos += 1
            operand, _ = yield self.primary()
            return ast.Not(operand), False
        if first == "(" or (first == "ID" and kinds[i + 1] == "("):
            rec = self.recognizer
            alternatives = [
                ("compare", rec.compare(i)),
                ("in", rec.in_(i)),
                ("between", rec.between(i)),
            ]
            if first == "(":
                alternatives.append(("group", rec.group(i)))
            else:
                alternatives.append(("function", rec.function(i)))
            alt = self.choose(alternatives, _FOLLOW_CONDITION)
            if alt == "group":
                self.pos += 1
                inner, parenthesised = yield self.condition()
                self.expect(")")
                if parenthesised:
                    raise _Redundant
                return inner, True
            if alt == "function":
                return (yield self.function()), False
        elif first not in ("ID", "NAME", "VALUE"):
            self.syntax_error(i)
        subject, _ = yield self.operand()
        op = self.kind_
        if op in COMPARATORS:
            self.pos += 1
            right, _ = yield self.operand()
            return ast.Compare(op, subject, right), False
        if op == "IN":
            self.pos += 1
            self.expect("(")
            options = [(yield self.operand())[0]]
            while self.kind_ == ",":
                self.pos += 1
                options.append((yield self.operand())[0])
            self.expect(")")
            return ast.In(subject, tuple(options)), False
        if op == "BETWEEN":
            self.pos += 1
            low, _ = yield self.operand()
            self.expect("AND")
            high, _ = yield self.operand()
            return ast.Between(subject, low, high), False
        self.syntax_error(self.pos)
        raise AssertionError  # pragma: no cover

    # -- operands ------------------------------------------------------------------------------------------

    def operand(self) -> deep.Recursive[tuple]:
        """``(node, parenthesised)``."""
        kind = self.kind_
        if kind == "(":
            self.pos += 1
            inner, parenthesised = yield self.operand()
            self.expect(")")
            if parenthesised:
                raise _Redundant
            return inner, True
        if kind == "VALUE":
            self.pos += 1
            return ast.Value(self.tokens[self.pos - 1].text), False
        if kind == "ID" and self.kinds[self.pos + 1] == "(":
            return (yield self.function()), False
        return self.path(), False

    def function(self) -> deep.Recursive[ast.Function]:
        name = self.expect("ID").text
        self.expect("(")
        args = [(yield self.operand())[0]]
        while self.kind_ == ",":
            self.pos += 1
            args.append((yield self.operand())[0])
        self.expect(")")
        return ast.Function(name, tuple(args))

    def path(self) -> ast.Path:
        elements: list = [self.path_element()]
        kinds = self.kinds
        while True:
            kind = kinds[self.pos]
            if kind == ".":
                self.pos += 1
                elements.append(self.path_element(after_dot=True))
            elif kind == "[":
                self.pos += 1
                text = self.expect("INDEX").text
                self.expect("]")
                index = int(text)
                if index > MAX_LIST_INDEX and self.big_index is None:
                    self.big_index = text
                elements.append(index)
            else:
                return ast.Path(tuple(elements))

    def path_element(self, after_dot: bool = False):
        token = self.tokens[self.pos]
        if token.kind == "ID":
            self.pos += 1
            return token.text
        if token.kind == "NAME" or (after_dot and token.kind == "VALUE"):
            # DynamoDB's grammar also takes ``a.:v``, and then looks ``:v`` up as an attribute name
            self.pos += 1
            return ast.Name(token.text)
        self.syntax_error(self.pos)


class _Recognizer:
    """Side-effect-free recognition of grammar rules from a token index, for prediction.

    Each method returns ``(ends, fail)``: the token indexes where the rule can end, and the furthest index of a
    token that some way of reading the rule could not accept (-1 if none).
    """

    def __init__(self, kinds: list[str]) -> None:
        self.kinds = kinds
        self._operands: dict[int, tuple] = {}
        self._conditions: dict[int, tuple] = {}
        self._ariths: dict[int, tuple] = {}

    def memoise_backwards(self, update: bool) -> None:
        """Recognise every rule at every token from the last one back: a rule at a token only looks up rules
        at later tokens, which are then memoised, so no recognition recurses more than a few calls deep."""
        for i in range(len(self.kinds) - 1, -1, -1):
            self.operand(i)
            if update:
                self.arithmetic(i)
            else:
                self.condition(i)

    # operands are deterministic: at most one end
    def operand(self, i: int) -> tuple[int | None, int]:
        hit = self._operands.get(i)
        if hit is None:
            hit = self._operands[i] = self._operand(i)
        return hit

    def _operand(self, i: int) -> tuple[int | None, int]:
        kinds = self.kinds
        kind = kinds[i]
        if kind == "VALUE":
            return i + 1, -1
        if kind == "(":
            end, fail = self.operand(i + 1)
            if end is None:
                return None, fail
            if kinds[end] != ")":
                return None, max(fail, end)
            return end + 1, fail
        if kind == "ID" and kinds[i + 1] == "(":
            ends, fail = self.function(i)
            return (ends[0] if ends else None), fail
        if kind in ("ID", "NAME"):
            return self.path(i)
        return None, i

    def path(self, i: int) -> tuple[int | None, int]:
        kinds = self.kinds
        if kinds[i] not in ("ID", "NAME"):
            return None, i
        j = i + 1
        while True:
            if kinds[j] == ".":
                if kinds[j + 1] not in ("ID", "NAME", "VALUE"):
                    return j, j + 1
                j += 2
            elif kinds[j] == "[":
                if kinds[j + 1] != "INDEX":
                    return j, j + 1
                if kinds[j + 2] != "]":
                    return j, j + 2
                j += 3
            else:
                return j, -1

    def operand_list(self, i: int, fail: int) -> tuple[tuple, int]:
        """``operand {, operand} )`` from ``i``."""
        kinds = self.kinds
        while True:
            end, f = self.operand(i)
            fail = max(fail, f)
            if end is None:
                return (), fail
            if kinds[end] == ")":
                return (end + 1,), fail
            if kinds[end] != ",":
                return (), max(fail, end)
            i = end + 1

    def function(self, i: int) -> tuple[tuple, int]:
        if self.kinds[i] != "ID":
            return (), i
        if self.kinds[i + 1] != "(":
            return (), i + 1
        return self.operand_list(i + 2, -1)

    def compare(self, i: int) -> tuple[tuple, int]:
        end, fail = self.operand(i)
        if end is None:
            return (), fail
        if self.kinds[end] not in COMPARATORS:
            return (), max(fail, end)
        end2, fail2 = self.operand(end + 1)
        return ((end2,) if end2 is not None else ()), max(fail, fail2)

    def in_(self, i: int) -> tuple[tuple, int]:
        end, fail = self.operand(i)
        if end is None:
            return (), fail
        if self.kinds[end] != "IN":
            return (), max(fail, end)
        if self.kinds[end + 1] != "(":
            return (), max(fail, end + 1)
        return self.operand_list(end + 2, fail)

    def between(self, i: int) -> tuple[tuple, int]:
        end, fail = self.operand(i)
        if end is None:
            return (), fail
        for expected in ("BETWEEN", "AND"):
            if self.kinds[end] != expected:
                return (), max(fail, end)
            end, f = self.operand(end + 1)
            fail = max(fail, f)
            if end is None:
                return (), fail
        return (end,), fail

    def group(self, i: int) -> tuple[tuple, int]:
        return self._parenthesised(i, self.condition)

    def _parenthesised(self, i: int, inner_rule) -> tuple[tuple, int]:
        """``( inner )``: the ends after each closing parenthesis that can follow an ``inner_rule`` match."""
        if self.kinds[i] != "(":
            return (), i
        inner, fail = inner_rule(i + 1)
        ends = []
        for end in inner:
            if self.kinds[end] == ")":
                ends.append(end + 1)
            else:
                fail = max(fail, end)
        return tuple(ends), fail

    def condition(self, i: int) -> tuple[tuple, int]:
        hit = self._conditions.get(i)
        if hit is None:
            hit = self._conditions[i] = self._condition(i)
        return hit

    def _condition(self, i: int) -> tuple[tuple, int]:
        kinds = self.kinds
        if kinds[i] == "NOT":
            primary, fail = self.condition_primary_not(i)
        else:
            primary, fail = set(), -1
            alternatives = [self.compare(i), self.in_(i), self.between(i)]
            if kinds[i] == "(":
                alternatives.append(self.group(i))
            elif kinds[i] == "ID" and kinds[i + 1] == "(":
                alternatives.append(self.function(i))
            for alt_ends, f in alternatives:
                primary.update(alt_ends)
                fail = max(fail, f)
        ends = set(primary)
        for end in primary:
            if kinds[end] in ("AND", "OR"):
                more, f = self.condition(end + 1)
                ends.update(more)
                fail = max(fail, f)
        return tuple(sorted(ends)), fail

    def condition_primary_not(self, i: int) -> tuple[set, int]:
        # NOT binds to one primary; for recognition the language is the same as NOT condition
        ends, fail = self.condition(i + 1)
        return set(ends), fail

    def arith_value(self, i: int) -> tuple[tuple, int]:
        end, fail = self.operand(i)
        return ((end,) if end is not None else ()), fail

    def plus_minus(self, i: int) -> tuple[tuple, int]:
        end, fail = self.operand(i)
        if end is None:
            return (), fail
        if self.kinds[end] not in ("+", "-"):
            return (), max(fail, end)
        end2, fail2 = self.operand(end + 1)
        return ((end2,) if end2 is not None else ()), max(fail, fail2)

    def arith_parens(self, i: int) -> tuple[tuple, int]:
        return self._parenthesised(i, self.arithmetic)

    def arithmetic(self, i: int) -> tuple[tuple, int]:
        hit = self._ariths.get(i)
        if hit is None:
            ends: set[int] = set()
            fail = -1
            for e, f in (self.arith_value(i), self.plus_minus(i), self.arith_parens(i)):
                ends.update(e)
                fail = max(fail, f)
            hit = self._ariths[i] = (tuple(sorted(ends)), fail)
        return hit
