"""Preparing properties: OneTable's pipeline from API properties to the record a request is built from.

Context blended in, defaults and generated ids set, value templates run in dependency order, ``None`` values
dropped (or turned into REMOVEs on update), ``required`` / ``enum`` / ``validate`` checked, the attributes the
operation needs selected; the values are then converted to their stored forms (:mod:`.write`).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime
from typing import Any

from . import ids
from .base import ModelBase
from .blocks import Block
from .errors import (
    MissingKeyError,
    OneTableArgError,
    ValidationError,
)
from .params import suggest
from .spec import MISSING, FieldSpec, IndexSpec
from .values import js_str, write_date

KEYS_ONLY = frozenset(("delete", "get"))
_CHECKED: dict[int, tuple[dict[str, FieldSpec], frozenset[str]]] = {}
_REQUIRED: dict[int, tuple[dict[str, FieldSpec], list[FieldSpec]]] = {}


def _checked_fields(fields: dict[str, FieldSpec]) -> frozenset[str]:
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


class PreparePath(ModelBase):
    """How a Model turns API properties into the record of one request."""

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
        self, op: str, fields: dict[str, FieldSpec], properties: dict[str, Any], p: Mapping[str, Any]
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
                    target = f"{path}.{name}" if path else name
                    # a new list: the caller's own stays as it was given
                    removing = [] if remove is None else [remove] if isinstance(remove, str) else list(remove)
                    if target not in removing:
                        p["remove"] = [*removing, target]

    def _validate(
        self,
        op: str,
        path: str,
        fields: dict[str, FieldSpec],
        properties: dict[str, Any],
        p: Mapping[str, Any],
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
