"""Compressed requests and responses: botocore's request compression sends ``Content-Encoding: gzip`` bodies;
the server decodes gzip and deflate, refuses a body that is not what its encoding says, and compresses its
answer for a client that sends ``Accept-Encoding: gzip`` (the CRC32 header covers the bytes sent, as the
service's does)."""

from __future__ import annotations

import gzip
import json
import zlib

import pytest

from .helpers import TARGET, assert_service_error, boto_client, raw_request

BODY = json.dumps({"Limit": 5}).encode()


@pytest.mark.parametrize(
    "encoding, encode",
    [
        ("gzip", gzip.compress),
        ("deflate", zlib.compress),
        (
            "deflate",
            lambda data: zlib.compress(data, wbits=-zlib.MAX_WBITS),
        ),  # raw deflate, as some clients send
    ],
)
def test_compressed_request(server: str, encoding: str, encode) -> None:
    response = raw_request(
        server, TARGET + "ListTables", encode(BODY), headers={"Content-Encoding": encoding}
    )
    assert response.status == 200, response
    assert "TableNames" in response.json()


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
def test_malformed_compressed_request(server: str, encoding: str) -> None:
    response = raw_request(server, TARGET + "ListTables", BODY, headers={"Content-Encoding": encoding})
    body = assert_service_error(response, "SerializationException")
    assert body["Message"] == f"The request body is not valid {encoding} data"


def test_truncated_gzip_request(server: str) -> None:
    response = raw_request(
        server, TARGET + "ListTables", gzip.compress(BODY)[:-6], headers={"Content-Encoding": "gzip"}
    )
    assert_service_error(response, "SerializationException")


def test_unknown_encoding(server: str) -> None:
    response = raw_request(server, TARGET + "ListTables", BODY, headers={"Content-Encoding": "br"})
    body = assert_service_error(response, "SerializationException")
    assert body["Message"] == "Unsupported Content-Encoding: br"


def test_decompressed_size_is_limited(server: str) -> None:
    from dynabase.server.app import MAX_REQUEST_BYTES

    bomb = gzip.compress(b" " * (MAX_REQUEST_BYTES + 1))  # 16 MiB of blanks in ~16 KiB
    response = raw_request(server, TARGET + "ListTables", bomb, headers={"Content-Encoding": "gzip"})
    assert response.status == 413, response


def test_gzip_response_when_asked(server: str) -> None:
    response = raw_request(server, TARGET + "ListTables", BODY, headers={"Accept-Encoding": "gzip"})
    assert response.status == 200
    assert response.headers.get("content-encoding") == "gzip"
    assert int(response.headers["x-amz-crc32"]) == zlib.crc32(response.body)
    assert "TableNames" in json.loads(gzip.decompress(response.body))


def test_errors_are_compressed_too(server: str) -> None:
    response = raw_request(server, TARGET + "DescribeTable", b"{}", headers={"Accept-Encoding": "gzip"})
    assert response.status == 400
    assert response.headers.get("content-encoding") == "gzip"
    assert json.loads(gzip.decompress(response.body))["__type"].endswith("ValidationException")


def test_plain_response_by_default(server: str) -> None:
    response = raw_request(server, TARGET + "ListTables", BODY)
    assert "content-encoding" not in response.headers
    assert "TableNames" in response.json()


def test_botocore_request_compression(server: str) -> None:
    """botocore compresses request bodies over a threshold when told to (``request_min_compression_size_bytes``);
    DynamoDB's model does not ask for it, so this sends through the same path by hand: a boto3 client still
    reads the server's answers."""
    client = boto_client(server)
    name = "compressed-requests"
    client.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    try:
        item = {"pk": {"S": "a"}, "text": {"S": "x" * 5000}}
        body = gzip.compress(json.dumps({"TableName": name, "Item": item}).encode())
        response = raw_request(server, TARGET + "PutItem", body, headers={"Content-Encoding": "gzip"})
        assert response.status == 200, response
        assert client.get_item(TableName=name, Key={"pk": {"S": "a"}})["Item"] == item
    finally:
        client.delete_table(TableName=name)


@pytest.mark.parametrize(
    "accept, compressed",
    [
        ("gzip", True),
        ("deflate, gzip;q=0.5", True),
        ("*", False),  # compression only when the client names gzip
        ("identity, gzip;q=0", False),
        ("gzip;q=0.000", False),
        ("br", False),
    ],
)
def test_accept_encoding_qualities(server: str, accept: str, compressed: bool) -> None:
    response = raw_request(server, TARGET + "ListTables", BODY, headers={"Accept-Encoding": accept})
    assert (response.headers.get("content-encoding") == "gzip") is compressed
    body = gzip.decompress(response.body) if compressed else response.body
    assert "TableNames" in json.loads(body)
