"""Typed models: entity classes a type checker understands, over the dict API of :class:`~dynabase.model.Table`.

Design (``docs/typed.md`` has the whole of it):

* An **entity class** is a ``@entity``-decorated class: a ``dataclass(slots=True, kw_only=True)`` whose fields
  are what *reads* return: hidden fields and key attributes built from value templates (``pk``, ``gs1sk``...)
  are not fields of it.  Field names are the schema's (camelCase stays camelCase); a schema name that is not a
  Python identifier, or is a keyword, gets a mangled Python name and keeps its own in ``field(name=...)``.
  ``field(...)`` also carries the schema properties (``generate``, ``default``, ``validate``, ``unique``...);
  ``@entity(model, keys=..., hidden=...)`` the templated key attributes and hidden fields, so that
  :func:`schema_of` turns hand-declared classes into a OneTable 1.1.0 schema, and ``dynabase typegen`` turns a
  schema into such classes: one source of truth either way.
* A **typed accessor** (:class:`ModelBase` subclass) binds an entity class to a ``Table``'s model:
  ``create`` returns the entity, ``get`` / ``remove`` an entity or ``None``, ``find`` / ``scan`` a
  :class:`Page` of entities (``.next`` / ``.prev`` cursors), ``update`` the entity.  ``dynabase typegen``
  writes one per model with exact keyword arguments (a ``TypedDict`` per shape: new item, key, changes, one
  query per index the model is in, multi-attribute GSI keys included), so a wrong field name or type is a
  checker error.  For hand-declared classes, :class:`TypedModel` takes loosely typed keyword arguments and
  returns typed entities.
* Conversion happens once per call, by a reader and a writer compiled per class the first time it is bound
  (no per-call introspection).  Number fields follow their annotation: ``int``, ``float`` and ``Decimal`` are
  converted to (an ``int`` field refuses a stored fraction), ``int | Decimal`` is what the dict API returns
  (whole numbers as ``int``, others as ``Decimal``) and is kept as is.  Nested entity classes (``object`` with
  a ``schema``) and lists of them are converted recursively.
* The dict API is unchanged: ``accessor.model`` is the ``Model``, ``accessor.entity_of(item)`` types one of its
  results.  Conditions and expression updates stay there; typed transactions and batches are
  :mod:`dynabase.model.typed_blocks`'.
* Over an :class:`~dynabase.model.AsyncTable` the same accessors are awaited: :class:`AsyncModelBase` (what
  ``typegen``'s ``...AsyncModel`` classes build on) and :class:`AsyncTypedModel`.
"""

from __future__ import annotations

import dataclasses
import keyword
import re
import sys
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Generic, Literal, TypedDict, TypeVar

from .errors import OneTableArgError, ValidationError

if TYPE_CHECKING:  # pragma: no cover
    from typing_extensions import Unpack

    from .aio import AsyncModel, AsyncTable
    from .model import Model
    from .table import Table

if sys.version_info >= (3, 11):
    from typing import dataclass_transform
elif TYPE_CHECKING:
    from typing_extensions import dataclass_transform
else:  # pragma: no cover - Python 3.10: the decorator is only a marker for type checkers

    def dataclass_transform(**_: Any) -> Callable[[Any], Any]:
        return lambda target: target


E = TypeVar("E")
C = TypeVar("C", bound=type)

#: the metadata key under which ``field(...)`` keeps a field's schema properties
META = "dynabase"
#: schema properties ``field(...)`` carries into :func:`schema_of` (Python names -> OneTable names)
_FIELD_PROPS = {
    "generate": "generate",
    "validate": "validate",
    "unique": "unique",
    "crypt": "crypt",
    "map": "map",
    "scope": "scope",
    "ttl": "ttl",
    "nulls": "nulls",
    "partial": "partial",
    "encode": "encode",
    "value": "value",
    "filter": "filter",
    "iso_dates": "isoDates",
    "type": "type",
}
_NO_DEFAULT: Any = dataclasses.MISSING


def py_name(name: str) -> str:
    """The Python name of a schema field: itself when it is an identifier and not a keyword."""
    if name.isidentifier() and not keyword.iskeyword(name):
        return name
    text = re.sub(r"\W", "_", name)
    if not text or text[0].isdigit():
        text = f"f_{text}"
    return f"{text}_" if keyword.iskeyword(text) else text


