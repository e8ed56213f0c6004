"""A strict entity layer: unknown parameters, where-clause references and wrong kinds are clear errors.

Most checks run before any request, so they use an in-memory embedded table; the tests on ``table`` (every
backend) show that a refused call sends nothing.
"""

from __future__ import annotations

import asyncio
import copy
import inspect
import pathlib
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dynabase
from dynabase.model import (
    AsyncTable,
    Model,
    OneTableArgError,
    OneTableError,
    ParameterError,
    Table,
    ValidationError,
)
from dynabase.model import params as catalogue

from .conftest import SCHEMA, raw_items

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _memory_table() -> Table:
    table = Table("strict_mem", dynabase.connect(":memory:"), copy.deepcopy(SCHEMA))
    table.create_table()
    table.model("User").create({"accountId": "acme", "email": "ann@acme.com", "name": "Ann", "age": 30})
    return table


@pytest.fixture(scope="module")
def mem() -> Table:
    return _memory_table()


@pytest.fixture(scope="module")
def scratch() -> Table:
    return _memory_table()


def _error(fn: Any, kind: type = ParameterError) -> Any:
    with pytest.raises(kind) as info:
        fn()
    return info.value


# == unknown parameters ===============================================================================================


def test_a_misspelt_parameter_names_it_and_suggests_the_right_one(mem):
    error = _error(lambda: mem.User.find({"accountId": "acme"}, limt=3))
    assert str(error) == "find() got an unknown parameter 'limt'; did you mean 'limit'?"
    assert (error.method, error.param, error.suggestion) == ("find", "limt", "limit")
    assert isinstance(error, OneTableArgError) and isinstance(error, TypeError)
    assert error.code == "ArgumentError"


def test_a_parameter_of_another_method_says_whose_it_is(mem):
    error = _error(lambda: mem.User.get({"accountId": "acme", "email": "ann@acme.com"}, segments=2))
    message = str(error)
    assert message.startswith(
        "get() got an unknown parameter 'segments' ('segments' is a parameter of scan()"
    )
    assert "get() takes " in message and "consistent" in message
    error = _error(lambda: mem.User.get({"accountId": "acme", "email": "ann@acme.com"}, limt=1))
    assert "did you mean 'limit'? ('limit' is a parameter of find()" in str(error)


@pytest.mark.parametrize(
    ("method", "call"),
    [
        ("create", lambda m: m.create({"accountId": "a", "email": "x@a.com"}, exist=False)),
        ("get", lambda m: m.get({"accountId": "a", "email": "x@a.com"}, consistant=True)),
        ("find", lambda m: m.find({"accountId": "a"}, revers=True)),
        ("scan", lambda m: m.scan({}, segmnts=2)),
        ("update", lambda m: m.update({"accountId": "a", "email": "x@a.com"}, sett={"age": 3})),
        ("upsert", lambda m: m.upsert({"accountId": "a", "email": "x@a.com"}, partal=True)),
        ("remove", lambda m: m.remove({"accountId": "a", "email": "x@a.com"}, manny=True)),
        ("check", lambda m: m.check({"accountId": "a", "email": "x@a.com"}, transacton={})),
        ("init", lambda m: m.init({}, hiden=True)),
    ],
)
def test_every_model_method_checks_its_parameters(mem, method, call):
    error = _error(lambda: call(mem.User))
    assert error.method == method and str(error).startswith(f"{method}() got an unknown parameter")
    assert error.suggestion is not None or method == "init"


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda t: t.get_item({"pk": "a", "sk": "b"}, consistant=True),
            "get_item() got an unknown parameter",
        ),
        (lambda t: t.query_items({"pk": "a"}, limt=2), "did you mean 'limit'"),
        (lambda t: t.scan_items({}, segmnts=2), "did you mean 'segments'"),
        (lambda t: t.fetch(["User"], {"accountId": "acme"}, limitt=1), "did you mean 'limit'"),
        (lambda t: t.batch_get({}, retry=3), "did you mean 'retries'"),
        (lambda t: t.batch_write({}, reprocesss=False), "did you mean 'reprocess'"),
        (lambda t: t.transact("write", {}, tokn="x"), "did you mean 'token'"),
        (lambda t: t.stream([], hiden=True), "did you mean 'hidden'"),
        (lambda t: t.get_table_definition(provisoned={}), "did you mean 'provisioned'"),
        (lambda t: t.find("User", {"accountId": "acme"}, indx="gs1"), "did you mean 'index'"),
    ],
)
def test_every_table_method_checks_its_parameters(mem, call, message):
    assert message in str(_error(lambda: call(mem)))


