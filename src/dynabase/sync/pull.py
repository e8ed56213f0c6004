"""The pull half of a sync: each down-synced model's device scope read from the cloud's sync index, from a
checkpoint stored with the changes it covers, and applied without capture (see ``docs/sync.md``)."""

from __future__ import annotations

import json
import threading
from typing import TYPE_CHECKING, Any

from ..clock import SEQ_ATTR, seq_floor, seq_ms
from ..model.syncmeta import ModelSync
from .errors import SyncError
from .records import (
    CHECKPOINT,
    PULLED_AT,
    RESYNC,
    STATE_NEWEST,
    SyncResult,
    key_text,
    pulled_change,
    version_of,
)

if TYPE_CHECKING:
    from .core import Sync

PULL_PAGE = 1000  # items per pulled page at least (each page is applied in one device transaction)
BATCH_GET = 100  # keys per BatchGetItem (DynamoDB's limit)
#: ms before the previous poll that each run-loop poll re-reads: the clocks' tolerance (a change stamped by a
#: corrected clock a little behind the one that stamped the checkpoint); later changes wait for the whole re-read
LATE_MS = 2000


def pull(sync: Sync, stop: threading.Event | None, rescan: bool = True) -> tuple[SyncResult, bool]:
    """Pull every down-synced model's scope; ``rescan=False`` (the run loop's polls): re-read only the last
    :data:`LATE` seconds before the previous poll, and the whole overlap window once per ``overlap`` seconds."""
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
        if not _pull_scope(sync, model, scope, result, stop, rescan):
            return result, False
    return result, True


def _pull_scope(
    sync: Sync, model: ModelSync, scope: str, result: SyncResult, stop: threading.Event | None, rescan: bool
) -> bool:
    state = sync._state()
    checkpoint = state.get(CHECKPOINT + scope)
    pulled_at = state.get(PULLED_AT + scope)  # when the last pull that re-read the whole window began
    started = sync.now_ms()
    polled = sync._polled.get(scope)  # when this process's last complete poll of the scope began
    rescan = rescan or polled is None or pulled_at is None or started - int(pulled_at) >= sync.overlap_ms
    resume = resume_point(state.get(RESYNC + scope))
    full = resume is not None or pulled_at is None or started - int(pulled_at) > sync.tombstone_ttl * 1000
    limit = max(sync.batch_size, PULL_PAGE)
    bound: str | None = None
    start: dict[str, Any] | None = None
    if resume is not None:  # a full resync cut short: go on from the page it reached
        started = resume[0]
        start = resume[1]
    elif checkpoint and pulled_at is not None and not full:
        # A change not pulled yet either sorts after the checkpoint or landed after the previous pull began,
        # stamped at most `overlap` before it (the clocks' tolerance; slow writes are re-stamped).
        # The run loop's polls re-read only the last LATE seconds (a change from a clock a little behind), and
        # the whole window once per `overlap`: from the last whole re-read, so a change landed since is found.
        floor = (
            int(pulled_at) - sync.overlap_ms if rescan else int(polled or 0) - min(LATE_MS, sync.overlap_ms)
        )
        bound = checkpoint if seq_ms(checkpoint) < floor else seq_floor(floor)
    seen: set[str] = set()
    newest = checkpoint or ""
    while True:
        if stop is not None and stop.is_set():
            return False
        page = sync.transport.read_scope(scope, bound, start, limit)
        items = page["Items"]
        changes = [pulled_change(item, sync.key_names) for item in items if version_of(item)]
        for change in changes if full else ():  # the cloud is the reference: it may hold less than it had
            change["Resync"] = True
        for item in items:
            newest = max(newest, item.get(SEQ_ATTR, {}).get("S", ""))
            if full:
                seen.add(key_text(item, sync.key_names))
        last = "LastEvaluatedKey" not in page
        update: dict[str, str | None] = {CHECKPOINT + scope: newest} if newest else {}
        if newest and newest > state.get(STATE_NEWEST, ""):
            update[STATE_NEWEST] = newest
        if full:  # where a cut-short resync goes on from (it removes nothing until its pass is complete)
            after = None if last else page["LastEvaluatedKey"]
            update[RESYNC + scope] = json.dumps({"started": started, "after": after})
        elif last and rescan:
            update[PULLED_AT + scope] = str(started)
        counts = sync._apply(changes, update)
        result.pulled += counts["Applied"]
        result.deletes += counts["Deletes"]
        result.conflicts += counts["Conflicts"]
        if sync.progress:
            sync.progress("pull", result.pulled)
        if last:
            break
        start = page["LastEvaluatedKey"]
    if full:
        _finish_resync(sync, model, scope, seen, started, result)
    sync._polled[scope] = started
    return True


def resume_point(text: str | None) -> tuple[int, dict[str, Any] | None] | None:
    """``(started ms, ExclusiveStartKey or None)`` of a full resync cut short, from the device's state; None
    when there is none (or it is not one: the resync then starts over)."""
    try:
        point: Any = json.loads(text or "null")
        started, after = point["started"], point["after"]
    except (ValueError, TypeError, KeyError):
        return None
    if not isinstance(started, int) or not (after is None or _is_key(after)):
        return None
    return started, after


def _is_key(value: Any) -> bool:
    return isinstance(value, dict) and all(
        isinstance(v, dict) and len(v) == 1 and next(iter(v)) in ("S", "N", "B") for v in value.values()
    )


def _finish_resync(
    sync: Sync, model: ModelSync, scope: str, seen: set[str], started: int, result: SyncResult
) -> None:
    """After a complete pass of a full resync: remove the device's items the cloud proves it no longer holds.
    Those the pass did not see (this run's part of it) are read from the table itself (consistent reads): an
    item missing there is removed, one there (seen by an earlier run of the pass, or landed since) is applied."""
    unseen = [key for key in _local_keys(sync, model, scope) if key_text(key, sync.key_names) not in seen]
    found: list[dict[str, Any]] = []
    for start in range(0, len(unseen), BATCH_GET):
        found += sync.transport.get_items(unseen[start : start + BATCH_GET])
    held = {key_text(item, sync.key_names) for item in found}
    changes = [pulled_change(item, sync.key_names) for item in found if version_of(item)]
    gone = [{"Key": key, "Purge": True} for key in unseen if key_text(key, sync.key_names) not in held]
    counts = sync._apply([*changes, *gone], {PULLED_AT + scope: str(started), RESYNC + scope: None})
    result.pulled += counts["Applied"]
    result.deletes += counts["Deletes"]
    result.conflicts += counts["Conflicts"]


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
