"""Fixtures for ``dynabase serve``'s tests: an in-thread server on a fresh in-memory engine, boto3 clients."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from .helpers import boto_client, new_engine


@pytest.fixture(scope="module")
def engine() -> Iterator[Any]:
    instance = new_engine()
    yield instance
    instance.close()


@pytest.fixture(scope="module")
def server(engine: Any) -> Iterator[str]:
    """URL of a server (background thread) on the module's engine."""
    from dynabase.server import run_in_thread

    url, stop = run_in_thread(engine)
    yield url
    stop()


@pytest.fixture(scope="module")
def ddb(server: str) -> Any:
    return boto_client(server)


@pytest.fixture
def make_table(ddb: Any) -> Iterator[Any]:
    """``make_table(("pk:S", "sk:B"), gsi=("status:S", "sk:B"))`` -> a fresh table's name (deleted after)."""
    created: list[str] = []

    def factory(keys: tuple[str, ...] = ("pk:S",), gsi: tuple[str, ...] | None = None) -> str:
        name = f"t-{uuid.uuid4().hex[:12]}"
        definitions: dict[str, str] = {}
        schema = []
        for role, spec in zip(("HASH", "RANGE"), keys, strict=False):
            attr, kind = spec.split(":")
            definitions[attr] = kind
            schema.append({"AttributeName": attr, "KeyType": role})
        params: dict[str, Any] = {}
        if gsi:
            gsi_schema = []
            for role, spec in zip(("HASH", "RANGE"), gsi, strict=False):
                attr, kind = spec.split(":")
                definitions[attr] = kind
                gsi_schema.append({"AttributeName": attr, "KeyType": role})
            params["GlobalSecondaryIndexes"] = [
                {"IndexName": "gsi", "KeySchema": gsi_schema, "Projection": {"ProjectionType": "ALL"}}
            ]
        ddb.create_table(
            TableName=name,
            KeySchema=schema,
            BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": a, "AttributeType": k} for a, k in definitions.items()],
            **params,
        )
        created.append(name)
        return name

    yield factory
    for name in created:
        try:
            ddb.delete_table(TableName=name)
        except Exception:
            pass
