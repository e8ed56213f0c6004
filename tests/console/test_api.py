"""The console's operations on every backend (the embedded client, dynabase serve, DynamoDB Local): paging both
ways, exact numbers, guarded puts with the engine's errors on the item, PartiQL, tables, entities."""

from __future__ import annotations

from typing import Any

import pytest

from ddb_helpers import gsi, unique_table_name

from .helpers import BIG_NUMBER, PAGED_ITEMS, SCHEMA, fill_paged_table


@pytest.fixture
def api(client: Any) -> Any:
    from dynabase.console.api import ConsoleAPI
    from dynabase.console.entities import Entities

    return ConsoleAPI(client, target="test", entities=Entities(client, SCHEMA))


@pytest.fixture
def paged(client: Any, make_table: Any) -> str:
    name = unique_table_name()
    make_table.created.append(name)
    fill_paged_table(client, name)
    return name


def failure(api: Any, operation: str, request: dict[str, Any]) -> Any:
    from dynabase.console.api import ApiError

    with pytest.raises(ApiError) as caught:
        api.call(operation, request)
    return caught.value


def walk(api: Any, request: dict[str, Any]) -> list[list[str]]:
    """Every page forward (LastEvaluatedKey), then every page again backward from a stack of start keys."""
    starts: list[Any] = [None]
    forward = []
    while True:
        page = api.call("query", {**request, "startKey": starts[-1]})
        forward.append([item["sk"]["S"] for item in page["items"]])
        if not page["lastKey"]:
            break
        starts.append(page["lastKey"])
    backward = [
        [item["sk"]["S"] for item in api.call("query", {**request, "startKey": start})["items"]]
        for start in reversed(starts)
    ]
    assert backward == forward[::-1]
    return forward


def test_query_pages_forward_and_back(api: Any, paged: str) -> None:
    request = {"table": paged, "keyCondition": "pk = :p", "values": '{":p": {"S": "p"}}', "limit": 7}
    pages = walk(api, request)
    assert [len(p) for p in pages] == [7, 7, 7, 7, 2]
    assert sum(pages, []) == [f"{i:02d}" for i in range(PAGED_ITEMS)]
    descending = walk(api, {**request, "forward": False, "format": "ddb"})
    assert sum(descending, []) == [f"{i:02d}" for i in reversed(range(PAGED_ITEMS))]


def test_items_keep_exact_numbers_and_sets(api: Any, paged: str) -> None:
    page = api.call(
        "query",
        {
            "table": paged,
            "keyCondition": "pk = :p AND sk = :s",
            "values": '{":p": "p", ":s": "07"}',
            "format": "plain",
        },
    )
    assert page["items"][0]["n"] == {"N": BIG_NUMBER}
    assert sorted(page["items"][0]["tags"]["SS"]) == ["a", "b"]


def test_scan_with_a_filter_and_plain_values(api: Any, paged: str) -> None:
    page = api.call(
        "scan",
        {
            "table": paged,
            "filter": "#n >= :min",
            "names": '{"#n": "n"}',
            "values": '{":min": 28}',
            "format": "plain",
            "limit": 1000,
        },
    )
    assert sorted(item["sk"]["S"] for item in page["items"]) == ["07", "28", "29"]


def test_bad_expressions_come_back_as_the_backends_errors(api: Any, paged: str) -> None:
    error = failure(api, "query", {"table": paged, "keyCondition": "pk = :missing"})
    assert (error.status, error.type) == (400, "ValidationException")
    assert ":missing" in error.message
    error = failure(api, "query", {"table": paged, "keyCondition": "pk = :p", "values": '{":p": {"S": }'})
    assert error.fields == {"values": error.message} and "Not valid JSON" in error.message
    error = failure(api, "scan", {"table": paged, "limit": 0})
    assert "limit" in error.fields


