"""What ``PRAGMA quick_check`` (and ``integrity_check``) costs on a dynabase file: is a check at every open
affordable as the default? Builds a file of about ``--mb`` megabytes of ~1 KB items (or uses ``--db``), then
times each check on a new connection, with the file in the page cache (the usual case on a developer machine)
and, with ``--cold`` (root; it drops the whole machine's page cache), cold.

    python bench/quick_check_bench.py [--mb 100] [--db FILE] [--cold]

Measured on the 2-CPU development machine (shared), 100 MB: quick_check warm 768 ms, cold 8.6 s;
integrity_check warm 906 ms, cold 8.9 s. Too slow for every open (``dynabase serve`` answers within 0.3 s of
starting), so a damaged file is reported by the request that meets the damage.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import tempfile
import time
from pathlib import Path


def build(path: Path, megabytes: int) -> None:
    import dynabase

    client = dynabase.connect(str(path), ttl_sweep_seconds=None)
    client.create_table(
        TableName="bench",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    body = "x" * 1000
    n = 0
    while path.stat().st_size < megabytes * 1024 * 1024:
        requests = [{"PutRequest": {"Item": {"pk": {"S": f"k{n + i}"}, "v": {"S": body}}}} for i in range(25)]
        client.batch_write_item(RequestItems={"bench": requests})
        n += 25
    client.close()


def timed(path: Path, pragma: str) -> float:
    conn = sqlite3.connect(path)
    try:
        start = time.perf_counter()
        result = conn.execute(f"PRAGMA {pragma}").fetchall()
        elapsed = time.perf_counter() - start
    finally:
        conn.close()
    assert result == [("ok",)], result
    return elapsed


def drop_caches() -> bool:
    try:
        os.sync()
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
        return True
    except OSError:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--db")
    parser.add_argument(
        "--cold", action="store_true", help="also time after dropping the OS page cache (root)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(args.db) if args.db else Path(scratch) / "bench.db"
        if not args.db:
            build(path, args.mb)
        size = path.stat().st_size / 1024 / 1024
        for pragma in ("quick_check", "integrity_check"):
            timed(path, pragma)  # in the page cache
            warm = min(timed(path, pragma) for _ in range(3))
            cold = timed(path, pragma) if args.cold and drop_caches() else None
            cold_text = f", cold {cold * 1000:.0f} ms" if cold is not None else ""
            print(f"{pragma} on {size:.0f} MB: warm {warm * 1000:.0f} ms{cold_text}")


if __name__ == "__main__":
    main()
