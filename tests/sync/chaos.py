"""The convergence harness: devices and a cloud, random writes and syncs through faulty links, and a checker.

A :class:`Fleet` is the devices of a test module: each with its own device database file, a settable clock skew
(the engine ``clock=`` of its connection; ``DYNABASE_CLOCK_SKEW`` for its ``dynabase sync`` processes), and a
:class:`~dynabase.testing.faultproxy.FaultProxy` between it and the cloud endpoint (``dynabase serve`` or DynamoDB Local).
A :class:`World` is one schedule on it: fresh tables of one name in the cloud and on every device, a cloud app
writing through the entity layer (in process, or a :class:`CloudApp` process with a skewed clock), and a
``Sync`` per device. :func:`run_schedule` drives a seeded random schedule over it; :class:`History` records every acknowledged write with its true time
(``time.time()`` before the call and after the answer) and what its writer knew, and computes independently what
every replica must hold once the links heal and everyone has synced; :func:`check` compares item for item.

Expected state, per model role (see ``SCHEMA``):

* ``Up`` (``sync: up``, written by devices): the cloud holds a last-writer-wins winner of all device writes; each
  device holds its own last write.
* ``Down`` (``sync: down``, scope ``${deviceId}``, written by the cloud): the cloud holds its last write; a device
  holds exactly the cloud's item when the item's ``deviceId`` is its own, nothing otherwise — its own raw writes of
  the model included: sync undoes them (the entity layer refuses them).
* ``Both`` (written everywhere): every replica holds the same item, a last-writer-wins winner of all writes.
* ``Local`` (``sync: none``): each replica holds its own last write. ``Status`` (cloud only) and ``Diag``
  (device only) never leave their side.

Last writer wins by *true* time within the documented clock tolerance: a write is a possible winner unless a
later write of the same replica, a write that began more than the tolerance after it ended, or a write made by a
device that had already received it (causality) supersedes it. Deletes are tombstones: a deleted key holds
nothing unless a write that may win re-creates it. Sync metadata attributes are ignored; everything else is
compared exactly; and the cloud's version of a synced item must name the replica that wrote the winning content
(a pulled change echoed back up would carry the echoing device's name).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import boto3
from botocore.config import Config

import dynabase
from dynabase.clock import DELETED_ATTR, SYNC_ATTRS, VERSION_ATTR
from dynabase.model import Table
from dynabase.schema import load_schema
from dynabase.testing.faultproxy import FaultProxy

REGION = "us-east-1"
CREDENTIALS = {"aws_access_key_id": "chaos", "aws_secret_access_key": "chaos"}
CLOUD = "cloud"
TYPE = "_type"

SCHEMA: dict[str, Any] = {
    "format": "onetable:1.1.0",
    "version": "0.0.1",
    "indexes": {"primary": {"hash": "pk", "sort": "sk"}},
    "models": {
        name: {
            "pk": {"type": "string", "value": f"{name.lower()}#${{id}}"},
            "sk": {"type": "string", "value": f"{name.lower()}#" + ("${deviceId}" if name == "Down" else "")},
            "id": {"type": "string", "required": True},
            **({"deviceId": {"type": "string", "required": True}} if name == "Down" else {}),
            "n": {"type": "number"},
            "note": {"type": "string"},
            "flag": {"type": "boolean"},
        }
        for name in ("Up", "Down", "Both", "Local", "Status", "Diag")
    },
    "params": {"isoDates": True, "timestamps": True},
    "process": {
        "Up": {"sync": "up"},
        "Down": {"sync": "down", "scope": "${deviceId}"},
        "Both": {"sync": "both"},
        "Local": {"sync": "none"},
        "Status": {"enable": "cloud"},
        "Diag": {"enable": "device"},
    },
}
DEVICE_WRITES = ("Up", "Both", "Local", "Diag")
CLOUD_WRITES = ("Down", "Both", "Local", "Status")
#: device writes also made through the raw client, to prove capture (and, for Down, that sync undoes them)
RAW_WRITES = ("Up", "Both", "Down")
IDS = ("a", "b", "c")  # a small key space per model: writers collide
OTHER_DEVICE = "dev-elsewhere"  # Down items scoped to a device that is not in the schedule

Key = tuple[str, str]
Item = dict[str, Any]


def clock_tolerance() -> float:
    """Seconds within which two writes to one key on different replicas may win either way.

    ``docs/sync.md`` states "about 1 s plus the round trip" (each device's offset is measured from the endpoint's
    one-second ``Date`` header); 1.5 s here, or ``dynabase.sync.CLOCK_TOLERANCE`` if the library exports one.
    """
    import dynabase.sync

    return float(getattr(dynabase.sync, "CLOCK_TOLERANCE", 1.5))


# -- the history of acknowledged writes ------------------------------------------------------------------------


@dataclass(frozen=True)
class Write:
    """One acknowledged write: who, what, when (true time bounds) and what the writer had seen."""

    id: int
    replica: str
    model: str
    key: Key
    #: the item as its writer stored it right after the write (metadata stripped); None: deleted
    item: Item | None
    t0: float
    t1: float
    known: frozenset[int] = frozenset()

    def describe(self) -> str:
        state = (
            "delete"
            if self.item is None
            else f"n={_plain(self.item.get('n'))} note={_plain(self.item.get('note'))}"
        )
        return f"w{self.id} {self.replica} {self.model} {self.key[0]}|{self.key[1]} {state} @{self.t0:.3f}-{self.t1:.3f}"


def _plain(value: Any) -> Any:
    return None if value is None else next(iter(value.values()))


@dataclass
class History:
    """Acknowledged writes, and lower bounds of what reached the cloud and what each device has received."""

    devices: list[str]
    tolerance: float
    writes: list[Write] = field(default_factory=list)
    in_cloud: set[int] = field(default_factory=set)
    received: dict[str, set[int]] = field(default_factory=dict)
    _ids: Iterable[int] = field(default_factory=itertools.count)

    def __post_init__(self) -> None:
        for device in self.devices:
            self.received.setdefault(device, set())

    def record(self, replica: str, model: str, key: Key, item: Item | None, t0: float, t1: float) -> Write:
        known = frozenset() if replica == CLOUD else frozenset(self.received[replica])
        write = Write(next(self._ids), replica, model, key, item, t0, t1, known)  # type: ignore[call-overload]
        self.writes.append(write)
        if replica == CLOUD:
            self.in_cloud.add(write.id)
        else:
            self.received[replica].add(write.id)
        return write

    def snapshot(self, device: str) -> tuple[set[int], set[int]]:
        """Taken when a sync of ``device`` starts: its own writes so far, and what the cloud held."""
        own = {w.id for w in self.writes if w.replica == device}
        return own, set(self.in_cloud)

    def synced(self, device: str, snapshot: tuple[set[int], set[int]]) -> None:
        """A sync of ``device`` that started at ``snapshot`` finished: its pending writes reached the cloud and
        everything the cloud held then (for the models it pulls) reached it."""
        own, cloud = snapshot
        pushed = {w.id for w in self.writes if w.id in own and w.model in ("Up", "Both")}
        self.in_cloud |= pushed
        pulled = {w.id for w in self.writes if w.id in cloud and self._reaches(w, device)}
        self.received[device] |= pulled

    @staticmethod
    def _reaches(write: Write, device: str) -> bool:
        if write.model == "Both":
            return True
        return write.model == "Down" and write.key[1] == f"down#{device}"

    # -- what each replica must hold ------------------------------------------------------------------------

    def winners(self, writes: list[Write]) -> list[Write]:
        """The writes that may be the last writer: those no other write supersedes."""

        def superseded(w: Write) -> bool:
            return any(
                (o.replica == w.replica and o.id > w.id) or o.t0 > w.t1 + self.tolerance or w.id in o.known
                for o in writes
                if o is not w
            )

        return [w for w in writes if not superseded(w)]

    def last_of(self, replica: str, model: str, key: Key) -> list[Write]:
        own = [w for w in self.writes if w.replica == replica and w.model == model and w.key == key]
        return own[-1:]

    def keys(self, model: str) -> set[Key]:
        return {w.key for w in self.writes if w.model == model}


# -- the world: a cloud, devices, links ------------------------------------------------------------------------


def boto_client(url: str, *, timeout: float = 2.0, attempts: int = 3) -> Any:
    return boto3.client(
        "dynamodb",
        endpoint_url=url,
        region_name=REGION,
        config=Config(
            retries={"total_max_attempts": attempts, "mode": "standard"},
            connect_timeout=timeout,
            read_timeout=timeout,
            max_pool_connections=4,
        ),
        **CREDENTIALS,
    )


class SkewedClock:
    """A device's clock: the true time plus a skew a schedule sets."""

    def __init__(self) -> None:
        self.skew = 0.0

    def __call__(self) -> float:
        return time.time() + self.skew


