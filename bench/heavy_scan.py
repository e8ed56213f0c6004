"""The heavy-Scan latency case of ``bench/server_bench.py`` (issue 23): GetItem latency while Scans run.

Each heavy Scan's filter is :data:`TERMS` ``contains()`` calls (a ~5 KB request, within every DynamoDB limit) over
items holding long lists, none matching, so every call is evaluated for every item: CPU-bound Python in the
server. GetItem latency (p50/p99 over the GetItems sent) is measured unloaded, while one such Scan runs, and
while eight run at once. The server runs on a database file (a ``:memory:`` database has one connection, so
its reads share it; see docs/serve.md).
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Callable
from typing import Any

TABLE = "heavy"
ITEMS = 100
LIST_LENGTH = 150
TERMS = 120
#: the GetItems during Scans stop after this many seconds (fewer samples, when each waits for a Scan)
BUDGET = 30.0


def setup(c: Any) -> None:
    c.create_table(
        TableName=TABLE,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    tags = {"L": [{"S": f"tag-{n:04d}"} for n in range(LIST_LENGTH)]}
    for n in range(ITEMS):
        c.put_item(TableName=TABLE, Item={"pk": {"S": f"k{n}"}, "t": tags})


def scan_request() -> dict[str, Any]:
    names = [f":v{n}" for n in range(TERMS)]
    return {
        "TableName": TABLE,
        "FilterExpression": " OR ".join(f"contains(t, {v})" for v in names),
        "ExpressionAttributeValues": {v: {"S": f"z{v[2:]}"} for v in names},
    }


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return {"p50_ms": statistics.median(ordered) * 1000, "p99_ms": p99 * 1000, "n": len(ordered)}


def _get_latencies(c: Any, count: int, keep_going: Callable[[], bool] = lambda: True) -> list[float]:
    samples = []
    for n in range(count):
        if not keep_going():
            break
        started = time.perf_counter()
        c.get_item(TableName=TABLE, Key={"pk": {"S": f"k{n % ITEMS}"}})
        samples.append(time.perf_counter() - started)
    return samples


def during_scans(make_client: Callable[[], Any], scans: int, gets: int) -> tuple[dict[str, float], float]:
    """GetItem latencies while ``scans`` heavy Scans run at once (each thread scans again until the GetItems are
    done, or :data:`BUDGET` has passed), and the Scans answered per second in all (the last ones end after the
    GetItems: the time counted runs to the end of the last)."""
    request = scan_request()
    stop = threading.Event()
    started = threading.Barrier(scans + 1)
    durations: list[float] = []

    def scanner() -> None:
        c = make_client()
        started.wait()
        while not stop.is_set():
            t0 = time.perf_counter()
            c.scan(**request)
            durations.append(time.perf_counter() - t0)

    threads = [threading.Thread(target=scanner) for _ in range(scans)]
    for thread in threads:
        thread.start()
    started.wait()
    begun = time.perf_counter()
    time.sleep(0.2)  # the Scans are under way (not a measure: the samples below are taken while they run)
    c = make_client()
    try:
        deadline = time.perf_counter() + BUDGET
        samples = _get_latencies(c, gets, lambda: time.perf_counter() < deadline)
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    return percentiles(samples), len(durations) / (time.perf_counter() - begun)


def run(make_client: Callable[[], Any], gets: int = 300) -> dict[str, Any]:
    """The case's figures: ``{"unloaded": ..., "one_scan": ..., "eight_scans": ..., "scan_seconds": ...}``."""
    c = make_client()
    setup(c)
    _get_latencies(c, 50)  # warm-up
    out: dict[str, Any] = {"unloaded": percentiles(_get_latencies(c, gets))}
    out["one_scan"], one = during_scans(make_client, 1, gets)
    out["eight_scans"], eight = during_scans(make_client, 8, gets)
    out["scans_per_second"] = {"one": one, "eight": eight}
    return out


def report(figures: dict[str, Any]) -> list[str]:
    unloaded = figures["unloaded"]
    lines = ["GetItem latency while heavy Scans run (file database):"]
    for name, label in (
        ("unloaded", "unloaded"),
        ("one_scan", "1 heavy Scan"),
        ("eight_scans", "8 heavy Scans"),
    ):
        f = figures[name]
        lines.append(
            f"  {label:<14} p50 {f['p50_ms']:8.1f} ms   p99 {f['p99_ms']:8.1f} ms   ({f['n']} GetItems)"
        )
    rate = figures["scans_per_second"]
    lines.append(
        f"  heavy Scans answered per second: {rate['one']:.2f} one at a time, {rate['eight']:.2f} with 8 at once"
    )
    one = figures["one_scan"]["p99_ms"] - unloaded["p99_ms"]
    eight = figures["eight_scans"]["p99_ms"]
    lines.append(
        f"  goal: p99 during 1 Scan within 50 ms of unloaded: +{one:.1f} ms {'ok' if one <= 50 else 'MISSED'}"
    )
    lines.append(f"  goal: p99 during 8 Scans <= 100 ms: {eight:.1f} ms {'ok' if eight <= 100 else 'MISSED'}")
    return lines
