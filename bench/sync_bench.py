#!/usr/bin/env python
"""Device ↔ cloud sync: throughput against a plain boto3 loop, latency under ``--watch``, capacity per change.

Run from the repository (about 1-2 minutes; ``--quick`` about 20-30 s)::

    python bench/sync_bench.py
    python bench/sync_bench.py --quick
    python bench/sync_bench.py --changes 20000 --samples 50 --json out.json

The cloud is a ``dynabase serve`` process this script starts (a database file in a temporary directory,
loopback); every process it starts is stopped by PID at the end. In one run:

* **push**: a device database holding N changes (items created through the entity layer, captured) is pushed
  with ``Sync.push()``; the anchor is a plain loop of boto3 ``PutItem`` calls writing the same items (as the
  device stores them) to another cloud table with the same definition on the same endpoint.
* **pull**: a fresh device pulls those N items with ``Sync.pull()``; the anchor is a plain loop that pages a boto3
  ``Query`` over the same items and writes each into an embedded database with ``PutItem``: the same reads and
  writes without the bookkeeping.
* **latency**: a ``dynabase sync --watch`` process keeps a device in step; the time from a device write to the
  item visible in the cloud, and from a cloud write to the item visible on the device (p50 / p95).
* **burst**: the read units one device running the sync loop spends after another device pushes a burst of
  5,000 items into its scope: the first poll (it reads the burst), then per idle poll and in all (the re-reads of
  the burst while it may still hide a change that landed late).
* **capacity**: the cloud capacity units (``ReturnConsumedCapacity=TOTAL`` added to every call of the sync's
  cloud client) per pushed and per pulled change, and for idle ``sync_once`` calls (nothing to do): right
  after the changes, the first poll after the pull's overlap window, and one after that (steady state): the
  cost of polling on AWS.

Ratios are sync / anchor items per second (goal >= 0.8); latency goal p50 <= 0.5 s.

``--mqtt`` measures sync over MQTT instead (about 5-8 minutes; ``--quick``, 50 devices, about 2)::

    python bench/sync_bench.py --mqtt
    python bench/sync_bench.py --mqtt --quick
    python bench/sync_bench.py --mqtt --devices 1000 --processes 6 --samples 200 --json mqtt.json

It starts ``dynabase serve`` (the cloud table, streams on, a request log line per request), Mosquitto (a free
loopback port, a password file and the protocol's ACL, as ``tests/hub/broker.py`` starts it), one
``dynabase sync-hub`` and ``--devices`` devices (500) spread over ``--processes`` processes
(``bench/fleet_worker.py``, 4), each device its own database file and its own MQTT connection; all stopped by
PID. In one run (``bench/sync_fleet.py``):

* **idle**: the server's requests over ``--window`` quiet seconds (30), counted in its request log: those on
  the table for the idle devices (goal 0) and the hub's own per second (stream reads and checkpoints: they
  grow with the stream's shards, not with devices); then ``--direct-devices`` devices (50) syncing directly,
  polling at the default ``--interval`` 0.5 s: their requests per device per day (the window extrapolated);
* **latency**: device -> device write-to-visible, p50 / p99 (goal 100 ms / 500 ms): one device writes a shared
  ``Note``, one device per process reports it in its database (``--samples`` writes, 100), with every device
  connected; the same with the direct devices;
* **pushes**: 4 devices x ``--changes`` (1,000) pushing at once through the hub, against as many pushing the
  same changes straight to the endpoint (``Sync``'s direct transport: the same conditional writes); goal
  >= 0.8x, best of ``--rounds`` (2);
* **hub**: its RSS and CPU seconds (``/proc``) per 100 connected devices: to connect them, idle, over the
  latency samples and over the pushes.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(1, str(REPO))  # tests.sync.chaos: the sync child process's command line

import boto3  # noqa: E402
from botocore.config import Config  # noqa: E402
from tests.sync.chaos import sync_command, sync_env  # noqa: E402  (the child command the chaos test runs)

import dynabase  # noqa: E402
from dynabase.clock import SCOPE_ATTR, SEQ_ATTR, VERSION_ATTR, make_seq, make_version  # noqa: E402
from dynabase.model import Table  # noqa: E402
from dynabase.model.syncmeta import SYNC_INDEX  # noqa: E402
from dynabase.schema import load_schema  # noqa: E402

REGION = "us-east-1"
CREDENTIALS = {"aws_access_key_id": "bench", "aws_secret_access_key": "bench"}
GOALS = {"throughput": 0.8, "latency_p50": 0.5}
BATCH = 100  # changes per read of the change log (Sync's batch_size)
PAGE = 1000  # items per pulled page: Sync's (dynabase.sync.pull.PULL_PAGE), and the anchor's
SCHEMA: dict[str, Any] = {
    "format": "onetable:1.1.0",
    "version": "0.0.1",
    "indexes": {"primary": {"hash": "pk", "sort": "sk"}},
    "models": {
        "Reading": {
            "pk": {"type": "string", "value": "device#${deviceId}"},
            "sk": {"type": "string", "value": "reading#${id}"},
            "deviceId": {"type": "string", "required": True},
            "id": {"type": "string", "required": True},
            "value": {"type": "number"},
            "unit": {"type": "string"},
            "note": {"type": "string"},
        }
    },
    "params": {"isoDates": True, "timestamps": True},
    "process": {"Reading": {"sync": "both"}},
}


def boto_client(url: str, pool: int = 4) -> Any:
    return boto3.client(
        "dynamodb",
        endpoint_url=url,
        region_name=REGION,
        config=Config(retries={"max_attempts": 3, "mode": "standard"}, max_pool_connections=pool),
        **CREDENTIALS,
    )


def timed(work: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    result = work()
    return time.perf_counter() - started, result


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


class CapacityMeter:
    """Adds ``ReturnConsumedCapacity=TOTAL`` to every call of a boto3 client and sums what comes back."""

    def __init__(self, client: Any) -> None:
        self.units = 0.0
        self.calls = 0
        events = client.meta.events
        events.register("provide-client-params.dynamodb.*", self._ask)
        events.register("after-call.dynamodb.*", self._add)

    @staticmethod
    def _ask(params: dict[str, Any], model: Any, **_: Any) -> None:
        if "ReturnConsumedCapacity" in model.input_shape.members:
            params.setdefault("ReturnConsumedCapacity", "TOTAL")

    def _add(self, parsed: dict[str, Any], **_: Any) -> None:
        self.calls += 1
        consumed = parsed.get("ConsumedCapacity")
        for entry in consumed if isinstance(consumed, list) else [consumed] if consumed else []:
            self.units += float(entry.get("CapacityUnits", 0.0))

    def reading(self) -> tuple[float, int]:
        return self.units, self.calls


@contextlib.contextmanager
def cloud_endpoint(directory: Path) -> Iterator[str]:
    from dynabase.server import start_subprocess

    server = start_subprocess(str(directory / "cloud.db"), args=["-q"])
    try:
        yield server.url
    finally:
        server.stop()  # by PID: the process this script started


def device_table(path: Path, name: str, schema: Any) -> Table:
    table = Table(name, dynabase.connect(str(path), ttl_sweep_seconds=None), schema, side="device")
    table.create_table()
    return table


def cloud_table(url: str, name: str, schema: Any) -> Table:
    table = Table(name, boto_client(url), schema, side="cloud")
    table.create_table()
    return table


def stored_items(client: Any, table: str) -> list[dict[str, Any]]:
    items, params = [], {"TableName": table}
    while True:
        page = client.scan(**params)
        items += page["Items"]
        if "LastEvaluatedKey" not in page:
            return items
        params["ExclusiveStartKey"] = page["LastEvaluatedKey"]


# -- the anchors: plain boto3 loops ---------------------------------------------------------------------------


def plain_push(client: Any, table: str, items: list[dict[str, Any]]) -> int:
    for item in items:
        client.put_item(TableName=table, Item=item)
    return len(items)


def plain_pull(client: Any, table: str, device: Any, device_table_name: str, scope: str) -> int:
    """Page a ``Query`` of the sync index over one scope, writing each item into the device database."""
    count, params = (
        0,
        {
            "TableName": table,
            "IndexName": SYNC_INDEX,
            "KeyConditionExpression": "#s = :s",
            "ExpressionAttributeNames": {"#s": SCOPE_ATTR},
            "ExpressionAttributeValues": {":s": {"S": scope}},
            "Limit": PAGE,
        },
    )
    while True:
        page = client.query(**params)
        for item in page["Items"]:
            device.put_item(TableName=device_table_name, Item=item)
            count += 1
        if "LastEvaluatedKey" not in page:
            return count
        params["ExclusiveStartKey"] = page["LastEvaluatedKey"]


# -- the measurements ------------------------------------------------------------------------------------------


def throughput(url: str, directory: Path, changes: int, tag: str = "", idle: bool = True) -> dict[str, Any]:
    """One round of the push and pull figures; ``tag`` names its tables and files apart from other rounds';
    ``idle`` also measures idle polls (it waits out the pull's overlap window)."""
    from dynabase.sync import Sync

    schema = load_schema(SCHEMA)
    source = device_table(directory / f"source{tag}.db", f"sync{tag}", schema)
    reading = source.model("Reading")
    for n in range(changes):
        reading.create({"deviceId": "d1", "id": f"{n:08d}", "value": n, "unit": "C", "note": "x" * 40})
    cloud = cloud_table(url, f"sync{tag}", schema)
    meter = CapacityMeter(cloud.client)
    sync = Sync(source, cloud, device_id="d1", batch_size=BATCH)
    push_seconds, pushed = timed(sync.push)
    push_units, push_calls = meter.reading()

    plain = boto_client(url)
    anchor = cloud_table(url, f"plain{tag}", schema)
    # exactly the items the push wrote (with the sync index's attributes)
    items = stored_items(plain, cloud.name)
    plain_push_seconds, _ = timed(lambda: plain_push(plain, anchor.name, items))

    target = device_table(directory / f"target{tag}.db", f"sync{tag}", schema)
    puller_cloud = Table(cloud.name, boto_client(url), schema, side="cloud")
    pull_meter = CapacityMeter(puller_cloud.client)
    puller = Sync(target, puller_cloud, device_id="d2", batch_size=BATCH)
    pull_seconds, pulled = timed(puller.pull)
    pull_units, pull_calls = pull_meter.reading()

    plain_device = dynabase.connect(str(directory / f"plain-target{tag}.db"), ttl_sweep_seconds=None)
    plain_device.create_table(**Table(anchor.name, plain_device, schema).get_table_definition())
    plain_pull_seconds, plain_pulled = timed(
        lambda: plain_pull(plain, anchor.name, plain_device, anchor.name, "Reading#")
    )

    polls = {}
    if idle:
        sync.sync_once()  # the pushing device's first pull (it reads its scope once)
        polls["right after the changes"] = idle_poll(sync, meter)  # they are inside the pull's overlap window
        time.sleep(sync.overlap_ms / 1000 + 1)
        polls["first after the overlap window"] = idle_poll(sync, meter)  # re-reads what preceded the last
        polls["steady"] = idle_poll(sync, meter)  # the previous poll began long after the last change
    return {
        "changes": changes,
        "push": {
            "items": pushed.pushed,
            "seconds": push_seconds,
            "items_per_s": pushed.pushed / push_seconds,
        },
        "push_anchor": {
            "items": len(items),
            "seconds": plain_push_seconds,
            "items_per_s": len(items) / plain_push_seconds,
        },
        "pull": {
            "items": pulled.pulled,
            "seconds": pull_seconds,
            "items_per_s": pulled.pulled / pull_seconds,
        },
        "pull_anchor": {
            "items": plain_pulled,
            "seconds": plain_pull_seconds,
            "items_per_s": plain_pulled / plain_pull_seconds,
        },
        "capacity": {
            "push_units_per_change": push_units / max(pushed.pushed, 1),
            "push_calls": push_calls,
            "pull_units_per_change": pull_units / max(pulled.pulled, 1),
            "pull_calls": pull_calls,
            "idle": polls,
            "overlap_seconds": sync.overlap_ms / 1000,
        },
    }


def best_of(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """The best round of each push and pull figure (a busy machine slows some rounds; the sync and its anchor
    run one after the other, so the best of each is the fairer pair); capacity from the last round."""
    best = dict(rounds[-1])
    for figure in ("push", "push_anchor", "pull", "pull_anchor"):
        best[figure] = max((r[figure] for r in rounds), key=lambda f: f["items_per_s"])
    best["rounds"] = len(rounds)
    return best


def idle_poll(sync: Any, meter: CapacityMeter) -> dict[str, float]:
    """One ``sync_once`` with nothing to push or pull: its capacity units, calls and time."""
    units, calls = meter.reading()
    seconds, result = timed(sync.sync_once)
    if result.pushed or result.pulled:
        raise RuntimeError(f"the idle poll was not idle: {result}")
    after_units, after_calls = meter.reading()
    return {"units": after_units - units, "calls": after_calls - calls, "seconds": seconds}


def write_burst(client: Any, table: str, count: int) -> None:
    """``count`` Reading items written as fast as BatchWriteItem goes, with the sync metadata a cloud writer
    gives them (docs/sync.md, "Other programs writing the cloud table")."""
    items = []
    for n in range(count):
        ms = int(time.time() * 1000)
        items.append(
            {
                "pk": {"S": "device#w"},
                "sk": {"S": f"reading#{n:08d}"},
                "_type": {"S": "Reading"},
                "deviceId": {"S": "w"},
                "id": {"S": f"{n:08d}"},
                "value": {"N": str(n)},
                "unit": {"S": "C"},
                "note": {"S": "x" * 40},
                VERSION_ATTR: {"S": make_version(ms, 0, "bench")},
                SEQ_ATTR: {"S": make_seq(ms, "bench")},
                SCOPE_ATTR: {"S": "Reading#"},
            }
        )
        if len(items) == 25 or n == count - 1:
            request = {table: [{"PutRequest": {"Item": item}} for item in items]}
            while request:
                request = client.batch_write_item(RequestItems=request).get("UnprocessedItems") or {}
            items = []


def burst_cost(url: str, directory: Path, burst: int, interval: float = 0.5) -> dict[str, Any]:
    """Read capacity a device running the sync loop spends on one burst: another device pushes ``burst`` items
    into the scope, then the loop polls every ``interval`` s for twice the overlap window (its re-reads of the
    burst end within it). Per poll: the units of its Queries (``ReturnConsumedCapacity=TOTAL``)."""
    import threading

    from dynabase.sync import Sync

    schema = load_schema(SCHEMA)
    cloud = cloud_table(url, "burst", schema)
    reader = device_table(directory / "burst-reader.db", "burst", schema)
    reader_cloud = Table(cloud.name, boto_client(url), schema, side="cloud")
    meter = CapacityMeter(reader_cloud.client)
    sync = Sync(reader, reader_cloud, device_id="r", batch_size=BATCH)
    sync.sync_once()  # the reader is in step before the burst
    write_burst(cloud.client, cloud.name, burst)
    polls: list[float] = []
    once = sync.sync_once

    def measured(*args: Any, **kwargs: Any) -> Any:  # the loop's sync_once, its units recorded
        units = meter.reading()[0]
        result = once(*args, **kwargs)
        polls.append(meter.reading()[0] - units)
        return result

    sync.sync_once = measured  # type: ignore[method-assign]
    stop = threading.Event()
    thread = threading.Thread(target=sync.run, kwargs={"interval": interval, "stop": stop}, daemon=True)
    thread.start()
    stop.wait(2 * sync.overlap_ms / 1000 + 2)
    stop.set()
    thread.join(30)
    idle = polls[1:]
    return {
        "burst": burst,
        "interval": interval,
        "first_poll_units": polls[0] if polls else 0.0,
        "idle_polls": len(idle),
        "idle_units_per_poll": sum(idle) / max(len(idle), 1),
        "idle_polls_reading": sum(1 for units in idle if units > 0),
        "units_per_burst": sum(idle),
        "overlap_seconds": sync.overlap_ms / 1000,
    }


def latency(url: str, directory: Path, samples: int, interval: float | None) -> dict[str, Any]:
    """Device → cloud and cloud → device visibility under ``dynabase sync --watch`` (``--interval`` when given;
    a random pause before each write keeps the samples from locking to the watcher's pull phase)."""
    import random

    rng = random.Random(1)
    schema = load_schema(SCHEMA)
    schema_file = directory / "schema.json"
    schema_file.write_text(json.dumps(SCHEMA))
    device = device_table(directory / "watch.db", "watch", schema)
    cloud = cloud_table(url, "watch", schema)
    flags = ["--watch", *(["--interval", str(interval)] if interval is not None else [])]
    command = sync_command(schema_file, directory / "watch.db", "watch", url, "w1", *flags)
    env = sync_env(access_key="bench")
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    up, down = [], []
    try:
        device_reading, cloud_reading = device.model("Reading"), cloud.model("Reading")
        wait_visible(lambda: True, 1.0)  # let the watcher start
        for n in range(samples):
            time.sleep(rng.uniform(0, interval or 1.0))
            key = {"deviceId": "w1", "id": f"up{n}"}
            started = time.perf_counter()
            device_reading.create({**key, "value": n})
            up.append(wait_visible(lambda key=key: cloud_reading.get(key) is not None, 10.0, started))
            key = {"deviceId": "w1", "id": f"down{n}"}
            time.sleep(rng.uniform(0, interval or 1.0))
            started = time.perf_counter()
            cloud_reading.create({**key, "value": n})
            down.append(wait_visible(lambda key=key: device_reading.get(key) is not None, 10.0, started))
            if process.poll() is not None:
                raise RuntimeError(
                    f"dynabase sync --watch exited {process.returncode}: {process.stderr.read()!r}"
                )
    finally:
        process.terminate()  # by PID
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return {
        "samples": samples,
        "interval": interval,
        "device_to_cloud": {"p50": percentile(up, 0.5), "p95": percentile(up, 0.95)},
        "cloud_to_device": {"p50": percentile(down, 0.5), "p95": percentile(down, 0.95)},
    }


def wait_visible(seen: Callable[[], bool], timeout: float, started: float | None = None) -> float:
    started = time.perf_counter() if started is None else started
    deadline = started + timeout
    while not seen():
        if time.perf_counter() > deadline:
            raise TimeoutError(f"not visible after {timeout} s")
        time.sleep(0.005)
    return time.perf_counter() - started


# -- the report ------------------------------------------------------------------------------------------------


def verdict(ok: bool) -> str:
    return "meets" if ok else "MISSES"


def report(figures: dict[str, Any]) -> str:
    lines = []
    t = figures.get("throughput")
    if t:
        lines.append(
            f"throughput, {t['changes']:,} changes, best of {t['rounds']} rounds "
            f"(items/s; goal sync/anchor >= {GOALS['throughput']}x)"
        )
        for op in ("push", "pull"):
            mine, anchor = t[op]["items_per_s"], t[f"{op}_anchor"]["items_per_s"]
            ratio = mine / anchor
            lines.append(
                f"  {op:5} sync {mine:9,.0f}/s ({t[op]['items']:,} in {t[op]['seconds']:.2f} s)   "
                f"boto3 loop {anchor:9,.0f}/s   ratio {ratio:5.2f}x  {verdict(ratio >= GOALS['throughput'])}"
            )
        c = t["capacity"]
        lines.append(
            f"capacity: push {c['push_units_per_change']:.2f} units/change ({c['push_calls']} calls), "
            f"pull {c['pull_units_per_change']:.3f} units/change ({c['pull_calls']} calls)"
        )
        for name, poll in c["idle"].items():
            lines.append(
                f"idle sync_once, {name} (overlap {c['overlap_seconds']:.0f} s): "
                f"{poll['units']:.1f} units in {poll['calls']} calls, {poll['seconds'] * 1000:.0f} ms"
            )
    b = figures.get("burst")
    if b:
        lines.append(
            f"burst of {b['burst']:,} items, one reader's loop (--interval {b['interval']}, overlap "
            f"{b['overlap_seconds']:.0f} s): first poll {b['first_poll_units']:.1f} RCU; "
            f"{b['idle_polls']} idle polls: {b['idle_units_per_poll']:.1f} RCU per idle poll, "
            f"{b['idle_polls_reading']} of them read, {b['units_per_burst']:.0f} RCU per burst in re-reads"
        )
    lat = figures.get("latency")
    if lat:
        interval = "its default --interval" if lat["interval"] is None else f"--interval {lat['interval']}"
        lines.append(
            f"latency under --watch ({interval}), {lat['samples']} samples each way "
            f"(goal p50 <= {GOALS['latency_p50']} s)"
        )
        for name in ("device_to_cloud", "cloud_to_device"):
            p50, p95 = lat[name]["p50"], lat[name]["p95"]
            lines.append(
                f"  {name.replace('_', ' '):16} p50 {p50:.3f} s   p95 {p95:.3f} s   "
                f"{verdict(p50 <= GOALS['latency_p50'])}"
            )
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    if load > (os.cpu_count() or 1):
        lines.append(f"note: load average {load:.1f} on {os.cpu_count()} CPUs: the machine was busy")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="2,000 changes and 10 latency samples")
    parser.add_argument(
        "--changes",
        type=int,
        default=None,
        help="changes pushed and pulled (default 10,000); with --mqtt, pushed by each of 4 devices (1,000)",
    )
    parser.add_argument("--samples", type=int, default=None, help="latency samples each way (default 30)")
    parser.add_argument(
        "--interval", type=float, default=None, help="--watch's pull interval (default: its own)"
    )
    parser.add_argument("--rounds", type=int, default=None, help="throughput rounds, best counts (default 2)")
    parser.add_argument("--burst", type=int, default=None, help="items in the burst (default 5,000)")
    parser.add_argument("--skip", default="", help="comma separated: throughput,burst,latency")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    fleet = parser.add_argument_group("--mqtt: a fleet through a hub over MQTT, against direct mode")
    fleet.add_argument("--mqtt", action="store_true", help="measure sync over MQTT (see above) instead")
    fleet.add_argument(
        "--devices", type=int, default=None, help="devices over MQTT (default 500, --quick 50)"
    )
    fleet.add_argument(
        "--direct-devices", type=int, default=None, help="devices polling directly (default 50, --quick 10)"
    )
    fleet.add_argument("--processes", type=int, default=4, help="processes the devices run in (default 4)")
    fleet.add_argument(
        "--window", type=float, default=None, help="seconds of each idle window (default 30, --quick 10)"
    )
    fleet.add_argument(
        "--all-loops",
        action="store_true",
        help="every MQTT device runs Sync.run (default: the measured ones; the others are stepped by one thread "
        "per process, which applies what they receive without looking at their empty change logs)",
    )
    fleet.add_argument(
        "--hub-poll",
        type=float,
        default=0.2,
        help="the hub's --poll of an idle stream (default: its own, 0.2)",
    )
    options = parser.parse_args(argv)
    for name in ("devices", "direct_devices", "processes", "samples", "rounds", "changes"):
        if getattr(options, name) is not None and getattr(options, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    for name in ("window", "hub_poll"):
        if getattr(options, name) is not None and getattr(options, name) <= 0:
            parser.error(f"--{name.replace('_', '-')} must be above 0")
    if options.mqtt:
        from sync_fleet import run

        return run(options)
    changes = options.changes or (2000 if options.quick else 10000)
    samples = options.samples or (10 if options.quick else 30)
    skip = {s.strip() for s in options.skip.split(",") if s.strip()}
    options.rounds = options.rounds or (1 if options.quick else 2)
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="dynabase-sync-bench-") as temp:
        directory = Path(temp)
        with cloud_endpoint(directory) as url:
            if "throughput" not in skip:
                last = options.rounds - 1
                rounds = [
                    throughput(url, directory, changes, f"-{n}", n == last) for n in range(options.rounds)
                ]
                figures["throughput"] = best_of(rounds)
            if "burst" not in skip:
                figures["burst"] = burst_cost(
                    url, directory, options.burst or (1000 if options.quick else 5000)
                )
            if "latency" not in skip:
                figures["latency"] = latency(url, directory, samples, options.interval)
    print(report(figures))
    if options.json:
        Path(options.json).write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
