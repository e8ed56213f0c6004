"""The words and limits of the OneTable 1.1.0 schema format, and the small helpers its messages use."""

from __future__ import annotations

import datetime as _dt
import decimal
import difflib
import re
from collections.abc import Mapping
from typing import Any

FORMAT = "onetable:1.1.0"

TOP_LEVEL_PROPS = (
    "format",
    "version",
    "description",
    "name",
    "indexes",
    "models",
    "params",
    "process",
    "queries",
    "items",
    "extensions",
)
PARAM_PROPS = (
    "typeField",
    "createdField",
    "updatedField",
    "timestamps",
    "isoDates",
    "nulls",
    "separator",
    "warn",
    "hidden",
    "partial",
    "legacyEmpties",
    "crypto",
)
MAX_KEY_ATTRIBUTES = 4  # of a global index's multi-attribute partition (or sort) key
INDEX_PROPS = ("hash", "sort", "project", "follow", "type", "description")
FIELD_PROPS = (
    "type",
    "value",
    "default",
    "generate",
    "required",
    "enum",
    "validate",
    "unique",
    "scope",
    "crypt",
    "hidden",
    "map",
    "schema",
    "items",
    "partial",
    "nulls",
    "ttl",
    "encode",
    "filter",
    "isoDates",
    "reference",
    "timestamp",
    "uuid",
)
PROCESS_PROPS = ("enable", "sync", "scope", "metrics", "notify")
METRIC_PROPS = ("namespace", "fields", "dimensions", "where", "buffer")
CRYPTO_PROPS = ("cipher", "password")

ENABLE_VALUES = ("cloud", "device", "both")
SYNC_VALUES = ("up", "down", "both", "none")
CIPHERS = ("aes-256-gcm",)
INTERNAL_MODELS = ("_Schema", "_Migration", "_Unique", "_Generic")
MAX_NESTING = 32
MAX_LOCAL_INDEXES = 5
MAX_GLOBAL_INDEXES = 20  # the default AWS quota (adjustable), hence only a warning

# https://semver.org/#is-there-a-suggested-regular-expression-regex-to-check-a-semver-string
SEMVER = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$",
    re.ASCII,
)
MODEL_NAME = re.compile(r"^[a-zA-Z_]+\w*$", re.ASCII)
INDEX_NAME = re.compile(r"^[A-Za-z0-9_.\-]{3,255}$")
FIELD_NAME_FORBIDDEN = set(".:{}")
UID_SPEC = re.compile(r"^uid\((\d{1,6})\)$")

TYPE_ALIASES = {"buffer": "binary", "arraybuffer": "binary"}
PY_TYPES: dict[Any, str] = {
    str: "string",
    int: "number",
    float: "number",
    decimal.Decimal: "number",
    bool: "boolean",
    dict: "object",
    list: "array",
    tuple: "array",
    set: "set",
    frozenset: "set",
    bytes: "binary",
    bytearray: "binary",
    _dt.datetime: "date",
    _dt.date: "date",
}
KEY_TYPES = ("string", "number", "binary", "date")
_JS_FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL, "u": 0, "g": 0, "y": 0, "d": 0}


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, (int, float, decimal.Decimal))


def kind_of(value: Any) -> str:
    """A short JSON-ish name for the type of ``value`` (for messages)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if is_number(value):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, (list, tuple)):
        return "list"
    return type(value).__name__


def show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def suggest(word: str, choices: Any) -> str:
    matches = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {matches[0]!r}?)" if matches else ""


def js_regex(text: str) -> re.Pattern[str]:
    """Compile a OneTable ``validate`` string: ``'/pattern/flags'`` or a plain pattern.

    JavaScript flags i, m and s map to Python's; g, y, d and u do not change a match test. ``$`` without
    the m flag means end of input (``\\Z``), ``(?<name>`` becomes ``(?P<name>``, and ``\\d``/``\\w`` match
    ASCII only, as in JavaScript. Raises ``ValueError`` with a readable reason.
    """
    flags = 0
    pattern = text
    if text.startswith("/") and text.rfind("/") > 0:
        end = text.rfind("/")
        pattern = text[1:end]
        for flag in text[end + 1 :]:
            if flag not in _JS_FLAGS:
                raise ValueError(f"unknown regular expression flag {flag!r}")
            flags |= _JS_FLAGS[flag]
    out: list[str] = []
    i = 0
    in_class = False
    n = len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
            out.append(ch)
        elif ch == "[":
            in_class = True
            out.append(ch)
            if pattern.startswith("^]", i + 1) or pattern.startswith("]", i + 1):
                # JavaScript: "[]" matches nothing and "[^]" anything; Python reads ']' as a literal.
                negated = pattern.startswith("^]", i + 1)
                out[-1] = "(?s:.)" if negated else "(?!)"
                in_class = False
                i += 3 if negated else 2
                continue
        elif ch == "$" and not flags & re.MULTILINE:
            out.append(r"\Z")
        elif pattern.startswith("(?<", i) and not pattern.startswith(("(?<=", "(?<!"), i):
            out.append("(?P<")
            i += 3
            continue
        else:
            out.append(ch)
        i += 1
    try:
        return re.compile("".join(out), flags | re.ASCII)
    except (re.error, OverflowError, RecursionError) as exc:
        raise ValueError(f"invalid regular expression: {exc}") from None


__all__ = [
    "CIPHERS",
    "CRYPTO_PROPS",
    "ENABLE_VALUES",
    "FIELD_NAME_FORBIDDEN",
    "FIELD_PROPS",
    "FORMAT",
    "INDEX_NAME",
    "INDEX_PROPS",
    "INTERNAL_MODELS",
    "KEY_TYPES",
    "MAX_GLOBAL_INDEXES",
    "MAX_KEY_ATTRIBUTES",
    "MAX_LOCAL_INDEXES",
    "MAX_NESTING",
    "METRIC_PROPS",
    "MODEL_NAME",
    "PARAM_PROPS",
    "PROCESS_PROPS",
    "SEMVER",
    "SYNC_VALUES",
    "TOP_LEVEL_PROPS",
    "TYPE_ALIASES",
    "UID_SPEC",
    "is_int",
    "is_number",
    "js_regex",
    "kind_of",
    "show",
    "suggest",
]
