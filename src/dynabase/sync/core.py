"""Device ↔ cloud sync over two entity-layer tables: push captured changes, pull from the sync index.

See ``docs/sync.md`` for the guarantees. In short: every captured change of a model that syncs up is pushed
as a conditional write that keeps the newer version (last writer wins by the time the write happened, on a
clock corrected by the offset measured against the endpoint); a delete becomes a tombstone; each device pulls
its scope of each down-synced model from the cloud's sync index, from a checkpoint stored with the changes it
covers; pulled changes are applied without capture, so they are never pushed back.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..clock import (
    DELETED_ATTR,
    SCOPE_ATTR,
    SEQ_ATTR,
    SYNC_ATTRS,
    VERSION_ATTR,
    make_seq,
    next_version,
    seq_floor,
    seq_ms,
    wall_clock,
)
from ..model.syncmeta import SYNC_INDEX, ModelSync, SyncPlan
from .errors import SyncError, classify
from .offset import ClockOffset
from .resolve import Resolver, resolve

if TYPE_CHECKING:  # pragma: no cover
    from ..model.table import Table

_STATE_DEVICE = "deviceId"
_STATE_OFFSET = "clockOffset"
_STATE_ERROR = "lastError"
_STATE_SYNCED = "lastSync"
_STATE_NEWEST = "newestSeq"
_CHECKPOINT = "checkpoint:"
_PULLED_AT = "pulledAt:"
_CONDITION = "attribute_not_exists(#v) OR #v < :v"
PULL_PAGE = 1000  # items per pulled page at least (each page is applied in one device transaction)


@dataclass
class SyncResult:
    """What one sync did. ``in_step``: nothing was left pending and every scope was pulled to its end."""

    pushed: int = 0
    pulled: int = 0
    conflicts: int = 0
    deletes: int = 0
    in_step: bool = False

    def add(self, other: SyncResult) -> None:
        self.pushed += other.pushed
        self.pulled += other.pulled
        self.conflicts += other.conflicts
        self.deletes += other.deletes


@dataclass
class SyncStatus:
    device_id: str
    pending: int
    checkpoints: dict[str, str]
    lag_seconds: float | None
    last_error: str | None
    clock_offset: float | None
    last_sync: str | None


class Sync:
    """Replication between a device :class:`~dynabase.model.Table` (embedded) and a cloud one.

    :param device: the device-side table (``side="device"``, an embedded client: its engine captures changes).
    :param cloud: the cloud-side table (``side="cloud"``; boto3 or an embedded client).
    :param device_id: this device's id (the tie-break of equal versions, ``deviceId`` in scope templates);
        None: the one stored in the device database, generated on first use.
    :param batch_size: changes per read of the change log and per page pulled.
    :param tombstone_ttl: seconds a delete's tombstone lives in the cloud; a device that has not pulled for
        longer does a full resync of its scopes.
    :param resolvers: ``{model: "merge" | callable}`` for conflicts the local change lost (see :mod:`.resolve`).
    :param overlap: seconds each pull re-reads before its checkpoint (covers clock tolerance and slow writes).
    :param progress: ``progress(phase, done)`` called after each batch (``"push"`` / ``"pull"``).
    """

    def __init__(
        self,
        device: Table,
        cloud: Table,
        device_id: str | None = None,
        batch_size: int = 100,
        tombstone_ttl: float = 30 * 86400,
        resolvers: Mapping[str, Resolver] | None = None,
        *,
        overlap: float = 15.0,
        progress: Callable[[str, int], None] | None = None,
    ) -> None:
        if not hasattr(device.client, "read_changes"):
            raise SyncError(
                "the device table needs the embedded client (dynabase.connect): it captures changes"
            )
        self.device, self.cloud = device, cloud
        self.client = device.client
        self.plan = SyncPlan(device)
        unknown = set(resolvers or {}) - set(self.plan.models)
        if unknown:
            raise SyncError(f"resolvers for models that do not sync: {', '.join(sorted(unknown))}")
        self.resolvers = dict(resolvers or {})
        self.batch_size = max(1, int(batch_size))
        self.tombstone_ttl = float(tombstone_ttl)
        self.overlap_ms = int(overlap * 1000)
        self.progress = progress
        self.clock: Callable[[], float] = getattr(self.client, "clock", wall_clock)
        self.endpoint = str(getattr(getattr(cloud.client, "meta", None), "endpoint_url", "") or "the cloud")
        if not device.exists():
            device.create_table()
        device.enable_change_capture()
        state = self._state()
        self.device_id = device_id or state.get(_STATE_DEVICE) or uuid.uuid4().hex[:12]
        if state.get(_STATE_DEVICE) != self.device_id:
            self._put_state({_STATE_DEVICE: self.device_id})
        self.offset = ClockOffset.load(state.get(_STATE_OFFSET))
        self._last_seq_ms = 0  # the newest arrival stamp given (stamps never go back)
        self._lock = threading.Lock()
        primary = device.indexes["primary"]
        self.key_names = [n for n in (primary.hash, primary.sort) if n]

    # -- state and clock -------------------------------------------------------------------------------------

    def _state(self) -> dict[str, str]:
        state: dict[str, str] = self.client.get_sync_state(TableName=self.device.name)
        return state

    def _put_state(self, state: dict[str, str | None]) -> None:
        self.client.put_sync_state(TableName=self.device.name, State=state)

    @property
    def offset_ms(self) -> int:
        value = self.offset.value
        return int(round(value * 1000)) if value is not None else 0

    def now_ms(self) -> int:
        """The corrected clock: the endpoint's time as this device best knows it (epoch ms)."""
        return int(self.clock() * 1000) - self.offset_ms

    def _arrival_seq(self) -> str:
        """An arrival stamp that never goes back: the offset is refined by each answer and may step the corrected
        clock back a few milliseconds, but a re-stamp must not date a landed version earlier than its first."""
        ms = max(self.now_ms(), self._last_seq_ms)
        self._last_seq_ms = ms
        return make_seq(ms, self.device_id)

    def _cloud(self, method: str, **request: Any) -> dict[str, Any]:
        """One call to the cloud; its ``Date`` header refines the clock offset."""
        sent = self.clock()
        try:
            response: dict[str, Any] = getattr(self.cloud.client, method)(**request)
        except Exception as error:
            meta = getattr(error, "response", None) or {}
            self._sample(sent, meta)
            raise
        self._sample(sent, response)
        return response

    def _sample(self, sent: float, response: Mapping[str, Any]) -> None:
        headers = (response.get("ResponseMetadata") or {}).get("HTTPHeaders") or {}
        self.offset.sample(sent, self.clock(), headers.get("date"))

    # -- the public face ------------------------------------------------------------------------------------------

    def sync_once(self, stop: threading.Event | None = None) -> SyncResult:
        """Push everything pending, then pull everything new; SyncError when it cannot finish."""
        with self._lock:
            result = SyncResult()
            try:
                self._measure()
                pushed = self._push(stop)
                result.add(pushed)
                pulled, complete = self._pull(stop)
                result.add(pulled)
                pending = self.pending()
            except Exception as error:
                failure = classify(error, self.endpoint)
                self._put_state({_STATE_ERROR: str(failure), _STATE_OFFSET: self.offset.dump()})
                raise failure from error
            result.in_step = complete and pending == 0
            self._put_state(
                {
                    _STATE_ERROR: None,
                    _STATE_OFFSET: self.offset.dump(),
                    _STATE_SYNCED: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.clock())),
                }
            )
            return result

    def _measure(self) -> None:
        """Before the first push: one free control-plane call measures the clock offset (and finds the table)."""
        if not self.offset.known:
            self._cloud("describe_table", TableName=self.cloud.name)

    def push(self) -> SyncResult:
        def measured_push() -> SyncResult:
            self._measure()
            return self._push(None)

        return self._guarded(measured_push)

    def pull(self) -> SyncResult:
        return self._guarded(lambda: self._pull(None)[0])

    def _guarded(self, run: Callable[[], SyncResult]) -> SyncResult:
        with self._lock:
            try:
                result = run()
            except Exception as error:
                raise classify(error, self.endpoint) from error
            result.in_step = self.pending() == 0
            return result

    def pending(self) -> int:
        pending: int = self.client.read_changes(TableName=self.device.name, Limit=1)["Pending"]
        return pending

    def status(self) -> SyncStatus:
        state = self._state()
        newest = state.get(_STATE_NEWEST)
        lag = (self.now_ms() - seq_ms(newest)) / 1000 if newest else None
        return SyncStatus(
            device_id=self.device_id,
            pending=self.pending(),
            checkpoints={k[len(_CHECKPOINT) :]: v for k, v in state.items() if k.startswith(_CHECKPOINT)},
            lag_seconds=lag,
            last_error=state.get(_STATE_ERROR),
            clock_offset=self.offset.value,
            last_sync=state.get(_STATE_SYNCED),
        )

    def run(
        self, interval: float = 0.5, stop: threading.Event | None = None, max_backoff: float = 60.0
    ) -> None:
        """Sync every ``interval`` seconds until ``stop`` is set (the batch in flight finishes); failures of a
        busy or unreachable endpoint back off exponentially, others raise :class:`SyncError`."""
        from .loop import run

        run(self, interval, stop or threading.Event(), max_backoff)

    async def async_sync_once(self) -> SyncResult:
        import asyncio

        return await asyncio.to_thread(self.sync_once)

    async def async_run(self, interval: float = 0.5, stop: Any = None, max_backoff: float = 60.0) -> None:
        from .loop import async_run

        await async_run(self, interval, stop, max_backoff)

    # -- push -----------------------------------------------------------------------------------------------------

    def _push(self, stop: threading.Event | None) -> SyncResult:
        result = SyncResult()
        after = 0
        while stop is None or not stop.is_set():
            page = self.client.read_changes(TableName=self.device.name, Limit=self.batch_size, AfterSeq=after)
            changes = page["Changes"]
            if not changes:
                break
            self._pin(changes)
            acks = []
            for change in changes:
                after = change["Seq"]
                ack = self._push_one(change, result)
                if ack is not None:
                    acks.append(ack)
            if acks:
                self.client.ack_changes(
                    TableName=self.device.name, Acks=acks, TombstoneSeconds=self.tombstone_ttl
                )
            if self.progress:
                self.progress("push", result.pushed)
        return result

    def _pin(self, changes: list[dict[str, Any]]) -> None:
        """Give each change its version once (a retry after a lost answer must send the same one)."""
        pins = []
        for change in changes:
            if "Version" not in change:
                source = change.get("Item") or change.get("OldItem")
                model = self.plan.model_of(source)
                if model is None or not model.pushes:
                    continue
                change["Version"] = next_version(
                    change["At"] - self.offset_ms, self.device_id, change.get("Base")
                )
                pins.append({"Key": change["Key"], "Seq": change["Seq"], "Version": change["Version"]})
        if pins:
            self.client.pin_versions(TableName=self.device.name, Pins=pins)

    def _push_one(self, change: dict[str, Any], result: SyncResult) -> dict[str, Any] | None:
        """Push one change; the ack to send (None when the change was settled otherwise, by a conflict)."""
        item = change.get("Item")
        source = item if item is not None else change.get("OldItem")
        model = self.plan.model_of(source)
        ack = {"Key": change["Key"], "Seq": change["Seq"]}
        if model is None or source is None or not model.pushes:  # (no source: no model either)
            return ack  # not a model that syncs up: nothing to push
        version = change["Version"]
        cloud_item = self._cloud_item(model, item, source, change["Key"], version)
        stamped = time.monotonic()
        try:
            self._cloud(
                "put_item",
                TableName=self.cloud.name,
                Item=cloud_item,
                ConditionExpression=_CONDITION,
                ExpressionAttributeNames={"#v": VERSION_ATTR},
                ExpressionAttributeValues={":v": {"S": version}},
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except Exception as error:
            if _code(error) != "ConditionalCheckFailedException":
                raise
            current = (getattr(error, "response", None) or {}).get("Item") or self._cloud_get(change["Key"])
            held = _version(current)
            if (
                held is not None and held == version
            ):  # our own write, landed before (a retry after a lost answer)
                self._restamp(change["Key"], version)
                return {**ack, "Version": version}
            return self._lost(model, change, item, current, result)
        if time.monotonic() - stamped > self.overlap_ms / 3000:  # a slow write: its arrival stamp is re-dated
            self._restamp(change["Key"], version)
        result.pushed += 1
        result.deletes += item is None
        return {**ack, "Version": version}

    def _cloud_item(
        self,
        model: ModelSync,
        item: dict[str, Any] | None,
        source: dict[str, Any],
        key: dict[str, Any],
        version: str,
    ) -> dict[str, Any]:
        scope = self.plan.item_scope(model, source)
        meta = {
            VERSION_ATTR: {"S": version},
            SEQ_ATTR: {"S": self._arrival_seq()},
            SCOPE_ATTR: {"S": scope},
        }
        if item is not None:
            return {**{k: v for k, v in item.items() if k not in SYNC_ATTRS}, **meta}
        expires = int(self.clock() - self.offset_ms / 1000 + self.tombstone_ttl)
        return {
            **key,
            self.plan.type_field: {"S": model.name},
            **meta,
            DELETED_ATTR: {"BOOL": True},
            self.plan.ttl_attribute: {"N": str(expires)},
        }

    def _cloud_get(self, key: dict[str, Any]) -> dict[str, Any] | None:
        return self._cloud("get_item", TableName=self.cloud.name, Key=key, ConsistentRead=True).get("Item")

    def _restamp(self, key: dict[str, Any], version: str) -> None:
        """Give a landed version a fresh arrival stamp, so devices whose checkpoint passed it still pull it."""
        self._conditional(  # when it fails, something newer is there: nothing to do
            "update_item",
            TableName=self.cloud.name,
            Key=key,
            UpdateExpression="SET #q = :q",
            ConditionExpression="#v = :v",
            ExpressionAttributeNames={"#q": SEQ_ATTR, "#v": VERSION_ATTR},
            ExpressionAttributeValues={
                ":q": {"S": self._arrival_seq()},
                ":v": {"S": version},
            },
        )

    def _conditional(self, method: str, **request: Any) -> bool:
        """A conditional cloud write: False when its condition failed."""
        try:
            self._cloud(method, **request)
        except Exception as error:
            if _code(error) != "ConditionalCheckFailedException":
                raise
            return False
        return True

    def _lost(
        self,
        model: ModelSync,
        change: dict[str, Any],
        item: dict[str, Any] | None,
        current: dict[str, Any] | None,
        result: SyncResult,
    ) -> dict[str, Any] | None:
        """The cloud holds a newer version: resolve (a configured resolver) or let the local change go."""
        resolver = self.resolvers.get(model.name)
        if resolver is not None and item is not None and current is not None:
            keep = [*self.key_names, self.plan.type_field]
            merged = resolve(resolver, model.name, item, current, change.get("Fields"), keep)
            if merged is not None:
                version = next_version(self.now_ms(), self.device_id, _version(current))
                cloud_item = self._cloud_item(model, merged, merged, change["Key"], version)
                if not self._conditional(
                    "put_item",
                    TableName=self.cloud.name,
                    Item=cloud_item,
                    ConditionExpression="#v = :c",
                    ExpressionAttributeNames={"#v": VERSION_ATTR},
                    ExpressionAttributeValues={":c": {"S": _version(current)}},
                ):
                    return None  # the cloud moved again: the change stays pending, the next round retries
                current = cloud_item
                result.pushed += 1
        if current is not None and model.pulls:  # bring the winner down now (drops the pending change)
            counts = self._apply([_pulled_change(current, self.key_names)], {})
            result.conflicts += counts["Conflicts"]
            return None
        result.conflicts += 1
        return {"Key": change["Key"], "Seq": change["Seq"]}  # an up-only model: the local change just goes

    # -- pull -----------------------------------------------------------------------------------------------------

    def _apply(self, changes: list[dict[str, Any]], state: dict[str, str]) -> dict[str, Any]:
        applied: dict[str, Any] = self.client.apply_changes(
            TableName=self.device.name,
            Changes=changes,
            State=state,
            ClockOffsetMs=self.offset_ms,
            Node=self.device_id,
            TombstoneSeconds=self.tombstone_ttl,
        )
        return applied

    def _pull(self, stop: threading.Event | None) -> tuple[SyncResult, bool]:
        result = SyncResult()
        for model in self.plan.models.values():
            if not model.pulls:
                continue
            if stop is not None and stop.is_set():
                return result, False
            try:
                scope = self.plan.device_scope(model, self.device_id)
            except ValueError as error:
                raise SyncError(f"cannot pull {model.name}: {error} (set it in the device table's context)")
            if not self._pull_scope(model, scope, result, stop):
                return result, False
        return result, True

    def _pull_scope(
        self, model: ModelSync, scope: str, result: SyncResult, stop: threading.Event | None
    ) -> bool:
        state = self._state()
        checkpoint = state.get(_CHECKPOINT + scope)
        pulled_at = state.get(_PULLED_AT + scope)
        started = self.now_ms()
        full = pulled_at is None or started - int(pulled_at) > self.tombstone_ttl * 1000
        request: dict[str, Any] = {
            "TableName": self.cloud.name,
            "IndexName": SYNC_INDEX,
            "KeyConditionExpression": "#s = :s",
            "ExpressionAttributeNames": {"#s": SCOPE_ATTR},
            "ExpressionAttributeValues": {":s": {"S": scope}},
            "Limit": max(self.batch_size, PULL_PAGE),
        }
        if checkpoint and not full and pulled_at is not None:  # (not full: pulled_at is set)
            # A change not pulled yet either sorts after the checkpoint or landed after the previous pull began,
            # stamped at most `overlap` before it (the clocks' tolerance; slow writes are re-stamped).
            floor = int(pulled_at) - self.overlap_ms
            bound = checkpoint if seq_ms(checkpoint) < floor else seq_floor(floor)
            request["KeyConditionExpression"] += " AND #q > :q"
            request["ExpressionAttributeNames"]["#q"] = SEQ_ATTR
            request["ExpressionAttributeValues"][":q"] = {"S": bound}
        seen: set[str] = set()
        newest = checkpoint or ""
        while True:
            if stop is not None and stop.is_set():
                return False
            page = self._cloud("query", **request)
            items = page.get("Items", [])
            changes = [_pulled_change(item, self.key_names) for item in items if _version(item)]
            for item in items:
                newest = max(newest, item.get(SEQ_ATTR, {}).get("S", ""))
                if full:
                    seen.add(_key_text(item, self.key_names))
            last = "LastEvaluatedKey" not in page
            update = {_CHECKPOINT + scope: newest} if newest else {}
            if newest and newest > state.get(_STATE_NEWEST, ""):
                update[_STATE_NEWEST] = newest
            if last and not full:
                update[_PULLED_AT + scope] = str(started)
            counts = self._apply(changes, update)
            result.pulled += counts["Applied"]
            result.deletes += counts["Deletes"]
            result.conflicts += counts["Conflicts"]
            if self.progress:
                self.progress("pull", result.pulled)
            if last:
                break
            request["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        if full:
            gone = [
                {"Key": key, "Purge": True}
                for key in self._local_keys(model, scope)
                if _key_text(key, self.key_names) not in seen
            ]
            counts = self._apply(gone, {_PULLED_AT + scope: str(started)})
            result.deletes += counts["Deletes"]
        return True

    def _local_keys(self, model: ModelSync, scope: str) -> list[dict[str, Any]]:
        """Keys of the device's items of ``model`` in ``scope``."""
        request: dict[str, Any] = {
            "TableName": self.device.name,
            "FilterExpression": "#t = :t",
            "ExpressionAttributeNames": {"#t": self.plan.type_field},
            "ExpressionAttributeValues": {":t": {"S": model.name}},
        }
        keys = []
        while True:
            page = self.client.scan(**request)
            for item in page.get("Items", []):
                try:
                    if model.scope is None or self.plan.item_scope(model, item) == scope:
                        keys.append({n: item[n] for n in self.key_names})
                except ValueError:
                    continue  # an item without the scope's fields belongs to no device's scope
            if "LastEvaluatedKey" not in page:
                return keys
            request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def _code(error: BaseException) -> str:
    response = getattr(error, "response", None)
    return ((response or {}).get("Error") or {}).get("Code", "") if isinstance(response, dict) else ""


def _version(item: Mapping[str, Any] | None) -> str | None:
    value = (item or {}).get(VERSION_ATTR)
    return value.get("S") if isinstance(value, Mapping) else None


def _pulled_change(item: dict[str, Any], key_names: list[str]) -> dict[str, Any]:
    if (item.get(DELETED_ATTR) or {}).get("BOOL"):
        return {"Key": {n: item[n] for n in key_names}, "Version": _version(item), "Delete": True}
    return {"Item": item}


def _key_text(item: Mapping[str, Any], key_names: list[str]) -> str:
    return json.dumps([item[n] for n in key_names], sort_keys=True)


__all__ = ["Sync", "SyncResult", "SyncStatus"]
