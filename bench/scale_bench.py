"""Does read latency stay flat as a file database grows?  Query and GetItem at 10k items, then at 1M.

A file database (WAL, the default) is loaded through the embedded client's own ``put_item`` (so the data is in
the engine's own storage format, one transaction per item) to ``--small`` items (10,000), then the latency of

* a Query of one whole partition (20 items per partition, a random partition each call), and
* a GetItem of a random item

is sampled one call at a time (``time.perf_counter``) after a warm-up: p50, p95 and mean.  The same database is
then grown to ``--items`` (1,000,000; ``--quick``: 100,000) and measured again.

Goal: p50 and p95 at the large size within 1.5x of the same figure at 10k items.

    python bench/scale_bench.py [--quick] [--items N] [--samples N] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# Benchmark the working tree, whether or not the package is installed.
sys.path.insert(0, str(ROOT / "src"))

TABLE = "scale"
PER_PARTITION = 20
GOAL = 1.5


def make_item(n: int) -> dict:
    """Item ``n``: partition ``n // 20``, sort key ``n % 20``; ~250 bytes (DynamoDB's size)."""
    return {
        "pk": {"S": f"user#{n // PER_PARTITION:08d}"},
        "sk": {"S": f"order#{n % PER_PARTITION:04d}"},
        "c": {"N": str(n % 1000)},
        "customer": {"S": f"Customer Number {n:08d}"},
        "email": {"S": f"customer.{n:08d}@example.com"},
        "total": {"N": f"{(n * 7919) % 100000 / 100:.2f}"},
        "currency": {"S": "EUR"},
        "active": {"BOOL": n % 2 == 0},
        "tags": {"SS": ["alpha", "beta", f"t{n % 17}"]},
        "address": {"S": f"{n % 999} Long Street Name, Some Town, Some Region, 12345, Country of Example"},
        "note": {"S": "x" * 40},
    }


def file_size(path: str) -> int:
    return sum(os.path.getsize(p) for p in (path, path + "-wal", path + "-shm") if os.path.exists(p))


def mib(n: int) -> str:
    return f"{n / (1 << 20):,.1f} MiB"


