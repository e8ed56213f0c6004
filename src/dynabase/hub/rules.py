"""What the hub lets a device push, decided from the device's authenticated id (the MQTT client id), per change.

A device may push a change when: its model syncs (enabled on both sides) ``up`` or ``both``; the change's
``Key`` is the item's key, its hash key not under the hub's own prefix (:data:`~dynabase.hub.parts.PREFIX`);
its version is the device's own (its node is the device id) and not dated more than :data:`AHEAD_MS` ahead of
the hub's clock; the item's scope is the device's scope of that model (the hub's table context with
``deviceId`` = the device: a model whose scope does not use ``deviceId``, or has none, is written by every
device whose rendered scope is the same); and the item is valid against the schema (field types, required
fields, ``enum``, ``validate``). Anything else is refused with a reason.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..clock import SYNC_ATTRS, version_parts
from ..model.syncmeta import ModelSync, SyncPlan
from ..sync.cloud import CONDITIONS
from ..sync.wire import ProtocolError, item_in
from .parts import PREFIX, reserved

#: how far ahead of the hub's clock a pushed version may be dated (devices correct their clock by the hub's)
AHEAD_MS = 5 * 60 * 1000
_VERSION = re.compile(r"\d{14}\.\d{6}\.[^\x00]{1,128}")
#: the AttributeValue types a field of each schema type may hold
_WIRE_TYPES = {
    "string": ("S",),
    "number": ("N",),
    "boolean": ("BOOL",),
    "date": ("S", "N"),
    "object": ("M",),
    "array": ("L",),
    "set": ("SS", "NS", "BS"),
    "binary": ("B",),
    "buffer": ("B",),
    "arraybuffer": ("B",),
}


def change_in(raw: Any, where: str) -> dict[str, Any]:
    """A pushed change read from a message, its shape checked (ProtocolError naming ``where``)."""
    if not isinstance(raw, dict):
        raise ProtocolError(f"{where} must be an object")
    change: dict[str, Any] = {"Key": item_in(raw.get("Key"), f"{where}.Key")}
    for name in ("Item", "OldItem"):
        if raw.get(name) is not None:
            change[name] = item_in(raw[name], f"{where}.{name}")
    for name in ("Version", "Base", "Over"):
        value = raw.get(name)
        if value is None and name != "Version":
            continue
        if not isinstance(value, str) or not _VERSION.fullmatch(value):
            raise ProtocolError(f"{where}.{name} must be a sync version (ms.counter.node), not {value!r}")
        change[name] = value
    fields = raw.get("Fields")
    if fields is not None:
        if not isinstance(fields, list) or not all(isinstance(f, str) for f in fields):
            raise ProtocolError(f"{where}.Fields must be a list of attribute names")
        change["Fields"] = fields
    condition = raw.get("Condition", "newer")
    if condition not in CONDITIONS:
        raise ProtocolError(f"{where}.Condition must be one of {', '.join(CONDITIONS)}, not {condition!r}")
    change["Condition"] = condition
    if condition == "over" and "Over" not in change:
        raise ProtocolError(f'{where}: an "over" change names the version it is written Over')
    return change


def refusal(
    plan: SyncPlan, key_names: list[str], device: str, change: dict[str, Any], now_ms: int
) -> str | None:
    """Why ``device`` may not push ``change`` (None: it may)."""
    item = change.get("Item")
    source = item if item is not None else change.get("OldItem")
    if source is None:
        return "a change carries its Item, or for a delete its OldItem"
    model = plan.model_of(source)
    if model is None:
        kind = source.get(plan.type_field, {}).get("S")
        return f"{kind!r} is not a model that syncs (process.<Model>.sync, enabled on both sides)"
    if not model.pushes:
        return f"process.{model.name}.sync is {model.direction}: devices do not push it"
    if set(change["Key"]) != set(key_names) or any(source.get(n) != change["Key"][n] for n in key_names):
        return f"the change's Key is not the item's key ({', '.join(key_names)})"
    if reserved(change["Key"][key_names[0]]):
        return f"the key {key_names[0]} begins with {PREFIX!r}, the hub's own (payloads in parts)"
    ms, _, node = version_parts(change["Version"])
    if node != device:
        return f"the version {change['Version']!r} is not this device's (its node is not {device!r})"
    if ms > now_ms + AHEAD_MS:
        return f"the version is dated {(ms - now_ms) / 1000:.0f} s ahead of the hub's clock"
    try:
        mine = plan.device_scope(model, device)
    except ValueError as error:
        return f"the hub cannot render this device's scope: {error}"
    try:
        scope = plan.item_scope(model, source)
    except ValueError:
        return None  # a scope the item cannot render: apply_change refuses it (or skips such a delete)
    if scope != mine:
        return f"the item's scope {scope!r} is not this device's ({mine!r})"
    return None if item is None else invalid(plan, model, item, key_names)


def invalid(plan: SyncPlan, model: ModelSync, item: Mapping[str, Any], key_names: list[str]) -> str | None:
    """Why ``item`` (wire format) is not valid against its model's fields (None: it is): types, required
    fields, ``enum``, ``validate``, and key attributes as the model's value templates make them (an item of
    one model cannot take the key of another's)."""
    entity = plan.table.model_for(model.name)
    if entity is None:
        return f"the schema has no model {model.name}"
    wrong = _wrong_key(plan, entity, item, key_names)
    if wrong:
        return f"{model.name}: {wrong}"
    for field in entity.fields.values():
        if len(field.attribute) != 1 or field.attribute[0] in SYNC_ATTRS:
            continue
        value = item.get(field.attribute[0])
        if value is None or "NULL" in value:
            if field.required and field.value is None and field.generate is None:
                return f'{model.name}: the required field "{field.name}" is missing'
            continue
        kind = next(iter(value))
        allowed = _WIRE_TYPES.get(str(field.type).lower())
        if allowed is not None and not field.crypt and kind not in allowed:
            return f'{model.name}: the field "{field.name}" is a {field.type}, not a {kind} value'
        plain = value.get("S") if kind == "S" else value.get("N") if kind == "N" else None
        if plain is None or field.crypt:
            continue
        if field.enum is not None and plain not in [str(v) for v in field.enum]:
            return f'{model.name}: "{field.name}" is not one of {field.enum}'
        if field.validate is not None and not field.validate.search(plain):
            return f'{model.name}: bad value for "{field.name}"'
    return None


def _wrong_key(plan: SyncPlan, entity: Any, item: Mapping[str, Any], key_names: list[str]) -> str | None:
    decoded = plan.table.decoder.decode_item({k: v for k, v in item.items() if k not in SYNC_ATTRS})
    values = dict(plan.table.context)
    for field in entity.fields.values():
        if len(field.attribute) == 1 and field.attribute[0] in decoded:
            values[field.name] = decoded[field.attribute[0]]
    for field in entity.fields.values():
        if field.template is None or len(field.attribute) != 1 or field.attribute[0] not in key_names:
            continue
        try:
            expected = field.template.render(values, iso_dates=plan.table.params.iso_dates)
        except ValueError:
            return f'the key attribute "{field.attribute[0]}" cannot be rendered from the item'
        if expected is not None and decoded.get(field.attribute[0]) != expected:
            return f'the key attribute "{field.attribute[0]}" is not what the schema makes it ({expected!r})'
    return None


__all__ = ["AHEAD_MS", "change_in", "invalid", "refusal"]
