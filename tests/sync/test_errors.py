"""Which endpoint failures sync retries (throttling, 5xx, connection) and which stop it (credentials)."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from botocore.exceptions import ClientError, EndpointConnectionError, NoCredentialsError

import dynabase
from dynabase.model import Table
from dynabase.sync import Sync
from dynabase.sync.errors import classify

from .test_sync import SCHEMA


def _error(code: str, status: int) -> ClientError:
    return ClientError(
        {"Error": {"Code": code, "Message": "m"}, "ResponseMetadata": {"HTTPStatusCode": status}}, "PutItem"
    )


@pytest.mark.parametrize(
    ("error", "retryable", "words"),
    [
        (_error("ProvisionedThroughputExceededException", 400), True, "busy"),
        (_error("ThrottlingException", 400), True, "busy"),
        (_error("InternalServerError", 500), True, "busy"),
        (_error("ServiceUnavailable", 503), True, "busy"),
        (EndpointConnectionError(endpoint_url="http://x"), True, "cannot reach"),
        (_error("UnrecognizedClientException", 400), False, "credentials"),
        (_error("ExpiredTokenException", 400), False, "credentials"),
        (_error("AccessDeniedException", 400), False, "credentials"),
        (NoCredentialsError(), False, "credentials"),
        (_error("ResourceNotFoundException", 400), False, "not found"),
        (_error("ValidationException", 400), False, "refused"),
    ],
)
def test_classify(error: Exception, retryable: bool, words: str) -> None:
    failure = classify(error, "http://cloud")
    assert failure.retryable is retryable and words in str(failure)


def test_the_loop_rides_out_throttling_and_pushes(monkeypatch: Any) -> None:
    cloud = Table("throttled", dynabase.connect(":memory:"), SCHEMA, side="cloud")
    cloud.create_table()
    device = Table("throttled", dynabase.connect(":memory:"), SCHEMA, side="device")
    sync = Sync(device, cloud, device_id="d")
    device.Note.create({"id": "a", "text": "x"})
    real = cloud.client.put_item
    failures = [_error("ThrottlingException", 400), _error("InternalServerError", 500)]

    def flaky(**request: Any) -> Any:
        if failures:
            raise failures.pop(0)
        return real(**request)

    monkeypatch.setattr(cloud.client, "put_item", flaky)
    stop = threading.Event()
    thread = threading.Thread(target=sync.run, kwargs={"interval": 0.05, "stop": stop})
    thread.start()
    deadline = time.time() + 10
    while cloud.Note.get({"id": "a"}) is None and time.time() < deadline:
        time.sleep(0.05)
    stop.set()
    thread.join(10)
    assert cloud.Note.get({"id": "a"})["text"] == "x" and not failures and sync.pending() == 0
