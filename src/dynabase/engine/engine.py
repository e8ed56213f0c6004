"""The embedded engine: DynamoDB's operations by name over one SQLite database."""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable, Iterator
from typing import Any

from ..clock import clock_skew, wall_clock
from ..errors import (
    ClosedError,
    DynamoDBError,
    InternalFailure,
    InternalServerError,
    ResourceNotFoundException,
    SerializationException,
    UnknownOperationException,
)
from . import batch, capture, extras, items, legacy, query, streams, transactions, ttl, validation
from .catalog import TABLE_NOT_FOUND, Catalog, CatalogChanged
from .readers import ReaderError
from .schema import Table
from .storage import Storage, storage_fault

log = logging.getLogger("dynabase.engine")

Handler = Callable[["Engine", dict[str, Any]], dict[str, Any]]
#: takes one committed transaction's stream records: ``[(seq, stream_arn, record_json), ...]``
ChangeListener = Callable[[list[tuple[int, str, str]]], None]
#: takes the name of a table whose write transaction captured a change for sync (see add_capture_listener)
CaptureListener = Callable[[str], None]

#: runs of a request that may find the catalog changed under them; the last one runs holding the write lock
ATTEMPTS = 4
_INTERNAL = "The request processing has failed because of an unknown error, exception or failure."
#: a missing table in a data-plane call, in AWS's words (DynamoDB Local: "Cannot do operations on a
#: non-existent table", which the control plane keeps: AWS's wording there was not established)
NOT_FOUND = "Requested resource not found"
#: a string of the request with a lone surrogate (U+D800..U+DFFF without its pair): no UTF-8 text holds one, so
#: a request made of it cannot be sent as JSON either (``dynabase serve`` refuses such a body as not valid JSON)
LONE_SURROGATE = (
    "The request is not valid UTF-8 text: a string in it holds a lone surrogate (a code point from U+D800 to "
    "U+DFFF without its pair)"
)


def _lone_surrogate(error: Exception) -> bool:
    """Whether ``error`` is UTF-8 refusing a lone surrogate (every string of an item is encoded to measure its size
    before the item is stored, so this is where such a string is met)."""
    return isinstance(error, UnicodeEncodeError) and error.reason == "surrogates not allowed"


def catalog_moved(error: Exception) -> bool:
    """True for the signs that a table this request looked up was changed or dropped since (by any connection)."""
    if isinstance(error, CatalogChanged):
        return True
    if isinstance(error, sqlite3.OperationalError):
        text = str(error)
        return text.startswith("no such table") or text == "database schema has changed"
    return False


def _partiql(name: str) -> Handler:
    """A PartiQL handler, imported on first use (the parser is a large import few programs need)."""

    def handler(engine: Engine, request: dict[str, Any]) -> dict[str, Any]:
        from . import partiql

        run: Handler = getattr(partiql, name)
        return run(engine, request)

    return handler