def test_table_constructor_parameters():
    client = dynabase.connect(":memory:")
    error = _error(lambda: Table("strict_ctor", client, copy.deepcopy(SCHEMA), contxt={"a": 1}))
    assert str(error) == "Table() got an unknown parameter 'contxt'; did you mean 'context'?"
    error = _error(lambda: Table("strict_ctor", client, copy.deepcopy(SCHEMA), numbers="int"))
    assert (
        str(error) == "Table(): parameter 'numbers' must be one of 'auto', 'decimal', 'float', got str 'int'"
    )
    error = _error(lambda: Table("strict_ctor", client, copy.deepcopy(SCHEMA), follow_workers=0))
    assert "'follow_workers' must be a positive integer, got int 0" in str(error)


def test_onetable_spellings_stay_accepted(mem):
    User = mem.User
    pages = User.find({"accountId": "acme"}, maxPages=1, postFormat=lambda model, cmd: cmd)
    assert [u["name"] for u in pages] == ["Ann"]
    assert (
        User.update({"accountId": "acme", "email": "ann@acme.com", "age": 31}, **{"return": "NONE"}) is None
    )
    updated = User.update({"accountId": "acme", "email": "ann@acme.com", "age": 30}, returnValues="ALL_NEW")
    assert updated["age"] == 30


@pytest.mark.parametrize("name", sorted(catalogue.ONETABLE_ONLY))
def test_onetable_parameters_dynabase_lacks_are_named_as_such(mem, name):
    error = _error(lambda: mem.User.find({"accountId": "acme"}, **{name: True}))
    assert (
        str(error)
        == f"find() got an unknown parameter {name!r}: OneTable's {name!r} is not supported by dynabase"
    )


def test_none_means_not_given(mem):
    page = mem.User.find({"accountId": "acme"}, limit=None, next=None, index=None, where=None)
    assert len(page) == 1


