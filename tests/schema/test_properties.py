"""Every field, index and params property, as loaded."""

from __future__ import annotations

import re

import pytest

from dynabase.schema import (
    Encode,
    FieldMap,
    Generate,
    Index,
    Metric,
    Params,
    Process,
    Reference,
    Template,
    js_regex,
    load_schema,
)

from .helpers import base, with_fields

CRYPTO = {"primary": {"cipher": "aes-256-gcm", "password": "pw"}}


def field(**spec):
    doc = with_fields(f=spec)
    doc["params"] = {"crypto": CRYPTO}
    return load_schema(doc).model("User").field("f")


def test_defaults_of_a_plain_field():
    f = field(type="string")
    assert (f.name, f.type, f.value, f.value_function, f.has_default, f.generate) == (
        "f",
        "string",
        None,
        False,
        False,
        None,
    )
    assert (f.required, f.enum, f.validate, f.unique, f.scope, f.crypt, f.hidden) == (
        False,
        None,
        None,
        False,
        None,
        False,
        False,
    )
    assert (f.map, f.schema, f.items, f.partial, f.nulls, f.ttl, f.encode) == (
        None,
        None,
        None,
        False,
        False,
        False,
        None,
    )
    assert (f.filter, f.iso_dates, f.reference, f.timestamp) == (True, False, None, False)
    assert f.raw == {"type": "string"} and f.path == "models.User.f"


@pytest.mark.parametrize(
    ("spelling", "type_"),
    [
        ("string", "string"),
        ("String", "string"),
        ("NUMBER", "number"),
        ("Boolean", "boolean"),
        ("date", "date"),
        ("Object", "object"),
        ("array", "array"),
        ("set", "set"),
        ("binary", "binary"),
        ("Buffer", "binary"),
        ("arraybuffer", "binary"),
    ],
)
def test_types(spelling, type_):
    assert field(type=spelling).type == type_


def test_value_template_and_function():
    f = field(type="string", value="x#${name}")
    assert f.value == Template("x#${name}") and f.hidden  # templated fields are hidden by default
    assert field(type="string", value="x#${name}", hidden=False).hidden is False
    g = field(type="string", value=True)
    assert g.value is None and g.value_function
    assert field(type="number", value="${name}").type == "number"


def test_default_values_of_each_type():
    assert field(type="string", default="a").default == "a"
    assert field(type="number", default=1.5).default == 1.5
    assert field(type="boolean", default=False).default is False
    assert field(type="date", default="2024-01-01T00:00:00Z").default == "2024-01-01T00:00:00Z"
    assert field(type="object", default={"a": 1}).default == {"a": 1}
    assert field(type="array", default=[]).default == []
    assert field(type="set", default=["a"]).default == ["a"]
    nulled = field(type="string", default=None)
    assert nulled.has_default and nulled.default is None


@pytest.mark.parametrize(
    ("spec", "generate"),
    [
        ("ulid", Generate("ulid")),
        ("uuid", Generate("uuid")),
        ("uid", Generate("uid", 10)),
        ("uid(16)", Generate("uid", 16)),
        (True, Generate("custom")),
    ],
)
def test_generate(spec, generate):
    assert field(type="string", generate=spec).generate == generate
    assert field(type="string", generate=False).generate is None


def test_enum_required_unique_scope():
    f = field(type="string", enum=["a", "b"], required=True, unique=True, scope="${name}")
    assert f.enum == ("a", "b") and f.required and f.unique and f.scope == Template("${name}")


@pytest.mark.parametrize(
    ("pattern", "good", "bad"),
    [
        ("/^[a-z]+$/", "abc", "ABC"),
        ("/^[a-z]+$/i", "ABC", "AB1"),
        ("^\\d{3}$", "123", "1234"),
        ("/^a.b$/s", "a\nb", "ab"),
        ("/^b$/m", "a\nb", "c"),
        ("/(?<year>\\d{4})-\\d\\d/", "2024-01", "24-01"),
        ("/^x$/", "x", "x\n"),  # JavaScript's $ does not match before a final newline
        ("/^\\d+$/", "123", "١٢٣"),  # \d is ASCII only, as in JavaScript
        ("/^a[^]b$/", "a\nb", "ab"),
        ("/^a[]b$/", None, "ab"),
        ("/a\\/b/g", "a/b", "ab"),
    ],
)
def test_validate_uses_javascript_semantics(pattern, good, bad):
    regex = field(type="string", validate=pattern).validate
    assert isinstance(regex, re.Pattern)
    if good is not None:
        assert regex.search(good)
    assert not regex.search(bad)
    assert js_regex(pattern).pattern == regex.pattern


