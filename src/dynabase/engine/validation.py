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
``N validation errors detected: `` with ``; `` between, at most :data:`MOST_LISTED` listed), the ``Value '<v>' at
'<path>' failed to satisfy constraint: Member must ...`` form for lengths, patterns, enums and ``null``, the
``KeySchemaElement(...)`` rendering of a key schema list, data-plane ``tableName`` allowing 1..1024 characters
(table ARNs) while a name is held to the table-name shape (:data:`NAME_OR_ARN`), a GSI's errors before an LSI's
(:data:`CHECKED_BEFORE`), a table's key schema of at most 2 (:data:`EXTRA_MAX`), the ``Map keys`` / ``Map value``
constraints of RequestItems and the newer form some members are worded in (``Value at '<Member>' ...``, no value
quoted: :data:`NAMED`). Not established, and chosen here: the order of several errors otherwise (the model's member
order, depth first), that an empty string breaks only the length (not the pattern), the rendering of lists of
other structures (their length is then left to the engine's own checks, or worded in the newer form where the
service uses it), the answer to a name of 1 or 2 characters (the table-name shape's minimum, in the same words),
and the order of enum values where DynamoDB Local shows none (botocore's order). Where the service's regions
answer either an older form quoting the request in Java's rendering or the newer form, the newer is given.

Beyond the model, the service's words could not be established (and the engine keeps DynamoDB Local's) for: a
secondary index sort key value over 1024 bytes, the name of a key or projected attribute of at most 255
characters but over 255 bytes, and a DescribeStream ``ShardFilter`` without ``Type``; for ListStreams with a
malformed ``ExclusiveStartStreamArn`` the service's ValidationException is established but not its message
(the engine answers ``Invalid StreamArn``, DescribeStream's); a transaction over 4 MB (``Transaction payload size
cannot exceed 4MB. Payload Size: <n>``), an UpdateTable redefining an attribute's type, a key condition naming a
non-key attribute beside the partition key, the over-all limits of the batch operations when no one table's list
is over its own, and the answers of TransactWriteItems' and TransactGetItems' actions to a key that does not fit
the key schema (their cancellation reasons).

Cost: :func:`checker` returns ``None`` for subtrees without constraints, so AttributeValues are never walked;
data-plane operations check only their top-level members up front (:func:`shallow`) and the whole request
when the engine refuses it (see :meth:`dynabase.engine.Engine.call`).
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from ..errors import ValidationException

#: where a violation is: ("m", member name as the model spells it), ("i", "<n>") for the n-th list element
#: (1-based) or ("k", "<key>") for a map value; each of the last two reads ``<n>.member`` in a message
Path = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Violation:
    """One broken constraint, before it is worded (the operation decides how: see :func:`worded`)."""

    path: Path
    #: ``Member must ...`` (or ``Map keys/value must satisfy constraint: [...]``)
    constraint: str
    #: the value as the service quotes it (``'v'``, ``null``); ``None`` when its rendering is not established
    shown: str | None
    #: whether the service's newer form, which names the member and quotes no value, may word it
    nameable: bool = True


#: (value, path, violations) -> None; appends one Violation per broken constraint
Check = Callable[[Any, Path, list[Violation]], None]

#: the order of values in the service's enum messages where it differs from botocore's model (established from
#: DynamoDB Local's answers, which use the service's validator; Select from the service's own, where Local lists
#: botocore's order: paritysuite/dynamodb-conformance tier 3 query error messages, architect/dynalite test/scan.js)
ENUM_ORDER = {
    "AttributeAction": ["ADD", "DELETE", "PUT"],
    "ScalarAttributeType": ["B", "N", "S"],
    "ShardIteratorType": ["AFTER_SEQUENCE_NUMBER", "AT_SEQUENCE_NUMBER", "LATEST", "TRIM_HORIZON"],
    "Select": ["SPECIFIC_ATTRIBUTES", "COUNT", "ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES"],
}

#: structure -> (member, the member it is checked before) where the service's order differs from the model's:
#: a GSI's error comes before an LSI's, whatever the request's order (paritysuite/dynamodb-conformance
#: tests/tier3/validation-ordering/createTable.test.ts, captured from the service in two regions)
CHECKED_BEFORE = {"CreateTableInput": ("GlobalSecondaryIndexes", "LocalSecondaryIndexes")}

#: (structure, member) -> the most elements the service allows where botocore's model gives no maximum: a
#: table's key schema has at most a partition and a sort key (the model dropped ``max: 2`` when GSIs got
#: multi-attribute keys; the service still answers ``Member must have length less than or equal to 2`` for a
#: table: paritysuite/dynamodb-conformance tests/tier3/validation-ordering/createTable.test.ts; architect/dynalite
#: test/createTable.js)
EXTRA_MAX = {("CreateTableInput", "KeySchema"): 2}

#: the table-name shape whose constraints a table *name* given where the model allows a name or an ARN
#: (``TableArn``: 1..1024 characters) still has to meet: PutItem with a 256-character or a ``bad table!@#`` name
#: answers ``... at 'tableName' failed to satisfy constraint: Member must have length less than or equal to 255``
#: / ``... regular expression pattern: [a-zA-Z0-9_.-]+`` (paritysuite/dynamodb-conformance
#: tests/tier3/error-messages/putItem.test.ts, captured in four regions), an empty one only the ARN's ``length
#: greater than or equal to 1``
NAME_OR_ARN = ("TableArn", "TableName")

#: map shapes whose value the service quotes as JSON in a ``Map keys`` message (BatchGetItem's RequestItems:
#: paritysuite/dynamodb-conformance tests/tier3/error-messages/batchGetItem.test.ts); other maps are quoted in
#: Java's rendering of the request, not reproduced here (their keys are left to the engine's own checks)
JSON_QUOTED_MAPS = frozenset({"BatchGetRequestMap"})

#: the most violations one message lists (``10 validation errors detected: ...`` for a CreateTable with 27:
#: architect/dynalite test/createTable.js, its suite run against the service)
MOST_LISTED = 10


def _dotted(path: Path, named: bool) -> str:
    parts: list[str] = []
    for kind, text in path:
        if kind == "m":
            parts.append(text if named else text[:1].lower() + text[1:])
        else:
            parts += (text, "member")
    return ".".join(parts)


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
                    f"KeySchemaElement(attributeName={_java(element.get('AttributeName'))}, "
                    f"keyType={_java(element.get('KeyType'))})"
                )
            else:
                return None
        return "'" + quoted("[" + ", ".join(parts) + "]") + "'"
    return None


