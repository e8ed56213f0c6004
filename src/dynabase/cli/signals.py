"""Stopping a long-running command (``serve``, ``ui``, ``streams run``, ``streams tail --follow``,
``sync --watch``) on SIGINT or SIGTERM.

The handlers are installed explicitly, whatever the process inherited: a command started as a background job
of a non-interactive shell (as CI and init scripts start them) inherits SIGINT *ignored*, and one that relied
on Python's default KeyboardInterrupt would then never stop on Ctrl-C or ``kill -INT``. Kept free of heavy
imports: ``python -m dynabase.server`` uses it before it answers its first request.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType

#: the signals that ask a command to stop
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _nothing() -> None:
    pass


@contextlib.contextmanager
def stop_on_signals(on_stop: Callable[[], None] = _nothing) -> Iterator[threading.Event]:
    """Within the block, the first SIGINT or SIGTERM sets the event it yields and calls ``on_stop`` (from a
    thread of its own, not from the handler: set an event, ask a server to stop accepting); the command
    finishes the work in flight and returns, exit status 0. A second one ends the process at once (status
    128 + the signal's number): the user does not want to wait. The previous handlers come back after."""
    stop = threading.Event()
    received: list[int] = []

    def stopping() -> None:
        stop.set()
        on_stop()

    def requested(signum: int, frame: FrameType | None) -> None:
        if received:
            os._exit(128 + signum)
        received.append(signum)
        # Not here: the handler runs in the main thread between two of its bytecodes, possibly inside
        # Event.wait's ``with self._cond`` (a plain Lock) — setting that event here would wait for itself
        # forever; a print here can meet the main thread's own print (a reentrant-call error). A thread
        # does both once the main thread lets go.
        threading.Thread(target=stopping, name="dynabase-stop", daemon=True).start()

    previous = {sig: signal.signal(sig, requested) for sig in STOP_SIGNALS}
    try:
        yield stop
    finally:
        for sig, handler in previous.items():
            with contextlib.suppress(ValueError, TypeError):  # None: a handler not set from Python
                signal.signal(sig, handler)
