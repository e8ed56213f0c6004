"""Model field blocks: OneTable's ``prepModel`` — attribute mapping, packing, index roles, nested schemas,
implicit type/timestamp fields and the dependency order of value templates."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import OneTableArgError
from .spec import (
    MISSING,
    FieldSpec,
    IndexSpec,
    TableParams,
    _get,
    _type_name,
    compile_validate,
    make_template,
    template_text,
)

_VAR = re.compile(r"\$\{(.*?)\}")


@dataclass(eq=False)
class Block:
    fields: dict[str, FieldSpec] = field(default_factory=dict)
    deps: list[FieldSpec] = field(default_factory=list)


@dataclass(eq=False)
class ModelSpec:
    name: str
    block: Block
    hash: str | None = None  # primary hash attribute (when the model defines it)
    sort: str | None = None
    has_unique: bool = False
    nested: bool = False
    generic: bool = False
    timestamps: Any = False
    mappings: dict[str, list] = field(default_factory=dict)  # packed attribute -> sub names
    unique_fields: list[FieldSpec] = field(default_factory=list)
    unique_inputs: frozenset[str] = frozenset()


def field_defs(model_def: Any) -> Mapping[str, Any]:
    """The field definitions of a model: a dict of raw field dicts, or a ModelDef's ``fields``."""
    if isinstance(model_def, Mapping):
        return model_def
    fields = _get(model_def, "fields", default=None)
    if fields is None:
        raise OneTableArgError(f"Cannot read model definition {model_def!r}")
    return fields


def index_properties(indexes: dict[str, IndexSpec]) -> dict[str, str]:
    """attribute -> index name for every index key attribute; the primary index wins."""
    out: dict[str, str] = {}
    for name, index in indexes.items():
        for attribute in index.keys:
            if attribute and out.get(attribute) != "primary":
                out[attribute] = name
    return out


def build_model(
    name: str,
    defs: Mapping[str, Any],
    indexes: dict[str, IndexSpec],
    params: TableParams,
    *,
    partial: bool = True,
    generic: bool = False,
    timestamps: Any = None,
) -> ModelSpec:
    spec = ModelSpec(
        name=name,
        block=Block(),
        generic=generic,
        timestamps=params.timestamps if timestamps is None else timestamps,
    )
    by_attribute = index_properties(indexes)
    _prep(spec, defs, spec.block, None, indexes, params, by_attribute, partial)
    primary = indexes["primary"]
    spec.unique_fields = [
        f for f in spec.block.fields.values() if f.unique and f.att != primary.hash and f.att != primary.sort
    ]
    spec.has_unique = bool(spec.unique_fields)
    # what an update must give or remove to move a sentinel: a unique field, or a property its scope names
    spec.unique_inputs = frozenset(
        [f.name for f in spec.unique_fields]
        + [
            path.split(".")[0].split("[")[0]
            for f in spec.unique_fields
            if isinstance(f.scope, str)
            for path in make_template(f.scope).fields
        ]
    )
    return spec


