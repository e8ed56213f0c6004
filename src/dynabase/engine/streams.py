"""DynamoDB Streams: a record for every item change, written in the same SQLite transaction as the change.

A write that leaves the item as it was (compared by value) writes no record. Records carry monotonically
increasing sequence numbers (SQLite's AUTOINCREMENT, never reused) and are kept for 24 hours. Each stream has one
shard, which starts at the sequence number that was next when the stream was enabled and, once the stream is
disabled or its table deleted, ends at its last record; such streams stay listed and readable. The Streams API
(ListStreams, DescribeStream, GetShardIterator, GetRecords) reads them; :func:`follow` gives in-process consumers
an iterator.
"""

from __future__ import annotations

import base64
import json
import re
import time
import uuid
from collections.abc import Iterator
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from ..errors import (
    ExpiredIteratorException,
    ResourceNotFoundException,
    ValidationException,
)
from ..types import item_size
from .schema import Table
from .storage import binary_decoded, dump_item, load_item

if TYPE_CHECKING:
    from .engine import Engine

RETENTION_SECONDS = 24 * 3600
ITERATOR_SECONDS = 15 * 60
MAX_RECORDS = 1000
SEQ_DIGITS = 21

SCHEMA = """
CREATE TABLE IF NOT EXISTS dynabase_stream_records (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    stream_arn TEXT NOT NULL,
    created REAL NOT NULL,
    record TEXT NOT NULL,
    bin INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS dynabase_stream_records_arn ON dynabase_stream_records (stream_arn, seq);
CREATE INDEX IF NOT EXISTS dynabase_stream_records_created ON dynabase_stream_records (created);
CREATE TABLE IF NOT EXISTS dynabase_streams (
    stream_arn TEXT PRIMARY KEY,
    table_name TEXT NOT NULL,
    label TEXT NOT NULL,
    description TEXT NOT NULL,
    enabled INTEGER NOT NULL,
    created REAL NOT NULL
);
"""

#: the ``userIdentity`` of the stream records of TTL deletes, in GetRecords' wire shape (botocore's ``Identity``:
#: ``PrincipalId``, ``Type``); Lambda's event spells the same members ``principalId`` and ``type``
#: (``streams.events.lambda_record`` turns the one into the other)
SERVICE_IDENTITY = {"PrincipalId": "dynamodb.amazonaws.com", "Type": "Service"}
MAX_STREAMS = 100  # ListStreams' page
MAX_SHARDS = 100  # DescribeStream's page
MAX_SEQ_LENGTH = 40
_MAX_POSITION = 2**63 - 1  # SQLite's largest integer
_INVALID = "One or more parameter values were invalid: "


def install(conn: Any) -> None:
    conn.executescript(SCHEMA)


def seq_text(seq: int) -> str:
    return str(seq).zfill(SEQ_DIGITS)


def shard_id(stream_arn: str) -> str:
    digest = uuid.uuid5(uuid.NAMESPACE_URL, stream_arn).hex
    return f"shardId-{int(digest[:12], 16) % 10**20:020d}-{digest[12:20]}"


# -- recording -----------------------------------------------------------------------------------------------


