"""Response compression as DynamoDB does it: only for answers of at least 4096 bytes, in gzip or deflate (zlib),
whichever the client's ``Accept-Encoding`` prefers.

DynamoDB's choice, established by scylladb's test/alternator/test_compressed_response.py (run against the
service): the highest quality wins (a quality above 1 counts as 1, a negative one as 0, one that is not a number
as 1; the first ``q`` of an entry counts); among equals, an encoding named outright beats one that ``*`` stands
for, then the first named, and ``*`` stands for gzip before deflate; ``identity``, ``x-gzip`` and any other
coding are ignored, so a client naming only those gets the plain answer. Smaller answers are never compressed
(a 2-byte ``{}`` gzipped is 22 bytes, and clients that do not decompress break on it).
"""

from __future__ import annotations

import math
import zlib

#: DynamoDB compresses answers from this size up (smaller ones go as they are)
THRESHOLD = 4096
_CODINGS = ("gzip", "deflate")


def _quality(params: list[str]) -> float:
    for param in params:
        name, eq, value = param.partition("=")
        if name.strip().lower() == "q" and eq:
            try:
                quality = float(value.strip())
            except ValueError:
                return 1.0
            return 1.0 if math.isnan(quality) else min(max(quality, 0.0), 1.0)
    return 1.0


def negotiate(accept_encoding: str) -> str | None:
    """The coding to compress an answer with for this ``Accept-Encoding`` (``None``: none)."""
    named: dict[str, tuple[float, int]] = {}  # coding -> (quality, position of its first mention)
    star: float | None = None
    for position, entry in enumerate(accept_encoding.split(",")):
        token, *params = entry.split(";")
        coding = token.strip().lower()
        if coding in _CODINGS:
            quality = _quality(params)
            first = named.get(coding, (quality, position))
            named[coding] = (max(first[0], quality), first[1])
        elif coding == "*":
            star = max(star or 0.0, _quality(params))
    best: tuple[float, int, int] | None = None
    choice = None
    for rank, coding in enumerate(_CODINGS):
        if coding in named:
            quality, position = named[coding]
            key = (quality, 1, -position)
        elif star is not None:
            key = (star, 0, -rank)
        else:
            continue
        if key[0] > 0 and (best is None or key > best):
            best, choice = key, coding
    return choice


def compress(body: bytes, coding: str) -> bytes:
    """``body`` in ``coding`` (gzip, or deflate in its zlib wrapper as RFC 9110 defines it)."""
    if coding == "gzip":
        return zlib.compress(body, 5, wbits=16 + zlib.MAX_WBITS)
    return zlib.compress(body, 5)
