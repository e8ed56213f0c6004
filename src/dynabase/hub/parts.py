"""Payloads in parts joined across invocations: the Lambda hub's durable :class:`~dynabase.sync.wire.Joiner`.

On AWS Lambda each part of a payload reaches its own invocation, so :class:`TableJoiner` keeps them in the
hub's table, under hash keys that begin with :data:`PREFIX` (no model may push one: :mod:`.rules`):

* each part an item ``_dynabase#parts#<device>#<id>#<n>`` holding its text (``_partData``), its size
  (``_partSize``) and the part count (``_partOf``), written once (a duplicate delivery changes nothing);
* the device's ledger ``_dynabase#parts#<device>``: a string set ``_parts`` of ``"<id> <n> <of> <size> <at>"``,
  one element per part received (``at``: epoch seconds), added to with one UpdateItem that returns the whole
  ledger. Its answer is the device's open payloads, atomically: the limits (``wire``'s ``MAX_PARTS``,
  ``MAX_JOINED`` per device across its open payloads, ``PART_TTL``) are checked on it, by the same
  :class:`~dynabase.sync.wire.Assembly` the in-memory joiner uses;
* the invocation that sees a payload complete claims it: an UpdateItem moves its elements to the ledger's
  ``_joined`` set (``"<id> <at>"``), on condition that its earliest element is still there, so one claimer
  wins. It reads the parts with a consistent BatchGetItem, deletes them and hands the message on. A part of a
  payload joined within ``PART_TTL`` (a late duplicate delivery) is removed again and changes nothing.

Each item carries the table's TTL attribute (the one tombstones use), set ``PART_TTL`` seconds after its part
came: DynamoDB's TTL sweeps what an interrupted payload leaves, and the ledger. Without TTL on the table, a
device's expired payloads and joined ids are swept when its next part arrives; those of a device that sends
no more parts stay. A table whose sort key is a string or a number gets a fixed sort value; the primary hash
key must be a string. Nothing read back is trusted: ledger elements out of the protocol's ranges are dropped,
and a part whose stored text is not of the size its ledger recorded fails the join.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..sync import wire
from ..sync.cloud import get_items
from ..sync.records import error_code
from ..sync.wire import Assembly, ProtocolError

if TYPE_CHECKING:
    from .core import HubCore

#: the start of every hash key the joiner writes (a device id and a payload id hold no ``#``)
PREFIX = "_dynabase#parts#"
#: the ledger's string sets: the open parts, and the ids of payloads joined within PART_TTL
_PARTS, _JOINED = "_parts", "_joined"
#: a part item's text, size and part count
_DATA, _SIZE, _OF = "_partData", "_partSize", "_partOf"
#: BatchGetItem's most keys a request
_BATCH = 100


def reserved(value: Any) -> bool:
    """Whether an AttributeValue is one of the joiner's hash keys."""
    return isinstance(value, dict) and isinstance(value.get("S"), str) and value["S"].startswith(PREFIX)


