"""A device clock stepped while sync runs or while it is down (the common case: a device boots with a wrong
clock, then NTP sets it): the offset is measured again before a change is stamped, and no version is stamped
ahead of the endpoint's time. The cloud is a ``dynabase serve`` (its ``Date`` headers are what is measured)."""

from __future__ import annotations

import math
import time
from typing import Any

from dynabase.clock import VERSION_ATTR, version_parts
from dynabase.model import syncmeta
from dynabase.sync.offset import ClockOffset

from .test_cut_answers import Cloud
from .test_cut_answers import cloud as cloud  # the fixture

FAST = 600.0  # the device clock's error before NTP sets it (seconds)


def _cloud_write(monkeypatch: Any, cloud: Cloud, text: str, at: float) -> None:
    """A cloud-side entity write of Note "a" made ``at`` seconds from now (a correct clock)."""
    monkeypatch.setattr(syncmeta, "wall_clock", lambda: time.time() + at)
    monkeypatch.setattr(
        syncmeta, "_last_stamp", [0, 0]
    )  # the process's cloud clock: no earlier test's stamps
    cloud.direct.Note.upsert({"id": "a", "text": text})
    monkeypatch.setattr(syncmeta, "wall_clock", time.time)


def _both(cloud: Cloud, device: Any) -> tuple[str, str]:
    return cloud.direct.Note.get({"id": "a"})["text"], device.Note.get({"id": "a"})["text"]


def test_a_clock_set_back_by_ntp_does_not_keep_a_stale_offset(cloud: Cloud, monkeypatch: Any) -> None:
    skew = [FAST]
    device, sync = cloud.device("d1", clock=lambda: time.time() + skew[0])
    sync.sync_once()
    assert abs(sync.offset.value - FAST) < 2  # measured while the clock was fast
    _cloud_write(monkeypatch, cloud, "cloud", -2.5)  # a cloud edit 2.5 s ago
    skew[0] = 0.0  # NTP sets the clock
    device.Note.upsert({"id": "a", "text": "device"})  # made after the cloud edit: it wins
    assert sync.sync_once().in_step
    assert _both(cloud, device) == ("device", "device")
    assert abs(sync.offset.value) < 2


def test_a_clock_stepped_forward_does_not_win_with_a_version_in_the_future(
    cloud: Cloud, monkeypatch: Any
) -> None:
    skew = [0.0]
    device, sync = cloud.device("d1", clock=lambda: time.time() + skew[0])
    sync.sync_once()
    skew[0] = FAST  # the clock is stepped 10 minutes ahead
    device.Note.upsert({"id": "a", "text": "device"})
    _cloud_write(monkeypatch, cloud, "cloud", 2.5)  # a cloud edit after the device's
    assert sync.sync_once().in_step
    assert _both(cloud, device) == ("cloud", "cloud")


def test_a_change_captured_before_a_step_back_is_not_stamped_in_the_future(cloud: Cloud) -> None:
    skew = [FAST]
    device, sync = cloud.device("d1", clock=lambda: time.time() + skew[0])
    sync.sync_once()
    device.Note.upsert({"id": "a", "text": "device"})  # captured on the fast clock
    skew[0] = 0.0  # NTP sets the clock before the push
    sync.sync_once()
    stored = cloud.direct.client.get_item(
        TableName=cloud.name, Key={"pk": {"S": "note#"}, "sk": {"S": "note#a"}}, ConsistentRead=True
    )["Item"]
    ms = version_parts(stored[VERSION_ATTR]["S"])[0]
    assert ms <= (time.time() + 2) * 1000  # never ahead of the endpoint's time by more than the tolerance


def test_an_offset_stored_before_a_restart_is_checked_before_it_is_used(
    cloud: Cloud, monkeypatch: Any, tmp_path: Any
) -> None:
    path = str(tmp_path / "device.db")
    skew = [FAST]
    device, sync = cloud.device("d1", path=path, clock=lambda: time.time() + skew[0])
    sync.sync_once()
    device.client.close()
    skew[0] = 0.0  # set while sync was down
    device, sync = cloud.device("d1", path=path, clock=lambda: time.time() + skew[0])
    _cloud_write(monkeypatch, cloud, "cloud", -2.5)
    device.Note.upsert({"id": "a", "text": "device"})
    assert sync.sync_once().in_step
    assert _both(cloud, device) == ("device", "device")


def test_an_unchanged_clock_keeps_its_stored_offset_across_a_restart(cloud: Cloud, tmp_path: Any) -> None:
    path = str(tmp_path / "device.db")
    device, sync = cloud.device("d1", path=path)
    sync.sync_once()
    stored = (sync.offset.low, sync.offset.high)
    device.client.close()
    device, again = cloud.device("d1", path=path)
    assert (again.offset.low, again.offset.high) == stored  # same boot, no step: still valid
    again._measure()
    assert again.offset.known


DATE = "Sat, 28 Nov 2026 19:08:14 GMT"
SERVER = 1795892894.0  # DATE as epoch seconds


def test_samples_from_a_cut_date_or_a_step_during_the_request_are_ignored() -> None:
    offset = ClockOffset()
    offset.sample(SERVER + 10, SERVER + 10.1, DATE[:22], (0.0, 0.1))  # "... 19:08": a cut header
    assert not offset.known
    offset.sample(SERVER + 10, SERVER + 610.1, DATE, (0.0, 0.1))  # stepped 600 s while the request was out
    assert not offset.known
    offset.sample(SERVER + 10, SERVER + 10.1, DATE, (0.0, 0.1))
    assert offset.known and 9 <= offset.value <= 10.1


def test_a_step_seen_against_the_monotonic_clock_drops_the_bounds() -> None:
    offset = ClockOffset()
    offset.sample(SERVER + 10, SERVER + 10.1, DATE, (50.0, 50.1))
    assert not offset.stepped(SERVER + 20.1, 60.1)  # both clocks moved 10 s
    assert offset.known
    assert offset.stepped(SERVER + 20.1 - 600, 60.1)  # the wall clock went back 600 s
    assert not offset.known and offset.value is None
    assert ClockOffset.load("1.0,2.0").low == -math.inf  # the old format (no reference): measured again
