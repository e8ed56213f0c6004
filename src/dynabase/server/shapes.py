"""Wire <-> engine shapes, driven by botocore's service models.

The engine takes and returns the JSON protocol's dicts except that blobs are ``bytes``. Requests are walked along
the operation's input shape (compiled once per shape into closures): every ``blob`` member is base64-decoded,
every member is type-checked the way the service's deserialiser does (``SerializationException`` with its
messages), JSON ``null`` members and members the model does not know are dropped, as the service ignores them.
Responses are walked along the output shape only where the model has numbers or timestamps (coerced to JSON
numbers); their bytes are base64-encoded by the JSON encoder (see :mod:`.jsonio`), which is equivalent because
the engine only ever returns blobs as bytes.

``AttributeValue`` (recursive, and where nearly all the data is) gets a hand-written walker; it is used only when
the model's shape has exactly the members and types it was written for, otherwise the generic compiler runs.

The model files are read straight from botocore's data directory (no botocore import: that costs 0.1 s+ of
start-up), falling back to ``botocore.session`` when the files are not where expected.
"""

from __future__ import annotations

import base64
import binascii
import functools
import gzip
import json
import math
import os
import threading
from collections.abc import Callable
from typing import Any

from ..errors import DynamoDBError, SerializationException, ValidationException

Converter = Callable[..., Any]

#: service name -> the X-Amz-Target prefix it answers
SERVICES = {"dynamodb": "DynamoDB_20120810", "dynamodbstreams": "DynamoDBStreams_20120810"}

#: nesting of M/L values past which the walker refuses the request (DynamoDB's own limit is 32 levels; the
#: engine enforces that one, this only keeps hostile input from exhausting the stack)
MAX_ATTRIBUTE_DEPTH = 64
NESTING_MESSAGE = "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"


# -- loading the model ---------------------------------------------------------------------------------------


def _botocore_data_dir() -> str | None:
    import importlib.util

    spec = importlib.util.find_spec("botocore")
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.join(list(spec.submodule_search_locations)[0], "data")


@functools.cache
def load_model(service: str) -> dict[str, Any]:
    """The service model (``service-2.json``) as a dict, newest API version (read once: callers only read it;
    the wire shapes and the engine's request validation share it)."""
    data = _botocore_data_dir()
    if data is not None:
        base = os.path.join(data, service)
        try:
            versions = sorted(
                v
                for v in os.listdir(base)
                if os.path.isfile(os.path.join(base, v, "service-2.json.gz"))
                or os.path.isfile(os.path.join(base, v, "service-2.json"))
            )
        except OSError:
            versions = []
        if versions:
            path = os.path.join(base, versions[-1], "service-2.json")
            try:
                if os.path.isfile(path + ".gz"):
                    with gzip.open(path + ".gz", "rb") as handle:
                        raw = handle.read()
                else:
                    with open(path, "rb") as handle:
                        raw = handle.read()
                from .jsonio import loads

                return loads(raw) if raw.count(b"{") < 100_000 else json.loads(raw)
            except (OSError, ValueError):
                pass
    import botocore.session  # pragma: no cover - unusual installs (zipped, custom data paths)

    loader = botocore.session.get_session().get_component("data_loader")  # pragma: no cover
    return loader.load_service_model(service, "service-2")  # pragma: no cover


# -- type errors, in the words of the service's deserialiser ------------------------------------------------


def _java_number_class(value: Any) -> str:
    if isinstance(value, float) and not value.is_integer():
        return "java.lang.Double"
    if -32768 <= value <= 32767:
        return "java.lang.Short"
    if -2147483648 <= value <= 2147483647:
        return "java.lang.Integer"
    return "java.lang.Long"


def _mismatch(value: Any, target: str) -> DynamoDBError:
    """``target``: the Java type the member deserialises to (String, Integer, Long, Double, Boolean, Date, Blob),
    or one of ``list``, ``map``, ``structure``."""
    if target == "list":
        message = (
            "Start of structure or map found where not expected."
            if isinstance(value, dict)
            else "Expected list or null"
        )
    elif target == "map":
        message = (
            "Start of list found where not expected" if isinstance(value, list) else "Expected map or null"
        )
    elif target == "structure":
        message = "Start of list found where not expected" if isinstance(value, list) else "Expected null"
    elif isinstance(value, list):
        message = "Start of list found where not expected"
    elif isinstance(value, dict):
        message = "Start of structure or map found where not expected."
    else:
        article = "a" if target == "Blob" else "an"
        if isinstance(value, bool):
            source = "class java.lang.Boolean"
        elif isinstance(value, (int, float)):
            source = "class " + _java_number_class(value)
        elif target == "Boolean":
            source = f"'{str(value).upper()}'"
        else:
            source = "class java.lang.String"
        message = f"{source} can not be converted to {article} {target}"
    return SerializationException(message)


