"""Identifier generators for ``generate: 'ulid' | 'uuid' | 'uid' | 'uid(N)'``.

* ULID (https://github.com/ulid/spec): 26 characters of Crockford base 32, a 48-bit millisecond
  timestamp then 80 random bits. Sorting ULIDs as strings sorts them by time, and within one process
  they are strictly increasing: a ULID made in the same millisecond as the previous one (or while the
  clock stands still or steps back) is the previous one plus one.
* UUID: a random (version 4) UUID in its canonical lower-case 36-character form.
* UID: ``N`` random characters (10 by default, as in OneTable) from the same Crockford alphabet,
  ``0-9`` and ``A-Z`` without ``I``, ``L``, ``O`` and ``U``. Not sortable.
"""

from __future__ import annotations

import datetime as _dt
import secrets
import threading
import time
import uuid as _uuid
from collections.abc import Callable

__all__ = [
    "CROCKFORD_ALPHABET",
    "DEFAULT_UID_LENGTH",
    "UlidGenerator",
    "generate_id",
    "new_uid",
    "new_ulid",
    "new_uuid",
    "ulid_datetime",
    "ulid_timestamp",
]

CROCKFORD_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
DEFAULT_UID_LENGTH = 10
_DECODE = {ch: i for i, ch in enumerate(CROCKFORD_ALPHABET)}
_TIME_MAX = (1 << 48) - 1
_RANDOM_MAX = (1 << 80) - 1


def _encode(number: int, length: int) -> str:
    chars = []
    for _ in range(length):
        chars.append(CROCKFORD_ALPHABET[number & 31])
        number >>= 5
    return "".join(reversed(chars))


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


class UlidGenerator:
    """Monotonic ULIDs: each one is greater than the previous one from this generator.

    A ULID made in the same millisecond as the previous one (or while the clock stands still or steps
    back) is the previous one plus one. ``clock`` returns epoch milliseconds (for tests).
    """

    def __init__(self, clock: Callable[[], int] = _now_ms):
        self._clock = clock
        self._lock = threading.Lock()
        self._last_ms = -1
        self._last_random = 0

    def new(self) -> str:
        now = int(self._clock())
        if not 0 <= now <= _TIME_MAX:
            raise ValueError("ULID timestamp out of range")
        with self._lock:
            if now <= self._last_ms:
                now = self._last_ms
                rand = self._last_random + 1
                if rand > _RANDOM_MAX:
                    raise OverflowError("ULID random component overflow within one millisecond")
            else:
                rand = secrets.randbits(80)
            self._last_ms = now
            self._last_random = rand
        return _encode(now, 10) + _encode(rand, 16)


_default_generator = UlidGenerator()


def new_ulid(timestamp_ms: int | None = None) -> str:
    """A new ULID. Without ``timestamp_ms`` it is the process-wide monotonic ULID for now; with it
    (epoch milliseconds) a ULID for that time with fresh random bits."""
    if timestamp_ms is None:
        return _default_generator.new()
    when = int(timestamp_ms)
    if not 0 <= when <= _TIME_MAX:
        raise ValueError("ULID timestamp out of range")
    return _encode(when, 10) + _encode(secrets.randbits(80), 16)


def ulid_timestamp(value: str) -> int:
    """The epoch-millisecond timestamp encoded in a ULID (case-insensitive)."""
    if not isinstance(value, str) or len(value) != 26:
        raise ValueError(f"not a ULID: {value!r}")
    number = 0
    for ch in value[:10].upper():
        digit = _DECODE.get(ch)
        if digit is None:
            raise ValueError(f"not a ULID: {value!r}")
        number = number * 32 + digit
    if number > _TIME_MAX or any(ch.upper() not in _DECODE for ch in value[10:]):
        raise ValueError(f"not a ULID: {value!r}")
    return number


def ulid_datetime(value: str) -> _dt.datetime:
    """The (UTC, aware) time encoded in a ULID."""
    return _dt.datetime.fromtimestamp(ulid_timestamp(value) / 1000, tz=_dt.timezone.utc)


def new_uuid() -> str:
    """A random version 4 UUID: ``xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx``."""
    return str(_uuid.uuid4())


def new_uid(length: int = DEFAULT_UID_LENGTH) -> str:
    """``length`` random characters from :data:`CROCKFORD_ALPHABET`."""
    if isinstance(length, bool) or not isinstance(length, int) or length < 1:
        raise ValueError("uid length must be a positive integer")
    return "".join(secrets.choice(CROCKFORD_ALPHABET) for _ in range(length))


def generate_id(kind: str, length: int | None = None) -> str:
    """A new identifier of ``kind``: ``"ulid"``, ``"uuid"``, ``"uid"`` (``length`` characters, 10 by
    default) or the schema spelling ``"uid(N)"``."""
    if not isinstance(kind, str):
        raise ValueError(f"unknown id kind: {kind!r}")
    if kind == "ulid":
        return new_ulid()
    if kind == "uuid":
        return new_uuid()
    if kind == "uid":
        return new_uid(DEFAULT_UID_LENGTH if length is None else length)
    if kind.startswith("uid(") and kind.endswith(")") and kind[4:-1].isdigit():
        return new_uid(int(kind[4:-1]))
    raise ValueError(f"unknown id kind: {kind!r} (expected ulid, uuid, uid or uid(N))")
