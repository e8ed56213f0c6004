"""In-process triggers on the embedded engine: called after commit, off the writer's thread, at no cost when
none is registered."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

import dynabase
from ddb_helpers import table_request
from dynabase.streams import Consumer, SqliteCheckpoints, on_change, triggers


@pytest.fixture
def client():
    client = dynabase.connect(":memory:")
    client.create_table(**table_request("orders", ("pk:S",), stream="NEW_AND_OLD_IMAGES"))
    yield client
    client.close()


def wait_for(condition: Any, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def test_trigger_runs_after_commit_off_the_writer_thread(client):
    seen: list[tuple[str, Any, bool]] = []
    writer = threading.current_thread()

    def handler(event: dict, context: Any) -> None:
        for record in event["Records"]:
            key = record["dynamodb"]["Keys"]
            # the change is committed: a consistent read sees it
            stored = client.get_item(TableName="orders", Key=key, ConsistentRead=True).get("Item")
            seen.append((record["eventName"], stored, threading.current_thread() is writer))

    with on_change(client, "orders", handler):
        client.put_item(TableName="orders", Item={"pk": {"S": "a"}, "v": {"N": "1"}})
        client.transact_write_items(
            TransactItems=[
                {
                    "Update": {
                        "TableName": "orders",
                        "Key": {"pk": {"S": "a"}},
                        "UpdateExpression": "SET v = :v",
                        "ExpressionAttributeValues": {":v": {"N": "2"}},
                    }
                },
                {"Put": {"TableName": "orders", "Item": {"pk": {"S": "b"}}}},
            ]
        )
        wait_for(lambda: len(seen) == 3)
    assert [s[0] for s in seen] == ["INSERT", "MODIFY", "INSERT"]
    assert seen[0][1] is not None and seen[2][1] == {"pk": {"S": "b"}}
    assert not any(s[2] for s in seen)


def test_a_trigger_may_write_to_the_engine(client):
    """A handler writing back (an audit row) must not deadlock: it runs outside the write transaction."""
    client.create_table(**table_request("audit", ("pk:S",)))

    def handler(event: dict, context: Any) -> None:
        for record in event["Records"]:
            client.put_item(TableName="audit", Item={"pk": record["dynamodb"]["Keys"]["pk"]})

    with on_change(client, "orders", handler):
        for key in "abc":
            client.put_item(TableName="orders", Item={"pk": {"S": key}})
        wait_for(lambda: client.scan(TableName="audit")["Count"] == 3)


def test_changes_before_registration_are_not_delivered_by_default(client):
    client.put_item(TableName="orders", Item={"pk": {"S": "before"}})
    seen: list[str] = []
    with on_change(
        client, "orders", lambda e, c: seen.extend(r["dynamodb"]["Keys"]["pk"]["S"] for r in e["Records"])
    ):
        client.put_item(TableName="orders", Item={"pk": {"S": "after"}})
        wait_for(lambda: seen == ["after"])
    history: list[str] = []
    trigger = on_change(
        client,
        "orders",
        lambda e, c: history.extend(r["dynamodb"]["Keys"]["pk"]["S"] for r in e["Records"]),
        starting_position="TRIM_HORIZON",
    )
    wait_for(lambda: history == ["before", "after"])
    trigger.close()


def test_no_listener_without_triggers_and_close_removes_it(client):
    engine = client.engine
    assert engine.change_listeners == () and engine.storage.journal is None
    trigger = on_change(client, "orders", lambda e, c: None)
    assert len(engine.change_listeners) == 1
    trigger.close()
    assert engine.change_listeners == () and engine.storage.journal is None
    assert not trigger.thread.is_alive()


def test_writes_do_not_wait_for_a_trigger_whose_handler_is_stuck(client):
    """The handler is held inside its first call for the whole test: the 50 puts still all return (a hang
    guard of 60 s; the trigger's cost to a writer is measured by bench/streams_bench.py)."""
    entered, release = threading.Event(), threading.Event()

    def stuck(event: dict, context: Any) -> None:
        entered.set()
        release.wait()

    def writes() -> None:
        for i in range(50):
            client.put_item(TableName="orders", Item={"pk": {"S": f"k{i}"}})

    with on_change(client, "orders", stuck):
        try:
            client.put_item(TableName="orders", Item={"pk": {"S": "first"}})
            assert entered.wait(60), "the trigger never called its handler"
            writer = threading.Thread(target=writes, daemon=True)
            writer.start()
            writer.join(60)
            assert not writer.is_alive(), "the writes waited for the handler"
            assert not release.is_set()  # the handler was in its call all along
        finally:
            release.set()
    assert client.scan(TableName="orders", Select="COUNT")["Count"] == 51


def test_a_write_wakes_the_trigger_without_waiting_for_its_poll(client):
    """With a poll interval of an hour, each write still reaches the handler (a hang guard of 60 s): the
    write wakes the trigger. Its latency (p50, goal <= 50 ms) is measured by bench/streams_bench.py."""
    arrivals: list[str] = []
    with on_change(
        client,
        "orders",
        lambda e, c: arrivals.extend(r["dynamodb"]["Keys"]["pk"]["S"] for r in e["Records"]),
        poll_interval=3600,
    ):
        for i in range(20):
            client.put_item(TableName="orders", Item={"pk": {"S": f"k{i}"}})
            wait_for(lambda i=i: f"k{i}" in arrivals, timeout=60)
    assert arrivals == [f"k{i}" for i in range(20)]


def test_triggers_need_the_embedded_client():
    with pytest.raises(TypeError, match="embedded client"):
        on_change(object(), "orders", lambda e, c: None)


def _collector() -> tuple[list[dict], Any]:
    seen: list[dict] = []
    return seen, lambda event, context: seen.extend(event["Records"])


def test_handed_over_records_equal_those_read_through_get_records(client):
    """The records the engine hands over are Lambda's, exactly as a consumer reading GetRecords makes them."""
    seen, handler = _collector()
    items = [
        {"pk": {"S": "a"}, "b": {"B": b"\x00\xff"}, "bs": {"BS": [b"x", b"y"]}, "n": {"N": "1.50"}},
        {"pk": {"S": "m"}, "m": {"M": {"in": {"B": b"z"}, "l": {"L": [{"NULL": True}, {"BOOL": False}]}}}},
        {"pk": {"S": "s"}, "ss": {"SS": ["p", "q"]}, "ns": {"NS": ["2", "1"]}, "u": {"S": "é✓"}},
    ]
    with on_change(client, "orders", handler):
        for item in items:
            client.put_item(TableName="orders", Item=item)
        client.update_item(
            TableName="orders",
            Key={"pk": {"S": "a"}},
            UpdateExpression="SET n = :n",
            ExpressionAttributeValues={":n": {"N": "2"}},
        )
        client.delete_item(TableName="orders", Key={"pk": {"S": "m"}})
        wait_for(lambda: len(seen) == 5)
    read, reader = _collector()
    Consumer.for_table(client, "orders", reader).run(until_idle=True)
    assert seen == read
    assert [list(r) for r in seen] == [list(r) for r in read]  # the same key order (JSON output)
    assert [list(r["dynamodb"]) for r in seen] == [list(r["dynamodb"]) for r in read]
    assert seen[0]["dynamodb"]["NewImage"]["b"] == {"B": "AP8="}  # base64 text, as in Lambda's JSON


def test_handed_over_ttl_deletes_are_lambdas_records_too(client):
    """Whole seconds and ``userIdentity`` spelled as Lambda spells it, as a consumer reading GetRecords gives
    them (tests/streams/test_lambda_events.py)."""
    client.update_time_to_live(
        TableName="orders", TimeToLiveSpecification={"Enabled": True, "AttributeName": "exp"}
    )
    seen, handler = _collector()
    with on_change(client, "orders", handler):
        client.put_item(
            TableName="orders", Item={"pk": {"S": "old"}, "exp": {"N": str(int(time.time()) - 60)}}
        )
        assert client.engine.sweep_expired() == 1
        wait_for(lambda: len(seen) == 2)
    read, reader = _collector()
    Consumer.for_table(client, "orders", reader).run(until_idle=True)
    assert seen == read
    assert [type(r["dynamodb"]["ApproximateCreationDateTime"]) for r in seen] == [int, int]
    assert seen[1]["userIdentity"] == {"principalId": "dynamodb.amazonaws.com", "type": "Service"}


def test_steady_writes_are_handed_over_without_reading_the_database(client, monkeypatch):
    reads = []
    original = triggers.stored_records
    monkeypatch.setattr(triggers, "stored_records", lambda *a: reads.append(a) or original(*a))
    seen, handler = _collector()
    with on_change(client, "orders", handler):
        wait_for(lambda: len(reads) == 1)  # the start: what came after the starting point
        for i in range(60):
            client.put_item(TableName="orders", Item={"pk": {"S": f"k{i}"}})
        wait_for(lambda: len(seen) == 60)
    assert len(reads) == 1
    assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in seen] == [f"k{i}" for i in range(60)]