def record_change(
    conn: Any, engine: Engine, table: Table, old: dict | None, new: dict | None, identity: dict | None = None
) -> None:
    """Append the stream record of one item change (nothing when the item did not change)."""
    view = table.stream_view_type
    if view is None or _unchanged(old, new):
        return
    if old is None:
        event = "INSERT"
    elif new is None:
        event = "REMOVE"
    else:
        event = "MODIFY"
    some = new if new is not None else old
    assert some is not None  # _unchanged(None, None) returned above
    data: dict[str, Any] = {
        "ApproximateCreationDateTime": float(int(time.time())),
        "Keys": table.key_of(some),
    }
    if view in ("NEW_IMAGE", "NEW_AND_OLD_IMAGES") and new is not None:
        data["NewImage"] = new
    if view in ("OLD_IMAGE", "NEW_AND_OLD_IMAGES") and old is not None:
        data["OldImage"] = old
    data["SizeBytes"] = sum(item_size(data[k]) for k in ("Keys", "NewImage", "OldImage") if k in data)
    data["StreamViewType"] = view
    record: dict[str, Any] = {
        # AWS's form, 32 lowercase hex digits, in GetRecords and in Lambda's events (references in
        # tests/aws_differences.py, "stream record eventID")
        "eventID": uuid.uuid4().hex,
        "eventName": event,
        "eventVersion": "1.1",
        "eventSource": "aws:dynamodb",
        "awsRegion": engine.region,
        "dynamodb": data,
    }
    if identity is not None:
        record["userIdentity"] = identity
    text, binary = dump_item(record)
    arn = table.description["LatestStreamArn"]
    cursor = conn.execute(
        "INSERT INTO dynabase_stream_records (stream_arn, created, record, bin) VALUES (?, ?, ?, ?)",
        (arn, time.time(), text, binary),
    )
    journal = engine.storage.journal
    if journal is not None:  # an in-process listener wants it once committed (see Engine.add_change_listener)
        journal.append((cursor.lastrowid, arn, text))


def _unchanged(old: dict | None, new: dict | None) -> bool:
    """Whether a write left the item as it was, comparing values: ``1`` and ``1.0`` are the same number, and a
    set is the same in any order."""
    if old is None or new is None:
        return old is new
    return old.keys() == new.keys() and all(_canonical(old[k]) == _canonical(new[k]) for k in old)


def _canonical(value: dict) -> tuple:
    """An AttributeValue in a form that compares equal exactly when the values are equal."""
    ((kind, inner),) = value.items()
    if kind == "N":
        return kind, Decimal(inner)
    if kind == "NS":
        return kind, frozenset(Decimal(n) for n in inner)
    if kind in ("SS", "BS"):
        return kind, frozenset(inner)
    if kind == "M":
        return kind, {k: _canonical(v) for k, v in inner.items()}
    if kind == "L":
        return kind, [_canonical(v) for v in inner]
    return kind, inner


def on_table_changed(conn: Any, table_name: str, desc: dict[str, Any]) -> None:
    """Keep the stream registry in step with a table's StreamSpecification (called inside DDL transactions).

    The table's other streams are closed; a newly enabled stream is registered with its shard's starting
    sequence number, the next one to be given out (as on DynamoDB Local, whose shards start there even when
    other streams' records take that number).
    """
    spec = desc.get("StreamSpecification") or {}
    current = desc["LatestStreamArn"] if spec.get("StreamEnabled") else None
    conn.execute(
        "UPDATE dynabase_streams SET enabled = 0 WHERE table_name = ? AND stream_arn IS NOT ?",
        (table_name, current),
    )
    if current is None:
        return
    meta = {
        "StreamViewType": spec["StreamViewType"],
        "KeySchema": desc["KeySchema"],
        "start": next_seq(conn),
    }
    conn.execute(
        "INSERT OR IGNORE INTO dynabase_streams (stream_arn, table_name, label, description, enabled, created) "
        "VALUES (?, ?, ?, ?, 1, ?)",
        (current, table_name, desc["LatestStreamLabel"], json.dumps(meta), time.time()),
    )


def next_seq(conn: Any) -> int:
    """The sequence number the next stream record will get (all streams share one sequence)."""
    row = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'dynabase_stream_records'").fetchone()
    return (row[0] if row else 0) + 1


def trim(conn: Any) -> None:
    """Drop records older than the 24-hour retention, and streams of deleted/disabled tables once empty."""
    cutoff = time.time() - RETENTION_SECONDS
    conn.execute("DELETE FROM dynabase_stream_records WHERE created < ?", (cutoff,))
    conn.execute(
        "DELETE FROM dynabase_streams WHERE enabled = 0 AND created < ? AND stream_arn NOT IN "
        "(SELECT DISTINCT stream_arn FROM dynabase_stream_records)",
        (cutoff,),
    )


