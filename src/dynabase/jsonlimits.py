"""Bounding the nesting of JSON from a client or a file before a parser recurses into it.

The standard library's C parser recurses once per ``[``/``{``, and on Python 3.11 and older how deep it may go
is the process's recursion limit: 100,000 brackets either raise RecursionError (answered nowhere: a dropped
connection) or, on a thread whose stack is smaller than the limit assumes, overflow it (SIGSEGV). So the depth
is measured first, without recursion: strings are skipped (their brackets are text), then the brackets left
are counted. A request DynamoDB accepts nests at most ~70 levels (32 levels of attribute values, two JSON
levels each, inside the request's own objects); :data:`MAX_DEPTH` leaves room for every one of them.
"""

from __future__ import annotations

import json
import re
from itertools import accumulate, count
from operator import sub
from typing import Any

#: the deepest nesting of arrays and objects read from outside
MAX_DEPTH = 256

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_TWO_OR_NONE = bytes.maketrans(b"[{]}", b"\x02\x02\x00\x00")
_CHUNK = 65536
_ROOM = 64


class TooDeep(ValueError):
    """JSON nested deeper than the limit."""


def depth_exceeds(text: bytes | bytearray | str, limit: int = MAX_DEPTH) -> bool:
    """Whether ``text`` nests arrays and objects more than ``limit`` levels deep (an upper bound for text
    that is not valid JSON: an unterminated string's brackets count)."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text  # no copy of bytes
    if data.count(b"[") + data.count(b"{") <= limit:  # nearly every request: nothing to scan
        return False
    # an opening bracket counts 2, a closing one 0: the depth after k brackets is their running sum minus k
    steps = _STRING.sub(b"", data).translate(None, _NOT_BRACKETS).translate(_TWO_OR_NONE)
    depth = start = 0
    while start < len(steps):
        room = limit - depth
        if room >= _ROOM:  # fewer brackets than the room left cannot cross the limit: count them
            chunk = steps[start : start + room]
        else:  # close to the limit: every depth of a chunk, by C loops (accumulate, map)
            chunk = steps[start : start + _CHUNK]
            if depth + max(map(sub, accumulate(chunk), count(1))) > limit:
                return True
        depth += 2 * chunk.count(2) - len(chunk)
        if depth > limit:
            return True
        start += len(chunk)
    return False


def check(text: bytes | bytearray | str, limit: int = MAX_DEPTH) -> None:
    """Raise :class:`TooDeep` when ``text`` nests more than ``limit`` levels."""
    if depth_exceeds(text, limit):
        raise TooDeep(f"JSON nesting deeper than {limit} levels")


def loads(text: bytes | bytearray | str, limit: int = MAX_DEPTH, **options: Any) -> Any:
    """:func:`json.loads` of text from outside, refused with :class:`TooDeep` (a ValueError) when it nests
    more than ``limit`` levels."""
    check(text, limit)
    return json.loads(text, **options)
