"""A lean blocking DynamoDB client: boto3's low-level interface over DynamoDB's JSON protocol, at a fraction of
botocore's CPU per call.

``dynabase.endpoint(url, region=...)`` gives one; it works against AWS or any endpoint (``dynabase serve``,
DynamoDB Local).  Methods, parameters, responses, paginators, waiters and exceptions are boto3's; what it saves
is botocore's per-call request building and response parsing (see :mod:`.protocol`).  Connections are plain
sockets (TLS for https) kept in a small thread-safe pool: several threads may share a client.  HTTP proxies
(``proxies=`` or ``HTTPS_PROXY``/``HTTP_PROXY``/``NO_PROXY``) and CA bundles (``verify=``, ``AWS_CA_BUNDLE``) are
botocore's options (see :mod:`.transport`).
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

from .protocol import HttpResponse, LeanBase, Prepared, body_length, parse_head
from .transport import Route, open_tunnel


class _Connection:
    """One keep-alive HTTP/1.1 connection."""

    def __init__(self, route: Route, connect_timeout: float, read_timeout: float) -> None:
        if route.tunnel:
            sock = open_tunnel(route, connect_timeout)
        else:
            sock = socket.create_connection((route.host, route.port), timeout=connect_timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if route.tls is not None:
            try:
                sock = route.tls.wrap_socket(sock, server_hostname=route.server_hostname)
            except BaseException:
                sock.close()
                raise
        sock.settimeout(read_timeout)
        self.sock = sock
        self.rfile = sock.makefile("rb")
        self.used = False

    def exchange(self, data: bytes) -> tuple[HttpResponse, bool]:
        """Send a request, read its response: (response, whether the connection may be reused)."""
        self.sock.sendall(data)
        rfile = self.rfile
        head = rfile.readline(65537)
        if not head:
            raise ConnectionResetError("the connection was closed before a response")
        while True:
            line = rfile.readline(65537)
            if not line:
                raise ConnectionResetError("the connection was closed in the response headers")
            if line == b"\r\n":
                break
            head += line
        status, headers = parse_head(head.rstrip(b"\r\n"))
        length = body_length(headers)
        body = self._read_chunked() if length is None else rfile.read(length)
        if length is not None and len(body) < length:
            raise ConnectionResetError("the connection was closed in the response body")
        return HttpResponse(status, headers, body), headers.get("connection", "").lower() != "close"

    def _read_chunked(self) -> bytes:
        parts: list[bytes] = []
        while True:
            size_line = self.rfile.readline(1026)
            if not size_line:
                raise ConnectionResetError("the connection was closed in a chunked body")
            size = int(size_line.split(b";")[0].strip(), 16)
            if size == 0:
                while self.rfile.readline(65537) not in (b"\r\n", b""):
                    pass
                return b"".join(parts)
            parts.append(self.rfile.read(size))
            self.rfile.readline(3)

    def close(self) -> None:
        try:
            self.rfile.close()
            self.sock.close()
        except OSError:
            pass


class LeanClient(LeanBase):
    """``boto3.client("dynamodb")``'s interface for an HTTP endpoint, with the least client CPU per call."""

    default_pool_connections = 10

    def _open_pool(self) -> None:
        self._idle: list[_Connection] = []
        self._lock = threading.Lock()

    def streams(self) -> LeanClient:
        """The ``dynamodbstreams`` client for the same endpoint, region and credentials."""
        return self._twin(LeanClient, "dynamodbstreams")

    def _method(self, operation: str) -> Any:
        prepare, send = self.protocol.prepare, self._send

        def call(**kwargs: Any) -> dict[str, Any]:
            return send(prepare(operation, kwargs))

        return call

    def _send(self, prepared: Prepared) -> dict[str, Any]:
        protocol, attempt = self.protocol, 1
        while True:
            try:
                result = protocol.settle(prepared, attempt, self._exchange(protocol.request_bytes(prepared)))
            except OSError as error:
                result = protocol.settle(prepared, attempt, error=error)
            if isinstance(result, dict):
                return result
            time.sleep(result)
            attempt += 1

    def _exchange(self, data: bytes) -> HttpResponse:
        """One request on a pooled connection; a pooled one the server had closed is replaced once."""
        with self._lock:
            connection = self._idle.pop() if self._idle else None
        if connection is not None:
            try:
                response, keep = connection.exchange(data)
            except (ConnectionResetError, BrokenPipeError, ConnectionAbortedError):
                connection.close()  # closed while idle: the request never reached the server's handler
                connection = None
        if connection is None:
            connection = _Connection(self.route, *self._timeouts)
            try:
                response, keep = connection.exchange(data)
            except BaseException:
                connection.close()
                raise
        with self._lock:
            if keep and len(self._idle) < self._max_pool:
                self._idle.append(connection)
                connection = None
        if connection is not None:
            connection.close()
        return response

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()

    def __enter__(self) -> LeanClient:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def endpoint(url: str | None = None, region: str | None = None, **options: Any) -> LeanClient:
    """A lean client for DynamoDB at ``url`` (None: AWS in ``region``); credentials from botocore's chain
    unless ``aws_access_key_id``/``aws_secret_access_key``/``aws_session_token`` or ``profile`` are given;
    ``max_attempts`` (total, default botocore's config or 3), ``max_pool_connections``, timeouts;
    ``proxies`` (``{"http": url, "https": url}``; default the ``*_PROXY`` environment) and ``verify`` (False, or
    a CA bundle path; default ``AWS_CA_BUNDLE``/the profile's ``ca_bundle``, else the system's store)."""
    return LeanClient(url, region, **options)


__all__ = ["LeanClient", "endpoint"]