_B64_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")


def decode_blob(value: Any) -> bytes:
    """A base64 blob, as strictly as the service reads it (padding required, canonical last character)."""
    if type(value) is not str:
        raise _mismatch(value, "Blob")
    try:
        decoded = binascii.a2b_base64(value, strict_mode=True)  # Python 3.11+
    except TypeError:  # pragma: no cover - Python 3.10: no strict mode
        try:
            decoded = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            decoded = None
    except (binascii.Error, ValueError):
        decoded = None
    if decoded is not None and len(value) % 4 == 0 and base64.b64encode(decoded).decode("ascii") == value:
        return decoded
    if len(value) % 4:
        reason = f"Base64 encoded length is expected a multiple of 4 bytes but found: {len(value)}"
    else:
        bad = next((c for c in value if c not in _B64_ALPHABET), None)
        if bad is None:
            padding = value.find("=")
            if 0 <= padding < len(value) - 2 or (padding == len(value) - 2 and value[-1] != "="):
                bad = "="
        reason = (
            f"Invalid Base64 character: '{bad}'" if bad else "Invalid last non-pad Base64 character dectected"
        )
    raise SerializationException(f"'{value}' can not be converted to a Blob: {reason}")


# -- scalar converters (request side) ------------------------------------------------------------------------


def _string(value: Any) -> Any:
    if type(value) is str:
        return value
    raise _mismatch(value, "String")


def _integer_of(target: str) -> Converter:
    def convert(value: Any) -> Any:
        kind = type(value)
        if kind is int:
            return value
        if kind is float and math.isfinite(value):
            return math.floor(value)
        raise _mismatch(value, target)

    return convert


def _double(value: Any) -> Any:
    kind = type(value)
    if kind is float or kind is int:
        return value
    raise _mismatch(value, "Double")


def _timestamp(value: Any) -> Any:
    kind = type(value)
    if kind is float or kind is int:
        return value
    raise _mismatch(value, "Date")


def _boolean(value: Any) -> Any:
    if type(value) is bool:
        return value
    if type(value) is float and not value.is_integer():  # the service's reader takes these, oddly
        return abs(value) >= 1
    raise _mismatch(value, "Boolean")


_SCALARS: dict[str, Converter] = {
    "string": _string,
    "integer": _integer_of("Integer"),
    "long": _integer_of("Long"),
    "double": _double,
    "float": _double,
    "boolean": _boolean,
    "timestamp": _timestamp,
    "blob": decode_blob,
}


# -- AttributeValue ------------------------------------------------------------------------------------------

#: member -> model type, as the hand-written walker expects them
_AV_SIGNATURE = {
    "S": "string",
    "N": "string",
    "B": "blob",
    "SS": ("list", "string"),
    "NS": ("list", "string"),
    "BS": ("list", "blob"),
    "M": ("map", "@"),
    "L": ("list", "@"),
    "NULL": "boolean",
    "BOOL": "boolean",
}


def _strings(value: Any) -> Any:
    if type(value) is not list:
        raise _mismatch(value, "list")
    for element in value:
        if (
            type(element) is not str and element is not None
        ):  # nulls in lists are left to the engine to refuse
            raise _mismatch(element, "String")
    return value


def _blobs(value: Any) -> Any:
    if type(value) is not list:
        raise _mismatch(value, "list")
    return [None if element is None else decode_blob(element) for element in value]


def attribute_value_in(value: Any, depth: int = 0) -> Any:
    """One AttributeValue from the wire: type-checked, blobs decoded (in place where possible).

    ``None`` (a JSON null in a list or map) is passed on for the engine to refuse as an empty AttributeValue.
    """
    if type(value) is not dict:
        if value is None:
            return None
        raise _mismatch(value, "structure")
    if len(value) == 1:
        ((kind, inner),) = value.items()
        if kind == "S" or kind == "N":
            if type(inner) is str:
                return value
            if inner is not None:
                raise _mismatch(inner, "String")
        elif kind == "M":
            if type(inner) is dict:
                if depth >= MAX_ATTRIBUTE_DEPTH:
                    raise ValidationException(NESTING_MESSAGE)
                depth += 1
                for name, element in inner.items():
                    converted = attribute_value_in(element, depth)
                    if converted is not element:
                        inner[name] = converted
                return value
            if inner is not None:
                raise _mismatch(inner, "map")
        elif kind == "L":
            if type(inner) is list:
                if depth >= MAX_ATTRIBUTE_DEPTH:
                    raise ValidationException(NESTING_MESSAGE)
                depth += 1
                for index, element in enumerate(inner):
                    converted = attribute_value_in(element, depth)
                    if converted is not element:
                        inner[index] = converted
                return value
            if inner is not None:
                raise _mismatch(inner, "list")
        elif kind == "B":
            if inner is not None:
                return {"B": decode_blob(inner)}
        elif kind == "BOOL" or kind == "NULL":
            if type(inner) is bool:
                return value
            if inner is not None:
                return {kind: _boolean(inner)}
        elif (kind == "SS" or kind == "NS") and inner is not None:
            return {kind: _strings(inner)}
        elif kind == "BS" and inner is not None:
            return {kind: _blobs(inner)}
    # several (or no, or unknown, or null) members: the service drops unknown and null ones, then validates
    out: dict[str, Any] = {}
    for kind, inner in value.items():
        if inner is None or kind not in _AV_SIGNATURE:
            continue
        out.update(attribute_value_in({kind: inner}, depth))
    return out


