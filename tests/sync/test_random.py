"""A small randomised convergence check (the fault-injecting one lives in test_convergence.py): random
creates, updates and removes on three devices and the cloud, with skewed engine clocks that are stepped now and
then, answers cut on their way (a read's answer empty, an error without its type, after the cloud did the
work), forced full resyncs and random sync rounds (whole re-reads or the run loop's polls); after a final round
every replica holds exactly the newest version of every item of every model it should have."""

from __future__ import annotations

import os
import random
import time
from typing import Any

import pytest
from botocore.exceptions import ClientError

import dynabase
from dynabase.clock import DELETED_ATTR, TTL_ATTR
from dynabase.model import Table, syncmeta
from dynabase.sync import Sync, SyncError

from .test_refusals import SCHEMA as REFUSALS
from .test_sync import SCHEMA

DEVICES = ("d1", "d2", "d3")
#: cloud calls whose answers a relay may cut
CUT = ("query", "get_item", "batch_get_item", "put_item", "update_item", "describe_table")


class Cutting:
    """A cloud client whose answers are cut at ``rate``: the call is made (the cloud does the work), then a
    result becomes ``{}`` (botocore's reading of a 200 cut after its status line) and an error loses its type
    (code "400": a 4xx cut the same way)."""

    def __init__(self, client: Any, rng: random.Random) -> None:
        self._client, self._rng, self.rate, self.cuts = client, rng, 0.0, 0

    def __getattr__(self, name: str) -> Any:
        real = getattr(self._client, name)
        if name not in CUT:
            return real

        def call(**request: Any) -> Any:
            cut = self._rng.random() < self.rate
            self.cuts += cut
            try:
                answer = real(**request)
            except Exception as error:
                if cut and getattr(error, "response", None):
                    raise ClientError(
                        {
                            "Error": {"Code": "400", "Message": ""},
                            "ResponseMetadata": {"HTTPStatusCode": 400},
                        },
                        name,
                    ) from error
                raise
            return {"ResponseMetadata": {"HTTPStatusCode": 200, "HTTPHeaders": {}}} if cut else answer

        return call


def _sync(sync: Sync, rescan: bool = True) -> None:
    """One sync round; a transport fault (a cut answer) is retried by the next round, as the loop does."""
    try:
        sync.sync_once(rescan=rescan)
    except SyncError as error:
        if not error.retryable:
            raise


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
    devices, syncs, links = {}, {}, {}
    skews = {name: rng.uniform(-1.5, 1.5) for name in DEVICES}  # no Date header: keep writes further apart
    for name in DEVICES:
        clock = lambda name=name: now[0] + skews[name]  # noqa: E731
        table = Table("rand-cloud", dynabase.connect(":memory:", clock=clock), SCHEMA, side="device")
        table.create_table()
        devices[name] = table
        links[name] = Cutting(cloud.client, rng)
        linked = Table("rand-cloud", links[name], SCHEMA, side="cloud")
        syncs[name] = Sync(table, linked, device_id=name, resolvers=None)
        syncs[name].monotonic = lambda: now[0]  # true time: a change of skews[name] is a step of its clock
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
        if rng.random() < 0.1:  # NTP steps a device clock (within the skew the writes are apart by)
            skews[rng.choice(DEVICES)] = rng.uniform(-1.5, 1.5)
        if rng.random() < 0.05:  # a device offline past the tombstone lifetime: its next pull resyncs in full
            name = rng.choice(DEVICES)
            devices[name].client.put_sync_state(TableName="rand-cloud", State={"pulledAt:Note#": "0"})
        if rng.random() < 0.3:
            name = rng.choice(DEVICES)
            links[name].rate = rng.choice([0.0, 0.0, 0.2, 0.5])
            _sync(syncs[name], rescan=rng.random() < 0.5)
    for name in DEVICES:
        links[name].rate = 0.0
    for _ in range(2):
        for name in DEVICES:
            assert syncs[name].sync_once() is not None
    expected = {k: text for k, (_, text) in truth.items() if text is not None}
    assert _state(cloud, "Note") == expected, f"seed {seed}"
    for name in DEVICES:
        assert _state(devices[name], "Note") == expected, f"seed {seed}, device {name}"
        assert syncs[name].pending() == 0
    assert sum(link.cuts for link in links.values()) > 0  # the schedule did meet cut answers


TTL = 120.0  # seconds of schedule time a tombstone lives: devices go offline for longer
TOLERANCE = 3.0  # twice the largest skew


def _sweep(cloud: Table, now: float) -> None:
    """What DynamoDB's TTL does: expired tombstones go."""
    for item in cloud.client.scan(TableName=cloud.name)["Items"]:
        if DELETED_ATTR in item and float(item[TTL_ATTR]["N"]) < now:
            cloud.client.delete_item(TableName=cloud.name, Key={"pk": item["pk"], "sk": item["sk"]})