def _java(value: Any) -> str:
    """A member inside a rendered structure, as Java prints it (``null`` for an absent one)."""
    return "null" if value is None else str(value)


def _json_rendered(value: Any) -> str:
    def plain(item: Any) -> Any:
        if isinstance(item, (bytes, bytearray, memoryview)):
            return base64.b64encode(bytes(item)).decode()
        raise TypeError(type(item).__name__)

    return "'" + quoted(json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=plain)) + "'"


def _map_rendered(value: dict) -> str | None:
    """A map of lists as Java renders it, where that is established: every list empty (``{T=[]}``)."""
    if any(item != [] for item in value.values()):
        return None
    return "'" + quoted("{" + ", ".join(f"{key}=[]" for key in value) + "}") + "'"


def _length_bound(length: int, low: int | None, high: int | None) -> str | None:
    if low is not None and length < low:
        return f"Member must have length greater than or equal to {low}"
    if high is not None and length > high:
        return f"Member must have length less than or equal to {high}"
    return None


class _Compiler:
    def __init__(self, model: dict[str, Any]) -> None:
        self.shapes: dict[str, Any] = model["shapes"]
        #: operation name -> its input shape's name
        self.inputs: dict[str, str] = {
            name: op["input"]["shape"] for name, op in model.get("operations", {}).items() if "input" in op
        }
        self.compiled: dict[str, Check | None] = {}

    def shape(self, name: str, spec: dict[str, Any] | None = None) -> Check | None:
        """The check of shape ``name`` (of ``spec`` in its place, uncached, when given)."""
        if spec is None:
            if name in self.compiled:
                return self.compiled[name]
            self.compiled[name] = None  # recursive shapes (AttributeValue) carry no constraints of their own
        own = spec if spec is not None else self.shapes[name]
        kind = own["type"]
        if kind == "structure":
            check = self._structure(name, own)
        elif kind in ("list", "map"):
            check = self._collection(name, own, kind)
        elif kind == "string":
            check = self._string(name, own)
        elif kind in ("integer", "long"):
            check = self._number(own)
        else:
            check = None
        if spec is None:
            self.compiled[name] = check
        return check

    def _structure(self, name: str, spec: dict[str, Any]) -> Check | None:
        required = set(spec.get("required", ()))
        members = list(spec.get("members", {}).items())
        if name in CHECKED_BEFORE:
            first, then = CHECKED_BEFORE[name]
            order = [member for member, _ in members]
            if first in order and then in order and order.index(first) > order.index(then):
                moved = members.pop(order.index(first))
                members.insert(order.index(then), moved)
        checks = []
        for member, ref in members:
            most = EXTRA_MAX.get((name, member))
            if most is None:
                inner = self.shape(ref["shape"])
            else:
                inner = self.shape(ref["shape"], {**self.shapes[ref["shape"]], "max": most})
            if inner is not None or member in required:
                checks.append((member, inner, member in required))
        if not checks:
            return None

        def check(value: Any, path: Path, out: list[Violation]) -> None:
            if not isinstance(value, dict):
                return  # a type error: the deserialiser's (SerializationException), not a constraint
            for member, inner, needed in checks:
                got = value.get(member)
                if got is None:
                    if needed:
                        out.append(Violation((*path, ("m", member)), "Member must not be null", "null"))
                elif inner is not None:
                    inner(got, (*path, ("m", member)), out)

        return check

    def _collection(self, name: str, spec: dict[str, Any], kind: str) -> Check | None:
        low, high = spec.get("min"), spec.get("max")
        element_spec = self.shapes[spec["member" if kind == "list" else "value"]["shape"]]
        element = self.shape(spec["member" if kind == "list" else "value"]["shape"])
        keys = self._map_keys(name, spec) if kind == "map" else None
        # a map whose values are lists with a length range: the service checks their lengths as the map's
        # ``Map value`` constraint, listing the range's maximum first
        value_range = (
            (element_spec.get("min"), element_spec.get("max"))
            if kind == "map" and element_spec["type"] == "list"
            else (None, None)
        )
        if low is None and high is None and element is None and keys is None:
            return None

        def check(value: Any, path: Path, out: list[Violation]) -> None:
            if not isinstance(value, (list, dict)):
                return
            bound = _length_bound(len(value), low, high)
            if bound is not None:
                out.append(
                    Violation(path, bound, render(value) if isinstance(value, list) else render_map(value))
                )
            if keys is not None and isinstance(value, dict):
                keys(value, path, out)
            if element is None:
                return
            if isinstance(value, list):
                for index, item in enumerate(value, 1):
                    if item is not None:
                        element(item, (*path, ("i", str(index))), out)
            else:
                for key, item in value.items():
                    if item is None:
                        continue
                    if value_range != (None, None) and isinstance(item, list):
                        self._map_value(value, key, item, value_range, path, out)
                    else:
                        element(item, (*path, ("k", key)), out)

        def render_map(value: dict) -> str | None:
            return _json_rendered(value) if name in JSON_QUOTED_MAPS else None

        return check

    def _map_value(
        self,
        value: dict,
        key: str,
        item: list,
        value_range: tuple[int | None, int | None],
        path: Path,
        out: list[Violation],
    ) -> None:
        low, high = value_range
        bound = _length_bound(len(item), low, high)
        if bound is None:
            return
        ranged = ", ".join(
            text
            for text in (
                f"Member must have length less than or equal to {high}" if high is not None else "",
                f"Member must have length greater than or equal to {low}" if low is not None else "",
            )
            if text
        )
        shown = _map_rendered(value)
        if shown is not None:
            out.append(
                Violation(path, f"Map value must satisfy constraint: [{ranged}]", shown, nameable=False)
            )
        else:  # the map is not quotable: the newer form names the list instead
            out.append(Violation((*path, ("k", key)), bound, None))

    def _map_keys(self, name: str, spec: dict[str, Any]) -> Check | None:
        """The ``Map keys`` check of a map whose keys are table names or ARNs (``None`` for other maps)."""
        if spec["key"]["shape"] != NAME_OR_ARN[0]:
            return None
        table = self.shapes[NAME_OR_ARN[1]]
        constraint = (
            f"Map keys must satisfy constraint: [Member must have length less than or equal to {table['max']}, "
            f"Member must have length greater than or equal to {table['min']}, "
            f"Member must satisfy regular expression pattern: {table['pattern']}]"
        )
        fits = _name_test(table)

        def check(value: dict, path: Path, out: list[Violation]) -> None:
            if all(isinstance(key, str) and fits(key) for key in value):
                return
            shown = _json_rendered(value) if name in JSON_QUOTED_MAPS else None
            out.append(Violation(path, constraint, shown, nameable=False))

        return check

    def _string(self, name: str, spec: dict[str, Any]) -> Check | None:
        low, high, pattern, enum = spec.get("min"), spec.get("max"), spec.get("pattern"), spec.get("enum")
        if low is None and high is None and pattern is None and enum is None:
            return None
        regex = _java_regex(pattern) if pattern else None
        if enum is not None:
            allowed = frozenset(enum)
            enum_text = f"Member must satisfy enum value set: [{', '.join(ENUM_ORDER.get(name, enum))}]"
        as_name = (
            self._string(NAME_OR_ARN[1], self.shapes[NAME_OR_ARN[1]]) if name == NAME_OR_ARN[0] else None
        )

        def check(value: Any, path: Path, out: list[Violation]) -> None:
            if not isinstance(value, str):
                return
            shown = render(value)
            if enum is not None and value not in allowed:
                out.append(Violation(path, enum_text, shown))
            # an empty string breaks a "+" pattern too; the service reports its length only
            if regex is not None and value and regex.fullmatch(value) is None:
                out.append(
                    Violation(path, f"Member must satisfy regular expression pattern: {pattern}", shown)
                )
            bound = _length_bound(len(value), low, high)
            if bound is not None:
                out.append(Violation(path, bound, shown))
            elif as_name is not None and not value.startswith("arn:"):
                as_name(value, path, out)

        return check

    def _number(self, spec: dict[str, Any]) -> Check | None:
        low, high = spec.get("min"), spec.get("max")
        if low is None and high is None:
            return None

        def check(value: Any, path: Path, out: list[Violation]) -> None:
            if not isinstance(value, int) or isinstance(value, bool):
                return
            if low is not None and value < low:
                out.append(
                    Violation(path, f"Member must have value greater than or equal to {low}", render(value))
                )
            if high is not None and value > high:
                out.append(
                    Violation(path, f"Member must have value less than or equal to {high}", render(value))
                )

        return check


