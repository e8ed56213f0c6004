"""dynabase's extension of the index format: a global index's ``hash``/``sort`` may name a list of attributes."""

from __future__ import annotations

import pytest

from dynabase.schema import JSON_SCHEMA, load_schema

from .helpers import base, errors

PRIMARY = {"hash": "pk", "sort": "sk"}


def with_index(**index):
    return base(indexes={"primary": PRIMARY, **index})


def test_lists_load_as_a_multi_attribute_key():
    schema = load_schema(with_index(gs3={"hash": ["tenant", "region"], "sort": ["status", "created"]}))
    index = schema.index("gs3")
    assert (index.hash, index.sort) == ("tenant", "status")
    assert index.hashes == ("tenant", "region") and index.sorts == ("status", "created")
    assert index.keys == ("tenant", "region", "status", "created") and index.multi


def test_plain_names_and_one_element_lists_are_single_attribute_keys():
    schema = load_schema(with_index(gs1={"hash": "a", "sort": "b"}, gs2={"hash": ["c"], "sort": ["d"]}))
    assert schema.index("gs1").keys == ("a", "b") and not schema.index("gs1").multi
    assert schema.index("gs2").keys == ("c", "d") and not schema.index("gs2").multi


@pytest.mark.parametrize(
    ("indexes", "expected"),
    [
        (
            {"primary": {"hash": ["pk", "x"], "sort": "sk"}},
            [
                "indexes.primary.hash: a list of attributes (a multi-attribute key) is only valid for a global index"
            ],
        ),
        (
            {"primary": PRIMARY, "ls1": {"type": "local", "sort": ["a", "b"]}},
            [
                "indexes.ls1.sort: a list of attributes (a multi-attribute key) is only valid for a global index"
            ],
        ),
        (
            {"primary": PRIMARY, "gs1": {"hash": ["a", "b", "c", "d", "e"]}},
            ["indexes.gs1.hash: a multi-attribute key has 1 to 4 attributes"],
        ),
        (
            {"primary": PRIMARY, "gs1": {"hash": "a", "sort": []}},
            ["indexes.gs1.sort: a multi-attribute key has 1 to 4 attributes"],
        ),
        (
            {"primary": PRIMARY, "gs1": {"hash": ["a", "a"]}},
            ["indexes.gs1.hash: must not name an attribute twice"],
        ),
        (
            {"primary": PRIMARY, "gs1": {"hash": ["a", 1]}},
            ["indexes.gs1.hash: must be a list of attribute names"],
        ),
        (
            {"primary": PRIMARY, "gs1": {"hash": ["a", "b"], "sort": ["c", "b"]}},
            ["indexes.gs1.sort: must differ from the hash key"],
        ),
    ],
)
def test_bad_multi_attribute_keys(indexes, expected):
    doc = base(indexes=indexes)
    got = [e for e in errors(doc) if e.startswith("indexes.")]
    assert got == expected


def test_the_json_schema_accepts_the_extension():
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(JSON_SCHEMA)
    good = with_index(gs3={"hash": ["tenant", "region"], "sort": ["status", "created"]})
    for doc in (good, with_index(gs1={"hash": "a", "sort": "b"})):
        assert list(validator.iter_errors(doc)) == []
    for bad in ({"hash": ["a", "b", "c", "d", "e"]}, {"hash": ["a", "a"]}, {"hash": []}):
        assert list(validator.iter_errors(with_index(gs1=bad)))
