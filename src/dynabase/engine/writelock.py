"""Processes that write one database file take turns through a lock file beside it, not through SQLite's
busy handler.

SQLite makes a writer that finds the file locked sleep and try again: 1, 2, 5, 10, 15, 20... milliseconds.
A write takes a tenth of a millisecond, so two processes writing one file (``dynabase serve --workers 2``)
spent most of their time asleep: eight clients got no more from two workers than from one (0.96-1.03x,
``bench/many_clients.py --raw``). A lock file hands the turn over at once: the next writer is waiting for it,
not sleeping. It is a courtesy between dynabase processes, not the guard: SQLite's lock still is (a process
that does not take it, or one whose lock file cannot be made, only waits as before).

POSIX record locks (``lockf``): held by a process, so a forked worker does not share its parent's, and a
thread never waits for a lock its own process holds (the storage's own lock orders the threads).
"""

from __future__ import annotations

import os
import time
from types import ModuleType

fcntl: ModuleType | None
try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: SQLite's busy handler alone
    fcntl = None

#: the first and the longest pause between two tries for a lock another process holds (seconds)
FIRST_PAUSE, LONGEST_PAUSE = 0.00002, 0.0002


class WriteLock:
    """The lock file ``<database>-lock``; :meth:`open` gives None where there can be none."""

    __slots__ = ("fd", "held")

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.held = False

    @classmethod
    def open(cls, path: str) -> WriteLock | None:
        """None for an in-memory database, without ``fcntl``, or where the file cannot be made (a read-only
        directory): SQLite's lock alone then."""
        if fcntl is None or path == ":memory:" or path.startswith("file:") or not path:
            return None
        try:
            return cls(os.open(path + "-lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600))
        except OSError:
            return None

    def acquire(self, timeout: float) -> None:
        """Wait for the turn, at most ``timeout`` seconds; past that, go on without it (SQLite's busy timeout
        then decides, as it would have): a process that holds it and hangs stops no one for longer than that."""
        assert fcntl is not None
        self.held = False  # (a forked child's copy may say otherwise: its parent's lock is not its own)
        pause, deadline = FIRST_PAUSE, 0.0
        while True:
            try:
                fcntl.lockf(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                now = time.monotonic()
                deadline = deadline or now + timeout
                if now >= deadline:
                    return
                time.sleep(pause)
                pause = min(pause * 2, LONGEST_PAUSE)
                continue
            self.held = True
            return

    def release(self) -> None:
        if self.held:
            self.held = False
            assert fcntl is not None
            try:
                fcntl.lockf(self.fd, fcntl.LOCK_UN)
            except OSError:  # pragma: no cover - the descriptor is ours; nothing to undo
                pass

    def close(self) -> None:
        self.release()
        try:
            os.close(self.fd)
        except OSError:  # pragma: no cover
            pass


__all__ = ["WriteLock"]
