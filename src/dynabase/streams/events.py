"""Stream records in the shape AWS Lambda hands a DynamoDB event-source handler.

``boto3`` (and the embedded client, which copies it) parses ``ApproximateCreationDateTime`` into a ``datetime``
and binary values into ``bytes``; Lambda's JSON event carries epoch seconds and base64 text, plus the stream's
ARN as ``eventSourceARN``. :func:`lambda_record` turns the one into the other, so a Lambda handler runs
unchanged.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ..transfer.codec import decode_value, encode_item


def lambda_record(record: Mapping[str, Any], stream_arn: str) -> dict[str, Any]:
    """One GetRecords record as a record of Lambda's ``{"Records": [...]}`` event."""
    out = dict(record)
    data = dict(record.get("dynamodb") or {})
    created = data.get("ApproximateCreationDateTime")
    if isinstance(created, datetime):
        data["ApproximateCreationDateTime"] = float(int(created.timestamp()))
    for key in ("Keys", "NewImage", "OldImage"):
        image = data.get(key)
        if image is not None and any("B" in v or "BS" in v or "M" in v or "L" in v for v in image.values()):
            data[key] = encode_item(image)
    out["dynamodb"] = data
    out["eventSourceARN"] = stream_arn
    return out


def wire_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """A Lambda-shaped record with its images back as boto3 gives them (for the entity layer's decoder)."""
    data = dict(record["dynamodb"])
    for key in ("Keys", "NewImage", "OldImage"):
        if key in data:
            data[key] = wire_image(data[key])
    return {**record, "dynamodb": data}


def wire_image(image: Mapping[str, Any]) -> dict[str, Any]:
    """A Lambda-shaped image back as boto3 gives it (binary values as ``bytes``), for decoders."""
    return {name: decode_value(value, name) for name, value in image.items()}


def created_at(record: Mapping[str, Any]) -> float:
    """A record's ``ApproximateCreationDateTime`` in epoch seconds (a datetime or a number)."""
    created = (record.get("dynamodb") or {}).get("ApproximateCreationDateTime", 0)
    return created.timestamp() if isinstance(created, datetime) else float(created)


def sequence_number(record: Mapping[str, Any]) -> str:
    sequence: str = record["dynamodb"]["SequenceNumber"]
    return sequence


class LambdaContext:
    """The context object a Lambda handler receives (the parts that mean something locally).

    ``entities`` holds the batch decoded to the schema's models (``{model: [{"type", "new", "old"}]}``) and
    ``table`` is the entity :class:`~dynabase.model.Table` when the consumer was given one; otherwise both are
    ``None``.
    """

    def __init__(
        self, function_name: str, timeout: float | None, entities: Any = None, table: Any = None
    ) -> None:
        self.function_name = function_name
        self.function_version = "$LATEST"
        self.invoked_function_arn = f"arn:aws:lambda:local:000000000000:function:{function_name}"
        self.memory_limit_in_mb = 0
        self.aws_request_id = str(uuid.uuid4())
        self.log_group_name = f"/aws/lambda/{function_name}"
        self.log_stream_name = "dynabase"
        self.entities = entities
        self.table = table
        self._deadline = None if timeout is None else time.monotonic() + timeout

    def get_remaining_time_in_millis(self) -> int:
        if self._deadline is None:
            return 900_000
        return max(0, int((self._deadline - time.monotonic()) * 1000))


__all__ = ["LambdaContext", "created_at", "lambda_record", "sequence_number", "wire_image", "wire_record"]
