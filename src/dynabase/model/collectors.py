"""Batch and transaction collectors.

As in OneTable, a batch or a transaction is a plain dict passed to model calls (``batch={}`` /
``transaction={}``): each call adds its request to it instead of running, and
``table.batch_get`` / ``table.batch_write`` / ``table.transact`` run what was collected.

Batches are split into DynamoDB's request limits (100 keys per BatchGetItem, 25 requests per
BatchWriteItem); ``UnprocessedKeys`` / ``UnprocessedItems`` are retried with exponential backoff
(10 ms, 20 ms, 40 ms, ... up to ``retries`` times, 12 by default).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .errors import OneTableError
from .model import UNIQUE_MODEL, normalize_params

if TYPE_CHECKING:  # pragma: no cover
    from .table import Table

BATCH_GET_MAX = 100
BATCH_WRITE_MAX = 25
DEFAULT_RETRIES = 12
BASE_DELAY = 0.01
MAX_DELAY = 2.0


def _sleep(table: Table, attempt: int) -> None:
    table.sleep(min(MAX_DELAY, BASE_DELAY * (2**attempt)))


def batch_get(table: Table, batch: dict[str, Any], params: dict[str, Any]) -> Any:
    """Run the gets collected in ``batch``; returns the parsed items (any order), or decoded raw items with
    ``parse=False``.  ``consistent=True`` for strongly consistent reads; ``fields=[...]`` (attribute names)
    projects."""
    p = normalize_params(params, {"parse": True})
    requests = batch.get("RequestItems") or {}
    if not requests:
        return []
    retries = p.get("retries", DEFAULT_RETRIES)
    # flatten to (table name, key) so requests can be split at 100 keys
    pending: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
    for table_name, entry in requests.items():
        options = {k: v for k, v in entry.items() if k != "Keys"}
        if p.get("consistent"):
            options["ConsistentRead"] = True
        fields = p.get("fields")
        if fields:
            names = list(dict.fromkeys([*fields, table.params.type_field]))
            options["ProjectionExpression"] = ", ".join(f"#_{i}" for i in range(len(names)))
            options["ExpressionAttributeNames"] = {f"#_{i}": name for i, name in enumerate(names)}
        for key in entry.get("Keys", []):
            pending.append((table_name, key, options))
    found: list[dict[str, Any]] = []
    while pending:
        chunk, pending = pending[:BATCH_GET_MAX], pending[BATCH_GET_MAX:]
        request: dict[str, Any] = {}
        for table_name, key, options in chunk:
            entry = request.setdefault(table_name, {**options, "Keys": []})
            entry["Keys"].append(key)
        attempt = 0
        while request:
            response = table.execute("_Generic", "batchGet", "batch_get_item", {"RequestItems": request}, p)
            if response is None:
                return [] if p.get("parse") else {}
            for items in (response.get("Responses") or {}).values():
                found.extend(items)
            request = response.get("UnprocessedKeys") or {}
            if request:
                if p.get("reprocess") is False:
                    batch["RequestItems"] = request
                    return False
                if attempt >= retries:
                    raise OneTableError(
                        "Too many unprocessed keys in batch get", code="BatchError", unprocessed=request
                    )
                _sleep(table, attempt)
                attempt += 1
    decoded = table.decoder.decode_items(found)
    if not p.get("parse"):
        return decoded
    return [read for read in (read_found(table, item, p) for item in decoded) if read is not None]


def batch_write(table: Table, batch: dict[str, Any], params: dict[str, Any]) -> bool:
    """Run the puts/deletes collected in ``batch``; True when everything was written (False with
    ``reprocess=False`` and unprocessed items left, which are put back into ``batch``)."""
    p = normalize_params(params)
    requests = batch.get("RequestItems") or {}
    if not requests:
        return True
    retries = p.get("retries", DEFAULT_RETRIES)
    pending = [(name, request) for name, items in requests.items() for request in items]
    while pending:
        chunk, pending = pending[:BATCH_WRITE_MAX], pending[BATCH_WRITE_MAX:]
        request: dict[str, list[Any]] = {}
        for name, item in chunk:
            request.setdefault(name, []).append(item)
        attempt = 0
        while request:
            response = table.execute(
                "_Generic", "batchWrite", "batch_write_item", {"RequestItems": request}, p
            )
            if response is None:
                return False
            request = response.get("UnprocessedItems") or {}
            if request:
                if p.get("reprocess") is False:
                    left: dict[str, list[Any]] = dict(request)
                    for name, item in pending:
                        left.setdefault(name, []).append(item)
                    batch["RequestItems"] = left
                    return False
                if attempt >= retries:
                    raise OneTableError(
                        "Too many unprocessed items in batch write", code="BatchError", unprocessed=request
                    )
                _sleep(table, attempt)
                attempt += 1
    return True


def transact(table: Table, op: str, transaction: dict[str, Any], params: dict[str, Any]) -> Any:
    """Run a collected transaction: ``op`` is ``"write"`` or ``"get"``.  A get returns the parsed items that
    were found (``parse=False``: decoded raw items, ``None`` for a missing one)."""
    p = normalize_params(params, {"parse": True})
    if op not in ("write", "get"):
        raise OneTableError(f'Unknown transaction operation "{op}" (want "write" or "get")', code="ArgError")
    items = transaction.get("TransactItems") or []
    if p.get("execute") is False:
        return transaction
    if not items:
        return [] if op == "get" else True
    if op == "write":
        request: dict[str, Any] = {"TransactItems": items}
        if p.get("token"):
            request["ClientRequestToken"] = p["token"]
        table.execute("_Generic", "transactWrite", "transact_write_items", request, p)
        return True
    response = table.execute("_Generic", "transactGet", "transact_get_items", {"TransactItems": items}, p)
    if response is None:
        return []
    out: list[Any] = []
    for entry in response.get("Responses") or []:
        raw = entry.get("Item")
        if not raw:
            if not p.get("parse"):
                out.append(None)
            continue
        item = table.decoder.decode_item(raw)
        if not p.get("parse"):
            out.append(item)
            continue
        read = read_found(table, item, p)
        if read is not None:
            out.append(read)
    return out


def read_found(table: Table, item: dict[str, Any], params: Mapping[str, Any]) -> Any:
    """A decoded item a get found, read by the model its type attribute names; None for a unique field's
    sentinel or an item of no model of the table."""
    kind = item.get(table.params.type_field)
    if kind == UNIQUE_MODEL:
        return None
    model = table.model_for(kind)
    if model is None:
        return None
    return model._transform_read("get", item, {}, params)


__all__ = ["batch_get", "batch_write", "read_found", "transact"]
