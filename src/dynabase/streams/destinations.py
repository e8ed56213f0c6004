"""On-failure destinations: where the records of a batch go once its retries are used up.

The entry follows Lambda's on-failure invocation record for stream sources (``requestContext``,
``responseContext``, ``version``, ``timestamp``, ``DDBStreamBatchInfo``) and adds what Lambda leaves out:
the batch's ``records`` themselves (Lambda-shaped) and the handler's ``error``.

* :class:`JsonLinesDestination` -- one JSON line per failed batch, appended and fsynced.
* :class:`TableDestination` -- one item per failed batch in a DynamoDB table (hash key ``id``), the entry as
  JSON text in ``entry``.
"""

from __future__ import annotations

import json
import os
import threading
import uuid
from datetime import datetime, timezone
from typing import Any, Protocol


class FailureDestination(Protocol):
    def send(self, entry: dict[str, Any]) -> None: ...


def failure_entry(
    records: list[dict[str, Any]], *, stream_arn: str, shard_id: str, consumer: str, error: str, attempts: int
) -> dict[str, Any]:
    """Lambda's on-failure record for a batch of (Lambda-shaped) records, plus the records and the error."""
    first, last = records[0]["dynamodb"], records[-1]["dynamodb"]
    return {
        "requestContext": {
            "requestId": str(uuid.uuid4()),
            "functionArn": f"arn:aws:lambda:local:000000000000:function:{consumer}",
            "condition": "RetryAttemptsExhausted",
            "approximateInvokeCount": attempts,
        },
        "responseContext": {"statusCode": 200, "executedVersion": "$LATEST", "functionError": "Unhandled"},
        "version": "1.0",
        "timestamp": datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "DDBStreamBatchInfo": {
            "shardId": shard_id,
            "startSequenceNumber": first["SequenceNumber"],
            "endSequenceNumber": last["SequenceNumber"],
            "approximateArrivalOfFirstRecord": _iso(first.get("ApproximateCreationDateTime")),
            "approximateArrivalOfLastRecord": _iso(last.get("ApproximateCreationDateTime")),
            "batchSize": len(records),
            "streamArn": stream_arn,
        },
        "error": error,
        "records": records,
    }


def _iso(seconds: Any) -> str | None:
    if seconds is None:
        return None
    return datetime.fromtimestamp(float(seconds), timezone.utc).isoformat().replace("+00:00", "Z")


class JsonLinesDestination:
    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._lock = threading.Lock()

    def send(self, entry: dict[str, Any]) -> None:
        line = json.dumps(entry, separators=(",", ":"), default=str) + "\n"
        with self._lock, open(self.path, "a", encoding="utf-8") as out:
            out.write(line)
            out.flush()
            os.fsync(out.fileno())

    def entries(self) -> list[dict[str, Any]]:
        """What the file holds (empty when it does not exist)."""
        try:
            with open(self.path, encoding="utf-8") as source:
                return [json.loads(line) for line in source if line.strip()]
        except FileNotFoundError:
            return []


class TableDestination:
    def __init__(self, client: Any, table_name: str) -> None:
        self.client, self.table_name = client, table_name

    def send(self, entry: dict[str, Any]) -> None:
        self.client.put_item(
            TableName=self.table_name,
            Item={
                "id": {"S": entry["requestContext"]["requestId"]},
                "entry": {"S": json.dumps(entry, separators=(",", ":"), default=str)},
            },
        )


__all__ = ["FailureDestination", "JsonLinesDestination", "TableDestination", "failure_entry"]
