"""Malformed and hostile requests: every one gets a DynamoDB-shaped error, and the server stays healthy."""

from __future__ import annotations

import json
import socket
import threading
import time
from typing import Any
from urllib.parse import urlsplit

import pytest

from .helpers import (
    TARGET,
    assert_healthy,
    assert_service_error,
    raw_request,
    raw_socket_exchange,
)

SER = "SerializationException"


@pytest.fixture(autouse=True)
def _still_healthy_after(server: str) -> Any:
    yield
    assert_healthy(server)


@pytest.fixture(scope="module")
def table(ddb: Any) -> str:
    name = "hostile-table"
    ddb.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    return name


# -- routing --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "code"),
    [
        (TARGET + "NoSuchOperation", "UnknownOperationException"),
        (None, "UnknownOperationException"),
        ("", "UnknownOperationException"),
        ("garbage", "UnknownOperationException"),
        ("DynamoDB_20120810", "UnknownOperationException"),
        ("DynamoDB_20120810.", "UnknownOperationException"),
        ("Other_20120810.ListTables", "UnknownOperationException"),
        ("DynamoDBStreams_20120810.NoSuchOperation", "UnknownOperationException"),
        ("DynamoDBStreams_20120810.ListTables", "UnknownOperationException"),  # a DynamoDB op under Streams
        ("DynamoDB_20111205.ListTables", "InvalidAction"),
        (TARGET + "ListTables\u00e9", "UnknownOperationException"),
    ],
)
def test_bad_targets(server: str, target: str | None, code: str) -> None:
    assert_service_error(raw_request(server, target), code)


def test_missing_authorization_is_refused_like_dynamodb_local(server: str) -> None:
    body = assert_service_error(raw_request(server, auth=False), "MissingAuthenticationToken")
    assert body["Message"].startswith("Request must contain either a valid (registered) AWS access key ID")


@pytest.mark.parametrize(
    "header",
    [
        "garbage",
        "AWS4-HMAC-SHA256",
        "AWS4-HMAC-SHA256 Credential=onlykey",
        "Bearer x",
        "AWS4-HMAC-SHA256 Credential=a/b/c/d/e, =, ,,,",
    ],
)
def test_odd_authorization_headers_are_tolerated_without_verification(server: str, header: str) -> None:
    assert raw_request(server, headers={"Authorization": header}).status == 200


def test_get_and_head(server: str) -> None:
    # AWS answers an unsigned GET / as a health check, its trailing space included (DynamoDB Local: 400
    # MissingAuthenticationToken); ref: architect/dynalite test/connection.js, whose suite runs against AWS
    health = raw_request(server, None, None, method="GET", auth=False)
    assert (health.status, health.body) == (200, b"healthy: dynamodb.us-east-1.amazonaws.com ")
    assert_service_error(raw_request(server, None, None, method="GET"), "UnknownOperationException")
    head = raw_request(server, None, None, method="HEAD", auth=False)
    assert head.status == 200 and head.body == b""
    health = raw_request(server, None, None, method="GET", path="/healthz", auth=False)
    assert (health.status, health.body) == (200, b"healthy: dynabase")


def test_other_paths_and_methods_are_served_like_local(server: str) -> None:
    assert raw_request(server, path="/some/path").status == 200
    assert raw_request(server, method="PUT").status == 200


def test_options_without_origin_is_not_a_preflight(server: str) -> None:
    # (origins and CORS: tests/server/test_access.py)
    assert_service_error(raw_request(server, None, None, method="OPTIONS", auth=False), "ValidationException")


# -- bodies ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"{",
        b"{bad json",
        b"[]",
        b"null",
        b'"text"',
        b"42",
        b"true",
        b"{}{}",
        b'{"a":NaN}',
        b'{"a":Infinity}',
        b"\xff\xfe\x00",
        b'{"Limit": 1e999}',
        b"\xef\xbb\xbf{}",
        b"{'a': 1}",
    ],
)
def test_malformed_bodies_are_serialization_errors(server: str, body: bytes) -> None:
    assert_service_error(raw_request(server, body=body), SER)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b'{"Limit": "5"}', "class java.lang.String can not be converted to an Integer"),
        (b'{"Limit": true}', "class java.lang.Boolean can not be converted to an Integer"),
        (b'{"Limit": [1]}', "Start of list found where not expected"),
        (b'{"Limit": {"a": 1}}', "Start of structure or map found where not expected."),
        (b'{"ExclusiveStartTableName": 5}', "class java.lang.Short can not be converted to an String"),
        (b'{"ExclusiveStartTableName": 100000}', "class java.lang.Integer can not be converted to an String"),
        (b'{"ExclusiveStartTableName": 1.5}', "class java.lang.Double can not be converted to an String"),
        (b'{"ExclusiveStartTableName": false}', "class java.lang.Boolean can not be converted to an String"),
    ],
)
def test_wrong_json_types_use_the_services_messages(server: str, body: bytes, message: str) -> None:
    assert assert_service_error(raw_request(server, body=body), SER)["Message"] == message


