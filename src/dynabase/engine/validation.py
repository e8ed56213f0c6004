"""Request validation from the service model, before any semantic check, in the service's words.

DynamoDB validates a request against its API model first and answers with messages built from the model's
constraints: ``1 validation error detected: Value '' at 'tableName' failed to satisfy constraint: Member must
have length greater than or equal to 1`` (several at once: ``2 validation errors detected: ...; ...``).  This
module compiles, once per operation, a checker from botocore's service model (the same ``service-2.json`` the
server reads) for the constraints whose message is established:

* a required member that is absent or null: ``Value null at '<path>' ...: Member must not be null``;
* strings: ``min``/``max`` length, ``pattern``, ``enum``; numbers: ``min``/``max`` value;
* lists and maps: ``min``/``max`` length, where the value's rendering is established (lists of strings, the
  key schema); lists of other structures keep the engine's own checks (their rendering in the service's
  message could not be established).

Paths use the service's member naming: the member name with its first letter in lower case, list elements as
``<member>.<n>.member`` (1-based) and map values as ``<member>.<key>.member``.

Established from public reports of the service's answers: the envelope (``1 validation error detected: `` /
``N validation errors detected: `` with ``; `` between), the ``Value '<v>' at '<path>' failed to satisfy
constraint: Member must ...`` form for lengths, patterns, enums and ``null``, the ``KeySchemaElement(...)``
rendering of a key schema list, and data-plane ``tableName`` allowing 1..1024 characters (table ARNs).  Not
established, and chosen here: the order of several errors (the model's member order, depth first), the order of
two errors on one string (pattern before length), that an empty string breaks only the length (not the
pattern), the rendering of lists of other structures (their length is then left to the engine's own checks),
whether the service caps the number of errors it lists (all are listed), and the order of enum values where
DynamoDB Local shows none (botocore's order).

Beyond the model, the service's words could not be established (and the engine keeps DynamoDB Local's) for: a
secondary index sort key value over 1024 bytes, the name of a key or projected attribute of at most 255
characters but over 255 bytes, and a DescribeStream ``ShardFilter`` without ``Type``; for ListStreams with a
malformed ``ExclusiveStartStreamArn`` the service's ValidationException is established but not its message
(the engine answers ``Invalid StreamArn``, DescribeStream's).

Cost: :func:`checker` returns ``None`` for subtrees without constraints, so AttributeValues are never walked;
data-plane operations check only their top-level members up front (:func:`shallow`) and the whole request
when the engine refuses it (see :meth:`dynabase.engine.Engine.call`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any

from ..errors import ValidationException

#: (value, path, errors) -> None; appends one message per violated constraint
Check = Callable[[Any, str, list[str]], None]

#: the order of values in the service's enum messages where it differs from botocore's model (each established
#: from DynamoDB Local's answers, which use the service's validator)
ENUM_ORDER = {
    "AttributeAction": ["ADD", "DELETE", "PUT"],
    "ScalarAttributeType": ["B", "N", "S"],
    "ShardIteratorType": ["AFTER_SEQUENCE_NUMBER", "AT_SEQUENCE_NUMBER", "LATEST", "TRIM_HORIZON"],
}


def _member_path(parent: str, member: str) -> str:
    name = member[:1].lower() + member[1:]
    return f"{parent}.{name}" if parent else name


#: the most characters of a value a message quotes: longer ones are cut, with "..." (how the service cuts a huge
#: value could not be established; a message must not repeat a 16 MiB value). Every length-constrained member's
#: limit is below it, and DynamoDB Local quotes such values whole (an 8,193-character PartiQL statement, say)
QUOTED_CHARS = 65536


def quoted(text: str) -> str:
    """``text`` as a message quotes it: whole up to :data:`QUOTED_CHARS` characters, else that prefix and
    ``...``."""
    return text if len(text) <= QUOTED_CHARS else text[:QUOTED_CHARS] + "..."


def render(value: Any) -> str | None:
    """A value as the service's message shows it (``None`` when its rendering is not established); at most
    :data:`QUOTED_CHARS` characters of it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"'{'true' if value else 'false'}'"
    if isinstance(value, str):
        return f"'{quoted(value)}'"
    if isinstance(value, (int, float)):
        return f"'{quoted(str(value))}'"
    if isinstance(value, list):
        parts = []
        for element in value:
            if isinstance(element, str):
                parts.append(element)
            elif isinstance(element, dict) and element.keys() <= {"AttributeName", "KeyType"}:
                parts.append(
                    f"KeySchemaElement(attributeName={element.get('AttributeName')}, "
                    f"keyType={element.get('KeyType')})"
                )
            else:
                return None
        return "'" + quoted("[" + ", ".join(parts) + "]") + "'"
    return None


