"""DynamoDB's JSON 1.0 wire protocol without botocore's per-call machinery, shared by the lean clients.

One :class:`Protocol` turns a boto3-style call into the bytes of a signed HTTP/1.1 request and a response into
boto3's response dict or exception.  The data plane (``_HOT`` operations) is encoded and decoded with orjson;
the rest, and any call carrying binary attributes (``B``/``BS``, which need base64 as boto3 applies it), goes
through botocore's own serializer and parser.  Credentials come from botocore's chain, retries follow
botocore's standard retry mode (its own retry checkers and backoff), errors are boto3's ``ClientError``
subclasses.  The transports (:mod:`.http`, :mod:`.aio`) only move bytes.
"""

from __future__ import annotations

import hashlib
import hmac
import inspect
import re
import socket
import ssl
import time
import zlib
from dataclasses import dataclass, field
from functools import cache
from types import SimpleNamespace
from typing import Any, TypeVar
from urllib.parse import urlsplit

import botocore.session
import orjson
from botocore.exceptions import NoCredentialsError, NoRegionError
from botocore.retries import standard

from ..errors import client_exceptions
from .embedded import (
    _HOT,
    BotoConveniences,
    _fast_check,
    _Meta,
    _snake,
    _top_level_types,
    service_model,
    validate_params,
)
from .transport import Route, plan

#: a binary attribute value (or a map key named B/BS: then the exact path runs, which is merely slower)
_BINARY = re.compile(rb'"BS?"\s*:')
_Client = TypeVar("_Client", bound="LeanBase")
_CONTENT_TYPE = "application/x-amz-json-1.0"


@dataclass
class HttpResponse:
    """A response as botocore's retry checkers read it (``status_code``, ``headers``, ``content``)."""

    status_code: int
    headers: dict[str, str]
    content: bytes


@dataclass
class Prepared:
    """One operation's request: the signed bytes are made per attempt (the signature carries the time)."""

    operation: str
    params: dict[str, Any]
    body: bytes
    target: str
    exact: bool  # encoded by botocore's serializer: decode with its parser too
    #: botocore's per-request retry state (the retry quota it took)
    context: dict[str, Any] = field(default_factory=dict)


@cache
def _serializer() -> Any:
    from botocore.serialize import create_serializer

    return create_serializer("json", include_validation=False)


@cache
def _parser() -> Any:
    from botocore.parsers import create_parser

    return create_parser("json")


class Signer:
    """SigV4 for POST requests to one endpoint, with the day's signing key cached."""

    def __init__(self, credentials: Any, region: str, signing_name: str, host: str, path: str) -> None:
        self.credentials = credentials
        self.region = region
        self.signing_name = signing_name
        self.host = host
        self.path = path or "/"
        self._key: tuple[str, str, bytes] = ("", "", b"")

    def _signing_key(self, secret: str, day: str) -> bytes:
        cached_day, cached_secret, key = self._key
        if cached_day != day or cached_secret != secret:
            key = ("AWS4" + secret).encode()
            for part in (day, self.region, self.signing_name, "aws4_request"):
                key = hmac.new(key, part.encode(), hashlib.sha256).digest()
            self._key = (day, secret, key)
        return key

    def headers(self, target: str, body: bytes, now: float | None = None) -> str:
        """The request's header lines (CRLF-terminated), Authorization included."""
        if self.credentials is None:
            raise NoCredentialsError()
        creds = self.credentials.get_frozen_credentials()
        amz_date = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(now))
        day = amz_date[:8]
        token = creds.token
        lines = f"content-type:{_CONTENT_TYPE}\nhost:{self.host}\nx-amz-date:{amz_date}\n"
        signed = "content-type;host;x-amz-date;"
        if token:
            lines += f"x-amz-security-token:{token}\n"
            signed += "x-amz-security-token;"
        lines += f"x-amz-target:{target}\n"
        signed += "x-amz-target"
        canonical = f"POST\n{self.path}\n\n{lines}\n{signed}\n{hashlib.sha256(body).hexdigest()}"
        scope = f"{day}/{self.region}/{self.signing_name}/aws4_request"
        to_sign = f"AWS4-HMAC-SHA256\n{amz_date}\n{scope}\n{hashlib.sha256(canonical.encode()).hexdigest()}"
        signature = hmac.new(self._signing_key(creds.secret_key, day), to_sign.encode(), hashlib.sha256)
        head = (
            f"Host: {self.host}\r\nContent-Type: {_CONTENT_TYPE}\r\nX-Amz-Date: {amz_date}\r\n"
            f"X-Amz-Target: {target}\r\nContent-Length: {len(body)}\r\n"
            f"Authorization: AWS4-HMAC-SHA256 Credential={creds.access_key}/{scope}, "
            f"SignedHeaders={signed}, Signature={signature.hexdigest()}\r\n"
        )
        if token:
            head += f"X-Amz-Security-Token: {token}\r\n"
        return head


