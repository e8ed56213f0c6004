"""The lean client over asyncio: ``await client.get_item(...)`` with boto3's parameters, responses and
exceptions, on a small HTTP/1.1 client over asyncio streams (no threads: a thousand concurrent calls share
``max_pool_connections`` keep-alive connections).  The wire protocol, signing, retries and errors are the
blocking client's (:mod:`.protocol`); only the transport differs.  The standard library's asyncio streams are
all it needs: aiohttp or httpx would add a dependency and, per call, more CPU than the request itself.

Credentials that need refreshing (SSO, IMDS, assumed roles) are refreshed by botocore's blocking code, once per
expiry, on the event loop.
"""

from __future__ import annotations

import asyncio
import ssl
from typing import Any

from .embedded import _Meta, _snake
from .http import LeanClient
from .protocol import HttpResponse, Prepared, Protocol, body_length, parse_head, resolve

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
        parts = []
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


class AsyncLeanClient:
    """``boto3.client("dynamodb")``'s methods as coroutines, for AWS or any endpoint."""

    def __init__(
        self,
        endpoint_url: str | None = None,
        region: str | None = None,
        *,
        service: str = "dynamodb",
        max_pool_connections: int = 64,
        connect_timeout: float = 60.0,
        read_timeout: float = 60.0,
        **credentials: Any,
    ) -> None:
        creds, region, url, max_attempts = resolve(endpoint_url, region, **credentials)
        self._service = service
        self._credentials = credentials
        self._options = {"connect_timeout": connect_timeout, "read_timeout": read_timeout}
        self.protocol = Protocol(service, url, region, creds, max_attempts)
        self.meta = _Meta(service, region)
        self.meta.endpoint_url = url
        self.exceptions = self.protocol.exceptions
        self._operations = {_snake(name): name for name in self.meta.service_model.operation_names}
        self._idle: list[_Stream] = []
        self._max = max_pool_connections
        self._slots: asyncio.Semaphore | None = None
        self._ssl = ssl.create_default_context() if self.protocol.tls else None

    def sync_client(self) -> LeanClient:
        """A blocking lean client for the same endpoint, region and credentials (for code that blocks)."""
        return LeanClient(self.meta.endpoint_url, self.meta.region_name, service=self._service,
                          **self._options, **self._credentials)  # fmt: skip

    def streams(self) -> AsyncLeanClient:
        """The ``dynamodbstreams`` client for the same endpoint, region and credentials."""
        return AsyncLeanClient(self.meta.endpoint_url, self.meta.region_name, service="dynamodbstreams",
                               max_pool_connections=self._max, **self._options, **self._credentials)  # fmt: skip

    def __getattr__(self, attr: str) -> Any:
        operation = self.__dict__.get("_operations", {}).get(attr)
        if operation is None:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{attr}'")
        prepare, send = self.protocol.prepare, self._send

        async def call(**kwargs: Any) -> dict:
            return await send(prepare(operation, kwargs))

        call.__name__ = attr
        call.__doc__ = f"DynamoDB {operation} (see boto3's documentation), awaitable."
        setattr(self, attr, call)
        return call

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self._operations))

    async def _send(self, prepared: Prepared) -> dict:
        protocol = self.protocol
        attempt = 1
        while True:
            try:
                response = await self._exchange(protocol.request_bytes(prepared))
            except (OSError, EOFError, asyncio.LimitOverrunError) as error:
                failure = protocol.connection_error(
                    error if isinstance(error, OSError) else EOFError(str(error))
                )
                if not protocol.should_retry(prepared.operation, attempt, caught=failure):
                    raise failure from error
            else:
                result, retry = protocol.outcome(prepared, response, attempt)
                if not isinstance(result, Exception):
                    return result
                if not retry:
                    raise result
            await asyncio.sleep(protocol.delay(attempt))
            attempt += 1

    async def _exchange(self, data: bytes) -> HttpResponse:
        if self._slots is None:
            self._slots = asyncio.Semaphore(self._max)
        async with self._slots:
            stream = self._idle.pop() if self._idle else None
            if stream is not None:
                try:
                    response, keep = await self._timed(stream, data)
                except (ConnectionResetError, BrokenPipeError, asyncio.IncompleteReadError):
                    stream.close()  # closed by the server while idle: open a fresh one
                    stream = None
            if stream is None:
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection(
                        self.protocol.host, self.protocol.port, ssl=self._ssl, limit=_MAX_HEAD
                    ),
                    self._options["connect_timeout"],
                )
                stream = _Stream(reader, writer)
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

    async def _timed(self, stream: _Stream, data: bytes) -> tuple[HttpResponse, bool]:
        """The exchange, the connection aborted if no response arrives within the read timeout."""
        expired: list[bool] = []

        def abort() -> None:
            expired.append(True)
            stream.writer.transport.abort()

        timer = asyncio.get_running_loop().call_later(self._options["read_timeout"], abort)
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
