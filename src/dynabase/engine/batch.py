"""BatchWriteItem and BatchGetItem."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import ValidationException
from ..types import validate_item
from .capacity import Consumed, check_mode, read_units
from .items import Row, bind_projection, checked_item, placeholders, read_row, write_row

if TYPE_CHECKING:
    from .engine import Engine

MAX_BATCH_WRITE = 25
MAX_BATCH_GET = 100
MAX_BATCH_GET_BYTES = 16 * 1024 * 1024


def _request_items(req: dict, operation: str) -> dict:
    items = req.get("RequestItems")
    if not isinstance(items, dict) or not items:
        raise ValidationException(
            "1 validation error detected: Value '{}' at 'requestItems' failed to satisfy constraint: "
            "Member must have length greater than or equal to 1"
        )
    return items


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
            if not isinstance(write, dict) or len(write) != 1:
                raise ValidationException(
                    "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"
                    if isinstance(write, dict) and len(write) > 1
                    else "1 validation error detected: WriteRequest must contain exactly one of PutRequest or DeleteRequest"
                )
            if "PutRequest" in write:
                item, size = checked_item(table, (write["PutRequest"] or {}).get("Item"))
                row = Row(table, item, what="item")
            elif "DeleteRequest" in write:
                key = validate_item((write["DeleteRequest"] or {}).get("Key") or {})
                row = Row(table, key)
                item, size = None, 0
            else:
                raise ValidationException(
                    "WriteRequest must contain exactly one of PutRequest or DeleteRequest"
                )
            if (row.pk, row.sk) in seen:
                raise ValidationException("Provided list of item keys contains duplicates")
            seen.add((row.pk, row.sk))
            plan.append((table, row, item, size))
    consumed: dict[str, Consumed] = {}
    with engine.storage.write() as conn:
        for table, row, item, size in plan:
            old, old_size = read_row(conn, table, row)
            write_row(engine, conn, table, row, old, item, size)
            if mode != "NONE":
                consumed.setdefault(table.name, Consumed(table)).add_write(old, item, old_size, size)
    out: dict[str, Any] = {"UnprocessedItems": {}}
    if mode != "NONE":
        out["ConsumedCapacity"] = [c.response(mode) for c in consumed.values()]
    return out


def batch_get_item(engine: Engine, req: dict) -> dict:
    mode = check_mode(req.get("ReturnConsumedCapacity"))
    requests = _request_items(req, "BatchGetItem")
    total = sum(len(v.get("Keys") or []) if isinstance(v, dict) else 0 for v in requests.values())
    if total > MAX_BATCH_GET:
        raise ValidationException("Too many items requested for the BatchGetItem call")
    plans = []
    for table_name, spec in requests.items():
        table = engine.catalog.get(table_name)
        keys = spec.get("Keys") or []
        if not keys:
            raise ValidationException(
                "1 validation error detected: Value null at 'requestItems.1.member.keys' failed to satisfy "
                "constraint: Member must have length greater than or equal to 1"
            )
        ph = placeholders(spec)
        projection = bind_projection(spec, ph)
        ph.check_unused()
        rows, seen = [], set()
        for key in keys:
            row = Row(table, validate_item(key))
            if (row.pk, row.sk) in seen:
                raise ValidationException("Provided list of item keys contains duplicates")
            seen.add((row.pk, row.sk))
            rows.append((key, row))
        plans.append((table, spec, projection, rows))
    responses: dict[str, list] = {}
    unprocessed: dict[str, dict] = {}
    consumed: list[dict] = []
    returned = 0
    with engine.storage.read() as conn:
        for table, spec, projection, rows in plans:
            found = responses.setdefault(table.name, [])
            units = 0.0
            for position, (_key, row) in enumerate(rows):
                if returned >= MAX_BATCH_GET_BYTES:
                    left = {k: v for k, v in spec.items() if k != "Keys"}
                    unprocessed[table.name] = {**left, "Keys": [k for k, _ in rows[position:]]}
                    break
                item, size = read_row(conn, table, row)
                units += read_units(size, bool(spec.get("ConsistentRead")))
                if item is not None:
                    returned += size
                    found.append(projection.apply(item) if projection is not None else item)
            if mode != "NONE":
                c = Consumed(table)
                c.table_units = units
                consumed.append(c.response(mode))
    out: dict[str, Any] = {"Responses": responses, "UnprocessedKeys": unprocessed}
    if mode != "NONE":
        out["ConsumedCapacity"] = consumed
    return out