@pytest.mark.parametrize("seed", range(int(os.environ.get("SYNC_SEEDS", "6"))))
def test_long_offline_pushers_and_poison_changes(seed: int, monkeypatch: Any) -> None:
    """Devices go offline for longer than the tombstone lifetime while the cloud sweeps expired tombstones, and
    write changes the cloud refuses: every replica converges, no item comes back by a write older than its
    delete (but for a create of a key another replica made: docs/sync.md), the refused changes are set aside
    and nothing else is left pending."""
    rng = random.Random(1000 + seed)
    now = [time.time()]
    monkeypatch.setattr(syncmeta, "wall_clock", lambda: now[0])
    monkeypatch.setattr(syncmeta, "_last_stamp", [0, 0])
    cloud = Table("rand-cloud", dynabase.connect(":memory:"), REFUSALS, side="cloud", sync_tombstone_ttl=TTL)
    cloud.create_table()
    devices, syncs = {}, {}
    for name in DEVICES:
        skew = rng.uniform(-1.5, 1.5)
        clock = lambda s=skew: now[0] + s  # noqa: E731
        devices[name] = Table(
            "rand-cloud", dynabase.connect(":memory:", clock=clock), REFUSALS, side="device"
        )
        devices[name].create_table()
        syncs[name] = Sync(devices[name], cloud, device_id=name, tombstone_ttl=TTL)
    written: dict[str, tuple[float, str, bool]] = {}  # text -> (true time, key, a create on a device)
    deletes: dict[str, list[float]] = {}
    truth: dict[str, str | None] = {}
    creating: dict[str, set[str]] = {name: set() for name in DEVICES}  # keys created there, not pushed yet
    poisoned: dict[str, dict[str, bool]] = {name: {} for name in DEVICES}  # Reading id -> last write refused
    offline_until = dict.fromkeys(DEVICES, 0)
    ids = [f"n{i}" for i in range(12)]  # keys left alone for longer than the lifetime: their tombstones go
    for step in range(200):
        now[0] += rng.uniform(4, 6)
        _sweep(cloud, now[0])
        actor = rng.choice([*DEVICES, "cloud"])
        if actor != "cloud" and offline_until[actor] <= step and rng.random() < 0.08:
            offline_until[actor] = step + rng.randint(40, 70)  # 160-350 s away: past the tombstone lifetime
        table = cloud if actor == "cloud" else devices[actor]
        if rng.random() < 0.4:
            pass  # no write: time passes
        elif (
            actor != "cloud" and rng.random() < 0.15
        ):  # a reading: refused when it lacks the scope's deviceId
            rid = f"{actor}-r{rng.randrange(2)}"
            bad = rng.random() < 0.5
            item = {"pk": {"S": "reading#"}, "sk": {"S": f"reading#{rid}"}, "_type": {"S": "Reading"}}
            item.update({"id": {"S": rid}, "value": {"S": str(step)}})
            if not bad:
                item["deviceId"] = {"S": actor}
            table.client.put_item(TableName=table.name, Item=item)
            poisoned[actor][rid] = bad
        else:
            key = rng.choice(ids)
            if rng.random() < 0.65:
                text = f"{actor}-{step}"
                create = actor != "cloud" and (key in creating[actor] or table.Note.get({"id": key}) is None)
                if create:
                    creating[actor].add(key)
                table.Note.upsert({"id": key, "text": text})
                written[text] = (now[0], key, create)
                truth[key] = text
            elif table.Note.remove({"id": key}) is not None:
                deletes.setdefault(key, []).append(now[0])
                truth[key] = None
        for name in DEVICES:  # the devices online sync often: they hold the items they then edit offline
            if offline_until[name] <= step and rng.random() < 0.3:
                syncs[name].sync_once()
                creating[name].clear()
    for _ in range(3):
        for name in DEVICES:
            syncs[name].sync_once()
    final = _state(cloud, "Note")
    for name in DEVICES:
        assert _state(devices[name], "Note") == final, f"seed {seed}, device {name}"
        assert syncs[name].pending() == 0, f"seed {seed}, device {name}"
        refused = {q["key"]["sk"].split("#", 1)[1] for q in syncs[name].status().quarantined}
        assert refused == {rid for rid, bad in poisoned[name].items() if bad}, f"seed {seed}, device {name}"
    for key, text in final.items():
        at, _, create = written[text]
        later = [d for d in deletes.get(key, []) if d > at + TOLERANCE]
        assert create or not later, f"seed {seed}: {key} came back by {text}, older than its delete"
    for key, text in truth.items():
        if text is not None and key not in final:  # an edit the rule discarded: older than a swept delete
            assert any(d < written[text][0] for d in deletes.get(key, [])), (
                f"seed {seed}: {key} ({text}) lost"
            )