def field(
    *,
    default: Any = _NO_DEFAULT,
    default_factory: Callable[[], Any] | None = None,
    name: str | None = None,
    generate: str | bool | None = None,
    validate: str | None = None,
    unique: bool = False,
    crypt: bool = False,
    map: str | None = None,  # noqa: A002 - the schema's own word
    scope: str | None = None,
    ttl: bool = False,
    nulls: bool | None = None,
    partial: bool | None = None,
    encode: Any = None,
    value: str | None = None,
    filter: bool | None = None,  # noqa: A002
    iso_dates: bool | None = None,
    type: str | None = None,  # noqa: A002
) -> Any:
    """A field of an entity class with its schema properties (``name``: the schema's name when the Python
    name had to be mangled; ``type``: the schema type when the annotation does not say it, e.g. ``"set"``)."""
    props = {key: val for key, val in locals().items() if key in _FIELD_PROPS and val not in (None, False)}
    if name is not None:
        props["name"] = name
    if default_factory is not None:
        return dataclasses.field(default_factory=default_factory, metadata={META: props})
    return dataclasses.field(default=default, metadata={META: props})


@dataclass_transform(kw_only_default=True, field_specifiers=(field, dataclasses.field))
def entity(
    model: str | None = None,
    *,
    keys: Mapping[str, str | Mapping[str, Any]] | None = None,
    hidden: Mapping[str, Mapping[str, Any]] | None = None,
) -> Callable[[C], C]:
    """Make an entity class: ``model`` its model name (``None`` for a nested schema's class), ``keys`` its
    key attributes built from value templates (``{"pk": "device#${deviceId}"}``), ``hidden`` the definitions
    of its hidden fields.  Neither is a field of the class: reads do not return them."""

    def wrap(cls: C) -> C:
        made: Any = dataclasses.dataclass(slots=True, kw_only=True)(cls)
        made.__dynabase__ = {"model": model, "keys": dict(keys or {}), "hidden": dict(hidden or {})}
        return typing.cast(C, made)

    return wrap


