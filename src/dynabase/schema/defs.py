"""The loaded, normalised form of a OneTable schema: Schema, Index, Params, Process, ModelDef, Field, ...

These objects are built by :func:`dynabase.schema.load_schema` from a validated document; treat them as
read-only (the dataclasses are frozen; their dicts are plain dicts for speed and copying).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .errors import SchemaError, SchemaIssue
from .template import Template

__all__ = [
    "FIELD_TYPES",
    "Crypto",
    "Encode",
    "Field",
    "FieldMap",
    "Generate",
    "Index",
    "Metric",
    "ModelDef",
    "Params",
    "Process",
    "Reference",
    "Schema",
    "dependency_order",
]

FIELD_TYPES = ("array", "binary", "boolean", "date", "number", "object", "set", "string")


class FieldMap(NamedTuple):
    """Where a field is stored: ``map: 'data'`` -> ``("data", None)``; ``map: 'data.x'`` -> ``("data", "x")``
    (packed: property ``x`` of the map attribute ``data``)."""

    attribute: str
    sub: str | None = None


@dataclass(frozen=True)
class Generate:
    """``generate``: ``kind`` is ``"ulid"``, ``"uuid"``, ``"uid"`` or ``"custom"`` (``generate: true``, an
    application-supplied generator); ``length`` is the uid length (10 unless ``uid(N)``)."""

    kind: str
    length: int | None = None

    def new(self) -> str:
        """A new identifier (not for ``custom``)."""
        from .ids import generate_id

        if self.kind == "custom":
            raise ValueError("generate: true needs an application-supplied generator")
        return generate_id(self.kind, self.length)


@dataclass(frozen=True)
class Encode:
    """``encode``: the field's value lives inside another (templated) attribute. Reading it back is
    ``item[field].split(separator)[index]``."""

    field: str
    separator: str
    index: int


@dataclass(frozen=True)
class Reference:
    """``reference: 'Model:index:attr=src,...'`` — how to fetch a related item: query ``model`` on
    ``index`` with ``target attribute = this item's source attribute`` for each pair."""

    model: str
    index: str
    pairs: tuple[tuple[str, str], ...]
    text: str = ""


@dataclass(frozen=True)
class Crypto:
    """One ``params.crypto`` entry (OneTable's Table ``crypto``): cipher and password."""

    name: str
    cipher: str
    password: str = field(repr=False)


@dataclass(frozen=True)
class Index:
    """A table index. ``hash``/``sort`` are attribute names (after ``map``). ``kind`` is ``"primary"``,
    ``"global"`` or ``"local"``; a local index's ``hash`` is always the primary hash. ``project`` is
    ``"all"``, ``"keys"`` or a tuple of attribute names (projected in addition to the keys).

    A global index may have a multi-attribute key (dynabase's extension of the format: ``hash`` and ``sort``
    name a list of up to 4 attributes each): ``hash``/``sort`` are then the first, ``more_hash``/``more_sort``
    the others in order."""

    name: str
    hash: str
    sort: str | None = None
    kind: str = "global"
    project: str | tuple[str, ...] = "all"
    follow: bool = False
    description: str | None = None
    more_hash: tuple[str, ...] = ()
    more_sort: tuple[str, ...] = ()

    @property
    def hashes(self) -> tuple[str, ...]:
        """The partition key attribute names, in key order."""
        return (self.hash, *self.more_hash)

    @property
    def sorts(self) -> tuple[str, ...]:
        """The sort key attribute names, in key order (empty without a sort key)."""
        return () if self.sort is None else (self.sort, *self.more_sort)

    @property
    def multi(self) -> bool:
        """Whether the index has a multi-attribute key."""
        return bool(self.more_hash or self.more_sort)

    @property
    def keys(self) -> tuple[str, ...]:
        """The key attribute names: the partition attributes, then the sort attributes."""
        return self.hashes + self.sorts

    def projected(self, primary: Index) -> tuple[str, ...] | None:
        """Attributes present in this index, or ``None`` for all of them (OneTable's getProjection)."""
        if self.project == "all" or self.kind == "primary":
            return None
        names: list[str] = [] if self.project == "keys" else list(self.project)
        for key in (*primary.keys, *self.keys):
            if key not in names:
                names.append(key)
        return tuple(names)


@dataclass(frozen=True)
class Params:
    """``schema.params`` with OneTable's defaults."""

    type_field: str = "_type"
    created_field: str = "created"
    updated_field: str = "updated"
    timestamps: bool | str = False  # True, False, "create" or "update"
    iso_dates: bool = False
    nulls: bool = False
    separator: str = "#"
    warn: bool = False
    hidden: bool = False
    partial: bool = False
    legacy_empties: bool = False
    crypto: dict[str, Crypto] | None = field(default=None, compare=False, repr=False)

    @property
    def create_timestamp(self) -> bool:
        """True when items get a created timestamp (``timestamps`` is true or ``'create'``)."""
        return self.timestamps is True or self.timestamps == "create"

    @property
    def update_timestamp(self) -> bool:
        """True when items get an updated timestamp (``timestamps`` is true or ``'update'``)."""
        return self.timestamps is True or self.timestamps == "update"


