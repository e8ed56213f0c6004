"""The DynamoDB JSON 1.0 protocol over the engine: routing, authentication, conversion, errors, request log.

:class:`DynamoDBApp` is transport-free: ``handle(method, target, headers, body) -> Response``. The HTTP layer
(:mod:`.httpd`) feeds it parsed requests and writes its responses.

Answers to malformed requests, next to DynamoDB Local's (3.3) and the service's:

============================  ===============================  ================================  ================
request                       DynamoDB Local                   AWS DynamoDB                      dynabase
============================  ===============================  ================================  ================
no Authorization header       400 MissingAuthenticationToken   400 MissingAuthentication-        as Local (as the
                                                               TokenException                    service when
                                                                                                 verifying)
GET/HEAD ``/`` unsigned       400 MissingAuthenticationToken   200 ``healthy: dynamodb.<region>  as the service
                                                               .amazonaws.com `` (architect/
                                                               dynalite's tests, run against it)
GET/HEAD ``/healthz``         (as above)                       (as above)                        200 ``healthy``
GET, signed                   500 InternalFailure              404                               400 UnknownOp...
missing/garbled X-Amz-Target  500 InternalFailure              400 UnknownOperationException      400 UnknownOp...
unknown operation             400 UnknownOperationException    400 UnknownOperationException      same
DynamoDB_20111205 (v1) target 400 InvalidAction                                                  400 InvalidAction
empty body / malformed JSON   500 InternalFailure              400 SerializationException        400 Serializa...
/ JSON not an object
member of the wrong JSON      coerces, or 500                  400 SerializationException        400 Serializa...
type                                                           (the deserialiser's messages)     (same messages)
body over 16 MiB              413 ``{"Message":""}``           413                               413 + error body
============================  ===============================  ================================  ================

Before any of these, :mod:`.access` refuses (403 ``AccessDeniedException``) a ``Host`` name or an ``Origin``
the server does not answer without ``--credentials`` (DNS rebinding, other web pages).

With ``dynabase serve --ui``, paths under ``/console`` and a browser's ``GET /`` (``Accept: text/html``) go to
the web console (:mod:`dynabase.console`) instead; a health check's ``GET /`` keeps the answer above.
"""

from __future__ import annotations

import itertools
import os
import re
import sys
import threading
import time
import zlib
from collections.abc import Callable
from typing import Any, TextIO

from ..errors import DynamoDBError, SerializationException
from . import compression, jsonio
from .access import Access
from .shapes import Models
from .sigv4 import AuthError, Verifier, access_key_and_region

JSON_CONTENT_TYPE = "application/x-amz-json-1.0"
#: DynamoDB's limit on a request's size
MAX_REQUEST_BYTES = 16 * 1024 * 1024
_DDB = "com.amazonaws.dynamodb.v20120810#"
_INTERNAL_MESSAGE = "The request processing has failed because of an unknown error, exception or failure."
_UNKNOWN_OPERATION = "An unknown operation was requested."
#: dynabase's own refusal (a Host or Origin it does not answer): DynamoDB's access-denied type
_ACCESS_DENIED = "com.amazon.coral.service#AccessDeniedException"
_LOCAL_MISSING_TOKEN = (
    "Request must contain either a valid (registered) AWS access key ID or X.509 certificate."
)

EngineFactory = Callable[[str, str], Any]  # (access key, region) -> Engine


class Response:
    __slots__ = ("status", "body", "content_type", "request_id", "headers")

    def __init__(
        self,
        status: int,
        body: bytes,
        request_id: str,
        content_type: str = JSON_CONTENT_TYPE,
        headers: list[tuple[str, str]] | None = None,
    ) -> None:
        self.status = status
        self.body = body
        self.content_type = content_type
        self.request_id = request_id
        self.headers = headers


