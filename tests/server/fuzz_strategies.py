"""The request fuzzer's hypothesis strategies: requests for every operation of DynamoDB's and DynamoDB
Streams' service models, and the oracle every answer must satisfy (:func:`check_answer`).

A case is ``(target, body, headers)``: the ``X-Amz-Target`` header, the raw body and extra headers. Cases come
from four sources, for every operation:

- *realistic*: hand-written valid requests on the fixture tables (:mod:`.fuzz_world`), sent as they are;
- *mutated*: a realistic request with a few members dropped, nulled, duplicated, retyped, renamed,
  AttributeValue type tags swapped, or values replaced by weird strings, huge or negative numbers, deep
  nesting, unicode, empty collections or very long names (mostly keeping each member's role, so the request
  gets past the shape checks into the engine);
- *shaped*: random values of the operation's input shape, read from botocore's model (names, expressions and
  statements drawn partly from the fixtures, so shaped requests reach real tables too);
- *raw*: invalid JSON, non-object JSON, wrong content types, odd headers and X-Amz-Target variants;
- *spliced*: a realistic or mutated request with one member's JSON replaced by bytes ``json.dumps`` cannot
  write: nesting deeper than any parser's stack (up to 100,000 levels), invalid UTF-8, strings of megabytes.

:func:`single_mutations` is the systematic counterpart: each member of a request replaced in turn.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable, Iterator
from typing import Any

from hypothesis import strategies as st

from .fuzz_world import DDB, FIXTURE_TABLES, MODELS, SCRATCH_TABLES, STREAMS, TARGETS, Fixtures, b64
from .helpers import RawResponse

# -- weird values ---------------------------------------------------------------------------------------------

WEIRD_STRINGS = [
    "",
    " ",
    "\x00",
    "\ud800",  # a lone surrogate (JSON-escaped on the wire)
    "\U0001f600\u00e9\u200b",
    "a" * 256,
    "#",
    ":",
    "#a",
    ":v",
    "${x}",
    "'; DROP TABLE items; --",
    '"',
    "\\",
    "a.b[0]",
    "a[99999999999999999999]",
    "attribute_exists(",
    "9" * 40,
    "1e999999999",
    "1e-999999999",
    "-0",
    "NaN",
    "Infinity",
    "0x10",
    " 1",
    "1_000",
    "arn:aws:dynamodb:us-east-1:000000000000:table/x",
    "arn:aws:dynamodb:us-east-1:000000000000:table/fuzz_hash/stream/garbage",
    "\n\r\t",
    "%s%n",
]
WEIRD_NUMBERS: list[Any] = [
    0,
    -1,
    1,
    2**31,
    -(2**31) - 1,
    2**63,
    2**64,
    -(2**63) - 1,
    10**30,
    10**400,
    1e308,
    -1e308,
    1.5,
    5e-324,
    -0.0,
]

_attr_names = st.sampled_from(
    ["pk", "sk", "gpk", "gsk", "lsk", "a", "b", "ss", "l", "ttl", "#", "", "x" * 300]
)
_EDGE_NUMBERS = [
    "1e999999999",
    "1e-999999999",
    "9" * 38,
    "1" + "0" * 38,
    "1e125",
    "1e-130",
    "1e126",
    "1e-131",
    "9.9999999999999999999999999999999999999E+125",
    "-1e-130",
    "1E+999999999999999999999",
]
_number_strings = st.one_of(
    st.sampled_from(_EDGE_NUMBERS),
    st.sampled_from(
        ["1", "-1.5", "0", "1e10", "-0", "00", "1.", ".5", "+1", "1e", "abc", " 1", "0x1", "1e+", "--1"]
    ),
    st.decimals(allow_nan=False, allow_infinity=False).map(str),
    st.integers().map(str),
)
#: long strings, built when drawn (a sampled list holding them would make hypothesis print 70 kB reprs)
_LONG_STRINGS = st.sampled_from([1024, 4097, 70_000, 410_000]).map(lambda n: "b" * n)
_weird = st.one_of(st.sampled_from(WEIRD_STRINGS), _LONG_STRINGS)
_strings = st.one_of(st.text(max_size=20), _weird)
_blobs = st.one_of(
    st.binary(max_size=20).map(b64), st.sampled_from(["", "not base64!", "AA", "AA==", "A===", "////"])
)


def attribute_values(max_leaves: int = 12) -> st.SearchStrategy[Any]:
    """Wire AttributeValues: every type, with edge values, nested (sometimes invalid on purpose)."""
    leaves = st.one_of(
        st.builds(lambda v: {"S": v}, _strings),
        st.builds(lambda v: {"N": v}, _number_strings),
        st.builds(lambda v: {"B": v}, _blobs),
        st.builds(lambda v: {"SS": v}, st.lists(_strings, max_size=4)),
        st.builds(lambda v: {"NS": v}, st.lists(_number_strings, max_size=4)),
        st.builds(lambda v: {"BS": v}, st.lists(_blobs, max_size=4)),
        st.builds(lambda v: {"BOOL": v}, st.booleans()),
        st.builds(lambda v: {"NULL": v}, st.booleans()),
        st.sampled_from(
            [{}, {"S": "a", "N": "1"}, {"X": "1"}, {"S": 1}, {"N": 1}, {"SS": "a"}, {"L": {}}, {"M": []}]
        ).map(copy.deepcopy),
    )
    return st.recursive(
        leaves,
        lambda inner: st.one_of(
            st.builds(lambda v: {"L": v}, st.lists(inner, max_size=3)),
            st.builds(lambda v: {"M": v}, st.dictionaries(_attr_names, inner, max_size=3)),
        ),
        max_leaves=max_leaves,
    )


def _expression_atoms() -> st.SearchStrategy[str]:
    return st.sampled_from(
        ["a", "#a", "#b", ":v", ":one", "b.c[0]", "l[1]", "size(a)", "pk", "sk", "ss", "#missing", ":missing"]
    )


@st.composite
def expressions(draw: Any) -> str:
    """Condition, update, projection and key-condition expressions: valid-looking, broken, long or deep."""
    atom = _expression_atoms()
    kind = draw(st.integers(0, 9))
    if kind == 0:  # comparisons and functions joined by AND/OR
        parts = [
            draw(
                st.sampled_from(
                    [
                        f"{draw(atom)} = {draw(atom)}",
                        f"{draw(atom)} BETWEEN {draw(atom)} AND {draw(atom)}",
                        f"attribute_exists({draw(atom)})",
                        f"begins_with({draw(atom)}, {draw(atom)})",
                        f"contains({draw(atom)}, {draw(atom)})",
                        f"attribute_type({draw(atom)}, {draw(atom)})",
                        f"{draw(atom)} IN ({draw(atom)}, {draw(atom)})",
                        f"NOT {draw(atom)} <> {draw(atom)}",
                    ]
                )
            )
            for _ in range(draw(st.integers(1, 4)))
        ]
        return f" {draw(st.sampled_from(['AND', 'OR']))} ".join(parts)
    if kind == 1:  # update actions
        return draw(
            st.sampled_from(
                [
                    f"SET {draw(atom)} = {draw(atom)} + {draw(atom)}",
                    f"SET {draw(atom)} = list_append({draw(atom)}, {draw(atom)})",
                    f"SET {draw(atom)} = if_not_exists({draw(atom)}, {draw(atom)}) - {draw(atom)}",
                    f"REMOVE {draw(atom)}, {draw(atom)}",
                    f"ADD {draw(atom)} {draw(atom)}",
                    f"DELETE {draw(atom)} {draw(atom)}",
                    f"SET {draw(atom)} = {draw(atom)} REMOVE {draw(atom)} SET {draw(atom)} = {draw(atom)}",
                ]
            )
        )
    if kind == 2:  # projections and document paths
        return ", ".join(draw(st.lists(atom, min_size=1, max_size=5))) + draw(
            st.sampled_from(["", "[0]", ".x", "[-1]", "["])
        )
    if kind == 3:  # deep nesting (the engine must refuse it, not overflow its stack)
        depth = draw(st.sampled_from([40, 200, 1000, 3000]))
        return draw(
            st.sampled_from(
                [
                    "(" * depth + "a = :v" + ")" * depth,
                    "NOT " * depth + "a = :v",
                    "size(" * depth + "a" + ")" * depth + " > :v",
                    "a" + ".b" * depth + " = :v",
                    "a" + "[0]" * depth + " = :v",
                    "SET a = " + " + ".join([":v"] * depth),
                ]
            )
        )
    if kind == 4:  # long
        return "a = :v AND " * draw(st.sampled_from([100, 400, 2000])) + "a = :v"
    return draw(st.one_of(st.text(max_size=40), _weird))


@st.composite
def partiql_statements(draw: Any) -> str:
    table = draw(st.sampled_from([f'"{t}"' for t in FIXTURE_TABLES] + ["nope", '"a"."b"."c"', '""']))
    kind = draw(st.integers(0, 6))
    value = draw(
        st.sampled_from(
            ["1", "'x'", "?", "1e999999999", "<<1, 2>>", "[1, {'a': 2}]", "`abc`", "NULL", "MISSING"]
        )
    )
    if kind == 0:
        return f"SELECT * FROM {table} WHERE pk = {value}"
    if kind == 1:
        return f"INSERT INTO {table} VALUE {{'pk': {value}, 'sk': {value}}}"
    if kind == 2:
        return f"UPDATE {table} SET a = a + {value} SET b[0] = {value} WHERE pk = {value} RETURNING ALL NEW *"
    if kind == 3:
        return f"DELETE FROM {table} WHERE pk = {value} AND sk = {value}"
    if kind == 4:  # deep or long
        depth = draw(st.sampled_from([100, 2000, 3000]))
        return draw(
            st.sampled_from(
                [
                    f"SELECT * FROM {table} WHERE " + "(" * depth + "pk = 1" + ")" * depth,
                    f"SELECT * FROM {table} WHERE " + "NOT " * depth + "pk = 1",
                    f"INSERT INTO {table} VALUE {{'pk': " + "[" * depth + "1" + "]" * depth + "}",
                    f"SELECT * FROM {table} WHERE pk = '" + "x" * 9000 + "'",
                ]
            )
        )
    return draw(st.one_of(st.text(max_size=60), _weird))


# -- strategies from the service model --------------------------------------------------------------------------


def _name_hint(member: str, fx: Fixtures, tables: tuple[str, ...]) -> st.SearchStrategy[Any] | None:
    """Values for members whose name says what they refer to, so random requests reach real resources."""
    if member in (
        "TableName",
        "GlobalTableName",
        "TargetTableName",
        "SourceTableName",
        "ExclusiveStartTableName",
    ):
        return st.sampled_from(tables)
    if member in ("TableArn", "ResourceArn", "SourceTableArn"):
        return st.sampled_from([fx.table_arn, fx.stream_arn, fx.table_arn + "/index/gsi"])
    if member in ("StreamArn", "ExclusiveStartStreamArn", "LastEvaluatedStreamArn"):
        return st.just(fx.stream_arn)
    if member in ("ShardId", "ExclusiveStartShardId"):
        return st.just(fx.shard_id)
    if member == "ShardIterator":
        return st.just(fx.shard_iterator)
    if member == "IndexName":
        return st.sampled_from(["gsi", "gsi_keys", "lsi", "gix", "lix", "hix", "x"])
    if member == "AttributeName":
        return _attr_names
    if member.endswith("Expression"):
        return expressions()
    if member == "Statement":
        return partiql_statements()
    return None


def _bounds(metadata: dict[str, Any]) -> tuple[int, int]:
    """An integer shape's min and max, -5 and 100 where the model gives none, the missing one moved past a
    bound it does give (StartBulkPutItems' MaxWriteRequestUnits has a min of 1024 and no max)."""
    low, high = metadata.get("min"), metadata.get("max")
    if low is None:
        low = -5 if high is None else min(-5, high - 100)
    if high is None:
        high = max(100, low + 100)
    return low, high


class ShapeStrategies:
    """Hypothesis strategies for the input shapes of one service model (depth-limited: shapes are recursive)."""

    MAX_DEPTH = 7

    def __init__(
        self, model: Any, fx: Fixtures, tables: tuple[str, ...] = FIXTURE_TABLES + SCRATCH_TABLES
    ) -> None:
        self.model = model
        self.fx = fx
        self.tables = tables
        self._cache: dict[tuple[str, str, int], st.SearchStrategy[Any]] = {}

    def for_operation(self, op: str) -> st.SearchStrategy[dict[str, Any]]:
        shape = self.model.operation_model(op).input_shape
        if shape is None:
            return st.just({})
        return self.of(shape, "", 0)

    def of(self, shape: Any, member: str, depth: int) -> st.SearchStrategy[Any]:
        key = (shape.name, member, depth)
        if key not in self._cache:
            self._cache[key] = self._build(shape, member, depth)
        return self._cache[key]

    def _build(self, shape: Any, member: str, depth: int) -> st.SearchStrategy[Any]:
        hint = _name_hint(member, self.fx, self.tables)
        kind = shape.type_name
        if shape.name == "AttributeValue":
            return attribute_values()
        if kind == "structure":
            if depth >= self.MAX_DEPTH:
                return st.just({})
            required = {
                n: self.of(s, n, depth + 1) for n, s in shape.members.items() if n in shape.required_members
            }
            optional = {
                n: self.of(s, n, depth + 1)
                for n, s in shape.members.items()
                if n not in shape.required_members
            }
            return st.fixed_dictionaries(required, optional=optional)
        if kind == "list":
            if depth >= self.MAX_DEPTH:
                return st.just([])
            return st.lists(self.of(shape.member, member, depth + 1), max_size=3)
        if kind == "map":
            if depth >= self.MAX_DEPTH:
                return st.just({})
            if member == "ExpressionAttributeNames":
                keys = st.sampled_from(["#a", "#b", "#missing", "a", "#", "#" + "x" * 300])
            elif member == "ExpressionAttributeValues":
                keys = st.sampled_from([":v", ":one", ":missing", "v", ":", ":" + "x" * 300])
            elif member == "RequestItems":
                keys = st.sampled_from([*FIXTURE_TABLES, "nope"])
            else:
                keys = st.one_of(_attr_names, st.text(max_size=8))
            return st.dictionaries(keys, self.of(shape.value, member, depth + 1), max_size=3)
        if kind == "string":
            choices = [st.text(max_size=12), _weird]
            if shape.enum:
                choices.insert(0, st.sampled_from(shape.enum))
            if hint is not None:  # mostly the hint: that is what reaches a table, an index, a stream
                choices[:0] = [hint, hint, hint]
            return st.one_of(choices)
        if kind in ("integer", "long"):
            return st.one_of(st.integers(*_bounds(shape.metadata)), st.sampled_from(WEIRD_NUMBERS))
        if kind in ("double", "float"):
            return st.one_of(st.floats(allow_nan=False, allow_infinity=False), st.sampled_from(WEIRD_NUMBERS))
        if kind == "boolean":
            return st.booleans()
        if kind == "blob":
            return _blobs
        if kind == "timestamp":
            return st.one_of(
                st.integers(-(2**40), 2**40),
                st.floats(allow_nan=False, allow_infinity=False),
                st.sampled_from(["2024-01-01T00:00:00Z", "yesterday"]),
            )
        raise AssertionError(f"no strategy for shape type {kind}")


# -- mutations -----------------------------------------------------------------------------------------------------


def _paths(value: Any, limit: int = 40) -> list[tuple[Any, ...]]:
    """The paths of every member (not below ``limit`` levels: deep values are mutated as a whole)."""
    found: list[tuple[Any, ...]] = []
    pending: list[tuple[tuple[Any, ...], Any]] = [((), value)]
    while pending:
        path, item = pending.pop()
        found.append(path)
        if len(path) >= limit:
            continue
        if isinstance(item, dict):
            pending.extend(((*path, key), inner) for key, inner in item.items())
        elif isinstance(item, list):
            pending.extend(((*path, index), inner) for index, inner in enumerate(item))
    return found


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def _deep(depth: int, leaf: Any) -> Any:
    value = leaf
    for _ in range(depth):
        value = {"M": {"m": value}} if isinstance(leaf, dict) else [value]
    return value


_AV_TAGS = ["S", "N", "B", "SS", "NS", "BS", "M", "L", "NULL", "BOOL"]
_REPLACEMENTS = st.one_of(
    _weird,
    st.sampled_from(WEIRD_NUMBERS),
    # fresh copies: a later mutation may change the value in place
    st.sampled_from([None, True, False, [], {}, [[]], [{}], {"": None}, [None]]).map(copy.deepcopy),
    attribute_values(max_leaves=4),
    st.builds(_deep, st.sampled_from([33, 70, 300]), st.sampled_from([{"S": "x"}, 1])),
    st.text(max_size=30),
    st.integers(),
)


def _fitting(parent: Any, key: Any, value: Any) -> st.SearchStrategy[Any]:
    """Replacements that keep a value's role, so the request still gets past the shape checks: numbers for
    numbers, expressions for expressions, AttributeValues for AttributeValues, weird strings for strings."""
    if isinstance(key, str) and key.endswith("Expression"):
        return expressions()
    if key == "Statement":
        return partiql_statements()
    if key in ("N", "NS") or (isinstance(parent, list) and isinstance(value, str) and value[:1].isdigit()):
        return _number_strings
    if isinstance(value, dict) and len(value) == 1 and next(iter(value)) in _AV_TAGS:
        return st.one_of(
            attribute_values(), st.builds(_deep, st.sampled_from([31, 32, 33, 70]), st.just({"S": "x"}))
        )
    if isinstance(value, bool):
        return st.one_of(st.booleans(), st.sampled_from(["true", 1, None]))
    if isinstance(value, (int, float)):
        return st.sampled_from(WEIRD_NUMBERS)
    if isinstance(value, str):
        return st.one_of(_weird, st.text(max_size=20))
    if isinstance(value, dict):  # a map of names (Item, Key, ExpressionAttributeNames/Values, RequestItems)
        return st.builds(
            lambda extra, name: {**value, name: extra},
            st.one_of(attribute_values(), st.text(max_size=5)),
            _attr_names,
        )
    if isinstance(value, list):  # fewer, more or repeated elements
        return st.lists(st.sampled_from(value) if value else attribute_values(), max_size=120)
    return _REPLACEMENTS


#: what :func:`single_mutations` puts in place of each member in turn: JSON's other types and edge values
SWEEP_VALUES: list[Any] = [None, [], {}, "x", "", 1, -1, 2**64, True, [None], {"": None}, {"S": "x"}]


def single_mutations(request: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """``request`` with one member (at any depth) replaced by each of :data:`SWEEP_VALUES`: a systematic
    sweep next to the random mutations."""
    for path in _paths(request):
        if not path:
            continue
        for value in SWEEP_VALUES:
            changed = json.loads(json.dumps(request))
            _get(changed, path[:-1])[path[-1]] = copy.deepcopy(value)
            yield changed


@st.composite
def mutated(draw: Any, request: dict[str, Any]) -> dict[str, Any]:
    """``request`` with one to three mutations at random places (the original is not modified): mostly
    replacements that keep a member's role, sometimes dropped, duplicated, renamed or retyped members."""
    value = json.loads(json.dumps(request))
    for _ in range(draw(st.integers(1, 3))):
        # deepest first: hypothesis favours early choices, and deep members (values, names, nested
        # expressions) are where a request gets furthest; the table name is rarely worth changing
        paths = sorted(_paths(value), key=lambda p: (-len(p), "TableName" in p))[:-1]
        if not paths:
            value = draw(_REPLACEMENTS)
            continue
        path = draw(st.sampled_from(paths))
        parent, last = _get(value, path[:-1]), path[-1]
        action = draw(
            st.sampled_from(["fit", "fit", "fit", "drop", "null", "duplicate", "replace", "retag", "rename"])
        )
        if action == "fit":
            parent[last] = draw(_fitting(parent, last, parent[last]))
        elif action == "drop":
            del parent[last]
        elif action == "null":  # a JSON null where a member, an element or a map value was
            parent[last] = None
        elif action == "duplicate":
            if isinstance(parent, list):
                parent.append(json.loads(json.dumps(parent[last])))
            else:
                parent[str(last) + draw(st.sampled_from(["_", "2", "\u00e9"]))] = json.loads(
                    json.dumps(parent[last])
                )
        elif action == "replace":
            parent[last] = draw(_REPLACEMENTS)
        elif (
            action == "rename" and isinstance(parent, dict) and len(path) > 1
        ):  # attribute and placeholder names
            parent[
                draw(st.one_of(st.sampled_from(["x" * 256, "\U0001f600" * 100, "", "#", ":"]), _LONG_STRINGS))
            ] = parent.pop(last)
        else:  # an AttributeValue's type tag changed, its value kept; anything else wrapped or stringified
            target = parent[last]
            if isinstance(target, dict) and len(target) == 1 and next(iter(target)) in _AV_TAGS:
                ((_, inner),) = target.items()
                parent[last] = {draw(st.sampled_from(_AV_TAGS)): inner}
            else:
                parent[last] = draw(st.sampled_from([[target], {"S": target}, str(target)]))
    return value


#: operations whose random requests could destroy the fixture tables
CONTROL_PLANE = frozenset(
    DDB + op
    for op in ("DeleteTable", "UpdateTable", "UpdateTimeToLive", "CreateTable", "RestoreTableFromBackup")
)

# -- whole cases ---------------------------------------------------------------------------------------------------

Case = tuple[str | None, bytes, dict[str, str | None]]


def encode(request: Any, ascii_only: bool = False) -> bytes:
    return json.dumps(request, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")


_SPLICE_MARK = "\u0000fuzz-splice\u0000"
#: what a spliced member becomes
SPLICES: list[bytes] = [
    *(b"[" * n + b"]" * n for n in (255, 257, 5_000, 100_000)),
    *(b'{"M":' * n + b'{"S":"x"}' + b"}" * n for n in (40, 129, 50_000)),
    b'{"L":[' * 60_000 + b"]}" * 60_000,
    b'"' + b"[" * 100_000 + b'"',  # brackets inside a string are text, not nesting
    b'["\\\\", ' + b"[" * 300 + b"]" * 300 + b"]",  # a string of one backslash, then deep brackets
    b"[" * 100_000,  # unclosed
    b'"\xff\xfe"',
    b'"\xc3"',  # a truncated UTF-8 sequence
    b'"\xed\xa0\x80"',  # an encoded surrogate
    b'"a\x80b"',
    b'{"S":"\xc0\xaf"}',  # an overlong encoding
    b'"' + b"x" * (1 << 20) + b'"',
    b'{"S":"' + "\u00e9".encode() * 300_000 + b'"}',
    b'{"N":"' + b"9" * 100_000 + b'"}',
    b"[" + b"1," * 200_000 + b"1]",
]


@st.composite
def spliced(draw: Any, request: dict[str, Any]) -> bytes:
    """``request`` encoded, then one member (or the whole body) replaced by one of :data:`SPLICES`."""
    value = json.loads(json.dumps(request))
    paths = sorted(_paths(value), key=lambda p: -len(p))
    path = draw(st.sampled_from(paths))
    if path:
        _get(value, path[:-1])[path[-1]] = _SPLICE_MARK
    else:
        value = _SPLICE_MARK
    mark = json.dumps(_SPLICE_MARK).encode()
    return encode(value).replace(mark, draw(st.sampled_from(SPLICES)), 1)


_RAW_BODIES = st.one_of(
    st.sampled_from(
        [
            b"",
            b"{",
            b"}",
            b"null",
            b"[]",
            b"[{}]",
            b'"TableName"',
            b"1",
            b"1e999999999",
            b"true",
            b'{"TableName": NaN}',
            b'{"TableName": Infinity}',
            b'{"TableName": "a", "TableName": "b"}',
            b"\xef\xbb\xbf{}",  # a BOM
            b'{"TableName": "\xff\xfe"}',
            b'{"TableName": "\\ud800"}',
            b'{"Limit": 1e400}',
            b'{"Limit": 123456789012345678901234567890}',
            b"[" * 5000 + b"]" * 5000,
            b'{"a":' * 3000 + b"1" + b"}" * 3000,
            b"{}" + b" " * 1000 + b"garbage",
            b"\x00" * 16,
        ]
    ),
    st.binary(max_size=64),
)
_CONTENT_TYPES = st.sampled_from(
    [None, "application/json", "text/plain", "application/x-amz-json-1.1", "", "\u00e9"]
)


_HEADERS = st.sampled_from(
    [
        {"Authorization": "garbage"},
        {"Authorization": "AWS4-HMAC-SHA256 Credential=\u00e9/20240101/\u00e9/dynamodb/aws4_request"},
        {"X-Amz-Date": "yesterday"},
        {"X-Amz-Date": None},
        {"Content-Encoding": "gzip"},
        {"Origin": "http://example.com"},
        {"X-Amz-Security-Token": "x" * 5000},
        {"Accept-Encoding": "identity, gzip;q=0"},
        {"X-Amz-Content-Sha256": "UNSIGNED-PAYLOAD"},
    ]
)


def _target_variants(target: str) -> list[str | None]:
    prefix, op = target.split(".", 1)
    return [
        target.lower(),
        target.upper(),
        target + " ",
        " " + target,
        f"{prefix}.{op}.{op}",
        f"{prefix}..{op}",
        op,
        prefix + ".",
        None,
        target + "\u00e9",
        target.replace("_20120810", "_20120811"),
    ]


def cases(fx: Fixtures, realistic: dict[str, list[dict[str, Any]]]) -> st.SearchStrategy[Case]:
    """Every case kind, for every operation of both service models."""
    shaped = {DDB: ShapeStrategies(MODELS[DDB], fx), STREAMS: ShapeStrategies(MODELS[STREAMS], fx)}
    # operations that may delete a table or its indexes or streams only get the scratch tables' names
    control = ShapeStrategies(MODELS[DDB], fx, SCRATCH_TABLES)

    implemented = sorted(realistic)

    @st.composite
    def one(draw: Any) -> Case:
        # most examples go to the operations the engine implements; the rest only need a clean refusal
        target = draw(st.sampled_from(implemented) if draw(st.integers(0, 7)) else st.sampled_from(TARGETS))
        prefix, op = target.split(".", 1)
        prefix += "."
        known = realistic.get(target)
        kind = draw(
            st.sampled_from(
                ["realistic", "mutated", "mutated", "shaped", "raw", "spliced"]
                if known
                else ["shaped", "shaped", "raw"]
            )
        )
        headers: dict[str, str | None] = {}
        if kind == "realistic":
            return target, encode(draw(st.sampled_from(known))), headers
        if kind == "mutated":
            request = draw(mutated(draw(st.sampled_from(known))))
            return target, encode(request, draw(st.booleans())), headers
        if kind == "spliced":
            start = draw(st.sampled_from(known))
            return target, draw(spliced(draw(mutated(start)) if draw(st.booleans()) else start)), headers
        if kind == "shaped":
            strategies = control if target in CONTROL_PLANE else shaped[prefix]
            return target, encode(draw(strategies.for_operation(op))), headers
        if draw(st.booleans()):
            headers["Content-Type"] = draw(_CONTENT_TYPES)
        if draw(st.booleans()):
            headers.update(draw(_HEADERS))
        if draw(st.integers(0, 3)) == 0:
            target = draw(st.sampled_from(_target_variants(target)))
        body = draw(_RAW_BODIES) if draw(st.booleans()) or not known else encode(draw(st.sampled_from(known)))
        return target, body, headers

    return one()


def describe(case: Case) -> str:
    target, body, headers = case
    text = body[:1500].decode("utf-8", "replace") + ("..." if len(body) > 1500 else "")
    return f"X-Amz-Target: {target}\nheaders: {headers}\nbody ({len(body)} bytes): {text}"


def check_answer(case: Case, response: RawResponse, output: str, alive: Callable[[], bool]) -> None:
    """The fuzzer's oracle: never 5xx, a DynamoDB error body for every 4xx, no traceback or error line logged,
    and the server still running."""
    where = describe(case)
    assert alive(), f"the server died on\n{where}\nits output:\n{output[-5000:]}"
    assert response.status < 500, (
        f"{response.status} for\n{where}\nanswer: {response.body[:500]!r}\nlog:\n{output[-5000:]}"
    )
    assert "Traceback" not in output and "level=error" not in output, (
        f"logged an error for\n{where}\n{output[-5000:]}"
    )
    if response.status >= 400:
        body = json.loads(response.body)
        assert isinstance(body.get("__type"), str) and body["__type"], (where, body)
        message = body.get("Message", body.get("message"))
        assert isinstance(message, str), (where, body)
    else:
        assert response.status == 200, (where, response)
        json.loads(response.body)


def fuzz_seed() -> int:
    """The random run's seed: ``DYNABASE_FUZZ_SEED`` to replay one, else a fresh one (printed by the test)."""
    return int(os.environ.get("DYNABASE_FUZZ_SEED") or int.from_bytes(os.urandom(4), "big"))