class Engine:
    """DynamoDB's low-level API, in process. ``call("PutItem", {...})`` takes and returns wire-shaped dicts.

    Errors are raised as :class:`dynabase.errors.DynamoDBError`; the clients and the server translate them.
    """

    def __init__(
        self,
        path: str = ":memory:",
        *,
        region: str = "us-east-1",
        ttl_sweep_seconds: float | None = 60.0,
        clock: Callable[[], float] | None = None,
        adopt: bool = False,
    ) -> None:
        self.storage = Storage(path, adopt=adopt)
        self.closed = False
        #: epoch seconds; stamps captured changes (``wall_clock``: time.time() shifted by DYNABASE_CLOCK_SKEW)
        self.clock: Callable[[], float] = clock or wall_clock
        if clock is None:
            clock_skew()  # a malformed DYNABASE_CLOCK_SKEW fails here, clearly, not in every write
        #: set while sync applies pulled changes, which must not be captured (they would echo back)
        self.capture_suppressed = False
        with self.storage.write() as conn:
            for statement in (streams.SCHEMA + capture.SCHEMA).split(";"):
                if statement.strip():
                    conn.execute(statement)
        self.catalog = Catalog(self.storage, region=region)
        # the hook is the streams module's, on this engine's catalog only
        self.catalog.on_table_changed = streams.on_table_changed  # type: ignore[method-assign]
        self.region = region
        #: what DescribeEndpoints answers (the server sets its own address)
        self.endpoint_address = f"dynamodb.{region}.amazonaws.com"
        self.operations: dict[str, Handler] = {
            "CreateTable": lambda e, r: e.catalog.create_table(r),
            "DescribeTable": lambda e, r: e.catalog.describe_table(r),
            "UpdateTable": lambda e, r: e.catalog.update_table(r),
            "DeleteTable": lambda e, r: e.catalog.delete_table(r),
            "ListTables": lambda e, r: e.catalog.list_tables(r),
            "PutItem": items.put_item,
            "GetItem": items.get_item,
            "UpdateItem": items.update_item,
            "DeleteItem": items.delete_item,
            "Query": query.query,
            "Scan": query.scan,
            "BatchWriteItem": batch.batch_write_item,
            "BatchGetItem": batch.batch_get_item,
            "TransactWriteItems": transactions.transact_write_items,
            "TransactGetItems": transactions.transact_get_items,
            "UpdateTimeToLive": ttl.update_time_to_live,
            "DescribeTimeToLive": ttl.describe_time_to_live,
            "ExecuteStatement": _partiql("execute_statement"),
            "BatchExecuteStatement": _partiql("batch_execute_statement"),
            "ExecuteTransaction": _partiql("execute_transaction"),
            "TagResource": extras.tag_resource,
            "UntagResource": extras.untag_resource,
            "ListTagsOfResource": extras.list_tags_of_resource,
            "DescribeLimits": extras.describe_limits,
            "DescribeEndpoints": extras.describe_endpoints,
            "DescribeContinuousBackups": extras.describe_continuous_backups,
            "UpdateContinuousBackups": extras.update_continuous_backups,
        }
        self.stream_operations: dict[str, Handler] = {
            "ListStreams": streams.list_streams,
            "DescribeStream": streams.describe_stream,
            "GetShardIterator": streams.get_shard_iterator,
            "GetRecords": streams.get_records,
        }
        #: see :meth:`add_change_listener`; none: writes journal nothing
        self.change_listeners: tuple[ChangeListener, ...] = ()
        #: see :meth:`add_capture_listener`
        self.capture_listeners: tuple[CaptureListener, ...] = ()
        self._next_trim = 0.0
        self.ttl_sweep_seconds = ttl_sweep_seconds
        self.sweeper: ttl.Sweeper | None = None
        self.ensure_sweeper()

    def call(self, operation: str, request: dict[str, Any], service: str = "dynamodb") -> dict[str, Any]:
        """Run one operation of DynamoDB (``service="dynamodb"``) or DynamoDB Streams (``"dynamodbstreams"``)."""
        if self.closed:
            raise ClosedError(self.storage.path)
        table = self.stream_operations if service == "dynamodbstreams" else self.operations
        handler = table.get(operation)
        if handler is None:
            raise UnknownOperationException("An unknown operation was requested.")
        try:
            validation.before(service, operation, request)
            try:
                result = self._run(operation, handler, request)
            except Exception as error:
                if not catalog_moved(error):
                    raise
                result = self._run_again(operation, handler, request)
        except DynamoDBError as error:
            if operation in validation.DATA_PLANE:  # the model's checks come first: the whole request now
                validation.validate(service, operation, request)
                if isinstance(error, ResourceNotFoundException) and error.message == TABLE_NOT_FOUND:
                    raise ResourceNotFoundException(NOT_FOUND) from None
            raise
        except RecursionError:
            raise InternalFailure(_INTERNAL)
        except ReaderError:  # the caller's item reader failed (see readers.ITEM_READER): its error
            raise
        except Exception as error:
            # a string the engine could not encode is the request's fault (met before anything was written); any
            # other failure is a bug, which must not look like a successful call or leak a traceback to callers
            if _lone_surrogate(error):
                raise SerializationException(LONE_SURROGATE) from None
            fault = storage_fault(error)
            if fault is not None:  # the database, not the request nor a bug: say what happened
                log.error("storage fault in %s: %s", operation, fault)
                raise InternalServerError(fault) from None
            log.exception("internal error in %s", operation)
            raise InternalFailure(_INTERNAL)
        return result

    def add_change_listener(self, listener: ChangeListener) -> None:
        """Call ``listener(changes)`` after each write transaction that wrote stream records commits, with its
        records as ``[(sequence number, stream ARN, record JSON as stored), ...]``, in commit order.

        It is called right after COMMIT on the writer's thread, still holding the storage lock (that keeps the
        order): it must only hand the changes on (the in-process triggers of :mod:`dynabase.streams` append
        them to a queue and wake their thread). Records of a rolled-back transaction or savepoint never reach
        it. Only this engine's writes are heard: other processes' come with gaps in the sequence numbers.
        """
        with self.storage.lock:  # between transactions: the journal starts with a transaction
            self.change_listeners = (*self.change_listeners, listener)
            self._journal()

    def remove_change_listener(self, listener: ChangeListener) -> None:
        """Stop calling ``listener``; with the last listener gone, writes journal nothing again."""
        with self.storage.lock:
            self.change_listeners = tuple(x for x in self.change_listeners if x != listener)
            self._journal()

    def add_capture_listener(self, listener: CaptureListener) -> None:
        """Call ``listener(table_name)`` after each write transaction that captured a change for sync commits
        (the sync loop pushes it at once rather than at its next look at the change log). As with
        :meth:`add_change_listener`: on the writer's thread, under the storage lock (it must only hand on: set
        an event), never for a rolled-back change, and only for this engine's writes."""
        with self.storage.lock:
            self.capture_listeners = (*self.capture_listeners, listener)
            self._journal()

    def remove_capture_listener(self, listener: CaptureListener) -> None:
        with self.storage.lock:
            self.capture_listeners = tuple(x for x in self.capture_listeners if x != listener)
            self._journal()

    def _journal(self) -> None:
        """Writes journal what they record while someone listens (under the storage lock, between
        transactions)."""
        if self.change_listeners or self.capture_listeners:
            self.storage.on_commit = self._committed
            if self.storage.journal is None:
                self.storage.journal = []
        else:
            self.storage.journal = None

    def _committed(self, entries: list[Any]) -> None:
        records = [e for e in entries if not isinstance(e, capture.Captured)]
        calls: list[tuple[Callable[[Any], None], Any]] = []
        if records:
            calls += [(listener, records) for listener in self.change_listeners]
        if len(records) < len(entries):
            tables = {e.table for e in entries if isinstance(e, capture.Captured)}
            calls += [(listener, t) for t in sorted(tables) for listener in self.capture_listeners]
        for listener, argument in calls:
            try:
                listener(argument)
            except Exception:  # the write has committed: a listener's failure must not make it look failed
                log.exception("listener %r failed", listener)

    def _run_again(self, operation: str, handler: Handler, request: dict[str, Any]) -> dict[str, Any]:
        """Run a request again after another thread or process changed a table under it: against the reloaded
        catalog, and the last time holding the database's write lock, under which no connection can change the
        catalog, so a request always ends in its own answer."""
        for _ in range(ATTEMPTS - 2):
            self.catalog.forget()
            try:
                return self._run(operation, handler, request)
            except Exception as error:
                if not catalog_moved(error):
                    raise
        with self.storage.write():
            self.catalog.forget()  # another thread may have cached a table since: read it under the lock
            return self._run(operation, handler, request)

    def _run(self, operation: str, handler: Handler, request: dict[str, Any]) -> dict[str, Any]:
        if operation in legacy.OPERATIONS:  # legacy parameters are checked, then run as expressions
            return legacy.call(self, operation, request, handler)
        return handler(self, request)

    def after_write(
        self,
        conn: Any,
        table: Table,
        old: dict[str, Any] | None,
        new: dict[str, Any] | None,
        identity: dict[str, Any] | None = None,
    ) -> None:
        """Called inside the write transaction of every item change: the stream record (and the captured
        change, for sync) goes in with it."""
        if "_capture" in table.description:
            capture.record(conn, self, table, old, new)
        if table.stream_view_type is not None:
            streams.record_change(conn, self, table, old, new, identity)
            now = time.monotonic()
            if now >= self._next_trim:  # records past the 24-hour retention go, at most once a minute
                self._next_trim = now + 60.0
                streams.trim(conn)

    def trim_streams(self) -> None:
        """Drop stream records older than the 24-hour retention now (writes do it at most once a minute)."""
        with self.storage.write() as conn:
            streams.trim(conn)

    def follow_stream(self, table_name: str, **options: Any) -> Iterator[dict[str, Any]]:
        """Iterate over a table's stream records as they are written (see :func:`streams.follow`)."""
        return streams.follow(self, table_name, **options)

    def ensure_sweeper(self) -> None:
        """Start the TTL sweeper thread once some table has TTL enabled (no thread for engines without TTL)."""
        if self.sweeper is not None or not self.ttl_sweep_seconds:
            return
        with self.storage.lock:
            rows = self.storage.conn.execute("SELECT description FROM dynabase_tables").fetchall()
        if any('"_ttl"' in row[0] for row in rows):
            self.sweeper = ttl.Sweeper(self, self.ttl_sweep_seconds)

    def sweep_expired(self, now: float | None = None) -> int:
        """Delete expired TTL items now (the background sweeper does this every ``ttl_sweep_seconds``)."""
        return ttl.sweep(self, now)

    def close(self) -> None:
        self.closed = True
        if self.sweeper is not None:
            self.sweeper.stop()
        self.storage.close()
