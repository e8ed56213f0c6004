"""The many-clients case of ``bench/server_bench.py`` (issue 23): N client processes doing put+get at once.

Each client process (spawned, one boto3 client, keep-alive) alternates PutItem and GetItem for ``seconds``;
the figure is the total ops/s of all of them, for ``dynabase serve --workers 1`` and ``--workers 2`` (each on a
database file of its own, the default use) and DynamoDB Local (when the run has it), in rounds that visit the
targets in turn, the best round counting. Where the time goes: the CPU seconds the server's processes (the
supervisor and its workers; Local's JVM) and the clients used during the best round, per 1,000 operations.

Run alone: ``python bench/many_clients.py [--processes 8] [--seconds 3] [--rounds 3] [--no-local]``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

#: workers of the dynabase targets
WORKERS = (1, 2)
GOALS = {"workers": 1.8, "local": 3.0}


class RawClient:
    """put+get as pre-built HTTP requests on one keep-alive socket: next to no client CPU, so the server's own
    throughput shows (boto3 spends ~4x the server's CPU on each call)."""

    def __init__(self, url: str) -> None:
        import socket

        host, port = url.removeprefix("http://").rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.n = 0
        self.prefix = f"{os.getpid()}-"

    def _call(self, target: str, body: bytes) -> None:
        head = (
            f"POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Target: DynamoDB_20120810.{target}\r\n"
            "Content-Type: application/x-amz-json-1.0\r\nAuthorization: AWS4-HMAC-SHA256 "
            "Credential=bench/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        )
        self.sock.sendall(head.encode() + body)
        data = b""
        while b"\r\n\r\n" not in data:
            data += self.sock.recv(65536)
        head_bytes, _, rest = data.partition(b"\r\n\r\n")
        if not head_bytes.startswith(b"HTTP/1.1 200"):
            raise RuntimeError(head_bytes.decode(errors="replace"))
        at = head_bytes.lower().find(b"content-length:")
        length = int(head_bytes[at + 15 :].split(b"\r\n", 1)[0])
        while len(rest) < length:
            rest += self.sock.recv(65536)

    def put(self) -> None:
        self.n += 1
        key = f"{self.prefix}{self.n}"
        body = (
            '{"TableName":"bench","Item":{"pk":{"S":"user#' + key + '"},"sk":{"S":"order#' + key + '"},'
            '"status":{"S":"S1"},"total":{"N":"1.25"},"note":{"S":"' + "x" * 64 + '"}}}'
        )
        self._call("PutItem", body.encode())

    def get(self) -> None:
        n = self.n % 2000
        body = f'{{"TableName":"bench","Key":{{"pk":{{"S":"user#{n % 100}"}},"sk":{{"S":"order#{n:08d}"}}}}}}'
        self._call("GetItem", body.encode())


def _client_process(url: str, seconds: float, start_at: float, queue: Any, raw: bool = False) -> None:
    import server_bench

    if raw:
        client = RawClient(url)
        put, get = client.put, client.get
    else:
        ops = server_bench.operations(server_bench.client(url), False)
        put, get = ops["put"], ops["get"]
    get()  # connect
    while time.time() < start_at:
        time.sleep(0.001)
    count = 0
    cpu = time.process_time()
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        put()
        get()
        count += 2
    queue.put((count, time.process_time() - cpu))


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of ``pid`` and its children (Linux ``/proc``; 0 elsewhere)."""
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    total = 0.0
    try:
        entries = os.listdir("/proc")
    except OSError:
        return 0.0
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rpartition(")")[2].split()
        except OSError:
            continue
        if int(entry) == pid or int(fields[1]) == pid:  # fields[1]: the parent's pid
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def run_clients(
    url: str, server_pid: int, processes: int, seconds: float, raw: bool = False
) -> dict[str, float]:
    """One round: total ops/s, and CPU seconds per 1,000 operations of the server and of the clients."""
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    start_at = time.time() + 2.0  # spawned interpreters need a moment to import boto3
    clients = [
        context.Process(target=_client_process, args=(url, seconds, start_at, queue, raw))
        for _ in range(processes)
    ]
    for client in clients:
        client.start()
    while time.time() < start_at - 0.05:
        time.sleep(0.01)
    before = cpu_seconds(server_pid)
    figures = [queue.get(timeout=seconds + 120) for _ in clients]
    server_cpu = cpu_seconds(server_pid) - before
    for client in clients:
        client.join(30)
    ops = sum(count for count, _ in figures)
    return {
        "ops_per_second": ops / seconds,
        "server_cpu_ms_per_op": 1000 * server_cpu / max(ops, 1),
        "client_cpu_ms_per_op": 1000 * sum(cpu for _, cpu in figures) / max(ops, 1),
    }


def run(
    processes: int, seconds: float, rounds: int, local: Any = None, raw: bool = False
) -> dict[str, dict[str, float]]:
    """``local``: a started DynamoDB Local target of server_bench (or None). The figures by target name."""
    import server_bench

    env = dict(os.environ)
    src = str(Path(__file__).resolve().parent.parent / "src")
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        targets = []
        for workers in WORKERS:
            port = server_bench.free_port()
            command = [
                sys.executable,
                "-m",
                "dynabase.server",
                "--db",
                os.path.join(folder, f"w{workers}.db"),
            ]
            command += ["--port", str(port), "--workers", str(workers), "-q"]
            targets.append(server_bench.Target(f"serve --workers {workers}", command, port, env=env))
        try:
            for target in targets:
                target.start()
                server_bench.prepare(target.url, False)
            if local is not None:
                targets.append(local)
            for _ in range(rounds):
                for target in targets:
                    figures = run_clients(target.url, target.process.pid, processes, seconds, raw)
                    best = results.get(target.name)
                    if best is None or figures["ops_per_second"] > best["ops_per_second"]:
                        results[target.name] = figures
                    print(
                        f"   {target.name}: {processes} processes: {figures['ops_per_second']:.0f} ops/s",
                        flush=True,
                    )
        finally:
            for target in targets:
                if target is not local:
                    target.stop()
    return results


def report(results: dict[str, dict[str, float]], processes: int) -> list[str]:
    lines = [f"{processes} client processes (put+get), total ops/s, best round; CPU ms per operation:"]
    for name, figures in results.items():
        lines.append(
            f"  {name:<20} {figures['ops_per_second']:>8.0f} ops/s   server {figures['server_cpu_ms_per_op']:.3f}"
            f"   clients {figures['client_cpu_ms_per_op']:.3f}"
        )
    one, two = results.get("serve --workers 1"), results.get("serve --workers 2")
    local = results.get("dynamodb-local")
    if one and two:
        ratio = two["ops_per_second"] / one["ops_per_second"]
        verdict = "ok" if ratio >= GOALS["workers"] else "MISSED"
        lines.append(f"  --workers 2 / --workers 1: {ratio:.2f}x (goal >= {GOALS['workers']}x) {verdict}")
    if two and local:
        ratio = two["ops_per_second"] / local["ops_per_second"]
        verdict = "ok" if ratio >= GOALS["local"] else "MISSED"
        lines.append(f"  --workers 2 / DynamoDB Local: {ratio:.2f}x (goal >= {GOALS['local']}x) {verdict}")
    if one and local:
        lines.append(
            f"  --workers 1 / DynamoDB Local: {one['ops_per_second'] / local['ops_per_second']:.2f}x"
        )
    return lines


def main() -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import server_bench

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-local", action="store_true", help="without DynamoDB Local")
    parser.add_argument(
        "--raw", action="store_true", help="clients of pre-built HTTP requests instead of boto3"
    )
    args = parser.parse_args()
    local = None
    if not args.no_local:
        found, notes = server_bench.make_targets(["dynamodb-local"])
        for note in notes:
            print(f"note: {note}")
        if found:
            local = found[0]
            local.start()
            server_bench.prepare(local.url, False)
    try:
        results = run(args.processes, args.seconds, args.rounds, local, args.raw)
    finally:
        if local is not None:
            local.stop()
    print("\n".join(report(results, args.processes)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
