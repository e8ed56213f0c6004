"""JSON in and out of the server: orjson when it is installed (several times faster), the stdlib otherwise.

orjson is imported by :func:`upgrade`, which the server calls from a background thread once it is listening
(importing it costs ~20 ms, mostly its own imports of uuid/platform/zoneinfo): the first requests are parsed
by the stdlib, the same way.

Both sides are hardened for hostile input: ``NaN``/``Infinity`` literals are refused, nesting deeper than
:data:`dynabase.jsonlimits.MAX_DEPTH` is refused with :class:`JSONError` before either parser recurses into it
(measured without recursion: the C parsers would exhaust the thread's stack), and bytes in a response are
written as base64 (every binary the engine returns is a blob of the service model).
"""

from __future__ import annotations

import base64
import json
from binascii import b2a_base64
from decimal import Decimal
from typing import Any

from .. import jsonlimits

_orjson: Any = None


class JSONError(ValueError):
    """The body is not one JSON document this server accepts."""


def _refuse_constant(name: str) -> Any:
    raise JSONError(f"invalid JSON literal {name}")


_std_decoder = json.JSONDecoder(parse_constant=_refuse_constant)


def _bounded(body: bytes | bytearray) -> None:
    try:
        jsonlimits.check(body)
    except jsonlimits.TooDeep as error:
        raise JSONError(str(error)) from None


def _std_loads(body: bytes | bytearray) -> Any:
    _bounded(body)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise JSONError(f"body is not UTF-8: {error}") from None
    try:
        return _std_decoder.decode(text)
    except RecursionError:
        raise JSONError("JSON nesting too deep") from None
    except ValueError as error:
        raise JSONError(str(error)) from None


def _orjson_loads(body: bytes | bytearray) -> Any:
    _bounded(body)
    try:
        return _orjson.loads(body)
    except _orjson.JSONDecodeError as error:
        raise JSONError(str(error)) from None


def _default(value: Any) -> Any:
    if type(value) is bytes:  # B and BS values, the usual case: base64.b64encode without its checks
        return b2a_base64(value, newline=False).decode("ascii")
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if hasattr(value, "timestamp"):  # datetime: the JSON protocol's timestamps are epoch seconds
        return value.timestamp()
    raise TypeError(f"cannot serialise {type(value).__name__}")


_std_encode = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), default=_default, allow_nan=False
).encode


def _std_dumps(value: Any) -> bytes:
    return _std_encode(value).encode("utf-8", "surrogatepass")


def _orjson_dumps(value: Any) -> bytes:
    try:
        return _orjson.dumps(value, default=_default)
    except TypeError:  # integers beyond 64 bits, lone surrogates, deep nesting: the stdlib copes or says why
        return _std_dumps(value)


loads = _std_loads
dumps = _std_dumps
BACKEND = "json"


def upgrade() -> str:
    """Switch to orjson if it is installed; returns the backend in use ("orjson" or "json")."""
    global _orjson, loads, dumps, BACKEND
    if _orjson is None:
        try:
            import orjson
        except ImportError:  # pragma: no cover - depends on the machine
            return BACKEND
        _orjson = orjson
        loads, dumps, BACKEND = _orjson_loads, _orjson_dumps, "orjson"
    return BACKEND