def _keywords(function: Any) -> frozenset[str]:
    """The keyword-only parameters of ``function`` (what a lean client takes, or passes on to :func:`resolve`)."""
    return frozenset(
        name for name, p in inspect.signature(function).parameters.items() if p.kind is p.KEYWORD_ONLY
    )


def resolve(
    endpoint_url: str | None,
    region: str | None,
    *,
    profile: str | None = None,
    aws_access_key_id: str | None = None,
    aws_secret_access_key: str | None = None,
    aws_session_token: str | None = None,
    max_attempts: int | None = None,
    region_name: str | None = None,
) -> tuple[Any, str, str, int | None, str | None]:
    """botocore's credential chain, region, max attempts (total, as ``AWS_MAX_ATTEMPTS``) and CA bundle
    (``AWS_CA_BUNDLE`` or the profile's ``ca_bundle``) for a client.  ``region_name`` is boto3's spelling of
    ``region``."""
    if region is not None and region_name is not None and region != region_name:
        raise ValueError(f"region {region!r} and region_name {region_name!r} differ: give one of them")
    session = botocore.session.Session(profile=profile)
    region = region or region_name or session.get_config_variable("region")
    if not region:
        raise NoRegionError()
    if aws_access_key_id is not None:
        from botocore.credentials import Credentials

        credentials: Any = Credentials(aws_access_key_id, aws_secret_access_key, aws_session_token)
    else:
        credentials = session.get_credentials()
    if max_attempts is None:
        configured = session.get_config_variable("max_attempts")
        max_attempts = int(configured) if configured else None  # botocore's default for the service
    url = endpoint_url or f"https://dynamodb.{region}.amazonaws.com"
    return credentials, region, url, max_attempts, session.get_config_variable("ca_bundle")


