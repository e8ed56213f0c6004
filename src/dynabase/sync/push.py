"""The push half of a sync: each captured change of a model that syncs up, written to the cloud as a conditional
put that keeps the newer version; a lost answer, a slow write and a lost conflict handled (see ``docs/sync.md``)."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any

from ..clock import DELETED_ATTR, SCOPE_ATTR, SEQ_ATTR, SYNC_ATTRS, VERSION_ATTR, next_version
from ..model.syncmeta import ModelSync
from .errors import SyncError
from .records import SyncResult, error_code, is_tombstone, pulled_change, version_of
from .resolve import resolve

if TYPE_CHECKING:
    from .core import Sync

#: the cloud keeps a pushed version only over an older one
_CONDITION = "attribute_not_exists(#v) OR #v < :v"


def push(sync: Sync, stop: threading.Event | None) -> SyncResult:
    result = SyncResult()
    after = 0
    while stop is None or not stop.is_set():
        page = sync.client.read_changes(TableName=sync.device.name, Limit=sync.batch_size, AfterSeq=after)
        changes = page["Changes"]
        if not changes:
            break
        _pin(sync, changes)
        acks = []
        for change in changes:
            after = change["Seq"]
            ack = _push_one(sync, change, result)
            if ack is not None:
                acks.append(ack)
        if acks:
            sync.client.ack_changes(
                TableName=sync.device.name, Acks=acks, TombstoneSeconds=sync.tombstone_ttl
            )
        if sync.progress:
            sync.progress("push", result.pushed)
    return result


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


def _push_one(sync: Sync, change: dict[str, Any], result: SyncResult) -> dict[str, Any] | None:
    """Push one change; the ack to send (None when the change was settled otherwise, by a conflict)."""
    item = change.get("Item")
    source = item if item is not None else change.get("OldItem")
    model = sync.plan.model_of(source)
    ack = {"Key": change["Key"], "Seq": change["Seq"]}
    if model is None or not model.pushes or source is None:
        return ack  # not a model that syncs up: nothing to push
    version = change["Version"]
    cloud_item = _cloud_item_of(sync, model, item, source, change["Key"], version)
    stamped = time.monotonic()
    try:
        sync._cloud(
            "put_item",
            TableName=sync.cloud.name,
            Item=cloud_item,
            ExpressionAttributeNames={"#v": VERSION_ATTR},
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
            **_condition(sync, model, change, item),
        )
    except Exception as error:
        if error_code(error) != "ConditionalCheckFailedException":
            raise
        current = (getattr(error, "response", None) or {}).get("Item") or _cloud_get(sync, change["Key"])
        held = version_of(current)
        if held is not None and held == version:  # our own write, landed before (a retry after a lost answer)
            _restamp(sync, change["Key"], version)
            return {**ack, "Version": version}
        return _lost(sync, model, change, item, current, result)
    if time.monotonic() - stamped > sync.overlap_ms / 3000:  # a slow write: its arrival stamp is re-dated
        _restamp(sync, change["Key"], version)
    result.pushed += 1
    result.deletes += item is None
    return {**ack, "Version": version}


def _condition(
    sync: Sync, model: ModelSync, change: dict[str, Any], item: dict[str, Any] | None
) -> dict[str, Any]:
    """The push's condition: the newer version wins. For an edit of a model with a resolver, only over the
    version the edit was made on: any other there (a concurrent change, older or newer) is a conflict for it."""
    if item is None or model.name not in sync.resolvers:
        return {
            "ConditionExpression": _CONDITION,
            "ExpressionAttributeValues": {":v": {"S": change["Version"]}},
        }
    if not change.get("Base"):
        return {"ConditionExpression": "attribute_not_exists(#v)"}
    return {
        "ConditionExpression": "attribute_not_exists(#v) OR #v = :b",
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


def _cloud_get(sync: Sync, key: dict[str, Any]) -> dict[str, Any]:
    """The cloud item whose version failed a push's condition (so it exists: an answer without it was cut)."""
    item: dict[str, Any] | None = sync._cloud(
        "get_item", TableName=sync.cloud.name, Key=key, ConsistentRead=True
    ).get("Item")
    if item is None:
        raise SyncError(
            f"an incomplete answer from {sync.endpoint} to get_item (no Item); retrying", retryable=True
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
            if not _conditional(
                sync,
                "put_item",
                TableName=sync.cloud.name,
                Item=cloud_item,
                ConditionExpression="#v = :c",
                ExpressionAttributeNames={"#v": VERSION_ATTR},
                ExpressionAttributeValues={":c": {"S": version_of(current)}},
            ):
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
