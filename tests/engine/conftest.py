"""Fixtures of the engine tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dynabase.engine import Engine


@pytest.fixture
def engine() -> Iterator[Engine]:
    """An in-memory engine with one table, ``things``, keyed by the string ``pk`` (a module may define its own)."""
    instance = Engine(":memory:")
    instance.call(
        "CreateTable",
        {
            "TableName": "things",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "BillingMode": "PAY_PER_REQUEST",
        },
    )
    yield instance
    instance.close()
