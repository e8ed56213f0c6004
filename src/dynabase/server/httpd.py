"""A small HTTP/1.1 server for the DynamoDB protocol: a thread per connection, keep-alive, graceful stop.

Why not ``http.server``: its header parsing (``email.parser``) and per-request object churn cost more than the
engine's own work on a GetItem; this parser handles exactly what AWS SDKs send (``Content-Length`` or chunked
bodies, ``Expect: 100-continue``, pipelining, HTTP/1.0) in a few string operations. Why threads and not asyncio:
SDK clients hold a handful of keep-alive connections and the engine call is blocking (one SQLite connection
behind a lock), so a blocking ``recv``/``sendall`` loop per connection is the shortest path; the accept loop is
the only place that waits on a selector.

Limits: request bodies over 16 MiB get a 413 (as DynamoDB), header blocks over 64 KiB a 431, ambiguous framing
(Content-Length with Transfer-Encoding, repeated Content-Length, bare CR/LF) a 400. A request must arrive whole
within ``request_timeout`` of needing a second read (trickling bytes does not extend it: 408); a connection idle
between requests is closed after ``idle_timeout``. At most ``max_connections`` are served at once; at the cap
the longest-idle connection is closed to admit a new one, else the one waiting longest on its client inside a
request; a 503 only when every connection is inside the engine. Request bodies in flight share one memory
budget (``max_body_memory``, :mod:`.budget`): a body over what is left is answered 503 with ``Retry-After``.
A body is read into one buffer of its declared length (no chunks joined, no copy sliced off it). Limits that
bite are logged.
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
from .budget import DEFAULT_BODY_MEMORY_MIB, FREE_BYTES, BodyBudget, parsed_size
from .options import DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_CONNECTIONS, DEFAULT_REQUEST_TIMEOUT

MAX_HEADER_BYTES = 64 * 1024
_RECV = 256 * 1024
_RECV_INTO = 4 * 1024 * 1024  # the most one recv_into asks for
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


class _Timeout(Exception):
    """The request did not arrive whole within ``request_timeout``."""


class _Closed(Exception):
    """The client closed the connection inside a request."""


# where a connection is: at the cap, an idle one is closed first, then one waiting on its client (reading a
# request or writing an answer), the one waiting longest; one inside the engine never
_IDLE, _READING, _BUSY, _WRITING = range(4)
_PHASES = ("idle", "reading a request", "busy", "writing an answer")


class _Connection:
    __slots__ = ("sock", "client", "phase", "since", "evicted", "thread", "held", "parsing")

    def __init__(self, sock: socket.socket, client: str) -> None:
        self.sock = sock
        self.client = client
        self.phase = _IDLE
        self.since = time.monotonic()
        self.evicted = False
        self.thread: threading.Thread | None = None
        self.held = 0  # bytes of the body budget this connection's request holds
        self.parsing = 0  # bytes of the parsing budget it holds


class _Reader:
    """Reads the rest of one request from a connection by a deadline set when the request first needs more
    than what has arrived (trickled bytes cannot extend it)."""

    __slots__ = ("conn", "state", "timeout", "deadline")

    def __init__(self, conn: socket.socket, state: _Connection, timeout: float) -> None:
        self.conn = conn
        self.state = state
        self.timeout = timeout
        self.deadline = 0.0

    def _start(self) -> None:
        if not self.deadline:
            now = time.monotonic()
            self.deadline = now + self.timeout
            self.state.phase = _READING
            self.state.since = now

    def recv(self, size: int) -> bytes:
        chunk: bytes = self._read(self.conn.recv, size)
        return chunk

    def recv_into(self, view: memoryview) -> int:
        """Fill (part of) ``view`` from the socket; how many bytes arrived."""
        count: int = self._read(self.conn.recv_into, view)
        return count

    def _read(self, read: Any, into: Any) -> Any:
        """One socket read within the request's deadline: ``_Timeout`` past it, ``_Closed`` when the peer is
        gone (an empty read)."""
        self._start()
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise _Timeout()
        self.conn.settimeout(remaining)
        try:
            got = read(into)
        except TimeoutError:
            raise _Timeout() from None
        if not got:
            raise _Closed()
        return got


def listen(host: str, port: int, backlog: int = 512) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: a free one); OSError when the port is taken."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return socket.create_server((host, port), family=family, backlog=backlog)


def _url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def url_of(sock: socket.socket) -> str:
    """The URL a listening socket answers on."""
    host, port = sock.getsockname()[:2]
    return _url(host, port)


class HTTPServer:
    """Serves ``app`` on ``host:port`` (port 0: a free one; see :attr:`port`), or on ``sock``, a socket
    :func:`listen` made already (so a caller can claim the port before it opens what the app needs)."""

    def __init__(
        self,
        app: DynamoDBApp,
        host: str = "127.0.0.1",
        port: int = 8000,
        *,
        max_body: int = MAX_REQUEST_BYTES,
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
        request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
        max_body_memory: int = DEFAULT_BODY_MEMORY_MIB * 1024 * 1024,
        backlog: int = 512,
        sock: socket.socket | None = None,
    ) -> None:
        self.app = app
        self.max_body = max_body
        self.idle_timeout = idle_timeout
        self.request_timeout = request_timeout
        self.max_connections = max_connections
        self.budget = BodyBudget(max_body_memory)
        self.parsing = BodyBudget(max_body_memory)
        self.sock = sock if sock is not None else listen(host, port, backlog)
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
        return _url(self.host, self.port)

    @property
    def stopping(self) -> bool:
        return self._stopping.is_set()

    def in_flight(self) -> int:
        with self._lock:
            return sum(1 for c in self._connections.values() if c.phase != _IDLE)

    def connection_count(self) -> int:
        with self._lock:
            return len(self._connections)

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
            state = _Connection(conn, _client_name(address))
            with self._lock:
                victim = None
                if len(self._connections) >= self.max_connections:
                    victim = self._victim()
                    if victim is not None:
                        del self._connections[id(victim)]
                        victim.evicted = True
                admitted = victim is not None or len(self._connections) < self.max_connections
                if admitted:
                    self._connections[id(state)] = state
            if victim is not None:
                self._make_room(victim, state.client)
            if not admitted:
                self._refuse(conn, state.client)
                continue
            thread = threading.Thread(
                target=self._serve_connection, args=(state,), name="dynabase-conn", daemon=True
            )
            state.thread = thread
            thread.start()

    def _victim(self) -> _Connection | None:
        """The connection to close for a new one (the lock held): the longest idle, else the one waiting
        longest on its client inside a request; None when every connection is inside the engine."""
        idle = stalled = None
        for state in self._connections.values():
            if state.phase == _IDLE:
                if idle is None or state.since < idle.since:
                    idle = state
            elif state.phase != _BUSY and (stalled is None or state.since < stalled.since):
                stalled = state
        return idle or stalled

    def _make_room(self, victim: _Connection, newcomer: str) -> None:
        waited = time.monotonic() - victim.since
        self.app.log.event(
            f"connection cap ({self.max_connections}, --max-connections) reached: closed {victim.client}'s "
            f"connection ({_PHASES[victim.phase]} for {waited:.1f}s) to serve {newcomer}"
        )
        # an idle connection's thread still answers a request that arrived meanwhile (only reading is shut);
        # one stalled on its client is cut both ways (a blocked send must fail too)
        how = socket.SHUT_RD if victim.phase == _IDLE else socket.SHUT_RDWR
        with contextlib.suppress(OSError):
            victim.sock.shutdown(how)

    def _refuse(self, conn: socket.socket, client: str) -> None:
        body = (
            b'{"__type":"com.amazonaws.dynamodb.v20120810#ThrottlingException",'
            b'"Message":"Too many open connections"}'
        )
        rid = self.app.request_id()
        self.app.log.request(
            "-", "-", 503, 0.0, client, rid,
            f"all {self.max_connections} connections (--max-connections) are busy inside requests",
        )  # fmt: skip
        with contextlib.suppress(OSError):
            conn.settimeout(1.0)
            conn.sendall(self._head(503, body, rid, "application/x-amz-json-1.0", None, True) + body)
        conn.close()

    # -- one connection ----------------------------------------------------------------------------------------

    def _serve_connection(self, state: _Connection) -> None:
        conn = state.sock
        try:
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            pass
        try:
            self._connection_loop(state, conn)
        except (OSError, _BadRequest, _Closed):
            pass
        except Exception as error:  # a bug here must not kill the server
            self.app.log.error(f"connection {state.client}: {error!r}")
        finally:
            self._release(state)
            with self._lock:
                self._connections.pop(id(state), None)
            with contextlib.suppress(OSError):
                conn.close()

    def _connection_loop(self, state: _Connection, conn: socket.socket) -> None:
        buf = b""
        idle_timeout = self.idle_timeout
        conn.settimeout(idle_timeout)
        reader = _Reader(conn, state, self.request_timeout)
        app = self.app
        while True:
            # -- wait for a request (most arrive whole in one read: then no deadline is needed)
            if not buf:
                if state.evicted or self._stopping.is_set():
                    return
                state.phase = _IDLE
                try:
                    buf = conn.recv(_RECV)
                except TimeoutError:
                    app.log.event(
                        f"closed {state.client}'s keep-alive connection: idle {idle_timeout:g}s "
                        "(--idle-timeout)",
                        "info",
                        verbose=True,
                    )
                    return
                if not buf:
                    return
            try:
                method, target, headers, keep_alive, body, buf = self._read_request(reader, buf)
            except _Timeout:
                self._send_error(conn, 408, f"The request did not arrive within {self.request_timeout:g}s")
                app.log.event(
                    f"request timeout ({self.request_timeout:g}s, --request-timeout): closed {state.client}'s "
                    "connection inside a request"
                )
                return
            except _TooLarge as error:
                self._reply(conn, app.too_large(error.length), "POST", False)
                self._drain_and_close(conn)
                return
            except _OverBudget as error:
                self._refuse_body(conn, state, f"a {error.size}-byte body", self.budget)
                return
            except _BadRequest as error:
                self._send_error(conn, error.status, str(error))
                return
            if reader.deadline:  # the request took more than one read: back to the idle timeout
                reader.deadline = 0.0
                conn.settimeout(idle_timeout)
            # -- answer
            state.phase = _BUSY
            if len(body) > FREE_BYTES:  # what parsing it costs, once that fits (see .budget)
                cost = parsed_size(body)
                if not self.parsing.take(cost, self.request_timeout):
                    what = f"parsing a {len(body)}-byte body (~{cost} bytes)"
                    self._refuse_body(conn, state, what, self.parsing)
                    return
                state.parsing = cost
            response = app.handle(method, target, headers, body, state.client)
            if self._stopping.is_set() or state.evicted:
                keep_alive = False
            state.since = time.monotonic()
            state.phase = _WRITING
            self._reply(conn, response, method, keep_alive)
            del body, response  # before the budget is released: an idle connection holds neither
            self._release(state)
            if not keep_alive:
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_WR)
                return

    def _charge(self, state: _Connection, total: int) -> None:
        """Hold ``total`` bytes of the body budget for ``state``'s request (more than it holds already);
        :class:`_OverBudget` when they do not fit. Small bodies are free (:data:`.budget.FREE_BYTES`)."""
        if total > FREE_BYTES and total > state.held:
            if not self.budget.take(total - state.held):
                raise _OverBudget(total)
            state.held = total

    def _release(self, state: _Connection) -> None:
        if state.held:
            self.budget.give(state.held)
            state.held = 0
        if state.parsing:
            self.parsing.give(state.parsing)
            state.parsing = 0

    def _refuse_body(self, conn: socket.socket, state: _Connection, what: str, budget: BodyBudget) -> None:
        """503 with Retry-After when ``what`` does not fit ``budget``, then close (a body may be unread)."""
        body = (
            b'{"__type":"com.amazonaws.dynamodb.v20120810#ThrottlingException",'
            b'"Message":"Too many large requests in flight; retry later"}'
        )
        rid = self.app.request_id()
        self.app.log.request(
            "-", "-", 503, 0.0, state.client, rid,
            f"{what} does not fit the memory for bodies in flight ({budget.used} of {budget.limit} bytes, "
            "--max-body-memory)",
        )  # fmt: skip
        with contextlib.suppress(OSError):
            conn.settimeout(1.0)
            conn.sendall(
                self._head(503, body, rid, "application/x-amz-json-1.0", [("Retry-After", "1")], True) + body
            )
        self._drain_and_close(conn)

    def _read_request(
        self, reader: _Reader, buf: bytes
    ) -> tuple[str, str, dict[str, str], bool, bytes | bytearray, bytes]:
        """One request from ``buf`` and then the socket: (method, target, headers, keep-alive, body, what
        follows it)."""
        end = buf.find(b"\r\n\r\n")
        while end < 0:
            if len(buf) > MAX_HEADER_BYTES:
                raise _BadRequest(431, "Request header block too large")
            chunk = reader.recv(_RECV)
            buf += chunk
            end = buf.find(b"\r\n\r\n", max(0, len(buf) - len(chunk) - 3))
        if end > MAX_HEADER_BYTES:
            raise _BadRequest(431, "Request header block too large")
        method, target, version, headers = _parse_head(buf[:end])
        buf = buf[end + 4 :]
        chunked, length = _framing(version, headers)
        expect_continue = "expect" in headers and headers["expect"].lower() == "100-continue"
        body: bytes | bytearray
        if chunked:
            body, buf = self._read_chunked(reader, buf, expect_continue)
        else:
            if length > self.max_body:
                raise _TooLarge(length)
            self._charge(reader.state, length)
            if expect_continue and len(buf) < length:
                reader.conn.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
            body, buf = _read_exactly(reader, buf, length)
        return method, target, headers, _keep_alive(version, headers), body, buf

    def _read_chunked(self, reader: _Reader, buf: bytes, expect_continue: bool) -> tuple[bytearray, bytes]:
        body = bytearray()
        total = 0
        while True:
            end = buf.find(b"\r\n")
            while end < 0:
                if len(buf) > 1024:
                    raise _BadRequest(400, "Invalid chunk header")
                if expect_continue:
                    reader.conn.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
                    expect_continue = False
                buf += reader.recv(_RECV)
                end = buf.find(b"\r\n")
            size_text, semicolon, _ = buf[:end].partition(b";")  # chunk extensions are ignored
            if semicolon:
                size_text = size_text.rstrip(b" \t")
            if not 0 < len(size_text) <= 16 or size_text.strip(_HEX_DIGITS):
                raise _BadRequest(400, "Invalid chunk size")
            size = int(size_text, 16)
            buf = buf[end + 2 :]
            if size == 0:
                # trailers, up to the blank line
                while True:
                    end = buf.find(b"\r\n")
                    while end < 0:
                        if len(buf) > MAX_HEADER_BYTES:
                            raise _BadRequest(431, "Trailers too large")
                        buf += reader.recv(_RECV)
                        end = buf.find(b"\r\n")
                    line, buf = buf[:end], buf[end + 2 :]
                    if not line:
                        return body, buf
            total += size
            if total > self.max_body:
                raise _TooLarge(None)
            self._charge(reader.state, total)
            data, buf = _read_exactly(reader, buf, size + 2)
            if data[size:] != b"\r\n":
                raise _BadRequest(400, "Invalid chunk: no CRLF after its data")
            body += memoryview(data)[:size]

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
            conn.settimeout(1.0)
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
                if (
                    state.phase == _IDLE
                ):  # waiting for a next request that will not come: wake its recv with EOF
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


class _OverBudget(Exception):
    """The body does not fit the memory left for bodies in flight."""

    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.size = size


class _TooLarge(Exception):
    def __init__(self, length: int | None) -> None:
        super().__init__(length)
        self.length = length


_HEX_DIGITS = b"0123456789abcdefABCDEF"


def _client_name(address: Any) -> str:
    return f"{address[0]}:{address[1]}" if isinstance(address, tuple) else str(address)


def _read_exactly(reader: _Reader, buf: bytes, length: int) -> tuple[bytes | bytearray, bytes]:
    """``length`` bytes (``buf`` first, then the socket) and what ``buf`` held past them. What ``buf`` lacks
    is received straight into one buffer of ``length`` bytes: never past ``length`` (the next request stays
    in the socket), never a chunk list joined and sliced (three whole copies of a 16 MiB body)."""
    if len(buf) >= length:
        return buf[:length], buf[length:]
    body = bytearray(length)
    have = len(buf)
    body[:have] = buf
    with memoryview(body) as view:
        while have < length:
            have += reader.recv_into(view[have : min(length, have + _RECV_INTO)])
    return body, b""


def _framing(version: str, headers: dict[str, str]) -> tuple[bool, int]:
    """(chunked, content length) of a request body; ambiguous framing is refused (RFC 9112 section 6): both
    Content-Length and Transfer-Encoding, repeated or malformed Content-Length, codings other than chunked."""
    coding = headers.get("transfer-encoding")
    length = headers.get("content-length")
    if coding is None:
        if length is None:
            return False, 0
        # one header of ASCII digits only (a repeated one was joined with ","; int() would take "+1", "1_0")
        if not (length.isdigit() and length.isascii() and len(length) <= 18):
            raise _BadRequest(400, "Invalid Content-Length")
        return False, int(length)
    if length is not None:
        raise _BadRequest(400, "A request must not have both Content-Length and Transfer-Encoding")
    if version == "HTTP/1.0":
        raise _BadRequest(400, "Transfer-Encoding is not allowed in an HTTP/1.0 request")
    codings = [part.strip().lower() for part in coding.split(",")]
    if codings == ["chunked"]:
        return True, 0
    unknown = [part for part in codings if part != "chunked"]
    if unknown:
        raise _BadRequest(501, f"Unsupported Transfer-Encoding: {coding}")
    raise _BadRequest(400, f"Invalid Transfer-Encoding: {coding}")


def _parse_head(head: bytes) -> tuple[str, str, str, dict[str, str]]:
    text = head.decode("latin-1")
    lines = text.split("\r\n")
    # a bare CR or LF, or a NUL, is read differently by different parsers: refused (RFC 9112 section 2.2)
    if text.count("\n") != len(lines) - 1 or text.count("\r") != len(lines) - 1 or "\x00" in text:
        raise _BadRequest(400, "Malformed request head: bare CR or LF, or NUL")
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
    if "host" in headers and "," in headers["host"]:
        raise _BadRequest(400, "More than one Host header")
    return method, target, version, headers


def _keep_alive(version: str, headers: dict[str, str]) -> bool:
    connection = headers.get("connection", "").lower()
    if version == "HTTP/1.0":
        return "keep-alive" in connection
    return "close" not in connection
