"""Model: one entity type of a single-table design, with OneTable's semantics.

A model turns API properties (schema field names, Python values) into DynamoDB requests and the items it gets
back into plain dicts.  The pipeline for every call is OneTable's, one concern per module:

1. :mod:`.prepare`: properties are copied; the table/params context is blended in; ``default`` / ``generate``
   values are set (create, upsert); value templates are run in dependency order (:mod:`.keys`); ``None``
   values are dropped (or become REMOVEs on update) unless the field keeps nulls; ``required`` / ``enum`` /
   ``validate`` are checked; the attributes the operation needs are selected; :mod:`.write` converts them to
   their stored forms (dates, numbers, binary, crypt);
2. :class:`~dynabase.model.expression.Expression` builds the request;
3. :mod:`.request`: the request runs (paging for find/scan), or is added to a ``transaction`` / ``batch``
   collector, or is returned unexecuted (``execute=False``);
4. :mod:`.read`: returned items are mapped back to fields: attribute names -> field names, packed attributes
   unpacked, dates -> ``datetime``, binary -> ``bytes``, hidden fields left out unless ``hidden=True``.

Unique fields (:mod:`.unique`) add their sentinel items to the same transaction.  The common calls take the
paths compiled once per model instead of steps 1, 2 and 4: :mod:`.compiled` (create / update / find
requests), the key plan of :mod:`.keys` (get) and the generated readers of :mod:`.read`.  ``Model`` itself
holds the public API and composes these parts; it reaches its table only through the Table's public methods.
Each public method first checks its keyword params against the catalogue of :mod:`.params` (the compiled
paths included: they serve a call only after that check).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from .blocks import Block, ModelSpec
from .compiled import FIND_PARAMS, WRITE_PARAMS, CompiledPaths
from .errors import (
    NonUniqueError,
    OneTableArgError,
    ValidationError,
)
from .expression import Expression
from .keys import GENERAL, GET_PARAMS, KeyPath
from .params import ALIASES, check_params, require
from .prepare import PreparePath
from .read import ReadPath
from .request import RequestPath
from .spec import MISSING, IndexSpec
from .unique import UNIQUE_MODEL, UniqueFields
from .values import clone, write_date
from .write import WritePath

if TYPE_CHECKING:  # pragma: no cover
    from .table import Table


def normalize_params(params: Mapping[str, Any], overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """OneTable's checkArgs for params: defaults (``overrides``) under the caller's params, keys normalised."""
    out = dict(overrides) if overrides else {}
    for key, value in params.items():
        out[ALIASES.get(key, key)] = value
    return out


class Model(CompiledPaths, UniqueFields, PreparePath, WritePath, ReadPath, RequestPath, KeyPath):
    """An entity model bound to a :class:`~dynabase.model.Table`.  Get one with ``table.model("Name")``."""

    def __init__(self, table: Table, spec: ModelSpec) -> None:
        self.table = table
        self.spec = spec
        self.name = spec.name
        self.indexes: dict[str, IndexSpec] = table.indexes
        self.primary = table.indexes["primary"]
        self.type_field = table.params.type_field
        self.created_field = table.params.created_field
        self.updated_field = table.params.updated_field
        self.timestamps = spec.timestamps
        self.block: Block = spec.block
        self.fields = spec.block.fields
        self._compile_readers()
        self._compile_keys()
        self._compile_requests()

    def __repr__(self) -> str:
        return f"<Model {self.name} of table {self.table.name!r}>"

    def create(self, properties: Mapping[str, Any], **params: Any) -> Any:
        """Create an item (PutItem; ``exists=False`` by default -> fails if the key exists).

        Unique fields are guarded by ``_unique#`` sentinel items written in the same transaction.
        Returns the item as written (hidden fields left out).
        """
        if params:  # (none: nothing to check, and no call on the hot paths)
            check_params("create", params)
        if type(properties) is dict and params.keys() <= WRITE_PARAMS and self._compiled_ok():
            built = self._build_put(properties, params)
            if built is not None:
                return self._run_built(built)
        properties, p = self._check(properties, params, {"parse": True, "high": True, "exists": False})
        if self.spec.has_unique:
            return self._create_unique(properties, p)
        return self._put_item(properties, p)

    def get(self, properties: Mapping[str, Any], **params: Any) -> Any:
        """Get one item by its key; with a partial key or ``index=``, a query that must match at most one item
        (``NonUniqueError`` otherwise).  Returns the item dict or ``None``."""
        if params:  # (none: nothing to check, and no call on the hot paths)
            check_params("get", params)
        if (
            type(properties) is dict
            and (not params or params.keys() <= GET_PARAMS)
            and self._key_fields is not None
        ):
            found = self._get_by_key(properties, params)
            if found is not GENERAL:
                return found
        properties, p = self._check(properties, params, {"parse": True, "high": True})
        properties = self._prepare("get", properties, p)
        if p.get("fallback"):
            if p.get("batch") is not None:
                raise NonUniqueError("Need complete keys for batched get operation", properties=properties)
            p["limit"] = 2
            items = self._query_items(properties, p)
            if items is None:
                return None
            if len(items) > 1:
                raise NonUniqueError(
                    "Get without sort key returns more than one result", properties=properties
                )
            return items[0] if items else None
        return self._run("get", Expression(self, "get", properties, p))

    def find(self, properties: Mapping[str, Any] | None = None, **params: Any) -> Any:
        """Query: the hash key (or its template's inputs) is required; the sort key may be a value or an operator
        dict (``{"begins": "x"}``, ``{"between": [a, b]}``, ``{"<": v}``, ...); other properties filter.
        Returns a :class:`~dynabase.model.Page` (``.next`` / ``.prev`` cursors, ``.count``)."""
        if params:  # (none: nothing to check, and no call on the hot paths)
            check_params("find", params)
        if type(properties) is dict and params.keys() <= FIND_PARAMS and self._compiled_ok():
            built = self._build_find(properties, params)
            if built is not None:
                return self._run_built(built)
        properties, p = self._check(properties or {}, params, {"parse": True, "high": True})
        return self._query_items(properties, p)

    def scan(self, properties: Mapping[str, Any] | None = None, **params: Any) -> Any:
        """Scan for items of this model (filtered by the type attribute); ``segments=`` / ``segment=`` for
        parallel scans.  Returns a :class:`~dynabase.model.Page`."""
        check_params("scan", params)
        properties, p = self._check(properties or {}, params, {"parse": True, "high": True})
        return self._scan_items(properties, p)

    def update(self, properties: Mapping[str, Any], **params: Any) -> Any:
        """Update an item (``exists=True`` by default -> fails if it does not exist).

        ``set`` / ``add`` / ``remove`` / ``delete`` / ``push`` params give expression updates; properties of
        nested schemas are updated field by field (``partial``).  Returns the item after the update
        (``ALL_NEW``) unless ``return_=`` says otherwise.
        """
        if params:  # (none: nothing to check, and no call on the hot paths)
            check_params("update", params)
        if type(properties) is dict and params.keys() <= WRITE_PARAMS and self._compiled_ok():
            built = self._build_update(properties, params)
            if built is not None:
                return self._run_built(built)
        properties, p = self._check(properties, params, {"exists": True, "parse": True, "high": True})
        removing = p.get("remove") or []
        if isinstance(removing, str):
            removing = [removing]
        if self.spec.has_unique and any(name in self.spec.unique_inputs for name in [*properties, *removing]):
            return self._update_unique(properties, p)
        return self._update_item(properties, p)

    def upsert(self, properties: Mapping[str, Any], **params: Any) -> Any:
        """Update, creating the item if it does not exist (``exists=None``)."""
        check_params("upsert", params)
        params["exists"] = None
        return self.update(properties, **params)

    def remove(self, properties: Mapping[str, Any], **params: Any) -> Any:
        """Delete an item (returns the removed item, or ``None``).  ``many=True`` removes every match of a
        query (returns the list); ``exists=True`` fails if the item does not exist."""
        check_params("remove", params)
        properties, p = self._check(properties, params, {"parse": True, "exists": None, "high": True})
        properties = self._prepare("delete", properties, p)
        if p.get("fallback") or p.get("many"):
            return self._remove_by_find(properties, p)
        if self.spec.has_unique:
            return self._remove_unique(properties, p)
        return self._run("delete", Expression(self, "delete", properties, p))

    def check(self, properties: Mapping[str, Any], **params: Any) -> Any:
        """A ConditionCheck in a ``transaction=`` (``where=`` / ``exists=`` give the condition)."""
        check_params("check", params)
        properties, p = self._check(properties, params, {"parse": True, "high": True})
        if p.get("transaction") is None and p.get("execute") is not False:
            raise OneTableArgError("check() is only valid in a transaction")
        properties = self._prepare("get", properties, p)
        return self._run("check", Expression(self, "check", properties, p))

    def init(self, properties: Mapping[str, Any] | None = None, **params: Any) -> dict[str, Any]:
        """A new item's properties (defaults, generated ids, templates; ``None`` for unset fields), unwritten."""
        check_params("init", params)
        properties, p = self._check(properties or {}, params, {"parse": True, "high": True})
        return self._init_item(properties, p)

    def template(self, name: str, properties: Mapping[str, Any]) -> Any:
        """Evaluate one field's value template with ``properties`` (None when unresolved)."""
        require("template", "properties", properties, "dict")
        field = self.fields.get(name)
        if field is None or not isinstance(field.value, str):
            raise OneTableArgError(f'Cannot find templated field "{name}" in "{self.name}"')
        return self._run_template("find", None, field, dict(properties), {}, field.template)

    def _check(
        self,
        properties: Mapping[str, Any],
        params: Mapping[str, Any],
        overrides: Mapping[str, Any] | None = None,
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        if properties is None:
            raise OneTableArgError("Missing properties")
        if not isinstance(properties, Mapping):
            raise ValidationError(
                f'Properties for "{self.name}" must be a mapping, not {type(properties).__name__}',
                model=self.name,
            )
        if params.get("checked"):
            # already checked: params are the normalised dict the first check returned
            return dict(properties), params  # type: ignore[return-value]
        p = normalize_params(params, overrides)
        p["checked"] = True
        return {k: clone(v) for k, v in properties.items()}, p

    def _put_item(self, properties: dict[str, Any], p: dict[str, Any]) -> Any:
        if not p.get("prepared"):
            if p.get("timestamps") is not False:
                now = self._timestamp(p)
                if self.timestamps is True or self.timestamps == "create":
                    properties[self.created_field] = now
                if self.timestamps is True or self.timestamps == "update":
                    properties[self.updated_field] = now
            properties = self._prepare("put", properties, p)
        return self._run("put", Expression(self, "put", properties, p))

    def _get_item(self, properties: dict[str, Any], p: dict[str, Any]) -> Any:
        properties = self._prepare("get", properties, p)
        return self._run("get", Expression(self, "get", properties, p))

    def _delete_item(self, properties: dict[str, Any], p: dict[str, Any]) -> Any:
        if not p.get("prepared"):
            properties = self._prepare("delete", properties, p)
        return self._run("delete", Expression(self, "delete", properties, p))

    def _query_items(self, properties: dict[str, Any], p: dict[str, Any]) -> Any:
        properties = self._prepare("find", properties, p)
        return self._run("find", Expression(self, "find", properties, p))

    def _scan_items(self, properties: dict[str, Any], p: dict[str, Any]) -> Any:
        properties = self._prepare("scan", properties, p)
        return self._run("scan", Expression(self, "scan", properties, p))

    def _update_item(self, properties: dict[str, Any], p: dict[str, Any]) -> Any:
        if (self.timestamps is True or self.timestamps == "update") and p.get("timestamps") is not False:
            now = self._timestamp(p)
            properties[self.updated_field] = now
            if p.get("exists", MISSING) is None:  # an upsert: set created once, as OneTable does
                created = self.fields.get(self.created_field)
                iso = created.iso_dates if created is not None else self.table.params.iso_dates
                when = write_date(now, iso)
                p["set"] = dict(p.get("set") or {})
                p["set"].setdefault(
                    self.created_field, f"if_not_exists(${{{self.created_field}}}, {{{when}}})"
                )
        properties = self._prepare("update", properties, p)
        return self._run("update", Expression(self, "update", properties, p))

    def _init_item(self, properties: dict[str, Any], p: dict[str, Any]) -> dict[str, Any]:
        self._set_defaults("init", self.fields, properties, p)
        self._run_templates("put", "", self.primary, self.block.deps, properties, p)
        for name in self.fields:
            properties.setdefault(name, None)
        properties[self.type_field] = self.name
        return properties

    def _timestamp(self, p: dict[str, Any]) -> datetime:
        transaction = p.get("transaction")
        if transaction is not None:
            stamp: datetime | None = transaction.get("timestamp")
            if stamp is None:
                stamp = transaction["timestamp"] = datetime.now(timezone.utc)
            return stamp
        return datetime.now(timezone.utc)

    def _remove_by_find(self, properties: dict[str, Any], p: dict[str, Any]) -> Any:
        find_params = {
            k: v for k, v in p.items() if k not in ("transaction", "fallback", "checked", "expression")
        }
        find_params["hidden"] = True
        find_params.pop("return_", None)
        items = self.find(properties, **find_params)
        if len(items) > 1 and not p.get("many"):
            raise NonUniqueError(
                f'Removing multiple items from "{self.name}". Use many=True to enable.', properties=properties
            )
        removed = []
        for item in items:
            one = {"transaction": p["transaction"]} if p.get("transaction") is not None else {}
            if p.get("return_") is not None:
                one["return_"] = p["return_"]
            if p.get("hidden") is not None:
                one["hidden"] = p["hidden"]
            model = self.table.model_for(item.get(self.type_field)) or self
            removed.append(model.remove(item, **one))
        return removed

    def _strip_hidden(self, item: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in item.items() if not (k in self.fields and self.fields[k].hidden)}


__all__ = ["UNIQUE_MODEL", "Model", "clone", "normalize_params"]