@dataclass
class Slot:
    """A device that outlives schedules: its database file, clock, link (a fault proxy) and link client."""

    name: str
    path: Path
    clock: SkewedClock
    proxy: FaultProxy
    client: Any  # the embedded client of the device database, stamping captured changes with ``clock``
    links: dict[int, Any]  # boto3 clients through ``proxy``, by botocore's max_attempts (1: no retries)

    @property
    def skew(self) -> float:
        return self.clock.skew


class Fleet:
    """The devices and their links to one cloud endpoint, reused by every schedule (each uses its own table)."""

    def __init__(self, endpoint: str, directory: Path, devices: int = 3) -> None:
        self.endpoint = endpoint
        self.directory = directory
        self.cloud_client = boto_client(endpoint, timeout=30)  # no faults here; DynamoDB Local can be slow
        self.slots: list[Slot] = []
        for index in range(devices):
            name, clock = f"dev-{index}", SkewedClock()
            proxy = FaultProxy(endpoint, idle_timeout=10, lifetime=3600).start()
            path = directory / f"{name}.db"
            client = dynabase.connect(str(path), clock=clock, ttl_sweep_seconds=None)
            links = {n: boto_client(proxy.url, timeout=0.5, attempts=n) for n in (1, 3)}
            self.slots.append(Slot(name, path, clock, proxy, client, links))

    def close(self) -> None:
        for slot in self.slots:
            slot.proxy.stop()
            with contextlib.suppress(Exception):
                slot.client.close()


