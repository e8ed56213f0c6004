#!/usr/bin/env python
"""The server's own CPU per request on ``bench/server_bench.py``'s operations, without sockets or a client.

The requests boto3 sends for each operation of server_bench's workload are recorded once (through a server on a
database file in this process), then fed again and again to what ``dynabase serve`` does with a request once
it has arrived: parse its head (``httpd._parse_head``), answer it (``DynamoDBApp.handle``: Host check,
JSON, shapes, the engine, JSON back) and build the answer's head. The figure is CPU microseconds per request
(``time.process_time``, the best of ``--repeats``), which other load on the machine moves much less than
wall-clock rates; it leaves out what the operating system does (reads, writes, waking the thread).

Run from the repository::

    python bench/response_path.py                    # every operation
    python bench/response_path.py --ops GetItem,Scan --profile   # with cProfile's top functions
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import server_bench  # noqa: E402


def record(url: str) -> dict[str, tuple[bytes, bytes]]:
    """The head and body boto3 sends for each operation of the workload (by X-Amz-Target's operation)."""
    workload = server_bench.prepare(url, True)
    sent: dict[str, tuple[bytes, bytes]] = {}

    def keep(request: Any, **_: Any) -> None:
        headers = {k: v.decode() if isinstance(v, bytes) else v for k, v in request.headers.items()}
        body = request.body if isinstance(request.body, bytes) else request.body.encode()
        lines = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        head = f"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n{lines}Content-Length: {len(body)}".encode()
        sent[headers["X-Amz-Target"].rpartition(".")[2]] = (head, body)

    workload.client.meta.events.register("before-send.dynamodb", keep)
    for name, call in workload.items():
        if name != "gsi query":  # its target is Query's: the key-condition query is the one kept
            call()
    return sent


def main() -> int:
    from dynabase.server import httpd
    from dynabase.server.runner import Server

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ops", help="operations (X-Amz-Target names), comma separated; default: all")
    parser.add_argument("--calls", type=int, default=1000, help="requests per repeat (default 1000)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--profile", action="store_true", help="also cProfile each operation (top 20)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        server = Server(db=os.path.join(folder, "path.db")).start()
        try:
            sent = record(server.url)
            app, http = server.app, server.http
            for op in args.ops.split(",") if args.ops else list(sent):
                head, body = sent[op]

                def once(head: bytes = head, body: bytes = body) -> None:
                    method, target, _, headers = httpd._parse_head(head)
                    answer = app.handle(method, target, headers, body, "bench")
                    http._head(
                        answer.status, answer.body, answer.request_id, answer.content_type, None, False
                    )

                calls = args.calls // 5 if op in ("BatchWriteItem", "Scan") else args.calls
                for _ in range(calls // 5):
                    once()
                best = float("inf")
                for _ in range(args.repeats):
                    started = time.process_time()
                    for _ in range(calls):
                        once()
                    best = min(best, (time.process_time() - started) / calls)
                print(f"{op:<16} {best * 1e6:8.1f} us CPU per request", flush=True)
                if args.profile:
                    profile = cProfile.Profile()
                    profile.enable()
                    for _ in range(calls):
                        once()
                    profile.disable()
                    text = io.StringIO()
                    pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(20)
                    print(text.getvalue())
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
