"""The console's entity views, through the entity layer (:class:`dynabase.model.Table` / ``Model``) and the
schema documentation of :mod:`dynabase.tools.docs`: models and their key templates, a page of a table's items
grouped by model, find by the fields a model's key templates need, create and update with the schema's
validation errors per field.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

from ..model import Table
from ..model.codec import encode_item as encode_plain_item
from ..model.errors import OneTableError, UniqueError, ValidationError
from ..model.values import iso_string
from ..schema import ModelDef, Schema
from ..tools import docs
from ..tools.common import entity_indexes, load, schema_title
from ..transfer.codec import encode_item
from .api import ApiError, ConsoleAPI, bad, limit_of, page, parse_json, to_attribute_values

_JSON_TYPES = ("object", "array", "set")


def jsonable(value: Any) -> Any:
    """An entity's value as JSON: dates as ISO text (``Date.toISOString()``'s form, as items store them),
    binaries as base64, sets as lists, numbers as numbers."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((jsonable(v) for v in value), key=str)
    if isinstance(value, Decimal):
        if value == value.to_integral_value():
            return int(value)
        as_float = float(value)
        return as_float if Decimal(repr(as_float)) == value else str(value)
    if isinstance(value, datetime.datetime):  # as the item stores it (isoDates), not isoformat's +00:00
        return iso_string(value)
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    return value


def _template_inputs(model: ModelDef, attribute: str | None) -> list[str]:
    """The properties a key attribute's value template needs (the field itself when it has none)."""
    if attribute is None:
        return []
    f = model.field_for_attribute(attribute)
    if f is None:
        return []
    if f.value is None:
        return [f.name]
    return [ref.path for ref in f.value.refs if ref.path != model.params.type_field]


class Entities:
    """Entity views of the tables reached by ``client``, described by the schema in ``source``."""

    def __init__(self, client: Any, source: str | Path | dict[str, Any]) -> None:
        self.client = client
        self.source = source
        self.schema: Schema = load(source)
        named = source if isinstance(source, (str, Path)) else None
        self.doc = docs.build(self.schema, title=schema_title(self.schema, named))
        self._tables: dict[str, Table] = {}

    def table(self, name: Any) -> Table:
        if not isinstance(name, str) or not name:
            raise bad("table is required", "table")
        table = self._tables.get(name)
        if table is None:
            table = self._tables[name] = Table(name, self.client, self.schema)
        return table

    def operations(self, api: ConsoleAPI) -> dict[str, tuple[bool, Callable[[dict[str, Any]], Any]]]:
        return {
            "tableDefinition": (False, self.table_definition),
            "entityPage": (False, self.entity_page),
            "entityFind": (False, self.find),
            "entitySave": (True, self.save),
        }

    def docs_html(self) -> str:
        return docs.render_html(self.doc)

    def summary(self) -> dict[str, Any]:
        params = self.schema.params
        skipped = {params.type_field, params.created_field, params.updated_field}
        keys = {entity.name: entity.keys for entity in self.doc.entities}
        models = []
        for model in self.schema.models.values():
            fields = [
                {
                    "name": f.name,
                    "type": f.type,
                    "required": f.required,
                    "enum": list(f.enum) if f.enum else None,
                    "validate": f.validate.pattern if f.validate is not None else None,
                    "unique": f.unique,
                    "generated": f.generate is not None or f.has_default,
                }
                for f in model.fields.values()
                if f.value is None and not f.value_function and f.name not in skipped
            ]
            finds = {
                index.name: {
                    "hash": _template_inputs(model, index.hash),
                    "sort": _template_inputs(model, index.sort),
                }
                for index in entity_indexes(self.schema, model)
            }
            models.append(
                {
                    "name": model.name,
                    "keys": [dataclasses.asdict(k) for k in keys.get(model.name, [])],
                    "fields": fields,
                    "find": finds,
                }
            )
        return {"title": self.doc.title, "typeField": params.type_field, "models": models}

    # -- operations ----------------------------------------------------------------------------------------

    def table_definition(self, request: dict[str, Any]) -> dict[str, Any]:
        """The CreateTable request the schema's indexes give, for a table named ``table``."""
        return {"definition": self.table(request.get("table")).get_table_definition()}

    def entity_page(self, request: dict[str, Any]) -> dict[str, Any]:
        """One scan page of a table, its items decoded and grouped by model (the type attribute)."""
        table = self.table(request.get("table"))
        params: dict[str, Any] = {"TableName": table.name, "Limit": limit_of(request)}
        if request.get("startKey"):
            params["ExclusiveStartKey"] = to_attribute_values(request["startKey"], "ddb", "startKey")
        response = self.client.scan(**params)
        result = page(response)
        del result["items"]  # shown as groups of decoded items
        grouped = table.group_by_type([table.decoder.decode_item(item) for item in response.get("Items", [])])
        keys = {entity.name: entity.keys for entity in self.doc.entities}
        result["groups"] = [
            {
                "model": name,
                "keys": [dataclasses.asdict(k) for k in keys.get(name, [])],
                "items": [jsonable(item) for item in items],
            }
            for name, items in grouped.items()
        ]
        return result

    def _model(self, request: dict[str, Any]) -> Any:
        try:
            return self.table(request.get("table")).model(str(request.get("model") or ""))
        except OneTableError as error:
            raise bad(error.message, "model")

    def find(self, request: dict[str, Any]) -> dict[str, Any]:
        model = self._model(request)
        properties = request.get("properties") or {}
        if not isinstance(properties, dict):
            raise bad("properties must be a JSON object", "properties")
        params: dict[str, Any] = {"limit": limit_of(request)}
        if request.get("index") and request["index"] != "primary":
            params["index"] = request["index"]
        if request.get("next"):
            params["next"] = model.table.decoder.decode_item(
                to_attribute_values(request["next"], "ddb", "next")
            )
        try:
            found = model.find({k: v for k, v in properties.items() if v not in ("", None)}, **params)
        except ValidationError as error:
            raise ApiError(400, error.code, error.message, dict(error.fields))
        except OneTableError as error:
            raise ApiError(400, error.code, error.message)
        return {
            "items": [jsonable(item) for item in found],
            "next": encode_item(encode_plain_item(found.next)) if found.next else None,
        }

    def save(self, request: dict[str, Any]) -> dict[str, Any]:
        """Create (``mode: "create"``) or update an entity; the schema's errors come back per field."""
        model = self._model(request)
        given = request.get("properties")
        if not isinstance(given, dict):
            raise bad("properties must be a JSON object", "properties")
        properties: dict[str, Any] = {}
        for name, value in given.items():
            if value in ("", None):
                continue
            field = model.fields.get(name)
            if field is not None and field.type in _JSON_TYPES and isinstance(value, str):
                value = parse_json(value, name)
            properties[name] = value
        mode = request.get("mode", "create")
        if mode not in ("create", "update"):
            raise bad('mode must be "create" or "update"', "mode")
        try:
            saved = model.create(properties) if mode == "create" else model.update(properties)
        except ValidationError as error:
            raise ApiError(400, error.code, error.message, dict(error.fields))
        except UniqueError as error:
            taken = [f.name for f in model.spec.unique_fields if properties.get(f.name) is not None]
            raise ApiError(400, error.code, error.message, {name: "Already taken" for name in taken})
        except OneTableError as error:
            raise ApiError(400, error.code, error.message)
        return {"entity": jsonable(saved)}
