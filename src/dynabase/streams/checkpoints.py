"""Where a consumer remembers how far it got in each shard.

A checkpoint is kept per (consumer name, stream ARN, shard id): the sequence number of the last record whose
batch the handler returned from (or that went to the on-failure destination), ``since`` (the epoch second an
``AT_TIMESTAMP`` start passes over earlier records until),
and ``finished`` once a closed shard has been read to its end. Three stores:

* :class:`SqliteCheckpoints` -- a SQLite file; pass the device database itself (``app.db``) to keep the
  checkpoints with the data (table ``dynabase_stream_checkpoints``). Each save is one committed transaction.
* :class:`TableCheckpoints` -- a DynamoDB table (created on first use), for consumers running against AWS.
* :class:`MemoryCheckpoints` -- in memory, for triggers and ``tail`` (nothing survives the process).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class Checkpoint:
    sequence: str | None = None
    since: float | None = None
    finished: bool = False


class CheckpointStore(Protocol):
    def get(self, consumer: str, stream_arn: str, shard_id: str) -> Checkpoint | None: ...

    def save(self, consumer: str, stream_arn: str, shard_id: str, checkpoint: Checkpoint) -> None: ...


class MemoryCheckpoints:
    def __init__(self) -> None:
        self.saved: dict[tuple[str, str, str], Checkpoint] = {}

    def get(self, consumer: str, stream_arn: str, shard_id: str) -> Checkpoint | None:
        return self.saved.get((consumer, stream_arn, shard_id))

    def save(self, consumer: str, stream_arn: str, shard_id: str, checkpoint: Checkpoint) -> None:
        self.saved[(consumer, stream_arn, shard_id)] = checkpoint


class SqliteCheckpoints:
    """Checkpoints in a SQLite file (WAL): a saved checkpoint survives a crash of the process."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._lock = threading.Lock()
        self.conn = sqlite3.connect(path, timeout=30.0, check_same_thread=False, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute(
            "CREATE TABLE IF NOT EXISTS dynabase_stream_checkpoints (consumer TEXT NOT NULL, "
            "stream_arn TEXT NOT NULL, shard_id TEXT NOT NULL, sequence TEXT, since REAL, "
            "finished INTEGER NOT NULL DEFAULT 0, updated REAL NOT NULL, "
            "PRIMARY KEY (consumer, stream_arn, shard_id))"
        )

    def get(self, consumer: str, stream_arn: str, shard_id: str) -> Checkpoint | None:
        with self._lock:
            row = self.conn.execute(
                "SELECT sequence, since, finished FROM dynabase_stream_checkpoints "
                "WHERE consumer = ? AND stream_arn = ? AND shard_id = ?",
                (consumer, stream_arn, shard_id),
            ).fetchone()
        return None if row is None else Checkpoint(row[0], row[1], bool(row[2]))

    def save(self, consumer: str, stream_arn: str, shard_id: str, checkpoint: Checkpoint) -> None:
        with self._lock:
            self.conn.execute(
                "INSERT OR REPLACE INTO dynabase_stream_checkpoints VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    consumer,
                    stream_arn,
                    shard_id,
                    checkpoint.sequence,
                    checkpoint.since,
                    int(checkpoint.finished),
                    time.time(),
                ),
            )

    def close(self) -> None:
        self.conn.close()


class TableCheckpoints:
    """Checkpoints as items of a DynamoDB table (hash key ``id``, string); the table is created when missing."""

    def __init__(self, client: Any, table_name: str) -> None:
        self.client, self.table_name = client, table_name
        try:
            status = client.describe_table(TableName=table_name)["Table"]["TableStatus"]
        except client.exceptions.ResourceNotFoundException:
            self._create()
            status = None
        if status != "ACTIVE":
            self._wait_active()

    def _create(self) -> None:
        try:
            self.client.create_table(
                TableName=self.table_name,
                KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
                BillingMode="PAY_PER_REQUEST",
            )
        except self.client.exceptions.ResourceInUseException:
            # another consumer sharing the store (a hub side by side, started at the same time) created it
            # between our DescribeTable and CreateTable: AWS answers CreateTable of an existing table with
            # ResourceInUseException (the DynamoDB API reference, CreateTable's errors), and so does DynamoDB Local
            pass

    def _wait_active(self) -> None:
        """Until the table is ACTIVE: on AWS a new table is CREATING for a while, also when another consumer
        created it, and item calls on a table that is not ACTIVE fail with ResourceNotFoundException (the
        DynamoDB API reference, that error's description)."""
        deadline = time.monotonic() + 300
        while self.client.describe_table(TableName=self.table_name)["Table"]["TableStatus"] != "ACTIVE":
            if time.monotonic() > deadline:
                raise TimeoutError(f"checkpoint table {self.table_name} did not become ACTIVE")
            time.sleep(0.5)

    @staticmethod
    def _id(consumer: str, stream_arn: str, shard_id: str) -> dict[str, Any]:
        return {"id": {"S": f"{consumer}|{stream_arn}|{shard_id}"}}

    def get(self, consumer: str, stream_arn: str, shard_id: str) -> Checkpoint | None:
        item = self.client.get_item(
            TableName=self.table_name, Key=self._id(consumer, stream_arn, shard_id), ConsistentRead=True
        ).get("Item")
        if item is None:
            return None
        return Checkpoint(
            item["sequence"]["S"] if "sequence" in item else None,
            float(item["since"]["N"]) if "since" in item else None,
            item.get("finished", {}).get("BOOL", False),
        )

    def save(self, consumer: str, stream_arn: str, shard_id: str, checkpoint: Checkpoint) -> None:
        item = {**self._id(consumer, stream_arn, shard_id), "finished": {"BOOL": checkpoint.finished}}
        if checkpoint.sequence is not None:
            item["sequence"] = {"S": checkpoint.sequence}
        if checkpoint.since is not None:
            item["since"] = {"N": repr(checkpoint.since)}
        self.client.put_item(TableName=self.table_name, Item=item)


__all__ = ["Checkpoint", "CheckpointStore", "MemoryCheckpoints", "SqliteCheckpoints", "TableCheckpoints"]
