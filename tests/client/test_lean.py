"""The lean client: SigV4 as botocore signs, boto3's answers, exceptions and retries, its connection pool.
(The whole conformance suite runs through it as the ``lean`` backend: ``DYNABASE_BACKENDS=lean``.)"""

from __future__ import annotations

import calendar
import threading
import time

import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.exceptions import (
    ChecksumError,
    ClientError,
    EndpointConnectionError,
    ParamValidationError,
)

import dynabase
from backends import FAKE_CREDENTIALS, REGION, free_loopback_port
from dynabase.client.protocol import Signer
from dynabase.server import run_in_thread

from .conftest import http_response

KEYS = {
    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
    "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
    "BillingMode": "PAY_PER_REQUEST",
}


@pytest.mark.parametrize("token", [None, "session-token"])
def test_signature_is_botocores(token):
    credentials = Credentials("AKIDEXAMPLE", "secret/key", token)
    body = b'{"TableName":"t1"}'
    request = AWSRequest(
        "POST",
        "http://127.0.0.1:8000/",
        data=body,
        headers={"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "DynamoDB_20120810.GetItem"},
    )
    SigV4Auth(credentials, "dynamodb", "eu-west-1").add_auth(request)
    stamp = request.headers["X-Amz-Date"]
    now = calendar.timegm(time.strptime(stamp, "%Y%m%dT%H%M%SZ"))
    ours = Signer(credentials, "eu-west-1", "dynamodb", "127.0.0.1:8000", "/").headers(
        "DynamoDB_20120810.GetItem", body, now=now
    )
    assert f"X-Amz-Date: {stamp}\r\n" in ours
    assert f"Authorization: {request.headers['Authorization']}\r\n" in ours
    if token:
        assert f"X-Amz-Security-Token: {token}\r\n" in ours


def test_signed_requests_pass_a_verifying_server():
    engine = dynabase.Engine(":memory:")
    url, stop = run_in_thread(engine, credentials={"AKIDLEAN": "lean-secret"})
    try:
        good = dynabase.endpoint(
            url, region=REGION, aws_access_key_id="AKIDLEAN", aws_secret_access_key="lean-secret"
        )
        assert good.list_tables()["TableNames"] == []
        bad = dynabase.endpoint(
            url, region=REGION, aws_access_key_id="AKIDLEAN", aws_secret_access_key="wrong"
        )
        with pytest.raises(ClientError) as caught:
            bad.list_tables()
        assert caught.value.response["Error"]["Code"] == "InvalidSignatureException"
    finally:
        stop()
        engine.close()


def test_answers_and_errors_are_boto3s(lean):
    lean.create_table(TableName="lean-basic", **KEYS)
    table = lean.describe_table(TableName="lean-basic")["Table"]
    assert table["CreationDateTime"].tzinfo is not None  # control plane: botocore's parser
    item = {"pk": {"S": "a"}, "n": {"N": "1.50"}, "raw": {"B": b"\x00\xff"}, "text": {"B": "abcd"},
            "bins": {"BS": [b"\x01", b"\x02"]}, "m": {"M": {"B": {"S": "not binary"}}}}  # fmt: skip
    lean.put_item(TableName="lean-basic", Item=item)
    got = lean.get_item(TableName="lean-basic", Key={"pk": {"S": "a"}})
    assert got["Item"]["raw"] == {"B": b"\x00\xff"}
    assert got["Item"]["text"] == {"B": b"abcd"}  # a str blob is utf-8 encoded, as boto3 does
    assert sorted(got["Item"]["bins"]["BS"]) == [b"\x01", b"\x02"]
    assert got["Item"]["m"] == {"M": {"B": {"S": "not binary"}}}
    assert got["ResponseMetadata"]["HTTPStatusCode"] == 200 and got["ResponseMetadata"]["RequestId"]
    with pytest.raises(lean.exceptions.ConditionalCheckFailedException) as caught:
        lean.put_item(TableName="lean-basic", Item={"pk": {"S": "a"}}, ConditionExpression="attribute_not_exists(pk)",
                      ReturnValuesOnConditionCheckFailure="ALL_OLD")  # fmt: skip
    assert caught.value.response["Item"]["raw"] == {"B": b"\x00\xff"}  # modeled error fields, decoded
    with pytest.raises(lean.exceptions.ResourceNotFoundException):
        lean.get_item(TableName="no-such-table", Key={"pk": {"S": "a"}})


@pytest.mark.parametrize(
    "params",
    [
        {"TableName": "lean-basic", "Item": {"pk": {"S": 1}}},  # a bad type deep down
        {"TableName": "lean-basic"},  # a required parameter missing
        {"TableName": "lean-basic", "Item": {"pk": {"S": "x"}}, "Bogus": 1},  # an unknown parameter
        {"TableName": "lean-basic", "Item": {"pk": {"N": 1.5}}},  # a float: boto3 refuses it
    ],
)
def test_bad_parameters_raise_param_validation_error(lean, params):
    with pytest.raises(ParamValidationError):
        lean.put_item(**params)


def test_paginators_and_waiters(lean):
    lean.create_table(TableName="lean-pages", **KEYS)
    lean.get_waiter("table_exists").wait(TableName="lean-pages")
    for n in range(7):
        lean.put_item(TableName="lean-pages", Item={"pk": {"S": f"k{n}"}})
    pages = list(
        lean.get_paginator("scan").paginate(TableName="lean-pages", PaginationConfig={"PageSize": 3})
    )
    assert [page["Count"] for page in pages] == [3, 3, 1]


def test_threads_share_one_client(lean):
    lean.create_table(TableName="lean-threads", **KEYS)

    def work(n: int) -> None:
        for i in range(20):
            lean.put_item(TableName="lean-threads", Item={"pk": {"S": f"{n}-{i}"}})

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert lean.scan(TableName="lean-threads", Select="COUNT")["Count"] == 160
    assert len(lean._idle) <= 10


def test_throttling_is_retried_with_botocores_rules(scripted, monkeypatch):
    throttled = http_response(
        400, b'{"__type":"com.amazonaws.dynamodb.v20120810#ThrottlingException","message":"slow down"}'
    )
    url, received = scripted([throttled, throttled, http_response(200, b'{"TableNames":["t1"]}')])
    monkeypatch.setattr("time.sleep", lambda seconds: None)
    client = dynabase.endpoint(url, region=REGION, max_attempts=3, **FAKE_CREDENTIALS)
    answer = client.list_tables()
    assert answer["TableNames"] == ["t1"] and answer["ResponseMetadata"]["RetryAttempts"] == 2
    assert len(received) == 3

    url, received = scripted([throttled, throttled])
    client = dynabase.endpoint(url, region=REGION, max_attempts=2, **FAKE_CREDENTIALS)
    with pytest.raises(ClientError) as caught:
        client.get_item(TableName="tbl", Key={"pk": {"S": "a"}})  # 3 characters: older models' minimum
    assert caught.value.response["Error"]["Code"] == "ThrottlingException"
    assert caught.value.response["ResponseMetadata"]["RetryAttempts"] == 1 and len(received) == 2


def test_a_validation_error_is_not_retried(scripted):
    invalid = http_response(400, b'{"__type":"com.amazon.coral.validate#ValidationException","message":"no"}')
    url, received = scripted([invalid, invalid])
    client = dynabase.endpoint(url, region=REGION, **FAKE_CREDENTIALS)
    with pytest.raises(ClientError, match="no"):
        client.list_tables()
    assert len(received) == 1


def test_a_corrupted_response_is_retried(scripted, monkeypatch):
    body = b'{"TableNames":[]}'
    corrupt = http_response(200, body, "x-amz-crc32: 12345\r\n")
    url, received = scripted([corrupt, http_response(200, body)])
    monkeypatch.setattr("time.sleep", lambda seconds: None)
    client = dynabase.endpoint(url, region=REGION, **FAKE_CREDENTIALS)
    assert client.list_tables()["TableNames"] == [] and len(received) == 2

    url, received = scripted([corrupt, corrupt])
    client = dynabase.endpoint(url, region=REGION, max_attempts=2, **FAKE_CREDENTIALS)
    with pytest.raises(ChecksumError):  # never the damaged answer
        client.list_tables()
    assert len(received) == 2


def test_a_pooled_connection_closed_by_the_server_is_replaced(scripted):
    body = http_response(200, b'{"TableNames":[]}', "Connection: keep-alive\r\n")
    # the first connection answers once, then is closed without answering the next request
    url, received = scripted([body, None, body])
    client = dynabase.endpoint(url, region=REGION, max_attempts=1, **FAKE_CREDENTIALS)
    assert client.list_tables()["TableNames"] == []
    assert client.list_tables()["TableNames"] == []
    assert len(received) == 3


def test_no_server_is_botocores_connection_error(monkeypatch):
    monkeypatch.setattr("time.sleep", lambda seconds: None)
    client = dynabase.endpoint(f"http://127.0.0.1:{free_loopback_port()}", region=REGION, **FAKE_CREDENTIALS)
    with pytest.raises(EndpointConnectionError):
        client.list_tables()


def test_chunked_responses(scripted):
    chunked = (
        b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n7\r\n{"Table\r\n0b\r\nNames":[]}\r\n0\r\n\r\n'
    )
    url, _ = scripted([chunked])
    client = dynabase.endpoint(url, region=REGION, **FAKE_CREDENTIALS)
    assert client.list_tables()["TableNames"] == []


def test_bad_endpoint_url():
    with pytest.raises(ValueError, match="endpoint URL"):
        dynabase.endpoint("ftp://example.com", region=REGION, **FAKE_CREDENTIALS)


def test_region_name_is_taken_as_boto3_spells_it_and_unknown_options_are_named():
    url = f"http://127.0.0.1:{free_loopback_port()}"
    assert (
        dynabase.endpoint(url, region_name="eu-west-1", **FAKE_CREDENTIALS).protocol.signer.region
        == "eu-west-1"
    )
    assert dynabase.endpoint(
        url, "eu-west-2", region_name="eu-west-2", **FAKE_CREDENTIALS
    ).protocol.signer.region == ("eu-west-2")
    with pytest.raises(ValueError, match="differ"):
        dynabase.endpoint(url, "eu-west-1", region_name="us-east-1", **FAKE_CREDENTIALS)
    with pytest.raises(TypeError, match="unknown option 'aws_secret_key' for a lean client"):
        dynabase.endpoint(url, region=REGION, aws_access_key_id="a", aws_secret_key="b")


def test_a_200_that_is_not_json_is_read_as_boto3_reads_it(scripted):
    """botocore's parser decides (boto3 answers such a body with its metadata only), not an orjson error."""
    url, _ = scripted([http_response(200, b"<html>proxy says hi</html>")])
    client = dynabase.endpoint(url, region=REGION, max_attempts=1, **FAKE_CREDENTIALS)
    answer = client.get_item(TableName="t1", Key={"pk": {"S": "a"}})
    assert "Item" not in answer and answer["ResponseMetadata"]["HTTPStatusCode"] == 200


def test_retries_draw_on_botocores_retry_quota(scripted, monkeypatch):
    """Standard mode's retry quota (500, 5 a retry): once spent, an error is raised without retrying, and the
    response says the attempts ran out where they did."""
    throttled = http_response(
        400, b'{"__type":"com.amazonaws.dynamodb.v20120810#ThrottlingException","message":"slow down"}'
    )
    url, received = scripted([throttled] * 151)
    monkeypatch.setattr("time.sleep", lambda seconds: None)
    client = dynabase.endpoint(url, region=REGION, max_attempts=3, **FAKE_CREDENTIALS)
    for _ in range(50):
        with pytest.raises(ClientError) as caught:
            client.list_tables()
        assert caught.value.response["ResponseMetadata"]["MaxAttemptsReached"] is True
    assert len(received) == 150
    with pytest.raises(ClientError) as caught:
        client.list_tables()
    assert len(received) == 151 and caught.value.response["ResponseMetadata"]["RetryAttempts"] == 0
