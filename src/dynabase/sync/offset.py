"""The device clock's offset from the endpoint's, measured from HTTP ``Date`` headers (or, over MQTT, from the
hub's clock in milliseconds that each of its answers carries: :meth:`ClockOffset.sample_ms`).

A ``Date`` header has one-second resolution: the endpoint's clock read ``s`` with ``Date <= s < Date + 1``,
at some moment between sending the request (``t0``, device clock) and receiving the answer (``t1``). So the
offset ``device - endpoint`` lies in ``[t0 - Date - 1, t1 - Date]``. Intersecting these bounds over many
requests narrows it to well under a second on a fast link.

A device clock is stepped (NTP setting a clock that booted wrong, a suspend): the bounds then no longer hold.
Each sample also keeps the monotonic clock's reading; when the wall clock has moved by more than
:data:`STEP` seconds apart from it, the bounds are dropped and measured again. An answer whose bounds miss the
current ones (the other way a step shows) starts over too. The bounds are stored with the boot they were
measured in: loaded in another boot they are not trusted (the monotonic clock restarted).
"""

from __future__ import annotations

import math
import re
from email.utils import parsedate_to_datetime
from pathlib import Path

#: seconds the wall clock may move apart from the monotonic clock before it counts as stepped
STEP = 0.2
#: an HTTP date as servers send it (RFC 9110 IMF-fixdate): a cut header ("... 19:08") is no date
_DATE = re.compile(r"[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT")


def _boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""  # no way to tell boots apart: a stored offset is measured again at start


BOOT = _boot_id()


class ClockOffset:
    """Bounds on ``device clock - endpoint clock`` (seconds), with the wall and monotonic readings of the
    newest sample (to see a step)."""

    def __init__(
        self, low: float = -math.inf, high: float = math.inf, reference: tuple[float, float] | None = None
    ) -> None:
        self.low, self.high = low, high
        self.reference = reference

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

    def reset(self) -> None:
        self.low, self.high, self.reference = -math.inf, math.inf, None

    def stepped(self, wall: float, monotonic: float) -> bool:
        """Whether the wall clock was stepped since the newest sample; if so the bounds are dropped."""
        if self.reference is None:
            return False
        wall0, monotonic0 = self.reference
        if abs((wall - wall0) - (monotonic - monotonic0)) <= STEP:
            return False
        self.reset()
        return True

    def sample(
        self, sent: float, received: float, date_header: str | None, monotonic: tuple[float, float]
    ) -> None:
        """Narrow the bounds by one answer: ``sent`` / ``received`` on the wall clock, ``monotonic`` the
        monotonic clock's readings at the same moments."""
        self.stepped(received, monotonic[1])
        if not date_header or not _DATE.fullmatch(date_header.strip()):
            return
        if abs((received - sent) - (monotonic[1] - monotonic[0])) > STEP:
            return  # the wall clock was stepped while the request was out: the bounds would be wrong
        try:
            server = parsedate_to_datetime(date_header).timestamp()
        except (TypeError, ValueError, IndexError, OverflowError):
            return
        self._narrow(sent - server - 1.0, received - server, (received, monotonic[1]))

    def sample_ms(self, sent: float, received: float, server_ms: int, monotonic: tuple[float, float]) -> None:
        """Narrow the bounds by one answer that carries the endpoint's clock in milliseconds (an MQTT hub's):
        it read ``server_ms`` between ``sent`` and ``received``."""
        self.stepped(received, monotonic[1])
        if abs((received - sent) - (monotonic[1] - monotonic[0])) > STEP:
            return
        server = server_ms / 1000
        self._narrow(sent - server - 0.001, received - server, (received, monotonic[1]))

    def _narrow(self, low: float, high: float, reference: tuple[float, float]) -> None:
        if low > high:
            return
        new_low, new_high = max(self.low, low), min(self.high, high)
        if new_low > new_high:  # a clock was stepped since the earlier samples
            new_low, new_high = low, high
        self.low, self.high = new_low, new_high
        self.reference = reference

    def dump(self) -> str:
        if self.reference is None:
            return ""
        return f"{self.low!r},{self.high!r},{self.reference[0]!r},{self.reference[1]!r},{BOOT}"

    @classmethod
    def load(cls, text: str | None) -> ClockOffset:
        """Stored bounds, or none when they were measured in another boot (or are not bounds)."""
        parts = (text or "").split(",")
        if len(parts) != 5 or not BOOT or parts[4] != BOOT:
            return cls()
        try:
            low, high, wall, monotonic = (float(part) for part in parts[:4])
        except ValueError:
            return cls()
        if not all(math.isfinite(v) for v in (low, high, wall, monotonic)) or low > high:
            return cls()
        return cls(low, high, (wall, monotonic))
