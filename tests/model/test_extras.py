"""asyncio API, scenarios, and the codec (typegen: test_typed.py)."""

from __future__ import annotations

import asyncio
from decimal import Decimal

import pytest
from boto3.dynamodb.types import TypeDeserializer, TypeSerializer

from dynabase.model import AsyncTable, ValidationError
from dynabase.model.codec import Decoder, encode, encode_item
from dynabase.model.scenario import run_scenario

from .conftest import SCHEMA, raw_items


def test_async_table_same_behaviour(table):
    async def main():
        atable = AsyncTable.wrap(table)
        try:
            Item = atable.model("Item")
            made = await asyncio.gather(*(Item.create({"group": "a", "seq": n}) for n in range(5)))
            assert sorted(m["seq"] for m in made) == list(range(5))
            assert (await Item.get({"group": "a", "seq": 3}))["seq"] == 3
            assert len(await Item.find({"group": "a"}, limit=2)) == 2
            assert (await Item.update({"group": "a", "seq": 3, "label": "x"}))["label"] == "x"
            await Item.remove({"group": "a", "seq": 3})
            with pytest.raises(ValidationError):
                await Item.create({"group": "a"})
            transaction = {}
            await Item.create({"group": "a", "seq": 9}, transaction=transaction)
            await atable.transact("write", transaction)
            assert (await atable.get("Item", {"group": "a", "seq": 9})) is not None
            assert atable.get_table_definition()["TableName"] == table.name
            assert atable.Item.name == "Item"
        finally:
            atable.close()

    asyncio.run(main())
    assert len(raw_items(table)) == 5


def test_async_table_constructor(client, make_model_table):
    made = make_model_table()

    async def main():
        async with AsyncTable(made.name, client, SCHEMA) as atable:
            assert await atable.exists()
            return await atable.model("Account").create({"name": "Async"})

    assert asyncio.run(main())["name"] == "Async"


def test_scenario_runner(client):
    steps = [
        ("Item", "create", {"group": "s", "seq": 1, "label": "a"}, {}),
        ("Item", "create", {"group": "s", "seq": 1}, {}),
        ("Item", "create", {"group": "s", "seq": 2}, {"transaction": "$t"}),
        (None, "transact", {"op": "write", "transaction": "$t"}, {}),
        ("Item", "find", {"group": "s"}, {"limit": 1}),
        ("Item", "update", {"group": "s", "seq": 2}, {"set": {"label": "{b}"}}),
        ("Nope", "get", {}, {}),
    ]
    out = run_scenario(client, SCHEMA, steps)
    try:
        results = out["results"]
        assert results[0]["ok"]["label"] == "a"
        assert results[1]["error"] == "ConditionalCheckFailedException"
        assert results[4]["ok"]["next"] == {"pk": "item#s", "sk": "item#000001"}
        assert results[5]["ok"]["label"] == "b"
        assert results[6]["error"] == "ValidationError"
        assert [item["sk"]["S"] for item in out["items"]] == ["item#000001", "item#000002"]
    finally:
        client.delete_table(TableName=out["table"])


SAMPLES = [
    {"S": "x"},
    {"N": "12"},
    {"N": "-1.25"},
    {"N": "1E+3"},
    {"BOOL": False},
    {"NULL": True},
    {"B": b"\x00\x01"},
    {"SS": ["a", "b"]},
    {"NS": ["1", "2.5"]},
    {"BS": [b"a"]},
    {"L": [{"S": "a"}, {"M": {"n": {"N": "1"}}}]},
    {"M": {"deep": {"L": [{"NULL": True}, {"BOOL": True}]}}},
]


@pytest.mark.parametrize("av", SAMPLES)
def test_decoder_matches_boto3(av):
    reference = TypeDeserializer().deserialize(av)
    decimal = Decoder("decimal").decode(av)
    assert decimal == reference
    auto = Decoder("auto").decode(av)
    assert auto == reference
    # and back again
    assert encode(decimal) == TypeSerializer().serialize(reference) or "SS" in av or "NS" in av or "BS" in av


def test_decoder_number_types():
    assert type(Decoder("auto").decode({"N": "5"})) is int
    assert type(Decoder("auto").decode({"N": "5.5"})) is Decimal
    assert type(Decoder("float").decode({"N": "5.5"})) is float
    with pytest.raises(ValueError):
        Decoder("nope")


def test_encoder_rejects_junk():
    with pytest.raises(TypeError):
        encode(object())
    with pytest.raises(ValueError):
        encode(float("nan"))
    with pytest.raises(ValueError):
        encode(set())
    assert encode_item({"a": 1.0, "b": (1, 2)}) == {"a": {"N": "1"}, "b": {"L": [{"N": "1"}, {"N": "2"}]}}


@pytest.mark.parametrize("numbers", ["auto", "decimal", "float"])
def test_decoder_gives_the_same_numbers_at_every_depth(numbers):
    """Numbers decoded inline (top level of an item, in a map, in a list) are those of ``Decoder.number``,
    exact types included."""
    decoder = Decoder(numbers)
    texts = ["0", "12", "-7", "2.5", "-0.125", "1E+3", "1.5E-7", "123456789012345678901234567890"]
    item = {f"n{i}": {"N": text} for i, text in enumerate(texts)}
    item["map"] = {"M": dict(item)}
    item["list"] = {"L": [{"N": text} for text in texts]}
    want = [decoder.number(text) for text in texts]
    for out in (decoder.decode_item(item), decoder.decode_items([item])[0], decoder.decode({"M": item})):
        for got in ([out[f"n{i}"] for i in range(len(texts))], list(out["map"].values()), out["list"]):
            assert [(type(v), v) for v in got] == [(type(v), v) for v in want]


def test_decoder_items_match_boto3_for_every_type_at_every_depth():
    """``decode_item`` reads maps and lists one level down inline: every type at the top of an item, in a map
    and in a list gives boto3's value (``decimal``) and equal values (``auto``)."""
    item = {f"a{i}": av for i, av in enumerate(SAMPLES)}
    item["map"] = {"M": dict(item)}
    item["list"] = {"L": list(SAMPLES)}
    deserialize = TypeDeserializer().deserialize
    reference = {name: deserialize(av) for name, av in item.items()}
    for numbers in ("decimal", "auto"):
        decoder = Decoder(numbers)
        for got in (decoder.decode_item(item), decoder.decode_items([item])[0]):
            assert got == reference


@pytest.mark.parametrize("numbers", ["auto", "decimal", "float"])
def test_decoder_numbers_inside_maps_are_those_of_the_top_level(numbers):
    """A map's integral numbers are read inline: the same value and type as ``Decoder.number`` gives."""
    decoder = Decoder(numbers)
    texts = ["0", "7", "-7", "10000000000000000000000000001", "2.5", "1E+3"]
    got = decoder.decode_item({"m": {"M": {t: {"N": t} for t in texts}}})["m"]
    assert [(type(v), v) for v in got.values()] == [
        (type(decoder.number(t)), decoder.number(t)) for t in texts
    ]