class TableJoiner:
    """Joins a device's parts in ``core``'s table (:class:`~dynabase.hub.core.HubCore`): ``add(device,
    message)`` gives the whole message once this invocation holds the payload's last part (None until then,
    and for every other invocation)."""

    def __init__(self, core: HubCore) -> None:
        self.core = core
        table = core.table
        primary = table.indexes["primary"]
        self.hash = primary.hash
        self.sort = primary.sort
        self.problem: str | None = None
        if table.attribute_type(self.hash) == "number":
            self.problem = (
                f"payloads in parts cannot be joined: they are kept in the table under a string hash key, and "
                f'the primary hash key "{self.hash}" is a number'
            )
        sort_number = bool(self.sort) and table.attribute_type(self.sort or "") == "number"
        self.sort_value = {"N": "0"} if sort_number else {"S": PREFIX.rstrip("#")}

    def add(self, device: str, message: dict[str, Any]) -> dict[str, Any] | None:
        if message.get("op") != "part":
            return message
        part = wire.Part.read(message)
        if self.problem:
            raise ProtocolError(self.problem)
        now = self.core.clock()
        expires = {"N": str(int(now + wire.PART_TTL) + 1)}
        created = self._put(device, part, expires)
        element = f"{part.ident} {part.n} {part.of} {len(part.data)} {int(now)}"
        ledger = _Ledger.read(self._record(device, element, expires), now)
        if part.ident in ledger.joined:  # a late duplicate of a payload joined already: it changes nothing
            if created:
                self._delete(device, part.ident, [part.n])
            self._drop(device, [], [element], [])
            return None
        # a duplicate recorded while another invocation claimed its payload: its element only (the claimer
        # may be reading the parts still)
        late = [e for i in ledger.joined if i in ledger.payloads for e in ledger.payloads.pop(i).elements]
        mine = ledger.payloads.get(part.ident)
        stale = [i for i, p in ledger.payloads.items() if p.reason is not None or p.assembly.expired(now)]
        self._drop(device, [ledger.payloads.pop(i) for i in stale], ledger.junk + late, ledger.stale)
        if mine is None or mine.assembly.expired(now):
            return None  # its payload expired (or its ledger element is not readable): the device asks again
        if mine.reason is not None:
            raise ProtocolError(mine.reason)
        others = sum(p.assembly.size for i, p in ledger.payloads.items() if i != part.ident)
        try:
            wire.check_room(mine.assembly.size, others)
        except ProtocolError:
            self._drop(device, [mine], [], [])
            raise
        if not mine.assembly.complete or not self._claim(device, mine, now):
            return None
        try:
            texts = self._read(device, mine)
        finally:
            self._delete(device, mine.ident, range(mine.assembly.of))
        return mine.assembly.join(texts)

    # -- the table -------------------------------------------------------------------------------------------

    def _key(self, text: str) -> dict[str, Any]:
        key = {self.hash: {"S": PREFIX + text}}
        if self.sort:
            key[self.sort] = self.sort_value
        return key

    def _update(self, device: str, expression: str, values: dict[str, Any], **request: Any) -> dict[str, Any]:
        """UpdateItem of the device's ledger; its attributes after."""
        names = {"#p": _PARTS, "#j": _JOINED, "#t": self.core.plan.ttl_attribute}
        used = expression + str(request.get("ConditionExpression", ""))
        answer = self.core.call(
            "update_item",
            TableName=self.core.name,
            Key=self._key(device),
            UpdateExpression=expression,
            ExpressionAttributeNames={k: v for k, v in names.items() if k in used},
            ExpressionAttributeValues=values,
            ReturnValues="ALL_NEW",
            **request,
        )
        attributes: dict[str, Any] = answer.get("Attributes") or {}
        return attributes

    def _put(self, device: str, part: wire.Part, expires: dict[str, str]) -> bool:
        """Store a part; False when it was there already (a duplicate delivery)."""
        item = {
            **self._key(f"{device}#{part.ident}#{part.n}"),
            _DATA: {"S": part.data},
            _SIZE: {"N": str(len(part.data))},
            _OF: {"N": str(part.of)},
            self.core.plan.ttl_attribute: expires,
        }
        try:
            self.core.call(
                "put_item",
                TableName=self.core.name,
                Item=item,
                ConditionExpression="attribute_not_exists(#h)",
                ExpressionAttributeNames={"#h": self.hash},
            )
        except Exception as error:
            if error_code(error) != "ConditionalCheckFailedException":
                raise
            return False
        return True

    def _record(self, device: str, element: str, expires: dict[str, str]) -> dict[str, Any]:
        return self._update(device, "ADD #p :e SET #t = :t", {":e": {"SS": [element]}, ":t": expires})

    def _claim(self, device: str, payload: _Open, now: float) -> bool:
        """Whether this invocation takes ``payload`` (its elements move from the ledger's open parts to its
        joined ids): only the first of those that saw it complete does."""
        first = min(payload.elements, key=lambda e: (int(e.rsplit(" ", 1)[1]), e))  # its earliest element
        values = {
            ":e": {"SS": payload.elements},
            ":first": {"S": first},
            ":j": {"SS": [f"{payload.ident} {int(now)}"]},
        }
        try:
            self._update(device, "DELETE #p :e ADD #j :j", values, ConditionExpression="contains(#p, :first)")
        except Exception as error:
            if error_code(error) == "ConditionalCheckFailedException":
                return False
            raise
        return True

    def _read(self, device: str, payload: _Open) -> dict[int, str]:
        """The texts of the payload's parts, read consistently; parts that are not what was stored are left
        out (the join then refuses the payload)."""
        wanted = [self._key(f"{device}#{payload.ident}#{n}") for n in range(payload.assembly.of)]
        numbers = {key[self.hash]["S"]: n for n, key in enumerate(wanted)}
        texts: dict[int, str] = {}
        for start in range(0, len(wanted), _BATCH):
            for item in get_items(self.core.context(device), wanted[start : start + _BATCH]):
                hash_key, data, size, of = (_value(item, a) for a in (self.hash, _DATA, _SIZE, _OF))
                n = numbers.get(hash_key.get("S")) if isinstance(hash_key.get("S"), str) else None
                text = data.get("S")
                if n is None or not isinstance(text, str):
                    continue
                if size.get("N") == str(len(text)) and of.get("N") == str(payload.assembly.of):
                    texts[n] = text
        return texts

    def _delete(self, device: str, ident: str, numbers: Iterable[int]) -> None:
        for n in numbers:
            self.core.call("delete_item", TableName=self.core.name, Key=self._key(f"{device}#{ident}#{n}"))

    def _drop(self, device: str, payloads: list[_Open], parts: list[str], joined: list[str]) -> None:
        """Remove payloads (their parts and ledger elements), other elements of the open ``parts`` and
        ``joined`` ids from the ledger; the ledger itself when that leaves it empty."""
        for payload in payloads:
            self._delete(device, payload.ident, sorted(payload.numbers))
        parts = sorted({e for p in payloads for e in p.elements} | set(parts))
        clauses, values = [], {}
        for name, value, elements in (("#p", ":p", parts), ("#j", ":j", sorted(set(joined)))):
            if elements:
                clauses.append(f"{name} {value}")
                values[value] = {"SS": elements}
        if not clauses:
            return
        attributes = self._update(device, "DELETE " + ", ".join(clauses), values)
        if _PARTS in attributes or _JOINED in attributes:
            return
        try:  # nothing open: the ledger goes, unless a part came meanwhile
            self.core.call(
                "delete_item",
                TableName=self.core.name,
                Key=self._key(device),
                ConditionExpression="attribute_not_exists(#p) AND attribute_not_exists(#j)",
                ExpressionAttributeNames={"#p": _PARTS, "#j": _JOINED},
            )
        except Exception as error:
            if error_code(error) != "ConditionalCheckFailedException":
                raise


