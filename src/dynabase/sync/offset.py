"""The device clock's offset from the endpoint's, measured from HTTP ``Date`` headers.

A ``Date`` header has one-second resolution: the endpoint's clock read ``s`` with ``Date <= s < Date + 1``,
at some moment between sending the request (``t0``, device clock) and receiving the answer (``t1``). So the
offset ``device - endpoint`` lies in ``[t0 - Date - 1, t1 - Date]``. Intersecting these bounds over many
requests narrows it to well under a second on a fast link; an empty intersection (a clock was stepped)
starts over.
"""

from __future__ import annotations

import math
from email.utils import parsedate_to_datetime


class ClockOffset:
    """Bounds on ``device clock - endpoint clock`` (seconds)."""

    def __init__(self, low: float = -math.inf, high: float = math.inf) -> None:
        self.low, self.high = low, high

    @property
    def known(self) -> bool:
        return math.isfinite(self.low) and math.isfinite(self.high)

    @property
    def value(self) -> float | None:
        """The best estimate (the middle of the bounds), or None before any measurement."""
        return (self.low + self.high) / 2 if self.known else None

    @property
    def error(self) -> float | None:
        """Half the width of the bounds: how far the estimate may be off."""
        return (self.high - self.low) / 2 if self.known else None

    def sample(self, sent: float, received: float, date_header: str | None) -> None:
        if not date_header:
            return
        try:
            server = parsedate_to_datetime(date_header).timestamp()
        except (TypeError, ValueError, IndexError):
            return
        low, high = sent - server - 1.0, received - server
        if low > high:
            return
        new_low, new_high = max(self.low, low), min(self.high, high)
        if new_low > new_high:  # a clock was stepped since the earlier samples
            new_low, new_high = low, high
        self.low, self.high = new_low, new_high

    def dump(self) -> str:
        return f"{self.low!r},{self.high!r}"

    @classmethod
    def load(cls, text: str | None) -> ClockOffset:
        try:
            low, high = (float(part) for part in (text or "").split(","))
        except ValueError:
            return cls()
        return cls(low, high)
