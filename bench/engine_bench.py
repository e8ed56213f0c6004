"""Throughput of the embedded engine against two anchors, in one run, on one workload.

Targets (the same requests, the same data, one process):

* ``dynabase``      -- ``dynabase.connect(<file in a temp dir>)``: a SQLite file in WAL mode (the default use).
* ``dynabase-mem``  -- ``dynabase.connect(":memory:")``: shown as an extra column, not used in the ratios.
* ``moto``          -- ``moto.mock_aws`` with ``boto3.client("dynamodb")``: the usual in-process fake.
* ``sqlite-floor``  -- plain ``sqlite3`` doing the same storage work without DynamoDB semantics: items in
  the engine's layout (a keys table on ``(h, pk, sk)``, an items table of bodies without the keys, a parts
  table, behind a view; written and read with the engine's storage functions), a GSI table
  ``(gpk, gsk, h, pk, sk)``, WAL + synchronous=NORMAL,
  one ``BEGIN IMMEDIATE`` transaction per write, the item dict JSON-encoded on write and decoded on read (with
  the engine's codec, :func:`dump_body` and its row loader: orjson when installed).

Operations: put (new ~300-byte item carrying a GSI key), get (by key), query of 25 (a partition of 30 items,
Limit 25), GSI query (a GSI partition of 10 items), update with a condition (``SET #c = #c + :one`` with
``attribute_exists(pk)``).  Each is run for a warm-up, then 3 timed repeats of N calls (N picked from the warm-up
rate so a repeat lasts ~1 s), interleaved across targets; the figure is the median ops/s (wall clock).  A second
table gives ops per CPU-second of this process, which a busy machine disturbs much less.

Goals: dynabase / moto >= 20x, dynabase / sqlite-floor >= 0.4x, for every operation.

    python bench/engine_bench.py [--quick] [--json FILE] [--targets dynabase,moto,...] [--profile]
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import gc
import io
import json
import os
import platform
import pstats
import random
import sqlite3
import statistics
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# Benchmark the working tree, whether or not the package is installed.
sys.path.insert(0, str(ROOT / "src"))

from dynabase.engine.storage import (  # noqa: E402 - the engine's item layout, for the floor
    body_of,
    create_item_table,
    dump_body,
    insert_row,
    item_sql,
    part_size,
    rewrite_row,
    row_loader,
)

TABLE = "bench"
#: the floor's key attributes, left out of stored bodies as the engine does (both S)
FLOOR_KEYS = (("pk", "S", 0), ("sk", "S", 1))
FLOOR_LOAD = row_loader(FLOOR_KEYS)
GSI = "gsi1"
OPS = ("put", "get", "query25", "gsi_query", "update")
OP_LABELS = {
    "put": "put",
    "get": "get",
    "query25": "query of 25",
    "gsi_query": "GSI query (10)",
    "update": "update + condition",
}
TARGETS = ("dynabase", "dynabase-mem", "moto", "sqlite-floor")
GOAL_MOTO = 20.0
GOAL_FLOOR = 0.4
ITEMS_PER_PARTITION = 30  # Query Limit 25 returns 25 of them
ITEMS_PER_GSI_PARTITION = 10
REPEATS = 3


# -- the workload ---------------------------------------------------------------------------------------------


def make_item(pk: str, sk: str, gpk: str, gsk: str, n: int) -> dict:
    """A ~300-byte item (DynamoDB's size: names + values) with a GSI key and a counter."""
    return {
        "pk": {"S": pk},
        "sk": {"S": sk},
        "gpk": {"S": gpk},
        "gsk": {"S": gsk},
        "c": {"N": str(n % 1000)},
        "customer": {"S": f"Customer Number {n:08d}"},
        "email": {"S": f"customer.{n:08d}@example.com"},
        "total": {"N": f"{(n * 7919) % 100000 / 100:.2f}"},
        "currency": {"S": "EUR"},
        "active": {"BOOL": n % 2 == 0},
        "tags": {"SS": ["alpha", "beta", f"t{n % 17}"]},
        "address": {"S": f"{n % 999} Long Street Name, Some Town, Some Region, 12345, Country of Example"},
        "note": {"S": "x" * 60},
    }


def dynamo_size(item: dict) -> int:
    """DynamoDB's item size for the scalar and string-set types used here."""
    size = 0
    for name, value in item.items():
        ((kind, inner),) = value.items()
        size += len(name)
        if kind == "S":
            size += len(inner.encode())
        elif kind == "N":
            digits = inner.lstrip("-").replace(".", "").strip("0")
            size += (len(digits) + 1) // 2 + 1
        elif kind == "BOOL":
            size += 1
        elif kind == "SS":
            size += sum(len(m.encode()) for m in inner)
    return size


class Dataset:
    """The preloaded items: ``partitions`` table partitions of 30 items; GSI partitions of 10 items."""

    def __init__(self, partitions: int) -> None:
        self.partitions = partitions
        self.gsi_partitions = partitions * ITEMS_PER_PARTITION // ITEMS_PER_GSI_PARTITION
        self.items: list[dict] = []
        n = 0
        for p in range(partitions):
            for s in range(ITEMS_PER_PARTITION):
                g = n % self.gsi_partitions
                self.items.append(
                    make_item(f"user#{p:06d}", f"order#{s:04d}", f"status#{g:06d}", f"ts#{n:09d}", n)
                )
                n += 1

    def requests(self, op: str, count: int, rng: random.Random, put_offset: int = 0) -> list[dict]:
        """``count`` boto3-shaped requests for one operation (puts use fresh keys from ``put_offset``)."""
        if op == "put":
            return [
                {
                    "TableName": TABLE,
                    "Item": make_item(
                        f"new#{(put_offset + i) // 20:07d}",
                        f"order#{(put_offset + i) % 20:04d}",
                        f"newstatus#{(put_offset + i) // 10:07d}",
                        f"ts#{put_offset + i:09d}",
                        put_offset + i,
                    ),
                }
                for i in range(count)
            ]
        if op == "get":
            out = []
            for _ in range(count):
                item = rng.choice(self.items)
                out.append({"TableName": TABLE, "Key": {"pk": item["pk"], "sk": item["sk"]}})
            return out
        if op == "query25":
            return [
                {
                    "TableName": TABLE,
                    "KeyConditionExpression": "pk = :p",
                    "ExpressionAttributeValues": {":p": {"S": f"user#{rng.randrange(self.partitions):06d}"}},
                    "Limit": 25,
                }
                for _ in range(count)
            ]
        if op == "gsi_query":
            return [
                {
                    "TableName": TABLE,
                    "IndexName": GSI,
                    "KeyConditionExpression": "gpk = :g",
                    "ExpressionAttributeValues": {
                        ":g": {"S": f"status#{rng.randrange(self.gsi_partitions):06d}"}
                    },
                }
                for _ in range(count)
            ]
        if op == "update":
            out = []
            for _ in range(count):
                item = rng.choice(self.items)
                out.append(
                    {
                        "TableName": TABLE,
                        "Key": {"pk": item["pk"], "sk": item["sk"]},
                        "UpdateExpression": "SET #c = #c + :one",
                        "ConditionExpression": "attribute_exists(pk)",
                        "ExpressionAttributeNames": {"#c": "c"},
                        "ExpressionAttributeValues": {":one": {"N": "1"}},
                    }
                )
            return out
        raise ValueError(op)


CREATE_TABLE = {
    "TableName": TABLE,
    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
    "AttributeDefinitions": [
        {"AttributeName": "pk", "AttributeType": "S"},
        {"AttributeName": "sk", "AttributeType": "S"},
        {"AttributeName": "gpk", "AttributeType": "S"},
        {"AttributeName": "gsk", "AttributeType": "S"},
    ],
    "GlobalSecondaryIndexes": [
        {
            "IndexName": GSI,
            "KeySchema": [
                {"AttributeName": "gpk", "KeyType": "HASH"},
                {"AttributeName": "gsk", "KeyType": "RANGE"},
            ],
            "Projection": {"ProjectionType": "ALL"},
        }
    ],
    "BillingMode": "PAY_PER_REQUEST",
}


# -- targets --------------------------------------------------------------------------------------------------


class Target:
    """One system under test: ``op(name)`` gives a callable taking one boto3-shaped request."""

    name = ""

    def load(self, dataset: Dataset) -> None:
        put = self.op("put")
        for item in dataset.items:
            put({"TableName": TABLE, "Item": item})

    def op(self, name: str) -> Callable[[dict], Any]:
        raise NotImplementedError

    def check(self, dataset: Dataset) -> None:
        """The workload means the same thing on every target: sizes of the answers."""
        rng = random.Random(1)
        got = self.op("get")(dataset.requests("get", 1, rng)[0])
        assert got.get("Item") is not None, f"{self.name}: get found nothing"
        q = self.op("query25")(dataset.requests("query25", 1, rng)[0])
        assert len(q["Items"]) == 25, f"{self.name}: query returned {len(q['Items'])} items"
        g = self.op("gsi_query")(dataset.requests("gsi_query", 1, rng)[0])
        assert len(g["Items"]) == ITEMS_PER_GSI_PARTITION, (
            f"{self.name}: GSI query returned {len(g['Items'])}"
        )
        req = dataset.requests("update", 1, rng)[0]
        before = int(self.op("get")({"TableName": TABLE, "Key": req["Key"]})["Item"]["c"]["N"])
        self.op("update")(req)
        after = int(self.op("get")({"TableName": TABLE, "Key": req["Key"]})["Item"]["c"]["N"])
        assert after == before + 1, f"{self.name}: update did not add 1 ({before} -> {after})"

    def close(self) -> None:
        pass


class ClientTarget(Target):
    """A boto3-style low-level client (dynabase's embedded client or boto3 under moto)."""

    def __init__(self, name: str, client: Any, closer: Callable[[], None] | None = None) -> None:
        self.name = name
        self.client = client
        self._closer = closer
        client.create_table(**CREATE_TABLE)
        self._ops = {
            "put": client.put_item,
            "get": client.get_item,
            "query25": client.query,
            "gsi_query": client.query,
            "update": client.update_item,
        }

    def op(self, name: str) -> Callable[[dict], Any]:
        method = self._ops[name]
        return lambda req: method(**req)

    def close(self) -> None:
        if self._closer is not None:
            self._closer()


class SqliteFloor(Target):
    """The same storage work on plain sqlite3, without DynamoDB semantics (an honest lower bound on cost).

    Same durability as the engine (WAL, synchronous=NORMAL, one transaction per write), the same item dicts
    JSON-encoded on write and decoded on read, a GSI table kept in step with the items. The engine's item
    layout and its storage functions (:mod:`dynabase.engine.storage`): keys, items and parts tables behind a
    view, bodies without the key attributes (put back on read), partitions found by a hash of the key.
    """

    name = "sqlite-floor"

    def __init__(self, path: str) -> None:
        self.conn = sqlite3.connect(
            path, isolation_level=None, check_same_thread=False, cached_statements=512
        )
        self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.execute("PRAGMA synchronous = NORMAL")
        self.conn.execute("PRAGMA recursive_triggers = ON")
        create_item_table(self.conn, "items")
        self._part = part_size(self.conn.execute("PRAGMA page_size").fetchone()[0])
        self._item = item_sql("items")
        self.conn.execute(
            "CREATE TABLE gsi (gpk BLOB NOT NULL, gsk BLOB NOT NULL, h INTEGER NOT NULL, pk BLOB NOT NULL, "
            "sk BLOB NOT NULL, PRIMARY KEY (gpk, gsk, pk, sk)) WITHOUT ROWID"
        )

    def op(self, name: str) -> Callable[[dict], Any]:
        return getattr(self, "_" + name)

    def _read(self, key: tuple[int, bytes, bytes]) -> dict | None:
        row = self.conn.execute(
            f"SELECT {self._item}, bin FROM items WHERE h = ? AND pk = ? AND sk = ?", key
        ).fetchone()
        return FLOOR_LOAD(row[0], row[1], key[1], key[2]) if row is not None else None

    def _put(self, req: dict) -> dict:
        item = req["Item"]
        pk, sk = item["pk"]["S"].encode(), item["sk"]["S"].encode()
        key = (zlib.crc32(pk), pk, sk)
        gkey = (
            (item["gpk"]["S"].encode(), item["gsk"]["S"].encode())
            if "gpk" in item and "gsk" in item
            else None
        )
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            # The old item's GSI key is needed to keep the GSI table right on an overwrite.
            old = self._read(key)
            old_gkey = None
            if old is not None and "gpk" in old and "gsk" in old:
                old_gkey = (old["gpk"]["S"].encode(), old["gsk"]["S"].encode())
            store = insert_row if old is None else rewrite_row
            text, form = dump_body(body_of(item, FLOOR_KEYS))
            store(conn, "items", key, text, 0, form, self._part)
            if old_gkey != gkey:
                if old_gkey is not None:
                    conn.execute(
                        "DELETE FROM gsi WHERE gpk = ? AND gsk = ? AND pk = ? AND sk = ?", (*old_gkey, pk, sk)
                    )
                if gkey is not None:
                    conn.execute(
                        "INSERT INTO gsi (gpk, gsk, h, pk, sk) VALUES (?, ?, ?, ?, ?)", (*gkey, *key)
                    )
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return {}

    def _get(self, req: dict) -> dict:
        key = req["Key"]
        pk, sk = key["pk"]["S"].encode(), key["sk"]["S"].encode()
        item = self._read((zlib.crc32(pk), pk, sk))
        return {"Item": item} if item is not None else {}

    def _query25(self, req: dict) -> dict:
        pk = req["ExpressionAttributeValues"][":p"]["S"].encode()
        rows = self.conn.execute(
            f"SELECT {self._item}, bin, pk, sk FROM items WHERE h = ? AND pk = ? ORDER BY sk LIMIT ?",
            (zlib.crc32(pk), pk, req.get("Limit", -1)),
        ).fetchall()
        items = [FLOOR_LOAD(text, form, pk, sk) for text, form, pk, sk in rows]
        return {"Items": items, "Count": len(items)}

    def _gsi_query(self, req: dict) -> dict:
        gpk = req["ExpressionAttributeValues"][":g"]["S"].encode()
        rows = self.conn.execute(
            f"SELECT {item_sql('items', 't')}, t.bin, t.pk, t.sk FROM gsi g JOIN items t "
            "ON t.h = g.h AND t.pk = g.pk AND t.sk = g.sk WHERE g.gpk = ? ORDER BY g.gsk, g.pk, g.sk",
            (gpk,),
        ).fetchall()
        items = [FLOOR_LOAD(text, form, pk, sk) for text, form, pk, sk in rows]
        return {"Items": items, "Count": len(items)}

    def _update(self, req: dict) -> dict:
        key = req["Key"]
        pk, sk = key["pk"]["S"].encode(), key["sk"]["S"].encode()
        row_key = (zlib.crc32(pk), pk, sk)
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            item = self._read(row_key)
            if item is None:  # the condition attribute_exists(pk) fails
                raise KeyError("condition failed")
            item["c"] = {"N": str(int(item["c"]["N"]) + 1)}
            text, form = dump_body(body_of(item, FLOOR_KEYS))
            rewrite_row(conn, "items", row_key, text, 0, form, self._part)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return {}

    def close(self) -> None:
        self.conn.close()


def make_target(name: str, tmp: str) -> Target:
    if name == "dynabase":
        import dynabase

        client = dynabase.connect(os.path.join(tmp, "dynabase.db"))
        return ClientTarget(name, client, client.close)
    if name == "dynabase-mem":
        import dynabase

        client = dynabase.connect(":memory:")
        return ClientTarget(name, client, client.close)
    if name == "moto":
        import boto3
        from moto import mock_aws

        for var, value in (
            ("AWS_ACCESS_KEY_ID", "testing"),
            ("AWS_SECRET_ACCESS_KEY", "testing"),
            ("AWS_SESSION_TOKEN", "testing"),
            ("AWS_DEFAULT_REGION", "us-east-1"),
        ):
            os.environ.setdefault(var, value)
        mock = mock_aws()
        mock.start()
        client = boto3.client("dynamodb", region_name="us-east-1")
        return ClientTarget(name, client, mock.stop)
    if name == "sqlite-floor":
        return SqliteFloor(os.path.join(tmp, "floor.db"))
    raise ValueError(f"unknown target {name!r}")


# -- measuring ------------------------------------------------------------------------------------------------


def run_batch(fn: Callable[[dict], Any], reqs: list[dict]) -> float:
    start = time.perf_counter()
    for req in reqs:
        fn(req)
    return time.perf_counter() - start


def run_timed(fn: Callable[[dict], Any], reqs: list[dict]) -> tuple[float, float]:
    """Wall-clock seconds (perf_counter) and this process's CPU seconds (user + system) for the calls."""
    cpu0, start = time.process_time(), time.perf_counter()
    for req in reqs:
        fn(req)
    return time.perf_counter() - start, time.process_time() - cpu0


class Meter:
    def __init__(self, dataset: Dataset, warmup_s: float, repeat_s: float, min_n: int, max_n: int) -> None:
        self.dataset = dataset
        self.warmup_s = warmup_s
        self.repeat_s = repeat_s
        self.min_n = min_n
        self.max_n = max_n
        self.put_offset = 0

    def _requests(self, op: str, count: int, rng: random.Random) -> list[dict]:
        reqs = self.dataset.requests(op, count, rng, self.put_offset)
        if op == "put":
            self.put_offset += count
        return reqs

    def calibrate(self, target: Target, op: str, rng: random.Random) -> int:
        """Warm up (doubling batches until warmup_s has passed); the rate sizes a repeat to ~repeat_s."""
        fn = target.op(op)
        batch, spent, done = 10, 0.0, 0
        while spent < self.warmup_s:
            spent += run_batch(fn, self._requests(op, batch, rng))
            done += batch
            batch = min(batch * 2, 4096)
        return int(min(self.max_n, max(self.min_n, done / spent * self.repeat_s)))

    def repeat(self, target: Target, op: str, n: int, rng: random.Random) -> tuple[float, float]:
        """One timed repeat of ``n`` calls: ops per wall-clock second, and per CPU second of this process."""
        reqs = self._requests(op, n, rng)
        gc.collect()
        wall, cpu = run_timed(target.op(op), reqs)
        return n / wall, n / max(cpu, 1e-9)


# -- profile --------------------------------------------------------------------------------------------------


def profile(target: Target, meter: Meter, ops: tuple[str, ...], n: int, top: int = 25) -> str:
    out = io.StringIO()
    rng = random.Random(7)
    for op in ops:
        fn = target.op(op)
        reqs = meter._requests(op, n, rng)
        run_batch(fn, meter._requests(op, min(n, 500), rng))  # warm
        prof = cProfile.Profile()
        prof.enable()
        run_batch(fn, reqs)
        prof.disable()
        out.write(f"\n=== cProfile: {target.name} {OP_LABELS[op]} x {n}, top {top} by cumulative time ===\n")
        stats = pstats.Stats(prof, stream=out)
        stats.strip_dirs().sort_stats("cumulative").print_stats(top)
        out.write(f"--- the same, top {top // 2} by own time (tottime) ---\n")
        stats.sort_stats("tottime").print_stats(top // 2)
    return out.getvalue()


# -- report ---------------------------------------------------------------------------------------------------


def fmt_rate(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:,.0f}"


def fmt_ratio(value: float | None, goal: float) -> str:
    if value is None:
        return "-"
    return f"{value:.2f}x {'meets' if value >= goal else 'MISSES'}"


def render(rows: list[list[str]]) -> str:
    """Rows of cells as aligned text: the first column left-aligned, the others right-aligned."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for n, row in enumerate(rows):
        cells = [
            c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def table(results: dict[str, dict[str, float]], targets: list[str]) -> str:
    rows = [
        [
            "ops/s",
            *targets,
            f"dynabase/moto (goal >= {GOAL_MOTO:g}x)",
            f"dynabase/floor (goal >= {GOAL_FLOOR:g}x)",
        ]
    ]
    for op in OPS:
        if op not in results:
            continue
        r = results[op]
        db = r.get("dynabase")
        moto_ratio = db / r["moto"] if db and r.get("moto") else None
        floor_ratio = db / r["sqlite-floor"] if db and r.get("sqlite-floor") else None
        rows.append(
            [OP_LABELS[op]]
            + [fmt_rate(r.get(t)) for t in targets]
            + [fmt_ratio(moto_ratio, GOAL_MOTO), fmt_ratio(floor_ratio, GOAL_FLOOR)]
        )
    return render(rows)


def load_average() -> float | None:
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def versions() -> str:
    from importlib import metadata

    out = []
    for dist in ("moto", "boto3", "botocore"):
        try:
            out.append(f"{dist} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            out.append(f"{dist} -")
    return ", ".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller data set and shorter repeats")
    parser.add_argument("--json", metavar="FILE", help="write the figures as JSON")
    parser.add_argument(
        "--targets", default=",".join(TARGETS), help=f"comma-separated subset of {','.join(TARGETS)}"
    )
    parser.add_argument("--ops", default=",".join(OPS), help=f"comma-separated subset of {','.join(OPS)}")
    parser.add_argument(
        "--partitions", type=int, help="table partitions of 30 items to preload (default 200)"
    )
    parser.add_argument("--profile", action="store_true", help="also cProfile dynabase's put and query paths")
    parser.add_argument(
        "--profile-ops", default="put,query25", help="operations --profile covers (default put,query25)"
    )
    args = parser.parse_args(argv)

    targets = [t for t in args.targets.split(",") if t]
    ops = tuple(o for o in args.ops.split(",") if o)
    for name in targets:
        if name not in TARGETS:
            parser.error(f"unknown target {name}")
    for op in ops:
        if op not in OPS:
            parser.error(f"unknown op {op}")
    partitions = args.partitions or (50 if args.quick else 200)
    dataset = Dataset(partitions)
    if args.quick:
        meter = Meter(dataset, warmup_s=0.1, repeat_s=0.25, min_n=30, max_n=20000)
    else:
        meter = Meter(dataset, warmup_s=0.3, repeat_s=1.0, min_n=100, max_n=100000)

    sizes = [dynamo_size(i) for i in dataset.items]
    json_size = len(json.dumps(dataset.items[0], separators=(",", ":")))
    print(
        f"engine_bench: {len(dataset.items):,} items preloaded ({partitions} partitions x {ITEMS_PER_PARTITION}, "
        f"{dataset.gsi_partitions} GSI partitions x {ITEMS_PER_GSI_PARTITION}); item size "
        f"{min(sizes)}-{max(sizes)} B (DynamoDB size), compact JSON {json_size} B"
    )
    print(
        f"python {platform.python_version()}, sqlite {sqlite3.sqlite_version}, {platform.machine()}, "
        f"{os.cpu_count()} cpus, {versions()}; median of {REPEATS} repeats of ~{meter.repeat_s:g}s each"
    )
    load_start = load_average()
    results: dict[str, dict[str, float]] = {op: {} for op in ops}
    results_cpu: dict[str, dict[str, float]] = {op: {} for op in ops}
    details: dict[str, dict[str, Any]] = {op: {} for op in ops}
    errors: dict[str, str] = {}
    profile_text = ""
    live: dict[str, Target] = {}

    def drop(name: str, exc: BaseException, what: str) -> None:
        errors[name] = f"{type(exc).__name__}: {exc}"
        print(f"  {name}: {what} ({errors[name]})", flush=True)
        for op in ops:
            results[op].pop(name, None)
            results_cpu[op].pop(name, None)
            details[op].pop(name, None)
        target = live.pop(name, None)
        if target is not None:
            with contextlib.suppress(Exception):
                target.close()

    with tempfile.TemporaryDirectory(prefix="dynabase-bench-") as tmp:
        try:
            for name in targets:
                try:
                    live[name] = target = make_target(name, tmp)
                except Exception as exc:  # e.g. a package not installed, or the engine not importable yet
                    drop(name, exc, "unavailable")
                    continue
                try:
                    t0 = time.perf_counter()
                    target.load(dataset)
                    load_s = time.perf_counter() - t0
                    target.check(dataset)
                except Exception as exc:
                    drop(name, exc, "failed")
                    continue
                rate = len(dataset.items) / load_s
                print(f"  {name}: loaded in {load_s:.1f}s ({rate:,.0f} puts/s), answers checked", flush=True)

            # Repeats are interleaved across targets (repeat 1 of each target, then repeat 2, ...), so that a
            # slow spell of the machine lands on every target rather than on one. Puts run last: they grow the
            # table (and moto's GSI query walks every item of it).
            for op in sorted(ops, key=lambda o: o == "put"):
                rngs = {name: random.Random(zlib.crc32(f"{name}/{op}".encode())) for name in live}
                sizes: dict[str, int] = {}
                rates: dict[str, list[tuple[float, float]]] = {}
                for name in list(live):
                    try:
                        sizes[name] = meter.calibrate(live[name], op, rngs[name])
                        rates[name] = []
                    except Exception as exc:
                        drop(name, exc, f"failed in {op}")
                for _ in range(REPEATS):
                    for name in list(rates):
                        if name not in live:
                            continue
                        try:
                            rates[name].append(meter.repeat(live[name], op, sizes[name], rngs[name]))
                        except Exception as exc:
                            drop(name, exc, f"failed in {op}")
                parts = []
                for name, pairs in rates.items():
                    if name not in live:
                        continue
                    reps = [wall for wall, _ in pairs]
                    cpu_reps = [cpu for _, cpu in pairs]
                    median = statistics.median(reps)
                    results[op][name] = median
                    results_cpu[op][name] = statistics.median(cpu_reps)
                    details[op][name] = {
                        "ops_per_s": median,
                        "repeats": reps,
                        "ops_per_cpu_s": results_cpu[op][name],
                        "cpu_repeats": cpu_reps,
                        "n": sizes[name],
                    }
                    spread = (max(reps) - min(reps)) / median * 100
                    parts.append(f"{name} {median:,.0f} (n={sizes[name]}, spread {spread:.0f}%)")
                print(f"    {OP_LABELS[op]:<19} " + "; ".join(parts), flush=True)

            if args.profile and "dynabase" in live:
                profile_ops = tuple(o for o in args.profile_ops.split(",") if o in OPS)
                profile_text = profile(live["dynabase"], meter, profile_ops, 2000 if args.quick else 10000)
        finally:
            for name in list(live):
                with contextlib.suppress(Exception):
                    live.pop(name).close()

    print()
    print("Wall-clock throughput (time.perf_counter), median of the repeats:")
    print(table(results, targets))
    print()
    print("The same calls per CPU-second of this process (time.process_time; less sensitive to other load):")
    print(table(results_cpu, targets))
    load_end = load_average()
    if load_end is not None and max(load_start or 0, load_end) > (os.cpu_count() or 1):
        print(
            f"\nwarning: the machine was busy (load average {load_start:.1f} at the start, {load_end:.1f} at the "
            f"end, {os.cpu_count()} cpus): wall-clock figures are noisy; the repeats were interleaved across targets."
        )
    if errors:
        print()
        for name, error in errors.items():
            print(f"note: {name} not measured: {error}")
    if profile_text:
        print(profile_text)

    if args.json:

        def ratios_of(figures: dict[str, dict[str, float]]) -> dict[str, dict[str, float | None]]:
            out = {}
            for op in ops:
                r = figures[op]
                db = r.get("dynabase")
                out[op] = {
                    "dynabase/moto": db / r["moto"] if db and r.get("moto") else None,
                    "dynabase/sqlite-floor": db / r["sqlite-floor"] if db and r.get("sqlite-floor") else None,
                }
            return out

        ratios = ratios_of(results)
        payload = {
            "benchmark": "engine_bench",
            "quick": args.quick,
            "items": len(dataset.items),
            "python": platform.python_version(),
            "sqlite": sqlite3.sqlite_version,
            "goals": {"dynabase/moto": GOAL_MOTO, "dynabase/sqlite-floor": GOAL_FLOOR},
            "ops_per_s": results,
            "ops_per_cpu_s": results_cpu,
            "load_average": [load_start, load_end],
            "ratios": ratios,
            "ratios_cpu": ratios_of(results_cpu),
            "meets": {
                op: {
                    "dynabase/moto": None if v["dynabase/moto"] is None else v["dynabase/moto"] >= GOAL_MOTO,
                    "dynabase/sqlite-floor": None
                    if v["dynabase/sqlite-floor"] is None
                    else v["dynabase/sqlite-floor"] >= GOAL_FLOOR,
                }
                for op, v in ratios.items()
            },
            "details": details,
            "errors": errors,
        }
        Path(args.json).write_text(json.dumps(payload, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
