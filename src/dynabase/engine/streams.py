"""DynamoDB Streams: a record for every item change, written in the same SQLite transaction as the change.

Each table with a stream has one shard. Records carry monotonically increasing sequence numbers (SQLite's
AUTOINCREMENT, never reused) and are kept for 24 hours. The Streams API (ListStreams, DescribeStream,
GetShardIterator, GetRecords) reads them; :func:`follow` gives in-process consumers an iterator.
"""

from __future__ import annotations

import base64
import json
import time
import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ..errors import (
    ExpiredIteratorException,
    ResourceNotFoundException,
    TrimmedDataAccessException,
    ValidationException,
)
from ..types import item_size
from .schema import Table
from .storage import dump_item, load_item

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
CREATE TABLE IF NOT EXISTS dynabase_streams (
    stream_arn TEXT PRIMARY KEY,
    table_name TEXT NOT NULL,
    label TEXT NOT NULL,
    description TEXT NOT NULL,
    enabled INTEGER NOT NULL,
    created REAL NOT NULL
);
"""

SERVICE_IDENTITY = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}


def install(conn: Any) -> None:
    conn.executescript(SCHEMA)


def seq_text(seq: int) -> str:
    return str(seq).zfill(SEQ_DIGITS)


def shard_id(stream_arn: str) -> str:
    digest = uuid.uuid5(uuid.NAMESPACE_URL, stream_arn).hex
    return f"shardId-{int(digest[:12], 16) % 10**20:020d}-{digest[12:20]}"


def record_change(
    conn: Any, engine: Engine, table: Table, old: dict | None, new: dict | None, identity: dict | None = None
) -> None:
    """Append the stream record of one item change (nothing when the item did not change)."""
    view = table.stream_view_type
    if view is None or old == new:
        return
    if old is None:
        event = "INSERT"
    elif new is None:
        event = "REMOVE"
    else:
        event = "MODIFY"
    some = new if new is not None else old
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
        "eventID": str(uuid.uuid4()),
        "eventName": event,
        "eventVersion": "1.1",
        "eventSource": "aws:dynamodb",
        "awsRegion": engine.region,
        "dynamodb": data,
    }
    if identity is not None:
        record["userIdentity"] = identity
    text, binary = dump_item(record)
    conn.execute(
        "INSERT INTO dynabase_stream_records (stream_arn, created, record, bin) VALUES (?, ?, ?, ?)",
        (table.description["LatestStreamArn"], time.time(), text, binary),
    )


def on_table_changed(conn: Any, table_name: str, desc: dict) -> None:
    """Keep the stream registry in step with a table's StreamSpecification (called inside DDL transactions)."""
    conn.execute("UPDATE dynabase_streams SET enabled = 0 WHERE table_name = ?", (table_name,))
    spec = desc.get("StreamSpecification") or {}
    if spec.get("StreamEnabled"):
        arn = desc["LatestStreamArn"]
        conn.execute(
            "INSERT OR REPLACE INTO dynabase_streams (stream_arn, table_name, label, description, enabled, created) "
            "VALUES (?, ?, ?, ?, 1, ?)",
            (
                arn,
                table_name,
                desc["LatestStreamLabel"],
                json.dumps({"StreamViewType": spec["StreamViewType"], "KeySchema": desc["KeySchema"]}),
                time.time(),
            ),
        )


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


def _stream(engine: Engine, arn: Any) -> tuple:
    if not isinstance(arn, str):
        raise ValidationException("Invalid StreamArn")
    row = engine.storage.conn.execute(
        "SELECT stream_arn, table_name, label, description, enabled, created FROM dynabase_streams WHERE stream_arn = ?",
        (arn,),
    ).fetchone()
    if row is None:
        raise ResourceNotFoundException(f"Requested resource not found: Stream: {arn} not found")
    return row


def list_streams(engine: Engine, req: dict) -> dict:
    args: tuple = ()
    sql = "SELECT stream_arn, table_name, label FROM dynabase_streams"
    if req.get("TableName") is not None:
        engine.catalog.get(req["TableName"])
        sql += " WHERE table_name = ?"
        args = (req["TableName"],)
    rows = engine.storage.conn.execute(sql + " ORDER BY stream_arn", args).fetchall()
    start = req.get("ExclusiveStartStreamArn")
    if start is not None:
        rows = [r for r in rows if r[0] > start]
    limit = req.get("Limit") or 100
    out: dict[str, Any] = {
        "Streams": [{"StreamArn": a, "TableName": t, "StreamLabel": lb} for a, t, lb in rows[:limit]]
    }
    if len(rows) > limit:
        out["LastEvaluatedStreamArn"] = rows[limit - 1][0]
    return out


