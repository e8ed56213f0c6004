"""Migrations with OneTable Migrate's bookkeeping.

Each applied migration is recorded as a ``_Migration`` item (hash ``_migration``, sort
``_migration:<version>``; fields ``version``, ``date``, ``path``, ``description``), the items OneTable Migrate
writes, so either tool sees the other's history.  Migrations are registered in Python::

    migrations = Migrations(table)

    @migrations.up("0.0.2", description="Add status")
    def add_status(table, migrations):
        for user in table.User.scan():
            table.User.update({**user, "status": "active"})

    @migrations.down("0.0.2")
    def drop_status(table, migrations):
        ...

    migrations.apply(1, "0.0.2")      # up; -1: down; 0: reset to the latest; 2: repeat (re-run up)
    migrations.status()               # {"current": "0.0.2", "applied": [...], "outstanding": [...]}

A migration may carry a ``schema``: it becomes the table's schema for the migration and is saved with
``save_schema`` afterwards (on the way down, the schema of the version returned to is saved).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from .errors import OneTableArgError

if TYPE_CHECKING:  # pragma: no cover
    from .table import Table

_SEMVER = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$")

Step = Callable[["Table", "Migrations"], Any]


def semver_key(version: str) -> tuple[Any, ...]:
    match = _SEMVER.match(version)
    if not match:
        raise OneTableArgError(f'"{version}" is not a SemVer version')
    major, minor, patch, pre = match.groups()
    if pre is None:
        pre_key: tuple[Any, ...] = (1,)
    else:
        pre_key = (0, *((0, int(p)) if p.isdigit() else (1, p) for p in pre.split(".")))
    return (int(major), int(minor), int(patch), pre_key)


def is_semver(version: str) -> bool:
    return bool(_SEMVER.match(version or ""))


@dataclass
class Migration:
    version: str
    description: str = ""
    up: Step | None = None
    down: Step | None = None
    schema: Any = None
    path: str = "memory"


class Migrations:
    """Registered migrations for one table, and the ``_Migration`` items recording what was applied."""

    def __init__(self, table: Table, migrations: list[Migration] | None = None) -> None:
        self.table = table
        self.migrations: dict[str, Migration] = {}
        for migration in migrations or []:
            self.add(migration)

    # -- registration -------------------------------------------------------------------------------------

    def add(self, migration: Migration | None = None, **fields: Any) -> Migration:
        """Register a migration (a :class:`Migration`, or its fields as keywords)."""
        if migration is None:
            migration = Migration(**fields)
        if not is_semver(migration.version):
            raise OneTableArgError(f'Migration version "{migration.version}" is not a SemVer version')
        existing = self.migrations.get(migration.version)
        if existing is not None:
            existing.up = migration.up or existing.up
            existing.down = migration.down or existing.down
            existing.description = migration.description or existing.description
            existing.schema = migration.schema if migration.schema is not None else existing.schema
            return existing
        self.migrations[migration.version] = migration
        return migration

    def up(self, version: str, *, description: str = "", schema: Any = None) -> Callable[[Step], Step]:
        """Decorator: the ``up`` step of ``version``."""

        def register(fn: Step) -> Step:
            self.add(Migration(version, description, up=fn, schema=schema))
            return fn

        return register

    def down(self, version: str) -> Callable[[Step], Step]:
        """Decorator: the ``down`` step of ``version``."""

        def register(fn: Step) -> Step:
            self.add(Migration(version, down=fn))
            return fn

        return register

    # -- state --------------------------------------------------------------------------------------------

    @property
    def _model(self) -> Any:
        return self.table.model("_Migration")

    def versions(self) -> list[str]:
        return sorted(self.migrations, key=semver_key)

    def past(self) -> list[dict[str, Any]]:
        """The ``_Migration`` records, oldest version first."""
        records = list(self._model.find({}, consistent=True))
        return sorted(records, key=lambda r: semver_key(r["version"]))

    def current_version(self) -> str:
        past = self.past()
        return past[-1]["version"] if past else "0.0.0"

    def outstanding(self, limit: int | None = None) -> list[str]:
        """Registered versions newer than the current one and not yet applied."""
        current = semver_key(self.current_version())
        applied = {r["version"] for r in self.past()}
        versions = [v for v in self.versions() if semver_key(v) > current and v not in applied]
        return versions[:limit] if limit is not None else versions

    def status(self) -> dict[str, Any]:
        past = self.past()
        return {
            "current": past[-1]["version"] if past else "0.0.0",
            "applied": past,
            "outstanding": self.outstanding(),
        }

    # -- applying -----------------------------------------------------------------------------------------

    def _get(self, version: str) -> Migration:
        migration = self.migrations.get(version)
        if migration is None:
            raise OneTableArgError(f"Cannot find migration for version {version}")
        return migration

    def _invoke(self, migration: Migration, method: str) -> None:
        table = self.table
        if migration.schema is not None:
            table.set_schema(migration.schema)
        step = migration.up if method == "up" else migration.down
        if step is not None:
            step(table, self)
        if method == "down":
            # the version returned to: the newest applied one below this migration
            below = [
                r["version"] for r in self.past() if semver_key(r["version"]) < semver_key(migration.version)
            ]
            previous = self.migrations.get(below[-1]) if below else None
            if previous is not None and previous.schema is not None:
                table.set_schema(previous.schema)
                table.save_schema(_document(previous.schema))
        elif migration.schema is not None:
            table.save_schema(_document(migration.schema))

    def _record(self, migration: Migration, *, update: bool = False) -> None:
        record = {
            "version": migration.version,
            "date": datetime.now(timezone.utc),
            "path": migration.path,
            "description": migration.description or migration.version,
        }
        if update:
            self._model.upsert(record)
        else:
            self._model.create(record, exists=None)

    def apply(self, direction: int, version: str | None = "latest") -> Migration | list[Migration] | None:
        """Apply one migration: ``direction`` 1 = up, -1 = down, 0 = reset (record every version but the last
        as applied, then run the last one up), 2 = repeat (run ``up`` again).

        ``version="latest"`` (or None): up applies every outstanding migration in order (returns the list);
        down reverts the current version.
        """
        if direction not in (-1, 0, 1, 2):
            raise OneTableArgError("direction must be 1 (up), -1 (down), 0 (reset) or 2 (repeat)")
        latest = version in (None, "latest")
        if direction == 0:
            model = self._model
            for record in self.past():
                model.remove({"version": record["version"]})
            versions = self.versions()
            if not versions:
                return None
            *earlier, version = versions
            for v in earlier:
                self._record(self._get(v))
            migration = self._get(version)
            self._invoke(migration, "up")
            self._record(migration)
            return migration
        if direction < 0:
            if latest or version is None:
                version = self.current_version()
            migration = self._get(version)
            self._invoke(migration, "down")
            self._model.remove({"version": migration.version})
            return migration
        if latest and direction == 1:
            applied = []
            for v in self.outstanding():
                migration = self._get(v)
                self._invoke(migration, "up")
                self._record(migration)
                applied.append(migration)
            return applied
        if latest or version is None:
            version = self.current_version()
        migration = self._get(version)
        self._invoke(migration, "up")
        self._record(migration, update=direction == 2)
        return migration


def _document(schema: Any) -> Any:
    raw = getattr(schema, "raw", None)
    return dict(raw) if isinstance(raw, dict) else schema


__all__ = ["Migration", "Migrations", "is_semver", "semver_key"]