# == wrong kinds ====================================================================================================


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"limit": "3"}, "find(): parameter 'limit' must be a positive integer, got str '3'"),
        ({"limit": 0}, "find(): parameter 'limit' must be a positive integer, got int 0"),
        ({"limit": True}, "find(): parameter 'limit' must be a positive integer, got bool True"),
        ({"index": 3}, "find(): parameter 'index' must be a string, got int 3"),
        ({"fields": "name"}, "find(): parameter 'fields' must be a list of names, got str 'name'"),
        ({"next": "x"}, "find(): parameter 'next' must be a dict, got str 'x'"),
        ({"where": 5}, "find(): parameter 'where' must be a string, got int 5"),
        ({"substitutions": 5}, "find(): parameter 'substitutions' must be a dict, got int 5"),
        ({"reverse": "yes"}, "find(): parameter 'reverse' must be True or False, got str 'yes'"),
        ({"select": "ALL"}, "find(): parameter 'select' must be one of 'ALL_ATTRIBUTES', "),
        ({"transform": 5}, "find(): parameter 'transform' must be a function, got int 5"),
        ({"maxPages": "2"}, "find(): parameter 'maxPages' must be a positive integer, got str '2'"),
    ],
)
def test_a_value_of_the_wrong_kind_names_the_parameter(mem, params, message):
    error = _error(lambda: mem.User.find({"accountId": "acme"}, **params))
    assert str(error).startswith(message)
    assert error.param == next(iter(params))


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"batch": []}, "create(): parameter 'batch' must be a dict, got list []"),
        ({"transaction": "t"}, "create(): parameter 'transaction' must be a dict, got str 't'"),
        ({"set": 5}, "create() got an unknown parameter 'set'"),
    ],
)
def test_collectors_of_the_wrong_kind(mem, params, message):
    assert str(_error(lambda: mem.User.create({"accountId": "a", "email": "b@a.com"}, **params))).startswith(
        message
    )


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"set": 5}, "update(): parameter 'set' must be a dict, got int 5"),
        ({"add": ["x"]}, "update(): parameter 'add' must be a dict, got list ['x']"),
        ({"remove": 5}, "update(): parameter 'remove' must be a name or a list of names, got int 5"),
        ({"push": 5}, "update(): parameter 'push' must be a dict, got int 5"),
        ({"update_indexes": False}, "update(): parameter 'update_indexes' must be True (dynabase always"),
    ],
)
def test_update_clauses_of_the_wrong_kind(mem, params, message):
    error = _error(lambda: mem.User.update({"accountId": "acme", "email": "ann@acme.com"}, **params))
    assert str(error).startswith(message)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"add": {"tags": [[]]}}, 'add: "tags" must be strings, numbers or bytes (a set), not [[]]'),
        (
            {"add": {"tags": []}},
            'Cannot build the "update" request for "User": DynamoDB cannot store an empty set',
        ),
        (
            {"delete": {"tags": [None]}},
            'Cannot build the "update" request for "User": a set must hold only strings',
        ),
    ],
)
def test_update_values_dynamodb_cannot_store(mem, params, message):
    error = _error(
        lambda: mem.User.update({"accountId": "acme", "email": "ann@acme.com"}, **params), ValidationError
    )
    assert str(error).startswith(message) and error.model == "User"


def test_positional_arguments_of_the_wrong_kind(mem):
    assert str(_error(lambda: mem.batch_get([]))) == "batch_get(): 'batch' must be a dict, got list []"
    assert str(_error(lambda: mem.batch_write("b"))) == "batch_write(): 'batch' must be a dict, got str 'b'"
    assert (
        str(_error(lambda: mem.transact("write", [])))
        == "transact(): 'transaction' must be a dict, got list []"
    )
    assert (
        str(_error(lambda: mem.User.template("pk", 5)))
        == "template(): 'properties' must be a dict, got int 5"
    )


def test_unknown_index_and_model_suggest_names(mem):
    error = _error(lambda: mem.User.find({"name": "Ann"}, index="gsi1"), OneTableArgError)
    assert str(error) == 'Cannot find index gsi1; did you mean "gs1"?'
    error = _error(lambda: mem.model("Usr"), ValidationError)
    assert str(error).endswith('; did you mean "User"?')
    assert "Unknown model" in str(_error(lambda: mem.model(5), ValidationError))


def test_a_refused_call_sends_nothing(table):
    User = table.model("User")
    for params in ({"exist": False}, {"batch": []}, {"timestamps": "no"}):
        with pytest.raises(ParameterError):
            User.create({"accountId": "acme", "email": "x@acme.com"}, **params)
    assert raw_items(table) == []
    User.create({"accountId": "acme", "email": "x@acme.com", "age": 1})
    with pytest.raises(ParameterError):
        User.update({"accountId": "acme", "email": "x@acme.com", "age": 2}, sett={"name": "X"})
    with pytest.raises(ParameterError):
        User.remove({"accountId": "acme", "email": "x@acme.com"}, exits=True)
    assert User.get({"accountId": "acme", "email": "x@acme.com"}, consistent=True)["age"] == 1


