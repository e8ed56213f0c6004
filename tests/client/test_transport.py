"""The lean clients through HTTP proxies (CONNECT tunnels, forwarding, NO_PROXY) and with CA bundle options,
against ``dynabase serve`` behind a TLS relay with a certificate made here; and the asyncio paginators."""

from __future__ import annotations

import asyncio
import base64
import datetime
import ipaddress
import os
import select
import socket
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import (
    EndpointConnectionError,
    OperationNotPageableError,
    ProxyConnectionError,
    SSLError,
)

import dynabase
from backends import FAKE_CREDENTIALS, REGION
from ddb_helpers import table_request

x509 = pytest.importorskip("cryptography.x509", reason="cryptography makes the test certificate")

PROXY_ENV = (
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "NO_PROXY",
    "no_proxy",
    "AWS_CA_BUNDLE",
)


@pytest.fixture(autouse=True)
def _no_proxy_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROXY_ENV:
        monkeypatch.delenv(name, raising=False)


def _certificate(directory: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (its own CA): (certificate, key) PEM files."""
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(x509.oid.NameOID.COMMON_NAME, "dynabase test")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False
        )
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "cert.pem", directory / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return cert_path, key_path


def _pipe(a: socket.socket, b: socket.socket) -> None:
    """Relay bytes both ways until either side closes."""
    try:
        while True:
            ready, _, _ = select.select([a, b], [], [], 30)
            if not ready:
                return
            for source in ready:
                data = source.recv(65536)
                if not data:
                    return
                (b if source is a else a).sendall(data)
    except OSError:
        return
    finally:
        a.close()
        b.close()


class _Listener:
    """A loopback listener answering each connection in a thread; closed (and its threads ended) by stop()."""

    def __init__(self, handle: Any) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self._handle = handle
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def stop(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)  # wakes the thread blocked in accept()
        except OSError:
            pass
        self.sock.close()
        self._thread.join(5)
        assert not self._thread.is_alive()


class TinyProxy:
    """An HTTP proxy: CONNECT tunnels and absolute-form forwarding; records what it was asked, can demand
    credentials."""

    def __init__(self, require: str | None = None) -> None:
        self.requests: list[tuple[str, dict[str, str]]] = []
        self.require = require
        self.listener = _Listener(self._handle)
        self.url = f"http://127.0.0.1:{self.listener.port}"

    def _handle(self, conn: socket.socket) -> None:
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = conn.recv(65536)
            if not chunk:
                conn.close()
                return
            head += chunk
        head, _, rest = head.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
        self.requests.append((lines[0], headers))
        method, target, version = lines[0].split(" ")
        if self.require is not None and headers.get("proxy-authorization") != self.require:
            conn.sendall(b"HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n")
            conn.close()
            return
        if method == "CONNECT":
            host, _, port = target.rpartition(":")
            upstream = socket.create_connection((host, int(port)))
            conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        else:  # forward one request in origin form
            rest_of_url = target.split("://", 1)[1]
            authority, _, path = rest_of_url.partition("/")
            host, _, port = authority.rpartition(":")
            upstream = socket.create_connection((host, int(port or 80)))
            kept = [line for line in lines[1:] if not line.lower().startswith("proxy-")]
            upstream.sendall(
                "\r\n".join([f"{method} /{path} {version}", *kept]).encode() + b"\r\n\r\n" + rest
            )
        _pipe(conn, upstream)

    def stop(self) -> None:
        self.listener.stop()


class TLSRelay:
    """TLS on loopback in front of a plain HTTP endpoint."""

    def __init__(self, backend_port: int, cert: Path, key: Path) -> None:
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(cert, key)
        self.backend_port = backend_port
        self.listener = _Listener(self._handle)
        self.url = f"https://127.0.0.1:{self.listener.port}"

    def _handle(self, conn: socket.socket) -> None:
        try:
            tls = self.context.wrap_socket(conn, server_side=True)
        except (ssl.SSLError, OSError):
            conn.close()
            return
        tls.setblocking(True)
        upstream = socket.create_connection(("127.0.0.1", self.backend_port))
        try:
            while True:
                data = tls.recv(65536)
                if not data:
                    return
                upstream.sendall(data)
                # one request, one response: relay until the response is complete (Content-Length)
                response = b""
                while b"\r\n\r\n" not in response:
                    response += upstream.recv(65536)
                head, _, body = response.partition(b"\r\n\r\n")
                length = next(
                    int(line.split(b":")[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length")
                )
                while len(body) < length:
                    body += upstream.recv(65536)
                tls.sendall(head + b"\r\n\r\n" + body)
        except OSError:
            return
        finally:
            tls.close()
            upstream.close()

    def stop(self) -> None:
        self.listener.stop()


@pytest.fixture(scope="module")
def tls_endpoint(tmp_path_factory: pytest.TempPathFactory, serve_url: str) -> Iterator[tuple[str, Path]]:
    cert, key = _certificate(tmp_path_factory.mktemp("tls"))
    relay = TLSRelay(int(serve_url.rsplit(":", 1)[1]), cert, key)
    yield relay.url, cert
    relay.stop()


@pytest.fixture
def proxy() -> Iterator[TinyProxy]:
    server = TinyProxy()
    yield server
    server.stop()


def _round_trip(client: Any, table: str) -> dict:
    if table not in client.list_tables()["TableNames"]:
        client.create_table(**table_request(table, ("pk:S", "sk:S")))
    client.put_item(TableName=table, Item={"pk": {"S": "p"}, "sk": {"S": "s"}, "v": {"N": "1"}})
    return client.get_item(TableName=table, Key={"pk": {"S": "p"}, "sk": {"S": "s"}})["Item"]


def test_https_through_a_connect_proxy_with_a_ca_bundle(
    tls_endpoint: tuple[str, Path], proxy: TinyProxy
) -> None:
    url, cert = tls_endpoint
    with dynabase.endpoint(
        url, region=REGION, proxies={"https": proxy.url}, verify=str(cert), **FAKE_CREDENTIALS
    ) as c:
        assert _round_trip(c, "tunnelled")["v"] == {"N": "1"}
    port = url.rsplit(":", 1)[1]
    assert proxy.requests[0][0] == f"CONNECT 127.0.0.1:{port} HTTP/1.1"
    assert all(line.startswith("CONNECT ") for line, _ in proxy.requests)  # nothing sent in the clear


def test_certificates_are_checked(tls_endpoint: tuple[str, Path]) -> None:
    url, _ = tls_endpoint
    client = dynabase.endpoint(url, region=REGION, max_attempts=1, **FAKE_CREDENTIALS)
    with client, pytest.raises(SSLError) as caught:
        client.list_tables()
    assert "CERTIFICATE_VERIFY_FAILED" in str(caught.value)
    with dynabase.endpoint(url, region=REGION, verify=False, **FAKE_CREDENTIALS) as client:
        assert isinstance(client.list_tables()["TableNames"], list)


def test_aws_ca_bundle_is_honoured(tls_endpoint: tuple[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    url, cert = tls_endpoint
    monkeypatch.setenv("AWS_CA_BUNDLE", str(cert))
    with dynabase.endpoint(url, region=REGION, **FAKE_CREDENTIALS) as client:
        assert _round_trip(client, "bundled")["pk"] == {"S": "p"}
    with pytest.raises(ValueError, match="CA bundle"):
        dynabase.endpoint(url, region=REGION, verify="/nonexistent/ca.pem", **FAKE_CREDENTIALS)


def test_proxy_environment_and_no_proxy(
    tls_endpoint: tuple[str, Path], proxy: TinyProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    url, cert = tls_endpoint
    monkeypatch.setenv("HTTPS_PROXY", proxy.url)
    with dynabase.endpoint(url, region=REGION, verify=str(cert), **FAKE_CREDENTIALS) as client:
        client.list_tables()
    assert len(proxy.requests) == 1
    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
    with dynabase.endpoint(url, region=REGION, verify=str(cert), **FAKE_CREDENTIALS) as client:
        client.list_tables()
    assert len(proxy.requests) == 1  # bypassed
    monkeypatch.delenv("NO_PROXY")
    with dynabase.endpoint(url, region=REGION, verify=str(cert), proxies={}, **FAKE_CREDENTIALS) as client:
        client.list_tables()  # an explicit mapping without https: no proxy, whatever the environment says
    assert len(proxy.requests) == 1


def test_http_through_a_proxy_is_forwarded_with_credentials(serve_url: str) -> None:
    expected = "Basic " + base64.b64encode(b"me:s3cr:t").decode()
    server = TinyProxy(require=expected)
    try:
        proxy_url = server.url.replace("http://", "http://me:s3cr%3At@")
        with dynabase.endpoint(
            serve_url, region=REGION, proxies={"http": proxy_url}, **FAKE_CREDENTIALS
        ) as c:
            assert _round_trip(c, "forwarded")["sk"] == {"S": "s"}
        line, headers = server.requests[0]
        assert line.startswith(f"POST {serve_url}/ HTTP/1.1")
        assert headers["proxy-authorization"] == expected
        wrong = server.url.replace("http://", "http://me:wrong@")
        with (
            dynabase.endpoint(
                serve_url.replace("http://", "https://"),
                region=REGION,
                proxies={"https": wrong},
                max_attempts=1,
                **FAKE_CREDENTIALS,
            ) as client,
            pytest.raises(ProxyConnectionError) as caught,
        ):
            client.list_tables()
        assert "wrong" not in str(caught.value) and "407" in repr(caught.value.kwargs["error"])
    finally:
        server.stop()


def test_an_unreachable_proxy_is_named() -> None:
    spare = socket.create_server(("127.0.0.1", 0))
    port = spare.getsockname()[1]
    spare.close()
    client = dynabase.endpoint(
        "https://127.0.0.1:1", region=REGION, proxies={"https": f"http://127.0.0.1:{port}"}, max_attempts=1,
        **FAKE_CREDENTIALS,
    )  # fmt: skip
    with pytest.raises(ProxyConnectionError, match=f"127.0.0.1:{port}"):
        client.list_tables()
    with pytest.raises(ValueError, match="proxy URL"):
        dynabase.endpoint(
            "https://127.0.0.1:1", region=REGION, proxies={"https": "socks5://x:1"}, **FAKE_CREDENTIALS
        )
    direct = dynabase.endpoint(f"http://127.0.0.1:{port}", region=REGION, max_attempts=1, **FAKE_CREDENTIALS)
    with pytest.raises(EndpointConnectionError):
        direct.list_tables()


def test_async_client_through_the_tunnel_with_paginators(
    tls_endpoint: tuple[str, Path], proxy: TinyProxy
) -> None:
    url, cert = tls_endpoint

    async def scenario() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with dynabase.endpoint_async(
            url, region=REGION, proxies={"https": proxy.url}, verify=str(cert), **FAKE_CREDENTIALS
        ) as client:
            if "paged" not in (await client.list_tables())["TableNames"]:
                await client.create_table(**table_request("paged", ("pk:S", "sk:S")))
            for i in range(7):
                await client.put_item(TableName="paged", Item={"pk": {"S": "p"}, "sk": {"S": f"s{i}"}})
            paginator = client.get_paginator("query")
            query = {
                "TableName": "paged",
                "KeyConditionExpression": "pk = :p",
                "ExpressionAttributeValues": {":p": {"S": "p"}},
            }
            out["pages"] = [
                [item["sk"]["S"] for item in page["Items"]]
                async for page in paginator.paginate(**query, PaginationConfig={"PageSize": 3})
            ]
            out["search"] = [sk async for sk in paginator.paginate(**query, Limit=2).search("Items[].sk.S")]
            first = await paginator.paginate(
                **query, PaginationConfig={"MaxItems": 4, "PageSize": 3}
            ).build_full_result()
            out["first"] = [item["sk"]["S"] for item in first["Items"]]
            rest = await paginator.paginate(
                **query, PaginationConfig={"StartingToken": first["NextToken"], "PageSize": 3}
            ).build_full_result()
            out["rest"] = [item["sk"]["S"] for item in rest["Items"]]
            out["tables"] = [
                name async for name in client.get_paginator("list_tables").paginate().search("TableNames")
            ]
            out["can"] = (client.can_paginate("scan"), client.can_paginate("put_item"))
            with pytest.raises(OperationNotPageableError):
                client.get_paginator("put_item")
            with pytest.raises(TypeError, match="async for"):
                list(paginator.paginate(**query))
        return out

    out = asyncio.run(scenario())
    assert out["pages"] == [["s0", "s1", "s2"], ["s3", "s4", "s5"], ["s6"]]
    assert out["search"] == [f"s{i}" for i in range(7)]
    assert out["first"] == ["s0", "s1", "s2", "s3"]
    assert out["rest"] == ["s4", "s5", "s6"]
    assert "paged" in out["tables"]
    assert out["can"] == (True, False)
    assert proxy.requests and all(line.startswith("CONNECT ") for line, _ in proxy.requests)


def test_async_client_checks_certificates(
    tls_endpoint: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, cert = tls_endpoint

    async def tables(**options: Any) -> list[str]:
        async with dynabase.endpoint_async(
            url, region=REGION, max_attempts=1, **options, **FAKE_CREDENTIALS
        ) as c:
            return (await c.list_tables())["TableNames"]

    with pytest.raises(SSLError):
        asyncio.run(tables())
    assert isinstance(asyncio.run(tables(verify=False)), list)
    monkeypatch.setenv("AWS_CA_BUNDLE", str(cert))
    assert isinstance(asyncio.run(tables()), list)


def test_environment_untouched() -> None:
    assert not any(os.environ.get(name) for name in PROXY_ENV)
