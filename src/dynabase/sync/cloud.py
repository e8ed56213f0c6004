"""The cloud side of sync as plain functions: the application of one pushed change, and the paged read of a scope.

The device (:class:`~dynabase.sync.Sync`, through its ``direct`` transport) and the hub (:mod:`dynabase.hub`)
call the same functions over a :class:`CloudContext`; each returns data, an :class:`Outcome`, and decides
nothing on the device's behalf: resolvers, acknowledgements, the quarantine stay on the device.

A pushed change is the device's captured change (``Key``, ``Item`` or ``OldItem`` for a delete, ``Version``,
``Base``, ``Fields``) with the condition it needs: ``Condition`` ``"newer"`` (the default: the newer version
wins), ``"base"`` (a model with a resolver: only over the version it was edited on) or ``"over"`` (a merge
the device's resolver produced: exactly over ``Over``, the winner's version).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..clock import DELETED_ATTR, SCOPE_ATTR, SEQ_ATTR, SYNC_ATTRS, VERSION_ATTR, version_parts
from ..model.syncmeta import SYNC_INDEX, ModelSync, SyncPlan
from ..types import MAX_ITEM_SIZE, item_size
from . import unique
from .errors import SyncError
from .records import error_code, version_of

CONDITIONS = ("newer", "base", "over")
_LANDED = object()
_UNIQUE_ATTEMPTS = 3


@dataclass
class CloudContext:
    """What the cloud-side functions need: ``call(method, **request)`` on the cloud client (complete answers
    only), the table and its plan, a clock (the cloud's time, epoch ms), ``stamp()`` a fresh arrival stamp
    that never goes back, the tombstone lifetime (s), and ``slow_ms`` (a write slower is re-stamped).
    ``guard_scope``: a change may not replace an item of another scope (the hub: devices are not trusted)."""

    call: Callable[..., dict[str, Any]]
    table: str
    plan: SyncPlan
    key_names: list[str]
    now_ms: Callable[[], int]
    stamp: Callable[[], str]
    tombstone_ttl: float
    slow_ms: int
    guard_scope: bool = False
    endpoint: str = "the cloud"


@dataclass
class Outcome:
    """What became of one pushed change: ``landed`` (``version``; ``repeat`` when it had landed before;
    ``item`` the written item for an ``over`` merge), ``held`` (a version the condition did not pass is
    there: ``item``, the winner, None when there is none), ``refused`` (``reason``: pushing it again unchanged
    cannot succeed), ``gone`` (an edit older than the expired delete of its item: ``reason``), ``skipped``
    (nothing to do: the delete of an item the cloud never had) or ``retry`` (``reason``: try again later)."""

    kind: str
    version: str | None = None
    item: dict[str, Any] | None = None
    reason: str = ""
    repeat: bool = False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"outcome": self.kind}
        if self.version is not None:
            out["version"] = self.version
        if self.item is not None:
            out["item"] = self.item
        if self.reason:
            out["reason"] = self.reason
        if self.repeat:
            out["repeat"] = True
        return out


def apply_change(ctx: CloudContext, change: dict[str, Any]) -> Outcome:
    """Write one pushed change to the cloud table under its condition (see the module's docstring)."""
    item = change.get("Item")
    source = item if item is not None else change.get("OldItem")
    model = ctx.plan.model_of(source)
    if model is None or source is None:
        return Outcome("refused", reason="not an item of a model that syncs")
    version = change["Version"]
    try:
        scope = ctx.plan.item_scope(model, source)
    except ValueError as error:  # a scope the item cannot render: no device could ever receive it
        if item is None and "Base" not in change:
            return Outcome("skipped")  # the delete of an item the cloud never had (such an item was refused)
        return Outcome("refused", reason=str(error))
    cloud_item = cloud_item_of(ctx, model, item, change["Key"], version, scope)
    size = item_size(cloud_item)
    if size > MAX_ITEM_SIZE:
        return Outcome(
            "refused",
            reason=f"the item with its sync metadata is {size} bytes, above DynamoDB's {MAX_ITEM_SIZE}-byte limit",
        )
    # an update of an item the cloud had (a version to start from) must find it there: if it has gone, a
    # delete's tombstone expired before this device could see it (see _gone)
    revalidate = item is not None and "Base" in change and "Fields" in change
    condition = change.get("Condition") or "newer"
    started = time.monotonic()
    try:
        if condition == "over":
            outcome = _put_over(ctx, model, change, item, cloud_item, scope)
        elif unique.has_unique(ctx.plan, model.name):
            outcome = _put_unique(ctx, change, item, cloud_item, revalidate, scope, condition == "base")
        else:
            guard = _condition(ctx, change, item, revalidate, condition)
            outcome = _put(ctx, change["Key"], cloud_item, scope, guard, missing_ok=revalidate)
    except unique.Refused as refused:  # e.g. another item holds one of its unique values
        return Outcome("refused", reason=str(refused))
    except Exception as error:
        code = error_code(error)
        if code != "ValidationException":
            raise
        message = ((getattr(error, "response", None) or {}).get("Error") or {}).get("Message") or str(error)
        return Outcome("refused", reason=f"{code}: {message}")  # this item, not the endpoint
    if outcome is _LANDED:
        if (time.monotonic() - started) * 1000 > ctx.slow_ms:  # a slow write: its arrival stamp is re-dated
            restamp(ctx, change["Key"], version)
        return Outcome("landed", version, cloud_item if condition == "over" else None)
    current: dict[str, Any] | None = outcome
    if ctx.guard_scope and current is not None and _scope_of(current) not in (None, scope):
        return Outcome("refused", reason="the item belongs to another scope in the cloud")
    if current is not None and version_of(current) == version:  # landed before (a retry after a lost answer)
        restamp(ctx, change["Key"], version)
        return Outcome("landed", version, current if condition == "over" else None, repeat=True)
    if current is None and revalidate:
        return _gone(ctx, change)
    return Outcome("held", item=current)


def _scope_of(item: dict[str, Any]) -> str | None:
    value = item.get(SCOPE_ATTR)
    return value.get("S") if isinstance(value, dict) else None


def _scope_guard(ctx: CloudContext, request: dict[str, Any], scope: str) -> dict[str, Any]:
    """``request`` with its condition narrowed to items of ``scope`` or none (when the context guards)."""
    if not ctx.guard_scope:
        return request
    request["ConditionExpression"] = (
        f"({request['ConditionExpression']}) AND (attribute_not_exists(#gs) OR #gs = :gs)"
    )
    request["ExpressionAttributeNames"] = {**request.get("ExpressionAttributeNames", {}), "#gs": SCOPE_ATTR}
    request["ExpressionAttributeValues"] = {
        **request.get("ExpressionAttributeValues", {}),
        ":gs": {"S": scope},
    }
    return request


def _put(
    ctx: CloudContext,
    key: dict[str, Any],
    cloud_item: dict[str, Any],
    scope: str,
    condition: dict[str, Any],
    missing_ok: bool,
) -> Any:
    """The conditional put of a change: :data:`_LANDED`, or the cloud item that failed the condition (None:
    there is none, when ``missing_ok``; otherwise it was there a moment ago: a retryable SyncError)."""
    request = {
        "TableName": ctx.table,
        "Item": cloud_item,
        "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        **condition,
    }
    try:
        ctx.call("put_item", **_scope_guard(ctx, request, scope))
    except Exception as error:
        if error_code(error) != "ConditionalCheckFailedException":
            raise
        current = (getattr(error, "response", None) or {}).get("Item") or cloud_get(ctx, key)
        if current is None and not missing_ok:  # it failed the condition, so it was there: gone since
            raise SyncError(
                f"{key} changed in the cloud while it was pushed; retrying", retryable=True
            ) from error
        return current
    return _LANDED


def _put_unique(
    ctx: CloudContext,
    change: dict[str, Any],
    item: dict[str, Any] | None,
    cloud_item: dict[str, Any],
    revalidate: bool,
    scope: str,
    on_base: bool,
) -> Any:
    """:func:`_put` for a model with unique fields: the item and its sentinels in one transaction, over the
    cloud item read just before (read again when it moved in between, a few times). The same rule as
    :func:`_condition` decides whether that item stands in the way."""
    current = None
    resolved = item is not None and on_base
    for _ in range(_UNIQUE_ATTEMPTS):
        current = cloud_get(ctx, change["Key"])
        held = version_of(current)
        if current is None and revalidate:
            return current
        if ctx.guard_scope and current is not None and _scope_of(current) not in (None, scope):
            return current
        if held is not None and (held != change.get("Base") if resolved else held >= change["Version"]):
            return current
        if unique.transact_put(ctx, cloud_item, current, item):
            return _LANDED
    return current  # it keeps moving: the change stays pending


def _put_over(
    ctx: CloudContext,
    model: ModelSync,
    change: dict[str, Any],
    item: dict[str, Any] | None,
    cloud_item: dict[str, Any],
    scope: str,
) -> Any:
    """A merge written exactly over the version it merged (``Over``): :data:`_LANDED` or the item there now."""
    over = change.get("Over")
    if unique.has_unique(ctx.plan, model.name):
        current = cloud_get(ctx, change["Key"])
        if version_of(current) != over or current is None:
            return current
        if ctx.guard_scope and _scope_of(current) not in (None, scope):
            return current
        return (
            _LANDED if unique.transact_put(ctx, cloud_item, current, item) else cloud_get(ctx, change["Key"])
        )
    condition = {
        "ConditionExpression": "#v = :c",
        "ExpressionAttributeNames": {"#v": VERSION_ATTR},
        "ExpressionAttributeValues": {":c": {"S": str(over)}},
    }
    return _put(ctx, change["Key"], cloud_item, scope, condition, missing_ok=True)


def _gone(ctx: CloudContext, change: dict[str, Any]) -> Outcome:
    """An update of an item the cloud no longer has, nor its tombstone: it was deleted at least a tombstone
    lifetime ago. An edit made since is newer than that delete: it is pushed (the item comes back, last writer
    wins). An older one lost to the delete (``gone``): never resurrected."""
    edited_ms = version_parts(change["Version"])[0]
    if edited_ms > ctx.now_ms() - ctx.tombstone_ttl * 1000:
        return apply_change(ctx, {k: v for k, v in change.items() if k != "Fields"})
    return Outcome(
        "gone", reason="an edit older than the delete of the item in the cloud (its tombstone has expired)"
    )


def _condition(
    ctx: CloudContext, change: dict[str, Any], item: dict[str, Any] | None, revalidate: bool, condition: str
) -> dict[str, Any]:
    """The push's condition: the newer version wins; an update of an item the cloud had must find it still
    there (``revalidate``: see :func:`_gone`). ``base`` (an edit of a model with a resolver): only over the
    version the edit was made on: any other there (a concurrent change, older or newer) is a conflict for it."""
    names = {"#v": VERSION_ATTR, **({"#k": ctx.key_names[0]} if revalidate else {})}
    absent = (
        "(attribute_exists(#k) AND attribute_not_exists(#v))" if revalidate else "attribute_not_exists(#v)"
    )
    if item is None or condition != "base":
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


def cloud_item_of(
    ctx: CloudContext,
    model: ModelSync,
    item: dict[str, Any] | None,
    key: dict[str, Any],
    version: str,
    scope: str,
) -> dict[str, Any]:
    """The cloud item of a pushed change: the item (or a tombstone) with version, arrival stamp and scope."""
    meta = {VERSION_ATTR: {"S": version}, SEQ_ATTR: {"S": ctx.stamp()}, SCOPE_ATTR: {"S": scope}}
    if item is not None:
        return {**{k: v for k, v in item.items() if k not in SYNC_ATTRS}, **meta}
    expires = int(ctx.now_ms() / 1000 + ctx.tombstone_ttl)
    return {
        **key,
        ctx.plan.type_field: {"S": model.name},
        **meta,
        DELETED_ATTR: {"BOOL": True},
        ctx.plan.ttl_attribute: {"N": str(expires)},
    }


def cloud_get(ctx: CloudContext, key: dict[str, Any]) -> dict[str, Any] | None:
    """The cloud's item at ``key``, None when it has none. The read asks for its consumed capacity, which every
    complete answer carries: one with neither (a body cut on its way, which botocore parses as ``{}`` when no
    checksum came with it) is a transport fault, never "the cloud has no such item"."""
    answer = ctx.call(
        "get_item", TableName=ctx.table, Key=key, ConsistentRead=True, ReturnConsumedCapacity="TOTAL"
    )
    item: dict[str, Any] | None = answer.get("Item")
    if item is None and "ConsumedCapacity" not in answer:
        raise SyncError(
            f"an incomplete answer from {ctx.endpoint} to get_item (no Item, no ConsumedCapacity); retrying",
            retryable=True,
        )
    return item


def restamp(ctx: CloudContext, key: dict[str, Any], version: str) -> None:
    """Give a landed version a fresh arrival stamp, so devices whose checkpoint passed it still pull it (when
    the condition fails, something newer is there: nothing to do)."""
    try:
        ctx.call(
            "update_item",
            TableName=ctx.table,
            Key=key,
            UpdateExpression="SET #q = :q",
            ConditionExpression="#v = :v",
            ExpressionAttributeNames={"#q": SEQ_ATTR, "#v": VERSION_ATTR},
            ExpressionAttributeValues={":q": {"S": ctx.stamp()}, ":v": {"S": version}},
        )
    except Exception as error:
        if error_code(error) != "ConditionalCheckFailedException":
            raise


def read_scope(
    ctx: CloudContext, scope: str, after: str | None, start: dict[str, Any] | None, limit: int
) -> dict[str, Any]:
    """One page of ``scope`` from the sync index, stamps after ``after`` (None: all), from ``start``:
    ``{"Items": [...], "LastEvaluatedKey": ...}`` (no ``LastEvaluatedKey`` on the last page)."""
    request: dict[str, Any] = {
        "TableName": ctx.table,
        "IndexName": SYNC_INDEX,
        "KeyConditionExpression": "#s = :s",
        "ExpressionAttributeNames": {"#s": SCOPE_ATTR},
        "ExpressionAttributeValues": {":s": {"S": scope}},
        "Limit": limit,
    }
    if after:
        request["KeyConditionExpression"] += " AND #q > :q"
        request["ExpressionAttributeNames"]["#q"] = SEQ_ATTR
        request["ExpressionAttributeValues"][":q"] = {"S": after}
    if start:
        request["ExclusiveStartKey"] = start
    page = ctx.call("query", **request)
    out: dict[str, Any] = {"Items": page["Items"]}
    if "LastEvaluatedKey" in page:
        out["LastEvaluatedKey"] = page["LastEvaluatedKey"]
    return out


def get_items(ctx: CloudContext, keys: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The cloud items of ``keys`` (at most 100) that exist, read consistently."""
    items: list[dict[str, Any]] = []
    while keys:
        answer = ctx.call("batch_get_item", RequestItems={ctx.table: {"Keys": keys, "ConsistentRead": True}})
        items += answer["Responses"].get(ctx.table, [])
        left = (answer.get("UnprocessedKeys") or {}).get(ctx.table, {}).get("Keys") or []
        if len(left) >= len(keys):
            raise SyncError(
                f"the endpoint {ctx.endpoint} is busy (no key of a BatchGetItem read)", retryable=True
            )
        keys = left
    return items


__all__ = ["CONDITIONS", "CloudContext", "Outcome", "apply_change", "get_items", "read_scope"]
