"""The schema as the entity layer uses it: fields, indexes, models and params, normalised once per Table.

Accepts either a :class:`dynabase.schema.Schema` (the loader's dataclasses) or a OneTable schema document (a
dict, or JSON / JSON5 / YAML text, loaded through :func:`dynabase.schema.load_schema` when that is available).
Everything the hot paths need (attribute names, dependency order of value templates, projections) is computed
here so that requests do not redo it.
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from .errors import OneTableArgError

MISSING: Any = type("Missing", (), {"__repr__": lambda self: "MISSING", "__bool__": lambda self: False})()

VALID_TYPES = (
    "array",
    "arraybuffer",
    "binary",
    "boolean",
    "buffer",
    "date",
    "number",
    "object",
    "set",
    "string",
)
_TYPE_ALIASES = {
    "str": "string",
    "int": "number",
    "float": "number",
    "decimal": "number",
    "bool": "boolean",
    "dict": "object",
    "map": "object",
    "list": "array",
    "bytes": "binary",
    "datetime": "date",
    "arraybuffer": "binary",
    "buffer": "binary",
    "frozenset": "set",
}

SCHEMA_FORMAT = "onetable:1.1.0"


def _get(obj: Any, *names: str, default: Any = None) -> Any:
    """First present attribute/key of ``names`` on a dataclass or a dict."""
    if obj is None:
        return default
    if isinstance(obj, Mapping):
        for name in names:
            if name in obj:
                return obj[name]
        return default
    for name in names:
        if hasattr(obj, name):
            return getattr(obj, name)
    return default


def _type_name(value: Any) -> str:
    if value is None:
        return "string"
    if isinstance(value, type):
        value = value.__name__
    text = str(value).strip().lower()
    text = _TYPE_ALIASES.get(text, text)
    if text not in VALID_TYPES:
        raise OneTableArgError(f'Unknown type "{value}"')
    return "binary" if text in ("buffer", "arraybuffer") else text


_JS_FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL}


def compile_validate(value: Any) -> re.Pattern | None:
    """A field's ``validate``: a compiled pattern, ``"/source/flags"`` (JavaScript form) or a bare pattern."""
    if value is None or value is False or value == "":
        return None
    if isinstance(value, re.Pattern):
        return value
    pattern = getattr(value, "pattern", None)
    if isinstance(pattern, re.Pattern):
        return pattern
    if isinstance(pattern, str) and not isinstance(value, str):
        value = pattern
    text = str(value)
    flags = 0
    if text.startswith("/") and text.rfind("/") > 0:
        end = text.rfind("/")
        for flag in text[end + 1 :]:
            flags |= _JS_FLAGS.get(flag, 0)
        text = text[1:end]
    return re.compile(text, flags)