def test_the_compiled_paths_check_their_parameters_too(table):
    """create / update / find / get of a compiled model take a path of their own for run-only params (execute,
    log, throw, client, consistent, limit, reverse): a value of the wrong kind is refused there as well."""
    Item = table.model("Item")
    assert Item._compiled_ok() and Item._key_fields is not None  # these calls would take the compiled paths
    key = {"group": "g", "seq": 1}
    calls = [
        ("create", lambda: Item.create({**key, "label": "a"}, execute="no"), "execute", "True or False"),
        ("create", lambda: Item.create({**key, "label": "a"}, throw=0), "throw", "True or False"),
        ("update", lambda: Item.update({**key, "label": "b"}, log="yes"), "log", "True or False"),
        ("find", lambda: Item.find({"group": "g"}, limit="3"), "limit", "a positive integer"),
        ("find", lambda: Item.find({"group": "g"}, limit=0), "limit", "a positive integer"),
        ("find", lambda: Item.find({"group": "g"}, reverse="no"), "reverse", "True or False"),
        ("get", lambda: Item.get(key, consistent="yes"), "consistent", "True or False"),
    ]
    for method, call, name, wanted in calls:
        error = _error(call)
        assert (error.method, error.param) == (method, name)
        assert str(error).startswith(f"{method}(): parameter {name!r} must be {wanted}, got ")
        assert raw_items(table) == []
    Item.create({**key, "label": "a"}, throw=True, log=False)
    assert Item.get(key, consistent=True)["label"] == "a"
    assert [i["seq"] for i in Item.find({"group": "g"}, limit=1, reverse=True)] == [1]


def test_the_async_face_checks_before_it_sends():
    """AsyncModel builds a call's request on a shadow of the model before awaiting the native client: a refused
    call raises there, and the native client is never called."""
    called: list[str] = []

    class Native:
        def __getattr__(self, method: str) -> Any:
            called.append(method)
            raise AssertionError(f"{method} sent")

    async def calls() -> list[str]:
        atable = AsyncTable.wrap(_memory_table(), native=Native())  # its close() closes the table's client
        Item = atable.model("Item")
        errors = []
        for call in (
            lambda: Item.create({"group": "a", "seq": 1}, execute="no"),
            lambda: Item.find({"group": "a"}, limt=2),
            lambda: Item.get({"group": "a", "seq": 1}, consistent="yes"),
            lambda: Item.update({"group": "a", "seq": 1, "label": "x"}, sett={}),
        ):
            with pytest.raises(ParameterError) as info:
                await call()
            errors.append(info.value.method)
        atable.close()
        return errors

    assert asyncio.run(calls()) == ["create", "find", "get", "update"]
    assert called == []


# == where clauses ==================================================================================================


def test_where_names_an_unknown_property(mem):
    error = _error(lambda: mem.User.find({"accountId": "acme"}, where="${nmae} = {Ann}"))
    assert str(error) == "${nmae}: 'nmae' is no property of model 'User'; did you mean 'name'?"
    assert error.suggestion == "name" and error.param == "where"
    error = _error(lambda: mem.User.find({"accountId": "acme"}, where="${address.cty} = {Oslo}"))
    assert (
        str(error)
        == "${address.cty}: 'cty' is no property of 'address' of model 'User'; did you mean 'city'?"
    )
    error = _error(
        lambda: mem.User.update({"accountId": "acme", "email": "ann@acme.com"}, set={"age": "${agee}"})
    )
    assert "did you mean 'age'?" in str(error)


def test_where_takes_properties_keys_type_and_timestamps(mem):
    User = mem.User
    where = "${name} = {Ann} and ${_type} = {User} and attribute_exists(${created})"
    assert [u["name"] for u in User.find({"accountId": "acme"}, where=where)] == ["Ann"]
    assert len(User.find({"accountId": "acme"}, where="${prefs.anything} = {1} or ${tags} = {x}")) == 0
    assert mem.fetch(["User"], {"accountId": "acme"})["User"]  # the generic model's where names _type


