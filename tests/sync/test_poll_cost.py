"""What the run loop's idle polls re-read after a burst: only the last seconds before the previous poll (a
change from a clock a little behind), and the whole overlap window once per ``overlap`` seconds; a change that
lands late is still pulled by then. Fake clocks (one for every replica) on an embedded cloud: deterministic."""

from __future__ import annotations

from typing import Any

import dynabase
from dynabase.model import Table
from dynabase.sync import Sync

from .test_sync import SCHEMA

BURST = 60
INTERVAL = 0.5


class Fleet:
    def __init__(self) -> None:
        self.now = [1_800_000_000.0]
        self.cloud = Table("cost", dynabase.connect(":memory:"), SCHEMA, side="cloud")
        self.cloud.create_table()
        self.read = [0]  # items read by Note queries (the polls count their own share)
        real = self.cloud.client.query

        def counting(**request: Any) -> Any:
            page = real(**request)
            if request["ExpressionAttributeValues"][":s"] == {"S": "Note#"}:
                self.read[0] += page["ScannedCount"]
            return page

        self.cloud.client.query = counting

    def device(self, name: str, behind: float = 0.0) -> tuple[Table, Sync]:
        clock = lambda: self.now[0] - behind  # noqa: E731
        table = Table("cost", dynabase.connect(":memory:", clock=clock), SCHEMA, side="device")
        table.create_table()
        sync = Sync(table, self.cloud, device_id=name)
        sync.monotonic = clock
        return table, sync

    def poll(self, sync: Sync) -> int:
        """One run-loop poll, INTERVAL after the previous one: the items it read."""
        self.now[0] += INTERVAL
        before = self.read[0]
        sync.sync_once(rescan=False)
        return self.read[0] - before


def test_idle_polls_after_a_burst_re_read_it_about_twice_not_on_every_poll() -> None:
    fleet = Fleet()
    writer, ws = fleet.device("w")
    reader, rs = fleet.device("r")
    rs.sync_once()
    for n in range(BURST):
        writer.Note.create({"id": f"n{n}", "text": "x"})
    ws.sync_once()
    polls = [fleet.poll(rs) for _ in range(int(2 * rs.overlap_ms / 1000 / INTERVAL))]
    assert polls[0] == BURST and len(reader.Note.scan({})) == BURST
    rereads = sum(polls[1:])
    # before: every poll within the overlap window (15 s) re-read the whole burst, ~30 times over
    assert rereads <= 6 * BURST, polls
    late = [n for n, count in enumerate(polls) if count and n * INTERVAL > 2.5]
    assert len(late) <= 2, polls  # past the last seconds, only the whole-window re-reads


def test_a_change_that_lands_late_is_pulled_within_the_overlap_window() -> None:
    fleet = Fleet()
    writer, ws = fleet.device("w")
    slow, ss = fleet.device("s", behind=5.0)  # its stamps are 5 s behind the others'
    reader, rs = fleet.device("r")
    rs.sync_once()
    writer.Note.create({"id": "first", "text": "x"})
    ws.sync_once()
    fleet.poll(rs)  # the reader's checkpoint passes the first write's stamp
    slow.Note.create({"id": "late", "text": "x"})
    ss.sync_once()  # lands now, stamped 5 s before the checkpoint
    for _ in range(int(rs.overlap_ms / 1000 / INTERVAL) + 1):
        fleet.poll(rs)
    assert reader.Note.get({"id": "late"}) is not None