def test_json_types_the_service_accepts(server: str) -> None:
    assert (
        raw_request(server, body=b'{"Limit": 5.7}').status == 200
    )  # floats are truncated, as the service does
    assert raw_request(server, body=b'{"Limit": null, "Unknown": {"x": [1]}}').status == 200  # ignored


@pytest.mark.parametrize(
    ("item", "message_start"),
    [
        ('{"pk": {"S": 5}}', "class java.lang.Short can not be converted to an String"),
        ('{"pk": {"S": "a"}, "n": {"N": 5}}', "class java.lang.Short can not be converted to an String"),
        ('{"pk": {"S": "a"}, "b": {"B": 5}}', "class java.lang.Short can not be converted to a Blob"),
        (
            '{"pk": {"S": "a"}, "b": {"B": "!!!!"}}',
            "'!!!!' can not be converted to a Blob: Invalid Base64 character: '!'",
        ),
        (
            '{"pk": {"S": "a"}, "b": {"B": "abc"}}',
            "'abc' can not be converted to a Blob: Base64 encoded length",
        ),
        (
            '{"pk": {"S": "a"}, "b": {"B": "AB=="}}',
            "'AB==' can not be converted to a Blob: Invalid last non-pad",
        ),
        (
            '{"pk": {"S": "a"}, "b": {"BS": ["AA==", 7]}}',
            "class java.lang.Short can not be converted to a Blob",
        ),
        ('{"pk": {"S": "a"}, "m": {"M": []}}', "Start of list found where not expected"),
        ('{"pk": {"S": "a"}, "l": {"L": {}}}', "Start of structure or map found where not expected."),
        ('{"pk": {"S": "a"}, "s": {"SS": "x"}}', "Expected list or null"),
        ('{"pk": {"S": "a"}, "x": {"BOOL": "yes"}}', "'YES' can not be converted to an Boolean"),
        ('{"pk": {"S": "a"}, "x": "plain"}', "Expected null"),
        ('"item"', "Expected map or null"),
    ],
)
def test_attribute_value_type_errors(server: str, table: str, item: str, message_start: str) -> None:
    body = f'{{"TableName": "{table}", "Item": {item}}}'.encode()
    error = assert_service_error(raw_request(server, TARGET + "PutItem", body), SER)
    assert error["Message"].startswith(message_start), error


def test_invalid_attribute_values_are_the_engines_validation_errors(server: str, table: str) -> None:
    for item in (
        '{"pk": {"S": "a"}, "x": {}}',
        '{"pk": {"S": "a"}, "x": {"S": "a", "N": "1"}}',
        '{"pk": {"S": "a"}, "x": {"Q": "1"}}',
        '{"pk": {"S": "a"}, "x": {"L": [null]}}',
    ):
        body = f'{{"TableName": "{table}", "Item": {item}}}'.encode()
        assert_service_error(raw_request(server, TARGET + "PutItem", body), "ValidationException")


def test_deep_nesting(server: str, table: str) -> None:
    deep_json = b"[" * 100_000 + b"]" * 100_000
    assert_service_error(raw_request(server, body=deep_json), SER)
    deep_object = b'{"a":' * 50_000 + b"1" + b"}" * 50_000
    assert_service_error(raw_request(server, body=deep_object), SER)
    for depth in (200, 2000):
        value = '{"M": {"a": ' * depth + '{"S": "x"}' + "}}" * depth
        body = f'{{"TableName": "{table}", "Item": {{"pk": {{"S": "deep"}}, "v": {value}}}}}'.encode()
        response = raw_request(server, TARGET + "PutItem", body)
        assert response.status == 400, response
        assert response.json()["__type"].rpartition("#")[2] in ("ValidationException", SER)


def test_body_over_16_mib_is_refused(server: str) -> None:
    body = b'{"TableName":"' + b"a" * (16 * 1024 * 1024 + 10) + b'"}'
    assert_service_error(
        raw_request(server, TARGET + "DescribeTable", body), "RequestEntityTooLargeException", 413
    )
    # a Content-Length over the limit is refused before the body is read
    answer = raw_socket_exchange(
        server, b"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 99999999999\r\n\r\n{}"
    )
    assert answer.startswith(b"HTTP/1.1 413 ")


