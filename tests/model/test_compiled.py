"""The compiled paths of create / update / find / get build the very requests of the general pipeline.

Two tables with the same schema on one embedded engine: one whose models take their compiled paths, one whose
models are forced onto the general pipeline.  Every call shape is run on both (frozen clock, deterministic
ids): the requests (``execute=False``), the stored items, the results and the errors must be the same.
"""

from __future__ import annotations

from datetime import datetime, timezone
from decimal import Decimal
from typing import Any

import pytest

import dynabase
from dynabase.model import Table, compiled, model

SCHEMA: dict[str, Any] = {
    "format": "onetable:1.1.0",
    "version": "0.0.1",
    "indexes": {
        "primary": {"hash": "pk", "sort": "sk"},
        "gs1": {"hash": "gs1pk", "sort": "gs1sk"},
    },
    "models": {
        "Thing": {
            "pk": {"type": "string", "value": "thing#${group}"},
            "sk": {"type": "string", "value": "thing#${seq:4}#${kind}"},
            "group": {"type": "string", "required": True},
            "seq": {"type": "number", "required": True},
            "kind": {"type": "string", "enum": ["a", "b", "c"], "default": "a"},
            "id": {"type": "string", "generate": True},
            "code": {"type": "string", "validate": "/^[A-Z]{3}$/"},
            "label": {"type": "string", "map": "lbl"},
            "score": {"type": "number"},
            "ok": {"type": "boolean"},
            "when": {"type": "date"},
            "stamp": {"type": "date", "isoDates": False},
            "expires": {"type": "date", "ttl": True},
            "photo": {"type": "binary"},
            "colors": {"type": "set"},
            "prefs": {"type": "object", "default": {"theme": "dark"}},
            "history": {"type": "array"},
            "secret": {"type": "string", "hidden": True},
            "title": {"type": "string", "value": "${group}/${label}"},
            "theme": {"type": "string", "value": "${prefs.theme}"},
            "gs1pk": {"type": "string", "value": "kind#${kind}"},
            "gs1sk": {"type": "string", "value": "seq#${seq:4}"},
        },
        "Simple": {
            "pk": {"type": "string"},
            "sk": {"type": "string"},
            "name": {"type": "string"},
            "n": {"type": "number"},
        },
    },
    "params": {"isoDates": True, "timestamps": True},
}

NOW = datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=timezone.utc)


class _Frozen(datetime):
    @classmethod
    def now(cls, tz: Any = None) -> datetime:  # type: ignore[override]
        return NOW


