"""The stream consumer on every backend (embedded, ``dynabase serve``, DynamoDB Local): Lambda's event shape,
batches, checkpoints, starting positions, filters, retries, bisect-on-error and the on-failure destination."""

from __future__ import annotations

import re
import threading
import time
from typing import Any

import pytest

from dynabase.streams import (
    Consumer,
    JsonLinesDestination,
    MemoryCheckpoints,
    Options,
    SqliteCheckpoints,
    TableCheckpoints,
    TableDestination,
    lambda_record,
)

LAMBDA_RECORD_KEYS = {
    "eventID",
    "eventName",
    "eventVersion",
    "eventSource",
    "awsRegion",
    "dynamodb",
    "eventSourceARN",
}


@pytest.fixture
def table(client: Any, make_table: Any) -> str:
    return make_table(("pk:S",), stream="NEW_AND_OLD_IMAGES")


def put(client: Any, table: str, *keys: str, **extra: dict) -> None:
    for key in keys:
        client.put_item(TableName=table, Item={"pk": {"S": key}, **extra})


def consumer(client: Any, streams_client: Any, table: str, handler: Any, **kwargs: Any) -> Consumer:
    options = kwargs.pop("options", None) or Options(poll_interval=0.05, retry_delay=0.0)
    return Consumer.for_table(client, table, handler, streams=streams_client, options=options, **kwargs)


class Recorder:
    def __init__(self, fail_on: set[str] = frozenset()) -> None:
        self.batches: list[list[dict]] = []
        self.contexts: list[Any] = []
        self.fail_on = set(fail_on)

    def __call__(self, event: dict, context: Any) -> None:
        records = event["Records"]
        self.batches.append(records)
        self.contexts.append(context)
        for record in records:
            if record["dynamodb"]["Keys"]["pk"]["S"] in self.fail_on:
                raise ValueError("bad record " + record["dynamodb"]["Keys"]["pk"]["S"])

    def keys(self) -> list[str]:
        return [r["dynamodb"]["Keys"]["pk"]["S"] for batch in self.batches for r in batch]


def test_handler_gets_lambda_events_in_order(client, streams_client, table):
    put(client, table, *[f"k{i:02}" for i in range(7)], blob={"B": b"\x00\x01"})
    client.delete_item(TableName=table, Key={"pk": {"S": "k03"}})
    recorder = Recorder()
    c = consumer(client, streams_client, table, recorder, options=Options(batch_size=3, poll_interval=0.05))
    assert c.run(until_idle=True) == 8
    assert [len(b) for b in recorder.batches] == [3, 3, 2]
    records = [r for b in recorder.batches for r in b]
    assert recorder.keys() == [f"k{i:02}" for i in range(7)] + ["k03"]
    assert [r["eventName"] for r in records] == ["INSERT"] * 7 + ["REMOVE"]
    arn = client.describe_table(TableName=table)["Table"]["LatestStreamArn"]
    for record in records:
        assert set(record) >= LAMBDA_RECORD_KEYS
        assert record["eventSourceARN"] == arn
        created = record["dynamodb"]["ApproximateCreationDateTime"]  # Lambda's: whole epoch seconds
        assert type(created) is int and abs(created - time.time()) < 3600
    assert records[0]["dynamodb"]["NewImage"]["blob"] == {"B": "AAE="}  # base64 text, as in Lambda's JSON
    assert records[-1]["dynamodb"]["OldImage"]["pk"] == {"S": "k03"}
    sequences = [int(r["dynamodb"]["SequenceNumber"]) for r in records]
    assert sequences == sorted(sequences)
    assert recorder.contexts[0].function_name == c.name
    # a real Lambda function ARN (Lambda's API model: FunctionName), of the stream's region and account where
    # they have that shape (DynamoDB Local's region, ddblocal, has not)
    function = re.fullmatch(
        r"arn:aws:lambda:([a-z]{2}(?:-gov)?-[a-z]+-\d):(\d{12}):function:([A-Za-z0-9_-]{1,64})",
        recorder.contexts[0].invoked_function_arn,
    )
    assert function is not None and function[3] == "consumer"
    region, account = arn.split(":")[3:5]
    assert function[1] == (region if region != "ddblocal" else "us-east-1") and function[2] == account
    assert recorder.contexts[0].get_remaining_time_in_millis() > 0


