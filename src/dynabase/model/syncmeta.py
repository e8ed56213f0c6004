"""What sync needs from a table's schema: the synced models, their direction and scope, the sync index.

The ``process`` map says where a model lives (``enable``) and which way it syncs (``sync``); the dynabase
extension ``scope`` (a value template over the item's fields and the table context, e.g. ``'${deviceId}'``)
says which devices receive a down-synced item: those whose own scope (their context, with ``deviceId``,
rendered through the same template) is equal. Items of synced models carry the metadata attributes of
:mod:`dynabase.clock`; the cloud table has a sparse GSI (:data:`SYNC_INDEX`) on ``_syncScope`` / ``_syncSeq``
from which devices pull, and TTL on the tombstones' expiry attribute.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..clock import (
    DELETED_ATTR,
    SCOPE_ATTR,
    SEQ_ATTR,
    SYNC_ATTRS,
    TTL_ATTR,
    VERSION_ATTR,
    make_seq,
    make_version,
    version_parts,
    wall_clock,
)
from ..schema.template import Template
from .errors import OneTableArgError
from .spec import _get

if TYPE_CHECKING:
    from .table import Table

SYNC_INDEX = "syncIndex"
DIRECTIONS = ("up", "down", "both")


@dataclass(frozen=True)
class ModelSync:
    """One synced model: ``direction`` is ``up``, ``down`` or ``both``; ``scope`` its scope template."""

    name: str
    direction: str
    scope: Template | None

    @property
    def pushes(self) -> bool:
        return self.direction in ("up", "both")

    @property
    def pulls(self) -> bool:
        return self.direction in ("down", "both")


class SyncPlan:
    """The synced models of a table's schema (models enabled on both sides whose ``sync`` is not none)."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.type_field = table.params.type_field
        self.models: dict[str, ModelSync] = {}
        for name, entry in table.schema.process.items():
            direction = _get(entry, "sync") or "none"
            enable = _get(entry, "enable") or "both"
            if direction in DIRECTIONS and enable == "both" and name in table.schema.models:
                scope = _get(entry, "scope")
                self.models[name] = ModelSync(name, direction, Template(scope) if scope else None)
        self.ttl_attribute = self._ttl_attribute()
        self.tombstone_ttl = float(table.sync_tombstone_ttl)

    def _ttl_attribute(self) -> str:
        """The attribute tombstones expire by: the schema's own TTL field (a table has one), else ``_syncTtl``."""
        for name in self.table.schema.models:
            model = self.table.model_for(name)
            for field in model.fields.values() if model is not None else ():
                if field.ttl and len(field.attribute) == 1:
                    return field.attribute[0]
        return TTL_ATTR

    @property
    def pushed(self) -> list[str]:
        return [m.name for m in self.models.values() if m.pushes]

    @property
    def pulled(self) -> list[str]:
        return [m.name for m in self.models.values() if m.pulls]

    @property
    def guarded(self) -> list[str]:
        """Models the cloud owns (``sync: down``): a device write of one is undone by the next sync."""
        return [m.name for m in self.models.values() if not m.pushes]

    def metadata_reserve(self, node: str) -> int:
        """Bytes the metadata of a push from ``node`` adds to an item: names and values of the version, the
        arrival stamp and the scope (counted as its template's text with ``node``: a scope rendered from
        longer values is found too big at the push)."""
        version = make_version(0, 0, node)
        scope = max(
            (
                len(m.name) + 1 + (len(m.scope.text) + len(node) if m.scope else 0)
                for m in self.models.values()
            ),
            default=0,
        )
        names = len(VERSION_ATTR) + len(SEQ_ATTR) + len(SCOPE_ATTR)
        return names + len(version) + len(make_seq(0, node)) + scope

    def model_of(self, item: Mapping[str, Any] | None) -> ModelSync | None:
        if not item:
            return None
        kind = item.get(self.type_field)
        name = kind.get("S") if isinstance(kind, Mapping) else kind
        return self.models.get(name) if isinstance(name, str) else None

    def _render(self, model: ModelSync, values: Mapping[str, Any]) -> str:
        if model.scope is None:
            return f"{model.name}#"
        text = model.scope.render(values, iso_dates=self.table.params.iso_dates)
        if text is None:
            missing = ", ".join(model.scope.missing(values))
            raise ValueError(f"process.{model.name}.scope {model.scope.text!r} needs {missing}")
        return f"{model.name}#{text}"

    def item_scope(self, model: ModelSync, item: Mapping[str, Any]) -> str:
        """``<Model>#<scope>`` of a stored item (wire format), its fields over the table context."""
        values = dict(self.table.context)
        if model.scope is not None:
            entity = self.table.model_for(model.name)
            decoded = self.table.decoder.decode_item({k: v for k, v in item.items() if k not in SYNC_ATTRS})
            values.update(decoded)
            for field in entity.fields.values() if entity is not None else ():
                if len(field.attribute) == 1 and field.attribute[0] in decoded:
                    values[field.name] = decoded[field.attribute[0]]
        return self._render(model, values)

    def properties_scope(self, model: ModelSync, properties: Mapping[str, Any]) -> str:
        """``<Model>#<scope>`` from an entity's properties (field names) over the table context."""
        return self._render(model, {**self.table.context, **properties})

    def device_scope(self, model: ModelSync, device_id: str) -> str:
        """The scope a device pulls: its table context, with ``deviceId``, through the model's template."""
        return self._render(model, {**self.table.context, "deviceId": device_id})