class Page(list[E]):
    """A list of entities with the cursors of :class:`dynabase.model.Page`: ``next`` (pass it as ``next=`` to
    continue) and ``prev`` (as ``prev=``, the page before)."""

    __slots__ = ("next", "prev")

    def __init__(
        self,
        items: Iterable[E] = (),
        *,
        next: dict[str, Any] | None = None,  # noqa: A002
        prev: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(items)
        self.next = next
        self.prev = prev


class FindParams(TypedDict, total=False):
    """What ``find`` / ``scan`` of a typed accessor take beside the properties (the dict API's names)."""

    limit: int
    next: Mapping[str, Any]
    prev: Mapping[str, Any]
    reverse: bool
    where: str
    substitutions: Mapping[str, Any]
    consistent: bool
    follow: bool
    max_pages: int


_FIND_PARAMS = frozenset(FindParams.__annotations__)


# -- converters, compiled once per class --------------------------------------------------------------------


def _to_int(value: Any) -> Any:
    if value is None or type(value) is int:
        return value
    if isinstance(value, Decimal) and value.is_finite() and value == value.to_integral_value():
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    raise ValidationError(f"Invalid value {value!r} for an int field: read it as Decimal (or int | Decimal)")


def _to_float(value: Any) -> Any:
    return value if value is None or type(value) is float else float(value)


def _to_decimal(value: Any) -> Any:
    if value is None or type(value) is Decimal:
        return value
    return Decimal(repr(value)) if isinstance(value, float) else Decimal(value)


def _to_number(value: Any) -> Any:
    """``int | Decimal`` as the dict API reads numbers: a float (what ``create`` echoes back) becomes one."""
    if type(value) is float:
        return int(value) if value.is_integer() else Decimal(repr(value))
    return value


def _to_datetime(value: Any) -> Any:
    if value is None or isinstance(value, datetime):
        return value
    raise ValidationError(f"Invalid value {value!r} for a date field: not a date the layer could read")


_SCALARS: dict[Any, Callable[[Any], Any]] = {
    int: _to_int,
    float: _to_float,
    Decimal: _to_decimal,
    datetime: _to_datetime,
}


class _Plan:
    """The compiled reader (item dict -> entity) and writer (keyword arguments -> item dict) of one class."""

    __slots__ = ("cls", "read", "write", "names", "fields")

    def __init__(self, cls: type) -> None:
        self.cls = cls
        hints = typing.get_type_hints(cls)
        #: (python name, schema name, annotation, required on reads, dataclass field)
        self.fields = [
            (f.name, f.metadata.get(META, {}).get("name", f.name), hints[f.name], _no_default(f), f)
            for f in dataclasses.fields(cls)
        ]
        #: python name -> schema name, for the names that differ
        self.names = {py: schema for py, schema, *_ in self.fields if py != schema}
        self.read = self._compile_read()
        self.write = self._compile_write()

    def _compile_read(self) -> Callable[[Mapping[str, Any]], Any]:
        env: dict[str, Any] = {
            "cls": self.cls,
            "_missing": _missing_field,
            "_bad": _bad_value,
            "ValidationError": ValidationError,
        }
        args = []
        for i, (py, schema, annotation, required, _) in enumerate(self.fields):
            conv = _reader(annotation)
            get = f"d[{schema!r}]" if required else f"d.get({schema!r})"
            if conv is not None:
                env[f"c{i}"] = conv
                get = f"c{i}({get})"
            args.append(f"{py}={get}")
        source = (
            "def read(d):\n"
            "    try:\n"
            f"        return cls({', '.join(args)})\n"
            "    except KeyError as e:\n"
            "        raise _missing(cls, e.args[0], d) from None\n"
            "    except ValidationError as e:\n"
            "        raise _bad(cls, e, d) from None\n"
        )
        exec(source, env)  # noqa: S102 - compiled once per class, from its own field names
        return typing.cast(Callable[[Mapping[str, Any]], Any], env["read"])

    def _compile_write(self) -> Callable[[Mapping[str, Any]], dict[str, Any]]:
        nested = {py: w for py, _, annotation, _, _ in self.fields if (w := _writer(annotation)) is not None}
        names = self.names
        if not nested and not names:
            return dict

        def write(properties: Mapping[str, Any]) -> dict[str, Any]:
            out = {}
            for key, value in properties.items():
                conv = nested.get(key)
                out[names.get(key, key)] = value if conv is None or value is None else conv(value)
            return out

        return write

    def to_item(self, obj: Any) -> dict[str, Any]:
        """An entity as the dict API's properties (schema names; ``None`` fields left out)."""
        values = {py: getattr(obj, py) for py, *_ in self.fields}
        return self.write({key: value for key, value in values.items() if value is not None})


def _no_default(f: dataclasses.Field[Any]) -> bool:
    return f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING


def _missing_field(cls: type, name: str, item: Mapping[str, Any]) -> ValidationError:
    return ValidationError(
        f'Item of "{cls.__name__}" has no "{name}", which the class requires: read it with the dict API '
        f"(accessor.model) or declare the field optional",
        properties=dict(item),
    )


def _bad_value(cls: type, error: ValidationError, item: Mapping[str, Any]) -> ValidationError:
    return ValidationError(f'Item of "{cls.__name__}": {error.message}', properties=dict(item))


def _nested(cls: type) -> Callable[[Any], Any]:
    read = plan(cls).read

    def nested(value: Any) -> Any:
        if value is None:
            return None
        if not isinstance(value, Mapping):
            raise ValidationError(f"Invalid value {value!r} for a {cls.__name__}: not a map")
        return read(value)

    return nested


def _strip_optional(annotation: Any) -> Any:
    if _is_union(annotation):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def _is_union(annotation: Any) -> bool:
    origin = typing.get_origin(annotation)
    return origin is typing.Union or origin is types.UnionType


def _reader(annotation: Any) -> Callable[[Any], Any] | None:
    annotation = _strip_optional(annotation)
    if annotation in _SCALARS:
        return _SCALARS[annotation]
    if _is_union(annotation) and set(typing.get_args(annotation)) - {type(None)} == {int, Decimal}:
        return _to_number
    if dataclasses.is_dataclass(annotation):
        return _nested(typing.cast(type, annotation))
    if typing.get_origin(annotation) is list:
        (item,) = typing.get_args(annotation) or (Any,)
        conv = _reader(item)
        if conv is not None:
            return lambda value: None if value is None else [conv(v) for v in value]
    return None


def _writer(annotation: Any) -> Callable[[Any], Any] | None:
    annotation = _strip_optional(annotation)
    if dataclasses.is_dataclass(annotation):
        return plan(typing.cast(type, annotation)).to_item
    if typing.get_origin(annotation) is list:
        (item,) = typing.get_args(annotation) or (Any,)
        conv = _writer(item)
        if conv is not None:
            return lambda value: [conv(v) if dataclasses.is_dataclass(v) else v for v in value]
    return None


_PLANS: dict[type, _Plan] = {}


def plan(cls: type) -> _Plan:
    """The compiled conversions of an entity class (made on first use, then cached)."""
    found = _PLANS.get(cls)
    if found is None:
        if not dataclasses.is_dataclass(cls):
            raise OneTableArgError(f"{cls.__name__} is not an entity class (decorate it with @entity)")
        found = _PLANS[cls] = _Plan(cls)
    return found


# -- accessors ----------------------------------------------------------------------------------------------


class _Accessor(Generic[E]):
    """What the sync and async typed accessors share: the entity class, its compiled plan, the conversions."""

    entity: type[E]
    name: str | None = None

    _sync_model: Model

    def __init__(self, table: Any, entity: type[E] | None = None, *, name: str | None = None) -> None:
        if entity is not None:
            self.entity = entity
        cls = self.entity
        self._model_name = name or self.name or getattr(cls, "__dynabase__", {}).get("model") or cls.__name__
        self._plan = plan(cls)
        self._read = self._plan.read
        self._write = self._plan.write

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self._model_name} as {self.entity.__name__}>"

    def entity_of(self, item: Mapping[str, Any]) -> E:
        """An item of the dict API (``accessor.model``) as an entity."""
        return typing.cast(E, self._read(item))

    def properties_of(self, entity: E) -> dict[str, Any]:
        """An entity as the dict API's properties (schema names; ``None`` fields left out)."""
        return self._plan.to_item(entity)

    def _page(self, page: Any) -> Page[E]:
        read = self._read
        return Page([read(item) for item in page], next=page.next, prev=page.prev)

    def _maybe(self, item: Any) -> E | None:
        return None if item is None else typing.cast(E, self._read(item))

    def _params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        unknown = set(params) - _FIND_PARAMS
        if unknown:
            raise OneTableArgError(
                f"Unknown find/scan parameter(s) {', '.join(sorted(unknown))}: a typed accessor takes "
                f"{', '.join(sorted(_FIND_PARAMS))}; the dict API (accessor.model) takes the rest"
            )
        return dict(params)

    def _find_params(self, model: Model, index: str | None, params: Mapping[str, Any]) -> dict[str, Any]:
        p = self._params(params)
        if index is not None:
            p["index"] = index
            spec = model.indexes.get(index)
            if spec is not None and spec.project != "all":
                # a partial projection would give partial entities: read each whole item (one GetItem each)
                p.setdefault("follow", True)
        return p


