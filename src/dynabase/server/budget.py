"""The memory request bodies may hold at once, across connections (``dynabase serve --max-body-memory``).

Every connection may send a 16 MiB body, so ``--max-connections`` alone does not bound memory (512 connections
would hold 8 GiB of bodies before any parsing). A body is charged when its length is known (before it is read,
and before ``100 Continue``; chunk by chunk for a chunked body) and released once its answer is sent; a body that
does not fit is answered 503 with ``Retry-After`` at once (waiting would hold its connection and its client's
retries, and a client that sends the last bytes of many requests together would wait for itself). Bodies up to
:data:`FREE_BYTES` are not charged, so small requests are never refused for big ones in flight; and a body is
always admitted when nothing else is charged, so a budget below the largest body still serves it alone.
"""

from __future__ import annotations

import threading

#: bodies this small are not charged (512 connections of them: 32 MiB)
FREE_BYTES = 64 * 1024
#: ``--max-body-memory``'s default, in MiB
DEFAULT_BODY_MEMORY_MIB = 256


class BodyBudget:
    """Bytes of request bodies in flight, at most ``limit`` (see the module's docstring)."""

    def __init__(self, limit: int) -> None:
        if limit <= 0:
            raise ValueError(f"the body memory budget must be positive, not {limit}")
        self.limit = limit
        self.used = 0
        self._lock = threading.Lock()

    def take(self, size: int) -> bool:
        """Charge ``size`` bytes; False (nothing charged) when they do not fit."""
        with self._lock:
            if self.used and self.used + size > self.limit:
                return False
            self.used += size
            return True

    def give(self, size: int) -> None:
        """Release ``size`` bytes :meth:`take` charged."""
        with self._lock:
            self.used -= size