def sync_index_definition() -> tuple[dict[str, Any], list[dict[str, str]]]:
    """The cloud table's sync GSI and the attribute definitions it adds."""
    index = {
        "IndexName": SYNC_INDEX,
        "KeySchema": [
            {"AttributeName": SCOPE_ATTR, "KeyType": "HASH"},
            {"AttributeName": SEQ_ATTR, "KeyType": "RANGE"},
        ],
        "Projection": {"ProjectionType": "ALL"},
    }
    attributes = [
        {"AttributeName": SCOPE_ATTR, "AttributeType": "S"},
        {"AttributeName": SEQ_ATTR, "AttributeType": "S"},
    ]
    return index, attributes


# -- the cloud side of the entity layer: writes carry sync metadata, removes leave tombstones -------------------

CLOUD_NODE = "cloud"
_clock_lock = threading.Lock()
_last_stamp = [0, 0]  # (ms, counter) of this process's newest cloud-side version
_CLAUSE = re.compile(r"\b(SET|REMOVE|ADD|DELETE)\b", re.IGNORECASE)


def cloud_version(above: str | None = None) -> tuple[str, str]:
    """A new version and arrival stamp for a cloud-side entity write: monotonic within the process, and, for
    this write only, above ``above`` (the version the item holds, when a write found a newer one). The
    arrival stamp is the clock's own time."""
    ms = int(wall_clock() * 1000)
    with _clock_lock:
        if ms > _last_stamp[0]:
            _last_stamp[:] = [ms, 0]
        else:
            _last_stamp[1] += 1
        stamp_ms, counter = _last_stamp
    version = make_version(stamp_ms, counter, CLOUD_NODE)
    if above and above >= version:  # the item's clock ran ahead of ours: go just above it (this item only)
        held_ms, held_counter, _ = version_parts(above)
        version = make_version(held_ms, held_counter + 1, CLOUD_NODE)
    return version, make_seq(ms, CLOUD_NODE)


def _add_clause(expression: str, keyword: str, parts: list[str]) -> str:
    """``expression`` with ``parts`` added to its ``keyword`` clause (created when absent)."""
    for match in _CLAUSE.finditer(expression):
        if match.group(1).upper() == keyword:
            at = match.end()
            return f"{expression[:at]} {', '.join(parts)},{expression[at:]}"
    return f"{expression} {keyword} {', '.join(parts)}".strip()


def _guard(cmd: dict, names: dict, creating: bool) -> None:
    """A tombstone counts as no item: a create may replace it; other conditions need a live item."""
    condition = cmd.get("ConditionExpression")
    if not condition:
        return
    names["#_sd"] = DELETED_ATTR
    if creating:
        cmd["ConditionExpression"] = f"({condition}) OR attribute_exists(#_sd)"
    else:
        cmd["ConditionExpression"] = f"({condition}) AND attribute_not_exists(#_sd)"


def _stored_scope(plan: SyncPlan, model: ModelSync, cmd: dict) -> str | None:
    """The scope of an item a remove or an update names without the scope's fields, read from the stored item
    (None when there is none: the remove of a missing item is a no-op; an update cannot tell)."""
    table = plan.table
    found = table.client.get_item(TableName=cmd["TableName"], Key=cmd["Key"], ConsistentRead=True).get("Item")
    if not found or DELETED_ATTR in found:
        return f"{model.name}#" if "UpdateExpression" not in cmd else None
    try:
        return plan.item_scope(model, found)
    except ValueError:
        return None


