"""Compressed requests and responses: botocore's request compression sends ``Content-Encoding: gzip`` bodies;
the server decodes gzip and deflate, refuses a body that is not what its encoding says, and compresses its
answer for a client that sends ``Accept-Encoding: gzip`` (the CRC32 header covers the bytes sent, as the
service's does)."""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Callable
from typing import Any

import pytest

from dynabase.server.compression import THRESHOLD

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


@pytest.fixture
def big_item(server: str, ddb: Any, make_table: Any) -> Callable[..., Any]:
    """``get(headers, size=5000)``: a raw GetItem whose answer is ``size`` bytes long, on a table of its own."""
    name = make_table()
    request = json.dumps({"TableName": name, "Key": {"pk": {"S": "a"}}}).encode()

    def get(headers: dict[str, str | None], size: int = 5000, overhead: int = 0) -> Any:
        ddb.put_item(TableName=name, Item={"pk": {"S": "a"}, "x": {"S": "x" * (size - overhead)}})
        return raw_request(server, TARGET + "GetItem", request, headers=headers)

    overhead = len(get({}, size=0).body)  # the answer around an empty x
    return lambda headers, size=5000: get(headers, size, overhead)


def _decoded_answer(response: Any) -> bytes:
    coding = response.headers.get("content-encoding")
    return {None: bytes, "gzip": gzip.decompress, "deflate": zlib.decompress}[coding](response.body)


@pytest.mark.parametrize("coding", ["gzip", "deflate"])
def test_answer_compressed_when_asked(big_item, coding: str) -> None:
    response = big_item({"Accept-Encoding": coding})
    assert response.status == 200
    assert response.headers.get("content-encoding") == coding
    assert int(response.headers["x-amz-crc32"]) == zlib.crc32(response.body)
    assert len(json.loads(_decoded_answer(response))["Item"]["x"]["S"]) > 4000


def test_small_answers_are_never_compressed(server: str) -> None:
    # a 2-byte {} or a short error gzipped breaks clients that ask for gzip but do not decompress
    for target, body in (("ListTables", BODY), ("DescribeTable", b"{}")):
        response = raw_request(server, TARGET + target, body, headers={"Accept-Encoding": "gzip, deflate"})
        assert "content-encoding" not in response.headers
        assert json.loads(response.body)


def test_compression_threshold(big_item) -> None:
    below = big_item({"Accept-Encoding": "gzip"}, size=THRESHOLD - 1)
    assert "content-encoding" not in below.headers and len(below.body) == THRESHOLD - 1
    at = big_item({"Accept-Encoding": "gzip"}, size=THRESHOLD)
    assert at.headers.get("content-encoding") == "gzip" and len(gzip.decompress(at.body)) == THRESHOLD


def test_plain_response_by_default(big_item) -> None:
    response = big_item({})
    assert "content-encoding" not in response.headers
    assert json.loads(response.body)["Item"]


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


#: Accept-Encoding and the coding DynamoDB answers in: scylladb's test/alternator/test_compressed_response.py
#: (test_compressed_response_accept_encodings), run against the service
ACCEPT_ENCODINGS = [
    ("identity", None),
    ("", None),
    ("br", None),
    ("x-gzip", None),
    ("gzip, deflate", "gzip"),
    ("br, identity, deflate, gzip", "deflate"),
    ("GZIP, identity", "gzip"),
    ("dog, gzip ,, cat", "gzip"),
    ("gzip;q=0.8, deflate;q=0.5", "gzip"),
    ("br, gzip;q=0, deflate; q = 0.5 , identity;q=0", "deflate"),
    ("*", "gzip"),
    ("*, deflate;q=0.5", "gzip"),
    ("*, deflate", "deflate"),
    ("*, gzip;q=0.5", "deflate"),
    ("gzip ;q=0", None),
    ("*;q=0", None),
    ("*;q=0.5,identity", "gzip"),
    ("br;q=0.8,identity;q=0.5,*;q=0", None),
    ('"gzip"', None),
    ("gzip br", None),
    ("gzip:q=1", None),
    ("deflate;q=0.5, gzip;q=31", "gzip"),
    ("gzip;q=31,deflate;q=51", "gzip"),
    ("deflate;q=0.5, gzip;q=1;q=0.2", "gzip"),
    ("deflate;q=0.5,gzip;q=0.", "deflate"),
    ("deflate;q=0.5,gzip;q=0.x", "gzip"),
    ("deflate;q=-0.5,gzip;q=0.2", "gzip"),
    ("gzip;nq=1;q=0 ", None),
    ("gzip;q=0, gzip;q=1, gzip;q=0", "gzip"),
    ("br,identity;q=0.5,gzip;q=0.0001", "gzip"),
]


@pytest.mark.parametrize("accept, coding", ACCEPT_ENCODINGS)
def test_accept_encoding_as_dynamodb_reads_it(big_item, accept: str, coding: str | None) -> None:
    response = big_item({"Accept-Encoding": accept})
    assert response.headers.get("content-encoding") == coding
    assert json.loads(_decoded_answer(response))["Item"]


def test_concatenated_gzip_members(server: str) -> None:
    # RFC 1952 allows members one after another; DynamoDB reads them (scylladb's test_compressed_request.py,
    # test_gzip_request_two_gzips, run against the service)
    body = gzip.compress(BODY[:5]) + gzip.compress(BODY[5:])
    response = raw_request(server, TARGET + "ListTables", body, headers={"Content-Encoding": "gzip"})
    assert response.status == 200, response
    assert "TableNames" in response.json()


def test_garbage_after_a_gzip_member(server: str) -> None:
    body = gzip.compress(BODY) + b"junk"
    response = raw_request(server, TARGET + "ListTables", body, headers={"Content-Encoding": "gzip"})
    assert_service_error(response, "SerializationException")
