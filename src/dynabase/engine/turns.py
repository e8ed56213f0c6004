"""Long reads take turns, so short requests are answered while they run.

A Scan whose filter is heavy is CPU-bound Python: with several at once on their threads, a GetItem on another
thread waits for the GIL behind all of them at each of its steps (the interpreter hands the GIL on every 5 ms,
to any waiting thread). So once a read has run :data:`LONG` seconds it goes on only while holding its
database's :class:`Gate`, handing it to the next long read (first come, first served) every :data:`SLICE`
seconds: at most one long read competes with the short requests at a time, and the long reads share the
time between them. Only when a read is answered changes, never what it answers.
"""

from __future__ import annotations

import threading
import time

#: seconds of work after which a read is long (a GetItem or a short Query never gets there)
LONG = 0.02
#: seconds a long read works before it lets the next one have a turn
SLICE = 0.02


class Gate:
    """A first-come-first-served turn among long reads; a nested read on the thread of the turn's holder (an
    item reader calling the engine) goes on inside that turn."""

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._next = 0
        self._serving = 0
        #: tickets whose reads stopped waiting (interrupted): skipped, or every later read would wait forever
        self._abandoned: set[int] = set()
        self.holder: int | None = None

    def enter(self) -> None:
        with self._cond:
            ticket = self._next
            self._next += 1
            try:
                while ticket != self._serving:
                    self._cond.wait()
            except BaseException:  # KeyboardInterrupt while waiting
                if ticket == self._serving:
                    self._advance()
                else:
                    self._abandoned.add(ticket)
                raise
            self.holder = threading.get_ident()

    def leave(self) -> None:
        with self._cond:
            self.holder = None
            self._advance()

    def _advance(self) -> None:
        self._serving += 1
        while self._serving in self._abandoned:
            self._abandoned.discard(self._serving)
            self._serving += 1
        self._cond.notify_all()


class Turns:
    """One read's use of a :class:`Gate`: call :meth:`tick` for each item, and :meth:`done` at the end. A read
    that holds the storage lock (``active`` false) never waits for a turn: the holder of the turn may need
    that lock."""

    __slots__ = ("gate", "held", "due")

    def __init__(self, gate: Gate, active: bool = True) -> None:
        self.gate = gate
        self.held = False
        self.due = time.perf_counter() + LONG if active else float("inf")

    def tick(self) -> None:
        if time.perf_counter() < self.due:
            return
        gate = self.gate
        if self.held:
            gate.leave()  # the next long read's turn (this one queues behind those waiting)
            self.held = False
        elif gate.holder == threading.get_ident():  # inside the turn of a read on this thread
            self.due = float("inf")
            return
        gate.enter()
        self.held = True
        self.due = time.perf_counter() + SLICE

    def done(self) -> None:
        if self.held:
            self.held = False
            self.gate.leave()
