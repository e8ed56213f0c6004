"""Reads on connections of their own: a long read holds up no other read, and the catalog stays consistent.

A file database (WAL) gives each read a reader connection (``Storage.reading``); the ordering here is proven
with events between threads, never with timing: the Scan is held inside its read, by the item reader the
engine calls for each item (``readers.ITEM_READER``), until the other thread's call has been answered.
"""

from __future__ import annotations

import sqlite3
import threading
from typing import Any

import pytest

import dynabase
from dynabase.engine.readers import ITEM_READER
from dynabase.engine.turns import Gate, Turns
from dynabase.errors import ResourceNotFoundException

TABLE = "readers"
#: how long a paused Scan waits for the other thread before it gives up (a guard against a hang, never a
#: measure: with the other call stuck behind the Scan, the test fails instead of hanging)
GUARD = 20.0


def _engine(path: str) -> Any:
    client = dynabase.connect(path)
    client.create_table(
        TableName=TABLE,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    for n in range(20):
        client.put_item(TableName=TABLE, Item={"pk": {"S": f"k{n}"}, "tags": {"L": [{"S": "x"}] * 50}})
    return client


class PausedScan:
    """A Scan on its own thread that stops inside its read, at its first item, until :meth:`release`."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self.inside = threading.Event()
        self.go_on = threading.Event()
        self.released_in_time = False
        self.result: dict | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run)
        self.thread.start()
        assert self.inside.wait(GUARD), "the Scan never reached its items"

    def _run(self) -> None:
        def reader(item: dict) -> dict:
            if not self.inside.is_set():
                self.inside.set()
                self.released_in_time = self.go_on.wait(GUARD)
            return item

        ITEM_READER.set((reader, None))
        try:
            self.result = self.engine.call("Scan", {"TableName": TABLE})
        except BaseException as error:  # surfaced by the test
            self.error = error

    def release(self) -> dict:
        self.go_on.set()
        self.thread.join()
        assert self.error is None, self.error
        assert self.result is not None
        return self.result


def test_a_get_item_is_answered_while_a_scan_is_still_reading(tmp_path):
    client = _engine(str(tmp_path / "r.db"))
    try:
        scan = PausedScan(client.engine)
        answered: list[dict] = []
        other = threading.Thread(
            target=lambda: answered.append(client.get_item(TableName=TABLE, Key={"pk": {"S": "k3"}}))
        )
        other.start()
        other.join(GUARD)
        got_during_scan = bool(answered) and scan.thread.is_alive()
        result = scan.release()
        other.join()
        assert got_during_scan, "the GetItem waited for the Scan"
        assert scan.released_in_time
        assert answered[0]["Item"]["pk"] == {"S": "k3"}
        assert result["Count"] == 20
    finally:
        client.close()


def test_a_table_deleted_during_a_scan_answers_as_dynamodb_does(tmp_path):
    """The Scan reads its snapshot to the end; the DeleteTable does not wait for it, and calls after it find no
    table (ResourceNotFoundException, not a sqlite3 error)."""
    client = _engine(str(tmp_path / "r.db"))
    try:
        scan = PausedScan(client.engine)
        deleted: list[dict] = []
        other = threading.Thread(target=lambda: deleted.append(client.delete_table(TableName=TABLE)))
        other.start()
        other.join(GUARD)
        deleted_during_scan = bool(deleted) and scan.thread.is_alive()
        with pytest.raises(client.exceptions.ResourceNotFoundException):
            client.get_item(TableName=TABLE, Key={"pk": {"S": "k3"}})
        result = scan.release()
        other.join()
        assert deleted_during_scan, "the DeleteTable waited for the Scan"
        assert result["Count"] == 20  # its snapshot, from before the delete
        with pytest.raises(ResourceNotFoundException):
            client.engine.call("Scan", {"TableName": TABLE})
    finally:
        client.close()


def test_reader_connections_are_read_only_and_reads_in_a_write_see_it(tmp_path):
    client = _engine(str(tmp_path / "r.db"))
    storage = client.engine.storage
    try:
        assert storage.pooled
        with storage.reading() as conn:
            assert conn is not storage.conn
            with pytest.raises(sqlite3.OperationalError, match="readonly|read-only|query_only"):
                conn.execute("CREATE TABLE t_other (a)")
        with storage.write() as writer:
            writer.execute("INSERT INTO dynabase_meta (name, value) VALUES ('probe', '1')")
            with storage.reading() as conn:  # the write's own connection: it sees the uncommitted row
                assert conn is writer
                assert conn.execute("SELECT value FROM dynabase_meta WHERE name = 'probe'").fetchone() == (
                    "1",
                )
            seen: list[Any] = []

            def elsewhere() -> None:
                with storage.reading() as conn:
                    seen.append(
                        conn.execute("SELECT value FROM dynabase_meta WHERE name = 'probe'").fetchone()
                    )

            thread = threading.Thread(target=elsewhere)  # another thread's read does not wait for the write
            thread.start()
            thread.join()
            assert seen == [None]
            writer.execute("DELETE FROM dynabase_meta WHERE name = 'probe'")
    finally:
        client.close()


def test_an_in_memory_database_reads_on_its_one_connection():
    client = _engine(":memory:")
    storage = client.engine.storage
    try:
        assert not storage.pooled
        with storage.reading() as conn:
            assert conn is storage.conn
    finally:
        client.close()


def test_long_reads_take_turns_first_come_first_served():
    """The turn's holder works alone among long reads; the next waits for it, then goes on."""
    gate = Gate()
    order: list[str] = []
    gate.enter()
    waiting = threading.Event()

    def second() -> None:
        turns = Turns(gate)
        turns.due = 0.0  # long already
        waiting.set()
        turns.tick()  # waits for the first read's turn to end
        order.append("second")
        turns.done()

    thread = threading.Thread(target=second)
    thread.start()
    assert waiting.wait(GUARD)
    while gate._next < 2:  # the second read has its ticket: it is queued behind this turn
        thread.join(0.001)
    order.append("first")
    gate.leave()
    thread.join(GUARD)
    assert order == ["first", "second"]
    assert gate.holder is None


def test_a_read_nested_in_a_turn_goes_on_inside_it():
    """An item reader that calls the engine, on the thread holding the turn, must not wait for that turn (it
    would wait for itself: the holder's thread is left hanging, and the test fails)."""
    gate = Gate()
    outcome: list[bool] = []

    def holder() -> None:
        gate.enter()
        inner = Turns(gate)
        inner.due = 0.0  # long already
        inner.tick()
        outcome.append(inner.held)
        inner.done()
        gate.leave()

    thread = threading.Thread(target=holder, daemon=True)
    thread.start()
    thread.join(GUARD)
    assert not thread.is_alive(), "the nested read waited for its own thread's turn"
    assert outcome == [False]
    assert gate.holder is None


def test_reads_on_pooled_connections_see_every_committed_write(tmp_path):
    """A reader connection goes back to its pool with no read transaction left open (a Scan stopped by its Limit
    closes its statement), so the next read on it sees what was written since."""
    client = _engine(str(tmp_path / "r.db"))
    try:
        for value in ("one", "two", "three"):
            client.put_item(TableName=TABLE, Item={"pk": {"S": "k0"}, "v": {"S": value}})
            got = client.get_item(TableName=TABLE, Key={"pk": {"S": "k0"}})["Item"]["v"]
            page = client.scan(
                TableName=TABLE,
                Limit=1,
            )["Items"]
            first = page[0]["pk"]["S"]
            again = client.get_item(TableName=TABLE, Key={"pk": {"S": first}})["Item"]
            assert got == {"S": value}
            assert again == page[0]
            batch = client.batch_get_item(RequestItems={TABLE: {"Keys": [{"pk": {"S": "k0"}}]}})
            assert batch["Responses"][TABLE][0]["v"] == {"S": value}
        assert len(client.engine.storage._idle) == 1  # one thread, one reader connection reused
    finally:
        client.close()


def test_readers_open_the_same_file_after_the_directory_changes(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    client = _engine("relative.db")
    try:
        (tmp_path / "elsewhere").mkdir()
        monkeypatch.chdir(tmp_path / "elsewhere")
        assert client.engine.storage._idle == []  # the first reader is opened now
        assert client.get_item(TableName=TABLE, Key={"pk": {"S": "k1"}})["Item"]["pk"] == {"S": "k1"}
        assert not (tmp_path / "elsewhere" / "relative.db").exists()
    finally:
        client.close()


def test_a_read_interrupted_while_waiting_for_its_turn_does_not_stop_the_next():
    gate = Gate()
    gate.enter()
    real_wait = gate._cond.wait

    def interrupted(timeout: float | None = None) -> bool:
        raise KeyboardInterrupt

    gate._cond.wait = interrupted  # type: ignore[method-assign]
    with pytest.raises(KeyboardInterrupt):
        gate.enter()  # ticket 1, abandoned
    gate._cond.wait = real_wait  # type: ignore[method-assign]
    entered = threading.Event()

    def third() -> None:
        gate.enter()  # ticket 2: served once the first leaves, past the abandoned one
        entered.set()
        gate.leave()

    thread = threading.Thread(target=third, daemon=True)
    thread.start()
    gate.leave()
    assert entered.wait(GUARD), "the read after an abandoned ticket never got its turn"
    thread.join(GUARD)
