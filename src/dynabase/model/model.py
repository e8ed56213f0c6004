"""Model: one entity type of a single-table design, with OneTable's semantics.

A model turns API properties (schema field names, Python values) into DynamoDB requests and the items it gets
back into plain dicts.  The pipeline for every call is OneTable's:

1. properties are copied; the table/params context is blended in; ``default`` / ``generate`` values are set
   (create, upsert); value templates are run in dependency order (unresolved -> attribute omitted, or on a
   query's sort key a ``begins_with`` on the resolved prefix); ``None`` values are dropped (or become REMOVEs
   on update) unless the field keeps nulls; ``required`` / ``enum`` / ``validate`` are checked; the attributes
   the operation needs are selected and converted to their stored form (dates, numbers, binary, crypt);
2. :class:`~dynabase.model.expression.Expression` builds the request;
3. the request runs (paging for find/scan), or is added to a ``transaction`` / ``batch`` collector, or is
   returned unexecuted (``execute=False``);
4. returned items are decoded and mapped back to fields: attribute names -> field names, packed attributes
   unpacked, dates -> ``datetime``, binary -> ``bytes``, hidden fields left out unless ``hidden=True``.
"""

from __future__ import annotations

import base64
import copy
from collections.abc import Mapping
from datetime import date, datetime, timezone
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from ..clock import DELETED_ATTR
from . import ids
from .blocks import Block, ModelSpec
from .codec import encode
from .errors import (
    ConditionFailedError,
    MissingKeyError,
    NonUniqueError,
    NotFoundError,
    OneTableArgError,
    TransactionError,
    UniqueError,
    ValidationError,
)
from .expression import Expression, key_operator_misuse
from .paging import Page
from .params import ALIASES, check_params, require, suggest
from .spec import MISSING, FieldSpec, IndexSpec
from .syncmeta import after_failed_write, cloud_command
from .values import js_str, read_date, write_date

if TYPE_CHECKING:  # pragma: no cover
    from .table import Table

KEYS_ONLY = frozenset(("delete", "get"))
TRANSACT_OPS = {"delete": "Delete", "get": "Get", "put": "Put", "update": "Update", "check": "ConditionCheck"}
BATCH_OPS = {"delete": "DeleteRequest", "put": "PutRequest", "update": "PutRequest"}
CLIENT_METHODS = {
    "delete": "delete_item",
    "get": "get_item",
    "find": "query",
    "put": "put_item",
    "scan": "scan",
    "update": "update_item",
}
#: what each transaction item may carry (TransactWriteItems / TransactGetItems reject the rest)
_TRANSACT_KEYS = {
    "Put": (
        "TableName",
        "Item",
        "ConditionExpression",
        "ExpressionAttributeNames",
        "ExpressionAttributeValues",
    ),
    "Update": (
        "TableName",
        "Key",
        "UpdateExpression",
        "ConditionExpression",
        "ExpressionAttributeNames",
        "ExpressionAttributeValues",
    ),
    "Delete": (
        "TableName",
        "Key",
        "ConditionExpression",
        "ExpressionAttributeNames",
        "ExpressionAttributeValues",
    ),
    "ConditionCheck": (
        "TableName",
        "Key",
        "ConditionExpression",
        "ExpressionAttributeNames",
        "ExpressionAttributeValues",
    ),
    "Get": ("TableName", "Key", "ProjectionExpression", "ExpressionAttributeNames"),
}
SANITY_PAGES = 1000
FOLLOW_THREADS = 10
UNIQUE_MODEL = "_Unique"

_FALSE_STRINGS = frozenset(("false", "null", "undefined"))