def test_checkpoints_resume_after_the_last_handled_batch(client, streams_client, table, tmp_path):
    store = SqliteCheckpoints(str(tmp_path / "checkpoints.db"))
    put(client, table, "a", "b", "c")
    first = Recorder()
    consumer(client, streams_client, table, first, checkpoints=store).run(until_idle=True)
    put(client, table, "d")
    again = Recorder()  # a new consumer (a restart) with the same store and name
    reopened = SqliteCheckpoints(str(tmp_path / "checkpoints.db"))
    consumer(client, streams_client, table, again, checkpoints=reopened).run(until_idle=True)
    assert first.keys() == ["a", "b", "c"]
    assert again.keys() == ["d"]
    other = Recorder()  # another consumer name has checkpoints of its own
    consumer(client, streams_client, table, other, checkpoints=reopened, name="other").run(until_idle=True)
    assert other.keys() == ["a", "b", "c", "d"]


def test_checkpoints_in_a_dynamodb_table(client, streams_client, table, make_table):
    name = f"{table}-cp"
    make_table.created.append(name)
    store = TableCheckpoints(client, name)
    put(client, table, "a", "b")
    first = Recorder()
    consumer(client, streams_client, table, first, checkpoints=store).run(until_idle=True)
    put(client, table, "c")
    again = Recorder()
    consumer(client, streams_client, table, again, checkpoints=TableCheckpoints(client, name)).run(
        until_idle=True
    )
    assert (first.keys(), again.keys()) == (["a", "b"], ["c"])


def test_a_running_consumer_reads_each_shards_checkpoint_from_its_store_once(client, streams_client, table):
    """Its position is its own: later polls use what it saved (a busy hub read the store twice per poll)."""

    class Counting(MemoryCheckpoints):
        gets = 0

        def get(self, *args: Any) -> Any:
            Counting.gets += 1
            return super().get(*args)

    store = Counting()
    put(client, table, "a")
    recorder = Recorder()
    running = consumer(client, streams_client, table, recorder, checkpoints=store)
    running.run(until_idle=True)
    first = Counting.gets
    for key in ("b", "c", "d"):
        put(client, table, key)
        running.poll()
    assert recorder.keys() == ["a", "b", "c", "d"]
    shards = len(running._shards)
    assert 0 < first <= 2 * shards and Counting.gets == first
    assert store.get(running.name, running.stream_arn, next(iter(running._shards))).sequence is not None


class _LosingTheRace:
    """A client whose first DescribeTable of ``name`` gives its real answer (ResourceNotFoundException) after
    another consumer's store has created the table: the interleaving of two hubs started at once, this one
    losing the race to CreateTable. Every answer is the backend's own."""

    def __init__(self, client: Any, name: str) -> None:
        self.client, self.name, self.raced = client, name, False

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.client, attr)

    def describe_table(self, **request: Any) -> Any:
        if self.raced or request.get("TableName") != self.name:
            return self.client.describe_table(**request)
        self.raced = True
        try:
            return self.client.describe_table(**request)
        finally:
            TableCheckpoints(
                self.client, self.name
            )  # the other hub, between our DescribeTable and CreateTable


def test_a_checkpoint_table_another_consumer_created_first_is_used(client, streams_client, table, make_table):
    name = f"{table}-cp"
    make_table.created.append(name)
    losing = _LosingTheRace(client, name)
    store = TableCheckpoints(losing, name)  # its CreateTable finds the table there: no error
    assert losing.raced
    put(client, table, "a", "b")
    recorder = Recorder()
    consumer(client, streams_client, table, recorder, checkpoints=store).run(until_idle=True)
    assert recorder.keys() == ["a", "b"]
    put(client, table, "c")
    again = Recorder()  # the checkpoint it saved is the other store's too
    consumer(client, streams_client, table, again, checkpoints=TableCheckpoints(client, name)).run(
        until_idle=True
    )
    assert again.keys() == ["c"]


