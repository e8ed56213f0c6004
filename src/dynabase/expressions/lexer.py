"""Tokens of DynamoDB's expression language.

DynamoDB lexes an expression as UTF-16 code units (it is written in Java), so characters outside the Basic
Multilingual Plane count as two units: in the expression's size, and as two one-unit tokens in syntax errors.
:func:`utf16` turns a ``str`` into that form and :func:`from_utf16` turns token text back for messages.

Token kinds are short strings: the punctuation itself (``( ) , . [ ] + - = <> < <= > >=``), the upper-cased
keyword (``AND OR NOT IN BETWEEN SET REMOVE ADD DELETE``), ``ID`` (a name such as ``a1_b``), ``NAME``
(``#name``), ``VALUE`` (``:value``), ``INDEX`` (``0`` or digits without a leading zero), ``UNKNOWN`` (any other
single code unit) and ``EOF``.
"""

from __future__ import annotations

from typing import NamedTuple

KEYWORDS = frozenset({"AND", "OR", "NOT", "IN", "BETWEEN", "SET", "REMOVE", "ADD", "DELETE"})
COMPARATORS = frozenset({"=", "<>", "<", "<=", ">", ">="})

_WHITESPACE = frozenset(" \t\r\n")
_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_DIGITS = frozenset("0123456789")
_SINGLE = frozenset("(),.[]+-=")


class Token(NamedTuple):
    kind: str
    text: str  # as written (UTF-16 units)
    start: int
    end: int


def utf16(text: str) -> str:
    """``text`` with each astral character split into its two surrogate code units."""
    if not text or max(text) <= "\uffff":
        return text
    out = []
    for char in text:
        code = ord(char)
        if code > 0xFFFF:
            code -= 0x10000
            out.append(chr(0xD800 + (code >> 10)) + chr(0xDC00 + (code & 0x3FF)))
        else:
            out.append(char)
    return "".join(out)


def from_utf16(text: str) -> str:
    """Join surrogate pairs back into characters (lone surrogates stay as they are)."""
    if not any("\ud800" <= c <= "\udfff" for c in text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def tokenize(text: str) -> list[Token]:
    """The tokens of ``text`` (already in UTF-16 form), whitespace dropped, ending with an EOF token."""
    tokens: list[Token] = []
    append = tokens.append
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in _WHITESPACE:
            i += 1
            continue
        start = i
        if c in _LETTERS:
            i += 1
            while i < n and text[i] in _WORD:
                i += 1
            word = text[start:i]
            upper = word.upper()
            append(Token(upper if upper in KEYWORDS else "ID", word, start, i))
            continue
        if c in _DIGITS:
            i += 1
            if c != "0":
                while i < n and text[i] in _DIGITS:
                    i += 1
            append(Token("INDEX", text[start:i], start, i))
            continue
        if c in "#:" and i + 1 < n and text[i + 1] in _WORD:
            i += 2
            while i < n and text[i] in _WORD:
                i += 1
            append(Token("NAME" if c == "#" else "VALUE", text[start:i], start, i))
            continue
        if c == "<" and i + 1 < n and text[i + 1] in "=>":
            append(Token(text[i : i + 2], text[i : i + 2], start, i + 2))
            i += 2
            continue
        if c == ">" and i + 1 < n and text[i + 1] == "=":
            append(Token(">=", ">=", start, i + 2))
            i += 2
            continue
        i += 1
        append(Token(c if c in _SINGLE or c in "<>" else "UNKNOWN", c, start, i))
    append(Token("EOF", "<EOF>", n, n))
    return tokens
