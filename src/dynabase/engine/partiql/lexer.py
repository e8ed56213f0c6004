"""Tokens of DynamoDB's PartiQL dialect.

Kinds: ``id`` (unquoted identifier, case kept), ``qid`` ("quoted identifier"), ``kw`` (a PartiQL keyword,
value lower-cased), ``str`` ('string'), ``num`` (number text), ``op`` (punctuation and operators), ``param``
(``?``) and ``eof``. Every token keeps its line, column and length: DynamoDB quotes them in some messages as
``at line:column:length``.
"""

from __future__ import annotations

from typing import NamedTuple

from ...errors import ValidationException
from ...types import readable_number

#: SQL-92 keywords and PartiQL's own (partiql-lang-kotlin's lexer, which DynamoDB uses): they cannot be bare names.
_KEYWORD_WORDS = """
absolute action add all allocate alter and any are as asc assertion at authorization avg begin between bit
bit_length by cascade cascaded case cast catalog char character character_length char_length check close
coalesce collate collation column commit connect connection constraint constraints continue convert
corresponding count create cross current current_date current_time current_timestamp current_user cursor
date deallocate dec decimal declare default deferrable deferred delete desc describe descriptor diagnostics
disconnect distinct domain double drop else end end-exec escape except exception exec execute exists
external extract date_add date_diff false fetch first float for foreign found from full get global go goto
grant group having identity immediate in indicator initially inner input insensitive insert int integer
intersect interval into is isolation join key language last left level like local lower match max min module
names national natural nchar next no not null nullif numeric octet_length of on only open option or order
outer output overlaps pad partial position precision prepare preserve primary prior privileges procedure
public read real references relative restrict revoke right rollback rows schema scroll section select
session session_user set size smallint some space sql sqlcode sqlerror sqlstate substring sum system_user
table temporary then time timestamp to transaction translate translation trim true union unique unknown
update upper usage user using value values varchar varying view when whenever where with work write zone
can_cast can_lossless_cast missing pivot unpivot limit offset tuple remove index let integer2 int2 integer4
int4 integer8 int8 bigint conflict do nothing returning modified new old bool boolean string symbol clob
blob struct list sexp bag
"""
KEYWORDS = frozenset(_KEYWORD_WORDS.split())

#: keywords that are function names: ``size(x)`` is a call, a bare ``size`` is a syntax error
_FUNCTION_WORDS = (
    "exists count avg max min sum substring char_length character_length octet_length bit_length upper "
)
FUNCTION_KEYWORDS = frozenset((_FUNCTION_WORDS + "lower size sexp list bag").split())

_OPERATORS = ("<<", ">>", "<=", ">=", "<>", "!=", "||")
_SINGLE = frozenset("()[]{},.:;*?+-/%=<>")
_IDENT_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$")
_IDENT = _IDENT_START | frozenset("0123456789")
_DIGITS = frozenset("0123456789")


class Token(NamedTuple):
    kind: str
    value: str
    text: str  # as written
    line: int
    col: int

    @property
    def where(self) -> str:
        """DynamoDB's ``line:column:length`` position of the token."""
        return f"{self.line}:{self.col}:{len(self.text)}"


class Malformed(ValidationException):
    """The statement does not parse (DynamoDB does not say where)."""


def malformed(statement: str) -> Malformed:
    return Malformed(f"Statement wasn't well formed, can't be processed: {statement}")


def tokenize(statement: str) -> list[Token]:
    """Split a statement into tokens; :class:`Malformed` for text PartiQL cannot lex."""
    tokens: list[Token] = []
    i, n = 0, len(statement)
    line, line_start = 1, 0

    def add(kind: str, value: str, start: int, end: int) -> None:
        tokens.append(Token(kind, value, statement[start:end], line, start - line_start + 1))

    while i < n:
        ch = statement[i]
        if ch == "\n":
            i += 1
            line, line_start = line + 1, i
        elif ch in " \t\r\f":
            i += 1
        elif statement.startswith("--", i):
            while i < n and statement[i] != "\n":
                i += 1
        elif statement.startswith("/*", i):
            end = statement.find("*/", i + 2)
            if end < 0:
                raise malformed(statement)
            for j in range(i, end):
                if statement[j] == "\n":
                    line, line_start = line + 1, j + 1
            i = end + 2
        elif ch in "'\"":
            j, parts = i + 1, []
            while True:
                k = statement.find(ch, j)
                if k < 0:
                    raise malformed(statement)
                parts.append(statement[j:k])
                if statement.startswith(ch, k + 1):  # doubled quote: an escaped quote
                    parts.append(ch)
                    j = k + 2
                    continue
                break
            add("str" if ch == "'" else "qid", "".join(parts), i, k + 1)
            i = k + 1
        elif ch in _DIGITS or (ch == "." and i + 1 < n and statement[i + 1] in _DIGITS):
            j = i
            while j < n and statement[j] in _DIGITS:
                j += 1
            if j < n and statement[j] == ".":
                j += 1
                while j < n and statement[j] in _DIGITS:
                    j += 1
            if j < n and statement[j] in "eE":
                k = j + 1
                if k < n and statement[k] in "+-":
                    k += 1
                if k < n and statement[k] in _DIGITS:
                    while k < n and statement[k] in _DIGITS:
                        k += 1
                    j = k
            if not readable_number(statement[i:j]):  # an exponent beyond a 32-bit integer
                raise malformed(statement)
            add("num", statement[i:j], i, j)
            i = j
        elif ch in _IDENT_START:
            j = i + 1
            while j < n and statement[j] in _IDENT:
                j += 1
            word = statement[i:j]
            if word.lower() in KEYWORDS:
                add("kw", word.lower(), i, j)
            else:
                add("id", word, i, j)
            i = j
        else:
            op = next((o for o in _OPERATORS if statement.startswith(o, i)), None)
            if op is None and ch in _SINGLE:
                op = ch
            if op is None:
                raise malformed(statement)
            add("param" if op == "?" else "op", "<>" if op == "!=" else op, i, i + len(op))
            i += len(op)
    tokens.append(Token("eof", "", "", line, i - line_start + 1))
    return tokens
