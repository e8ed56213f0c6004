"""The pull half of a sync: each down-synced model's device scope read from the cloud's sync index, from a
checkpoint stored with the changes it covers, and applied without capture (see ``docs/sync.md``)."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from ..clock import SCOPE_ATTR, SEQ_ATTR, seq_floor, seq_ms
from ..model.syncmeta import SYNC_INDEX, ModelSync
from .errors import SyncError
from .records import CHECKPOINT, PULLED_AT, STATE_NEWEST, SyncResult, key_text, pulled_change, version_of

if TYPE_CHECKING:
    from .core import Sync

PULL_PAGE = 1000  # items per pulled page at least (each page is applied in one device transaction)


def pull(sync: Sync, stop: threading.Event | None) -> tuple[SyncResult, bool]:
    result = SyncResult()
    for model in sync.plan.models.values():
        if not model.pulls:
            continue
        if stop is not None and stop.is_set():
            return result, False
        try:
            scope = sync.plan.device_scope(model, sync.device_id)
        except ValueError as error:
            raise SyncError(f"cannot pull {model.name}: {error} (set it in the device table's context)")
        if not _pull_scope(sync, model, scope, result, stop):
            return result, False
    return result, True


def _pull_scope(
    sync: Sync, model: ModelSync, scope: str, result: SyncResult, stop: threading.Event | None
) -> bool:
    state = sync._state()
    checkpoint = state.get(CHECKPOINT + scope)
    pulled_at = state.get(PULLED_AT + scope)
    started = sync.now_ms()
    full = pulled_at is None or started - int(pulled_at) > sync.tombstone_ttl * 1000
    request: dict[str, Any] = {
        "TableName": sync.cloud.name,
        "IndexName": SYNC_INDEX,
        "KeyConditionExpression": "#s = :s",
        "ExpressionAttributeNames": {"#s": SCOPE_ATTR},
        "ExpressionAttributeValues": {":s": {"S": scope}},
        "Limit": max(sync.batch_size, PULL_PAGE),
    }
    if checkpoint and pulled_at is not None and not full:
        # A change not pulled yet either sorts after the checkpoint or landed after the previous pull began,
        # stamped at most `overlap` before it (the clocks' tolerance; slow writes are re-stamped).
        floor = int(pulled_at) - sync.overlap_ms
        bound = checkpoint if seq_ms(checkpoint) < floor else seq_floor(floor)
        request["KeyConditionExpression"] += " AND #q > :q"
        request["ExpressionAttributeNames"]["#q"] = SEQ_ATTR
        request["ExpressionAttributeValues"][":q"] = {"S": bound}
    seen: set[str] = set()
    newest = checkpoint or ""
    while True:
        if stop is not None and stop.is_set():
            return False
        page = sync._cloud("query", **request)
        items = page.get("Items", [])
        changes = [pulled_change(item, sync.key_names) for item in items if version_of(item)]
        for change in changes if full else ():  # the cloud is the reference: it may hold less than it had
            change["Resync"] = True
        for item in items:
            newest = max(newest, item.get(SEQ_ATTR, {}).get("S", ""))
            if full:
                seen.add(key_text(item, sync.key_names))
        last = "LastEvaluatedKey" not in page
        update = {CHECKPOINT + scope: newest} if newest else {}
        if newest and newest > state.get(STATE_NEWEST, ""):
            update[STATE_NEWEST] = newest
        if last and not full:
            update[PULLED_AT + scope] = str(started)
        counts = sync._apply(changes, update)
        result.pulled += counts["Applied"]
        result.deletes += counts["Deletes"]
        result.conflicts += counts["Conflicts"]
        if sync.progress:
            sync.progress("pull", result.pulled)
        if last:
            break
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]
    if full:
        gone = [
            {"Key": key, "Purge": True}
            for key in _local_keys(sync, model, scope)
            if key_text(key, sync.key_names) not in seen
        ]
        counts = sync._apply(gone, {PULLED_AT + scope: str(started)})
        result.deletes += counts["Deletes"]
    return True


def _local_keys(sync: Sync, model: ModelSync, scope: str) -> list[dict[str, Any]]:
    """Keys of the device's items of ``model`` in ``scope``."""
    request: dict[str, Any] = {
        "TableName": sync.device.name,
        "FilterExpression": "#t = :t",
        "ExpressionAttributeNames": {"#t": sync.plan.type_field},
        "ExpressionAttributeValues": {":t": {"S": model.name}},
    }
    keys = []
    while True:
        page = sync.client.scan(**request)
        for item in page.get("Items", []):
            try:
                if model.scope is None or sync.plan.item_scope(model, item) == scope:
                    keys.append({n: item[n] for n in sync.key_names})
            except ValueError:
                continue  # an item without the scope's fields belongs to no device's scope
        if "LastEvaluatedKey" not in page:
            return keys
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]