def cloud_command(
    plan: SyncPlan,
    model_name: str,
    op: str,
    cmd: dict,
    properties: Mapping[str, Any],
    exists: Any,
    in_transaction: bool = False,
) -> tuple[str, dict]:
    """A cloud-side command of a synced model, with what sync needs: ``(operation, command)``. Reads hide
    tombstones (a filter), writes carry version, arrival stamp and scope, and a delete becomes a tombstone
    (``put``) that needs a live item outside transactions (see :func:`missing_is_noop`)."""
    model = plan.models[model_name]
    names = dict(cmd.get("ExpressionAttributeNames") or {})
    if op in ("find", "scan"):
        names["#_sd"] = DELETED_ATTR
        existing = cmd.get("FilterExpression")
        cmd["FilterExpression"] = (
            f"({existing}) AND attribute_not_exists(#_sd)" if existing else "attribute_not_exists(#_sd)"
        )
        cmd["ExpressionAttributeNames"] = names
        return op, cmd
    if op not in ("put", "update", "delete"):
        return op, cmd
    try:
        scope = plan.properties_scope(model, properties)
    except ValueError as error:
        stored = _stored_scope(plan, model, cmd) if op in ("delete", "update") else None
        if stored is None:
            raise OneTableArgError(f"Cannot write {model_name} on the cloud side: {error}") from None
        scope = stored
    version, seq = cloud_version()
    meta = {VERSION_ATTR: {"S": version}, SEQ_ATTR: {"S": seq}, SCOPE_ATTR: {"S": scope}}
    if op == "put":
        cmd["Item"] = {**cmd["Item"], **meta}
        _guard(cmd, names, exists is False)
    elif op == "update":
        values = dict(cmd.get("ExpressionAttributeValues") or {})
        sets = []
        for i, (name, value) in enumerate(meta.items()):
            names[f"#_s{i}"] = name
            values[f":_s{i}"] = value
            sets.append(f"#_s{i} = :_s{i}")
        removes = ["#_sd"]
        names["#_sd"] = DELETED_ATTR
        if plan.ttl_attribute == TTL_ATTR:
            names["#_st"] = TTL_ATTR
            removes.append("#_st")
        expression = _add_clause(cmd.get("UpdateExpression") or "", "SET", sets)
        cmd["UpdateExpression"] = _add_clause(expression, "REMOVE", removes)
        cmd["ExpressionAttributeValues"] = values
        _guard(cmd, names, exists is None)
    else:
        expires = int(wall_clock() + plan.tombstone_ttl)
        key = cmd.pop("Key")
        if not in_transaction:  # deleting no item is a no-op, not a newer delete (the caller sees None)
            names["#_k"] = next(iter(key))
            names["#_sd"] = DELETED_ATTR
            live = "attribute_exists(#_k) AND attribute_not_exists(#_sd)"
            condition = cmd.get("ConditionExpression")
            cmd["ConditionExpression"] = f"({condition}) AND {live}" if condition else live
        item = {
            **key,
            plan.type_field: {"S": model_name},
            **meta,
            DELETED_ATTR: {"BOOL": True},
            plan.ttl_attribute: {"N": str(expires)},
        }
        cmd["Item"] = item
        if in_transaction:
            _guard(cmd, names, False)
        op = "put"
    if not in_transaction:  # the item's versions only grow: a write that finds a newer one goes above it
        names["#_sv"] = VERSION_ATTR
        cmd["ExpressionAttributeValues"] = {
            **(cmd.get("ExpressionAttributeValues") or {}),
            ":_sv": {"S": version},
        }
        newer = "(attribute_not_exists(#_sv) OR #_sv < :_sv)"
        condition = cmd.get("ConditionExpression")
        cmd["ConditionExpression"] = f"({condition}) AND {newer}" if condition else newer
        cmd["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
    if names:
        cmd["ExpressionAttributeNames"] = names
    return op, cmd


def after_failed_write(op: str, cmd: dict, error: Exception, had_condition: bool) -> str:
    """What a cloud-side write of a synced model whose condition failed does next: ``"retry"`` (the item held
    a version at or above this write's, from a clock ahead of this one: ``cmd`` now carries a version above
    it), ``"none"`` (a remove found no live item: DeleteItem of a missing item is a no-op) or ``"raise"``."""
    values = cmd.get("ExpressionAttributeValues") or {}
    if ":_sv" not in values or getattr(error, "code", None) != "ConditionalCheckFailedException":
        return "raise"
    response = getattr(getattr(error, "error", None), "response", None) or {}
    old = response.get("Item") if isinstance(response, Mapping) else None
    if op == "delete" and (old is None or DELETED_ATTR in old):
        return "raise" if had_condition else "none"
    held = ((old or {}).get(VERSION_ATTR) or {}).get("S")
    if not held or held < values[":_sv"]["S"]:
        return "raise"  # the caller's own condition failed
    version, seq = cloud_version(above=held)
    values[":_sv"] = {"S": version}
    if "Item" in cmd:
        cmd["Item"] = {**cmd["Item"], VERSION_ATTR: {"S": version}, SEQ_ATTR: {"S": seq}}
    else:
        values[":_s0"], values[":_s1"] = {"S": version}, {"S": seq}
    return "retry"
