"""DynamoDB JSON, as DynamoDB's S3 export writes it: ``{"Item": {"pk": {"S": "a"}, "b": {"B": "<base64>"}}}``.

boto3's low-level AttributeValues hold binaries as ``bytes``; in DynamoDB JSON they are base64 strings. Numbers
stay strings both ways. :func:`decode_item` checks the shape strictly and names the offending attribute path.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any

from ..types import MAX_NESTING, NESTING

AttributeValue = dict[str, Any]
Item = dict[str, AttributeValue]

TYPES = ("S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS")

#: a JSON escape of a UTF-16 surrogate: the only way a line decoded as strict UTF-8 can hold one
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class InvalidItem(ValueError):
    """A line that is not a valid DynamoDB JSON item; the message names the attribute path."""


# -- encoding (export) ---------------------------------------------------------------------------------------


def _b64(value: Any) -> str:
    if isinstance(value, str):  # already base64 (some clients hand binaries through as text)
        return value
    return base64.b64encode(bytes(value)).decode("ascii")


def encode_value(value: AttributeValue) -> Any:
    (kind, inner), *_ = value.items()
    if kind == "B":
        return {"B": _b64(inner)}
    if kind == "BS":
        return {"BS": [_b64(v) for v in inner]}
    if kind == "M":
        return {"M": {k: encode_value(v) for k, v in inner.items()}}
    if kind == "L":
        return {"L": [encode_value(v) for v in inner]}
    return {kind: inner}


def encode_item(item: Item) -> dict[str, Any]:
    return {name: encode_value(value) for name, value in item.items()}


def item_line(item: Item) -> str:
    """One export line (no newline): ``{"Item":{...}}``, compact, UTF-8 text."""
    return json.dumps({"Item": encode_item(item)}, ensure_ascii=False, separators=(",", ":"))


# -- decoding (import) ---------------------------------------------------------------------------------------


def _unb64(text: Any, path: str) -> bytes:
    if not isinstance(text, str):
        raise InvalidItem(f"{path}: binary value must be a base64 string, got {type(text).__name__}")
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise InvalidItem(f"{path}: invalid base64 in binary value")


def _string_list(inner: Any, kind: str, path: str) -> list[str]:
    if not isinstance(inner, list):
        raise InvalidItem(f"{path}: {kind} must be a list, got {type(inner).__name__}")
    if not inner:
        raise InvalidItem(f"{path}: {kind} must not be empty (DynamoDB has no empty sets)")
    for i, v in enumerate(inner):
        if not isinstance(v, str):
            raise InvalidItem(f"{path}[{i}]: {kind} elements must be strings, got {type(v).__name__}")
    return inner


def decode_value(value: Any, path: str, depth: int = 0) -> AttributeValue:
    if not isinstance(value, dict):
        raise InvalidItem(f'{path}: an AttributeValue must be an object like {{"S": "text"}}')
    if len(value) != 1:
        found = ", ".join(sorted(value)) or "none"
        raise InvalidItem(f"{path}: an AttributeValue must have exactly one type key (found: {found})")
    (kind, inner), *_ = value.items()
    if kind == "S":
        if not isinstance(inner, str):
            raise InvalidItem(f"{path}: S must be a string, got {type(inner).__name__}")
        return {"S": inner}
    if kind == "N":
        if not isinstance(inner, str):
            raise InvalidItem(f'{path}: N must be a number in a string ("12.5"), got {type(inner).__name__}')
        return {"N": inner}
    if kind == "B":
        return {"B": _unb64(inner, path)}
    if kind == "BOOL":
        if not isinstance(inner, bool):
            raise InvalidItem(f"{path}: BOOL must be true or false, got {type(inner).__name__}")
        return {"BOOL": inner}
    if kind == "NULL":
        if inner is not True:
            raise InvalidItem(f"{path}: NULL must be true")
        return {"NULL": True}
    if kind in ("SS", "NS"):
        return {kind: list(_string_list(inner, kind, path))}
    if kind == "BS":
        texts = _string_list(inner, "BS", path)
        return {"BS": [_unb64(t, f"{path}[{i}]") for i, t in enumerate(texts)]}
    if kind in ("M", "L") and depth + 1 >= MAX_NESTING:  # as DynamoDB (and the engine) count them
        raise InvalidItem(f"{path}: {NESTING} (DynamoDB nests attributes {MAX_NESTING} levels deep at most)")
    if kind == "M":
        if not isinstance(inner, dict):
            raise InvalidItem(f"{path}: M must be an object, got {type(inner).__name__}")
        return {"M": {k: decode_value(v, f"{path}.{k}", depth + 1) for k, v in inner.items()}}
    if kind == "L":
        if not isinstance(inner, list):
            raise InvalidItem(f"{path}: L must be a list, got {type(inner).__name__}")
        return {"L": [decode_value(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(inner)]}
    raise InvalidItem(f"{path}: unknown AttributeValue type {kind!r} (expected one of {', '.join(TYPES)})")


def decode_item(document: Any) -> Item:
    """The item of one parsed line: ``{"Item": {...}}`` (DynamoDB's export) or a bare ``{...}`` item."""
    if not isinstance(document, dict):
        raise InvalidItem(f"a line must hold a JSON object, got {type(document).__name__}")
    if set(document) == {"Item"}:
        document = document["Item"]
        if not isinstance(document, dict):
            raise InvalidItem("Item must be an object of attributes")
    if not document:
        raise InvalidItem("the item has no attributes")
    try:
        return {name: decode_value(value, name) for name, value in document.items()}
    except InvalidItem as error:
        raise InvalidItem(f"attribute {error}")


def printable(text: str) -> str:
    """``text`` with lone surrogates spelled ``\\udXXX``, so it can be printed and written as UTF-8."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _lone_surrogate(value: AttributeValue, path: str) -> str | None:
    """The path of the first name or string in ``value`` holding a lone surrogate, or None."""
    (kind, inner), *_ = value.items()
    if kind in ("S", "N"):
        return path if _has_surrogate(inner) else None
    if kind in ("SS", "NS"):
        return next((f"{path}[{i}]" for i, v in enumerate(inner) if _has_surrogate(v)), None)
    if kind == "M":
        return _surrogate_in(inner, f"{path}.")
    if kind == "L":
        found = (_lone_surrogate(v, f"{path}[{i}]") for i, v in enumerate(inner))
        return next((f for f in found if f is not None), None)
    return None


def _surrogate_in(attributes: Item, prefix: str = "") -> str | None:
    for name, value in attributes.items():
        found = prefix + name if _has_surrogate(name) else _lone_surrogate(value, prefix + name)
        if found is not None:
            return found
    return None


def parse_line(raw: bytes) -> Item:
    """Decode one input line (bytes, newline included or not) into a boto3-shaped item."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InvalidItem(f"not UTF-8 text ({error.reason} at byte {error.start + 1})")
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise InvalidItem(f"invalid JSON: {error.msg} (column {error.colno})")
    except RecursionError:
        raise InvalidItem("invalid JSON: nested too deeply")
    try:
        item = decode_item(document)
        where = _surrogate_in(item) if _SURROGATE_ESCAPE.search(text) else None
    except RecursionError:
        raise InvalidItem("item nested too deeply")
    if where is not None:
        raise InvalidItem(
            f"attribute {printable(where)}: a lone surrogate (a \\uD800-\\uDFFF escape without its pair) is "
            "not UTF-8 text, which DynamoDB strings must be"
        )
    return item
