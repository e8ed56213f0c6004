#!/usr/bin/env python
"""Peak memory of ``dynabase serve`` while many connections send 16 MiB bodies at once (issue 23, item 3).

Run from the repository::

    python bench/memory_bench.py                      # 16 and 64 connections, both bodies (~1 min)
    python bench/memory_bench.py --connections 512    # the --max-connections default (heavy: ~8 GiB sent)
    python bench/memory_bench.py --server-args=--max-body-memory=64

Each case starts its own ``python -m dynabase.server`` (``:memory:``, loopback, a free port), opens N
connections that each send a request head and a 16 MiB body minus its last byte, waits until every
connection has sent that much (or was answered early), then sends all the last bytes at once and reads every
answer. The figure is the server's peak RSS (``VmHWM`` in ``/proc/PID/status``, Linux only) and the answers
by status (a body over the in-flight budget is answered 503 with ``Retry-After``). Bodies:

* ``name``: ``{"TableName":"aaa…"}`` (a validation error that used to quote the whole value);
* ``list``: ``[{},{},…]`` (a body of millions of tiny values).

The server is stopped by PID at the end of each case. Goal (issue 23): 64 connections ≤ 1 GiB, 512 ≤ 2 GiB.
"""

from __future__ import annotations

import argparse
import socket
import sys
import threading
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))

SIZE = 16 * 1024 * 1024
GOALS = {64: 1024, 512: 2048}  # connections -> MiB


def body(kind: str) -> bytes:
    if kind == "name":
        head = b'{"TableName":"'
        return head + b"a" * (SIZE - len(head) - 2) + b'"}'
    return b"[" + b"{}," * ((SIZE - 4) // 3) + b"{}]"


def peak_rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc/PID/status (Linux only)")


def run_case(kind: str, connections: int, server_args: list[str]) -> tuple[float, Counter[str]]:
    from dynabase.server.runner import start_subprocess

    data = body(kind)
    head = (
        "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-amz-json-1.0\r\n"
        "X-Amz-Target: DynamoDB_20120810.DescribeTable\r\n"
        "Authorization: AWS4-HMAC-SHA256 Credential=bench/20240101/us-east-1/dynamodb/aws4_request, "
        "SignedHeaders=host, Signature=0000\r\n"
        f"Content-Length: {len(data)}\r\n\r\n"
    ).encode("ascii")
    view = memoryview(data)
    sent_all_but_one = threading.Barrier(connections + 1)
    answers: Counter[str] = Counter()
    lock = threading.Lock()

    def client(url_port: int) -> None:
        status = "no answer"
        sock = socket.create_connection(("127.0.0.1", url_port), timeout=120)
        try:
            try:
                sock.sendall(head)
                sock.sendall(view[:-1])
            except OSError:  # answered (503) and closed before the whole body went
                pass
            sent_all_but_one.wait()
            try:
                sock.sendall(view[-1:])
            except OSError:
                pass
            reply = b""
            while b"\r\n" not in reply:
                chunk = sock.recv(4096)
                if not chunk:
                    break
                reply += chunk
            if reply:
                status = reply.split(b" ", 2)[1].decode("ascii", "replace")
        except OSError as error:
            status = type(error).__name__
        finally:
            sock.close()
            with lock:
                answers[status] += 1

    server = start_subprocess(args=["--quiet", "--max-connections", str(max(connections, 1)), *server_args])
    try:
        port = int(server.url.rsplit(":", 1)[1])
        threads = [threading.Thread(target=client, args=(port,), daemon=True) for _ in range(connections)]
        for thread in threads:
            thread.start()
        sent_all_but_one.wait()
        for thread in threads:
            thread.join()
        return peak_rss_mib(server.pid), answers
    finally:
        server.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", default="16,64", help="comma-separated connection counts")
    parser.add_argument("--bodies", default="name,list", help="comma-separated: name, list")
    parser.add_argument("--server-args", default="", help="extra `dynabase serve` arguments, space-separated")
    args = parser.parse_args(argv)
    server_args = args.server_args.split()
    print(f"{'body':<6} {'conns':>5} {'peak RSS':>10}  {'goal':>8}  answers")
    for kind in args.bodies.split(","):
        for count in (int(n) for n in args.connections.split(",")):
            peak, answers = run_case(kind, count, server_args)
            goal = f"≤{GOALS[count]} MiB" if count in GOALS else ""
            seen = ", ".join(f"{status}×{n}" for status, n in sorted(answers.items()))
            print(f"{kind:<6} {count:>5} {peak:>7.0f} MiB  {goal:>8}  {seen}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
