"""``mock_dynamodb`` answers in process: the requests botocore addresses to AWS's endpoint (``Host:
dynamodb.<region>.amazonaws.com``) are served, though ``dynabase serve`` would refuse that Host name."""

from __future__ import annotations

from botocore.awsrequest import AWSRequest

from dynabase.testing.mock import MockDynamoDB, _Activation


def test_the_aws_host_name_is_answered_in_process() -> None:
    activation = _Activation(MockDynamoDB())
    try:
        request = AWSRequest(
            method="POST",
            url="https://dynamodb.eu-west-1.amazonaws.com/",
            data=b"{}",
            headers={
                "Host": "dynamodb.eu-west-1.amazonaws.com",
                "X-Amz-Target": "DynamoDB_20120810.ListTables",
                "Content-Type": "application/x-amz-json-1.0",
                "Authorization": "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20240101/eu-west-1/dynamodb/"
                "aws4_request, SignedHeaders=host, Signature=00",
            },
        )
        answer = activation.answer(request.prepare())
        assert (answer.status_code, answer.content) == (200, b'{"TableNames":[]}')
    finally:
        activation.app.close()
        activation.databases.close()
