"""The MQTT sync protocol ``dynabase-sync/1``: topics, JSON payloads and their parts (see ``docs/sync.md``).

Every payload is a JSON object with ``"v": 1`` and an ``op``; items travel as DynamoDB JSON (binaries in
base64). A payload longer than the broker's limit is sent as ``part`` messages (``id``, ``n`` of ``of``,
``data``: a slice of the payload's text) that :class:`Joiner` puts back together. Nothing read here is
trusted: :func:`loads` and :func:`items_in` refuse what is not the protocol, with a message naming it.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from dataclasses import dataclass
from typing import Any

from .. import jsonlimits
from ..transfer.codec import InvalidItem, decode_item, encode_item

VERSION = 1
PROTOCOL = "dynabase-sync/1"
PREFIX = "dynabase/v1"
#: AWS IoT Core's largest message (bytes); Mosquitto's default is far larger
MAX_PAYLOAD = 128 * 1024
#: parts of one payload at most, and the largest payload put back together (bytes)
MAX_PARTS = 256
MAX_JOINED = 16 * 1024 * 1024
#: seconds a payload's parts wait for the rest
PART_TTL = 120.0
#: a device id (the MQTT client id): one topic level, no wildcards
_ID = re.compile(r"[A-Za-z0-9_.:@-]{1,128}")
#: a payload's id in its parts (``split`` makes 32 hex digits)
_PART_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


class ProtocolError(ValueError):
    """A message that is not ``dynabase-sync/1``."""


def check_id(text: str, what: str = "device id") -> str:
    """``text`` when it can be one MQTT topic level of the protocol, else ValueError naming ``what``."""
    if not isinstance(text, str) or not _ID.fullmatch(text):
        raise ValueError(f"the {what} {text!r} must be 1-128 letters, digits or _ . : @ - (one topic level)")
    return text


def up_topic(table: str, device: str) -> str:
    return f"{PREFIX}/{table}/up/{device}"


def down_topic(table: str, device: str) -> str:
    return f"{PREFIX}/{table}/down/{device}"


def shared_topic(table: str, model: str) -> str:
    return f"{PREFIX}/{table}/shared/{model}"


def hub_subscription(table: str) -> str:
    """The hub's shared subscription: each push reaches one hub of those side by side."""
    return f"$share/dynabase-hub/{PREFIX}/{table}/up/+"


def device_of(topic: str, table: str) -> str | None:
    """The device id of an ``up`` topic of ``table`` (None: not one)."""
    head = f"{PREFIX}/{table}/up/"
    if not topic.startswith(head):
        return None
    device = topic[len(head) :]
    return device if _ID.fullmatch(device) else None


def dumps(message: dict[str, Any]) -> bytes:
    return json.dumps({"v": VERSION, **message}, separators=(",", ":")).encode()


def loads(payload: bytes | str) -> dict[str, Any]:
    """A protocol message from a payload (ProtocolError when it is not one)."""
    try:
        jsonlimits.check(payload)  # before the parser recurses into a hostile nesting
        message = json.loads(payload)
    except (ValueError, UnicodeDecodeError) as error:
        raise ProtocolError(f"not JSON: {error}") from None
    return checked(message)


def checked(message: Any) -> dict[str, Any]:
    """``message`` when it is a protocol message (ProtocolError when not)."""
    if not isinstance(message, dict):
        raise ProtocolError("a message is a JSON object")
    if message.get("v") != VERSION:
        raise ProtocolError(f"protocol version {message.get('v')!r}: this side speaks {PROTOCOL} (v: 1)")
    if not isinstance(message.get("op"), str):
        raise ProtocolError('a message names its "op"')
    return message


