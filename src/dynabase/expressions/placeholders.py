"""A request's ExpressionAttributeNames and ExpressionAttributeValues, validated as DynamoDB does."""

from __future__ import annotations

import re
from typing import Any

from ..errors import DynamoDBError, ValidationException
from ..types import set_member_text, validate_value
from .lexer import tokenize, utf16

MAX_KEY_LENGTH = 255
MAX_NAME_BYTES = 65535


class Placeholders:
    """The ``#name`` and ``:value`` substitutions of one request, shared by all its expressions.

    Construction validates both maps in DynamoDB's order: empty maps, then the keys' syntax and length, then
    the values. Binding an expression marks the placeholders it uses; :meth:`check_unused` then reports the
    ones no expression used.
    """

    def __init__(self, names: dict | None, values: dict | None) -> None:
        if names is not None and not names:
            raise ValidationException("ExpressionAttributeNames must not be empty")
        if values is not None and not values:
            raise ValidationException("ExpressionAttributeValues must not be empty")
        self.names: dict[str, str] = dict(names or {})
        self.raw_values: dict[str, Any] = dict(values or {})
        for key in self.names:
            _check_key(key, "NAME", "ExpressionAttributeNames", f" size of key: {len(utf16(key))}")
        for key in self.raw_values:
            _check_key(key, "VALUE", "ExpressionAttributeValues", "")
        self.values: dict[str, dict] = {}
        for key, value in self.raw_values.items():
            try:
                checked = validate_value(value)
                if (
                    "NS" in checked
                ):  # Local keeps a number set value's members as Java spells them, not normal
                    checked = {"NS": [set_member_text(m) for m in value["NS"]]}
                self.values[key] = checked
            except DynamoDBError as error:
                raise ValidationException(
                    f"ExpressionAttributeValues contains invalid value: {error.message} for key {key}"
                )
        for key, name in self.names.items():
            if not isinstance(name, str) or not name:
                raise ValidationException(
                    f"ExpressionAttributeNames contains invalid value: Empty attribute name for key {key}"
                )
            if len(name.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES:
                raise ValidationException(
                    "ExpressionAttributeNames contains invalid value: Attribute name is too large, "
                    f"must be less than 65536 bytes for key {key}"
                )
        self.used_names: set[str] = set()
        self.used_values: set[str] = set()

    def name(self, key: str) -> str | None:
        """The attribute name for ``#key`` (marking it used), or None if the request does not define it."""
        name = self.names.get(key)
        if name is not None:
            self.used_names.add(key)
        return name

    def value(self, key: str) -> dict | None:
        """The validated AttributeValue for ``:key`` (marking it used), or None if not defined."""
        value = self.values.get(key)
        if value is not None:
            self.used_values.add(key)
        return value

    def literal(self, key: str) -> dict:
        """``:key``'s value with numbers written as the request wrote them (outside number sets).

        DynamoDB Local stores numbers that SET or ADD take from ExpressionAttributeValues as given ("1.000",
        "1E+2"), and arithmetic keeps their scale; only number sets are normalised.
        """
        return _literal(self.raw_values[key], self.values[key])

    def check_unused(self) -> None:
        """Raise DynamoDB's error for names, then values, that no expression of the request used."""
        for label, keys, used in (
            ("ExpressionAttributeNames", self.names, self.used_names),
            ("ExpressionAttributeValues", self.raw_values, self.used_values),
        ):
            unused = [key for key in keys if key not in used]
            if unused:
                listed = ", ".join(java_hash_order(unused, len(keys)))
                raise ValidationException(
                    f"Value provided in {label} unused in expressions: keys: {{{listed}}}"
                )


_SIMPLE_KEY = {"NAME": re.compile(r"#[A-Za-z0-9_]{1,200}"), "VALUE": re.compile(r":[A-Za-z0-9_]{1,200}")}


def _check_key(key: Any, kind: str, label: str, size_detail: str) -> None:
    if type(key) is str and _SIMPLE_KEY[kind].fullmatch(key) is not None:
        return  # the usual placeholder: short, ASCII, one token (the full check below tokenises it)
    if not isinstance(key, str):
        raise ValidationException(f'{label} contains invalid key: Syntax error; key: "{key}"')
    units = utf16(key)
    if len(units) > MAX_KEY_LENGTH:
        raise ValidationException(
            f"{label} contains invalid key: The expression attribute map contains a key that is too long;{size_detail}"
        )
    tokens = tokenize(units)
    if len(tokens) != 2 or tokens[0].kind != kind:
        raise ValidationException(f'{label} contains invalid key: Syntax error; key: "{key}"')


def _literal(raw: Any, value: dict) -> dict:
    kind = next(iter(value))
    if kind == "N":
        return {"N": raw["N"]}
    if kind == "L":
        return {"L": [_literal(r, v) for r, v in zip(raw["L"], value["L"], strict=True)]}
    if kind == "M":
        return {"M": {k: _literal(raw["M"][k], v) for k, v in value["M"].items()}}
    return value


def java_hash_order(keys: list[str], map_size: int) -> list[str]:
    """``keys`` in the iteration order of a Java HashSet copied from a map of ``map_size`` entries.

    DynamoDB lists unused placeholders in that order, which depends on String.hashCode and the table size.
    """
    capacity = 1
    wanted = max(int(map_size / 0.75) + 1, 16)
    while capacity < wanted:
        capacity *= 2

    def bucket(key: str) -> int:
        h = 0
        for unit in utf16(key):
            h = (31 * h + ord(unit)) & 0xFFFFFFFF
        return (h ^ (h >> 16)) & (capacity - 1)

    return sorted(keys, key=bucket)  # stable: keys sharing a bucket keep their order
