"""asyncio API: :class:`AsyncTable` / :class:`AsyncModel` behave as :class:`Table` / :class:`Model` with
every call that reaches the database awaitable.

With an asyncio client (``dynabase.endpoint_async(url)``: AWS or any endpoint) the model's calls are native:
the Model builds its request without I/O, the request is awaited on the asyncio client, and the Model decodes
the answer with its own code; no thread is involved, so a thousand concurrent calls need no thousand threads.
Calls that make requests of their own outside one request pipeline (unique fields, ``follow``, removing by
query, an explicit ``client=``) and the Table's own calls (create_table, transact, batches, ...) run the
blocking API in a thread pool (building the request again there: a ``transform`` hook sees it twice), as does
everything with a blocking client: the embedded engine is in process, so its calls are CPU in this process
either way and threads are the right tool there.

::

    table = AsyncTable("app", dynabase.endpoint_async(url), schema)   # or a blocking client: threads
    await table.create_table()
    User = table.model("User")
    user = await User.create({"name": "Ann"})
    users = await User.find({"accountId": "acme"})
"""

from __future__ import annotations

import asyncio
import copy
import functools
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import orjson

from .model import Model
from .table import Table

if TYPE_CHECKING:  # pragma: no cover
    from .compiled import Built

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


class _NeedIO(BaseException):
    """A request the native path has no answer for yet (a BaseException: the model's error handling, which
    catches Exception, lets it through untouched)."""

    def __init__(self, method: str, cmd: dict[str, Any], key: tuple[Any, ...]) -> None:
        self.method, self.cmd, self.key = method, cmd, key


class _NoIO:
    """The client while a Model builds its request: any call means the method does I/O of its own."""

    def __getattr__(self, method: str) -> Any:
        def call(**cmd: Any) -> Any:
            raise _NeedIO(method, cmd, ())

        return call


class _Replay:
    """The client while a Model decodes: answers each request (by method and parameters) with the outcome the
    asyncio client gave it, or asks for it with :class:`_NeedIO`."""

    def __init__(self) -> None:
        self.outcomes: dict[tuple[Any, ...], Any] = {}

    def __getattr__(self, method: str) -> Any:
        outcomes = self.outcomes

        def call(**cmd: Any) -> Any:
            key = (method, orjson.dumps(cmd, option=orjson.OPT_SORT_KEYS, default=repr))
            if key not in outcomes:
                raise _NeedIO(method, cmd, key)
            outcome = outcomes[key]
            if isinstance(outcome, Exception):
                raise outcome
            return outcome

        return call


_CAPTURED = object()
_NO_IO = _NoIO()


