#!/usr/bin/env python
"""One process of ``sync_bench.py --mqtt``'s simulated fleet: ``--count`` devices, each its own device database
file and its own ``Sync`` running the sync loop (``Sync.run``) in a thread, over MQTT through the hub
(``--mode mqtt``) or straight to the endpoint (``--mode direct``, polling every ``--interval``).

It prints JSON lines on stdout (``ready`` once every device did a first ``sync_once``; ``wrote`` and ``seen``
for the latency samples; ``stopped`` with the count of failed sync steps) and takes JSON lines on stdin:

* ``{"cmd": "write", "device": D, "id": N}``: device D creates the shared ``Note`` N (its entity layer); the
  wall clock just before the create is ``wrote``'s ``at``;
* ``{"cmd": "watch", "id": N}``: every device of this process whose id is in ``--observers`` prints ``seen``
  (its wall clock) once N is in its database: checked right after each batch the device applies (a fan-out
  received or a pull), where an item becomes visible; over MQTT also ``delivered``, when the message holding
  N reached the device's MQTT client;
* ``{"cmd": "stop"}`` (or the end of stdin): the loops stop, the connections close.

Started by ``sync_bench.py``; not meant to be run by hand (its options are that script's contract with it).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))

import dynabase  # noqa: E402
from dynabase.model import Table  # noqa: E402
from dynabase.schema import load_schema  # noqa: E402
from dynabase.sync import Sync, SyncError  # noqa: E402
from dynabase.sync.loop import PUSH_TICK  # noqa: E402

log = logging.getLogger("dynabase.sync")

#: devices making their first sync at once while the fleet starts (the hub answers a few at a time)
STARTING = 8
#: a hang guard for the loops' first step after the devices connected
SETTLE_TIMEOUT = 300.0


class Events:
    """JSON lines on stdout, one writer at a time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def emit(self, event: str, **fields: Any) -> None:
        line = json.dumps({"event": event, **fields})
        with self._lock:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()