def test_booleans():
    f = field(
        type="date",
        crypt=False,
        hidden=True,
        nulls=True,
        ttl=True,
        filter=False,
        isoDates=True,
        timestamp=True,
    )
    assert (f.hidden, f.nulls, f.ttl, f.filter, f.iso_dates, f.timestamp) == (
        True,
        True,
        True,
        False,
        True,
        True,
    )
    assert field(type="string", crypt=True).crypt


def test_map():
    assert field(type="string", map="attr").map == FieldMap("attr")
    f = field(type="string", map="data.x")
    assert f.map == ("data", "x") and f.attribute == "data" and f.sub == "x"


def test_nested_schema_and_items():
    f = field(
        type="object",
        partial=True,
        schema={
            "street": {"type": "string"},
            "geo": {"type": "object", "schema": {"lat": {"type": "number"}}},
        },
    )
    assert f.partial and list(f.schema) == ["street", "geo"]
    assert f.schema["geo"].schema["lat"].type == "number"
    assert f.schema["street"].partial  # inherited from the parent
    assert f.schema["geo"].schema["lat"].path == "models.User.f.schema.geo.schema.lat"
    tags = field(type="array", items={"type": "string", "enum": ["a", "b"]})
    assert tags.items.type == "string" and tags.items.enum == ("a", "b") and tags.nested is None
    rows = field(type="array", items={"type": "object", "schema": {"n": {"type": "number"}}})
    assert rows.items.schema["n"].type == "number" and rows.nested is rows.items.schema
    legacy = field(type="array", schema={"n": {"type": "number"}})
    assert legacy.nested["n"].type == "number"


def test_encode():
    doc = with_fields(
        sk={"type": "string", "value": "user#${name}#${id}"},
        name={"type": "string", "encode": "sk"},
        id={"type": "string", "encode": ["sk", "#", 2]},
    )
    model = load_schema(doc).model("User")
    assert model.field("name").encode == Encode("sk", "#", 1)
    assert model.field("id").encode == Encode("sk", "#", 2)
    doc["params"] = {"separator": ":"}
    doc["models"]["User"]["sk"]["value"] = "user:${name}"
    doc["models"]["User"]["id"]["encode"] = ["sk", ":", 1]
    model = load_schema(doc).model("User")
    assert model.field("name").encode == Encode("sk", ":", 1)


def test_reference():
    doc = base()
    doc["models"]["Post"] = {
        "pk": {"type": "string", "value": "post#${id}"},
        "sk": {"type": "string", "value": "post#"},
        "id": {"type": "string"},
        "author": {"type": "string", "reference": "User:primary:id=author"},
    }
    ref = load_schema(doc).model("Post").field("author").reference
    assert ref == Reference("User", "primary", (("id", "author"),), "User:primary:id=author")


def test_primary_key_fields_are_required():
    model = load_schema(base()).model("User")
    assert model.field("pk").required and model.field("sk").required and not model.field("name").required
    assert model.hash_field.name == "pk" and model.sort_field.name == "sk"
    assert model.field_for_attribute("pk") is model.field("pk")


def test_mapped_key_fields():
    doc = base()
    doc["models"]["User"] = {
        "partition": {"type": "string", "map": "pk", "value": "u#${id}"},
        "sort": {"type": "string", "map": "sk", "value": "u#"},
        "id": {"type": "string"},
    }
    model = load_schema(doc).model("User")
    assert model.keys() == (model.field("partition"), model.field("sort"))
    assert model.field("partition").required


def test_indexes():
    schema = load_schema(
        base(
            indexes={
                "primary": {"hash": "pk", "sort": "sk", "description": "main"},
                "gs1": {"hash": "gs1pk", "sort": "gs1sk", "project": "keys", "follow": True},
                "gs2": {"hash": "gs2pk", "project": ["name"]},
                "ls1": {"sort": "name", "type": "local"},
                "ls2": {"hash": "pk", "sort": "id", "type": "local"},
                "by.name-3": {"hash": "name", "type": "global"},
            }
        )
    )
    assert schema.primary == Index("primary", "pk", "sk", "primary", "all", False, "main")
    assert schema.index("gs1") == Index("gs1", "gs1pk", "gs1sk", "global", "keys", True)
    assert schema.index("gs2") == Index("gs2", "gs2pk", None, "global", ("name",))
    assert schema.index("ls1") == Index("ls1", "pk", "name", "local")
    assert schema.index("ls2").kind == "local"
    assert schema.index("by.name-3").hash == "name"
    assert schema.index("gs1").projected(schema.primary) == ("pk", "sk", "gs1pk", "gs1sk")
    assert schema.index("gs2").projected(schema.primary) == ("name", "pk", "sk", "gs2pk")
    assert schema.index("ls1").projected(schema.primary) is None
    assert schema.primary.keys == ("pk", "sk")