def test_a_disabled_stream_is_exhausted_once_read_to_its_end(client, streams_client, table):
    put(client, table, "a", "b")
    recorder = Recorder()
    c = consumer(client, streams_client, table, recorder)
    c.run(until_idle=True)
    assert not c.exhausted  # enabled: more may come
    put(client, table, "c")
    client.update_table(TableName=table, StreamSpecification={"StreamEnabled": False})
    stop = threading.Event()
    guard = threading.Timer(30, stop.set)  # a hang guard: it returns as soon as it has read "c"
    guard.start()
    try:
        c.run(stop, until_disabled=True)
    finally:
        guard.cancel()
    assert not stop.is_set() and c.exhausted and c.status == "DISABLED"
    assert recorder.keys() == ["a", "b", "c"]


def test_a_handler_error_leaves_the_checkpoint_before_the_batch(client, streams_client, table, tmp_path):
    store = SqliteCheckpoints(str(tmp_path / "cp.db"))
    put(client, table, "a", "b", "c")
    options = Options(batch_size=2, max_retries=0, poll_interval=0.05)
    failing = consumer(
        client, streams_client, table, Recorder(fail_on={"c"}), checkpoints=store, options=options
    )
    failing.on_failure = None
    failing.run(until_idle=True)  # c's batch is dropped after no retries (no destination: Lambda's default)
    assert failing.failed == 1
    put(client, table, "d")
    after = Recorder()
    consumer(client, streams_client, table, after, checkpoints=store).run(until_idle=True)
    assert after.keys() == ["d"]


def test_a_stop_ends_the_retries_of_a_failing_batch_and_keeps_its_checkpoint(client, streams_client, table):
    """Retried until it succeeds (Lambda's default), a failing batch held ``run`` forever, deaf to its stop."""
    import threading

    store = MemoryCheckpoints()
    put(client, table, "a")
    failing = Recorder(fail_on={"a"})
    running = consumer(client, streams_client, table, failing, checkpoints=store)
    stop = threading.Event()
    thread = threading.Thread(target=running.run, args=(stop,))
    thread.start()
    deadline = time.monotonic() + 30
    while len(failing.batches) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    stop.set()
    thread.join(30)
    assert not thread.is_alive() and len(failing.batches) >= 3
    again = Recorder()  # the record was never delivered: the next consumer gets it
    consumer(client, streams_client, table, again, checkpoints=store).run(until_idle=True)
    assert again.keys() == ["a"]


def test_bisect_isolates_the_bad_record(client, streams_client, table, tmp_path):
    keys = [f"k{i:02}" for i in range(10)]
    put(client, table, *keys)
    recorder = Recorder(fail_on={"k06"})
    destination = JsonLinesDestination(tmp_path / "failed.jsonl")
    options = Options(batch_size=10, bisect_on_error=True, max_retries=2, retry_delay=0.0, poll_interval=0.05)
    c = consumer(client, streams_client, table, recorder, options=options, on_failure=destination)
    c.run(until_idle=True)
    handled = [
        r["dynamodb"]["Keys"]["pk"]["S"]
        for batch in recorder.batches
        if not any(r["dynamodb"]["Keys"]["pk"]["S"] == "k06" for r in batch)
        for r in batch
    ]
    assert handled == [k for k in keys if k != "k06"]
    alone = [b for b in recorder.batches if [r["dynamodb"]["Keys"]["pk"]["S"] for r in b] == ["k06"]]
    assert len(alone) == 3  # isolated, then tried twice more (max_retries=2)
    (entry,) = destination.entries()
    assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in entry["records"]] == ["k06"]
    info = entry["DDBStreamBatchInfo"]
    assert info["batchSize"] == 1 and info["startSequenceNumber"] == info["endSequenceNumber"]
    assert entry["requestContext"]["condition"] == "RetryAttemptsExhausted"
    assert entry["requestContext"]["approximateInvokeCount"] == 3
    assert "bad record k06" in entry["error"]
    assert (c.handled, c.failed) == (9, 1)


def test_without_bisect_the_whole_batch_fails(client, streams_client, table, make_table):
    put(client, table, "a", "b", "c")
    dead = make_table(("id:S",))
    options = Options(batch_size=3, max_retries=1, retry_delay=0.0, poll_interval=0.05)
    recorder = Recorder(fail_on={"b"})
    c = consumer(
        client, streams_client, table, recorder, options=options, on_failure=TableDestination(client, dead)
    )
    c.run(until_idle=True)
    assert len(recorder.batches) == 2  # the first attempt and one retry
    (item,) = client.scan(TableName=dead)["Items"]
    import json

    entry = json.loads(item["entry"]["S"])
    assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in entry["records"]] == ["a", "b", "c"]


