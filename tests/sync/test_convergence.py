"""Device ↔ cloud sync converges: random schedules of writes on every side, syncs through faulty links, killed
sync processes and skewed clocks; then heal, sync, and every replica holds exactly what it should.

The cloud is a ``dynabase serve`` process started here, and DynamoDB Local (``tests/backends.py``); the
``DYNABASE_BACKENDS`` names ``server`` and ``dynamodb-local`` choose them. ``DYNABASE_SYNC_SEED`` replays a run
(every failure prints the seed of its schedule); ``DYNABASE_SYNC_SCHEDULES`` sets the count per cloud. The
default run keeps schedules small and mostly in-process; ``-m slow`` runs thousands.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from backends import selected_backends

from .chaos import (
    CLOUD,
    OTHER_DEVICE,
    Fleet,
    Plan,
    World,
    boto_client,
    check,
    clock_tolerance,
    dynamo_key,
    key_of,
    run_schedule,
    write_schema,
)

CLOUDS = [name for name in ("server", "dynamodb-local") if name in selected_backends()]
DEVICES = 3
#: schedules per cloud in the default run (~0.2 s each on dynabase serve, ~0.5 s on DynamoDB Local)
DEFAULT_SCHEDULES = {"server": 160, "dynamodb-local": 60}


@pytest.fixture(scope="module", params=CLOUDS)
def cloud_name(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture(scope="module")
def endpoint(request: pytest.FixtureRequest, cloud_name: str) -> Iterator[str]:
    if cloud_name == "dynamodb-local":
        yield request.getfixturevalue("dynamodb_local_endpoint")
        return
    from dynabase.server import start_subprocess

    server = start_subprocess(":memory:", args=["-q"])
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture(scope="module")
def fleet(endpoint: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    devices = Fleet(endpoint, tmp_path_factory.mktemp("fleet"), DEVICES)
    try:
        yield devices
    finally:
        devices.close()


@pytest.fixture
def make_world(fleet: Fleet) -> Iterator[Any]:
    worlds: list[World] = []

    def make(name: str, skews: tuple[float, ...] = (0.0,) * DEVICES, attempts: int = 1) -> World:
        world = World(fleet, name, skews, attempts)
        worlds.append(world)
        return world

    yield make
    for world in worlds:
        world.close()


def run_many(make_world: Any, tmp_path: Path, count: int, plan_for: Any) -> None:
    """Run ``count`` schedules; fail with the seed, the plan, the schedule and the differences of the first bad one."""
    base = int(os.environ.get("DYNABASE_SYNC_SEED") or random.SystemRandom().randrange(10**9))
    schema_file = write_schema(tmp_path)
    for index in range(count):
        seed = base + index
        rng = random.Random(seed)
        plan = plan_for(rng)
        world = make_world(f"chaos-{seed}", plan.skews, plan.attempts)
        log: list[str] = []
        try:
            run_schedule(world, rng, plan, schema_file, log)
            problems = check(world)
        except Exception as error:  # any failure: say how to replay it
            problems = [f"{type(error).__name__}: {error}"]
        finally:
            world.close()
        if problems:
            pytest.fail(
                f"schedule with seed {seed} (DYNABASE_SYNC_SEED={seed} DYNABASE_SYNC_SCHEDULES=1) failed; "
                f"{plan}\n--- schedule ---\n"
                + "\n".join(log)
                + "\n--- differences ---\n"
                + "\n".join(problems),
                pytrace=False,
            )


def small_plan(rng: random.Random) -> Plan:
    skews = tuple(rng.choice((0.0, 0.0, 3.0, -3.0, 600.0, -600.0)) for _ in range(DEVICES))
    return Plan(
        steps=rng.randint(6, 16),
        fault_rate=rng.choice((0.0, 0.2, 0.4)),
        subprocess_syncs=1 if rng.random() < 0.04 else 0,
        skews=skews,
    )


def large_plan(rng: random.Random) -> Plan:
    skews = tuple(rng.uniform(-900, 900) if rng.random() < 0.5 else 0.0 for _ in range(DEVICES))
    return Plan(
        steps=rng.randint(10, 60),
        fault_rate=rng.choice((0.1, 0.3, 0.5)),
        subprocess_syncs=rng.randint(0, 3),
        blackhole_rate=0.05,
        attempts=rng.choice((1, 3)),
        cloud_app_skew=rng.uniform(-1.0, 1.0) if rng.random() < 0.3 else None,
        skews=skews,
    )


def test_random_schedules_converge(make_world: Any, tmp_path: Path, cloud_name: str) -> None:
    count = int(os.environ.get("DYNABASE_SYNC_SCHEDULES") or DEFAULT_SCHEDULES[cloud_name])
    run_many(make_world, tmp_path, count, small_plan)


@pytest.mark.slow
def test_thousands_of_random_schedules_converge(make_world: Any, tmp_path: Path) -> None:
    run_many(make_world, tmp_path, int(os.environ.get("DYNABASE_SYNC_SCHEDULES") or 1000), large_plan)


# -- targeted schedules: each names one guarantee --------------------------------------------------------------


def converged(world: World) -> None:
    world.heal_and_sync()
    problems = check(world)
    assert not problems, "\n".join(problems)


def test_a_fast_clock_does_not_win_a_conflict_it_would_lose(make_world: Any) -> None:
    world = make_world("skew-fast", (600.0, 0.0, 0.0))
    world.entity_write(CLOUD, "Both", "create", {"id": "a", "n": 1})
    converged(world)
    world.entity_write("dev-0", "Both", "update", {"id": "a", "n": 2})  # 10 minutes fast, made first
    time.sleep(clock_tolerance() + 0.3)
    late = world.entity_write(CLOUD, "Both", "update", {"id": "a", "n": 3})
    converged(world)
    assert world.read("dev-0", key_of("Both", {"id": "a"})) == late.item


def test_a_slow_clock_wins_when_it_wrote_last(make_world: Any) -> None:
    world = make_world("skew-slow", (0.0, -600.0, 0.0))
    world.entity_write(CLOUD, "Both", "create", {"id": "a", "n": 1})
    converged(world)
    world.entity_write(CLOUD, "Both", "update", {"id": "a", "n": 2})
    time.sleep(clock_tolerance() + 0.3)
    late = world.entity_write("dev-1", "Both", "update", {"id": "a", "n": 3})  # 10 minutes slow, made last
    converged(world)
    assert world.read(CLOUD, key_of("Both", {"id": "a"})) == late.item


def test_an_edit_made_after_a_pull_wins_whatever_the_clock(make_world: Any) -> None:
    world = make_world("causal", (0.0, 0.0, -600.0))
    world.entity_write(CLOUD, "Both", "create", {"id": "a", "n": 1})
    world.sync_in_process("dev-2")
    edit = world.entity_write(
        "dev-2", "Both", "update", {"id": "a", "n": 2}
    )  # its clock is behind the cloud's
    converged(world)
    assert world.read(CLOUD, key_of("Both", {"id": "a"})) == edit.item


def test_a_cloud_write_from_a_clock_a_second_slow_still_converges(make_world: Any) -> None:
    """Within the clock tolerance either write may win, but every replica must hold the same one. (A cloud app
    whose clock is a second behind, or a device whose offset estimate errs by the ``Date`` header's resolution,
    makes a later cloud write carry an older version than the device's push it overwrites.)"""
    world = make_world("cloud-slow")
    app = world.cloud_app(skew=-1.0)
    try:
        world.entity_write("dev-0", "Both", "create", {"id": "a", "n": 1})
        world.sync_in_process("dev-0")
        app.write("Both", "update", {"id": "a", "n": 2})
    finally:
        app.close()
    converged(world)


def test_a_delete_is_not_resurrected_by_an_older_offline_edit(make_world: Any) -> None:
    world = make_world("tombstone", (0.0, 0.0, 0.0))
    world.entity_write("dev-0", "Both", "create", {"id": "a", "n": 1})
    converged(world)
    world.entity_write("dev-1", "Both", "update", {"id": "a", "n": 2})  # offline edit, pushed later
    time.sleep(clock_tolerance() + 0.3)
    world.entity_write(CLOUD, "Both", "remove", {"id": "a"})
    converged(world)
    assert all(world.read(r, key_of("Both", {"id": "a"})) is None for r in (CLOUD, "dev-0", "dev-1", "dev-2"))


def test_a_lost_answer_on_push_neither_loses_nor_duplicates(make_world: Any) -> None:
    from dynabase.sync import SyncError

    world = make_world("lost-answer")
    for n in range(5):
        world.raw_write("dev-0", "Up", "create", {"id": f"k{n}", "n": n})
    world.devices[0].proxy.inject("close_after_request", count=50)  # every answer lost, retries too
    with pytest.raises(SyncError):
        world.sync_in_process("dev-0")
    converged(world)
    assert world.devices[0].sync.status().pending == 0


def test_a_sync_process_killed_at_random_moments_loses_nothing(make_world: Any, tmp_path: Path) -> None:
    world = make_world("killed", (0.0, 30.0, -30.0))
    schema_file = write_schema(tmp_path)
    rng = random.Random(11)
    for n in range(80):
        world.entity_write("dev-1", "Up", "create", {"id": f"k{n}", "n": n})
        world.entity_write(CLOUD, "Down", "create", {"id": f"k{n}", "deviceId": "dev-1", "n": n})
    started = time.monotonic()  # one whole run first: how long a run with work to do takes on this machine
    codes = [world.sync_subprocess("dev-1", None, schema_file)]
    whole = time.monotonic() - started
    while codes.count(None) < 3 and len(codes) < 16:  # SIGKILLed runs (None) at random moments of a run
        for n in range(40):  # work for the next run, so that it is still busy when the kill comes
            world.entity_write("dev-1", "Up", "update", {"id": f"k{n}", "n": -len(codes) - n})
            world.entity_write(CLOUD, "Down", "update", {"id": f"k{n}", "deviceId": "dev-1", "n": len(codes)})
        codes.append(world.sync_subprocess("dev-1", rng.uniform(0.05, 0.9) * whole, schema_file))
    assert None in codes, f"no run was killed before it finished: {codes}"
    converged(world)


def test_down_items_reach_only_the_devices_in_their_scope(make_world: Any) -> None:
    world = make_world("scope")
    mine = world.entity_write(CLOUD, "Down", "create", {"id": "a", "deviceId": "dev-2", "n": 1})
    world.entity_write(CLOUD, "Down", "create", {"id": "a", "deviceId": OTHER_DEVICE, "n": 2})
    converged(world)
    assert world.read("dev-2", mine.key) == mine.item
    assert world.read("dev-0", mine.key) is None


def test_a_cloud_remove_of_a_scoped_item_reaches_its_device(make_world: Any) -> None:
    world = make_world("scope-remove")
    mine = world.entity_write(CLOUD, "Down", "create", {"id": "a", "deviceId": "dev-1", "n": 1})
    converged(world)
    assert world.read("dev-1", mine.key) == mine.item
    world.entity_write(CLOUD, "Down", "remove", {"id": "a", "deviceId": "dev-1"})
    converged(world)
    assert world.read("dev-1", mine.key) is None


def test_an_idle_poll_rereads_nothing_once_the_overlap_window_has_passed(make_world: Any) -> None:
    """docs/sync.md: a poll re-reads what was stamped within ``overlap`` before the previous poll began; once
    the previous poll began more than ``overlap`` after the last change, an idle poll reads nothing (on AWS every
    item read is paid for, every poll)."""
    from dynabase.model import Table
    from dynabase.sync import Sync

    world = make_world("idle-poll")
    for n in range(30):
        world.entity_write(CLOUD, "Both", "create", {"id": f"k{n}", "n": n})
    device = world.devices[0]
    link = boto_client(device.proxy.url)
    read: list[int] = []
    link.meta.events.register("after-call.dynamodb.Query", lambda parsed, **_: read.append(parsed["Count"]))
    sync = Sync(device.table, Table(world.table_name, link, world.schema, side=CLOUD), "dev-0", overlap=0.5)
    assert sync.sync_once().pulled == 30
    time.sleep(1.0)
    assert sync.sync_once().pulled == 0  # began more than the overlap after the last change
    read.clear()
    assert sync.sync_once().pulled == 0
    assert sum(read) == 0, f"an idle poll re-read {sum(read)} items older than the overlap window"


# -- the checker can fail ------------------------------------------------------------------------------------------


def test_the_checker_sees_resurrected_lost_and_misplaced_items(make_world: Any) -> None:
    world = make_world("checker")
    world.entity_write("dev-0", "Both", "create", {"id": "a", "n": 1})
    gone = world.entity_write("dev-0", "Both", "create", {"id": "b", "n": 1})
    world.entity_write("dev-0", "Local", "create", {"id": "a", "n": 1})
    converged(world)
    world.entity_write("dev-0", "Both", "remove", {"id": "b"})
    converged(world)
    table, local = world.table_name, key_of("Local", {"id": "a"})
    world.cloud.client.put_item(TableName=table, Item=gone.item)  # behind sync's back
    world.device("dev-1").client.delete_item(TableName=table, Key=dynamo_key(key_of("Both", {"id": "a"})))
    world.cloud.client.put_item(TableName=table, Item=world.read("dev-0", local))
    problems = "\n".join(check(world))
    assert "resurrected" in problems and "both#b" in problems
    assert "dev-1 both#a" in problems
    assert f"{CLOUD} local#a" in problems
