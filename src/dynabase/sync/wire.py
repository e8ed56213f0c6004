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
from typing import Any

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


class Joiner:
    """Puts parts back together, per sender: ``add(sender, message)`` gives the whole message once its last
    part came (None until then); incomplete payloads expire after :data:`PART_TTL` seconds."""

    def __init__(self) -> None:
        self._open: dict[tuple[str, str], tuple[float, int, dict[int, str]]] = {}

    def add(self, sender: str, message: dict[str, Any]) -> dict[str, Any] | None:
        if message.get("op") != "part":
            return message
        ident, n, total, data = (message.get(k) for k in ("id", "n", "of", "data"))
        if not (
            isinstance(ident, str) and isinstance(n, int) and isinstance(total, int) and isinstance(data, str)
        ):
            raise ProtocolError('a part has "id", "n", "of" and "data"')
        if not 0 <= n < total <= MAX_PARTS:
            raise ProtocolError(f"part {n} of {total}: at most {MAX_PARTS} parts")
        now = time.monotonic()
        for stale in [k for k, (at, _, _) in self._open.items() if now - at > PART_TTL]:
            del self._open[stale]
        at, size, parts = self._open.get((sender, ident), (now, 0, {}))
        size += len(data) - len(parts.get(n, ""))
        others = sum(s for (who, i), (_, s, _) in self._open.items() if who == sender and i != ident)
        if size + others > MAX_JOINED:  # one sender's open payloads together, not each
            self._open.pop((sender, ident), None)
            raise ProtocolError(f"payloads in parts above {MAX_JOINED} bytes from one sender")
        parts[n] = data
        if len(parts) < total:
            self._open[(sender, ident)] = (at, size, parts)
            return None
        self._open.pop((sender, ident), None)
        return loads("".join(parts[i] for i in range(total)))


__all__ = [
    "MAX_PAYLOAD",
    "PROTOCOL",
    "Joiner",
    "ProtocolError",
    "check_id",
    "checked",
    "chunks",
    "device_of",
    "down_topic",
    "dumps",
    "hub_subscription",
    "item_in",
    "items_in",
    "items_out",
    "loads",
    "shared_topic",
    "split",
    "up_topic",
]
