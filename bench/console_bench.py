"""The console on a big table: how long until the first page of a 1M-item table is on screen?

Builds (or reuses, with ``--db``) an embedded file database of ``--items`` items (1,000,000; in batches of 25
through ``batch_write_item``), with a GSI, then serves the console on it (``dynabase ui``'s server, loopback) and
times what the browser asks for when a table's Items tab opens: ``info``, ``listTables``, ``tableShape`` and
the first ``scan`` page (25 items), plus a first ``query`` page, the entity view's first page, the next few
scan pages and the Overview tab's ``describeTable`` (which counts every item), each over HTTP as the page sends
them. Goal: the first page in under a second.

    python bench/console_bench.py [--items N] [--db FILE] [--keep]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

TABLE = "big"
SCHEMA = {
    "format": "onetable:1.1.0",
    "version": "0.0.1",
    "indexes": {"primary": {"hash": "pk", "sort": "sk"}, "gs1": {"hash": "gs1pk", "sort": "gs1sk"}},
    "models": {
        "Order": {
            "pk": {"type": "string", "value": "customer#${customer}"},
            "sk": {"type": "string", "value": "order#${id}"},
            "gs1pk": {"type": "string", "value": "status#${status}"},
            "gs1sk": {"type": "string", "value": "order#${id}"},
            "customer": {"type": "string", "required": True},
            "id": {"type": "string", "required": True},
            "status": {"type": "string", "enum": ["open", "paid", "sent"]},
            "total": {"type": "number"},
        }
    },
    "params": {"isoDates": True, "timestamps": False},
}


def item(n: int) -> dict:
    customer, oid, status = f"{n // 20:07d}", f"{n:08d}", ("open", "paid", "sent")[n % 3]
    return {
        "pk": {"S": f"customer#{customer}"},
        "sk": {"S": f"order#{oid}"},
        "gs1pk": {"S": f"status#{status}"},
        "gs1sk": {"S": f"order#{oid}"},
        "customer": {"S": customer},
        "id": {"S": oid},
        "status": {"S": status},
        "total": {"N": f"{(n * 7919) % 100000 / 100:.2f}"},
        "_type": {"S": "Order"},
    }


def build(path: str, items: int) -> None:
    import dynabase
    from dynabase.model import Table

    client = dynabase.connect(path, ttl_sweep_seconds=None)
    Table(TABLE, client, SCHEMA).create_table()
    t0 = time.perf_counter()
    for start in range(0, items, 25):
        requests = [{"PutRequest": {"Item": item(n)}} for n in range(start, min(items, start + 25))]
        left = {TABLE: requests}
        while left:
            left = client.batch_write_item(RequestItems=left).get("UnprocessedItems") or {}
        if start and start % 100_000 == 0:
            print(f"  {start:,} items ({start / (time.perf_counter() - t0):,.0f}/s)", flush=True)
    client.close()
    print(f"built {items:,} items in {time.perf_counter() - t0:.0f}s", flush=True)


def timed_post(
    conn: http.client.HTTPConnection, headers: dict, operation: str, body: dict
) -> tuple[float, dict]:
    t0 = time.perf_counter()
    conn.request("POST", f"/console/api/{operation}", json.dumps(body), headers)
    response = conn.getresponse()
    document = json.loads(response.read())
    seconds = time.perf_counter() - t0
    if response.status != 200:
        raise RuntimeError(f"{operation}: {response.status} {document}")
    return seconds, document


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--db", help="database file to build or reuse (default: a temporary file)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary database")
    args = parser.parse_args(argv)
    path = args.db or os.path.join(tempfile.mkdtemp(prefix="console-bench-"), "big.db")
    if not os.path.exists(path):
        build(path, args.items)

    import dynabase
    from dynabase.console.server import ConsoleServer
    from dynabase.console.server import build as build_console

    client = dynabase.connect(path, ttl_sweep_seconds=None)
    schema_file = os.path.join(os.path.dirname(path), "schema.json")
    Path(schema_file).write_text(json.dumps(SCHEMA))
    server = ConsoleServer(build_console(client, target=path, schema=schema_file)).start()
    conn = http.client.HTTPConnection("127.0.0.1", server.port)
    headers = {
        "Host": f"127.0.0.1:{server.port}",
        "Cookie": f"{server.app.guard.cookie_name}={server.app.guard.token}",
        "X-Dynabase-Console": "1",
        "Content-Type": "application/json",
    }
    results: dict[str, float] = {}
    try:
        first = 0.0
        for operation, body in (
            ("info", {}),
            ("listTables", {}),
            ("tableShape", {"table": TABLE}),
            ("scan", {"table": TABLE, "limit": 25}),
        ):
            seconds, document = timed_post(conn, headers, operation, body)
            results[operation] = seconds
            first += seconds
        results["first page (info, listTables, tableShape, scan)"] = first
        cursor = document["lastKey"]
        pages = []
        for _ in range(5):
            seconds, document = timed_post(
                conn, headers, "scan", {"table": TABLE, "limit": 25, "startKey": cursor}
            )
            pages.append(seconds)
            cursor = document["lastKey"]
        results["next scan page (median of 5)"] = statistics.median(pages)
        query = {
            "table": TABLE,
            "index": "gs1",
            "keyCondition": "gs1pk = :s",
            "values": '{":s": {"S": "status#paid"}}',
            "limit": 25,
            "forward": False,
        }
        results["query page (GSI, descending)"] = timed_post(conn, headers, "query", query)[0]
        results["entity page (grouped by model)"] = timed_post(conn, headers, "entityPage", {"table": TABLE})[
            0
        ]
        results["describeTable (counts every item)"] = timed_post(
            conn, headers, "describeTable", {"table": TABLE}
        )[0]
    finally:
        conn.close()
        server.stop()
        client.close()
    count = args.items
    print(f"\nconsole on a {count:,}-item table ({path}):")
    for name, seconds in results.items():
        print(f"  {name:<48} {seconds * 1000:8.1f} ms")
    if not args.db and not args.keep:
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(path + suffix):
                os.unlink(path + suffix)
    ok = results["first page (info, listTables, tableShape, scan)"] < 1.0
    print(f"\nfirst page under a second: {'yes' if ok else 'NO'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
