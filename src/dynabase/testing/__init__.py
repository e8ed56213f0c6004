"""Testing aids for applications built on dynabase.

- :class:`FaultProxy` -- a fault-injecting TCP proxy (drop, delay, reset, close after the request, blackhole)
"""

from __future__ import annotations

from .._lazy import lazy_exports

__all__ = ["FaultProxy", "Plan"]

_WHERE = {"FaultProxy": ".faultproxy", "Plan": ".faultproxy"}

__getattr__ = lazy_exports(__name__, _WHERE, globals())
