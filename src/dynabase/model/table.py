"""Table: one DynamoDB table, its schema, its models and the client that reaches it.

::

    from dynabase.model import Table

    table = Table("app", client, schema)          # client: dynabase.connect(...) or boto3.client("dynamodb")
    table.create_table()
    Fault = table.model("Fault")                  # or table.Fault
    fault = Fault.create({"deviceId": "d1", ...})
    faults = Fault.find({"deviceId": "d1"}, limit=10)
"""

from __future__ import annotations

import copy
import logging
import re
import time
from collections.abc import Callable, Mapping
from typing import Any

from . import collectors, ids
from .blocks import ModelSpec, build_model, field_defs
from .codec import Decoder
from .crypt import Crypto
from .errors import (
    ConditionFailedError,
    ModelDisabledError,
    OneTableArgError,
    OneTableError,
    TransactionError,
    ValidationError,
)
from .model import UNIQUE_MODEL, Model, normalize_params
from .params import check_params, require, suggest
from .spec import SchemaSpec, load, process_enable, validate_source
from .syncmeta import SyncPlan, sync_index_definition

CONFIRM_DELETE = "DeleteTableForever"
GENERIC_MODEL = "_Generic"
SCHEMA_MODEL = "_Schema"
MIGRATION_MODEL = "_Migration"
SCHEMA_KEY = "_schema"
MIGRATION_KEY = "_migration"
SIDES = ("cloud", "device")
INTERNAL_MODELS = (GENERIC_MODEL, SCHEMA_MODEL, MIGRATION_MODEL, UNIQUE_MODEL)

_log = logging.getLogger("dynabase.model")
_LEVELS = {
    "trace": logging.DEBUG,
    "data": logging.DEBUG,
    "info": logging.INFO,
    "warn": logging.WARNING,
    "error": logging.ERROR,
}


#: the params OneTable fills in when it saves a schema that gives its own
_ONETABLE_DEFAULT_PARAMS = {"nulls": False, "separator": "#", "typeField": "_type", "warn": False}