# -- the Streams API -----------------------------------------------------------------------------------------


class _Stream:
    """A registered stream and its one shard."""

    def __init__(self, conn: Any, row: tuple) -> None:
        self.arn, self.table_name, self.label, description, enabled, self.created = row
        self.enabled = bool(enabled)
        self.meta = json.loads(description)
        # two subqueries: SQLite answers a lone min() or max() from the index in one step, but min and max
        # together by scanning every record of the stream (on every GetRecords)
        self.first, self.last = conn.execute(
            "SELECT (SELECT min(seq) FROM dynabase_stream_records WHERE stream_arn = ?), "
            "(SELECT max(seq) FROM dynabase_stream_records WHERE stream_arn = ?)",
            (self.arn, self.arn),
        ).fetchone()
        # streams registered before their start was stored start at their first record
        self.start: int = self.meta.get("start") or self.first or 1

    def shard(self) -> dict:
        numbers = {"StartingSequenceNumber": seq_text(self.start)}
        if not self.enabled:  # a closed shard ends at its last record (at its start when it has none)
            numbers["EndingSequenceNumber"] = seq_text(self.last or self.start)
        return {"ShardId": shard_id(self.arn), "SequenceNumberRange": numbers}


def _stream(engine: Engine, arn: Any, missing: str) -> _Stream:
    conn = engine.storage.conn
    row = conn.execute(
        "SELECT stream_arn, table_name, label, description, enabled, created FROM dynabase_streams WHERE stream_arn = ?",
        (arn if isinstance(arn, str) else None,),
    ).fetchone()
    if row is None:
        raise ResourceNotFoundException(missing)
    return _Stream(conn, row)


def _limit(value: Any, maximum: int, too_large: str) -> int:
    if value is None:
        return maximum
    if not isinstance(value, int) or value < 1:
        raise ValidationException(
            f"1 validation error detected: Value '{value}' at 'limit' failed to satisfy constraint: Member must "
            "have value greater than or equal to 1"
        )
    if value > maximum:
        raise ValidationException(_INVALID + too_large)
    return value


def list_streams(engine: Engine, req: dict) -> dict:
    """The streams of every table, or of one (those of a deleted table stay listed; an unknown table has none)."""
    limit = _limit(
        req.get("Limit"), MAX_STREAMS, "Limit cannot be greater than the maximum allowed size: 100"
    )
    _check_arn(req.get("ExclusiveStartStreamArn"))  # AWS: a ValidationException (Local lists no streams)
    args: tuple = ()
    sql = "SELECT stream_arn, table_name, label FROM dynabase_streams"
    if req.get("TableName") is not None:
        sql += " WHERE table_name = ?"
        args = (req["TableName"],)
    with engine.storage.lock:
        rows = engine.storage.conn.execute(sql + " ORDER BY stream_arn", args).fetchall()
    start = req.get("ExclusiveStartStreamArn")
    if start is not None:  # Local answers an unknown start with no streams
        arns = [arn for arn, _, _ in rows]
        rows = rows[arns.index(start) + 1 :] if start in arns else []
    out: dict[str, Any] = {
        "Streams": [{"StreamArn": a, "TableName": t, "StreamLabel": lb} for a, t, lb in rows[:limit]]
    }
    if len(rows) > limit:
        out["LastEvaluatedStreamArn"] = rows[limit - 1][0]
    return out


#: a stream ARN's shape (``arn:aws:dynamodb:<region>:<account>:table/<name>/stream/<label>``)
_STREAM_ARN = re.compile(r"arn:[\w-]+:dynamodb:[\w-]*:[^:]*:table/[a-zA-Z0-9_.-]+/stream/[^/]+")


def _check_arn(arn: Any) -> None:
    """A malformed stream ARN is the caller's error (AWS: ValidationException), not a missing stream."""
    if isinstance(arn, str) and _STREAM_ARN.fullmatch(arn) is None:
        raise ValidationException("Invalid StreamArn")