def test_params():
    schema = load_schema(
        base(
            params={
                "typeField": "kind",
                "createdField": "createdAt",
                "updatedField": "updatedAt",
                "timestamps": "create",
                "isoDates": True,
                "nulls": True,
                "separator": ":",
                "warn": True,
                "hidden": True,
                "partial": True,
                "legacyEmpties": True,
                "crypto": CRYPTO,
            }
        )
    )
    params = schema.params
    assert params == Params(
        "kind", "createdAt", "updatedAt", "create", True, True, ":", True, True, True, True
    )
    assert params.create_timestamp and not params.update_timestamp
    assert params.crypto["primary"].cipher == "aes-256-gcm"
    user = schema.model("User")
    assert list(user.fields)[-2:] == ["kind", "createdAt"]
    assert user.type_field.name == "kind"
    assert user.field("name").nulls and user.field("name").iso_dates
    assert Params().separator == "#" and Params().timestamps is False


def test_timestamps_update_only_and_declared_type_field():
    doc = base(params={"timestamps": "update"})
    doc["models"]["User"]["_type"] = {"type": "string", "hidden": False}
    user = load_schema(doc).model("User")
    assert list(user.fields) == ["pk", "sk", "id", "name", "_type", "updated"]
    assert user.type_field.hidden is False  # the declared one is kept


def test_process_defaults_and_metrics():
    schema = load_schema(
        base(
            params={"timestamps": True},  # a synced model needs them
            process={
                "User": {
                    "enable": "both",
                    "sync": "both",
                    "notify": True,
                    "metrics": [
                        {
                            "namespace": "Embedthis/Device",
                            "fields": ["name", {"Ident": "id"}],
                            "dimensions": ["Device", {"Name": "name"}],
                            "where": "${name} = {x}",
                            "buffer": {"elapsed": 60},
                        }
                    ],
                }
            },
        )
    )
    process = schema.process_for("User")
    assert process == Process(
        "both",
        "both",
        (
            Metric(
                "Embedthis/Device",
                (("name", "name"), ("Ident", "id")),
                ("Device", {"Name": "name"}),
                "${name} = {x}",
            ),
        ),
        True,
    )
    assert process.metrics[0].buffer == {"elapsed": 60}
    assert process.on_device and process.on_cloud
    assert schema.process_for("Other") == Process()
    assert load_schema(base(process={"User": {"sync": None}})).process["User"].sync == "none"


def test_top_level_extras():
    schema = load_schema(
        base(
            description="demo",
            name="Current",
            queries={"q": {"index": "primary"}},
            items=[{"pk": "user#1"}],
            extensions={"acme": {"x": 1}},
        )
    )
    assert (schema.description, schema.name) == ("demo", "Current")
    assert schema.queries == {"q": {"index": "primary"}}
    assert schema.items == ({"pk": "user#1"},)
    assert schema.extensions == {"acme": {"x": 1}}


def test_key_attribute_types():
    doc = base(
        indexes={
            "primary": {"hash": "pk", "sort": "sk"},
            "gs1": {"hash": "gs1pk", "sort": "n"},
            "gs2": {"hash": "bin"},
        }
    )
    doc["models"]["User"].update(
        gs1pk={"type": "string"},
        n={"type": "number"},
        bin={"type": "binary"},
        sk={"type": "date", "value": "x"},
    )
    assert load_schema(doc).key_attribute_types() == {
        "pk": "S",
        "sk": "N",
        "gs1pk": "S",
        "n": "N",
        "bin": "B",
    }
    doc["params"] = {"isoDates": True}
    assert load_schema(doc).key_attribute_types()["sk"] == "S"


def test_unique_fields():
    model = load_schema(with_fields(email={"type": "string", "unique": True})).model("User")
    assert [f.name for f in model.unique_fields] == ["email"]
    assert [f.name for f in model.templated] == ["pk", "sk"]
