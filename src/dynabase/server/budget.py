"""The memory request bodies may hold at once, across connections (``dynabase serve --max-body-memory``).

Every connection may send a 16 MiB body, so ``--max-connections`` alone does not bound memory (512 connections
would hold 8 GiB of bodies before any parsing). Two budgets of ``--max-body-memory`` bytes each:

* **bodies**: a body is charged when its length is known (before it is read, and before ``100 Continue``;
  chunk by chunk for a chunked body); one that does not fit is answered 503 with ``Retry-After`` at once
  (waiting there would hold its connection, and a client that sends the last bytes of many requests together
  would wait for itself);
* **parsing**: a body read whole is charged what parsing it will cost (:func:`parsed_size`: a 16 MiB body of
  ``[{},{},…]`` becomes 5.6 million dicts, ~450 MB) and waits, up to the request timeout, until that fits: only
  requests already parsed hold this budget, and they finish, so the wait ends (or it is answered 503).

Both are released once the answer is sent. Bodies up to :data:`FREE_BYTES` are charged nothing, so small
requests are never refused or delayed for big ones in flight; a charge is always admitted when nothing else is
charged, so a budget below the largest body still serves it alone.
"""

from __future__ import annotations

import threading

#: bodies this small are not charged (512 connections of them: 32 MiB)
FREE_BYTES = 64 * 1024
#: ``--max-body-memory``'s default, in MiB
DEFAULT_BODY_MEMORY_MIB = 256


def parsed_size(body: bytes | bytearray) -> int:
    """An estimate, in bytes, of the Python objects a JSON ``body`` parses to (CPython's sizes: a dict 64+
    bytes, a list 56+, a str ~50 beyond its text, a pointer per element), from a few C-speed counts."""
    return (
        len(body)
        + 64 * body.count(b"{")
        + 56 * body.count(b"[")
        + 16 * body.count(b",")
        + 25 * body.count(b'"')
    )


class BodyBudget:
    """Bytes in flight, at most ``limit`` (see the module's docstring)."""

    def __init__(self, limit: int) -> None:
        if limit <= 0:
            raise ValueError(f"the body memory budget must be positive, not {limit}")
        self.limit = limit
        self.used = 0
        self._changed = threading.Condition(threading.Lock())

    def _fits(self, size: int) -> bool:
        return not self.used or self.used + size <= self.limit

    def take(self, size: int, wait: float = 0.0) -> bool:
        """Charge ``size`` bytes, waiting up to ``wait`` seconds for them to fit; False (nothing charged)
        when they do not."""
        with self._changed:
            if not self._changed.wait_for(lambda: self._fits(size), wait):
                return False
            self.used += size
            return True

    def give(self, size: int) -> None:
        """Release ``size`` bytes :meth:`take` charged."""
        with self._changed:
            self.used -= size
            self._changed.notify_all()