def describe_stream(engine: Engine, req: dict) -> dict:
    arn, table_name, label, description, enabled, created = _stream(engine, req.get("StreamArn"))
    meta = json.loads(description)
    first = engine.storage.conn.execute(
        "SELECT min(seq) FROM dynabase_stream_records WHERE stream_arn = ?", (arn,)
    ).fetchone()[0]
    shard: dict[str, Any] = {"ShardId": shard_id(arn), "SequenceNumberRange": {}}
    if first is not None:
        shard["SequenceNumberRange"]["StartingSequenceNumber"] = seq_text(first)
    if not enabled:
        last = engine.storage.conn.execute(
            "SELECT max(seq) FROM dynabase_stream_records WHERE stream_arn = ?", (arn,)
        ).fetchone()[0]
        if last is not None:
            shard["SequenceNumberRange"]["EndingSequenceNumber"] = seq_text(last)
    return {
        "StreamDescription": {
            "StreamArn": arn,
            "StreamLabel": label,
            "StreamStatus": "ENABLED" if enabled else "DISABLED",
            "StreamViewType": meta["StreamViewType"],
            "CreationRequestDateTime": created,
            "TableName": table_name,
            "KeySchema": meta["KeySchema"],
            "Shards": [shard],
        }
    }


def _encode_iterator(arn: str, position: int) -> str:
    payload = f"{shard_id(arn)}|{position}|{time.time():.3f}"
    return f"{arn}|001|{base64.b64encode(payload.encode()).decode()}"


def _decode_iterator(engine: Engine, iterator: Any) -> tuple[str, int]:
    try:
        arn, _, payload = iterator.rsplit("|", 2)
        shard, position, issued = base64.b64decode(payload).decode().split("|")
        position, issued = int(position), float(issued)
    except Exception:
        raise ValidationException("Invalid ShardIterator")
    _stream(engine, arn)
    if shard != shard_id(arn):
        raise ValidationException("Invalid ShardIterator")
    if time.time() - issued > ITERATOR_SECONDS:
        raise ExpiredIteratorException("Iterator expired. The iterator was created over 15 minutes ago.")
    return arn, position


def get_shard_iterator(engine: Engine, req: dict) -> dict:
    arn = _stream(engine, req.get("StreamArn"))[0]
    if req.get("ShardId") != shard_id(arn):
        raise ResourceNotFoundException("Requested resource not found: Shard does not exist")
    kind = req.get("ShardIteratorType")
    seq = req.get("SequenceNumber")
    conn = engine.storage.conn
    if kind in ("AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER"):
        if seq is None or not str(seq).isdigit():
            raise ValidationException("One or more parameter values were invalid: Invalid SequenceNumber")
        number = int(seq)
        first = conn.execute(
            "SELECT min(seq) FROM dynabase_stream_records WHERE stream_arn = ?", (arn,)
        ).fetchone()[0]
        if first is not None and number < first:
            raise TrimmedDataAccessException(
                "The operation attempted to read past the oldest stream record in a shard."
            )
        position = number if kind == "AT_SEQUENCE_NUMBER" else number + 1
    elif kind == "TRIM_HORIZON":
        position = 0
    elif kind == "LATEST":
        last = conn.execute("SELECT max(seq) FROM dynabase_stream_records").fetchone()[0]
        position = (last or 0) + 1
    else:
        raise ValidationException(
            f"1 validation error detected: Value '{kind}' at 'shardIteratorType' failed to satisfy constraint: "
            "Member must satisfy enum value set: [AFTER_SEQUENCE_NUMBER, AT_SEQUENCE_NUMBER, LATEST, TRIM_HORIZON]"
        )
    return {"ShardIterator": _encode_iterator(arn, position)}


def read_records(conn: Any, arn: str, position: int, limit: int) -> list[tuple[int, dict]]:
    rows = conn.execute(
        "SELECT seq, record, bin FROM dynabase_stream_records WHERE stream_arn = ? AND seq >= ? ORDER BY seq LIMIT ?",
        (arn, position, limit),
    ).fetchall()
    out = []
    for seq, text, binary in rows:
        record = load_item(text, binary)
        record["dynamodb"]["SequenceNumber"] = seq_text(seq)
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
    arn, position = _decode_iterator(engine, req.get("ShardIterator"))
    limit = req.get("Limit") or MAX_RECORDS
    if not isinstance(limit, int) or not 1 <= limit <= MAX_RECORDS:
        raise ValidationException(
            f"1 validation error detected: Value '{limit}' at 'limit' failed to satisfy constraint: "
            "Member must have value less than or equal to 1000"
        )
    with engine.storage.lock:
        records = read_records(engine.storage.conn, arn, position, limit)
        enabled = _stream(engine, arn)[4]
    out: dict[str, Any] = {"Records": [r for _, r in records]}
    next_position = records[-1][0] + 1 if records else position
    if enabled or records:
        out["NextShardIterator"] = _encode_iterator(arn, next_position)
    return out


def follow(
    engine: Engine, table_name: str, *, from_start: bool = True, poll: float = 0.2, stop: Any = None
) -> Iterator[dict]:
    """Yield the stream records of a table as they are written (for in-process consumers).

    ``stop`` is an optional ``threading.Event``; without it the iterator runs until the caller stops iterating.
    """
    table = engine.catalog.get(table_name)
    arn = table.description.get("LatestStreamArn")
    if not arn or not table.stream_view_type:
        raise ValidationException(f"Table {table_name} has no enabled stream")
    if from_start:
        position = 0
    else:
        with engine.storage.lock:
            last = engine.storage.conn.execute("SELECT max(seq) FROM dynabase_stream_records").fetchone()[0]
        position = (last or 0) + 1
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
