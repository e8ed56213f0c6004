"""Bytes on disk per byte of DynamoDB item, for dynabase and for DynamoDB Local, at several item sizes.

For each item size (DynamoDB's size, :func:`dynabase.types.item_size`) and item shape the same items are written
with BatchWriteItem into a fresh database. The shapes (both: a partition key ``user#<7 digits>``, a sort key
``order#<5 digits>``, a status, a total and a counter, then attributes filling the item to its size):

* ``text``  -- one text body of random words (compresses to ~0.45-0.7 with zlib).
* ``mixed`` -- a uuid, an ISO timestamp, a nested address map, a list of 3 numbers, then the rest split
  between random bytes (a B attribute: incompressible, and 4/3 as long in the stored JSON's base64) and
  words; an image thumbnail or signature next to text.

The sizes sweep 100 B to 400 KB, with every 256 B from 1.5 to 5 KB (where rows cross half and whole pages).

* ``dynabase``        -- ``dynabase.connect(<file>)``; the figure is the file after a WAL checkpoint.
* ``dynamodb-local``  -- DynamoDB Local (the test harness's pinned jar) started with ``-dbPath <dir>`` (file mode),
  one process per size; the figure is the directory's files after the process stopped.

``--layouts`` adds the raw SQLite comparison behind dynabase's layout choice, on the text items: the first item
table (WITHOUT ROWID), the second (a rowid table with a unique key index on ``(h, pk, sk)``) and the engine's
(a WITHOUT ROWID keys table, a rowid items table of bodies without the keys, short ones shortened, quarter-page
parts), each at page sizes 1024/4096/8192, and the engine's with zlib (level 1) on the body; with CPU
microseconds per write and per read by key (decoding included) on 4 KB pages.

Goals (issue 12): <= 1.5x the DynamoDB item size for items of 1 KB to 400 KB, <= 2x for 100 B items. The
report ends with the worst ratio in 1 KB-400 KB per shape, for dynabase and for DynamoDB Local.

    python bench/storage_bench.py [--sizes 100,1000,...] [--shapes text,mixed] [--bytes N] [--no-local]
                                  [--layouts] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))  # measure the working tree
sys.path.insert(0, str(ROOT))  # tests.backends: DynamoDB Local's installer and process handling

from dynabase.engine.storage import (  # noqa: E402
    ROWID_ITEM_TABLE,
    WITHOUT_ROWID_ITEM_TABLE,
    body_of,
    create_item_table,
    dump_body,
    dump_item,
    insert_row,
    item_sql,
    load_item,
    part_size,
    partition_hash,
    row_loader,
)
from dynabase.types import encode_key, item_size  # noqa: E402
from engine_bench import render  # noqa: E402

SIZES = (100, 500, 1000, 1100) + tuple(range(1536, 5121, 256)) + (8000, 16_000, 100_000, 400_000)
SHAPES = ("text", "mixed")
KEYS = (("pk", "S", 0), ("sk", "S", 1))  # the items' keys, left out of the engine's bodies
LOAD = row_loader(KEYS)
TABLE = "sized"
CREATE = {
    "TableName": TABLE,
    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
    "AttributeDefinitions": [
        {"AttributeName": "pk", "AttributeType": "S"},
        {"AttributeName": "sk", "AttributeType": "S"},
    ],
    "BillingMode": "PAY_PER_REQUEST",
}
_VOCABULARY = [
    "".join(random.Random(i).choices("abcdefghijklmnopqrstuvwxyz", k=random.Random(-i).randint(2, 9)))
    for i in range(2000)
]


def _words(rng: random.Random, room: int) -> str:
    words: list[str] = []
    length = 0
    while length < room:
        words.append(rng.choice(_VOCABULARY))
        length += len(words[-1]) + 1
    return " ".join(words)[:room]


def make_item(n: int, size: int, shape: str = "text") -> dict:
    """Item ``n`` of DynamoDB size ``size`` (exactly, for sizes above the fixed attributes), of ``shape``."""
    rng = random.Random(n)
    item = {
        "pk": {"S": f"user#{n // 10:07d}"},
        "sk": {"S": f"order#{n % 10:05d}"},
        "status": {"S": "shipped"},
        "total": {"N": str(n * 7 % 10000)},
        "n": {"N": str(n)},
    }
    if shape == "mixed":  # the extras that leave room for a body (a 100 B item has only the short ones)
        extras = {
            "id": {"S": f"{rng.getrandbits(128):032x}"},
            "created": {"S": f"2026-{1 + n % 12:02d}-{1 + n % 28:02d}T{n % 24:02d}:{n % 60:02d}:07.123Z"},
            "address": {"M": {"city": {"S": rng.choice(_VOCABULARY)}, "zip": {"S": f"{n % 99999:05d}"}}},
            "scores": {"L": [{"N": str(rng.randint(0, 999))} for _ in range(3)]},
        }
        for name, value in extras.items():
            if item_size({**item, name: value}) <= size - 20:
                item[name] = value
        room = size - item_size(item) - len("blob") - len("body")
        if room > 8:
            item["blob"] = {"B": rng.randbytes(room // 2)}
    room = max(1, size - item_size(item) - len("body"))
    item["body"] = {"S": _words(rng, room)}
    return item


def dataset(size: int, total_bytes: int, shape: str = "text") -> list[dict]:
    return [make_item(n, size, shape) for n in range(max(20, total_bytes // size))]


def batches(items: list[dict], per: int = 25):
    for start in range(0, len(items), per):
        yield {TABLE: [{"PutRequest": {"Item": item}} for item in items[start : start + per]]}


def write_all(client, items: list[dict]) -> None:
    for request in batches(items):
        while request:
            request = client.batch_write_item(RequestItems=request).get("UnprocessedItems") or None


def files_bytes(directory: str) -> int:
    return sum(p.stat().st_size for p in Path(directory).iterdir() if p.is_file())


# -- targets -------------------------------------------------------------------------------------------------


def dynabase_bytes(items: list[dict], tmp: str) -> int:
    import dynabase

    path = os.path.join(tmp, "dynabase.db")
    client = dynabase.connect(path)
    client.create_table(**CREATE)
    write_all(client, items)
    client.close()
    with sqlite3.connect(path) as raw:
        raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return files_bytes(tmp)


class LocalOnDisk:
    """DynamoDB Local in file mode (``-dbPath``), started and stopped by PID through the test harness."""

    def __init__(self) -> None:
        from tests.backends import DynamoDBLocal, ensure_dynamodb_local

        self.jar_dir = ensure_dynamodb_local()
        self.process_class = DynamoDBLocal

    def bytes_for(self, items: list[dict], directory: str) -> int:
        from tests.backends import boto3_client

        class OnDisk(self.process_class):
            def command(self, port: int, help_text: str) -> list[str]:
                command = super().command(port, help_text)
                at = command.index("-inMemory")
                return command[:at] + ["-dbPath", directory] + command[at + 1 :]

        local = OnDisk(self.jar_dir)
        try:
            endpoint = local.start()
            client = boto3_client("dynamodb", endpoint, read_timeout=120)
            client.create_table(**CREATE)
            write_all(client, items)
        finally:
            local.close()
        return files_bytes(directory)


# -- raw layouts (--layouts) ---------------------------------------------------------------------------------


def _whole_rows(ddl: str) -> Callable[[Any, str], None]:
    def create(conn: Any, name: str) -> None:
        conn.execute(ddl.format(name=name))
        if "WITHOUT ROWID" not in ddl:
            conn.execute(f'CREATE UNIQUE INDEX "{name} key" ON {name} (h, pk, sk)')

    return create


LAYOUTS = {  # name -> (conn, table name) -> None: create the item table
    "WITHOUT ROWID": _whole_rows(WITHOUT_ROWID_ITEM_TABLE),  # the first layout
    "rowid + key index": _whole_rows(
        ROWID_ITEM_TABLE
    ),  # the second (keys in the row, the index and the body)
    "keys + items + parts": create_item_table,  # the engine's own
}
LAYOUT_SIZES = (100, 1000, 1100, 1536, 2048, 2304, 2560, 3072, 4096, 8000, 100_000)
PAGE_SIZES = (1024, 4096, 8192)


def layout_run(
    layout: str, page_size: int, items: list[dict], tmp: str, compress: bool = False
) -> tuple[int, float, float]:
    """(bytes on disk, CPU microseconds per write, per read by key with decoding) for ``items`` in ``layout``."""
    path = os.path.join(tmp, f"layout-{page_size}.db")
    for suffix in ("", "-wal", "-shm"):
        Path(path + suffix).unlink(missing_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA page_size = {page_size}")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA recursive_triggers = ON")
    LAYOUTS[layout](conn, "t")
    engine = layout == "keys + items + parts"
    chunk = part_size(page_size)
    keys = [(partition_hash(encode_key(i["pk"])), encode_key(i["pk"]), encode_key(i["sk"])) for i in items]
    start = time.process_time()  # CPU time: other work on the machine disturbs it less
    conn.execute("BEGIN")
    for n, (item, key) in enumerate(zip(items, keys, strict=True)):
        text, binary = dump_body(body_of(item, KEYS)) if engine else dump_item(item)
        body: str | bytes = zlib.compress(text.encode(), 1) if compress else text
        if engine:
            insert_row(conn, "t", key, body, item_size(item), binary, chunk)  # type: ignore[arg-type]
        else:
            conn.execute("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)", (*key, body, item_size(item), binary))
        if n % 500 == 499:  # transactions of the size a busy writer commits
            conn.execute("COMMIT")
            conn.execute("BEGIN")
    conn.execute("COMMIT")
    write_us = (time.process_time() - start) / len(items) * 1e6
    column = item_sql("t") if engine else "item"
    if compress:
        column = f"CAST({column} AS BLOB)"
    select = f"SELECT {column}, bin FROM t WHERE h = ? AND pk = ? AND sk = ?"
    order = random.Random(7).sample(keys, len(keys))
    start = time.process_time()
    for key in order:
        stored, binary = conn.execute(select, key).fetchone()
        text = zlib.decompress(stored).decode() if compress else stored
        LOAD(text, binary, key[1], key[2]) if engine else load_item(text, binary)
    read_us = (time.process_time() - start) / len(keys) * 1e6
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return os.path.getsize(path), write_us, read_us


# -- report --------------------------------------------------------------------------------------------------


def verdict(size: int, ratio: float) -> str:
    goal = 2.0 if size < 1000 else 1.5
    return f"{ratio:.2f}x {'meets' if ratio <= goal else 'MISSES'} (<= {goal:g}x)"


def sweep(sizes: list[int], shapes: list[str], total_bytes: int, local: LocalOnDisk | None) -> list[dict]:
    """Disk bytes of dynabase (and Local) for each shape and size, printed as they come."""
    results = []
    for shape in shapes:
        for size in sizes:
            items = dataset(size, total_bytes, shape)
            ddb = sum(map(item_size, items))
            json_bytes = sum(len(dump_item(i)[0].encode()) for i in items)
            with tempfile.TemporaryDirectory(prefix="dynabase-storage-") as tmp:
                ours = dynabase_bytes(items, tmp)
            theirs = None
            if local is not None:
                with tempfile.TemporaryDirectory(prefix="dynamodb-local-db-") as tmp:
                    theirs = local.bytes_for(items, tmp)
            result = {"shape": shape, "size": size, "items": len(items), "ddb": ddb, "json": json_bytes}
            result.update(dynabase=ours, local=theirs)
            results.append(result)
            print(
                f"  {shape} {size:,} B: dynabase {ours / ddb:.2f}x"
                + (f", Local {theirs / ddb:.2f}x" if theirs else ""),
                flush=True,
            )
    return results


def report(results: list[dict]) -> None:
    rows = [
        [
            "shape",
            "item size",
            "items",
            "JSON/DDB",
            "dynabase bytes",
            "dynabase/DDB",
            "Local bytes",
            "Local/DDB",
        ]
    ]
    for r in results:
        ddb = r["ddb"]
        rows.append(
            [
                r["shape"],
                f"{r['size']:,} B",
                f"{r['items']:,}",
                f"{r['json'] / ddb:.2f}x",
                f"{r['dynabase']:,}",
            ]
            + [verdict(r["size"], r["dynabase"] / ddb)]
            + ([f"{r['local']:,}", f"{r['local'] / ddb:.2f}x"] if r["local"] else ["-", "-"])
        )
    print()
    print(render(rows))
    print()
    for shape in dict.fromkeys(r["shape"] for r in results):
        band = [r for r in results if r["shape"] == shape and 1000 <= r["size"] <= 409_600]
        for target in ("dynabase", "local"):
            measured = [r for r in band if r[target]]
            if measured:
                worst = max(measured, key=lambda r: r[target] / r["ddb"])
                print(
                    f"worst in 1 KB-400 KB, {shape}, {target}: {worst[target] / worst['ddb']:.2f}x "
                    f"at {worst['size']:,} B"
                )


def layouts_report(sizes: list[int], total_bytes: int) -> None:
    print("\nRaw SQLite layouts (text items): bytes on disk / DynamoDB bytes, WAL checkpointed")
    names = [*LAYOUTS, "engine's + zlib"]
    table = [["item size", "page", *names]]
    timings = [["item size", *(f"{n} {what}" for n in names for what in ("write us", "read us"))]]
    for size in sizes:
        items = dataset(size, total_bytes)
        ddb = sum(map(item_size, items))
        with tempfile.TemporaryDirectory(prefix="dynabase-layouts-") as tmp:
            for page in PAGE_SIZES:
                runs = [layout_run(name, page, items, tmp) for name in LAYOUTS]
                runs.append(layout_run("keys + items + parts", page, items, tmp, compress=True))
                table.append([f"{size:,} B", str(page), *(f"{b / ddb:.2f}x" for b, _, _ in runs)])
                if page == 4096:
                    timings.append([f"{size:,} B", *(f"{t:.1f}" for _, w, r in runs for t in (w, r))])
    print(render(table))
    print(
        "\nCPU microseconds per item on 4 KB pages: write (JSON, zlib, insert; 500 a transaction), read by key + decode"
    )
    print(render(timings))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="DynamoDB item sizes in bytes")
    parser.add_argument("--shapes", default=",".join(SHAPES), help="item shapes: text, mixed")
    parser.add_argument("--bytes", type=int, default=2_000_000, help="DynamoDB bytes of items per size")
    parser.add_argument("--no-local", action="store_true", help="leave DynamoDB Local out")
    parser.add_argument("--layouts", action="store_true", help="also compare raw SQLite layouts and zlib")
    parser.add_argument("--layout-sizes", default=",".join(map(str, LAYOUT_SIZES)))
    parser.add_argument("--json", help="write the sweep's figures to this file")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    shapes = [s for s in args.shapes.split(",") if s]
    print(f"storage_bench: ~{args.bytes:,} DynamoDB bytes of items per size; sqlite {sqlite3.sqlite_version}")

    local = None
    if not args.no_local:
        try:
            local = LocalOnDisk()
        except Exception as error:  # no Java or npm: the dynabase figures still stand
            print(f"note: DynamoDB Local not measured: {error}")
    results = sweep(sizes, shapes, args.bytes, local)
    report(results)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    if args.layouts:
        layouts_report([int(s) for s in args.layout_sizes.split(",") if s], args.bytes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