@dataclass
class Device:
    name: str
    slot: Slot
    table: Table  # side="device"
    sync: Any  # dynabase.sync.Sync over ``table`` and the cloud table through the slot's link

    @property
    def client(self) -> Any:
        return self.slot.client

    @property
    def proxy(self) -> FaultProxy:
        return self.slot.proxy


class World:
    """One schedule's replicas: a fresh cloud table and device tables of that name, on a :class:`Fleet`."""

    def __init__(self, fleet: Fleet, table_name: str, skews: Iterable[float], attempts: int = 1) -> None:
        from dynabase.sync import Sync

        self.fleet = fleet
        self.table_name = table_name
        self.schema = load_schema(SCHEMA)
        self.cloud = Table(table_name, fleet.cloud_client, self.schema, side=CLOUD)
        self.cloud.create_table()
        self.devices: list[Device] = []
        for slot, skew in zip(fleet.slots, skews, strict=True):
            slot.clock.skew = skew
            slot.proxy.heal()
            table = Table(table_name, slot.client, self.schema, side="device")
            table.create_table()
            remote = Table(table_name, slot.links[attempts], self.schema, side=CLOUD)
            self.devices.append(
                Device(slot.name, slot, table, Sync(table, remote, device_id=slot.name, batch_size=25))
            )
        self.history = History([d.name for d in self.devices], clock_tolerance())
        self.last_stderr = ""
        self.closed = False

    def close(self) -> None:
        """Drop the schedule's tables (once)."""
        if self.closed:
            return
        self.closed = True
        for device in self.devices:
            with contextlib.suppress(Exception):
                device.table.delete_table(confirmation="DeleteTableForever")
        with contextlib.suppress(Exception):
            self.cloud.delete_table(confirmation="DeleteTableForever")

    def device(self, name: str) -> Device:
        return next(d for d in self.devices if d.name == name)

    # -- writes ---------------------------------------------------------------------------------------------

    def replica_client(self, replica: str) -> Any:
        return self.cloud.client if replica == CLOUD else self.device(replica).client

    def read(self, replica: str, key: Key) -> Item | None:
        client = self.replica_client(replica)
        item = client.get_item(TableName=self.table_name, Key=dynamo_key(key), ConsistentRead=True).get(
            "Item"
        )
        return visible(item)

    def entity_write(self, replica: str, model: str, op: str, props: dict[str, Any]) -> Write:
        table = self.cloud if replica == CLOUD else self.device(replica).table
        entity = table.model(model)
        key = key_of(model, props)
        t0 = time.time()
        if op == "create":
            entity.create(props)
        elif op == "update":
            entity.update(props)
        else:
            entity.remove(props)
        t1 = time.time()
        return self.history.record(replica, model, key, self.read(replica, key), t0, t1)

    def cloud_app(self, skew: float) -> CloudApp:
        """Another cloud app writing the cloud table through the entity layer: a process of its own, whose clock
        is ``skew`` seconds off, started now and ready to write at once (``app.write(...)``; close it after)."""
        return CloudApp(self, skew)

    def raw_write(self, device: str, model: str, op: str, props: dict[str, Any]) -> Write:
        """A device write through the raw client (no entity layer): capture must still see it."""
        client, key = self.device(device).client, key_of(model, props)
        now = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
        t0 = time.time()
        if op == "create":
            item = {**dynamo_key(key), TYPE: {"S": model}, "id": {"S": props["id"]}, "created": {"S": now}}
            item.update({"updated": {"S": now}, **_attributes(props)})
            if "deviceId" in props:
                item["deviceId"] = {"S": props["deviceId"]}
            client.put_item(TableName=self.table_name, Item=item)
        elif op == "update":
            attributes = {"updated": {"S": now}, **_attributes(props)}
            client.update_item(
                TableName=self.table_name,
                Key=dynamo_key(key),
                UpdateExpression="SET " + ", ".join(f"#{k} = :{k}" for k in attributes),
                ExpressionAttributeNames={f"#{k}": k for k in attributes},
                ExpressionAttributeValues={f":{k}": v for k, v in attributes.items()},
            )
        else:
            client.delete_item(TableName=self.table_name, Key=dynamo_key(key))
        t1 = time.time()
        return self.history.record(device, model, key, self.read(device, key), t0, t1)

    # -- syncs ----------------------------------------------------------------------------------------------

    def sync_in_process(self, name: str, how: str = "once") -> Any:
        """One in-process sync of a device; the history learns what it guarantees only when it finishes."""
        device = self.device(name)
        snapshot = self.history.snapshot(name)
        if how == "async":
            result = asyncio.run(device.sync.async_sync_once())
        elif how == "push+pull":
            result = device.sync.push()
            result.add(device.sync.pull())
        else:
            result = device.sync.sync_once()
        self.history.synced(name, snapshot)
        return result

    def sync_subprocess(self, name: str, kill_after: float | None, schema_file: Path) -> int | None:
        """``dynabase sync --once`` for a device, through its proxy, with its clock skew; SIGKILLed after
        ``kill_after`` seconds unless it ended first. Its exit code, or None when it was killed."""
        device = self.device(name)
        snapshot = self.history.snapshot(name)
        process = subprocess.Popen(
            sync_command(schema_file, device.slot.path, self.table_name, device.proxy.url, name),
            env=sync_env(device.slot.skew),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        try:
            process.wait(timeout=kill_after if kill_after is not None else 60)
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGKILL)  # by PID: the process this call started
            process.wait()
            return None
        finally:
            if process.stderr is not None:
                self.last_stderr = process.stderr.read().decode(errors="replace")
                process.stderr.close()
        if process.returncode not in (0, 1):  # 1: could not finish (a fault); anything else is a failure
            raise AssertionError(f"dynabase sync --once exited {process.returncode}: {self.last_stderr}")
        if process.returncode == 0:
            self.history.synced(name, snapshot)
        return process.returncode

    def heal_and_sync(self, max_rounds: int = 5) -> None:
        """Heal every link, then sync every device in turn until a round in which nobody pushed anything and
        everyone is in step (at least two rounds: the first pushes, the second brings everyone the others')."""
        for device in self.devices:
            device.proxy.heal()
        for round_ in range(1, max_rounds + 1):
            results = [self.sync_in_process(d.name) for d in self.devices]
            if round_ >= 2 and all(r.in_step and not r.pushed for r in results):
                return
        raise AssertionError(f"not in step after {max_rounds} healed rounds: {results}")