def _decoded(headers: dict[str, str], body: bytes | bytearray) -> bytes | bytearray:
    """The request body without its ``Content-Encoding`` (gzip or deflate: botocore's request compression),
    at most :data:`MAX_REQUEST_BYTES` of it."""
    encoding = headers.get("content-encoding", "").strip().lower()
    if not encoding or encoding == "identity":
        return body
    if encoding not in ("gzip", "x-gzip", "deflate"):
        raise SerializationException(f"Unsupported Content-Encoding: {encoding}")
    # gzip: its header and trailer, members one after another as RFC 1952 allows (and DynamoDB reads); deflate:
    # the zlib wrapper (RFC 9110), or raw deflate as some clients send
    windows = (16 + zlib.MAX_WBITS,) if encoding != "deflate" else (zlib.MAX_WBITS, -zlib.MAX_WBITS)
    for wbits in windows:
        data, rest = b"", body
        try:
            while True:
                decoder = zlib.decompressobj(wbits)
                data += decoder.decompress(rest, MAX_REQUEST_BYTES + 1 - len(data))
                rest = decoder.unused_data
                if len(data) > MAX_REQUEST_BYTES:
                    raise _Refusal(
                        413,
                        "com.amazon.coral.service#RequestEntityTooLargeException",
                        f"Request payload exceeds the maximum of {MAX_REQUEST_BYTES} bytes",
                    )
                if not decoder.eof or not rest or wbits != 16 + zlib.MAX_WBITS:
                    break
        except zlib.error:
            continue
        if decoder.eof and not rest:
            return data
    raise SerializationException(f"The request body is not valid {encoding} data")


class _Refusal(Exception):
    """An error answered before the engine is involved: status, ``__type`` (full) and message."""

    def __init__(self, status: int, type_: str, message: str, message_key: str = "Message") -> None:
        super().__init__(message)
        self.status = status
        self.body = {"__type": type_, message_key: message}


# -- request log -----------------------------------------------------------------------------------------------

_SAFE = re.compile(r"[A-Za-z0-9_\-.:/#,@+]+")


def _logfmt(value: Any, limit: int = 200) -> str:
    text = value if type(value) is str else str(value)
    if len(text) > limit:
        text = text[:limit] + "..."
    if _SAFE.fullmatch(text):
        return text
    import json

    return json.dumps(text)  # quoted, with newlines and control characters escaped


class RequestLog:
    """One logfmt line per request on a stream: ``ts op table status ms [error] client rid``.

    ``level``: 0 quiet (only 5xx answers and server errors), 1 every request, 2 also request and response
    bodies (truncated). Lines go straight to the stream's file descriptor when it has one, one thread at a time:
    a pipe takes a line longer than 4 KiB (``-v``) in parts when it is full, and the parts of two lines must
    not alternate (``--workers``: the supervisor copies whole lines only).
    """

    def __init__(self, stream: TextIO | None = None, level: int = 1) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.level = level
        self._lock = threading.Lock()
        self._second = -1
        self._stamp = ""
        try:
            self.stream.flush()
            self._fd: int | None = self.stream.fileno()
        except (AttributeError, OSError, ValueError):
            self._fd = None

    def _now(self) -> str:
        now = time.time()
        second = int(now)
        if second != self._second:
            self._second = second
            self._stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        return f"{self._stamp}.{int((now - second) * 1000):03d}Z"

    def write(self, line: str) -> None:
        data = line + "\n"
        try:
            if self._fd is not None:
                raw = data.encode("utf-8", "replace")
                with self._lock:
                    while raw:
                        raw = raw[os.write(self._fd, raw) :]
                return
            with self._lock:
                self.stream.write(data)
                self.stream.flush()
        except (OSError, ValueError):
            pass

    def request(
        self,
        op: str,
        table: str,
        status: int,
        ms: float,
        client: str,
        request_id: str,
        error: str | None = None,
        request_body: bytes | bytearray | None = None,
        response_body: bytes | None = None,
    ) -> None:
        if self.level < 1 and status < 500:
            return
        line = f"ts={self._now()} op={_logfmt(op)} table={_logfmt(table)} status={status} ms={ms:.2f}"
        if error:
            line += f" error={_logfmt(error)}"
        line += f" client={client} rid={request_id}"
        if self.level >= 2:
            if request_body is not None:
                line += " request=" + _logfmt(request_body.decode("utf-8", "replace"), 2000)
            if response_body is not None:
                line += " response=" + _logfmt(response_body.decode("utf-8", "replace"), 2000)
        self.write(line)

    def error(self, message: str) -> None:
        self.write(f"ts={self._now()} level=error msg={_logfmt(message, 100_000)}")

    def event(self, message: str, level: str = "warn", verbose: bool = False) -> None:
        """A server event (a limit that bit): logged at level 1, or 2 when ``verbose``."""
        if self.level >= (2 if verbose else 1):
            self.write(f"ts={self._now()} level={level} msg={_logfmt(message, 2000)}")