PARTIAL_REF = (
    "AWS Lambda developer guide, 'Configuring partial batch response with DynamoDB and Lambda' "
    "(services-ddb-batchfailurereporting): opted in by ReportBatchItemFailures; an empty or null itemIdentifier "
    "or one under a bad key name fails the batch completely; the lowest reported sequence number is the "
    "checkpoint; with bisect on, a partial response bisects at the returned sequence number"
)


def failing_at(key: str, calls: list[list[str]], response: Any = None) -> Any:
    """A handler reporting the record ``key`` as failed (or answering ``response(record)``) every time."""

    def handler(event: dict, context: Any) -> dict:
        keys = [r["dynamodb"]["Keys"]["pk"]["S"] for r in event["Records"]]
        calls.append(keys)
        failed = [r for r in event["Records"] if r["dynamodb"]["Keys"]["pk"]["S"] == key]
        if not failed:
            return {"batchItemFailures": []}
        sequence = failed[0]["dynamodb"]["SequenceNumber"]
        return response(sequence) if response else {"batchItemFailures": [{"itemIdentifier": sequence}]}

    return handler


def test_partial_batch_response_only_when_opted_in(client, streams_client, table):
    """Lambda ignores a partial batch response unless the mapping has ReportBatchItemFailures."""
    put(client, table, "a", "b", "c", "d")
    ignored: list[list[str]] = []
    options = Options(batch_size=4, max_retries=0, poll_interval=0.05, retry_delay=0.0)
    c = consumer(client, streams_client, table, failing_at("c", ignored), options=options, name="plain")
    c.run(until_idle=True)
    assert ignored == [["a", "b", "c", "d"]] and (c.handled, c.failed) == (4, 0)

    honoured: list[list[str]] = []
    options = Options(
        batch_size=4, max_retries=2, poll_interval=0.05, retry_delay=0.0, report_batch_item_failures=True
    )

    def once(event: dict, context: Any) -> Any:  # c fails the first time only
        honoured.append([r["dynamodb"]["Keys"]["pk"]["S"] for r in event["Records"]])
        if len(honoured) == 1:
            return {
                "batchItemFailures": [{"itemIdentifier": event["Records"][2]["dynamodb"]["SequenceNumber"]}]
            }
        return None  # a null response: all done

    c = consumer(client, streams_client, table, once, options=options, name="partial")
    c.run(until_idle=True)
    assert honoured == [["a", "b", "c", "d"], ["c", "d"]] and (c.handled, c.failed) == (4, 0)


def test_the_lowest_reported_sequence_number_is_the_checkpoint(client, streams_client, table):
    put(client, table, "a", "b", "c", "d")
    calls: list[list[str]] = []

    def handler(event: dict, context: Any) -> dict:
        records = event["Records"]
        calls.append([r["dynamodb"]["Keys"]["pk"]["S"] for r in records])
        if len(calls) > 1:
            return {}
        return {
            "batchItemFailures": [{"itemIdentifier": r["dynamodb"]["SequenceNumber"]} for r in records[:0:-1]]
        }

    options = Options(batch_size=4, poll_interval=0.05, retry_delay=0.0, report_batch_item_failures=True)
    consumer(client, streams_client, table, handler, options=options).run(until_idle=True)
    assert calls == [["a", "b", "c", "d"], ["b", "c", "d"]]  # d, c, b reported: retried from b


