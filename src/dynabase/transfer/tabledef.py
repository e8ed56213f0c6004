"""``table.json``: what an export records about its table, and recreating the table from it on import.

The file holds ready-to-send CreateTable parameters (key schema, attribute definitions, GSIs/LSIs, billing
mode and throughput, stream specification), the TTL attribute, and DescribeTable's answer for reference::

    {"version": 1, "TableName": "orders",
     "CreateTable": {"KeySchema": [...], "AttributeDefinitions": [...], "BillingMode": "PAY_PER_REQUEST", ...},
     "TimeToLive": {"AttributeName": "expires", "Enabled": true} | null,
     "ItemCount": 1234, "TableDescription": {...}}
"""

from __future__ import annotations

import datetime as _dt
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from botocore.exceptions import ClientError

from .errors import TransferError

TABLE_FILE_VERSION = 1
TABLE_FILE = "table.json"


def error_code(error: ClientError) -> str:
    return str(error.response.get("Error", {}).get("Code", ""))


def error_message(error: ClientError) -> str:
    info = error.response.get("Error", {})
    return f"{info.get('Code', 'Error')}: {info.get('Message', '')}".rstrip(": ")


def describe(client: Any, table: str) -> dict[str, Any] | None:
    """DescribeTable's ``Table``, or None when there is no such table."""
    try:
        return client.describe_table(TableName=table)["Table"]
    except ClientError as error:
        if error_code(error) == "ResourceNotFoundException":
            return None
        raise TransferError(f"cannot describe table {table!r}: {error_message(error)}")


def require_table(client: Any, table: str) -> dict[str, Any]:
    description = describe(client, table)
    if description is None:
        raise TransferError(f"table {table!r} does not exist")
    return description


def time_to_live(client: Any, table: str) -> dict[str, Any] | None:
    """``{"AttributeName": ..., "Enabled": True}`` when TTL is on (or being turned on), else None."""
    try:
        answer = client.describe_time_to_live(TableName=table).get("TimeToLiveDescription", {})
    except (ClientError, AttributeError):  # a backend without TTL: nothing to record
        return None
    if answer.get("TimeToLiveStatus") in ("ENABLED", "ENABLING") and answer.get("AttributeName"):
        return {"AttributeName": answer["AttributeName"], "Enabled": True}
    return None


def _throughput(source: dict[str, Any] | None) -> dict[str, int]:
    source = source or {}
    # DynamoDB Local and the engine report 0 for on-demand-looking tables; CreateTable needs at least 1
    return {
        "ReadCapacityUnits": max(1, int(source.get("ReadCapacityUnits") or 0)),
        "WriteCapacityUnits": max(1, int(source.get("WriteCapacityUnits") or 0)),
    }


def _projection(source: dict[str, Any]) -> dict[str, Any]:
    projection = {"ProjectionType": source.get("ProjectionType", "ALL")}
    if source.get("NonKeyAttributes"):
        projection["NonKeyAttributes"] = list(source["NonKeyAttributes"])
    return projection


