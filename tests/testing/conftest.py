"""The mock and plugin tests run with a known region and never reach for real credentials or EC2 metadata."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _aws_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    for name in ("AWS_REGION", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
