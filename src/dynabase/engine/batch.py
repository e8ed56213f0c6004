"""BatchWriteItem and BatchGetItem."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..errors import ValidationException
from ..types import validate_item
from .capacity import Consumed, check_mode, read_units, tables_collection_metrics
from .items import (
    Row,
    bind_projection,
    check_scalar_keys,
    checked_item,
    key_row,
    placeholders,
    read_row,
    write_row,
)

if TYPE_CHECKING:
    from .engine import Engine

MAX_BATCH_WRITE = 25
MAX_BATCH_GET = 100
MAX_BATCH_GET_BYTES = 16 * 1024 * 1024
_DUPLICATES = "Provided list of item keys contains duplicates"
_NO_REQUESTS = {
    "BatchGetItem": "BatchGetItem must have some requests set",
    "BatchWriteItem": "BatchWriteItem cannot have a null or no requests set",
}
_ONE_ACTION = (  # Local's answer to a WriteRequest with both or neither of PutRequest and DeleteRequest
    "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"
)


def _request_items(req: dict, operation: str) -> dict:
    items = req.get("RequestItems")
    if not isinstance(items, dict) or not items:
        raise ValidationException(_NO_REQUESTS[operation])
    return items


# -- BatchWriteItem ------------------------------------------------------------------------------------------


def _planned_write(table: Any, write: Any) -> tuple[Row, dict | None, int]:
    """Validate one WriteRequest: where it writes, the item to put (None for a delete) and its size."""
    if not isinstance(write, dict) or len(write) != 1 or not {"PutRequest", "DeleteRequest"} >= write.keys():
        raise ValidationException(_ONE_ACTION)
    if "PutRequest" in write:
        item, size = checked_item(table, (write["PutRequest"] or {}).get("Item"))
        return key_row(table, item, what="item"), item, size
    key = validate_item((write["DeleteRequest"] or {}).get("Key") or {})
    return key_row(table, key), None, 0


def batch_write_item(engine: Engine, req: dict) -> dict:
    mode = check_mode(req.get("ReturnConsumedCapacity"))
    requests = _request_items(req, "BatchWriteItem")
    if sum(len(v) if isinstance(v, list) else 0 for v in requests.values()) > MAX_BATCH_WRITE:
        raise ValidationException("Too many items requested for the BatchWriteItem call")
    plan = []  # (table, row, new item or None, size)
    for table_name, writes in requests.items():
        table = engine.catalog.get(table_name)
        if not isinstance(writes, list) or not writes:
            raise ValidationException(
                "1 validation error detected: Value null at 'requestItems' failed to satisfy constraint: "
                "Member must have length greater than or equal to 1"
            )
        seen = set()
        for write in writes:
            row, item, size = _planned_write(table, write)
            if (row.pk, row.sk) in seen:
                raise ValidationException(_DUPLICATES)
            seen.add((row.pk, row.sk))
            plan.append((table, row, item, size))
    consumed: dict[str, Consumed] = {}
    sizing = req.get("ReturnItemCollectionMetrics") == "SIZE"
    written = []
    with engine.storage.write() as conn:
        for table, row, item, size in plan:
            old, old_size = read_row(conn, table, row)
            write_row(engine, conn, table, row, old, item, size)
            if sizing:
                written.append((table, row.h, row.pk, item or old))
            if mode != "NONE":
                # a delete of a missing item costs 1 unit, as a DeleteItem of one does (Local bills 2)
                consumed.setdefault(table.name, Consumed(table)).add_write(old, item, old_size, size)
        metrics = tables_collection_metrics(conn, written) if sizing else {}
    out: dict[str, Any] = {"UnprocessedItems": {}}
    if mode != "NONE":
        out["ConsumedCapacity"] = [c.response(mode) for c in consumed.values()]
    if metrics:
        out["ItemCollectionMetrics"] = metrics
    return out


# -- BatchGetItem --------------------------------------------------------------------------------------------


def _spelling(key: dict) -> str:
    """A key as written: Local compares BatchGetItem keys by spelling (``1`` and ``1.0`` are two keys)."""
    return json.dumps(key, sort_keys=True, default=repr)


def _planned_rows(table: Any, keys: list) -> list[tuple[dict, Row]]:
    rows, seen = [], set()
    for key in keys:
        written = validate_item(key, normalize=False)
        if _spelling(written) in seen:
            raise ValidationException(_DUPLICATES)
        seen.add(_spelling(written))
        rows.append((key, key_row(table, written)))
    return rows


def batch_get_item(engine: Engine, req: dict) -> dict:
    mode = check_mode(req.get("ReturnConsumedCapacity"))
    requests = _request_items(req, "BatchGetItem")
    total = sum(len(v.get("Keys") or []) if isinstance(v, dict) else 0 for v in requests.values())
    if total > MAX_BATCH_GET:
        raise ValidationException("Too many items requested for the BatchGetItem call")
    for table_name, spec in requests.items():
        if not isinstance(spec, dict):  # a JSON null: DynamoDB Local's answer
            raise ValidationException(
                f"The list of keys in RequestItems for BatchGetItem is required: {table_name} has empty list"
            )
    plans = []
    for table_name, spec in requests.items():
        table = engine.catalog.get(table_name)
        keys = spec.get("Keys") or []
        if not keys:
            raise ValidationException(
                "1 validation error detected: Value null at 'requestItems.1.member.keys' failed to satisfy "
                "constraint: Member must have length greater than or equal to 1"
            )
        rows = _planned_rows(table, keys)  # Local checks the keys before the projection
        ph = placeholders(spec)
        projection = bind_projection(spec, ph)
        ph.check_unused()
        if projection is not None:
            check_scalar_keys(table, projection.paths)
        plans.append((table, spec, projection, rows))
    responses: dict[str, list] = {}
    unprocessed: dict[str, dict] = {}
    consumed: list[dict] = []
    returned = 0
    with engine.storage.reading(snapshot=True) as conn:
        for table, spec, projection, rows in plans:
            found = responses.setdefault(table.name, [])
            units = 0.0
            for position, (_key, row) in enumerate(rows):
                item, size = read_row(conn, table, row)
                if returned + size > MAX_BATCH_GET_BYTES:  # the response is full: the rest is for a retry
                    left = {k: v for k, v in spec.items() if k != "Keys"}
                    unprocessed[table.name] = {**left, "Keys": [k for k, _ in rows[position:]]}
                    break
                # a missing item costs a read of the smallest item, as a GetItem of one does (Local bills 0)
                units += read_units(max(size, 1), bool(spec.get("ConsistentRead")))
                if item is not None:
                    returned += size
                    found.append(projection.apply(item) if projection is not None else item)
            if mode != "NONE":
                c = Consumed(table)
                c.table_units = units
                response = c.response(mode)
                assert response is not None  # (mode is not NONE)
                consumed.append(response)
    out: dict[str, Any] = {"Responses": responses, "UnprocessedKeys": unprocessed}
    if mode != "NONE":
        out["ConsumedCapacity"] = consumed
    return out
