"""The asyncio lean client, and the entity layer's native async path over it."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from botocore.exceptions import ParamValidationError, ReadTimeoutError

import dynabase
from backends import FAKE_CREDENTIALS, REGION
from dynabase.model import AsyncTable, ConditionFailedError, Table, UniqueError

from .conftest import http_response

KEYS = {
    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
    "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
    "BillingMode": "PAY_PER_REQUEST",
}
SCHEMA = {
    "format": "onetable:1.1.0",
    "version": "0.0.1",
    "indexes": {
        "primary": {"hash": "pk", "sort": "sk"},
        "gs1": {"hash": "gs1pk", "sort": "gs1sk", "follow": True},
    },
    "models": {
        "Item": {
            "pk": {"type": "string", "value": "group#${group}"},
            "sk": {"type": "string", "value": "item#${seq:4}"},
            "gs1pk": {"type": "string", "value": "label#${label}"},
            "gs1sk": {"type": "string", "value": "item#${seq:4}"},
            "group": {"type": "string", "required": True},
            "seq": {"type": "number", "required": True},
            "id": {"type": "string", "generate": "ulid"},
            "label": {"type": "string"},
            "photo": {"type": "binary"},
            "tags": {"type": "set"},
        },
        "Account": {
            "pk": {"type": "string", "value": "account#${name}"},
            "sk": {"type": "string", "value": "account#"},
            "name": {"type": "string", "required": True},
            "email": {"type": "string", "unique": True},
        },
    },
    "params": {"isoDates": True, "timestamps": True},
}


def run(coroutine):
    return asyncio.run(coroutine)


def test_calls_errors_and_binary(serve_url):
    async def main():
        async with dynabase.endpoint_async(serve_url, region=REGION, **FAKE_CREDENTIALS) as client:
            await client.create_table(TableName="aio-basic", **KEYS)
            await client.put_item(TableName="aio-basic", Item={"pk": {"S": "a"}, "b": {"B": b"\x00\x01"}})
            got = await client.get_item(TableName="aio-basic", Key={"pk": {"S": "a"}})
            assert got["Item"] == {"pk": {"S": "a"}, "b": {"B": b"\x00\x01"}}
            with pytest.raises(client.exceptions.ConditionalCheckFailedException):
                await client.put_item(
                    TableName="aio-basic",
                    Item={"pk": {"S": "a"}},
                    ConditionExpression="attribute_not_exists(pk)",
                )
            with pytest.raises(ParamValidationError):
                await client.put_item(TableName="aio-basic", Item={"pk": {"S": 1}})
            with pytest.raises(client.exceptions.ResourceNotFoundException):
                await client.query(TableName="aio-missing", KeyConditionExpression="pk = :p",
                                   ExpressionAttributeValues={":p": {"S": "a"}})  # fmt: skip

    run(main())


def test_retries_and_stale_connections(scripted, monkeypatch):
    throttled = http_response(400, b'{"__type":"x#ProvisionedThroughputExceededException","message":"slow"}')
    ok = http_response(200, b'{"TableNames":[]}')
    url, received = scripted([ok, None, throttled, ok])

    async def no_sleep(seconds):
        return None

    async def main():
        monkeypatch.setattr(asyncio, "sleep", no_sleep)
        client = dynabase.endpoint_async(url, region=REGION, **FAKE_CREDENTIALS)
        assert (await client.list_tables())["TableNames"] == []
        # the pooled connection is closed unanswered: a fresh one, then one throttled answer and a retry
        answer = await client.list_tables()
        assert answer["ResponseMetadata"]["RetryAttempts"] == 1
        await client.close()

    run(main())
    assert len(received) == 4


def test_a_thousand_concurrent_gets_on_one_thread(tmp_path: Path):
    """1,000 concurrent gets against `dynabase serve` (another process): no thread is started for them."""
    src = Path(__file__).resolve().parents[2] / "src"
    server = subprocess.Popen(
        [sys.executable, "-m", "dynabase.server", "--db", ":memory:", "--port", "0", "-q"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONPATH": str(src)},
    )
    try:
        line = server.stdout.readline()
        url = next(word for word in line.split() if word.startswith("http://")).rstrip(".,")

        async def main():
            client = dynabase.endpoint_async(url, region=REGION, **FAKE_CREDENTIALS)
            await client.create_table(TableName="aio-many", **KEYS)
            for n in range(100):
                await client.put_item(TableName="aio-many", Item={"pk": {"S": f"k{n}"}})
            before = threading.active_count()
            peak = before

            async def get(n):
                nonlocal peak
                answer = await client.get_item(TableName="aio-many", Key={"pk": {"S": f"k{n % 100}"}})
                peak = max(peak, threading.active_count())
                return answer

            start = time.perf_counter()
            answers = await asyncio.gather(*(get(n) for n in range(1000)))
            elapsed = time.perf_counter() - start
            await client.close()
            return answers, before, peak, elapsed

        answers, before, peak, elapsed = run(main())
    finally:
        server.terminate()  # the server this test started, by PID
        server.wait(timeout=10)
    assert [a["Item"]["pk"]["S"] for a in answers] == [f"k{n % 100}" for n in range(1000)]
    assert peak == before, f"{peak - before} threads started"
    print(f"1,000 concurrent gets: {elapsed:.2f}s, peak threads {peak}")


# -- the entity layer ------------------------------------------------------------------------------------------


@pytest.fixture
def tables(serve_url):
    lean = dynabase.endpoint(serve_url, region=REGION, **FAKE_CREDENTIALS)
    table = Table("aio-model", lean, SCHEMA)
    table.create_table()
    native = dynabase.endpoint_async(serve_url, region=REGION, **FAKE_CREDENTIALS)
    yield table, native
    lean.delete_table(TableName="aio-model")
    lean.close()


def test_models_run_natively_with_the_models_answers(tables):
    table, native = tables

    async def main():
        atable = AsyncTable("aio-model", native, SCHEMA)
        Item = atable.model("Item")
        made = await asyncio.gather(
            *(
                Item.create({"group": "g", "seq": n, "label": "x" if n % 2 else "y", "photo": b"\x00\xfe"})
                for n in range(30)
            )  # fmt: skip
        )
        got = await Item.get({"group": "g", "seq": 3})
        page = await Item.find({"group": "g"}, limit=10)
        rest = await Item.find({"group": "g"}, next=page.next)
        filtered = await Item.find({"group": "g"}, where="${label} = {x}")
        updated = await Item.update({"group": "g", "seq": 3, "label": "z", "tags": {"a", "b"}})
        with pytest.raises(ConditionFailedError):
            await Item.create({"group": "g", "seq": 3})
        assert await Item.create({"group": "g", "seq": 3}, throw=False) is None
        command = await Item.get({"group": "g", "seq": 4}, execute=False)
        await Item.remove({"group": "g", "seq": 5})
        threads = len(atable.executor._threads)
        followed = await Item.find({"label": "z"}, index="gs1")  # follow: gets of its own, in a thread
        atable.close()
        return made, got, page, rest, filtered, updated, command, threads, followed

    made, got, page, rest, filtered, updated, command, threads, followed = run(main())
    assert threads == 0  # everything above the follow ran on the event loop
    Item = table.model("Item")
    now = Item.get({"group": "g", "seq": 3}, consistent=True)
    assert got == {k: v for k, v in now.items() if k != "tags"} | {"label": "x", "updated": got["updated"]}
    assert got["photo"] == b"\x00\xfe" and got["id"] == made[3]["id"]
    assert [i["seq"] for i in page] == list(range(10)) and len(rest) == 20
    assert sorted(i["seq"] for i in filtered) == list(range(1, 30, 2))
    assert updated["label"] == "z" and updated["tags"] == {"a", "b"}
    assert command["Key"] == {"pk": {"S": "group#g"}, "sk": {"S": "item#0004"}}
    assert Item.get({"group": "g", "seq": 5}) is None and len(Item.find({"group": "g"})) == 29
    assert [i["seq"] for i in followed] == [3] and followed[0]["photo"] == b"\x00\xfe"


def test_unique_fields_fall_back_to_the_blocking_api(tables):
    table, native = tables

    async def main():
        async with AsyncTable("aio-model", native, SCHEMA) as atable:
            Account = atable.model("Account")
            await Account.create({"name": "a", "email": "a@x"})
            with pytest.raises(UniqueError):
                await Account.create({"name": "b", "email": "a@x"})
            return await Account.get({"name": "a"})

    assert run(main())["email"] == "a@x"


def test_read_timeout(scripted):
    url, _ = scripted([b"HTTP/1.1 200 OK\r\n"])  # a head that never ends

    async def main():
        client = dynabase.endpoint_async(
            url, region=REGION, max_attempts=1, read_timeout=0.2, **FAKE_CREDENTIALS
        )
        with pytest.raises(ReadTimeoutError):
            await client.list_tables()

    run(main())
