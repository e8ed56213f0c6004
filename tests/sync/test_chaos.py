"""The convergence harness's expected-state model: who may win, and what each replica has received."""

from __future__ import annotations

from .chaos import CLOUD, History


def history(tolerance: float = 1.0) -> History:
    return History(["dev-0", "dev-1"], tolerance)


def item(n: int) -> dict:
    return {"n": {"N": str(n)}}


def test_a_later_write_of_the_same_replica_supersedes_an_earlier_one() -> None:
    h = history()
    first = h.record("dev-0", "Both", ("k", ""), item(1), 10.0, 10.1)
    second = h.record("dev-0", "Both", ("k", ""), item(2), 10.2, 10.3)
    assert h.winners([first, second]) == [second]


def test_writes_within_the_tolerance_may_both_win_and_beyond_it_only_the_later() -> None:
    h = history(tolerance=1.0)
    a = h.record("dev-0", "Both", ("k", ""), item(1), 10.0, 10.1)
    b = h.record(CLOUD, "Both", ("k", ""), item(2), 10.5, 10.6)
    assert h.winners([a, b]) == [a, b]
    c = h.record("dev-1", "Both", ("k", ""), None, 12.0, 12.1)
    assert h.winners([a, b, c]) == [c]


def test_a_device_write_after_receiving_a_write_supersedes_it_whatever_the_times() -> None:
    h = history(tolerance=5.0)
    cloud = h.record(CLOUD, "Both", ("k", ""), item(1), 10.0, 10.1)
    before = h.snapshot("dev-1")
    h.synced("dev-1", before)
    edit = h.record("dev-1", "Both", ("k", ""), item(2), 10.2, 10.3)
    assert cloud.id in edit.known
    assert h.winners([cloud, edit]) == [edit]
    other = h.record("dev-0", "Both", ("k", ""), item(3), 10.2, 10.3)  # dev-0 never received it
    assert h.winners([cloud, other]) == [cloud, other]


def test_a_sync_pushes_only_what_was_pending_when_it_started_and_pulls_only_what_reaches_the_device() -> None:
    h = history()
    up = h.record("dev-0", "Up", ("up#a", "up#"), item(1), 1.0, 1.1)
    local = h.record("dev-0", "Local", ("local#a", "local#"), item(1), 1.0, 1.1)
    mine = h.record(CLOUD, "Down", ("down#a", "down#dev-1"), item(1), 1.0, 1.1)
    theirs = h.record(CLOUD, "Down", ("down#a", "down#dev-0"), item(1), 1.0, 1.1)
    snapshot = h.snapshot("dev-0")
    late = h.record("dev-0", "Both", ("both#a", "both#"), item(1), 1.2, 1.3)  # during the sync
    h.synced("dev-0", snapshot)
    assert up.id in h.in_cloud and local.id not in h.in_cloud and late.id not in h.in_cloud
    assert theirs.id in h.received["dev-0"] and mine.id not in h.received["dev-0"]
    h.synced("dev-1", h.snapshot("dev-1"))
    assert mine.id in h.received["dev-1"] and up.id not in h.received["dev-1"]


def test_the_last_own_write_and_the_keys_written() -> None:
    h = history()
    h.record("dev-0", "Local", ("local#a", "local#"), item(1), 1.0, 1.1)
    last = h.record("dev-0", "Local", ("local#a", "local#"), None, 1.2, 1.3)
    h.record(CLOUD, "Local", ("local#a", "local#"), item(5), 1.2, 1.3)
    assert h.last_of("dev-0", "Local", ("local#a", "local#")) == [last]
    assert h.last_of("dev-1", "Local", ("local#a", "local#")) == []
    assert h.keys("Local") == {("local#a", "local#")}
