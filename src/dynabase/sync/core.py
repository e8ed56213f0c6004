"""Device ↔ cloud sync: the device's side (change log, versions, resolvers, checkpoints, clock offset) over a
transport to the cloud (``direct``: a cloud entity-layer table; ``mqtt``: a hub, see :mod:`dynabase.hub`).

See ``docs/sync.md`` for the guarantees. In short: every captured change of a model that syncs up is pushed
as a conditional write that keeps the newer version (last writer wins by the time the write happened, on a
clock corrected by the offset measured against the endpoint); a delete becomes a tombstone; each device pulls
its scope of each down-synced model from the cloud's sync index, from a checkpoint stored with the changes it
covers; pulled changes are applied without capture, so they are never pushed back.
"""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from ..clock import SCOPE_ATTR, make_seq, seq_ms, wall_clock
from ..model.codec import Decoder, encode_item
from ..model.syncmeta import ModelSync, SyncPlan
from . import unique
from .direct import DirectCloud
from .errors import SyncError, classify
from .offset import ClockOffset
from .pull import pull
from .push import push
from .records import (
    CHECKPOINT,
    STATE_DEVICE,
    STATE_ERROR,
    STATE_NEWEST,
    STATE_OFFSET,
    STATE_SYNCED,
    SyncResult,
    SyncStatus,
    pulled_change,
    version_of,
)
from .resolve import Resolver

if TYPE_CHECKING:  # pragma: no cover
    from ..model.table import Table

_plain = Decoder("auto")
_NO_MODEL = ModelSync("?", "none", None)


