"""One thread that drives every MQTT connection of a process, through paho-mqtt's external-loop API.

paho's own loop (``loop_start``) runs a thread per client and waits with ``select()``, which cannot watch a file
descriptor numbered 1024 or more: past about 340 clients in one process (three descriptors each), or in any
process that has a thousand files open, connections silently never complete (paho-mqtt issues #183, #238 and
#819, open). The :class:`Reactor` waits with the ``selectors`` module instead (epoll, kqueue; no such limit) and
hands each ready socket to paho's ``loop_read``/``loop_write``, calls ``loop_misc`` for keepalives, and connects
and reconnects (paho's ``reconnect``: a blocking TCP and TLS handshake) on a few threads of their own, with the
same backoff paho's loop uses (1 s doubling to 30 s). The protocol stays paho's.

Callbacks of every client run on the reactor's thread: they must be quick (hand work to a pool).
"""

from __future__ import annotations

import logging
import os
import selectors
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

log = logging.getLogger("dynabase.sync")
#: seconds between the keepalive checks of every client (paho's loop makes them at least this often)
MISC_INTERVAL = 1.0
#: reconnect backoff, seconds: the first wait, doubled after each failure up to the last
BACKOFF = (1.0, 30.0)


class _Slot:
    """What the reactor knows of one client."""

    def __init__(self, client: Any, on_error: Any) -> None:
        self.client = client
        self.on_error = on_error
        self.sock: Any = None
        self.attached = True
        self.connecting = False
        self.delay = BACKOFF[0]
        self.retry_at: float | None = None