# -- compiled walkers ----------------------------------------------------------------------------------------


class ServiceShapes:
    """One service's model: per-operation request converters and response coercers, compiled on first use."""

    def __init__(self, service: str, model: dict[str, Any]) -> None:
        self.service = service
        self.model = model
        self.shapes: dict[str, dict[str, Any]] = model["shapes"]
        self.operations: dict[str, dict[str, Any]] = model["operations"]
        self.target_prefix: str = model.get("metadata", {}).get("targetPrefix", SERVICES.get(service, ""))
        self._in: dict[str, Converter] = {}
        self._out: dict[str, Converter | None] = {}
        self._lock = threading.Lock()
        self._requests: dict[str, Converter] = {}
        self._responses: dict[str, Converter | None] = {}

    # request side

    def request_converter(self, operation: str) -> Converter:
        converter = self._requests.get(operation)
        if converter is None:
            with self._lock:
                spec = self.operations[operation].get("input")
                converter = self._compile_in(spec["shape"]) if spec else _empty_input
                self._requests[operation] = converter
        return converter

    def _is_attribute_value(self, name: str) -> bool:
        shape = self.shapes[name]
        members = shape.get("members", {})
        if shape.get("type") != "structure" or set(members) != set(_AV_SIGNATURE):
            return False
        for member, expected in _AV_SIGNATURE.items():
            target = self.shapes[members[member]["shape"]]
            if isinstance(expected, str):
                if target.get("type") != expected:
                    return False
                continue
            container, element = expected
            if target.get("type") != container:
                return False
            inner = target["value" if container == "map" else "member"]["shape"]
            if element == "@":
                if inner != name:
                    return False
            elif self.shapes[inner].get("type") != element:
                return False
        return True

    def _compile_in(self, name: str) -> Converter:
        cached = self._in.get(name)
        if cached is not None:
            return cached
        shape = self.shapes[name]
        kind = shape["type"]
        if kind == "structure" and self._is_attribute_value(name):
            self._in[name] = attribute_value_in
            return attribute_value_in
        if kind in _SCALARS:
            converter = _SCALARS[kind]
            self._in[name] = converter
            return converter
        # containers may be recursive: publish a trampoline before compiling the members
        slot: list[Converter] = []
        self._in[name] = lambda value: slot[0](value)
        if kind == "structure":
            members = {
                member: self._compile_in(spec["shape"]) for member, spec in shape.get("members", {}).items()
            }
            converter = _structure_in(members)
        elif kind == "list":
            converter = _list_in(self._compile_in(shape["member"]["shape"]))
        elif kind == "map":
            converter = _map_in(self._compile_in(shape["value"]["shape"]))
        else:  # pragma: no cover - a type newer than this code: pass it through
            converter = _identity
        slot.append(converter)
        self._in[name] = converter
        return converter

    # response side

    def response_coercer(self, operation: str) -> Converter | None:
        if operation in self._responses:
            return self._responses[operation]
        with self._lock:
            spec = self.operations[operation].get("output")
            coercer = self._compile_out(spec["shape"], set()) if spec else None
            self._responses[operation] = coercer
        return coercer

    def _compile_out(self, name: str, visiting: set[str]) -> Converter | None:
        """A function fixing up numbers and timestamps under this shape, or None when there are none."""
        if name in self._out:
            return self._out[name]
        shape = self.shapes[name]
        kind = shape["type"]
        if kind in _OUT_SCALARS:
            return _OUT_SCALARS[kind]
        if name in visiting or (kind == "structure" and self._is_attribute_value(name)):
            return (
                None  # AttributeValues have no numbers (they are strings on the wire); recursion: nothing new
            )
        visiting.add(name)
        converter: Converter | None = None
        if kind == "structure":
            members = {}
            for member, spec in shape.get("members", {}).items():
                inner = self._compile_out(spec["shape"], visiting)
                if inner is not None:
                    members[member] = inner
            converter = _structure_out(members) if members else None
        elif kind == "list":
            inner = self._compile_out(shape["member"]["shape"], visiting)
            converter = _list_out(inner) if inner else None
        elif kind == "map":
            inner = self._compile_out(shape["value"]["shape"], visiting)
            converter = _map_out(inner) if inner else None
        visiting.discard(name)
        self._out[name] = converter
        return converter


