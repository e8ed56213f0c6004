"""Peak memory of ``dynabase import`` on a .jsonl.gz whose one line inflates to N MiB, between two good lines.

The line is far over the import's line limit (8 MiB), so it is rejected unread; the figure is the import
process's peak resident set (``ru_maxrss`` of the child), which should not grow with N.

    python bench/import_line_bench.py [--mib 2048] [--src DIR]   # --src: another checkout's src/ to compare
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def write_input(path: Path, mib: int) -> None:
    compressor = zlib.compressobj(6, zlib.DEFLATED, 31)  # a gzip container
    good = '{"Item":{"pk":{"S":"%s"}}}\n'
    with open(path, "wb") as out:
        out.write(compressor.compress((good % "a").encode() + b'{"Item":{"pk":{"S":"big"},"s":{"S":"'))
        chunk = b"x" * (1 << 20)
        for _ in range(mib):
            out.write(compressor.compress(chunk))
        out.write(compressor.compress(b'"}}}\n' + (good % "b").encode()))
        out.write(compressor.flush())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=2048, help="size of the long line, MiB (default 2048)")
    parser.add_argument("--src", default=str(ROOT / "src"), help="the dynabase source tree to run")
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": args.src}
    with tempfile.TemporaryDirectory() as directory:
        data, db = Path(directory) / "in.jsonl.gz", Path(directory) / "t.db"
        write_input(data, args.mib)
        sys.path.insert(0, args.src)
        import dynabase

        client = dynabase.connect(str(db), ttl_sweep_seconds=None)
        client.create_table(
            TableName="tab",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        client.close()
        started = time.monotonic()
        run = subprocess.run(
            [sys.executable, "-m", "dynabase", "import", str(data), "--table", "tab", "--db", str(db), "-q"],
            env=env,
            capture_output=True,
            text=True,
        )
        seconds = time.monotonic() - started
        peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        figures = {
            "line_mib": args.mib,
            "gzip_bytes": data.stat().st_size,
            "exit": run.returncode,
            "peak_rss_mib": round(peak_kib / 1024, 1),
            "seconds": round(seconds, 2),
        }
        print(json.dumps(figures))
        print(run.stdout.strip() or run.stderr.strip()[-300:])


if __name__ == "__main__":
    main()
