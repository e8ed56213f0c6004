"""The device's half of a push: each captured change of a model that syncs up, pinned to its version and sent
through the transport (which applies it with :func:`.cloud.apply_change`); the outcomes settled here: landed
changes acknowledged, refused ones set aside in the quarantine, a lost conflict resolved (the device's
resolvers) or the winner applied, device writes that must not be pushed (a ``down`` model's, an edit older
than a swept delete) undone and reported (see ``docs/sync.md``)."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..clock import DELETED_ATTR, next_version
from ..model.syncmeta import ModelSync
from .cloud import Outcome
from .errors import SyncError
from .records import SyncResult, is_tombstone, pulled_change, version_of
from .resolve import resolve

if TYPE_CHECKING:
    from .core import Sync

log = logging.getLogger("dynabase.sync")


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
        outgoing: list[tuple[dict[str, Any], ModelSync]] = []
        for change in changes:
            after = change["Seq"]
            model = _pushable(sync, change, batch)
            if model is not None:
                outgoing.append((change, model))
        outcomes = sync.transport.push([_pushed(sync, change, model) for change, model in outgoing])
        try:
            for (change, model), outcome in zip(outgoing, outcomes, strict=True):
                ack = _settle_one(sync, model, change, outcome, result, batch)
                if ack is not None:
                    batch.acks.append(ack)
        finally:
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


def _pushable(sync: Sync, change: dict[str, Any], batch: _Round) -> ModelSync | None:
    """The model of a change to push; None when the change was settled here (not a synced model: acked; a
    ``down`` model: the device's write is undone)."""
    source = change.get("Item") or change.get("OldItem")
    model = sync.plan.model_of(source)
    ack = {"Key": change["Key"], "Seq": change["Seq"]}
    if model is None or source is None:
        batch.acks.append(ack)  # not a model that syncs: nothing to push
        return None
    if not model.pushes:  # the cloud owns it: the device's write is undone
        why = f"process.{model.name}.sync is down: the cloud owns its items"
        batch.discards.append({**ack, "Item": _cloud_copy(sync, model, change["Key"]), "Why": why})
        return None
    return model


def _pushed(sync: Sync, change: dict[str, Any], model: ModelSync) -> dict[str, Any]:
    """A captured change as it is pushed: with the condition it needs (``base`` for an edit of a model with a
    resolver: the device resolves a conflict itself)."""
    pushed: dict[str, Any] = {
        k: change[k] for k in ("Key", "Item", "OldItem", "Version", "Base", "Fields") if k in change
    }
    resolved = change.get("Item") is not None and model.name in sync.resolvers
    pushed["Condition"] = "base" if resolved else "newer"
    return pushed


def _settle_one(
    sync: Sync,
    model: ModelSync,
    change: dict[str, Any],
    outcome: Outcome,
    result: SyncResult,
    batch: _Round,
) -> dict[str, Any] | None:
    """What the device does with one change's outcome; the ack to send (None when the change was settled
    otherwise: a conflict, a refusal, a discard, or left pending)."""
    ack = {"Key": change["Key"], "Seq": change["Seq"]}
    if outcome.kind == "skipped":
        return ack
    if outcome.kind == "refused":
        batch.refused.append({**ack, "Reason": outcome.reason})
        return None
    if outcome.kind == "landed":
        if not outcome.repeat:
            result.pushed += 1
            result.deletes += change.get("Item") is None
        return {**ack, "Version": change["Version"]}
    if outcome.kind == "gone":
        if model.pulls:
            batch.discards.append({**ack, "Why": outcome.reason})
            return None
        result.discarded += 1
        log.warning("sync: device change of %s discarded: %s", change["Key"], outcome.reason)
        return ack
    if outcome.kind == "held":
        return _lost(sync, model, change, outcome.item, result, batch)
    raise SyncError(f"{sync.transport.endpoint}: {outcome.reason or outcome.kind}; retrying", retryable=True)


def _cloud_copy(sync: Sync, model: ModelSync, key: dict[str, Any]) -> dict[str, Any] | None:
    """The cloud's live item at ``key`` when it is in this device's scope (what the device should hold)."""
    found = sync.transport.get_items([key])
    current = found[0] if found else None
    if current is None or current.get(DELETED_ATTR) or version_of(current) is None:
        return None
    try:
        mine = sync.plan.item_scope(model, current) == sync.plan.device_scope(model, sync.device_id)
    except ValueError:
        return None
    return current if mine else None


def _lost(
    sync: Sync,
    model: ModelSync,
    change: dict[str, Any],
    current: dict[str, Any] | None,
    result: SyncResult,
    batch: _Round,
) -> dict[str, Any] | None:
    """The cloud holds a newer version, or (a model with a resolver) one the change was not made on: resolve
    (a configured resolver; not for a delete on either side), else the newer version wins whole."""
    ack = {"Key": change["Key"], "Seq": change["Seq"]}
    item = change.get("Item")
    resolver = sync.resolvers.get(model.name)
    merged = None
    if resolver is not None and item is not None and current is not None and not is_tombstone(current):
        keep = [*sync.key_names, sync.plan.type_field]
        merged = resolve(resolver, model.name, item, current, change.get("Fields"), keep)
        if merged is not None:
            above = max(version_of(current) or "", change["Version"])  # above both sides' versions
            over = {
                "Key": change["Key"],
                "Item": merged,
                "Version": next_version(sync.now_ms(), sync.device_id, above),
                "Condition": "over",
                "Over": version_of(current),
            }
            outcome = sync.transport.push([over])[0]
            if outcome.kind == "refused":  # what the resolver merged claims another item's value
                batch.refused.append({**ack, "Reason": outcome.reason})
                return None
            if outcome.kind != "landed" or outcome.item is None:
                return None  # the cloud moved again: the change stays pending, the next round retries
            current = outcome.item
            result.pushed += 1
    held = version_of(current)
    if merged is None and (held is None or held < change["Version"]):  # a resolver's condition failed, on an
        # older version: last writer wins, and the local change is the later one
        again = {k: v for k, v in _pushed(sync, change, model).items() if k != "Fields"}
        outcome = sync.transport.push([{**again, "Condition": "newer"}])[0]
        if outcome.kind == "refused":
            batch.refused.append({**ack, "Reason": outcome.reason})
            return None
        if outcome.kind != "landed":
            return None  # the cloud moved again: the change stays pending, the next round retries
        result.pushed += 1
        return {**ack, "Version": change["Version"]}
    if current is not None and model.pulls:  # bring the winner down now (drops the pending change)
        counts = sync._apply([pulled_change(current, sync.key_names)], {})
        result.conflicts += counts["Conflicts"]
        return None
    result.conflicts += 1
    return ack  # an up-only model: the local change just goes
