"""asyncio API: :class:`AsyncTable` / :class:`AsyncModel` behave as :class:`Table` / :class:`Model` with
every call that reaches the database awaitable.  Calls run in a thread pool (the client is blocking), so
several may be in flight at once.

::

    table = AsyncTable("app", client, schema)
    await table.create_table()
    User = table.model("User")
    user = await User.create({"name": "Ann"})
    users = await User.find({"accountId": "acme"})
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .model import Model
from .table import Table

_TABLE_CALLS = (
    "create_table",
    "delete_table",
    "describe_table",
    "exists",
    "fetch",
    "batch_get",
    "batch_write",
    "transact",
    "save_schema",
    "read_schema",
    "read_schemas",
    "remove_schema",
    "get_item",
    "put_item",
    "update_item",
    "delete_item",
    "query_items",
    "scan_items",
    "create",
    "get",
    "find",
    "scan",
    "update",
    "upsert",
    "remove",
)


class _Runner:
    def __init__(self, executor: ThreadPoolExecutor) -> None:
        self.executor = executor

    async def __call__(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.executor, functools.partial(fn, *args, **kwargs))


class AsyncModel:
    """The async face of a :class:`Model`: ``await model.create(...)`` etc.; ``init`` and ``template`` stay
    synchronous (no I/O)."""

    def __init__(self, model: Model, runner: _Runner) -> None:
        self.sync = model
        self.name = model.name
        self._run = runner

    async def create(self, properties: Mapping[str, Any], **params: Any) -> Any:
        return await self._run(self.sync.create, properties, **params)

    async def get(self, properties: Mapping[str, Any], **params: Any) -> Any:
        return await self._run(self.sync.get, properties, **params)

    async def find(self, properties: Mapping[str, Any] | None = None, **params: Any) -> Any:
        return await self._run(self.sync.find, properties, **params)

    async def scan(self, properties: Mapping[str, Any] | None = None, **params: Any) -> Any:
        return await self._run(self.sync.scan, properties, **params)

    async def update(self, properties: Mapping[str, Any], **params: Any) -> Any:
        return await self._run(self.sync.update, properties, **params)

    async def upsert(self, properties: Mapping[str, Any], **params: Any) -> Any:
        return await self._run(self.sync.upsert, properties, **params)

    async def remove(self, properties: Mapping[str, Any], **params: Any) -> Any:
        return await self._run(self.sync.remove, properties, **params)

    async def check(self, properties: Mapping[str, Any], **params: Any) -> Any:
        return await self._run(self.sync.check, properties, **params)

    def init(self, properties: Mapping[str, Any] | None = None, **params: Any) -> dict[str, Any]:
        return self.sync.init(properties, **params)

    def template(self, name: str, properties: Mapping[str, Any]) -> Any:
        return self.sync.template(name, properties)

    def __repr__(self) -> str:
        return f"<AsyncModel {self.name}>"


class AsyncTable:
    """A :class:`Table` whose database calls are coroutines.

    Built like a Table (same arguments, plus ``max_workers`` for the thread pool), or around an existing one
    with ``AsyncTable.wrap(table)``.  Non-I/O methods (``model``, ``set_context``, ``get_table_definition``,
    ``group_by_type``, ...) are the Table's own.
    """

    def __init__(self, name: str, client: Any, schema: Any, *, max_workers: int = 8, **options: Any) -> None:
        self._init(Table(name, client, schema, **options), max_workers)

    @classmethod
    def wrap(cls, table: Table, *, max_workers: int = 8) -> AsyncTable:
        self = cls.__new__(cls)
        self._init(table, max_workers)
        return self

    def _init(self, table: Table, max_workers: int) -> None:
        self.sync = table
        self.executor = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="dynabase-model")
        self._run = _Runner(self.executor)
        self._models: dict[str, AsyncModel] = {}

    def model(self, name: str) -> AsyncModel:
        model = self.sync.model(name)
        wrapped = self._models.get(name)
        if wrapped is None or wrapped.sync is not model:
            wrapped = self._models[name] = AsyncModel(model, self._run)
        return wrapped

    get_model = model

    def close(self) -> None:
        self.executor.shutdown(wait=True)

    async def __aenter__(self) -> AsyncTable:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        self.close()

    def __getattr__(self, name: str) -> Any:
        sync = self.__dict__.get("sync")
        if sync is None:
            raise AttributeError(name)
        if name in _TABLE_CALLS:
            fn = getattr(sync, name)

            async def call(*args: Any, **kwargs: Any) -> Any:
                return await self._run(fn, *args, **kwargs)

            call.__name__ = name
            call.__doc__ = fn.__doc__
            return call
        models = sync.__dict__.get("_models") or {}
        if name in models:
            return self.model(name)
        return getattr(sync, name)

    def __repr__(self) -> str:
        return f"<AsyncTable {self.sync.name!r}>"


__all__ = ["AsyncModel", "AsyncTable"]