class ModelBase(_Accessor[E]):
    """A model of ``table`` seen through the entity class ``E``: the runtime of the typed accessors.

    Subclasses set ``entity`` (and ``name`` when the model's name is not the entity's); generated ones define
    ``create`` / ``get`` / ``find`` / ``update`` / ``remove`` with exact signatures over ``_create``...
    """

    def __init__(self, table: Table, entity: type[E] | None = None, *, name: str | None = None) -> None:
        super().__init__(table, entity, name=name)
        self.model: Model = table.model(self._model_name)
        #: the blocking Model behind this accessor (what collects writes, see :class:`Writes`)
        self._sync_model = self.model

    def _create(self, properties: Mapping[str, object]) -> E:
        return typing.cast(E, self._read(self.model.create(self._write(properties))))

    def _get(self, key: Mapping[str, object]) -> E | None:
        return self._maybe(self.model.get(self._write(key)))

    def _update(self, properties: Mapping[str, object]) -> E:
        return typing.cast(E, self._read(self.model.update(self._write(properties))))

    def _upsert(self, properties: Mapping[str, object]) -> E:
        return typing.cast(E, self._read(self.model.upsert(self._write(properties))))

    def _remove(self, key: Mapping[str, object]) -> E | None:
        return self._maybe(self.model.remove(self._write(key)))

    def _find(
        self, properties: Mapping[str, object], index: str | None, params: Mapping[str, Any]
    ) -> Page[E]:
        p = self._find_params(self.model, index, params)
        return self._page(self.model.find(self._write(properties), **p))

    def scan(self, properties: Mapping[str, Any] | None = None, /, **params: Unpack[FindParams]) -> Page[E]:
        """Scan for items of this model (``properties`` filter, by Python names)."""
        return self._page(self.model.scan(self._write(properties or {}), **self._params(params)))


