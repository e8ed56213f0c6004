"""Where an import writes: a table in a database file (or an in-memory database), or a table at an endpoint in
a region. An import checkpoint is kept per destination, so loading a file into a second place starts there
from the beginning instead of trusting progress made somewhere else."""

from __future__ import annotations

import re
import uuid
import weakref
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from .errors import TransferError

MEMORY = "memory:"
DEFAULT_PORTS = {"http": 80, "https": 443}

#: a token per in-memory engine: such a database has no name, and lives only as long as its engine
_memory_tokens: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class Destination:
    table: str
    #: the database file's absolute path (symlinks resolved), or ``memory:<token>`` for an in-memory database
    database: str | None = None
    #: the endpoint URL, normalised (lower-case scheme and host, no default port, no trailing slash)
    endpoint: str | None = None
    region: str | None = None

    @property
    def in_memory(self) -> bool:
        return bool(self.database and self.database.startswith(MEMORY))

    @property
    def gone(self) -> bool:
        """An in-memory database no engine of this process holds any more: nothing can resume into it."""
        token = (self.database or "")[len(MEMORY) :]
        return self.in_memory and token not in set(_memory_tokens.values())

    def __str__(self) -> str:
        if self.in_memory:
            return f"table {self.table!r} in an in-memory database"
        if self.database is not None:
            return f"table {self.table!r} in {self.database}"
        return f"table {self.table!r} at {self.endpoint} ({self.region})"

    def label(self) -> str:
        """A short name for file names: the database file's name or the endpoint's host, then the table."""
        if self.database is not None:
            where = "memory" if self.in_memory else Path(self.database).name
        else:
            where = f"{urlsplit(self.endpoint or '').netloc}-{self.region}"
        return re.sub(r"[^A-Za-z0-9._-]+", "_", f"{where}-{self.table}")

    def to_json(self) -> dict[str, str]:
        return {k: v for k, v in asdict(self).items() if v is not None}

    @classmethod
    def from_json(cls, document: Any) -> Destination:
        if not isinstance(document, dict) or not all(isinstance(v, str) for v in document.values()):
            raise ValueError("destination is not an object of strings")
        destination = cls(**document)
        if (destination.database is None) == (destination.endpoint is None):
            raise ValueError("destination names neither a database nor an endpoint")
        return destination


def normalise_endpoint(url: str) -> str:
    """``HTTP://LocalHost:80/`` -> ``http://localhost``: one spelling per endpoint."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:  # an IPv6 address
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        raise TransferError(f"endpoint URL {url!r} has an invalid port")
    if port is not None and port != DEFAULT_PORTS.get(scheme):
        host += f":{port}"
    return urlunsplit((scheme, host, parts.path.rstrip("/"), parts.query, ""))


def destination_of(client: Any, table: str) -> Destination:
    """Where ``client`` writes ``table``: an embedded client's database file, else boto3's endpoint + region."""
    storage = getattr(getattr(client, "engine", None), "storage", None)
    if storage is not None:
        path = str(storage.path)
        if path in ("", ":memory:") or path.startswith("file::memory:"):
            engine = client.engine
            token = _memory_tokens.setdefault(engine, uuid.uuid4().hex)
            return Destination(table, database=MEMORY + token)
        return Destination(table, database=str(Path(path).resolve()))
    meta = getattr(client, "meta", None)
    endpoint = getattr(meta, "endpoint_url", None)
    if isinstance(endpoint, str) and "://" in endpoint:
        return Destination(
            table, endpoint=normalise_endpoint(endpoint), region=str(getattr(meta, "region_name", "") or "")
        )
    raise TransferError(
        f"cannot tell where a {type(client).__name__} writes (it is neither an embedded dynabase client nor a "
        "boto3 client with an endpoint URL), so its import could not be checkpointed"
    )
