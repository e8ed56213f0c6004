"""The search projection: a declared spec (VAMS's prefixes and exclusions), the FTS5 index and its queries, and
an index kept by the stream equal to one rebuilt from a full scan after random writes and deletes."""

from __future__ import annotations

import random
from typing import Any

import pytest

from dynabase.streams import Consumer, Options
from dynabase.streams.search import Projection, ProjectionError, Projector, SearchIndex

PREFIXES = {
    "string": "str_",
    "number": "num_",
    "boolean": "bool_",
    "date": "date_",
    "list": "list_",
    "geo_point": "gp_",
    "geo_shape": "gs_",
}

SPEC = {
    "id": "{pk}",
    "prefixes": PREFIXES,
    "fields": {"name": "string", "size": {"type": "number", "name": "filesize"}, "tags": "list"},
    "flat": {"meta": "MD_"},
    "constants": {"_rectype": "thing"},
    "exclude": ["VAMS_*", "_*"],
    "keep": ["_rectype"],
    "others": "typed",
}


def test_projection_applies_prefixes_exclusions_and_flat_objects():
    projection = Projection(SPEC)
    item = {
        "pk": "t1",
        "name": "Pump housing",
        "size": 12,
        "tags": {"b", "a"},
        "archived": False,
        "meta": {"partNumber": "P-1", "VAMS_hash": "x", "_internal": 1},
        "VAMS_sourceHash": "abc",
        "_private": "no",
        "nothing": None,
    }
    assert projection.document_id(item) == "t1"
    assert projection.project(item) == {
        "str_pk": "t1",
        "str_name": "Pump housing",
        "num_filesize": 12,
        "list_tags": ["a", "b"],
        "bool_archived": False,
        "MD_": {"partNumber": "P-1"},
        "_rectype": "thing",
    }


def test_dynamic_fields_and_dropping_undeclared_attributes():
    projection = Projection({**SPEC, "others": "drop", "dynamic": {"points": "geo_point"}})
    doc = projection.project({"pk": "t", "name": "n", "other": "x", "points": {"Site": {"lat": 1, "lon": 2}}})
    assert doc == {"str_name": "n", "gp_site": {"lat": 1, "lon": 2}, "_rectype": "thing"}


@pytest.mark.parametrize(
    "spec, message",
    [
        ({"prefixes": PREFIXES}, "id: a template"),
        ({**SPEC, "fields": {"x": "colour"}}, "fields.x: type must be one of"),
        ({**SPEC, "prefixes": {}, "fields": {"x": "string"}}, "no prefix declared for type 'string'"),
        ({**SPEC, "extra": 1}, r"unknown key\(s\) \['extra'\]"),
        ({**SPEC, "others": "keep"}, "others: 'drop' or 'typed'"),
    ],
)
def test_bad_specs_are_refused(spec, message):
    with pytest.raises(ProjectionError, match=message):
        Projection(spec)


def test_an_item_without_the_id_attributes_is_refused():
    with pytest.raises(ProjectionError, match="lacks 'pk'"):
        Projection(SPEC).document_id({"name": "x"})


@pytest.fixture
def index(tmp_path):
    index = SearchIndex(tmp_path / "app.search.db", "things")
    docs = {
        "a": {
            "str_name": "Pump housing",
            "num_size": 10,
            "bool_archived": False,
            "list_tags": ["pump", "steel"],
        },
        "b": {"str_name": "Pump impeller", "num_size": 30, "bool_archived": True, "list_tags": ["pump"]},
        "c": {"str_name": "Valve body", "num_size": 20, "bool_archived": False, "MD_": {"material": "brass"}},
    }
    for doc_id, doc in docs.items():
        index.put(doc_id, doc)
    yield index
    index.close()


def ids(page: Any) -> list[str]:
    return [doc_id for doc_id, _ in page.hits]


def test_text_search_words_and_prefixes(index):
    assert sorted(ids(index.search("pump"))) == ["a", "b"]
    assert ids(index.search("pump housing")) == ["a"]
    assert ids(index.search("impel*")) == ["b"]
    assert ids(index.search("brass")) == ["c"]  # flat-object values are text too
    assert ids(index.search("steel")) == ["a"]  # and list members
    for odd in ('"', "pump OR", "NEAR(", "*", "a AND"):
        index.search(odd)  # user text never reaches FTS5 as syntax