def _identity(value: Any) -> Any:
    return value


def _empty_input(value: Any) -> Any:
    if type(value) is not dict:
        raise _mismatch(value, "structure")
    return {}


def _structure_in(members: dict[str, Converter]) -> Converter:
    get = members.get

    def convert(value: Any) -> Any:
        if type(value) is not dict:
            raise _mismatch(value, "structure")
        out = {}
        for member, inner in value.items():
            converter = get(member)
            if converter is not None and inner is not None:
                out[member] = converter(inner)
        return out

    return convert


def _list_in(element: Converter) -> Converter:
    if element is _string:
        return _strings

    def convert(value: Any) -> Any:
        if type(value) is not list:
            raise _mismatch(value, "list")
        return [None if item is None else element(item) for item in value]

    return convert


def _map_in(element: Converter) -> Converter:
    def convert(value: Any) -> Any:
        if type(value) is not dict:
            raise _mismatch(value, "map")
        return {key: None if item is None else element(item) for key, item in value.items()}

    return convert


# response side: the engine's numbers should already be JSON numbers; these fix Decimals, numeric strings,
# integral floats in integer members and datetimes, so the wire always carries what the model says


def _out_integer(value: Any) -> Any:
    if type(value) is int:
        return value
    try:
        if isinstance(value, bool):
            return value
        number = float(value)
        return int(number) if number.is_integer() else number
    except (TypeError, ValueError):
        return value


def _out_double(value: Any) -> Any:
    if type(value) is float or type(value) is int:
        return value
    try:
        return float(value)
    except (TypeError, ValueError):
        return value


def _out_timestamp(value: Any) -> Any:
    if type(value) is float or type(value) is int:
        return value
    if hasattr(value, "timestamp"):
        return value.timestamp()
    try:
        return float(value)
    except (TypeError, ValueError):
        pass
    try:
        from datetime import datetime

        return datetime.fromisoformat(str(value).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return value


_OUT_SCALARS: dict[str, Converter] = {
    "integer": _out_integer,
    "long": _out_integer,
    "double": _out_double,
    "float": _out_double,
    "timestamp": _out_timestamp,
}


def _structure_out(members: dict[str, Converter]) -> Converter:
    items = tuple(members.items())

    def convert(value: Any) -> Any:
        if type(value) is dict:
            for member, converter in items:
                inner = value.get(member)
                if inner is not None:
                    value[member] = converter(inner)
        return value

    return convert


def _list_out(element: Converter) -> Converter:
    def convert(value: Any) -> Any:
        if type(value) is list:
            for index, item in enumerate(value):
                value[index] = element(item)
        return value

    return convert


def _map_out(element: Converter) -> Converter:
    def convert(value: Any) -> Any:
        if type(value) is dict:
            for key, item in value.items():
                value[key] = element(item)
        return value

    return convert


# -- the registry ---------------------------------------------------------------------------------------------


class Models:
    """Both services' shapes, loaded once (in the background right after start-up, or on first use)."""

    def __init__(self) -> None:
        self._services: dict[str, ServiceShapes] = {}
        self._by_prefix: dict[str, ServiceShapes] = {}
        self._lock = threading.Lock()

    def service(self, name: str) -> ServiceShapes:
        shapes = self._services.get(name)
        if shapes is None:
            with self._lock:
                shapes = self._services.get(name)
                if shapes is None:
                    shapes = ServiceShapes(name, load_model(name))
                    self._services[name] = shapes
                    self._by_prefix[shapes.target_prefix] = shapes
        return shapes

    def for_prefix(self, prefix: str) -> ServiceShapes | None:
        shapes = self._by_prefix.get(prefix)
        if shapes is None:
            for name, known in SERVICES.items():
                if known == prefix:
                    return self.service(name)
        return shapes

    def preload(self, operations: tuple[str, ...] = ("GetItem", "PutItem", "Query", "UpdateItem")) -> None:
        """Load the DynamoDB model and compile the hot operations (the streams model loads on first use)."""
        shapes = self.service("dynamodb")
        for operation in operations:
            if operation in shapes.operations:
                shapes.request_converter(operation)
                shapes.response_coercer(operation)