def create_table_params(description: dict[str, Any]) -> dict[str, Any]:
    """CreateTable parameters (without TableName) that rebuild the table DescribeTable described."""
    billing = (description.get("BillingModeSummary") or {}).get("BillingMode") or "PROVISIONED"
    provisioned = billing != "PAY_PER_REQUEST"
    params: dict[str, Any] = {
        "KeySchema": [dict(k) for k in description["KeySchema"]],
        "AttributeDefinitions": [dict(a) for a in description["AttributeDefinitions"]],
        "BillingMode": "PROVISIONED" if provisioned else "PAY_PER_REQUEST",
    }
    if provisioned:
        params["ProvisionedThroughput"] = _throughput(description.get("ProvisionedThroughput"))
    gsis = []
    for index in description.get("GlobalSecondaryIndexes") or []:
        gsi: dict[str, Any] = {
            "IndexName": index["IndexName"],
            "KeySchema": [dict(k) for k in index["KeySchema"]],
            "Projection": _projection(index.get("Projection") or {}),
        }
        if provisioned:
            gsi["ProvisionedThroughput"] = _throughput(index.get("ProvisionedThroughput"))
        gsis.append(gsi)
    if gsis:
        params["GlobalSecondaryIndexes"] = gsis
    lsis = [
        {
            "IndexName": index["IndexName"],
            "KeySchema": [dict(k) for k in index["KeySchema"]],
            "Projection": _projection(index.get("Projection") or {}),
        }
        for index in description.get("LocalSecondaryIndexes") or []
    ]
    if lsis:
        params["LocalSecondaryIndexes"] = lsis
    stream = description.get("StreamSpecification") or {}
    if stream.get("StreamEnabled"):
        params["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": stream["StreamViewType"]}
    return params


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items() if k != "ResponseMetadata"}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if isinstance(value, (_dt.datetime, _dt.date)):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("latin-1")
    return value


def table_document(client: Any, table: str, description: dict[str, Any]) -> dict[str, Any]:
    return {
        "version": TABLE_FILE_VERSION,
        "TableName": description["TableName"],
        "CreateTable": create_table_params(description),
        "TimeToLive": time_to_live(client, table),
        "ItemCount": description.get("ItemCount"),
        "TableDescription": _jsonable(description),
    }


def write_table_file(path: Path, document: dict[str, Any]) -> None:
    path.write_text(json.dumps(document, indent=2, sort_keys=False) + "\n", encoding="utf-8")


def read_table_file(path: Path) -> dict[str, Any]:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise TransferError(f"cannot read table description {path}: {error.strerror or error}")
    except ValueError as error:
        raise TransferError(f"table description {path} is not valid JSON: {error}")
    if not isinstance(document, dict) or not isinstance(document.get("CreateTable"), dict):
        raise TransferError(f"{path} is not a dynabase table description (no CreateTable parameters)")
    version = document.get("version", TABLE_FILE_VERSION)
    if type(version) is not int:
        raise TransferError(f"{path}: version is not a whole number")
    if version > TABLE_FILE_VERSION:
        raise TransferError(f"{path} was written by a newer dynabase (version {version})")
    if not isinstance(document.get("TableName", ""), str):
        raise TransferError(f"{path}: TableName is not a string")
    if not isinstance(document.get("TimeToLive") or {}, dict):
        raise TransferError(f"{path}: TimeToLive is not an object or null")
    return document


def create_table(
    client: Any,
    table: str,
    document: dict[str, Any],
    *,
    timeout: float = 600.0,
    sleep: Callable[[float], None] = time.sleep,
) -> dict[str, Any]:
    """Create ``table`` from a table.json document, wait until it and its indexes are ACTIVE, set up TTL."""
    try:
        client.create_table(TableName=table, **document["CreateTable"])
    except ClientError as error:
        raise TransferError(f"cannot create table {table!r}: {error_message(error)}")
    deadline = time.monotonic() + timeout
    delay = 0.05
    while True:
        description = require_table(client, table)
        indexes = description.get("GlobalSecondaryIndexes") or []
        if description.get("TableStatus") == "ACTIVE" and all(
            i.get("IndexStatus", "ACTIVE") == "ACTIVE" for i in indexes
        ):
            break
        if time.monotonic() > deadline:
            raise TransferError(f"table {table!r} did not become ACTIVE within {timeout:.0f}s")
        sleep(delay)
        delay = min(delay * 2, 2.0)
    ttl = document.get("TimeToLive")
    if ttl and ttl.get("AttributeName"):
        try:
            client.update_time_to_live(
                TableName=table,
                TimeToLiveSpecification={"Enabled": True, "AttributeName": ttl["AttributeName"]},
            )
        except ClientError as error:
            raise TransferError(f"created table {table!r} but could not enable TTL: {error_message(error)}")
    return description