def test_put_create_does_not_overwrite_and_edit_does_not_move_the_key(api: Any, paged: str) -> None:
    key = {"pk": {"S": "p"}, "sk": {"S": "03"}}
    error = failure(
        api, "putItem", {"table": paged, "item": '{"pk": {"S": "p"}, "sk": {"S": "03"}}', "mode": "create"}
    )
    assert (
        error.type == "ConditionalCheckFailedException"
        and error.fields["item"] == "An item with this key already exists"
    )
    error = failure(
        api,
        "putItem",
        {
            "table": paged,
            "item": '{"pk": "p", "sk": "99", "n": 1}',
            "format": "plain",
            "mode": "edit",
            "key": key,
        },
    )
    assert "cannot change the key" in error.fields["item"]
    api.call(
        "putItem",
        {
            "table": paged,
            "item": '{"pk": "p", "sk": "03", "n": 0.1000000000000000000000000000000000003}',
            "format": "plain",
            "mode": "edit",
            "key": key,
        },
    )
    assert api.call("getItem", {"table": paged, "key": key})["item"]["n"] == {
        "N": "0.1000000000000000000000000000000000003"
    }


def test_plain_json_cannot_edit_an_item_with_sets(api: Any, paged: str) -> None:
    key = {"pk": {"S": "p"}, "sk": {"S": "07"}}
    error = failure(
        api,
        "putItem",
        {
            "table": paged,
            "item": '{"pk": "p", "sk": "07", "tags": ["a", "b"]}',
            "format": "plain",
            "mode": "edit",
            "key": key,
        },
    )
    assert "DynamoDB JSON" in error.fields["item"]
    assert api.call("getItem", {"table": paged, "key": key})["item"]["tags"]["SS"]


def test_the_engines_validation_errors_land_on_the_item(api: Any, paged: str) -> None:
    error = failure(api, "putItem", {"table": paged, "item": '{"pk": {"S": "p"}}', "mode": "create"})
    assert error.type == "ValidationException" and error.fields["item"] == error.message
    error = failure(
        api, "putItem", {"table": paged, "item": '{"pk": {"S": "p"}, "sk": {"S": "x"}, "n": {"N": "abc"}}'}
    )
    assert error.type == "ValidationException" and error.fields["item"] == error.message
    error = failure(api, "putItem", {"table": paged, "item": '{"pk": {"S": "p"}, "sk": {"Q": "x"}}'})
    assert error.type == "ValidationError" and "sk" in error.fields["item"]


def test_partiql_select_with_parameters(api: Any, paged: str) -> None:
    result = api.call(
        "partiql",
        {
            "statement": f'SELECT sk FROM "{paged}" WHERE pk = ? AND sk = ?',
            "parameters": '[{"S": "p"}, {"S": "05"}]',
        },
    )
    assert result["items"] == [{"sk": {"S": "05"}}]
    error = failure(api, "partiql", {"statement": f'SELECT * FROM "{paged}" WHERE', "parameters": ""})
    assert error.status == 400


def test_tables_from_the_schema_and_deleted_only_by_name(api: Any, client: Any, make_table: Any) -> None:
    name = unique_table_name()
    definition = api.call("tableDefinition", {"table": name})["definition"]
    make_table.created.append(name)
    api.call("createTable", {"definition": definition})
    assert name in api.call("listTables", {})["tables"]
    described = api.call("describeTable", {"table": name})["table"]
    assert [i["IndexName"] for i in described["GlobalSecondaryIndexes"]] == ["gs1"]
    error = failure(api, "deleteTable", {"table": name, "confirm": name.upper()})
    assert "confirm" in error.fields
    assert api.call("deleteTable", {"table": name, "confirm": name}) == {"deleted": name}


def test_entities_create_find_update_with_field_errors(api: Any, client: Any, make_table: Any) -> None:
    name = unique_table_name()
    make_table.created.append(name)
    api.call("createTable", {"definition": api.call("tableDefinition", {"table": name})["definition"]})
    save = {"table": name, "model": "Fault", "mode": "create"}
    error = failure(
        api, "entitySave", {**save, "properties": {"deviceId": "d1", "severity": "bad", "email": "nope"}}
    )
    assert set(error.fields) == {"severity", "email", "message"}
    assert "not one of" in error.fields["severity"]
    created = [
        api.call(
            "entitySave",
            {
                **save,
                "properties": {"deviceId": "d1", "severity": "warn", "message": f"m{i}", "email": f"{i}@x"},
            },
        )["entity"]
        for i in range(3)
    ]
    error = failure(
        api,
        "entitySave",
        {**save, "properties": {"deviceId": "d2", "severity": "warn", "message": "m", "email": "0@x"}},
    )
    assert error.type == "UniqueError" and error.fields == {"email": "Already taken"}
    page = api.call(
        "entityFind", {"table": name, "model": "Fault", "properties": {"deviceId": "d1"}, "limit": 2}
    )
    rest = api.call(
        "entityFind",
        {"table": name, "model": "Fault", "properties": {"deviceId": "d1"}, "next": page["next"]},
    )
    assert [e["id"] for e in page["items"] + rest["items"]] == sorted(e["id"] for e in created)
    by_index = api.call(
        "entityFind", {"table": name, "model": "Fault", "index": "gs1", "properties": {"severity": "warn"}}
    )
    assert len(by_index["items"]) == 3
    updated = api.call(
        "entitySave",
        {
            **save,
            "mode": "update",
            "properties": {"deviceId": "d1", "id": created[0]["id"], "severity": "error"},
        },
    )
    assert updated["entity"]["severity"] == "error" and updated["entity"]["message"] == "m0"
    grouped = api.call("entityPage", {"table": name, "limit": 25})
    groups = {g["model"]: g for g in grouped["groups"]}
    assert len(groups["Fault"]["items"]) == 3
    assert {"attribute": "pk", "format": "device#<deviceId>"}.items() <= groups["Fault"]["keys"][0].items()


