"""The stored ``_schema`` item, migrations (``_migration`` items) and process-aware (side) tables."""

from __future__ import annotations

import copy

import pytest

from dynabase.model import Migration, Migrations, ModelDisabledError, Table

from .conftest import SCHEMA, raw_item


def test_save_and_read_schema(table):
    table.save_schema()
    item = raw_item(table, "_schema", "_schema:Current")
    assert item["_type"] == {"S": "_Schema"}
    assert item["format"] == {"S": "onetable:1.1.0"}
    assert item["name"] == {"S": "Current"} and item["version"] == {"S": "0.0.1"}
    assert set(item["models"]["M"]) == {"Account", "User", "Item"}
    params = item["params"]["M"]
    assert params["typeField"] == {"S": "_type"} and params["isoDates"] == {"BOOL": True}
    assert params["timestamps"] == {"BOOL": True}
    assert item["models"]["M"]["User"]["M"]["email"]["M"]["validate"] == {"S": "/^[^@]+@[^@]+$/"}
    doc = table.read_schema()
    assert doc["models"]["User"]["email"]["type"] == "string"
    assert doc["indexes"]["ls1"]["hash"] == "pk"  # a local index's hash is the primary hash
    # the stored document loads as a schema again
    again = Table(table.name, table.client, doc)
    assert again.model("User").get({"accountId": "nobody", "email": "x@y.z"}) is None
    assert [d["name"] for d in table.read_schemas()] == ["Current"]
    table.save_schema({**doc, "name": "Old", "version": "0.0.0"})
    assert sorted(d["name"] for d in table.read_schemas()) == ["Current", "Old"]
    table.remove_schema("Old")
    assert [d["name"] for d in table.read_schemas()] == ["Current"]


def test_migrations_up_down_status(table):
    calls = []
    migrations = Migrations(table)

    @migrations.up("0.0.2", description="Add balances")
    def up2(t, m):
        calls.append("up 0.0.2")
        t.model("Item").create({"group": "m", "seq": 2})

    @migrations.down("0.0.2")
    def down2(t, m):
        calls.append("down 0.0.2")
        t.model("Item").remove({"group": "m", "seq": 2})

    migrations.add(Migration("0.0.3", "Third", up=lambda t, m: calls.append("up 0.0.3")))
    migrations.add(Migration("0.0.10", "Tenth", up=lambda t, m: calls.append("up 0.0.10")))
    assert migrations.status()["current"] == "0.0.0"
    assert migrations.outstanding() == ["0.0.2", "0.0.3", "0.0.10"]
    migrations.apply(1, "0.0.2")
    record = raw_item(table, "_migration", "_migration:0.0.2")
    assert record["_type"] == {"S": "_Migration"}
    assert record["version"] == {"S": "0.0.2"} and record["description"] == {"S": "Add balances"}
    assert record["path"] == {"S": "memory"} and "date" in record
    assert migrations.current_version() == "0.0.2"
    applied = migrations.apply(1, "latest")
    assert [m.version for m in applied] == ["0.0.3", "0.0.10"]
    assert migrations.status()["current"] == "0.0.10" and migrations.outstanding() == []
    migrations.apply(-1, "0.0.10")
    assert migrations.current_version() == "0.0.3"
    migrations.apply(-1, "0.0.3")
    migrations.apply(-1, "0.0.2")
    assert migrations.current_version() == "0.0.0"
    assert table.model("Item").get({"group": "m", "seq": 2}) is None
    migrations.apply(0)  # reset: earlier versions recorded, the latest run
    assert [r["version"] for r in migrations.past()] == ["0.0.2", "0.0.3", "0.0.10"]
    migrations.apply(2, "0.0.10")  # repeat
    assert calls == [
        "up 0.0.2",
        "up 0.0.3",
        "up 0.0.10",
        "down 0.0.2",
        "up 0.0.10",
        "up 0.0.10",
    ]


def test_migration_with_schema_saves_it(table):
    schema = copy.deepcopy(SCHEMA)
    schema["version"] = "0.1.0"
    schema["models"]["Item"]["size"] = {"type": "number", "default": 1}
    migrations = Migrations(table, [Migration("0.1.0", "Sizes", schema=schema)])
    migrations.apply(1, "0.1.0")
    assert table.read_schema()["version"] == "0.1.0"
    assert table.model("Item").create({"group": "s", "seq": 1})["size"] == 1


PROCESS_SCHEMA = {
    "format": "onetable:1.1.0",
    "version": "0.0.1",
    "indexes": {"primary": {"hash": "pk", "sort": "sk"}},
    "params": {"timestamps": True},  # Fault syncs: sync keeps the newer write
    "process": {"Status": {"enable": "cloud"}, "Reading": {"enable": "device"}, "Fault": {"sync": "up"}},
    "models": {
        name: {
            "pk": {"type": "string", "value": f"{name.lower()}#"},
            "sk": {"type": "string", "value": f"{name.lower()}#${{id}}"},
            "id": {"type": "string", "generate": "ulid"},
        }
        for name in ("Status", "Reading", "Fault")
    },
}


def test_side_hides_models_of_the_other_side(make_model_table):
    device = make_model_table(PROCESS_SCHEMA, side="device")
    assert sorted(device.list_models()) == ["Fault", "Reading"]
    device.Reading.create({})
    device.model("Fault").create({})
    with pytest.raises(ModelDisabledError) as info:
        device.model("Status")
    assert "cloud" in str(info.value) and "device" in str(info.value)
    with pytest.raises(ModelDisabledError):
        device.Status  # noqa: B018
    cloud = make_model_table(PROCESS_SCHEMA, side="cloud")
    assert sorted(cloud.list_models()) == ["Fault", "Status"]
    both = make_model_table(PROCESS_SCHEMA)
    assert sorted(both.list_models()) == ["Fault", "Reading", "Status"]
    with pytest.raises(Exception, match="side"):
        make_model_table(PROCESS_SCHEMA, side="moon")