class Reactor:
    """Drives paho clients: :meth:`connect` one (its first connection and every reconnection), :meth:`drop` it.

    ``connectors``: threads making connections at once (a fleet starting connects a few at a time).
    """

    def __init__(self, connectors: int = 4) -> None:
        self._selector = selectors.DefaultSelector()
        self._wake_read, self._wake_write = socket.socketpair()
        self._wake_read.setblocking(False)
        self._wake_write.setblocking(False)
        self._selector.register(self._wake_read, selectors.EVENT_READ, None)
        self._lock = threading.RLock()  # the selector's registrations and the slots
        self._slots: dict[int, _Slot] = {}  # id(client) -> slot
        self._pool = ThreadPoolExecutor(max(1, connectors), thread_name_prefix="dynabase-mqtt-connect")
        self._thread: threading.Thread | None = None

    # -- clients -----------------------------------------------------------------------------------------------

    def connect(self, client: Any, on_error: Any = None) -> None:
        """Take ``client`` (``connect_async`` already called on it) and connect it now, and again whenever its
        connection drops, until :meth:`drop`. ``on_error(text)`` is told why a connection attempt failed."""
        client.on_socket_open = self._opened
        client.on_socket_close = self._closed
        client.on_socket_register_write = self._want_write
        client.on_socket_unregister_write = self._wrote
        with self._lock:
            slot = self._slots[id(client)] = _Slot(client, on_error)
            self._start()
        self._attempt(slot)

    def drop(self, client: Any, timeout: float = 2.0) -> None:
        """Disconnect ``client`` (a DISCONNECT packet when connected) and forget it."""
        with self._lock:
            slot = self._slots.get(id(client))
            if slot is None:
                return
            slot.attached = False
        client.disconnect()
        deadline = time.monotonic() + timeout
        while slot.sock is not None and time.monotonic() < deadline:
            self._wake()
            time.sleep(0.005)
        with self._lock:
            if slot.sock is not None:  # the broker did not take the DISCONNECT in time: close the socket
                self._unregister(slot.sock)
                slot.sock.close()
                slot.sock = None
            self._slots.pop(id(client), None)

    # -- paho's socket callbacks (any thread) ------------------------------------------------------------------

    def _opened(self, client: Any, userdata: Any, sock: Any) -> None:
        try:  # MQTT's small packets go out at once: with Nagle's algorithm a message written right after another
            # waited for the broker's delayed acknowledgement of the first, 40 ms on Linux
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except (AttributeError, OSError):
            pass  # not a TCP socket (paho's WebSocket wrapper, a Unix socket)
        with self._lock:
            slot = self._slots.get(id(client))
            if slot is not None and slot.attached:
                slot.sock = sock
                self._selector.register(sock, selectors.EVENT_READ, slot)
        self._wake()

    def _closed(self, client: Any, userdata: Any, sock: Any) -> None:
        with (
            self._lock
        ):  # paho calls this before it closes the socket: unregistered while its number is its own
            self._unregister(sock)
            slot = self._slots.get(id(client))
            if slot is None:
                return
            slot.sock = None
            if slot.attached and not slot.connecting:
                self._backoff(slot)
        self._wake()

    def _want_write(self, client: Any, userdata: Any, sock: Any) -> None:
        self._modify(client, sock, selectors.EVENT_READ | selectors.EVENT_WRITE)

    def _wrote(self, client: Any, userdata: Any, sock: Any) -> None:
        self._modify(client, sock, selectors.EVENT_READ)

    def _modify(self, client: Any, sock: Any, events: int) -> None:
        with self._lock:
            slot = self._slots.get(id(client))
            if slot is not None and slot.sock is sock:
                try:
                    self._selector.modify(sock, events, slot)
                except (KeyError, ValueError, OSError):
                    return
        self._wake()

    def _unregister(self, sock: Any) -> None:
        try:
            self._selector.unregister(sock)
        except (KeyError, ValueError, OSError):
            pass

    # -- connecting --------------------------------------------------------------------------------------------

    def _attempt(self, slot: _Slot) -> None:
        with self._lock:
            if not slot.attached or slot.connecting:
                return
            slot.connecting, slot.retry_at = True, None
        self._pool.submit(self._reconnect, slot)

    def _reconnect(self, slot: _Slot) -> None:
        error = ""
        try:
            slot.client.reconnect()
        except (OSError, ValueError) as failure:  # refused, unreachable, a TLS handshake that failed
            error = str(failure) or type(failure).__name__
        with self._lock:
            slot.connecting = False
            if not slot.attached:  # dropped while connecting: the socket was never registered
                sock = slot.client.socket()
                if sock is not None:
                    sock.close()
            elif error or slot.sock is None:
                self._backoff(slot)
        if error and slot.on_error is not None:
            slot.on_error(error)
        self._wake()

    def _backoff(self, slot: _Slot) -> None:
        slot.retry_at = time.monotonic() + slot.delay
        slot.delay = min(BACKOFF[1], slot.delay * 2)

    def connected(self, client: Any) -> None:
        """The broker accepted ``client``'s connection: its next drop is retried after the first backoff."""
        slot = self._slots.get(id(client))
        if slot is not None:
            slot.delay = BACKOFF[0]

    # -- the loop ----------------------------------------------------------------------------------------------

    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="dynabase-mqtt", daemon=True)
            self._thread.start()

    def _wake(self) -> None:
        try:
            self._wake_write.send(b"\0")
        except (BlockingIOError, OSError):
            pass  # a wake-up is pending already

    def _run(self) -> None:
        misc_at = time.monotonic() + MISC_INTERVAL
        while True:
            for key, events in self._selector.select(max(0.0, misc_at - time.monotonic())):
                if key.data is None:
                    try:
                        while self._wake_read.recv(4096):
                            pass
                    except (BlockingIOError, OSError):
                        pass
                    continue
                self._serve(key.data, events)
            now = time.monotonic()
            if now >= misc_at:
                misc_at = now + MISC_INTERVAL
                self._tick(now)

    def _serve(self, slot: _Slot, events: int) -> None:
        client = slot.client
        try:
            if events & selectors.EVENT_READ:
                client.loop_read()
                sock = slot.sock
                while (
                    sock is not None and getattr(sock, "pending", lambda: 0)()
                ):  # TLS bytes already decrypted
                    client.loop_read()
                    sock = slot.sock
            if events & selectors.EVENT_WRITE and slot.sock is not None:
                client.loop_write()
        except Exception:  # one client's failure must not stop the others
            log.exception("mqtt: a connection failed in its loop")

    def _tick(self, now: float) -> None:
        with self._lock:
            slots = list(self._slots.values())
        for slot in slots:
            try:
                if slot.sock is not None:
                    slot.client.loop_misc()  # keepalive pings, a broker that stopped answering
                    if slot.client.want_write():
                        slot.client.loop_write()
                elif slot.retry_at is not None and now >= slot.retry_at:
                    self._attempt(slot)
            except Exception:
                log.exception("mqtt: a connection failed in its loop")


_shared: tuple[int, Reactor] | None = None
_shared_lock = threading.Lock()


def shared() -> Reactor:
    """The process's reactor, started with its first client (a forked child gets one of its own: the parent's
    thread is not in it)."""
    global _shared
    with _shared_lock:
        if _shared is None or _shared[0] != os.getpid():
            _shared = (os.getpid(), Reactor())
        return _shared[1]


__all__ = ["Reactor", "shared"]
