"""Fixtures: a console (``dynabase ui``'s server on a free loopback port) on an in-memory database holding the
schema's table ``device`` and a plain table ``paged``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .helpers import SCHEMA, ConsoleHTTP, fill_paged_table


@pytest.fixture(scope="module")
def console_client() -> Iterator[Any]:
    import dynabase
    from dynabase.model import Table

    client = dynabase.connect(":memory:")
    table = Table("device", client, SCHEMA)
    table.create_table()
    faults = table.model("Fault")
    for i in range(6):
        faults.create(
            {"deviceId": "d1", "severity": ("info", "warn", "error")[i % 3], "message": f"fault {i}"}
        )
    table.model("Device").create({"id": "d1", "name": "pump"})
    fill_paged_table(client, "paged")
    yield client
    client.close()


@pytest.fixture(scope="module")
def console_server(console_client: Any) -> Iterator[Any]:
    from dynabase.console.server import ConsoleServer, build

    server = ConsoleServer(build(console_client, target=":memory:", schema=SCHEMA)).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def http(console_server: Any) -> ConsoleHTTP:
    guard = console_server.app.guard
    return ConsoleHTTP(console_server.port, guard.cookie_name, guard.token)
