"""A small JSON5 reader (https://spec.json5.org/), also used, in strict mode, for plain JSON.

JSON5 adds to JSON what hand-written schemas use: ``//`` and ``/* */`` comments, trailing commas,
unquoted (identifier) keys, single-quoted strings, multi-line strings (a backslash before the line
break), hexadecimal numbers, leading or trailing decimal points, a leading ``+``, ``Infinity`` and
``NaN``. It does not add JavaScript: a bare identifier as a value (``type: String``) stays an error.

Unlike ``json.loads`` this reader refuses duplicate keys: in a schema a repeated key is a mistake
that would silently drop one of the definitions. Errors carry the line, the column and, where known,
the document path of the enclosing object.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from .errors import join_path

__all__ = ["JSON5DecodeError", "loads"]

MAX_DEPTH = 256

_WHITESPACE = set(" \t\n\r\v\f\u00a0\u2028\u2029\ufeff")
_LINE_TERMINATORS = set("\n\r\u2028\u2029")
_SINGLE_ESCAPES = {
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "0": "\0",
    '"': '"',
    "'": "'",
    "\\": "\\",
    "/": "/",
}
_JSON_ESCAPES = set('"\\/bfnrtu')
_HEX = set("0123456789abcdefABCDEF")
_DIGITS = set("0123456789")


class JSON5DecodeError(ValueError):
    """A syntax error (or a duplicate key) with its 1-based line and column."""

    def __init__(self, message: str, line: int, column: int, path: str = ""):
        self.msg = message
        self.line = line
        self.column = column
        self.path = path
        super().__init__(f"line {line}, column {column}: {message}")


def loads(text: str, *, strict_json: bool = False) -> Any:
    """Parse JSON5 ``text`` (or plain JSON with ``strict_json=True``) into Python values.

    Objects become dicts (in document order), arrays lists, integers ``int`` and other numbers
    ``float``.
    """
    if not isinstance(text, str):
        raise TypeError("loads() takes a str")
    parser = _Parser(text, strict_json)
    parser.skip_space()
    if parser.pos >= len(text):
        parser.fail("empty document")
    value = parser.value("", 0)
    parser.skip_space()
    if parser.pos < len(text):
        parser.fail(f"unexpected {parser.describe()} after the end of the document")
    return value


def _is_id_start(ch: str) -> bool:
    return ch == "$" or ch == "_" or ch.isalpha()


def _is_id_part(ch: str) -> bool:
    return ch == "$" or ch == "_" or ch.isalnum() or ch in "\u200c\u200d" or _is_combining(ch)


def _is_combining(ch: str) -> bool:
    import unicodedata

    return unicodedata.category(ch) in ("Mn", "Mc", "Nd", "Pc")


class _Parser:
    def __init__(self, text: str, strict: bool):
        self.text = text
        self.pos = 0
        self.strict = strict
        self.kind = "JSON" if strict else "JSON5"

    # -- errors ---------------------------------------------------------------------------------------
    def location(self, pos: int) -> tuple[int, int]:
        text = self.text
        line = 1
        start = 0
        i = 0
        while i < pos:
            ch = text[i]
            if ch in _LINE_TERMINATORS:
                if ch == "\r" and i + 1 < pos and text[i + 1] == "\n":
                    i += 1
                line += 1
                start = i + 1
            i += 1
        return line, pos - start + 1

    def fail(self, message: str, pos: int | None = None, path: str = "") -> None:
        line, column = self.location(self.pos if pos is None else pos)
        raise JSON5DecodeError(message, line, column, path)

    def describe(self) -> str:
        if self.pos >= len(self.text):
            return "end of input"
        return f"character {self.text[self.pos]!r}"

    # -- whitespace and comments ----------------------------------------------------------------------
    def skip_space(self) -> None:
        text = self.text
        n = len(text)
        while self.pos < n:
            ch = text[self.pos]
            if ch in _WHITESPACE or (not self.strict and ch.isspace()):
                if self.strict and ch not in " \t\n\r":
                    self.fail(f"{ch!r} is not JSON whitespace")
                self.pos += 1
            elif ch == "/" and self.pos + 1 < n and text[self.pos + 1] in "/*":
                if self.strict:
                    self.fail("comments are not allowed in JSON (use JSON5)")
                if text[self.pos + 1] == "/":
                    self.pos += 2
                    while self.pos < n and text[self.pos] not in _LINE_TERMINATORS:
                        self.pos += 1
                else:
                    end = text.find("*/", self.pos + 2)
                    if end < 0:
                        self.fail("unterminated /* comment")
                    self.pos = end + 2
            else:
                return

    # -- values ---------------------------------------------------------------------------------------
    def value(self, path: str, depth: int) -> Any:
        if depth > MAX_DEPTH:
            self.fail(f"nesting deeper than {MAX_DEPTH} levels")
        if self.pos >= len(self.text):
            self.fail("unexpected end of input, expected a value")
        ch = self.text[self.pos]
        if ch == "{":
            return self.object(path, depth)
        if ch == "[":
            return self.array(path, depth)
        if ch == '"' or ch == "'":
            return self.string()
        if ch in _DIGITS or ch in "+-.":
            return self.number()
        if _is_id_start(ch) or ch == "\\":
            start = self.pos
            word = self.identifier()
            if word == "true":
                return True
            if word == "false":
                return False
            if word == "null":
                return None
            if word in ("Infinity", "NaN"):
                if self.strict:
                    self.fail(f"{word} is not allowed in JSON (use JSON5)", start)
                return math.inf if word == "Infinity" else math.nan
            hint = ""
            if word in (
                "String",
                "Number",
                "Boolean",
                "Date",
                "Object",
                "Array",
                "Set",
                "Buffer",
                "ArrayBuffer",
            ):
                hint = f" (JavaScript constructors are not data: write '{word.lower()}')"
            self.fail(f"unexpected identifier {word!r}, expected a value{hint}", start)
        self.fail(f"unexpected {self.describe()}, expected a value")
        raise AssertionError("unreachable")  # pragma: no cover

    def object(self, path: str, depth: int) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for _ in self.members("}", "object"):
            key_pos = self.pos
            key = self.key()
            if key in result:
                self.fail(f"duplicate key {key!r}", key_pos, path)
            self.skip_space()
            if self.pos >= len(self.text) or self.text[self.pos] != ":":
                self.fail(f"expected ':' after key {key!r}, found {self.describe()}")
            self.pos += 1
            self.skip_space()
            result[key] = self.value(join_path(path, key), depth + 1)
        return result

    def members(self, close: str, what: str) -> Iterator[None]:
        """Steps through the members of an object or array, comma-separated, from its opening character to
        ``close``: each time it yields, the caller reads one member (a generator, so that nesting costs no
        extra stack frame)."""
        self.pos += 1  # the opening { or [
        after_comma = False
        while True:
            self.skip_space()
            if self.pos >= len(self.text):
                self.fail(f"unterminated {what}, expected '{close}'")
            if self.text[self.pos] == close:
                if after_comma and self.strict:
                    self.fail("trailing commas are not allowed in JSON (use JSON5)")
                self.pos += 1
                return
            yield
            self.skip_space()
            after_comma = False
            if self.pos < len(self.text) and self.text[self.pos] == ",":
                self.pos += 1
                after_comma = True
                continue
            if self.pos < len(self.text) and self.text[self.pos] == close:
                continue
            self.fail(f"expected ',' or '{close}' in {what}, found {self.describe()}")

    def key(self) -> str:
        ch = self.text[self.pos]
        if ch == '"' or ch == "'":
            return self.string()
        if self.strict:
            self.fail(f"expected a double-quoted key, found {self.describe()}")
        if _is_id_start(ch) or ch == "\\":
            return self.identifier()
        self.fail(f"expected a key, found {self.describe()}")
        raise AssertionError("unreachable")  # pragma: no cover

    def array(self, path: str, depth: int) -> list[Any]:
        result: list[Any] = []
        for _ in self.members("]", "array"):
            result.append(self.value(join_path(path, len(result)), depth + 1))
        return result

    def identifier(self) -> str:
        text = self.text
        n = len(text)
        chars: list[str] = []
        first = True
        while self.pos < n:
            ch = text[self.pos]
            if ch == "\\":
                if self.pos + 1 >= n or text[self.pos + 1] != "u":
                    self.fail("invalid escape in identifier")
                self.pos += 2
                ch = self._hex_char(4)
                ok = _is_id_start(ch) if first else _is_id_part(ch)
                if not ok:
                    self.fail(f"invalid identifier character {ch!r}")
                chars.append(ch)
            elif _is_id_start(ch) if first else _is_id_part(ch):
                chars.append(ch)
                self.pos += 1
            else:
                break
            first = False
        if not chars:
            self.fail(f"expected an identifier, found {self.describe()}")
        return "".join(chars)

    def _hex_char(self, count: int) -> str:
        digits = self.text[self.pos : self.pos + count]
        if len(digits) != count or any(d not in _HEX for d in digits):
            self.fail(f"expected {count} hexadecimal digits")
        self.pos += count
        return chr(int(digits, 16))

    def string(self) -> str:
        text = self.text
        n = len(text)
        quote = text[self.pos]
        if quote == "'" and self.strict:
            self.fail("single-quoted strings are not allowed in JSON (use JSON5)")
        start = self.pos
        self.pos += 1
        chars: list[str] = []
        while True:
            if self.pos >= n:
                self.fail("unterminated string", start)
            ch = text[self.pos]
            if ch == quote:
                self.pos += 1
                return "".join(chars)
            if ch == "\\":
                self.pos += 1
                if self.pos >= n:
                    self.fail("unterminated string", start)
                esc = text[self.pos]
                if self.strict and esc not in _JSON_ESCAPES:
                    self.fail(f"invalid escape '\\{esc}' in JSON string")
                if esc == "u":
                    self.pos += 1
                    code = ord(self._hex_char(4))
                    if 0xD800 <= code <= 0xDBFF and text.startswith("\\u", self.pos):
                        save = self.pos
                        self.pos += 2
                        low = ord(self._hex_char(4))
                        if 0xDC00 <= low <= 0xDFFF:
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        else:
                            self.pos = save
                    chars.append(chr(code))
                    continue
                if esc == "x":
                    self.pos += 1
                    chars.append(self._hex_char(2))
                    continue
                if esc in _LINE_TERMINATORS:  # line continuation
                    self.pos += 1
                    if esc == "\r" and self.pos < n and text[self.pos] == "\n":
                        self.pos += 1
                    continue
                if esc == "0" and self.pos + 1 < n and text[self.pos + 1] in _DIGITS:
                    self.fail("octal escapes are not allowed")
                if esc in "123456789":
                    self.fail(f"invalid escape '\\{esc}'")
                chars.append(_SINGLE_ESCAPES.get(esc, esc))
                self.pos += 1
                continue
            if ch in "\n\r":
                self.fail("unescaped line break in string (end the line with '\\' to continue it)")
            if self.strict and ord(ch) < 0x20:
                self.fail(f"unescaped control character {ch!r} in JSON string")
            chars.append(ch)
            self.pos += 1

    def number(self) -> int | float:
        text = self.text
        n = len(text)
        start = self.pos
        sign = 1
        if text[self.pos] in "+-":
            if text[self.pos] == "+" and self.strict:
                self.fail("a leading '+' is not allowed in JSON (use JSON5)")
            sign = -1 if text[self.pos] == "-" else 1
            self.pos += 1
            if self.pos < n and _is_id_start(text[self.pos]):
                word = self.identifier()
                if word == "Infinity" and not self.strict:
                    return sign * math.inf
                if word == "NaN" and not self.strict:
                    return math.nan
                self.fail(f"invalid number {text[start : self.pos]!r}", start)
        if text.startswith(("0x", "0X"), self.pos):
            if self.strict:
                self.fail("hexadecimal numbers are not allowed in JSON (use JSON5)", start)
            self.pos += 2
            digits_start = self.pos
            while self.pos < n and text[self.pos] in _HEX:
                self.pos += 1
            if self.pos == digits_start:
                self.fail("expected hexadecimal digits", start)
            self._end_of_number(start)
            return sign * int(text[digits_start : self.pos], 16)
        int_start = self.pos
        while self.pos < n and text[self.pos] in _DIGITS:
            self.pos += 1
        int_digits = text[int_start : self.pos]
        if len(int_digits) > 1 and int_digits[0] == "0":
            self.fail("leading zeros are not allowed", start)
        is_float = False
        frac_digits = ""
        if self.pos < n and text[self.pos] == ".":
            is_float = True
            self.pos += 1
            frac_start = self.pos
            while self.pos < n and text[self.pos] in _DIGITS:
                self.pos += 1
            frac_digits = text[frac_start : self.pos]
            if self.strict and (not int_digits or not frac_digits):
                self.fail("a number needs digits on both sides of '.' in JSON (use JSON5)", start)
        if not int_digits and not frac_digits:
            self.fail(f"invalid number {text[start : self.pos + 1]!r}", start)
        if self.pos < n and text[self.pos] in "eE":
            is_float = True
            self.pos += 1
            if self.pos < n and text[self.pos] in "+-":
                self.pos += 1
            exp_start = self.pos
            while self.pos < n and text[self.pos] in _DIGITS:
                self.pos += 1
            if self.pos == exp_start:
                self.fail("expected exponent digits", start)
        self._end_of_number(start)
        literal = text[start : self.pos]
        if is_float:
            return float(literal)
        try:
            return int(literal)
        except ValueError:  # more digits than int() converts
            self.fail("integer literal too long", start)
            raise

    def _end_of_number(self, start: int) -> None:
        if self.pos < len(self.text) and _is_id_part(self.text[self.pos]):
            self.fail(f"invalid number {self.text[start : self.pos + 1]!r}", start)
