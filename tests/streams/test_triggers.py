"""In-process triggers on the embedded engine: called after commit, off the writer's thread, at no cost when
none is registered."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

import dynabase
from ddb_helpers import table_request
from dynabase.streams import on_change


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


def test_a_slow_trigger_does_not_slow_writes(client):
    release = threading.Event()
    with on_change(client, "orders", lambda e, c: release.wait(5)):
        started = time.monotonic()
        for i in range(50):
            client.put_item(TableName="orders", Item={"pk": {"S": f"k{i}"}})
        elapsed = time.monotonic() - started
        release.set()
    assert elapsed < 2.0


def test_write_to_handler_latency(client):
    arrivals: list[float] = []
    with on_change(client, "orders", lambda e, c: arrivals.append(time.monotonic())):
        lags = []
        for i in range(20):
            before = len(arrivals)
            written = time.monotonic()
            client.put_item(TableName="orders", Item={"pk": {"S": f"k{i}"}})
            wait_for(lambda before=before: len(arrivals) > before)
            lags.append(arrivals[-1] - written)
    lags.sort()
    assert lags[len(lags) // 2] < 0.05  # p50 well under the poll interval: the write wakes the trigger


def test_triggers_need_the_embedded_client():
    with pytest.raises(TypeError, match="embedded client"):
        on_change(object(), "orders", lambda e, c: None)