@dataclass(frozen=True)
class Metric:
    """One Ioto ``process.<Model>.metrics`` entry. ``fields`` pairs (metric name, attribute); a plain
    ``'temp'`` entry is ``("temp", "temp")``."""

    namespace: str
    fields: tuple[tuple[str, str], ...] = ()
    dimensions: tuple[Any, ...] = ()
    where: str | None = None
    buffer: dict[str, Any] | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Process:
    """Ioto ``process.<Model>``: where the model lives (``enable``), which way it replicates (``sync``),
    whether to notify, metrics to compute from its items, and (a dynabase extension) the devices that
    receive its items (``scope``)."""

    enable: str = "both"  # cloud | device | both
    sync: str = "none"  # up | down | both | none
    metrics: tuple[Metric, ...] = ()
    notify: bool = False
    scope: str | None = None  # dynabase: a value template choosing which devices receive an item

    @property
    def on_device(self) -> bool:
        return self.enable in ("device", "both")

    @property
    def on_cloud(self) -> bool:
        return self.enable in ("cloud", "both")


@dataclass(frozen=True, eq=False)
class Field:
    """One field of a model (or of a nested schema / array items).

    ``type`` is one of :data:`FIELD_TYPES`. Resolved defaults: ``hidden`` is true for value-templated
    fields unless set; ``required`` is true for primary key fields (as in OneTable); ``nulls``,
    ``partial`` and ``iso_dates`` fall back to the params (and, for ``partial``, to the parent field).
    ``default`` is only meaningful when ``has_default``. ``validate`` is a compiled Python regex, to be
    used with ``.search`` like JavaScript's ``RegExp.exec``. ``raw`` is the field's definition as
    written; ``path`` its place in the document (``models.User.address.schema.zip``).
    """

    name: str
    type: str = "string"
    value: Template | None = None
    value_function: bool = False  # value: true -> computed by an application callback
    default: Any = None
    has_default: bool = False
    generate: Generate | None = None
    required: bool = False
    enum: tuple[str, ...] | None = None
    validate: re.Pattern[str] | None = None
    unique: bool = False
    scope: Template | None = None
    crypt: bool = False
    hidden: bool = False
    map: FieldMap | None = None
    schema: dict[str, Field] | None = None
    items: Field | None = None
    partial: bool = False
    nulls: bool = False
    ttl: bool = False
    encode: Encode | None = None
    filter: bool = True
    iso_dates: bool = False
    reference: Reference | None = None
    timestamp: bool = False
    raw: dict[str, Any] = field(default_factory=dict, repr=False)
    path: str = field(default="", repr=False)

    @property
    def attribute(self) -> str:
        """The stored attribute name (``map`` target, else the field name)."""
        return self.map.attribute if self.map else self.name

    @property
    def sub(self) -> str | None:
        """The property inside a packed attribute (``'x'`` for ``map: 'data.x'``), else ``None``."""
        return self.map.sub if self.map else None

    @property
    def packed(self) -> bool:
        return bool(self.map and self.map.sub is not None)

    @property
    def nested(self) -> dict[str, Field] | None:
        """The nested fields of an object field, or of the items of an array field."""
        if self.schema is not None:
            return self.schema
        if self.items is not None:
            return self.items.schema
        return None

    def dependency_order(self) -> list[str]:
        """Evaluation order of this field's nested fields (see :func:`dependency_order`)."""
        nested = self.nested
        return _order(nested or {}, self.path)


@dataclass(frozen=True, eq=False)
class ModelDef:
    """One model (entity): its fields in declaration order, then the fields OneTable adds (the type
    field, and the created/updated timestamps when ``params.timestamps`` asks for them)."""

    name: str
    fields: dict[str, Field]
    indexes: dict[str, Index] = field(default_factory=dict, repr=False)
    params: Params = field(default_factory=Params, repr=False)
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def path(self) -> str:
        return f"models.{self.name}"

    def field(self, name: str) -> Field:
        try:
            return self.fields[name]
        except KeyError:
            raise KeyError(f"model {self.name!r} has no field {name!r}") from None

    def field_for_attribute(self, attribute: str) -> Field | None:
        """The (unpacked) field stored in ``attribute``, if any."""
        for f in self.fields.values():
            if f.attribute == attribute and f.sub is None:
                return f
        return None

    def attribute_fields(self, attribute: str) -> list[Field]:
        """All fields stored in ``attribute`` (several when packed)."""
        return [f for f in self.fields.values() if f.attribute == attribute]

    def keys(self, index: Index | str = "primary") -> tuple[Field | None, Field | None]:
        """The fields holding ``index``'s hash and sort keys (``None`` where the model has none)."""
        idx = self._index(index)
        hash_field = self.field_for_attribute(idx.hash)
        sort_field = self.field_for_attribute(idx.sort) if idx.sort else None
        return hash_field, sort_field

    def key_fields(self, index: Index | str = "primary") -> list[Field]:
        return [f for f in self.keys(index) if f is not None]

    def has_index(self, index: Index | str) -> bool:
        """True when the model defines the hash key of ``index`` (its items can appear in it)."""
        return self.keys(index)[0] is not None

    @property
    def hash_field(self) -> Field:
        field_ = self.keys("primary")[0]
        assert field_ is not None  # guaranteed by validation
        return field_

    @property
    def sort_field(self) -> Field | None:
        return self.keys("primary")[1]

    @property
    def type_field(self) -> Field:
        return self.fields[self.params.type_field]

    @property
    def unique_fields(self) -> list[Field]:
        """Fields with ``unique: true`` other than the primary keys (OneTable keeps a guard item for each)."""
        primary = self.indexes.get("primary")
        skip = set(primary.keys) if primary else set()
        return [f for f in self.fields.values() if f.unique and f.attribute not in skip]

    @property
    def templated(self) -> list[Field]:
        return [f for f in self.fields.values() if f.value is not None]

    def dependency_order(self) -> list[str]:
        return dependency_order(self)

    def _index(self, index: Index | str) -> Index:
        if isinstance(index, Index):
            return index
        try:
            return self.indexes[index]
        except KeyError:
            raise KeyError(f"unknown index {index!r}; the schema has {', '.join(self.indexes)}") from None


