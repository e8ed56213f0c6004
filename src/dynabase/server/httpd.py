"""A small HTTP/1.1 server for the DynamoDB protocol: a thread per connection, keep-alive, graceful stop.

Why not ``http.server``: its header parsing (``email.parser``) and per-request object churn cost more than the
engine's own work on a GetItem; this parser handles exactly what AWS SDKs send (``Content-Length`` or chunked
bodies, ``Expect: 100-continue``, pipelining, HTTP/1.0) in a few string operations. Why threads and not asyncio:
SDK clients hold a handful of keep-alive connections and the engine call is blocking (one SQLite connection
behind a lock), so a blocking ``recv``/``sendall`` loop per connection is the shortest path; the accept loop is
the only place that waits on a selector.

Limits: request bodies over 16 MiB get a 413 (as DynamoDB), header blocks over 64 KiB a 431, at most
``max_connections`` connections are served at once (more get a 503 and are closed), a connection idle between
requests is closed after ``idle_timeout`` seconds and one stalled inside a request after ``request_timeout``.
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading
import time
import zlib
from typing import Any

from .app import MAX_REQUEST_BYTES, DynamoDBApp

MAX_HEADER_BYTES = 64 * 1024
_RECV = 256 * 1024
_REASONS = {
    200: "OK",
    303: "See Other",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    408: "Request Timeout",
    411: "Length Required",
    413: "Payload Too Large",
    431: "Request Header Fields Too Large",
    500: "Internal Server Error",
    501: "Not Implemented",
    503: "Service Unavailable",
    505: "HTTP Version Not Supported",
}
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


class _Dates:
    """The ``Date`` header value, formatted once a second."""

    def __init__(self) -> None:
        self._second = -1
        self._value = ""

    def now(self) -> str:
        second = int(time.time())
        if second != self._second:
            t = time.gmtime(second)
            self._value = (
                f"{_DAYS[t.tm_wday]}, {t.tm_mday:02d} {_MONTHS[t.tm_mon - 1]} {t.tm_year} "
                f"{t.tm_hour:02d}:{t.tm_min:02d}:{t.tm_sec:02d} GMT"
            )
            self._second = second
        return self._value


class _BadRequest(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class _Connection:
    __slots__ = ("sock", "idle", "thread")

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.idle = True
        self.thread: threading.Thread | None = None


class HTTPServer:
    """Serves ``app`` on ``host:port`` (port 0: a free one; see :attr:`port`)."""

    def __init__(
        self,
        app: DynamoDBApp,
        host: str = "127.0.0.1",
        port: int = 8000,
        *,
        max_body: int = MAX_REQUEST_BYTES,
        idle_timeout: float = 300.0,
        request_timeout: float = 60.0,
        max_connections: int = 512,
        backlog: int = 512,
    ) -> None:
        self.app = app
        self.max_body = max_body
        self.idle_timeout = idle_timeout
        self.request_timeout = request_timeout
        self.max_connections = max_connections
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.sock = socket.create_server((host, port), family=family, backlog=backlog)
        self.sock.setblocking(False)
        self.host, self.port = self.sock.getsockname()[:2]
        self._connections: dict[int, _Connection] = {}
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._stopped = threading.Event()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._dates = _Dates()
        self._serving = False

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def stopping(self) -> bool:
        return self._stopping.is_set()

    def in_flight(self) -> int:
        with self._lock:
            return sum(1 for c in self._connections.values() if not c.idle)

    # -- accept loop -------------------------------------------------------------------------------------------

    def serve_forever(self) -> None:
        """Accept connections until :meth:`stop` (or :meth:`request_stop`) is called."""
        self._serving = True
        selector = selectors.DefaultSelector()
        selector.register(self.sock, selectors.EVENT_READ)
        selector.register(self._wake_r, selectors.EVENT_READ)
        try:
            while not self._stopping.is_set():
                for key, _ in selector.select():
                    if key.fileobj is self._wake_r:
                        with contextlib.suppress(OSError):
                            self._wake_r.recv(4096)
                        continue
                    self._accept()
        finally:
            selector.close()
            with contextlib.suppress(OSError):
                self.sock.close()
            self._serving = False
            self._stopped.set()

    def _accept(self) -> None:
        for _ in range(64):  # drain the backlog a little at a time
            try:
                conn, address = self.sock.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:  # out of descriptors, or the socket was closed: back off
                time.sleep(0.01)
                return
            if self._stopping.is_set():
                conn.close()
                return
            conn.setblocking(True)
            with self._lock:
                crowded = len(self._connections) >= self.max_connections
            if crowded:
                self._refuse(conn)
                continue
            state = _Connection(conn)
            thread = threading.Thread(
                target=self._serve_connection, args=(state, address), name="dynabase-conn", daemon=True
            )
            state.thread = thread
            with self._lock:
                self._connections[id(state)] = state
            thread.start()

    def _refuse(self, conn: socket.socket) -> None:
        body = (
            b'{"__type":"com.amazonaws.dynamodb.v20120810#ThrottlingException",'
            b'"Message":"Too many open connections"}'
        )
        with contextlib.suppress(OSError):
            conn.settimeout(1.0)
            conn.sendall(
                self._head(503, body, self.app.request_id(), "application/x-amz-json-1.0", None, True) + body
            )
        conn.close()

    # -- one connection ----------------------------------------------------------------------------------------

    def _serve_connection(self, state: _Connection, address: Any) -> None:
        conn = state.sock
        client = f"{address[0]}:{address[1]}" if isinstance(address, tuple) else str(address)
        try:
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            pass
        try:
            self._connection_loop(state, conn, client)
        except (OSError, _BadRequest):
            pass
        except Exception as error:  # a bug here must not kill the server
            self.app.log.error(f"connection {client}: {error!r}")
        finally:
            with self._lock:
                self._connections.pop(id(state), None)
            with contextlib.suppress(OSError):
                conn.close()

    def _connection_loop(self, state: _Connection, conn: socket.socket, client: str) -> None:
        buf = b""
        recv = conn.recv
        idle_timeout = self.idle_timeout
        conn.settimeout(idle_timeout)
        app = self.app
        while True:
            # -- the request head; the idle timeout applies until its first bytes, the request timeout after
            # (switched only when a request needs more than one read: most arrive whole)
            state.idle = not buf
            if state.idle and self._stopping.is_set():
                return
            end = buf.find(b"\r\n\r\n")
            reads = 0
            while end < 0:
                if len(buf) > MAX_HEADER_BYTES:
                    self._send_error(conn, 431, "Request header block too large")
                    return
                if reads == 1:
                    conn.settimeout(self.request_timeout)
                try:
                    chunk = recv(_RECV)
                except TimeoutError:
                    if buf:
                        self._send_error(conn, 408, "Timed out reading the request")
                    return
                if not chunk:
                    return
                state.idle = False
                reads += 1
                buf += chunk
                end = buf.find(b"\r\n\r\n", max(0, len(buf) - len(chunk) - 3))
            state.idle = False
            if end > MAX_HEADER_BYTES:
                self._send_error(conn, 431, "Request header block too large")
                return
            head = buf[:end]
            buf = buf[end + 4 :]
            try:
                method, target, version, headers = _parse_head(head)
            except _BadRequest as error:
                self._send_error(conn, error.status, str(error))
                return
            keep_alive = _keep_alive(version, headers)
            # -- the body
            chunked = "chunked" in headers.get("transfer-encoding", "").lower()
            if chunked:
                try:
                    body, buf = self._read_chunked(conn, buf, headers)
                except _TooLarge:
                    self._reply(conn, app.too_large(), method, False)
                    self._drain_and_close(conn)
                    return
                except _BadRequest as error:
                    self._send_error(conn, error.status, str(error))
                    return
            else:
                length_text = headers.get("content-length")
                if length_text is None:
                    length = 0
                else:
                    if not length_text.isdigit():
                        self._send_error(conn, 400, "Invalid Content-Length")
                        return
                    length = int(length_text)
                if length > self.max_body:
                    self._reply(conn, app.too_large(length), method, False)
                    self._drain_and_close(conn)
                    return
                if length and headers.get("expect", "").lower() == "100-continue" and len(buf) < length:
                    conn.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
                if len(buf) >= length:
                    body = buf[:length]
                    buf = buf[length:]
                else:
                    if reads < 2:
                        conn.settimeout(self.request_timeout)
                        reads = 2
                    body, buf = _read_exactly(recv, buf, length)
            # -- answer
            response = app.handle(method, target, headers, body, client)
            if self._stopping.is_set():
                keep_alive = False
            self._reply(conn, response, method, keep_alive)
            if not keep_alive:
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_WR)
                return
            if reads > 1:
                conn.settimeout(idle_timeout)

    def _read_chunked(self, conn: socket.socket, buf: bytes, headers: dict[str, str]) -> tuple[bytes, bytes]:
        recv = conn.recv
        parts: list[bytes] = []
        total = 0
        expect_continue = headers.get("expect", "").lower() == "100-continue"
        while True:
            end = buf.find(b"\r\n")
            while end < 0:
                if len(buf) > 1024:
                    raise _BadRequest(400, "Invalid chunk header")
                if expect_continue:
                    conn.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
                    expect_continue = False
                chunk = recv(_RECV)
                if not chunk:
                    raise _BadRequest(400, "Connection closed inside a chunked body")
                buf += chunk
                end = buf.find(b"\r\n")
            size_text = buf[:end].split(b";", 1)[0].strip()
            try:
                size = int(size_text, 16)
            except ValueError:
                raise _BadRequest(400, "Invalid chunk size")
            buf = buf[end + 2 :]
            if size == 0:
                # trailers, up to the blank line
                while True:
                    end = buf.find(b"\r\n")
                    while end < 0:
                        chunk = recv(_RECV)
                        if not chunk:
                            raise _BadRequest(400, "Connection closed inside a chunked body")
                        buf += chunk
                        end = buf.find(b"\r\n")
                        if len(buf) > MAX_HEADER_BYTES:
                            raise _BadRequest(431, "Trailers too large")
                    line, buf = buf[:end], buf[end + 2 :]
                    if not line:
                        return b"".join(parts), buf
            total += size
            if total > self.max_body:
                raise _TooLarge()
            data, buf = _read_exactly(recv, buf, size + 2)
            parts.append(data[:size])

    # -- writing -----------------------------------------------------------------------------------------------

    def _head(
        self,
        status: int,
        body: bytes,
        request_id: str,
        content_type: str,
        extra: list[tuple[str, str]] | None,
        close: bool,
    ) -> bytes:
        head = (
            f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}\r\n"
            f"Server: dynabase\r\n"
            f"Date: {self._dates.now()}\r\n"
            f"x-amzn-RequestId: {request_id}\r\n"
            f"Content-Type: {content_type}\r\n"
            f"x-amz-crc32: {zlib.crc32(body)}\r\n"
            f"Content-Length: {len(body)}\r\n"
        )
        if extra:
            head += "".join(f"{name}: {value}\r\n" for name, value in extra)
        if close:
            head += "Connection: close\r\n"
        return (head + "\r\n").encode("latin-1")

    def _reply(self, conn: socket.socket, response: Any, method: str, keep_alive: bool) -> None:
        body = response.body
        head = self._head(
            response.status,
            body,
            response.request_id,
            response.content_type,
            response.headers,
            not keep_alive,
        )
        if method == "HEAD" or not body:
            conn.sendall(head)
        elif len(body) < 65536:
            conn.sendall(head + body)
        else:
            conn.sendall(head)
            conn.sendall(body)

    def _send_error(self, conn: socket.socket, status: int, message: str) -> None:
        """A transport-level refusal (the request could not be read): a JSON error, then close."""
        from .jsonio import dumps

        body = dumps({"__type": "com.amazon.coral.service#SerializationException", "Message": message})
        with contextlib.suppress(OSError):
            conn.sendall(
                self._head(status, body, self.app.request_id(), "application/x-amz-json-1.0", None, True)
                + body
            )
            conn.shutdown(socket.SHUT_WR)
        self.app.log.request("-", "-", status, 0.0, "-", "-", message)

    def _drain_and_close(
        self, conn: socket.socket, limit: int = 64 * 1024 * 1024, seconds: float = 5.0
    ) -> None:
        """After refusing a large body: read (and drop) what the client still sends, so it sees our answer
        instead of a connection reset."""
        with contextlib.suppress(OSError):
            conn.shutdown(socket.SHUT_WR)
        deadline = time.monotonic() + seconds
        seen = 0
        with contextlib.suppress(OSError):
            conn.settimeout(0.5)
            while seen < limit and time.monotonic() < deadline:
                try:
                    chunk = conn.recv(_RECV)
                except TimeoutError:
                    continue
                if not chunk:
                    break
                seen += len(chunk)

    # -- stopping ----------------------------------------------------------------------------------------------

    def request_stop(self) -> None:
        """Stop accepting (safe from a signal handler); :meth:`stop` does the rest."""
        self._stopping.set()
        with contextlib.suppress(OSError):
            self._wake_w.send(b"x")

    def stop(self, timeout: float = 30.0) -> int:
        """Graceful stop: no new connections, idle ones closed, in-flight requests answered (for at most
        ``timeout`` seconds). Returns how many connections had to be cut."""
        self.request_stop()
        if self._serving:
            self._stopped.wait(timeout)
        with contextlib.suppress(OSError):
            self.sock.close()
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                states = list(self._connections.values())
            if not states:
                break
            for state in states:
                if state.idle:  # waiting for a next request that will not come: wake its recv with EOF
                    with contextlib.suppress(OSError):
                        state.sock.shutdown(socket.SHUT_RD)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            for state in states:
                if state.thread is not None and state.thread is not threading.current_thread():
                    state.thread.join(min(0.05, max(0.0, deadline - time.monotonic())))
        with self._lock:
            leftover = list(self._connections.values())
        for state in leftover:
            with contextlib.suppress(OSError):
                state.sock.shutdown(socket.SHUT_RDWR)
        for sock in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                sock.close()
        return len(leftover)


class _TooLarge(Exception):
    pass


def _read_exactly(recv: Any, buf: bytes, length: int) -> tuple[bytes, bytes]:
    """``length`` bytes (``buf`` first, then the socket) and what was read past them."""
    parts = [buf]
    have = len(buf)
    while have < length:
        chunk = recv(min(max(length - have, 65536), 4 * 1024 * 1024))
        if not chunk:
            raise _BadRequest(400, "Connection closed inside the body")
        parts.append(chunk)
        have += len(chunk)
    data = b"".join(parts)
    return data[:length], data[length:]


def _parse_head(head: bytes) -> tuple[str, str, str, dict[str, str]]:
    lines = head.decode("latin-1").split("\r\n")
    while lines and not lines[0]:  # stray CRLFs between requests are allowed
        lines.pop(0)
    if not lines:
        raise _BadRequest(400, "Empty request")
    parts = lines[0].split(" ")
    if len(parts) != 3:
        raise _BadRequest(400, "Malformed request line")
    method, target, version = parts
    if not version.startswith("HTTP/1."):
        raise _BadRequest(505 if version.startswith("HTTP/") else 400, "Unsupported HTTP version")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if not sep or not name or name[-1] in " \t" or name[0] in " \t":
            raise _BadRequest(400, "Malformed header line")
        key = name.lower()
        if key in headers:
            headers[key] += "," + value.strip()
        else:
            headers[key] = value.strip()
    return method, target, version, headers


def _keep_alive(version: str, headers: dict[str, str]) -> bool:
    connection = headers.get("connection", "").lower()
    if version == "HTTP/1.0":
        return "keep-alive" in connection
    return "close" not in connection