class CloudApp:
    """See :meth:`World.cloud_app`: one write per line on its stdin, answered on its stdout."""

    PROGRAM = (
        "import json, sys, boto3; from dynabase.model import Table; from dynabase.schema import load_schema\n"
        "url, name, schema = json.loads(sys.argv[1])\n"
        f"client = boto3.client('dynamodb', endpoint_url=url, region_name='{REGION}')\n"
        "table = Table(name, client, load_schema(schema), side='cloud')\n"
        "client.describe_table(TableName=name)\n"
        "print('ready', flush=True)\n"
        "for line in sys.stdin:\n"
        "    model, op, props = json.loads(line)\n"
        "    getattr(table.model(model), op)(props)\n"
        "    print('done', flush=True)\n"
    )

    def __init__(self, world: World, skew: float) -> None:
        self.world = world
        argument = json.dumps([world.fleet.endpoint, world.table_name, SCHEMA])
        self.process = subprocess.Popen(
            [sys.executable, "-c", self.PROGRAM, argument],
            env=sync_env(skew),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        if self._answer() != "ready":
            raise AssertionError(f"the cloud app did not start (exit {self.process.wait()})")

    def _answer(self) -> str:
        assert self.process.stdout is not None
        return self.process.stdout.readline().strip()

    def write(self, model: str, op: str, props: dict[str, Any]) -> Write:
        assert self.process.stdin is not None
        t0 = time.time()
        self.process.stdin.write(json.dumps([model, op, props]) + "\n")
        self.process.stdin.flush()
        if self._answer() != "done":
            raise AssertionError(f"the cloud app's {op} of {model} failed (exit {self.process.wait()})")
        t1 = time.time()
        key = key_of(model, props)
        return self.world.history.record(CLOUD, model, key, self.world.read(CLOUD, key), t0, t1)

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()  # by PID: the process this object started
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


def _attributes(props: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if "n" in props:
        out["n"] = {"N": str(props["n"])}
    if "note" in props:
        out["note"] = {"S": props["note"]}
    if "flag" in props:
        out["flag"] = {"BOOL": props["flag"]}
    return out


def key_of(model: str, props: dict[str, Any]) -> Key:
    lower = model.lower()
    return f"{lower}#{props['id']}", f"{lower}#" + (props["deviceId"] if model == "Down" else "")


def dynamo_key(key: Key) -> dict[str, Any]:
    return {"pk": {"S": key[0]}, "sk": {"S": key[1]}}


def visible(item: Item | None) -> Item | None:
    """An item as the checker compares it: sync metadata stripped; a tombstone is no item."""
    if item is None or DELETED_ATTR in item:
        return None
    return {name: value for name, value in item.items() if name not in SYNC_ATTRS}


def sync_command(schema_file: Path, db: Path, table: str, url: str, device_id: str, *flags: str) -> list[str]:
    """``dynabase sync`` of one device against ``url`` in a child Python (``flags``: ``--once`` unless given)."""
    return [
        sys.executable,
        "-m",
        "dynabase",
        "sync",
        str(schema_file),
        "--db",
        str(db),
        "--table",
        table,
        "--endpoint-url",
        url,
        "--region",
        REGION,
        "--device-id",
        device_id,
        *(flags or ("--once",)),
    ]


def sync_env(skew: float | None = None, access_key: str = "chaos") -> dict[str, str]:
    """The child's environment: fake credentials, this tree's ``src`` first, the clock skew when given."""
    src = str(Path(__file__).resolve().parents[2] / "src")
    env = {**os.environ, "AWS_ACCESS_KEY_ID": access_key, "AWS_SECRET_ACCESS_KEY": access_key}
    env["PYTHONPATH"] = os.pathsep.join([src, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    if skew is not None:
        env["DYNABASE_CLOCK_SKEW"] = repr(skew)
    return env


def write_schema(directory: Path) -> Path:
    path = directory / "chaos-schema.json"
    if not path.exists():
        path.write_text(json.dumps(SCHEMA))
    return path


# -- a random schedule -----------------------------------------------------------------------------------------


@dataclass
class Plan:
    """The knobs of one schedule (drawn from its seed)."""

    steps: int = 14
    fault_rate: float = 0.3
    subprocess_syncs: int = 0  # how many syncs run as a ``dynabase sync --once`` killed at a random moment
    blackhole_rate: float = 0.02  # share of steps that blackhole a link for a moment
    attempts: int = 1  # botocore's max_attempts on the links (its retries back off for up to seconds)
    skews: tuple[float, ...] = (0.0, 600.0, -600.0)
    cloud_app_skew: float | None = None  # half the cloud writes come from a cloud app process with this skew


def run_schedule(world: World, rng: random.Random, plan: Plan, schema_file: Path, log: list[str]) -> None:
    """Random writes on every side and syncs through faulty links; then heal and sync."""
    faults = ("drop", "delay", "reset", "close_after_request", "cut")
    for device in world.devices:
        share = plan.fault_rate * rng.random()
        weights = [rng.random() for _ in faults]
        device.proxy.set_rates({k: share * w / sum(weights) for k, w in zip(faults, weights, strict=True)})
        device.proxy.rng.seed(rng.random())
    kills = set(rng.sample(range(plan.steps), min(plan.subprocess_syncs, plan.steps)))
    app = world.cloud_app(plan.cloud_app_skew) if plan.cloud_app_skew is not None else None
    try:
        _steps(world, rng, plan, schema_file, log, kills, app)
    finally:
        if app is not None:
            app.close()
    world.heal_and_sync()
    log.append("healed and synced")


def _steps(
    world: World,
    rng: random.Random,
    plan: Plan,
    schema_file: Path,
    log: list[str],
    kills: set[int],
    app: CloudApp | None,
) -> None:
    from dynabase.sync import SyncError

    for step in range(plan.steps):
        roll = rng.random()
        name = rng.choice(world.devices).name
        if step in kills:
            kill_after = rng.uniform(0.05, 1.5)
            code = world.sync_subprocess(name, kill_after, schema_file)
            log.append(f"subprocess sync {name} kill_after={kill_after:.2f}s -> {code}")
        elif roll < 0.3:
            how = rng.choice(("once", "once", "async", "push+pull"))
            try:
                result = world.sync_in_process(name, how)
                log.append(f"sync {name} {how} -> {result}")
            except SyncError as error:
                log.append(f"sync {name} {how} -> SyncError {error}")
        elif roll < 0.3 + plan.blackhole_rate:
            seconds = rng.uniform(0.1, 0.4)
            world.device(name).proxy.blackhole(seconds)
            log.append(f"blackhole {name} {seconds:.2f}s")
        elif roll < 0.33 + plan.blackhole_rate and world.device(name).sync.pending() == 0:
            # NTP steps the device clock (nothing pending: no captured change straddles the step; one that
            # does is ordered by the step's size, docs/sync.md "What is not guaranteed")
            skew = rng.choice((0.0, 3.0, -3.0, 600.0, -600.0))
            world.device(name).slot.clock.skew = skew
            log.append(f"clock of {name} stepped to skew {skew:+.0f}s")
        elif roll < 0.65:
            elsewhere = app if rng.random() < 0.5 else None
            log.append(
                random_write(world, rng, CLOUD, app=elsewhere).describe() + (" (app)" if elsewhere else "")
            )
        else:
            log.append(random_write(world, rng, name, raw=rng.random() < 0.3).describe())


def random_write(
    world: World, rng: random.Random, replica: str, raw: bool = False, app: CloudApp | None = None
) -> Write:
    model = rng.choice(RAW_WRITES if raw else (CLOUD_WRITES if replica == CLOUD else DEVICE_WRITES))
    props: dict[str, Any] = {"id": rng.choice(IDS)}
    if model == "Down":
        props["deviceId"] = rng.choice([*(d.name for d in world.devices), OTHER_DEVICE])
    exists = world.read(replica, key_of(model, props)) is not None
    op = rng.choice(("update", "update", "remove")) if exists else "create"
    if op != "remove":
        props["n"] = rng.randrange(1000)
        if rng.random() < 0.5:
            props["note"] = rng.choice(("", "x", "hello", "ünïcode"))
        if rng.random() < 0.3:
            props["flag"] = rng.random() < 0.5
    if raw:
        return world.raw_write(replica, model, op, props)
    if app is not None:
        return app.write(model, op, props)
    return world.entity_write(replica, model, op, props)


# -- the checker -----------------------------------------------------------------------------------------------


def scan(client: Any, table: str, strip: bool = True) -> dict[Key, Item]:
    """Every item of the schedule's models in a table, by key, as the checker compares them (tombstones out;
    with ``strip=False`` live items keep their sync metadata)."""
    items: dict[Key, Item] = {}
    params: dict[str, Any] = {"TableName": table, "ConsistentRead": True}
    while True:
        page = client.scan(**params)
        for raw in page.get("Items", []):
            if raw.get(TYPE, {}).get("S") in SCHEMA["models"]:
                item = visible(raw)
                if item is not None:
                    items[(raw["pk"]["S"], raw["sk"]["S"])] = item if strip else raw
        if "LastEvaluatedKey" not in page:
            return items
        params["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def check(world: World) -> list[str]:
    """Every difference between what each replica holds and what it must hold, as readable lines."""
    history = world.history
    cloud = scan(world.cloud.client, world.table_name)
    cloud_raw = scan(world.cloud.client, world.table_name, strip=False)
    devices = {d.name: scan(d.client, world.table_name) for d in world.devices}
    problems: list[str] = []

    def expect(where: str, key: Key, actual: Item | None, allowed: list[Write], why: str) -> None:
        states = [w.item for w in allowed] or [None]
        if actual in states:
            return
        if actual is not None and all(s is None for s in states):
            kind = "resurrected" if allowed else "unexpected"
        elif actual is None:
            kind = "lost"
        else:
            kind = "wrong version"
        options = ", ".join(w.describe() for w in allowed) or "absent"
        problems.append(f"{where} {key[0]}|{key[1]}: {kind}: holds {actual}; {why} allows {options}")

    def expect_writer(key: Key, allowed: list[Write]) -> None:
        """The cloud's version of a synced item names the replica that wrote the winning content: a pulled
        change echoed back up would carry the echoing device's name."""
        raw = cloud_raw.get(key)
        node = raw.get(VERSION_ATTR, {}).get("S", "").split(".", 2)[-1] if raw else None
        writers = {w.replica for w in allowed if w.item == cloud.get(key)}
        if raw is not None and node not in writers:
            problems.append(
                f"{CLOUD} {key[0]}|{key[1]}: version {raw.get(VERSION_ATTR)} names {node!r}, not {writers}"
            )

    for model in SCHEMA["models"]:
        keys = history.keys(model) | {k for k, v in cloud.items() if v[TYPE]["S"] == model}
        for items in devices.values():
            keys |= {k for k, v in items.items() if v[TYPE]["S"] == model}
        for key in sorted(keys):
            writes = [w for w in history.writes if w.model == model and w.key == key]
            if model in ("Up", "Both"):
                allowed = history.winners(writes)
            elif model == "Diag":
                allowed = []
            else:  # Down, Local, Status: the cloud's own last write
                allowed = history.last_of(CLOUD, model, key)
            expect(CLOUD, key, cloud.get(key), allowed, f"{model} last-writer-wins")
            if model in ("Up", "Down", "Both"):
                expect_writer(key, allowed)
            for name, items in devices.items():
                actual = items.get(key)
                if model in ("Up", "Local", "Diag"):
                    expect(name, key, actual, history.last_of(name, model, key), f"{model} own last write")
                elif model == "Status":
                    expect(name, key, actual, [], "a cloud-only model")
                elif model == "Down" and key[1] != f"down#{name}":
                    expect(name, key, actual, [], "out of scope")
                elif actual != cloud.get(key):  # Both, and Down in scope: exactly the cloud's item
                    problems.append(
                        f"{name} {key[0]}|{key[1]}: differs from the cloud: {actual} != {cloud.get(key)}"
                    )
    return problems