def describe_stream(engine: Engine, req: dict) -> dict:
    _limit(req.get("Limit"), MAX_SHARDS, "Limit cannot be greater than the maximum: 100")
    arn = req.get("StreamArn")
    _check_arn(arn)
    shard_filter = req.get("ShardFilter")
    if isinstance(shard_filter, dict) and shard_filter.get("Type") is None:  # Local's words (AWS's unknown)
        raise ValidationException(
            "1 validation error detected: Value 'null' at 'shardFilter.type' failed to satisfy constraint: Member "
            "must be CHILD_SHARDS"
        )
    with engine.storage.lock:
        stream = _stream(engine, arn, f"Requested resource not found: Stream: {arn} not found")
    shard: dict[str, Any] | None = stream.shard()
    after = req.get("ExclusiveStartShardId")
    if isinstance(shard_filter, dict) and shard_filter.get("Type") == "CHILD_SHARDS":
        shard = None  # the stream's one shard is never split: no shard is a child of another
    return {
        "StreamDescription": {
            "StreamArn": stream.arn,
            "StreamLabel": stream.label,
            "StreamStatus": "ENABLED" if stream.enabled else "DISABLED",
            "StreamViewType": stream.meta["StreamViewType"],
            "CreationRequestDateTime": stream.created,
            "TableName": stream.table_name,
            "KeySchema": stream.meta["KeySchema"],
            "Shards": [shard] if shard is not None and (after is None or shard["ShardId"] > after) else [],
        }
    }


def _encode_iterator(arn: str, position: int) -> str:
    payload = f"{shard_id(arn)}|{position}|{time.time():.3f}"
    return f"{arn}|001|{base64.b64encode(payload.encode()).decode()}"


def _decode_iterator(engine: Engine, iterator: Any) -> tuple[_Stream, int]:
    try:
        arn, _, payload = iterator.rsplit("|", 2)
        shard, position_text, issued_text = base64.b64decode(payload).decode().split("|")
        position, issued = int(position_text), float(issued_text)
    except Exception:
        raise ValidationException("Invalid ShardIterator")
    stream = _stream(engine, arn, "Stream does not exist")
    if shard != shard_id(arn):
        raise ValidationException("Invalid ShardIterator")
    if time.time() - issued > ITERATOR_SECONDS:
        raise ExpiredIteratorException("Iterator expired. The iterator was created over 15 minutes ago.")
    return stream, position


def _sequence_number(seq: Any, stream: _Stream) -> int:
    """The sequence number of an AT/AFTER_SEQUENCE_NUMBER iterator, checked against the shard."""
    if not isinstance(seq, str) or not seq:
        raise ValidationException(_INVALID + "Invalid SequenceNumber")
    if len(seq) > MAX_SEQ_LENGTH:
        raise ValidationException(
            f"1 validation error detected: Value '{seq}' at 'sequenceNumber' failed to satisfy constraint: Member "
            f"must have length less than or equal to {MAX_SEQ_LENGTH}"
        )
    if not seq.isdigit():
        raise ValidationException(_INVALID + "Invalid SequenceNumber")
    number = int(seq)
    if number < stream.start:
        raise ValidationException("Invalid SequenceNumber for the shard")
    return number


def get_shard_iterator(engine: Engine, req: dict) -> dict:
    _check_arn(req.get("StreamArn"))
    with engine.storage.lock:
        stream = _stream(engine, req.get("StreamArn"), "Stream does not exist")
    if req.get("ShardId") != shard_id(stream.arn):
        raise ResourceNotFoundException("Shard does not exist")
    kind = req.get("ShardIteratorType")
    seq = req.get("SequenceNumber")
    if kind in ("TRIM_HORIZON", "LATEST"):
        if seq is not None:
            raise ValidationException(_INVALID + "SequenceNumber should not be passed for this iterator type")
        position = 0 if kind == "TRIM_HORIZON" else _latest(engine)
    elif kind in ("AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER"):
        position = _sequence_number(seq, stream) + (kind == "AFTER_SEQUENCE_NUMBER")
    else:
        raise ValidationException(
            f"1 validation error detected: Value '{kind}' at 'shardIteratorType' failed to satisfy constraint: "
            "Member must satisfy enum value set: [AFTER_SEQUENCE_NUMBER, AT_SEQUENCE_NUMBER, LATEST, TRIM_HORIZON]"
        )
    return {"ShardIterator": _encode_iterator(stream.arn, min(position, _MAX_POSITION))}


