"""The pytest plugin (entry point ``pytest11``): DynamoDB in process for every test that asks for it.

Fixtures:

- ``dynamodb`` / ``dynamodb_resource`` / ``dynamodb_streams`` -- boto3's client, resource and streams client,
  answered by dynabase (the test runs inside ``mock_dynamodb``; other boto3 clients it makes are too)
- ``dynabase_table(schema, name="test")`` -- an entity-layer :class:`dynabase.model.Table` on a boto3 client,
  its table created once per session
- ``dynabase_mock`` -- the test's :class:`MockDynamoDB` (``.engine()`` to look inside)
- ``dynabase_session`` -- the session's tables: what is created there (``create_table``, ``table``, or any
  call on ``client()``) is where every test starts

Every test starts from the session's tables as a copy (SQLite's backup API, well under a millisecond for a
few tables) rather than re-creating them, so suites of hundreds of tests stay fast; what a test writes is gone
for the next one. ``--dynabase-keep DIR`` keeps each test's databases in ``DIR/<test id>/`` to inspect after
a failure. Under pytest-xdist each worker has its own session and databases.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from .mock import MockDynamoDB
    from .state import Databases


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dynabase", "DynamoDB in process (dynabase)")
    group.addoption(
        "--dynabase-keep",
        metavar="DIR",
        default=None,
        help="keep each test's DynamoDB databases in DIR/<test id>/<account>_<region>.db (replaced on re-run)",
    )


def pytest_configure(config: pytest.Config) -> None:
    # before collection imports the code under test, so clients it makes at import time are routed too
    from .hook import install

    install()


class SessionTables:
    """The tables every test of the session starts with (one database per account and region)."""

    def __init__(self) -> None:
        from .state import Databases

        self.databases: Databases = Databases()
        self._definitions: dict[tuple[str, str, str], dict[str, Any]] = {}

    def engine(self, region: str | None = None, account_id: str | None = None) -> Any:
        from .state import DEFAULT_ACCOUNT, default_region

        return self.databases.engine(account_id or DEFAULT_ACCOUNT, region or default_region())

    def client(self, region: str | None = None, account_id: str | None = None) -> Any:
        """A boto3-compatible client on the session's database (:class:`dynabase.EmbeddedClient`)."""
        from ..client import EmbeddedClient

        return EmbeddedClient(self.engine(region, account_id))

    def create_table(self, region: str | None = None, account_id: str | None = None, **request: Any) -> None:
        """CreateTable in the session's database, once: a second call with the same request does nothing,
        one with a different request for the same table is an error."""
        self._once(region, account_id, request["TableName"], request, lambda c: c.create_table(**request))

    def table(
        self, schema: Any, name: str = "test", *, region: str | None = None, account_id: str | None = None
    ) -> dict[str, Any]:
        return self._table(schema, name, region, account_id)[0]

    def _table(self, schema: Any, name: str, region: Any, account_id: Any) -> tuple[dict[str, Any], bool]:
        from ..model import Table
        from ..schema import load_schema

        client = self.client(region, account_id)
        table = Table(name, client, load_schema(schema))
        definition = table.get_table_definition()
        return definition, self._once(region, account_id, name, definition, lambda c: table.create_table())

    def _once(self, region: Any, account_id: Any, name: str, definition: dict, create: Any) -> bool:
        """Run ``create`` unless this table was made before; True when it ran."""
        client = self.client(region, account_id)
        key = (client.engine.catalog.account, client.engine.region, name)
        known = self._definitions.get(key)
        if known is None:
            create(client)
            self._definitions[key] = definition
            return True
        if known != definition:
            raise ValueError(
                f"table {name!r} was already created for this session with another definition; "
                "give the second one another name"
            )
        return False


@pytest.fixture(scope="session")
def dynabase_session() -> Iterator[SessionTables]:
    tables = SessionTables()
    yield tables
    tables.databases.close()


def _test_directory(root: str, nodeid: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_.=-]+", "_", nodeid).strip("_")[:200] or "test"
    return os.path.join(root, name)


@pytest.fixture
def dynabase_mock(request: pytest.FixtureRequest, dynabase_session: SessionTables) -> Iterator[MockDynamoDB]:
    from .mock import MockDynamoDB

    keep = request.config.getoption("dynabase_keep")
    directory = _test_directory(keep, request.node.nodeid) if keep else None
    if directory:
        os.makedirs(directory, exist_ok=True)
    with MockDynamoDB(base=dynabase_session.databases, db=directory) as mock:
        yield mock


def _region() -> str:
    from .state import default_region

    return default_region()


@pytest.fixture
def dynamodb(dynabase_mock: MockDynamoDB) -> Any:
    """``boto3.client("dynamodb")``, answered in process; a fresh database per test."""
    import boto3

    return boto3.client("dynamodb", region_name=_region())


@pytest.fixture
def dynamodb_resource(dynabase_mock: MockDynamoDB) -> Any:
    """``boto3.resource("dynamodb")``, answered in process; a fresh database per test."""
    import boto3

    return boto3.resource("dynamodb", region_name=_region())


@pytest.fixture
def dynamodb_streams(dynabase_mock: MockDynamoDB) -> Any:
    """``boto3.client("dynamodbstreams")``, answered in process."""
    import boto3

    return boto3.client("dynamodbstreams", region_name=_region())


@pytest.fixture
def dynabase_table(dynabase_session: SessionTables, dynabase_mock: MockDynamoDB, dynamodb: Any) -> Any:
    """``dynabase_table(schema, name="test", **Table options)``: an entity-layer Table on the ``dynamodb``
    client, its table created once per session and empty at the start of each test."""
    from ..model import Table

    def make(schema: Any, name: str = "test", **options: Any) -> Table:
        region = dynamodb.meta.region_name
        definition, created = dynabase_session._table(schema, name, region, None)
        if created and dynabase_mock.opened(region):  # the test's copy of the session was taken before
            dynamodb.create_table(**definition)
        return Table(name, dynamodb, schema, **options)

    return make