class Protocol:
    """Encoding, signing, decoding and retry decisions for one service at one endpoint."""

    def __init__(
        self, service: str, url: str, region: str, credentials: Any, max_attempts: int | None
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"endpoint URL must be http(s)://host[:port]: {url!r}")
        self.service = service
        self.url = url
        self.tls = parts.scheme == "https"
        self.host = parts.hostname
        self.port = parts.port or (443 if self.tls else 80)
        default_port = self.port == (443 if self.tls else 80)
        host_header = self.host if default_port else f"{self.host}:{self.port}"
        self.path = parts.path or "/"
        self.model = service_model(service)
        self.signer = Signer(credentials, region, self.model.signing_name, host_header, self.path)
        self.target_prefix = self.model.metadata["targetPrefix"]
        self.exceptions = client_exceptions(service)
        # botocore's standard retry mode itself (its checkers, backoff and retry quota), hooked to an emitter
        # of our own as it hooks itself to a boto3 client's
        from botocore.hooks import HierarchicalEmitter

        host = SimpleNamespace(meta=SimpleNamespace(events=HierarchicalEmitter(), service_model=self.model))
        # botocore's own default when none is configured (botocore 1.31 takes no None for it)
        self.retries = (
            standard.register_retry_handler(host)
            if max_attempts is None
            else standard.register_retry_handler(host, max_attempts)
        )
        self._events = host.meta.events
        self._after_call = f"after-call.{self.model.service_id.hyphenize()}."
        self._request_line = f"POST {self.path} HTTP/1.1\r\n".encode()
        #: the HTTP proxy requests go through (:meth:`through`), for errors
        self.proxy_url: str | None = None

    def through(self, route: Route) -> None:
        """Send requests along ``route``: to an http endpoint through a proxy, the request line carries the
        absolute URL and the proxy's credentials follow it."""
        self.proxy_url = route.proxy_url
        if route.forward_prefix:
            self._request_line = (
                f"POST {route.forward_prefix}{self.path} HTTP/1.1\r\n{route.forward_headers}".encode()
            )

    # -- requests --------------------------------------------------------------------------------------------

    def prepare(self, operation: str, params: dict[str, Any]) -> Prepared:
        target = f"{self.target_prefix}.{operation}"
        if operation in _HOT and _fast_check(_top_level_types(self.service, operation), params):
            try:
                body = orjson.dumps(params)
            except orjson.JSONEncodeError:  # bytes (base64 as boto3 applies it), or a type boto3 refuses
                body = b""
            if body and not _BINARY.search(body):
                return Prepared(operation, params, body, target, False)
        validate_params(self.service, operation, params)
        request = _serializer().serialize_to_request(params, self.model.operation_model(operation))
        body = request["body"]
        return Prepared(operation, params, body.encode() if isinstance(body, str) else body, target, True)

    def request_bytes(self, prepared: Prepared) -> bytes:
        head = self.signer.headers(prepared.target, prepared.body)
        return b"".join((self._request_line, head.encode(), b"\r\n", prepared.body))

    # -- responses -------------------------------------------------------------------------------------------

    def settle(
        self,
        prepared: Prepared,
        attempt: int,
        response: HttpResponse | None = None,
        error: Exception | None = None,
    ) -> dict[str, Any] | float:
        """An attempt's end: the parsed response, the seconds to wait before retrying, or the error raised."""
        if response is None:
            assert error is not None
            failure = self.connection_error(error if isinstance(error, OSError) else EOFError(str(error)))
            delay = self._retry_delay(prepared, attempt, None, failure)
            if delay is None:
                raise failure from error
            return delay
        body = response.content
        crc = response.headers.get("x-amz-crc32")
        intact = crc is None or crc == str(zlib.crc32(body))
        if response.status_code == 200 and intact:
            parsed = None
            if not prepared.exact and not _BINARY.search(body):
                try:
                    parsed = orjson.loads(body) if body else {}
                except orjson.JSONDecodeError:
                    pass  # not JSON: botocore's parser decides, as in boto3
            if type(parsed) is dict:
                parsed["ResponseMetadata"] = _metadata(response, attempt)
            else:
                parsed = self._parse(prepared.operation, response, attempt)
            # the retry quota gets back what retries took (or a little), as botocore's after-call hook does
            self._events.emit(self._after_call + prepared.operation, http_response=response, parsed=parsed,
                              context=prepared.context)  # fmt: skip
            return parsed
        if intact:
            parsed = self._parse(prepared.operation, response, attempt)
            error = self._error(prepared, parsed)
        else:  # damaged on the way: botocore's retry rules retry it; when they give up, its ChecksumError
            from botocore.exceptions import ChecksumError

            parsed = {"ResponseMetadata": _metadata(response, attempt)}
            error = ChecksumError(
                checksum_type="crc32", expected_checksum=crc, actual_checksum=zlib.crc32(body)
            )
        delay = self._retry_delay(prepared, attempt, (response, parsed), None)
        if delay is None:
            raise error
        return delay

    def _retry_delay(self, prepared: Prepared, attempt: int, response: Any, caught: Any) -> float | None:
        """botocore's verdict on an attempt: seconds to wait before the next one, or None (do not retry)."""
        delay: float | None = self.retries.needs_retry(
            response=response,
            attempts=attempt,
            operation=self.model.operation_model(prepared.operation),
            caught_exception=caught,
            request_dict={"context": prepared.context},
        )
        return delay

    def _parse(self, operation: str, response: HttpResponse, attempt: int) -> dict[str, Any]:
        raw = {"status_code": response.status_code, "headers": response.headers, "body": response.content}
        operation_model = self.model.operation_model(operation)
        parsed: dict[str, Any] = _parser().parse(raw, operation_model.output_shape)
        if response.status_code >= 300:
            code = parsed.get("Error", {}).get("Code")
            shape = self.model.shape_for_error_code(code) if code else None
            if shape is not None:
                parsed.update(_parser().parse(raw, shape))
        parsed.setdefault("ResponseMetadata", {})["RetryAttempts"] = attempt - 1
        return parsed

    def _error(self, prepared: Prepared, parsed: dict[str, Any]) -> Exception:
        code = parsed.get("Error", {}).get("Code", "")
        if not prepared.exact and parsed["ResponseMetadata"].get("HTTPStatusCode") == 400:
            # the cheap check let it through: botocore's full validator names a bad parameter, as boto3 would
            validate_params(self.service, prepared.operation, prepared.params)
        error_class: type[Exception] = self.exceptions.from_code(code)
        return error_class(parsed, prepared.operation)

    def connection_error(self, error: OSError | EOFError) -> Exception:
        """A socket failure as botocore names it (its retry checkers and callers know these)."""
        from botocore.exceptions import (
            ConnectionClosedError,
            EndpointConnectionError,
            ProxyConnectionError,
            ReadTimeoutError,
            SSLError,
        )

        failure: Exception
        if self.proxy_url is not None and isinstance(error, (ConnectionRefusedError, socket.gaierror)):
            failure = ProxyConnectionError(proxy_url=_without_password(self.proxy_url), error=error)
        elif isinstance(error, ssl.SSLError):
            failure = SSLError(endpoint_url=self.url, error=error)
        elif isinstance(error, TimeoutError):
            failure = ReadTimeoutError(endpoint_url=self.url, error=error)
        elif isinstance(error, (ConnectionResetError, BrokenPipeError, ConnectionAbortedError, EOFError)):
            failure = ConnectionClosedError(endpoint_url=self.url, error=error)
        else:
            failure = EndpointConnectionError(endpoint_url=self.url, error=error)
        return failure


