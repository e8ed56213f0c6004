"""``dynabase serve``'s connection limits and the fault proxy, as figures (the tests assert only behaviour).

    python bench/limits_bench.py                 # ~15 s
    python bench/limits_bench.py --seconds 5 --json limits.json

* ordinary requests during a slowloris: ListTables latency (a fresh client and a pooled one, p50 and max)
  while 40 connections trickle a request head one byte every 0.25 s into a server with
  ``max_connections=24, request_timeout=1.5``; anchor: the same requests to the same server with no tricklers;
* how late each limit bites: seconds from connecting to the server's close, for ``request_timeout=0.8`` (a
  request head that never ends: a 408) and ``idle_timeout=0.4`` (a connection that sends nothing), against
  the configured value;
* the fault proxy's cost per call: ListTables through ``dynabase.testing.FaultProxy`` (no fault) against the
  same calls straight to the server (anchor), median of 201 each, in alternation.

Everything runs in this process against ``run_in_thread`` servers on loopback ports.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import sys
import threading
import time
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

from dynabase.server import run_in_thread  # noqa: E402
from dynabase.testing.faultproxy import FaultProxy  # noqa: E402


def client(url: str) -> Any:
    import boto3
    from botocore.config import Config

    return boto3.client(
        "dynamodb",
        endpoint_url=url,
        region_name="us-east-1",
        aws_access_key_id="k",
        aws_secret_access_key="s",
        config=Config(retries={"max_attempts": 1}),
    )


def address(url: str) -> tuple[str, int]:
    host, port = url.rsplit("/", 1)[-1].rsplit(":", 1)
    return host, int(port)


def latencies(url: str, seconds: float) -> list[float]:
    """ListTables by a fresh client and by a pooled one, timed together, for ``seconds``."""
    pooled = client(url)
    pooled.list_tables()
    out = []
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        fresh = client(url)
        started = time.perf_counter()
        fresh.list_tables()
        pooled.list_tables()
        out.append(time.perf_counter() - started)
    return out


def trickle(url: str, count: int, every: float, stop: threading.Event) -> None:
    """``count`` connections sending a request head a byte every ``every`` s; reopened when the server closes."""
    head = b"POST / HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 10_000
    socks: list[tuple[socket.socket, int]] = []
    while not stop.is_set():
        socks = [(s, n) for s, n in socks if n >= 0]
        while len(socks) < count:
            try:
                socks.append((socket.create_connection(address(url), timeout=1), 0))
            except OSError:
                break
        for index, (sock, sent) in enumerate(socks):
            try:
                sock.send(head[sent : sent + 1])
                socks[index] = (sock, sent + 1)
            except OSError:
                sock.close()
                socks[index] = (sock, -1)
        stop.wait(every)
    for sock, _ in socks:
        sock.close()


def slowloris(seconds: float) -> dict[str, float]:
    url, stop_server = run_in_thread(max_connections=24, idle_timeout=5.0, request_timeout=1.5)
    try:
        quiet = latencies(url, seconds)
        stop = threading.Event()
        thread = threading.Thread(target=trickle, args=(url, 40, 0.25, stop), daemon=True)
        thread.start()
        time.sleep(0.5)  # the tricklers hold their connections
        loaded = latencies(url, seconds)
        stop.set()
        thread.join(10)
    finally:
        stop_server()
    return {
        "quiet_p50": statistics.median(quiet),
        "quiet_max": max(quiet),
        "slowloris_p50": statistics.median(loaded),
        "slowloris_max": max(loaded),
    }


def close_after(url: str, send: bytes) -> float:
    started = time.perf_counter()
    sock = socket.create_connection(address(url), timeout=60)
    if send:
        sock.sendall(send)
    sock.recv(65536)
    while sock.recv(65536):
        pass
    sock.close()
    return time.perf_counter() - started


def limits() -> dict[str, float]:
    url, stop = run_in_thread(request_timeout=0.8, idle_timeout=0.4)
    try:
        request = statistics.median(close_after(url, b"POST / HTTP/1.1\r\nHost: x\r\n") for _ in range(5))
        idle = statistics.median(close_after(url, b"") for _ in range(5))
    finally:
        stop()
    return {"request_timeout": 0.8, "request_closed": request, "idle_timeout": 0.4, "idle_closed": idle}


def proxy_cost() -> dict[str, float]:
    url, stop = run_in_thread()
    try:
        with FaultProxy(url) as proxy:
            clients = {"direct": client(url), "proxy": client(proxy.url)}
            timings: dict[str, list[float]] = {name: [] for name in clients}
            for c in clients.values():
                c.list_tables()
            for _ in range(201):  # in alternation, so that the machine's load falls on both alike
                for name, c in clients.items():
                    started = time.perf_counter()
                    c.list_tables()
                    timings[name].append(time.perf_counter() - started)
            figures = {name: statistics.median(values) for name, values in timings.items()}
    finally:
        stop()
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds of requests per slowloris phase")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)
    loris, bites, proxy = slowloris(args.seconds), limits(), proxy_cost()
    ms = 1000
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print("ListTables (fresh + pooled client)   p50        max")
    print(
        f"  quiet (anchor)                  {loris['quiet_p50'] * ms:7.1f} ms {loris['quiet_max'] * ms:7.1f} ms"
    )
    print(
        f"  40 tricklers, cap 24            {loris['slowloris_p50'] * ms:7.1f} ms {loris['slowloris_max'] * ms:7.1f} ms"
        f"   p50 {loris['slowloris_p50'] / loris['quiet_p50']:.2f}x the anchor"
    )
    for name in ("request", "idle"):
        limit, closed = bites[f"{name}_timeout"], bites[f"{name}_closed"]
        print(
            f"--{name}-timeout {limit:g} s: closed {closed:.3f} s after connecting ({closed - limit:+.3f} s)"
        )
    print(
        f"FaultProxy: ListTables median {proxy['proxy'] * ms:.2f} ms against {proxy['direct'] * ms:.2f} ms direct "
        f"({proxy['proxy'] / proxy['direct']:.2f}x; a Nagle/delayed-ACK stall would add ~40 ms)"
    )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({"slowloris": loris, "limits": bites, "proxy": proxy}, out, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
