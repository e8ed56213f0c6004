"""Helpers shared by the schema tools: reading a schema file, key formats, partition shapes, DynamoDB types."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..schema import Field, Index, ModelDef, Ref, Schema, SchemaError, SchemaIssue, Template, load_schema
from ..schema import parse_text as _parse_text
from ..schema import validate_schema as _validate
from ..schema.loader import EXTENSIONS, read_schema_file

__all__ = [
    "EXTENSIONS",
    "KeyFormat",
    "attribute_type",
    "dynamo_projection",
    "entity_indexes",
    "key_format",
    "key_formats",
    "load",
    "placeholder",
    "read_document",
    "schema_title",
    "template_format",
    "validate",
]


def read_document(source: str | Path) -> Any:
    """The parsed (not yet validated) schema document in ``source``: a ``.json``/``.json5``/``.yaml``/``.yml``
    file, or ``-`` for standard input (JSON5 or YAML, sniffed). Raises :class:`SchemaError` for a file that
    cannot be read or parsed."""
    if str(source) == "-":
        return _parse_text(sys.stdin.read(), None, origin="<stdin>")
    return read_schema_file(Path(source))


def load(source: str | Path | Mapping[str, Any] | Schema) -> Schema:
    """A loaded schema from a path (or ``-``), a parsed document or a :class:`Schema`."""
    if isinstance(source, Schema):
        return source
    data = source if isinstance(source, Mapping) else read_document(source)
    return load_schema(data)


def validate(source: str | Path | Mapping[str, Any]) -> list[SchemaIssue]:
    """Errors then warnings of the schema in ``source`` (a syntax error is one error issue)."""
    try:
        data = source if isinstance(source, Mapping) else read_document(source)
    except SchemaError as exc:
        return list(exc.errors)
    return _validate(data, warnings=True)


def schema_title(schema: Schema, source: str | Path | None = None) -> str:
    """A title for documents made from ``schema``: its ``name``, else the file name's stem."""
    if schema.name:
        return schema.name
    if source is not None and str(source) != "-":
        return Path(source).stem
    return "Data model"


# -- key formats ---------------------------------------------------------------------------------------------


def placeholder(ref: Ref) -> str:
    """``<deviceId>`` for ``${deviceId}``; padding is kept: ``<n:6>``, ``<n:6:_>``."""
    spec = ref.path
    if ref.length:
        spec += f":{ref.length}"
        if ref.pad != "0":
            spec += f":{ref.pad}"
    return f"<{spec}>"


def template_format(
    template: Template, constants: Mapping[str, str] | None = None, *, hole: str | None = None
) -> str:
    """The template with each reference shown as a ``<placeholder>`` (or as ``hole`` when given);
    ``constants`` (e.g. the type field and the model name) are put in as their values."""
    out: list[str] = []
    for part in template.parts:
        if isinstance(part, str):
            out.append(part)
        elif constants and part.path in constants:
            text = constants[part.path]
            if part.length:
                while len(text) < part.length:
                    text = part.pad + text
            out.append(text)
        else:
            out.append(placeholder(part) if hole is None else hole)
    return "".join(out)


HOLE = "<…>"


@dataclass(frozen=True)
class KeyFormat:
    """How one key attribute of one entity is built. ``format`` shows the value with placeholders
    (``device#<deviceId>``); ``constant`` is true when it is the same for every item (``status#``);
    ``shape`` is the format with every placeholder as ``<…>``: entities whose partition keys have the same
    shape share partitions (item collections)."""

    index: str
    role: str  # "hash" or "sort"
    attribute: str
    field: str
    format: str
    shape: str
    constant: bool
    template: str | None  # the value template's text, when there is one


def field_format(model: ModelDef, f: Field) -> tuple[str, str, bool]:
    """(format, shape, constant) of a (key) field: its value template with placeholders, the model name for
    the type field, ``<name>`` for a plain field."""
    if f.value is not None:
        constants = {model.params.type_field: model.name}
        rendered = template_format(f.value, constants)
        shape = template_format(f.value, constants, hole=HOLE)
        return rendered, shape, all(ref.path in constants for ref in f.value.refs)
    if f.name == model.params.type_field:
        return model.name, model.name, True
    if f.value_function:
        return f"<{f.name}: computed>", HOLE, False
    return f"<{f.name}>", HOLE, False


def key_format(model: ModelDef, index: Index, role: str) -> KeyFormat | None:
    """The format of ``index``'s ``role`` (``"hash"``/``"sort"``) key for ``model`` (of its first attribute
    when the key has several), or ``None`` when the model does not define that attribute."""
    attribute = index.hash if role == "hash" else index.sort
    return None if attribute is None else _attribute_format(model, index, role, attribute)


def key_formats(model: ModelDef, index: Index, role: str) -> list[KeyFormat]:
    """The formats of every attribute of ``index``'s ``role`` key (several for a multi-attribute key) that
    ``model`` defines, in key order."""
    attributes = index.hashes if role == "hash" else index.sorts
    formats = [_attribute_format(model, index, role, a) for a in attributes]
    return [f for f in formats if f is not None]


def _attribute_format(model: ModelDef, index: Index, role: str, attribute: str) -> KeyFormat | None:
    f = model.field_for_attribute(attribute)
    if f is None:
        return None
    text, shape, constant = field_format(model, f)
    return KeyFormat(
        index.name, role, attribute, f.name, text, shape, constant, f.value.text if f.value else None
    )


def entity_indexes(schema: Schema, model: ModelDef) -> list[Index]:
    """The indexes ``model``'s items appear in: those whose every key attribute the model defines (a
    secondary index is sparse: an item without its keys is not in it)."""
    return [
        index
        for index in schema.indexes.values()
        if all(model.field_for_attribute(a) is not None for a in index.keys)
    ]


# -- DynamoDB types and projections -------------------------------------------------------------------------

_TYPE_CODES = {
    "string": "S",
    "number": "N",
    "binary": "B",
    "boolean": "BOOL",
    "object": "M",
    "array": "L",
    "set": "SS",
}


def attribute_type(f: Field) -> str:
    """The DynamoDB type code an attribute holding field ``f`` is stored as (``S``, ``N``, ``BOOL``, ``M``,
    ...). Packed fields live in a map (``M``)."""
    if f.packed:
        return "M"
    if f.type == "date":
        return "S" if (f.iso_dates and not f.ttl) else "N"
    return _TYPE_CODES.get(f.type, "S")


def dynamo_projection(index: Index, primary: Index) -> dict[str, Any]:
    """The CreateTable ``Projection`` of a secondary index: ``ALL``, ``KEYS_ONLY`` or ``INCLUDE`` with the
    projected non-key attributes (key attributes are always projected and may not be listed)."""
    if index.project == "all":
        return {"ProjectionType": "ALL"}
    if index.project == "keys":
        return {"ProjectionType": "KEYS_ONLY"}
    keys = {*primary.keys, *index.keys}
    extra = [a for a in index.project if a not in keys]
    if not extra:
        return {"ProjectionType": "KEYS_ONLY"}
    return {"ProjectionType": "INCLUDE", "NonKeyAttributes": extra}