def test_table_shape_has_the_keys_and_indexes(api: Any, make_table: Any) -> None:
    name = make_table(("pk:S", "sk:N"), gsis=[gsi("by_status", "status:S")])
    shape = api.call("tableShape", {"table": name})["table"]
    assert shape["KeySchema"] == [
        {"AttributeName": "pk", "KeyType": "HASH"},
        {"AttributeName": "sk", "KeyType": "RANGE"},
    ]
    assert [i["IndexName"] for i in shape["GlobalSecondaryIndexes"]] == ["by_status"]
    assert "ItemCount" not in shape
    error = failure(api, "tableShape", {"table": "no_such_table_here"})
    assert (error.status, error.type) == (400, "ResourceNotFoundException")


def test_delete_an_item(api: Any, paged: str) -> None:
    key = {"pk": {"S": "p"}, "sk": {"S": "05"}}
    assert api.call("deleteItem", {"table": paged, "key": key}) == {"deleted": True}
    assert api.call("getItem", {"table": paged, "key": key}) == {"item": None}
    error = failure(api, "deleteItem", {"table": paged, "key": {"pk": {"S": "p"}}})
    assert (error.status, error.type) == (400, "ValidationException")


def test_malformed_cursors_are_refused_on_their_field(api: Any, paged: str) -> None:
    error = failure(api, "entityPage", {"table": paged, "startKey": {"pk": {"S": 1}}})
    assert error.status == 400 and "pk" in error.fields["startKey"]
    error = failure(
        api,
        "entityFind",
        {"table": paged, "model": "Fault", "properties": {"deviceId": "d"}, "next": {"pk": "x"}},
    )
    assert error.status == 400 and "next" in error.fields
    error = failure(api, "scan", {"table": paged, "startKey": {"pk": {"B": "***"}}})
    assert error.status == 400 and "base64" in error.fields["startKey"]


def test_dates_come_back_in_the_one_form_the_items_store() -> None:
    """Entities and table descriptions write dates as the items hold them (``...T19:07:47.123Z``), so the same
    date never shows as ``...+00:00`` in one view and ``...Z`` in another."""
    import re

    import dynabase
    from dynabase.console.api import ConsoleAPI
    from dynabase.console.entities import Entities

    iso = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
    client = dynabase.connect(":memory:")
    try:
        api = ConsoleAPI(client, target="test", entities=Entities(client, SCHEMA))
        api.call("createTable", {"definition": api.call("tableDefinition", {"table": "dated"})["definition"]})
        saved = api.call(
            "entitySave",
            {
                "table": "dated",
                "model": "Fault",
                "mode": "create",
                "properties": {"deviceId": "d1", "severity": "warn", "message": "m"},
            },
        )["entity"]
        stored = client.scan(TableName="dated")["Items"][0]
        assert saved["created"] == stored["created"]["S"] and iso.match(saved["created"])
        found = api.call("entityFind", {"table": "dated", "model": "Fault", "properties": {"deviceId": "d1"}})
        assert found["items"][0]["created"] == stored["created"]["S"]
        (group,) = api.call("entityPage", {"table": "dated"})["groups"]
        assert group["items"][0]["updated"] == stored["updated"]["S"]
        assert iso.match(api.call("describeTable", {"table": "dated"})["table"]["CreationDateTime"])
    finally:
        client.close()
