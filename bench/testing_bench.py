"""Testing with dynabase: the same 200-test sample suite under moto's mock_aws, under mock_dynamodb and against
DynamoDB Local (including its start), plus what the pytest plugin's per-test start state costs.

    python bench/testing_bench.py                        # everything (~3 min: moto and DynamoDB Local dominate)
    python bench/testing_bench.py --suites dynabase,moto # a subset; --skip-restore / --skip-calls / --json FILE
    python bench/testing_bench.py --no-plugin-autoload   # without the machine's other pytest plugins, for all

Figures printed:

- ``suite``: wall time of ``python -m pytest tests/testing/sample_suite`` with ``SAMPLE_SUITE_BACKEND`` set to
  each backend (the test files are identical; ``tests/testing/sample_suite/_mock.py`` picks the decorator), as a
  user sees it (interpreter and pytest start included) and pytest's own "in N s"; for DynamoDB Local the JVM's
  start (until it answers ListTables) is added, as a suite run from scratch pays it. ``cpu``: the CPU time
  (user + system) of the processes the run took -- pytest's, and DynamoDB Local's JVM for ``local`` -- which a
  shared machine's load disturbs far less than wall time. ``--no-plugin-autoload`` runs every backend's pytest
  with ``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1``: the installed third-party plugins (hypothesis, pytest-benchmark,
  xdist, ...) cost every run the same start-up second or two, which the suite itself does not need.
- ``calls``: PutItem and GetItem through a plain ``boto3.client("dynamodb")`` under mock_dynamodb and mock_aws:
  per call, botocore's own work included.
- ``restore``: giving each test the session's tables (5 tables with GSIs, 100 items): copying them with
  SQLite's backup API into a fresh engine (what the plugin does), creating them again in a fresh engine, and,
  as a floor, SQLite ``SAVEPOINT``/``ROLLBACK TO`` on a raw connection holding the same data (not usable under
  the engine: its writes open and roll back their own transactions, which a surrounding savepoint would turn
  into no-ops, so a failed TransactWriteItems could leave half its writes).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
SUITE = "tests/testing/sample_suite"
ENV = {
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_EC2_METADATA_DISABLED": "true",
}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_suite(backend: str, extra_env: dict[str, str] | None = None) -> dict[str, Any]:
    env = {**os.environ, **ENV, **SUITE_ENV, "SAMPLE_SUITE_BACKEND": backend, **(extra_env or {})}
    env["PYTHONPATH"] = str(ROOT / "src") + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    started, cpu = time.perf_counter(), _children_cpu()
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", SUITE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    wall = time.perf_counter() - started
    cpu = _children_cpu() - cpu
    tail = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else result.stderr[-2000:]
    match = re.search(r"(\d+) passed.* in ([\d.]+)s", tail)
    if result.returncode != 0 or not match:
        raise SystemExit(
            f"the sample suite failed under {backend}:\n{result.stdout[-4000:]}\n{result.stderr[-2000:]}"
        )
    return {
        "backend": backend,
        "tests": int(match.group(1)),
        "wall_s": wall,
        "pytest_s": float(match.group(2)),
        "cpu_s": cpu,
    }


#: environment every suite run gets (``--no-plugin-autoload`` adds to it)
SUITE_ENV: dict[str, str] = {}


def run_local_suite() -> dict[str, Any]:
    sys.path.insert(0, str(ROOT / "tests"))
    from backends import DynamoDBLocal, ensure_dynamodb_local

    local = DynamoDBLocal(ensure_dynamodb_local())
    started, cpu = time.perf_counter(), _children_cpu()
    try:
        endpoint = local.start()
        start_s = time.perf_counter() - started
        figures = run_suite(
            "local", {"AWS_ENDPOINT_URL_DYNAMODB": endpoint, "AWS_ENDPOINT_URL_DYNAMODB_STREAMS": endpoint}
        )
    finally:
        local.close()  # waits for the JVM: its CPU time is counted from here on
    figures["cpu_s"] = _children_cpu() - cpu
    figures["start_s"] = start_s
    figures["wall_s"] += start_s
    return figures


def bench_calls(n: int = 500) -> dict[str, dict[str, float]]:
    import boto3

    def measure(mock: Any) -> dict[str, float]:
        with mock:
            client = boto3.client("dynamodb", region_name="us-east-1")
            client.create_table(
                TableName="calls",
                KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                BillingMode="PAY_PER_REQUEST",
            )
            item = {"n": {"N": "1"}, "s": {"S": "x" * 100}, "l": {"L": [{"S": "a"}, {"N": "2"}]}}
            started = time.perf_counter()
            for i in range(n):
                client.put_item(TableName="calls", Item={"pk": {"S": f"k{i}"}, **item})
            put = (time.perf_counter() - started) / n
            started = time.perf_counter()
            for i in range(n):
                client.get_item(TableName="calls", Key={"pk": {"S": f"k{i}"}})
            get = (time.perf_counter() - started) / n
        return {"put_ms": put * 1000, "get_ms": get * 1000}

    os.environ.update(ENV)
    from dynabase.testing import mock_dynamodb

    figures = {"dynabase": measure(mock_dynamodb())}
    try:
        from moto import mock_aws
    except ImportError:
        return figures
    figures["moto"] = measure(mock_aws())
    return figures


TABLES = 5


def _session_template() -> Any:
    from dynabase.client import EmbeddedClient
    from dynabase.testing.state import Databases

    template = Databases()
    client = EmbeddedClient(template.engine())
    create_all(client)
    for t in range(TABLES):
        for i in range(20):
            client.put_item(
                TableName=f"table{t}", Item={"pk": {"S": f"p{i}"}, "sk": {"S": "s"}, "g": {"S": "x"}}
            )
    return template


def create_all(client: Any) -> None:
    for t in range(TABLES):
        client.create_table(
            TableName=f"table{t}",
            KeySchema=[
                {"AttributeName": "pk", "KeyType": "HASH"},
                {"AttributeName": "sk", "KeyType": "RANGE"},
            ],
            AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"} for a in ("pk", "sk", "g")],
            GlobalSecondaryIndexes=[
                {
                    "IndexName": "by-g",
                    "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "ALL"},
                }
            ],
            BillingMode="PAY_PER_REQUEST",
        )


def bench_restore(n: int = 300) -> dict[str, float]:
    from dynabase.client import EmbeddedClient
    from dynabase.testing.state import Databases

    template = _session_template()
    write = {"TableName": "table0", "Item": {"pk": {"S": "new"}, "sk": {"S": "s"}, "g": {"S": "y"}}}

    started = time.perf_counter()
    for _ in range(n):
        test = Databases(base=template)
        EmbeddedClient(test.engine()).put_item(**write)
        test.close()
    copy_ms = (time.perf_counter() - started) / n * 1000

    started = time.perf_counter()
    for _ in range(n):
        test = Databases()
        client = EmbeddedClient(test.engine())
        create_all(client)
        client.put_item(**write)
        test.close()
    recreate_ms = (time.perf_counter() - started) / n * 1000

    raw = sqlite3.connect(":memory:", isolation_level=None)
    template.engine().storage.conn.backup(raw)
    table = raw.execute("SELECT id FROM dynabase_tables WHERE name = 'table0'").fetchone()[0]
    started = time.perf_counter()
    for _ in range(n):
        raw.execute("SAVEPOINT test")
        raw.execute(f"INSERT INTO t{table} (h, pk, sk, item, size, bin) VALUES (1, x'01', x'', '{{}}', 2, 0)")
        raw.execute("ROLLBACK TO test")
        raw.execute("RELEASE test")
    savepoint_ms = (time.perf_counter() - started) / n * 1000
    return {"backup_copy_ms": copy_ms, "recreate_ms": recreate_ms, "savepoint_floor_ms": savepoint_ms}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suites", default="dynabase,moto,local", help="of dynabase, moto, local")
    parser.add_argument("--skip-calls", action="store_true")
    parser.add_argument("--skip-restore", action="store_true")
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument("--no-plugin-autoload", action="store_true", help="PYTEST_DISABLE_PLUGIN_AUTOLOAD=1")
    options = parser.parse_args(argv)
    out: dict[str, Any] = {"load_average": os.getloadavg()[0], "cpus": os.cpu_count()}
    if options.no_plugin_autoload:
        SUITE_ENV["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
        out["plugin_autoload"] = False
    suites: dict[str, Any] = {}
    for backend in [b.strip() for b in options.suites.split(",") if b.strip()]:
        figures = run_local_suite() if backend == "local" else run_suite(backend)
        suites[backend] = figures
        extra = (
            f" (DynamoDB Local's start {figures['start_s']:.1f} s included)" if "start_s" in figures else ""
        )
        print(
            f"suite  {backend:9s} {figures['tests']} tests  wall {figures['wall_s']:6.1f} s  "
            f"pytest {figures['pytest_s']:6.1f} s  cpu {figures['cpu_s']:6.1f} s{extra}",
            flush=True,
        )
    if "dynabase" in suites:
        base = suites["dynabase"]
        for other in ("moto", "local"):
            if other in suites:
                print(
                    f"suite  {other} / dynabase: wall {suites[other]['wall_s'] / base['wall_s']:.1f}x, "
                    f"pytest {suites[other]['pytest_s'] / base['pytest_s']:.1f}x, "
                    f"cpu {suites[other]['cpu_s'] / base['cpu_s']:.1f}x"
                )
    out["suite"] = suites
    if not options.skip_calls:
        calls = bench_calls()
        out["calls"] = calls
        for target, figures in calls.items():
            print(
                f"calls  {target:9s} put {figures['put_ms']:.2f} ms  get {figures['get_ms']:.2f} ms (boto3 included)"
            )
        if "moto" in calls:
            print(
                f"calls  moto / dynabase: put {calls['moto']['put_ms'] / calls['dynabase']['put_ms']:.1f}x, "
                f"get {calls['moto']['get_ms'] / calls['dynabase']['get_ms']:.1f}x"
            )
    if not options.skip_restore:
        restore = bench_restore()
        out["restore"] = restore
        print(
            f"restore per test, {TABLES} tables: backup copy {restore['backup_copy_ms']:.2f} ms, re-create "
            f"{restore['recreate_ms']:.2f} ms, savepoint floor {restore['savepoint_floor_ms']:.3f} ms"
        )
    print(f"load average {out['load_average']:.1f} on {out['cpus']} CPUs")
    if options.json:
        Path(options.json).write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