class AsyncModelBase(_Accessor[E]):
    """:class:`ModelBase` over an :class:`~dynabase.model.AsyncTable`: every call is awaited (``dynabase
    typegen`` writes an ``...AsyncModel`` per model on it). ``model`` is the table's
    :class:`~dynabase.model.AsyncModel`."""

    def __init__(self, table: AsyncTable, entity: type[E] | None = None, *, name: str | None = None) -> None:
        super().__init__(table, entity, name=name)
        self.model: AsyncModel = table.model(self._model_name)
        self._sync_model = self.model.sync

    async def _create(self, properties: Mapping[str, object]) -> E:
        return typing.cast(E, self._read(await self.model.create(self._write(properties))))

    async def _get(self, key: Mapping[str, object]) -> E | None:
        return self._maybe(await self.model.get(self._write(key)))

    async def _update(self, properties: Mapping[str, object]) -> E:
        return typing.cast(E, self._read(await self.model.update(self._write(properties))))

    async def _upsert(self, properties: Mapping[str, object]) -> E:
        return typing.cast(E, self._read(await self.model.upsert(self._write(properties))))

    async def _remove(self, key: Mapping[str, object]) -> E | None:
        return self._maybe(await self.model.remove(self._write(key)))

    async def _find(
        self, properties: Mapping[str, object], index: str | None, params: Mapping[str, Any]
    ) -> Page[E]:
        p = self._find_params(self.model.sync, index, params)
        return self._page(await self.model.find(self._write(properties), **p))

    async def scan(
        self, properties: Mapping[str, Any] | None = None, /, **params: Unpack[FindParams]
    ) -> Page[E]:
        """Scan for items of this model (``properties`` filter, by Python names)."""
        return self._page(await self.model.scan(self._write(properties or {}), **self._params(params)))


class TypedModel(ModelBase[E]):
    """The typed accessor of a hand-declared entity class: typed results, loosely typed arguments (run
    ``dynabase typegen`` on :func:`schema_of`'s schema for exact ones)::

        Fault = TypedModel(table, FaultEntity)
        fault = Fault.create(deviceId="d1", severity="error", message="hot")   # a FaultEntity
    """

    def create(self, **properties: Any) -> E:
        return self._create(properties)

    def get(self, **key: Any) -> E | None:
        return self._get(key)

    def update(self, **properties: Any) -> E:
        return self._update(properties)

    def upsert(self, **properties: Any) -> E:
        return self._upsert(properties)

    def remove(self, **key: Any) -> E | None:
        return self._remove(key)

    def find(
        self,
        properties: Mapping[str, Any] | None = None,
        /,
        *,
        index: str | None = None,
        **params: Unpack[FindParams],
    ) -> Page[E]:
        return self._find(properties or {}, index, params)


class AsyncTypedModel(AsyncModelBase[E]):
    """:class:`TypedModel` over an :class:`~dynabase.model.AsyncTable`::

    Fault = AsyncTypedModel(async_table, FaultEntity)
    fault = await Fault.create(deviceId="d1", severity="error", message="hot")
    """

    async def create(self, **properties: Any) -> E:
        return await self._create(properties)

    async def get(self, **key: Any) -> E | None:
        return await self._get(key)

    async def update(self, **properties: Any) -> E:
        return await self._update(properties)

    async def upsert(self, **properties: Any) -> E:
        return await self._upsert(properties)

    async def remove(self, **key: Any) -> E | None:
        return await self._remove(key)

    async def find(
        self,
        properties: Mapping[str, Any] | None = None,
        /,
        *,
        index: str | None = None,
        **params: Unpack[FindParams],
    ) -> Page[E]:
        return await self._find(properties or {}, index, params)