def normalize_params(params: Mapping[str, Any], overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """OneTable's checkArgs for params: defaults (``overrides``) under the caller's params, keys normalised."""
    out = dict(overrides) if overrides else {}
    for key, value in params.items():
        out[ALIASES.get(key, key)] = value
    return out


def clone(value: Any) -> Any:
    """Copy plain containers (dicts, lists) deeply; leave other values shared (OneTable's ``assign``)."""
    if type(value) is dict:
        return {k: clone(v) for k, v in value.items()}
    if type(value) is list:
        return [clone(v) for v in value]
    return value


_CHECKED: dict[int, tuple] = {}
_REQUIRED: dict[int, tuple] = {}


def _checked_fields(fields: dict[str, FieldSpec]) -> frozenset:
    """Names of the fields of a block that have a regex or an enum (cached per block)."""
    entry = _CHECKED.get(id(fields))
    if entry is None or entry[0] is not fields:
        names = frozenset(
            name
            for name, f in fields.items()
            if f.fields is None and (f.validate is not None or f.enum is not None)
        )
        if len(_CHECKED) > 4096:
            _CHECKED.clear()
        entry = _CHECKED[id(fields)] = (fields, names)
    return entry[1]


def _required_fields(fields: dict[str, FieldSpec]) -> list[FieldSpec]:
    entry = _REQUIRED.get(id(fields))
    if entry is None or entry[0] is not fields:
        if len(_REQUIRED) > 4096:
            _REQUIRED.clear()
        entry = _REQUIRED[id(fields)] = (
            fields,
            [f for f in fields.values() if f.required and f.fields is None],
        )
    return entry[1]


class Model:
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
        self._compile_fast_paths()

    def _compile_fast_paths(self) -> None:
        """Precompute the read plan (AttributeValue item -> result dict in one pass) and the direct key
        building used by ``get``; models with fields these cannot handle keep the general path."""
        self._plan: list[tuple] | None = None
        if not self.spec.generic and not any(
            f.crypt or f.encode or f.fields is not None or len(f.attribute) > 1 for f in self.fields.values()
        ):
            self._plan = [
                (
                    name,
                    f.attribute[0],
                    1 if f.type == "date" else 2 if f.type == "binary" else 0,
                    f.default,
                    f.ttl,
                )
                for name, f in self.fields.items()
                if not f.hidden
            ]
        keys = []
        ok = True
        templated = {name for name, f in self.fields.items() if f.value}
        for att in (self.primary.hash, self.primary.sort):
            if att is None:
                continue
            field = next((f for f in self.fields.values() if f.attribute == (att,)), None)
            if (
                field is None
                or field.crypt
                or field.encode
                or field.value is True
                or field.type not in ("string", "number")
            ):
                ok = False
                break
            if field.template is not None and any(root in templated for root in field.template.roots):
                ok = False
                break
            keys.append((field, att))
        self._key_fields = keys if ok and not self.spec.generic else None

    def _fast_key(self, properties: Mapping[str, Any]) -> dict[str, Any] | None:
        key: dict[str, Any] = {}
        values = None
        for field, att in self._key_fields:  # type: ignore[union-attr]
            value = properties.get(field.name)
            if value is None and field.template is not None:
                if values is None:
                    values = dict(properties)
                    values[self.type_field] = self.name
                try:
                    value = field.template.render(values, iso_dates=field.iso_dates)
                except ValueError:
                    return None
            if value is None:
                return None
            kind = type(value)
            if field.type == "string":
                if kind is not str:
                    return None
            elif kind not in (int, Decimal, float):
                return None
            key[att] = value
        return key

    def _fast_read_ok(self, p: Mapping[str, Any]) -> bool:
        return (
            self._plan is not None
            and bool(p.get("parse"))
            and p.get("hidden") is None
            and not self.table.hidden
            and not p.get("fields")
            and p.get("follow") is not True
            and p.get("decrypt") is not False
            and p.get("transform") is None
            and p.get("generic") is None
            and self.table.transform is None
        )

    def _read_fast(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        decode = self.table.decoder.decode
        rec: dict[str, Any] = {}
        get = raw.get
        for name, att, kind, default, ttl in self._plan:  # type: ignore[union-attr]
            av = get(att)
            if av is None:
                if default is not MISSING:
                    rec[name] = _fresh(default)
                continue
            value = av["S"] if "S" in av else decode(av)
            rec[name] = _read_stored(value, kind, ttl) if kind else value
        return rec

    def _read_written(self, rec: Mapping[str, Any]) -> dict[str, Any]:
        """The result of a put: the written properties (stored forms, by field name) read back."""
        out: dict[str, Any] = {}
        get = rec.get
        for name, _att, kind, default, ttl in self._plan:  # type: ignore[union-attr]
            value = get(name, MISSING)
            if value is MISSING:
                if default is not MISSING:
                    out[name] = _fresh(default)
                continue
            out[name] = _read_stored(value, kind, ttl) if kind else value
        return out

    def _read_raw_items(self, op: str, raws: list[dict[str, Any]], p: Mapping[str, Any]) -> list[Any]:
        """AttributeValue items -> result dicts, each through the model its type attribute names."""
        type_field = self.type_field
        table = self.table
        out = []
        for raw in raws:
            tag = raw.get(type_field)
            kind = tag.get("S") if tag else None
            if kind is None or kind == self.name:
                model = self
            elif kind == UNIQUE_MODEL:
                continue
            else:
                model = table._model_for(kind) or self
            if model._plan is not None:
                out.append(model._read_fast(raw))
            else:
                out.append(model._transform_read(op, table.decoder.decode_item(raw), {}, p))
        return out

    def __repr__(self) -> str:
        return f"<Model {self.name} of table {self.table.name!r}>"

    # == high-level API ===========================================================================================

    def create(self, properties: Mapping[str, Any], **params: Any) -> Any:
        """Create an item (PutItem; ``exists=False`` by default -> fails if the key exists).

        Unique fields are guarded by ``_unique#`` sentinel items written in the same transaction.
        Returns the item as written (hidden fields left out).
        """
        check_params("create", params)
        properties, p = self._check(properties, params, {"parse": True, "high": True, "exists": False})
        if self.spec.has_unique:
            return self._create_unique(properties, p)
        return self._put_item(properties, p)

    def get(self, properties: Mapping[str, Any], **params: Any) -> Any:
        """Get one item by its key; with a partial key or ``index=``, a query that must match at most one item
        (``NonUniqueError`` otherwise).  Returns the item dict or ``None``."""
        check_params("get", params)
        table = self.table
        if (
            self._key_fields is not None
            and (not params or (len(params) == 1 and "consistent" in params))
            and not table.context
            and type(properties) is dict
            and table.transform is None
            and not table.hidden
        ):
            key = self._fast_key(properties)
            if key is not None:
                cmd = {
                    "TableName": table.name,
                    "Key": {att: encode(value) for att, value in key.items()},
                    "ConsistentRead": bool(params.get("consistent")),
                }
                raw = table.execute(self.name, "get", "get_item", cmd, params).get("Item")
                if not raw or DELETED_ATTR in raw:  # none, or a sync tombstone
                    return None
                tag = raw.get(self.type_field)
                if self._plan is not None and (tag is None or tag.get("S") == self.name):
                    return self._read_fast(raw)
                items = self._read_raw_items("get", [raw], {"parse": True})
                return items[0] if items else None
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
        check_params("find", params)
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
        check_params("update", params)
        properties, p = self._check(properties, params, {"exists": True, "parse": True, "high": True})
        removing = p.get("remove") or []
        if isinstance(removing, str):
            removing = [removing]
        if self.spec.has_unique and any(
            name in self.fields and self.fields[name].unique for name in [*properties, *removing]
        ):
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

    # == low-level API (generic model / table.*_item) ==============================================================

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

    def _write_unique_transaction(self, transaction: Any, verb: str, properties: dict, p: dict) -> None:
        """Write an item with its unique sentinels; a sentinel that exists already is a UniqueError."""
        try:
            self.table.transact("write", transaction, log=p.get("log"))
        except TransactionError as error:
            if "ConditionalCheckFailed" in error.reasons:
                names = ", ".join(f.name for f in self.spec.unique_fields)
                raise UniqueError(
                    f'Cannot {verb} unique attributes "{names}" for "{self.name}". '
                    "An item of the same name already exists.",
                    properties=properties,
                    error=error.error,
                ) from error
            raise

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
            stamp = transaction.get("timestamp")
            if stamp is None:
                stamp = transaction["timestamp"] = datetime.now(timezone.utc)
            return stamp
        return datetime.now(timezone.utc)

    # == unique fields ==============================================================================================

    def _unique_key(self, field: FieldSpec, properties: dict[str, Any], p: dict[str, Any], value: Any) -> str:
        scope = ""
        if field.scope:
            rendered = self._render(field, field.scope, properties)
            if rendered is None:
                raise UniqueError(
                    f'Missing properties to resolve unique scope "{field.scope}" of "{self.name}.{field.name}"',
                    properties=properties,
                )
            scope = rendered + "#"
        attribute = ",".join(field.attribute)
        return f"_unique#{scope}{self.name}#{attribute}#{js_str(value)}"

    def _unique_keys(self, pk: str) -> dict[str, Any]:
        keys = {self.primary.hash: pk}
        if self.primary.sort:
            keys[self.primary.sort] = "_unique#"
        return keys

    def _create_unique(self, properties: dict[str, Any], p: dict[str, Any]) -> Any:
        if p.get("batch") is not None:
            raise OneTableArgError("Cannot use batch with unique properties which require transactions")
        here = p.get("transaction") is None
        transaction = p["transaction"] = p["transaction"] if not here else {}
        now = self._timestamp(p)
        if p.get("timestamps") is not False:
            if self.timestamps is True or self.timestamps == "create":
                properties[self.created_field] = now
            if self.timestamps is True or self.timestamps == "update":
                properties[self.updated_field] = now
        properties = p["prepared"] = self._prepare("put", properties, p)
        unique = self.table.unique_model
        for field in self.spec.unique_fields:
            value = properties.get(field.name)
            if value is not None:
                pk = self._unique_key(field, properties, p, value)
                unique.create(self._unique_keys(pk), transaction=transaction, exists=False, return_="NONE")
        item = self._put_item(properties, p)
        if not here or p.get("execute") is False:
            return item if not here else transaction
        expression = p.get("expression")
        self._write_unique_transaction(transaction, "create", properties, p)
        return self._parse_response("put", expression, [])[0] if expression else item

    def _update_unique(self, properties: dict[str, Any], p: dict[str, Any]) -> Any:
        if p.get("batch") is not None:
            raise OneTableArgError("Cannot use batch with unique properties which require transactions")
        here = p.get("transaction") is None
        transaction = p["transaction"] = {} if here else p["transaction"]
        primary = self.primary
        properties = p["prepared"] = self._prepare("update", properties, p)
        keys = {primary.hash: properties.get(primary.hash)}
        if primary.sort:
            keys[primary.sort] = properties.get(primary.sort)
        prior = self.get(keys, hidden=True, consistent=True)
        if prior is not None:
            prior = self._prepare("update", dict(prior), {"checked": True, "exists": True})
        elif p.get("exists", MISSING) is MISSING or p.get("exists") is True:
            raise NotFoundError(
                f'Cannot find existing item to update in "{self.name}"', properties=properties
            )
        unique = self.table.unique_model
        removing = p.get("remove") or []
        for field in self.spec.unique_fields:
            new = properties.get(field.name)
            old = prior.get(field.name) if prior else None
            if prior is not None and new == old and new is not None:
                continue
            to_remove = field.name in removing
            if prior is not None and old is not None and (new is not None or to_remove):
                old_pk = self._unique_key(field, {**prior, **properties}, p, old)
                new_pk = self._unique_key(field, properties, p, new) if new is not None else None
                if old_pk == new_pk:
                    continue
                unique.remove(self._unique_keys(old_pk), transaction=transaction, exists=None)
            if new is not None:
                pk = self._unique_key(field, properties, p, new)
                unique.create(self._unique_keys(pk), transaction=transaction, exists=False, return_="NONE")
        item = self._update_item(properties, p)
        if not here or p.get("execute") is False:
            return item if not here else transaction
        self._write_unique_transaction(transaction, "update", properties, p)
        returns = p.get("return_")
        if returns is False or returns in ("none", "NONE"):
            return None
        # OneTable returns nothing here (a transaction cannot return the item); we read it back
        return self.get(keys, hidden=p.get("hidden"), consistent=True)

    def _remove_unique(self, properties: dict[str, Any], p: dict[str, Any]) -> Any:
        here = p.get("transaction") is None
        transaction = p["transaction"] = {} if here else p["transaction"]
        primary = self.primary
        keys = {primary.hash: properties.get(primary.hash)}
        if primary.sort:
            keys[primary.sort] = properties.get(primary.sort)
        prior = self.get(keys, hidden=True, consistent=True)
        if prior is not None:
            prior_props = self._prepare("update", dict(prior), {"checked": True, "exists": True})
        elif p.get("exists") is True:
            raise NotFoundError(
                f'Cannot find existing item to remove from "{self.name}"', properties=properties
            )
        else:
            prior_props = None
        unique = self.table.unique_model
        for field in self.spec.unique_fields:
            source = prior_props if prior_props is not None else properties
            value = source.get(field.name)
            if value is not None:
                pk = self._unique_key(field, source, p, value)
                unique.remove(self._unique_keys(pk), transaction=transaction, exists=p.get("exists"))
        p["prepared"] = True
        self._delete_item(properties, p)
        if not here or p.get("execute") is False:
            return prior if not here else transaction
        self.table.transact("write", transaction, log=p.get("log"))
        if prior is not None and not p.get("hidden"):
            prior = self._strip_hidden(prior)
        return prior

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
            model = self.table._model_for(item.get(self.type_field)) or self
            removed.append(model.remove(item, **one))
        return removed

    def _strip_hidden(self, item: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in item.items() if not (k in self.fields and self.fields[k].hidden)}

    # == preparing properties ===================================================================================

    def select_index(self, p: Mapping[str, Any]) -> IndexSpec:
        name = p.get("index")
        if name and name != "primary":
            index = self.indexes.get(name)
            if index is None:
                best = suggest(name, self.indexes)
                hint = (
                    f'; did you mean "{best}"?' if best else f" (the indexes are {', '.join(self.indexes)})"
                )
                raise OneTableArgError(f"Cannot find index {name}{hint}", code="MissingError")
            return index
        return self.primary

    def partial_of(self, field: FieldSpec, p: Mapping[str, Any]) -> bool:
        partial = p.get("partial")
        if partial is None:
            partial = field.partial
        return bool(partial)

    def _prepare(self, op: str, properties: dict[str, Any], p: dict[str, Any]) -> dict[str, Any]:
        p.pop("fallback", None)
        index = self.select_index(p)
        if index is not self.primary and op not in ("find", "scan"):
            if p.get("low"):
                raise OneTableArgError(f'Cannot use non-primary index for "{op}" operation')
            p["fallback"] = True
            return properties
        rec = self._collect(op, "", self.block, index, properties, p, None)
        if p.get("fallback"):
            return properties
        if op != "scan" and self._hash_value(rec, index, p) is None:
            hash_field = next((f.name for f in self.fields.values() if f.att == index.hash), index.hash)
            raise MissingKeyError(
                f'Empty hash key for "{self.name}". Check hash key and any value template variable references.',
                model=self.name,
                fields={hash_field: f'Missing value for hash key "{index.hash}"'},
                properties=properties,
            )
        transform = self.table.transform
        if transform is not None and op in ("put", "update", "delete"):
            rec = transform(self, "write", rec, properties, p)
        return rec

    def _hash_value(self, rec: dict[str, Any], index: IndexSpec, p: Mapping[str, Any]) -> Any:
        generic = p.get("generic") if p.get("generic") is not None else self.spec.generic
        if generic:
            return rec.get(index.hash)
        for field in self.fields.values():
            if field.attribute[0] == index.hash:
                return rec.get(field.name)
        return None

    def _collect(
        self,
        op: str,
        path: str,
        block: Block,
        index: IndexSpec,
        properties: dict[str, Any],
        p: dict[str, Any],
        context: Mapping[str, Any] | None,
    ) -> dict[str, Any]:
        fields = block.fields
        if context is None:
            context = p.get("context")
            if context is None:
                context = self.table.context
        rec: dict[str, Any] = {}
        if self.spec.nested and op not in KEYS_ONLY:
            self._collect_nested(op, path, fields, index, properties, p, context, rec)
        top = block is self.block
        self._add_context(op, fields, index, properties, context, top)
        self._set_defaults(op, fields, properties, p)
        self._run_templates(op, path, index, block.deps, properties, p)
        self._convert_nulls(op, path, fields, properties, p)
        self._validate(op, path, fields, properties, p)
        self._select(op, block, index, properties, p, rec, top)
        if p.get("fallback"):
            return rec
        self._transform_properties(op, path, fields, properties, p, rec)
        return rec

    def _collect_nested(
        self,
        op: str,
        path: str,
        fields: dict[str, FieldSpec],
        index: IndexSpec,
        properties: dict[str, Any],
        p: dict[str, Any],
        context: Mapping[str, Any],
        rec: dict[str, Any],
    ) -> None:
        for field in fields.values():
            if field.fields is None:
                continue
            name = field.name
            value = properties.get(name, MISSING)
            if op == "put" and value is MISSING:
                if field.required:
                    value = [] if field.type == "array" else {}
                elif field.default is not MISSING:
                    value = field.default_value()
            ctx = context.get(name) if isinstance(context, Mapping) else None
            ctx = ctx if isinstance(ctx, Mapping) else {}
            partial = self.partial_of(field, p)
            if value is None and field.nulls:
                rec[name] = None
            elif value is not MISSING and value is not None:
                sub_path = f"{path}.{name}" if path else name
                block = Block(field.fields, field.deps)
                if field.is_array and isinstance(value, list):
                    items = []
                    for i, item in enumerate(value):
                        if not isinstance(item, Mapping):
                            raise ValidationError(
                                model=self.name,
                                fields={f"{sub_path}[{i}]": f'Bad value for "{sub_path}[{i}]"'},
                            )
                        obj = self._collect(op, f"{sub_path}[{i}]", block, index, dict(item), p, ctx)
                        if not partial or obj or field.default is not MISSING:
                            items.append(obj)
                    rec[name] = items
                elif isinstance(value, Mapping):
                    obj = self._collect(op, sub_path, block, index, dict(value), p, ctx)
                    if not partial or obj or field.default is not MISSING:
                        rec[name] = obj
                else:
                    raise ValidationError(
                        model=self.name,
                        fields={sub_path: f'Bad value for "{sub_path}": expected {field.type}'},
                    )

    def _add_context(
        self,
        op: str,
        fields: dict[str, FieldSpec],
        index: IndexSpec,
        properties: dict[str, Any],
        context: Mapping[str, Any],
        top: bool,
    ) -> None:
        if context:
            for field in fields.values():
                if field.fields is not None:
                    continue
                att = field.attribute[0]
                if (op == "put" or att not in index.keys) and field.name in context:
                    value = context[field.name]
                    if value is not None:
                        properties[field.name] = value
        if top and not self.spec.generic:
            properties[self.type_field] = self.name

    def _set_defaults(
        self, op: str, fields: dict[str, FieldSpec], properties: dict[str, Any], p: Mapping
    ) -> None:
        if op not in ("put", "init") and not (op == "update" and "exists" in p and p["exists"] is None):
            return
        for field in fields.values():
            if field.fields is not None or field.value or field.name in properties:
                continue
            value = MISSING
            if field.default is not MISSING:
                value = field.default_value()
            elif op == "init":
                if not field.generate:
                    value = None
            elif field.generate:
                value = ids.generate(field.generate, self.table.generate)
            if value is not MISSING:
                properties[field.name] = value

    def _run_templates(
        self,
        op: str,
        path: str,
        index: IndexSpec,
        deps: list[FieldSpec],
        properties: dict[str, Any],
        p: Mapping,
    ) -> None:
        for field in deps:
            if field.fields is not None or not field.value:
                continue
            att = field.attribute[0]
            if field.is_indexed and op not in ("put", "update") and att not in index.keys:
                continue  # keys of an index this call does not use
            name = field.name
            if field.value is True:
                fn = self.table.value_fn
                if fn is not None:
                    properties[name] = fn(self, f"{path}.{name}" if path else name, properties, p)
            elif name not in properties:
                value = self._run_template(op, index, field, properties, p, field.template)
                if value is not None:
                    properties[name] = value

    def _render(self, field: FieldSpec, text_or_template: Any, properties: Mapping[str, Any]) -> Any:
        template = text_or_template
        if isinstance(template, str):
            from .spec import make_template

            template = make_template(template)
        try:
            return template.render(properties, iso_dates=field.iso_dates)
        except ValueError as error:
            from ..schema.template import lookup

            culprits = {
                path: f'Value for "{path}" is not a primitive value (used by "{field.name}")'
                for path in getattr(template, "fields", ())
                if isinstance(lookup(properties, path), (dict, list, tuple, set, frozenset))
            }
            for path in culprits:  # a sort-key operator on a template input: the layer's validation error
                misuse = key_operator_misuse(self.name, field, template, properties, path)
                if misuse is not None:
                    raise misuse from error
            if culprits:  # a map or list where the template needs a scalar: OneTable fails with a TypeError
                raise OneTableArgError(next(iter(culprits.values())), code="TypeError") from error
            raise ValidationError(
                model=self.name, fields={field.name: f'Bad value for template of "{field.name}": {error}'}
            ) from error

    def _run_template(
        self,
        op: str,
        index: IndexSpec | None,
        field: FieldSpec,
        properties: Mapping[str, Any],
        p: Mapping,
        template: Any,
    ) -> Any:
        value = self._render(field, template, properties)
        if value is not None:
            return value
        if index is not None and op == "find" and field.attribute[0] == index.sort:
            try:
                prefix = template.prefix(properties, iso_dates=field.iso_dates)
            except ValueError:
                prefix = ""
            if prefix:
                return {"begins": prefix}
        return None

    def _convert_nulls(
        self, op: str, path: str, fields: dict[str, FieldSpec], properties: dict[str, Any], p: dict[str, Any]
    ) -> None:
        for value in properties.values():
            if value is None or (not value and type(value) in (set, frozenset, list, tuple)):
                break
        else:
            return
        for name, value in list(properties.items()):
            field = fields.get(name)
            if field is None or field.fields is not None:
                continue
            empty_set = field.type == "set" and isinstance(value, (set, frozenset, list, tuple)) and not value
            if (value is None or empty_set) and not field.nulls:
                if field.required and op in ("put", "update") and value is None:
                    continue  # validation reports it
                del properties[name]
                if path and not self.partial_of(field, p):
                    continue  # the whole nested object is written
                if op == "update":
                    remove = p.get("remove")
                    if remove is None:
                        remove = p["remove"] = []
                    elif isinstance(remove, str):
                        remove = p["remove"] = [remove]
                    elif not isinstance(remove, list):
                        remove = p["remove"] = list(remove)
                    target = f"{path}.{name}" if path else name
                    if target not in remove:
                        remove.append(target)

    def _validate(
        self, op: str, path: str, fields: dict[str, FieldSpec], properties: dict[str, Any], p: Mapping
    ) -> None:
        if op not in ("put", "update"):
            return
        details: dict[str, str] = {}
        table_validate = self.table.validate_fn
        if table_validate is not None and not path:
            details.update(table_validate(self, properties, p) or {})
        custom = p.get("validate")
        checked = _checked_fields(fields)
        for name, value in properties.items():
            field = fields.get(name)
            if field is None or field.fields is not None:
                continue
            if not callable(custom) and name not in checked:
                continue
            if callable(custom):
                outcome = custom(self, field, value)
                if isinstance(outcome, tuple):
                    error, value = outcome
                    properties[name] = value
                else:
                    error = outcome
                if error:
                    details[self._path(path, name)] = str(error)
            if field.validate is not None:
                if value is None:
                    if field.required and not field.value:
                        details[self._path(path, name)] = f'Value not defined for "{name}"'
                elif not field.validate.search(js_str(value) if not isinstance(value, str) else value):
                    details[self._path(path, name)] = f'Bad value "{value}" for "{name}"'
            if field.enum is not None and value not in field.enum:
                details[self._path(path, name)] = f'Bad value "{value}" for "{name}": not one of {field.enum}'
        for field in _required_fields(fields):
            value = properties.get(field.name, MISSING)
            if (op == "put" and (value is MISSING or value is None)) or (op == "update" and value is None):
                details[self._path(path, field.name)] = f'Value not defined for required field "{field.name}"'
        if details:
            raise ValidationError(model=self.name, fields=details, properties=properties)

    @staticmethod
    def _path(path: str, name: str) -> str:
        return f"{path}.{name}" if path else name

    def _select(
        self,
        op: str,
        block: Block,
        index: IndexSpec,
        properties: dict[str, Any],
        p: dict[str, Any],
        rec: dict[str, Any],
        top: bool,
    ) -> None:
        project = self._projection(index)
        keys_only = op in KEYS_ONLY
        for name, field in block.fields.items():
            if field.fields is not None:
                continue
            if top:
                att = field.attribute[0]
                if keys_only and att == index.sort and properties.get(name) is None and p.get("high"):
                    if op == "delete" and not p.get("many"):
                        raise MissingKeyError(
                            f'Missing sort key for remove from "{self.name}" (use many=True to remove by query)',
                            model=self.name,
                            fields={name: f'Missing value for sort key "{att}"'},
                        )
                    p["fallback"] = True
                    return
                if keys_only and att not in index.keys and not self.spec.has_unique:
                    continue
                if project is not None and att not in project:
                    continue
                if name == self.type_field and name not in index.keys and op == "find":
                    continue
                if field.encode:
                    continue
            if name in properties:
                rec[name] = properties[name]
        if (
            top
            and (p.get("generic") if p.get("generic") is not None else self.spec.generic)
            and not keys_only
        ):
            for name, value in properties.items():
                if project is not None and name not in project:
                    continue
                if name not in rec:
                    if isinstance(value, (datetime, date)):
                        value = write_date(value, self.table.params.iso_dates)
                    rec[name] = value

    def _projection(self, index: IndexSpec) -> list[str] | None:
        project = index.project
        if not project or project == "all":
            return None
        primary = self.primary
        base = [a for a in (primary.hash, primary.sort, *index.keys) if a]
        if project == "keys":
            return list(dict.fromkeys(base))
        return list(dict.fromkeys([*project, *base]))

    # == converting values ======================================================================================

    def _transform_properties(
        self,
        op: str,
        path: str,
        fields: dict[str, FieldSpec],
        properties: dict[str, Any],
        p: Mapping,
        rec: dict[str, Any],
    ) -> None:
        for name, field in fields.items():
            if field.fields is not None or name not in rec:
                continue
            rec[name] = self._write_value(op, path, field, rec[name], properties, p)

    def _bad(self, path: str, field: FieldSpec, value: Any, why: str = "") -> ValidationError:
        name = self._path(path, field.name)
        detail = why or f'Invalid value "{value!r}" for {field.type} field "{name}"'
        return ValidationError(model=self.name, fields={name: detail})

    def _write_value(
        self, op: str, path: str, field: FieldSpec, value: Any, properties: Mapping, p: Mapping
    ) -> Any:
        kind = field.type
        if not field.crypt:
            vtype = type(value)
            if vtype is str:
                if kind == "string":
                    return value
            elif vtype is int or vtype is Decimal:
                if kind == "number":
                    return value
            elif vtype is bool and kind == "boolean":
                return value
        transform = p.get("transform")
        if callable(transform):
            value = transform(self, "write", field.name, value, properties)
        elif value is None and field.nulls:
            return None
        elif op == "find" and isinstance(value, dict):
            value = self._nested_write(field, value)  # sort-key operators ({"begins": ...})
        elif kind == "string":
            if isinstance(value, (dict, list, tuple, set, frozenset, bytes, bytearray)):
                raise self._bad(path, field, value)
            if isinstance(value, datetime):
                value = write_date(value, field.iso_dates)
            value = js_str(value)
        elif kind == "number":
            value = self._to_number(path, field, value)
        elif kind == "date":
            try:
                value = write_date(value, field.iso_dates, field.ttl)
            except (ValueError, TypeError, OverflowError) as error:
                raise self._bad(
                    path, field, value, f'Invalid date "{value!r}" for "{field.name}": {error}'
                ) from None
        elif kind == "boolean":
            if isinstance(value, str):
                value = value not in _FALSE_STRINGS and value != ""
            elif isinstance(value, (dict, list, tuple, set)):
                raise self._bad(path, field, value)
            else:
                value = bool(value)
        elif kind == "binary":
            if isinstance(value, (bytes, bytearray, memoryview)):
                value = base64.b64encode(bytes(value)).decode("ascii")
            elif not isinstance(value, str):
                raise self._bad(path, field, value)
        elif kind == "array":
            if isinstance(value, (list, tuple)):
                value = self._nested_write(field, list(value))
            elif value == "":
                value = []
            else:  # OneTable treats a non-list for an array field as a wrong call, not a validation failure
                raise OneTableArgError(
                    f'Invalid data type for array field "{path or field.name}" in model "{self.name}"'
                )
        elif kind == "set":
            value = self._to_set(path, field, value)
        elif kind == "object":
            if isinstance(value, Mapping):
                value = self._nested_write(field, dict(value))
            else:
                raise self._bad(path, field, value)
        if field.crypt and value is not None:
            value = self.table.crypto.encrypt(value if isinstance(value, str) else js_str(value))
        return value

    def _to_number(self, path: str, field: FieldSpec, value: Any) -> Any:
        if isinstance(value, bool):
            return int(value)
        if isinstance(value, (int, Decimal)):
            return value
        if isinstance(value, float):
            if value != value or value in (float("inf"), float("-inf")):
                raise self._bad(path, field, value)
            return value
        if isinstance(value, str):
            text = value.strip()
            try:
                if text and text.lstrip("+-").isdigit():
                    return int(text)
                number = Decimal(text)
                if number.is_finite():
                    return number
            except (InvalidOperation, ValueError):
                pass
        raise self._bad(path, field, value)

    def _to_set(self, path: str, field: FieldSpec, value: Any) -> Any:
        if isinstance(value, (set, frozenset)):
            items = value
        elif isinstance(value, (list, tuple)):
            items = set(value)
        else:
            raise self._bad(path, field, value)
        if all(isinstance(v, str) for v in items):
            return set(items)
        if all(isinstance(v, (int, float, Decimal)) and not isinstance(v, bool) for v in items):
            return set(items)
        if all(isinstance(v, (bytes, bytearray, memoryview)) for v in items):
            return {bytes(v) for v in items}
        raise self._bad(path, field, value, f'Set "{field.name}" must hold only strings, numbers or bytes')

    def _nested_write(self, field: FieldSpec, value: Any) -> Any:
        """Dates inside plain objects/arrays in the table's date format (OneTable's transformNestedWriteFields)."""
        if isinstance(value, dict):
            for key, item in value.items():
                if isinstance(item, (datetime, date)):
                    value[key] = write_date(item, field.iso_dates)
                elif isinstance(item, (dict, list)):
                    value[key] = self._nested_write(field, item)
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, (datetime, date)):
                    value[i] = write_date(item, field.iso_dates)
                elif isinstance(item, (dict, list)):
                    value[i] = self._nested_write(field, item)
        return value

    def update_operand(self, key: str, value: Any, kind: str) -> Any:
        """A value given to ``set`` / ``add`` / ``delete``: dates in the stored form, lists as sets for set ops."""
        field = self.fields.get(key.split(".")[0].split("[")[0])
        if isinstance(value, (datetime, date)):
            return write_date(
                value,
                field.iso_dates if field else self.table.params.iso_dates,
                field.ttl if field else False,
            )
        if kind in ("add", "delete") and isinstance(value, (list, tuple)):
            try:
                return set(value)
            except TypeError:  # a list of lists or maps: no DynamoDB set
                why = f'{kind}: "{key}" must be strings, numbers or bytes (a set), not {value!r}'
                raise ValidationError(why, model=self.name, fields={key: why}) from None
        if (
            kind == "set"
            and field is not None
            and field.fields is None
            and "." not in key
            and not isinstance(value, str)
        ):
            if field.type == "set" and isinstance(value, (list, tuple, set, frozenset)):
                return self._to_set("", field, value)
            if field.type == "binary" and isinstance(value, (bytes, bytearray)):
                return base64.b64encode(bytes(value)).decode("ascii")
        return value

    # == running requests =========================================================================================

    def _run(self, op: str, expr: Expression) -> Any:
        p = expr.params
        cmd = expr.command()
        table = self.table
        wire = op  # the operation sent: a cloud-side remove of a synced model writes a tombstone
        synced = table.side == "cloud" and self.name in table.sync_plan.models
        if synced:
            had_condition = bool(cmd.get("ConditionExpression"))
            wire, cmd = cloud_command(
                table.sync_plan,
                self.name,
                op,
                cmd,
                expr.properties,
                p.get("exists"),
                in_transaction=p.get("transaction") is not None or p.get("batch") is not None,
            )
        if p.get("execute") is False:
            table.log(
                "info" if p.get("log") else "data",
                f'OneTable command for "{op}" "{self.name}" (not executed)',
                cmd=cmd,
            )
            return cmd
        transaction = p.get("transaction")
        if transaction is not None:
            if p.get("batch") is not None:
                raise OneTableArgError("Cannot have batched transactions")
            top = TRANSACT_OPS.get(wire)
            if top is None:
                raise OneTableArgError(f"Unknown transaction operation {op}")
            p["expression"] = expr
            allowed = _TRANSACT_KEYS[top]
            item = {k: v for k, v in cmd.items() if k in allowed}
            transaction.setdefault("TransactItems", []).append({top: item})
            transaction.setdefault("_models", []).append(self.name)
            return self._transform_read(op, expr.properties, expr.properties, p)
        batch = p.get("batch")
        if batch is not None:
            p["expression"] = expr
            requests = batch.setdefault("RequestItems", {})
            if op == "get":
                entry = requests.setdefault(table.name, {"Keys": []})
                entry["Keys"].append(cmd["Keys"])
            else:
                bop = BATCH_OPS.get(wire)
                if bop is None:
                    raise OneTableArgError(f'Unsupported batch operation "{op}"')
                requests.setdefault(table.name, []).append({bop: cmd})
            return self._transform_read(op, expr.properties, expr.properties, p)

        method = CLIENT_METHODS[wire]
        stats = p.get("stats")
        if stats is not None:
            stats.setdefault("count", 0)
            stats.setdefault("scanned", 0)
            stats.setdefault("capacity", 0)
        raw: list[dict[str, Any]] = []
        count = 0
        pages = 0
        bumps = 0
        max_pages = p.get("max_pages") or SANITY_PAGES
        counting = bool(p.get("count")) or p.get("select") == "COUNT"
        progress = p.get("progress")
        while True:
            try:
                result = table.execute(self.name, op, method, cmd, p)
            except ConditionFailedError as error:
                verdict = after_failed_write(op, cmd, error, had_condition) if synced else "raise"
                if verdict == "none":
                    return None
                if verdict == "retry" and bumps < 10:  # another writer's clock is ahead: go above it
                    bumps += 1
                    continue
                raise
            if result is None:  # throw=False swallowed an error
                return Page() if op in ("find", "scan") else None
            last_key = result.get("LastEvaluatedKey")
            if last_key:
                cmd["ExclusiveStartKey"] = last_key
            if "Items" in result:
                raw.extend(result["Items"])
            elif "Item" in result:
                raw = [result["Item"]]
                break
            elif "Attributes" in result:
                raw = [result["Attributes"]]
                break
            if counting:
                count += result.get("Count", 0)
            if stats is not None:
                stats["count"] += result.get("Count", 0)
                stats["scanned"] += result.get("ScannedCount", 0)
                consumed = result.get("ConsumedCapacity")
                if consumed:
                    stats["capacity"] += consumed.get("CapacityUnits", 0)
            if callable(progress):
                progress({"items": raw, "pages": pages, "stats": stats, "params": p, "cmd": cmd})
            if raw and cmd.get("Limit"):
                cmd["Limit"] -= result.get("Count", 0)
                if cmd["Limit"] <= 0:
                    break
            pages += 1
            if not last_key or pages >= max_pages:
                break

        if synced:  # a tombstone is no item
            raw = [item for item in raw if DELETED_ATTR not in item]
        decoder = table.decoder
        if op not in ("find", "scan"):
            if op == "put":
                items = self._parse_response(op, expr, raw) if p.get("parse") else [expr.properties]
            elif p.get("parse") and self._fast_read_ok(p):
                items = self._read_raw_items(op, raw, p)
            elif p.get("parse"):
                items = self._parse_response(op, expr, decoder.decode_items(raw))
            else:
                items = decoder.decode_items(raw)
            item = items[0] if items else None
            if item is not None and self._follows(expr, p):
                if op == "get":
                    return self.get(item)
                if op == "update":
                    return self.update({**expr.properties, **item})
            return item

        prev = None
        index = expr.index
        if raw and (p.get("next") is not None or p.get("prev") is not None):
            first = raw[0]
            cursor = {}
            for att in (*index.keys, self.primary.hash, self.primary.sort):
                if att and att in first:
                    cursor[att] = first[att]
            prev = decoder.decode_item(cursor) if cursor else None
        following = op == "find" and self._follows(expr, p)
        if following:
            p["follow"] = True  # keep hidden key fields: the follow-up gets need them
        if p.get("parse") and self._fast_read_ok(p):
            items = self._read_raw_items(op, raw, p)
        elif p.get("parse"):
            items = self._parse_response(op, expr, decoder.decode_items(raw))
        else:
            items = decoder.decode_items(raw)
        page = Page(items)
        last_key = result.get("LastEvaluatedKey")
        if last_key:
            page.next = decoder.decode_item(last_key)
        if counting:
            page.count = count
        page.prev = prev
        if p.get("prev") is not None and p.get("next") is None and op != "scan":
            page.reverse()
            page.prev, page.next = page.next, page.prev
        table.log("info" if p.get("log") else "data", f'OneTable result for "{op}" "{self.name}"', items=page)

        if following:
            follow_params = {
                k: v
                for k, v in p.items()
                if k
                not in (
                    "follow",
                    "index",
                    "fallback",
                    "checked",
                    "limit",
                    "next",
                    "prev",
                    "where",
                    "expression",
                )
                and k not in ("count", "select", "fields", "reverse", "max_pages", "stats", "progress")
            }
            results = Page(
                self._follow_all(
                    [(self.table._model_for(it.get(self.type_field)) or self, it) for it in page],
                    follow_params,
                )
            )
            results.next, results.prev, results.count = page.next, page.prev, page.count
            return results
        return page

    def _follows(self, expr: Expression, p: Mapping) -> bool:
        follow = p.get("follow")
        return bool(follow) or (expr.index.follow and follow is not False and expr.index is not self.primary)

    def _follow_all(self, pairs: list[tuple[Model, dict]], params: dict[str, Any]) -> list[Any]:
        if len(pairs) <= 1 or self.table.follow_workers <= 1:
            return [model.get(item, **params) for model, item in pairs]
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(
            max_workers=min(FOLLOW_THREADS, self.table.follow_workers, len(pairs))
        ) as pool:
            return list(pool.map(lambda pair: pair[0].get(pair[1], **params), pairs))

    def _parse_response(self, op: str, expr: Expression | None, items: list[dict[str, Any]]) -> list[Any]:
        p = expr.params if expr is not None else {}
        properties = expr.properties if expr is not None else {}
        if op == "put":
            if self._fast_read_ok(p):
                return [self._read_written(properties)]
            return [self._transform_read(op, properties, properties, p)]
        table = self.table
        type_field = self.type_field
        out = []
        for item in items:
            kind = item.get(type_field)
            if kind == UNIQUE_MODEL:
                continue
            model = table._model_for(kind) if kind is not None and kind != self.name else self
            out.append((model or self)._transform_read(op, item, properties, p))
        return out

    # == reading items ==========================================================================================

    def _transform_read(self, op: str, raw: Any, properties: Mapping, p: Mapping) -> Any:
        if not raw:
            return raw
        rec = self._read_block(op, raw, properties, p, self.fields, True)
        transform = self.table.transform
        if transform is not None:
            rec = transform(self, "read", rec, properties, p, raw)
        return rec

    def _read_block(
        self, op: str, raw: Mapping, properties: Any, p: Mapping, fields: dict[str, FieldSpec], top: bool
    ) -> dict[str, Any]:
        rec: dict[str, Any] = {}
        hidden = p.get("hidden")
        show_hidden = p.get("follow") is True or hidden is True or (hidden is None and self.table.hidden)
        wanted = p.get("fields")
        decrypt = p.get("decrypt") is not False
        transform = p.get("transform")
        put = op == "put"
        get = raw.get
        for name, field in fields.items():
            if field.hidden and not show_hidden:
                continue
            attribute = field.attribute
            if put:
                value = get(name, MISSING)
            else:
                value = get(attribute[0], MISSING)
                if len(attribute) > 1:
                    value = value.get(attribute[1], MISSING) if isinstance(value, dict) else MISSING
            if value is MISSING and field.encode:
                att, sep, position = field.encode
                parts = str(get(att) or "").split(sep)
                value = parts[position] if position < len(parts) else MISSING
            if field.crypt and decrypt and value is not MISSING:
                value = self.table.crypto.decrypt(value)
            if value is MISSING:
                if field.default is not MISSING and (not wanted or name in wanted):
                    rec[name] = field.default_value()
                continue
            if field.fields is not None and value is not None and isinstance(value, (dict, list)):
                sub = properties.get(name) if isinstance(properties, Mapping) else None
                if field.is_array and isinstance(value, list):
                    rec[name] = [
                        self._read_block(op, item, {}, p, field.fields, False)
                        if isinstance(item, Mapping)
                        else item
                        for item in value
                    ]
                elif isinstance(value, Mapping):
                    rec[name] = self._read_block(op, value, sub or {}, p, field.fields, False)
                else:
                    rec[name] = value
                continue
            if callable(transform):
                rec[name] = transform(self, "read", name, value, properties)
                continue
            kind = field.type
            if kind == "date":
                rec[name] = read_date(value, field.ttl)
            elif kind == "binary" and isinstance(value, str):
                try:
                    rec[name] = base64.b64decode(value)
                except ValueError:
                    rec[name] = value
            else:
                rec[name] = value
        if top:
            generic = p.get("generic") if p.get("generic") is not None else self.spec.generic
            if generic:
                for name, value in raw.items():
                    if name not in rec:
                        rec[name] = value
            elif hidden is True and self.type_field not in rec:
                rec[self.type_field] = self.name
        return rec


__all__ = ["Model", "clone", "normalize_params"]


def _fresh(default: Any) -> Any:
    """A field's default as a result value: a copy when it is a container the caller could change."""
    return copy.deepcopy(default) if type(default) in (dict, list, set) else default


def _read_stored(value: Any, kind: int, ttl: Any) -> Any:
    """A stored value of a date field (``kind`` 1) or a binary field kept as base64 text, as the caller gets it."""
    if kind == 1:
        return read_date(value, ttl)
    if isinstance(value, str):
        try:
            return base64.b64decode(value)
        except ValueError:
            pass
    return value
