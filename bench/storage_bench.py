"""Bytes on disk per byte of DynamoDB item, for dynabase and for DynamoDB Local, at several item sizes.

For each item size (DynamoDB's size, :func:`dynabase.types.item_size`) the same items -- a partition key, a sort
key, three short attributes and a text body of words -- are written with BatchWriteItem into a fresh database:

* ``dynabase``        -- ``dynabase.connect(<file>)``; the figure is the file after a WAL checkpoint.
* ``dynamodb-local``  -- DynamoDB Local (the test harness's pinned jar) started with ``-dbPath <dir>`` (file mode),
  one process per size; the figure is the directory's files after the process stopped.

``--layouts`` adds the raw SQLite comparison behind dynabase's layout choice: the same rows stored in the old
WITHOUT ROWID item table, in a rowid table with a unique key index (dynabase's layout), and in a WITHOUT ROWID
key table beside a rowid body table, at page sizes 4096/8192/16384, and with zlib (level 1) on the JSON; with
the time zlib costs per item.

Goals (issue 12): <= 1.5x the DynamoDB item size for items of 1 KB to 400 KB, <= 2x for 100 B items.

    python bench/storage_bench.py [--sizes 100,1000,1100,4000,100000] [--bytes N] [--no-local] [--layouts]
"""

from __future__ import annotations

import argparse
import os
import random
import sqlite3
import sys
import tempfile
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))  # measure the working tree
sys.path.insert(0, str(ROOT))  # tests.backends: DynamoDB Local's installer and process handling

from dynabase.engine.storage import (  # noqa: E402
    WITHOUT_ROWID_ITEM_TABLE,
    create_item_table,
    dump_item,
    load_item,
    partition_hash,
)
from dynabase.types import encode_key, item_size  # noqa: E402
from engine_bench import render  # noqa: E402

SIZES = (100, 1000, 1100, 4000, 100_000)
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


def make_item(n: int, size: int) -> dict:
    """Item ``n`` of DynamoDB size ``size`` (exactly, for sizes above the fixed attributes' ~60 bytes)."""
    rng = random.Random(n)
    item = {
        "pk": {"S": f"user#{n // 10:07d}"},
        "sk": {"S": f"order#{n % 10:05d}"},
        "status": {"S": "shipped"},
        "total": {"N": str(n * 7 % 10000)},
        "n": {"N": str(n)},
    }
    room = max(1, size - item_size(item) - len("body"))
    words: list[str] = []
    length = 0
    while length < room:
        words.append(rng.choice(_VOCABULARY))
        length += len(words[-1]) + 1
    item["body"] = {"S": " ".join(words)[:room]}
    return item


