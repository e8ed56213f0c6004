"""Serving the console on its own (``dynabase ui``): the standard library's threading HTTP server.

``start(app, host, port) -> ConsoleServer`` binds (port 0: a free one) and serves from a thread;
``build(client, ...)`` puts the console's parts together for a client.
"""

from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from .api import ConsoleAPI
from .app import ConsoleApp

MAX_BODY = 16 * 1024 * 1024


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


class _Handler(BaseHTTPRequestHandler):
    server_version = "dynabase-console"
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # head and body are two writes: without this, 40 ms delayed-ACK stalls

    def _dispatch(self) -> None:
        app: ConsoleApp = self.server.console  # type: ignore[attr-defined]
        length_text = self.headers.get("Content-Length") or "0"
        if not length_text.isdigit() or int(length_text) > MAX_BODY:
            self.send_error(413 if length_text.isdigit() else 400)
            return
        body = self.rfile.read(int(length_text)) if int(length_text) else b""
        headers = {name.lower(): value for name, value in self.headers.items()}
        reply = app.handle(self.command, self.path, headers, body)
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.content_type)
        self.send_header("Content-Length", str(len(reply.body)))
        for name, value in reply.headers:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(reply.body)

    do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _dispatch

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        if getattr(self.server, "verbose", False):
            super().log_message(format, *args)


class _Server(ThreadingHTTPServer):
    daemon_threads = True


class _Server6(_Server):
    address_family = socket.AF_INET6


class ConsoleServer:
    """The console on ``host:port`` served from a daemon thread; :meth:`stop` ends it."""

    def __init__(
        self, app: ConsoleApp, host: str = "127.0.0.1", port: int = 0, verbose: bool = False
    ) -> None:
        family_host = host.strip("[]")
        self.httpd = (_Server6 if ":" in family_host else _Server)((family_host, port), _Handler)
        self.httpd.console = app  # type: ignore[attr-defined]
        self.httpd.verbose = verbose  # type: ignore[attr-defined]
        self.host = family_host
        self.port = self.httpd.server_address[1]
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
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="dynabase-console", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        if self._thread is not None:
            self._thread.join(5)
