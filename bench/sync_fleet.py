"""``sync_bench.py --mqtt``: a fleet of simulated devices syncing through a hub over MQTT, against direct mode.

Everything is started here and stopped by PID: ``dynabase serve`` (the cloud table, its stream on; a request log
line per request, which is how requests are counted), Mosquitto (``tests/hub/broker.py``'s: a free loopback
port, a password file and the protocol's ACL), ``dynabase sync-hub``, and the fleet: ``--processes`` processes
of ``fleet_worker.py``, each running its share of the devices (one device database file and one ``Sync.run``
thread each). See ``sync_bench.py``'s docstring for the figures and ``bench/README.md`` for the method.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sync_bench import REPO, boto_client, percentile, verdict

sys.path.insert(0, str(REPO / "tests"))  # the broker and child-process helpers the hub tests use

from hub.broker import HUB_USER, Broker, ensure_mosquitto  # noqa: E402
from processes import dynabase_command  # noqa: E402

TABLE = "fleet"
ANCHOR = "fleet-anchor"  # the push anchor's table: the same definition, no hub reading its stream
GOALS = {"idle_requests": 0, "p50": 0.1, "p99": 0.5, "push": 0.8}
#: the operations the hub makes to read the table's stream (its own, whatever the devices do)
STREAM_OPS = {"DescribeStream", "GetShardIterator", "GetRecords", "ListStreams"}
#: a hang guard for one latency sample (a sample not seen by then is counted as missed)
SAMPLE_TIMEOUT = 30.0
SCHEMA: dict[str, Any] = {
    "format": "onetable:1.1.0",
    "version": "0.0.1",
    "indexes": {"primary": {"hash": "pk", "sort": "sk"}},
    "params": {"isoDates": True, "timestamps": True},
    "process": {"Reading": {"sync": "both", "scope": "${deviceId}"}, "Note": {"sync": "both"}},
    "models": {
        "Reading": {
            "pk": {"type": "string", "value": "dev#${deviceId}"},
            "sk": {"type": "string", "value": "reading#${id}"},
            "deviceId": {"type": "string", "required": True},
            "id": {"type": "string", "required": True},
            "value": {"type": "number"},
            "note": {"type": "string"},
        },
        "Note": {
            "pk": {"type": "string", "value": "note#"},
            "sk": {"type": "string", "value": "note#${id}"},
            "id": {"type": "string", "required": True},
            "text": {"type": "string"},
        },
    },
}


def secret(name: str) -> str:
    return f"bench-{name}"


# -- processes: their CPU and memory, read from /proc --------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


class RequestLog:
    """The server's request log (a ``ts=... op=... table=...`` line per request): counts over a window."""

    def __init__(self, path: str) -> None:
        self.path = path

    def mark(self) -> int:
        return os.path.getsize(self.path)

    def since(self, offset: int) -> Counter[tuple[str, str]]:
        """``(op, table)`` -> requests logged since ``offset``."""
        with open(self.path, "rb") as handle:
            handle.seek(offset)
            text = handle.read().decode("utf-8", "replace")
        counts: Counter[tuple[str, str]] = Counter()
        for line in text.splitlines():
            fields = dict(part.split("=", 1) for part in line.split() if "=" in part)
            if "op" in fields:
                counts[(fields["op"], fields.get("table", "-"))] += 1
        return counts