def _name_test(spec: dict[str, Any]) -> Callable[[str], bool]:
    regex = _java_regex(spec["pattern"])
    low, high = spec["min"], spec["max"]
    return lambda name: low <= len(name) <= high and (regex is None or regex.fullmatch(name) is not None)


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


#: operations whose violations the service words in its newer form, naming the member as the model spells it and
#: quoting no value (``Value at 'RequestItems.T.member.Keys' failed to satisfy constraint: ...``), with the
#: violations it words so; the rest keep the older form (``Value '<v>' at 'requestItems...'``). Established from
#: the service's answers captured in 2026 (paritysuite/dynamodb-conformance tests/tier3/error-messages): Query's
#: ``Limit`` (query.test.ts); all of BatchGetItem's RequestItems but a malformed table name (batchGetItem.test.ts);
#: an empty RequestItems and a table's list of over 25 writes in BatchWriteItem (batchWriteItem.test.ts: the
#: regions answer either form; the older one quotes the request in Java's rendering, not reproduced); over 100
#: actions in a transaction (transactWriteItems.test.ts, likewise)
NAMED: dict[str, Callable[[Violation], bool]] = {
    "Query": lambda v: v.path == (("m", "Limit"),),
    "BatchGetItem": lambda v: v.path[:1] == (("m", "RequestItems"),),
    "BatchWriteItem": lambda v: v.path == (("m", "RequestItems"),) or v.shown is None,
    "TransactWriteItems": lambda v: v.shown is None,
    "TransactGetItems": lambda v: v.shown is None,
}


