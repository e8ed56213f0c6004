"""A one-line progress display on stderr, redrawn with ``\\r``: count, rate and ETA.

Off unless asked for, and then only when the stream is a terminal (so logs and pipes stay clean).
"""

from __future__ import annotations

import sys
import threading
import time
from typing import IO


def _duration(seconds: float) -> str:
    seconds = max(0, int(seconds + 0.5))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}"


class Progress:
    """``advance(items, work)``: ``items`` is what the line counts, ``work`` (default ``items``) what the
    ETA is measured in against ``total`` (items for an export, bytes for a JSON lines import)."""

    def __init__(
        self,
        label: str,
        total: float | None = None,
        *,
        unit: str = "items",
        stream: IO[str] | None = None,
        enabled: bool = True,
        interval: float = 0.2,
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        isatty = getattr(self.stream, "isatty", None)
        self.enabled = bool(enabled and isatty is not None and isatty())
        self.label = label
        self.total = total if total and total > 0 else None
        self.unit = unit
        self.items = 0
        self.work = 0.0
        self.interval = interval
        self.started = time.monotonic()
        self._base_items = 0
        self._base_work = 0.0
        self._drawn = 0
        self._last = 0.0
        self._lock = threading.Lock()

    def start_at(self, items: int, work: float) -> None:
        """Resume: count from here, and measure the rate from here on only."""
        with self._lock:
            self.items = self._base_items = items
            self.work = self._base_work = work

    def advance(self, items: int = 1, work: float | None = None) -> None:
        with self._lock:
            self.items += items
            self.work += items if work is None else work
            if not self.enabled:
                return
            now = time.monotonic()
            if now - self._last >= self.interval:
                self._last = now
                self._draw(now)

    def line(self, now: float | None = None) -> str:
        now = time.monotonic() if now is None else now
        elapsed = max(now - self.started, 1e-9)
        rate = (self.items - self._base_items) / elapsed
        text = f"{self.label}: {self.items:,} {self.unit}"
        if self.total:
            fraction = min(self.work / self.total, 1.0)
            text += f" ({fraction:.0%})"
        text += f"  {rate:,.0f} {self.unit}/s"
        work_rate = (self.work - self._base_work) / elapsed
        if self.total and work_rate > 0 and self.work < self.total:
            text += f"  ETA {_duration((self.total - self.work) / work_rate)}"
        else:
            text += f"  {_duration(elapsed)}"
        return text

    def _draw(self, now: float) -> None:
        text = self.line(now)
        pad = max(0, self._drawn - len(text))
        self.stream.write("\r" + text + " " * pad)
        self.stream.flush()
        self._drawn = len(text)

    def _clear(self) -> None:
        if self._drawn:
            self.stream.write("\r" + " " * self._drawn + "\r")
            self._drawn = 0

    def message(self, text: str) -> None:
        """Print a line to the stream without garbling the progress line (which is redrawn after)."""
        with self._lock:
            if self.enabled:
                self._clear()
            self.stream.write(text + "\n")
            if self.enabled:
                self._draw(time.monotonic())
            self.stream.flush()

    def close(self) -> None:
        """Leave the final state on screen, then a newline."""
        with self._lock:
            if self.enabled and (self._drawn or self.items):
                self._draw(time.monotonic())
                self.stream.write("\n")
                self.stream.flush()
                self._drawn = 0
            self.enabled = False