def _message(value: Any, path: str, constraint: str) -> str:
    return f"Value {render(value)} at '{path}' failed to satisfy constraint: {constraint}"


class _Compiler:
    def __init__(self, model: dict[str, Any]) -> None:
        self.shapes: dict[str, Any] = model["shapes"]
        #: operation name -> its input shape's name
        self.inputs: dict[str, str] = {
            name: op["input"]["shape"] for name, op in model.get("operations", {}).items() if "input" in op
        }
        self.compiled: dict[str, Check | None] = {}

    def shape(self, name: str) -> Check | None:
        if name in self.compiled:
            return self.compiled[name]
        self.compiled[name] = None  # recursive shapes (AttributeValue) carry no constraints of their own
        spec = self.shapes[name]
        kind = spec["type"]
        if kind == "structure":
            check = self._structure(spec)
        elif kind in ("list", "map"):
            check = self._collection(spec, kind)
        elif kind == "string":
            check = self._string(name, spec)
        elif kind in ("integer", "long"):
            check = self._number(spec)
        else:
            check = None
        self.compiled[name] = check
        return check

    def _structure(self, spec: dict[str, Any], members: list[str] | None = None) -> Check | None:
        required = set(spec.get("required", ()))
        checks = []
        for member, ref in spec.get("members", {}).items():
            if members is not None and member not in members:
                continue
            inner = self.shape(ref["shape"])
            if inner is not None or member in required:
                checks.append((member, inner, member in required))
        if not checks:
            return None

        def check(value: Any, path: str, errors: list[str]) -> None:
            if not isinstance(value, dict):
                return  # a type error: the deserialiser's (SerializationException), not a constraint
            for member, inner, needed in checks:
                got = value.get(member)
                if got is None:
                    if needed:
                        errors.append(_message(None, _member_path(path, member), "Member must not be null"))
                elif inner is not None:
                    inner(got, _member_path(path, member), errors)

        return check

    def _collection(self, spec: dict[str, Any], kind: str) -> Check | None:
        low, high = spec.get("min"), spec.get("max")
        element = self.shape(spec["member" if kind == "list" else "value"]["shape"])
        if low is None and high is None and element is None:
            return None

        def check(value: Any, path: str, errors: list[str]) -> None:
            if not isinstance(value, (list, dict)):
                return
            if (low is not None and len(value) < low) or (high is not None and len(value) > high):
                shown = render(value) if isinstance(value, list) else None
                if shown is not None:
                    bound = (
                        f"greater than or equal to {low}"
                        if low is not None and len(value) < low
                        else f"less than or equal to {high}"
                    )
                    errors.append(
                        f"Value {shown} at '{path}' failed to satisfy constraint: Member must have length {bound}"
                    )
            if element is None:
                return
            if isinstance(value, list):
                for index, item in enumerate(value, 1):
                    if item is not None:
                        element(item, f"{path}.{index}.member", errors)
            else:
                for key, item in value.items():
                    if item is not None:
                        element(item, f"{path}.{key}.member", errors)

        return check

    def _string(self, name: str, spec: dict[str, Any]) -> Check | None:
        low, high, pattern, enum = spec.get("min"), spec.get("max"), spec.get("pattern"), spec.get("enum")
        if low is None and high is None and pattern is None and enum is None:
            return None
        regex = _java_regex(pattern) if pattern else None
        if enum is not None:
            allowed = frozenset(enum)
            enum_text = f"Member must satisfy enum value set: [{', '.join(ENUM_ORDER.get(name, enum))}]"

        def check(value: Any, path: str, errors: list[str]) -> None:
            if not isinstance(value, str):
                return
            if enum is not None and value not in allowed:
                errors.append(_message(value, path, enum_text))
            # an empty string breaks a "+" pattern too; the service reports its length only
            if regex is not None and value and regex.fullmatch(value) is None:
                errors.append(
                    _message(value, path, f"Member must satisfy regular expression pattern: {pattern}")
                )
            if low is not None and len(value) < low:
                errors.append(
                    _message(value, path, f"Member must have length greater than or equal to {low}")
                )
            if high is not None and len(value) > high:
                errors.append(_message(value, path, f"Member must have length less than or equal to {high}"))

        return check

    def _number(self, spec: dict[str, Any]) -> Check | None:
        low, high = spec.get("min"), spec.get("max")
        if low is None and high is None:
            return None

        def check(value: Any, path: str, errors: list[str]) -> None:
            if not isinstance(value, int) or isinstance(value, bool):
                return
            if low is not None and value < low:
                errors.append(_message(value, path, f"Member must have value greater than or equal to {low}"))
            if high is not None and value > high:
                errors.append(_message(value, path, f"Member must have value less than or equal to {high}"))

        return check


