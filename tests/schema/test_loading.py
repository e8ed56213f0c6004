"""Loading schemas from dicts, text and files in every supported format, and the example schemas."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dynabase.schema import Index, Params, Process, Schema, SchemaError, Template, load_schema

from .helpers import BASE, FIXTURES, base

JSON5_TEXT = """
// a comment
{
    format: 'onetable:1.1.0',
    version: '1.0.0',
    indexes: {primary: {hash: 'pk', sort: 'sk'},},   /* trailing commas */
    models: {
        User: {
            pk: {type: 'string', value: 'user#${id}'},
            sk: {type: "string", value: 'user#'},
            id: {type: 'string', generate: 'ulid'},
            name: {type: 'string'},
        },
    },
}
"""

YAML_TEXT = """
format: onetable:1.1.0
version: 1.0.0
indexes:
  primary: {hash: pk, sort: sk}
models:
  User:
    pk: {type: string, value: 'user#${id}'}
    sk: {type: string, value: 'user#'}
    id: {type: string, generate: ulid}
    name: {type: string}
"""


def same_as_base(schema: Schema) -> None:
    assert isinstance(schema, Schema)
    assert schema.version == "1.0.0"
    assert schema.primary == Index("primary", "pk", "sk", "primary")
    assert list(schema.model("User").fields) == ["pk", "sk", "id", "name", "_type"]
    assert schema.model("User").field("pk").value == Template("user#${id}")


def test_dict():
    same_as_base(load_schema(base()))


def test_dict_is_not_mutated_and_raw_is_a_copy():
    doc = base()
    schema = load_schema(doc)
    assert doc == BASE
    doc["models"]["User"]["name"]["type"] = "number"
    assert schema.raw["models"]["User"]["name"]["type"] == "string"
    assert schema.model("User").field("name").type == "string"


def test_json_text():
    same_as_base(load_schema(json.dumps(BASE)))


def test_json5_text():
    same_as_base(load_schema(JSON5_TEXT))


def test_yaml_text():
    pytest.importorskip("yaml")
    same_as_base(load_schema(YAML_TEXT))


def test_bytes():
    same_as_base(load_schema(json.dumps(BASE).encode()))
    same_as_base(load_schema(b"\xef\xbb\xbf" + JSON5_TEXT.encode()))


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("s.json", json.dumps(BASE, indent=2)),
        ("s.json5", JSON5_TEXT),
        ("s.yaml", YAML_TEXT),
        ("s.yml", YAML_TEXT),
        ("S.JSON", json.dumps(BASE)),
    ],
)
def test_files(tmp_path: Path, name: str, text: str):
    if name.endswith((".yaml", ".yml")):
        pytest.importorskip("yaml")
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    same_as_base(load_schema(path))  # os.PathLike
    same_as_base(load_schema(str(path)))  # str path


def test_file_without_known_extension_is_sniffed(tmp_path: Path):
    path = tmp_path / "schema.txt"
    path.write_text(JSON5_TEXT)
    same_as_base(load_schema(path))


def test_format_forces_the_parser(tmp_path: Path):
    path = tmp_path / "schema.conf"
    path.write_text(JSON5_TEXT)
    same_as_base(load_schema(path, format="json5"))
    with pytest.raises(SchemaError) as info:
        load_schema(JSON5_TEXT, format="json")
    assert "JSON syntax error at line 2, column 1: comments are not allowed in JSON (use JSON5)" in str(
        info.value
    )
    same_as_base(load_schema(json.dumps(BASE), format="json"))
    if pytest.importorskip("yaml"):
        same_as_base(load_schema(json.dumps(BASE), format="yaml"))  # JSON is YAML too
        same_as_base(load_schema(YAML_TEXT, format="yml"))
    with pytest.raises(ValueError, match="unknown schema format 'toml'"):
        load_schema(JSON5_TEXT, format="toml")


def test_json_file_with_json5_content_says_so(tmp_path: Path):
    path = tmp_path / "schema.json"
    path.write_text(JSON5_TEXT)
    with pytest.raises(SchemaError) as info:
        load_schema(path)
    assert str(info.value) == (
        "JSON syntax error in schema.json at line 2, column 1: comments are not allowed in JSON (use JSON5) "
        "(valid JSON5 but not JSON: name the file .json5 or pass format='json5')"
    )


def test_missing_and_unreadable_files(tmp_path: Path):
    with pytest.raises(SchemaError, match="schema file not found: 'nope.json5'"):
        load_schema("nope.json5")
    with pytest.raises(SchemaError, match="schema file not found: '.*missing.json'"):
        load_schema(tmp_path / "missing.json")
    (tmp_path / "folder.json").mkdir()
    with pytest.raises(SchemaError, match="cannot read schema file '.*folder.json': Is a directory"):
        load_schema(tmp_path / "folder.json")
    bad = tmp_path / "latin1.json"
    bad.write_bytes(b'{"version": "\xe9"}')
    with pytest.raises(SchemaError, match="is not UTF-8"):
        load_schema(bad)


def test_syntax_errors_have_line_and_column():
    with pytest.raises(SchemaError) as info:
        load_schema("{\n  version: '1.0.0',\n  indexes: {primary: {hash: pk}},\n}")
    assert (
        str(info.value)
        == "JSON5 syntax error at line 3, column 29: unexpected identifier 'pk', expected a value"
    )
    with pytest.raises(SchemaError) as info:
        load_schema("{models: {A: {x: {type: String}}}}")
    assert str(info.value) == (
        "JSON5 syntax error at line 1, column 25: unexpected identifier 'String', expected a value "
        "(JavaScript constructors are not data: write 'string')"
    )


def test_yaml_syntax_error():
    pytest.importorskip("yaml")
    with pytest.raises(SchemaError) as info:
        load_schema("version: 1.0.0\nindexes: {primary: {hash: pk}\n")
    message = str(info.value)
    assert message.startswith("YAML syntax error at line 3, column 1: ")


def test_duplicate_keys_are_errors_in_every_format():
    with pytest.raises(SchemaError) as info:
        load_schema("{models: {User: {name: {type: 'string'}, name: {type: 'number'}}}}")
    assert str(info.value) == "models.User: duplicate key 'name' (line 1, column 42)"
    with pytest.raises(SchemaError) as info:
        load_schema('{"version": "1.0.0", "version": "2.0.0"}', format="json")
    assert str(info.value) == "duplicate key 'version' (line 1, column 22)"
    pytest.importorskip("yaml")
    with pytest.raises(SchemaError) as info:
        load_schema("version: 1.0.0\nversion: 2.0.0\n")
    assert str(info.value) == "YAML syntax error at line 2, column 1: duplicate key 'version'"


def test_documents_that_are_not_objects():
    for source in ("[1, 2]", "42", "'text'"):
        with pytest.raises(SchemaError) as info:
            load_schema(source)
        assert str(info.value).startswith("a schema must be an object, not")
    with pytest.raises(SchemaError, match="JSON5 syntax error at line 1, column 1: empty document"):
        load_schema("", format="json5")
    with pytest.raises(SchemaError, match="a schema must be an object, not null"):
        load_schema(None)  # type: ignore[arg-type]


def test_a_loaded_schema_passes_through():
    schema = load_schema(base())
    assert load_schema(schema) is schema


def test_model_lookup_errors_are_readable():
    schema = load_schema(base())
    with pytest.raises(KeyError, match="unknown model 'Usr'; the schema defines: User"):
        schema.model("Usr")
    with pytest.raises(KeyError, match="unknown index 'gs1'; the schema has: primary"):
        schema.index("gs1")
    with pytest.raises(KeyError, match="model 'User' has no field 'nme'"):
        schema.model("User").field("nme")


# -- the example schemas ---------------------------------------------------------------------------------


def test_ioto_device_schema():
    schema = load_schema(FIXTURES / "ioto_device.json5")
    assert (schema.format, schema.version) == ("onetable:1.1.0", "0.0.1")
    assert list(schema.indexes) == ["primary"]
    assert schema.params == Params(iso_dates=True, timestamps=True)
    assert list(schema.models) == ["Status", "Fault"]
    status, fault = schema.model("Status"), schema.model("Fault")
    # The type field is added, then the missing timestamp (Status declares its own "updated").
    assert list(status.fields) == ["pk", "sk", "parameters", "version", "updated", "_type", "created"]
    assert list(fault.fields) == [
        "pk",
        "sk",
        "deviceId",
        "id",
        "timestamp",
        "source",
        "severity",
        "subject",
        "message",
        "_type",
        "created",
        "updated",
    ]
    assert fault.field("severity").enum == ("info", "warn", "error", "critical", "fatal")
    assert fault.field("severity").required
    assert fault.field("id").generate.kind == "ulid"
    assert fault.field("timestamp").type == "date" and fault.field("timestamp").iso_dates
    assert fault.field("pk").value.render({"deviceId": "D1"}) == "device#D1"
    assert fault.field("pk").hidden and fault.field("pk").required
    assert status.field("pk").value.is_literal and status.field("pk").value.render({}) == "status#"
    assert fault.type_field.required and fault.type_field.hidden
    assert fault.field("created").type == "date" and fault.field("created").timestamp
    assert schema.process["Status"] == Process(enable="cloud")
    assert schema.process_for("Fault").sync == "up"
    metric = schema.process["Fault"].metrics[0]
    assert metric.namespace == "Embedthis/Device"
    assert metric.fields == (("temperature", "temperature"),)
    assert metric.dimensions == ({"Device": "deviceId"},)
    assert [str(w) for w in schema.warnings] == [
        "process.Fault.metrics[0].fields: the model defines no field 'temperature'"
    ]
    assert schema.model_of({"_type": "Fault"}) is fault
    assert schema.model_of({"_type": "Nope"}) is None
    assert schema.key_attribute_types() == {"pk": "S", "sk": "S"}


def test_music_schema_with_nested_object():
    schema = load_schema(FIXTURES / "music.json5")
    artist = schema.model("artist")
    address = artist.field("address")
    assert address.type == "object"
    assert list(address.schema) == ["street", "city", "zip"]
    assert address.schema["zip"].path == "models.artist.address.schema.zip"
    assert address.nested is address.schema
    assert artist.field("pk").value.fields == ("_type", "name")
    assert artist.field("pk").value.render({"_type": "artist", "name": "Bowie"}) == "artist:Bowie"
    assert artist.field("sk").value.prefix({}) == ""
    assert schema.warnings == ()


def test_onetable_spec_example():
    schema = load_schema(FIXTURES / "spec_example.json")
    assert schema.index("GSI1").kind == "global"
    assert schema.model("Post").field("PK").type == "string"
    assert "Get photos liked by a user" in schema.queries
    assert schema.items == ()
    assert schema.params.type_field == "_type"
    assert [str(w) for w in schema.warnings] == [
        "models.Post.PK.type: missing; assuming 'string'",
        "models.Post.SK.type: missing; assuming 'string'",
        "indexes.GSI1.hash: no model defines attribute 'GS1PK'",
        "indexes.GSI1.sort: no model defines attribute 'GS1SK'",
    ]


def test_onetable_readme_schema():
    schema = load_schema(FIXTURES / "readme.json5")
    assert schema.warnings == ()
    gs1, ls1 = schema.index("gs1"), schema.index("ls1")
    assert (gs1.kind, gs1.hash, gs1.sort, gs1.follow, gs1.project) == (
        "global",
        "gs1pk",
        "gs1sk",
        True,
        "all",
    )
    assert (ls1.kind, ls1.hash, ls1.sort) == ("local", "pk", "id")
    account, user = schema.model("Account"), schema.model("User")
    assert account.field("id").validate.search("01ARZ3NDEKTSV4RRFFQ69G5FAV")
    assert not account.field("id").validate.search("not-a-ulid")
    assert user.field("sk").validate.search("a@b.co")
    assert user.field("role").default == "user" and user.field("role").has_default
    assert user.field("balance").default == 0
    assert not user.field("email").has_default
    assert user.has_index("gs1") and not account.has_index("gs1")
    assert [f.name for f in user.key_fields("gs1")] == ["gs1pk", "gs1sk"]
    assert account.keys("ls1") == (account.field("pk"), account.field("id"))
    assert list(user.fields)[-3:] == ["_type", "created", "updated"]


def test_onetable_readme_legacy_schema_with_uuid():
    """The older README example: ``uuid: 'ulid'`` (deprecated) reads as generate, with a warning."""
    doc = json.loads((FIXTURES / "spec_example.json").read_text())
    doc["models"]["Account"]["id"] = {"type": "string", "uuid": "ulid", "validate": "/^[0-9A-F]{32}$/i"}
    schema = load_schema(doc)
    assert schema.model("Account").field("id").generate.kind == "ulid"
    assert "models.Account.id.uuid: deprecated; use generate: 'ulid'" in [str(w) for w in schema.warnings]


def test_packed_sample():
    pytest.importorskip("yaml")
    schema = load_schema(FIXTURES / "packed.yaml")
    user = schema.model("User")
    assert [f.name for f in user.attribute_fields("data")] == ["address", "city", "zip"]
    assert user.field("city").map == ("data", "city")
    assert (
        user.field("city").attribute == "data"
        and user.field("city").sub == "city"
        and user.field("city").packed
    )
    assert user.field("name").map is None and user.field("name").attribute == "name"
    gs1 = schema.index("gs1")
    assert gs1.project == ("gs1pk", "gs1sk", "data")
    assert gs1.projected(schema.primary) == ("gs1pk", "gs1sk", "data", "pk", "sk")
    assert schema.index("gs1").keys == ("gs1pk", "gs1sk")
