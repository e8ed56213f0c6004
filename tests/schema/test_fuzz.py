"""Property tests: no input makes validation crash; the only failure is SchemaError."""

from __future__ import annotations

import copy
import datetime as dt

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dynabase.schema import Schema, SchemaError, SchemaIssue, load_schema, validate_schema
from dynabase.schema.rules import (
    FIELD_PROPS,
    INDEX_PROPS,
    METRIC_PROPS,
    PARAM_PROPS,
    PROCESS_PROPS,
    TOP_LEVEL_PROPS,
)

from .helpers import BASE

WORDS = sorted(
    set(TOP_LEVEL_PROPS + FIELD_PROPS + INDEX_PROPS + PARAM_PROPS + PROCESS_PROPS + METRIC_PROPS)
    | {
        "primary",
        "User",
        "pk",
        "sk",
        "id",
        "name",
        "gs1",
        "local",
        "global",
        "all",
        "keys",
        "string",
        "number",
    }
    | {
        "object",
        "array",
        "date",
        "ulid",
        "uid(4)",
        "up",
        "down",
        "both",
        "cloud",
        "device",
        "data.x",
        "_type",
    }
    | {
        "${id}",
        "${name:3}",
        "${a.b}",
        "/^a$/i",
        "aes-256-gcm",
        "onetable:1.1.0",
        "1.0.0",
        "User:primary:id=id",
    }
)

keys = st.one_of(st.sampled_from(WORDS), st.text(max_size=6))
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(WORDS),
    st.text(max_size=12),
)
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(keys, children, max_size=5)),
    max_leaves=20,
)
# Python callers may pass odd objects too.
python_values = st.recursive(
    st.one_of(
        scalars,
        st.just(str),
        st.just(int),
        st.just(dt.datetime.now()),
        st.binary(max_size=4),
        st.just(object()),
    ),
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.tuples(children, children),
        st.dictionaries(st.one_of(keys, st.integers(), st.none()), children, max_size=4),
    ),
    max_leaves=25,
)


def check(doc) -> None:
    issues = validate_schema(doc, warnings=True)
    assert all(isinstance(i, SchemaIssue) and isinstance(i.path, str) and i.message for i in issues)
    errors = [i for i in issues if i.severity == "error"]
    try:
        schema = load_schema(doc) if isinstance(doc, dict) else None
    except SchemaError as exc:
        assert exc.errors == errors
    else:
        assert schema is None or (isinstance(schema, Schema) and errors == [])


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.dictionaries(keys, json_values, max_size=8))
def test_random_documents(doc):
    check(doc)


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*prefix, k))


ALL_PATHS = list(_paths(BASE))[1:]


@settings(max_examples=250, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(st.tuples(st.sampled_from(ALL_PATHS), python_values), min_size=1, max_size=4))
def test_mutated_valid_schema(mutations):
    doc = copy.deepcopy(BASE)
    for path, value in mutations:
        target = doc
        for step in path[:-1]:
            if not isinstance(target, dict) or step not in target:
                break
            target = target[step]
        else:
            if isinstance(target, dict):
                target[path[-1]] = value
    check(doc)


@settings(max_examples=80, deadline=None)
@given(st.dictionaries(keys, json_values, max_size=6), st.dictionaries(keys, json_values, max_size=6))
def test_random_fields_and_params(fields, params):
    doc = copy.deepcopy(BASE)
    doc["models"]["User"]["x"] = fields
    doc["params"] = params
    check(doc)
    doc["models"]["User"]["x"] = {"type": "object", "schema": {"y": fields}}
    check(doc)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_random_text_only_raises_schema_error(text):
    for fmt in (None, "json", "json5", "yaml"):
        try:
            load_schema(text, format=fmt)
        except SchemaError:
            pass


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("{}[]:,'\"/*\\\n xa01.-+eE$")), max_size=40))
def test_json5_like_text_only_raises_schema_error(text):
    for fmt in ("json", "json5"):
        try:
            load_schema(text, format=fmt)
        except SchemaError:
            pass