def test_large_body_under_the_limit_reaches_the_engine(server: str, table: str) -> None:
    big = "x" * (1024 * 1024)
    body = json.dumps({"TableName": table, "Item": {"pk": {"S": "big"}, "v": {"S": big}}}).encode()
    assert_service_error(
        raw_request(server, TARGET + "PutItem", body), "ValidationException"
    )  # > 400 KB item


# -- HTTP framing ---------------------------------------------------------------------------------------------

SIGNED = (
    b"X-Amz-Target: DynamoDB_20120810.ListTables\r\n"
    b"Authorization: AWS4-HMAC-SHA256 Credential=k/20240101/us-east-1/dynamodb/aws4_request, "
    b"SignedHeaders=host, Signature=0\r\n"
)


@pytest.mark.parametrize(
    ("payload", "status"),
    [
        (b"GARBAGE\r\n\r\n", b"400"),
        (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", b"400"),  # a TLS hello
        (b"POST / HTTP/2.0\r\nHost: localhost\r\n\r\n", b"505"),
        (b"POST / HTTP/1.1\r\nBad Header Line\r\n\r\n", b"400"),
        (b"POST / HTTP/1.1\r\nContent-Length: abc\r\n\r\n", b"400"),
        (b"POST / HTTP/1.1\r\nContent-Length: -5\r\n\r\n", b"400"),
        (b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", b"400"),
        (b"POST / HTTP/1.1\r\nX-Big: " + b"a" * 70_000 + b"\r\n\r\n", b"431"),
    ],
    ids=[
        "garbage",
        "tls-hello",
        "http2",
        "bad-header",
        "bad-length",
        "negative-length",
        "bad-chunk",
        "huge-header",
    ],
)
def test_malformed_http(server: str, payload: bytes, status: bytes) -> None:
    answer = raw_socket_exchange(server, payload)
    assert answer.startswith(b"HTTP/1.1 " + status), answer[:200]
    assert b"Connection: close" in answer


def test_client_disconnects_mid_request(server: str) -> None:
    for partial in (
        b'POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n{"a"',
        b"POST / HTT",
        b"",
    ):
        parts = urlsplit(server)
        with socket.create_connection((parts.hostname, parts.port)) as sock:
            sock.sendall(partial)


def test_chunked_body_and_expect_continue(server: str) -> None:
    chunked = (
        b"POST / HTTP/1.1\r\nHost: localhost\r\n"
        + SIGNED
        + b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n1\r\n{\r\n1;ext=1\r\n}\r\n0\r\nTrailer: x\r\n\r\n"
    )
    answer = raw_socket_exchange(server, chunked)
    assert answer.startswith(b"HTTP/1.1 200 "), answer
    assert answer.endswith(b'{"TableNames":[]}') or b'"TableNames"' in answer
    parts = urlsplit(server)
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
        sock.sendall(
            b"POST / HTTP/1.1\r\nHost: localhost\r\n"
            + SIGNED
            + b"Expect: 100-continue\r\nContent-Length: 2\r\n\r\n"
        )
        assert sock.recv(1024).startswith(b"HTTP/1.1 100 Continue")
        sock.sendall(b"{}")
        assert sock.recv(65536).startswith(b"HTTP/1.1 200 ")


def test_keep_alive_pipelining_and_http_1_0(server: str) -> None:
    request = b"POST / HTTP/1.1\r\nHost: localhost\r\n" + SIGNED + b"Content-Length: 2\r\n\r\n{}"
    parts = urlsplit(server)
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
        sock.sendall(request * 3)
        data = b""
        deadline = time.monotonic() + 10
        while data.count(b"HTTP/1.1 200 ") < 3 and time.monotonic() < deadline:
            data += sock.recv(65536)
        assert data.count(b"HTTP/1.1 200 ") == 3
        sock.sendall(request)  # the connection is still open
        assert sock.recv(65536).startswith(b"HTTP/1.1 200 ")
    answer = raw_socket_exchange(
        server, b"POST / HTTP/1.0\r\nHost: localhost\r\n" + SIGNED + b"Content-Length: 2\r\n\r\n{}"
    )
    assert answer.startswith(b"HTTP/1.1 200 ") and b"Connection: close" in answer


def test_many_concurrent_connections(server: str) -> None:
    errors: list[BaseException] = []
    statuses: list[int] = []

    def worker() -> None:
        try:
            for _ in range(10):
                statuses.append(raw_request(server).status)
        except BaseException as error:  # noqa: BLE001
            errors.append(error)

    threads = [threading.Thread(target=worker) for _ in range(40)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors
    assert statuses == [200] * 400


def test_idle_connections_do_not_block_others(server: str) -> None:
    parts = urlsplit(server)
    idle = [socket.create_connection((parts.hostname, parts.port)) for _ in range(50)]
    try:
        assert_healthy(server)
    finally:
        for sock in idle:
            sock.close()
