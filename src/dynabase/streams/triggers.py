"""In-process triggers on the embedded engine: a handler called with each change soon after it commits.

The engine hands each committed write transaction's stream records to the trigger
(:meth:`Engine.add_change_listener`): the records as stored, which the writer has already made, so the trigger
does not read them back from SQLite. The writer's thread only appends them to the trigger's queue and sets an
event (when not already set); the trigger's own thread turns them into Lambda's event shape and calls the
handler through its :class:`~.consumer.Consumer` (filters, batches, retries, checkpoints, on-failure). The
handler runs after commit, outside the write transaction and never on the writer's thread; records of a
rolled-back transaction never reach it. An engine without triggers journals nothing.

Records reach the trigger in commit order with consecutive sequence numbers (all streams share one sequence).
A gap means records this engine did not write (another process on the same file, another engine): the
trigger then reads the database from its last handled record, as it does at start (``TRIM_HORIZON``, a
checkpoint) and after ``poll_interval`` quiet seconds, which is also when it notices the stream was closed.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import TYPE_CHECKING, Any

from ..engine.storage import load_item
from ..engine.streams import (
    MAX_RECORDS,
    next_seq,
    seq_text,
    shard_id,
    stored_records,
    stream_enabled,
)
from .consumer import Consumer, Handler, Options, Shard
from .events import lambda_members

if TYPE_CHECKING:  # pragma: no cover
    from ..engine import Engine

#: one committed transaction's stream records, as the engine hands them over: (seq, stream ARN, record JSON)
Changes = list[tuple[int, str, str]]
#: transactions queued for a trigger at most: past that (a slow or failing handler) the writer drops them and
#: the trigger reads them from the database when it gets there, so memory stays bounded
MAX_QUEUED = 10_000
#: the wait after a drain that filled a batch, in ``poll_gap``s: a busy stream's trigger wakes up less often
#: (each wake-up costs the process some 0.3 ms of CPU: cold caches, a timed wait), its handler gets fuller
#: batches, and its records wait at most this many gaps (40 ms by default)
BUSY_GAP = 4


class EngineStreams:
    """The Streams calls made on the engine itself: the client layer would parse every record's timestamp into
    a ``datetime`` that the Lambda shape turns back into a number (most of a record's cost)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def _call(self, operation: str, request: dict[str, Any]) -> dict[str, Any]:
        return self.engine.call(operation, request, service="dynamodbstreams")

    def describe_stream(self, **request: Any) -> dict[str, Any]:
        return self._call("DescribeStream", request)

    def get_shard_iterator(self, **request: Any) -> dict[str, Any]:
        return self._call("GetShardIterator", request)

    def get_records(self, **request: Any) -> dict[str, Any]:
        return self._call("GetRecords", request)


def lambda_event_record(seq: int, text: str, stream_arn: str) -> dict[str, Any]:
    """A stored stream record (its JSON, binary values as base64 text) as a record of Lambda's event: what
    :func:`~.events.lambda_record` makes of the same record read through GetRecords."""
    record = load_item(text, 0)  # not decoding base64: Lambda's JSON carries binary values as base64 text
    data = record["dynamodb"]
    data["SequenceNumber"] = seq_text(seq)
    data["SizeBytes"] = data.pop("SizeBytes")  # GetRecords' order: these two come after SequenceNumber
    data["StreamViewType"] = data.pop("StreamViewType")
    return lambda_members(record, stream_arn)


class Trigger:
    """A running trigger; :meth:`close` stops it (the engine stops handing it records)."""

    def __init__(self, engine: Any, consumer: Consumer) -> None:
        self.engine = engine
        self.consumer = consumer
        self.shard = Shard({"ShardId": shard_id(consumer.stream_arn)})  # the engine's streams have one shard
        self.error: BaseException | None = None
        self._inbox: deque[Changes] = deque()
        self._dropped = False
        self._wake = consumer.wake
        self._stop = threading.Event()
        #: the next sequence number the engine should hand over; None: read the database first
        self._expected: int | None = None
        with engine.storage.lock:  # no commit between the listener's start and the starting point
            engine.add_change_listener(self._listen)
            checkpoint = consumer.checkpoint_of(self.shard)  # a durable LATEST is saved here, at the end
            latest = next_seq(engine.storage.conn)
        self._finished = checkpoint.finished
        #: every record of the stream before this one is handled
        if checkpoint.sequence is not None:
            self._next = int(checkpoint.sequence) + 1
        elif consumer.options.starting_position == "LATEST" and not consumer.durable:
            self._next = latest
        else:
            self._next = 0
        self.thread = threading.Thread(target=self._run, name=f"trigger-{consumer.name}", daemon=True)
        self.thread.start()

    def _listen(self, changes: Changes) -> None:
        """On the writer's thread, under the storage lock, after COMMIT: only queue them."""
        if len(self._inbox) < MAX_QUEUED:
            self._inbox.append(changes)
        else:
            self._dropped = True
        if not self._wake.is_set():
            self._wake.set()

    def _run(self) -> None:
        try:
            self._loop()
        except BaseException as error:  # kept for the owner to see (the thread must not die silently)
            self.error = error
            raise
        finally:
            self.engine.remove_change_listener(self._listen)

    def _loop(self) -> None:
        options = self.consumer.options
        stop, wake = self._stop, self._wake
        while not stop.is_set() and not self._finished:
            if self._expected is None:
                self._catch_up()
                continue
            woke = wake.wait(options.poll_interval)
            wake.clear()
            if stop.is_set():
                return
            if not woke:  # quiet: look for what other processes wrote, and whether the stream was closed
                self._expected = None
                continue
            if options.batching_window:
                stop.wait(options.batching_window)
            handled = self._drain()
            if options.poll_gap:  # a busy stream is handled in fuller batches, for less work per record
                busy = handled >= options.batch_size  # a full batch: wake up less often, at most 4 times
                stop.wait(options.poll_gap * (BUSY_GAP if busy else 1))

    def _drain(self) -> int:
        """Handle the queued records of this stream, up to a gap in the sequence numbers; how many."""
        arn = self.consumer.stream_arn
        mine: Changes = []
        expected = self._expected
        inbox = self._inbox
        if self._dropped:  # the queue overflowed: read the database after what is queued
            self._dropped = False
            self._expected = None
        while inbox:
            changes = inbox.popleft()
            if changes[0][0] != expected:  # written by someone else in between: read the database
                self._expected = None
                break
            expected = changes[-1][0] + 1
            for change in changes:
                if change[1] == arn:
                    mine.append(change)
        self._handle(mine)
        # an int: _drain runs only while the engine hands records over (_expected set when it started)
        self._next = expected  # type: ignore[assignment]
        if self._expected is not None:
            self._expected = expected
        return len(mine)

    def _catch_up(self) -> None:
        """Read the stream's stored records from the last handled one, a page at a time; once through, take
        the engine's hand-over from the next sequence number on."""
        storage = self.engine.storage
        arn = self.consumer.stream_arn
        with storage.read() as conn:  # one snapshot; this engine commits nothing meanwhile
            self._inbox.clear()  # all committed by now, so read below
            self._dropped = False
            end = next_seq(conn)
            rows = stored_records(conn, arn, self._next, MAX_RECORDS)
            closed = not stream_enabled(conn, arn)
        self._handle([(seq, arn, text) for seq, text, _ in rows])
        if len(rows) == MAX_RECORDS:
            self._next = rows[-1][0] + 1
            return
        self._next = self._expected = end
        if closed:  # read to its end: no record will come
            self.consumer.handle(self.shard, [], ended=True)
            self._finished = True

    def _handle(self, changes: Changes) -> None:
        if not changes:
            return
        arn = self.consumer.stream_arn
        size = self.consumer.options.batch_size
        for start in range(0, len(changes), size):  # parsed a batch at a time: a small working set
            batch = [lambda_event_record(seq, text, arn) for seq, _, text in changes[start : start + size]]
            self.consumer.handle(self.shard, batch)
        self._next = changes[-1][0] + 1

    def close(self, timeout: float = 10.0) -> None:
        self.engine.remove_change_listener(self._listen)
        self._stop.set()
        self._wake.set()
        self.thread.join(timeout)

    def __enter__(self) -> Trigger:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def on_change(
    client: Any,
    table_name: str,
    handler: Handler,
    *,
    starting_position: str = "LATEST",
    poll_gap: float = 0.01,
    **settings: Any,
) -> Trigger:
    """Call ``handler(event, context)`` (Lambda's shape) with the table's changes, after they commit.

    ``client`` is the embedded client (``dynabase.connect``). ``settings`` are :class:`~.consumer.Options`
    fields (``batch_size``, ``filters``, ``max_retries``...) and :class:`~.consumer.Consumer` keywords
    (``name``, ``checkpoints``, ``on_failure``, ``table``). Changes from now on by default
    (``starting_position="TRIM_HORIZON"`` for the stream's retained history too). The first change after a
    quiet spell is handed over at once; under a stream of writes the trigger takes them at most every
    ``poll_gap`` seconds, so the records come in batches and the writer keeps its pace.
    """
    engine = getattr(client, "engine", None)
    if engine is None:
        raise TypeError("triggers need the embedded client (dynabase.connect); use a Consumer elsewhere")
    consumer_keys = {"name", "checkpoints", "on_failure", "table"}
    consumer_args = {k: settings.pop(k) for k in list(settings) if k in consumer_keys}
    consumer_args.setdefault("name", f"trigger-{table_name}")
    options = Options(starting_position=starting_position, poll_gap=poll_gap, **settings)
    consumer = Consumer.for_table(
        client, table_name, handler, streams=EngineStreams(engine), options=options, **consumer_args
    )
    return Trigger(engine, consumer)


__all__ = ["Trigger", "lambda_event_record", "on_change"]
