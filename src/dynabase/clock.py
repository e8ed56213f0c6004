"""Clocks and sync versions shared by the engine's change capture and :mod:`dynabase.sync`.

``wall_clock()`` is ``time.time()`` shifted by the ``DYNABASE_CLOCK_SKEW`` environment variable (seconds, a float,
may be negative): a testing aid that makes every dynabase clock of a process run fast or slow.

A *version* is a hybrid-logical-clock stamp, a fixed-width string that sorts by time:
``"<physical ms, 14 digits>.<counter, 6 digits>.<node id>"``. The node id (a device id, or ``cloud``) is the
deterministic tie-break when two writes carry the same physical time and counter.
"""

from __future__ import annotations

import os
import time

SKEW_VARIABLE = "DYNABASE_CLOCK_SKEW"
_MS_DIGITS = 14
_COUNTER_DIGITS = 6
_skew_cache: tuple[str | None, float] = (None, 0.0)


def clock_skew() -> float:
    """The seconds ``DYNABASE_CLOCK_SKEW`` adds to the wall clock (0 when unset); ValueError when malformed."""
    global _skew_cache
    text = os.environ.get(SKEW_VARIABLE)
    if text == _skew_cache[0]:
        return _skew_cache[1]
    try:
        skew = float(text) if text not in (None, "") else 0.0
    except ValueError:
        raise ValueError(f"{SKEW_VARIABLE} must be a number of seconds, not {text!r}") from None
    _skew_cache = (text, skew)
    return skew


def wall_clock() -> float:
    """Epoch seconds, shifted by ``DYNABASE_CLOCK_SKEW``."""
    return time.time() + clock_skew()


def make_version(ms: int, counter: int, node: str) -> str:
    return f"{max(ms, 0):0{_MS_DIGITS}d}.{counter:0{_COUNTER_DIGITS}d}.{node}"


def version_parts(version: str) -> tuple[int, int, str]:
    """``(physical ms, counter, node)`` of a version string."""
    ms, counter, node = version.split(".", 2)
    return int(ms), int(counter), node


def next_version(ms: int, node: str, above: str | None = None) -> str:
    """The version of a write at ``ms`` by ``node``, above ``above`` (the item's previous version) so that
    causality holds on one replica even when its clock steps back."""
    if above:
        prev_ms, prev_counter, _ = version_parts(above)
        if prev_ms >= ms:
            return make_version(prev_ms, prev_counter + 1, node)
    return make_version(ms, 0, node)


def make_seq(ms: int, node: str) -> str:
    """A cloud arrival stamp (``_syncSeq``): fixed-width ms then the writer's node id."""
    return f"{max(ms, 0):0{_MS_DIGITS}d}.{node}"


def seq_ms(seq: str) -> int:
    return int(seq.split(".", 1)[0])


def seq_floor(ms: int) -> str:
    """A bound that sorts below every stamp of ``ms`` and after: ``_syncSeq > seq_floor(ms)``."""
    return f"{max(ms, 0):0{_MS_DIGITS}d}"


# The sync metadata attributes items of synced models carry (reserved names; the entity layer hides them).
VERSION_ATTR = "_syncVer"  #: the item's version (see above)
SEQ_ATTR = "_syncSeq"  #: when the version reached the cloud (the sync index's sort key)
SCOPE_ATTR = "_syncScope"  #: ``<Model>#<scope value>`` (the sync index's hash key)
DELETED_ATTR = "_syncDel"  #: true on a tombstone
TTL_ATTR = "_syncTtl"  #: a tombstone's expiry (epoch seconds; the cloud table's TTL attribute)
SYNC_ATTRS = (VERSION_ATTR, SEQ_ATTR, SCOPE_ATTR, DELETED_ATTR, TTL_ATTR)