def test_missing_substitution_says_which(mem):
    find = mem.User.find
    error = _error(lambda: find({"accountId": "acme"}, where="${age} > @{min}"), OneTableArgError)
    assert (
        str(error)
        == 'Missing substitutions for attribute value "min" in "${age} > @{min}" (no substitutions= given)'
    )
    error = _error(
        lambda: find({"accountId": "acme"}, where="${age} > @{min}", substitutions={"mn": 1}),
        OneTableArgError,
    )
    assert str(error).endswith("; did you mean @{mn}?")
    error = _error(
        lambda: find({"accountId": "acme"}, where="${age} > @{min}", substitutions={"x": 1}), OneTableArgError
    )
    assert str(error).endswith("(substitutions has 'x')")


# == sort-key operators on template inputs ============================================================================


def test_sort_key_operator_on_a_template_input_is_a_validation_error(mem):
    Item = mem.model("Item")
    Item.create({"group": "g", "seq": 3})
    error = _error(lambda: Item.find({"group": "g", "seq": {">=": 2}}), ValidationError)
    assert str(error) == (
        'Cannot use the sort-key operator {">=": 2} on "seq": "seq" feeds the key template "item#${seq:6}" of '
        '"sk", and operators apply to a key property itself. Give "seq" a plain value, or put the operator on '
        '"sk" ({"sk": {">=": \'item#000002\'}})'
    )
    assert error.model == "Item" and list(error.fields) == ["seq"]
    assert [i["seq"] for i in Item.find({"group": "g", "sk": {">=": "item#000002"}})] == [3]
    error = _error(lambda: Item.find({"group": "g", "seq": {"between": [1, 4]}}), ValidationError)
    assert 'operator {"between": [1, 4]}' in str(error) and "({" not in str(error)


def test_a_map_for_a_template_input_stays_a_type_error(mem):
    error = _error(lambda: mem.model("Item").find({"group": "g", "seq": {"n": 1}}), OneTableArgError)
    assert error.code == "TypeError"


# == the catalogue ===================================================================================================


def test_the_reference_is_current():
    committed = (ROOT / catalogue.REFERENCE_PATH).read_text(encoding="utf-8")
    assert committed == catalogue.render_reference(), "run: python -m dynabase.model.params"


def test_the_reference_has_a_section_per_method():
    text = catalogue.render_reference()
    for method in catalogue.METHODS:
        assert re.search(rf"^## .*\b{method}\(", text, re.M), method
    assert "| `return_`, `returns`, `returnValues` |" in text and "| `return` |" in text


def _layer_modules() -> list[pathlib.Path]:
    """The sources a call's params pass through: every module Model is composed of (its bases: prepare, write,
    read, request, unique, keys, compiled, ...), the expression builder, and the table side that runs them."""
    from dynabase.model import aio, collectors, expression, table

    parts = {
        inspect.getsourcefile(cls) for cls in Model.__mro__ if cls.__module__.startswith("dynabase.model")
    }
    return sorted(
        pathlib.Path(f)
        for f in parts | {inspect.getsourcefile(m) for m in (expression, collectors, table, aio)}
    )


def test_every_parameter_the_layer_reads_is_in_the_catalogue():
    modules = _layer_modules()
    names = {path.stem for path in modules}
    assert {"model", "prepare", "write", "read", "request", "unique", "keys", "compiled"} <= names
    read = {
        (path.name, name)
        for path in modules
        for name in re.findall(r"\b(?:p|params)(?:\.get\(|\[)\"([a-z_]+)\"", path.read_text(encoding="utf-8"))
    }
    known = {p.name for p in catalogue.CATALOGUE} | catalogue.INTERNAL
    assert {(module, name) for module, name in read if name not in known} == set()


