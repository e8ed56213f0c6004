"""Table hooks: value functions, transform, validate, generate, logger; TTL on create_table."""

from __future__ import annotations

import pytest

from dynabase.model import ValidationError

from .conftest import raw_item

SCHEMA = {
    "version": "0.0.1",
    "indexes": {"primary": {"hash": "pk", "sort": "sk"}},
    "models": {
        "Doc": {
            "pk": {"type": "string", "value": "doc#${id}"},
            "sk": {"type": "string", "value": True},
            "id": {"type": "string", "generate": True},
            "title": {"type": "string"},
            "expires": {"type": "date", "ttl": True},
        }
    },
}


def test_value_function_generate_function_and_logger(make_model_table):
    logged = []
    ids = iter(["id-1", "id-2"])
    table = make_model_table(
        SCHEMA,
        value=lambda model, name, props, params: f"v#{props.get('title', '')}",
        generate=lambda: next(ids),
        logger=lambda level, message, context: logged.append((level, message)),
        create=False,
    )
    table.create_table(ttl="expires")
    make_model_table.created.append(table.name)
    doc = table.model("Doc").create({"title": "hello"})
    assert doc["id"] == "id-1"
    assert raw_item(table, "doc#id-1", "v#hello") is not None
    table.model("Doc").get({"id": "id-1", "title": "hello"}, log=True)
    assert any(level == "info" for level, _ in logged)
    ttl = table.client.describe_time_to_live(TableName=table.name)["TimeToLiveDescription"]
    assert ttl.get("AttributeName") == "expires"


def test_transform_and_validate_hooks(make_model_table):
    def transform(model, op, item, properties, params, raw=None):
        if op == "write" and "title" in item:
            item = {**item, "title": item["title"].upper()}
        if op == "read" and "title" in item:
            item = {**item, "title": item["title"] + "!"}
        return item

    def validate(model, properties, params):
        return {"title": "no swearing"} if properties.get("title") == "darn" else {}

    table = make_model_table(
        SCHEMA, transform=transform, validate=validate, value=lambda *a: "s", generate=lambda: "x"
    )
    Doc = table.model("Doc")
    Doc.create({"id": "1", "title": "hi"})
    assert raw_item(table, "doc#1", "s")["title"] == {"S": "HI"}
    assert Doc.get({"id": "1"})["title"] == "HI!"
    with pytest.raises(ValidationError) as info:
        Doc.create({"id": "2", "title": "darn"})
    assert info.value.fields == {"title": "no swearing"}


def test_per_call_validate_param(make_model_table):
    table = make_model_table(SCHEMA, value=lambda *a: "s", generate=lambda: "x")

    def check(model, field, value):
        return ("too long", value) if field.name == "title" and len(value) > 3 else (None, value)

    with pytest.raises(ValidationError) as info:
        table.model("Doc").create({"id": "1", "title": "long title"}, validate=check)
    assert info.value.fields == {"title": "too long"}