def dataset(size: int, total_bytes: int) -> list[dict]:
    return [make_item(n, size) for n in range(max(20, total_bytes // size))]


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

LAYOUTS = {  # name -> (conn, table name) -> None: create the item table
    "old WITHOUT ROWID": lambda conn, name: conn.execute(WITHOUT_ROWID_ITEM_TABLE.format(name=name)),
    "rowid + key index": create_item_table,  # the engine's own
    "key table + body": lambda conn, name: (
        conn.execute(
            "CREATE TABLE k (h INTEGER NOT NULL, pk BLOB NOT NULL, sk BLOB NOT NULL, id INTEGER NOT NULL, "
            "PRIMARY KEY (h, pk, sk)) WITHOUT ROWID"
        ),
        conn.execute(
            f"CREATE TABLE {name} (id INTEGER PRIMARY KEY, item TEXT NOT NULL, size INTEGER NOT NULL, "
            "bin INTEGER NOT NULL)"
        ),
    ),
}


def layout_bytes(layout: str, page_size: int, items: list[dict], tmp: str, compress: bool = False) -> int:
    path = os.path.join(tmp, f"layout-{page_size}.db")
    for suffix in ("", "-wal", "-shm"):
        Path(path + suffix).unlink(missing_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA page_size = {page_size}")
    conn.execute("PRAGMA journal_mode = WAL")
    LAYOUTS[layout](conn, "t")
    conn.execute("BEGIN")
    for n, item in enumerate(items):
        pk, sk = encode_key(item["pk"]), encode_key(item["sk"])
        text, binary = dump_item(item)
        body: str | bytes = zlib.compress(text.encode(), 1) if compress else text
        if layout == "key table + body":
            rowid = conn.execute(
                "INSERT INTO t (item, size, bin) VALUES (?, ?, ?)", (body, 0, binary)
            ).lastrowid
            conn.execute("INSERT INTO k VALUES (?, ?, ?, ?)", (partition_hash(pk), pk, sk, rowid))
        else:
            conn.execute(
                "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)",
                (partition_hash(pk), pk, sk, body, item_size(item), binary),
            )
        if n % 500 == 499:  # transactions of the size a busy writer commits
            conn.execute("COMMIT")
            conn.execute("BEGIN")
    conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return os.path.getsize(path)


def zlib_cost(items: list[dict]) -> tuple[float, float, float]:
    """(compressed/plain bytes, microseconds to compress, to decompress and decode) per item, zlib level 1.

    Each time is the best of 5 rounds, so that other work on the machine inflates it less."""
    texts = [dump_item(item)[0].encode() for item in items[:500]]
    packed = [zlib.compress(text, 1) for text in texts]

    def best(work) -> float:
        rounds = []
        for _ in range(5):
            start = time.perf_counter()
            work()
            rounds.append(time.perf_counter() - start)
        return min(rounds) / len(texts) * 1e6

    squeeze = best(lambda: [zlib.compress(text, 1) for text in texts])
    unpack = best(lambda: [load_item(zlib.decompress(blob).decode(), 0) for blob in packed])
    plain = best(lambda: [load_item(text.decode(), 0) for text in texts])
    ratio = sum(map(len, packed)) / sum(map(len, texts))
    return ratio, squeeze, unpack - plain


# -- report --------------------------------------------------------------------------------------------------


def verdict(size: int, ratio: float) -> str:
    goal = 2.0 if size < 1000 else 1.5
    return f"{ratio:.2f}x {'meets' if ratio <= goal else 'MISSES'} (<= {goal:g}x)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="DynamoDB item sizes in bytes")
    parser.add_argument("--bytes", type=int, default=2_000_000, help="DynamoDB bytes of items per size")
    parser.add_argument("--no-local", action="store_true", help="leave DynamoDB Local out")
    parser.add_argument("--layouts", action="store_true", help="also compare raw SQLite layouts and zlib")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    print(f"storage_bench: ~{args.bytes:,} DynamoDB bytes of items per size; sqlite {sqlite3.sqlite_version}")

    local = None
    if not args.no_local:
        try:
            local = LocalOnDisk()
        except Exception as error:  # no Java or npm: the dynabase figures still stand
            print(f"note: DynamoDB Local not measured: {error}")
    rows = [["item size", "items", "JSON/DDB", "dynabase bytes", "dynabase/DDB", "Local bytes", "Local/DDB"]]
    for size in sizes:
        items = dataset(size, args.bytes)
        ddb = sum(map(item_size, items))
        json_ratio = sum(len(dump_item(i)[0].encode()) for i in items) / ddb
        with tempfile.TemporaryDirectory(prefix="dynabase-storage-") as tmp:
            ours = dynabase_bytes(items, tmp)
        row = [f"{size:,} B", f"{len(items):,}", f"{json_ratio:.2f}x", f"{ours:,}", verdict(size, ours / ddb)]
        if local is not None:
            with tempfile.TemporaryDirectory(prefix="dynamodb-local-db-") as tmp:
                theirs = local.bytes_for(items, tmp)
            row += [f"{theirs:,}", f"{theirs / ddb:.2f}x"]
        else:
            row += ["-", "-"]
        rows.append(row)
        print("  " + "  ".join(row), flush=True)
    print()
    print(render(rows))

    if args.layouts:
        print("\nRaw SQLite layouts: bytes on disk / DynamoDB bytes (same items, WAL checkpointed)")
        head = ["item size", "page"] + list(LAYOUTS) + ["rowid + zlib"]
        table = [head]
        for size in sizes:
            items = dataset(size, args.bytes)
            ddb = sum(map(item_size, items))
            with tempfile.TemporaryDirectory(prefix="dynabase-layouts-") as tmp:
                for page in (4096, 8192, 16384):
                    cells = [f"{layout_bytes(name, page, items, tmp) / ddb:.2f}x" for name in LAYOUTS]
                    zipped = layout_bytes("rowid + key index", page, items, tmp, compress=True)
                    table.append([f"{size:,} B", str(page), *cells, f"{zipped / ddb:.2f}x"])
        print(render(table))
        print(
            "\nzlib level 1 on the stored JSON, per item: compressed/plain, us to compress, us added to a read"
        )
        for size in sizes:
            ratio, squeeze, unpack = zlib_cost(dataset(size, args.bytes))
            print(f"  {size:>7,} B: {ratio:.2f}, {squeeze:.1f} us, +{unpack:.1f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
