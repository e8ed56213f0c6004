"""The databases behind a mock: one embedded engine per AWS account and region, made on first use.

A :class:`Databases` can start from another one (its *base*): each engine it opens begins as a copy of the
base's engine for the same account and region, taken with SQLite's backup API. That is how a mock seeded
once (tables, items) and the pytest plugin's session tables give every test the same start state without
re-creating anything: copying a database of a few tables takes well under a millisecond.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Mapping

from ..engine import Engine
from ..server.runner import per_key_path

#: the account ARNs name when the access key says nothing else (moto's default, so migrated ARNs match)
DEFAULT_ACCOUNT = "123456789012"
DEFAULT_REGION = "us-east-1"

Key = tuple[str, str]  # (account, region)


def account_of(access_key: str, accounts: Mapping[str, str], default: str = DEFAULT_ACCOUNT) -> str:
    """The account an access key belongs to: ``accounts[key]``, else the key itself when it is a 12-digit
    account number (as LocalStack reads keys), else ``default``."""
    account = accounts.get(access_key)
    if account is not None:
        return account
    if len(access_key) == 12 and access_key.isdigit():
        return access_key
    return default


def default_region() -> str:
    """The region boto3 would pick from the environment, or us-east-1."""
    return os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or DEFAULT_REGION


class Databases:
    """Engines by (account, region). ``directory``: keep each database in a file there
    (``<account>_<region>.db``, replaced when it already exists) instead of in memory. ``base``: start every
    engine as a copy of the base's engine for the same account and region."""

    def __init__(
        self, directory: str | os.PathLike[str] | None = None, base: Databases | None = None
    ) -> None:
        self.directory = os.fspath(directory) if directory is not None else None
        self.base = base
        self._engines: dict[Key, Engine] = {}
        self._lock = threading.Lock()

    def engine(self, account: str = DEFAULT_ACCOUNT, region: str = DEFAULT_REGION) -> Engine:
        """The engine of one account and region, opened (and copied from the base) on first use."""
        key = (account, region)
        engine = self._engines.get(key)
        if engine is None:
            with self._lock:
                engine = self._engines.get(key)
                if engine is None:
                    engine = self._open(key)
                    self._engines[key] = engine
        return engine

    def opened(self) -> list[Key]:
        """The (account, region) pairs opened so far."""
        return list(self._engines)

    def path(self, account: str, region: str) -> str:
        if self.directory is None:
            return ":memory:"
        return per_key_path(os.path.join(self.directory, ""), account, region)

    def _open(self, key: Key) -> Engine:
        account, region = key
        path = self.path(account, region)
        if path != ":memory:":
            for stale in (
                path,
                path + "-wal",
                path + "-shm",
                path + "-lock",
            ):  # the last run's file of this name
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(stale)
        engine = Engine(path, region=region)
        engine.catalog.account = account
        source = self.base._engines.get(key) if self.base is not None else None
        if source is not None:
            copy_database(source, engine)
        return engine

    def close(self) -> None:
        with self._lock:
            engines, self._engines = list(self._engines.values()), {}
        for engine in engines:
            with contextlib.suppress(Exception):
                engine.close()


def copy_database(source: Engine, target: Engine) -> None:
    """Replace ``target``'s database with a copy of ``source``'s (SQLite's online backup), then let the
    target engine re-read its catalog."""
    with source.storage.lock, target.storage.lock:
        source.storage.conn.backup(target.storage.conn)
        target.storage.reload_catalog_version()
    target.catalog.forget()
    target.ensure_sweeper()
