"""Typed writes and gets collected in a block: transactions and batches of ``dynabase typegen``'s models.

``app.transaction()`` / ``app.batch()`` collect writes (:class:`Writes`) and run them when the ``with`` block
ends, none if it raises. ``app.transact_get()`` / ``app.batch_get()`` collect gets (:class:`Gets`): each
returns a :class:`Read`, whose ``item`` is the entity found (or None) once the block has ended. The requests
are the dict API's (``transaction=`` / ``batch=`` collectors, :mod:`dynabase.model.collectors`); this module
adds the types and matches each item found to the get that asked for it.
"""

from __future__ import annotations

import contextlib
import typing
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .collectors import read_found
from .errors import OneTableArgError
from .typed import E, _Accessor

if TYPE_CHECKING:  # pragma: no cover
    from .aio import AsyncTable
    from .model import Model
    from .table import Table

W = TypeVar("W")
R = TypeVar("R")
#: the dict API's read params of a get's result (collectors.transact's)
_READ_PARAMS = {"parse": True}


class Writes(Generic[E]):
    """A model's writes collected into a transaction or a batch (``connect(table).transaction()`` /
    ``.batch()``, written by ``dynabase typegen``): each call adds its request and returns None, and the table
    runs them all, at once, when the ``with`` block ends without an error. Generated subclasses
    (``FaultWrites``: create / update / upsert / remove; ``FaultBatchWrites``: create / remove, what a batch
    write can do) give the calls exact signatures."""

    def __init__(self, accessor: _Accessor[E], collected: dict[str, Any], kind: str) -> None:
        self._model: Model = accessor._sync_model
        self._write = accessor._write
        self._collect = {kind: collected}

    def _create(self, properties: Mapping[str, object]) -> None:
        self._model.create(self._write(properties), **self._collect)

    def _update(self, properties: Mapping[str, object]) -> None:
        self._model.update(self._write(properties), **self._collect)

    def _upsert(self, properties: Mapping[str, object]) -> None:
        self._model.upsert(self._write(properties), **self._collect)

    def _remove(self, key: Mapping[str, object]) -> None:
        self._model.remove(self._write(key), **self._collect)


class Read(Generic[E]):
    """One get of a ``transact_get()`` or ``batch_get()`` block: ``item`` is the entity found, or None when
    there is no such item, once the block has ended."""

    __slots__ = ("_item", "_done")

    def __init__(self) -> None:
        self._item: E | None = None
        self._done = False

    @property
    def item(self) -> E | None:
        if not self._done:
            raise OneTableArgError(
                "This get has not run yet: its item is there once the transact_get() / batch_get() block that "
                "collected it has ended"
            )
        return self._item

    def __repr__(self) -> str:
        return f"<Read {self._item!r}>" if self._done else "<Read (not run yet)>"


class _Gathered:
    """The gets of one block: the request the dict API collects for them, and a :class:`Read` per get with
    the reader of its entity class, in the order the gets were made."""

    def __init__(self, kind: str) -> None:
        self.kind = kind  # "transaction" or "batch"
        self.request: dict[str, Any] = {}
        self.reads: list[tuple[Read[Any], Callable[[Mapping[str, Any]], Any]]] = []

    def add(self, model: Model, key: dict[str, Any], read: Callable[[Mapping[str, Any]], Any]) -> Read[Any]:
        model.get(key, **{self.kind: self.request})
        handle: Read[Any] = Read()
        self.reads.append((handle, read))
        return handle

    def settle(self, table: Table, found: list[Any]) -> None:
        """Give each Read its entity: ``found`` is what the dict API returned with ``parse=False`` (a
        transaction's items in request order, None for a missing one; a batch's items found, in any order)."""
        if self.kind == "batch":
            keys = self.request.get("RequestItems", {}).get(table.name, {}).get("Keys", [])
            primary = table.indexes["primary"]
            names = [name for name in (primary.hash, primary.sort) if name]

            def key_of(item: Mapping[str, Any]) -> tuple[Any, ...]:
                return tuple(item.get(name) for name in names)

            by_key = {key_of(item): item for item in found}
            found = [by_key.get(key_of(table.decoder.decode_item(key))) for key in keys]
        for (handle, read), item in zip(self.reads, found, strict=True):
            result = None if item is None else read_found(table, item, _READ_PARAMS)
            handle._item = None if result is None else read(result)
            handle._done = True


def _run(table: Any, kind: str, verb: str, request: dict[str, Any], **params: Any) -> Any:
    """The Table call that runs what a block collected (``verb``: "write" or "get"); an AsyncTable's is a
    coroutine."""
    if kind == "transaction":
        return table.transact(verb, request, **params)
    return (table.batch_write if verb == "write" else table.batch_get)(request, **params)


class Gets(Generic[E]):
    """A model's gets collected into a ``transact_get()`` or ``batch_get()`` block (generated subclasses,
    ``FaultGets``, give ``get`` its exact key): each returns a :class:`Read`, filled when the block ends."""

    def __init__(self, accessor: _Accessor[E], gathered: _Gathered) -> None:
        self._model: Model = accessor._sync_model
        self._write = accessor._write
        self._read = accessor._read
        self._gathered = gathered

    def _get(self, key: Mapping[str, object]) -> Read[E]:
        return typing.cast(Read[E], self._gathered.add(self._model, self._write(key), self._read))


class ModelsBase:
    """What ``typegen``'s ``Models`` (over a :class:`~dynabase.model.Table`) builds on: ``transaction()`` and
    ``batch()`` blocks that collect typed writes and run them when the block ends, and ``transact_get()`` and
    ``batch_get()`` blocks that collect typed gets and read them when it ends."""

    def __init__(self, table: Table) -> None:
        self.table = table

    @contextlib.contextmanager
    def _collecting(self, writes: Callable[[Any, dict[str, Any]], W], kind: str) -> Iterator[W]:
        collected: dict[str, Any] = {}
        yield writes(self, collected)
        _run(self.table, kind, "write", collected)

    @contextlib.contextmanager
    def _reading(self, gets: Callable[[Any, _Gathered], R], kind: str) -> Iterator[R]:
        gathered = _Gathered(kind)
        yield gets(self, gathered)
        if gathered.reads:
            gathered.settle(self.table, _run(self.table, kind, "get", gathered.request, parse=False))


class AsyncModelsBase:
    """:class:`ModelsBase` over an :class:`~dynabase.model.AsyncTable`: the blocks are ``async with``, and the
    collected writes or gets are awaited when the block ends."""

    def __init__(self, table: AsyncTable) -> None:
        self.table = table

    @contextlib.asynccontextmanager
    async def _collecting(self, writes: Callable[[Any, dict[str, Any]], W], kind: str) -> AsyncIterator[W]:
        collected: dict[str, Any] = {}
        yield writes(self, collected)
        await _run(self.table, kind, "write", collected)

    @contextlib.asynccontextmanager
    async def _reading(self, gets: Callable[[Any, _Gathered], R], kind: str) -> AsyncIterator[R]:
        gathered = _Gathered(kind)
        yield gets(self, gathered)
        if gathered.reads:
            found = await _run(self.table, kind, "get", gathered.request, parse=False)
            gathered.settle(self.table.sync, found)


__all__ = ["AsyncModelsBase", "Gets", "ModelsBase", "Read", "Writes"]
