"""SigV4 and the body: a captured signed request cannot be replayed with another body (issue 10, part 1).

boto3 signs ``content-type;host;x-amz-date;x-amz-target`` only, so the body is covered by the payload hash
alone: the server must hash the bytes it received, never take ``X-Amz-Content-Sha256`` on trust.
"""

from __future__ import annotations

import hashlib
import http.client
import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from dynabase.server.sigv4 import SIGNATURE_MISMATCH, AuthError, Verifier

from .helpers import TARGET, RawResponse, assert_service_error, boto_client, new_engine

KEY, SECRET = "AKIDREPLAY", "replay-secret"
TABLE = "replayed"


@pytest.fixture(scope="module")
def secured() -> Iterator[str]:
    from dynabase.server import run_in_thread

    engine = new_engine()
    url, stop = run_in_thread(engine, credentials={KEY: SECRET})
    client = boto_client(url, key=KEY, secret=SECRET)
    client.create_table(
        TableName=TABLE,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    client.put_item(TableName=TABLE, Item={"pk": {"S": "public"}, "v": {"S": "anyone may read this"}})
    client.put_item(TableName=TABLE, Item={"pk": {"S": "secret"}, "v": {"S": "the crown jewels"}})
    yield url
    stop()
    engine.close()


def _captured(url: str, call: Any) -> tuple[dict[str, str], bytes]:
    """The headers and body of the request a boto3 call sent (as a network observer would see them)."""
    client = boto_client(url, key=KEY, secret=SECRET)
    seen: list[Any] = []
    client.meta.events.register("before-send.dynamodb.*", lambda request, **_: seen.append(request))
    call(client)
    request = seen[-1]
    headers = {
        k: v.decode() if isinstance(v, bytes) else v
        for k, v in request.headers.items()
        if k.lower() not in ("host", "content-length")
    }
    return headers, request.body if isinstance(request.body, bytes) else request.body.encode()


def _replay(url: str, headers: dict[str, str], body: bytes) -> RawResponse:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        conn.request("POST", "/", body=body, headers=headers)
        response = conn.getresponse()
        return RawResponse(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
    finally:
        conn.close()


def _stored(url: str, pk: str) -> dict[str, Any]:
    return boto_client(url, key=KEY, secret=SECRET).get_item(TableName=TABLE, Key={"pk": {"S": pk}})["Item"]


def test_replayed_get_item_cannot_read_another_item(secured: str) -> None:
    headers, body = _captured(secured, lambda c: c.get_item(TableName=TABLE, Key={"pk": {"S": "public"}}))
    assert "x-amz-content-sha256" not in {k.lower() for k in headers}  # boto3 does not send it to DynamoDB
    original = _replay(secured, headers, body)  # the captured request itself is still good within 15 min
    assert original.status == 200 and original.json()["Item"]["pk"] == {"S": "public"}, original
    stolen = json.dumps({"TableName": TABLE, "Key": {"pk": {"S": "secret"}}}).encode()
    for extra in ({}, {"X-Amz-Content-Sha256": hashlib.sha256(body).hexdigest()}):
        response = _replay(secured, {**headers, **extra}, stolen)
        error = assert_service_error(response, "InvalidSignatureException")
        assert error["message"] == SIGNATURE_MISMATCH
        assert b"crown jewels" not in response.body


def test_replayed_put_item_cannot_overwrite_another_item(secured: str) -> None:
    headers, body = _captured(
        secured,
        lambda c: c.put_item(
            TableName=TABLE, Item={"pk": {"S": "public"}, "v": {"S": "anyone may read this"}}
        ),
    )
    forged = json.dumps({"TableName": TABLE, "Item": {"pk": {"S": "secret"}, "v": {"S": "pwned"}}}).encode()
    for extra in ({}, {"X-Amz-Content-Sha256": hashlib.sha256(body).hexdigest()}):
        assert_service_error(_replay(secured, {**headers, **extra}, forged), "InvalidSignatureException")
    assert _stored(secured, "secret")["v"] == {"S": "the crown jewels"}
    # a correct hash of the body sent is accepted, in any case of hex digits
    for claimed in (hashlib.sha256(body).hexdigest(), hashlib.sha256(body).hexdigest().upper()):
        response = _replay(secured, {**headers, "X-Amz-Content-Sha256": claimed}, body)
        assert response.status == 200, response


# -- the verifier ----------------------------------------------------------------------------------------------


def _signed_over(payload_hash: str, body: bytes, url: str = "http://127.0.0.1:8000/") -> dict[str, str]:
    """Headers of a request whose signature covers ``payload_hash`` (sent as X-Amz-Content-Sha256)."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    class FixedPayload(SigV4Auth):
        def payload(self, request: Any) -> str:
            return payload_hash

    headers = {
        "X-Amz-Target": TARGET + "ListTables",
        "Content-Type": "application/x-amz-json-1.0",
        "X-Amz-Content-Sha256": payload_hash,
    }
    request = AWSRequest(method="POST", url=url, data=body, headers=headers)
    FixedPayload(Credentials(KEY, SECRET), "dynamodb", "us-east-1").add_auth(request)
    return {"host": "127.0.0.1:8000", **{k.lower(): v for k, v in request.headers.items()}}


@pytest.mark.parametrize(
    "claimed",
    [
        "UNSIGNED-PAYLOAD",
        "STREAMING-AWS4-HMAC-SHA256-PAYLOAD",
        "STREAMING-UNSIGNED-PAYLOAD-TRAILER",
        hashlib.sha256(b'{"Limit": 1}').hexdigest(),  # another body's hash
        "",
    ],
)
def test_a_payload_hash_that_is_not_the_bodys_is_refused(claimed: str) -> None:
    body = b"{}"
    headers = _signed_over(claimed, body)
    with pytest.raises(AuthError) as caught:
        Verifier({KEY: SECRET}).verify("POST", "/", headers, body)
    assert (caught.value.code, caught.value.message) == ("InvalidSignatureException", SIGNATURE_MISMATCH)


def test_a_signed_payload_hash_of_the_body_is_accepted() -> None:
    body = b'{"Limit": 1}'
    headers = _signed_over(hashlib.sha256(body).hexdigest(), body)
    assert Verifier({KEY: SECRET}).verify("POST", "/", headers, body) == (KEY, "us-east-1")