class AsyncModel:
    """The async face of a :class:`Model`: ``await model.create(...)`` etc.; ``init`` and ``template`` stay
    synchronous (no I/O)."""

    def __init__(self, model: Model, runner: _Runner, native: Any = None) -> None:
        self.sync = model
        self.name = model.name
        self._run = runner
        self._native = native

    async def _call(self, name: str, properties: Any, params: dict[str, Any]) -> Any:
        native = self._native
        if native is None or "client" in params:
            return await self._run(getattr(self.sync, name), properties, **params)
        # 1. the model builds its request (ids, timestamps, expressions) with no client to call
        captured: list[tuple[str, Any]] = []
        shadow = copy.copy(self.sync)  # its table's client, and its own, refuse I/O: nothing is sent yet
        shadow.table = copy.copy(self.sync.table)
        shadow.table.client = _NO_IO

        def capture(op: str, expr: Any) -> Any:
            captured.append((op, expr))
            return _CAPTURED

        def capture_built(built: Built) -> Any:
            captured.append((built.op, built))
            return _CAPTURED

        # the shadow's requests are captured instead of run
        shadow._run = capture  # type: ignore[method-assign]
        # a compiled request is replayed through the general run, which takes it as it is
        shadow._run_built = capture_built  # type: ignore[method-assign]
        try:
            built = getattr(shadow, name)(properties, client=_NO_IO, **params)
        except _NeedIO:
            built = None
        if built is not _CAPTURED or len(captured) != 1:  # requests outside the one pipeline: a thread
            return await self._run(getattr(self.sync, name), properties, **params)
        # 2. its requests are awaited on the asyncio client; 3. the model decodes the answers itself
        op, expr = captured[0]
        replay = expr.params["client"] = _Replay()
        run = type(self.sync)._run
        while True:
            try:
                return run(self.sync, op, expr)
            except _NeedIO as need:
                try:
                    replay.outcomes[need.key] = await getattr(native, need.method)(**need.cmd)
                except Exception as error:
                    replay.outcomes[need.key] = error

    async def create(self, properties: Mapping[str, Any], **params: Any) -> Any:
        return await self._call("create", properties, params)

    async def get(self, properties: Mapping[str, Any], **params: Any) -> Any:
        return await self._call("get", properties, params)

    async def find(self, properties: Mapping[str, Any] | None = None, **params: Any) -> Any:
        return await self._call("find", properties, params)

    async def scan(self, properties: Mapping[str, Any] | None = None, **params: Any) -> Any:
        return await self._call("scan", properties, params)

    async def update(self, properties: Mapping[str, Any], **params: Any) -> Any:
        return await self._call("update", properties, params)

    async def upsert(self, properties: Mapping[str, Any], **params: Any) -> Any:
        return await self._call("upsert", properties, params)

    async def remove(self, properties: Mapping[str, Any], **params: Any) -> Any:
        return await self._call("remove", properties, params)

    async def check(self, properties: Mapping[str, Any], **params: Any) -> Any:
        return await self._call("check", properties, params)

    def init(self, properties: Mapping[str, Any] | None = None, **params: Any) -> dict[str, Any]:
        return self.sync.init(properties, **params)

    def template(self, name: str, properties: Mapping[str, Any]) -> Any:
        return self.sync.template(name, properties)

    def __repr__(self) -> str:
        return f"<AsyncModel {self.name}>"


class AsyncTable:
    """A :class:`Table` whose database calls are coroutines.

    Built like a Table (same arguments, plus ``max_workers`` for the thread pool), or around an existing one
    with ``AsyncTable.wrap(table)``.  The client may be an asyncio client (``dynabase.endpoint_async``): the
    models' calls then run natively on it, and the Table underneath gets its blocking twin.  Non-I/O methods
    (``model``, ``set_context``, ``get_table_definition``, ``group_by_type``, ...) are the Table's own.
    """

    def __init__(self, name: str, client: Any, schema: Any, *, max_workers: int = 8, **options: Any) -> None:
        native = client if _is_async(client) else None
        blocking = native.sync_client() if native is not None else client
        self._init(Table(name, blocking, schema, **options), max_workers, native)
        self._twin = blocking if native is not None else None  # made here: closed with this table

    @classmethod
    def wrap(cls, table: Table, *, max_workers: int = 8, native: Any = None) -> AsyncTable:
        """An AsyncTable around ``table``; ``native``: an asyncio client for the same database."""
        self = cls.__new__(cls)
        self._init(table, max_workers, native)
        return self

    def _init(self, table: Table, max_workers: int, native: Any) -> None:
        self.sync = table
        self.native = native
        self._twin = None
        self.executor = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="dynabase-model")
        self._run = _Runner(self.executor)
        self._models: dict[str, AsyncModel] = {}

    def model(self, name: str) -> AsyncModel:
        model = self.sync.model(name)
        wrapped = self._models.get(name)
        if wrapped is None or wrapped.sync is not model:
            wrapped = self._models[name] = AsyncModel(model, self._run, self.native)
        return wrapped

    get_model = model

    def close(self) -> None:
        self.executor.shutdown(wait=True)
        if self._twin is not None:
            self._twin.close()  # the blocking twin this table made for its native client; a wrapped one is not ours

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


def _is_async(client: Any) -> bool:
    from ..client.aio import AsyncLeanClient

    return isinstance(client, AsyncLeanClient)


__all__ = ["AsyncModel", "AsyncTable"]
