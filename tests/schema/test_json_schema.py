"""The machine-readable JSON Schema of the format."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from dynabase.schema import JSON_SCHEMA, JSON_SCHEMA_FILE, parse_text
from dynabase.schema.json_schema import dumps

from .helpers import FIXTURES, base, with_fields

jsonschema = pytest.importorskip("jsonschema")


def validator():
    return jsonschema.Draft202012Validator(JSON_SCHEMA)


def test_shipped_file_is_the_exported_schema():
    text = (resources.files("dynabase.schema") / JSON_SCHEMA_FILE).read_text("utf-8")
    assert json.loads(text) == JSON_SCHEMA
    assert text == dumps(), (
        "regenerate: python -m dynabase.schema.json_schema > src/dynabase/schema/" + JSON_SCHEMA_FILE
    )
    assert JSON_SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_is_a_valid_draft_2020_12_schema():
    jsonschema.Draft202012Validator.check_schema(JSON_SCHEMA)


@pytest.mark.parametrize(
    "name", ["ioto_device.json5", "music.json5", "spec_example.json", "readme.json5", "packed.yaml"]
)
def test_examples_conform(name):
    if name.endswith(".yaml"):
        pytest.importorskip("yaml")
    path = FIXTURES / name
    doc = parse_text(path.read_text(), {".json": "json", ".json5": "json5", ".yaml": "yaml"}[path.suffix])
    assert list(validator().iter_errors(doc)) == []


@pytest.mark.parametrize(
    "doc",
    [
        base(format="onetable:1.0.0"),
        base(version="1.x"),
        base(modles={}),
        base(indexes={"primary": {"sort": "sk"}}),
        base(indexes={"primary": {"hash": "pk"}, "gs1": {"sort": "x"}}),
        base(indexes={"primary": {"hash": "pk"}, "ls1": {"type": "local"}}),
        base(indexes={"primary": {"hash": "pk"}, "gs1": {"hash": "a", "project": "some"}}),
        base(params={"timestamps": "both"}),
        base(process={"User": {"sync": "sideways"}}),
        base(process={"User": {"metrics": [{"fields": ["a"]}]}}),
        with_fields(severity={"type": "string", "requird": True}),
        with_fields(severity={"type": "string", "enum": "info"}),
        with_fields(n={"type": "integer"}),
        with_fields(code={"type": "string", "generate": "guid"}),
        with_fields(a={"type": "string", "map": "a.b.c"}),
        with_fields(x={"type": "object", "schema": {"y": {"type": "nope"}}}),
        with_fields(x={"type": "array", "items": {"type": "string", "bad": 1}}),
    ],
)
def test_structural_errors_are_caught(doc):
    assert list(validator().iter_errors(doc)) != []
