"""Consumed capacity, computed with DynamoDB's unit arithmetic (1 KB write units, 4 KB read units)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, Literal, overload

from ..errors import ValidationException
from ..types import item_size
from .schema import Index, Table

_MODES = ("NONE", "TOTAL", "INDEXES")


def check_mode(mode: Any) -> str:
    if mode is None:
        return "NONE"
    if mode not in _MODES:
        raise ValidationException(
            f"1 validation error detected: Value '{mode}' at 'returnConsumedCapacity' failed to satisfy constraint: "
            "Member must satisfy enum value set: [INDEXES, TOTAL, NONE]"
        )
    return mode


def write_units(size: int) -> float:
    return float(max(1, math.ceil(size / 1024)))


def read_units(size: int, consistent: bool) -> float:
    units = float(math.ceil(size / 4096))
    return units if consistent else units / 2


class Consumed:
    """Capacity used by one request on one table, split by table and indexes."""

    __slots__ = ("table", "table_units", "indexes")

    def __init__(self, table: Table) -> None:
        self.table = table
        self.table_units = 0.0
        self.indexes: dict[str, float] = {}

    def add_index(self, index: Index, units: float) -> None:
        self.indexes[index.name] = self.indexes.get(index.name, 0.0) + units

    def add_write(self, old: dict | None, new: dict | None, old_size: int, new_size: int) -> None:
        """Units of one item write: the larger item image, plus each index entry written or deleted."""
        self.table_units += write_units(max(old_size, new_size))
        for index in self.table.indexes.values():
            units = index_write_units(index, old, new)
            if units:
                self.add_index(index, units)

    def scale(self, factor: float) -> None:
        self.table_units *= factor
        self.indexes = {name: units * factor for name, units in self.indexes.items()}

    @overload
    def response(self, mode: Literal["TOTAL", "INDEXES"], split: str | None = None) -> dict: ...
    @overload
    def response(self, mode: str, split: str | None = None) -> dict | None: ...
    def response(self, mode: str, split: str | None = None) -> dict | None:
        """The ConsumedCapacity member for ``mode``; None for ``NONE``. ``split`` (``Read``/``Write``): each
        figure also as ``<split>CapacityUnits``, as transactional answers give them."""

        def units(value: float) -> dict[str, float]:
            return (
                {"CapacityUnits": value, f"{split}CapacityUnits": value}
                if split
                else {"CapacityUnits": value}
            )

        if mode == "NONE":
            return None
        total = self.table_units + sum(self.indexes.values())
        out: dict[str, Any] = {"TableName": self.table.name, **units(total)}
        if mode == "INDEXES":
            out["Table"] = units(self.table_units)
            for kind, key in (("LSI", "LocalSecondaryIndexes"), ("GSI", "GlobalSecondaryIndexes")):
                by_index = {
                    n: units(u) for n, u in self.indexes.items() if self.table.indexes[n].kind == kind
                }
                if by_index:
                    out[key] = by_index
        return out


def index_write_units(index: Index, old: dict | None, new: dict | None) -> float:
    """Write units for an index: a put of the new entry, a delete of the old one, or both when its key moved."""
    old_key = old_entry = new_key = new_entry = None
    if old:
        old_key = index.key_of(old)
        if old_key is not None:  # the old item is in the index: its entry there
            old_entry = index.project(old)
    if new:
        new_key = index.key_of(new)
        if new_key is not None:
            new_entry = index.project(new)
    if old_key is None and new_key is None:
        return 0.0
    if old_key == new_key:
        if old_entry == new_entry:
            return 0.0
        assert old_entry is not None and new_entry is not None  # the same key, so both items have an entry
        return write_units(max(item_size(old_entry), item_size(new_entry)))
    units = 0.0
    if old_entry is not None:
        units += write_units(item_size(old_entry))
    if new_entry is not None:
        units += write_units(item_size(new_entry))
    return units


# -- item collection metrics ---------------------------------------------------------------------------------

_GB = float(1 << 30)


def collection_metrics(conn: Any, table: Table, h: int, pk: bytes, item: dict) -> dict | None:
    """``ItemCollectionMetrics`` of the item collection holding ``item`` (its partition), for a table with local
    secondary indexes (``None`` for any other): its key and the size estimate in GB, [lower, upper], counting the
    table's items of the partition and their local index entries."""
    lsis = [index for index in table.indexes.values() if index.kind == "LSI"]
    if not lsis:
        return None
    (size,) = conn.execute(
        f"SELECT coalesce(sum(size), 0) FROM {table.sql} WHERE h = ? AND pk = ?", (h, pk)
    ).fetchone()
    for index in lsis:  # a local index's partition is the table's: ih = h, ik = pk
        (indexed,) = conn.execute(
            f"SELECT coalesce(sum(t.size), 0) FROM {index.sql} i JOIN {table.sql} t "
            "ON t.h = i.h AND t.pk = i.pk AND t.sk = i.sk WHERE i.ih = ? AND i.ik = ?",
            (h, pk),
        ).fetchone()
        size += indexed
    lower = float(math.floor(size / _GB))
    hash_name = table.keys.hash_name
    return {"ItemCollectionKey": {hash_name: item[hash_name]}, "SizeEstimateRangeGB": [lower, lower + 1.0]}


def tables_collection_metrics(conn: Any, writes: Iterable[tuple[Table, int, bytes, dict | None]]) -> dict:
    """BatchWriteItem's and TransactWriteItems' ``ItemCollectionMetrics``: table name -> the metrics of each item
    collection the writes ``(table, h, pk, item written or deleted)`` touched, measured after all of them."""
    partitions: dict[tuple[str, bytes], tuple[Table, int, bytes, dict]] = {}
    for table, h, pk, item in writes:
        if item is not None:
            partitions[(table.name, pk)] = (table, h, pk, item)
    out: dict[str, list] = {}
    for table, h, pk, item in partitions.values():
        metrics = collection_metrics(conn, table, h, pk, item)
        if metrics is not None:
            out.setdefault(table.name, []).append(metrics)
    return out