class Worker:
    """A ``fleet_worker.py`` process: commands as JSON lines on its stdin, events read from its stdout."""

    def __init__(self, command: list[str]) -> None:
        env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
        )
        self.events: list[dict[str, Any]] = []
        self.changed = threading.Condition()
        self.errors: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_errors, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            with self.changed:
                self.events.append(json.loads(line))
                self.changed.notify_all()
        with self.changed:
            self.events.append({"event": "exited"})
            self.changed.notify_all()

    def _read_errors(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.errors = [*self.errors[-20:], line.rstrip()]

    def send(self, **command: Any) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()

    def wait(self, event: str, timeout: float, **match: Any) -> dict[str, Any] | None:
        """The first ``event`` whose fields include ``match`` (None after ``timeout`` s)."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                for seen in self.events:
                    if seen["event"] == event and all(seen.get(k) == v for k, v in match.items()):
                        return seen
                    if seen["event"] == "exited":
                        raise RuntimeError(f"a fleet process exited: {' | '.join(self.errors)}")
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.changed.wait(left)

    def stop(self) -> dict[str, Any]:
        with contextlib.suppress(OSError, ValueError):
            self.send(cmd="stop")
        stopped = self.wait("stopped", 120) or {}
        if self.process.poll() is None:
            self.process.terminate()  # by PID: the process this script started
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        return stopped


class Probe:
    """A subscriber of the table's shared topics in this (quiet) process, as the hub's user: when each note
    left the hub through the broker, apart from the time the simulated devices take to see it."""

    def __init__(self, url: str) -> None:
        from dynabase.sync import wire
        from dynabase.sync.mqtt import Link

        self.arrived: dict[str, float] = {}
        self.link = Link(url, "bench-probe", username=HUB_USER, password=secret(HUB_USER), persistent=False)
        self.link.on_connect = lambda: self.link.subscribe(wire.shared_topic(TABLE, "+"))
        self.link.on_message = self._message
        self.link.start()
        if not self.link.connected.wait(30):
            raise RuntimeError(f"the probe cannot connect to {url}: {self.link.last_error}")

    def _message(self, topic: str, payload: bytes) -> None:
        at = time.time()
        for item in json.loads(payload).get("items") or []:
            self.arrived.setdefault(item.get("id", {}).get("S", ""), at)

    def close(self) -> None:
        self.link.stop()


class FleetRun:
    """The devices ``prefix0000`` .. of one mode, spread over ``processes`` worker processes."""

    def __init__(
        self,
        mode: str,
        url: str,
        directory: Path,
        devices: int,
        processes: int,
        prefix: str,
        receive_only: bool = False,
    ) -> None:
        self.mode, self.prefix, self.count = mode, prefix, devices
        self.ids = [f"{prefix}{n:04d}" for n in range(devices)]
        shares = [devices // processes + (1 if n < devices % processes else 0) for n in range(processes)]
        shares = [s for s in shares if s]
        self.workers: list[Worker] = []
        self.owner: dict[str, Worker] = {}
        self.observers: list[str] = []
        first = 0
        for share in shares:
            last = f"{prefix}{first + share - 1:04d}"
            if last != self.ids[0]:
                self.observers.append(last)  # one observer per process: the last device of its share
            command = [
                sys.executable,
                str(REPO / "bench" / "fleet_worker.py"),
                *("--mode", mode, "--url", url, "--table", TABLE, "--prefix", prefix),
                *("--schema", str(directory / "schema.json"), "--directory", str(directory / "devices")),
                *(
                    "--first",
                    str(first),
                    "--count",
                    str(share),
                    "--observers",
                    last,
                    "--writers",
                    self.ids[0],
                ),
                *(["--receive-only"] if receive_only else []),
                *(["--secrets", str(directory / "secrets")] if mode == "mqtt" else []),
            ]
            worker = Worker(command)
            self.workers.append(worker)
            for n in range(first, first + share):
                self.owner[f"{prefix}{n:04d}"] = worker
            first += share
        self.started = time.monotonic()
        self.pids = []
        for worker in self.workers:
            ready = worker.wait("ready", 600)
            if ready is None:
                raise RuntimeError(f"a fleet process did not get its devices ready: {worker.errors}")
            self.pids.append(ready["pid"])
        self.ready_seconds = time.monotonic() - self.started

    def latency(self, samples: int, probe: Probe | None = None, seed: int = 1) -> dict[str, Any]:
        """Device ``prefix0000`` writes a shared Note; the observers report it visible: write-to-visible (and
        when it reached their MQTT clients, and the ``probe``)."""
        rng = random.Random(seed)
        writer, found, delivered, probed, missed = self.ids[0], [], [], [], 0
        for n in range(samples):
            note = f"{self.mode}-{n}"
            watchers = {self.owner[o] for o in self.observers}
            for worker in watchers:
                worker.send(cmd="watch", id=note)
            for worker in watchers:
                worker.wait("watching", SAMPLE_TIMEOUT, id=note)
            # off the phase of any poll or tick; over MQTT the previous note's wave through every device is done
            time.sleep(rng.uniform(0.05, 0.25) + (0.3 if self.mode == "mqtt" else 0.0))
            self.owner[writer].send(cmd="write", device=writer, id=note)
            wrote = self.owner[writer].wait("wrote", SAMPLE_TIMEOUT, id=note)
            if probe is not None and wrote is not None:
                deadline = time.monotonic() + SAMPLE_TIMEOUT
                while note not in probe.arrived and time.monotonic() < deadline:
                    time.sleep(0.005)
                if note in probe.arrived:
                    probed.append(probe.arrived[note] - wrote["at"])
            for observer in self.observers:
                seen = self.owner[observer].wait("seen", SAMPLE_TIMEOUT, id=note, device=observer)
                if wrote is None or seen is None:
                    missed += 1
                else:
                    found.append(seen["at"] - wrote["at"])
                    arrived = self.owner[observer].wait("delivered", 0, id=note, device=observer)
                    if arrived is not None:
                        delivered.append(arrived["at"] - wrote["at"])
        return {
            "samples": samples,
            "observers": len(self.observers),
            "measured": len(found),
            "missed": missed,
            "p50": percentile(found, 0.5) if found else None,
            "p99": percentile(found, 0.99) if found else None,
            "delivered_p50": percentile(delivered, 0.5) if delivered else None,
            "delivered_p99": percentile(delivered, 0.99) if delivered else None,
            "probe_p50": percentile(probed, 0.5) if probed else None,
            "probe_p99": percentile(probed, 0.99) if probed else None,
        }

    def stop(self) -> dict[str, Any]:
        stopped = [worker.stop() for worker in self.workers]
        return {
            "failed_steps": sum(s.get("failures", 0) for s in stopped),
            "last_failure": next((s["last_failure"] for s in stopped if s.get("last_failure")), ""),
            "died": [d for s in stopped for d in s.get("died", [])],
        }


# -- the measurements -----------------------------------------------------------------------------------------


def idle_window(log: RequestLog, seconds: float, devices: int, hub_pid: int) -> dict[str, Any]:
    """The server's requests over ``seconds`` of a quiet fleet: the devices' (on the fleet table, whoever sends
    them), and the hub's own (its stream reads and checkpoints); the hub's CPU over the window."""
    mark, cpu, started = log.mark(), cpu_seconds(hub_pid), time.monotonic()
    time.sleep(seconds)
    counts, elapsed = log.since(mark), time.monotonic() - started
    hub = sum(n for (op, table), n in counts.items() if op in STREAM_OPS or table == f"{TABLE}-sync-hub")
    fleet = sum(n for (op, table), n in counts.items() if table == TABLE and op not in STREAM_OPS)
    return {
        "devices": devices,
        "seconds": elapsed,
        "requests": {f"{op} {table}": n for (op, table), n in sorted(counts.items())},
        "fleet_requests": fleet,
        "per_device_per_day": fleet / devices / elapsed * 86400,
        "hub_requests_per_s": hub / elapsed,
        "hub_cpu_seconds": cpu_seconds(hub_pid) - cpu,
    }


def push_rate(clouds: list[tuple[str, Any]], table: str, directory: Path, changes: int) -> dict[str, Any]:
    """Each pusher ``(device id, cloud)`` holds ``changes`` new Readings in its own database; all push at once
    (``Sync.push``, a thread each): pushes landed per second."""
    import dynabase
    from dynabase.model import Table
    from dynabase.sync import Sync

    syncs = []
    for device, cloud in clouds:
        db = dynabase.connect(str(directory / f"{device}.db"), ttl_sweep_seconds=None)
        local = Table(table, db, SCHEMA, side="device")
        local.create_table()
        sync = Sync(local, cloud, device_id=device)
        sync.sync_once()  # connected, clock measured, scopes pulled: the timed part is the push alone
        reading = local.model("Reading")
        for n in range(changes):
            reading.create({"deviceId": device, "id": f"{n:06d}", "value": n, "note": "x" * 40})
        syncs.append(sync)
    results: list[Any] = [None] * len(syncs)

    def push(n: int) -> None:
        results[n] = syncs[n].push()

    threads = [threading.Thread(target=push, args=(n,)) for n in range(len(syncs))]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seconds = time.perf_counter() - started
    for sync in syncs:
        close = getattr(sync.transport, "close", None)
        if close is not None:
            close()
        sync.client.close()
    pushed = sum(r.pushed for r in results if r is not None)
    if pushed != changes * len(syncs) or any(r is None or r.quarantined for r in results):
        raise RuntimeError(f"the push did not land every change: {results}")
    return {"pushed": pushed, "seconds": seconds, "per_s": pushed / seconds}


def push_rounds(
    url: str, broker: str, directory: Path, pushers: int, changes: int, rounds: int
) -> dict[str, Any]:
    """``pushers`` devices pushing through the hub, then as many straight to the endpoint (the anchor: the same
    conditional writes, ``Sync``'s direct transport, into a table of the same definition); best of ``rounds``."""
    from dynabase.model import Table
    from dynabase.sync.mqtt import MqttCloud

    hub, direct = [], []
    for r in range(rounds):
        ids = [f"push-{r}-{n}" for n in range(pushers)]
        clouds = [
            (d, MqttCloud(broker, table=TABLE, device_id=d, username=d, password=secret(d))) for d in ids
        ]
        hub.append(push_rate(clouds, TABLE, directory / "devices", changes))
        anchors = [
            (f"anchor-{r}-{n}", Table(ANCHOR, boto_client(url), SCHEMA, side="cloud")) for n in range(pushers)
        ]
        direct.append(push_rate(anchors, ANCHOR, directory / "devices", changes))
    return {
        "pushers": pushers,
        "changes_each": changes,
        "rounds": rounds,
        "hub": max(hub, key=lambda f: f["per_s"]),
        "direct": max(direct, key=lambda f: f["per_s"]),
    }


@contextlib.contextmanager
def components(directory: Path, users: list[str]) -> Iterator[tuple[str, Broker, RequestLog]]:
    """``dynabase serve`` (request log on) with the fleet table and the anchor's (streams on), and Mosquitto
    knowing ``users``; both stopped by PID."""
    from dynabase.model import Table
    from dynabase.server import start_subprocess

    missing = ensure_mosquitto()
    if missing:
        raise RuntimeError(missing)
    (directory / "broker").mkdir()
    broker = Broker(directory / "broker", {user: secret(user) for user in users})
    server = start_subprocess(str(directory / "cloud.db"))  # the default loudness: a line per request
    try:
        broker.start()
        for name in (TABLE, ANCHOR):
            Table(name, boto_client(server.url), SCHEMA, side="cloud").create_table(
                stream="NEW_AND_OLD_IMAGES"
            )
        yield server.url, broker, RequestLog(server.log_path)
    finally:
        broker.stop()
        server.close()


def measure(options: Any, directory: Path) -> dict[str, Any]:
    """Every figure of one ``--mqtt`` run (``options``: sync_bench.py's)."""
    quick = options.quick
    devices = options.devices or (50 if quick else 500)
    direct_devices = options.direct_devices or (10 if quick else 50)
    samples = options.samples or (20 if quick else 100)
    window = options.window or (10.0 if quick else 30.0)
    rounds = options.rounds or (1 if quick else 2)
    pushers, changes = 4, options.changes or (250 if quick else 1000)
    ids = [f"dev-{n:04d}" for n in range(devices)]
    push_ids = [f"push-{r}-{n}" for r in range(rounds) for n in range(pushers)]
    for folder in ("devices", "secrets"):
        (directory / folder).mkdir()
    for user in [HUB_USER, *ids]:
        (directory / "secrets" / user).write_text(secret(user) + "\n")
    schema = directory / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    figures: dict[str, Any] = {
        "hub_poll": options.hub_poll,
        "processes": options.processes,
        "all_loops": options.all_loops,
    }
    env = {"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench", "AWS_REGION": "us-east-1"}
    with components(directory, [HUB_USER, *ids, *push_ids]) as (url, broker, log):
        hub_args = ["sync-hub", str(schema), "--table", TABLE, "--endpoint-url", url, "--mqtt", broker.url]
        hub_args += ["--username", HUB_USER, "--password-file", str(directory / "secrets" / HUB_USER)]
        with dynabase_command([*hub_args, "--poll", str(options.hub_poll)], env=env) as hub:
            hub.wait_for("sync-hub: ready")
            pid = hub.process.pid
            before = {"rss": rss_bytes(pid), "cpu": cpu_seconds(pid)}
            lean = not options.all_loops
            fleet = FleetRun("mqtt", broker.url, directory, devices, options.processes, "dev-", lean)
            figures["hub"] = {
                "rss_before": before["rss"],
                "rss_connected": rss_bytes(pid),
                "connect_cpu_seconds": cpu_seconds(pid) - before["cpu"],
                "devices": devices,
                "ready_seconds": fleet.ready_seconds,
            }
            try:
                time.sleep(2.0)  # the loops' first steps (a pull after connecting) are done
                figures["mqtt_idle"] = idle_window(log, window, devices, pid)
                cpu = cpu_seconds(pid)
                probe = Probe(broker.url)
                try:
                    figures["mqtt_latency"] = fleet.latency(samples, probe)
                finally:
                    probe.close()
                figures["hub"]["latency_cpu_seconds"] = cpu_seconds(pid) - cpu
                cpu = cpu_seconds(pid)
                figures["push"] = push_rounds(url, broker.url, directory, pushers, changes, rounds)
                figures["hub"]["push_cpu_seconds"] = cpu_seconds(pid) - cpu
                figures["hub"]["rss_after"] = rss_bytes(pid)
            finally:
                figures["mqtt_fleet"] = fleet.stop()
            direct = FleetRun("direct", url, directory, direct_devices, options.processes, "direct-")
            try:
                time.sleep(2.0)
                figures["direct_idle"] = idle_window(log, window, direct_devices, pid)
                figures["direct_latency"] = direct.latency(samples)
            finally:
                figures["direct_fleet"] = direct.stop()
    return figures


# -- the report -----------------------------------------------------------------------------------------------


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value * 1000:.0f} ms"


def report(figures: dict[str, Any]) -> str:
    hub, idle, direct_idle = figures["hub"], figures["mqtt_idle"], figures["direct_idle"]
    devices, per100 = hub["devices"], hub["devices"] / 100
    lines = [
        f"sync over MQTT: {devices} devices in {figures['processes']} processes (connected in "
        f"{hub['ready_seconds']:.1f} s), one Mosquitto, one hub (--poll {figures['hub_poll']}), dynabase serve; "
        + (
            "every device runs Sync.run"
            if figures["all_loops"]
            else "the writer and the observers run Sync.run, the others are stepped by one thread per process"
        ),
        f"idle, {idle['seconds']:.0f} s window (requests counted in the server's request log; goal 0):",
        f"  mqtt:   {idle['fleet_requests']} requests on the table for {devices} idle devices "
        f"({idle['per_device_per_day']:,.0f} per device per day)  {verdict(idle['fleet_requests'] == 0)}; "
        f"the hub's own (stream, checkpoints) {idle['hub_requests_per_s']:.1f}/s, whatever the devices",
        f"  direct: {direct_idle['fleet_requests']} requests for {direct_idle['devices']} idle devices polling at "
        f"the default --interval 0.5 s: {direct_idle['per_device_per_day']:,.0f} per device per day "
        f"(a {direct_idle['seconds']:.0f} s window, extrapolated to a day)",
    ]
    mqtt, direct = figures["mqtt_latency"], figures["direct_latency"]
    lines.append(
        f"device -> device write-to-visible (a shared Note written on one device, seen on "
        f"{mqtt['observers']} others; goal p50 <= {_ms(GOALS['p50'])}, p99 <= {_ms(GOALS['p99'])}):"
    )
    for name, lat, count in (("mqtt", mqtt, devices), ("direct", direct, direct_idle["devices"])):
        ok = lat["p50"] is not None and lat["p50"] <= GOALS["p50"] and lat["p99"] <= GOALS["p99"]
        lines.append(
            f"  {name + ':':7} p50 {_ms(lat['p50'])}, p99 {_ms(lat['p99'])} ({lat['measured']} measured, "
            f"{lat['missed']} missed, {count} devices connected)  {verdict(ok) if name == 'mqtt' else ''}".rstrip()
        )
        if lat.get("delivered_p50") is not None:
            lines.append(
                f"          of which write-to-delivered (the note in the device's MQTT client, before its loop "
                f"applies it): p50 {_ms(lat['delivered_p50'])}, p99 {_ms(lat['delivered_p99'])}"
            )
        if lat.get("probe_p50") is not None:
            lines.append(
                f"          and write-to-fanned-out (at a subscriber in the bench's own, quiet process): "
                f"p50 {_ms(lat['probe_p50'])}, p99 {_ms(lat['probe_p99'])}"
            )
    push = figures["push"]
    ratio = push["hub"]["per_s"] / push["direct"]["per_s"]
    lines.append(
        f"pushes, {push['pushers']} devices x {push['changes_each']:,} changes at once, best of {push['rounds']}: "
        f"through the hub {push['hub']['per_s']:,.0f}/s, straight to the endpoint {push['direct']['per_s']:,.0f}/s: "
        f"ratio {ratio:.2f}x  {verdict(ratio >= GOALS['push'])} (goal >= {GOALS['push']}x)"
    )
    grown = max(0, hub["rss_connected"] - hub["rss_before"])
    lines.append(
        f"hub per 100 connected devices: RSS +{grown / per100 / 2**20:.1f} MiB (total "
        f"{hub['rss_connected'] / 2**20:.0f} MiB with {devices}, {hub['rss_before'] / 2**20:.0f} MiB before any); "
        f"CPU {hub['connect_cpu_seconds'] / per100:.2f} s to connect them (hello and first pulls)"
    )
    idle_minute = idle["hub_cpu_seconds"] / idle["seconds"] * 60
    lines.append(
        f"hub CPU: idle {idle_minute:.2f} s a minute in all ({idle_minute / per100:.3f} s per 100 devices; its "
        f"stream polls, whatever the devices), {hub['latency_cpu_seconds']:.1f} s over the latency samples, "
        f"{hub['push_cpu_seconds']:.1f} s over the pushes"
    )
    for name in ("mqtt_fleet", "direct_fleet"):
        fleet = figures[name]
        if fleet["failed_steps"] or fleet["died"]:
            lines.append(
                f"note: {name}: {fleet['failed_steps']} sync steps failed and were retried "
                f"(last: {fleet['last_failure']}); loops that died: {fleet['died'][:3]}"
            )
    load = os.getloadavg()[0]
    if load > (os.cpu_count() or 1):
        lines.append(f"note: load average {load:.1f} on {os.cpu_count()} CPUs: the machine was busy")
    return "\n".join(lines)


def run(options: Any) -> int:
    import tempfile

    with tempfile.TemporaryDirectory(prefix="dynabase-sync-mqtt-bench-") as temp:
        figures = measure(options, Path(temp))
    print(report(figures))
    if options.json:
        Path(options.json).write_text(json.dumps(figures, indent=2))
    return 0