class Table:
    """A DynamoDB table described by a OneTable schema.

    :param name: the DynamoDB table name.
    :param client: a low-level DynamoDB client (``dynabase.connect(...)`` or ``boto3.client("dynamodb")``).
    :param schema: a :class:`dynabase.schema.Schema`, or a OneTable schema document (dict / JSON / JSON5 / YAML).
    :param context: properties blended into every call (tenant keys; see :meth:`set_context`).
    :param partial: update nested schema objects field by field (default True, OneTable's current default).
    :param hidden: return hidden fields (value-template keys, the type field) by default (default False).
    :param logger: ``None`` (the ``dynabase.model`` logging logger), a callable ``(level, message, context)``,
        or ``False`` for silence.
    :param crypto: ``{"primary": {"cipher": "aes-256-gcm", "password": ...}}`` for ``crypt`` fields.
    :param side: ``"cloud"`` or ``"device"``: models whose ``process.<Model>.enable`` is the other side are
        unavailable (:class:`~dynabase.model.errors.ModelDisabledError`).
    :param numbers: how stored numbers come back: ``"auto"`` (int, or Decimal for fractions; default),
        ``"decimal"`` (always Decimal, like boto3) or ``"float"`` (int, or float for fractions).
    :param generate: the id function for fields with ``generate: true`` (default: a uuid).
    :param transform: ``transform(model, "read"|"write", item, properties, params[, raw]) -> item`` hook.
    :param validate: ``validate(model, properties, params) -> {field: message}`` hook run on writes.
    :param value: ``value(model, field_name, properties, params) -> str`` for fields with ``value: true``.
    :param sync_tombstone_ttl: seconds a tombstone left by a cloud-side remove of a synced model lives
        (``side="cloud"``; see docs/sync.md).
    """

    def __init__(
        self,
        name: str,
        client: Any,
        schema: Any,
        *,
        context: Mapping[str, Any] | None = None,
        partial: bool = True,
        hidden: bool = False,
        logger: Any = None,
        crypto: Mapping[str, Any] | None = None,
        side: str | None = None,
        numbers: str = "auto",
        generate: Callable[[], str] | None = None,
        transform: Callable[..., Any] | None = None,
        validate: Callable[..., Any] | None = None,
        value: Callable[..., Any] | None = None,
        follow_workers: int = 10,
        sleep: Callable[[float], None] = time.sleep,
        sync_tombstone_ttl: float = 30 * 86400,
        **unknown: Any,
    ) -> None:
        given: dict[str, Any] = {
            "context": context,
            "partial": partial,
            "hidden": hidden,
            "crypto": crypto,
            "side": side,
        }
        given.update(numbers=numbers, generate=generate, transform=transform, validate=validate, value=value)
        given.update(follow_workers=follow_workers, sleep=sleep, sync_tombstone_ttl=sync_tombstone_ttl)
        check_params("Table", {**unknown, **given})
        if not name:
            raise OneTableArgError('Missing "name" property')
        if side is not None and side not in SIDES:
            raise OneTableArgError(f"side must be one of {SIDES}, not {side!r}")
        self.name = name
        self.client = client
        self.context: dict[str, Any] = dict(context or {})
        self.partial = partial
        self.hidden = hidden
        self.logger = logger
        self._crypto_config = dict(crypto) if crypto else None
        self.side = side
        self.decoder = Decoder(numbers)
        self.numbers = numbers
        self.generate = generate
        self.transform = transform
        self.validate_fn = validate
        self.value_fn = value
        self.follow_workers = follow_workers
        self.sleep = sleep
        self.sync_tombstone_ttl = sync_tombstone_ttl
        self.set_schema(schema)

    # == schema and models ======================================================================================

    def set_schema(self, schema: Any) -> None:
        """Use ``schema`` (replacing the current one; nothing is written to the table)."""
        spec = load(schema, crypto=self._crypto_config)
        self.schema: SchemaSpec = spec
        self.crypto = Crypto(self._crypto_config or spec.crypto)
        self.indexes = spec.indexes
        self.params = spec.params
        self._models: dict[str, Model] = {}
        for model_name, model_def in spec.models.items():
            if model_name in (SCHEMA_MODEL, MIGRATION_MODEL):
                continue
            self._models[model_name] = Model(self, self._build(model_name, field_defs(model_def)))
        self._internal: dict[str, Model] = {}
        primary = self.indexes["primary"]
        keys = {primary.hash: {"type": self._key_type(primary.hash)}}
        if primary.sort:
            keys[primary.sort] = {"type": self._key_type(primary.sort)}
        self._internal[UNIQUE_MODEL] = Model(self, self._build(UNIQUE_MODEL, dict(keys), timestamps=False))
        self._internal[GENERIC_MODEL] = Model(
            self, self._build(GENERIC_MODEL, dict(keys), timestamps=False, generic=True)
        )
        schema_fields: dict[str, Any] = {
            primary.hash: {"type": "string", "required": True, "value": SCHEMA_KEY},
            "format": {"type": "string", "required": True},
            "indexes": {"type": "object", "required": True},
            "name": {"type": "string", "required": True},
            "models": {"type": "object", "required": True},
            "params": {"type": "object", "required": True},
            "queries": {"type": "object", "required": True},
            "process": {"type": "object"},
            "version": {"type": "string", "required": True},
        }
        migration_fields: dict[str, Any] = {
            primary.hash: {"type": "string", "value": MIGRATION_KEY},
            "date": {"type": "date", "required": True},
            "description": {"type": "string", "required": True},
            "path": {"type": "string", "required": True},
            "version": {"type": "string", "required": True},
        }
        if primary.sort:
            schema_fields[primary.sort] = {
                "type": "string",
                "required": True,
                "value": SCHEMA_KEY + ":${name}",
            }
            migration_fields[primary.sort] = {"type": "string", "value": MIGRATION_KEY + ":${version}"}
        self._internal[SCHEMA_MODEL] = Model(self, self._build(SCHEMA_MODEL, schema_fields))
        self._internal[MIGRATION_MODEL] = Model(self, self._build(MIGRATION_MODEL, migration_fields))

    def _build(self, name: str, defs: Mapping[str, Any], **options: Any) -> ModelSpec:
        return build_model(name, defs, self.indexes, self.params, partial=self.partial, **options)

    def _key_type(self, attribute: str) -> str:
        kind = self.attribute_type(attribute)
        return "number" if kind == "number" else "string"

    def attribute_type(self, attribute: str) -> str | None:
        """The schema type of the first model field stored in ``attribute`` (used for key definitions)."""
        for model in self._models.values() if hasattr(self, "_models") else ():
            for f in model.fields.values():
                if f.attribute[0] == attribute and len(f.attribute) == 1:
                    return f.type
        for model_def in self.schema.models.values():
            defs = field_defs(model_def)
            if attribute in defs:
                raw = defs[attribute]
                kind = raw.get("type") if isinstance(raw, Mapping) else getattr(raw, "type", None)
                if kind is not None:
                    return str(getattr(kind, "__name__", kind)).lower()
        return None

    @property
    def unique_model(self) -> Model:
        return self._internal[UNIQUE_MODEL]

    @property
    def generic_model(self) -> Model:
        return self._internal[GENERIC_MODEL]

    def enabled(self, name: str) -> bool:
        """Whether model ``name`` is available on this table's side (always, when no side is set)."""
        if self.side is None:
            return True
        enable = process_enable(self.schema, name)
        return enable in ("both", self.side)

    def model(self, name: str) -> Model:
        """The model ``name``; ValidationError if the schema has none, ModelDisabledError if ``process``
        keeps it on the other side."""
        model = self._models.get(name) or self._internal.get(name) if isinstance(name, str) else None
        if model is None:
            best = suggest(str(name), self._models)
            hint = f'; did you mean "{best}"?' if best else ""
            raise ValidationError(
                f'Unknown model "{name}" (the schema has {", ".join(sorted(self._models)) or "no models"}){hint}',
                model=name,
                code="ValidationError",
            )
        if name in self._models and not self.enabled(name):
            enable = process_enable(self.schema, name)
            raise ModelDisabledError(
                f'Model "{name}" is enabled for the {enable} side only (process.{name}.enable), '
                f"and this table is the {self.side} side",
                model=name,
            )
        return model

    get_model = model

    def model_for(self, kind: Any) -> Model | None:
        """The model for an item's type attribute, without the side check (used to read items)."""
        if kind is None:
            return None
        return self._models.get(kind) or self._internal.get(kind)

    _model_for = model_for  # the name other layers used before

    def list_models(self) -> list[str]:
        """Names of the schema's models available on this side."""
        return [name for name in self._models if self.enabled(name)]

    @property
    def models(self) -> dict[str, Model]:
        return {name: model for name, model in self._models.items() if self.enabled(name)}

    def __getattr__(self, name: str) -> Model:
        models = self.__dict__.get("_models")
        if models is not None and name in models:
            return self.model(name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __repr__(self) -> str:
        return f"<Table {self.name!r} models={list(self._models)}>"

    # == context ================================================================================================

    def get_context(self) -> dict[str, Any]:
        return self.context

    def set_context(self, context: Mapping[str, Any] | None = None, merge: bool = False) -> Table:
        """Replace (or with ``merge=True`` extend) the context: properties that fill every call's properties
        (all fields on create, non-key fields otherwise), e.g. a tenant id used in key templates."""
        self.context = {**self.context, **(context or {})} if merge else dict(context or {})
        return self

    def add_context(self, context: Mapping[str, Any] | None = None) -> Table:
        return self.set_context(context, merge=True)

    def clear_context(self) -> Table:
        self.context = {}
        return self

    # == running requests =======================================================================================

    def log(self, level: str, message: str, **context: Any) -> None:
        logger = self.logger
        if logger is False:
            return
        if callable(logger):
            logger(level, message, context)
            return
        python_level = self._python_level(level)
        if _log.isEnabledFor(python_level):
            _log.log(python_level, "%s %s", message, context)

    def logs(self, level: str) -> bool:
        """Whether :meth:`log` at ``level`` writes anything (a hot path skips making a message that would not)."""
        logger = self.logger
        if logger is False:
            return False
        return callable(logger) or _log.isEnabledFor(self._python_level(level))

    def _python_level(self, level: str) -> int:
        python_level = _LEVELS.get(level, logging.INFO)
        if self.logger is True and python_level < logging.INFO and level not in ("trace", "data"):
            python_level = logging.INFO
        return python_level

    def execute(
        self,
        model: str,
        op: str,
        method: str,
        cmd: dict[str, Any],
        params: Mapping[str, Any],
        reader: Callable[[dict[str, Any]], Any] | None = None,
        whole: Callable[[dict[str, Any]], Any] | None = None,
    ) -> Any:
        """Run one client call; errors become :class:`~dynabase.model.errors.OneTableError` subclasses
        (``throw=False`` returns None instead).  With ``reader``, a query through the client's ``read_query``
        (its ``Items`` are ``reader(item)`` of each item, and ``whole`` reads those it returns None for; the
        caller checked the client has it)."""
        client = params.get("client") or self.client
        if params.get("log"):
            self.log("info", f'OneTable "{op}" "{model}"', cmd=cmd)
        try:
            if reader is not None:
                return client.read_query(reader, whole, **cmd)
            return getattr(client, method)(**cmd)
        except Exception as error:
            if params.get("throw") is False:
                return None
            raise self.call_error(model, op, error) from error

    def call_error(self, model: str, op: str, error: Exception) -> OneTableError:
        """The error a failed client call of ``op`` on ``model`` raises (the client's error in ``.error``)."""
        response = getattr(error, "response", None)
        if not isinstance(response, Mapping):
            if isinstance(error, OneTableError):
                return error
            return OneTableError(
                f'OneTable execute failed "{op}" for "{model}": {error}',
                code=type(error).__name__,
                error=error,
            )
        code = (response.get("Error") or {}).get("Code") or "Error"
        message = (response.get("Error") or {}).get("Message") or str(error)
        if code == "ConditionalCheckFailedException":
            what = "create" if op == "put" else op
            return ConditionFailedError(f'Conditional {what} failed for "{model}"', code=code, error=error)
        if code == "TransactionCanceledException":
            reasons = [r.get("Code") or "None" for r in response.get("CancellationReasons") or []]
            if not reasons:
                found = re.search(r"\[(.*)\]", message)
                reasons = [r.strip() for r in found.group(1).split(",")] if found else []
            return TransactionError(
                f"Transaction Cancelled: {message}", code=code, error=error, reasons=reasons
            )
        return OneTableError(
            f'OneTable execute failed "{op}" for "{model}": {message}', code=code, error=error
        )

    # == table administration ===================================================================================

    def get_table_definition(self, **params: Any) -> dict[str, Any]:
        """The CreateTable request for the schema's indexes (``provisioned={"ReadCapacityUnits": .., ..}`` for
        provisioned billing, ``stream="NEW_AND_OLD_IMAGES"`` for a stream)."""
        check_params("get_table_definition", params)
        definition: dict[str, Any] = {
            "TableName": self.name,
            "AttributeDefinitions": [],
            "KeySchema": [],
        }
        provisioned = params.get("provisioned") or params.get("ProvisionedThroughput")
        if provisioned and (provisioned.get("ReadCapacityUnits") or provisioned.get("WriteCapacityUnits")):
            definition["BillingMode"] = "PROVISIONED"
            definition["ProvisionedThroughput"] = provisioned
        else:
            definition["BillingMode"] = "PAY_PER_REQUEST"
            provisioned = None
        stream = params.get("stream") or params.get("StreamSpecification")
        if stream:
            definition["StreamSpecification"] = (
                stream if isinstance(stream, Mapping) else {"StreamEnabled": True, "StreamViewType": stream}
            )
        defined: set[str] = set()
        primary = self.indexes["primary"]
        gsis: list[dict[str, Any]] = []
        lsis: list[dict[str, Any]] = []

        def attribute(name: str) -> None:
            if name not in defined:
                defined.add(name)
                kind = "N" if self.attribute_type(name) == "number" else "S"
                definition["AttributeDefinitions"].append({"AttributeName": name, "AttributeType": kind})

        for name, index in self.indexes.items():
            hashes = index.hashes or (primary.hash,)
            keys = [{"AttributeName": a, "KeyType": "HASH"} for a in hashes]
            keys += [{"AttributeName": a, "KeyType": "RANGE"} for a in index.sorts]
            for a in (*hashes, *index.sorts):
                attribute(a)
            if name == "primary":
                definition["KeySchema"] = keys
                continue
            projection: dict[str, Any]
            if isinstance(index.project, list):
                key_names = {primary.hash, primary.sort, *index.keys}
                projection = {
                    "ProjectionType": "INCLUDE",
                    "NonKeyAttributes": [a for a in index.project if a not in key_names],
                }
                if not projection["NonKeyAttributes"]:
                    projection = {"ProjectionType": "KEYS_ONLY"}
            elif index.project == "keys":
                projection = {"ProjectionType": "KEYS_ONLY"}
            else:
                projection = {"ProjectionType": "ALL"}
            entry = {"IndexName": name, "KeySchema": keys, "Projection": projection}
            if index.kind == "local":
                lsis.append(entry)
            else:
                if provisioned:
                    entry["ProvisionedThroughput"] = provisioned
                gsis.append(entry)
        if self.side == "cloud" and self.sync_plan.models:  # devices pull from the sync index
            sync_index, attributes = sync_index_definition()
            if provisioned:
                sync_index["ProvisionedThroughput"] = provisioned
            gsis.append(sync_index)
            definition["AttributeDefinitions"] += [a for a in attributes if a["AttributeName"] not in defined]
        if gsis:
            definition["GlobalSecondaryIndexes"] = gsis
        if lsis:
            definition["LocalSecondaryIndexes"] = lsis
        return definition

    @property
    def sync_plan(self) -> SyncPlan:
        """The schema's synced models (``process.<Model>.sync``), for sync and the cloud-side entity layer."""
        plan = self.__dict__.get("_sync_plan")
        if plan is None or plan.table is not self or self.__dict__.get("_sync_schema") is not self.schema:
            plan = self.__dict__["_sync_plan"] = SyncPlan(self)
            self.__dict__["_sync_schema"] = self.schema
        return plan

    def create_table(self, *, wait: float = 60.0, ttl: str | None = None, **params: Any) -> dict[str, Any]:
        """Create the table from the schema's indexes (GSIs, LSIs, projections); waits until it is ACTIVE.
        ``ttl="attr"`` also enables TTL on that attribute.

        With synced models, a ``side="cloud"`` table also gets the sync index and TTL on the tombstones'
        expiry attribute; a ``side="device"`` table gets change capture of the models that sync up (the
        embedded client only: the engine captures changes)."""
        check_params("create_table", params)
        plan = self.sync_plan
        if self.side == "cloud" and plan.models and ttl is None:
            ttl = plan.ttl_attribute
        definition = self.get_table_definition(**params)
        self.log("trace", f'OneTable createTable for "{self.name}"', definition=definition)
        try:
            result: dict[str, Any] = self.client.create_table(**definition)
        except Exception as error:
            raise self.call_error(self.name, "createTable", error) from error
        if wait:
            deadline = time.monotonic() + wait
            while True:
                status = self.describe_table()["Table"].get("TableStatus")
                if status == "ACTIVE" or time.monotonic() > deadline:
                    break
                self.sleep(0.5)
        if ttl:
            self.client.update_time_to_live(
                TableName=self.name, TimeToLiveSpecification={"Enabled": True, "AttributeName": ttl}
            )
        if self.side == "device" and plan.models:
            if hasattr(self.client, "enable_change_capture"):
                self.enable_change_capture()
            else:  # only the embedded engine captures changes; dynabase.sync refuses such a device table
                self.log("warn", f'Table "{self.name}": no change capture on this client, so it cannot sync')
        return result

    def enable_change_capture(self, node: str = "x" * 12) -> None:
        """Capture changes of the models that sync up, and of those that sync down (only so that sync undoes
        them); refuse writes that leave no room for the metadata a push from ``node`` (the device id) adds
        (device side; idempotent)."""
        plan = self.sync_plan
        self.client.enable_change_capture(
            TableName=self.name,
            TypeAttribute=self.params.type_field,
            Types=plan.pushed,
            Guarded=plan.guarded,
            Reserve=plan.metadata_reserve(node),
        )

    def delete_table(self, confirmation: str | None = None) -> None:
        """Delete the DynamoDB table forever; ``confirmation`` must be ``"DeleteTableForever"``."""
        if confirmation != CONFIRM_DELETE:
            raise OneTableArgError(f'Missing required confirmation "{CONFIRM_DELETE}"')
        try:
            self.client.delete_table(TableName=self.name)
        except Exception as error:
            raise self.call_error(self.name, "deleteTable", error) from error

    def describe_table(self) -> dict[str, Any]:
        try:
            description: dict[str, Any] = self.client.describe_table(TableName=self.name)
        except Exception as error:
            raise self.call_error(self.name, "describeTable", error) from error
        return description

    def exists(self) -> bool:
        try:
            self.client.describe_table(TableName=self.name)
            return True
        except Exception as error:
            response = getattr(error, "response", None) or {}
            if (response.get("Error") or {}).get("Code") == "ResourceNotFoundException":
                return False
            raise self.call_error(self.name, "describeTable", error) from error

    # == model conveniences (OneTable's Table.create/get/... by model name) =======================================

    def create(self, model: str, properties: Mapping[str, Any], **params: Any) -> Any:
        return self.model(model).create(properties, **params)

    def get(self, model: str, properties: Mapping[str, Any], **params: Any) -> Any:
        return self.model(model).get(properties, **params)

    def find(self, model: str, properties: Mapping[str, Any] | None = None, **params: Any) -> Any:
        return self.model(model).find(properties, **params)

    def scan(self, model: str, properties: Mapping[str, Any] | None = None, **params: Any) -> Any:
        return self.model(model).scan(properties, **params)

    def update(self, model: str, properties: Mapping[str, Any], **params: Any) -> Any:
        return self.model(model).update(properties, **params)

    def upsert(self, model: str, properties: Mapping[str, Any], **params: Any) -> Any:
        return self.model(model).upsert(properties, **params)

    def remove(self, model: str, properties: Mapping[str, Any], **params: Any) -> Any:
        return self.model(model).remove(properties, **params)

    def init(self, model: str, properties: Mapping[str, Any] | None = None, **params: Any) -> Any:
        return self.model(model).init(properties, **params)

    # == low-level API (any attributes, no model) ==================================================================

    def _generic(
        self, method: str, properties: Mapping[str, Any], params: dict[str, Any], **defaults: Any
    ) -> Any:
        check_params(method[1:], params)
        model = self.generic_model
        properties, p = model._check(properties, params, defaults)
        return getattr(model, method)(properties, p)

    def get_item(self, properties: Mapping[str, Any], **params: Any) -> Any:
        """GetItem by raw attribute names; returns the decoded item (no model mapping)."""
        return self._generic("_get_item", properties, params)

    def put_item(self, properties: Mapping[str, Any], **params: Any) -> Any:
        return self._generic("_put_item", properties, params)

    def update_item(self, properties: Mapping[str, Any], **params: Any) -> Any:
        return self._generic("_update_item", properties, params)

    def delete_item(self, properties: Mapping[str, Any], **params: Any) -> Any:
        return self._generic("_delete_item", properties, params)

    def query_items(self, properties: Mapping[str, Any], **params: Any) -> Any:
        return self._generic("_query_items", properties, params)

    def scan_items(self, properties: Mapping[str, Any] | None = None, **params: Any) -> Any:
        return self._generic("_scan_items", properties or {}, params)

    # == collections, batches, transactions =====================================================================

    def fetch(self, models: list[str], properties: Mapping[str, Any], **params: Any) -> dict[str, list[Any]]:
        """The items of ``models`` in one partition (one query), grouped by model name.

        ``properties`` gives the partition: the primary hash attribute itself, or the properties the first
        model's hash key template needs.  Items come back through their models (``hidden=True`` by default,
        as OneTable's fetch).
        """
        check_params("fetch", params)
        if not models:
            return {}
        for name in models:
            self.model(name)  # unknown / disabled models fail here
        primary = self.indexes["primary"]
        properties = dict(properties)
        if primary.hash not in properties:
            first = self.model(models[0])
            options: dict[str, Any] = {"checked": True, "high": True}
            if "context" in params:
                options["context"] = params["context"]
            key = first._prepare("find", dict(properties), options)
            hash_name = next((f.name for f in first.fields.values() if f.att == primary.hash), primary.hash)
            properties = {primary.hash: key.get(hash_name)}
        model = self.generic_model
        props, p = model._check(properties, params, {"parse": False, "hidden": True})
        clause = " or ".join(f"${{{self.params.type_field}}} = {{{name}}}" for name in models)
        p["where"] = f"({p['where']}) and ({clause})" if p.get("where") else clause
        p["parse"] = False
        items = model._query_items(props, p)
        read_params = {"hidden": params.get("hidden", True)}
        grouped: dict[str, list[Any]] = {name: [] for name in models}
        for item in items:
            kind = item.get(self.params.type_field)
            target = self.model_for(kind)
            if target is None:
                continue
            grouped.setdefault(kind, []).append(target._transform_read("get", item, {}, read_params))
        return grouped

    def group_by_type(
        self, items: list[Mapping[str, Any]], *, hidden: bool | None = None
    ) -> dict[str, list[Any]]:
        """Items grouped by their type attribute (items without one under ``"_unknown"``)."""
        out: dict[str, list[Any]] = {}
        for item in items:
            kind = item.get(self.params.type_field) or "_unknown"
            model = self.model_for(kind)
            if hidden is False and model is not None:
                item = {k: v for k, v in item.items() if not (k in model.fields and model.fields[k].hidden)}
            out.setdefault(kind, []).append(item)
        return out

    def batch_get(self, batch: dict[str, Any], **params: Any) -> Any:
        """Run the gets collected with ``batch=`` (see :mod:`dynabase.model.collectors`)."""
        check_params("batch_get", params)
        require("batch_get", "batch", batch, "dict")
        return collectors.batch_get(self, batch, params)

    def batch_write(self, batch: dict[str, Any], **params: Any) -> bool:
        """Run the creates/removes collected with ``batch=``."""
        check_params("batch_write", params)
        require("batch_write", "batch", batch, "dict")
        return collectors.batch_write(self, batch, params)

    def transact(self, op: str, transaction: dict[str, Any], **params: Any) -> Any:
        """Run the operations collected with ``transaction=``: ``op`` is ``"write"`` or ``"get"``."""
        check_params("transact", params)
        require("transact", "transaction", transaction, "dict")
        return collectors.transact(self, op, transaction, params)

    # == stored schemas =========================================================================================

    def current_schema(self) -> dict[str, Any]:
        """The schema document as OneTable saves it (regexes as ``"/src/flags"``, types as names, full params)."""
        raw = copy.deepcopy(dict(self.schema.raw)) if self.schema.raw else {}
        models = raw.get("models") or {name: {} for name in self.schema.models}
        out_models = {}
        for name, fields in models.items():
            out_models[name] = {fname: _field_for_write(f) for fname, f in dict(fields).items()}
        indexes: dict[str, Any] = {}
        raw_indexes = raw.get("indexes") or {}
        for name, index in self.indexes.items():
            entry = dict(raw_indexes.get(name) or {})
            entry["hash"] = list(index.hashes) if len(index.hashes) > 1 else index.hash
            if index.sort:
                entry["sort"] = list(index.sorts) if len(index.sorts) > 1 else index.sort
            indexes[name] = {k: v for k, v in entry.items() if v is not None}
        params = {**(raw.get("params") or {}), **self.params.as_onetable()}
        schema: dict[str, Any] = {
            "format": raw.get("format") or self.schema.format,
            "version": raw.get("version") or self.schema.version,
            "indexes": indexes,
            "models": out_models,
            "params": params,
            "queries": raw.get("queries") or {},
        }
        if raw.get("process") is not None:
            schema["process"] = raw["process"]
        if raw.get("name"):
            schema["name"] = raw["name"]
        plain: dict[str, Any] = _plain(schema)
        return plain

    def save_schema(self, schema: Mapping[str, Any] | None = None, **params: Any) -> Any:
        """Store ``schema`` (default: the current one) as the ``_schema`` item OneTable uses
        (hash ``_schema``, sort ``_schema:<name>``, name ``Current`` by default)."""
        if schema is None:
            document = self.current_schema()
        else:
            document = _plain(copy.deepcopy(dict(schema)))
            if "params" in document:  # OneTable stores the given params over its defaults
                document["params"] = {**_ONETABLE_DEFAULT_PARAMS, **dict(document["params"] or {})}
            else:
                document["params"] = self.params.as_onetable()
            document.setdefault("models", {})
            document.setdefault("indexes", self.current_schema()["indexes"])
            document.setdefault("queries", {})
            document["models"] = {
                name: {fname: _field_for_write(f) for fname, f in dict(fields).items()}
                for name, fields in document["models"].items()
            }
        document.setdefault("name", "Current")
        document["version"] = document.get("version") or "0.0.1"
        document["format"] = "onetable:1.1.0"
        return self._internal[SCHEMA_MODEL].create(document, exists=None, **params)

    def read_schema(self, name: str = "Current") -> dict[str, Any] | None:
        """The stored schema ``name`` (the document as saved), or None."""
        item = self._internal[SCHEMA_MODEL].get({"name": name}, consistent=True)
        return _schema_document(item)

    def read_schemas(self) -> list[dict[str, Any]]:
        """Every stored schema."""
        primary = self.indexes["primary"]
        items = self._internal[SCHEMA_MODEL].find({primary.hash: SCHEMA_KEY})
        return [doc for doc in (_schema_document(item) for item in items) if doc is not None]

    def remove_schema(self, name: str = "Current") -> Any:
        return self._internal[SCHEMA_MODEL].remove({"name": name})

    # == ids and crypto =========================================================================================

    def uuid(self) -> str:
        return ids.uuid()

    def ulid(self) -> str:
        return ids.ulid()

    def uid(self, size: int = 10) -> str:
        return ids.uid(size)

    def encrypt(self, text: str, name: str = "primary") -> str:
        return self.crypto.encrypt(text, name)

    def decrypt(self, text: str) -> str:
        return self.crypto.decrypt(text)

    # == streams ================================================================================================

    def stream(self, records: list[Mapping[str, Any]], **params: Any) -> dict[str, list[dict[str, Any]]]:
        """DynamoDB Stream records -> ``{model: [{"type": eventName, "new": item, "old": item}]}``."""
        check_params("stream", params)
        p = normalize_params(params)
        out: dict[str, list[dict[str, Any]]] = {}
        type_field = self.params.type_field
        for record in records:
            data = record.get("dynamodb") or {}
            new, old = data.get("NewImage"), data.get("OldImage")
            if not new and not old:
                continue
            entry: dict[str, Any] = {"type": record.get("eventName")}
            kind_new: Any = None  # an item's type attribute: whatever was stored
            kind_old: Any = None
            if new:
                item = self.decoder.decode_item(new)
                kind_new = item.get(type_field)
                model = self._models.get(kind_new)
                if model is not None:
                    entry["new"] = model._transform_read("get", item, {}, p)
            if old:
                item = self.decoder.decode_item(old)
                kind_old = item.get(type_field)
                model = self._models.get(kind_old)
                if model is not None:
                    if kind_new and kind_new != kind_old:
                        continue
                    entry["old"] = model._transform_read("get", item, {}, p)
            kind = kind_new or kind_old
            if kind is None:
                continue
            out.setdefault(kind, []).append(entry)
        return out


def _field_for_write(field: Any) -> Any:
    """A field definition as OneTable persists it: type names lowercased, regexes as ``/source/flags``."""
    if not isinstance(field, Mapping):
        # a loader dataclass: keep its plain attributes
        attrs = {
            k: v
            for k, v in getattr(field, "__dict__", {}).items()
            if v not in (None, False) and not k.startswith("_")
        }
        field = attrs
    out = dict(field)
    kind = out.get("type")
    if kind is not None:
        out["type"] = str(getattr(kind, "__name__", kind)).lower()
        out["type"] = {
            "str": "string",
            "int": "number",
            "float": "number",
            "bool": "boolean",
            "dict": "object",
            "list": "array",
            "bytes": "binary",
            "datetime": "date",
        }.get(out["type"], out["type"])
    if out.get("validate") is not None:
        out["validate"] = validate_source(out["validate"])
    if isinstance(out.get("schema"), Mapping):
        out["schema"] = {k: _field_for_write(v) for k, v in out["schema"].items()}
    items = out.get("items")
    if isinstance(items, Mapping) and isinstance(items.get("schema"), Mapping):
        out["items"] = {**items, "schema": {k: _field_for_write(v) for k, v in items["schema"].items()}}
    return out


def _plain(value: Any) -> Any:
    """JSON-like values only (what a DynamoDB map can hold): tuples -> lists, patterns/templates -> text."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, re.Pattern):
        return validate_source(value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    text = getattr(value, "text", None)
    if isinstance(text, str):
        return text
    if isinstance(value, type):
        return value.__name__.lower()
    return str(value)


def _schema_document(item: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if item is None:
        return None
    keys = ("format", "version", "name", "indexes", "models", "params", "queries", "process")
    return {k: item[k] for k in keys if k in item}


__all__ = ["CONFIRM_DELETE", "Table"]