def load(client: Any, start: int, stop: int, deadline: float | None) -> tuple[int, float]:
    """put_item items [start, stop); returns the count reached and the seconds spent."""
    put = client.put_item
    t0 = time.perf_counter()
    last_report = t0
    n = start
    while n < stop:
        chunk_end = min(stop, n + 10_000)
        for i in range(n, chunk_end):
            put(TableName=TABLE, Item=make_item(i))
        n = chunk_end
        now = time.perf_counter()
        if now - last_report >= 15 or n == stop:
            done = n - start
            print(f"    loaded {n:>10,} items  ({done / (now - t0):,.0f} puts/s)", flush=True)
            last_report = now
        if deadline is not None and now > deadline:
            print(f"    stopping the load at {n:,} items: --max-load-seconds reached", flush=True)
            break
    return n, time.perf_counter() - t0


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    k = (len(sorted_values) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (k - lo)


def sample(fn: Any, requests: list[dict]) -> dict:
    """Each call timed on its own: wall clock (perf_counter), and this thread's CPU time (thread_time), which
    leaves out time spent waiting for a CPU on a busy machine."""
    clock, cpu_clock = time.perf_counter, time.thread_time
    latencies, cpu = [], []
    for req in requests:
        c0 = cpu_clock()
        t0 = clock()
        fn(**req)
        t1 = clock()
        cpu.append(cpu_clock() - c0)
        latencies.append(t1 - t0)
    latencies.sort()
    cpu.sort()
    return {
        "p50_us": percentile(latencies, 0.50) * 1e6,
        "p95_us": percentile(latencies, 0.95) * 1e6,
        "mean_us": statistics.fmean(latencies) * 1e6,
        "cpu_p50_us": percentile(cpu, 0.50) * 1e6,
        "cpu_p95_us": percentile(cpu, 0.95) * 1e6,
        "n": len(latencies),
    }


def measure(client: Any, items: int, samples: int, seed: int) -> dict:
    rng = random.Random(seed)
    partitions = items // PER_PARTITION

    def query_req() -> dict:
        return {
            "TableName": TABLE,
            "KeyConditionExpression": "pk = :p",
            "ExpressionAttributeValues": {":p": {"S": f"user#{rng.randrange(partitions):08d}"}},
        }

    def get_req() -> dict:
        n = rng.randrange(items)
        return {
            "TableName": TABLE,
            "Key": {
                "pk": {"S": f"user#{n // PER_PARTITION:08d}"},
                "sk": {"S": f"order#{n % PER_PARTITION:04d}"},
            },
        }

    check = client.query(**query_req())
    assert check["Count"] == PER_PARTITION, f"a partition query returned {check['Count']} items"
    assert "Item" in client.get_item(**get_req()), "a GetItem found nothing"
    warm = max(200, samples // 5)
    sample(client.query, [query_req() for _ in range(warm)])
    sample(client.get_item, [get_req() for _ in range(warm)])
    load_before = load_average()
    out = {
        "query": sample(client.query, [query_req() for _ in range(samples)]),
        "get": sample(client.get_item, [get_req() for _ in range(samples)]),
    }
    out["load_average"] = [load_before, load_average()]
    return out


def load_average() -> float | None:
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, help="the large size (default 1,000,000; --quick: 100,000)")
    parser.add_argument("--small", type=int, default=10_000, help="the small size (default 10,000)")
    parser.add_argument("--quick", action="store_true", help="grow to 100,000 items and take fewer samples")
    parser.add_argument(
        "--samples", type=int, help="timed calls per operation and size (default 5000; --quick 2000)"
    )
    parser.add_argument("--max-load-seconds", type=float, default=1800.0, help="stop growing after this long")
    parser.add_argument("--path", help="database file to create (default: a temp dir, removed afterwards)")
    parser.add_argument("--json", metavar="FILE", help="write the figures as JSON")
    args = parser.parse_args(argv)

    import dynabase

    large = args.items or (100_000 if args.quick else 1_000_000)
    samples = args.samples or (2000 if args.quick else 5000)
    small = args.small
    if large <= small:
        parser.error("--items must be larger than --small")
    tmp = None
    if args.path:
        path = args.path
        if os.path.exists(path):
            parser.error(f"{path} exists; give a new file")
    else:
        tmp = tempfile.TemporaryDirectory(prefix="dynabase-scale-")
        path = os.path.join(tmp.name, "scale.db")

    print(
        f"scale_bench: {small:,} -> {large:,} items, {PER_PARTITION} items per partition, {samples:,} timed calls "
        f"per figure; python {platform.python_version()}, sqlite {sqlite3.sqlite_version}; {path}",
        flush=True,
    )
    client = dynabase.connect(path)
    client.create_table(
        TableName=TABLE,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    results: dict[str, Any] = {}
    try:
        print(f"  loading {small:,} items", flush=True)
        reached, secs = load(client, 0, small, None)
        results["small"] = {"items": reached, "load_s": secs, "bytes": file_size(path)}
        print(
            f"  {reached:,} items: loaded in {secs:.1f}s ({reached / secs:,.0f} puts/s), {mib(file_size(path))}"
        )
        results["small"].update(measure(client, reached, samples, seed=1))

        print(f"  growing to {large:,} items", flush=True)
        deadline = time.perf_counter() + args.max_load_seconds
        reached, secs = load(client, small, large, deadline)
        added = reached - small
        results["large"] = {"items": reached, "load_s": secs, "bytes": file_size(path)}
        print(
            f"  {reached:,} items: {added:,} more loaded in {secs:.1f}s ({added / secs:,.0f} puts/s), "
            f"{mib(file_size(path))}",
            flush=True,
        )
        results["large"].update(measure(client, reached, samples, seed=2))
    finally:
        client.close()
        if tmp is not None:
            tmp.cleanup()

    s, g = results["small"], results["large"]
    print()
    head = f"{'operation':<10} {'figure':<7} {s['items']:>9,} items {g['items']:>10,} items  {'ratio':>6}  goal<={GOAL:g}x"
    print(head)
    print("-" * len(head))
    ratios: dict[str, dict[str, float]] = {}
    for op, label in (("query", "Query 20"), ("get", "GetItem")):
        ratios[op] = {}
        for fig in ("p50_us", "p95_us", "mean_us", "cpu_p50_us", "cpu_p95_us"):
            ratio = g[op][fig] / s[op][fig]
            ratios[op][fig] = ratio
            verdict = ("meets" if ratio <= GOAL else "MISSES") if fig in ("p50_us", "p95_us") else ""
            name = fig[:-3].replace("_", " ")
            line = f"{label:<10} {name:<7} {s[op][fig]:>12,.1f} us {g[op][fig]:>13,.1f} us  {ratio:>5.2f}x  {verdict}"
            print(line.rstrip())
    print()
    print(
        f"load: {s['items']:,} items in {s['load_s']:.1f}s, then {g['items'] - s['items']:,} more in "
        f"{g['load_s']:.1f}s ({(g['items'] - s['items']) / g['load_s']:,.0f} puts/s through put_item); "
        f"file {mib(s['bytes'])} -> {mib(g['bytes'])} ({g['bytes'] / g['items']:,.0f} B/item incl. WAL)"
    )
    loads = [x for x in (*s["load_average"], *g["load_average"]) if x is not None]
    if loads and max(loads) > (os.cpu_count() or 1):
        print(
            f"warning: the machine was busy while measuring (load average up to {max(loads):.1f}, "
            f"{os.cpu_count()} cpus): latencies, the p95s above all, include waiting for a CPU"
        )
    print(
        "(p50/p95/mean: wall clock, the figures of record; cpu p50/p95: the calling thread's CPU time per call, "
        "which leaves out waiting for a CPU or the disk)"
    )
    if g["items"] < large:
        print(f"note: the load stopped at {g['items']:,} of {large:,} items (--max-load-seconds)")
    if args.json:
        payload = {
            "benchmark": "scale_bench",
            "python": platform.python_version(),
            "sqlite": sqlite3.sqlite_version,
            "goal": GOAL,
            "small": s,
            "large": g,
            "ratios": ratios,
        }
        Path(args.json).write_text(json.dumps(payload, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
