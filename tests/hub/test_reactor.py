"""The reactor that drives every MQTT connection of a process (``dynabase.sync.reactor``), on a real Mosquitto."""

from __future__ import annotations

import os
import resource
import socket
import threading
import warnings
from collections.abc import Iterator

import pytest

from backends import free_loopback_port
from dynabase.sync import wire
from dynabase.sync.mqtt import Link

from .broker import HUB_USER, Broker
from .conftest import DEVICES, eventually, password

#: select() watches descriptors below this number only (FD_SETSIZE on Linux)
SELECT_LIMIT = 1024


@pytest.fixture
def high_descriptors() -> Iterator[None]:
    """Descriptors up to past select()'s range held open: the next sockets get numbers it cannot watch."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = SELECT_LIMIT + 256
    if hard != resource.RLIM_INFINITY and hard < wanted:
        pytest.skip(
            f"the open-files limit ({hard}) is below {wanted}: no descriptor can pass select()'s range"
        )
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    held: list[int] = []
    try:
        while not held or held[-1] < SELECT_LIMIT + 8:
            held.append(os.open(os.devnull, os.O_RDONLY))
        yield
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_connection_past_selects_range_carries_messages(broker: Broker, high_descriptors: None) -> None:
    """paho's own loop waits with select(), which fails on such a socket (the connection never completes)."""
    device, hub = DEVICES[0], HUB_USER
    received: list[bytes] = []
    arrived = threading.Event()
    link = Link(broker.url, device, username=device, password=password(device))
    link.on_connect = lambda: link.subscribe(wire.down_topic("t", device))
    link.on_message = lambda topic, payload: (received.append(payload), arrived.set())
    sender = Link(broker.url, "sender", username=hub, password=password(hub), persistent=False)
    try:
        link.start()
        sender.start()
        assert link.connected.wait(30) and sender.connected.wait(30), link.last_error or sender.last_error
        assert link.client.socket().fileno() >= SELECT_LIMIT
        assert link.client.socket().getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)  # no Nagle wait
        eventually(lambda: sender.publish(wire.down_topic("t", device), b"hello", wait=10) or True, "publish")
        assert arrived.wait(30)
        assert received == [b"hello"]
    finally:
        link.stop()
        sender.stop()


def test_many_connections_in_one_process(broker: Broker) -> None:
    """More clients than paho's loop threads reach with select() (about 340 in one process): all connected."""
    links = [
        Link(broker.url, f"many-{n}", username=HUB_USER, password=password(HUB_USER)) for n in range(400)
    ]
    before = threading.active_count()  # the suite's other threads, whatever they are
    try:
        for link in links:
            link.start()
        eventually(lambda: all(link.connected.is_set() for link in links), "400 connections")
        assert threading.active_count() - before < 20  # a reactor thread and a few connectors, not one each
    finally:
        for link in links:
            link.stop()
    assert not any(link.connected.is_set() for link in links)


def test_a_broker_that_is_not_there_is_named_and_the_link_stops() -> None:
    link = Link(f"mqtt://127.0.0.1:{free_loopback_port()}", "nobody", username="u", password="p")
    try:
        link.start()
        eventually(lambda: "refused" in link.last_error.lower(), "the refusal in last_error")
        assert "cannot connect to mqtt://127.0.0.1:" in link.last_error
        assert not link.connected.is_set()
    finally:
        link.stop()


def test_a_link_reconnects_after_the_broker_restarts(broker: Broker) -> None:
    device = DEVICES[1]
    connects = []
    link = Link(broker.url, device, username=device, password=password(device))
    link.on_connect = lambda: connects.append(1)
    try:
        link.start()
        assert link.connected.wait(30), link.last_error
        broker.stop()
        eventually(lambda: not link.connected.is_set(), "the drop seen")
        broker.start()
        eventually(lambda: link.connected.is_set(), "connected again", timeout=60)
        assert len(connects) == 2
    finally:
        link.stop()


def test_a_forked_child_gets_a_reactor_of_its_own(broker: Broker) -> None:
    """The parent's reactor thread is not in a forked child: a link made there must still connect."""
    parent = Link(broker.url, "parent", username=HUB_USER, password=password(HUB_USER))
    parent.start()
    try:
        assert parent.connected.wait(30), parent.last_error
        with warnings.catch_warnings():  # 3.12+ warns of fork in a threaded process: the child only connects
            warnings.simplefilter("ignore", DeprecationWarning)
            child = os.fork()
        if child == 0:  # the child: exit 0 only when its own link connects
            code = 1
            try:
                link = Link(broker.url, "child", username=HUB_USER, password=password(HUB_USER))
                link.start()
                code = 0 if link.connected.wait(30) else 3
                link.stop()
            finally:
                os._exit(code)
        _, status = os.waitpid(child, 0)
        assert os.waitstatus_to_exitcode(status) == 0
    finally:
        parent.stop()