@pytest.mark.parametrize(
    "response",
    [
        lambda seq: {"batchItemFailures": [{"itemIdentifier": ""}]},
        lambda seq: {"batchItemFailures": [{"itemIdentifier": None}]},
        lambda seq: {"batchItemFailures": [{"ItemIdentifier": seq}]},
        lambda seq: {"batchItemFailures": [{"itemIdentifier": seq}, {"sequenceNumber": seq}]},
        lambda seq: {"batchItemFailures": [seq]},
    ],
    ids=["empty", "null", "bad-key", "one-bad-of-two", "not-an-object"],
)
def test_a_malformed_partial_response_fails_the_whole_batch(
    client, streams_client, table, tmp_path, response
):
    put(client, table, "a", "b", "c")
    calls: list[list[str]] = []
    destination = JsonLinesDestination(tmp_path / "failed.jsonl")
    options = Options(
        batch_size=3, max_retries=1, poll_interval=0.05, retry_delay=0.0, report_batch_item_failures=True
    )
    c = consumer(
        client,
        streams_client,
        table,
        failing_at("b", calls, response),
        options=options,
        on_failure=destination,
    )
    c.run(until_idle=True)
    assert calls == [["a", "b", "c"]] * 2  # the whole batch, tried and retried once
    (entry,) = destination.entries()
    assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in entry["records"]] == ["a", "b", "c"]
    assert "malformed batchItemFailures" in entry["error"]
    assert (c.handled, c.failed) == (0, 3)


@pytest.mark.parametrize("bisect", [False, True])
def test_a_partial_failure_counts_toward_the_retry_limit(client, streams_client, table, tmp_path, bisect):
    put(client, table, "a", "b", "c", "d")
    calls: list[list[str]] = []
    destination = JsonLinesDestination(tmp_path / "failed.jsonl")
    options = Options(
        batch_size=4,
        max_retries=1,
        bisect_on_error=bisect,
        poll_interval=0.05,
        retry_delay=0.0,
        report_batch_item_failures=True,
    )
    c = consumer(
        client, streams_client, table, failing_at("c", calls), options=options, on_failure=destination
    )
    c.run(until_idle=True)
    # the first invocation (a partial failure) and one retry from c, not halved: then c and d go out
    assert calls == [["a", "b", "c", "d"], ["c", "d"]]
    (entry,) = destination.entries()
    assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in entry["records"]] == ["c", "d"]
    assert entry["requestContext"]["approximateInvokeCount"] == 2
    assert (c.handled, c.failed) == (2, 2)


def test_filters_on_event_name_and_attributes(client, streams_client, table):
    put(client, table, "a", severity={"S": "error"})
    put(client, table, "b", severity={"S": "info"})
    put(client, table, "c", severity={"S": "error"}, temp={"N": "40"})
    client.delete_item(TableName=table, Key={"pk": {"S": "a"}})
    recorder = Recorder()
    pattern = {"eventName": ["INSERT"], "dynamodb": {"NewImage": {"severity": {"S": ["error"]}}}}
    c = consumer(
        client, streams_client, table, recorder, options=Options(filters=[pattern], poll_interval=0.05)
    )
    c.run(until_idle=True)
    assert recorder.keys() == ["a", "c"]
    hot = Recorder()  # numeric never matches an N value (a string in the record), as on AWS
    numeric = {"dynamodb": {"NewImage": {"temp": {"N": [{"numeric": [">", 30]}]}}}}
    lambda_form = {"Pattern": '{"eventName": ["REMOVE"]}'}
    options = Options(filters=[numeric, lambda_form], poll_interval=0.05)
    consumer(client, streams_client, table, hot, options=options, name="hot").run(until_idle=True)
    assert hot.keys() == ["a"]
    text = Recorder()  # the number's text matches
    options = Options(filters=[{"dynamodb": {"NewImage": {"temp": {"N": ["40"]}}}}], poll_interval=0.05)
    consumer(client, streams_client, table, text, options=options, name="text").run(until_idle=True)
    assert text.keys() == ["c"]


def test_starting_positions(client, streams_client, table, tmp_path):
    put(client, table, "old")
    store = SqliteCheckpoints(str(tmp_path / "cp.db"))
    latest = Options(starting_position="LATEST", poll_interval=0.05)
    recorder = Recorder()
    c = consumer(client, streams_client, table, recorder, options=latest, checkpoints=store)
    c.prime()  # a durable LATEST start is saved before any record is handled: a crash now skips nothing
    put(client, table, "new")
    restarted = consumer(client, streams_client, table, recorder, options=latest, checkpoints=store)
    restarted.run(until_idle=True)
    assert recorder.keys() == ["new"]
    memory_latest = Recorder()
    c = consumer(
        client, streams_client, table, memory_latest, options=latest, checkpoints=MemoryCheckpoints()
    )
    c.prime()
    put(client, table, "newer")
    c.run(until_idle=True)
    assert memory_latest.keys() == ["newer"]
    at = Recorder()
    when = Options(
        starting_position="AT_TIMESTAMP", starting_timestamp=time.time() + 3600, poll_interval=0.05
    )
    consumer(client, streams_client, table, at, options=when, name="future").run(until_idle=True)
    assert at.keys() == []
    horizon = Recorder()
    consumer(client, streams_client, table, horizon, name="all").run(until_idle=True)
    assert horizon.keys() == ["old", "new", "newer"]


