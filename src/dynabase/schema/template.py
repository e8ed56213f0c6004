"""OneTable value templates: ``'account#${name}'``, ``'${_type}#${n:6}'``, ``'${addr.zip:5:0}'``.

A template is literal text with ``${ref}`` substitutions. A ref is a field name, or a dotted path into a
nested object (``${address.city}``; a numeric step indexes a list), optionally followed by a padding
length and pad character: ``${n:6}`` left-pads the value to six characters with ``'0'`` and
``${n:6:_}`` with ``'_'``. Longer values are never truncated. OneTable has no escape for a literal
``${``.

Rendering follows OneTable: when any referenced value is missing (absent or ``None``) the whole template
is unresolved and :meth:`Template.render` returns ``None`` — OneTable then leaves the attribute out of
the write. :meth:`Template.prefix` gives the text up to the first unresolved ref: on a query OneTable
turns an unresolved sort key into ``begins_with(sort, prefix)`` when that prefix is not empty.

Values are written the way JavaScript's ``String(value)`` would (``true``, ``1.5``, ``1e-7``), so keys
built here match keys built by OneTable; dates become ISO 8601 (``isoDates``) or epoch milliseconds.
"""

from __future__ import annotations

import base64
import datetime as _dt
import decimal
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .errors import TemplateError

__all__ = ["Ref", "Template", "format_value", "lookup"]


@dataclass(frozen=True)
class Ref:
    """One ``${...}`` substitution: the referenced ``path`` (``"a"`` or ``"a.b"``), padding, and the source."""

    path: str
    length: int | None = None
    pad: str = "0"
    source: str = ""

    @property
    def root(self) -> str:
        """The top-level field name (``"address"`` for ``${address.city}``)."""
        return self.path.split(".", 1)[0]

    @property
    def steps(self) -> tuple[str, ...]:
        return tuple(self.path.split("."))


_MISSING = object()


def _parse(text: str) -> tuple[tuple[str | Ref, ...], tuple[Ref, ...]]:
    parts: list[str | Ref] = []
    refs: list[Ref] = []
    pos = 0
    n = len(text)
    literal: list[str] = []
    while pos < n:
        start = text.find("${", pos)
        if start < 0:
            literal.append(text[pos:])
            break
        literal.append(text[pos:start])
        end = text.find("}", start + 2)
        if end < 0:
            raise TemplateError(f"unterminated '${{' at position {start}")
        inner = text[start + 2 : end]
        source = text[start : end + 1]
        if "\n" in inner or "\r" in inner:
            raise TemplateError(f"line break inside {source!r}")
        pieces = inner.split(":")
        if len(pieces) > 3:
            raise TemplateError(
                f"too many ':' in {source!r} (expected ${{name}}, ${{name:size}} or ${{name:size:pad}})"
            )
        name = pieces[0]
        if not name:
            raise TemplateError(f"empty reference {source!r}")
        steps = name.split(".")
        if any(step == "" for step in steps):
            raise TemplateError(f"invalid reference {source!r}")
        length: int | None = None
        pad = "0"
        if len(pieces) >= 2:
            size = pieces[1]
            if not size.isascii() or not size.isdigit():
                raise TemplateError(f"padding size in {source!r} must be a whole number")
            length = int(size)
        if len(pieces) == 3 and pieces[2] != "":
            # OneTable prepends the whole pad string until the length is reached.
            pad = pieces[2]
        if literal:
            joined = "".join(literal)
            if joined:
                parts.append(joined)
            literal = []
        ref = Ref(name, length, pad, source)
        parts.append(ref)
        refs.append(ref)
        pos = end + 1
    joined = "".join(literal)
    if joined:
        parts.append(joined)
    return tuple(parts), tuple(refs)


