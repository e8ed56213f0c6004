"""Template dependency order and cycles."""

from __future__ import annotations

import pytest

from dynabase.schema import Field, SchemaError, Template, dependency_order, load_schema

from .helpers import base


def model_with(**fields):
    doc = base()
    doc["models"]["M"] = {
        "pk": {"type": "string", "value": "m#${id}"},
        "sk": {"type": "string", "value": "m#"},
        "id": {"type": "string"},
    }
    doc["models"]["M"].update(fields)
    return load_schema(doc).model("M")


def test_templates_come_after_what_they_use():
    model = model_with(
        gs1sk={"type": "string", "value": "${sk}#${name}"},
        name={"type": "string"},
    )
    order = dependency_order(model)
    assert order == ["pk", "sk", "id", "gs1sk", "name", "_type"]
    assert model.dependency_order() == order


def test_chains_are_pulled_forward():
    model = model_with(
        a={"type": "string", "value": "${b}-a"},
        b={"type": "string", "value": "${c}-b"},
        c={"type": "string", "value": "${id}-c"},
    )
    order = dependency_order(model)
    assert order.index("c") < order.index("b") < order.index("a")
    values = {"id": "1", "_type": "M"}
    for name in order:
        f = model.fields[name]
        if f.value is not None and name not in values:
            rendered = f.value.render(values)
            if rendered is not None:
                values[name] = rendered
    assert values["a"] == "1-c-b-a"


def test_nested_refs_use_the_root_field():
    model = model_with(
        addr={"type": "object", "schema": {"zip": {"type": "string"}}},
        z={"type": "string", "value": "${addr.zip}"},
    )
    assert dependency_order(model) == ["pk", "sk", "id", "addr", "z", "_type"]


def test_nested_schema_has_its_own_order():
    model = model_with(
        meta={
            "type": "object",
            "schema": {
                "key": {"type": "string", "value": "${kind}#${n:4}"},
                "kind": {"type": "string", "value": "k-${n}"},
                "n": {"type": "number"},
            },
        }
    )
    assert model.field("meta").dependency_order() == ["kind", "key", "n"]


def test_cycles_raise_naming_the_fields():
    a = Field("a", value=Template("${b}"))
    b = Field("b", value=Template("${c}"))
    c = Field("c", value=Template("x${a}"))
    with pytest.raises(SchemaError) as info:
        dependency_order({"a": a, "b": b, "c": c})
    assert str(info.value) == "value template cycle: a -> b -> c -> a"


def test_cycles_found_while_loading():
    doc = base()
    doc["models"]["User"]["x"] = {"type": "string", "value": "${y}"}
    doc["models"]["User"]["y"] = {"type": "string", "value": "${x}"}
    doc["models"]["User"]["p"] = {"type": "string", "value": "${q}"}
    doc["models"]["User"]["q"] = {"type": "string", "value": "${r}"}
    doc["models"]["User"]["r"] = {"type": "string", "value": "${p}"}
    with pytest.raises(SchemaError) as info:
        load_schema(doc)
    assert str(info.value).splitlines() == [
        "models.User: value template cycle: x -> y -> x",
        "models.User: value template cycle: p -> q -> r -> p",
    ]


def test_self_reference_is_not_a_dependency():
    # Reported by validation; dependency_order itself ignores it like OneTable.
    f = Field("a", value=Template("${a}"))
    assert dependency_order({"a": f}) == ["a"]