def test_kinds_are_one_per_name():
    kinds: dict[str, str] = {}
    for param in catalogue.CATALOGUE:
        for spelling in param.spellings:
            assert kinds.setdefault(spelling, param.kind) == param.kind, spelling


# == random parameters ================================================================================================

_NAMES = sorted({s for p in catalogue.CATALOGUE for s in p.spellings} - {"client"})
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 5),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.sampled_from(["gs1", "primary", "ALL_NEW", "COUNT", "${name}", "@{x}", "{1}", "name", "pk"]),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["name", "age", "x", "pk"]), inner, max_size=3)
    ),
    max_leaves=6,
)
_WORDS = st.sampled_from(
    ["name", "age", "email", "tags", "prefs", "x", "pk", "gs1", "primary", "ALL_NEW", "COUNT"]
)
_WHERE = st.sampled_from(
    ["${name} = {Ann}", "${age} > @{x}", "${nope} = {1}", "@{...x}", "{", "${", "(${age}"]
)
_OF_KIND = {
    "bool": st.booleans(),
    "true": st.just(True),
    "int>0": st.integers(1, 4),
    "int>=0": st.integers(0, 4),
    "number>=0": st.integers(0, 4),
    "str": _WHERE | _WORDS,
    "str|bool": st.booleans() | _WORDS,
    "str|list": _WORDS | st.lists(_WORDS, max_size=3),
    "list": st.lists(_WORDS, max_size=3),
    "dict": st.dictionaries(_WORDS, _VALUES, max_size=3),
    "str|dict": _WORDS,
}


def _param() -> st.SearchStrategy:
    """A (name, value) pair: mostly a catalogue name with a value of its kind, sometimes anything."""
    kinded = [
        st.tuples(st.just(spelling), _OF_KIND[p.kind] | st.sampled_from(p.choices or [None]))
        for p in catalogue.CATALOGUE
        if p.kind in _OF_KIND
        for spelling in p.spellings
    ]
    return st.one_of(*kinded) | st.tuples(st.sampled_from(_NAMES) | st.text(min_size=1, max_size=6), _VALUES)


_PARAMS = st.lists(_param(), max_size=4).map(dict)
_CALLS = {
    "create": lambda m, p: m.create({"accountId": "rnd", "email": "r@x.com"}, **p),
    "get": lambda m, p: m.get({"accountId": "acme", "email": "ann@acme.com"}, **p),
    "find": lambda m, p: m.find({"accountId": "acme"}, **p),
    "scan": lambda m, p: m.scan({}, **p),
    "update": lambda m, p: m.update({"accountId": "acme", "email": "ann@acme.com", "age": 30}, **p),
    "remove": lambda m, p: m.remove({"accountId": "rnd", "email": "r@x.com"}, **p),
}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(method=st.sampled_from(sorted(_CALLS)), params=_PARAMS)
def test_random_parameters_raise_only_the_layers_errors(scratch, method, params):
    try:
        _CALLS[method](scratch.User, dict(params))
    except OneTableError:
        pass


def test_a_set_field_given_lists_inside_is_a_validation_error() -> None:
    import dynabase
    from dynabase.model import Table, ValidationError

    schema = {
        "format": "onetable:1.1.0",
        "version": "0.0.1",
        "indexes": {"primary": {"hash": "pk", "sort": "sk"}},
        "models": {
            "Tagged": {
                "pk": {"type": "string", "value": "t#${id}"},
                "sk": {"type": "string", "value": "t"},
                "id": {"type": "string", "required": True},
                "tags": {"type": "set"},
            }
        },
    }
    table = Table("sets", dynabase.connect(":memory:"), schema)
    table.create_table()
    with pytest.raises(ValidationError, match='Set "tags" must hold only strings, numbers or bytes'):
        table.model("Tagged").create({"id": "1", "tags": [[]]})
    assert table.model("Tagged").get({"id": "1"}) is None