def _table_of(request: Any) -> str:
    if type(request) is not dict:
        return "-"
    name = request.get("TableName")
    if type(name) is str:
        return name
    items = request.get("RequestItems")
    if type(items) is dict:
        return ",".join(str(k) for k in items)
    transact = request.get("TransactItems")
    if type(transact) is list:
        names = []
        for entry in transact:
            if type(entry) is dict:
                for action in entry.values():
                    if type(action) is dict and type(action.get("TableName")) is str:
                        names.append(action["TableName"])
        return ",".join(dict.fromkeys(names)) or "-"
    for key in ("StreamArn", "ResourceArn", "TableArn", "ShardIterator"):
        value = request.get(key)
        if type(value) is str:
            return value if key != "ShardIterator" else "-"
    return "-"


def _for_console(method: str, target: str, headers: dict[str, str]) -> bool:
    """Whether a request is the console's (``--ui``): its paths, and a browser's ``GET /`` (SDKs post to ``/``)."""
    if target.startswith("/console"):
        return True
    return method == "GET" and target == "/" and "text/html" in headers.get("accept", "")


def _engine_operations(engine: Any, streams: bool) -> Any:
    """The engine's operations of one service (the engine keeps the Streams API in ``stream_operations``)."""
    return getattr(engine, "stream_operations", {}) if streams else engine.operations


# -- the application ------------------------------------------------------------------------------------------