@dataclass(frozen=True, eq=False)
class Schema:
    """A loaded OneTable 1.1.0 schema. ``raw`` is the document as loaded; ``warnings`` the non-fatal
    issues found while validating it."""

    format: str
    version: str
    description: str | None
    indexes: dict[str, Index]
    models: dict[str, ModelDef]
    params: Params
    process: dict[str, Process]
    queries: dict[str, Any]
    raw: dict[str, Any] = field(repr=False)
    items: tuple[Any, ...] = field(default=(), repr=False)
    extensions: dict[str, Any] = field(default_factory=dict, repr=False)
    name: str | None = None
    warnings: tuple[SchemaIssue, ...] = field(default=(), repr=False)

    @property
    def primary(self) -> Index:
        return self.indexes["primary"]

    def model(self, name: str) -> ModelDef:
        try:
            return self.models[name]
        except (KeyError, TypeError):
            known = ", ".join(self.models) or "none"
            raise KeyError(f"unknown model {name!r}; the schema defines: {known}") from None

    def index(self, name: str) -> Index:
        try:
            return self.indexes[name]
        except (KeyError, TypeError):
            raise KeyError(f"unknown index {name!r}; the schema has: {', '.join(self.indexes)}") from None

    def process_for(self, model: str) -> Process:
        """The ``process`` entry of ``model``, or the defaults (both places, no sync)."""
        return self.process.get(model) or Process()

    def model_of(self, item: dict[str, Any]) -> ModelDef | None:
        """The model an item belongs to, by its type attribute."""
        name = item.get(self.params.type_field) if isinstance(item, dict) else None
        return self.models.get(name) if isinstance(name, str) else None

    def key_attribute_types(self) -> dict[str, str]:
        """DynamoDB scalar type (``"S"``, ``"N"`` or ``"B"``) of every index key attribute, from the
        model fields stored there (``"S"`` where no model defines the attribute): what CreateTable's
        AttributeDefinitions need."""
        types: dict[str, str] = {}
        for index in self.indexes.values():
            for attribute in index.keys:
                types.setdefault(attribute, "S")
                for model in self.models.values():
                    f = model.field_for_attribute(attribute)
                    if f is not None:
                        types[attribute] = scalar_type(f)
                        break
        return types


def scalar_type(f: Field) -> str:
    """The DynamoDB scalar type a key field is stored as."""
    if f.type == "number" or (f.type == "date" and (f.ttl or not f.iso_dates)):
        return "N"
    if f.type == "binary":
        return "B"
    return "S"


def _order(fields: dict[str, Field], path: str) -> list[str]:
    order: list[str] = []
    done: set[str] = set()
    stack: list[str] = []

    def visit(name: str) -> None:
        if name in done:
            return
        if name in stack:
            cycle = stack[stack.index(name) :] + [name]
            raise SchemaError([SchemaIssue(path, "value template cycle: " + " -> ".join(cycle))])
        stack.append(name)
        f = fields[name]
        if f.value is not None:
            for root in f.value.roots:
                ref = fields.get(root)
                if ref is not None and root != name and ref.value is not None:
                    visit(root)
        stack.pop()
        done.add(name)
        order.append(name)

    for name in fields:
        visit(name)
    return order


def dependency_order(model: ModelDef | dict[str, Field]) -> list[str]:
    """Field names in the order to evaluate value templates: declaration order, except that a templated
    field comes after the templated fields its template refers to (so ``sk: '${pk}#x'`` sees ``pk``).
    A cycle raises :class:`SchemaError` naming the fields (``a -> b -> a``)."""
    if isinstance(model, ModelDef):
        return _order(model.fields, model.path)
    return _order(model, "")
