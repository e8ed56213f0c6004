"""The command lines of ``dynabase sync-hub`` and ``dynabase sync --mqtt`` over a :class:`Fleet`'s cloud table and
broker, and the files they read (schema, password files): shared by the tests that start them as processes."""

from __future__ import annotations

import json
from pathlib import Path

import dynabase
from dynabase.model import Table

from .broker import HUB_USER
from .conftest import SCHEMA, Fleet, password


def files(directory: Path) -> tuple[str, dict[str, str]]:
    """The schema file and a password file per user (hub, dev1, dev2): ``(schema path, {user: path})``."""
    schema = directory / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    secrets = {}
    for user in (HUB_USER, "dev1", "dev2"):
        path = directory / f"{user}.pw"
        path.write_text(password(user) + "\n")
        secrets[user] = str(path)
    return str(schema), secrets


def device_db(fleet: Fleet, path: Path) -> Table:
    """A device database file with the fleet's table in it (the caller closes its client)."""
    table = Table(fleet.name, dynabase.connect(str(path)), SCHEMA, side="device")
    table.create_table()
    return table


def hub_command(fleet: Fleet, schema: str) -> list[str]:
    """``dynabase sync-hub`` over the fleet's cloud table (its endpoint, or else its embedded database file)
    and broker (credentials to add)."""
    where = ["--db", str(fleet.cloud_path)] if fleet.endpoint is None else ["--endpoint-url", fleet.endpoint]
    return ["sync-hub", schema, "--table", fleet.name, *where, "--mqtt", fleet.broker.url]


def sync_command(fleet: Fleet, schema: str, db: Path, device: str, secret: str, *more: str) -> list[str]:
    """``dynabase sync [MORE] --mqtt`` of the device database ``db`` as ``device`` (``secret``: its password
    file)."""
    return [
        "sync",
        *more,
        schema,
        "--db",
        str(db),
        "--table",
        fleet.name,
        "--mqtt",
        fleet.broker.url,
        "--device-id",
        device,
        "--username",
        device,
        "--password-file",
        secret,
    ]