@dataclass
class _Open:
    """An open payload as the ledger records it: its assembly, the ledger's elements of it, the part numbers
    stored, and why it is refused (its parts disagree on their count)."""

    ident: str
    assembly: Assembly
    elements: list[str] = field(default_factory=list)
    numbers: set[int] = field(default_factory=set)
    reason: str | None = None


@dataclass
class _Ledger:
    """A device's ledger as read back (untrusted): its open ``payloads`` by id, the ids ``joined`` within
    ``PART_TTL``, and the elements to remove: ``junk`` (not the joiner's) and ``stale`` (joined ids expired)."""

    payloads: dict[str, _Open] = field(default_factory=dict)
    joined: set[str] = field(default_factory=set)
    junk: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)

    @classmethod
    def read(cls, attributes: dict[str, Any], now: float) -> _Ledger:
        ledger = cls()
        for element in _strings(attributes.get(_JOINED)):
            fields = element.split(" ")
            at = _time(fields[-1], now)
            if (
                len(fields) == 2
                and wire.is_part_id(fields[0])
                and at is not None
                and now - at <= wire.PART_TTL
            ):
                ledger.joined.add(fields[0])
            else:
                ledger.stale.append(element)
        for element in _strings(attributes.get(_PARTS)):
            fields = element.split(" ")
            if len(fields) != 5 or not all(f.isdigit() and len(f) <= 12 for f in fields[1:]):
                ledger.junk.append(element)
                continue
            ident = fields[0]
            n, of, size, at = (int(f) for f in fields[1:])
            try:
                wire.check_part(ident, n, of, size)
            except ProtocolError:
                ledger.junk.append(element)
                continue
            if _time(fields[4], now) is None:
                ledger.junk.append(element)
                continue
            payload = ledger.payloads.setdefault(ident, _Open(ident, Assembly(of, at)))
            payload.assembly.at = min(payload.assembly.at, at)
            payload.elements.append(element)
            payload.numbers.add(n)
            try:
                payload.assembly.add(n, of, size)
            except ProtocolError as error:
                payload.reason = payload.reason or str(error)
        return ledger


def _value(item: dict[str, Any], name: str) -> dict[str, Any]:
    """The AttributeValue ``name`` of an item read back (an empty one when it is not a map)."""
    value = item.get(name)
    return value if isinstance(value, dict) else {}


def _strings(value: Any) -> list[str]:
    """The elements of a string set read back (anything else: none)."""
    elements = value.get("SS") if isinstance(value, dict) else None
    return sorted(e for e in elements if isinstance(e, str)) if isinstance(elements, list) else []


def _time(text: str, now: float) -> int | None:
    """An epoch second the hub wrote (None: not digits, or later than any it could have written: a time
    that would never expire)."""
    if not text.isdigit() or len(text) > 12 or int(text) > now + wire.PART_TTL:
        return None
    return int(text)


__all__ = ["PREFIX", "TableJoiner", "reserved"]