# -- classes -> schema -----------------------------------------------------------------------------------------

_SCHEMA_TYPES: dict[Any, str] = {
    str: "string",
    int: "number",
    float: "number",
    Decimal: "number",
    bool: "boolean",
    datetime: "date",
    bytes: "binary",
    set: "set",
    frozenset: "set",
    dict: "object",
    list: "array",
}


def schema_of(
    classes: Iterable[type],
    *,
    indexes: Mapping[str, Mapping[str, Any]],
    params: Mapping[str, Any] | None = None,
    version: str = "0.0.1",
) -> dict[str, Any]:
    """A OneTable 1.1.0 schema document (a dict :class:`~dynabase.model.Table` accepts) from entity classes."""
    params = dict(params or {})
    implicit = set()
    if params.get("timestamps"):
        stamps = params["timestamps"]
        if stamps in (True, "create"):
            implicit.add(params.get("createdField", "created"))
        if stamps in (True, "update"):
            implicit.add(params.get("updatedField", "updated"))
    models = {}
    for cls in classes:
        info = getattr(cls, "__dynabase__", None)
        if info is None or not dataclasses.is_dataclass(cls):
            raise OneTableArgError(f"{cls.__name__} is not an entity class (decorate it with @entity)")
        fields: dict[str, Any] = {}
        for att, key in info["keys"].items():
            fields[att] = {"type": "string", "value": key} if isinstance(key, str) else dict(key)
        fields.update(_fields_of(cls, skip=implicit))
        for fname, definition in info["hidden"].items():
            fields[fname] = {**definition, "hidden": True}
        models[info["model"] or cls.__name__] = fields
    doc: dict[str, Any] = {
        "format": "onetable:1.1.0",
        "version": version,
        "indexes": {name: dict(index) for name, index in indexes.items()},
        "models": models,
    }
    if params:
        doc["params"] = params
    return doc


def _fields_of(cls: type, skip: Iterable[str] = ()) -> dict[str, Any]:
    hints = typing.get_type_hints(cls)
    out: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        meta = dict(f.metadata.get(META, {}))
        name = meta.pop("name", f.name)
        if name in skip:
            continue
        annotation = hints[f.name]
        optional = _strip_optional(annotation) is not annotation
        definition: dict[str, Any] = _type_of(_strip_optional(annotation), f"{cls.__name__}.{f.name}")
        for key, val in meta.items():
            definition[_FIELD_PROPS[key]] = val
        if not optional and _no_default(f) and "generate" not in meta and "value" not in meta:
            definition["required"] = True
        if f.default is not dataclasses.MISSING and f.default is not None:
            definition["default"] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            definition["default"] = f.default_factory()
        out[name] = definition
    return out


def _type_of(annotation: Any, where: str) -> dict[str, Any]:
    origin = typing.get_origin(annotation)
    if origin is Literal:
        values = typing.get_args(annotation)
        return {"type": "string", "enum": [str(v) for v in values]}
    if dataclasses.is_dataclass(annotation):
        return {"type": "object", "schema": _fields_of(typing.cast(type, annotation))}
    if origin is list:
        (item,) = typing.get_args(annotation) or (Any,)
        if item is Any:
            return {"type": "array"}
        return {"type": "array", "items": _type_of(_strip_optional(item), where)}
    if _is_union(annotation) and all(a in (int, float, Decimal) for a in typing.get_args(annotation)):
        return {"type": "number"}
    kind = _SCHEMA_TYPES.get(origin or annotation)
    if kind is None:
        raise OneTableArgError(f"{where}: no schema type for the annotation {annotation!r}")
    return {"type": kind}


__all__ = [
    "AsyncModelBase",
    "AsyncTypedModel",
    "FindParams",
    "ModelBase",
    "Page",
    "TypedModel",
    "entity",
    "field",
    "plan",
    "py_name",
    "schema_of",
]
