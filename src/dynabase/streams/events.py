"""Stream records in the shape AWS Lambda hands a DynamoDB event-source handler.

``boto3`` (and the embedded client, which copies it) parses ``ApproximateCreationDateTime`` into a ``datetime``
and binary values into ``bytes``; Lambda's JSON event carries an integer number of epoch seconds and base64
text, plus the stream's ARN as ``eventSourceARN``. The ``userIdentity`` of a TTL delete is
``{"PrincipalId", "Type"}`` in GetRecords (the service model's ``Identity``) and
``{"principalId": "dynamodb.amazonaws.com", "type": "Service"}`` in Lambda's event, so that the TTL filter
AWS documents (``{"userIdentity": {"type": ["Service"], "principalId": ["dynamodb.amazonaws.com"]}}``)
matches. :func:`lambda_record` turns the one into the other, so a Lambda handler runs unchanged.
"""

from __future__ import annotations

import re
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
    for key in ("Keys", "NewImage", "OldImage"):
        image = data.get(key)
        if image is not None and any("B" in v or "BS" in v or "M" in v or "L" in v for v in image.values()):
            data[key] = encode_item(image)
    out["dynamodb"] = data
    return lambda_members(out, stream_arn)


def lambda_members(record: dict[str, Any], stream_arn: str) -> dict[str, Any]:
    """``record`` (its images already Lambda's) with the members Lambda's event has in another form than
    GetRecords: the creation time as whole seconds, ``userIdentity``'s member names, ``eventSourceARN``."""
    data = record["dynamodb"]
    if "ApproximateCreationDateTime" in data:
        data["ApproximateCreationDateTime"] = int(created_at(record))
    record["eventSourceARN"] = stream_arn
    identity = record.get("userIdentity")
    if isinstance(identity, Mapping):
        record["userIdentity"] = {_IDENTITY.get(key, key): value for key, value in identity.items()}
    return record


_IDENTITY = {"PrincipalId": "principalId", "Type": "type"}  # GetRecords' member -> Lambda's


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


def function_arn(name: str, stream_arn: str | None = None) -> str:
    """A Lambda function ARN for a consumer, in the shape of Lambda's API model
    (``arn:aws:lambda:us-east-1:000000000000:function:handlers-on_order``): the stream ARN's partition, region
    and account where they have a Lambda ARN's shape (``aws``, ``us-east-1`` and ``000000000000`` otherwise:
    DynamoDB Local's region is ``ddblocal``), and :func:`lambda_name`."""
    parts = (stream_arn or "").split(":")
    partition, region, account = (parts[1], parts[3], parts[4]) if len(parts) > 5 else ("", "", "")
    partition = partition if _PARTITION.fullmatch(partition) else "aws"
    region = region if _REGION.fullmatch(region) else "us-east-1"
    account = account if _ACCOUNT.fullmatch(account) else "000000000000"
    return f"arn:{partition}:lambda:{region}:{account}:function:{lambda_name(name)}"


def lambda_name(name: str) -> str:
    """``name`` as a Lambda function name: letters, digits, ``-`` and ``_``, 1 to 64 characters."""
    return (_NOT_IN_NAME.sub("-", name) or "consumer")[:64]


_NOT_IN_NAME = re.compile(r"[^A-Za-z0-9_-]")
_PARTITION = re.compile(r"aws[a-zA-Z-]*")
_REGION = re.compile(r"[a-z]{2}(-gov)?-[a-z]+-\d")
_ACCOUNT = re.compile(r"\d{12}")


class LambdaContext:
    """The context object a Lambda handler receives (the parts that mean something locally).

    ``entities`` holds the batch decoded to the schema's models (``{model: [{"type", "new", "old"}]}``) and
    ``table`` is the entity :class:`~dynabase.model.Table` when the consumer was given one; otherwise both are
    ``None``.
    """

    def __init__(
        self,
        function_name: str,
        timeout: float | None,
        entities: Any = None,
        table: Any = None,
        stream_arn: str | None = None,
    ) -> None:
        self.function_name = lambda_name(function_name)
        self.function_version = "$LATEST"
        self.invoked_function_arn = function_arn(function_name, stream_arn)
        self.memory_limit_in_mb = 0
        self.aws_request_id = str(uuid.uuid4())
        self.log_group_name = f"/aws/lambda/{self.function_name}"
        self.log_stream_name = "dynabase"
        self.entities = entities
        self.table = table
        self._deadline = None if timeout is None else time.monotonic() + timeout

    def get_remaining_time_in_millis(self) -> int:
        if self._deadline is None:
            return 900_000
        return max(0, int((self._deadline - time.monotonic()) * 1000))


__all__ = [
    "LambdaContext",
    "created_at",
    "function_arn",
    "lambda_members",
    "lambda_name",
    "lambda_record",
    "sequence_number",
    "wire_image",
    "wire_record",
]