def test_records_written_by_another_engine_fill_the_gap_in_order(tmp_path):
    path = str(tmp_path / "shared.db")
    client, other = dynabase.connect(path), dynabase.connect(path)
    client.create_table(**table_request("orders", ("pk:S",), stream="NEW_IMAGE"))
    seen, handler = _collector()
    with on_change(client, "orders", handler, poll_interval=0.2):
        client.put_item(TableName="orders", Item={"pk": {"S": "1"}})
        other.put_item(TableName="orders", Item={"pk": {"S": "2"}})
        client.put_item(TableName="orders", Item={"pk": {"S": "3"}})  # comes with a gap: 2 is read
        wait_for(lambda: len(seen) == 3)
        other.put_item(TableName="orders", Item={"pk": {"S": "4"}})  # found by the quiet-time read
        wait_for(lambda: len(seen) == 4)
    assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in seen] == ["1", "2", "3", "4"]
    numbers = [int(r["dynamodb"]["SequenceNumber"]) for r in seen]
    assert numbers == sorted(numbers)
    client.close()
    other.close()


def test_a_full_queue_loses_nothing(client, monkeypatch):
    """A handler that holds up the trigger: past MAX_QUEUED transactions the writer stops queueing, and the
    trigger reads the rest from the database, in order, once each."""
    monkeypatch.setattr(triggers, "MAX_QUEUED", 3)
    release = threading.Event()
    seen: list[str] = []

    def handler(event: dict, context: Any) -> None:
        release.wait(5)
        seen.extend(r["dynamodb"]["Keys"]["pk"]["S"] for r in event["Records"])

    with on_change(client, "orders", handler, batch_size=2):
        for i in range(20):
            client.put_item(TableName="orders", Item={"pk": {"S": f"k{i:02}"}})
        release.set()
        wait_for(lambda: len(seen) >= 20)
        time.sleep(0.05)
    assert seen == [f"k{i:02}" for i in range(20)]


