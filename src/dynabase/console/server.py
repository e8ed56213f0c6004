"""Serving the console on its own (``dynabase ui``): on ``dynabase serve``'s HTTP server and its limits.

``start(app, host, port) -> ConsoleServer`` binds (port 0: a free one) and serves from a thread;
``build(client, ...)`` puts the console's parts together for a client.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from pathlib import Path
from typing import Any

from ..server.app import MAX_REQUEST_BYTES, RequestLog, Response
from ..server.budget import DEFAULT_BODY_MEMORY_MIB
from ..server.httpd import HTTPServer
from ..server.options import DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_CONNECTIONS, DEFAULT_REQUEST_TIMEOUT
from .api import ConsoleAPI
from .app import ConsoleApp


def build(
    client: Any, *, target: str, read_only: bool = False, schema: str | Path | dict | None = None
) -> ConsoleApp:
    """The console for ``client`` (``target`` names it for people); ``schema``: a OneTable schema or its file."""
    entities = None
    if schema is not None:
        from .entities import Entities

        entities = Entities(client, schema)
    return ConsoleApp(ConsoleAPI(client, target=target, read_only=read_only, entities=entities))


def attach(server: Any, *, schema: str | Path | None = None) -> ConsoleApp:
    """``dynabase serve --ui``: the console on a :class:`dynabase.server.Server`'s own port and engine."""
    from ..client.embedded import EmbeddedClient

    if server.app.engine is None:
        raise ValueError("the console needs the shared database (it cannot be used with --per-key-db)")
    app = build(EmbeddedClient(server.app.engine), target=server.db, schema=schema)
    app.bind(server.http.host, server.http.port)
    app.guard.allowed_hosts = server.app.access.allowed_hosts  # serve's --allow-host
    server.app.console = app
    return app


class _HTTPApp:
    """The console as :class:`~dynabase.server.httpd.HTTPServer` serves an application: the same connection
    limits, timeouts and framing checks as ``dynabase serve``."""

    def __init__(self, console: ConsoleApp, log: RequestLog) -> None:
        self.console = console
        self.log = log
        self._ids = itertools.count(1)

    def request_id(self) -> str:
        return f"console-{next(self._ids):012x}"

    def too_large(self, length: int | None = None) -> Response:
        rid = self.request_id()
        self.log.request("-", "-", 413, 0.0, "-", rid, "request body too large")
        message = f"The request body is over {MAX_REQUEST_BYTES} bytes" + (f" ({length})" if length else "")
        body = json.dumps({"error": {"type": "TooLarge", "message": message}}).encode()
        return Response(413, body, rid, "application/json")

    def handle(
        self, method: str, target: str, headers: dict[str, str], body: bytes, client: str = "-"
    ) -> Response:
        start = time.perf_counter()
        reply = self.console.handle(method, target, headers, body)
        rid = self.request_id()
        ms = (time.perf_counter() - start) * 1000
        self.log.request(method, target.partition("?")[0], reply.status, ms, client, rid)
        return Response(reply.status, reply.body, rid, reply.content_type, reply.headers)


class ConsoleServer:
    """The console on ``host:port`` served from a daemon thread; :meth:`stop` ends it."""

    def __init__(
        self,
        app: ConsoleApp,
        host: str = "127.0.0.1",
        port: int = 0,
        verbose: bool = False,
        *,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
        request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
        max_body_memory: int = DEFAULT_BODY_MEMORY_MIB * 1024 * 1024,
    ) -> None:
        log = RequestLog(level=1 if verbose else 0)
        self.http = HTTPServer(
            _HTTPApp(app, log),  # type: ignore[arg-type]  # the interface HTTPServer uses of DynamoDBApp
            host.strip("[]"),
            port,
            max_connections=max_connections,
            idle_timeout=idle_timeout,
            request_timeout=request_timeout,
            max_body_memory=max_body_memory,
        )
        self.host = self.http.host
        self.port = self.http.port
        app.bind(self.host, self.port)
        self.app = app
        self._thread: threading.Thread | None = None

    @property
    def base(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def url(self) -> str:
        """The address to open, token included."""
        return self.app.url(self.base)

    def start(self) -> ConsoleServer:
        self._thread = threading.Thread(target=self.http.serve_forever, name="dynabase-console", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop accepting, close idle connections, give requests in flight ``timeout`` seconds."""
        self.http.stop(timeout)
        if self._thread is not None:
            self._thread.join(timeout)