def validate_source(value: Any) -> str | None:
    """The ``"/source/flags"`` text OneTable stores for a validation regex."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, re.Pattern):
        flags = "".join(f for f, bit in _JS_FLAGS.items() if value.flags & bit)
        return f"/{value.pattern}/{flags}"
    return str(value)


def template_text(value: Any) -> str | bool | None:
    """The source text of a value template (a str, a schema Template, or ``True`` for the table's function)."""
    if value is None or value is False:
        return None
    if value is True:
        return True
    if isinstance(value, str):
        return value
    text = _get(value, "text", "source", "template")
    return text if isinstance(text, str) else str(value)


def make_template(text: str) -> Any:
    """A renderer for ``text``: the schema package's Template (OneTable's rendering rules)."""
    from ..schema.template import Template
    from .templates import FastTemplate

    return FastTemplate(Template(text))


@dataclass(eq=False)
class FieldSpec:
    name: str
    type: str
    attribute: tuple[str, ...]
    value: str | bool | None = None
    template: Any = None
    default: Any = MISSING
    generate: Any = None
    required: bool = False
    enum: list | None = None
    validate: re.Pattern | None = None
    unique: bool = False
    scope: Any = None
    crypt: bool = False
    hidden: bool = False
    nulls: bool = False
    partial: bool = True
    ttl: bool = False
    encode: tuple | None = None
    filter: bool = True
    iso_dates: bool = False
    is_indexed: bool = False
    is_array: bool = False
    fields: dict[str, FieldSpec] | None = None  # nested schema
    deps: list[FieldSpec] = field(default_factory=list)  # nested schema, template dependency order
    raw: Any = None

    @property
    def att(self) -> str:
        return self.attribute[0]

    def default_value(self) -> Any:
        default = self.default
        return copy.deepcopy(default) if isinstance(default, (dict, list, set)) else default


@dataclass(eq=False)
class IndexSpec:
    """An index: ``hash``/``sort`` are its first partition/sort attributes; ``hashes``/``sorts`` all of them,
    in key order (several for a global index's multi-attribute key)."""

    name: str
    hash: str
    sort: str | None = None
    kind: str = "global"  # primary | global | local
    project: Any = "all"  # "all" | "keys" | list of attributes
    follow: bool = False
    hashes: tuple[str, ...] = ()
    sorts: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        self.hashes = self.hashes or ((self.hash,) if self.hash else ())
        self.sorts = self.sorts or ((self.sort,) if self.sort else ())

    @property
    def keys(self) -> tuple[str, ...]:
        """Every key attribute: the partition attributes, then the sort attributes."""
        return self.hashes + self.sorts

    @property
    def multi(self) -> bool:
        return len(self.hashes) > 1 or len(self.sorts) > 1


@dataclass
class TableParams:
    type_field: str = "_type"
    created_field: str = "created"
    updated_field: str = "updated"
    timestamps: Any = False  # False | True | "create" | "update"
    iso_dates: bool = False
    nulls: bool = False
    separator: str = "#"
    warn: bool = False

    def as_onetable(self) -> dict[str, Any]:
        return {
            "createdField": self.created_field,
            "isoDates": self.iso_dates,
            "nulls": self.nulls,
            "timestamps": self.timestamps,
            "typeField": self.type_field,
            "updatedField": self.updated_field,
            **({"separator": self.separator} if self.separator != "#" else {}),
            **({"warn": self.warn} if self.warn else {}),
        }


@dataclass
class SchemaSpec:
    version: str
    format: str
    indexes: dict[str, IndexSpec]
    models: dict[str, Any]  # name -> raw model definition (fields)
    params: TableParams
    process: dict[str, Any]
    queries: dict[str, Any]
    raw: dict[str, Any]
    source: Any = None
    crypto: dict[str, Any] | None = None

    @property
    def primary(self) -> IndexSpec:
        return self.indexes["primary"]


# -- loading --------------------------------------------------------------------------------------------------


def load(schema: Any, *, crypto: Mapping[str, Any] | None = None) -> SchemaSpec:
    """Normalise a schema object or document (``crypto``: the crypto configuration, for the loader's checks)."""
    if isinstance(schema, SchemaSpec):
        return schema
    source = schema
    if isinstance(schema, os.PathLike):
        schema = os.fspath(schema)
    if isinstance(schema, (str, bytes)) or isinstance(schema, Mapping) and not hasattr(schema, "models"):
        loader = _schema_loader()
        if loader is not None:
            schema = loader(schema, crypto=dict(crypto)) if crypto else loader(schema)
        elif isinstance(schema, (str, bytes)):
            import json

            schema = json.loads(schema)
    models = _get(schema, "models", default={}) or {}
    indexes = _load_indexes(_get(schema, "indexes", default=None))
    params = _load_params(_get(schema, "params", default=None))
    raw = _get(schema, "raw", default=None)
    if not isinstance(raw, Mapping):
        raw = schema if isinstance(schema, Mapping) else {}
    process = _get(schema, "process", default={}) or {}
    queries = _get(schema, "queries", default={}) or {}
    crypto_config = _get(_get(schema, "params", default=None), "crypto", default=None)
    return SchemaSpec(
        crypto=_crypto_dict(crypto_config),
        version=str(_get(schema, "version", default="0.0.1") or "0.0.1"),
        format=str(_get(schema, "format", default=SCHEMA_FORMAT) or SCHEMA_FORMAT),
        indexes=indexes,
        models=dict(models),
        params=params,
        process=dict(process),
        queries=dict(queries),
        raw=dict(raw),
        source=source,
    )


def _crypto_dict(config: Any) -> dict[str, Any] | None:
    if not config:
        return None
    return {
        name: {"cipher": _get(entry, "cipher", default="aes-256-gcm"), "password": _get(entry, "password")}
        for name, entry in dict(config).items()
    }


def _schema_loader() -> Any:
    try:
        from ..schema import load_schema
    except ImportError:
        return None
    return load_schema


def _load_indexes(indexes: Any) -> dict[str, IndexSpec]:
    if not indexes or "primary" not in indexes:
        raise OneTableArgError("Schema is missing a primary index")
    primary_hash = _get(indexes["primary"], "hash")
    out: dict[str, IndexSpec] = {}
    for name, index in indexes.items():
        hashes = _key_names(_get(index, "hashes", "hash"))
        sorts = _key_names(_get(index, "sorts", "sort"))
        hash_ = hashes[0] if hashes else None
        sort = sorts[0] if sorts else None
        kind = _get(index, "kind", "type")
        if name == "primary":
            kind = "primary"
        elif kind != "local" and (hash_ is None or hash_ == primary_hash) and len(hashes) <= 1:
            kind = "local"
        elif kind not in ("local", "global"):
            kind = "global"
        if kind == "local":
            hash_ = primary_hash
            hashes = (primary_hash,)
        project = _get(index, "project", default="all")
        if project is None:
            project = "all"
        if not isinstance(project, str):
            project = list(project)
        out[name] = IndexSpec(
            name=name,
            # None only for a primary index without a hash (a secondary one without is local, so takes the
            # primary's), which the schema's validation refuses ("indexes.primary.hash: required")
            hash=cast(str, hash_),
            sort=sort,
            kind=kind,
            project=project,
            follow=bool(_get(index, "follow", default=False)),
            hashes=hashes,
            sorts=sorts,
        )
    return out


def _key_names(value: Any) -> tuple[str, ...]:
    """An index's hash or sort: one attribute name, or a list of them (a multi-attribute key)."""
    if value is None:
        return ()
    if isinstance(value, (list, tuple)):
        return tuple(value)
    return (value,)


def _load_params(params: Any) -> TableParams:
    if params is None:
        return TableParams()
    timestamps = _get(params, "timestamps", default=False)
    return TableParams(
        type_field=_get(params, "type_field", "typeField", default=None) or "_type",
        created_field=_get(params, "created_field", "createdField", default=None) or "created",
        updated_field=_get(params, "updated_field", "updatedField", default=None) or "updated",
        timestamps=False if timestamps is None else timestamps,
        iso_dates=bool(_get(params, "iso_dates", "isoDates", default=False)),
        nulls=bool(_get(params, "nulls", default=False)),
        separator=_get(params, "separator", default=None) or "#",
        warn=bool(_get(params, "warn", default=False)),
    )


def process_enable(schema: SchemaSpec, model: str) -> str:
    """Where a model lives by the schema's ``process`` map: ``"both"`` (default), ``"cloud"`` or ``"device"``."""
    entry = schema.process.get(model)
    enable = _get(entry, "enable", default=None) if entry is not None else None
    return str(enable) if enable else "both"


__all__ = [
    "MISSING",
    "FieldSpec",
    "IndexSpec",
    "SchemaSpec",
    "TableParams",
    "compile_validate",
    "load",
    "make_template",
    "process_enable",
    "template_text",
    "validate_source",
]
