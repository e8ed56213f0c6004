"""Shared fixtures: backends (embedded engine, DynamoDB Local, ...), clients and throwaway tables.

Run the conformance suite against DynamoDB Local only::

    DYNABASE_BACKENDS=dynamodb-local python -m pytest tests/conformance

See ``tests/backends.py`` for the backends and the DynamoDB Local knobs.
"""

from __future__ import annotations

import atexit
import os
from collections.abc import Iterator
from typing import Any

import pytest

import ddb_helpers
from backends import (
    BACKEND_FACTORIES,
    Backend,
    DynamoDBLocal,
    boto3_client,
    ensure_dynamodb_local,
    selected_backends,
)
from ddb_helpers import delete_table_quietly
from ddb_helpers import make_table as _make_table


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "local_quirk: asserts a DynamoDB Local behaviour believed to differ from AWS DynamoDB "
        "(the engine copies Local; deselect with -m 'not local_quirk')",
    )
    config.addinivalue_line(
        "markers",
        "aws_only(reason, ref): AWS DynamoDB's behaviour where DynamoDB Local is known to differ (the engine "
        "follows AWS); skipped on DynamoDB Local, with the reference that establishes AWS's answer",
    )


@pytest.fixture(autouse=True)
def _oracle_flag(request: pytest.FixtureRequest) -> Iterator[None]:
    """For tests on a backend: skip ``aws_only`` tests on DynamoDB Local, and tell ``assert_client_error`` when
    Local's listed differences from AWS apply."""
    if "backend" not in request.fixturenames:
        yield
        return
    on_local = request.getfixturevalue("backend").name == "dynamodb-local"
    marker = request.node.get_closest_marker("aws_only")
    if marker is not None and not (marker.kwargs.get("reason") and marker.kwargs.get("ref")):
        pytest.fail("aws_only needs reason= and ref= (where AWS's answer is established)")
    if marker is not None and on_local:
        pytest.skip(f"AWS-only: {marker.kwargs.get('reason', '')} (ref: {marker.kwargs.get('ref', '')})")
    ddb_helpers.ON_DYNAMODB_LOCAL = on_local
    try:
        yield
    finally:
        ddb_helpers.ON_DYNAMODB_LOCAL = False


@pytest.fixture(scope="session")
def dynamodb_local_endpoint() -> Iterator[str]:
    """URL of a DynamoDB Local for this session (this pytest process / xdist worker), started on demand."""
    existing = os.environ.get("DYNAMODB_LOCAL_ENDPOINT")
    if existing:
        yield existing
        return
    local = DynamoDBLocal(ensure_dynamodb_local())
    atexit.register(local.close)  # belt and braces if the session is torn down abnormally
    try:
        yield local.start()
    finally:
        local.close()


@pytest.fixture(scope="session", params=selected_backends())
def backend(request: pytest.FixtureRequest) -> Iterator[Backend]:
    instance = BACKEND_FACTORIES[request.param](request)
    try:
        yield instance
    finally:
        instance.close()


@pytest.fixture
def backend_name(backend: Backend) -> str:
    return backend.name


@pytest.fixture
def client(backend: Backend) -> Any:
    """A DynamoDB low-level client of the backend under test (shared for the session)."""
    return backend.client()


@pytest.fixture
def unchecked(backend: Backend, client: Any) -> Iterator[Any]:
    """The backend's DynamoDB client without botocore's client-side checks (as from an SDK that sends what it is
    given, the JavaScript SDK v3 say): requests breaking the model's minimums reach the service. The lean
    client always checks, so on that backend this is boto3 to the same server."""
    if backend.name == "embedded":
        from dynabase.client.embedded import EmbeddedClient

        class Unchecked(EmbeddedClient):
            def _validate(self, operation: str, params: dict[str, Any]) -> None:
                return None

        yield Unchecked(client.engine)
        return
    raw = boto3_client("dynamodb", client.meta.endpoint_url, parameter_validation=False)
    try:
        yield raw
    finally:
        raw.close()


@pytest.fixture
def streams_client(backend: Backend) -> Any:
    """The backend's DynamoDB Streams client (every backend has one: a missing one is an error, not a skip)."""
    return backend.streams_client()


@pytest.fixture
def make_table(client: Any) -> Iterator[Any]:
    """``make_table(keys=("pk:S", "sk:N"), gsis=[...], lsis=[...], ...) -> name``; tables are deleted after."""
    created: list[str] = []

    def factory(keys: Any = ("pk:S",), **shape: Any) -> str:
        name = _make_table(client, keys, **shape)
        created.append(name)
        return name

    factory.created = created  # tests that create tables by hand can append their names here
    yield factory
    errors = []
    for name in created:
        try:
            delete_table_quietly(client, name)
        except Exception as error:  # keep deleting the others; report the first failure
            errors.append(error)
    if errors:
        raise errors[0]


@pytest.fixture
def create_table(client: Any, make_table: Any) -> Any:
    """``create_table(**CreateTable params) -> response``: raw CreateTable; the table is deleted after the test."""

    def create(**params: Any) -> dict[str, Any]:
        make_table.created.append(params["TableName"])
        return client.create_table(**params)

    return create


@pytest.fixture
def hash_table(make_table: Any) -> str:
    """Table with a string hash key ``pk``."""
    return make_table(("pk:S",))


@pytest.fixture
def range_table(make_table: Any) -> str:
    """Table with string hash key ``pk`` and string range key ``sk``."""
    return make_table(("pk:S", "sk:S"))


@pytest.fixture
def num_range_table(make_table: Any) -> str:
    """Table with string hash key ``pk`` and number range key ``sk``."""
    return make_table(("pk:S", "sk:N"))


@pytest.fixture
def binary_table(make_table: Any) -> str:
    """Table with binary hash key ``pk`` and binary range key ``sk``."""
    return make_table(("pk:B", "sk:B"))