def worded(operation: str, violations: list[Violation]) -> list[str]:
    """The messages of ``violations`` in the service's words for ``operation``, in order, each once; a
    violation whose value's rendering is not established (and that the newer form does not word) is left out:
    the engine's own checks answer it."""
    named = NAMED.get(operation)
    out: list[str] = []
    for violation in violations:
        if violation.nameable and named is not None and named(violation):
            where, shown = f"Value at '{_dotted(violation.path, True)}'", True
        elif violation.shown is not None:
            where, shown = f"Value {violation.shown} at '{_dotted(violation.path, False)}'", True
        else:
            shown = False
        if shown:
            text = f"{where} failed to satisfy constraint: {violation.constraint}"
            if text not in out:
                out.append(text)
    return out


def errors_of(service: str, operation: str, request: dict[str, Any]) -> list[str]:
    """The constraint messages a request breaks, in the service's order."""
    check = checker(service, operation)
    violations: list[Violation] = []
    if check is not None:
        check(request, (), violations)
    return worded(operation, violations)


def raise_errors(errors: list[str]) -> None:
    """Raise the service's ValidationException for these constraint messages (nothing when there are none); at
    most :data:`MOST_LISTED` of them are listed, and counted."""
    if not errors:
        return
    listed = errors[:MOST_LISTED]
    count = len(listed)
    noun = "error" if count == 1 else "errors"
    raise ValidationException(f"{count} validation {noun} detected: {'; '.join(listed)}")


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
    raise_errors(errors_of(service, operation, request))


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
