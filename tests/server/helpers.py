"""Helpers for the server tests: boto3 clients, raw HTTP requests, service-error assertions."""

from __future__ import annotations

import http.client
import json
import socket
import zlib
from typing import Any
from urllib.parse import urlsplit

REGION = "us-east-1"
TARGET = "DynamoDB_20120810."
FAKE_AUTH = (
    "AWS4-HMAC-SHA256 Credential=fake/20240101/us-east-1/dynamodb/aws4_request, "
    "SignedHeaders=host;x-amz-date;x-amz-target, Signature=0000"
)


def boto_client(
    url: str,
    service: str = "dynamodb",
    key: str = "fake",
    secret: str = "fake",
    region: str = REGION,
    **config: Any,
) -> Any:
    import boto3
    from botocore.config import Config

    options = {
        "retries": {"max_attempts": 1, "mode": "standard"},
        "connect_timeout": 5,
        "read_timeout": 30,
        **config,
    }
    return boto3.client(
        service,
        endpoint_url=url,
        region_name=region,
        aws_access_key_id=key,
        aws_secret_access_key=secret,
        config=Config(**options),
    )


def new_engine(path: str = ":memory:") -> Any:
    from dynabase.engine import Engine

    return Engine(path)


# -- raw HTTP -------------------------------------------------------------------------------------------------


class RawResponse:
    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    def json(self) -> Any:
        return json.loads(self.body)

    def __repr__(self) -> str:
        return f"RawResponse({self.status}, {self.body[:300]!r})"


def request_headers(
    target: str | None, headers: dict[str, str | None] | None = None, auth: bool = True
) -> dict[str, str]:
    """A JSON 1.0 request's headers: the protocol's defaults, ``headers`` on top (``None`` removes one)."""
    sent: dict[str, str] = {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Date": "20240101T000000Z"}
    if auth:
        sent["Authorization"] = FAKE_AUTH
    if target is not None:
        sent["X-Amz-Target"] = target
    for key, value in (headers or {}).items():
        if value is None:
            sent.pop(key, None)
        else:
            sent[key] = value
    return sent


def raw_request(
    url: str,
    target: str | None = TARGET + "ListTables",
    body: bytes | None = b"{}",
    method: str = "POST",
    path: str = "/",
    headers: dict[str, str | None] | None = None,
    auth: bool = True,
    timeout: float = 30,
) -> RawResponse:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    sent = request_headers(target, headers, auth)
    try:
        conn.request(method, path, body=body, headers=sent)
        response = conn.getresponse()
        data = response.read()
        return RawResponse(response.status, {k.lower(): v for k, v in response.getheaders()}, data)
    finally:
        conn.close()


def raw_socket_exchange(
    url: str, payload: bytes, timeout: float = 10.0, read_until_close: bool = True
) -> bytes:
    """Send bytes as they are; return everything the server answers until it closes (or ``timeout``)."""
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=timeout) as sock:
        sock.sendall(payload)
        if not read_until_close:
            return sock.recv(65536)
        chunks = []
        try:
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
        except (TimeoutError, ConnectionResetError):
            pass
        return b"".join(chunks)


def assert_service_error(response: RawResponse, code: str, status: int = 400) -> dict[str, Any]:
    """The response is a DynamoDB-shaped error: JSON body with ``__type`` ending in ``#code`` and a message,
    the protocol's content type, a request id and a correct CRC32."""
    assert response.status == status, response
    assert response.headers.get("content-type") == "application/x-amz-json-1.0", response.headers
    assert response.headers.get("x-amzn-requestid"), response.headers
    assert int(response.headers["x-amz-crc32"]) == zlib.crc32(response.body)
    body = response.json()
    assert body["__type"].rpartition("#")[2] == code, body
    message = body.get("Message", body.get("message"))
    assert isinstance(message, str), body
    return body


def assert_healthy(url: str) -> None:
    response = raw_request(url)
    assert response.status == 200, response
    assert "TableNames" in response.json()
