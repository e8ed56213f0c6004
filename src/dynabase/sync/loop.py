"""The long-running sync loop (a thread or asyncio), with exponential backoff on a busy or unreachable cloud."""

from __future__ import annotations

import asyncio
import logging
import random
import threading
from typing import TYPE_CHECKING, Any

from .errors import SyncError

if TYPE_CHECKING:
    from .core import Sync

log = logging.getLogger("dynabase.sync")
#: how often the loop looks for local changes to push between pulls (the change log is local: free); a change
#: this process writes wakes it at once (Sync.listening), and so do changes a live transport delivers
PUSH_TICK = 0.05


class Backoff:
    """Exponential backoff with jitter: ``next()`` gives the next delay, ``reset()`` after a success."""

    def __init__(self, base: float, maximum: float) -> None:
        self.base, self.maximum, self.failures = max(base, 0.05), maximum, 0

    def next(self) -> float:
        self.failures += 1
        delay = min(self.maximum, self.base * 2 ** (self.failures - 1))
        return delay * random.uniform(0.5, 1.0)

    def reset(self) -> None:
        self.failures = 0


def _pull_due(sync: Sync, now: float, next_pull: float) -> bool:
    """Time for a pull: every ``interval`` (direct); first, then after each (re)connect of a transport whose
    cloud fans changes out by itself (MQTT: between pulls nothing is polled)."""
    fresh = getattr(sync.transport, "reconnected", None)
    if fresh is None or not next_pull:  # the first step pulls (and opens a transport's connection)
        return now >= next_pull
    if fresh.is_set():
        fresh.clear()
        return True
    return False


def _failed(sync: Sync, pulled: bool) -> None:
    """A pull that failed is due again."""
    fresh = getattr(sync.transport, "reconnected", None)
    if pulled and fresh is not None:
        fresh.set()


def _step(sync: Sync, stop: Any, pull_due: bool) -> None:
    sync.wake.clear()  # what set it is looked at below: the change log, the transport's deliveries
    sync.receive()
    if pull_due:
        sync.sync_once(stop, rescan=False)
    elif sync.pending():
        sync.push()


def run(sync: Sync, interval: float, stop: threading.Event, max_backoff: float) -> None:
    with sync.listening():
        _run(sync, interval, stop, max_backoff)


def _run(sync: Sync, interval: float, stop: threading.Event, max_backoff: float) -> None:
    backoff = Backoff(interval, max_backoff)
    next_pull = 0.0
    clock = sync.clock
    while not stop.is_set():
        now = clock()
        due = _pull_due(sync, now, next_pull)
        try:
            _step(sync, stop, due)
        except SyncError as error:
            _failed(sync, due)
            if not error.retryable:
                raise
            delay = backoff.next()
            log.warning("sync failed (retrying in %.1fs): %s", delay, error)
            stop.wait(delay)
            continue
        backoff.reset()
        if due:
            next_pull = now + interval
        sync.wake.wait(min(PUSH_TICK, interval))


async def async_run(sync: Sync, interval: float, stop: Any, max_backoff: float) -> None:
    """``run`` for asyncio: each sync runs in a worker thread; ``stop`` is an ``asyncio.Event``."""
    stop = stop or asyncio.Event()
    flag = threading.Event()  # lets the batch in flight see the stop
    backoff = Backoff(interval, max_backoff)
    next_pull = 0.0
    while not stop.is_set():
        now = sync.clock()
        due = _pull_due(sync, now, next_pull)
        try:
            await asyncio.to_thread(_step, sync, flag, due)
        except SyncError as error:
            _failed(sync, due)
            if not error.retryable:
                raise
            delay = backoff.next()
        else:
            backoff.reset()
            if due:
                next_pull = now + interval
            delay = min(PUSH_TICK, interval)
        try:
            await asyncio.wait_for(stop.wait(), delay)
        except asyncio.TimeoutError:
            pass
    flag.set()
