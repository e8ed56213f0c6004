"""A small randomised convergence check (the fault-injecting one lives in test_convergence.py): random
creates, updates and removes on three devices and the cloud, with skewed engine clocks and random sync
rounds; after a final round every replica holds exactly the newest version of every item of every model it
should have."""

from __future__ import annotations

import os
import random
import time
from typing import Any

import pytest

import dynabase
from dynabase.model import Table, syncmeta
from dynabase.sync import Sync

from .test_sync import SCHEMA

DEVICES = ("d1", "d2", "d3")


def _state(table: Table, model: str) -> dict[str, Any]:
    return {item["id"]: item.get("text") for item in getattr(table, model).scan({})}


@pytest.mark.parametrize("seed", range(int(os.environ.get("SYNC_SEEDS", "6"))))
def test_random_schedules_converge(seed: int, monkeypatch: Any) -> None:
    rng = random.Random(seed)
    now = [time.time()]
    # cloud-side entity writes: the same true time, and a fresh hybrid logical clock
    monkeypatch.setattr(syncmeta, "wall_clock", lambda: now[0])
    monkeypatch.setattr(syncmeta, "_last_stamp", [0, 0])
    cloud = Table("rand-cloud", dynabase.connect(":memory:"), SCHEMA, side="cloud")
    cloud.create_table()
    devices, syncs = {}, {}
    for name in DEVICES:
        skew = rng.uniform(-1.5, 1.5)  # no Date header to correct by: keep writes further apart
        table = Table(
            "rand-cloud", dynabase.connect(":memory:", clock=lambda s=skew: now[0] + s), SCHEMA, side="device"
        )
        table.create_table()
        devices[name] = table
        syncs[name] = Sync(table, cloud, device_id=name, resolvers=None)
    truth: dict[str, tuple[float, str | None]] = {}  # Note id -> (true time, text or None when removed)
    ids = [f"n{i}" for i in range(6)]
    for step in range(120):
        now[0] += rng.uniform(4, 6)  # writes further apart than the skew: the true order is the LWW order
        actor = rng.choice([*DEVICES, "cloud"])
        table = cloud if actor == "cloud" else devices[actor]
        key = rng.choice(ids)
        action = rng.random()
        if action < 0.6:
            text = f"{actor}-{step}"
            table.Note.upsert({"id": key, "text": text})
            truth[key] = (now[0], text)
        else:
            removed = table.Note.remove({"id": key})
            if removed is not None:
                truth[key] = (now[0], None)
        if rng.random() < 0.3:
            syncs[rng.choice(DEVICES)].sync_once()
    for _ in range(2):
        for name in DEVICES:
            assert syncs[name].sync_once() is not None
    expected = {k: text for k, (_, text) in truth.items() if text is not None}
    assert _state(cloud, "Note") == expected, f"seed {seed}"
    for name in DEVICES:
        assert _state(devices[name], "Note") == expected, f"seed {seed}, device {name}"
        assert syncs[name].pending() == 0