def items_out(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [encode_item(item) for item in items]


def item_in(value: Any, what: str) -> dict[str, Any]:
    """An item (or key) read from a message: DynamoDB JSON, checked (ProtocolError naming ``what``)."""
    try:
        return decode_item(value)
    except InvalidItem as error:
        raise ProtocolError(f"{what}: {error}") from None


def items_in(value: Any, what: str) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        raise ProtocolError(f"{what} must be a list of items")
    return [item_in(item, f"{what}[{i}]") for i, item in enumerate(value)]


def split(payload: bytes, limit: int) -> list[bytes]:
    """``payload`` as it is published: itself when it fits in ``limit`` bytes, else ``part`` messages."""
    if len(payload) <= limit:
        return [payload]
    text = payload.decode()
    room = max(1024, limit - 200)  # a part's envelope
    chunks: list[str] = []
    while text:  # slices whose JSON-escaped text fits (escapes grow a slice by at most 6x)
        size = room
        while len(json.dumps(text[:size])) > room:
            size = max(1, size // 2)
        chunks.append(text[:size])
        text = text[size:]
    if len(chunks) > MAX_PARTS:
        raise ValueError(f"a payload of {len(payload)} bytes needs more than {MAX_PARTS} parts of {limit}")
    ident = uuid.uuid4().hex
    return [
        dumps({"op": "part", "id": ident, "n": n, "of": len(chunks), "data": c}) for n, c in enumerate(chunks)
    ]


def chunks(entries: list[dict[str, Any]], limit: int) -> list[list[dict[str, Any]]]:
    """``entries`` grouped so that each group's JSON stays under ``limit`` bytes (a bigger one goes alone, to
    be split in parts): whole messages wherever they fit, which a receiver without memory (a Lambda function)
    can handle."""
    groups: list[list[dict[str, Any]]] = [[]]
    size = 0
    for entry in entries:
        length = len(json.dumps(entry, separators=(",", ":"), default=str))
        if groups[-1] and size + length > limit - 256:
            groups.append([])
            size = 0
        groups[-1].append(entry)
        size += length + 1
    return [g for g in groups if g]


@dataclass(frozen=True)
class Part:
    """One ``part`` message: slice ``n`` (from 0) of the ``of`` slices of payload ``ident``, its text ``data``."""

    ident: str
    n: int
    of: int
    data: str

    @classmethod
    def read(cls, message: dict[str, Any]) -> Part:
        """The part a message is (ProtocolError when it is not a well-formed one)."""
        ident, n, total, data = (message.get(k) for k in ("id", "n", "of", "data"))
        if not (
            isinstance(ident, str) and isinstance(n, int) and isinstance(total, int) and isinstance(data, str)
        ):
            raise ProtocolError('a part has "id", "n", "of" and "data"')
        check_part(ident, n, total, len(data))
        return cls(ident, n, total, data)


def is_part_id(text: str) -> bool:
    """Whether ``text`` can be a payload's id in its parts."""
    return bool(_PART_ID.fullmatch(text))


def check_part(ident: str, n: int, of: int, size: int) -> None:
    """ProtocolError unless part ``n`` of ``of`` of payload ``ident``, ``size`` characters long, is within the
    protocol's limits (what a joiner checks of a message, and of what it stored about one)."""
    if not is_part_id(ident):
        raise ProtocolError(f"a part's id is 1-64 letters, digits, _ or -, not {ident[:80]!r}")
    if not 0 <= n < of <= MAX_PARTS:
        raise ProtocolError(f"part {n} of {of}: at most {MAX_PARTS} parts")
    if not 0 <= size <= MAX_JOINED:
        raise ProtocolError(f"a part of {size} bytes: payloads in parts are at most {MAX_JOINED} bytes")


def check_room(size: int, others: int) -> None:
    """ProtocolError when a payload of ``size`` and the sender's other open payloads (``others``, their sizes'
    sum) pass :data:`MAX_JOINED`: the limit is one sender's open payloads together, not each."""
    if size + others > MAX_JOINED:
        raise ProtocolError(f"payloads in parts above {MAX_JOINED} bytes from one sender")


class Assembly:
    """What a joiner knows of one payload: its part count, when its first part came (``at``) and the size of
    each part received (``sizes``: ``n`` -> characters). The in-memory :class:`Joiner` and the hub's durable
    one (:mod:`dynabase.hub.parts`) both keep their payloads as these."""

    def __init__(self, of: int, at: float) -> None:
        self.of = of
        self.at = at
        self.sizes: dict[int, int] = {}

    def add(self, n: int, of: int, size: int) -> None:
        """Part ``n`` of ``of`` came (again: a duplicate replaces it); ProtocolError when ``of`` is not the
        payload's part count."""
        if of != self.of:
            raise ProtocolError(f"part {n} of {of}: its payload's other parts say {self.of} parts")
        self.sizes[n] = size

    @property
    def size(self) -> int:
        return sum(self.sizes.values())

    @property
    def complete(self) -> bool:
        return len(self.sizes) == self.of

    def expired(self, now: float) -> bool:
        return now - self.at > PART_TTL

    def join(self, texts: dict[int, str]) -> dict[str, Any]:
        """The message the parts' ``texts`` make (ProtocolError when one is missing or not of its size)."""
        for n in range(self.of):
            if len(texts.get(n, "")) != self.sizes.get(n, -1):
                raise ProtocolError(f"part {n} of {self.of} is missing or not the part that came")
        return loads("".join(texts[n] for n in range(self.of)))


class Joiner:
    """Puts parts back together in memory, per sender: ``add(sender, message)`` gives the whole message once
    its last part came (None until then); incomplete payloads expire after :data:`PART_TTL` seconds. A part
    that breaks a limit drops its payload (ProtocolError)."""

    def __init__(self) -> None:
        self._open: dict[tuple[str, str], tuple[Assembly, dict[int, str]]] = {}

    def add(self, sender: str, message: dict[str, Any]) -> dict[str, Any] | None:
        if message.get("op") != "part":
            return message
        part = Part.read(message)
        now = time.monotonic()
        for stale in [k for k, (payload, _) in self._open.items() if payload.expired(now)]:
            del self._open[stale]
        key = (sender, part.ident)
        payload, texts = self._open.get(key) or (Assembly(part.of, now), {})
        others = sum(p.size for (who, i), (p, _) in self._open.items() if who == sender and i != part.ident)
        try:
            payload.add(part.n, part.of, len(part.data))
            check_room(payload.size, others)
        except ProtocolError:
            self._open.pop(key, None)
            raise
        texts[part.n] = part.data
        if not payload.complete:
            self._open[key] = (payload, texts)
            return None
        del self._open[key]
        return payload.join(texts)


__all__ = [
    "MAX_JOINED",
    "MAX_PARTS",
    "MAX_PAYLOAD",
    "PART_TTL",
    "PROTOCOL",
    "Assembly",
    "Joiner",
    "Part",
    "ProtocolError",
    "check_id",
    "check_part",
    "check_room",
    "checked",
    "chunks",
    "device_of",
    "down_topic",
    "dumps",
    "hub_subscription",
    "is_part_id",
    "item_in",
    "items_in",
    "items_out",
    "loads",
    "shared_topic",
    "split",
    "up_topic",
]
