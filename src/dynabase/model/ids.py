"""Generated ids with OneTable's formats: ``ulid`` (26 chars, Crockford base32, time-sortable), ``uuid``
(random version-4 form) and ``uid`` / ``uid(N)`` (N Crockford base32 characters, default 10)."""

from __future__ import annotations

import re
import secrets
import time
import uuid as _uuid

CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_UID_SIZE = re.compile(r"^uid\((\d+)\)$")


def ulid(when_ms: int | None = None) -> str:
    try:  # the schema package's ULIDs are monotonic within the process
        from ..schema.ids import new_ulid

        return new_ulid(when_ms)
    except ImportError:  # pragma: no cover
        pass
    now = int(time.time() * 1000) if when_ms is None else int(when_ms)
    chars = []
    for _ in range(10):
        now, mod = divmod(now, 32)
        chars.append(CROCKFORD[mod])
    head = "".join(reversed(chars))
    return head + "".join(secrets.choice(CROCKFORD) for _ in range(16))


def uuid() -> str:
    return str(_uuid.uuid4())


def uid(size: int = 10) -> str:
    return "".join(secrets.choice(CROCKFORD) for _ in range(size))


def generate(kind: object, custom=None) -> str:
    """The id for a field's ``generate`` setting: ``"ulid"``, ``"uuid"``, ``"uid"``, ``"uid(N)"`` or ``True``
    (the table's ``generate`` function, else a uuid)."""
    if kind is True:
        return custom() if custom is not None else uuid()
    if kind == "ulid":
        return ulid()
    if kind == "uuid":
        return uuid()
    if kind == "uid":
        return uid(10)
    if isinstance(kind, str):
        match = _UID_SIZE.match(kind.strip())
        if match:
            return uid(int(match.group(1)) or 10)
    raise ValueError(f"unknown generate kind {kind!r} (want ulid, uuid, uid or uid(N))")


__all__ = ["generate", "uid", "ulid", "uuid"]
