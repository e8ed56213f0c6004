"""Unique fields across the fleet: a pushed item claims its ``_unique#`` sentinels in the cloud in the same
transaction as the item (and releases those of the values it no longer has); a pulled item brings its
sentinels to the device. A claim the cloud refuses (another item holds the value) is a refused change."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..clock import DELETED_ATTR, VERSION_ATTR
from .records import error_code, key_text, version_of

if TYPE_CHECKING:
    from ..model.syncmeta import SyncPlan
    from .cloud import CloudContext
    from .core import Sync


class Refused(Exception):
    """The cloud refused the transaction for what it holds: pushing it again unchanged cannot succeed."""


class Taken(Refused):
    """A unique value the pushed item claims is held by another item in the cloud."""


def has_unique(plan: SyncPlan, model_name: str) -> bool:
    entity = plan.table.model_for(model_name)
    return entity is not None and bool(entity.spec.unique_fields)


def sentinels(plan: SyncPlan, key_names: list[str], item: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    """The sentinels a live item (wire format) holds, by key text (none for no item or a tombstone)."""
    if not item or (item.get(DELETED_ATTR) or {}).get("BOOL"):
        return {}
    kind = (item.get(plan.type_field) or {}).get("S")
    entity = plan.table.model_for(kind)
    if entity is None:
        return {}
    return {key_text(s, key_names): s for s in entity.sentinel_items(item)}


def transact_put(
    ctx: CloudContext,
    cloud_item: dict[str, Any],
    current: dict[str, Any] | None,
    pushed: dict[str, Any] | None,
) -> bool:
    """Write ``cloud_item`` over ``current`` (the cloud item read: the write is conditioned on it being still
    there, unchanged) with the sentinels of ``pushed`` (the device item; None for a delete) claimed and those
    of ``current`` it no longer holds released, in one transaction. False when the item changed since it was
    read; :class:`Taken` naming the sentinel when a value is another item's."""
    held = sentinels(ctx.plan, ctx.key_names, current)
    claims = sentinels(ctx.plan, ctx.key_names, pushed)
    key_name = ctx.key_names[0]
    if current is None:
        names, condition, values = {"#k": key_name}, "attribute_not_exists(#k)", None
    elif version_of(current) is None:
        names = {"#k": key_name, "#v": VERSION_ATTR}
        condition, values = "attribute_exists(#k) AND attribute_not_exists(#v)", None
    else:
        names = {"#v": VERSION_ATTR}
        condition, values = "#v = :held", {":held": {"S": version_of(current)}}
    put: dict[str, Any] = {
        "TableName": ctx.table,
        "Item": cloud_item,
        "ConditionExpression": condition,
        "ExpressionAttributeNames": names,
    }
    if values:
        put["ExpressionAttributeValues"] = values
    claimed = [s for k, s in claims.items() if k not in held]
    actions: list[dict[str, Any]] = [{"Put": put}]
    actions += [
        {
            "Put": {
                "TableName": ctx.table,
                "Item": s,
                "ConditionExpression": "attribute_not_exists(#k)",
                "ExpressionAttributeNames": {"#k": key_name},
            }
        }
        for s in claimed
    ]
    actions += [
        {"Delete": {"TableName": ctx.table, "Key": {n: s[n] for n in ctx.key_names}}}
        for k, s in held.items()
        if k not in claims
    ]
    try:
        ctx.call("transact_write_items", TransactItems=actions)
    except Exception as error:
        if error_code(error) != "TransactionCanceledException":
            raise
        cancelled = (getattr(error, "response", None) or {}).get("CancellationReasons") or []
        reasons = [r.get("Code") for r in cancelled]
        taken = [s for s, code in zip(claimed, reasons[1:], strict=False) if code == "ConditionalCheckFailed"]
        if taken:
            value = taken[0][key_name].get("S", "")
            raise Taken(f"unique value already held by another item in the cloud: {value}") from error
        invalid = [r for r in cancelled if r.get("Code") == "ValidationError"]
        if invalid:
            raise Refused(f"ValidationException: {invalid[0].get('Message') or 'invalid item'}") from error
        return False  # the item moved since it was read, or a concurrent transaction: read again
    return True


Before = dict[str, tuple[dict[str, Any], dict[str, Any] | None]]


def local_before(sync: Sync, changes: Iterable[dict[str, Any]]) -> Before:
    """The device's items (key and item, by key text) that pulled ``changes`` of models with unique fields may
    replace."""
    before: Before = {}
    for change in changes:
        item = change.get("Item")
        if item is not None:
            model = sync.plan.model_of(item)
            if model is None or not has_unique(sync.plan, model.name):
                continue
            key = {n: item[n] for n in sync.key_names}
        else:
            key = change["Key"]
        local = _local(sync, key)
        if item is None and not sentinels(sync.plan, sync.key_names, local):
            continue  # a delete of an item without unique values
        before[key_text(key, sync.key_names)] = (key, local)
    return before


def settle_local(sync: Sync, before: Before) -> None:
    """After pulled changes were applied: the device's sentinels follow its items (those of values an item no
    longer has go, those of its new values come; not captured: sentinels never sync on their own)."""
    for key, old in before.values():
        now = _local(sync, key)
        if now is not None and version_of(now) == version_of(old):
            continue  # not applied (an older version, or a pending local change won)
        gone, come = sentinels(sync.plan, sync.key_names, old), sentinels(sync.plan, sync.key_names, now)
        for k, s in gone.items():
            if k not in come:
                sync.client.delete_item(TableName=sync.device.name, Key={n: s[n] for n in sync.key_names})
        for k, s in come.items():
            if k not in gone:
                sync.client.put_item(TableName=sync.device.name, Item=s)


def _local(sync: Sync, key: dict[str, Any]) -> dict[str, Any] | None:
    item: dict[str, Any] | None = sync.client.get_item(TableName=sync.device.name, Key=key).get("Item")
    return item
