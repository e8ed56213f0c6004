"""Change streams: consumer throughput, write-to-handler latency, and the cost of a trigger to writes.

Figures, in one run:

* **records/s** through a no-op handler (``dynabase.streams.Consumer``, batch size 100 and 1000) reading a
  stream of N records already written: the embedded engine (a file in WAL mode), ``dynabase serve`` (in a
  thread, through boto3) and DynamoDB Local (through boto3).
* **latency** from a PutItem returning to the handler being called, p50 / p95: an in-process trigger
  (``on_change``) on the embedded engine -- goal p50 <= 50 ms -- and a polling consumer on DynamoDB Local.
* **writes/s** (PutItem, file database) with a no-op trigger registered against none -- goal >= 0.9x;
  repeats interleaved, median. Both per wall second and per CPU second of the process (the trigger's thread
  included, until it has handled every write): on a shared machine the wall-clock figure moves with the
  neighbours' load, the CPU figure much less.

    python bench/streams_bench.py [--quick] [--no-local] [--json FILE]
    python bench/streams_bench.py --trigger-cost [--rounds N]   # only the trigger's cost, N rounds, medians
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests"))  # the harness's DynamoDB Local provisioning

import dynabase  # noqa: E402
from dynabase.streams import Consumer, Options, on_change  # noqa: E402

TABLE = "streambench"


def create(client: Any, name: str = TABLE) -> None:
    client.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
    )


def item(i: int, prefix: str = "k") -> dict:
    return {"pk": {"S": f"{prefix}{i:08}"}, "n": {"N": str(i)}, "s": {"S": "x" * 100}, "b": {"BOOL": True}}


def fill(client: Any, count: int, name: str = TABLE) -> None:
    for start in range(0, count, 25):
        requests = [{"PutRequest": {"Item": item(i)}} for i in range(start, min(start + 25, count))]
        while requests:
            left = client.batch_write_item(RequestItems={name: requests}).get("UnprocessedItems", {})
            requests = left.get(name, [])


def drain_rate(client: Any, streams: Any, count: int, batch_size: int, name: str = TABLE) -> float:
    seen = [0]

    def noop(event: dict, context: Any) -> None:
        seen[0] += len(event["Records"])

    consumer = Consumer.for_table(
        client, name, noop, streams=streams, options=Options(batch_size=batch_size, poll_interval=0.01)
    )
    started = time.perf_counter()
    consumer.run(until_idle=True)
    elapsed = time.perf_counter() - started
    assert seen[0] == count, (seen[0], count)
    return count / elapsed


def percentiles(values: list[float]) -> tuple[float, float]:
    values = sorted(values)
    return values[len(values) // 2], values[min(len(values) - 1, int(len(values) * 0.95))]


def trigger_latency(client: Any, writes: int) -> tuple[float, float]:
    arrived: dict[str, float] = {}
    done = threading.Event()

    def handler(event: dict, context: Any) -> None:
        now = time.perf_counter()
        for record in event["Records"]:
            arrived[record["dynamodb"]["Keys"]["pk"]["S"]] = now
        if len(arrived) >= writes:
            done.set()

    lags = []
    with on_change(client, TABLE, handler):
        for i in range(writes):
            key = f"lat{i:08}"
            written = time.perf_counter()
            client.put_item(TableName=TABLE, Item={**item(i, "lat")})
            deadline = time.perf_counter() + 5
            while key not in arrived and time.perf_counter() < deadline:
                time.sleep(0.0002)
            lags.append(arrived[key] - written)
            time.sleep(0.002)  # writes apart, as in an application
    return percentiles([lag * 1000 for lag in lags])


def polling_latency(client: Any, streams: Any, writes: int, name: str) -> tuple[float, float]:
    arrived: dict[str, float] = {}

    def handler(event: dict, context: Any) -> None:
        now = time.perf_counter()
        for record in event["Records"]:
            arrived[record["dynamodb"]["Keys"]["pk"]["S"]] = now

    consumer = Consumer.for_table(
        client,
        name,
        handler,
        streams=streams,
        options=Options(starting_position="LATEST", poll_interval=0.01),
    )
    consumer.prime()
    stop = threading.Event()
    thread = threading.Thread(target=consumer.run, args=(stop,), daemon=True)
    thread.start()
    lags = []
    for i in range(writes):
        key = f"poll{i:08}"
        written = time.perf_counter()
        client.put_item(TableName=name, Item=item(i, "poll"))
        deadline = time.perf_counter() + 10
        while key not in arrived and time.perf_counter() < deadline:
            time.sleep(0.0005)
        lags.append(arrived[key] - written)
    stop.set()
    thread.join(5)
    return percentiles([lag * 1000 for lag in lags])


def write_rate(
    client: Any, seconds: float, start: int, handled: list[int] | None = None
) -> tuple[float, float, int]:
    """PutItems for ``seconds``: (writes per wall second, writes per CPU second of the process, next key).

    With a trigger (``handled`` counts what it has handled), the CPU time runs until the trigger has handled
    every write, so its work is counted in full."""
    count, i = 0, start
    before = handled[0] if handled is not None else 0
    cpu, wall = time.process_time(), time.perf_counter()
    deadline = wall + seconds
    while time.perf_counter() < deadline:
        for _ in range(50):
            client.put_item(TableName=TABLE, Item=item(i, "w"))
            i += 1
        count += 50
    wall = time.perf_counter() - wall
    if handled is not None:
        give_up = time.perf_counter() + 30
        while handled[0] - before < count and time.perf_counter() < give_up:
            time.sleep(0.001)
    cpu = time.process_time() - cpu
    return count / wall, count / cpu, i


def trigger_cost(client: Any, seconds: float, repeats: int) -> dict[str, float]:
    """Median writes/s (wall and per CPU second) with no trigger and with a no-op trigger, interleaved."""
    runs: dict[str, list[float]] = {"plain wall": [], "plain cpu": [], "trigger wall": [], "trigger cpu": []}
    handled = [0]
    i = 0
    for _ in range(repeats):
        wall, cpu, i = write_rate(client, seconds, i)
        runs["plain wall"].append(wall)
        runs["plain cpu"].append(cpu)
        trigger = on_change(
            client, TABLE, lambda e, c: handled.__setitem__(0, handled[0] + len(e["Records"]))
        )
        wall, cpu, i = write_rate(client, seconds, i, handled)
        runs["trigger wall"].append(wall)
        runs["trigger cpu"].append(cpu)
        trigger.close()
    return {name: statistics.median(values) for name, values in runs.items()}


def trigger_cost_rounds(rounds: int) -> int:
    """The trigger's cost alone, ``rounds`` times on a fresh database each (a shared machine: medians)."""
    ratios: dict[str, list[float]] = {"wall": [], "cpu": []}
    plain: list[float] = []
    for number in range(rounds):
        with tempfile.TemporaryDirectory() as tmp:
            client = dynabase.connect(str(Path(tmp) / "bench.db"))
            create(client)
            fill(client, 2000)
            cost = trigger_cost(client, 1.0, 5)
            client.close()
        ratios["wall"].append(cost["trigger wall"] / cost["plain wall"])
        ratios["cpu"].append(cost["trigger cpu"] / cost["plain cpu"])
        plain.append(cost["plain cpu"])
        print(
            f"round {number + 1}: writes per CPU-s {cost['plain cpu']:,.0f} without, {cost['trigger cpu']:,.0f} "
            f"with a trigger: {ratios['cpu'][-1]:.3f}x (wall {ratios['wall'][-1]:.3f}x)",
            flush=True,
        )
    cpu = statistics.median(ratios["cpu"])
    print(f"median writes per CPU-s without a trigger: {statistics.median(plain):,.0f}")
    print(f"median with a trigger / without (CPU): {cpu:.3f}x ({'meets' if cpu >= 0.9 else 'MISSES'} 0.9x)")
    print(f"median with a trigger / without (wall): {statistics.median(ratios['wall']):.3f}x")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller runs (~20 s)")
    parser.add_argument("--no-local", action="store_true", help="leave DynamoDB Local out")
    parser.add_argument("--json", metavar="FILE", help="also write the figures")
    parser.add_argument("--trigger-cost", action="store_true", help="only the trigger's cost to writes")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of --trigger-cost (default 5)")
    args = parser.parse_args()
    if args.trigger_cost:
        return trigger_cost_rounds(args.rounds)
    n = 4000 if args.quick else 20000
    n_remote = 1000 if args.quick else 5000
    figures: dict[str, Any] = {}

    with tempfile.TemporaryDirectory() as tmp:
        client = dynabase.connect(str(Path(tmp) / "bench.db"))
        create(client)
        fill(client, n)
        for batch in (100, 1000):
            figures[f"embedded records/s (batch {batch})"] = drain_rate(client, client.streams(), n, batch)
        figures["embedded trigger latency ms (p50, p95)"] = trigger_latency(
            client, 200 if args.quick else 500
        )
        cost = trigger_cost(client, 0.5 if args.quick else 1.5, 3 if args.quick else 5)
        figures["embedded writes/s, no trigger"] = cost["plain wall"]
        figures["embedded writes/s, a trigger registered"] = cost["trigger wall"]
        figures["writes with a trigger / without (wall)"] = cost["trigger wall"] / cost["plain wall"]
        figures["embedded writes per CPU-s, no trigger"] = cost["plain cpu"]
        figures["embedded writes per CPU-s, trigger included"] = cost["trigger cpu"]
        figures["writes with a trigger / without (CPU)"] = cost["trigger cpu"] / cost["plain cpu"]
        client.close()

    from backends import boto3_client
    from dynabase.server import run_in_thread

    engine = dynabase.Engine(":memory:")
    url, stop = run_in_thread(engine)
    try:
        served, streams = boto3_client("dynamodb", url), boto3_client("dynamodbstreams", url)
        create(served)
        fill(served, n_remote)
        figures["dynabase serve records/s (batch 1000)"] = drain_rate(served, streams, n_remote, 1000)
    finally:
        stop()
        engine.close()

    if not args.no_local:
        from backends import DynamoDBLocal, ensure_dynamodb_local

        local = DynamoDBLocal(ensure_dynamodb_local())
        endpoint = local.start()
        try:
            remote = boto3_client("dynamodb", endpoint)
            streams = boto3_client("dynamodbstreams", endpoint)
            create(remote)
            fill(remote, n_remote)
            for batch in (100, 1000):
                figures[f"DynamoDB Local records/s (batch {batch})"] = drain_rate(
                    remote, streams, n_remote, batch
                )
            figures["DynamoDB Local polling latency ms (p50, p95)"] = polling_latency(
                remote, streams, 50 if args.quick else 200, TABLE
            )
        finally:
            local.close()

    width = max(len(k) for k in figures)
    for name, value in figures.items():
        if isinstance(value, tuple):
            text = " / ".join(f"{v:,.1f}" for v in value)
        elif "/ without" in name:
            text = f"{value:.2f}x  ({'meets' if value >= 0.9 else 'MISSES'} the 0.9x goal)"
        else:
            text = f"{value:,.0f}"
        print(f"{name:<{width}}  {text}")
    p50 = figures["embedded trigger latency ms (p50, p95)"][0]
    print(f"{'trigger p50 goal (<= 50 ms)':<{width}}  {'meets' if p50 <= 50 else 'MISSES'}")
    if "DynamoDB Local records/s (batch 1000)" in figures:
        ratio = figures["embedded records/s (batch 1000)"] / figures["DynamoDB Local records/s (batch 1000)"]
        print(f"{'embedded / DynamoDB Local records/s':<{width}}  {ratio:.1f}x")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