class DynamoDBApp:
    """Answers DynamoDB JSON 1.0 requests from one engine (shared database) or one per access key and region.

    ``engine``: the engine every request uses (``--shared-db``, the default). ``engine_factory``: called with
    (access key, region) the first time a key/region pair is seen, for per-key databases; engines it makes are
    closed by :meth:`close`. ``verifier``: a :class:`.sigv4.Verifier` to require valid signatures.
    """

    def __init__(
        self,
        engine: Any = None,
        *,
        engine_factory: EngineFactory | None = None,
        verifier: Verifier | None = None,
        log: RequestLog | None = None,
        region: str = "us-east-1",
        max_namespaces: int = 256,
        access: Access | None = None,
    ) -> None:
        if (engine is None) == (engine_factory is None):
            raise ValueError(
                "give exactly one of engine (shared database) and engine_factory (per key/region)"
            )
        self.engine = engine
        self.engine_factory = engine_factory
        self.verifier = verifier
        self.log = log or RequestLog(level=0)
        self.region = region
        #: the service's answer to an unsigned ``GET /``, its trailing space included
        self.health_body = f"healthy: dynamodb.{region}.amazonaws.com ".encode()
        self.max_namespaces = max_namespaces
        #: the Host check and the origins granted CORS (default: local names only, no other origin)
        self.access = access or Access()
        self.models = Models()
        self._engines: dict[tuple[str, str], Any] = {}
        self._engines_lock = threading.Lock()
        self._identities: dict[str, tuple[str, str]] = {}
        self._ids = itertools.count(1)
        raw = os.urandom(10).hex()
        self._id_prefix = f"{raw[:8]}-{raw[8:12]}-{raw[12:16]}-{raw[16:20]}-"  # UUID-shaped, as Local's
        self._closed = False
        #: ``dynabase serve --ui``: a :class:`dynabase.console.ConsoleApp` answering under ``/console/``
        self.console: Any = None

    # -- set-up / tear-down

    def warm_up(self) -> None:
        """Switch to the fast JSON library, load the service model and compile the hot operations (called
        from a background thread once the server listens: none of it delays the first answer)."""
        try:
            self.models.preload()
        except Exception:  # the first request will load it again and report the failure properly
            pass
        jsonio.upgrade()

    def engines(self) -> list[Any]:
        if self.engine is not None:
            return [self.engine]
        with self._engines_lock:
            return list(self._engines.values())

    def close(self) -> None:
        """Close the engines this app made (per-key mode); a shared engine belongs to whoever passed it in."""
        self._closed = True
        with self._engines_lock:
            engines, self._engines = list(self._engines.values()), {}
        for engine in engines:
            try:
                engine.close()
            except Exception:
                pass

    def _engine_for(self, identity: tuple[str, str] | None) -> Any:
        if self.engine is not None:
            return self.engine
        key = identity or ("", self.region)
        engine = self._engines.get(key)
        if engine is None:
            with self._engines_lock:
                engine = self._engines.get(key)
                if engine is None:
                    if len(self._engines) >= self.max_namespaces:
                        raise _Refusal(
                            400,
                            _DDB + "LimitExceededException",
                            f"Too many access key/region databases (limit {self.max_namespaces})",
                        )
                    assert self.engine_factory is not None
                    engine = self.engine_factory(*key)
                    self._engines[key] = engine
        return engine

    # -- requests

    def request_id(self) -> str:
        return f"{self._id_prefix}{next(self._ids):012x}"

    def too_large(self, length: int | None = None) -> Response:
        body = jsonio.dumps(
            {
                "__type": "com.amazon.coral.service#RequestEntityTooLargeException",
                "Message": f"Request payload exceeds the maximum of {MAX_REQUEST_BYTES} bytes"
                + (f" ({length} bytes)" if length else ""),
            }
        )
        rid = self.request_id()
        self.log.request("-", "-", 413, 0.0, "-", rid, "RequestEntityTooLarge")
        return Response(413, body, rid)

    def handle(
        self, method: str, target: str, headers: dict[str, str], body: bytes | bytearray, client: str = "-"
    ) -> Response:
        """Answer one request. ``headers``: lower-cased names; ``target``: path and query of the request line."""
        start = time.perf_counter()
        rid = self.request_id()
        op = "-"
        table = "-"
        extra = None
        if self.console is not None and _for_console(method, target, headers):
            reply = self.console.handle(method, target, headers, body)
            return Response(reply.status, reply.body, rid, reply.content_type, reply.headers)
        try:
            refused = self.access.host_refused(headers)
            if refused:
                raise _Refusal(403, _ACCESS_DENIED, refused)
            origin = headers.get("origin")
            if origin is not None:
                if not self.access.origin_allowed(origin, headers.get("host", "")):
                    raise _Refusal(403, _ACCESS_DENIED, self.access.origin_refused(origin))
                extra = self.access.cors_headers(origin)
            if method == "OPTIONS":
                return self._preflight(headers, rid, extra)
            if method == "GET" or method == "HEAD":
                path = target.partition("?")[0]
                if path in ("/healthz", "/health"):
                    op = "health"
                    return Response(200, b"healthy: dynabase", rid, "text/plain", extra)
                if path == "/" and not headers.get("authorization"):  # the service's health check
                    op = "health"
                    return Response(200, self.health_body, rid, "text/plain", extra)
            identity = self._authenticate(method, target, headers, body)
            if method == "GET" or method == "HEAD":
                raise _Refusal(400, _DDB + "UnknownOperationException", _UNKNOWN_OPERATION)
            amz_target = headers.get("x-amz-target", "")
            prefix, _, op = amz_target.partition(".")
            op = op or "-"
            shapes = self.models.for_prefix(prefix) if prefix else None
            if shapes is None:
                if prefix == "DynamoDB_20111205":
                    raise _Refusal(
                        400,
                        _DDB + "InvalidAction",
                        "dynabase does not support the v1 API (DynamoDB_20111205).",
                    )
                raise _Refusal(400, _DDB + "UnknownOperationException", _UNKNOWN_OPERATION)
            engine = self._engine_for(identity)
            streams = shapes.service != "dynamodb"
            known = op in shapes.operations
            if not known and op not in _engine_operations(engine, streams):  # newer than botocore's model
                raise _Refusal(400, _DDB + "UnknownOperationException", _UNKNOWN_OPERATION)
            body = _decoded(headers, body)
            if not body:
                raise SerializationException("The request body is empty; expected a JSON object")
            try:
                request = jsonio.loads(body)
            except jsonio.JSONError as bad_json:
                raise SerializationException(f"The request body is not valid JSON: {bad_json}") from None
            table = _table_of(request)
            if known:
                request = shapes.request_converter(op)(request)
            elif type(request) is not dict:
                raise SerializationException("Expected null")
            result = engine.call(op, request, service=shapes.service) if streams else engine.call(op, request)
            if known:
                coercer = shapes.response_coercer(op)
                if coercer is not None:
                    result = coercer(result)
            payload = jsonio.dumps(result)
            response = Response(200, payload, rid, JSON_CONTENT_TYPE, extra)
            error = None
        except DynamoDBError as exc:
            response = Response(exc.status, jsonio.dumps(exc.wire_body()), rid, JSON_CONTENT_TYPE, extra)
            error = exc.code
        except AuthError as exc:
            response = Response(exc.status, jsonio.dumps(exc.wire_body()), rid, JSON_CONTENT_TYPE, extra)
            error = exc.code
        except _Refusal as exc:
            response = Response(exc.status, jsonio.dumps(exc.body), rid, JSON_CONTENT_TYPE, extra)
            error = exc.body["__type"].rpartition("#")[2]
        except Exception:
            import traceback

            self.log.error(f"internal error in {op} (rid {rid}): {traceback.format_exc()}")
            body_out = jsonio.dumps({"__type": _DDB + "InternalFailure", "Message": _INTERNAL_MESSAGE})
            response = Response(500, body_out, rid, JSON_CONTENT_TYPE, extra)
            error = "InternalFailure"
        if len(response.body) >= compression.THRESHOLD and "accept-encoding" in headers:
            coding = compression.negotiate(headers["accept-encoding"])
            if coding is not None:
                response.body = compression.compress(response.body, coding)
                response.headers = [*(response.headers or ()), ("Content-Encoding", coding)]
        log = self.log
        if log.level >= 1 or response.status >= 500:
            log.request(
                op,
                table,
                response.status,
                (time.perf_counter() - start) * 1000.0,
                client,
                rid,
                error,
                body if log.level >= 2 else None,
                response.body if log.level >= 2 else None,
            )
        return response

    def _authenticate(
        self, method: str, target: str, headers: dict[str, str], body: bytes | bytearray
    ) -> tuple[str, str] | None:
        if self.verifier is not None:
            return self.verifier.verify(method, target, headers, body)
        header = headers.get("authorization")
        if not header:  # DynamoDB Local's answer (it never checks signatures, but wants one)
            raise _Refusal(400, _DDB + "MissingAuthenticationToken", _LOCAL_MISSING_TOKEN)
        if self.engine is not None:
            return None  # one database for everyone: who is asking does not matter
        scope = header.partition(",")[0]  # "AWS4-HMAC-SHA256 Credential=KEY/DATE/REGION/..."
        identity = self._identities.get(scope)
        if identity is None:
            identity = access_key_and_region(header) or ("", self.region)
            if len(self._identities) > 4096:
                self._identities.clear()
            self._identities[scope] = identity
        return identity

    def _preflight(
        self, headers: dict[str, str], rid: str, granted: list[tuple[str, str]] | None
    ) -> Response:
        """A CORS preflight from an origin already allowed (``granted``: its headers)."""
        if granted is None or "access-control-request-method" not in headers:
            raise _Refusal(400, "com.amazon.coral.validate#ValidationException", "Invalid PreFlight Headers")
        allowed = headers.get("access-control-request-headers", "")
        cors = [
            *granted,
            ("Access-Control-Allow-Methods", "GET,POST,OPTIONS"),
            ("Access-Control-Max-Age", "172800"),
        ]
        if allowed:
            cors.append(("Access-Control-Allow-Headers", allowed))
        return Response(200, b"", rid, "text/plain", cors)
