"""Client CPU per call against one ``dynabase serve``: boto3, PynamoDB, pydynox, dynabase's lean client, and
dynabase's entity layer over boto3 and over the lean client.

The server runs in another process (``python -m dynabase.server --db :memory:``); the figure is
``time.process_time()`` of this process (all its threads: pydynox's Rust runtime included) per call, for
get / put / update (SET one attribute, ALL_NEW) / query of 25 items.  Every library reads and writes the same
items (written by the entity layer).  Goal: the lean client and the entity layer over it below pydynox on all four.
Then 1,000 concurrent gets with the asyncio client (``dynabase.endpoint_async``), raw and through ``AsyncTable``:
wall time and the peak number of threads in this process.

    pip install -e '.[bench]'          # PynamoDB, pydynox
    python bench/orm_bench.py [--calls 2000] [--json FILE]

Libraries that are not installed are left out with a note.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

import dynabase  # noqa: E402
from dynabase.model import AsyncTable, Table  # noqa: E402
from dynabase.server import start_subprocess  # noqa: E402

TABLE = "orm-bench"
REGION = "us-east-1"
CREDS = {"aws_access_key_id": "fake", "aws_secret_access_key": "fake"}
OPS = ("get", "put", "update", "query25")
SCHEMA = {
    "format": "onetable:1.1.0",
    "version": "0.0.1",
    "indexes": {"primary": {"hash": "pk", "sort": "sk"}},
    "models": {
        "Thing": {
            "pk": {"type": "string", "value": "thing#${group}"},
            "sk": {"type": "string", "value": "n#${seq}"},
            "group": {"type": "string", "required": True},
            "seq": {"type": "number", "required": True},
            "name": {"type": "string"},
            "count": {"type": "number"},
            "ok": {"type": "boolean"},
            "tags": {"type": "array"},
        }
    },
    "params": {"isoDates": False, "timestamps": False},
}


def thing(seq: int) -> dict[str, Any]:
    return {
        "group": "g",
        "seq": seq,
        "name": f"thing number {seq}",
        "count": seq * 3,
        "ok": True,
        "tags": ["a", "b"],
    }


# -- one set of four calls per library --------------------------------------------------------------------------


def low_level(client: Any) -> dict[str, Callable[[int], Any]]:
    key = {"pk": {"S": "thing#g"}, "sk": {"S": "n#1"}}
    item = {"pk": {"S": "thing#g"}, "sk": {"S": "n#99"}, "_type": {"S": "Thing"}, "group": {"S": "g"},
            "seq": {"N": "99"}, "name": {"S": "thing number 99"}, "count": {"N": "297"}, "ok": {"BOOL": True},
            "tags": {"L": [{"S": "a"}, {"S": "b"}]}}  # fmt: skip
    return {
        "get": lambda i: client.get_item(TableName=TABLE, Key=key),
        "put": lambda i: client.put_item(TableName=TABLE, Item=item),
        "update": lambda i: client.update_item(
            TableName=TABLE,
            Key=key,
            UpdateExpression="SET #c = :c",
            ExpressionAttributeNames={"#c": "count"},
            ExpressionAttributeValues={":c": {"N": str(i)}},
            ReturnValues="ALL_NEW",
        ),
        "query25": lambda i: client.query(
            TableName=TABLE,
            KeyConditionExpression="pk = :p",
            ExpressionAttributeValues={":p": {"S": "thing#g"}},
            Limit=25,
        ),
    }


def entity(client: Any) -> dict[str, Callable[[int], Any]]:
    Thing = Table(TABLE, client, SCHEMA).model("Thing")
    return {
        "get": lambda i: Thing.get({"group": "g", "seq": 1}),
        "put": lambda i: Thing.create(thing(99), exists=None),
        "update": lambda i: Thing.update({"group": "g", "seq": 1, "count": i}),
        "query25": lambda i: Thing.find({"group": "g"}, limit=25),
    }


def pynamodb_calls(url: str) -> dict[str, Callable[[int], Any]]:
    from pynamodb.attributes import BooleanAttribute, ListAttribute, NumberAttribute, UnicodeAttribute
    from pynamodb.models import Model

    class Thing(Model):
        class Meta:
            table_name = TABLE
            host = url
            region = REGION
            aws_access_key_id = "fake"
            aws_secret_access_key = "fake"

        pk = UnicodeAttribute(hash_key=True)
        sk = UnicodeAttribute(range_key=True)
        _type = UnicodeAttribute(null=True)
        group = UnicodeAttribute(null=True)
        seq = NumberAttribute(null=True)
        name = UnicodeAttribute(null=True)
        count = NumberAttribute(null=True)
        ok = BooleanAttribute(null=True)
        tags = ListAttribute(null=True)

    one = Thing.get("thing#g", "n#1")
    new = Thing("thing#g", "n#99", _type="Thing", group="g", seq=99, name="thing number 99", count=297, ok=True,
                tags=["a", "b"])  # fmt: skip
    return {
        "get": lambda i: Thing.get("thing#g", "n#1"),
        "put": lambda i: new.save(),
        "update": lambda i: one.update(actions=[Thing.count.set(i)]),
        "query25": lambda i: list(Thing.query("thing#g", limit=25)),
    }


def pydynox_calls(url: str) -> dict[str, Callable[[int], Any]]:
    from pydynox import DynamoDBClient

    client = DynamoDBClient(region=REGION, access_key="fake", secret_key="fake", endpoint_url=url)
    key = {"pk": "thing#g", "sk": "n#1"}
    item = {"pk": "thing#g", "sk": "n#99", "_type": "Thing", "group": "g", "seq": 99, "name": "thing number 99",
            "count": 297, "ok": True, "tags": ["a", "b"]}  # fmt: skip
    return {
        "get": lambda i: client.sync_get_item(TABLE, key),
        "put": lambda i: client.sync_put_item(TABLE, item),
        "update": lambda i: client.sync_update_item(
            TABLE,
            key,
            update_expression="SET #c = :c",
            expression_attribute_names={"#c": "count"},
            expression_attribute_values={":c": i},
            return_values="ALL_NEW",
        ),
        "query25": lambda i: list(
            client.sync_query(TABLE, "pk = :p", expression_attribute_values={":p": "thing#g"}, limit=25)
        ),
    }


# -- measuring ----------------------------------------------------------------------------------------------------


def measure(call: Callable[[int], Any], calls: int) -> float:
    """Client CPU µs per call (process time of this process, all threads)."""
    for i in range(max(20, calls // 10)):
        call(i)
    start = time.process_time()
    for i in range(calls):
        call(i)
    return (time.process_time() - start) / calls * 1e6


def concurrent_gets(url: str, count: int = 1000) -> dict[str, dict[str, float]]:
    """``count`` concurrent gets on the asyncio client, raw and through AsyncTable: seconds, peak threads."""

    async def run() -> dict[str, dict[str, float]]:
        client = dynabase.endpoint_async(url, region=REGION, **CREDS)
        Thing = AsyncTable(TABLE, client, SCHEMA).model("Thing")
        key = {"pk": {"S": "thing#g"}, "sk": {"S": "n#1"}}
        shapes = {
            "async client get_item": lambda n: client.get_item(TableName=TABLE, Key=key),
            "AsyncTable Model.get": lambda n: Thing.get({"group": "g", "seq": n % 25 + 1}),
        }
        out = {}
        for name, call in shapes.items():
            peak = threading.active_count()

            async def one(n: int, call: Callable[[int], Any] = call) -> Any:
                nonlocal peak
                result = await call(n)
                peak = max(peak, threading.active_count())
                return result

            start = time.perf_counter()
            results = await asyncio.gather(*(one(n) for n in range(count)))
            assert all(results), "every get finds its item"
            out[name] = {"seconds": time.perf_counter() - start, "peak_threads": peak}
        await client.close()
        return out

    return asyncio.run(run())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=2000, help="calls per operation and library")
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args()

    server = start_subprocess(":memory:", args=["-q"])
    url = server.url
    try:
        import boto3

        boto = boto3.client("dynamodb", endpoint_url=url, region_name=REGION, **CREDS)
        lean = dynabase.endpoint(url, region=REGION, **CREDS)
        setup = Table(TABLE, lean, SCHEMA)
        setup.create_table()
        Thing = setup.model("Thing")
        for seq in range(1, 26):
            Thing.create(thing(seq))

        libraries: dict[str, Callable[[], dict[str, Callable[[int], Any]]]] = {
            "boto3 client": lambda: low_level(boto),
            "PynamoDB": lambda: pynamodb_calls(url),
            "pydynox": lambda: pydynox_calls(url),
            "dynabase lean client": lambda: low_level(lean),
            "entity layer / boto3": lambda: entity(boto),
            "entity layer / lean": lambda: entity(lean),
        }
        results: dict[str, dict[str, float]] = {}
        notes = []
        for name, make in libraries.items():
            try:
                calls = make()
            except ImportError as error:
                notes.append(f"{name}: not installed ({error.name}); `pip install -e '.[bench]'`")
                continue
            results[name] = {op: measure(calls[op], args.calls) for op in OPS}
            print(f"{name:<22}" + "".join(f"{results[name][op]:>10.0f}" for op in OPS), flush=True)
        gets = concurrent_gets(url)
    finally:
        server.stop()  # the server this run started, by PID

    print(f"\nclient CPU µs per call, {args.calls} calls each, against one dynabase serve")
    print(f"{'':<22}" + "".join(f"{op:>10}" for op in OPS))
    for name, row in results.items():
        print(f"{name:<22}" + "".join(f"{row[op]:>10.0f}" for op in OPS))
    for base in ("pydynox", "boto3 client"):
        if base in results:
            print(f"\nratio to {base} (below 1.00: cheaper)")
            for name, row in results.items():
                ratios = "".join(f"{row[op] / results[base][op]:>10.2f}" for op in OPS)
                print(f"{name:<22}{ratios}")
    print("\n1,000 concurrent gets, asyncio")
    for name, row in gets.items():
        print(f"{name:<24}{row['seconds']:>8.2f} s   peak threads {row['peak_threads']}")
    for note in notes:
        print(note)
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(
                {"calls": args.calls, "us_per_call": results, "concurrent_gets": gets, "notes": notes},
                handle,
                indent=2,
            )


if __name__ == "__main__":
    main()