@dataclass(frozen=True)
class Template:
    """A parsed value template. ``Template(text)`` raises :class:`TemplateError` on bad syntax."""

    text: str
    parts: tuple[str | Ref, ...] = field(init=False, repr=False, compare=False)
    refs: tuple[Ref, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise TemplateError("a template must be a string")
        parts, refs = _parse(self.text)
        object.__setattr__(self, "parts", parts)
        object.__setattr__(self, "refs", refs)

    def __str__(self) -> str:
        return self.text

    @property
    def fields(self) -> tuple[str, ...]:
        """Referenced paths in order of first appearance, without repeats (``("_type", "name", "a.b")``)."""
        seen: dict[str, None] = {}
        for ref in self.refs:
            seen.setdefault(ref.path, None)
        return tuple(seen)

    @property
    def roots(self) -> tuple[str, ...]:
        """Referenced top-level field names, without repeats."""
        seen: dict[str, None] = {}
        for ref in self.refs:
            seen.setdefault(ref.root, None)
        return tuple(seen)

    @property
    def is_literal(self) -> bool:
        """True when the template has no references (``'status#'``)."""
        return not self.refs

    def render(self, values: Mapping[str, Any], *, iso_dates: bool = False) -> str | None:
        """The expanded text, or ``None`` when a referenced value is missing (absent or ``None``).

        Raises :class:`TemplateError` when a referenced value is an object, a list or another value with
        no string form in a key.
        """
        out: list[str] = []
        for part in self.parts:
            if isinstance(part, str):
                out.append(part)
                continue
            text = self._expand(part, values, iso_dates)
            if text is None:
                return None
            out.append(text)
        return "".join(out)

    def prefix(self, values: Mapping[str, Any], *, iso_dates: bool = False) -> str:
        """The expanded text up to the first unresolved reference (all of it when every ref resolves)."""
        out: list[str] = []
        for part in self.parts:
            if isinstance(part, str):
                out.append(part)
                continue
            text = self._expand(part, values, iso_dates)
            if text is None:
                break
            out.append(text)
        return "".join(out)

    def missing(self, values: Mapping[str, Any]) -> tuple[str, ...]:
        """Referenced paths that have no value in ``values``."""
        return tuple(path for path in self.fields if lookup(values, path) is None)

    @staticmethod
    def _expand(ref: Ref, values: Mapping[str, Any], iso_dates: bool) -> str | None:
        value = lookup(values, ref.path)
        if value is None:
            return None
        text = format_value(value, iso_dates=iso_dates, name=ref.path)
        if ref.length:
            while len(text) < ref.length:
                text = ref.pad + text
        return text


def lookup(values: Any, path: str) -> Any:
    """The value at a dotted ``path`` in nested mappings (and lists, by index); ``None`` when absent."""
    current = values
    for step in path.split("."):
        if current is None:
            return None
        if isinstance(current, Mapping):
            current = current.get(step)
        elif isinstance(current, Sequence) and not isinstance(current, (str, bytes, bytearray)):
            if not (step.isascii() and step.isdigit()):
                return None
            index = int(step)
            current = current[index] if index < len(current) else None
        else:
            return None
    return current


def _js_number(value: float) -> str:
    """``String(number)`` in JavaScript."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    text = repr(value)
    if "e" in text:
        mantissa, exponent = text.split("e")
        sign = "-" if exponent.startswith("-") else "+"
        digits = exponent.lstrip("+-").lstrip("0") or "0"
        if mantissa.endswith(".0"):
            mantissa = mantissa[:-2]
        return f"{mantissa}e{sign}{digits}"
    return text


def _iso(value: _dt.datetime) -> str:
    if value.tzinfo is not None:
        value = value.astimezone(_dt.timezone.utc).replace(tzinfo=None)
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"


_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)


def _epoch_ms(value: _dt.datetime) -> int:
    """Milliseconds since the Unix epoch, truncated like JavaScript's ``Date.getTime()``."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=_dt.timezone.utc)
    delta = value - _EPOCH
    return delta.days * 86_400_000 + delta.seconds * 1000 + delta.microseconds // 1000


def format_value(value: Any, *, iso_dates: bool = False, name: str = "") -> str:
    """The text OneTable puts into a template for ``value``.

    Strings as they are; booleans ``true``/``false``; numbers as JavaScript prints them; datetimes (naive
    ones taken as UTC) and dates as ISO 8601 with milliseconds (``iso_dates``) or epoch milliseconds;
    bytes as base64 (how OneTable stores binary). Objects and lists raise :class:`TemplateError`.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _js_number(value)
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            return _js_number(float(value))
        if value == value.to_integral_value() and abs(value) < decimal.Decimal("1e21"):
            return str(int(value))
        return _js_number(float(value))
    if isinstance(value, _dt.datetime):
        return _iso(value) if iso_dates else str(_epoch_ms(value))
    if isinstance(value, _dt.date):
        as_datetime = _dt.datetime(value.year, value.month, value.day)
        return _iso(as_datetime) if iso_dates else str(_epoch_ms(as_datetime))
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    label = f" for {name!r}" if name else ""
    raise TemplateError(f"value{label} is not a primitive value: {type(value).__name__}")
