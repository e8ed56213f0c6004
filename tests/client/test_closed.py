"""A call on a closed embedded client is a clear error, never an InternalFailure or a raw sqlite3 error."""

from __future__ import annotations

import asyncio

import pytest

import dynabase
from dynabase.errors import ClosedError
from dynabase.model import AsyncTable, Table

SCHEMA = {
    "format": "onetable:1.1.0",
    "version": "0.0.1",
    "indexes": {"primary": {"hash": "pk", "sort": "sk"}},
    "models": {
        "Note": {
            "pk": {"type": "string", "value": "n#${id}"},
            "sk": {"type": "string", "value": "n"},
            "id": {"type": "string", "required": True},
        }
    },
}


@pytest.mark.parametrize(
    "call",
    [
        lambda c: c.list_tables(),
        lambda c: c.get_item(TableName="notes", Key={"pk": {"S": "a"}}),
        lambda c: c.query(
            TableName="notes", KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": {"S": "a"}}
        ),
    ],
    ids=["list_tables", "get_item", "query"],
)
def test_a_call_after_close_says_the_database_is_closed(tmp_path, call) -> None:
    path = str(tmp_path / "app.db")
    client = dynabase.connect(path)
    client.create_table(
        TableName="notes",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    client.close()
    with pytest.raises(ClosedError, match=r"the database .*app\.db is closed"):
        call(client)


def test_closing_a_wrapping_async_table_leaves_the_wrapped_tables_client_open() -> None:
    client = dynabase.connect(":memory:")
    table = Table("notes", client, SCHEMA)
    table.create_table()
    AsyncTable.wrap(table).close()
    AsyncTable.wrap(table, native=object()).close()  # an asyncio client of the caller's: neither is ours
    table.model("Note").create({"id": "1"})  # still open
    assert table.model("Note").get({"id": "1"})["id"] == "1"

    async def roundtrip() -> None:
        async with AsyncTable("notes", client, SCHEMA) as wrapped:  # a blocking client given: not ours either
            await wrapped.model("Note").create({"id": "2"})

    asyncio.run(roundtrip())
    assert table.model("Note").get({"id": "2"})["id"] == "2"