def _prep(
    spec: ModelSpec,
    defs: Mapping[str, Any],
    block: Block,
    parent: FieldSpec | None,
    indexes: dict[str, IndexSpec],
    params: TableParams,
    by_attribute: dict[str, str],
    table_partial: bool,
) -> None:
    defs = dict(defs)
    if parent is None:
        type_field = params.type_field
        if type_field not in defs:
            defs[type_field] = {"type": "string", "hidden": True, "required": not spec.generic}
        if spec.timestamps is True or spec.timestamps == "create":
            defs.setdefault(params.created_field, {"type": "date"})
        if spec.timestamps is True or spec.timestamps == "update":
            defs.setdefault(params.updated_field, {"type": "date"})
    primary = indexes["primary"]
    map_targets: dict[str, list] = {}

    for fname, raw in defs.items():
        # raw: a field dict, or the schema loader's Field (whose .raw holds what the document said)
        explicit = raw if isinstance(raw, Mapping) else (getattr(raw, "raw", None) or {})
        ftype = _type_name(_get(raw, "type", default="string"))
        value = template_text(_get(raw, "value", default=None))
        if value is None and _get(raw, "value_function", default=False):
            value = True
        if isinstance(raw, Mapping):
            default = raw.get("default", MISSING)
        else:
            default = raw.default if getattr(raw, "has_default", raw.default is not None) else MISSING
        if default is None:
            default = MISSING
        f = FieldSpec(
            name=fname,
            type=ftype,
            attribute=(fname,),
            value=value,
            template=make_template(value) if isinstance(value, str) else None,
            default=default,
            generate=_generate_kind(_get(raw, "generate", default=None)),
            required=bool(_get(raw, "required", default=False)),
            enum=list(_get(raw, "enum", default=None) or []) or None,
            validate=compile_validate(_get(raw, "validate", default=None)),
            unique=bool(_get(raw, "unique", default=False)),
            scope=template_text(_get(raw, "scope", default=None)),
            crypt=bool(_get(raw, "crypt", "encrypt", default=False)),
            ttl=bool(_get(raw, "ttl", default=False)),
            filter=_get(raw, "filter", default=True) is not False,
            raw=raw,
        )
        if f.scope is not None and not isinstance(f.scope, str):
            f.scope = None
        iso = _get(explicit, "iso_dates", "isoDates", default=None)
        f.iso_dates = params.iso_dates if iso is None else bool(iso)
        part = _get(explicit, "partial", default=None)
        if part is None:
            part = parent.partial if parent is not None else table_partial
        f.partial = bool(part)
        nulls = _get(explicit, "nulls", default=None)
        f.nulls = params.nulls if nulls is None else bool(nulls)

        encode = _get(raw, "encode", default=None)
        if encode:
            f.encode = _resolve_encode(spec.name, fname, encode, defs, params)

        to = _get(raw, "map", default=None)
        if to is not None and not isinstance(to, str):
            attribute, sub = _get(to, "attribute"), _get(to, "sub")
            to = f"{attribute}.{sub}" if sub else attribute
        if to:
            att, _, sub = str(to).partition(".")
            targets = map_targets.setdefault(att, [])
            if sub:
                if sub in targets:
                    raise OneTableArgError(
                        f"Multiple attributes in {spec.name}.{fname} mapped to the target {to}"
                    )
                targets.append(sub)
                f.attribute = (att, sub)
            else:
                if len(targets) > 1:
                    raise OneTableArgError(f"Multiple attributes in {spec.name} mapped to the target {to}")
                targets.append(True)
                f.attribute = (att,)

        index = by_attribute.get(f.attribute[0])
        if index and parent is None:
            f.is_indexed = True
            if len(f.attribute) > 1:
                raise OneTableArgError(f'Cannot map property "{fname}" to a compound attribute')
            if index == "primary":
                f.required = True
                if f.att == primary.hash:
                    spec.hash = f.att
                elif f.att == primary.sort:
                    spec.sort = f.att
        hidden = _get(explicit, "hidden", default=None) if isinstance(raw, Mapping) else raw.hidden
        f.hidden = bool(hidden) if hidden is not None else bool(f.value)

        nested = _get(raw, "schema", default=None)
        items = _get(raw, "items", default=None)
        if (
            items is not None
            and nested is None
            and not isinstance(items, Mapping)
            and not isinstance(raw, Mapping)
        ):
            nested = getattr(items, "schema", None)
        if items is not None and ftype == "array":
            nested = _get(items, "schema", default=None) if nested is None else nested
            f.is_array = True
        if nested:
            if ftype not in ("object", "array"):
                raise OneTableArgError(
                    f'Nested schema does not support "{ftype}" types for field "{fname}" in model "{spec.name}"'
                )
            child = Block()
            nested_defs = field_defs(nested) if not isinstance(nested, Mapping) else nested
            _prep(spec, nested_defs, child, f, indexes, params, by_attribute, table_partial)
            f.fields = child.fields
            f.deps = child.deps
            spec.nested = True
        block.fields[fname] = f

    if parent is None:
        spec.mappings = {att: subs for att, subs in map_targets.items() if subs and subs[0] is not True}
    for f in list(block.fields.values()):
        _order(block, f)


def _order(block: Block, f: FieldSpec) -> None:
    if f in block.deps:
        return
    if isinstance(f.value, str):
        for path in _VAR.findall(f.value):
            ref_name = re.split(r"[.\[]", path.split(":")[0])[0].strip()
            ref = block.fields.get(ref_name)
            if ref is not None and ref is not f and ref.value and ref.fields is None:
                _order(block, ref)
    block.deps.append(f)


def _generate_kind(value: Any) -> Any:
    """A field's ``generate``: ``"ulid"``, ``"uuid"``, ``"uid"``, ``"uid(N)"``, True (the table's function)."""
    if value is None or value is False:
        return None
    kind = getattr(value, "kind", None)
    if kind is None:
        return value
    length = getattr(value, "length", None)
    if kind == "uid" and length:
        return f"uid({length})"
    if kind in ("ulid", "uuid", "uid"):
        return kind
    return True


def _resolve_encode(
    model: str, fname: str, encode: Any, defs: Mapping[str, Any], params: TableParams
) -> tuple:
    if hasattr(encode, "separator") and hasattr(encode, "index"):
        return (str(encode.field), str(encode.separator), int(encode.index))
    if isinstance(encode, (list, tuple)):
        if len(encode) != 3:
            raise OneTableArgError(f"Bad encode for {model}.{fname}: want [attribute, separator, index]")
        return (str(encode[0]), str(encode[1]), int(encode[2]))
    target = defs.get(str(encode))
    value = template_text(_get(target, "value", default=None)) if target is not None else None
    if isinstance(value, str):
        names = [v.split(":")[0] for v in _VAR.findall(value)]
        if fname in names:
            # the position among the separator-delimited parts of the target's template
            parts = value.split(params.separator)
            for i, part in enumerate(parts):
                if "${" + fname in part:
                    return (str(encode), params.separator, i)
    raise OneTableArgError(f"Cannot resolve encoded reference for {model}.{fname}")


__all__ = ["Block", "ModelSpec", "build_model", "field_defs", "index_properties"]
