"""The lean client over asyncio: ``await client.get_item(...)`` with boto3's parameters, responses and
exceptions, on a small HTTP/1.1 client over asyncio streams (no threads: a thousand concurrent calls share
``max_pool_connections`` keep-alive connections).  The wire protocol, signing, retries and errors are the
blocking client's (:mod:`.protocol`); only the transport differs.  The standard library's asyncio streams are
all it needs: aiohttp or httpx would add a dependency and, per call, more CPU than the request itself.

Credentials that need refreshing (SSO, IMDS, assumed roles) are refreshed by botocore's blocking code, once per
expiry, on the event loop. Through an https proxy, a new connection's ``CONNECT`` exchange runs in the loop's
default executor (the blocking client's code); the requests on it do not.
"""

from __future__ import annotations

import asyncio
from typing import Any

from .aiopaginate import AsyncPaginator
from .http import LeanClient
from .protocol import HttpResponse, LeanBase, Prepared, body_length, parse_head
from .transport import open_tunnel

_MAX_HEAD = 65536


class _Stream:
    """One keep-alive connection."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    async def exchange(self, data: bytes) -> tuple[HttpResponse, bool]:
        self.writer.write(data)
        reader = self.reader
        head = await reader.readuntil(b"\r\n\r\n")
        status, headers = parse_head(head[:-4])
        length = body_length(headers)
        body = await self._read_chunked() if length is None else await reader.readexactly(length)
        return HttpResponse(status, headers, body), headers.get("connection", "").lower() != "close"

    async def _read_chunked(self) -> bytes:
        parts: list[bytes] = []
        reader = self.reader
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0].strip(), 16)
            if size == 0:
                while await reader.readuntil(b"\r\n") != b"\r\n":
                    pass
                return b"".join(parts)
            parts.append(await reader.readexactly(size))
            await reader.readexactly(2)

    def close(self) -> None:
        self.writer.close()


class AsyncLeanClient(LeanBase):
    """``boto3.client("dynamodb")``'s methods as coroutines, for AWS or any endpoint. Paginators are
    aiobotocore's shape (``async for page in client.get_paginator("query").paginate(...)``); waiters block:
    they are the blocking client's, from :meth:`sync_client`."""

    _paginator_class = AsyncPaginator
    default_pool_connections = 64

    def _open_pool(self) -> None:
        self._idle: list[_Stream] = []
        self._slots: asyncio.Semaphore | None = None

    def sync_client(self) -> LeanClient:
        """A blocking lean client for the same endpoint, region and credentials (for code that blocks)."""
        return self._twin(LeanClient, self._service)

    def streams(self) -> AsyncLeanClient:
        """The ``dynamodbstreams`` client for the same endpoint, region and credentials."""
        return self._twin(AsyncLeanClient, "dynamodbstreams")

    def get_waiter(self, waiter_name: str) -> Any:
        raise NotImplementedError("the asyncio client has no waiters: use sync_client().get_waiter")

    def _method(self, operation: str) -> Any:
        prepare, send = self.protocol.prepare, self._send

        async def call(**kwargs: Any) -> dict[str, Any]:
            return await send(prepare(operation, kwargs))

        return call

    async def _send(self, prepared: Prepared) -> dict[str, Any]:
        protocol, attempt = self.protocol, 1
        while True:
            try:
                response = await self._exchange(protocol.request_bytes(prepared))
                result = protocol.settle(prepared, attempt, response)
            except (OSError, EOFError, asyncio.LimitOverrunError) as error:
                result = protocol.settle(prepared, attempt, error=error)
            if isinstance(result, dict):
                return result
            await asyncio.sleep(result)
            attempt += 1

    async def _exchange(self, data: bytes) -> HttpResponse:
        if self._slots is None:
            self._slots = asyncio.Semaphore(self._max_pool)
        async with self._slots:
            stream = self._idle.pop() if self._idle else None
            if stream is not None:
                try:
                    response, keep = await self._timed(stream, data)
                except (ConnectionResetError, BrokenPipeError, asyncio.IncompleteReadError):
                    stream.close()  # closed by the server while idle: open a fresh one
                    stream = None
            if stream is None:
                stream = await asyncio.wait_for(self._connect(), self._timeouts[0])
                try:
                    response, keep = await self._timed(stream, data)
                except BaseException:
                    stream.close()
                    raise
            if keep:
                self._idle.append(stream)
            else:
                stream.close()
            return response

    async def _connect(self) -> _Stream:
        route = self.route
        if route.tunnel:  # the CONNECT exchange is the blocking client's, in a worker thread
            sock = await asyncio.get_running_loop().run_in_executor(
                None, open_tunnel, route, self._timeouts[0]
            )
            try:
                sock.setblocking(False)
                reader, writer = await asyncio.open_connection(
                    sock=sock, ssl=route.tls, server_hostname=route.server_hostname, limit=_MAX_HEAD
                )
            except BaseException:
                sock.close()
                raise
        else:
            reader, writer = await asyncio.open_connection(
                route.host, route.port, ssl=route.tls, limit=_MAX_HEAD
            )
        return _Stream(reader, writer)

    async def _timed(self, stream: _Stream, data: bytes) -> tuple[HttpResponse, bool]:
        """The exchange, the connection aborted if no response arrives within the read timeout."""
        expired: list[bool] = []

        def abort() -> None:
            expired.append(True)
            stream.writer.transport.abort()

        timer = asyncio.get_running_loop().call_later(self._timeouts[1], abort)
        try:
            return await stream.exchange(data)
        except (ConnectionResetError, asyncio.IncompleteReadError) as error:
            if expired:
                raise TimeoutError("no response within the read timeout") from error
            raise
        finally:
            timer.cancel()

    async def close(self) -> None:
        idle, self._idle = self._idle, []
        for stream in idle:
            stream.close()

    async def __aenter__(self) -> AsyncLeanClient:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()


def endpoint_async(url: str | None = None, region: str | None = None, **options: Any) -> AsyncLeanClient:
    """An asyncio lean client for DynamoDB at ``url`` (None: AWS in ``region``); options as
    :func:`dynabase.endpoint` (``max_pool_connections`` defaults to 64)."""
    return AsyncLeanClient(url, region, **options)


__all__ = ["AsyncLeanClient", "endpoint_async"]