def test_concurrent_writers_are_handed_over_in_commit_order(client):
    seen, handler = _collector()

    def write(prefix: str) -> None:
        for i in range(40):
            client.put_item(TableName="orders", Item={"pk": {"S": f"{prefix}{i:02}"}})

    with on_change(client, "orders", handler):
        threads = [threading.Thread(target=write, args=(p,)) for p in "abc"]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wait_for(lambda: len(seen) == 120)
    numbers = [int(r["dynamodb"]["SequenceNumber"]) for r in seen]
    assert numbers == sorted(set(numbers))
    for p in "abc":
        mine = [r["dynamodb"]["Keys"]["pk"]["S"] for r in seen if r["dynamodb"]["Keys"]["pk"]["S"][0] == p]
        assert mine == [f"{p}{i:02}" for i in range(40)]


def test_a_trigger_with_checkpoints_resumes_after_what_it_handled(client, tmp_path):
    checkpoints = SqliteCheckpoints(str(tmp_path / "checkpoints.db"))
    seen, handler = _collector()
    with on_change(client, "orders", handler, name="audit", checkpoints=checkpoints):
        client.put_item(TableName="orders", Item={"pk": {"S": "a"}})
        wait_for(lambda: len(seen) == 1)
    client.put_item(TableName="orders", Item={"pk": {"S": "b"}})  # while no trigger runs
    with on_change(client, "orders", handler, name="audit", checkpoints=checkpoints):
        client.put_item(TableName="orders", Item={"pk": {"S": "c"}})
        wait_for(lambda: len(seen) == 3)
    assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in seen] == ["a", "b", "c"]


def test_batch_size_and_filters_apply_to_handed_over_records(client):
    batches: list[list[str]] = []
    release = threading.Event()

    def handler(event: dict, context: Any) -> None:
        release.wait(5)
        batches.append([r["dynamodb"]["Keys"]["pk"]["S"] for r in event["Records"]])

    with on_change(client, "orders", handler, batch_size=3, filters=[{"eventName": ["INSERT"]}]):
        client.put_item(TableName="orders", Item={"pk": {"S": "first"}})
        for i in range(7):
            client.put_item(TableName="orders", Item={"pk": {"S": f"k{i}"}})
        client.delete_item(TableName="orders", Key={"pk": {"S": "k0"}})
        release.set()
        wait_for(lambda: sum(map(len, batches)) == 8)
        time.sleep(0.05)
    assert all(len(batch) <= 3 for batch in batches)
    assert [k for batch in batches for k in batch] == ["first"] + [f"k{i}" for i in range(7)]


def test_a_closed_stream_ends_the_trigger(client):
    seen, handler = _collector()
    trigger = on_change(client, "orders", handler, poll_interval=0.05)
    client.put_item(TableName="orders", Item={"pk": {"S": "a"}})
    client.update_table(TableName="orders", StreamSpecification={"StreamEnabled": False})
    trigger.thread.join(5)
    assert not trigger.thread.is_alive() and trigger.error is None
    assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in seen] == ["a"]
    assert client.engine.change_listeners == ()
    trigger.close()
