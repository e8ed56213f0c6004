"""The hub's transport-free core: one device message in, the messages to publish out; stream records in, the
fan-out to publish. The MQTT hub (:mod:`.mqtt`) and the Lambda handlers (:mod:`.aws`) are its I/O.

Requests (device -> ``up/D``) and their answers (hub -> ``down/D``; each carries ``re``, the request's
``id``, and ``clock``, the hub's clock in epoch ms, against which the device measures its offset):

* ``hello`` (``checkpoints``) -> ``welcome`` (``scopes``: the scopes the device may pull);
* ``push`` (``changes``) -> ``pushed`` (``outcomes``: one per change, in order; see :class:`~dynabase.sync.
  cloud.Outcome`);
* ``pull`` (``scope``, ``after``, ``start``, ``limit``) -> ``page`` (``items``, ``last`` when more follow);
* ``get`` (``keys``) -> ``items`` (those in the device's scopes);
* anything wrong -> ``error`` (``reason``, ``retryable``).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..clock import SCOPE_ATTR, make_seq, version_parts, wall_clock
from ..model.syncmeta import ModelSync, SyncPlan
from ..sync import wire
from ..sync.answers import check_answer
from ..sync.cloud import CloudContext, Outcome, apply_change, get_items, read_scope
from ..sync.errors import classify
from ..sync.records import version_of
from ..sync.wire import ProtocolError
from .parts import TableJoiner, reserved
from .rules import change_in, refusal

if TYPE_CHECKING:
    from ..model.table import Table

Message = tuple[str, bytes]
MAX_PAGE = 1000
MAX_KEYS = 100
#: changes in one push at most (a device sends at most its batch size)
MAX_CHANGES = 1000
#: a marker no device id holds (wire.check_id refuses NUL): where a scope template puts ``deviceId``
_MARK = "\x00device\x00"


class HubCore:
    """The cloud side of MQTT sync for one table (``table``: its entity-layer ``Table``, ``side="cloud"``).

    :param max_payload: the broker's largest message (bytes): longer answers go in parts.
    :param tombstone_ttl: seconds a delete's tombstone lives (as the devices' ``Sync``).
    :param on_write: called after a push wrote the table (its change is in the table's stream now: a hub that
        reads the stream can fan it out at once rather than at its next poll).
    :param durable_parts: join payloads in parts in the table (:class:`~dynabase.hub.parts.TableJoiner`: a
        hub whose every message may reach another process, as on AWS Lambda) rather than in memory.
    """

    def __init__(
        self,
        table: Table,
        *,
        max_payload: int = wire.MAX_PAYLOAD,
        tombstone_ttl: float = 30 * 86400,
        overlap: float = 15.0,
        clock: Callable[[], float] = wall_clock,
        on_write: Callable[[], None] | None = None,
        durable_parts: bool = False,
    ) -> None:
        self.on_write = on_write
        if max_payload < 4096:
            raise ValueError(f"max_payload must be at least 4096 bytes, not {max_payload}")
        self.table = table
        self.name = table.name
        self.plan = SyncPlan(table)
        primary = table.indexes["primary"]
        self.key_names = [n for n in (primary.hash, primary.sort) if n]
        self.max_payload = max_payload
        self.tombstone_ttl = float(tombstone_ttl)
        self.slow_ms = int(overlap * 1000) // 3
        self.clock = clock
        self.endpoint = str(
            getattr(getattr(table.client, "meta", None), "endpoint_url", "") or "the cloud table"
        )
        self.joiner: wire.Joiner | TableJoiner = TableJoiner(self) if durable_parts else wire.Joiner()
        self._lock = threading.Lock()
        self._last_ms = 0
        self._routes = {name: self._route(model) for name, model in self.plan.models.items() if model.pulls}

    # -- clocks and the cloud context ------------------------------------------------------------------------

    def now_ms(self) -> int:
        return int(self.clock() * 1000)

    def _stamp(self, device: str) -> str:
        with self._lock:
            self._last_ms = max(self.now_ms(), self._last_ms)
            return make_seq(self._last_ms, device)

    def call(self, method: str, **request: Any) -> dict[str, Any]:
        response: dict[str, Any] = getattr(self.table.client, method)(**request)
        check_answer(method, response, self.endpoint)
        return response

    def context(self, device: str) -> CloudContext:
        return CloudContext(
            call=self.call,
            table=self.name,
            plan=self.plan,
            key_names=self.key_names,
            now_ms=self.now_ms,
            stamp=lambda: self._stamp(device),
            tombstone_ttl=self.tombstone_ttl,
            slow_ms=self.slow_ms,
            guard_scope=True,
            endpoint=self.endpoint,
        )

    def scopes(self, device: str) -> dict[str, ModelSync]:
        """The scopes ``device`` pulls: ``{scope: model}``."""
        out = {}
        for model in self.plan.models.values():
            if model.pulls:
                try:
                    out[self.plan.device_scope(model, device)] = model
                except ValueError:
                    continue
        return out

    # -- requests --------------------------------------------------------------------------------------------

    def handle(self, device: str, payload: bytes | dict[str, Any]) -> list[Message]:
        """The answers to one message from ``device`` (none while a payload's parts are still coming)."""
        rid: Any = None
        try:
            wire.check_id(device)
            message = wire.loads(payload) if isinstance(payload, (bytes, str)) else wire.checked(payload)
            joined = self.joiner.add(device, message)
            if joined is None:
                return []
            rid = joined.get("id")
            if not isinstance(rid, str) or not 0 < len(rid) <= 64:
                raise ProtocolError('a request carries an "id" (a string of 1-64 characters)')
            handler = _HANDLERS.get(joined["op"])
            if handler is None:
                raise ProtocolError(f"unknown op {joined['op']!r} (hello, push, pull, get)")
            body = handler(self, device, joined)
        except (ProtocolError, ValueError) as error:
            body = {"op": "error", "reason": str(error), "retryable": False}
        except Exception as error:
            failure = classify(error, self.endpoint)
            body = {"op": "error", "reason": str(failure), "retryable": failure.retryable}
        return self._answer(device, {**body, "re": rid})

    def _answer(self, device: str, body: dict[str, Any]) -> list[Message]:
        payload = wire.dumps({**body, "clock": self.now_ms()})
        topic = wire.down_topic(self.name, device)
        return [(topic, part) for part in wire.split(payload, self.max_payload)]

    def _hello(self, device: str, message: dict[str, Any]) -> dict[str, Any]:
        return {"op": "welcome", "protocol": wire.PROTOCOL, "scopes": sorted(self.scopes(device))}

    def _push(self, device: str, message: dict[str, Any]) -> dict[str, Any]:
        raw = message.get("changes")
        if not isinstance(raw, list) or len(raw) > MAX_CHANGES:
            raise ProtocolError(f'a push carries "changes", a list of at most {MAX_CHANGES}')
        ctx = self.context(device)
        outcomes = []
        for i, entry in enumerate(raw):
            outcomes.append(self._push_one(ctx, device, entry, f"changes[{i}]").to_json())
        if self.on_write is not None and any(o["outcome"] == "landed" for o in outcomes):
            self.on_write()
        return {"op": "pushed", "outcomes": [_json_outcome(o) for o in outcomes]}

    def _push_one(self, ctx: CloudContext, device: str, entry: Any, where: str) -> Outcome:
        try:
            change = change_in(entry, where)
        except ProtocolError as error:
            return Outcome("refused", reason=str(error))
        reason = refusal(self.plan, self.key_names, device, change, self.now_ms())
        if reason is not None:
            return Outcome("refused", reason=reason)
        try:
            return apply_change(ctx, change)
        except Exception as error:
            failure = classify(error, self.endpoint)
            if not failure.retryable:
                raise failure from error
            return Outcome("retry", reason=str(failure))

    def _pull(self, device: str, message: dict[str, Any]) -> dict[str, Any]:
        scope = message.get("scope")
        if not isinstance(scope, str) or scope not in self.scopes(device):
            raise ProtocolError(f"the scope {scope!r} is not one this device pulls")
        after = message.get("after")
        if after is not None and not isinstance(after, str):
            raise ProtocolError('"after" is an arrival stamp (a string) or null')
        start = message.get("start")
        limit = message.get("limit", MAX_PAGE)
        if not isinstance(limit, int) or not 0 < limit <= MAX_PAGE:
            raise ProtocolError(f'"limit" is a number of items, 1-{MAX_PAGE}')
        key = None if start is None else wire.item_in(start, "start")
        page = read_scope(self.context(device), scope, after, key, limit)
        out: dict[str, Any] = {"op": "page", "items": wire.items_out(page["Items"])}
        if "LastEvaluatedKey" in page:
            out["last"] = wire.items_out([page["LastEvaluatedKey"]])[0]
        return out

    def _get(self, device: str, message: dict[str, Any]) -> dict[str, Any]:
        keys = wire.items_in(message.get("keys"), "keys")
        if not 0 < len(keys) <= MAX_KEYS or any(set(k) != set(self.key_names) for k in keys):
            raise ProtocolError(f"a get names 1-{MAX_KEYS} primary keys ({', '.join(self.key_names)})")
        mine = self.scopes(device)
        found = [i for i in get_items(self.context(device), keys) if _scope(i) in mine]
        return {"op": "items", "items": wire.items_out(found)}

    # -- fan-out ---------------------------------------------------------------------------------------------

    def _route(self, model: ModelSync) -> tuple[str, re.Pattern[str] | None]:
        """How a model's items reach devices: ``("shared", None)`` when its scope does not use ``deviceId``,
        else ``("down", pattern)`` whose group is the device id in a rendered scope."""
        try:
            rendered = self.plan.device_scope(model, _MARK)
        except ValueError:
            return "none", None
        if _MARK not in rendered:
            return "shared", None
        pattern = "(.+?)".join(re.escape(part) for part in rendered.split(_MARK))
        return "down", re.compile(pattern)

    def targets(self, item: dict[str, Any]) -> list[str]:
        """The topics a cloud item (a new version of a pulled model) is published to."""
        if reserved(item.get(self.key_names[0])):
            return []  # a part of a payload the hub is joining
        model = self.plan.model_of(item)
        scope = _scope(item)
        version = version_of(item)
        if model is None or scope is None or model.name not in self._routes or version is None:
            return []
        how, pattern = self._routes[model.name]
        if how == "shared":
            return (
                [wire.shared_topic(self.name, model.name)]
                if scope == self.plan.device_scope(model, "")
                else []
            )
        if pattern is None:
            return []
        match = pattern.fullmatch(scope)
        if match is None or len(set(match.groups())) != 1:
            return []
        device = match.group(1)
        try:
            wire.check_id(device)
        except ValueError:
            return []
        if version_parts(version)[2] == device:
            return []  # the device's own push: it has it
        return [wire.down_topic(self.name, device)]

    def fan_out(self, event: dict[str, Any]) -> list[Message]:
        """The messages for a batch of stream records (Lambda's event shape, ``NEW_AND_OLD_IMAGES``)."""
        by_topic: dict[str, list[dict[str, Any]]] = {}
        for record in event.get("Records") or []:
            if record.get("eventName") == "REMOVE":
                continue  # a tombstone swept by TTL (devices drop theirs by age) or a non-sync delete
            image = (record.get("dynamodb") or {}).get("NewImage")
            if not image:
                continue
            try:
                item = wire.item_in(image, "NewImage")
            except ProtocolError:
                continue
            for topic in self.targets(item):
                by_topic.setdefault(topic, []).append(item)
        out: list[Message] = []
        for topic, items in by_topic.items():
            for chunk in wire.chunks(wire.items_out(items), self.max_payload):
                out += [
                    (topic, p)
                    for p in wire.split(wire.dumps({"op": "changes", "items": chunk}), self.max_payload)
                ]
        return out


def _json_outcome(outcome: dict[str, Any]) -> dict[str, Any]:
    if "item" in outcome:
        outcome["item"] = wire.items_out([outcome["item"]])[0]
    return outcome


def _scope(item: dict[str, Any]) -> str | None:
    value = item.get(SCOPE_ATTR)
    return value.get("S") if isinstance(value, dict) else None


_HANDLERS: dict[str, Callable[[HubCore, str, dict[str, Any]], dict[str, Any]]] = {
    "hello": HubCore._hello,
    "push": HubCore._push,
    "pull": HubCore._pull,
    "get": HubCore._get,
}

__all__ = ["HubCore", "Message"]
