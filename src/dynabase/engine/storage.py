"""SQLite storage: one connection, the catalog of tables, and the physical layout of items and indexes.

Layout (keys as order-preserving byte strings from :func:`dynabase.types.encode_key`):

- ``dynabase_tables(name, id, description)``: the catalog, one row per DynamoDB table (description is JSON).
- ``t<id>(h, pk, sk, item, size, bin)``: the items, a rowid table with the unique key index ``"t<id> key"`` on
  ``(h, pk, sk)``. ``h`` is a 32-bit hash of the partition key, so a scan walks partitions in hash order as
  DynamoDB does and a parallel scan segment is a range of ``h``. ``sk`` is ``b""`` for tables without a sort key.
  ``item`` is the item's JSON (wire shape); ``bin`` says it holds binary values; ``size`` is DynamoDB's size.
- ``t<id>_<index>(ih, ik, isk, h, pk, sk)``: one per secondary index (WITHOUT ROWID), pointing back at the item.

Why a rowid table: a WITHOUT ROWID table is an index b-tree, whose rows spill to overflow pages past ~1 KB (on
4 KB pages) and leave most of each overflow page empty, so any item of 1-4 KB took ~4.7 KB. A rowid table keeps
rows up to ~4 KB whole in its leaf pages and fills its overflow pages; the key index stays small (keys and the
rowid). Every statement names ``h, pk, sk`` as before, so SQLite finds rows through the key index; the price is
a second b-tree step per row read (``bench/storage_bench.py`` has the disk figures, ``bench/engine_bench.py``
the speed). Files written before (item tables WITHOUT ROWID) are rewritten to this layout when opened, in the
transaction that opens them (:func:`upgrade_item_tables`).

``PRAGMA user_version`` counts catalog changes, so every connection (and process) sees DDL made by another.
"""

from __future__ import annotations

import base64
import json
import os
import sqlite3
import threading
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..errors import StorageError

SCHEMA = """
CREATE TABLE IF NOT EXISTS dynabase_tables (
    name TEXT PRIMARY KEY,
    id INTEGER NOT NULL UNIQUE,
    description TEXT NOT NULL
);
"""


def create_item_table(conn: Any, name: str) -> None:
    """Create the item table ``name`` and its key index (the layout above)."""
    conn.execute(
        f"CREATE TABLE {name} (h INTEGER NOT NULL, pk BLOB NOT NULL, sk BLOB NOT NULL, item TEXT NOT NULL, "
        "size INTEGER NOT NULL, bin INTEGER NOT NULL)"
    )
    # the name has a space: no secondary index table (t<id>_<letters, digits, _>) can take it
    conn.execute(f'CREATE UNIQUE INDEX "{name} key" ON {name} (h, pk, sk)')


#: the item table of files written before the rowid layout, which :func:`upgrade_item_tables` rewrites
WITHOUT_ROWID_ITEM_TABLE = (
    "CREATE TABLE {name} (h INTEGER NOT NULL, pk BLOB NOT NULL, sk BLOB NOT NULL, item TEXT NOT NULL, "
    "size INTEGER NOT NULL, bin INTEGER NOT NULL, PRIMARY KEY (h, pk, sk)) WITHOUT ROWID"
)


def upgrade_item_tables(conn: Any) -> list[str]:
    """Rewrite item tables of the old layout (WITHOUT ROWID) into the current one; call in a write transaction.

    Rows are copied as they are (nothing is decoded), then the old table is dropped: its pages go to SQLite's
    free list and are reused by later writes (``VACUUM`` returns them to the file system). Returns the names.
    """
    old = [
        name
        for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' "
            "AND name IN (SELECT 't' || id FROM dynabase_tables) AND sql LIKE '%WITHOUT ROWID'"
        )
    ]
    for name in old:
        conn.execute(f'ALTER TABLE {name} RENAME TO "{name} old"')
        create_item_table(conn, name)
        conn.execute(
            f"INSERT INTO {name} (h, pk, sk, item, size, bin) "
            f'SELECT h, pk, sk, item, size, bin FROM "{name} old" ORDER BY h, pk, sk'
        )
        conn.execute(f'DROP TABLE "{name} old"')
    return old


def partition_hash(pk: bytes) -> int:
    """The 32-bit hash that orders partitions (and splits parallel scan segments)."""
    return zlib.crc32(pk)


# -- item serialisation --------------------------------------------------------------------------------------


def _encode_default(value: Any) -> Any:
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    raise TypeError(f"cannot store {type(value).__name__}")


def _decode_binary(obj: dict) -> dict:
    if len(obj) == 1:
        if isinstance(obj.get("B"), str):
            return {"B": base64.b64decode(obj["B"])}
        bs = obj.get("BS")
        if isinstance(bs, list):
            return {"BS": [base64.b64decode(v) for v in bs]}
    return obj


_dumps_binary = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=_encode_default).encode
_stdlib_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_stdlib_scan = json.JSONDecoder().scan_once  # our own compact JSON: no surrounding whitespace to skip


def _stdlib_loads(text: str) -> Any:
    return _stdlib_scan(text, 0)[0]


try:  # orjson writes exactly the same compact text, 3-6x faster; the standard library's codec otherwise
    import orjson
except ImportError:  # pragma: no cover - orjson is a dependency, but the engine does not need it
    _dumps_plain, _loads_plain = _stdlib_dumps, _stdlib_loads
else:
    _orjson_dumps = orjson.dumps

    def _dumps_plain(item: dict) -> str:
        return _orjson_dumps(item).decode("utf-8")

    _loads_plain = orjson.loads