class Failures(logging.Handler):
    """Counts the sync loop's retried failures (its ``sync failed (retrying ...)`` warnings)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0
        self.last = ""

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1
        self.last = record.getMessage()[:300]


class Fleet:
    def __init__(self, options: argparse.Namespace, events: Events) -> None:
        self.options = options
        self.events = events
        self.schema = load_schema(json.loads(Path(options.schema).read_text()))
        self.ids = [f"{options.prefix}{n:04d}" for n in range(options.first, options.first + options.count)]
        self.observers = set(options.observers.split(",")) if options.observers else set()
        self.writers = set(options.writers.split(",")) if options.writers else set()
        self.watched: set[str] = set()
        self.seen: set[tuple[str, str]] = set()
        self.syncs: dict[str, Sync] = {}
        self.tables: dict[str, Table] = {}
        self.stop = threading.Event()
        self.threads: list[threading.Thread] = []
        self.died: list[str] = []
        self._lock = threading.Lock()
        self._shared: Any = None

    def _cloud(self, device: str) -> Any:
        options = self.options
        if options.mode == "mqtt":
            from dynabase.sync.mqtt import MqttCloud

            secret = Path(options.secrets, device).read_text().strip()
            return MqttCloud(
                options.url, table=options.table, device_id=device, username=device, password=secret
            )
        if self._shared is None:  # one boto3 client per process, as thread-safe as it is costly to make
            from sync_bench import boto_client

            self._shared = boto_client(options.url, pool=64)
        return Table(options.table, self._shared, self.schema, side="cloud")

    def add(self, device: str) -> None:
        path = Path(self.options.directory, f"{device}.db")
        client = dynabase.connect(str(path), ttl_sweep_seconds=None)
        table = Table(self.options.table, client, self.schema, side="device")
        if not table.exists():
            table.create_table()
        sync = Sync(table, self._cloud(device), device_id=device)
        if device in self.observers:
            sync._apply = self._observed(device, sync._apply)  # type: ignore[method-assign]
            link = getattr(sync.transport, "_link", None)  # mqtt: the device's paho client
            if link is not None:
                link.on_message = self._delivered(device, link.on_message)
        sync.sync_once()
        with self._lock:
            self.syncs[device], self.tables[device] = sync, table

    def _observed(self, device: str, apply: Any) -> Any:
        """``Sync._apply`` of an observer: after each applied batch, the watched notes now in its database."""

        def applied(changes: list[dict[str, Any]], state: dict[str, Any]) -> dict[str, Any]:
            result = apply(changes, state)
            at = time.time()
            for change in changes:
                note = (change.get("Item") or {}).get("id", {}).get("S")
                if note in self.watched and (device, note) not in self.seen:
                    self.seen.add((device, note))
                    self.events.emit("seen", id=note, device=device, at=at)
            return dict(result)

        return applied

    def _delivered(self, device: str, on_message: Any) -> Any:
        """The MQTT client's message callback of an observer: when a watched note arrives, before the device's
        loop applies it (``delivered``: the hub's and the broker's share of the latency)."""

        def arrived(topic: str, payload: bytes) -> None:
            at = time.time()
            try:
                message = json.loads(payload)
                notes = [i.get("id", {}).get("S") for i in message.get("items") or [] if isinstance(i, dict)]
            except (ValueError, AttributeError):
                notes = []
            for note in notes:
                if note in self.watched:
                    self.events.emit("delivered", id=note, device=device, at=at)
            on_message(topic, payload)

        return arrived

    def start(self) -> None:
        started = time.monotonic()
        with ThreadPoolExecutor(STARTING) as pool:
            list(pool.map(self.add, self.ids))
        measured = self.observers | self.writers
        receivers = [s for d, s in self.syncs.items() if self.options.receive_only and d not in measured]
        for device, sync in self.syncs.items():
            if not any(sync is r for r in receivers):
                thread = threading.Thread(target=self._loop, args=(device, sync), name=device, daemon=True)
                thread.start()
                self.threads.append(thread)
        if receivers:
            thread = threading.Thread(target=self._receive, args=(receivers,), name="receivers", daemon=True)
            thread.start()
            self.threads.append(thread)
        deadline = time.monotonic() + SETTLE_TIMEOUT
        while time.monotonic() < deadline and any(self._first_pull_due(s) for s in self.syncs.values()):
            time.sleep(0.1)  # ready once every loop made its pull after connecting: then the fleet is idle
        self.events.emit(
            "ready", devices=len(self.syncs), seconds=time.monotonic() - started, pid=os.getpid()
        )

    @staticmethod
    def _first_pull_due(sync: Sync) -> bool:
        fresh = getattr(sync.transport, "reconnected", None)
        return fresh is not None and fresh.is_set()

    def _loop(self, device: str, sync: Sync) -> None:
        try:
            sync.run(interval=self.options.interval, stop=self.stop)
        except SyncError as error:
            self.died.append(f"{device}: {error}")

    def _receive(self, syncs: list[Sync]) -> None:
        """``--receive-only``: one thread steps these devices every tick of ``Sync.run`` as its loop does for a
        device with nothing to push: apply what the hub fanned out (``Sync.receive``), pull after a
        reconnect. (It does not look at their change logs, empty here, 20 times a second each: 500 loops doing
        that took more CPU than the 2-CPU machine had to give the hub, the broker and the server.)"""
        while not self.stop.is_set():
            for sync in syncs:
                fresh = sync.transport.reconnected
                pull = fresh.is_set()
                try:
                    if pull:
                        fresh.clear()
                        sync.sync_once(rescan=False)
                    else:
                        sync.receive()
                except SyncError as error:
                    if pull:
                        fresh.set()  # due again
                    log.warning("sync failed (a receive-only device, retried): %s", error)
            self.stop.wait(PUSH_TICK)

    def write(self, device: str, note: str) -> None:
        at = time.time()
        self.tables[device].model("Note").create({"id": note, "text": f"from {device}"})
        self.events.emit("wrote", id=note, device=device, at=at)

    def close(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(60)
        for sync in self.syncs.values():
            close = getattr(sync.transport, "close", None)
            if close is not None:
                close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=("mqtt", "direct"), required=True)
    parser.add_argument("--url", required=True, help="the broker (mqtt) or the endpoint (direct)")
    parser.add_argument("--table", required=True)
    parser.add_argument("--schema", required=True, help="the schema, a JSON file")
    parser.add_argument("--directory", required=True, help="where the device databases are")
    parser.add_argument("--secrets", help="mqtt: a directory holding each device's password in a file")
    parser.add_argument("--prefix", default="dev-")
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--interval", type=float, default=0.5, help="Sync.run's interval")
    parser.add_argument("--observers", default="", help="comma separated device ids that report seen notes")
    parser.add_argument("--writers", default="", help="comma separated device ids that write notes")
    parser.add_argument(
        "--receive-only",
        action="store_true",
        help="mqtt: the devices that neither observe nor write are stepped by one thread (see Fleet._receive)",
    )
    options = parser.parse_args(argv)
    if options.mode == "mqtt" and not options.secrets:
        parser.error("--mode mqtt needs --secrets")
    if options.receive_only and options.mode != "mqtt":
        parser.error("--receive-only goes with --mode mqtt (direct devices pull by polling)")
    failures = Failures()
    log.addHandler(failures)
    events = Events()
    fleet = Fleet(options, events)
    try:
        fleet.start()
        for line in sys.stdin:
            command = json.loads(line)
            if command["cmd"] == "write":
                fleet.write(command["device"], command["id"])
            elif command["cmd"] == "watch":
                fleet.watched.add(command["id"])
                events.emit("watching", id=command["id"])
            elif command["cmd"] == "stop":
                break
            else:
                raise ValueError(f"unknown command {command!r}")
    finally:
        fleet.close()
        events.emit("stopped", failures=failures.count, last_failure=failures.last, died=fleet.died)
    return 0


if __name__ == "__main__":
    sys.exit(main())