def _latest(engine: Engine) -> int:
    """The position after every record written so far (new records get higher sequence numbers)."""
    with engine.storage.lock:
        last = engine.storage.conn.execute("SELECT max(seq) FROM dynabase_stream_records").fetchone()[0]
    return (last or 0) + 1


def stored_records(conn: Any, arn: str, position: int, limit: int) -> list[tuple[int, str, int]]:
    """``(seq, record JSON, has binary)`` of a stream's records from ``position`` on, as stored (binary values
    are base64 text in the JSON)."""
    return conn.execute(
        "SELECT seq, record, bin FROM dynabase_stream_records WHERE stream_arn = ? AND seq >= ? ORDER BY seq LIMIT ?",
        (arn, position, limit),
    ).fetchall()


def stream_enabled(conn: Any, arn: str) -> bool:
    """Whether the stream is registered and still enabled (records may come)."""
    row = conn.execute("SELECT enabled FROM dynabase_streams WHERE stream_arn = ?", (arn,)).fetchone()
    return bool(row and row[0])


def read_records(conn: Any, arn: str, position: int, limit: int) -> list[tuple[int, dict]]:
    out = []
    for seq, text, binary in stored_records(conn, arn, position, limit):
        record = load_item(text, 0)
        data = record["dynamodb"]
        if binary:  # the record's items hold binary values, stored as base64 text
            for image in ("Keys", "NewImage", "OldImage"):
                if image in data:
                    binary_decoded(data[image])
        data["SequenceNumber"] = seq_text(seq)
        out.append((seq, _ordered(record)))
    return out


def _ordered(record: dict) -> dict:
    data = record["dynamodb"]
    order = [
        "ApproximateCreationDateTime",
        "Keys",
        "NewImage",
        "OldImage",
        "SequenceNumber",
        "SizeBytes",
        "StreamViewType",
    ]
    record["dynamodb"] = {k: data[k] for k in order if k in data}
    return record


def get_records(engine: Engine, req: dict) -> dict:
    """A page of records; a closed shard read to its end gives no NextShardIterator."""
    limit = _limit(req.get("Limit"), MAX_RECORDS, "Limit should be less than or equal to 1000")
    with engine.storage.lock:
        stream, position = _decode_iterator(engine, req.get("ShardIterator"))
        records = read_records(engine.storage.conn, stream.arn, position, limit + 1)
    more = len(records) > limit
    records = records[:limit]
    out: dict[str, Any] = {"Records": [r for _, r in records]}
    if stream.enabled or more:
        out["NextShardIterator"] = _encode_iterator(stream.arn, records[-1][0] + 1 if records else position)
    return out


def follow(
    engine: Engine, table_name: str, *, from_start: bool = True, poll: float = 0.2, stop: Any = None
) -> Iterator[dict[str, Any]]:
    """Yield the stream records of a table as they are written (for in-process consumers).

    ``stop`` is an optional ``threading.Event``; without it the iterator runs until the caller stops iterating.
    """
    table = engine.catalog.get(table_name)
    arn = table.description.get("LatestStreamArn")
    if not arn or not table.stream_view_type:
        raise ValidationException(f"Table {table_name} has no enabled stream")
    position = 0 if from_start else _latest(engine)
    while stop is None or not stop.is_set():
        with engine.storage.lock:
            records = read_records(engine.storage.conn, arn, position, MAX_RECORDS)
        for seq, record in records:
            position = seq + 1
            yield record
        if not records:
            if stop is not None:
                stop.wait(poll)
            else:
                time.sleep(poll)
