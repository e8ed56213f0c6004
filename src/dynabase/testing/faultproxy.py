"""A fault-injecting TCP proxy for testing clients of a network endpoint (DynamoDB, or anything over TCP).

The proxy listens on a free loopback port and forwards each accepted connection to a target. It knows nothing
of the protocol: it sees *exchanges* (the client sends, then the target answers; the next bytes from the client
start the next exchange, so keep-alive connections get a fault decision per request). Each exchange gets a
:class:`Plan`, taken from the queue of plans a test injected (:meth:`FaultProxy.inject`), else drawn by a seeded
random generator from ``rates``:

==========================  ======================================================================================
``pass``                    forward both ways
``delay``                   wait ``delay_ms`` before forwarding the request, then forward
``drop``                    close the connection without forwarding the request (the target never sees it)
``reset``                   forward the request and ``after_bytes`` bytes of the answer, then reset the connection
                            (TCP RST: ``SO_LINGER`` 0); an answer shorter than that is reset before the next request
``close_after_request``     forward the request, discard the answer once it starts, close the connection: the
                            target did the work, the client does not know (the "did it commit?" case)
``cut``                     forward the request and ``after_bytes`` bytes of the answer, then close the connection
                            cleanly (a FIN, as a relay that gives up does): the client may take the cut answer
                            for a whole one (cut after the status line, an HTTP answer has no headers or body)
==========================  ======================================================================================

:meth:`FaultProxy.blackhole` swallows everything for a while (connections hang, then close);
:meth:`FaultProxy.heal` turns every fault off. ``counters`` counts connections, exchanges and faults injected.

Bounded: at most ``max_connections`` at once (more are closed at once), idle connections close after
``idle_timeout`` seconds, and the proxy stops itself after ``lifetime`` seconds. Loopback only::

    with FaultProxy(("127.0.0.1", 8000), seed=7, rates={"drop": 0.1, "reset": 0.1}) as proxy:
        client = boto3.client("dynamodb", endpoint_url=proxy.url, ...)
        ...
        proxy.heal()

Also a command: ``python -m dynabase.testing.faultproxy --target 127.0.0.1:8000 --seed 7 --rate drop=0.1``.
"""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import random
import select
import socket
import struct
import sys
import threading
import time
from collections import Counter, deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

FAULTS = ("delay", "drop", "reset", "close_after_request", "cut")
KINDS = ("pass", *FAULTS)
_CHUNK = 65536
_CUTS = ("reset", "cut")  # the faults that forward part of the answer


@dataclass(frozen=True)
class Plan:
    """What the proxy does to one exchange."""

    kind: str = "pass"
    #: ``delay``: milliseconds before the request is forwarded
    delay_ms: int = 0
    #: ``reset`` / ``cut``: bytes of the answer forwarded before the reset / the close
    after_bytes: int = 0

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown fault {self.kind!r}; known: {', '.join(KINDS)}")
        if self.delay_ms < 0 or self.after_bytes < 0:
            raise ValueError("delay_ms and after_bytes must be >= 0")


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _parse_target(target: str | tuple[str, int]) -> tuple[str, int]:
    if isinstance(target, tuple):
        return target[0], int(target[1])
    text = target.split("://", 1)[-1].split("/", 1)[0]
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"target must be HOST:PORT or a URL with a port, not {target!r}")
    return host.strip("[]"), int(port)


