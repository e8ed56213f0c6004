"""The shape of a table as the engine uses it: key attributes, their types, and secondary indexes."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ..errors import ValidationException
from ..types import MAX_HASH_KEY_SIZE, MAX_RANGE_KEY_SIZE, encode_composite_key, encode_key
from .storage import RowLoader, row_loader

#: AWS's answers to a primary key value over its size limit (the missing space in "of2048" is AWS's); DynamoDB
#: Local answers both with "Hash primary key values must be under 2048 bytes, ..." (tests/aws_differences.py)
HASH_KEY_TOO_BIG = (
    "One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of"
    "2048 bytes"
)
RANGE_KEY_TOO_BIG = (
    "One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of "
    "1024 bytes"
)
#: the quota on the names of key attributes and of attributes projected into an index, in UTF-8 bytes
MAX_KEY_NAME_BYTES = 255


def check_key_name(name: str) -> None:
    """Refuse a key or projected attribute name over 255 bytes in UTF-8 (a name of fewer characters included:
    the model's limit counts characters), in DynamoDB Local's words (AWS's could not be established)."""
    if len(name.encode("utf-8", "surrogatepass")) > MAX_KEY_NAME_BYTES:
        raise ValidationException(
            "Names of key attributes and attributes projected into an index must be between 1 and 255 characters, "
            "inclusive"
        )


@dataclass(frozen=True)
class KeySchema:
    """A hash key and an optional range key, with their scalar types.

    A global secondary index may have a multi-attribute key (up to 4 partition and 4 sort attributes): the first
    of each is ``hash_name``/``range_name`` and the others, in KeySchema order, ``more_hash``/``more_range``.
    """

    hash_name: str
    hash_type: str
    range_name: str | None = None
    range_type: str | None = None
    more_hash: tuple[tuple[str, str], ...] = ()
    more_range: tuple[tuple[str, str], ...] = ()

    @cached_property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.attrs)

    @cached_property
    def hash_attrs(self) -> tuple[tuple[str, str], ...]:
        """``(name, type)`` of every partition key attribute, in KeySchema order."""
        return ((self.hash_name, self.hash_type),) + self.more_hash

    @cached_property
    def range_attrs(self) -> tuple[tuple[str, str], ...]:
        """``(name, type)`` of every sort key attribute, in KeySchema order."""
        first = ((self.range_name, self.range_type),) if self.range_name else ()
        return first + self.more_range  # type: ignore[return-value]  # range_type is set with range_name

    @cached_property
    def attrs(self) -> tuple[tuple[str, str], ...]:
        """``(name, type)`` of every key attribute: the partition attributes, then the sort attributes."""
        return self.hash_attrs + self.range_attrs

    @cached_property
    def multi(self) -> bool:
        """Whether the key has more than one partition or sort attribute (a multi-attribute GSI key)."""
        return bool(self.more_hash or self.more_range)


@dataclass
class Index:
    name: str
    kind: str  # "GSI" or "LSI"
    keys: KeySchema
    projection: str  # ALL, KEYS_ONLY, INCLUDE
    non_key: tuple[str, ...]
    sql: str  # the SQLite table holding the index rows
    table_keys: KeySchema = None  # type: ignore[assignment]  # always given (table_from_description)

    def projected_names(self) -> set[str] | None:
        """Attribute names the index holds, or None for ALL."""
        if self.projection == "ALL":
            return None
        names = set(self.keys.names) | set(self.table_keys.names)
        if self.projection == "INCLUDE":
            names |= set(self.non_key)
        return names

    def project(self, item: dict) -> dict:
        names = self.projected_names()
        if names is None:
            return item
        return {k: v for k, v in item.items() if k in names}

    def key_of(self, item: dict) -> tuple[bytes, bytes] | None:
        """The index key (encoded) of an item, or None when the item is not in this sparse index."""
        keys = self.keys
        if keys.multi:
            return _composite_key_of(keys, item)
        hv = item.get(keys.hash_name)
        if hv is None or keys.hash_type not in hv:
            return None
        if keys.range_name is None:
            return encode_key(hv), b""
        rv = item.get(keys.range_name)
        if rv is None or keys.range_type not in rv:
            return None
        return encode_key(hv), encode_key(rv)


def _composite_key_of(keys: KeySchema, item: dict) -> tuple[bytes, bytes] | None:
    """A multi-attribute index key: each part encoded in KeySchema order (None when an attribute is missing)."""
    parts = []
    for attrs in (keys.hash_attrs, keys.range_attrs):
        values = []
        for name, typ in attrs:
            value = item.get(name)
            if value is None or typ not in value:
                return None
            values.append(value)
        parts.append(
            encode_composite_key(values) if len(values) > 1 else encode_key(values[0]) if values else b""
        )
    return parts[0], parts[1]


@dataclass
class Table:
    """A DynamoDB table as stored in the catalog."""

    name: str
    id: int
    keys: KeySchema
    attribute_types: dict[str, str]
    description: dict[str, Any]
    indexes: dict[str, Index] = field(default_factory=dict)
    #: the catalog version this description was read at (``PRAGMA user_version``)
    version: int = -1

    @cached_property
    def sql(self) -> str:
        return f"t{self.id}"

    @cached_property
    def row_keys(self) -> tuple[tuple[str, str, int], ...]:
        """The key attributes left out of stored bodies (see :data:`dynabase.engine.storage.RowKeys`)."""
        keys = [(self.keys.hash_name, self.keys.hash_type, 0)]
        if self.keys.range_name:
            # (range_type is set with range_name)
            keys.append((self.keys.range_name, self.keys.range_type, 1))  # type: ignore[arg-type]
        return tuple(k for k in keys if k[1] in ("S", "B"))

    @cached_property
    def load_row(self) -> RowLoader:
        """``(text, bin, pk, sk) -> item`` for this table's rows (:func:`dynabase.engine.storage.row_loader`)."""
        return row_loader(self.row_keys)

    @cached_property
    def load_body(self) -> RowLoader:
        """:attr:`load_row` without putting the key attributes back (a body written before keys were left out
        still has them)."""
        return row_loader(())

    @cached_property
    def index_key_names(self) -> frozenset[str]:
        """The attributes that are a key of some secondary index (and not of the table)."""
        names = {n for i in self.indexes.values() for n in i.keys.names}
        return frozenset(names - set(self.keys.names))

    def index(self, name: str) -> Index:
        try:
            return self.indexes[name]
        except KeyError:
            raise ValidationException(f"The table does not have the specified index: {name}")

    @cached_property
    def stream_view_type(self) -> str | None:
        spec = self.description.get("StreamSpecification")
        if spec and spec.get("StreamEnabled"):
            return spec.get("StreamViewType")
        return None

    # -- keys ----------------------------------------------------------------------------------------------

    def key_values(self, key: dict, *, what: str = "key") -> tuple[bytes, bytes]:
        """Validate a primary key given in a request (a Key, an Item, or ``what="start"`` an ExclusiveStartKey:
        its values are not held to the size limits, as DynamoDB Local does not hold them) and encode it."""
        ks = self.keys
        if what == "key" and len(key) != len(ks.names):
            raise ValidationException("The number of conditions on the keys is invalid")
        hv = key.get(ks.hash_name)
        rv = key.get(ks.range_name) if ks.range_name else None
        if hv is None or (ks.range_name and rv is None):
            raise ValidationException("One of the required keys was not given a value")
        hash_limit, range_limit = (None, None) if what == "start" else (MAX_HASH_KEY_SIZE, MAX_RANGE_KEY_SIZE)
        hk = key_bytes(hv, ks.hash_type, ks.hash_name, hash_limit)
        if ks.range_name:
            # rv was checked above, and a KeySchema with a range_name has its range_type; a hot path, so no casts
            return hk, key_bytes(rv, ks.range_type, ks.range_name, range_limit)  # type: ignore[arg-type]
        return hk, b""

    def key_of(self, item: dict) -> dict:
        """The primary key attributes of an item."""
        return {n: item[n] for n in self.keys.names}

    def check_index_keys(self, item: dict, updating: bool = False) -> None:
        """Reject an item whose secondary-index key attributes have the wrong type or are empty."""
        for index in self.indexes.values():
            for name, typ in index.keys.attrs:
                if name in self.keys.names:
                    continue
                value = item.get(name)
                if value is None:
                    continue
                if typ not in value:
                    if not value.keys() & {"S", "N", "B"}:  # a list, map, set, boolean or null
                        raise ValidationException("Invalid attribute value type")
                    raise ValidationException(
                        "One or more parameter values were invalid: Type mismatch for Index Key"
                    )
                if typ in ("S", "B") and len(value[typ]) == 0:
                    if updating:
                        raise ValidationException(
                            "One or more parameter values are not valid. The update expression attempted to update a "
                            "secondary index key to a value that is not supported. The AttributeValue for a key "
                            f"attribute cannot contain an empty {'string' if typ == 'S' else 'binary'} value."
                        )
                    raise ValidationException(
                        "One or more parameter values are not valid. A value specified for a secondary index key "
                        "is not supported. The AttributeValue for a key attribute cannot contain an empty "
                        f"{'string' if typ == 'S' else 'binary'} value. IndexName: {index.name}, IndexKey: {name}"
                    )
                if typ in ("S", "B"):
                    _check_key_value_size(index, name, value[typ])


def key_bytes(value: dict, typ: str, name: str, max_size: int | None) -> bytes:
    """A key attribute's value checked against its declared type and size limit (None: none), encoded for
    storage."""
    if len(value) != 1 or typ not in value:
        if not any(k in value for k in ("S", "N", "B")):
            raise ValidationException("Invalid attribute value type")
        raise ValidationException("One or more parameter values were invalid: Type mismatch for key")
    inner = value[typ]
    if typ == "N":
        return encode_key(value)
    encoded = inner.encode("utf-8") if typ == "S" else inner
    if not encoded:
        kind = "string" if typ == "S" else "binary"
        raise ValidationException(
            "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain "
            f"an empty {kind} value. Key: {name}"
        )
    if max_size is not None and len(encoded) > max_size:
        raise ValidationException(HASH_KEY_TOO_BIG if max_size == MAX_HASH_KEY_SIZE else RANGE_KEY_TOO_BIG)
    return encoded


def key_value_size(value: str | bytes) -> int:
    """The size of a string or binary key value: its bytes in UTF-8."""
    return len(value.encode("utf-8", "surrogatepass")) if isinstance(value, str) else len(value)


def check_key_value_size(value: dict, max_size: int) -> None:
    """Refuse a string or binary key value over ``max_size`` bytes (a key condition's value)."""
    ((kind, inner),) = value.items()
    if kind in ("S", "B") and key_value_size(inner) > max_size:
        raise ValidationException(HASH_KEY_TOO_BIG if max_size == MAX_HASH_KEY_SIZE else RANGE_KEY_TOO_BIG)


def index_key_fits(index: Index, name: str, value: str | bytes) -> bool:
    """Whether an index key value is within its limit (2048 bytes for a partition key, 1024 for a sort key)."""
    limit = MAX_HASH_KEY_SIZE if _partition_key(index, name) else MAX_RANGE_KEY_SIZE
    return key_value_size(value) <= limit


def _partition_key(index: Index, name: str) -> bool:
    return any(name == hash_name for hash_name, _ in index.keys.hash_attrs)


def _check_key_value_size(index: Index, name: str, value: str | bytes) -> None:
    """Refuse an index key value over its limit: AWS's message for a partition key (its wording for a sort key
    could not be established, so Local's)."""
    if index_key_fits(index, name, value):
        return
    if _partition_key(index, name):
        raise ValidationException(
            f"One or more parameter values were invalid: Size limit exceeded for Index Key {name} Actual Size: "
            f"{key_value_size(value)} bytes Max Size: {MAX_HASH_KEY_SIZE} bytes IndexName: {index.name}"
        )
    raise ValidationException("One or more parameter values were invalid: Size limit exceeded")
