"""SigV4 verification on and off, credentials files, and tables per access key and region."""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError

from dynabase.server.sigv4 import (
    ALGORITHM,
    SIGNATURE_MISMATCH,
    TARGET_UNSIGNED,
    AuthError,
    Verifier,
    load_credentials,
)

from .helpers import assert_service_error, boto_client, new_engine, raw_request

KEY, SECRET = "AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"


def _signed(
    method: str,
    url: str,
    body: bytes,
    headers: dict[str, str],
    key: str = KEY,
    secret: str = SECRET,
    region: str = "us-east-1",
) -> dict[str, str]:
    """Headers of a request signed by botocore's own SigV4 signer."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    request = AWSRequest(method=method, url=url, data=body, headers=headers)
    SigV4Auth(Credentials(key, secret), "dynamodb", region).add_auth(request)
    return {k.lower(): v for k, v in request.headers.items()}


def _verify(
    verifier: Verifier, method: str, url: str, body: bytes, headers: dict[str, str]
) -> tuple[str, str]:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    all_headers = {"host": parts.netloc, **headers}
    return verifier.verify(method, target or "/", all_headers, body)


@pytest.fixture(scope="module")
def secured() -> Iterator[str]:
    from dynabase.server import run_in_thread

    engine = new_engine()
    url, stop = run_in_thread(engine, credentials={KEY: SECRET, "SECONDKEY": "second-secret"})
    yield url
    stop()
    engine.close()


# -- verification against botocore's signer ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "body"),
    [
        ("http://127.0.0.1:8000/", b'{"TableName":"x"}'),
        ("http://localhost:1234/", b""),
        ("http://127.0.0.1:8000/some/path%20with/../spaces", b"{}"),
        ("http://127.0.0.1:8000/?b=2&a=1&a=0&empty=&sp=a%20b", b"{}"),
        ("http://[::1]:8000/", '{"k":"\u00e9"}'.encode()),
    ],
)
def test_verifier_accepts_botocore_signatures(url: str, body: bytes) -> None:
    headers = _signed(
        "POST",
        url,
        body,
        {
            "X-Amz-Target": "DynamoDB_20120810.ListTables",
            "Content-Type": "application/x-amz-json-1.0",
            "X-Amz-Security-Token": "session-token",
        },
    )
    assert _verify(Verifier({KEY: SECRET}), "POST", url, body, headers) == (KEY, "us-east-1")


def test_verifier_refusals() -> None:
    url, body = "http://127.0.0.1:8000/", b"{}"
    good = _signed("POST", url, body, {"X-Amz-Target": "DynamoDB_20120810.ListTables"})
    verifier = Verifier({KEY: SECRET})

    def code(headers: dict[str, str], payload: bytes = body, **kwargs: Any) -> str:
        with pytest.raises(AuthError) as caught:
            _verify(Verifier({KEY: SECRET}, **kwargs) if kwargs else verifier, "POST", url, payload, headers)
        return caught.value.code

    assert (
        code({k: v for k, v in good.items() if k != "authorization"}) == "MissingAuthenticationTokenException"
    )
    assert code({**good, "authorization": "Basic abc"}) == "MissingAuthenticationTokenException"
    assert code(good, b"{ }") == "InvalidSignatureException"  # body changed after signing
    assert code({**good, "x-amz-target": "DynamoDB_20120810.DeleteTable"}) == "InvalidSignatureException"
    assert (
        code({**good, "authorization": good["authorization"].replace(KEY, "UNKNOWNKEY")})
        == "UnrecognizedClientException"
    )
    assert (
        code({**good, "authorization": good["authorization"].split(", Signature=")[0]})
        == "IncompleteSignatureException"
    )
    assert code({k: v for k, v in good.items() if k != "x-amz-date"}) == "IncompleteSignatureException"
    assert (
        code({**good, "authorization": good["authorization"].replace("/dynamodb/", "/s3/")})
        == "InvalidSignatureException"
    )
    later = datetime.datetime.now(datetime.timezone.utc).timestamp() + 20 * 60
    assert code(good, clock=lambda: later) == "InvalidSignatureException"  # expired
    earlier = datetime.datetime.now(datetime.timezone.utc).timestamp() - 20 * 60
    assert code(good, clock=lambda: earlier) == "InvalidSignatureException"  # not yet current


def test_refusal_messages_are_the_services() -> None:
    url, body = "http://127.0.0.1:8000/", b"{}"
    good = _signed("POST", url, body, {"X-Amz-Target": "DynamoDB_20120810.ListTables"})
    verifier = Verifier({KEY: SECRET})
    with pytest.raises(AuthError) as caught:
        _verify(verifier, "POST", url, b"[]", good)
    assert caught.value.wire_body() == {
        "__type": "com.amazon.coral.service#InvalidSignatureException",
        "message": "The request signature we calculated does not match the signature you provided. Check your AWS "
        "Secret Access Key and signing method. Consult the service documentation for details.",
    }
    with pytest.raises(AuthError) as caught:
        _verify(
            verifier, "POST", url, body, {**good, "authorization": good["authorization"].replace(KEY, "NOPE")}
        )
    assert caught.value.message == "The security token included in the request is invalid."
    with pytest.raises(AuthError) as caught:
        _verify(verifier, "POST", url, body, {})
    assert caught.value.message == "Request is missing Authentication Token"


def _with_signature(headers: dict[str, str], signature: str) -> dict[str, str]:
    head, _, _ = headers["authorization"].rpartition("Signature=")
    return {**headers, "authorization": head + "Signature=" + signature}


def test_the_whole_signature_is_compared() -> None:
    """A comparison of a prefix would accept forgeries: each of these differs from the right signature."""
    url, body = "http://127.0.0.1:8000/", b"{}"
    good = _signed("POST", url, body, {"X-Amz-Target": "DynamoDB_20120810.ListTables"})
    right = good["authorization"].rpartition("Signature=")[2]
    assert len(right) == 64
    last = "0" if right[-1] != "0" else "1"
    verifier = Verifier({KEY: SECRET})
    assert _verify(verifier, "POST", url, body, good) == (KEY, "us-east-1")
    assert _verify(verifier, "POST", url, body, _with_signature(good, right.upper()))  # hex in either case
    for forged in (
        right[:-1] + last,  # wrong in its last character
        right[:8],  # truncated
        right[:-1],  # one character short
        right + "0",  # one character long
        right + right,  # twice the length
        right[:-1] + "\u00e9",  # the last character beyond ASCII: was a TypeError, answered 500
        "\u00e9" * 64,
    ):
        with pytest.raises(AuthError) as caught:
            _verify(verifier, "POST", url, body, _with_signature(good, forged))
        assert (caught.value.code, caught.value.message) == ("InvalidSignatureException", SIGNATURE_MISMATCH)


def test_the_target_must_be_signed() -> None:
    """A signature over ``host`` alone would let a captured GetItem be replayed as DeleteItem."""
    url, body = "http://127.0.0.1:8000/", b'{"TableName":"t","Key":{"pk":{"S":"a"}}}'
    signed_without_target = _signed("POST", url, body, {})
    assert "x-amz-target" not in signed_without_target["authorization"].lower()
    verifier = Verifier({KEY: SECRET})
    for operation in ("GetItem", "DeleteItem"):
        headers = {**signed_without_target, "x-amz-target": f"DynamoDB_20120810.{operation}"}
        with pytest.raises(AuthError) as caught:
            _verify(verifier, "POST", url, body, headers)
        assert (caught.value.code, caught.value.message) == ("InvalidSignatureException", TARGET_UNSIGNED)
    signed = _signed("POST", url, body, {"X-Amz-Target": "DynamoDB_20120810.GetItem"})
    assert "x-amz-target" in signed["authorization"]
    assert _verify(verifier, "POST", url, body, signed) == (KEY, "us-east-1")
    with pytest.raises(AuthError):  # the body is covered too: the payload hash is part of what is signed
        _verify(verifier, "POST", url, body.replace(b'"a"', b'"b"'), signed)


# -- a server that verifies ------------------------------------------------------------------------------------


def test_signed_clients_work_and_others_are_refused(secured: str) -> None:
    good = boto_client(secured, key=KEY, secret=SECRET)
    good.create_table(
        TableName="signed",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "B"}],
        BillingMode="PAY_PER_REQUEST",
    )
    good.put_item(TableName="signed", Item={"pk": {"B": b"\x00"}})
    assert boto_client(secured, key="SECONDKEY", secret="second-secret").get_item(
        TableName="signed", Key={"pk": {"B": b"\x00"}}
    )["Item"] == {"pk": {"B": b"\x00"}}
    for key, secret, expected in (
        (KEY, "wrong", "InvalidSignatureException"),
        ("NOSUCHKEY", SECRET, "UnrecognizedClientException"),
    ):
        with pytest.raises(ClientError) as caught:
            boto_client(secured, key=key, secret=secret).list_tables()
        assert caught.value.response["Error"]["Code"] == expected
        assert caught.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    unsigned = raw_request(secured, auth=False)
    assert_service_error(unsigned, "MissingAuthenticationTokenException")
    assert unsigned.json() == {
        "__type": "com.amazon.coral.service#MissingAuthenticationTokenException",
        "message": "Request is missing Authentication Token",
    }
    assert_service_error(raw_request(secured), "InvalidSignatureException")  # a fake signature
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    beyond_ascii = raw_request(
        secured,
        headers={
            "Authorization": f"{ALGORITHM} Credential={KEY}/{stamp[:8]}/us-east-1/dynamodb/aws4_request, "
            "SignedHeaders=host;x-amz-date;x-amz-target, Signature=\u00e9\u00e9",
            "X-Amz-Date": stamp,
        },
        auth=False,
    )
    assert beyond_ascii.status == 400, beyond_ascii  # was a 500 and a logged traceback
    health = raw_request(secured, None, None, method="GET", path="/healthz", auth=False)
    assert health.status == 200


def test_unsigned_boto3_is_refused(secured: str) -> None:
    import boto3
    from botocore import UNSIGNED
    from botocore.config import Config

    client = boto3.client(
        "dynamodb",
        endpoint_url=secured,
        region_name="us-east-1",
        config=Config(signature_version=UNSIGNED, retries={"max_attempts": 1}),
    )
    with pytest.raises(ClientError) as caught:
        client.list_tables()
    assert caught.value.response["Error"]["Code"] == "MissingAuthenticationTokenException"


def test_credentials_files(tmp_path: Any) -> None:
    ini = tmp_path / "credentials"
    ini.write_text(
        "[default]\naws_access_key_id = AK1\naws_secret_access_key = S1\n\n"
        "[other]\naws_access_key_id=AK2\naws_secret_access_key=S/2+x\n[empty]\nregion=x\n"
    )
    assert load_credentials(str(ini)) == {"AK1": "S1", "AK2": "S/2+x"}
    lines = tmp_path / "keys.txt"
    lines.write_text("# comment\nAK1 S1\n\nAK2:S2:with:colons\n")
    assert load_credentials(str(lines)) == {"AK1": "S1", "AK2": "S2:with:colons"}
    bad = tmp_path / "bad.txt"
    bad.write_text("justonetoken\n")
    with pytest.raises(ValueError):
        load_credentials(str(bad))
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing\n")
    with pytest.raises(ValueError):
        load_credentials(str(empty))


# -- shared or per access key and region -------------------------------------------------------------------------


def _names(url: str, key: str, region: str = "us-east-1") -> list[str]:
    return boto_client(url, key=key, region=region).list_tables()["TableNames"]


def _create(url: str, key: str, name: str, region: str = "us-east-1") -> None:
    boto_client(url, key=key, region=region).create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )


def test_tables_are_shared_by_default(server: str) -> None:
    _create(server, "alice", "shared-by-default")
    assert "shared-by-default" in _names(server, "bob", "eu-west-1")


def test_per_key_databases(tmp_path: Any) -> None:
    from dynabase.server import run_in_thread

    url, stop = run_in_thread(db=str(tmp_path / "app.db"), shared_db=False)
    try:
        _create(url, "alice", "alice-table")
        _create(url, "bob", "bob-table")
        _create(url, "alice", "alice-eu", region="eu-west-1")
        assert _names(url, "alice") == ["alice-table"]
        assert _names(url, "bob") == ["bob-table"]
        assert _names(url, "alice", "eu-west-1") == ["alice-eu"]
        arn = boto_client(url, key="alice", region="eu-west-1").describe_table(TableName="alice-eu")["Table"][
            "TableArn"
        ]
        assert ":eu-west-1:" in arn
    finally:
        stop()
    files = sorted(p.name for p in tmp_path.glob("app-*.db"))
    assert files == ["app-alice_eu-west-1.db", "app-alice_us-east-1.db", "app-bob_us-east-1.db"]


def test_per_key_in_memory() -> None:
    from dynabase.server import run_in_thread

    url, stop = run_in_thread(db=":memory:", shared_db=False)
    try:
        _create(url, "k1", "only-k1")
        assert _names(url, "k1") == ["only-k1"]
        assert _names(url, "k2") == []
    finally:
        stop()