def test_batching_window_waits_for_a_fuller_batch(client, streams_client, table):
    import threading

    recorder = Recorder()
    options = Options(batch_size=5, batching_window=1.5, poll_interval=0.05)
    c = consumer(client, streams_client, table, recorder, options=options)
    c.prime()

    def writer() -> None:
        for key in "abcde":
            put(client, table, key)
            time.sleep(0.1)

    thread = threading.Thread(target=writer)
    thread.start()
    c.poll()
    thread.join()
    c.run(until_idle=True)
    assert recorder.keys() == list("abcde")
    assert len(recorder.batches[0]) == 5


def test_entities_grouped_by_model(client, streams_client, make_table):
    from dynabase.model import Table

    schema = {
        "format": "onetable:1.1.0",
        "version": "0.0.1",
        "indexes": {"primary": {"hash": "pk", "sort": "sk"}},
        "models": {
            "Fault": {
                "pk": {"type": "string", "value": "device#${deviceId}"},
                "sk": {"type": "string", "value": "fault#${id}"},
                "deviceId": {"type": "string", "required": True},
                "id": {"type": "string"},
                "severity": {"type": "string"},
            },
            "Status": {
                "pk": {"type": "string", "value": "status#${deviceId}"},
                "sk": {"type": "string", "value": "status#"},
                "deviceId": {"type": "string", "required": True},
                "load": {"type": "number"},
            },
        },
    }
    name = make_table(("pk:S", "sk:S"), stream="NEW_AND_OLD_IMAGES")
    table = Table(name, client, schema)
    table.model("Fault").create({"deviceId": "d1", "id": "f1", "severity": "warn"})
    table.model("Fault").update({"deviceId": "d1", "id": "f1", "severity": "error"})
    table.model("Status").create({"deviceId": "d1", "load": 3})
    recorder = Recorder()
    options = Options(poll_interval=0.05)
    Consumer.for_table(client, name, recorder, streams=streams_client, options=options, table=table).run(
        until_idle=True
    )
    (entities,) = [c.entities for c in recorder.contexts]
    assert [(e["type"], e["new"]["severity"]) for e in entities["Fault"]] == [
        ("INSERT", "warn"),
        ("MODIFY", "error"),
    ]
    assert entities["Fault"][1]["old"] == {"deviceId": "d1", "id": "f1", "severity": "warn"}
    assert entities["Status"] == [{"type": "INSERT", "new": {"deviceId": "d1", "load": 3}}]


def test_lambda_shape_round_trips_binary_values():
    """Lambda's event carries binary values as base64 text; the entity layer gets the bytes back."""
    from datetime import datetime, timezone

    from dynabase.streams.events import wire_record

    image = {
        "pk": {"S": "k"},
        "b": {"B": b"\x00\x01"},
        "m": {"M": {"bs": {"BS": [b"\xff"]}, "l": {"L": [{"B": b"x"}]}}},
    }
    created = datetime(2026, 1, 1, tzinfo=timezone.utc)
    record = {
        "eventName": "INSERT",
        "dynamodb": {
            "ApproximateCreationDateTime": created,
            "Keys": {"pk": {"S": "k"}},
            "NewImage": image,
            "SequenceNumber": "1",
        },
    }
    shaped = lambda_record(record, "arn")
    assert shaped["dynamodb"]["NewImage"]["b"] == {"B": "AAE="}
    assert shaped["dynamodb"]["NewImage"]["m"]["M"]["bs"] == {"BS": ["/w=="]}
    assert shaped["dynamodb"]["ApproximateCreationDateTime"] == created.timestamp()
    assert wire_record(shaped)["dynamodb"]["NewImage"] == image
    assert record["dynamodb"]["NewImage"]["b"] == {"B": b"\x00\x01"}  # the client's record is left alone