class FaultProxy:
    """A TCP proxy from a free loopback port to ``target`` that injects faults per exchange.

    :param target: ``(host, port)``, ``"host:port"`` or a URL such as ``"http://127.0.0.1:8000"``
    :param seed: seed of the generator that draws plans (the draw order follows the order of exchanges)
    :param rates: probability of each fault per exchange (``{"drop": 0.05, "reset": 0.05, ...}``)
    :param delay_ms: ``(low, high)`` of drawn delays; :param reset_bytes: ``(low, high)`` of drawn reset and cut
        points
    """

    def __init__(
        self,
        target: str | tuple[str, int],
        *,
        seed: int | None = None,
        rates: Mapping[str, float] | None = None,
        delay_ms: tuple[int, int] = (1, 50),
        reset_bytes: tuple[int, int] = (0, 200),
        host: str = "127.0.0.1",
        port: int = 0,
        max_connections: int = 64,
        idle_timeout: float = 30.0,
        lifetime: float | None = 3600.0,
    ) -> None:
        if not _is_loopback(host):
            raise ValueError(f"the fault proxy listens on loopback only, not {host!r}")
        self.target = _parse_target(target)
        self.host, self.port = host, port
        self.rng = random.Random(seed)
        self.delay_ms = delay_ms
        self.reset_bytes = reset_bytes
        self.max_connections = max_connections
        self.idle_timeout = idle_timeout
        self.lifetime = lifetime
        self._rates: dict[str, float] = {}
        self.set_rates(rates or {})
        self._queue: deque[Plan] = deque()
        self._blackhole_until = 0.0
        self._lock = threading.Lock()
        self._counters: Counter[str] = Counter()
        self._listener: socket.socket | None = None
        self._stopping = threading.Event()
        self._threads: set[threading.Thread] = set()
        self._sockets: set[socket.socket] = set()

    # -- control ------------------------------------------------------------------------------------------------

    def set_rates(self, rates: Mapping[str, float]) -> None:
        """Replace the fault probabilities (missing faults: 0)."""
        unknown = set(rates) - set(FAULTS)
        if unknown:
            raise ValueError(f"unknown fault(s) {sorted(unknown)}; known: {', '.join(FAULTS)}")
        if any(not 0 <= p <= 1 for p in rates.values()) or sum(rates.values()) > 1:
            raise ValueError("rates must be probabilities summing to at most 1")
        self._rates = {kind: float(rates.get(kind, 0.0)) for kind in FAULTS}

    def inject(self, kind: str, count: int = 1, *, delay_ms: int = 0, after_bytes: int = 0) -> None:
        """Apply ``kind`` to the next ``count`` exchanges (before any drawn plan)."""
        plan = Plan(kind, delay_ms=delay_ms, after_bytes=after_bytes)
        with self._lock:
            self._queue.extend([plan] * count)

    def blackhole(self, seconds: float) -> None:
        """Swallow all traffic for ``seconds``: requests are not forwarded, connections hang, then close."""
        with self._lock:
            self._blackhole_until = time.monotonic() + seconds
            self._counters["blackhole"] += 1

    def heal(self) -> None:
        """Turn every fault off: no rates, no queued plans, no blackhole."""
        with self._lock:
            self._queue.clear()
            self._rates = dict.fromkeys(FAULTS, 0.0)
            self._blackhole_until = 0.0

    @property
    def counters(self) -> dict[str, int]:
        """A copy of the counts: ``connections``, ``exchanges``, each fault kind, ``pass``, ``refused``, ..."""
        with self._lock:
            return dict(self._counters)

    def faults_injected(self) -> int:
        counts = self.counters
        return sum(counts.get(kind, 0) for kind in (*FAULTS, "blackhole"))

    def next_plan(self) -> Plan:
        """The plan for the next exchange: an injected one, else one drawn from the rates."""
        with self._lock:
            if self._queue:
                plan = self._queue.popleft()
            else:
                draw, plan, edge = self.rng.random(), Plan(), 0.0
                for kind in FAULTS:
                    edge += self._rates[kind]
                    if draw < edge:
                        plan = Plan(
                            kind,
                            delay_ms=self.rng.randint(*self.delay_ms) if kind == "delay" else 0,
                            after_bytes=self.rng.randint(*self.reset_bytes) if kind in _CUTS else 0,
                        )
                        break
            self._counters[plan.kind] += 1
            self._counters["exchanges"] += 1
            return plan

    def _blackholed(self) -> bool:
        return time.monotonic() < self._blackhole_until

    # -- life cycle ---------------------------------------------------------------------------------------------

    @property
    def address(self) -> tuple[str, int]:
        if self._listener is None:
            raise RuntimeError("the proxy is not started")
        host, port = self._listener.getsockname()[:2]  # (IPv6 adds flow info and scope id)
        return host, port

    @property
    def url(self) -> str:
        """``http://host:port`` of the proxy (for ``endpoint_url=``)."""
        host, port = self.address
        return f"http://{host}:{port}"

    def start(self) -> FaultProxy:
        listener = socket.socket(socket.AF_INET6 if ":" in self.host else socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((self.host, self.port))
        listener.listen(128)
        listener.settimeout(0.1)
        self._listener = listener
        self._started = time.monotonic()
        self._spawn(self._accept_loop, "faultproxy-accept")
        return self

    def stop(self) -> None:
        """Stop listening, close every connection, wait for the proxy's threads."""
        self._stopping.set()
        with self._lock:
            sockets = list(self._sockets)
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        current = threading.current_thread()
        for thread in list(self._threads):
            if thread is not current:
                thread.join(timeout=5)
        if self._listener is not None:
            with contextlib.suppress(OSError):
                self._listener.close()

    def __enter__(self) -> FaultProxy:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def _spawn(self, target: Any, name: str, *args: Any) -> None:
        thread = threading.Thread(target=self._run, args=(target, *args), name=name, daemon=True)
        with self._lock:
            self._threads.add(thread)
        thread.start()

    def _run(self, target: Any, *args: Any) -> None:
        try:
            target(*args)
        finally:
            with self._lock:
                self._threads.discard(threading.current_thread())

    def _accept_loop(self) -> None:
        assert self._listener is not None
        while not self._stopping.is_set():
            if self.lifetime is not None and time.monotonic() - self._started > self.lifetime:
                self._stopping.set()
                break
            try:
                client, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                break
            with self._lock:
                self._counters["connections"] += 1
                busy = len(self._threads) - 1 >= self.max_connections
                if busy:
                    self._counters["refused"] += 1
            if busy:
                client.close()
                continue
            self._spawn(self._serve, "faultproxy-conn", client)
        with contextlib.suppress(OSError):
            self._listener.close()

    # -- one connection -----------------------------------------------------------------------------------------

    def _track(self, sock: socket.socket, add: bool) -> None:
        with self._lock:
            (self._sockets.add if add else self._sockets.discard)(sock)

    def _serve(self, client: socket.socket) -> None:
        upstream: socket.socket | None = None
        self._track(client, True)
        try:
            upstream = socket.create_connection(self.target, timeout=5)
            self._track(upstream, True)
            for sock in (client, upstream):  # forward each chunk at once (Nagle + delayed ACK cost ~40 ms)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._pump(client, upstream)
        except OSError:
            with self._lock:
                self._counters["upstream_errors"] += 1
        finally:
            for opened in (client, upstream):
                if opened is not None:
                    self._track(opened, False)
                    with contextlib.suppress(OSError):
                        opened.close()

    def _pump(self, client: socket.socket, upstream: socket.socket) -> None:
        plan: Plan | None = None  # the current exchange's plan; None between exchanges
        answering = False  # the target has started answering the current exchange
        answered = 0  # bytes of the answer forwarded in this exchange
        last = time.monotonic()
        while not self._stopping.is_set():
            readable, _, _ = select.select([client, upstream], [], [], 0.1)
            if not readable:
                if time.monotonic() - last > self.idle_timeout:
                    return
                continue
            last = time.monotonic()
            if client in readable:
                data = client.recv(_CHUNK)
                if not data:
                    return
                if self._blackholed():
                    self._hang(client)
                    return
                if plan is not None and plan.kind in _CUTS and answering:
                    if (
                        plan.kind == "reset"
                    ):  # the whole answer fitted in after_bytes: end before the next one
                        self._reset(client)
                    return
                if plan is None or answering:
                    plan, answering, answered = self.next_plan(), False, 0
                    if plan.kind == "drop":
                        return
                    if plan.kind == "delay":
                        time.sleep(plan.delay_ms / 1000)
                upstream.sendall(data)
                self._count("bytes_up", len(data))
            if upstream in readable:
                data = upstream.recv(_CHUNK)
                if not data:
                    return
                answering = True
                kind = plan.kind if plan is not None else "pass"
                if kind == "close_after_request":
                    return
                if kind in _CUTS:
                    assert plan is not None
                    part = data[: plan.after_bytes - answered]
                    if part:
                        client.sendall(part)
                        answered += len(part)
                    if answered >= plan.after_bytes:
                        if kind == "reset":
                            self._reset(client)
                        return  # the close in _serve: a FIN, or the RST just armed
                    continue
                client.sendall(data)
                answered += len(data)
                self._count("bytes_down", len(data))

    def _count(self, name: str, amount: int) -> None:
        with self._lock:
            self._counters[name] += amount

    def _hang(self, client: socket.socket) -> None:
        """Hold a blackholed connection open, reading and discarding, until the blackhole ends."""
        while self._blackholed() and not self._stopping.is_set():
            readable, _, _ = select.select([client], [], [], 0.1)
            if readable and not client.recv(_CHUNK):
                return

    @staticmethod
    def _reset(sock: socket.socket) -> None:
        """Close with a TCP RST instead of a FIN."""
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dynabase.testing.faultproxy", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--target", required=True, help="HOST:PORT or URL to forward to")
    parser.add_argument("--port", type=int, default=0, help="loopback port to listen on (0: a free one)")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--rate", action="append", default=[], metavar="FAULT=P", help=f"one of {FAULTS}")
    parser.add_argument("--seconds", type=float, default=None, help="stop after this long (default: Ctrl-C)")
    options = parser.parse_args(argv)
    try:
        rates = {name: float(value) for name, _, value in (r.partition("=") for r in options.rate)}
        proxy = FaultProxy(
            options.target, seed=options.seed, rates=rates, port=options.port, lifetime=options.seconds
        )
    except ValueError as error:
        parser.error(str(error))
    with proxy:
        print(f"fault proxy on {proxy.url} -> {proxy.target[0]}:{proxy.target[1]}", flush=True)
        try:
            while not proxy._stopping.is_set():
                time.sleep(0.2)
        except KeyboardInterrupt:
            pass
    print(f"counters: {proxy.counters}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