def dump_item(item: dict) -> tuple[str, int]:
    """An item as stored: JSON text, and 1 when it holds binary values (stored base64, decoded on load)."""
    try:
        return _dumps_plain(item), 0
    except TypeError:  # bytes somewhere in the item (orjson's JSONEncodeError is a TypeError too)
        return _dumps_binary(item), 1


def load_item(text: str, binary: int) -> dict:
    if binary:
        return json.loads(text, object_hook=_decode_binary)
    return _loads_plain(text)


# -- the connection ------------------------------------------------------------------------------------------


class Storage:
    """A SQLite database file (or memory) holding DynamoDB tables; safe to share between threads."""

    def __init__(self, path: str = ":memory:", *, timeout: float = 30.0) -> None:
        self.path = path
        self.lock = threading.RLock()
        #: an in-memory database has no other connection, so its catalog cannot change behind our back
        self.private = path == ":memory:"
        self._version = 0
        #: while not None (an engine has change listeners), what the current write transaction recorded for
        #: them: cut back by a rolled-back savepoint, dropped on rollback, handed to ``on_commit`` after COMMIT
        self.journal: list | None = None
        self.on_commit: Callable[[list], None] | None = None
        try:
            self.conn = sqlite3.connect(
                path, timeout=timeout, isolation_level=None, check_same_thread=False, cached_statements=512
            )
        except sqlite3.Error as error:
            raise StorageError(path, _open_failure(path, error)) from error
        try:
            self.conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
            if path != ":memory:" and not path.startswith("file::memory:"):
                self.conn.execute("PRAGMA journal_mode = WAL")
            # NORMAL in WAL mode: a committed write survives a crash of the process (not of the OS before a
            # checkpoint).
            self.conn.execute("PRAGMA synchronous = NORMAL")
            self.conn.execute("PRAGMA foreign_keys = OFF")
            with self.write():
                self.conn.execute(SCHEMA)
                upgrade_item_tables(self.conn)
        except sqlite3.Error as error:  # not a database, read-only, ...
            self.conn.close()
            raise StorageError(path, _open_failure(path, error)) from error

    # Transactions: writes take the database's write lock up front (BEGIN IMMEDIATE), so a read-check-write
    # sequence (conditions, updates) is atomic across threads and processes.
    def write(self) -> _WriteTransaction:
        """``with storage.write() as conn:`` -- one write transaction (nested uses join the outer one)."""
        return _WriteTransaction(self)

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A consistent snapshot for multi-statement reads."""
        with self.lock:
            conn = self.conn
            if conn.in_transaction:
                yield conn
                return
            conn.execute("BEGIN")
            try:
                yield conn
            finally:
                conn.execute("COMMIT")

    def catalog_version(self) -> int:
        if self.private:
            return self._version
        return self.conn.execute("PRAGMA user_version").fetchone()[0]

    def reload_catalog_version(self) -> None:
        """Re-read the catalog version after the database was replaced underneath (SQLite's backup API)."""
        self._version = self.conn.execute("PRAGMA user_version").fetchone()[0]

    def bump_catalog_version(self) -> None:
        """Call inside a write transaction that changed the catalog."""
        version = self.conn.execute("PRAGMA user_version").fetchone()[0] + 1
        self.conn.execute(f"PRAGMA user_version = {version}")
        self._version = version

    def close(self) -> None:
        with self.lock:
            self.conn.close()


def _open_failure(path: str, error: sqlite3.Error) -> str:
    """Why SQLite could not open or set up ``path``, in the user's terms where the file system tells."""
    target = Path(path).expanduser().absolute()
    if not target.parent.is_dir():
        return f"directory {target.parent} does not exist"
    if target.is_dir():
        return "it is a directory"
    if not os.access(target if target.exists() else target.parent, os.W_OK):
        return f"permission denied ({error})"
    return str(error)


class _WriteTransaction:
    """The context manager behind :meth:`Storage.write` (a class: cheaper than a generator on the hot path).

    Inside another transaction it is a savepoint: an error rolls back this part alone, as if it had run alone
    (the caller may catch the error and go on, as a batch does for each of its statements)."""

    __slots__ = ("storage", "nested", "mark")

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self.nested = False
        self.mark = 0

    def __enter__(self) -> sqlite3.Connection:
        storage = self.storage
        storage.lock.acquire()
        conn = storage.conn
        try:
            if conn.in_transaction:
                self.nested = True
                conn.execute("SAVEPOINT dynabase_nested")
                if storage.journal is not None:
                    self.mark = len(storage.journal)
            else:
                conn.execute("BEGIN IMMEDIATE")
        except BaseException:
            storage.lock.release()
            raise
        return conn

    def __exit__(self, kind: Any, error: Any, trace: Any) -> None:
        storage = self.storage
        conn = storage.conn
        try:
            if self.nested:
                if kind is not None:
                    conn.execute("ROLLBACK TO dynabase_nested")
                    if storage.journal:
                        del storage.journal[self.mark :]
                conn.execute("RELEASE dynabase_nested")
            elif storage.journal:
                self._end_journaled(kind is None)
            else:
                conn.execute("ROLLBACK" if kind is not None else "COMMIT")
        finally:
            storage.lock.release()

    def _end_journaled(self, commit: bool) -> None:
        """End a transaction that journaled entries: they go to ``on_commit`` once COMMIT succeeded (still
        under the lock, so in commit order), and are dropped otherwise."""
        storage = self.storage
        entries, storage.journal = storage.journal, []
        storage.conn.execute("COMMIT" if commit else "ROLLBACK")
        if commit and storage.on_commit is not None:
            storage.on_commit(entries)
