"""The ``mqtt`` transport: the device talks to a hub over an MQTT broker, never to the table (``pip install
'dynabase[mqtt]'``: paho-mqtt 2).

::

    cloud = MqttCloud("mqtts://broker:8883", table="app", device_id="dev-1", cert="dev-1.pem", key="dev-1.key",
                      ca="ca.pem")
    Sync(device, cloud).sync_once()

MQTT 5, QoS 1, a persistent session (``clean_start`` false, a session expiry): the broker keeps the device's
subscriptions and queues what the hub sends while the device is briefly offline. Each request waits for its
answer (``timeout``); none in time is a retryable :class:`SyncError` (the run loop retries: pushes are
idempotent by change and version). Between pulls the hub's fan-out arrives on its own (``Sync.receive``);
after every (re)connect the device pulls its scopes from its checkpoints (:attr:`MqttCloud.reconnected`).
"""

from __future__ import annotations

import logging
import ssl
import threading
import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from . import reactor, wire
from .cloud import Outcome
from .errors import SyncError
from .records import CHECKPOINT

if TYPE_CHECKING:
    from .core import Sync

log = logging.getLogger("dynabase.sync")
_KINDS = ("landed", "held", "refused", "gone", "skipped", "retry")


def parse_url(url: str) -> tuple[str, int, bool]:
    """``(host, port, tls)`` of ``mqtt://HOST[:PORT]`` or ``mqtts://HOST[:PORT]`` (ValueError naming it)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise ValueError(f"the MQTT URL {url!r}: {error}") from None
    if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname or parts.path not in ("", "/"):
        raise ValueError(f"the MQTT URL {url!r} must be mqtt://HOST:PORT or mqtts://HOST:PORT")
    tls = parts.scheme == "mqtts"
    return parts.hostname, port or (8883 if tls else 1883), tls


class Link:
    """One paho-mqtt 2 client (MQTT 5), connected in the background and reconnecting by itself: the process's
    :class:`~.reactor.Reactor` drives it (one thread for every connection, no limit of 1024 descriptors).

    ``on_connect()`` runs after each connect (subscribe there); ``on_message(topic, payload)`` for each message.
    """

    def __init__(
        self,
        url: str,
        client_id: str,
        *,
        username: str | None = None,
        password: str | None = None,
        cert: str | None = None,
        key: str | None = None,
        ca: str | None = None,
        persistent: bool = True,
        session_expiry: int = 86400,
        keepalive: int = 30,
    ) -> None:
        try:
            import paho.mqtt.client as mqtt
            from paho.mqtt.packettypes import PacketTypes
            from paho.mqtt.properties import Properties
        except ImportError:  # pragma: no cover - the optional extra
            raise SyncError("MQTT sync needs paho-mqtt 2: pip install 'dynabase[mqtt]'") from None
        self.url = url
        self.host, self.port, tls = parse_url(url)
        if (cert is None) != (key is None):
            raise ValueError("a client certificate needs both --cert and --key")
        self.connected = threading.Event()
        self.on_connect: Callable[[], None] = lambda: None
        self.on_message: Callable[[str, bytes], None] = lambda topic, payload: None
        self.last_error = ""
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5)
        if username is not None:
            client.username_pw_set(username, password)
        if tls or ca or cert:
            client.tls_set(ca_certs=ca, certfile=cert, keyfile=key, cert_reqs=ssl.CERT_REQUIRED)
        client.on_connect = self._connected
        client.on_disconnect = self._disconnected
        client.on_message = lambda c, u, msg: self.on_message(msg.topic, bytes(msg.payload))
        self.client = client
        self._persistent, self._keepalive = persistent, keepalive
        self._properties = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]  # paho's own
        if persistent:
            self._properties.SessionExpiryInterval = session_expiry
        self._started = False
        self._reactor = reactor.shared()

    def start(self) -> None:
        """Connect in the background (the process's :class:`~.reactor.Reactor`), reconnecting after drops."""
        if not self._started:
            self._started = True
            self.client.connect_async(
                self.host,
                self.port,
                keepalive=self._keepalive,
                clean_start=not self._persistent,
                properties=self._properties,
            )
            self._reactor.connect(self.client, self._failed)

    def _failed(self, error: str) -> None:
        self.last_error = f"cannot connect to {self.url}: {error}"
        log.warning("mqtt: %s", self.last_error)

    def _connected(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if getattr(reason, "is_failure", False):
            self.last_error = f"the broker at {self.url} refused the connection: {reason}"
            log.warning("mqtt: %s", self.last_error)
            return
        self.last_error = ""
        self._reactor.connected(client)
        self.on_connect()
        self.connected.set()

    def _disconnected(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        self.connected.clear()

    def subscribe(self, *topics: str) -> None:
        self.client.subscribe([(topic, 1) for topic in topics])

    def publish(self, topic: str, payload: bytes, wait: float | None = None) -> None:
        """Publish at QoS 1; ``wait``: seconds to wait for the broker's acknowledgement (SyncError if none, or
        as soon as the link is stopped)."""
        info = self.client.publish(topic, payload, qos=1)
        if wait is None:
            return
        deadline = time.monotonic() + wait
        try:
            while not info.is_published() and self._started:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                info.wait_for_publish(min(left, 0.25))
        except (ValueError, RuntimeError) as error:
            raise SyncError(f"cannot publish to {self.url}: {error}", retryable=True) from None
        if not info.is_published():
            why = "the link was stopped" if not self._started else f"no acknowledgement in {wait:g} s"
            raise SyncError(f"the broker at {self.url} did not take a message: {why}", retryable=True)

    def stop(self) -> None:
        if self._started:
            self._reactor.drop(self.client)
            self._started = False
            self.connected.clear()


class _Waiter:
    def __init__(self) -> None:
        self.done = threading.Event()
        self.answer: dict[str, Any] = {}


class MqttCloud:
    """A device's transport to a hub: ``url`` the broker (``mqtt[s]://HOST:PORT``), ``table`` the cloud
    table, ``device_id`` this device (its MQTT client id, which the broker binds to the credentials:
    ``username``/``password`` or the client certificate ``cert``/``key``; ``ca`` the broker's CA)."""

    def __init__(
        self,
        url: str,
        *,
        table: str,
        device_id: str,
        username: str | None = None,
        password: str | None = None,
        cert: str | None = None,
        key: str | None = None,
        ca: str | None = None,
        timeout: float = 30.0,
        session_expiry: int = 7 * 86400,
        max_payload: int = wire.MAX_PAYLOAD,
    ) -> None:
        self.device_id = wire.check_id(device_id)
        self.table = wire.check_id(table, "table name")
        self.endpoint = f"the hub at {url}"
        self.timeout = float(timeout)
        self.max_payload = int(max_payload)
        #: set at each (re)connect: the run loop pulls (a catch-up from the checkpoints) and clears it
        self.reconnected = threading.Event()
        self._greet = threading.Event()  # set at each (re)connect: the next request is preceded by a hello
        #: set when the hub's fan-out brings changes: the run loop applies them without waiting for its tick
        self.arrived = threading.Event()
        self._link = Link(
            url,
            device_id,
            username=username,
            password=password,
            cert=cert,
            key=key,
            ca=ca,
            session_expiry=session_expiry,
        )
        self._link.on_connect = self._on_connect
        self._link.on_message = self._on_message
        self._joiner = wire.Joiner()
        self._waiters: dict[str, _Waiter] = {}
        self._changes: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._sync: Sync | None = None

    # -- the connection ----------------------------------------------------------------------------------------

    def bind(self, sync: Sync) -> None:
        self._sync = sync  # the connection opens with the first request (`sync status` makes none)
        self.arrived = sync.wake  # a delivery wakes the sync loop

    def close(self) -> None:
        self._link.stop()

    def _on_connect(self) -> None:
        self._link.subscribe(wire.down_topic(self.table, self.device_id), wire.shared_topic(self.table, "+"))
        self._greet.set()
        self.reconnected.set()

    def _on_message(self, topic: str, payload: bytes) -> None:
        try:
            message = self._joiner.add("hub", wire.loads(payload))
            if message is None:
                return
            if message["op"] == "changes":
                items = wire.items_in(message.get("items"), "items")
                with self._lock:
                    self._changes += items
                self.arrived.set()
                return
        except (wire.ProtocolError, ValueError) as error:
            log.warning("mqtt: a message on %s is not %s: %s", topic, wire.PROTOCOL, error)
            return
        waiter = self._waiters.get(str(message.get("re")))
        if waiter is not None:
            waiter.answer = message
            waiter.done.set()

    def take_changes(self) -> list[dict[str, Any]]:
        """The cloud items the hub fanned out since the last call."""
        with self._lock:
            changes, self._changes = self._changes, []
            self.arrived.clear()
        return changes

    # -- requests ----------------------------------------------------------------------------------------------

    def request(self, op: str, **body: Any) -> dict[str, Any]:
        """Send one request and wait for its answer; the answer's clock refines the device's offset."""
        sync = self._sync
        if sync is None:
            raise RuntimeError("the transport is not bound to a Sync")
        self._link.start()
        if not self._link.connected.wait(self.timeout):
            why = self._link.last_error or "not connected"
            raise SyncError(f"cannot reach {self._link.url} in {self.timeout:g} s: {why}", retryable=True)
        if op != "hello" and self._greet.is_set():
            self.measure()
        rid = uuid.uuid4().hex
        waiter = self._waiters[rid] = _Waiter()
        payload = wire.dumps({"op": op, "id": rid, **body})
        sent, started = sync.clock(), sync.monotonic()
        try:
            for part in wire.split(payload, self.max_payload):
                self._link.publish(wire.up_topic(self.table, self.device_id), part)
            if not waiter.done.wait(self.timeout):
                raise SyncError(f"no answer from {self.endpoint} in {self.timeout:g} s", retryable=True)
        finally:
            self._waiters.pop(rid, None)
        answer = waiter.answer
        clock = answer.get("clock")
        if isinstance(clock, int) and not isinstance(clock, bool):
            sync.offset.sample_ms(sent, sync.clock(), clock, (started, sync.monotonic()))
        if answer.get("op") == "error":
            raise SyncError(
                f"{self.endpoint} refused a {op}: {answer.get('reason')}",
                retryable=bool(answer.get("retryable")),
            )
        return answer

    def measure(self) -> None:
        """``hello``: the round trip that measures the clock offset against the hub (with the checkpoints)."""
        state = self._sync.client.get_sync_state(TableName=self._sync.device.name) if self._sync else {}
        checkpoints = {k[len(CHECKPOINT) :]: v for k, v in state.items() if k.startswith(CHECKPOINT)}
        self._greet.clear()
        try:
            self.request("hello", checkpoints=checkpoints)
        except SyncError:
            self._greet.set()
            raise

    def push(self, changes: list[dict[str, Any]]) -> list[Outcome]:
        outcomes: list[Outcome] = []
        for group in wire.chunks(changes, self.max_payload):
            sent = [
                {**c, **{k: wire.items_out([c[k]])[0] for k in ("Key", "Item", "OldItem") if c.get(k)}}
                for c in group
            ]
            answer = self.request("push", changes=sent)
            raw = answer.get("outcomes")
            if not isinstance(raw, list) or len(raw) != len(group):
                raise SyncError(
                    f"{self.endpoint} answered a push of {len(group)} changes without as many outcomes"
                )
            outcomes += [_outcome(entry, i) for i, entry in enumerate(raw)]
        return outcomes

    def read_scope(
        self, scope: str, after: str | None, start: dict[str, Any] | None, limit: int
    ) -> dict[str, Any]:
        first = None if start is None else wire.items_out([start])[0]
        answer = self.request("pull", scope=scope, after=after, start=first, limit=min(limit, 1000))
        try:
            page: dict[str, Any] = {"Items": wire.items_in(answer.get("items"), "items")}
            if answer.get("last") is not None:
                page["LastEvaluatedKey"] = wire.item_in(answer["last"], "last")
        except wire.ProtocolError as error:
            raise SyncError(f"{self.endpoint} answered a pull with {error}") from None
        return page

    def get_items(self, keys: list[dict[str, Any]]) -> list[dict[str, Any]]:
        answer = self.request("get", keys=wire.items_out(keys))
        try:
            return wire.items_in(answer.get("items"), "items")
        except wire.ProtocolError as error:
            raise SyncError(f"{self.endpoint} answered a get with {error}") from None


def _outcome(entry: Any, i: int) -> Outcome:
    if not isinstance(entry, dict) or entry.get("outcome") not in _KINDS:
        raise SyncError(f"outcome {i} of a push is not one of {', '.join(_KINDS)}: {entry!r}")
    item = entry.get("item")
    try:
        decoded = None if item is None else wire.item_in(item, f"outcomes[{i}].item")
    except wire.ProtocolError as error:
        raise SyncError(str(error)) from None
    version = entry.get("version")
    return Outcome(
        entry["outcome"],
        version if isinstance(version, str) else None,
        decoded,
        str(entry.get("reason") or ""),
        bool(entry.get("repeat")),
    )


__all__ = ["Link", "MqttCloud", "parse_url"]