def _java_regex(pattern: str) -> re.Pattern[str] | None:
    """The model's (Java) pattern as a Python regex; ``None`` for the few Python cannot read (not checked)."""
    try:
        return re.compile(pattern.replace(r"\p{Print}", r"[\x20-\x7e]"))
    except re.error:
        return None


@cache
def _compiler(service: str) -> _Compiler:
    from ..server.shapes import load_model

    return _Compiler(load_model(service))


@cache
def checker(service: str, operation: str) -> Check | None:
    """The whole input shape's check of an operation (``None`` when it has no constraints or no model)."""
    compiler = _compiler(service)
    name = compiler.inputs.get(operation)
    return None if name is None else compiler.shape(name)


#: how many passing strings a top-level member remembers (table names and enum values repeat)
_REMEMBERED = 1024


@cache
def shallow(service: str, operation: str) -> Callable[[dict[str, Any]], bool]:
    """A predicate on an operation's top-level scalar members only, True when they meet the model's
    constraints: cheap enough for every data-plane call (no paths or messages are built)."""
    compiler = _compiler(service)
    name = compiler.inputs.get(operation)
    if name is None:
        return lambda request: True
    spec = compiler.shapes[name]
    required = tuple(spec.get("required", ()))
    tests: dict[str, tuple[set[str], Callable[[Any], bool]]] = {}
    for member, ref in spec.get("members", {}).items():
        test = _scalar_test(compiler.shapes[ref["shape"]])
        if test is not None:
            tests[member] = (set(), test)  # the strings that passed already (table names, enum values)

    def ok(request: dict[str, Any]) -> bool:
        for member in required:
            if request.get(member) is None:
                return False
        for member, value in request.items():
            entry = tests.get(member)
            if entry is None:
                continue
            passed, test = entry
            if value.__class__ is str and value in passed:
                continue
            if not test(value):
                return False
            if value.__class__ is str and len(passed) < _REMEMBERED:
                passed.add(value)
        return True

    return ok


def _scalar_test(spec: dict[str, Any]) -> Callable[[Any], bool] | None:
    """Whether a string or number meets its shape's constraints (``None``: nothing to test)."""
    low, high = spec.get("min"), spec.get("max")
    if spec["type"] in ("integer", "long") and (low is not None or high is not None):
        low_value = low if low is not None else -(2**63)
        high_value = high if high is not None else 2**63

        def number(value: Any) -> bool:
            return not isinstance(value, int) or low_value <= value <= high_value

        return number
    if spec["type"] != "string" or (
        low is None and high is None and "pattern" not in spec and "enum" not in spec
    ):
        return None
    shortest, longest = low or 0, high if high is not None else 1 << 62
    regex = _java_regex(spec["pattern"]) if "pattern" in spec else None
    allowed = frozenset(spec["enum"]) if "enum" in spec else None

    def string(value: Any) -> bool:
        if not isinstance(value, str):
            return True
        if allowed is not None:
            return value in allowed
        return shortest <= len(value) <= longest and (regex is None or regex.fullmatch(value) is not None)

    return string


def errors_of(check: Check | None, request: dict[str, Any]) -> list[str]:
    """The constraint messages a request breaks, in the model's member order."""
    errors: list[str] = []
    if check is not None:
        check(request, "", errors)
    return errors


def raise_errors(errors: list[str]) -> None:
    """Raise the service's ValidationException for these constraint messages (nothing when there are none)."""
    if not errors:
        return
    count = len(errors)
    noun = "error" if count == 1 else "errors"
    raise ValidationException(f"{count} validation {noun} detected: {'; '.join(errors)}")


#: the data plane: only top-level members are checked before the engine runs (the whole request on refusal)
DATA_PLANE = frozenset(
    {
        "PutItem",
        "GetItem",
        "UpdateItem",
        "DeleteItem",
        "Query",
        "Scan",
        "BatchGetItem",
        "BatchWriteItem",
        "TransactGetItems",
        "TransactWriteItems",
    }
)


def validate(service: str, operation: str, request: dict[str, Any]) -> None:
    """Check a whole request against the model; raise the service's ValidationException on violations."""
    raise_errors(errors_of(checker(service, operation), request))


#: service -> operation -> its up-front check: the top-level predicate of a data-plane operation, ``None`` for
#: any other (the whole request is checked)
_UP_FRONT: dict[str, dict[str, Callable[[dict[str, Any]], bool] | None]] = {}


def before(service: str, operation: str, request: dict[str, Any]) -> None:
    """The check that runs before the engine: the top level of data-plane requests, all of any other."""
    checks = _UP_FRONT.get(service)
    if checks is None:
        checks = _UP_FRONT[service] = {}
    try:
        ok = checks[operation]
    except KeyError:
        ok = checks[operation] = shallow(service, operation) if operation in DATA_PLANE else None
    if ok is None or not ok(request):
        validate(service, operation, request)