class LeanBase(BotoConveniences):
    """What the blocking and the asyncio lean clients share: configuration, ``meta``, ``exceptions`` and one
    method per operation of botocore's model (made by the subclass's :meth:`_method`)."""

    #: connections kept open when ``max_pool_connections`` is not given (each subclass sets its own)
    default_pool_connections = 10

    def __init__(
        self,
        endpoint_url: str | None = None,
        region: str | None = None,
        *,
        service: str = "dynamodb",
        max_pool_connections: int | None = None,
        connect_timeout: float = 60.0,
        read_timeout: float = 60.0,
        proxies: dict[str, str] | None = None,
        verify: bool | str | None = None,
        **credentials: Any,
    ) -> None:
        unknown = sorted(set(credentials) - _keywords(resolve))
        if unknown:
            known = _keywords(resolve) | _keywords(LeanBase.__init__)
            raise TypeError(
                f"unknown option {unknown[0]!r} for a lean client (dynabase.endpoint / endpoint_async take "
                f"{', '.join(sorted(known))})"
            )
        creds, region, url, max_attempts, ca_bundle = resolve(endpoint_url, region, **credentials)
        self._service = service
        self._max_pool = max_pool_connections or self.default_pool_connections
        self._timeouts = (connect_timeout, read_timeout)
        self._credentials = credentials
        self._transport_options: dict[str, Any] = {"proxies": proxies, "verify": verify}
        self.protocol = Protocol(service, url, region, creds, max_attempts)
        scheme = "https" if self.protocol.tls else "http"
        self.route = plan(scheme, self.protocol.host, self.protocol.port, proxies=proxies, verify=verify,
                          ca_bundle=ca_bundle)  # fmt: skip
        self.protocol.through(self.route)
        self.meta = _Meta(service, region)
        self.meta.endpoint_url = url
        self.exceptions = self.protocol.exceptions
        self._operations = {_snake(name): name for name in self.meta.service_model.operation_names}
        self._open_pool()

    def _open_pool(self) -> None:
        """The subclass's empty connection pool."""
        raise NotImplementedError

    def _twin(self, cls: type[_Client], service: str) -> _Client:
        """A client of class ``cls`` for ``service`` at the same endpoint, region and credentials."""
        connect_timeout, read_timeout = self._timeouts
        return cls(self.meta.endpoint_url, self.meta.region_name, service=service,
                   max_pool_connections=self._max_pool, connect_timeout=connect_timeout,
                   read_timeout=read_timeout, **self._transport_options, **self._credentials)  # fmt: skip

    def _method(self, operation: str) -> Any:
        raise NotImplementedError

    def __getattr__(self, attr: str) -> Any:
        operation = self.__dict__.get("_operations", {}).get(attr)
        if operation is None:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{attr}'")
        call = self._method(operation)
        call.__name__ = attr
        call.__doc__ = f"DynamoDB {operation} (see boto3's documentation)."
        setattr(self, attr, call)
        return call


def _without_password(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    return parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", ":***@", 1)).geturl()


def _metadata(response: HttpResponse, attempt: int) -> dict[str, Any]:
    headers = response.headers
    return {
        "RequestId": headers.get("x-amzn-requestid", ""),
        "HTTPStatusCode": response.status_code,
        "HTTPHeaders": headers,
        "RetryAttempts": attempt - 1,
    }


def parse_head(head: bytes) -> tuple[int, dict[str, str]]:
    """A response's status line and headers (names lower-cased, as boto3's ``HTTPHeaders``)."""
    lines = head.decode("latin-1").split("\r\n")
    status_line = lines[0].split(" ", 2)
    if len(status_line) < 2 or not status_line[0].startswith("HTTP/") or not status_line[1].isdigit():
        raise ConnectionResetError(f"not an HTTP response: {lines[0][:80]!r}")
    headers = {}
    for line in lines[1:]:
        if line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    return int(status_line[1]), headers


def body_length(headers: dict[str, str]) -> int | None:
    """Content-Length, or None when the body is chunked."""
    if "chunked" in headers.get("transfer-encoding", "").lower():
        return None
    return int(headers.get("content-length", "0"))
