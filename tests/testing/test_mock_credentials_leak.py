"""The fake credentials a mock puts in the environment do not outlive it in boto3's default session."""

from __future__ import annotations

import boto3
import pytest

from dynabase import mock_dynamodb


def test_the_default_session_forgets_the_mocks_fake_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(boto3, "DEFAULT_SESSION", None)
    with mock_dynamodb():
        client = boto3.client("dynamodb", region_name="us-east-1")
        client.list_tables()
        assert boto3.DEFAULT_SESSION.get_credentials().access_key == "testing"
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "mine")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    assert boto3.DEFAULT_SESSION.get_credentials().access_key == "mine"


def test_credentials_the_user_set_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "mine")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    monkeypatch.setattr(boto3, "DEFAULT_SESSION", None)
    with mock_dynamodb():
        boto3.client("dynamodb", region_name="us-east-1").list_tables()
    assert boto3.DEFAULT_SESSION.get_credentials().access_key == "mine"