@pytest.fixture
def pair(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setattr(compiled, "datetime", _Frozen)
    monkeypatch.setattr(model, "datetime", _Frozen)
    client = dynabase.connect(":memory:")
    tables = [Table(name, client, SCHEMA, generate=lambda: "generated") for name in ("fast", "general")]
    for table in tables:
        table.create_table()
        for name in ("Thing", "Simple"):
            tables[1].model(name)._compiled = False
    assert tables[0].model("Thing")._compiled and tables[0].model("Simple")._compiled
    yield client, tables
    client.close()


def _both(tables: list[Table], name: str, op: str, props: Any, **params: Any) -> list[Any]:
    """The outcome of the call on each table: its result, or its error's type and message."""
    out = []
    for table in tables:
        try:
            result = getattr(table.model(name), op)(
                dict(props) if isinstance(props, dict) else props, **params
            )
        except Exception as error:  # the same error on both is the point
            result = (type(error).__name__, str(error))
        if isinstance(result, dict) and result.get("TableName") == table.name:
            result = {**result, "TableName": "T"}
        out.append(result)
    return out


def _stored(client: Any, name: str) -> list[dict]:
    return client.scan(TableName=name)["Items"]


THINGS = [
    {"group": "g1", "seq": 1},
    {
        "group": "g1",
        "seq": 2,
        "kind": "b",
        "code": "ABC",
        "label": "two",
        "score": Decimal("2.5"),
        "ok": True,
    },
    {"group": "g1", "seq": 3, "score": 3.25, "ok": "false", "when": NOW, "stamp": "2026-01-01T00:00:00Z"},
    {"group": "g2", "seq": "4", "expires": NOW, "photo": b"\x00\x01", "colors": ["red", "blue"]},
    {
        "group": "g2",
        "seq": 5,
        "prefs": {"theme": "light", "at": NOW},
        "history": [1, {"at": NOW}],
        "secret": "s",
    },
    {"group": "g2", "seq": 6, "label": "x", "unknown": "dropped", "title": "given"},
    {"group": "g3", "seq": 7, "score": "12.50", "ok": 1, "colors": {1, 2}},
]

BAD_THINGS = [
    {"group": "g9", "seq": 1, "kind": "zzz"},
    {"group": "g9", "seq": 2, "code": "abcd"},
    {"seq": 3},
    {"group": "g9"},
    {"group": "g9", "seq": "x"},
    {"group": "g9", "seq": 4, "label": None},
    {"group": "g9", "seq": 5, "colors": []},
    {"group": "g9", "seq": 6, "ok": {"a": 1}},
    {"group": "g9", "seq": 7, "history": "nope"},
    {"group": "g9", "seq": 8, "when": "not a date"},
    {"group": "g9", "seq": 9, "score": float("nan")},
    {"group": "g9", "seq": 10, "label": "${group}"},
]


def test_create_requests_items_and_results_match(pair: Any) -> None:
    client, tables = pair
    for props in [*THINGS, *BAD_THINGS]:
        fast, general = _both(tables, "Thing", "create", props, execute=False)
        assert fast == general, props
        fast, general = _both(tables, "Thing", "create", props)
        assert fast == general, props
    fast, general = _both(tables, "Thing", "create", THINGS[0])  # exists already: the same error
    assert fast == general and fast[0] == "ConditionFailedError"
    assert _stored(client, "fast") == _stored(client, "general")
    assert tables[0].model("Thing")._build_put(THINGS[1], {}) is not None  # the compiled path served it


def test_update_requests_items_and_results_match(pair: Any) -> None:
    client, tables = pair
    for props in THINGS:
        for table in tables:
            table.model("Thing").create(props)
    changes = [
        {"group": "g1", "seq": 1, "kind": "a", "label": "new", "score": 7},
        {"group": "g1", "seq": 2, "kind": "b", "ok": "yes", "when": NOW, "colors": ("x",)},
        {"group": "g2", "seq": 5, "kind": "a", "prefs": {"theme": "blue"}, "history": []},
        {"group": "g2", "seq": 5, "kind": "a", "label": "${seq}"},
        {"group": "g2", "seq": 5, "kind": "a", "label": None},
        {"group": "g2", "seq": 5, "kind": "a", "code": "no"},
        {"group": "g2", "seq": 99, "kind": "a", "label": "missing"},
        {"group": "g2", "seq": 5, "kind": "a"},
        {"seq": 5},
    ]
    for props in changes:
        fast, general = _both(tables, "Thing", "update", props, execute=False)
        assert fast == general, props
        fast, general = _both(tables, "Thing", "update", props)
        assert fast == general, props
    assert _stored(client, "fast") == _stored(client, "general")
    assert tables[0].model("Thing")._build_update(changes[0], {}) is not None


def test_find_and_get_requests_and_results_match(pair: Any) -> None:
    client, tables = pair
    for props in THINGS:
        for table in tables:
            table.model("Thing").create(props)
            table.model("Simple").create({"pk": props["group"], "sk": str(props["seq"]), "name": "n", "n": 1})
    queries: list[tuple[str, dict, dict]] = [
        ("Thing", {"group": "g1"}, {}),
        ("Thing", {"group": "g1", "seq": 2}, {}),
        ("Thing", {"group": "g1", "seq": 2, "kind": "b"}, {}),
        ("Thing", {"group": "g2", "label": "x"}, {"limit": 1}),
        ("Thing", {"group": "g2", "ok": True, "score": 3.25}, {"reverse": True, "consistent": True}),
        ("Thing", {"group": "g2", "label": "${group}"}, {}),
        ("Thing", {"group": "g1", "seq": {">=": 2}}, {}),
        ("Thing", {"kind": "a"}, {}),
        ("Thing", {"group": "g1", "when": NOW}, {}),
        ("Simple", {"pk": "g1"}, {}),
        ("Simple", {"pk": "g1", "sk": "1"}, {}),
        ("Simple", {"pk": "g1", "sk": 1}, {}),
        ("Simple", {"pk": "g1", "n": "1"}, {}),
        ("Simple", {"pk": "g1", "name": "n"}, {"limit": 5}),
    ]
    for name, props, params in queries:
        for execute in (False, True):
            fast, general = _both(tables, name, "find", props, execute=execute, **params)
            assert fast == general, (name, props, params)
            if execute and isinstance(fast, list):
                assert (fast.next, fast.prev, fast.count) == (general.next, general.prev, general.count)
    for name, props in [
        ("Thing", {"group": "g1", "seq": 2, "kind": "b"}),
        ("Simple", {"pk": "g2", "sk": "4"}),
    ]:
        fast, general = _both(tables, name, "get", props)
        assert fast == general and fast is not None
    assert tables[0].model("Thing")._build_find(queries[0][1], {}) is not None


def test_a_page_with_items_of_other_models_reads_each_through_its_model(pair: Any) -> None:
    _, tables = pair
    for table in tables:
        table.model("Thing").create(THINGS[0])
        table.model("Simple").create({"pk": "thing#g1", "sk": "thing#zz", "name": "other", "n": 2})
        table.model("Thing").create(THINGS[1])
    fast, general = _both(tables, "Thing", "find", {"pk": "thing#g1"})
    assert fast == general
    assert tables[0].model("Thing")._build_find({"pk": "thing#g1"}, {}) is not None
    assert [item.get("name") for item in fast] == [None, None, "other"]


@pytest.mark.parametrize("numbers", ["auto", "decimal", "float"])
def test_compiled_reader_matches_the_general_reader(numbers: str) -> None:
    client = dynabase.connect(":memory:")
    table = Table("things", client, SCHEMA, numbers=numbers)
    table.create_table()
    thing = table.model("Thing")
    for props in THINGS:
        thing.create({**props, "score": Decimal("-1.25"), "history": [1, -2, Decimal("0.5"), {"n": 3}]})
    raw = client.scan(TableName="things")["Items"]
    general = [thing._transform_read("find", table.decoder.decode_item(item), {}, {}) for item in raw]
    assert [thing._reader(item) for item in raw] == general
    assert thing._read_raw_items("find", raw, {"parse": True}) == general
    assert {type(item["score"]) for item in general} == {float if numbers == "float" else Decimal}
    client.close()


def test_models_the_compiled_paths_cannot_serve_are_not_compiled() -> None:
    schema = {
        "format": "onetable:1.1.0",
        "version": "0.0.1",
        "indexes": {"primary": {"hash": "pk", "sort": "sk"}},
        "models": {
            "Unique": {
                "pk": {"type": "string"},
                "sk": {"type": "string"},
                "u": {"type": "string", "unique": True},
            },
            "Nested": {
                "pk": {"type": "string"},
                "sk": {"type": "string"},
                "n": {"type": "object", "schema": {"x": {"type": "string"}}},
            },
            "Packed": {
                "pk": {"type": "string"},
                "sk": {"type": "string"},
                "a": {"type": "string", "map": "d.a"},
            },
            "Crypt": {
                "pk": {"type": "string"},
                "sk": {"type": "string"},
                "c": {"type": "string", "crypt": True},
            },
        },
        "params": {"crypto": {"primary": {"cipher": "aes-256-gcm", "password": "p"}}},
    }
    table = Table("t", dynabase.connect(":memory:"), schema)
    for name in ("Unique", "Nested", "Packed", "Crypt"):
        assert not table.model(name)._compiled, name


@pytest.mark.parametrize("numbers", ["auto", "decimal"])
def test_compiled_reader_reads_values_of_another_type_as_the_general_reader(numbers: str) -> None:
    """A field holding another type than its schema says (written by another writer) takes the reader's
    fallback: the generic decoder, as the general reader."""
    client = dynabase.connect(":memory:")
    table = Table("things", client, SCHEMA, numbers=numbers)
    table.create_table()
    thing = table.model("Thing")
    odd = {
        "lbl": {"N": "12"},
        "seq": {"S": "7"},
        "score": {"NULL": True},
        "ok": {"S": "yes"},
        "prefs": {"L": [{"S": "x"}, {"N": "1.5"}]},
        "history": {"M": {"a": {"N": "-3"}}},
        "kind": {"BOOL": True},
    }
    for name, av in odd.items():
        client.put_item(
            TableName="things",
            Item={"pk": {"S": "thing#g"}, "sk": {"S": name}, "_type": {"S": "Thing"}, name: av},
        )
    raw = client.scan(TableName="things")["Items"]
    general = [thing._transform_read("find", table.decoder.decode_item(item), {}, {}) for item in raw]
    assert [thing._reader(item) for item in raw] == general
    assert {type(v) for rec in general for k, v in rec.items() if k in ("label", "seq")} == {
        str,
        int if numbers == "auto" else Decimal,
    }
    client.close()


def test_compiled_calls_run_without_the_general_request_path(
    pair: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """create / update / find of a compiled model run their request themselves (not through ``_run``) with the
    results of the general path: paging with ``limit``, ``reverse``, ``throw=False``."""
    client, tables = pair
    fast = tables[0].model("Simple")
    general = tables[1].model("Simple")

    def no_general_run(*args: Any) -> Any:
        raise AssertionError("the general _run ran")

    made = []
    for n in range(5):
        general.create({"pk": "p", "sk": f"s{n}", "name": f"n{n}", "n": n})
        with monkeypatch.context() as patch:
            patch.setattr(fast, "_run", no_general_run)
            made.append(fast.create({"pk": "p", "sk": f"s{n}", "name": f"n{n}", "n": n}))
    assert made == [general.get({"pk": "p", "sk": f"s{n}"}) for n in range(5)]
    calls = [
        ("find", {"pk": "p"}, {}),
        ("find", {"pk": "p"}, {"limit": 2}),
        ("find", {"pk": "p"}, {"limit": 3, "reverse": True}),
        ("find", {"pk": "p", "name": "n3"}, {}),
        ("update", {"pk": "p", "sk": "s1", "n": Decimal("1.5")}, {}),
        ("update", {"pk": "p", "sk": "none", "n": 1}, {"throw": False}),
        ("create", {"pk": "p", "sk": "s1", "name": "again"}, {"throw": False}),
    ]
    for op, props, params in calls:
        want = getattr(general, op)(dict(props), **params)
        with monkeypatch.context() as patch:
            patch.setattr(fast, "_run", no_general_run)
            got = getattr(fast, op)(dict(props), **params)
        assert got == want, (op, props, params)
        if op == "find":
            assert (got.next, got.prev, got.count) == (want.next, want.prev, want.count)
    assert _stored(client, "fast") == _stored(client, "general")


def test_an_update_shape_makes_its_expression_once_and_values_keep_their_sharing(
    pair: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ExpressionAttributeNames / UpdateExpression of an update are made once per shape (the properties
    SET and which of their values share a placeholder); the requests stay the general path's."""
    client, tables = pair
    for table in tables:
        table.model("Simple").create({"pk": "p", "sk": "s", "name": "x", "n": 1})
        table.model("Thing").create(THINGS[0])
    calls = [
        ("Simple", {"pk": "p", "sk": "s", "name": "a", "n": 1}),  # SETs name, n, updated: made
        ("Simple", {"pk": "p", "sk": "s", "name": "b", "n": Decimal("2.5")}),  # the same shape
        ("Simple", {"pk": "p", "sk": "s", "name": "p"}),  # SETs name, updated ("p" as the key: no matter)
        ("Simple", {"pk": "p", "sk": "s", "name": "", "n": 3}),  # "" is never shared: the first shape
        ("Thing", {"group": "g1", "seq": 1, "kind": "a", "label": "b"}),  # made
        ("Thing", {"group": "g1", "seq": 1, "kind": "a", "label": "a"}),  # label shares kind's placeholder
        ("Thing", {"group": "g1", "seq": 1, "kind": "a", "label": "c"}),  # the shape of the first Thing call
    ]
    made = []
    real = compiled.Placeholders
    monkeypatch.setattr(compiled, "Placeholders", lambda: made.append(1) or real())
    for name, props in calls:
        fast, general = _both(tables, name, "update", props, execute=False)
        assert fast == general, props
        fast, general = _both(tables, name, "update", props)
        assert fast == general, props
    assert _stored(client, "fast") == _stored(client, "general")
    assert len(made) == 4


def test_get_by_key_builds_the_key_of_the_general_pipeline() -> None:
    """``get``'s generated key builder (templates inlined) finds what the general pipeline finds, for every key
    shape: given or made keys, padded ints, strings, floats and Decimals (the full renderer), a template that
    reads the type field, number keys, and values it cannot take (the general path's result or error)."""
    schema = {
        "format": "onetable:1.1.0",
        "version": "0.0.1",
        "indexes": {"primary": {"hash": "pk", "sort": "sk"}},
        "models": {
            "Typed": {
                "pk": {"type": "string", "value": "${_type}#${group}"},
                "sk": {"type": "string", "value": "n#${seq:4}#${tag:3:_}"},
                "group": {"type": "string"},
                "seq": {"type": "number"},
                "tag": {"type": "string"},
            },
            "Literal": {"pk": {"type": "string", "value": "all"}, "sk": {"type": "string"}},
        },
    }
    client = dynabase.connect(":memory:")
    tables = [Table(name, client, schema) for name in ("fast", "general")]
    for table in tables:
        table.create_table()
    tables[1].model("Typed")._key_fields = tables[1].model("Literal")._key_fields = None
    assert tables[0].model("Typed")._key_fields is not None
    for table in tables:
        typed = table.model("Typed")
        for group, seq, tag in [("g", 7, "a"), ("g", 12345, "abcd"), ("g", 2.5, "b"), ("h", Decimal(3), "c")]:
            typed.create({"group": group, "seq": seq, "tag": tag})
        table.model("Literal").create({"sk": "x"})
    gets = [
        ("Typed", {"group": "g", "seq": 7, "tag": "a"}),
        ("Typed", {"group": "g", "seq": "7", "tag": "a"}),  # a str pads as an int does
        ("Typed", {"group": "g", "seq": "0007", "tag": "a"}),
        ("Typed", {"group": "g", "seq": 12345, "tag": "abcd"}),
        ("Typed", {"group": "g", "seq": 2.5, "tag": "b"}),
        ("Typed", {"group": "g", "seq": 7.0, "tag": "a"}),
        ("Typed", {"group": "h", "seq": Decimal(3), "tag": "c"}),
        ("Typed", {"group": "g", "seq": True, "tag": "a"}),
        ("Typed", {"group": "g", "seq": 8, "tag": "a"}),  # no such item
        ("Typed", {"pk": "Typed#g", "sk": "n#0007#__a"}),  # the keys given
        ("Typed", {"pk": "Typed#g", "seq": 7, "tag": "a"}),
        ("Typed", {"group": "g", "tag": "a"}),  # no sort key: a query for at most one item
        ("Typed", {"group": "g", "seq": {"x": 1}, "tag": "a"}),
        ("Typed", {"group": None, "seq": 7, "tag": "a"}),
        ("Typed", {"pk": 5, "sk": "n#0007#__a"}),
        ("Literal", {"sk": "x"}),
        ("Literal", {"sk": "y"}),
    ]
    for name, props in gets:
        fast, general = _both(tables, name, "get", props)
        assert fast == general, props
    assert tables[0].model("Typed").get(gets[0][1]) == {"group": "g", "seq": 7, "tag": "a"}
    assert tables[0].model("Typed")._fast_key({"group": "g", "seq": 7, "tag": "a"}) == {
        "pk": {"S": "Typed#g"},
        "sk": {"S": "n#0007#__a"},
    }
    client.close()


def test_writes_neither_change_nor_share_the_callers_containers(pair: Any) -> None:
    """create / update copy the containers they are given (the dates inside go to their stored form in the
    copy): the caller's dicts and lists stay as they were, and the result does not share them."""
    _, tables = pair
    for table in tables:
        thing = table.model("Thing")
        prefs = {"theme": "light", "at": NOW, "deep": {"when": NOW, "list": [NOW, {"x": NOW}]}}
        history = [1, {"at": NOW}, [NOW]]
        props = {"group": "g", "seq": 1, "prefs": prefs, "history": history}
        snapshot = repr(props)
        made = thing.create(props)
        assert repr(props) == snapshot and props["prefs"] is prefs
        assert made["prefs"] is not prefs and made["prefs"]["deep"] is not prefs["deep"]
        assert made["history"] is not history and made["history"][1] is not history[1]
        changed = thing.update({"group": "g", "seq": 1, "kind": "a", "prefs": prefs, "history": history})
        assert repr(props) == snapshot
        assert changed["prefs"] is not prefs and changed["history"] is not history
        got = thing.get({"group": "g", "seq": 1, "kind": "a"})
        assert got["prefs"]["deep"]["when"] == NOW.strftime("%Y-%m-%dT%H:%M:%S.") + "678Z"


class _NoReadQuery:
    """A client without the embedded client's ``read_query`` (as boto3's and the lean clients)."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def __getattr__(self, name: str) -> Any:
        if name == "read_query":
            raise AttributeError(name)
        return getattr(self._client, name)


def test_find_reads_items_as_the_engine_makes_them_with_the_results_of_page_reading(pair: Any) -> None:
    """On the embedded client a compiled find reads each item as the engine makes it (``read_query``); the
    results are those of reading the page after (a client without ``read_query``) and of the general path:
    items of other models, a unique field's sentinel (no result), paging with ``limit``, filters."""
    client, tables = pair
    for table in tables:
        for props in THINGS:
            table.model("Thing").create(props)
        table.model("Simple").create({"pk": "thing#g1", "sk": "thing#zz", "name": "other", "n": 2})
        client.put_item(
            TableName=table.name,
            Item={"pk": {"S": "thing#g1"}, "sk": {"S": "thing#zzz"}, "_type": {"S": "_Unique"}},
        )
    page_reading = Table("fast", _NoReadQuery(client), SCHEMA, generate=lambda: "generated")
    fast, general = tables[0].model("Thing"), tables[1].model("Thing")
    seen: list[Any] = []
    real = client.read_query
    wholes: list[Any] = []

    def read_query(reader: Any, whole: Any = None, **cmd: Any) -> Any:
        seen.append(cmd)
        wholes.append(whole)
        return real(reader, whole, **cmd)

    client.read_query = read_query  # type: ignore[method-assign]
    for props, params in [
        ({"pk": "thing#g1"}, {}),
        ({"group": "g1"}, {"limit": 2}),
        ({"group": "g1"}, {"limit": 1, "reverse": True}),
        ({"group": "g2", "label": "x"}, {}),
        ({"group": "nothing"}, {}),
    ]:
        want = general.find(dict(props), **params)
        for reading in (fast, page_reading.model("Thing")):
            got = reading.find(dict(props), **params)
            assert got == want, (props, params)
            assert (got.next, got.prev, got.count) == (want.next, want.prev, want.count)
    assert len(seen) >= 5 and fast._build_find({"pk": "thing#g1"}, {}) is not None
    # Thing shows no key attribute: its items came without them, the other models' items whole
    assert not fast._reads_keys and all(whole is not None for whole in wholes)
    assert [item.get("name") for item in fast.find({"pk": "thing#g1"})] == [None, None, None, "other"]