def test_field_filters_sort_and_paging(index):
    assert ids(index.search(filters={"bool_archived": False}, sort="num_size")) == ["a", "c"]
    assert ids(index.search(filters={"list_tags": "pump"}, sort="-num_size")) == ["b", "a"]
    assert ids(index.search(filters={"num_size": {"gte": 20}}, sort=[("num_size", "asc")])) == ["c", "b"]
    assert ids(index.search(filters={"str_name": ["Valve body", "Pump impeller"]})) == ["b", "c"]
    first = index.search(sort="str_name", limit=2)
    assert (ids(first), first.total, first.next) == (["a", "b"], 3, 2)
    second = index.search(sort="str_name", limit=2, offset=first.next)
    assert (ids(second), second.next) == (["c"], None)
    with pytest.raises(ValueError, match="unknown comparison"):
        index.search(filters={"num_size": {"near": 1}})


def test_put_replaces_and_delete_removes(index):
    index.put("a", {"str_name": "Gear"})
    assert ids(index.search("pump")) == ["b"]
    assert index.get("a") == {"str_name": "Gear"}
    assert index.delete("a") and not index.delete("a")
    assert index.get("a") is None and ids(index.search("gear")) == []


# -- the projection kept by the stream equals a rebuild ------------------------------------------------------

WORDS = ["pump", "valve", "gear", "steel", "brass", "housing", "rotor", "seal"]


def random_item(rng: random.Random, key: str) -> dict:
    item: dict[str, Any] = {"pk": {"S": key}, "name": {"S": " ".join(rng.sample(WORDS, 2))}}
    if rng.random() < 0.7:
        item["size"] = {"N": str(rng.randint(0, 10**6))}
    if rng.random() < 0.5:
        item["tags"] = {"SS": rng.sample(WORDS, rng.randint(1, 3))}
    if rng.random() < 0.5:
        item["meta"] = {"M": {"partNumber": {"S": f"P-{rng.randint(1, 99)}"}, "VAMS_hash": {"S": "h"}}}
    if rng.random() < 0.5:
        item["flag"] = {"BOOL": rng.random() < 0.5}
    if rng.random() < 0.3:
        item["VAMS_internal"] = {"S": "x"}
    if rng.random() < 0.3:
        item["blob"] = {"B": bytes(rng.randrange(256) for _ in range(4))}
    return item


def test_stream_projection_equals_a_rebuild_from_a_full_scan(client, streams_client, make_table, tmp_path):
    table = make_table(("pk:S",), stream="NEW_AND_OLD_IMAGES")
    rng = random.Random(13)
    live = Projector(SPEC, SearchIndex(tmp_path / "live.db"))
    consumer = Consumer.for_table(
        client, table, live, streams=streams_client, options=Options(batch_size=37, poll_interval=0.01)
    )
    keys = [f"k{i}" for i in range(25)]
    for step in range(150):
        key = rng.choice(keys)
        roll = rng.random()
        if roll < 0.55:
            client.put_item(TableName=table, Item=random_item(rng, key))
        elif roll < 0.8:
            client.update_item(
                TableName=table,
                Key={"pk": {"S": key}},
                UpdateExpression="SET #n = :n ADD size :one",
                ExpressionAttributeNames={"#n": "name"},
                ExpressionAttributeValues={":n": {"S": rng.choice(WORDS)}, ":one": {"N": "1"}},
            )
        else:
            client.delete_item(TableName=table, Key={"pk": {"S": key}})
        if step % 40 == 0:
            consumer.run(until_idle=True)  # the consumer catches up now and then, mid-sequence
    consumer.run(until_idle=True)
    rebuilt = Projector(SPEC, SearchIndex(tmp_path / "rebuilt.db"))
    count = rebuilt.rebuild(client, table)
    assert count == len(rebuilt.index.all()) > 0
    assert live.index.all() == rebuilt.index.all()
    for word in ("pump", "steel"):
        assert live.index.search(word).hits == rebuilt.index.search(word).hits