class Sync:
    """Replication between a device :class:`~dynabase.model.Table` (embedded) and a cloud one.

    :param device: the device-side table (``side="device"``, an embedded client: its engine captures changes).
    :param cloud: the cloud-side table (``side="cloud"``; boto3 or an embedded client), or a transport to it
        (e.g. :class:`dynabase.sync.mqtt.MqttCloud`: the device talks to a hub, not to the table).
    :param device_id: this device's id (the tie-break of equal versions, ``deviceId`` in scope templates);
        None: the transport's (an MQTT client id), else the one stored in the device database, generated on
        first use.
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
        cloud: Table | Any,
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
        self.transport = _transport(cloud)
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
        #: the clock a step of ``clock`` is seen against (a test whose engine clock jumps to simulate time
        #: passing gives that clock here too: its jumps are then not steps)
        self.monotonic: Callable[[], float] = time.monotonic
        self.endpoint: str = self.transport.endpoint
        if not device.exists():
            device.create_table()
        state = self._state()
        self.device_id: str = str(
            device_id or self.transport.device_id or state.get(STATE_DEVICE) or uuid.uuid4().hex[:12]
        )
        device.enable_change_capture(node=self.device_id)
        if state.get(STATE_DEVICE) != self.device_id:
            self._put_state({STATE_DEVICE: self.device_id})
        self.offset = ClockOffset.load(state.get(STATE_OFFSET))
        self._last_seq_ms = 0  # the newest arrival stamp given (stamps never go back)
        self._polled: dict[str, int] = {}  # scope -> when its last complete pull began (corrected epoch ms)
        self._lock = threading.Lock()
        #: set when there is work before the loop's next tick: a change this process captured on the device
        #: table (while :meth:`run` listens), or cloud changes a live transport delivered (MQTT's fan-out)
        self.wake = threading.Event()
        primary = device.indexes["primary"]
        self.key_names = [n for n in (primary.hash, primary.sort) if n]
        #: whether a synced model has unique fields (their sentinels travel with the items)
        self._unique = any(unique.has_unique(self.plan, name) for name in self.plan.models)
        self.transport.bind(self)

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

    def stamp_ms(self, at_ms: int) -> int:
        """The version time (epoch ms, the endpoint's clock) of a change captured at ``at_ms`` on the engine's
        clock: corrected by the offset (measured again first if the clock was stepped), and never ahead of the
        corrected now (a change captured before a step forward is no newer than its push)."""
        if self.offset.stepped(self.clock(), self.monotonic()):
            self._measure()
        return min(at_ms - self.offset_ms, self.now_ms())

    # -- the public face ------------------------------------------------------------------------------------------

    def sync_once(self, stop: threading.Event | None = None, *, rescan: bool = True) -> SyncResult:
        """Push everything pending, then pull everything new; SyncError when it cannot finish. ``rescan=False``
        (the run loop's polls): re-read only the last 2 s of the overlap window, and the whole of it once per
        ``overlap`` seconds (a change that lands later than that after its stamp is pulled by then)."""
        with self._lock:
            result = SyncResult()
            try:
                self._measure()
                pushed = push(self, stop)
                result.add(pushed)
                pulled, complete = pull(self, stop, rescan)
                result.add(pulled)
                pending = self.pending()
            except Exception as error:
                failure = classify(error, self.endpoint)
                self._put_state({STATE_ERROR: str(failure), STATE_OFFSET: self.offset.dump()})
                raise failure from error
            result.in_step = complete and pending == 0
            self._put_state(
                {
                    STATE_ERROR: None,
                    STATE_OFFSET: self.offset.dump(),
                    STATE_SYNCED: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.clock())),
                }
            )
            return result

    def _measure(self) -> None:
        """Before a push: one free control-plane call measures the clock offset (and finds the table) unless
        it is known and the clock was not stepped since (a stored offset is checked the same way)."""
        self.offset.stepped(self.clock(), self.monotonic())
        if not self.offset.known:
            self.transport.measure()

    def push(self) -> SyncResult:
        """Push everything pending (no pull)."""
        return self._guarded(self._measured_push)

    def _measured_push(self) -> SyncResult:
        self._measure()
        return push(self, None)

    def pull(self) -> SyncResult:
        """Pull everything new (no push)."""
        return self._guarded(lambda: pull(self, None)[0])

    def _guarded(self, run: Callable[[], SyncResult]) -> SyncResult:
        with self._lock:
            try:
                result = run()
            except Exception as error:
                raise classify(error, self.endpoint) from error
            result.in_step = self.pending() == 0
            return result

    def receive(self) -> int:
        """Apply the cloud items a live transport delivered on its own (the MQTT hub's fan-out) that belong to
        this device's scopes; the number applied. Checkpoints do not move: a pull after a reconnect reads from
        them (an item pulled twice is applied once)."""
        take = getattr(self.transport, "take_changes", None)
        items = take() if take is not None else []
        mine = []
        for item in items:  # a tombstone has no scope fields: the scope it was stamped with decides
            model = self.plan.model_of(item)
            scope = (item.get(SCOPE_ATTR) or {}).get("S")
            if model is None or not model.pulls or not version_of(item) or scope is None:
                continue
            try:
                if scope == self.plan.device_scope(model, self.device_id):
                    mine.append(pulled_change(item, self.key_names))
            except ValueError:
                continue
        if not mine:
            return 0
        with self._lock:
            applied: int = self._apply(mine, {})["Applied"]
        return applied

    def pending(self) -> int:
        pending: int = self.client.read_changes(TableName=self.device.name, Limit=1)["Pending"]
        return pending

    def status(self) -> SyncStatus:
        state = self._state()
        newest = state.get(STATE_NEWEST)
        lag = (self.now_ms() - seq_ms(newest)) / 1000 if newest else None
        return SyncStatus(
            device_id=self.device_id,
            pending=self.pending(),
            checkpoints={k[len(CHECKPOINT) :]: v for k, v in state.items() if k.startswith(CHECKPOINT)},
            lag_seconds=lag,
            last_error=state.get(STATE_ERROR),
            clock_offset=self.offset.value,
            last_sync=state.get(STATE_SYNCED),
            quarantined=self.quarantine(),
        )

    # -- the quarantine: changes the cloud refused, set aside so that the rest syncs -------------------------------

    def quarantine(self) -> list[dict[str, Any]]:
        """The changes the cloud refused: ``{"key", "model", "reason", "refused_at"}`` each (``key``: the plain
        primary key, as :meth:`retry` and :meth:`drop` take it)."""
        changes = self.client.list_quarantine(TableName=self.device.name)["Changes"]
        return [
            {
                "key": _plain.decode_item(change["Key"]),
                "model": (self.plan.model_of(change.get("Item") or change.get("OldItem")) or _NO_MODEL).name,
                "reason": change["Reason"],
                "refused_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(change["RefusedAt"] / 1000)),
            }
            for change in changes
        ]

    def retry(self, keys: list[Mapping[str, Any]] | None = None) -> int:
        """Give quarantined changes (``keys``: plain primary keys; None: all) back to the next push."""
        return self._release(keys, drop=False)

    def drop(self, keys: list[Mapping[str, Any]] | None = None) -> int:
        """Forget quarantined changes (``keys``; None: all): never pushed; the device keeps its items as they
        are (a later cloud change of the item still reaches a device that pulls the model)."""
        return self._release(keys, drop=True)

    def _release(self, keys: list[Mapping[str, Any]] | None, drop: bool) -> int:
        wire = None if keys is None else [self._key(key) for key in keys]
        released: int = self.client.release_quarantine(TableName=self.device.name, Keys=wire, Drop=drop)[
            "Released"
        ]
        return released

    def _key(self, key: Mapping[str, Any]) -> dict[str, Any]:
        if not isinstance(key, Mapping) or set(key) != set(self.key_names):
            raise ValueError(
                f"a quarantined change is named by its primary key: {{{', '.join(self.key_names)}}}"
            )
        return encode_item(dict(key))

    @contextlib.contextmanager
    def listening(self) -> Iterator[None]:
        """While inside, a change captured on the device table by this process sets :attr:`wake` (a change
        written by another process is seen at the loop's next look at the change log)."""
        engine: Any = getattr(self.client, "engine", None)
        if engine is None or not hasattr(engine, "add_capture_listener"):
            yield
            return
        name = self.device.name

        def heard(table: str) -> None:
            if table == name:
                self.wake.set()

        engine.add_capture_listener(heard)
        try:
            yield
        finally:
            engine.remove_capture_listener(heard)

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

    # -- the device side of both halves ---------------------------------------------------------------------------

    def _apply(self, changes: list[dict[str, Any]], state: dict[str, str | None]) -> dict[str, Any]:
        before = unique.local_before(self, changes) if self._unique else {}
        applied: dict[str, Any] = self.client.apply_changes(
            TableName=self.device.name,
            Changes=changes,
            State=state,
            ClockOffsetMs=self.offset_ms,
            Node=self.device_id,
            TombstoneSeconds=self.tombstone_ttl,
        )
        if before:
            unique.settle_local(self, before)
        return applied


def _transport(cloud: Any) -> Any:
    """A cloud entity-layer table is reached directly; anything else is a transport already."""
    return DirectCloud(cloud) if hasattr(cloud, "create_table") else cloud


__all__ = ["Sync", "SyncResult", "SyncStatus"]
