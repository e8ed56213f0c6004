"""The push half of a sync: each captured change of a model that syncs up, written to the cloud as a conditional
put that keeps the newer version (with its unique values' sentinels, in one transaction, for a model that has
them); a lost answer, a slow write and a lost conflict handled; a change the cloud refuses set aside in the
quarantine; device writes that must not be pushed (a ``down`` model's, an edit older than a swept delete)
undone and reported (see ``docs/sync.md``)."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..clock import DELETED_ATTR, SCOPE_ATTR, SEQ_ATTR, SYNC_ATTRS, VERSION_ATTR, next_version, version_parts
from ..model.syncmeta import ModelSync
from ..types import MAX_ITEM_SIZE, item_size
from . import unique
from .errors import SyncError
from .records import SyncResult, error_code, is_tombstone, pulled_change, version_of
from .resolve import resolve

if TYPE_CHECKING:
    from .core import Sync

log = logging.getLogger("dynabase.sync")
#: the cloud keeps a pushed version only over an older one
_CONDITION = "attribute_not_exists(#v) OR #v < :v"
_LANDED = object()
_UNIQUE_ATTEMPTS = 3


@dataclass
class _Round:
    """What one page of changes settles besides acknowledgements."""

    acks: list[dict[str, Any]] = field(default_factory=list)
    refused: list[dict[str, Any]] = field(default_factory=list)
    discards: list[dict[str, Any]] = field(default_factory=list)


def push(sync: Sync, stop: threading.Event | None) -> SyncResult:
    result = SyncResult()
    after = 0
    while stop is None or not stop.is_set():
        page = sync.client.read_changes(TableName=sync.device.name, Limit=sync.batch_size, AfterSeq=after)
        changes = page["Changes"]
        if not changes:
            break
        _pin(sync, changes)
        batch = _Round()
        for change in changes:
            after = change["Seq"]
            ack = _push_one(sync, change, result, batch)
            if ack is not None:
                batch.acks.append(ack)
        _settle(sync, batch, result)
        if sync.progress:
            sync.progress("push", result.pushed)
    return result


def _settle(sync: Sync, batch: _Round, result: SyncResult) -> None:
    """Acknowledge what landed, set aside what the cloud refused, undo what must not be pushed."""
    name = sync.device.name
    if batch.acks:
        sync.client.ack_changes(TableName=name, Acks=batch.acks, TombstoneSeconds=sync.tombstone_ttl)
    if batch.refused:
        result.quarantined += sync.client.quarantine_changes(TableName=name, Entries=batch.refused)[
            "Quarantined"
        ]
        for entry in batch.refused:
            log.warning("sync: change of %s refused, quarantined: %s", entry["Key"], entry["Reason"])
    if batch.discards:
        result.discarded += sync.client.discard_changes(TableName=name, Discards=batch.discards)["Discarded"]
        for entry in batch.discards:
            log.warning("sync: device write of %s discarded: %s", entry["Key"], entry["Why"])


def _pin(sync: Sync, changes: list[dict[str, Any]]) -> None:
    """Give each change its version once (a retry after a lost answer must send the same one)."""
    pins = []
    for change in changes:
        if "Version" not in change:
            source = change.get("Item") or change.get("OldItem")
            model = sync.plan.model_of(source)
            if model is None or not model.pushes:
                continue
            change["Version"] = next_version(sync.stamp_ms(change["At"]), sync.device_id, change.get("Base"))
            pins.append({"Key": change["Key"], "Seq": change["Seq"], "Version": change["Version"]})
    if pins:
        sync.client.pin_versions(TableName=sync.device.name, Pins=pins)


def _push_one(sync: Sync, change: dict[str, Any], result: SyncResult, batch: _Round) -> dict[str, Any] | None:
    """Push one change; the ack to send (None when the change was settled otherwise: a conflict, a refusal,
    a discard)."""
    item = change.get("Item")
    source = item if item is not None else change.get("OldItem")
    model = sync.plan.model_of(source)
    ack = {"Key": change["Key"], "Seq": change["Seq"]}
    if model is None or source is None:
        return ack  # not a model that syncs: nothing to push
    if not model.pushes:  # the cloud owns it: the device's write is undone
        why = f"process.{model.name}.sync is down: the cloud owns its items"
        batch.discards.append({**ack, "Item": _cloud_copy(sync, model, change["Key"]), "Why": why})
        return None
    version = change["Version"]
    try:
        cloud_item = _cloud_item_of(sync, model, item, source, change["Key"], version)
    except ValueError as error:  # a scope the item cannot render: no device could ever receive it
        if item is None and "Base" not in change:
            return ack  # the delete of an item the cloud never had (such an item was refused): nothing to do
        batch.refused.append({**ack, "Reason": str(error)})
        return None
    size = item_size(cloud_item)
    if size > MAX_ITEM_SIZE:
        reason = (
            f"the item with its sync metadata is {size} bytes, above DynamoDB's {MAX_ITEM_SIZE}-byte limit"
        )
        batch.refused.append({**ack, "Reason": reason})
        return None
    # an update of an item the cloud had (a version to start from) must find it there: if it has gone, a
    # delete's tombstone expired before this device could see it (see _gone)
    revalidate = item is not None and "Base" in change and "Fields" in change
    stamped = time.monotonic()
    try:
        if unique.has_unique(sync, model.name):
            outcome = _put_unique(sync, model, change, item, cloud_item, revalidate)
        else:
            outcome = _put(sync, model, change, item, cloud_item, revalidate)
    except unique.Refused as refused:  # e.g. another item holds one of its unique values: set it aside
        batch.refused.append({**ack, "Reason": str(refused)})
        return None
    except Exception as error:
        code = error_code(error)
        if code != "ValidationException":
            raise
        # this item, not the endpoint: set it aside, go on with the rest
        message = ((getattr(error, "response", None) or {}).get("Error") or {}).get("Message") or str(error)
        batch.refused.append({**ack, "Reason": f"{code}: {message}"})
        return None
    if outcome is not _LANDED:  # the cloud item that stood in the way (None: there is none)
        current = outcome
        held = version_of(current)
        if held is not None and held == version:  # our own write, landed before (a retry after a lost answer)
            _restamp(sync, change["Key"], version)
            return {**ack, "Version": version}
        if current is None and revalidate:
            return _gone(sync, model, change, result, batch)
        try:
            return _lost(sync, model, change, item, current, result)
        except unique.Refused as refused:  # what a resolver merged claims another item's value
            batch.refused.append({**ack, "Reason": str(refused)})
            return None
    if time.monotonic() - stamped > sync.overlap_ms / 3000:  # a slow write: its arrival stamp is re-dated
        _restamp(sync, change["Key"], version)
    result.pushed += 1
    result.deletes += item is None
    return {**ack, "Version": version}


def _put(
    sync: Sync,
    model: ModelSync,
    change: dict[str, Any],
    item: dict[str, Any] | None,
    cloud_item: dict[str, Any],
    revalidate: bool,
) -> Any:
    """The conditional put of a change: :data:`_LANDED`, or the cloud item that failed the condition."""
    try:
        sync._cloud(
            "put_item",
            TableName=sync.cloud.name,
            Item=cloud_item,
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
            **_condition(sync, model, change, item, revalidate),
        )
    except Exception as error:
        if error_code(error) != "ConditionalCheckFailedException":
            raise
        current = (getattr(error, "response", None) or {}).get("Item") or _cloud_get(sync, change["Key"])
        if current is None and not revalidate:  # it failed the condition, so it was there: gone since
            raise SyncError(
                f"{change['Key']} changed in the cloud while it was pushed; retrying", retryable=True
            )
        return current
    return _LANDED


def _put_unique(
    sync: Sync,
    model: ModelSync,
    change: dict[str, Any],
    item: dict[str, Any] | None,
    cloud_item: dict[str, Any],
    revalidate: bool,
) -> Any:
    """:func:`_put` for a model with unique fields: the item and its sentinels in one transaction, over the
    cloud item read just before (read again when it moved in between, a few times). The same rule as
    :func:`_condition` decides whether that item stands in the way."""
    current = None
    resolved = item is not None and model.name in sync.resolvers
    for _ in range(_UNIQUE_ATTEMPTS):
        current = _cloud_get(sync, change["Key"])
        held = version_of(current)
        if current is None and revalidate:
            return current
        if held is not None and (held != change.get("Base") if resolved else held >= change["Version"]):
            return current
        if unique.transact_put(sync, cloud_item, current, item):
            return _LANDED
    return current  # it keeps moving: the change stays pending (see _lost)


def _gone(
    sync: Sync, model: ModelSync, change: dict[str, Any], result: SyncResult, batch: _Round
) -> dict[str, Any] | None:
    """An update of an item the cloud no longer has, nor its tombstone: it was deleted at least a tombstone
    lifetime ago. An edit made since is newer than that delete: it is pushed (the item comes back, last writer
    wins). An older one lost to the delete: it is discarded (a device that pulls the model deletes its copy;
    an ``up`` model's device keeps its own, as for any lost conflict) and reported, never resurrected."""
    edited_ms = version_parts(change["Version"])[0]
    if edited_ms > sync.now_ms() - sync.tombstone_ttl * 1000:
        return _push_one(sync, {k: v for k, v in change.items() if k != "Fields"}, result, batch)
    why = "an edit older than the delete of the item in the cloud (its tombstone has expired)"
    if model.pulls:
        batch.discards.append({"Key": change["Key"], "Seq": change["Seq"], "Why": why})
        return None
    result.discarded += 1
    log.warning("sync: device change of %s discarded: %s", change["Key"], why)
    return {"Key": change["Key"], "Seq": change["Seq"]}


def _cloud_copy(sync: Sync, model: ModelSync, key: dict[str, Any]) -> dict[str, Any] | None:
    """The cloud's live item at ``key`` when it is in this device's scope (what the device should hold)."""
    current = _cloud_get(sync, key)
    if current is None or current.get(DELETED_ATTR) or version_of(current) is None:
        return None
    try:
        mine = sync.plan.item_scope(model, current) == sync.plan.device_scope(model, sync.device_id)
    except ValueError:
        return None
    return current if mine else None


def _condition(
    sync: Sync, model: ModelSync, change: dict[str, Any], item: dict[str, Any] | None, revalidate: bool
) -> dict[str, Any]:
    """The push's condition: the newer version wins; an update of an item the cloud had must find it still
    there (``revalidate``: see :func:`_gone`). For an edit of a model with a resolver, only over the version
    the edit was made on: any other there (a concurrent change, older or newer) is a conflict for it."""
    names = {"#v": VERSION_ATTR, **({"#k": sync.key_names[0]} if revalidate else {})}
    absent = (
        "(attribute_exists(#k) AND attribute_not_exists(#v))" if revalidate else "attribute_not_exists(#v)"
    )
    if item is None or model.name not in sync.resolvers:
        return {
            "ConditionExpression": f"{absent} OR #v < :v",
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": {":v": {"S": change["Version"]}},
        }
    if not change.get("Base"):
        return {"ConditionExpression": absent, "ExpressionAttributeNames": names}
    return {
        "ConditionExpression": f"{absent} OR #v = :b",
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": {":b": {"S": change["Base"]}},
    }


def _cloud_item_of(
    sync: Sync,
    model: ModelSync,
    item: dict[str, Any] | None,
    source: dict[str, Any],
    key: dict[str, Any],
    version: str,
) -> dict[str, Any]:
    scope = sync.plan.item_scope(model, source)
    meta = {
        VERSION_ATTR: {"S": version},
        SEQ_ATTR: {"S": sync._arrival_seq()},
        SCOPE_ATTR: {"S": scope},
    }
    if item is not None:
        return {**{k: v for k, v in item.items() if k not in SYNC_ATTRS}, **meta}
    expires = int(sync.clock() - sync.offset_ms / 1000 + sync.tombstone_ttl)
    return {
        **key,
        sync.plan.type_field: {"S": model.name},
        **meta,
        DELETED_ATTR: {"BOOL": True},
        sync.plan.ttl_attribute: {"N": str(expires)},
    }


def _cloud_get(sync: Sync, key: dict[str, Any]) -> dict[str, Any] | None:
    """The cloud's item at ``key``, None when it has none. The read asks for its consumed capacity, which every
    complete answer carries: one with neither (a body cut on its way, which botocore parses as ``{}`` when no
    checksum came with it) is a transport fault, never "the cloud has no such item"."""
    answer = sync._cloud(
        "get_item", TableName=sync.cloud.name, Key=key, ConsistentRead=True, ReturnConsumedCapacity="TOTAL"
    )
    item: dict[str, Any] | None = answer.get("Item")
    if item is None and "ConsumedCapacity" not in answer:
        raise SyncError(
            f"an incomplete answer from {sync.endpoint} to get_item (no Item, no ConsumedCapacity); retrying",
            retryable=True,
        )
    return item


def _restamp(sync: Sync, key: dict[str, Any], version: str) -> None:
    """Give a landed version a fresh arrival stamp, so devices whose checkpoint passed it still pull it."""
    _conditional(
        sync,  # when it fails, something newer is there: nothing to do
        "update_item",
        TableName=sync.cloud.name,
        Key=key,
        UpdateExpression="SET #q = :q",
        ConditionExpression="#v = :v",
        ExpressionAttributeNames={"#q": SEQ_ATTR, "#v": VERSION_ATTR},
        ExpressionAttributeValues={
            ":q": {"S": sync._arrival_seq()},
            ":v": {"S": version},
        },
    )


def _conditional(sync: Sync, method: str, **request: Any) -> bool:
    """A conditional cloud write: False when its condition failed."""
    try:
        sync._cloud(method, **request)
    except Exception as error:
        if error_code(error) != "ConditionalCheckFailedException":
            raise
        return False
    return True


def _lost(
    sync: Sync,
    model: ModelSync,
    change: dict[str, Any],
    item: dict[str, Any] | None,
    current: dict[str, Any] | None,
    result: SyncResult,
) -> dict[str, Any] | None:
    """The cloud holds a newer version, or (a model with a resolver) one the change was not made on: resolve
    (a configured resolver; not for a delete on either side), else the newer version wins whole."""
    resolver = sync.resolvers.get(model.name)
    merged = None
    if resolver is not None and item is not None and current is not None and not is_tombstone(current):
        keep = [*sync.key_names, sync.plan.type_field]
        merged = resolve(resolver, model.name, item, current, change.get("Fields"), keep)
        if merged is not None:
            above = max(version_of(current) or "", change["Version"])  # above both sides' versions
            version = next_version(sync.now_ms(), sync.device_id, above)
            cloud_item = _cloud_item_of(sync, model, merged, merged, change["Key"], version)
            if unique.has_unique(sync, model.name):
                written = unique.transact_put(sync, cloud_item, current, merged)  # (Refused: above)
            else:
                written = _conditional(
                    sync,
                    "put_item",
                    TableName=sync.cloud.name,
                    Item=cloud_item,
                    ConditionExpression="#v = :c",
                    ExpressionAttributeNames={"#v": VERSION_ATTR},
                    ExpressionAttributeValues={":c": {"S": version_of(current)}},
                )
            if not written:
                return None  # the cloud moved again: the change stays pending, the next round retries
            current = cloud_item
            result.pushed += 1
    held = version_of(current)
    if merged is None and (held is None or held < change["Version"]):  # a resolver's condition failed, on an
        # older version: last writer wins, and the local change is the later one
        if not _conditional(
            sync,
            "put_item",
            TableName=sync.cloud.name,
            Item=_cloud_item_of(sync, model, item, current or {}, change["Key"], change["Version"]),
            ConditionExpression=_CONDITION,
            ExpressionAttributeNames={"#v": VERSION_ATTR},
            ExpressionAttributeValues={":v": {"S": change["Version"]}},
        ):
            return None  # the cloud moved again: the change stays pending, the next round retries
        result.pushed += 1
        return {"Key": change["Key"], "Seq": change["Seq"], "Version": change["Version"]}
    if current is not None and model.pulls:  # bring the winner down now (drops the pending change)
        counts = sync._apply([pulled_change(current, sync.key_names)], {})
        result.conflicts += counts["Conflicts"]
        return None
    result.conflicts += 1
    return {"Key": change["Key"], "Seq": change["Seq"]}  # an up-only model: the local change just goes
