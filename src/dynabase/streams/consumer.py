"""A stream consumer with Lambda's event-source-mapping semantics, over the DynamoDB Streams client protocol.

It reads through any ``dynamodbstreams`` client -- ``dynabase.connect(...).streams()``, or boto3's against
AWS, DynamoDB Local or ``dynabase serve`` -- and calls ``handler(event, context)`` with Lambda's event shape.

Delivery is **at least once**: a shard's checkpoint moves past a batch only after the handler returned (or the
batch went to the on-failure destination), so after a crash the consumer starts again after the last
checkpoint and hands over again whatever the crashed run had not finished -- never skipping a record.

* ``batch_size`` records at most per call (1..10000); ``batching_window`` seconds to wait for a fuller batch.
* ``starting_position``: ``TRIM_HORIZON``, ``LATEST`` or ``AT_TIMESTAMP`` (with ``starting_timestamp``) for a
  shard the consumer has no checkpoint of. With a durable checkpoint store, ``LATEST`` is saved at once as
  the shard's last sequence number (found by reading the shard through), so a crash before the first batch
  skips nothing. ``AT_TIMESTAMP`` reads from the trim horizon and passes over records whose
  ``ApproximateCreationDateTime`` is earlier (AWS rounds it down to the second, DynamoDB Local to the minute).
* ``filters``: Lambda filter criteria (:mod:`.filters`); records that do not match are passed over.
* Errors: without ``bisect_on_error`` a failing batch is retried whole; with it, a failing batch of several
  records is split in two and each half delivered in turn (a split uses no retry), down to the single bad
  record. A batch is retried ``max_retries`` times (-1: until it succeeds, Lambda's default), then sent to
  ``on_failure`` and passed over.
* ``report_batch_item_failures`` (Lambda's ``FunctionResponseTypes: ["ReportBatchItemFailures"]``): a handler
  returning ``{"batchItemFailures": [{"itemIdentifier": seq}]}`` has the batch counted done up to the failed
  record of the lowest sequence number; the rest is retried (that invocation counts toward ``max_retries``;
  it is not bisected). A response whose ``itemIdentifier`` is empty, null or under another key fails the
  whole batch. Without the option the handler's return value is ignored, as Lambda ignores it.
* A handler with a ``held()`` method (``flush()`` to end the holding) holds records whose effect it has not
  written yet (the metrics handler's buffered values): no checkpoint moves past a held record, and
  :meth:`Consumer.drain` flushes the handler and saves the checkpoints.
* ``poll_interval``: seconds between polls of an idle stream (``wake`` ends the wait early);
  ``poll_gap``: the least time between two polls of a busy one.
* Shards: a child shard is read only once its parent is finished (shard lineage, as on AWS after a split);
  ``parallel_shards`` shards are read at once.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from ..errors import DynamoDBError
from .checkpoints import Checkpoint, CheckpointStore, MemoryCheckpoints
from .destinations import FailureDestination, failure_entry
from .events import LambdaContext, created_at, lambda_record, sequence_number, wire_record
from .filters import compile_filters, matches

log = logging.getLogger("dynabase.streams")

STARTING_POSITIONS = ("TRIM_HORIZON", "LATEST", "AT_TIMESTAMP")
MAX_PAGE = 1000  # GetRecords' Limit
#: ``handler(event, context)``: Lambda's event (``{"Records": [...]}``) and context
Handler = Callable[[dict[str, Any], LambdaContext], Any]


@dataclass
class Options:
    """How a :class:`Consumer` batches, starts, filters and retries (Lambda's event-source-mapping knobs)."""

    batch_size: int = 100
    batching_window: float = 0.0
    starting_position: str = "TRIM_HORIZON"
    starting_timestamp: float | None = None
    filters: Sequence[Any] = ()
    max_retries: int = -1
    bisect_on_error: bool = False
    report_batch_item_failures: bool = False
    parallel_shards: int = 1
    poll_interval: float = 1.0
    poll_gap: float = 0.0
    retry_delay: float = 0.05
    shard_refresh: float = 10.0
    timeout: float | None = None
    compiled_filters: list[dict[str, Any]] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        if not 1 <= self.batch_size <= 10000:
            raise ValueError("batch_size must be between 1 and 10000")
        if not 0 <= self.batching_window <= 300:
            raise ValueError("batching_window must be between 0 and 300 seconds")
        if self.starting_position not in STARTING_POSITIONS:
            raise ValueError(f"starting_position must be one of {', '.join(STARTING_POSITIONS)}")
        if self.starting_position == "AT_TIMESTAMP" and self.starting_timestamp is None:
            raise ValueError("AT_TIMESTAMP needs starting_timestamp (epoch seconds)")
        if self.max_retries < -1:
            raise ValueError("max_retries must be -1 (no limit) or more")
        if self.parallel_shards < 1:
            raise ValueError("parallel_shards must be 1 or more")
        for name in ("poll_interval", "poll_gap", "retry_delay", "shard_refresh"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative")
        if self.timeout is not None and self.timeout <= 0:
            raise ValueError("timeout must be more than 0 seconds")
        if self.starting_timestamp is not None and self.starting_position != "AT_TIMESTAMP":
            raise ValueError("starting_timestamp goes with AT_TIMESTAMP only")
        self.compiled_filters = compile_filters(self.filters)


class Shard:
    """One shard of the stream being read: its lineage, the iterator reached, whether it is closed."""

    __slots__ = ("id", "parent", "iterator", "closed")

    def __init__(self, shard: Mapping[str, Any]) -> None:
        self.id: str = shard["ShardId"]
        self.parent: str | None = shard.get("ParentShardId")
        self.iterator: str | None = None
        self.closed = "EndingSequenceNumber" in shard.get("SequenceNumberRange", {})


class _Stopped(Exception):
    """``run()``'s stop came while a failing batch was being retried."""


class Consumer:
    """Reads one stream and hands its records to ``handler(event, context)`` in order, shard by shard.

    ``name`` identifies the consumer's checkpoints (like a Lambda function's mapping or a KCL application).
    ``table`` (an entity :class:`~dynabase.model.Table`) puts the batch decoded to the models' properties on
    ``context.entities``.
    """

    def __init__(
        self,
        streams: Any,
        stream_arn: str,
        handler: Handler,
        *,
        name: str = "consumer",
        options: Options | None = None,
        checkpoints: CheckpointStore | None = None,
        on_failure: FailureDestination | None = None,
        table: Any = None,
    ) -> None:
        self.streams = streams
        self.stream_arn = stream_arn
        self.handler = handler
        self.name = name
        self.options = options or Options()
        self.checkpoints = checkpoints if checkpoints is not None else MemoryCheckpoints()
        self.on_failure = on_failure
        self.table = table
        #: set it to end the wait between polls early (in-process triggers set it after each write)
        self.wake = threading.Event()
        self._stop = threading.Event()  # run()'s: a batch retried until it succeeds gives up when it is set
        self.handled = 0
        self.failed = 0
        self._shards: dict[str, Shard] = {}
        #: per shard, the sequence numbers read after its saved checkpoint (held records keep it back)
        self._unsaved: dict[str, list[str]] = {}
        self._since: dict[str, float | None] = {}
        self._ended: set[str] = set()  # read to the end, not yet saved finished (a record is held)
        self._refreshed = 0.0
        self._lock = threading.Lock()
        #: the checkpoints this consumer read or saved: its own position, so it reads the store once per shard
        #: (each poll read it twice: most of an idle hub's requests, a sixth of a busy one's time)
        self._known: dict[str, Checkpoint | None] = {}
        #: the stream's StreamStatus at the last look at its shards (ENABLING, ENABLED, DISABLING, DISABLED)
        self.status: str | None = None

    @classmethod
    def for_table(cls, client: Any, table_name: str, handler: Handler, **kwargs: Any) -> Consumer:
        """A consumer of a table's latest stream; ``client`` is a DynamoDB client (its streams client is
        ``client.streams()`` when embedded, else ``streams=`` must be given)."""
        streams = kwargs.pop("streams", None) or client.streams()
        return cls(streams, stream_arn(client, table_name), handler, **kwargs)

    @property
    def durable(self) -> bool:
        return not isinstance(self.checkpoints, MemoryCheckpoints)

    def prime(self) -> None:
        """Find the shards and position their iterators now (``LATEST`` means: after what is written by now)."""
        for shard in self._ready():
            if shard.iterator is None:
                shard.iterator = self._new_iterator(shard, self.checkpoint_of(shard))

    # -- running ---------------------------------------------------------------------------------------------

    def run(
        self, stop: threading.Event | None = None, *, until_idle: bool = False, until_disabled: bool = False
    ) -> int:
        """Poll until ``stop`` is set (or, with ``until_idle``, until a poll finds nothing new; with
        ``until_disabled``, until the stream is :attr:`exhausted`)."""
        stop = self._stop = stop or threading.Event()
        total = 0
        while not stop.is_set():
            started = time.monotonic()
            try:
                handled = self.poll()
            except _Stopped:  # a failing batch was being retried: it is read again at the next run
                break
            total += handled
            if handled:
                rest = self.options.poll_gap - (time.monotonic() - started)
                if rest > 0:  # a busy stream is read in fuller batches, for less work per record
                    stop.wait(rest)
                continue
            if until_idle or (until_disabled and self.exhausted):
                break
            self.wake.wait(self.options.poll_interval)
            self.wake.clear()
        return total

    def poll(self) -> int:
        """One round: read one batch from every shard that is ready, deliver it; the records handled."""
        shards = self._ready()
        if self.options.parallel_shards > 1 and len(shards) > 1:
            with ThreadPoolExecutor(min(self.options.parallel_shards, len(shards))) as pool:
                handled = sum(pool.map(self._step, shards))
        else:
            handled = sum(self._step(shard) for shard in shards)
        self._save_released()
        return handled

    def drain(self) -> None:
        """Have the handler write what it holds (its ``flush()``), then save every shard's checkpoint after
        what was read: call it before the process ends (``dynabase streams run`` does)."""
        flush = getattr(self.handler, "flush", None)
        if callable(flush):
            flush()
        self._save_released()

    # -- shards ----------------------------------------------------------------------------------------------

    def _ready(self) -> list[Shard]:
        now = time.monotonic()
        if not self._shards or now - self._refreshed >= self.options.shard_refresh:
            self._refresh()
            self._refreshed = now
        ready = []
        for shard in self._shards.values():
            if shard.id in self._ended or self._finished(shard.id):
                continue
            if shard.parent is not None and shard.parent in self._shards and not self._finished(shard.parent):
                continue  # lineage: the parent's records come first
            ready.append(shard)
        return ready

    def _refresh(self) -> None:
        kwargs: dict[str, Any] = {"StreamArn": self.stream_arn}
        while True:
            description = self.streams.describe_stream(**kwargs)["StreamDescription"]
            self.status = description.get("StreamStatus", self.status)
            for shard in description.get("Shards", []):
                known = self._shards.get(shard["ShardId"])
                if known is None:
                    self._shards[shard["ShardId"]] = Shard(shard)
                elif "EndingSequenceNumber" in shard.get("SequenceNumberRange", {}):
                    known.closed = True
            last = description.get("LastEvaluatedShardId")
            if not last:
                return
            kwargs["ExclusiveStartShardId"] = last

    def _checkpoint(self, shard_id: str) -> Checkpoint | None:
        """The shard's saved checkpoint: read from the store the first time, then as this consumer saved it."""
        if shard_id not in self._known:
            self._known[shard_id] = self.checkpoints.get(self.name, self.stream_arn, shard_id)
        return self._known[shard_id]

    def _keep(self, shard_id: str, checkpoint: Checkpoint) -> None:
        self.checkpoints.save(self.name, self.stream_arn, shard_id, checkpoint)
        self._known[shard_id] = checkpoint

    @property
    def exhausted(self) -> bool:
        """The stream is disabled and each of its shards read to its end: nothing more will come (a table whose
        stream is enabled again has a new one, with another ARN)."""
        return (
            self.status == "DISABLED"
            and bool(self._shards)
            and all(self._finished(shard) for shard in self._shards)
        )

    def _finished(self, shard_id: str) -> bool:
        checkpoint = self._checkpoint(shard_id)
        return checkpoint is not None and checkpoint.finished

    def checkpoint_of(self, shard: Shard) -> Checkpoint:
        """The shard's checkpoint; a first sight of a shard under a durable LATEST saves where it ends now."""
        checkpoint = self._checkpoint(shard.id)
        if checkpoint is not None:
            return checkpoint
        position = self._start_of(shard)
        if position == "AT_TIMESTAMP":
            return Checkpoint(since=float(int(self.options.starting_timestamp or 0)))
        if position == "LATEST" and self.durable:
            checkpoint = self._end_of(shard)
            self._keep(shard.id, checkpoint)
            return checkpoint
        return Checkpoint()

    def _start_of(self, shard: Shard) -> str:
        """Where a shard without a checkpoint starts: the children of a shard this consumer read start at
        their first record, others at the starting position."""
        if shard.parent is not None and self._checkpoint(shard.parent) is not None:
            return "TRIM_HORIZON"
        return self.options.starting_position

    def _end_of(self, shard: Shard) -> Checkpoint:
        """A checkpoint after the shard's last record now (read through once: a LATEST iterator has no
        sequence number to save, and a crash before the first record must not move the start)."""
        last, iterator = read_through(self.streams, self.stream_arn, shard.id)
        return Checkpoint(sequence=last, finished=iterator is None)

    def _new_iterator(self, shard: Shard, checkpoint: Checkpoint) -> str:
        request = {"StreamArn": self.stream_arn, "ShardId": shard.id}
        if checkpoint.sequence is not None:
            request.update(ShardIteratorType="AFTER_SEQUENCE_NUMBER", SequenceNumber=checkpoint.sequence)
        elif not self.durable and self._start_of(shard) == "LATEST":
            request["ShardIteratorType"] = "LATEST"  # nothing to survive: the stream's end, exactly
        else:
            request["ShardIteratorType"] = "TRIM_HORIZON"
        iterator: str = self.streams.get_shard_iterator(**request)["ShardIterator"]
        return iterator

    # -- reading ---------------------------------------------------------------------------------------------

    def _read(self, shard: Shard, checkpoint: Checkpoint) -> tuple[list[dict[str, Any]], bool]:
        """Up to ``batch_size`` records (waiting up to ``batching_window`` for more); whether the shard ended."""
        options = self.options
        deadline = time.monotonic() + options.batching_window
        records: list[dict[str, Any]] = []
        while True:
            if shard.iterator is None:
                shard.iterator = self._new_iterator(shard, checkpoint)
            try:
                page = self.streams.get_records(
                    ShardIterator=shard.iterator, Limit=min(MAX_PAGE, options.batch_size - len(records))
                )
            except Exception as error:
                code = _error_code(error)
                if code not in ("ExpiredIteratorException", "TrimmedDataAccessException"):
                    raise
                if code == "TrimmedDataAccessException":
                    log.warning("%s: records after the checkpoint of %s were trimmed", self.name, shard.id)
                    checkpoint = Checkpoint(since=checkpoint.since)
                elif records:  # expired mid-batch: carry on after what this batch already holds
                    checkpoint = Checkpoint(sequence_number(records[-1]), checkpoint.since)
                shard.iterator = self._new_iterator(shard, checkpoint)
                continue
            records += page.get("Records", [])
            shard.iterator = page.get("NextShardIterator")
            if shard.iterator is None:
                return records, True
            if len(records) >= options.batch_size:
                return records, False
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return records, False
            if not page.get("Records"):  # wait a little for the window to fill
                time.sleep(min(remaining, 0.05))

    def _step(self, shard: Shard) -> int:
        checkpoint = self.checkpoint_of(shard)
        records, ended = self._read(shard, checkpoint)
        try:
            return self.handle(shard, [lambda_record(r, self.stream_arn) for r in records], ended, checkpoint)
        except _Stopped:
            shard.iterator = None  # not all delivered: the next read starts from the checkpoint again
            raise

    def handle(
        self,
        shard: Shard,
        records: list[dict[str, Any]],
        ended: bool = False,
        checkpoint: Checkpoint | None = None,
    ) -> int:
        """Deliver the shard's next records (Lambda-shaped, in order; those before ``starting_timestamp`` and
        those the filters reject are passed over), then move its checkpoint past them (``ended``: the shard
        was read to its end). In-process triggers hand over records they did not read through ``streams``."""
        if checkpoint is None:
            checkpoint = self.checkpoint_of(shard)
        if records:
            wanted = [
                r
                for r in records
                if (
                    checkpoint.since is None
                    or checkpoint.sequence is not None
                    or created_at(r) >= checkpoint.since
                )
                and matches(r, self.options.compiled_filters)
            ]
            if wanted:
                self._deliver(shard, wanted)
            self._unsaved.setdefault(shard.id, []).extend(sequence_number(r) for r in records)
        if records or ended:
            self._since[shard.id] = checkpoint.since
            self._save(shard.id, self._held(), ended)
        if ended:
            self._refreshed = 0.0  # look for the children of a shard that ended
        return len(records)

    def _held(self) -> set[str]:
        held = getattr(self.handler, "held", None)
        return set(held()) if callable(held) else set()

    def _save(self, shard_id: str, held: set[str], ended: bool = False) -> None:
        """Save the shard's checkpoint after its last record read, or just before its first held one."""
        unsaved = self._unsaved.get(shard_id, [])
        cut = next((i for i, sequence in enumerate(unsaved) if sequence in held), len(unsaved))
        if ended:
            self._ended.add(shard_id)
        finished = shard_id in self._ended and cut == len(unsaved)
        if not cut and not finished:
            return
        sequence = unsaved[cut - 1] if cut else self._saved_sequence(shard_id)
        since = self._since.get(shard_id)
        self._keep(shard_id, Checkpoint(sequence, since, finished))
        del unsaved[:cut]
        if finished:
            self._ended.discard(shard_id)

    def _saved_sequence(self, shard_id: str) -> str | None:
        saved = self._checkpoint(shard_id)
        return None if saved is None else saved.sequence

    def _save_released(self) -> None:
        """Save the checkpoints that held records kept back and the handler has since let go of."""
        pending = [shard_id for shard_id, unsaved in self._unsaved.items() if unsaved]
        pending += [shard_id for shard_id in self._ended if shard_id not in pending]
        if pending:
            held = self._held()
            for shard_id in pending:
                self._save(shard_id, held)

    # -- delivering ------------------------------------------------------------------------------------------

    def _deliver(self, shard: Shard, records: list[dict[str, Any]]) -> None:
        """Hand the records over in order, bisecting and retrying failures, until each is handled or sent to
        the on-failure destination."""
        pending: list[tuple[list[dict[str, Any]], int]] = [(records, 0)]  # (batch, retries used), front first
        while pending:
            batch, retries = pending.pop(0)
            error, done, partial = self._invoke(batch)
            with self._lock:
                self.handled += done
            if error is None:
                continue
            rest = batch[done:]  # a partial batch response: the records before the failed one are done
            if not partial and self.options.bisect_on_error and len(rest) > 1:
                half = len(rest) // 2
                pending[:0] = [(rest[:half], retries), (rest[half:], retries)]
            elif self.options.max_retries == -1 or retries < self.options.max_retries:
                if self._stop.wait(min(self.options.retry_delay * 2**retries, 5.0)):
                    raise _Stopped  # the checkpoint stays before this batch
                pending.insert(0, (rest, retries + 1))
            else:
                self._give_up(shard, rest, error, retries + 1)

    def _invoke(self, batch: list[dict[str, Any]]) -> tuple[str | None, int, bool]:
        """Call the handler: ``(None, len(batch), False)`` on success, else the error, the records done and
        whether a partial batch response said so."""
        entities = self.table.stream([wire_record(r) for r in batch]) if self.table is not None else None
        context = LambdaContext(self.name, self.options.timeout, entities, self.table, self.stream_arn)
        try:
            result = self.handler({"Records": batch}, context)
        except Exception as error:  # the handler's failure is the batch's failure
            log.debug("%s: handler failed: %r", self.name, error)
            return f"{type(error).__name__}: {error}", 0, False
        if not self.options.report_batch_item_failures:
            return None, len(batch), False
        return partial_response(result, batch)

    def _give_up(self, shard: Shard, records: list[dict[str, Any]], error: str, attempts: int) -> None:
        with self._lock:
            self.failed += len(records)
        entry = failure_entry(
            records,
            stream_arn=self.stream_arn,
            shard_id=shard.id,
            consumer=self.name,
            error=error,
            attempts=attempts,
        )
        if self.on_failure is not None:
            self.on_failure.send(entry)
        else:
            log.warning(
                "%s: %d record(s) from %s dropped after %d attempt(s): %s",
                self.name,
                len(records),
                entry["DDBStreamBatchInfo"]["startSequenceNumber"],
                attempts,
                error,
            )


def read_through(streams: Any, stream_arn: str, shard_id: str) -> tuple[str | None, str | None]:
    """Read a shard from its trim horizon to its end now: ``(its last record's sequence number or None, an
    iterator after it, or None once a closed shard is read to its end)`` -- where a durable LATEST starts."""
    iterator: str | None = streams.get_shard_iterator(
        StreamArn=stream_arn, ShardId=shard_id, ShardIteratorType="TRIM_HORIZON"
    )["ShardIterator"]
    last = None
    while iterator:
        page = streams.get_records(ShardIterator=iterator, Limit=MAX_PAGE)
        if not page.get("Records"):
            break
        last = sequence_number(page["Records"][-1])
        iterator = page.get("NextShardIterator")
    return last, iterator


def partial_response(result: Any, batch: list[dict[str, Any]]) -> tuple[str | None, int, bool]:
    """Lambda's reading of a partial batch response (``ReportBatchItemFailures``), as :meth:`Consumer._invoke`
    returns it. No response, an empty one, or a null or empty ``batchItemFailures``: all done. An
    ``itemIdentifier`` that is empty, null or missing (another key): the whole batch failed. Otherwise the
    batch is done up to the reported record of the lowest sequence number (one the batch does not hold
    reports nothing: AWS's answer to that is not documented for streams)."""
    failures = result.get("batchItemFailures") if isinstance(result, Mapping) else None
    if not failures:
        return None, len(batch), False
    listed = failures if isinstance(failures, list) else [None]
    identifiers = [f.get("itemIdentifier") if isinstance(f, Mapping) else None for f in listed]
    if not all(isinstance(i, str) and i for i in identifiers):
        text = json.dumps(failures, default=str)[:200]
        return f"malformed batchItemFailures (an itemIdentifier empty, null or missing): {text}", 0, False
    for index, record in enumerate(batch):
        if sequence_number(record) in identifiers:
            return f"batchItemFailures: {sequence_number(record)}", index, True
    return None, len(batch), False


def _error_code(error: Exception) -> str | None:
    """The DynamoDB error code of a client's ``ClientError`` or of the engine's own error."""
    if isinstance(error, DynamoDBError):
        return error.code
    response = getattr(error, "response", None)
    return response.get("Error", {}).get("Code") if isinstance(response, Mapping) else None


class NoStreamError(ValueError):
    """The table ``table`` has no stream enabled; the message says how to enable one."""

    def __init__(self, table: str) -> None:
        super().__init__(
            f"table {table} has no stream enabled: enable one with UpdateTable's StreamSpecification "
            "(StreamEnabled true and a StreamViewType, e.g. NEW_AND_OLD_IMAGES)"
        )
        self.table = table


def stream_arn(client: Any, table_name: str) -> str:
    """The table's latest stream ARN (:class:`NoStreamError`, a ValueError, when it has no stream enabled)."""
    table = client.describe_table(TableName=table_name)["Table"]
    arn: str | None = table.get("LatestStreamArn")
    if not arn or not (table.get("StreamSpecification") or {}).get("StreamEnabled"):
        raise NoStreamError(table_name)
    return arn


def iter_records(consumer: Consumer, stop: threading.Event | None = None) -> Iterator[dict[str, Any]]:
    """Every record the consumer delivers, as a generator (``tail`` uses it): batches are yielded one by one."""
    out: list[dict[str, Any]] = []
    consumer.handler = lambda event, context: out.extend(event["Records"])
    stop = stop or threading.Event()
    while not stop.is_set():
        handled = consumer.poll()
        yield from out
        out.clear()
        if not handled:
            consumer.wake.wait(consumer.options.poll_interval)
            consumer.wake.clear()


__all__ = [
    "STARTING_POSITIONS",
    "Consumer",
    "NoStreamError",
    "Options",
    "Shard",
    "iter_records",
    "partial_response",
    "read_through",
    "stream_arn",
]
